/**
 * The conformance matrix of one run: what the build recorded of the spec tests (dist/conformance/statements.json:
 * the spec's statements and the ids each test cites, found by the trace's scanner) joined with how each test fared
 * against the target; as text, Markdown and JSON. Pure: no I/O.
 */

interface StatementInfo {
  readonly id: string;
  readonly section: string;
  readonly text: string;
  /** False for the statements no HTTP answer or delivered webhook can show. */
  readonly blackBox: boolean;
}

/** A test as the build found it in the source. */
interface TracedTest {
  /** Path from the repository root: spec-tests/catalogs.test.ts. */
  readonly file: string;
  readonly line: number;
  /** Its suites' names and its own, as written (`${…}` and `%s` where the name is made at run time). */
  readonly name: string;
  /** One regular expression per name level (suites, then the test), matching the names it takes at run time. */
  readonly patterns: readonly string[];
  readonly ids: readonly string[];
}

/** dist/conformance/statements.json. */
export interface Catalogue {
  /** The version of the package the tests were bundled from. */
  readonly version: string;
  readonly statements: readonly StatementInfo[];
  /** Each bundled test file: its source path and its bundle's name in the same directory. */
  readonly files: readonly { readonly source: string; readonly bundle: string }[];
  readonly tests: readonly TracedTest[];
}

type Outcome = 'passed' | 'failed' | 'skipped';

export interface TestResult {
  /** The source path of its file: spec-tests/catalogs.test.ts. */
  readonly file: string;
  /** Its suites' names, then its own, as they ran. */
  readonly names: readonly string[];
  readonly outcome: Outcome;
  /** Why it was skipped, or what failed (the assertion's message, a diff, where). */
  readonly note?: string;
  readonly durationMs: number;
}

/** A failure outside any test: a file that could not be loaded, a describe-level hook that threw. */
export interface RunError {
  readonly file: string;
  readonly where: string;
  readonly message: string;
}

/**
 * A skip reason as the totals group it: the ids in it (a company's, a record's) as {id}, so that the tests skipped
 * for one reason count together.
 */
function reasonOf(result: TestResult): string {
  return result.note === undefined
    ? NO_REASON
    : result.note.replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '{id}');
}

/** The reason given for a test skipped without one: its file's own condition (`it.runIf`, `describe.skipIf`…). */
export const NO_REASON = "skipped by the test file's own condition (runIf/skipIf)";

type RowStatus = Outcome | 'not run' | 'no test';

interface Row {
  readonly statement: StatementInfo;
  /**
   * failed if a test citing it failed; else passed if one passed; else skipped; `not run` when tests cite it but
   * none ran (their files were left out with --files); `no test` when no test cites it.
   */
  readonly status: RowStatus;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  /** Why its skipped tests were skipped, without repeats. */
  readonly reasons: readonly string[];
}

interface Totals {
  readonly tests: number;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  /** Skip reasons with how many tests each, most first. */
  readonly reasons: readonly { readonly reason: string; readonly count: number }[];
  /** passed / all tests, as a percentage with one decimal. */
  readonly runnableShare: string;
  /** Failures outside any test. */
  readonly errors: number;
  /** How many statements have each status. */
  readonly statements: Readonly<Record<RowStatus, number>>;
}

/** How the run went as a whole: its deadline, and where the run was when the deadline passed, if it did. */
export interface RunInfo {
  readonly deadlineMs: number;
  /** Set when the deadline passed first: the file (and the test) running then; nothing after it ran. */
  readonly stoppedDuring?: string;
}

export interface Matrix {
  readonly rows: readonly Row[];
  readonly totals: Totals;
  readonly results: readonly (TestResult & { readonly ids: readonly string[] })[];
  readonly errors: readonly RunError[];
}

/** The traced tests a result is one run of (an `it.each` row, a test in a loop: names made at run time). */
function tracedFor(
  result: TestResult,
  byFile: ReadonlyMap<string, readonly { test: TracedTest; patterns: RegExp[] }[]>,
): TracedTest[] {
  return (byFile.get(result.file) ?? [])
    .filter(
      ({ patterns }) =>
        patterns.length === result.names.length && patterns.every((pattern, i) => pattern.test(result.names[i]!)),
    )
    .map(({ test }) => test);
}

