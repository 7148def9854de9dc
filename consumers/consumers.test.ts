/**
 * The package as a user's project gets it: `npm pack` of the built package (`npm test` builds before vitest), its
 * contents checked from the tarball's listing, publint and @arethetypeswrong/cli on it, then installed with npm
 * into a temporary folder where the small projects beside this file use it: vitest (ES modules), Jest with its
 * default configuration (CommonJS), node:test, TypeScript compiled to CommonJS, and two projects with a minimal
 * tsconfig (CommonJS with no @types/node installed; nodenext). Jest and node:test leave a listen() server open:
 * their runs must end all the same. And the installed bin serves, runs its shipped spec tests against a server of
 * the API alone, and keeps its --state through a kill. All under the Node.js running vitest; node-versions.test.ts
 * runs the same checks (support.ts) under the other Node.js versions.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, cpSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  binConformance,
  binServes,
  binStateSurvivesKill,
  bin,
  CURRENT,
  installPackage,
  jestProject,
  nodeTestProject,
  ok,
  ROOT,
  STEP_TIMEOUT_MS,
  TSC,
  tscCjsOutput,
  vitestProject,
  type Installed,
} from './support.js';

const require = createRequire(import.meta.url);
// publint exports no package.json (package.json's check-package script is its use knip sees).
const PUBLINT = join(ROOT, 'node_modules', 'publint', 'package.json');
const ATTW = require.resolve('@arethetypeswrong/cli/package.json');

let installed: Installed;
/** A folder outside the install's, where no @types/node can be found: the package and TypeScript linked in. */
let bare: string;

beforeAll(async () => {
  installed = await installPackage('catalog-emulator-consumers-');
  bare = mkdtempSync(join(tmpdir(), 'catalog-emulator-bare-'));
  mkdirSync(join(bare, 'node_modules'));
  symlinkSync(
    join(installed.work, 'node_modules', 'catalog-emulator'),
    join(bare, 'node_modules', 'catalog-emulator'),
    'dir',
  );
  symlinkSync(join(ROOT, 'node_modules', 'typescript'), join(bare, 'node_modules', 'typescript'), 'dir');
  cpSync(join(installed.work, 'tsc-minimal-cjs'), join(bare, 'tsc-minimal-cjs'), { recursive: true });
}, 4 * STEP_TIMEOUT_MS);

afterAll(() => {
  if (installed) rmSync(installed.work, { recursive: true, force: true });
  if (bare) rmSync(bare, { recursive: true, force: true });
});

