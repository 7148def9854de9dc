/**
 * examples/python/catalog_sync.py under the built CLI's `explore`, as the README shows it: each mistake its --mistake
 * plants is found within 100 runs and shrunk to its one fault, the correct integration passes 200 runs, and the
 * command of examples/explore-python.sh prints examples/explore-python-output.txt.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = fileURLToPath(new URL('../dist/bin/catalog-emulator.js', import.meta.url));
const SCRIPT = 'examples/python/catalog_sync.py';
const OUTPUT = readFileSync(new URL('explore-python-output.txt', import.meta.url), 'utf8');
/** The command the README shows: the line of examples/explore-python.sh's region. */
const COMMAND = /# #region readme\n(.*)\n# #endregion/.exec(
  readFileSync(new URL('explore-python.sh', import.meta.url), 'utf8'),
)![1]!;

/**
 * The interpreter itself, not a launcher in front of it (pyenv's shim is a shell script, 0.1 s a run), started with
 * -S: the script needs the standard library only, and what site-packages load at start-up (0.15 s here) would be most
 * of each run's cost, hundreds of times.
 */
let python: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
  try {
    python = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('python3 is not installed: run .ci/run (it installs python3 from Debian)');
  }
});

/** `catalog-emulator explore ARGS -- python3 catalog_sync.py MORE` to its end. */
function explore(args: string[], more: string[] = []): Promise<{ code: number | null; stdout: string }> {
  return run([CLI, 'explore', ...args, '--', python, '-S', SCRIPT, ...more]);
}

/** The built CLI with `args`, to its end: its exit code and stdout. */
function run(args: string[]): Promise<{ code: number | null; stdout: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(VITEST|NODE_OPTIONS$)/.test(name)));
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

describe('examples/python/catalog_sync.py under explore', () => {
  const found = [
    {
      mistake: 'new-key-on-retry',
      plan: { target: 'api', method: 'POST', path: '/v1/catalogos', nth: 1, effect: 'loseResponse' },
      kinds: ['exit', 'finding', 'outcome'],
    },
    {
      mistake: '412-as-done',
      plan: { target: 'api', method: 'PATCH', path: '/v1/produtos/*', nth: 1, effect: 'concurrentEdit' },
      kinds: ['outcome'],
    },
    {
      mistake: 'no-retry-on-503',
      plan: { target: 'api', method: 'GET', path: '/v1/estabelecimentos', nth: 1, effect: 'status503' },
      kinds: ['exit', 'outcome'],
    },
    {
      mistake: 'apply-twice',
      plan: { target: 'delivery', eventType: 'webhook.teste', nth: 1, effect: 'timeout' },
      kinds: ['exit'],
    },
  ] as const;

  for (const { mistake, plan, kinds } of found)
    test(`--mistake ${mistake} is found within 100 runs and shrunk to its one fault`, async () => {
      const ran = await explore(['--runs', '100', '--json'], ['--mistake', mistake]);
      expect(ran.code, ran.stdout).toBe(1);
      const { runs, failure } = JSON.parse(ran.stdout);
      expect(runs).toBeLessThanOrEqual(100);
      expect(failure.plan).toEqual([plan]);
      expect(failure.faultFree).toBe(false);
      expect(failure.reasons.map((r: { kind: string }) => r.kind)).toEqual(kinds);
    }, 120_000);

  test('the correct integration passes 200 runs', async () => {
    const ran = await explore(['--runs', '200', '--json']);
    expect(ran.code, ran.stdout).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({ seed: 1, runs: 200, passed: 200, failure: null, incomplete: null });
  }, 300_000);

  test("the README's command prints the minimal plan, why the run failed, the replay line and the run's output", async () => {
    const [npx, bin, ...args] = COMMAND.split(' ');
    expect([npx, bin]).toEqual(['npx', 'catalog-emulator']);
    const ran = await run([CLI, ...args.flatMap((word) => (word === 'python3' ? [python, '-S'] : [word]))]);
    expect(ran.code).toBe(1);
    expect(ran.stdout.replaceAll(`${python} -S`, 'python3').replaceAll(python, 'python3')).toBe(OUTPUT);
  }, 120_000);
});
