/**
 * The conformance runner (run.ts, vitest.ts) on test files of its own (fixtures/): bundled the way the build bundles
 * the spec tests (scripts/conformance-bundle.ts, 'vitest' aliased to the runner's module), then run in a process of
 * their own, as `catalog-emulator conformance` runs them: inside this vitest run, the runner's @vitest/runner
 * would be this run's own.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleConformance, bundleName } from '../../scripts/conformance-bundle.js';
import type { FileOutcome, TestsRun } from './run.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const fixture = (name: string) => `src/conformance/fixtures/${name}.fixture.ts`;
const FIXTURES = ['hooks', 'broken-hook', 'second'].map(fixture);

let out: string;
let outcomes: readonly FileOutcome[];
let log: string[];
let stopped: TestsRun;
/** The run without a stop: where it stopped (nowhere). */
let wholeStop: string | undefined;

/**
 * Runs bundled fixtures with runTests in a child process: what it returned and the hooks' log. With `stopOnCue`,
 * the run's stop is the cue a fixture gives (globalThis.conformanceStop), and the process exits once it has written.
 */
function runBundled(
  dir: string,
  sources: readonly string[],
  timeoutMs: number,
  stopOnCue = false,
): Promise<{ run: TestsRun; log: string[] }> {
  const files = sources.map((source) => ({ path: join(dir, bundleName(source)), source }));
  const script = `
    const { runTests } = await import(${JSON.stringify(join(dir, 'run.js'))});
    const stop = ${stopOnCue ? 'new Promise((resolve) => (globalThis.conformanceStop = resolve))' : 'undefined'};
    const run = await runTests(${JSON.stringify(files)}, { timeoutMs: ${timeoutMs}, color: false, stop });
    process.stdout.write(JSON.stringify({ run, log: globalThis.conformanceLog }), () => process.exit(0));`;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script],
      { cwd: dir, timeout: 60_000, maxBuffer: 10_000_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`the runner failed: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as { run: TestsRun; log: string[] });
      },
    );
  });
}

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'conformance-runner-'));
  await bundleConformance({
    root: ROOT,
    testFiles: [...FIXTURES, fixture('stopped')],
    outdir: out,
    vitestModule: join(ROOT, 'src/conformance/vitest.ts'),
    extraEntries: ['src/conformance/run.ts'],
  });
  // The stopped run's test timeout is a minute: only the stop can end the test that never ends, in time.
  const [whole, cut] = await Promise.all([
    runBundled(out, FIXTURES, 300),
    runBundled(out, [fixture('stopped'), fixture('second')], 60_000, true),
  ]);
  ({
    run: { outcomes, stoppedDuring: wholeStop },
    log,
  } = whole);
  stopped = cut.run;
}, 120_000);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

const result = (file: number, ...names: string[]) =>
  outcomes[file]!.results.find((r) => r.names.join(' › ') === names.join(' › '));

describe('the conformance runner', () => {
  it('runs every test of every file, in file order, under its full name', () => {
    expect(outcomes.map((o) => o.results.map((r) => `${r.names.join(' › ')}: ${r.outcome}`))).toEqual([
      [
        'outer › inner › first: passed',
        'outer › row 1 is one: passed',
        'outer › row 2 is two: passed',
        "outer › object row 'a': passed",
        'outer › run only if false: skipped',
        'outer › skipped if true: skipped',
        'outer › skips with a note: skipped',
        'outer › fails an expect: failed',
        'outer › matches asymmetrically and awaits a rejection: passed',
        'outer › takes longer than the default timeout: failed',
        'outer › takes as long but has a timeout of its own: passed',
        'outer › last: passed',
        'suite x › inherits the suite timeout: passed',
        'suite y › inherits the suite timeout: passed',
      ],
      ['set up through the controls › depends on the set-up: skipped'],
      ['runs after the other files, in the same process: passed'],
    ]);
  });

  it('runs the hooks in the order vitest does, onTestFinished after the afterEach hooks, and nothing after a skip', () => {
    expect(log).toEqual([
      'beforeAll outer',
      'beforeEach outer',
      'beforeEach inner',
      'first',
      'afterEach inner',
      'afterEach outer',
      'finished first',
      'beforeEach outer',
      'row 1 one',
      'afterEach outer',
      'beforeEach outer',
      'row 2 two',
      'afterEach outer',
      // object row, skip with a note, the failing expect, the asymmetric one, the two slow ones: hooks only.
      ...Array.from({ length: 6 }, () => ['beforeEach outer', 'afterEach outer']).flat(),
      'beforeEach outer',
      'last',
      'afterEach outer',
      'afterAll outer',
      'suite x',
      'suite y',
    ]);
  });

  it('keeps the note of context.skip(note); a test skipped by its own condition has none', () => {
    expect(result(0, 'outer', 'skips with a note')).toMatchObject({ outcome: 'skipped', note: 'needs the controls' });
    expect(result(0, 'outer', 'run only if false')).not.toHaveProperty('note');
  });

  it("reports a failing expect with the assertion's message, a plain diff and the line of the test", () => {
    const note = result(0, 'outer', 'fails an expect')!.note!;
    expect(note.split('\n')).toEqual([
      'the body: expected { a: 1, b: [ 1, 2 ] } to deeply equal { a: 1, b: [ 1, 3 ] }',
      '- Expected',
      '+ Received',
      '',
      '  {',
      '    "a": 1,',
      '    "b": [',
      '      1,',
      '-     3,',
      '+     2,',
      '    ],',
      '  }',
      expect.stringMatching(/^at src\/conformance\/fixtures\/hooks\.fixture\.ts:\d+$/),
    ]);
  });

  it("fails a test that outlasts the default timeout, and lets one with its own (or its suite's) run on", () => {
    expect(result(0, 'outer', 'takes longer than the default timeout')!.note).toMatch(/^Test timed out in 300ms\./);
    expect(result(0, 'outer', 'takes as long but has a timeout of its own')!.outcome).toBe('passed');
  });

  it('returns when the stop comes, with the tests that ended; the one running and the rest are not run', () => {
    expect(wholeStop).toBeUndefined();
    expect(stopped).toEqual({
      outcomes: [
        {
          results: [
            {
              file: fixture('stopped'),
              names: ['cut short', 'ends before the stop'],
              outcome: 'passed',
              durationMs: expect.any(Number),
            },
          ],
          errors: [],
          durationMs: expect.any(Number),
        },
      ],
      stoppedDuring: `${fixture('stopped')} › cut short › is running when the run stops`,
    });
  });

  it('reports a describe-level hook that throws outside any test, and goes on with the next file', () => {
    expect(outcomes[1]!.errors).toEqual([
      {
        file: FIXTURES[1],
        where: 'set up through the controls',
        message: expect.stringMatching(
          /^no controls here\nat src\/conformance\/fixtures\/broken-hook\.fixture\.ts:\d+$/,
        ),
      },
    ]);
    expect(outcomes[0]!.errors).toEqual([]);
    expect(outcomes[2]!.results[0]!.outcome).toBe('passed');
  });
});
