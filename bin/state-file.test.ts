/**
 * The --state file in process: its format, what a restart decides from it, its change log (every change in it
 * before its answer; a torn last line ignored, a bad line refused; folds, and what a kill in the middle of one
 * leaves), and the files it refuses (not regular, too large) or follows (a symbolic link, which stays one).
 */
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmulator, DEFAULT_START, type Emulator } from '../src/index.js';
import { FIXTURES_FILE_LIMIT, resolveTarget, STATE_FILE_LIMIT } from './regular-file.js';
import { FixturesFileError, readFixturesFile } from './fixtures-file.js';
import { loadState, planState, readStateFile, snapshotToRestore, StateFileError, StateStore } from './state-file.js';

let dir: string;
const emulators: Emulator[] = [];
const stores: StateStore[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'catalog-emulator-state-'));
});
afterEach(async () => {
  // A store a failed test left logging must not write into the next test's directory.
  await Promise.all(stores.splice(0).map((store) => store.close().catch(() => undefined)));
  await Promise.all(emulators.splice(0).map((emu) => emu.close()));
  rmSync(dir, { recursive: true, force: true });
});

function emulator(options: Parameters<typeof createEmulator>[0] = {}): Emulator {
  const emu = createEmulator({ companies: [{ cnpjRoot: '11222333' }], ...options });
  emulators.push(emu);
  return emu;
}

/** A store of `emu`'s state in `path`, saved and logging; errors and fatal errors kept for the test to read. */
function store(emu: Emulator, path: string, options: Partial<ConstructorParameters<typeof StateStore>[1]> = {}) {
  const errors: string[] = [];
  const fatal: string[] = [];
  const made = new StateStore(emu, {
    path,
    clock: 'manual',
    start: DEFAULT_START,
    sync: false,
    onError: (message) => errors.push(message),
    onFatal: (message) => fatal.push(message),
    ...options,
  });
  stores.push(made);
  made.saveNow();
  made.start();
  return { store: made, errors, fatal };
}

const refusal = (read: () => unknown): string => {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(StateFileError);
    return (error as Error).message;
  }
  throw new Error('read');
};

const catalogs = new WeakMap<Emulator, string>();
let keys = 0;

