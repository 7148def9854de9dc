/** The public entry of catalog-emulator: the package's API and its teaching demos, written against that API. */
export * from './public.js';
export { demos, type Demo, type DemoPacer } from './demos/index.js';
