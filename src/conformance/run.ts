/**
 * The runner of `catalog-emulator conformance`: bundled as dist/conformance/run.js next to the bundled spec tests
 * (scripts/conformance-bundle.ts), it runs them one file at a time, in file order, with Vitest's own runner
 * (@vitest/runner, the engine under `vitest run`), then prints the matrix of the target: per statement of the
 * specification, passed / failed / skipped (with the reason) / no test; then the totals.
 *
 * The CLI sets CONFORMANCE_BASE_URL, CONFORMANCE_TOKEN and CONFORMANCE_TOKEN_FOR (and the request bounds) before
 * it calls runConformance: the tests' support (spec-tests/support/deployment.ts, bundled beside this module as
 * deployment.js) reads them when it is loaded. The runner loads it first, for its bounded fetch (the preflight's)
 * and to stop every request when the run's deadline passes.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startTests, type File, type Suite, type Task, type VitestRunner } from '@vitest/runner';
import { preflight } from './preflight.js';
import {
  buildMatrix,
  formatDuration,
  renderMarkdown,
  renderText,
  selectFiles,
  toJson,
  verdict,
  type Catalogue,
  type RunError,
  type TestResult,
} from './report.js';
import { setCurrentTestName } from './vitest.js';

/** How every report of `--report FILE` begins: the one file a later run's report may replace. */
export { REPORT_OPENING } from './report.js';

/** One test file to run: the bundle to import, and the source path it is reported under. */
export interface TestFile {
  readonly path: string;
  readonly source: string;
}

export interface FileOutcome {
  readonly results: readonly TestResult[];
  readonly errors: readonly RunError[];
  readonly durationMs: number;
}

/** Diffs without colour: for a file, a pipe, --json and --report (tinyrainbow would colour them unless TERM=dumb). */
const plain = (text: string) => text;
const PLAIN_DIFF = {
  aColor: plain,
  bColor: plain,
  changeColor: plain,
  commonColor: plain,
  patchColor: plain,
  changeLineTrailingSpaceColor: plain,
  commonLineTrailingSpaceColor: plain,
  truncateAnnotationColor: plain,
};

function runnerWith(
  timeoutMs: number,
  color: boolean,
  sources: ReadonlyMap<string, string>,
  onTest: (test: Task) => void,
): VitestRunner {
  return {
    config: {
      root: process.cwd(),
      setupFiles: [],
      name: undefined,
      passWithNoTests: true,
      testNamePattern: undefined,
      allowOnly: false,
      // Vitest's defaults: no shuffling; the after-hooks in the reverse order of their registration ('stack').
      sequence: { seed: 0, hooks: 'stack', setupFiles: 'list' },
      chaiConfig: undefined,
      maxConcurrency: 1,
      testTimeout: timeoutMs,
      hookTimeout: timeoutMs,
      retry: 0,
      includeTaskLocation: false,
      tags: [],
      tagsFilter: undefined,
      strictTags: false,
      ...(color ? {} : { diffOptions: PLAIN_DIFF }),
    },
    importFile: (filepath) => import(pathToFileURL(filepath).href),
    onBeforeTryTask: (test) => {
      onTest(test);
      setCurrentTestName(namesOf(test).join(' > '), sources.get(test.file.filepath) ?? test.file.filepath);
    },
  };
}

/** A task's suites' names and its own, without the file. */
function namesOf(task: Task): string[] {
  const names: string[] = [];
  for (let t: Task | undefined = task; t !== undefined && t !== task.file; t = t.suite) names.unshift(t.name);
  return names;
}

interface ReportedError {
  readonly message?: string;
  readonly diff?: string;
  readonly stack?: string;
  readonly name?: string;
}