export function buildMatrix(catalogue: Catalogue, results: readonly TestResult[], errors: readonly RunError[]): Matrix {
  const byFile = new Map<string, { test: TracedTest; patterns: RegExp[] }[]>();
  for (const test of catalogue.tests) {
    const list = byFile.get(test.file) ?? [];
    list.push({ test, patterns: test.patterns.map((p) => new RegExp(p)) });
    byFile.set(test.file, list);
  }
  const withIds = results.map((result) => ({
    ...result,
    ids: [...new Set(tracedFor(result, byFile).flatMap((t) => t.ids))],
  }));
  const rows = catalogue.statements.map((statement): Row => {
    const mine = withIds.filter((r) => r.ids.includes(statement.id));
    const count = (outcome: Outcome) => mine.filter((r) => r.outcome === outcome).length;
    const [passed, failed, skipped] = [count('passed'), count('failed'), count('skipped')];
    const cited = catalogue.tests.some((t) => t.ids.includes(statement.id));
    const status: RowStatus =
      failed > 0 ? 'failed' : passed > 0 ? 'passed' : skipped > 0 ? 'skipped' : cited ? 'not run' : 'no test';
    const reasons = [...new Set(mine.filter((r) => r.outcome === 'skipped').map(reasonOf))];
    return { statement, status, passed, failed, skipped, reasons };
  });
  const counts = new Map<string, number>();
  for (const r of results) if (r.outcome === 'skipped') counts.set(reasonOf(r), (counts.get(reasonOf(r)) ?? 0) + 1);
  const tally = (outcome: Outcome) => results.filter((r) => r.outcome === outcome).length;
  const statements: Record<RowStatus, number> = { passed: 0, failed: 0, skipped: 0, 'not run': 0, 'no test': 0 };
  for (const row of rows) statements[row.status]++;
  const passed = tally('passed');
  return {
    rows,
    results: withIds,
    errors,
    totals: {
      tests: results.length,
      passed,
      failed: tally('failed'),
      skipped: tally('skipped'),
      reasons: [...counts]
        .map(([reason, count]) => ({ reason, count }))
        .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1)),
      runnableShare: results.length === 0 ? '0.0' : ((passed * 100) / results.length).toFixed(1),
      errors: errors.length,
      statements,
    },
  };
}

function rowDetail(row: Row): string {
  const parts = [
    row.passed > 0 ? `${row.passed} passed` : '',
    row.failed > 0 ? `${row.failed} failed` : '',
    row.skipped > 0 ? `${row.skipped} skipped` : '',
  ].filter(Boolean);
  const skippedOnly = row.status === 'skipped' ? `: ${row.reasons.join('; ')}` : '';
  return `${parts.join(', ')}${skippedOnly}`;
}

/** 20 min, 90 s, 1500 ms: the largest unit that states it exactly. */
export function formatDuration(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

function deadlineLine(run: RunInfo): string {
  const deadline = `Deadline: ${formatDuration(run.deadlineMs)} (--deadline)`;
  return run.stoppedDuring === undefined
    ? `${deadline}, not reached`
    : `${deadline}, passed during ${run.stoppedDuring}: the run stopped there, and what came after did not run`;
}

function totalsLines(totals: Totals, run: RunInfo): string[] {
  const s = totals.statements;
  const out = [
    `Statements: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped, ${s['not run']} not run, ${s['no test']} with no test (of ${Object.values(s).reduce((a, b) => a + b, 0)})`,
    `Tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped (of ${totals.tests}); runnable share ${totals.runnableShare}% (passed / all)`,
    deadlineLine(run),
  ];
  if (totals.errors > 0) out.push(`Errors outside tests: ${totals.errors}`);
  if (totals.reasons.length > 0) {
    out.push('Skipped, by reason:');
    const width = String(totals.reasons[0]!.count).length;
    for (const { reason, count } of totals.reasons) out.push(`  ${String(count).padStart(width)}  ${reason}`);
  }
  return out;
}

/** The matrix as the terminal shows it: one line per statement, then the totals. */
export function renderText(matrix: Matrix, target: string, run: RunInfo): string {
  const out = [`Conformance of ${target}, per statement of the specification:`, ''];
  for (const row of matrix.rows) {
    const mark = row.statement.blackBox ? '' : ' (not black-box)';
    out.push(`${row.statement.id.padEnd(11)} ${row.status.padEnd(8)} ${rowDetail(row)}${mark}`.trimEnd());
  }
  out.push('', ...totalsLines(matrix.totals, run));
  return `${out.join('\n')}\n`;
}

/** A table cell: no line break, no column break, no HTML. */
function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/\r?\n/g, ' ');
}

/** The matrix as a Markdown document (--report FILE). */
/** How every Markdown report begins, whatever its target. */
export const REPORT_OPENING = '# Conformance of ';

