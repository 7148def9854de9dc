/**
 * The package as a user's project gets it: `npm pack` of the built package (`npm test` builds before vitest), its
 * contents checked from the tarball's listing, publint and @arethetypeswrong/cli on it, then installed with npm
 * into a temporary folder where four small projects (the folders beside this file) use it: vitest (ES modules),
 * Jest with its default configuration (CommonJS), node:test, and TypeScript compiled to CommonJS. Jest and
 * node:test leave a listen() server open: their runs must end all the same. And the installed bin serves, and
 * runs its shipped spec tests against itself.
 *
 * The package's dependencies come from npm's cache where `npm ci` put them (--prefer-offline); the runners
 * (vitest, jest, typescript, @types/node) are this repository's own, linked into the folder: one version of each,
 * locked in package-lock.json.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HERE = fileURLToPath(new URL('.', import.meta.url));
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const RUNNERS = ['vitest', 'jest', 'typescript', '@types/node'];
const STEP_TIMEOUT_MS = 120_000;

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment of a user's shell: none of the variables this vitest run set for its own workers. */
const ENV: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries({ ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', CI: 'true' }).filter(([name]) => !/^(VITEST|TEST$|NODE_ENV$|NODE_OPTIONS$)/.test(name)),
);

/** Runs a command to its end; one still running after `timeoutMs` is killed and fails the step. */
function run(command: string, args: readonly string[], cwd: string, timeoutMs = STEP_TIMEOUT_MS): Promise<Ran> {
  const child = spawn(command, args, { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} (in ${cwd}) did not end within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `run`, which must exit 0: the output is in the failure message otherwise. */
async function ok(command: string, args: readonly string[], cwd: string, timeoutMs?: number): Promise<Ran> {
  const ran = await run(command, args, cwd, timeoutMs);
  if (ran.code !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${ran.code}\nstdout:\n${ran.stdout}\nstderr:\n${ran.stderr}`);
  return ran;
}

const require = createRequire(import.meta.url);
/** The command line of a package's bin, from its package.json (resolved by name, so that knip sees the use). */
function bin(packageJson: string): string[] {
  const { bin } = require(packageJson) as { bin: string | Record<string, string> };
  return [join(dirname(packageJson), typeof bin === 'string' ? bin : Object.values(bin)[0]!)];
}
// publint exports no package.json (package.json's check-package script is its use knip sees).
const PUBLINT = join(ROOT, 'node_modules', 'publint', 'package.json');
const ATTW = require.resolve('@arethetypeswrong/cli/package.json');
const VITEST = require.resolve('vitest/package.json');
const JEST = require.resolve('jest/package.json');
const TYPESCRIPT = require.resolve('typescript/package.json');

let work: string;
let tarball: string;
let packed: string[];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'catalog-emulator-consumers-'));
  // --ignore-scripts: the package is built already; prepare would build it again.
  const pack = await ok('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT);
  const [info] = JSON.parse(pack.stdout) as [{ filename: string; files: { path: string }[] }];
  tarball = join(work, info.filename);
  packed = info.files.map((file) => file.path).sort();

  cpSync(HERE, work, { recursive: true, filter: (source) => !/consumers\.test\.ts$|[\\/](node_modules|out)$/.test(source) });
  await ok('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', tarball], work);
  for (const name of RUNNERS) {
    mkdirSync(dirname(join(work, 'node_modules', name)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), join(work, 'node_modules', name), 'dir');
  }
}, 4 * STEP_TIMEOUT_MS);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.concurrent('the tarball', () => {
  it('holds both builds, their types, the bin, the OpenAPI documents, the README with its image, the licence and the changelog', () => {
    const required = [
      'package.json',
      'README.md',
      'openapi.json',
      'openapi.controls.json',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/cjs/index.js',
      'dist/cjs/index.d.ts',
      'dist/cjs/package.json',
      'dist/bin/catalog-emulator.js',
      'dist/bin/THIRD-PARTY-LICENSES.txt',
      // The inspector page's script and style sheet (GET /_emulator/ui/assets/…).
      'dist/inspector/app.js',
      'dist/inspector/app.css',
      // The spec tests, bundled with their runner, for `catalog-emulator conformance`.
      'dist/conformance/run.js',
      'dist/conformance/catalogs.spec.js',
      'dist/conformance/statements.json',
      'dist/conformance/fixtures.json',
      'dist/conformance/THIRD-PARTY-LICENSES.txt',
      'LICENSE',
      'CHANGELOG.md',
      // The README shows it: a relative image must be in the package to show where the package is read.
      'docs/images/docs-page.png',
      'docs/images/inspector-timeline.png',
      'docs/images/inspector-attempts.png',
    ];
    expect(required.filter((path) => !packed.includes(path))).toEqual([]);
  });

  it('holds no tests, sources, test suites, scripts or tooling', () => {
    const wrong = packed.filter(
      (path) =>
        /\.test\.|(^|\/)__tests__\//.test(path) ||
        (/\.(ts|tsx|mts|cts)$/.test(path) && !/\.d\.(ts|mts|cts)$/.test(path)) ||
        /^(src|bin|spec-tests|browser-tests|bench|fuzz|scripts|examples|consumers|\.ci|node_modules)\//.test(path) ||
        /^dist\/(src|cjs)\/core\/testing\//.test(path) ||
        !/^(dist\/(src|cjs|bin|conformance)\/|dist\/inspector\/app\.(js|css)$|(package\.json|README\.md|LICENSE|CHANGELOG\.md|openapi\.json|openapi\.controls\.json|docs\/images\/(docs-page|inspector-timeline|inspector-attempts)\.png)$)/.test(path),
    );
    expect(wrong).toEqual([]);
  });

  it('passes publint', async () => {
    const extracted = join(work, 'extracted');
    mkdirSync(extracted);
    await ok('tar', ['-xzf', tarball, '-C', extracted], work);
    const { stdout } = await ok(process.execPath, [...bin(PUBLINT), 'run', join(extracted, 'package'), '--pack', 'false', '--strict'], work);
    expect(stdout).toContain('All good!');
  });

  it('passes @arethetypeswrong/cli for Node 16+ from CommonJS and ES modules, and bundlers', async () => {
    const { stdout } = await ok(process.execPath, [...bin(ATTW), tarball, '--profile', 'node16', '--format', 'json'], work);
    const report = JSON.parse(stdout) as { analysis: { problems: unknown[]; entrypoints: Record<string, { resolutions: Record<string, { resolution?: { fileName: string } }> }> } };
    expect(report.analysis.problems).toEqual([]);
    const main = report.analysis.entrypoints['.']!.resolutions;
    // The types each kind of project reads: each format's own.
    expect(main['node16-cjs']?.resolution?.fileName).toBe('/node_modules/catalog-emulator/dist/cjs/index.d.ts');
    expect(main['node16-esm']?.resolution?.fileName).toBe('/node_modules/catalog-emulator/dist/src/index.d.ts');
  });
});

// Each runs in a folder of its own, in processes of its own: at the same time, the whole takes its slowest.
describe.concurrent('projects that install it', () => {
  it('vitest (ES modules)', async () => {
    const { stdout } = await ok(process.execPath, [...bin(VITEST), 'run'], join(work, 'vitest-esm'));
    expect(stdout).toMatch(/Tests\s+2 passed \(2\)/);
  });

  it('Jest with its default configuration (CommonJS), ending with a server left open', async () => {
    const { stderr } = await ok(process.execPath, [...bin(JEST)], join(work, 'jest-cjs'));
    expect(stderr).toMatch(/Tests:\s+2 passed, 2 total/);
    expect(stderr).not.toContain('did not exit');
  });

  it('node:test (ES modules), ending with a server left open', async () => {
    const { stdout } = await ok(process.execPath, ['--test'], join(work, 'node-test'));
    expect(stdout).toMatch(/^# pass 2$/m);
    expect(stdout).toMatch(/^# fail 0$/m);
  });

  it('TypeScript compiled to CommonJS, run with node', async () => {
    const project = join(work, 'tsc-cjs');
    await ok(process.execPath, [...bin(TYPESCRIPT), '-p', '.'], project);
    const { stdout } = await ok(process.execPath, ['out/main.js'], project);
    expect(stdout).toBe('loaded dist/cjs/index.js\n200 11222333 Empresa 11222333 same id\nclosed by await using\n');
  });

  it('npx catalog-emulator: the installed bin serves', async () => {
    const binPath = join(work, 'node_modules', '.bin', 'catalog-emulator');
    expect((await ok(binPath, ['--version'], work)).stdout).toBe(`${version}\n`);
    const child = spawn(binPath, ['serve', '--port', '0'], { cwd: work, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let stdout = '';
      child.stdout.setEncoding('utf8');
      const started = await new Promise<RegExpMatchArray>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "listening on" within ${STEP_TIMEOUT_MS} ms:\n${stdout}`)), STEP_TIMEOUT_MS);
        child.stdout.on('data', (chunk: string) => {
          stdout += chunk;
          const match = /listening on (\S+)\n[^]*token:\s+(\S+)\n/.exec(stdout);
          if (match) {
            clearTimeout(timer);
            resolve(match);
          }
        });
      });
      const answer = await fetch(`${started[1]}/v1/empresa`, { headers: { authorization: `Bearer ${started[2]}` } });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { cnpj_raiz: string }).cnpj_raiz).toMatch(/^\d{8}$/);
      // The spec tests it ships run against that server with what the package installs: ajv, fast-check and
      // Vitest's runner are inside the bundle, not dependencies.
      const conformance = await ok(binPath, ['conformance', '--base-url', started[1]!, '--token', started[2]!, '--files', 'company', '--files', 'contract-check'], work);
      expect(conformance.stdout).toMatch(/^ok {3}spec-tests\/company\.test\.ts: 1 passed, 0 failed, \d+ skipped/m);
      expect(conformance.stdout).toMatch(/^Tests: \d+ passed, 0 failed, \d+ skipped \(of \d+\); runnable share/m);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});
