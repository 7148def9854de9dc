/**
 * The --state guarantee under fire: the built CLI (dist/bin/catalog-emulator.js) is killed with SIGKILL at random
 * moments, 50 times, while 4 concurrent clients create products through the API, and restarted on the same file
 * each time. After every kill, the restarted server holds every product any server acknowledged (201), with nothing
 * lost: an acknowledged change is in the change log before its answer leaves (spec: REQ-12); a kill in the middle of
 * a line's write leaves a torn last line, which the restart ignores. It also holds every product the file's snapshot
 * was ever seen with, and at the end the state loads in process too. One kill in ten comes while a server starts,
 * replaying the log and folding it into the file, before it serves. (A kill in the middle of a fold in the
 * background, which a round's few writes rarely reach, is tested step by step in state-file.test.ts.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { createEmulator } from '../src/index.js';
import { loadState, readStateFile } from './state-file.js';

const CLI = fileURLToPath(new URL('../dist/bin/catalog-emulator.js', import.meta.url));
const KILLS = 50;
/** Every START_KILL_EVERY-th kill comes while a server starts (replaying the log, folding it), before its banner. */
const START_KILL_EVERY = 10;
const WRITERS = 4;
const SEED = 5;

const dir = mkdtempSync(join(tmpdir(), 'catalog-emulator-kill-'));
const path = join(dir, 'state.json');
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let started = 0;

/** Spawns the CLI on the state file. */
function spawnServer(): { child: ChildProcess; exited: Promise<unknown> } {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'serve',
      '--port',
      '0',
      '--log',
      'silent',
      '--state',
      path,
      ...(started++ === 0 ? ['--seed', String(SEED)] : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.add(child);
  const exited = new Promise((resolve) => child.on('exit', resolve)).finally(() => children.delete(child));
  return { child, exited };
}

/** Starts the CLI on the state file; resolves with its URL and token once the banner is out. */
function start(): Promise<{ child: ChildProcess; url: string; token: string; exited: Promise<unknown> }> {
  const { child, exited } = spawnServer();
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 15 s\n${stdout}\n${stderr}`)), 15_000);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /listening on (\S+)\n[^]*?token: +(\S+)\n/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1]!, token: match[2]!, exited });
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code ?? signal} before its banner\n${stdout}\n${stderr}`));
    });
  });
}

