import { defineConfig } from 'vitest/config';

const exclude = ['**/node_modules/**', 'dist/**'];
/** The shared-server suite: it needs the server its project starts, so the other projects leave it out. */
const SHARED_SERVER = 'spec-tests/shared-server/**';

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['src/**/*.test.ts', 'bin/**/*.test.ts', 'examples/**/*.test.ts', 'scripts/**/*.test.ts'], exclude } },
      // The spec tests against an in-process emulator, and the property tests.
      { test: { name: 'spec', include: ['spec-tests/**/*.test.ts'], exclude: [...exclude, SHARED_SERVER] } },
      // The same spec tests against the built CLI over real HTTP: one server, so one file at a time.
      {
        test: {
          name: 'spec-server',
          include: ['spec-tests/**/*.test.ts'],
          exclude: [...exclude, 'spec-tests/properties/**', SHARED_SERVER],
          globalSetup: ['spec-tests/support/server.global.ts'],
          fileParallelism: false,
        },
      },
      // The spec tests against a deployment without controls (CONFORMANCE_BASE_URL, CONFORMANCE_TOKEN): only then.
      ...(process.env.CONFORMANCE_BASE_URL ? [{ test: { name: 'conformance', include: ['spec-tests/*.test.ts'], exclude, fileParallelism: false } }] : []),
      // The image of the Containerfile, built and run with podman (fails, saying how to get it, without podman).
      { test: { name: 'image', include: ['container/**/*.test.ts'], exclude, testTimeout: 60_000, hookTimeout: 180_000 } },
      // The docs page in a real browser (chromium; skipped, saying so, where it is not installed).
      { test: { name: 'browser', include: ['browser-tests/**/*.test.ts'], exclude } },
      // Suites sharing ONE built CLI server at once, each on a company with a clock of its own: files in parallel.
      {
        test: {
          name: 'shared-server',
          include: [`${SHARED_SERVER}/*.test.ts`],
          exclude,
          globalSetup: ['spec-tests/support/server.global.ts'],
          fileParallelism: true,
          pool: 'forks',
          maxWorkers: 4,
          // Its own worker count needs a group of its own: it runs after the other projects.
          sequence: { groupOrder: 1 },
        },
      },
      // The packed package installed into small projects of each kind (consumers/): after the rest, as it runs
      // whole test runners and a TypeScript build of its own.
      { test: { name: 'consumer', include: ['consumers/consumers.test.ts'], exclude, testTimeout: 180_000, hookTimeout: 480_000, sequence: { groupOrder: 2 } } },
    ],
  },
});