export function renderMarkdown(matrix: Matrix, target: string, version: string, run: RunInfo): string {
  const out = [
    `${REPORT_OPENING}${target}`,
    '',
    `The spec tests of catalog-emulator ${version}, run against ${target}: each numbered statement of the specification, how the tests that check it fared.`,
    '',
    ...totalsLines(matrix.totals, run).map((line) => (line.startsWith('  ') ? `  - ${line.trim()}` : `- ${line}`)),
    '',
    '| Statement | Text | Result | Tests |',
    '| --- | --- | --- | --- |',
    ...matrix.rows.map(
      (row) =>
        `| ${row.statement.id} | ${cell(row.statement.text)}${row.statement.blackBox ? '' : ' _(not black-box)_'} | ${row.status} | ${cell(rowDetail(row)) || '—'} |`,
    ),
  ];
  const failed = matrix.results.filter((r) => r.outcome === 'failed');
  if (failed.length > 0 || matrix.errors.length > 0) {
    out.push('', '## Failures', '');
    for (const r of failed) out.push(`- ${cell(`${r.file} › ${r.names.join(' › ')}`)}: ${cell(firstLine(r.note))}`);
    for (const e of matrix.errors) out.push(`- ${cell(`${e.file} › ${e.where}`)}: ${cell(firstLine(e.message))}`);
  }
  return `${out.join('\n')}\n`;
}

function firstLine(text: string | undefined): string {
  return (text ?? '').split('\n')[0] ?? '';
}

/** The matrix as one JSON object (--json). */
export function toJson(matrix: Matrix, target: string, version: string, run: RunInfo): object {
  return {
    target,
    version,
    totals: matrix.totals,
    deadline: {
      ms: run.deadlineMs,
      passed: run.stoppedDuring !== undefined,
      ...(run.stoppedDuring === undefined ? {} : { stoppedDuring: run.stoppedDuring }),
    },
    statements: matrix.rows.map((row) => ({
      id: row.statement.id,
      blackBox: row.statement.blackBox,
      status: row.status,
      passed: row.passed,
      failed: row.failed,
      skipped: row.skipped,
      reasons: row.reasons,
    })),
    tests: matrix.results.map((r) => ({
      file: r.file,
      name: r.names.join(' › '),
      outcome: r.outcome,
      ...(r.note === undefined ? {} : { note: r.note }),
      ids: r.ids,
      durationMs: r.durationMs,
    })),
    errors: matrix.errors,
  };
}

/**
 * The exit code of a run, and the line that says why when it is not the matrix's own story: 2 when the deadline
 * passed or nothing passed (no test ran, or every one was skipped: the run shows nothing of the deployment), 1 when
 * a test failed (or a file failed outside its tests), 0 when at least one test passed and none failed.
 */
export function verdict(matrix: Matrix, run: RunInfo): { readonly code: 0 | 1 | 2; readonly line?: string } {
  const { totals } = matrix;
  if (run.stoppedDuring !== undefined)
    return {
      code: 2,
      line: `the deadline of ${formatDuration(run.deadlineMs)} (--deadline) passed during ${run.stoppedDuring}: the run stopped there; the report shows what ran before`,
    };
  if (totals.failed > 0 || totals.errors > 0) return { code: 1 };
  if (totals.tests === 0) return { code: 2, line: 'no test ran: the run shows nothing of the deployment' };
  if (totals.passed === 0)
    return {
      code: 2,
      line: `no test passed: ${totals.tests === 1 ? 'the one test was' : `all ${totals.tests} tests were`} skipped (the report gives the reasons), so the run shows nothing of the deployment`,
    };
  return { code: 0 };
}

/** `*` any run of characters but `/`, `?` one: a file name pattern of --files. */
function globPattern(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '[^/]*')
      .replace(/\?/g, '[^/]')}$`,
  );
}

/**
 * The files a --files pattern names, matched against the file's name (catalogs.test.ts), its name without
 * `.test.ts` (catalogs) and its path (spec-tests/catalogs.test.ts).
 */
export function selectFiles<T extends { readonly source: string }>(
  files: readonly T[],
  globs: readonly string[],
): { selected: T[]; unmatched: string[] } {
  if (globs.length === 0) return { selected: [...files], unmatched: [] };
  const patterns = globs.map((glob) => ({ glob, pattern: globPattern(glob) }));
  const names = (source: string) => {
    const base = source.slice(source.lastIndexOf('/') + 1);
    return [source, base, base.replace(/\.test\.ts$/, '')];
  };
  const unmatched = patterns
    .filter(({ pattern }) => !files.some((f) => names(f.source).some((n) => pattern.test(n))))
    .map(({ glob }) => glob);
  return {
    selected: files.filter((f) => patterns.some(({ pattern }) => names(f.source).some((n) => pattern.test(n)))),
    unmatched,
  };
}
