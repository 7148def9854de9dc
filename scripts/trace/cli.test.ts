/** `npm run trace` refuses what it does not know before running anything (a typo must not start an 8-minute run). */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

it('refuses an unknown argument with exit 2 and the usage, running no test and writing nothing', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/trace.ts', '--no-rn'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(run.status, run.stderr).toBe(2);
  expect(run.stderr.trim()).toBe('trace: unknown argument --no-rn (usage: npm run trace [-- --no-run])');
  expect(run.stdout).toBe('');
});
