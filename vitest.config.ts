import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { UNIT_ISOLATED } from './scripts/isolated-tests.js';

const exclude = ['**/node_modules/**', 'dist/**'];
/** The shared-server suite: it needs the server its project starts, so the other projects leave it out. */
const SHARED_SERVER = 'spec-tests/shared-server/**';
/**
 * Test files run at once by the projects of the first group (all but shared-server). Vitest's default, one less
 * than the processors, is ONE worker on a 2-core machine, which leaves a core idle while a file waits on a process
 * it spawned or a socket. One more worker than processors keeps them busy: the slow end-to-end files (the image,
 * the packed-package consumers, the CLI's) spend most of their time waiting on child processes (CONTRIBUTING.md
 * "Tests"). `--maxWorkers N` overrides it.
 */
const WORKERS = Math.max(3, availableParallelism() + 1);
/** A server named by SPEC_BASE_URL is one server: the spec-server files then take turns on it. */
const ONE_SERVER = Boolean(process.env.SPEC_BASE_URL);
/** The unit tests: beside the code, the CLI's, the examples' and the build scripts'. */
const UNIT = ['src/**/*.test.ts', 'bin/**/*.test.ts', 'examples/**/*.test.ts', 'scripts/**/*.test.ts'];
/**
 * What every project shares. A test's time-out catches a hang, it is not a measure of speed: Vitest's 5 s failed
 * tests that make a hundred requests over HTTP while another suite loaded the machine, so 30 s (and no test asserts
 * elapsed time: CONTRIBUTING.md "Tests"). `expect.poll` likewise: Vitest's 1 s failed a browser test waiting for a
 * page of 200 items on a loaded machine, so it polls for up to 30 s unless the test says otherwise.
 */
const common = { exclude, testTimeout: 30_000, hookTimeout: 30_000, expect: { poll: { timeout: 30_000 } } };

/**
 * The projects of a group in the order their files are handed to the workers (Vitest's own order is by name, which
 * put unit last: its files that wait longest on processes of their own, the CLI's, then started last and ran on
 * alone at the end). The image, consumer and node-versions tests and the CLI's first (they wait most on processes
 * of their own), the CPU-bound spec files after, the browser last.
 */
const PROJECT_ORDER = ['image', 'consumer', 'node-versions', 'unit', 'unit-isolated', 'spec-server', 'spec', 'browser'];
class ProjectOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = PROJECT_ORDER.indexOf(file.project.name);
      return at === -1 ? PROJECT_ORDER.length : at;
    };
    // Array.prototype.sort is stable: within a project, Vitest's order (slowest first when it knows, else largest).
    return (await super.sort(files)).sort(
      (a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || rank(a) - rank(b),
    );
  }
}

export default defineConfig({
  test: {
    maxWorkers: WORKERS,
    sequence: { sequencer: ProjectOrder },
    projects: [
      // The unit tests, run file after file in a worker without loading the emulator's modules again for each
      // (isolate: false), as loading them was half of what the project cost; but the files that replace what every
      // module sees (a global, a timer, Date.now, an environment variable) run isolated, in unit-isolated, so that
      // nothing they install can reach another file's modules (scripts/isolated-tests.ts lists them), and before
      // each file the globals a server started in process replaces are put back (scripts/unit-globals.ts).
      {
        test: {
          name: 'unit',
          include: UNIT,
          ...common,
          exclude: [...exclude, ...UNIT_ISOLATED],
          isolate: false,
          setupFiles: ['scripts/unit-globals.ts'],
        },
      },
      { test: { name: 'unit-isolated', include: UNIT_ISOLATED, ...common } },
      // The spec tests against an in-process emulator, and the property tests. Each test makes its own emulator and
      // the files share no module state that matters, so a worker runs file after file without reloading the
      // emulator's modules for each (isolate: false; they were a third of the project's time).
      {
        test: {
          name: 'spec',
          include: ['spec-tests/**/*.test.ts'],
          ...common,
          exclude: [...exclude, SHARED_SERVER],
          isolate: false,
        },
      },
      // The same spec tests against the built CLI over real HTTP: a server per worker (server-per-worker.global.ts),
      // files in parallel, each on a server of its own while it runs (it may move that server's shared clock).
      {
        test: {
          name: 'spec-server',
          include: ['spec-tests/**/*.test.ts'],
          ...common,
          // configured-emulator: each test builds an emulator of its own, so it runs once, in process.
          exclude: [
            ...exclude,
            'spec-tests/properties/**',
            'spec-tests/controls/configured-emulator.test.ts',
            SHARED_SERVER,
          ],
          globalSetup: ['spec-tests/support/server-per-worker.global.ts'],
          ...(ONE_SERVER ? { fileParallelism: false } : { isolate: false }),
        },
      },
      // The spec tests against a deployment without controls (CONFORMANCE_BASE_URL, CONFORMANCE_TOKEN): only then.
      ...(process.env.CONFORMANCE_BASE_URL
        ? [{ test: { name: 'conformance', include: ['spec-tests/*.test.ts'], ...common, fileParallelism: false } }]
        : []),
      // The image of the Containerfile, built and run with podman (fails, saying how to get it, without podman).
      {
        test: {
          name: 'image',
          include: ['container/**/*.test.ts'],
          ...common,
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
      // The docs page in a real browser (chromium; skipped, saying so, where it is not installed).
      { test: { name: 'browser', include: ['browser-tests/**/*.test.ts'], ...common } },
      // Suites sharing ONE built CLI server at once, each on a company with a clock of its own: files in parallel.
      {
        test: {
          name: 'shared-server',
          include: [`${SHARED_SERVER}/*.test.ts`],
          ...common,
          globalSetup: ['spec-tests/support/server.global.ts'],
          fileParallelism: true,
          pool: 'forks',
          maxWorkers: 4,
          // Its own worker count needs a group of its own: it runs after the other projects.
          sequence: { groupOrder: 1 },
        },
      },
      // The packed package installed into small projects of each kind (consumers/): first, as its npm install and
      // runners take longest and mostly wait.
      {
        test: {
          name: 'consumer',
          include: ['consumers/consumers.test.ts'],
          ...common,
          // Time-outs that catch a hang (consumers/support.ts STEP_TIMEOUT_MS: a step may take minutes on a loaded machine).
          testTimeout: 600_000,
          hookTimeout: 1_200_000,
        },
      },
      // The consumer projects and the installed CLI again under the other Node.js versions tested (22 and 24, from the
      // npm registry, cached under ~/.cache/catalog-emulator/node): fails, saying why, when it cannot get them.
      {
        test: {
          name: 'node-versions',
          include: ['consumers/node-versions.test.ts'],
          ...common,
          // Time-outs that catch a hang (consumers/support.ts STEP_TIMEOUT_MS: a step may take minutes on a loaded machine).
          testTimeout: 600_000,
          hookTimeout: 1_200_000,
        },
      },
    ],
  },
});
