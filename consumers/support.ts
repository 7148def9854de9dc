/**
 * What the consumer test (consumers.test.ts, under the Node.js running vitest) and the node-versions test
 * (node-versions.test.ts, under each Node.js of node-binaries.ts) share: the package packed and installed into a
 * temporary folder as a user's project gets it, and the checks of the projects beside this file and of the
 * installed bin, each run under the Node.js it is given, so that each check is written once for every version.
 *
 * The package's dependencies come from npm's cache where `npm ci` put them (--prefer-offline); the runners
 * (vitest, jest, typescript, @types/node) are this repository's own, linked into the folder: one version of each,
 * locked in package-lock.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, succeeded, type Ran } from '../spec-tests/support/command.js';
import { expect } from 'vitest';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** This folder, without a trailing separator (as dirname gives it). */
const HERE = dirname(fileURLToPath(import.meta.url));
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const RUNNERS = ['vitest', 'jest', 'typescript', '@types/node'];
/**
 * A step's time-out catches a hang, it measures nothing: TypeScript 6's tsc checking the package's declarations
 * whole (skipLibCheck false) takes minutes on a 2-core machine with a second suite beside it.
 */
export const STEP_TIMEOUT_MS = 300_000;

/**
 * A Node.js to run a user's commands under: its binary (what `node` and a bin's `#!/usr/bin/env node` start, as it
 * is first on PATH) and the environment of a user's shell with it, none of the variables this vitest run set for
 * its own workers.
 */
export interface NodeRuntime {
  /** Without the v: 24.22.3. */
  readonly version: string;
  readonly node: string;
  readonly env: NodeJS.ProcessEnv;
}

