import { defineConfig } from 'vitest/config';

const exclude = ['**/node_modules/**', 'dist/**'];

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['src/**/*.test.ts', 'bin/**/*.test.ts', 'examples/**/*.test.ts'], exclude } },
      // The spec tests against an in-process emulator, and the property tests.
      { test: { name: 'spec', include: ['spec-tests/**/*.test.ts'], exclude } },
      // The same spec tests against the built CLI over real HTTP: one server, so one file at a time.
      {
        test: {
          name: 'spec-server',
          include: ['spec-tests/**/*.test.ts'],
          exclude: [...exclude, 'spec-tests/properties/**'],
          globalSetup: ['spec-tests/support/server.global.ts'],
          fileParallelism: false,
        },
      },
    ],
  },
});
