/**
 * The repository's copy of the spec's numbered statements (what the trace is checked against): verbatim, so
 * that the project builds and traces from a clean clone, where the spec's own folder is absent.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readStatements, STATEMENTS_FILE } from './scan.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('the statements', () => {
  it(`${STATEMENTS_FILE} numbers 366 statements, 12 of them not black-box`, () => {
    const statements = readStatements(ROOT);
    expect(statements.length).toBe(366);
    expect(statements.filter((s) => !s.blackBox).map((s) => s.id)).toEqual([
      'EST-15',
      'SURV-16',
      'ANA-06',
      'WH-EVT-47',
      'SIG-07',
      'SIG-08',
      'SIG-09',
      'SIG-10',
      'SIG-11',
      'AUTH-35',
      'REQ-12',
      'VER-02',
    ]);
  });
});
