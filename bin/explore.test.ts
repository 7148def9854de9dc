/**
 * `catalog-emulator explore -- COMMAND`: the search over HTTP, with a small integration written as a client in
 * another language would be (bin/__fixtures__/integration.mjs, its mistake planted through MISTAKE). The command
 * runs in this process as the bin runs it (runHere), on a server of its own, and spawns the integration for each run;
 * the built bin, a child process, runs it once to prove its wiring and exit code.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../src/index.js';
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
        'faults must name effects among status503, loseResponse, status429, concurrentEdit, reset, truncate, malformedJson, status500, timeout, duplicate, tamper, fail, delay (got "explode")',
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

  it('a server given with --url is told the exploration: its log tells each run in a line, its report holds the verdict', async () => {
    const emulator = createEmulator({ clock: 'real' });
    const server = await emulator.listen({ port: 0 });
    const details: string[] = [];
    const stop = emulator.activity.subscribe((entry) => {
      if (entry.kind === 'control' && entry.path.startsWith('/_emulator/explorations'))
        details.push(entry.detail ?? '');
    });
    try {
      const done = await runHere(['explore', '--runs', '20', '--url', server.url, ...COMMAND], {
        MISTAKE: 'no-retry-on-503',
      });
      expect(done.code).toBe(1);
      const runs = done.stderr.trimEnd().split('\n');
      const shown = emulator.explorations.last()!;
      expect(shown).toMatchObject({
        id: 'exploracao-1',
        state: 'failed',
        seed: 1,
        runsAsked: 20,
        command: `${process.execPath} ${INTEGRATION}`,
        told: runs.length,
      });
      expect(shown.verdict?.failure).toMatchObject({
        plan: [{ effect: 'status503' }],
        replay: `catalog-emulator explore --seed 1 --replay PLAN.json -- ${process.execPath} ${INTEGRATION}`,
      });
      // One control call begins it, one per run tells the run in a line, one ends it with the verdict.
      expect(details[0]).toBe(`exploracao-1 begun: seed 1, 20 plans asked, ${process.execPath} ${INTEGRATION}`);
      expect(details.slice(1, -1)).toEqual(
        runs.map((line) => {
          const [, n, rest] = /^run (\d+): (.*)$/.exec(line)!;
          return expect.stringMatching(
            new RegExp(
              `^exploracao-1 run ${n} \\((fault-free|search|shrinking)\\): ${rest!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`,
            ),
          );
        }),
      );
      expect(details.at(-1)).toMatch(/^exploracao-1 failed \(seed 1, \d+ runs\): status503 on the 1st /);
      expect(emulator.report().exploration).toEqual(shown);
    } finally {
      stop();
      await server.close();
      await emulator.close();
    }
  });

  it('a server that cannot be told an exploration (one without the controls) is said so once, and the search goes on', async () => {
    const emulator = createEmulator({ clock: 'real' });
    const real = await emulator.listen({ port: 0 });
    // A catalog-emulator of before explorations: every call passed on, but those to /_emulator/explorations.
    const older = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', async () => {
        const path = request.url ?? '/';
        // A reset or a cut answer (faults of the runs' plans) breaks the connection here too.
        try {
          const target = path.startsWith('/_emulator/explorations') ? '/_emulator/no-such-control' : path;
          const forwarded = await emulator.fetch(target, {
            method: request.method!,
            headers: request.headers as Record<string, string>,
            ...(chunks.length === 0 ? {} : { body: Buffer.concat(chunks) }),
          });
          const body = Buffer.from(await forwarded.arrayBuffer());
          response.writeHead(forwarded.status, Object.fromEntries(forwarded.headers));
          response.end(body);
        } catch {
          response.destroy();
        }
      });
    });
    await new Promise<void>((resolve) => older.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(older.address() as { port: number }).port}`;
    try {
      const done = await runHere(['explore', '--runs', '2', '--url', url, ...COMMAND], { MISTAKE: 'none' });
      expect(done.code).toBe(0);
      expect(done.stdout).toBe('explored 2 fault plans (seed 1): every run passed\n');
      const said = done.stderr.split('\n').filter((line) => line.startsWith('catalog-emulator:'));
      expect(said).toEqual([
        expect.stringMatching(
          /^catalog-emulator: the server is not told this exploration \(.+\(404 rota_nao_encontrada\)\); the search goes on$/,
        ),
      ]);
      expect(emulator.explorations.last()).toBeUndefined();
    } finally {
      older.close();
      await real.close();
      await emulator.close();
    }
  });

  it("job faults over HTTP: the fault-free run's job runs, read from its timeline, are where they land", async () => {
    const read = (analysis: string) =>
      runHere(['explore', '--runs', '5', '--faults', 'delay,fail', '--json', ...COMMAND], {
        MISTAKE: 'none',
        ANALYSIS: analysis,
      });
    const polled = await read('poll');
    expect(polled.code, polled.stdout).toBe(1);
    // A failed analysis is not asked again by this integration: the end of the analysis's run failed.
    expect((JSON.parse(polled.stdout) as Output).failure?.plan).toEqual([
      { target: 'job', kind: 'analise', nth: 1, effect: 'fail' },
    ]);
    const once = await runHere(['explore', '--runs', '5', '--faults', 'delay', '--json', ...COMMAND], {
      MISTAKE: 'none',
      ANALYSIS: 'read-once',
    });
    expect(once.code, once.stdout).toBe(1);
    const failure = (JSON.parse(once.stdout) as Output).failure!;
    expect(failure.plan).toEqual([{ target: 'job', kind: 'analise', nth: 1, effect: 'delay' }]);
    expect(failure.reasons[0]).toEqual({ kind: 'exit', message: `${process.execPath} exited with code 1` });
  });

  it('the built bin runs it as a process: its exit code and output', async () => {
    assertBuilt();
    const run = runCli(['explore', '--runs', '1', ...COMMAND], { timeoutMs: 60_000 });
    expect(await run.exited).toEqual({ code: 0, signal: null });
    await run.closed;
    expect(run.stdout).toBe('explored 1 fault plan (seed 1): every run passed\n');
  });
});
