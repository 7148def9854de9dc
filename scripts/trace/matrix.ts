/**
 * The conformance matrix: each statement of the spec, the tests that say they check it and how they fared in the
 * last run; printed by `npm run trace` and written as docs/conformance.md.
 */
import { statusOf, type RunResult, type TestStatus } from './results.js';
import type { Statement } from './statements.js';
import { nameText, type ScannedTest } from './tags.js';

interface TracedTest {
  readonly test: ScannedTest;
  readonly status: TestStatus;
}

interface Row {
  readonly statement: Statement;
  /** In file order, then line order. */
  readonly tests: readonly TracedTest[];
  /** `gap` when no test cites the statement. */
  readonly status: TestStatus | 'gap';
}

interface UnknownCitation {
  readonly id: string;
  readonly test: ScannedTest;
}

export interface Matrix {
  readonly rows: readonly Row[];
  /** Ids cited by a test that no statement has. */
  readonly unknown: readonly UnknownCitation[];
}

export interface Summary {
  readonly blackBox: number;
  readonly covered: number;
  /** Covered black-box statements as a percentage, one decimal. */
  readonly percent: string;
  readonly gaps: readonly string[];
  readonly failed: readonly string[];
  readonly notRun: readonly string[];
  readonly notBlackBox: readonly Row[];
}

function rowStatus(tests: readonly TracedTest[]): Row['status'] {
  if (tests.length === 0) return 'gap';
  if (tests.some((t) => t.status === 'failed')) return 'failed';
  if (tests.some((t) => t.status === 'passed')) return 'passed';
  return 'not run';
}

export function buildMatrix(
  statements: readonly Statement[],
  tests: readonly ScannedTest[],
  results: ReadonlyMap<string, readonly RunResult[]>,
): Matrix {
  const known = new Set(statements.map((s) => s.id));
  const byId = new Map<string, TracedTest[]>();
  const unknown: UnknownCitation[] = [];
  const ordered = [...tests].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  for (const test of ordered) {
    const traced: TracedTest = { test, status: statusOf(test, results) };
    for (const id of test.ids) {
      if (!known.has(id)) {
        unknown.push({ id, test });
        continue;
      }
      const list = byId.get(id) ?? [];
      list.push(traced);
      byId.set(id, list);
    }
  }
  const rows = statements.map((statement) => {
    const cited = byId.get(statement.id) ?? [];
    return { statement, tests: cited, status: rowStatus(cited) };
  });
  return { rows, unknown };
}

export function summarize(matrix: Matrix): Summary {
  const blackBox = matrix.rows.filter((r) => r.statement.blackBox);
  const covered = blackBox.filter((r) => r.status !== 'gap').length;
  return {
    blackBox: blackBox.length,
    covered,
    percent: blackBox.length === 0 ? '0.0' : ((covered * 100) / blackBox.length).toFixed(1),
    gaps: blackBox.filter((r) => r.status === 'gap').map((r) => r.statement.id),
    failed: matrix.rows.filter((r) => r.status === 'failed').map((r) => r.statement.id),
    notRun: matrix.rows.filter((r) => r.status === 'not run').map((r) => r.statement.id),
    notBlackBox: matrix.rows.filter((r) => !r.statement.blackBox),
  };
}

/** `spec-tests/catalogs.test.ts:12 GET /v1/catalogos › lists …`: where the test is and its full name as written. */
export function testLabel(test: ScannedTest): string {
  return `${test.file}:${test.line} ${test.names.map(nameText).join(' › ')}`;
}

function summaryLine(summary: Summary): string {
  return `Covered black-box statements: ${summary.covered} of ${summary.blackBox} = ${summary.percent}%`;
}

/**
 * What is known of a not-black-box statement besides its tests, by id (the receiver check's cases, or why no answer
 * shows it: receiver.ts).
 */
export type Notes = ReadonlyMap<string, string>;

/** The matrix as the terminal shows it: one line per statement, its tests below it, then the summary. */
export function renderText(matrix: Matrix, notes: Notes = new Map()): string {
  const out: string[] = [];
  for (const row of matrix.rows) {
    const note = row.statement.blackBox ? undefined : notes.get(row.statement.id);
    const mark = row.statement.blackBox
      ? ''
      : ` (not black-box${note === undefined ? '' : `; checked from outside: ${note.split(': ')[0]}`})`;
    out.push(
      `${row.statement.id.padEnd(11)} ${row.status.padEnd(7)} ${row.tests.length} test${row.tests.length === 1 ? '' : 's'}${mark}`,
    );
    for (const traced of row.tests) out.push(`    ${traced.status.padEnd(7)} ${testLabel(traced.test)}`);
  }
  const summary = summarize(matrix);
  out.push('', summaryLine(summary));
  out.push(`Gaps (${summary.gaps.length}): ${summary.gaps.join(', ') || 'none'}`);
  out.push(`Failed in the last run (${summary.failed.length}): ${summary.failed.join(', ') || 'none'}`);
  out.push(`Not run in the last run (${summary.notRun.length}): ${summary.notRun.join(', ') || 'none'}`);
  out.push(
    `Not black-box (${summary.notBlackBox.length}, listed apart): ${summary.notBlackBox.map((r) => `${r.statement.id} ${r.tests.length === 0 ? 'no test' : `${r.tests.length} test(s)`}`).join(', ')}`,
  );
  for (const citation of matrix.unknown) out.push(`Unknown id ${citation.id} cited by ${testLabel(citation.test)}`);
  return out.join('\n');
}

