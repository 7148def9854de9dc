/**
 * `catalog-emulator explore -- COMMAND`: the search over HTTP, with a small integration written as a client in
 * another language would be (bin/__fixtures__/integration.mjs, its mistake planted through MISTAKE). The command
 * runs in this process as the bin runs it (runHere), on a server of its own, and spawns the integration for each run;
 * the built bin, a child process, runs it once to prove its wiring and exit code.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, killAll, runCli, runHere } from './cli-run.js';

const INTEGRATION = fileURLToPath(new URL('__fixtures__/integration.mjs', import.meta.url));
const COMMAND = ['--', process.execPath, INTEGRATION];
const work = mkdtempSync(join(tmpdir(), 'catalog-emulator-explore-'));
afterAll(async () => {
  await killAll();
  rmSync(work, { recursive: true, force: true });
});

const explore = (args: string[], mistake = 'none') => runHere(['explore', ...args, ...COMMAND], { MISTAKE: mistake });

interface Output {
  seed: number;
  runs: number;
  passed: number;
  failure: {
    plan: { method: string; path: string; nth: number; effect: string }[];
    reasons: { kind: string; message?: string; diff?: string[] }[];
    replay: string;
    faultFree: boolean;
  } | null;
}

describe('catalog-emulator explore', { timeout: 120_000 }, () => {
  it('a correct integration passes every run: exit 0, one line per run on stderr, the verdict on stdout', async () => {
    const done = await explore(['--runs', '4']);
    expect(done.stdout).toBe('explored 4 fault plans (seed 1): every run passed\n');
    expect(done.code).toBe(0);
    const lines = done.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('run 1: no faults → passed');
    expect(lines.slice(1)).toEqual(
      Array.from({ length: 4 }, (_, i) => expect.stringMatching(new RegExp(`^run ${i + 2}: \\S.* → passed$`))),
    );
  });

  it('on a terminal, one status line says where the search is, and is cleared before the verdict', async () => {
    const done = await runHere(['explore', '--runs', '3', ...COMMAND], { MISTAKE: 'none' }, { terminal: true });
    expect(done.code).toBe(0);
    expect(done.stderr).toBe('');
    expect(done.status).toEqual([
      'explore: the fault-free run · run 1: no faults → passed',
      expect.stringMatching(/^explore: 1 of 3 · run 2: \S.* → passed$/),
      expect.stringMatching(/^explore: 2 of 3 · run 3: \S.* → passed$/),
      expect.stringMatching(/^explore: 3 of 3 · run 4: \S.* → passed$/),
      null,
    ]);
    expect(done.stdout).toBe('explored 3 fault plans (seed 1): every run passed\n');
    // Once a run failed, the runs that follow shrink it.
    const failing = await runHere(
      ['explore', '--runs', '20', ...COMMAND],
      { MISTAKE: 'no-retry-on-503' },
      {
        terminal: true,
      },
    );
    expect(failing.code).toBe(1);
    const shown = failing.status!.filter((line): line is string => line !== null);
    const first = shown.findIndex((line) => / → failed /.test(line));
    expect(first).toBeGreaterThan(0);
    expect(shown.slice(first + 1).every((line) => line.startsWith('explore: shrinking · '))).toBe(true);
    expect(failing.status!.at(-1)).toBeNull();
  });

  it("a 412 taken as done: exit 1, the minimal plan, the outcome it changed, the run's output; --json and --replay", async () => {
    const found = await explore(['--faults', 'concurrentEdit', '--runs', '5', '--json'], 'precondition-taken-as-done');
    expect(found.code).toBe(1);
    const output = JSON.parse(found.stdout) as Output;
    expect(output.failure).toMatchObject({
      plan: [{ target: 'api', method: 'PATCH', path: '/v1/produtos/*', nth: 1, effect: 'concurrentEdit' }],
      reasons: [{ kind: 'outcome', diff: ['produtos "SKU-1": descricao "Notebook" → null'] }],
      faultFree: false,
      replay: `catalog-emulator explore --seed 1 --replay PLAN.json -- ${process.execPath} ${INTEGRATION}`,
    });
    // The whole --json output, or its plan alone, replays it: the same failure, in one run.
    const file = join(work, 'found.json');
    writeFileSync(file, found.stdout);
    const replayed = await explore(['--replay', file, '--json'], 'precondition-taken-as-done');
    expect(replayed.code).toBe(1);
    const again = JSON.parse(replayed.stdout) as Output;
    expect([again.runs, again.failure?.plan, again.failure?.reasons]).toEqual([
      1,
      output.failure!.plan,
      output.failure!.reasons,
    ]);
    const text = await explore(['--replay', file], 'precondition-taken-as-done');
    expect(text.stdout).toContain('a run fails under the plan: concurrentEdit on the 1st PATCH /v1/produtos/*');
    expect(text.stdout).toContain(`plan (PLAN.json): ${JSON.stringify(output.failure!.plan)}\n`);
    expect(text.stdout).toMatch(/the failing run's output:\nsynced: catalog \S+, product \S+\n$/);
  });

  it('a 503 not retried: the integration exits non-zero (exit), shrunk to the one 503; the same seed, the same JSON', async () => {
    const args = ['--faults', 'status503', '--runs', '3', '--seed', '5', '--json'];
    const first = await explore(args, 'no-retry-on-503');
    const second = await explore(args, 'no-retry-on-503');
    expect(second.stdout).toBe(first.stdout);
    const output = JSON.parse(first.stdout) as Output;
    expect(first.code).toBe(1);
    expect(output.failure?.plan).toHaveLength(1);
    expect(output.failure?.plan[0]?.effect).toBe('status503');
    expect(output.failure?.reasons[0]).toEqual({ kind: 'exit', message: `${process.execPath} exited with code 1` });
  });

  it('a fault-free run that fails explores nothing: exit 2, saying so', async () => {
    const done = await runHere(['explore', '--runs', '3', '--', process.execPath, '-e', 'process.exit(3)']);
    expect(done.code).toBe(2);
    expect(done.stdout).toMatch(
      /^the fault-free run itself fails: nothing was explored\n {2}exit: \S+ exited with code 3\n/,
    );
    expect(done.stderr).toBe(
      'run 1: no faults → failed (exit)\ncatalog-emulator: the fault-free run itself fails: nothing was explored\n',
    );
  });

  it('a command that makes no request explores nothing: exit 2, saying so, never a pass', async () => {
    const done = await runHere(['explore', '--runs', '3', '--', process.execPath, '-e', '0']);
    expect(done.code).toBe(2);
    expect(done.stdout).toMatch(/^the search is incomplete: the fault-free run made no request/);
    expect(done.stderr).toMatch(
      /\ncatalog-emulator: the search is incomplete: the fault-free run made no request .*\n$/,
    );
  });

  it('refuses bad usage with exit 2 and one line, running nothing', async () => {
    const missing = join(work, 'missing.json');
    const notAPlan = join(work, 'not-a-plan.json');
    writeFileSync(notAPlan, '{"failure":{"plan":[{"target":"api"}]}}');
    const cases: [string[], string][] = [
      [
        ['explore', '--runs', '3'],
        'explore needs the command that runs your integration after -- (explore [options] -- COMMAND [ARGS…])',
      ],
      [['explore', '--runs', '0', ...COMMAND], '--runs must be at least 1'],
      [['explore', '--runs', 'many', ...COMMAND], '--runs must be a whole number (got "many")'],
      [
        ['explore', '--deadline', 'soon', ...COMMAND],
        '--deadline must be a duration such as 90s or 10m, from 1 ms to 24 h (got "soon")',
      ],
      [
        ['explore', '--faults', 'explode', ...COMMAND],
        'faults must name effects among status503, loseResponse, status429, concurrentEdit, reset, truncate, malformedJson, status500, timeout, duplicate, tamper (got "explode")',
      ],
      [['explore', '--replay', missing, ...COMMAND], `--replay ${missing}: no such file`],
      [['explore', '--replay', notAPlan, ...COMMAND], 'replay must be a fault plan: the plan of a failure'],
      [['explore', 'extra', ...COMMAND], 'unexpected argument "extra" (explore [options] -- COMMAND [ARGS…])'],
    ];
    for (const [args, message] of cases) {
      expect(await runHere(args), args.join(' ')).toEqual({
        code: 2,
        stdout: '',
        stderr: `catalog-emulator: ${message}\nRun "catalog-emulator help explore" for usage.\n`,
      });
    }
    expect(readFileSync(notAPlan, 'utf8')).toBe('{"failure":{"plan":[{"target":"api"}]}}');
  });

  it('the built bin runs it as a process: its exit code and output', async () => {
    assertBuilt();
    const run = runCli(['explore', '--runs', '1', ...COMMAND], { timeoutMs: 60_000 });
    expect(await run.exited).toEqual({ code: 0, signal: null });
    await run.closed;
    expect(run.stdout).toBe('explored 1 fault plan (seed 1): every run passed\n');
  });
});
