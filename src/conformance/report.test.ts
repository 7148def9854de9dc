import { describe, expect, it } from 'vitest';
import {
  buildMatrix,
  formatDuration,
  NO_REASON,
  renderMarkdown,
  renderText,
  selectFiles,
  toJson,
  verdict,
  type Catalogue,
  type TestResult,
} from './report.js';

const catalogue: Catalogue = {
  version: '9.9.9',
  statements: [
    { id: 'CAT-01', section: 'Catalogs', text: 'A catalog has a name.', blackBox: true },
    { id: 'CAT-02', section: 'Catalogs', text: 'A | pipe.', blackBox: true },
    { id: 'CAT-03', section: 'Catalogs', text: 'Skipped everywhere.', blackBox: true },
    { id: 'CAT-04', section: 'Catalogs', text: 'Cited, never run.', blackBox: true },
    { id: 'BIL-01', section: 'Billing', text: 'Nobody tests this.', blackBox: false },
  ],
  files: [
    { source: 'spec-tests/catalogs.test.ts', bundle: 'catalogs.test.js' },
    { source: 'spec-tests/products.test.ts', bundle: 'products.test.js' },
  ],
  tests: [
    {
      file: 'spec-tests/catalogs.test.ts',
      line: 3,
      name: 'POST › creates',
      patterns: ['^POST$', '^creates$'],
      ids: ['CAT-01'],
    },
    {
      file: 'spec-tests/catalogs.test.ts',
      line: 9,
      name: 'POST › refuses %s',
      patterns: ['^POST$', '^refuses [^]*?$'],
      ids: ['CAT-01', 'CAT-02'],
    },
    {
      file: 'spec-tests/catalogs.test.ts',
      line: 20,
      name: 'GET › lists',
      patterns: ['^GET$', '^lists$'],
      ids: ['CAT-03'],
    },
    { file: 'spec-tests/catalogs.test.ts', line: 30, name: 'untagged', patterns: ['^untagged$'], ids: [] },
    { file: 'spec-tests/products.test.ts', line: 5, name: 'products', patterns: ['^products$'], ids: ['CAT-04'] },
  ],
};

const results: TestResult[] = [
  { file: 'spec-tests/catalogs.test.ts', names: ['POST', 'creates'], outcome: 'passed', durationMs: 5 },
  { file: 'spec-tests/catalogs.test.ts', names: ['POST', 'refuses a name'], outcome: 'passed', durationMs: 5 },
  {
    file: 'spec-tests/catalogs.test.ts',
    names: ['POST', 'refuses a pipe'],
    outcome: 'failed',
    note: 'expected 422 to be 409\nat spec-tests/catalogs.test.ts:11',
    durationMs: 5,
  },
  {
    file: 'spec-tests/catalogs.test.ts',
    names: ['GET', 'lists'],
    outcome: 'skipped',
    note: 'needs a company of its own: it counts',
    durationMs: 0,
  },
  { file: 'spec-tests/catalogs.test.ts', names: ['untagged'], outcome: 'skipped', durationMs: 0 },
  {
    file: 'spec-tests/catalogs.test.ts',
    names: ['POST', 'refuses one'],
    outcome: 'skipped',
    note: "needs the emulator's controls (GET /_emulator/companies/01a216f2-4e21-7520-a337-1f12323dcd57/state)",
    durationMs: 0,
  },
  {
    file: 'spec-tests/catalogs.test.ts',
    names: ['POST', 'refuses two'],
    outcome: 'skipped',
    note: "needs the emulator's controls (GET /_emulator/companies/0190A000-0000-7000-8000-000000000000/state)",
    durationMs: 0,
  },
];

/** A run that ended before its deadline. */
const inTime = { deadlineMs: 1_200_000 };

