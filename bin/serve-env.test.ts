/**
 * The serve options read from the environment: the merge itself, then the built CLI (`npm test` builds first)
 * started with only variables, with a flag beside a variable, and with each kind of bad value.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, killAll, ROOT, runCli, type Run } from './cli-run.js';
import { SERVE_VARIABLES, withEnvironment } from './serve-env.js';

const SPAWN_TIMEOUT_MS = 10_000;

/** Every serve variable unset, so that the caller's own environment (a PORT, say) never reaches an assertion. */
const UNSET = Object.fromEntries(Object.values(SERVE_VARIABLES).map((name) => [name, undefined]));

describe('withEnvironment', () => {
  it('fills each absent flag from its variable, and says the variable is where the value came from', () => {
    const settled = withEnvironment(
      {},
      {
        PORT: '4010',
        CATALOG_EMULATOR_SEED: '7',
        CATALOG_EMULATOR_CLOCK: 'manual',
        CATALOG_EMULATOR_FIXTURES: 'f.json',
        CATALOG_EMULATOR_STATE: 's.json',
        CATALOG_EMULATOR_ALLOW_HOSTS: ' emulator , api ',
        CATALOG_EMULATOR_CONTROL_TOKEN: 't',
        CATALOG_EMULATOR_HISTORY_ENTRIES: '500',
        CATALOG_EMULATOR_HISTORY_BYTES: '4MiB',
      },
    );
    if (typeof settled === 'string') throw new Error(settled);
    expect(settled.flags).toEqual({
      port: '4010',
      seed: '7',
      clock: 'manual',
      fixtures: 'f.json',
      state: 's.json',
      'allow-host': ['emulator', 'api'],
      'control-token': 't',
      'history-entries': '500',
      'history-bytes': '4MiB',
    });
    expect(
      Object.keys(SERVE_VARIABLES).map((option) => settled.origin(option as keyof typeof SERVE_VARIABLES)),
    ).toEqual(Object.values(SERVE_VARIABLES));
  });

  it('the flag wins over its variable; an empty variable counts as unset; other flags pass as they are', () => {
    const settled = withEnvironment(
      { port: '0', 'allow-host': ['a'], json: true },
      { PORT: '4010', CATALOG_EMULATOR_ALLOW_HOSTS: 'b', CATALOG_EMULATOR_CLOCK: '' },
    );
    if (typeof settled === 'string') throw new Error(settled);
    expect(settled.flags).toEqual({ port: '0', 'allow-host': ['a'], json: true });
    expect([settled.origin('port'), settled.origin('allow-host'), settled.origin('clock')]).toEqual([
      '--port',
      '--allow-host',
      '--clock',
    ]);
  });

  it('refuses an empty name among the allowed hosts, naming the variable', () => {
    expect(withEnvironment({}, { CATALOG_EMULATOR_ALLOW_HOSTS: 'emulator,' })).toBe(
      'CATALOG_EMULATOR_ALLOW_HOSTS takes host names separated by commas, e.g. emulator,catalog-emulator (got "emulator,")',
    );
  });
});

/** The start line of `serve --json`, as far as these tests read it. */
interface Ready {
  url: string;
  companies: { cnpjRoot: string; token: string; name?: string }[];
  clock: { mode: string; now: string };
  seed: number | string;
  controlTokenRequired: boolean;
}

/** The first line the server prints, once it is out: its start line. */
function startLine(run: Run): Promise<Ready> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const end = run.stdout.indexOf('\n');
      if (end < 0) return;
      run.child.stdout!.off('data', check);
      resolve(JSON.parse(run.stdout.slice(0, end)) as Ready);
    };
    run.child.stdout!.on('data', check);
    run.exited.then(
      ({ code }) =>
        reject(new Error(`catalog-emulator exited (${code}) before its start line\nstderr:\n${run.stderr}`)),
      reject,
    );
  });
}

/** The status of GET `path` sent to the server with this Host header. */
function statusFor(url: string, path: string, host: string, token?: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    request(
      {
        host: hostname,
        port,
        path,
        headers: { host, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode!);
      },
    )
      .on('error', reject)
      .end();
  });
}

const folders: string[] = [];

