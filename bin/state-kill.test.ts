/**
 * The --state guarantee under fire: the built CLI (dist/bin/catalog-emulator.js) is killed with SIGKILL at random
 * moments, 50 times, while concurrent clients create products through the API, and restarted on the same file
 * each time. After every kill the file must load (in process, and by the next server), and hold a state at least
 * as new as every state the file was ever seen to hold; every few rounds the clients stop and the server is
 * killed only after a quiet moment, when every product it acknowledged (201) must be there. (A kill during the
 * writes may lose the acknowledged writes of the last moments, those after the last save: saves are batched.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { createEmulator } from '../src/index.js';
import { readStateFile } from './state-file.js';

const CLI = fileURLToPath(new URL('../dist/bin/catalog-emulator.js', import.meta.url));
const KILLS = 50;
/** Every QUIET_EVERY-th round the clients stop, and the kill comes after a quiet moment longer than a save takes. */
const QUIET_EVERY = 10;
const QUIET_MS = 1000;
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

/** Starts the CLI on the state file; resolves with its URL and token once the banner is out. */
function start(): Promise<{ child: ChildProcess; url: string; token: string; exited: Promise<unknown> }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--log', 'silent', '--state', path, ...(children.size === 0 ? ['--seed', String(SEED)] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const exited = new Promise((resolve) => child.on('exit', resolve)).finally(() => children.delete(child));
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
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before its banner\n${stdout}\n${stderr}`));
    });
  });
}

/** The product ids a state file holds, after checking that it loads: restored into an emulator and listed over its API. */
async function productsInFile(): Promise<Set<string>> {
  const saved = readStateFile(path);
  expect(saved).toBeDefined();
  const emu = createEmulator({ seed: SEED });
  emu.restore(saved!.snapshot);
  const ids = new Set<string>();
  for (const company of emu.companies.list()) {
    const credential = saved!.snapshot.state.credentials.find((c) => c.companyId === company.id)!;
    let cursor: string | null = null;
    do {
      const answer = await emu.fetch(`/v1/produtos?limite=200${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, { headers: { authorization: `Bearer ${credential.token}` } });
      expect(answer.status).toBe(200);
      const page = (await answer.json()) as { itens: { id: string }[]; proximo_cursor: string | null };
      for (const item of page.itens) ids.add(item.id);
      cursor = page.proximo_cursor;
    } while (cursor !== null);
  }
  await emu.close();
  return ids;
}

/** The product ids of a file as it is now, read without the API; undefined if it cannot be parsed (it always can). */
function peek(): Set<string> | undefined {
  try {
    const file = JSON.parse(readFileSync(path, 'utf8')) as { snapshot: { state: { products: { id: string }[] } } };
    return new Set(file.snapshot.state.products.map((p) => p.id));
  } catch {
    return undefined;
  }
}

const missing = (expected: Iterable<string>, actual: Set<string>) => [...expected].filter((id) => !actual.has(id));

it(`--state survives ${KILLS} SIGKILLs at random moments under concurrent API writes`, { timeout: 180_000 }, async () => {
  /** Every product a 201 acknowledged. */
  const acknowledged = new Set<string>();
  /** Every product some complete version of the file was seen to hold while a server ran. */
  const seen = new Set<string>();
  let attempted = 0;
  let peeks = 0;
  let key = 0;
  for (let round = 0; round < KILLS; round++) {
    const server = await start();
    const auth = { authorization: `Bearer ${server.token}` };
    const json = { ...auth, 'content-type': 'application/json' };
    // The restarted server holds every product the file was ever seen with.
    const loaded = new Set<string>();
    for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
      const page = (await (await fetch(`${server.url}/v1/produtos?limite=200${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, { headers: auth })).json()) as { itens: { id: string }[]; proximo_cursor: string | null };
      for (const item of page.itens) loaded.add(item.id);
      cursor = page.proximo_cursor;
    }
    expect(missing(seen, loaded), `round ${round}: products the file held before, missing after the restart`).toEqual([]);
    expect(loaded.size).toBeLessThanOrEqual(attempted);

    // A catalog to write into: the one the state has, or a new one.
    const catalogs = (await (await fetch(`${server.url}/v1/catalogos`, { headers: auth })).json()) as { itens: { id: string }[] };
    let catalog = catalogs.itens[0]?.id;
    if (catalog === undefined) {
      const establishments = (await (await fetch(`${server.url}/v1/estabelecimentos`, { headers: auth })).json()) as { itens: { id: string }[] };
      const created = await fetch(`${server.url}/v1/catalogos`, { method: 'POST', headers: { ...json, 'idempotency-key': `kill-catalog-${round}-00000000` }, body: JSON.stringify({ estabelecimento_id: establishments.itens[0]!.id, nome: 'Loja' }) });
      expect(created.status).toBe(201);
      catalog = ((await created.json()) as { id: string }).id;
    }

    const quiet = round % QUIET_EVERY === QUIET_EVERY - 1;
    /** The products this round's server acknowledged: after a quiet kill, each must be in the file. */
    const acknowledgedNow = new Set<string>();
    let writing = true;
    const writer = async () => {
      while (writing) {
        attempted++;
        try {
          const answer = await fetch(`${server.url}/v1/catalogos/${catalog}/produtos`, { method: 'POST', headers: { ...json, 'idempotency-key': `kill-product-${String(++key).padStart(8, '0')}` }, body: JSON.stringify({ origem: 'erp', ncm: '21069090' }) });
          if (answer.status === 201) {
            const { id } = (await answer.json()) as { id: string };
            acknowledged.add(id);
            acknowledgedNow.add(id);
          }
        } catch {
          return; // the server was killed under this request
        }
      }
    };
    const watcher = async () => {
      while (writing) {
        const ids = peek();
        expect(ids, `round ${round}: the file could not be parsed while the server ran`).toBeDefined();
        peeks++;
        for (const id of ids!) seen.add(id);
        await sleep(10);
      }
    };
    const load = Promise.all([...Array.from({ length: WRITERS }, writer), watcher()]);
    await sleep(30 + Math.random() * 370);
    if (quiet) {
      writing = false;
      await load;
      await sleep(QUIET_MS);
    }
    server.child.kill('SIGKILL');
    writing = false;
    await Promise.all([load, server.exited]);

    // The file loads, and holds at least every product it was seen with; after a quiet moment, every acknowledged one.
    const inFile = await productsInFile();
    expect(missing(seen, inFile), `round ${round}: products the file held before, missing after the kill`).toEqual([]);
    if (quiet) expect(missing([...loaded, ...acknowledgedNow], inFile), `round ${round}: acknowledged products missing after a quiet kill`).toEqual([]);
    for (const id of inFile) seen.add(id);
  }
  // The load was real: many products acknowledged, the file watched many times.
  expect(acknowledged.size).toBeGreaterThan(200);
  expect(peeks).toBeGreaterThan(KILLS * 3);
  const final = await productsInFile();
  expect(missing(seen, final)).toEqual([]);
});
