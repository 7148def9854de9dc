/**
 * Set up before each file of the unit project, whose files share their worker (isolate: false): the globals a
 * file may change without meaning to are put back as the worker had them before its first file. A server started
 * in process (emu.listen(), through @hono/node-server) replaces the global Request and Response with its own, and
 * a later file's `instanceof Request` would then see another class. The first file of a worker records them.
 */
const PRISTINE = Symbol.for('catalog-emulator.unit-globals');
const NAMES = ['Request', 'Response', 'Headers', 'fetch'] as const;

type Saved = Record<(typeof NAMES)[number], unknown>;
const holder = globalThis as unknown as Record<symbol, Saved | undefined>;
const saved = (holder[PRISTINE] ??= Object.fromEntries(NAMES.map((name) => [name, globalThis[name]])) as Saved);
for (const name of NAMES) {
  if (globalThis[name] !== saved[name])
    Object.defineProperty(globalThis, name, { value: saved[name], writable: true, configurable: true });
}
