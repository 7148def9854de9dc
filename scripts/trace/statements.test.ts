/**
 * The repository's copy of the spec's numbered statements (what the trace is checked against): verbatim, so
 * that the project builds and traces from a clean clone, where the spec's own folder is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readStatements, STATEMENTS_FILE } from './scan.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Where the spec's own list lives next to a working copy; a clean clone has no such folder. */
const SOURCE = join(ROOT, '..', 'shared', 'spec', 'statements.md');

describe('the statements', () => {
  it(`${STATEMENTS_FILE} equals ../shared/spec/statements.md (passes trivially when that source is absent, as in a clean clone)`, () => {
    const copy = readFileSync(join(ROOT, STATEMENTS_FILE), 'utf8');
    if (existsSync(SOURCE)) expect(copy, `copy ${SOURCE} to ${STATEMENTS_FILE} verbatim`).toBe(readFileSync(SOURCE, 'utf8'));
  });

  it(`${STATEMENTS_FILE} numbers 366 statements, 12 of them not black-box`, () => {
    const statements = readStatements(ROOT);
    expect(statements.length).toBe(366);
    expect(statements.filter((s) => !s.blackBox).map((s) => s.id)).toEqual([
      'EST-15', 'SURV-16', 'ANA-06', 'WH-EVT-47', 'SIG-07', 'SIG-08', 'SIG-09', 'SIG-10', 'SIG-11', 'AUTH-35', 'REQ-12', 'VER-02',
    ]);
  });
});