/** A table cell: no line break, no column break, no HTML. */
function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/\r?\n/g, ' ');
}

const NONE = '—';

function testsCell(row: Row): string {
  if (row.tests.length === 0) return NONE;
  return row.tests.map((t) => `${cell(testLabel(t.test))} (${t.status})`).join('<br>');
}

/** One table row per section of the statements, in their order: how many black-box statements, covered, gaps. */
function sections(matrix: Matrix): string[] {
  const order: string[] = [];
  const counts = new Map<string, { total: number; covered: number }>();
  for (const row of matrix.rows) {
    if (!row.statement.blackBox) continue;
    const section = row.statement.section;
    if (!counts.has(section)) {
      order.push(section);
      counts.set(section, { total: 0, covered: 0 });
    }
    const count = counts.get(section)!;
    count.total++;
    if (row.status !== 'gap') count.covered++;
  }
  return order.map((section) => {
    const { total, covered } = counts.get(section)!;
    return `| ${cell(section)} | ${total} | ${covered} | ${total - covered} |`;
  });
}

/** docs/conformance.md: stable (statement order, then test file and line), so it only changes when the trace does. */
export function renderMarkdown(matrix: Matrix, notes: Notes = new Map()): string {
  const summary = summarize(matrix);
  const out: string[] = [
    '# Conformance matrix',
    '',
    'Each numbered statement of the service specification (docs/spec-statements.md), the tests that check it',
    '(they carry `spec: ID` in their name or in a comment on the line above), and how those tests fared in the',
    'last run of the spec tests. Written by `npm run trace`; do not edit it by hand.',
    '',
    `**${summaryLine(summary)}.** Gaps: ${summary.gaps.length}. Not black-box: ${summary.notBlackBox.length}, listed apart below.`,
    '',
    '## By section',
    '',
    '| Section | Black-box statements | Covered | Gaps |',
    '| --- | --- | --- | --- |',
    ...sections(matrix),
    '',
    '## Black-box statements',
    '',
    '| Statement | Text | Tests | Last run |',
    '| --- | --- | --- | --- |',
  ];
  for (const row of matrix.rows.filter((r) => r.statement.blackBox)) {
    out.push(`| ${row.statement.id} | ${cell(row.statement.text)} | ${testsCell(row)} | ${row.status} |`);
  }
  out.push(
    '',
    '## Gaps',
    '',
    summary.gaps.length === 0 ? 'None: every black-box statement has a test.' : summary.gaps.join(', '),
    '',
    '## Not black-box',
    '',
    "These statements bind what no HTTP answer or delivered webhook shows (billing, the receiver's own code, the",
    'durability of an acceptance). A test listed here checks them through what the emulator exposes; without one',
    "they are not checked. Those about the receiver's code say what the receiver check makes of them.",
    '',
    '| Statement | Text | Tests | Last run | Checked from outside |',
    '| --- | --- | --- | --- | --- |',
  );
  for (const row of summary.notBlackBox) {
    out.push(
      `| ${row.statement.id} | ${cell(row.statement.text)} | ${testsCell(row)} | ${row.status === 'gap' ? 'not checked' : row.status} | ${cell(notes.get(row.statement.id) ?? NONE)} |`,
    );
  }
  return `${out.join('\n')}\n`;
}

/** The statements a written matrix lists with at least one test (the rows whose Tests cell is not empty). */
export function coveredIn(markdown: string): Set<string> {
  const covered = new Set<string>();
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('| ')) continue;
    const cells = line.slice(2, -2).split(/(?<!\\) \| /);
    const [id, , tests] = cells;
    if (id === undefined || tests === undefined || !/^[A-Z]+(?:-[A-Z]+)*-\d{2,}$/.test(id)) continue;
    if (tests !== NONE) covered.add(id);
  }
  return covered;
}

/**
 * The statements a written matrix lists as covered that no test of `matrix` cites any more (a lost last test), and
 * how many it lists as covered.
 */
export function lostCoverage(markdown: string, matrix: Matrix): { listed: number; lost: string[] } {
  const listed = coveredIn(markdown);
  const lost = matrix.rows.filter((r) => listed.has(r.statement.id) && r.tests.length === 0).map((r) => r.statement.id);
  return { listed: listed.size, lost };
}