describe('the conformance matrix', () => {
  const matrix = buildMatrix(catalogue, results, [
    { file: 'spec-tests/catalogs.test.ts', where: 'GET', message: 'hook failed' },
  ]);

  it('gives each statement the outcome of the tests that cite it: a failure wins, then a pass, then a skip', () => {
    expect(matrix.rows.map((r) => [r.statement.id, r.status, r.passed, r.failed, r.skipped, r.reasons])).toEqual([
      ['CAT-01', 'failed', 2, 1, 2, ["needs the emulator's controls (GET /_emulator/companies/{id}/state)"]],
      ['CAT-02', 'failed', 1, 1, 2, ["needs the emulator's controls (GET /_emulator/companies/{id}/state)"]],
      ['CAT-03', 'skipped', 0, 0, 1, ['needs a company of its own: it counts']],
      ['CAT-04', 'not run', 0, 0, 0, []],
      ['BIL-01', 'no test', 0, 0, 0, []],
    ]);
  });

  it('counts the tests, groups the skip reasons (ids in them aside) and gives the runnable share (passed / all)', () => {
    expect(matrix.totals).toEqual({
      tests: 7,
      passed: 2,
      failed: 1,
      skipped: 4,
      reasons: [
        { reason: "needs the emulator's controls (GET /_emulator/companies/{id}/state)", count: 2 },
        { reason: 'needs a company of its own: it counts', count: 1 },
        { reason: NO_REASON, count: 1 },
      ],
      runnableShare: '28.6',
      errors: 1,
      statements: { passed: 0, failed: 2, skipped: 1, 'not run': 1, 'no test': 1 },
    });
  });

  it('prints one line per statement, then the totals', () => {
    expect(renderText(matrix, 'https://x.example', inTime)).toBe(
      [
        'Conformance of https://x.example, per statement of the specification:',
        '',
        'CAT-01      failed   2 passed, 1 failed, 2 skipped',
        'CAT-02      failed   1 passed, 1 failed, 2 skipped',
        'CAT-03      skipped  1 skipped: needs a company of its own: it counts',
        'CAT-04      not run',
        'BIL-01      no test   (not black-box)',
        '',
        'Statements: 0 passed, 2 failed, 1 skipped, 1 not run, 1 with no test (of 5)',
        'Tests: 2 passed, 1 failed, 4 skipped (of 7); runnable share 28.6% (passed / all)',
        'Deadline: 20 min (--deadline), not reached',
        'Errors outside tests: 1',
        'Skipped, by reason:',
        "  2  needs the emulator's controls (GET /_emulator/companies/{id}/state)",
        '  1  needs a company of its own: it counts',
        `  1  ${NO_REASON}`,
        '',
      ].join('\n'),
    );
  });

  it("writes Markdown with escaped cells and the failures, and JSON with each test's ids", () => {
    const markdown = renderMarkdown(matrix, 'https://x.example', '9.9.9', inTime);
    expect(markdown).toContain('\n- Deadline: 20 min (--deadline), not reached\n');
    expect(markdown).toContain('| CAT-02 | A \\| pipe. | failed | 1 passed, 1 failed, 2 skipped |\n');
    expect(markdown).toContain('| BIL-01 | Nobody tests this. _(not black-box)_ | no test | — |\n');
    expect(markdown).toContain(
      '## Failures\n\n- spec-tests/catalogs.test.ts › POST › refuses a pipe: expected 422 to be 409\n- spec-tests/catalogs.test.ts › GET: hook failed\n',
    );
    const json = toJson(matrix, 'https://x.example', '9.9.9', inTime) as {
      deadline: unknown;
      tests: { name: string; ids: string[] }[];
      statements: { id: string; status: string }[];
    };
    expect(json.tests.map((t) => [t.name, t.ids])).toEqual([
      ['POST › creates', ['CAT-01']],
      ['POST › refuses a name', ['CAT-01', 'CAT-02']],
      ['POST › refuses a pipe', ['CAT-01', 'CAT-02']],
      ['GET › lists', ['CAT-03']],
      ['untagged', []],
      ['POST › refuses one', ['CAT-01', 'CAT-02']],
      ['POST › refuses two', ['CAT-01', 'CAT-02']],
    ]);
    expect(json.statements[3]).toEqual({
      id: 'CAT-04',
      blackBox: true,
      status: 'not run',
      passed: 0,
      failed: 0,
      skipped: 0,
      reasons: [],
    });
    expect(json.deadline).toEqual({ ms: 1_200_000, passed: false });
  });
});

