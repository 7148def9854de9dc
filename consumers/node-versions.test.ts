/**
 * The package on the Node.js versions users run besides the one running vitest: each of NODE_VERSIONS
 * (node-binaries.ts), its binary taken from the npm registry once and cached. Under each, as child processes with
 * that node first on PATH (so that `node`, npm's bin shims and the runners' workers are that version): the consumer
 * projects beside this file (vitest, Jest, node:test, and tsc-cjs's output: types do not depend on the Node.js
 * running them, the consumer test checks them once), and the installed CLI: serve with its controls and a clean
 * stop, conformance against serve --no-controls, a --state kill and restart. And the minimal nodenext project's
 * output, which keeps `await using` as written: Node 24 runs it, an older Node refuses its syntax.
 *
 * A binary that cannot be had fails the file with the set-up's one-line reason: a run that ran nothing never
 * passes, nor skips.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_VERSIONS, nodeBinary } from './node-binaries.js';
import {
  binConformance,
  binServes,
  binStateSurvivesKill,
  CURRENT,
  installPackage,
  jestProject,
  nodeRuntime,
  nodeTestProject,
  ok,
  run,
  STEP_TIMEOUT_MS,
  TSC,
  tscCjsOutput,
  vitestProject,
  type Installed,
  type NodeRuntime,
} from './support.js';

const runtimes = new Map<string, NodeRuntime>();
let installed: Installed | undefined;

beforeAll(async () => {
  // The binaries first: without them, nothing else is worth its time.
  const nodes = await Promise.all(NODE_VERSIONS.map(nodeBinary));
  nodes.forEach((node, i) => runtimes.set(NODE_VERSIONS[i]!, nodeRuntime(node, NODE_VERSIONS[i]!)));
  installed = await installPackage('catalog-emulator-node-versions-');
  // Compiled once, without the type check (the consumer test's): the output is what each Node.js runs.
  await Promise.all(
    ['tsc-cjs', 'tsc-minimal-nodenext'].map((project) =>
      ok(CURRENT, process.execPath, [TSC, '-p', '.', '--noCheck'], join(installed!.work, project)),
    ),
  );
}, 4 * STEP_TIMEOUT_MS);

afterAll(() => {
  if (installed) rmSync(installed.work, { recursive: true, force: true });
});

const major = (version: string) => Number(version.split('.')[0]);

describe.concurrent('the package under each Node.js', () => {
  describe.for(NODE_VERSIONS)('Node %s', (version) => {
    const runtime = () => runtimes.get(version)!;
    const work = () => installed!.work;

    it('is the node on PATH, as a shell or a bin shim finds it', async () => {
      expect((await ok(runtime(), 'node', ['--version'], work())).stdout).toBe(`v${version}\n`);
    });

    it('vitest (ES modules)', () => vitestProject(runtime(), work()));

    it('Jest with its default configuration (CommonJS), ending with a server left open', () =>
      jestProject(runtime(), work()));

    it('node:test (ES modules), ending with a server left open', () => nodeTestProject(runtime(), work()));

    it('TypeScript compiled to CommonJS: its output', () => tscCjsOutput(runtime(), work()));

    it(`TypeScript with a minimal tsconfig (module nodenext, target ESNext): its output, \`await using\` as written, ${major(version) >= 24 ? 'runs' : 'is a syntax error'}`, async () => {
      const ran = await run(runtime(), runtime().node, ['out/main.js'], join(work(), 'tsc-minimal-nodenext'));
      if (major(version) >= 24)
        expect(ran).toEqual({
          code: 0,
          stdout: 'emu.fetch 200 11222333\nlisten 200\nclosed by await using\n',
          stderr: '',
        });
      else
        expect({ code: ran.code, error: /^SyntaxError: .*$/m.exec(ran.stderr)?.[0] }).toEqual({
          code: 1,
          error: "SyntaxError: Unexpected identifier 'emu'",
        });
    });

    it('npx catalog-emulator: serves (an API call, the controls, a clean stop on SIGTERM)', () =>
      binServes(runtime(), work()));

    it('npx catalog-emulator conformance: passes against serve --no-controls', () => binConformance(runtime(), work()));

    it('npx catalog-emulator serve --state: keeps a write through a SIGKILL', () =>
      binStateSurvivesKill(runtime(), work()));
  });
});
