/** Reads the repository's test files and the statements they are traced against. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseStatements, type Statement } from './statements.js';
import { scanTestFile, type ScannedTest } from './tags.js';

/** Where tests live: the spec tests, and the unit tests next to the code, the CLI and the examples. */
const TEST_ROOTS = ['spec-tests', 'src', 'bin', 'examples'];

/** Every `*.test.ts` under the test roots, as paths from `root` with `/`, sorted. */
function testFiles(root: string): string[] {
  const files: string[] = [];
  for (const dir of TEST_ROOTS) {
    for (const entry of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })) {
      const path = `${dir}/${entry.split('\\').join('/')}`;
      if (path.endsWith('.test.ts') && !path.includes('/node_modules/')) files.push(path);
    }
  }
  return files.sort();
}

export function scanRepository(root: string): ScannedTest[] {
  return testFiles(root).flatMap((file) => scanTestFile(file, readFileSync(join(root, file), 'utf8')));
}

/** The repository's copy of the spec's statements. */
export const STATEMENTS_FILE = 'docs/spec-statements.md';
/** The written matrix. */
export const MATRIX_FILE = 'docs/conformance.md';

export function readStatements(root: string): Statement[] {
  return parseStatements(readFileSync(join(root, STATEMENTS_FILE), 'utf8'));
}