describe('the deadline and the verdict', () => {
  const stopped = { deadlineMs: 2000, stoppedDuring: 'spec-tests/catalogs.test.ts › GET › lists' };
  const passedOnly = buildMatrix(catalogue, results.slice(0, 2), []);

  it('says where the deadline stopped the run, in the text, the Markdown and the JSON', () => {
    const line =
      'Deadline: 2 s (--deadline), passed during spec-tests/catalogs.test.ts › GET › lists: the run stopped there, and what came after did not run';
    expect(renderText(passedOnly, 'https://x.example', stopped).split('\n')).toContain(line);
    expect(renderMarkdown(passedOnly, 'https://x.example', '9.9.9', stopped)).toContain(`\n- ${line}\n`);
    expect((toJson(passedOnly, 'https://x.example', '9.9.9', stopped) as { deadline: unknown }).deadline).toEqual({
      ms: 2000,
      passed: true,
      stoppedDuring: 'spec-tests/catalogs.test.ts › GET › lists',
    });
  });

  it('exits 0 only when a test passed and none failed, with the deadline not passed', () => {
    expect(verdict(passedOnly, inTime)).toEqual({ code: 0 });
    expect(verdict(buildMatrix(catalogue, results, []), inTime)).toEqual({ code: 1 });
    expect(
      verdict(
        buildMatrix(catalogue, results.slice(0, 2), [
          { file: 'spec-tests/catalogs.test.ts', where: '(the file)', message: 'no such module' },
        ]),
        inTime,
      ),
    ).toEqual({ code: 1 });
    expect(verdict(passedOnly, stopped)).toEqual({
      code: 2,
      line: 'the deadline of 2 s (--deadline) passed during spec-tests/catalogs.test.ts › GET › lists: the run stopped there; the report shows what ran before',
    });
    // A failure does not hide that the run was cut short.
    expect(verdict(buildMatrix(catalogue, results, []), stopped).code).toBe(2);
  });

  it('exits 2 when nothing passed: no test ran, or every one was skipped', () => {
    expect(verdict(buildMatrix(catalogue, [], []), inTime)).toEqual({
      code: 2,
      line: 'no test ran: the run shows nothing of the deployment',
    });
    const skipped = results.filter((r) => r.outcome === 'skipped');
    expect(verdict(buildMatrix(catalogue, skipped, []), inTime)).toEqual({
      code: 2,
      line: 'no test passed: all 4 tests were skipped (the report gives the reasons), so the run shows nothing of the deployment',
    });
    expect(verdict(buildMatrix(catalogue, skipped.slice(0, 1), []), inTime).line).toBe(
      'no test passed: the one test was skipped (the report gives the reasons), so the run shows nothing of the deployment',
    );
  });

  it('names a duration in the largest unit that states it exactly', () => {
    expect([1, 999, 1000, 1500, 90_000, 600_000, 1_200_000, 3_600_000, 5_400_000].map(formatDuration)).toEqual([
      '1 ms',
      '999 ms',
      '1 s',
      '1500 ms',
      '90 s',
      '10 min',
      '20 min',
      '1 h',
      '90 min',
    ]);
  });
});

describe('--files', () => {
  const files = catalogue.files;
  it('matches a name, a name with .test.ts, a path or a pattern; names the patterns that match nothing', () => {
    expect(selectFiles(files, [])).toEqual({ selected: files, unmatched: [] });
    expect(selectFiles(files, ['catalogs']).selected).toEqual([files[0]]);
    expect(selectFiles(files, ['products.test.ts', 'spec-tests/catalogs.test.ts']).selected).toEqual(files);
    expect(selectFiles(files, ['c*']).selected).toEqual([files[0]]);
    expect(selectFiles(files, ['pro?ucts']).selected).toEqual([files[1]]);
    expect(selectFiles(files, ['catalog', 'x*'])).toEqual({ selected: [], unmatched: ['catalog', 'x*'] });
  });
});
