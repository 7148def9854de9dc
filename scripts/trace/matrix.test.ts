import { describe, expect, it } from 'vitest';
import { buildMatrix, coveredIn, lostCoverage, renderMarkdown, renderText, summarize } from './matrix.js';
import { parseResults } from './results.js';
import { parseStatements } from './statements.js';
import { scanTestFile } from './tags.js';

const STATEMENTS = `# Statements

## Catalogs

- **CAT-01** — A catalog has the fields \`id\` (uuid) and \`versao\` (int | null).
- **CAT-02** — Catalog \`estado\` is one of \`ativo\`, \`excluido\`.
- **CAT-03** — Catalog \`id_externo\` may be null.

## Analyses

- **ANA-06** — The durable acceptance of an analysis consumes no allowance. _(not black-box)_
`;

const TESTS = `describe('catalogs', () => {
  // spec: CAT-01
  it('has fields', () => {});
  it('has states (spec: CAT-02, CAT-01)', () => {});
  it.each([1, 2])('row %s (spec: CAT-99)', () => {});
});
`;

const REPORT = JSON.stringify({
  testResults: [
    {
      name: '/repo/spec-tests/c.test.ts',
      assertionResults: [
        { ancestorTitles: ['catalogs'], title: 'has fields', status: 'passed' },
        { ancestorTitles: ['catalogs'], title: 'has states (spec: CAT-02, CAT-01)', status: 'failed' },
        { ancestorTitles: ['catalogs'], title: 'row 1 (spec: CAT-99)', status: 'skipped' },
      ],
    },
  ],
});

describe('the conformance matrix', () => {
  const statements = parseStatements(STATEMENTS);
  const matrix = buildMatrix(statements, scanTestFile('spec-tests/c.test.ts', TESTS), parseResults(REPORT, '/repo'));

  it('reads the statements with their section and the not-black-box mark', () => {
    expect(statements.map((s) => [s.id, s.section, s.blackBox])).toEqual([
      ['CAT-01', 'Catalogs', true],
      ['CAT-02', 'Catalogs', true],
      ['CAT-03', 'Catalogs', true],
      ['ANA-06', 'Analyses', false],
    ]);
    expect(statements[3]!.text).toBe('The durable acceptance of an analysis consumes no allowance.');
    expect(() => parseStatements('- **CAT-01** — a\n- **CAT-01** — b\n')).toThrow(
      'statements line 2: CAT-01 is numbered twice',
    );
  });

  it('gives each statement its tests and their outcome; an id that is no statement is reported, not traced', () => {
    expect(
      matrix.rows.map((r) => [r.statement.id, r.status, r.tests.map((t) => `${t.test.line}:${t.status}`)]),
    ).toEqual([
      ['CAT-01', 'failed', ['3:passed', '4:failed']],
      ['CAT-02', 'failed', ['4:failed']],
      ['CAT-03', 'gap', []],
      ['ANA-06', 'gap', []],
    ]);
    expect(matrix.unknown.map((u) => `${u.id} ${u.test.line}`)).toEqual(['CAT-99 5']);
  });

  it('sums up covered black-box statements, gaps and the not-black-box ones apart', () => {
    const summary = summarize(matrix);
    expect({ ...summary, notBlackBox: summary.notBlackBox.map((r) => r.statement.id) }).toEqual({
      blackBox: 3,
      covered: 2,
      percent: '66.7',
      gaps: ['CAT-03'],
      failed: ['CAT-01', 'CAT-02'],
      notRun: [],
      notBlackBox: ['ANA-06'],
    });
    const text = renderText(matrix).split('\n');
    expect(text.slice(0, 4)).toEqual([
      'CAT-01      failed  2 tests',
      '    passed  spec-tests/c.test.ts:3 catalogs › has fields',
      '    failed  spec-tests/c.test.ts:4 catalogs › has states (spec: CAT-02, CAT-01)',
      'CAT-02      failed  1 test',
    ]);
    expect(text).toContain('Covered black-box statements: 2 of 3 = 66.7%');
    expect(text).toContain('Gaps (1): CAT-03');
    expect(text).toContain('Not black-box (1, listed apart): ANA-06 no test');
    expect(text).toContain('Unknown id CAT-99 cited by spec-tests/c.test.ts:5 catalogs › row %s (spec: CAT-99)');
  });

  it('writes a Markdown table that escapes column bars and reads back which statements it lists as covered', () => {
    const markdown = renderMarkdown(matrix);
    expect(markdown).toContain(
      '| CAT-01 | A catalog has the fields `id` (uuid) and `versao` (int \\| null). | spec-tests/c.test.ts:3 catalogs › has fields (passed)<br>spec-tests/c.test.ts:4 catalogs › has states (spec: CAT-02, CAT-01) (failed) | failed |',
    );
    expect(markdown).toContain('| CAT-03 | Catalog `id_externo` may be null. | — | gap |');
    expect(markdown).toContain(
      '| Section | Black-box statements | Covered | Gaps |\n| --- | --- | --- | --- |\n| Catalogs | 3 | 2 | 1 |\n\n',
    );
    expect(markdown).toContain(
      '| ANA-06 | The durable acceptance of an analysis consumes no allowance. | — | not checked | — |',
    );
    expect(markdown).toContain(
      '**Covered black-box statements: 2 of 3 = 66.7%.** Gaps: 1. Not black-box: 1, listed apart below.',
    );
    expect([...coveredIn(markdown)]).toEqual(['CAT-01', 'CAT-02']);
    expect(renderMarkdown(matrix)).toBe(markdown);
  });

  it('shows beside a not-black-box statement what is known of it from outside, in the table and on its line', () => {
    const notes = new Map([
      ['ANA-06', 'no: no answer | shows it'],
      ['CAT-01', 'ignored: black-box'],
    ]);
    expect(renderMarkdown(matrix, notes)).toContain(
      '| ANA-06 | The durable acceptance of an analysis consumes no allowance. | — | not checked | no: no answer \\| shows it |',
    );
    expect(renderMarkdown(matrix, notes)).not.toContain('ignored');
    expect(renderText(matrix, notes).split('\n')).toContain(
      'ANA-06      gap     0 tests (not black-box; checked from outside: no)',
    );
  });

  it('counts a test with no result, or only skipped ones, as not run', () => {
    const unrun = buildMatrix(statements, scanTestFile('spec-tests/c.test.ts', TESTS), new Map());
    expect(unrun.rows.map((r) => r.status)).toEqual(['not run', 'not run', 'gap', 'gap']);
    expect(() => parseResults('{"numTotalTests": 1}', '/repo')).toThrow(
      'not a vitest JSON report: it has no testResults',
    );
  });

  it('finds the statements a written matrix lists as covered whose last test is gone', () => {
    const written = renderMarkdown(matrix);
    expect(lostCoverage(written, matrix)).toEqual({ listed: 2, lost: [] });
    // The test tagged in its name loses its tag: CAT-02 has no test left, CAT-01 still has one.
    const fewer = buildMatrix(
      statements,
      scanTestFile('spec-tests/c.test.ts', TESTS.replace(' (spec: CAT-02, CAT-01)', '')),
      new Map(),
    );
    expect(lostCoverage(written, fewer)).toEqual({ listed: 2, lost: ['CAT-02'] });
  });
});
