/**
 * The public entry of catalog-emulator: the package's API, and what is written against that API: its teaching demos
 * and the search over fault plans (explore).
 */
export * from './public.js';
export { demos, type Demo, type DemoPacer } from './demos/index.js';
export * from './explore/index.js';