export function nodeRuntime(node: string, version: string): NodeRuntime {
  const env = Object.fromEntries(
    Object.entries({ ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', CI: 'true' }).filter(
      ([name]) => !/^(VITEST|TEST$|NODE_ENV$|NODE_OPTIONS$)/.test(name),
    ),
  );
  env.PATH = [dirname(node), ...(process.env.PATH ?? '').split(delimiter)].join(delimiter);
  return { version, node, env };
}

/** The Node.js running this test. */
export const CURRENT = nodeRuntime(process.execPath, process.versions.node);

/** Runs a command to its end under `runtime`; one still running after `timeoutMs` is killed and fails the step. */
export function run(
  runtime: NodeRuntime,
  command: string,
  args: readonly string[],
  cwd: string,
  timeoutMs = STEP_TIMEOUT_MS,
): Promise<Ran> {
  return runCommand(command, args, { cwd, env: runtime.env, timeoutMs });
}

/** `run`, which must exit 0: the output is in the failure message otherwise. */
export async function ok(
  runtime: NodeRuntime,
  command: string,
  args: readonly string[],
  cwd: string,
  timeoutMs?: number,
): Promise<Ran> {
  return succeeded(
    await run(runtime, command, args, cwd, timeoutMs),
    `${command} ${args.join(' ')} (in ${cwd}, Node ${runtime.version})`,
  );
}

const require = createRequire(import.meta.url);
/** The script of a package's bin, from its package.json (resolved by name, so that knip sees the use). */
export function bin(packageJson: string): string {
  const { bin } = require(packageJson) as { bin: string | Record<string, string> };
  return join(dirname(packageJson), typeof bin === 'string' ? bin : Object.values(bin)[0]!);
}
const VITEST = bin(require.resolve('vitest/package.json'));
const JEST = bin(require.resolve('jest/package.json'));
/** TypeScript's tsc (the `typescript` of package.json: the compiler a user's project runs on Node). */
export const TSC = bin(require.resolve('typescript/package.json'));

export interface Installed {
  /** The folder of the projects, with the package and the runners in its node_modules. */
  readonly work: string;
  readonly tarball: string;
  /** The tarball's files, sorted. */
  readonly packed: readonly string[];
}

/**
 * `npm pack` of the built package (`npm test` builds before vitest) into a new temporary folder, the projects
 * beside this file copied there (not the tests and modules of this folder), the tarball installed with npm and the
 * runners linked in.
 */
export async function installPackage(prefix: string): Promise<Installed> {
  const work = mkdtempSync(join(tmpdir(), prefix));
  // --ignore-scripts: the package is built already; prepare would build it again.
  const pack = await ok(CURRENT, 'npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT);
  const [info] = JSON.parse(pack.stdout) as [{ filename: string; files: { path: string }[] }];
  cpSync(HERE, work, {
    recursive: true,
    filter: (source) =>
      !(dirname(source) === HERE && source.endsWith('.ts')) && !/[\\/](node_modules|out)$/.test(source),
  });
  const tarball = join(work, info.filename);
  await ok(
    CURRENT,
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', tarball],
    work,
  );
  for (const name of RUNNERS) {
    mkdirSync(dirname(join(work, 'node_modules', name)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), join(work, 'node_modules', name), 'dir');
  }
  return { work, tarball, packed: info.files.map((file) => file.path).sort() };
}

// The projects beside this file, each checked under the runtime it is given.

export async function vitestProject(runtime: NodeRuntime, work: string): Promise<void> {
  const { stdout } = await ok(runtime, runtime.node, [VITEST, 'run'], join(work, 'vitest-esm'));
  expect(stdout).toMatch(/Tests\s+2 passed \(2\)/);
}

export async function jestProject(runtime: NodeRuntime, work: string): Promise<void> {
  const { stderr } = await ok(runtime, runtime.node, [JEST], join(work, 'jest-cjs'));
  expect(stderr).toMatch(/Tests:\s+2 passed, 2 total/);
  expect(stderr).not.toContain('did not exit');
}

export async function nodeTestProject(runtime: NodeRuntime, work: string): Promise<void> {
  // TAP named: Node 20 and 22 report in TAP to a pipe, Node 24 with the spec reporter.
  const { stdout } = await ok(runtime, runtime.node, ['--test', '--test-reporter=tap'], join(work, 'node-test'));
  expect(stdout).toMatch(/^# pass 2$/m);
  expect(stdout).toMatch(/^# fail 0$/m);
}

/** tsc-cjs, compiled (out/), run with node. */
export async function tscCjsOutput(runtime: NodeRuntime, work: string): Promise<void> {
  const { stdout } = await ok(runtime, runtime.node, ['out/main.js'], join(work, 'tsc-cjs'));
  expect(stdout).toBe('loaded dist/cjs/index.js\n200 11222333 Empresa 11222333 same id\nclosed by await using\n');
}

// The installed bin (node_modules/.bin/catalog-emulator, which starts the `node` first on PATH), as a user runs it.

interface Server {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The first match of `pattern` in stdout, as soon as it is out; rejects when the server exits first, or after the step's time. */
  readonly printed: (pattern: RegExp) => Promise<RegExpMatchArray>;
}

/** `check` with a way to start servers of the installed bin; those still running when it ends are killed (it failed). */
async function withServers(
  runtime: NodeRuntime,
  work: string,
  check: (serve: (args: readonly string[]) => Server) => Promise<void>,
): Promise<void> {
  const started: Server[] = [];
  try {
    await check((args) => {
      const server = serve(runtime, work, args);
      started.push(server);
      return server;
    });
  } finally {
    for (const server of started)
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    await Promise.all(started.map((server) => server.exited));
  }
}

function serve(runtime: NodeRuntime, work: string, args: readonly string[]): Server {
  const child = spawn(join(work, 'node_modules', '.bin', 'catalog-emulator'), ['serve', '--port', '0', ...args], {
    cwd: work,
    env: runtime.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const printed = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          done(
            new Error(
              `catalog-emulator serve ${args.join(' ')} printed no ${pattern} within ${STEP_TIMEOUT_MS} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`,
            ),
          ),
        STEP_TIMEOUT_MS,
      );
      const check = () => {
        const match = pattern.exec(stdout);
        if (match) done(undefined, match);
      };
      const done = (error?: Error, match?: RegExpMatchArray) => {
        clearTimeout(timer);
        child.stdout.off('data', check);
        if (error) reject(error);
        else resolve(match!);
      };
      child.stdout.on('data', check);
      void exited.then(({ code, signal }) =>
        done(
          new Error(
            `catalog-emulator serve ${args.join(' ')} exited (${code ?? signal}) before printing ${pattern}\nstdout:\n${stdout}\nstderr:\n${stderr}`,
          ),
        ),
      );
      check();
    });
  return { child, stdout: () => stdout, stderr: () => stderr, exited, printed };
}

const BANNER = /listening on (\S+)\n[^]*?token:\s+(\S+)\n/;
const CLI = (work: string) => join(work, 'node_modules', '.bin', 'catalog-emulator');

/** --version; serve: its banner, an API call with its token, the controls (the clock moved), and a clean stop on SIGTERM. */
export async function binServes(runtime: NodeRuntime, work: string): Promise<void> {
  expect((await ok(runtime, CLI(work), ['--version'], work)).stdout).toBe(`${version}\n`);
  await withServers(runtime, work, async (serve) => {
    const server = serve(['--clock', 'manual']);
    const [, url, token] = await server.printed(BANNER);
    const answer = await fetch(`${url}/v1/empresa`, { headers: { authorization: `Bearer ${token}` } });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { cnpj_raiz: string }).cnpj_raiz).toMatch(/^[A-Z0-9]{8}$/);
    const advanced = await fetch(`${url}/_emulator/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"by":"1h"}',
    });
    expect(advanced.status).toBe(200);
    expect(((await advanced.json()) as { now: string }).now).toBe('2026-01-01T01:00:00.000Z');
    const status = await fetch(`${url}/_emulator`);
    expect(await status.json()).toEqual({
      name: 'catalog-emulator',
      version,
      now: '2026-01-01T01:00:00.000Z',
      clockMode: 'manual',
      seed: expect.any(Number),
    });
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.stdout()).toContain('SIGTERM: closing');
    expect(server.stderr()).toBe('');
  });
}

/**
 * `catalog-emulator conformance` against `serve --no-controls` (the API alone, as a deployment serves it): the spec
 * tests it ships run with what the package installs (ajv, fast-check and Vitest's runner are inside the bundle, not
 * dependencies).
 */
export async function binConformance(runtime: NodeRuntime, work: string): Promise<void> {
  await withServers(runtime, work, async (serve) => {
    const [line] = await serve(['--no-controls', '--json', '--log', 'silent']).printed(/^.*\n/);
    const start = JSON.parse(line!) as { url: string; controls: string | null; companies: { token: string }[] };
    expect(start.controls).toBeNull();
    const conformance = await ok(
      runtime,
      CLI(work),
      [
        'conformance',
        '--base-url',
        start.url,
        '--token',
        start.companies[0]!.token,
        '--files',
        'company',
        '--files',
        'contract-check',
      ],
      work,
    );
    expect(conformance.stdout).toMatch(/^ok {3}spec-tests\/company\.test\.ts: [1-9]\d* passed, 0 failed, \d+ skipped/m);
    expect(conformance.stdout).toMatch(/^Tests: [1-9]\d* passed, 0 failed, \d+ skipped \(of \d+\); runnable share/m);
  });
}

/** serve --state: a catalog created, the server killed (SIGKILL), a server started on the same file still has it. */
export async function binStateSurvivesKill(runtime: NodeRuntime, work: string): Promise<void> {
  const state = join(mkdtempSync(join(work, 'state-')), 'state.json');
  await withServers(runtime, work, async (serve) => {
    const first = serve(['--state', state, '--log', 'silent']);
    const [, url, token] = await first.printed(BANNER);
    const auth = { authorization: `Bearer ${token}` };
    const establishments = (await (await fetch(`${url}/v1/estabelecimentos`, { headers: auth })).json()) as {
      itens: { id: string }[];
    };
    const created = await fetch(`${url}/v1/catalogos`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': 'node-versions-catalog-0001' },
      body: JSON.stringify({ estabelecimento_id: establishments.itens[0]!.id, nome: 'Loja' }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const second = serve(['--state', state, '--log', 'silent']);
    const [, again, sameToken] = await second.printed(BANNER);
    expect(sameToken).toBe(token);
    const read = await fetch(`${again}/v1/catalogos/${id}`, { headers: auth });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { nome: string }).nome).toBe('Loja');
    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });
  });
}