beforeAll(assertBuilt);
afterEach(async () => {
  await killAll();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('catalog-emulator serve configured by its environment', { timeout: 20_000 }, () => {
  it('PORT, CATALOG_EMULATOR_SEED, _CLOCK, _ALLOW_HOSTS, _CONTROL_TOKEN, _FIXTURES and _STATE stand for their flags', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'serve-env-'));
    folders.push(folder);
    const run = runCli(['--json', '--log', 'silent'], {
      env: {
        ...UNSET,
        PORT: '0',
        CATALOG_EMULATOR_SEED: '42',
        CATALOG_EMULATOR_CLOCK: 'manual',
        CATALOG_EMULATOR_ALLOW_HOSTS: 'emulator, api',
        CATALOG_EMULATOR_CONTROL_TOKEN: 'a-control-token-of-32-characters!',
        CATALOG_EMULATOR_FIXTURES: join(ROOT, 'examples', 'fixtures.json'),
        CATALOG_EMULATOR_STATE: join(folder, 'state.json'),
      },
    });
    const ready = await startLine(run);
    expect(ready.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.url).not.toMatch(/:0$/);
    expect(ready.clock).toEqual({ mode: 'manual', now: '2026-01-01T00:00:00.000Z' });
    expect(ready.seed).toBe(42);
    expect(ready.controlTokenRequired).toBe(true);
    expect(ready.companies.map((company) => company.name ?? company.cnpjRoot)).toEqual([
      ready.companies[0]!.cnpjRoot,
      'Acme Alimentos',
      'Leitura Ltda',
    ]);
    const token = ready.companies[0]!.token;
    const port = new URL(ready.url).port;
    expect(await statusFor(ready.url, '/v1/empresa', `emulator:${port}`, token)).toBe(200);
    expect(await statusFor(ready.url, '/v1/empresa', `api:${port}`, token)).toBe(200);
    expect(await statusFor(ready.url, '/v1/empresa', `elsewhere:${port}`, token)).toBe(403);
    expect(await statusFor(ready.url, '/_emulator/clock', `emulator:${port}`)).toBe(401);
    expect(
      await statusFor(ready.url, '/_emulator/clock', `emulator:${port}`, 'a-control-token-of-32-characters!'),
    ).toBe(200);
    run.child.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);

    // The state file the variable named was saved: started from it again, without the fixtures, the server still
    // knows the company they made.
    const again = await startLine(
      runCli(['--json', '--log', 'silent'], {
        env: {
          ...UNSET,
          PORT: '0',
          CATALOG_EMULATOR_CLOCK: 'manual',
          CATALOG_EMULATOR_STATE: join(folder, 'state.json'),
        },
      }),
    );
    expect(await statusFor(again.url, '/v1/empresa', '127.0.0.1', ready.companies[1]!.token)).toBe(200);
  });

  it('a flag wins over its variable, even over one that would be refused', async () => {
    const run = runCli(
      ['--port', '0', '--clock', 'manual', '--seed', '5', '--allow-host', 'emulator', '--json', '--log', 'silent'],
      {
        env: {
          ...UNSET,
          PORT: 'not-a-port',
          CATALOG_EMULATOR_CLOCK: 'sideways',
          CATALOG_EMULATOR_SEED: '6',
          CATALOG_EMULATOR_ALLOW_HOSTS: 'api,,',
        },
      },
    );
    const ready = await startLine(run);
    expect([ready.clock.mode, ready.seed]).toEqual(['manual', 5]);
    const port = new URL(ready.url).port;
    expect(await statusFor(ready.url, '/v1/empresa', `api:${port}`, ready.companies[0]!.token)).toBe(403);
  });

  it.each([
    [{ PORT: '70000' }, 'PORT must be an integer from 0 to 65535 (got "70000")'],
    [{ PORT: '0', CATALOG_EMULATOR_CLOCK: 'fast' }, 'CATALOG_EMULATOR_CLOCK must be "real" or "manual" (got "fast")'],
    [
      { PORT: '0', CATALOG_EMULATOR_ALLOW_HOSTS: 'emulator,,api' },
      'CATALOG_EMULATOR_ALLOW_HOSTS takes host names separated by commas, e.g. emulator,catalog-emulator (got "emulator,,api")',
    ],
    [
      { PORT: '0', CATALOG_EMULATOR_ALLOW_HOSTS: 'http://emulator' },
      'CATALOG_EMULATOR_ALLOW_HOSTS: "http://emulator" is not a host name; give a name or address without port or scheme, e.g. "emulator" (or "*" for any host)',
    ],
    [
      { PORT: '0', CATALOG_EMULATOR_FIXTURES: '/no/such/fixtures.json' },
      'CATALOG_EMULATOR_FIXTURES /no/such/fixtures.json: no such file',
    ],
    [
      { PORT: '0', CATALOG_EMULATOR_FIXTURES: join(ROOT, 'package.json') },
      `CATALOG_EMULATOR_FIXTURES ${join(ROOT, 'package.json')}: name: is not a key of the fixtures format here (keys are case-sensitive; check the spelling)`,
    ],
    [
      { PORT: '0', CATALOG_EMULATOR_STATE: '/no/such/folder/state.json' },
      'CATALOG_EMULATOR_STATE /no/such/folder/state.json cannot be written: the folder of /no/such/folder/state.json does not exist',
    ],
  ])('a bad value exits 2 with one line naming the variable: %o', async (env, message) => {
    const run = runCli(['--json'], { env: { ...UNSET, ...env }, timeoutMs: SPAWN_TIMEOUT_MS });
    expect(await run.exited).toEqual({ code: 2, signal: null });
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n')[0]).toBe(`catalog-emulator: ${message}`);
  });
});