/** What failed, as a reader needs it: the message, the diff when there is one, and the test's own line. */
function describeError(error: ReportedError): string {
  const message = error.message ?? String(error);
  const lines = [
    error.name !== undefined && error.name !== 'Error' && error.name !== 'AssertionError'
      ? `${error.name}: ${message}`
      : message,
  ];
  if (error.diff) lines.push(error.diff);
  // With the bundles' source maps on, the frames name the tests' own files: the first names the line that failed
  // (in the test, or in the support helper that asserts for it).
  const at = (error.stack ?? '')
    .split('\n')
    .filter((line) => !line.includes('node_modules'))
    // After a separator, not a word boundary: a checkout at /work/my-src/ has no test in my-src/.
    .map((line) => /(?:^|[\s(/\\])((?:spec-tests|src)\/[^\s():]*\.ts:\d+)/.exec(line)?.[1])
    .find((frame) => frame !== undefined);
  if (at !== undefined) lines.push(`at ${at}`);
  return lines.join('\n');
}

/** A test's state once it is over: passed, failed or skipped (by a condition, or by itself). */
const FINAL_STATES: ReadonlySet<string | undefined> = new Set(['pass', 'fail', 'skip', 'todo']);

/** The outcome of a file; `partial` for one the deadline stopped: a test that had not ended is left out (not run). */
function collect(file: File, source: string, partial = false): FileOutcome {
  const results: TestResult[] = [];
  const errors: RunError[] = [];
  const visit = (task: Task): void => {
    if (task.type === 'test') {
      const state = task.result?.state;
      if (partial && !FINAL_STATES.has(state)) return;
      const names = namesOf(task);
      const durationMs = Math.round(task.result?.duration ?? 0);
      if (state === 'pass') results.push({ file: source, names, outcome: 'passed', durationMs });
      else if (state === 'fail')
        results.push({
          file: source,
          names,
          outcome: 'failed',
          note: (task.result?.errors ?? []).map(describeError).join('\n') || 'failed',
          durationMs,
        });
      else {
        // context.skip(note) leaves the note on the result; @vitest/runner sets it without typing it.
        const note = (task.result as { note?: string } | undefined)?.note;
        results.push({ file: source, names, outcome: 'skipped', ...(note === undefined ? {} : { note }), durationMs });
      }
      return;
    }
    for (const error of task.result?.errors ?? [])
      errors.push({
        file: source,
        where: task === file ? '(the file)' : namesOf(task).join(' › '),
        message: describeError(error),
      });
    for (const child of (task as Suite).tasks) visit(child);
  };
  visit(file);
  return {
    results,
    errors,
    durationMs: Math.round(file.result?.duration ?? 0) + Math.round(file.collectDuration ?? 0),
  };
}

export interface TestsRun {
  readonly outcomes: readonly FileOutcome[];
  /** When `stop` settled first: the file, and the test, running then (the file's outcome holds the tests that ended). */
  readonly stoppedDuring?: string;
}

/**
 * Runs the files one after the other (the tests of a file one at a time, hooks as Vitest orders them, each test
 * and hook with `timeoutMs` unless it names its own), reporting each file as it ends. When `stop` resolves first,
 * it returns at once with what ended by then; the file then running is left to its fate (its requests fail, the
 * process exits).
 */
export async function runTests(
  files: readonly TestFile[],
  options: { readonly timeoutMs: number; readonly color: boolean; readonly stop?: Promise<unknown> },
  onFile: (file: TestFile, outcome: FileOutcome) => void = () => undefined,
): Promise<TestsRun> {
  // Stack frames then name the tests' own files and lines (the bundles carry source maps).
  process.setSourceMapsEnabled(true);
  const sources = new Map(files.map((f) => [f.path, f.source]));
  // The test running last and the files as collected: what a stop reports of the file it cuts short.
  const now: { test?: Task } = {};
  const collected = new Map<string, File>();
  const runner = {
    ...runnerWith(options.timeoutMs, options.color, sources, (test) => (now.test = test)),
    onCollected: (found: File[]) => void found.forEach((f) => collected.set(f.filepath, f)),
  };
  const stopped = Symbol('stopped');
  const stop = options.stop?.then((): typeof stopped => stopped) ?? new Promise<never>(() => undefined);
  const outcomes: FileOutcome[] = [];
  for (const file of files) {
    delete now.test;
    const ran = await Promise.race([startTests([file.path], runner).then(([one]) => one), stop]);
    if (ran === stopped) {
      const partial = collected.get(file.path);
      if (partial !== undefined) outcomes.push(collect(partial, file.source, true));
      // Set by the runner since the delete above: the narrowing to undefined does not see the callback.
      const last = now.test as Task | undefined;
      const test = last !== undefined && !FINAL_STATES.has(last.result?.state) ? ` › ${namesOf(last).join(' › ')}` : '';
      return { outcomes, stoppedDuring: `${file.source}${test}` };
    }
    const outcome =
      ran === undefined
        ? {
            results: [],
            errors: [{ file: file.source, where: '(the file)', message: 'the runner returned no result' }],
            durationMs: 0,
          }
        : collect(ran, file.source);
    outcomes.push(outcome);
    onFile(file, outcome);
  }
  return { outcomes };
}

/** What the runner uses of the tests' support (spec-tests/support/deployment.ts), bundled beside it as deployment.js. */
interface DeploymentSupport {
  /** fetch within the request bounds; a failure is a RequestFailure naming the URL and what happened. */
  deploymentFetch(url: string, init: RequestInit): Promise<Response>;
  /** Every request pending or to come fails with `reason`. */
  stopRequests(reason: string): void;
}

export interface ConformanceOptions {
  /** The target's base URL, as the report names it. */
  readonly target: string;
  /** The credentials the preflight asks GET /v1/empresa with, each with the flag that gave it. */
  readonly credentials: readonly { readonly flag: string; readonly token: string }[];
  /** The whole run's time, the preflight included; when it passes, the run stops and exits 2. */
  readonly deadlineMs: number;
  readonly timeoutMs: number;
  /** --files patterns; none runs every file. */
  readonly files: readonly string[];
  readonly json: boolean;
  /** Whether the failures' diffs are coloured (a terminal, no --json, no --report). */
  readonly color: boolean;
  /** --report FILE: writes the matrix as Markdown (the caller's, which never writes over a file not a report). */
  readonly writeReport?: (markdown: string) => void;
  /** A bad usage the runner finds (a --files pattern that names no file): the CLI's one-line error, exit 2. */
  readonly usageError: (message: string) => never;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/**
 * The bundled spec tests against the target, within the deadline; resolves to the exit code (report.ts `verdict`):
 * 0 when a test passed and none failed, 1 when one failed, 2 when the preflight could not reach the deployment, the
 * deadline passed, or nothing passed. Every outcome but 0 and 1 prints one line saying why.
 */
export async function runConformance(options: ConformanceOptions): Promise<number> {
  const here = new URL('./', import.meta.url);
  const catalogue = JSON.parse(readFileSync(new URL('statements.json', here), 'utf8')) as Catalogue;
  const { selected, unmatched } = selectFiles(catalogue.files, options.files);
  if (unmatched.length > 0)
    options.usageError(
      `--files ${unmatched.join(', ')} names no spec test file (they are: ${catalogue.files.map((f) => f.source.replace(/^spec-tests\/|\.test\.ts$/g, '')).join(', ')})`,
    );

  const support = (await import(new URL('deployment.js', here).href)) as DeploymentSupport;
  // A ref'd timer: until the deadline, the process always has something to wait for.
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      support.stopRequests(`the deadline of ${formatDuration(options.deadlineMs)} (--deadline) passed`);
      resolve();
    }, options.deadlineMs);
  });
  try {
    for (const { flag, token } of options.credentials) {
      const problem = await preflight(support.deploymentFetch, options.target, token, flag);
      if (problem?.usage) options.usageError(problem.message);
      if (problem !== undefined) {
        options.stderr(`catalog-emulator: ${problem.message}\n`);
        return 2;
      }
    }
    // Under --json stdout carries the one JSON object: the progress goes to stderr.
    const progress = options.json ? options.stderr : options.stdout;
    progress(
      `Running ${selected.length} spec test file${selected.length === 1 ? '' : 's'} of catalog-emulator ${catalogue.version} against ${options.target}\n`,
    );
    const files = selected.map((f) => ({ path: fileURLToPath(new URL(f.bundle, here)), source: f.source }));
    const color = options.color && !options.json && options.writeReport === undefined;
    const { outcomes, stoppedDuring } = await runTests(
      files,
      { timeoutMs: options.timeoutMs, color, stop: deadline },
      (file, outcome) => progress(fileLine(file, outcome)),
    );
    const run = { deadlineMs: options.deadlineMs, ...(stoppedDuring === undefined ? {} : { stoppedDuring }) };
    const matrix = buildMatrix(
      catalogue,
      outcomes.flatMap((o) => o.results),
      outcomes.flatMap((o) => o.errors),
    );
    options.writeReport?.(renderMarkdown(matrix, options.target, catalogue.version, run));
    if (options.json) options.stdout(`${JSON.stringify(toJson(matrix, options.target, catalogue.version, run))}\n`);
    else options.stdout(`\n${renderText(matrix, options.target, run)}`);
    const { code, line } = verdict(matrix, run);
    if (line !== undefined) options.stderr(`catalog-emulator: ${line}\n`);
    return code;
  } finally {
    clearTimeout(timer);
  }
}

/** One file's line of the progress, then each of its failures with what failed. */
function fileLine(file: TestFile, outcome: FileOutcome): string {
  const count = (o: string) => outcome.results.filter((r) => r.outcome === o).length;
  const failed = outcome.results.filter((r) => r.outcome === 'failed');
  const mark = failed.length > 0 || outcome.errors.length > 0 ? 'FAIL' : 'ok  ';
  const lines = [
    `${mark} ${file.source}: ${count('passed')} passed, ${failed.length} failed, ${count('skipped')} skipped (${(outcome.durationMs / 1000).toFixed(1)} s)`,
  ];
  const indent = (text: string) =>
    text
      .split('\n')
      .map((line) => `      ${line}`)
      .join('\n');
  for (const r of failed) lines.push(`  × ${r.names.join(' › ')}`, indent(r.note ?? ''));
  for (const e of outcome.errors) lines.push(`  × ${e.where}`, indent(e.message));
  return `${lines.join('\n')}\n`;
}
