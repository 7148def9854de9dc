import { describe, expect, it } from 'vitest';
import { idsIn, idsInName, nameMatches, nameText, scanTestFile } from './tags.js';

describe('idsIn', () => {
  it('reads single ids, lists and ranges, expanded in order without repeats', () => {
    expect(idsIn('CAT-17')).toEqual(['CAT-17']);
    expect(idsIn('CAT-01, CAT-02 and WH-DEST-03')).toEqual(['CAT-01', 'CAT-02', 'WH-DEST-03']);
    expect(idsIn('PROD-05/PROD-23 (the list), PROD-05')).toEqual(['PROD-05', 'PROD-23']);
    expect(idsIn('PROD-16..PROD-20')).toEqual(['PROD-16', 'PROD-17', 'PROD-18', 'PROD-19', 'PROD-20']);
    expect(idsIn('WH-EVT-08..10')).toEqual(['WH-EVT-08', 'WH-EVT-09', 'WH-EVT-10']);
  });

  it('ignores words that are no statement id (one digit, lower case)', () => {
    expect(idsIn('UTF-8 bodies, cat-01, ISO 8601')).toEqual([]);
  });

  it('refuses a range across two kinds of statement or running backwards', () => {
    expect(() => idsIn('CAT-01..PROD-03')).toThrow('"CAT-01..PROD-03" is not a range of one kind of statement');
    expect(() => idsIn('CAT-05..CAT-02')).toThrow('"CAT-05..CAT-02" is not a range of one kind of statement');
  });

  it("takes a name's ids only after its spec:", () => {
    expect(idsInName('keeps CAT-03 out (spec: CAT-17, CAT-18)')).toEqual(['CAT-17', 'CAT-18']);
    expect(idsInName('mentions CAT-03 without a tag')).toEqual([]);
  });
});

const FILE = `import { describe, it, test } from 'vitest';

// spec: CAT-01
describe('catalogs (spec: CAT-02)', () => {
  // Some words first.
  // spec: CAT-03..CAT-04 — the fields
  it('has fields', () => {
    // spec: CAT-30 (inside the body: no tag)
  });

  it('answers 200 (spec: CAT-17)', () => {});

  // spec: CAT-05

  it('is far from its comment', () => {});

  /* spec: CAT-06 */
  test(\`lists \${'x'} things\`, () => {});

  it.each([1, 2])('row %s of $n', () => {});

  describe.skipIf(false)('nested', () => {
    it.concurrent('deep (spec: ' +
      'CAT-07)', async () => {});
  });
});

it('untagged', () => {});
`;

describe('scanTestFile', () => {
  const tests = scanTestFile('spec-tests/x.test.ts', FILE);

  it('finds every test with its line, its suites and the ids it and its suites carry', () => {
    expect(tests.map((t) => ({ line: t.line, names: t.names.map(nameText), ids: t.ids }))).toEqual([
      { line: 7, names: ['catalogs (spec: CAT-02)', 'has fields'], ids: ['CAT-02', 'CAT-01', 'CAT-03', 'CAT-04'] },
      {
        line: 11,
        names: ['catalogs (spec: CAT-02)', 'answers 200 (spec: CAT-17)'],
        ids: ['CAT-02', 'CAT-01', 'CAT-17'],
      },
      { line: 15, names: ['catalogs (spec: CAT-02)', 'is far from its comment'], ids: ['CAT-02', 'CAT-01'] },
      { line: 18, names: ['catalogs (spec: CAT-02)', "lists ${'x'} things"], ids: ['CAT-02', 'CAT-01', 'CAT-06'] },
      { line: 20, names: ['catalogs (spec: CAT-02)', 'row %s of $n'], ids: ['CAT-02', 'CAT-01'] },
      {
        line: 23,
        names: ['catalogs (spec: CAT-02)', 'nested', 'deep (spec: CAT-07)'],
        ids: ['CAT-02', 'CAT-01', 'CAT-07'],
      },
      { line: 28, names: ['untagged'], ids: [] },
    ]);
  });

  it('matches the names vitest reports: literal text exactly, template and each placeholders as anything', () => {
    const [first, , , templated, each] = tests;
    expect(nameMatches(first!.names[1]!, 'has fields')).toBe(true);
    expect(nameMatches(first!.names[1]!, 'has fields!')).toBe(false);
    expect(nameMatches(templated!.names[1]!, 'lists x things')).toBe(true);
    expect(nameMatches(templated!.names[1]!, 'lists x thing')).toBe(false);
    expect(nameMatches(each!.names[1]!, 'row 1 of 2')).toBe(true);
    expect(nameMatches(each!.names[1]!, 'col 1 of 2')).toBe(false);
  });
});
