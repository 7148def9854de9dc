/**
 * Keeps the trace true without running the spec tests: every id a test cites is a statement, and every statement
 * docs/conformance.md lists as covered still has a test (a fresh scan of the test files against the committed matrix).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildMatrix, lostCoverage, testLabel } from './matrix.js';
import { MATRIX_FILE, readStatements, scanRepository, STATEMENTS_FILE } from './scan.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('the trace', () => {
  const statements = readStatements(ROOT);
  const matrix = buildMatrix(statements, scanRepository(ROOT), new Map());

  it('cites only ids the statements number', () => {
    const wrong = matrix.unknown.map((u) => `${u.id} in ${testLabel(u.test)}`);
    expect(
      wrong,
      `these tests cite ids ${STATEMENTS_FILE} does not number: fix the tag (spec: ID, ranges A-01..A-03)`,
    ).toEqual([]);
  });

  it(`keeps a test for every statement ${MATRIX_FILE} lists as covered`, () => {
    const { listed, lost } = lostCoverage(readFileSync(join(ROOT, MATRIX_FILE), 'utf8'), matrix);
    expect(listed, `${MATRIX_FILE} lists no covered statement: run npm run trace`).toBeGreaterThan(0);
    expect(
      lost,
      `${MATRIX_FILE} lists these statements as covered, yet no test cites them any more: tag a test that checks each (spec: ID), or run npm run trace to regenerate the matrix if the gap is meant`,
    ).toEqual([]);
  });
});