/** POSTs to the API as the emulator's company; the created record's id. */
async function post(emu: Emulator, path: string, body: unknown): Promise<string> {
  const [company] = emu.companies.initial();
  const answer = await emu.fetch(path, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${company!.token}`,
      'content-type': 'application/json',
      'idempotency-key': `state-file-test-${String(++keys).padStart(6, '0')}`,
    },
    body: JSON.stringify(body),
  });
  expect(answer.status).toBe(201);
  return ((await answer.json()) as { id: string }).id;
}

/** A new product in the company's catalog (made by the first call): a change of the state. */
async function addProduct(emu: Emulator): Promise<string> {
  let catalog = catalogs.get(emu);
  if (catalog === undefined) {
    catalog = await post(emu, '/v1/catalogos', {
      estabelecimento_id: emu.companies.initial()[0]!.headOffice.id,
      nome: 'Loja',
    });
    catalogs.set(emu, catalog);
  }
  return post(emu, `/v1/catalogos/${catalog}/produtos`, { origem: 'erp', ncm: '21069090' });
}

/**
 * Changes until the file holds another save than `id` (a fold in the background, whose writes complete only when the
 * event loop turns: an in-process request never lets it), at most `limit` of them.
 */
async function untilFolded(emu: Emulator, path: string, id: string, limit = 200): Promise<void> {
  for (let i = 0; idOf(path) === id; i++) {
    if (i === limit) throw new Error(`no fold after ${limit} changes`);
    await addProduct(emu);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The lines of a log file (its header first). */
const linesOf = (path: string): string[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
const idOf = (path: string): string => (JSON.parse(readFileSync(path, 'utf8')) as { id: string }).id;

describe('readStateFile', () => {
  it('is undefined for a file that is not there (a fresh start)', () => {
    expect(readStateFile(join(dir, 'none.json'))).toBeUndefined();
  });

  it.each([
    ['', 'is not JSON (Unexpected end of JSON input): not a state file of catalog-emulator'],
    ['[]', 'is not a state file of catalog-emulator: not a JSON object'],
    [
      '{"format":"other"}',
      'is not a state file of catalog-emulator: format is "other", not "catalog-emulator/state-file" (nor "catalog-emulator/state", a snapshot)',
    ],
    [
      '{"format":"catalog-emulator/state-file","version":3}',
      'is version 3 of the state-file format; this catalog-emulator reads versions 1 and 2',
    ],
    [
      '{"format":"catalog-emulator/state-file","version":1,"savedAt":"2026-01-01T00:00:00Z","clock":"real","start":0,"snapshot":{"seed":1},"x":1}',
      'has a key version 1 of the state-file format does not have: "x"',
    ],
    [
      '{"format":"catalog-emulator/state-file","version":1,"savedAt":"2026-01-01T00:00:00Z","clock":"real","start":0,"snapshot":{"seed":1},"id":"a"}',
      'has a key version 1 of the state-file format does not have: "id"',
    ],
    [
      '{"format":"catalog-emulator/state-file","version":2,"savedAt":"2026-01-01T00:00:00Z","clock":"real","start":0,"snapshot":{"seed":1}}',
      'id: must be the id of the save (a string)',
    ],
    [
      '{"format":"catalog-emulator/state-file","version":1,"savedAt":"yesterday","clock":"real","start":0,"snapshot":{"seed":1}}',
      'savedAt: must be an ISO 8601 date-time',
    ],
    [
      '{"format":"catalog-emulator/state-file","version":1,"savedAt":"2026-01-01T00:00:00Z","clock":"fast","start":0,"snapshot":{"seed":1}}',
      'clock: must be "real" or "manual"',
    ],
    [
      '{"format":"catalog-emulator/state-file","version":1,"savedAt":"2026-01-01T00:00:00Z","clock":"real","start":0.5,"snapshot":{"seed":1}}',
      'start: must be whole Unix milliseconds',
    ],
    [
      '{"format":"catalog-emulator/state-file","version":1,"savedAt":"2026-01-01T00:00:00Z","clock":"real","start":0,"snapshot":{"seed":true}}',
      'snapshot.seed: must be the seed of the emulator that saved it (a number or a string)',
    ],
  ])('refuses %j: %s', (text, message) => {
    const path = join(dir, 'state.json');
    writeFileSync(path, text);
    expect(refusal(() => readStateFile(path))).toBe(message);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('reads a bare snapshot (the body of GET /_emulator/state): its seed, no start, no save time; and a file of version 1', () => {
    const emu = emulator({ seed: 'abc' });
    const path = join(dir, 'snapshot.json');
    writeFileSync(path, JSON.stringify(emu.snapshot()));
    expect(readStateFile(path)).toMatchObject({
      seed: 'abc',
      start: undefined,
      saved: undefined,
      snapshot: { format: 'catalog-emulator/state' },
    });
    const v1 = join(dir, 'v1.json');
    writeFileSync(
      v1,
      JSON.stringify({
        format: 'catalog-emulator/state-file',
        version: 1,
        savedAt: '2026-01-01T00:00:00Z',
        clock: 'manual',
        start: 5,
        snapshot: emu.snapshot(),
      }),
    );
    // A log beside a file of version 1 is another state's: it is not read.
    writeFileSync(`${v1}.log`, 'not a log\n');
    expect(loadState(v1)).toMatchObject({
      seed: 'abc',
      start: 5,
      saved: { clock: 'manual', at: Date.UTC(2026, 0, 1) },
      snapshot: emu.snapshot(),
    });
  });
});

describe('planState and snapshotToRestore: how a restart uses the file', () => {
  const DAY = 24 * 60 * 60 * 1000;

  it("a fresh file: the seed given, and the start given, else the wall clock's now (real) or the default (manual)", () => {
    const path = join(dir, 'state.json');
    expect(planState(path, { seed: 3, start: '2030-01-01T00:00:00Z', clock: 'real' }, DEFAULT_START, 5)).toEqual({
      seed: 3,
      start: Date.UTC(2030, 0, 1),
      saved: undefined,
    });
    expect(planState(path, { seed: undefined, start: undefined, clock: 'real' }, DEFAULT_START, 5)).toEqual({
      seed: undefined,
      start: 5,
      saved: undefined,
    });
    expect(planState(path, { seed: undefined, start: undefined, clock: 'manual' }, DEFAULT_START, 5)).toEqual({
      seed: undefined,
      start: DEFAULT_START,
      saved: undefined,
    });
  });

  it('a saved file: its seed and start; another --seed or --start is refused, naming both', async () => {
    const emu = emulator({ seed: 9, start: '2030-01-01T00:00:00Z' });
    const path = join(dir, 'state.json');
    await store(emu, path, { start: Date.UTC(2030, 0, 1) }).store.close();
    expect(planState(path, { seed: undefined, start: undefined, clock: 'manual' }, DEFAULT_START, 5)).toMatchObject({
      seed: 9,
      start: Date.UTC(2030, 0, 1),
    });
    expect(
      planState(path, { seed: 9, start: '2030-01-01T00:00:00.000Z', clock: 'real' }, DEFAULT_START, 5),
    ).toMatchObject({ seed: 9, start: Date.UTC(2030, 0, 1) });
    expect(() => planState(path, { seed: 1, start: undefined, clock: 'manual' }, DEFAULT_START, 5)).toThrow(
      'holds an emulator of seed 9, not 1: leave --seed out to go on with it, or give another --state file',
    );
    expect(() =>
      planState(path, { seed: undefined, start: '2031-01-01T00:00:00Z', clock: 'manual' }, DEFAULT_START, 5),
    ).toThrow(
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

  it('real mode with a log: each clock is where it was at the last change logged, moved on by the time since', async () => {
    const emu = emulator({ clock: 'real' });
    const path = join(dir, 'state.json');
    store(emu, path, { clock: 'real' });
    await addProduct(emu);
    const file = readStateFile(path)!;
    const line = linesOf(`${path}.log`).at(-1);
    const { at, worlds } = JSON.parse(line!) as { at: number; worlds: { now: number }[] };
    const loaded = loadState(path)!;
    // The last change is where the clocks are: its wall time is the save's, its now the state's.
    expect(loaded.saved).toEqual({ clock: 'real', at });
    expect(loaded.snapshot.now).toBe(worlds[0]!.now);
    expect(at).toBeGreaterThanOrEqual(file.saved!.at);
    expect(snapshotToRestore(loaded, 'real', at + 1000).now).toBe(worlds[0]!.now + 1000);
  });
});

describe('StateStore: every change in the log before its answer', () => {
  it('saveNow writes the file whole (version 2, with its id) and an empty log that follows it; no temporary file is left', async () => {
    const emu = emulator();
    const product = await addProduct(emu);
    const path = join(dir, 'state.json');
    writeFileSync(`${path}.999999.tmp`, 'left by a killed run');
    writeFileSync(`${path}.999999.3.tmp`, 'left by a killed run');
    writeFileSync(`${path}.log.999999.tmp`, 'left by a killed run');
    store(emu, path);
    expect(readdirSync(dir).sort()).toEqual(['state.json', 'state.json.log']);
    const saved = readStateFile(path)!;
    expect(saved).toMatchObject({ seed: 1, start: DEFAULT_START, saved: { clock: 'manual' }, id: expect.any(String) });
    expect(saved.snapshot).toEqual(emu.snapshot());
    expect(linesOf(`${path}.log`)).toEqual([
      JSON.stringify({ format: 'catalog-emulator/state-log', version: 1, base: saved.id, after: null }),
    ]);
    const next = emulator();
    next.restore(saved.snapshot);
    const [company] = next.companies.initial();
    expect(
      (await next.fetch(`/v1/produtos/${product}`, { headers: { authorization: `Bearer ${company!.token}` } })).status,
    ).toBe(200);
  });

  it('appends each change to the log before its answer resolves, and leaves the file as it was until a fold', async () => {
    const emu = emulator();
    const path = join(dir, 'state.json');
    store(emu, path);
    const file = readFileSync(path, 'utf8');
    for (let i = 0; i < 3; i++) {
      const product = await addProduct(emu);
      // Read at once, as the answer arrives: the change is in the log already.
      expect(JSON.stringify(loadState(path)!.snapshot)).toContain(product);
      expect(loadState(path)!.snapshot).toEqual(emu.snapshot());
    }
    expect(readFileSync(path, 'utf8')).toBe(file);
    // The header, the catalog, and a line per product.
    expect(linesOf(`${path}.log`).length).toBe(5);
  });

  it('with sync (--state-sync): concurrent changes are each in the log when answered, one fdatasync for each turn', async () => {
    const emu = emulator();
    const path = join(dir, 'state.json');
    store(emu, path, { sync: true });
    await addProduct(emu);
    const ids = await Promise.all(Array.from({ length: 20 }, () => addProduct(emu)));
    const state = JSON.stringify(loadState(path)!.snapshot);
    for (const id of ids) expect(state).toContain(id);
    expect(loadState(path)!.snapshot).toEqual(emu.snapshot());
  });

  it('ignores a last line torn by a kill (no end of line), and only a last line', async () => {
    const emu = emulator();
    const path = join(dir, 'state.json');
    store(emu, path);
    await addProduct(emu);
    const before = emu.snapshot();
    const whole = readFileSync(`${path}.log`, 'utf8');
    appendFileSync(`${path}.log`, '{"kind":"changed","at":1,"worlds":[{"compa');
    expect(loadState(path)!.snapshot).toEqual(before);
    // The same bytes with an end of line are a line, which is not JSON: refused, naming it.
    writeFileSync(`${path}.log`, `${whole}{"kind":"changed","at":1,"worlds":[{"compa\n`);
    const log = readFileSync(`${path}.log`, 'utf8');
    expect(refusal(() => loadState(path))).toMatch(
      /^has a change log that cannot be replayed: state\.json\.log line 4 is not JSON \(.*\)$/,
    );
    expect(readFileSync(`${path}.log`, 'utf8')).toBe(log);
  });

  it('refuses a line that is not a change of the state it follows, naming the line and the place', async () => {
    const emu = emulator();
    const path = join(dir, 'state.json');
    store(emu, path);
    await addProduct(emu);
    const lines = linesOf(`${path}.log`);
    const entry = JSON.parse(lines[2]!) as { worlds: { records: [string, string, { ncm: string }[], boolean][] }[] };
    const product = entry.worlds[0]!.records.findIndex(([slice]) => slice === 'products');
    entry.worlds[0]!.records[product]![2][0]!.ncm = 'x';
    writeFileSync(`${path}.log`, `${[lines[0], lines[1], JSON.stringify(entry)].join('\n')}\n`);
    expect(refusal(() => loadState(path))).toBe(
      `has a change log that cannot be replayed: state.json.log line 3: at worlds.0.records.${product}.2.0.ncm: Invalid string: must match pattern /^\\d{8}$/`,
    );
    writeFileSync(
      `${path}.log`,
      `${lines[0]}\n{"kind":"changed","worlds":[],"dropped":["0190a000-0000-7000-8000-000000000001"]}\n`,
    );
    expect(refusal(() => loadState(path))).toBe(
      'has a change log that cannot be replayed: state.json.log line 2: at dropped: no company 0190a000-0000-7000-8000-000000000001 on a clock of its own to drop',
    );
    writeFileSync(`${path}.log`, '{"format":"something else"}\n');
    expect(refusal(() => loadState(path))).toBe(
      'state.json.log line 1 is not the header of a change log of catalog-emulator ({"format":"catalog-emulator/state-log","version":1,"base":…,"after":…})',
    );
  });

  it('a reset (or a restore) saves the whole state before its answer, and the log starts over', async () => {
    const emu = emulator();
    const path = join(dir, 'state.json');
    store(emu, path);
    await addProduct(emu);
    const id = idOf(path);
    const answer = await emu.fetch('/_emulator/reset', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status).toBe(200);
    expect(idOf(path)).not.toBe(id);
    expect(linesOf(`${path}.log`)).toEqual([
      JSON.stringify({ format: 'catalog-emulator/state-log', version: 1, base: idOf(path), after: null }),
    ]);
    expect(loadState(path)!.snapshot).toEqual(emu.snapshot());
  });
});

describe('StateStore: folds', () => {
  it('folds the log into the file once it is as large as the snapshot, in the background; nothing is lost meanwhile', async () => {
    const emu = emulator();
    const path = join(dir, 'state.json');
    const { store: made, errors } = store(emu, path, { foldAtLeast: 4096 });
    const first = idOf(path);
    const size = statSync(path).size;
    await untilFolded(emu, path, first);
    expect(errors).toEqual([]);
    const [header] = linesOf(`${path}.log`);
    expect(JSON.parse(header!)).toEqual({
      format: 'catalog-emulator/state-log',
      version: 1,
      base: idOf(path),
      after: first,
    });
    expect(statSync(path).size).toBeGreaterThan(size);
    expect(existsSync(`${path}.log.next`)).toBe(false);
    await addProduct(emu);
    expect(loadState(path)!.snapshot).toEqual(emu.snapshot());
    await made.close();
    expect(readdirSync(dir).sort()).toEqual(['state.json', 'state.json.log']);
    expect(linesOf(`${path}.log`).length).toBe(1);
    expect(loadState(path)!.snapshot).toEqual(emu.snapshot());
  });

  it('a kill at any step of a fold leaves files that load as the state at the kill', async () => {
    const emu = emulator();
    const path = join(dir, 'state.json');
    const crash = join(dir, 'crash');
    mkdirSync(crash);
    const at = (name: string) => join(crash, name);
    /** Loads what `files` (name in crash/ → source) would be after a kill. */
    const loadAfterKill = (files: Record<string, string>) => {
      for (const name of readdirSync(crash)) rmSync(at(name));
      for (const [name, source] of Object.entries(files)) copyFileSync(source, at(name));
      return loadState(at('state.json'))!.snapshot;
    };
    let release!: () => void;
    let held!: Promise<void>;
    let written = false;
    const { errors } = store(emu, path, {
      foldAtLeast: 4096,
      // The fold's snapshot is written, then held until the test lets it go on to its renames.
      writeInBackground: async (temp, text) => {
        writeFileSync(temp, text);
        written = true;
        await held;
      },
    });
    held = new Promise((resolve) => (release = resolve));
    const first = idOf(path);
    for (let i = 0; !written; i++) {
      if (i === 200) throw new Error('no fold after 200 changes');
      await addProduct(emu);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Mid-fold: FILE is the old save, FILE.log frozen at the fold's start, the changes since in FILE.log.next.
    expect(existsSync(`${path}.log.next`)).toBe(true);
    await addProduct(emu);
    const midFold = emu.snapshot();
    const oldLog = join(dir, 'old.log');
    copyFileSync(`${path}.log`, oldLog);
    const nextLog = join(dir, 'next.log');
    copyFileSync(`${path}.log.next`, nextLog);
    expect(loadAfterKill({ 'state.json': path, 'state.json.log': oldLog, 'state.json.log.next': nextLog })).toEqual(
      midFold,
    );
    // Killed as the new log was made, its header torn: the old save and its log alone, which is all that was answered.
    const torn = join(dir, 'torn.log');
    writeFileSync(torn, readFileSync(nextLog, 'utf8').slice(0, 20));
    const beforeFold = loadAfterKill({ 'state.json': path, 'state.json.log': oldLog });
    expect(loadAfterKill({ 'state.json': path, 'state.json.log': oldLog, 'state.json.log.next': torn })).toEqual(
      beforeFold,
    );
    expect(beforeFold).not.toEqual(midFold);
    release();
    for (let i = 0; idOf(path) === first; i++) {
      if (i === 1000) throw new Error('the fold did not end');
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(errors).toEqual([]);
    // After the snapshot's rename, before the log's: the new save and FILE.log.next, the old FILE.log aside.
    copyFileSync(`${path}.log`, nextLog);
    expect(loadAfterKill({ 'state.json': path, 'state.json.log': oldLog, 'state.json.log.next': nextLog })).toEqual(
      emu.snapshot(),
    );
    // After both renames.
    expect(loadAfterKill({ 'state.json': path, 'state.json.log': `${path}.log` })).toEqual(emu.snapshot());
    // A synchronous fold (a reset) killed after its snapshot's rename, before its new log: the snapshot alone.
    expect(
      (await emu.fetch('/_emulator/reset', { method: 'POST', headers: { 'content-type': 'application/json' } })).status,
    ).toBe(200);
    expect(loadAfterKill({ 'state.json': path, 'state.json.log': oldLog, 'state.json.log.next': nextLog })).toEqual(
      emu.snapshot(),
    );
  });
});

describe('the files serve reads: regular, bounded; a symbolic link followed and kept', () => {
  const stateRefusal = (path: string) => refusal(() => readStateFile(path));
  const fixturesRefusal = (path: string) => {
    try {
      readFixturesFile(path);
    } catch (error) {
      expect(error).toBeInstanceOf(FixturesFileError);
      return (error as Error).message;
    }
    throw new Error('read');
  };

  it('refuses a FIFO at once (never opened, so never waited on), as a state file, a log or fixtures', () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(stateRefusal(fifo)).toBe('is a FIFO (named pipe), not a regular file: a state file is a regular file');
    expect(fixturesRefusal(fifo)).toBe('is a FIFO (named pipe), not a regular file: a fixtures file is a regular file');
    const emu = emulator();
    const path = join(dir, 'state.json');
    store(emu, path);
    rmSync(`${path}.log`);
    execFileSync('mkfifo', [`${path}.log`]);
    expect(refusal(() => loadState(path))).toBe(
      'state.json.log is a FIFO (named pipe), not a regular file: a change log is a regular file',
    );
  });

  it('refuses a socket, a folder and a device (a symbolic link to /dev/zero)', async () => {
    const socket = join(dir, 'socket');
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      expect(stateRefusal(socket)).toBe('is a socket, not a regular file: a state file is a regular file');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(stateRefusal(dir)).toBe('is a folder, not a regular file: a state file is a regular file');
    const zero = join(dir, 'zero.json');
    symlinkSync('/dev/zero', zero);
    expect(stateRefusal(zero)).toBe('is a character device, not a regular file: a state file is a regular file');
    expect(fixturesRefusal(zero)).toBe('is a character device, not a regular file: a fixtures file is a regular file');
  });

  it('refuses a file over its limit before reading it (a sparse file: nothing is read or allocated)', () => {
    const big = join(dir, 'big.json');
    writeFileSync(big, '');
    truncateSync(big, STATE_FILE_LIMIT + 1);
    expect(stateRefusal(big)).toBe(`is 512 MiB, over 512 MiB, the limit of a state file`);
    truncateSync(big, FIXTURES_FILE_LIMIT + 1);
    expect(fixturesRefusal(big)).toBe('is 64 MiB, over 64 MiB, the limit of a fixtures file');
    truncateSync(big, 3 * 1024 * 1024 * 1024);
    expect(stateRefusal(big)).toBe('is 3072 MiB, over 512 MiB, the limit of a state file');
  });

  it('follows a symbolic link to the file it names, reading and writing there: the link stays a link', async () => {
    const real = join(dir, 'real');
    mkdirSync(real);
    const target = join(real, 'target.json');
    const link = join(dir, 'state.json');
    symlinkSync(target, link);
    // A link to a file not there yet: the file is made where the link points.
    expect(resolveTarget(link)).toBe(target);
    const emu = emulator();
    const { store: made } = store(emu, resolveTarget(link), { foldAtLeast: 4096 });
    await addProduct(emu);
    await untilFolded(emu, target, idOf(target));
    await made.close();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(readdirSync(real).sort()).toEqual(['target.json', 'target.json.log']);
    expect(loadState(resolveTarget(link))!.snapshot).toEqual(emu.snapshot());
    // A chain of links, relative ones too, ends at the same file.
    symlinkSync('state.json', join(dir, 'again.json'));
    expect(resolveTarget(join(dir, 'again.json'))).toBe(target);
  });

  it('says so when the folder of the file is not there', () => {
    expect(() => resolveTarget(join(dir, 'none', 'state.json'))).toThrow(
      `cannot be written: the folder of ${join(dir, 'none', 'state.json')} does not exist`,
    );
  });
});
