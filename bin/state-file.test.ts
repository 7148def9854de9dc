/** The --state file in process: its format, what a restart decides from it, and the saver's batching. */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmulator, DEFAULT_START, type Emulator } from '../src/index.js';
import { planState, readStateFile, snapshotToRestore, StateFileError, StateSaver } from './state-file.js';

let dir: string;
const emulators: Emulator[] = [];
const savers: StateSaver[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'catalog-emulator-state-'));
});
afterEach(async () => {
  // A saver a failed test left running must not write into the next test's directory.
  await Promise.all(savers.splice(0).map((saver) => saver.close().catch(() => undefined)));
  await Promise.all(emulators.splice(0).map((emu) => emu.close()));
  rmSync(dir, { recursive: true, force: true });
});

function emulator(options: Parameters<typeof createEmulator>[0] = {}): Emulator {
  const emu = createEmulator({ companies: [{ cnpjRoot: '11222333' }], ...options });
  emulators.push(emu);
  return emu;
}

const refusal = (path: string): string => {
  try {
    readStateFile(path);
  } catch (error) {
    expect(error).toBeInstanceOf(StateFileError);
    return (error as Error).message;
  }
  throw new Error('read');
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const catalogs = new WeakMap<Emulator, string>();
let keys = 0;

/** POSTs to the API as the emulator's company; the created record's id. */
async function post(emu: Emulator, path: string, body: unknown): Promise<string> {
  const [company] = emu.companies.initial();
  const answer = await emu.fetch(path, {
    method: 'POST',
    headers: { authorization: `Bearer ${company!.token}`, 'content-type': 'application/json', 'idempotency-key': `state-file-test-${String(++keys).padStart(6, '0')}` },
    body: JSON.stringify(body),
  });
  expect(answer.status).toBe(201);
  return ((await answer.json()) as { id: string }).id;
}

/** A new product in the company's catalog (made by the first call): a change of the state. */
async function addProduct(emu: Emulator): Promise<string> {
  let catalog = catalogs.get(emu);
  if (catalog === undefined) {
    catalog = await post(emu, '/v1/catalogos', { estabelecimento_id: emu.companies.initial()[0]!.headOffice.id, nome: 'Loja' });
    catalogs.set(emu, catalog);
  }
  return post(emu, `/v1/catalogos/${catalog}/produtos`, { origem: 'erp', ncm: '21069090' });
}

describe('readStateFile', () => {
  it('is undefined for a file that is not there (a fresh start)', () => {
    expect(readStateFile(join(dir, 'none.json'))).toBeUndefined();
  });

  it.each([
    ['', 'is not JSON (Unexpected end of JSON input): not a state file of catalog-emulator'],
    ['[]', 'is not a state file of catalog-emulator: not a JSON object'],
    ['{"format":"other"}', 'is not a state file of catalog-emulator: format is "other", not "catalog-emulator/state-file" (nor "catalog-emulator/state", a snapshot)'],
    ['{"format":"catalog-emulator/state-file","version":2}', 'is version 2 of the state-file format; this catalog-emulator reads version 1'],
    ['{"format":"catalog-emulator/state-file","version":1,"savedAt":"2026-01-01T00:00:00Z","clock":"real","start":0,"snapshot":{"seed":1},"x":1}', 'has a key the state-file format does not have: "x"'],
    ['{"format":"catalog-emulator/state-file","version":1,"savedAt":"yesterday","clock":"real","start":0,"snapshot":{"seed":1}}', 'savedAt: must be an ISO 8601 date-time'],
    ['{"format":"catalog-emulator/state-file","version":1,"savedAt":"2026-01-01T00:00:00Z","clock":"fast","start":0,"snapshot":{"seed":1}}', 'clock: must be "real" or "manual"'],
    ['{"format":"catalog-emulator/state-file","version":1,"savedAt":"2026-01-01T00:00:00Z","clock":"real","start":0.5,"snapshot":{"seed":1}}', 'start: must be whole Unix milliseconds'],
    ['{"format":"catalog-emulator/state-file","version":1,"savedAt":"2026-01-01T00:00:00Z","clock":"real","start":0,"snapshot":{"seed":true}}', 'snapshot.seed: must be the seed of the emulator that saved it (a number or a string)'],
  ])('refuses %j: %s', (text, message) => {
    const path = join(dir, 'state.json');
    writeFileSync(path, text);
    expect(refusal(path)).toBe(message);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('reads a bare snapshot (the body of GET /_emulator/state): its seed, no start, no save time', () => {
    const emu = emulator({ seed: 'abc' });
    const path = join(dir, 'snapshot.json');
    writeFileSync(path, JSON.stringify(emu.snapshot()));
    expect(readStateFile(path)).toMatchObject({ seed: 'abc', start: undefined, saved: undefined, snapshot: { format: 'catalog-emulator/state' } });
  });
});

describe('planState and snapshotToRestore: how a restart uses the file', () => {
  const DAY = 24 * 60 * 60 * 1000;

  it("a fresh file: the seed given, and the start given, else the wall clock's now (real) or the default (manual)", () => {
    const path = join(dir, 'state.json');
    expect(planState(path, { seed: 3, start: '2030-01-01T00:00:00Z', clock: 'real' }, DEFAULT_START, 5)).toEqual({ seed: 3, start: Date.UTC(2030, 0, 1), saved: undefined });
    expect(planState(path, { seed: undefined, start: undefined, clock: 'real' }, DEFAULT_START, 5)).toEqual({ seed: undefined, start: 5, saved: undefined });
    expect(planState(path, { seed: undefined, start: undefined, clock: 'manual' }, DEFAULT_START, 5)).toEqual({ seed: undefined, start: DEFAULT_START, saved: undefined });
  });

  it('a saved file: its seed and start; another --seed or --start is refused, naming both', () => {
    const emu = emulator({ seed: 9, start: '2030-01-01T00:00:00Z' });
    const path = join(dir, 'state.json');
    new StateSaver(emu, { path, clock: 'manual', start: Date.UTC(2030, 0, 1), onError: () => undefined }).saveNow();
    expect(planState(path, { seed: undefined, start: undefined, clock: 'manual' }, DEFAULT_START, 5)).toMatchObject({ seed: 9, start: Date.UTC(2030, 0, 1) });
    expect(planState(path, { seed: 9, start: '2030-01-01T00:00:00.000Z', clock: 'real' }, DEFAULT_START, 5)).toMatchObject({ seed: 9, start: Date.UTC(2030, 0, 1) });
    expect(() => planState(path, { seed: 1, start: undefined, clock: 'manual' }, DEFAULT_START, 5)).toThrow('holds an emulator of seed 9, not 1: leave --seed out to go on with it, or give another --state file');
    expect(() => planState(path, { seed: undefined, start: '2031-01-01T00:00:00Z', clock: 'manual' }, DEFAULT_START, 5)).toThrow(
      'holds an emulator started at 2030-01-01T00:00:00.000Z, not 2031-01-01T00:00:00.000Z: leave --start out to go on with it, or give another --state file',
    );
  });

  it('real mode: the clocks move on by the time the server was down; manual mode, or a file saved in manual mode: the saved instant', () => {
    const emu = emulator({ start: '2030-01-01T00:00:00Z' });
    emu.companies.create({ clock: 'own', cnpjRoot: '44555666' });
    const snapshot = emu.snapshot();
    const savedAt = Date.UTC(2026, 10, 1);
    const saved = (clock: 'real' | 'manual') => ({ seed: 1, start: 0, saved: { clock, at: savedAt }, snapshot });
    const restarted = snapshotToRestore(saved('real'), 'real', savedAt + 2 * DAY);
    expect(restarted.now).toBe(snapshot.now + 2 * DAY);
    expect(restarted.ownClocks!.map((own) => own.now)).toEqual(snapshot.ownClocks!.map((own) => own.now + 2 * DAY));
    expect(snapshot.now).toBe(Date.UTC(2030, 0, 1)); // the file's own data is not changed
    expect(snapshotToRestore(saved('real'), 'manual', savedAt + 2 * DAY)).toBe(snapshot);
    expect(snapshotToRestore(saved('manual'), 'real', savedAt + 2 * DAY)).toBe(snapshot);
    // A wall clock set back does not move the virtual clock back.
    expect(snapshotToRestore(saved('real'), 'real', savedAt - DAY)).toBe(snapshot);
    // The restored emulator is at that instant, and a restore takes it.
    const next = emulator({ start: '2030-01-01T00:00:00Z' });
    next.restore(restarted);
    expect(next.clock.now().toISOString()).toBe('2030-01-03T00:00:00.000Z');
  });
});

describe('StateSaver', () => {
  it('saveNow writes the file whole, which reads back as the same state, and leaves no temporary file', async () => {
    const emu = emulator();
    const catalog = await addProduct(emu);
    const path = join(dir, 'state.json');
    writeFileSync(`${path}.999999.tmp`, 'left by a killed run');
    new StateSaver(emu, { path, clock: 'manual', start: DEFAULT_START, onError: () => undefined }).saveNow();
    expect(readdirSync(dir)).toEqual(['state.json']);
    const saved = readStateFile(path)!;
    expect(saved).toMatchObject({ seed: 1, start: DEFAULT_START, saved: { clock: 'manual' } });
    expect(saved.snapshot).toEqual(emu.snapshot());
    const next = emulator();
    next.restore(saved.snapshot);
    const [company] = next.companies.initial();
    expect((await next.fetch(`/v1/produtos/${catalog}`, { headers: { authorization: `Bearer ${company!.token}` } })).status).toBe(200);
  });

  it('saves within a few hundred ms of a change, not again while nothing changes, and once more on close', async () => {
    const emu = emulator();
    const path = join(dir, 'state.json');
    const failures: string[] = [];
    const saver = new StateSaver(emu, { path, clock: 'manual', start: DEFAULT_START, onError: (message) => failures.push(message) });
    savers.push(saver);
    saver.saveNow();
    saver.start();
    const first = statSync(path).ino;
    await sleep(350);
    expect(statSync(path).ino).toBe(first); // nothing changed: not rewritten

    const catalog = await addProduct(emu);
    // A tick (100 ms) after the change; the bound only ends a wait that would never succeed.
    const until = Date.now() + 20_000;
    while (!readFileSync(path, 'utf8').includes(catalog) && Date.now() < until) await sleep(20);
    expect(readFileSync(path, 'utf8')).toContain(catalog);
    expect(readStateFile(path)!.snapshot).toEqual(emu.snapshot());

    const second = await addProduct(emu);
    await saver.close();
    expect(readStateFile(path)!.snapshot).toEqual(emu.snapshot());
    expect(readFileSync(path, 'utf8')).toContain(second);
    expect(failures).toEqual([]);
  });

  it('a save that fails is reported once, keeps the previous file, and the next change after the cause is gone saves', async () => {
    const emu = emulator();
    const path = join(dir, 'state.json');
    const errors: string[] = [];
    const saver = new StateSaver(emu, { path, clock: 'manual', start: DEFAULT_START, onError: (message) => errors.push(message) });
    savers.push(saver);
    saver.saveNow();
    const before = readFileSync(path, 'utf8');
    // The temporary file's name taken by a directory: every write of it fails.
    const temp = `${path}.${process.pid}.tmp`;
    rmSync(temp, { force: true });
    mkdirSync(temp);
    saver.start();
    await addProduct(emu);
    // The first failure is reported at a tick; waiting for it (not a fixed time) holds on a loaded machine too.
    const reported = Date.now() + 20_000;
    while (errors.length === 0 && Date.now() < reported) await sleep(20);
    await addProduct(emu);
    // Failing saves go on every tick (100 ms) meanwhile: none of them reports again.
    await sleep(400);
    expect(errors).toEqual([expect.stringMatching(/^cannot save the state to .*state\.json \(EISDIR\); it keeps its previous content, and the next change tries again$/)]);
    expect(readFileSync(path, 'utf8')).toBe(before);
    rmSync(temp, { recursive: true });
    await addProduct(emu);
    const until = Date.now() + 20_000;
    while (errors.length < 2 && Date.now() < until) await sleep(20);
    expect(errors[1]).toBe(`saved again to ${path}`);
    await saver.close();
    expect(readStateFile(path)!.snapshot).toEqual(emu.snapshot());
  });
});