describe.concurrent('the tarball', () => {
  it('holds both builds, their types, the bin, the OpenAPI documents, the README and docs/ with their images, the licence and the changelog', () => {
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
      // Every document of docs/, which the README links: a relative link must reach a file where the package is read.
      ...readdirSync(join(ROOT, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
      // The docs show them: a relative image must be in the package to show where the package is read.
      'docs/images/docs-page.png',
      'docs/images/inspector-timeline.png',
      'docs/images/inspector-attempts.png',
      'docs/images/inspector-records.png',
      'docs/images/inspector-dark.png',
    ];
    expect(required.filter((path) => !installed.packed.includes(path))).toEqual([]);
  });

  it('holds no tests, sources, test suites, scripts or tooling', () => {
    const wrong = installed.packed.filter(
      (path) =>
        /\.test\.|(^|\/)__tests__\//.test(path) ||
        (/\.(ts|tsx|mts|cts)$/.test(path) && !/\.d\.(ts|mts|cts)$/.test(path)) ||
        /^(src|bin|spec-tests|browser-tests|bench|fuzz|scripts|examples|consumers|\.ci|node_modules)\//.test(path) ||
        /^dist\/(src|cjs)\/core\/testing\//.test(path) ||
        !/^(dist\/(src|cjs|bin|conformance)\/|dist\/inspector\/app\.(js|css)$|(package\.json|README\.md|LICENSE|CHANGELOG\.md|openapi\.json|openapi\.controls\.json|docs\/[\w-]+\.md|docs\/images\/(docs-page|inspector-timeline|inspector-attempts|inspector-records|inspector-dark)\.png)$)/.test(
          path,
        ),
    );
    expect(wrong).toEqual([]);
  });

  it('passes publint', async () => {
    const extracted = join(installed.work, 'extracted');
    mkdirSync(extracted);
    await ok(CURRENT, 'tar', ['-xzf', installed.tarball, '-C', extracted], installed.work);
    const { stdout } = await ok(
      CURRENT,
      process.execPath,
      [bin(PUBLINT), 'run', join(extracted, 'package'), '--pack', 'false', '--strict'],
      installed.work,
    );
    expect(stdout).toContain('All good!');
  });

  it('passes @arethetypeswrong/cli for Node 16+ from CommonJS and ES modules, and bundlers', async () => {
    const { stdout } = await ok(
      CURRENT,
      process.execPath,
      [bin(ATTW), installed.tarball, '--profile', 'node16', '--format', 'json'],
      installed.work,
    );
    const report = JSON.parse(stdout) as {
      analysis: {
        problems: unknown[];
        entrypoints: Record<string, { resolutions: Record<string, { resolution?: { fileName: string } }> }>;
      };
    };
    expect(report.analysis.problems).toEqual([]);
    const main = report.analysis.entrypoints['.']!.resolutions;
    // The types each kind of project reads: each format's own.
    expect(main['node16-cjs']?.resolution?.fileName).toBe('/node_modules/catalog-emulator/dist/cjs/index.d.ts');
    expect(main['node16-esm']?.resolution?.fileName).toBe('/node_modules/catalog-emulator/dist/src/index.d.ts');
  });
});

// Each runs in a folder of its own, in processes of its own: at the same time, the whole takes its slowest.
describe.concurrent('projects that install it', () => {
  it('vitest (ES modules)', () => vitestProject(CURRENT, installed.work));

  it('Jest with its default configuration (CommonJS), ending with a server left open', () =>
    jestProject(CURRENT, installed.work));

  it('node:test (ES modules), ending with a server left open', () => nodeTestProject(CURRENT, installed.work));

  it('TypeScript compiled to CommonJS, run with node', async () => {
    await ok(CURRENT, process.execPath, [TSC, '-p', '.'], join(installed.work, 'tsc-cjs'));
    await tscCjsOutput(CURRENT, installed.work);
  });

  it('TypeScript with a minimal tsconfig, compiled to CommonJS where no @types/node is installed, run with node', async () => {
    const project = join(bare, 'tsc-minimal-cjs');
    expect(() => createRequire(join(project, 'package.json')).resolve('@types/node/package.json')).toThrow(
      /Cannot find module/,
    );
    await ok(CURRENT, process.execPath, [TSC, '-p', '.'], project);
    const { stdout } = await ok(CURRENT, process.execPath, ['out/main.js'], project);
    expect(stdout).toBe('emu.fetch 200 11222333\nlisten 200 same port\nclosed\n');
  });

  it('TypeScript with a minimal tsconfig (module nodenext, target ESNext): `await using` typed by the lib alone', async () => {
    // Its output keeps `await using`, which this Node.js may not run: node-versions.test.ts runs it on Node 24.
    await ok(CURRENT, process.execPath, [TSC, '-p', '.'], join(installed.work, 'tsc-minimal-nodenext'));
  });

  it('npx catalog-emulator: serves (an API call, the controls, a clean stop on SIGTERM)', () =>
    binServes(CURRENT, installed.work));

  it('npx catalog-emulator conformance: passes against serve --no-controls', () =>
    binConformance(CURRENT, installed.work));

  it('npx catalog-emulator serve --state: keeps a write through a SIGKILL', () =>
    binStateSurvivesKill(CURRENT, installed.work));
});
