/** `npm run trace` refuses what it does not know before running anything (a typo must not start an 8-minute run). */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// tsx compiling trace.ts in a child takes seconds on a loaded machine: more than vitest's 5 s default.
const TIMEOUT = { timeout: 60_000 };

it('refuses an unknown argument with exit 2 and the usage, running no test and writing nothing', TIMEOUT, () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/trace.ts', '--no-rn'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.status, run.stderr).toBe(2);
  expect(run.stderr.trim()).toBe(
    'trace: unknown argument --no-rn (usage: npm run trace [-- --no-run] [-- --project conformance])',
  );
  expect(run.stdout).toBe('');
});

it('refuses --project other than spec or conformance, and conformance without a deployment named', TIMEOUT, () => {
  const env = { ...process.env, CONFORMANCE_BASE_URL: '' };
  const other = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/trace.ts', '--project', 'unit'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env,
  });
  expect(other.status, other.stderr).toBe(2);
  expect(other.stderr.trim()).toBe(
    'trace: --project takes spec or conformance (got "unit") (usage: npm run trace [-- --no-run] [-- --project conformance])',
  );
  const unnamed = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/trace.ts', '--project', 'conformance'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env,
  });
  expect(unnamed.status, unnamed.stderr).toBe(2);
  expect(unnamed.stderr.trim()).toBe(
    'trace: --project conformance needs CONFORMANCE_BASE_URL and CONFORMANCE_TOKEN (the deployment to run against)',
  );
  expect(unnamed.stdout).toBe('');
});