/** The product ids of the state the file and its log hold, after checking that it loads: restored, listed over the API. */
async function productsInFile(): Promise<Set<string>> {
  const saved = loadState(path);
  expect(saved).toBeDefined();
  const emu = createEmulator({ seed: SEED });
  emu.restore(saved!.snapshot);
  const ids = new Set<string>();
  for (const company of emu.companies.list()) {
    const credential = saved!.snapshot.state.credentials.find((c) => c.companyId === company.id)!;
    let cursor: string | null = null;
    do {
      const answer = await emu.fetch(
        `/v1/produtos?limite=200${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
        { headers: { authorization: `Bearer ${credential.token}` } },
      );
      expect(answer.status).toBe(200);
      const page = (await answer.json()) as { itens: { id: string }[]; proximo_cursor: string | null };
      for (const item of page.itens) ids.add(item.id);
      cursor = page.proximo_cursor;
    } while (cursor !== null);
  }
  await emu.close();
  return ids;
}

/** The product ids a server lists, page after page. */
async function listed(url: string, token: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
    const answer = await fetch(
      `${url}/v1/produtos?limite=200${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    expect(answer.status).toBe(200);
    const page = (await answer.json()) as { itens: { id: string }[]; proximo_cursor: string | null };
    for (const item of page.itens) ids.add(item.id);
    cursor = page.proximo_cursor;
  }
  return ids;
}

/** The product ids of the file's snapshot as it is now (its log aside), read while the server writes it. */
function peek(): Set<string> {
  return new Set(readStateFile(path)!.snapshot.state.products.map((p) => p.id));
}

const missing = (expected: Iterable<string>, actual: Set<string>) => [...expected].filter((id) => !actual.has(id));

it(`--state loses no acknowledged write to any of ${KILLS} SIGKILLs at random moments under ${WRITERS} concurrent writers`, {
  timeout: 120_000,
}, async () => {
  /** Every product a 201 acknowledged. */
  const acknowledged = new Set<string>();
  /** Every product the file's snapshot was seen to hold while a server ran. */
  const seen = new Set<string>();
  let attempted = 0;
  let peeks = 0;
  let key = 0;
  let killedStarting = 0;
  /** The acknowledgements the serving rounds waited for before their kill. */
  let targets = 0;
  let serving = 0;
  for (let round = 0; round < KILLS; round++) {
    if (round % START_KILL_EVERY === START_KILL_EVERY - 1) {
      // Killed while it starts: somewhere in reading the file, replaying its log, restoring, folding, listening.
      const starting = spawnServer();
      await sleep(30 + Math.random() * 250);
      if (starting.child.exitCode === null) killedStarting++;
      starting.child.kill('SIGKILL');
      await starting.exited;
      continue;
    }
    const server = await start();
    serving++;
    const auth = { authorization: `Bearer ${server.token}` };
    const json = { ...auth, 'content-type': 'application/json' };
    // The restarted server holds every product acknowledged before.
    const loaded = await listed(server.url, server.token);
    expect(missing(acknowledged, loaded), `round ${round}: acknowledged products missing after the restart`).toEqual(
      [],
    );
    expect(missing(seen, loaded), `round ${round}: products the file held before, missing after the restart`).toEqual(
      [],
    );
    expect(loaded.size).toBeLessThanOrEqual(attempted);

    // A catalog to write into: the one the state has, or a new one.
    const catalogs = (await (await fetch(`${server.url}/v1/catalogos`, { headers: auth })).json()) as {
      itens: { id: string }[];
    };
    let catalog = catalogs.itens[0]?.id;
    if (catalog === undefined) {
      const establishments = (await (await fetch(`${server.url}/v1/estabelecimentos`, { headers: auth })).json()) as {
        itens: { id: string }[];
      };
      const created = await fetch(`${server.url}/v1/catalogos`, {
        method: 'POST',
        headers: { ...json, 'idempotency-key': `kill-catalog-${round}-00000000` },
        body: JSON.stringify({ estabelecimento_id: establishments.itens[0]!.id, nome: 'Loja' }),
      });
      expect(created.status).toBe(201);
      catalog = ((await created.json()) as { id: string }).id;
    }

    let writing = true;
    // The kill comes after a random number of this round's writes were acknowledged, then a random instant more:
    // every round writes, however loaded the machine (a kill at a fixed time could come before any answer).
    const target = 3 + Math.floor(Math.random() * 15);
    targets += target;
    let roundAcknowledged = 0;
    let reached!: () => void;
    const enough = new Promise<void>((resolve) => (reached = resolve));
    const writer = async () => {
      while (writing) {
        attempted++;
        try {
          const answer = await fetch(`${server.url}/v1/catalogos/${catalog}/produtos`, {
            method: 'POST',
            headers: { ...json, 'idempotency-key': `kill-product-${String(++key).padStart(8, '0')}` },
            body: JSON.stringify({ origem: 'erp', ncm: '21069090' }),
          });
          if (answer.status === 201) {
            acknowledged.add(((await answer.json()) as { id: string }).id);
            if (++roundAcknowledged >= target) reached();
          }
        } catch {
          return; // the server was killed under this request
        }
      }
    };
    const watcher = async () => {
      while (writing) {
        for (const product of peek()) seen.add(product);
        peeks++;
        await sleep(25);
      }
    };
    const load = Promise.all([...Array.from({ length: WRITERS }, writer), watcher()]);
    // At a random moment of the writes: before, during or after a fold of the log.
    await enough;
    await sleep(Math.random() * 50);
    server.child.kill('SIGKILL');
    writing = false;
    await Promise.all([load, server.exited]);
  }
  // The state after the last kill: restarted once more, and loaded in process.
  const server = await start();
  const after = await listed(server.url, server.token);
  server.child.kill('SIGKILL');
  await server.exited;
  expect(missing(acknowledged, after), 'acknowledged products missing after the last kill').toEqual([]);
  // The load was real: every serving round's writes acknowledged before its kill, the file watched in every round,
  // servers killed as they started.
  expect(acknowledged.size, 'products acknowledged').toBeGreaterThanOrEqual(targets);
  expect(targets).toBeGreaterThanOrEqual(3 * serving);
  expect(peeks, 'looks at the file while servers ran').toBeGreaterThanOrEqual(serving);
  expect(killedStarting, 'servers killed before their banner').toBeGreaterThan(0);
  const final = await productsInFile();
  expect(missing(acknowledged, final)).toEqual([]);
});
