/**
 * `npm run trace [-- --no-run]`: runs the spec tests (vitest's `spec` project, JSON reporter), then prints the
 * conformance matrix (each spec statement, the tests tagged `spec: ID` that check it, their outcome) and writes
 * it to docs/conformance.md. With `--no-run`, the outcomes of the last run (.trace/spec-results.json) are used
 * when that file exists. Exits 1 when a tagged test failed or a test cites an id that is no statement.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildMatrix, renderMarkdown, renderText, summarize } from './trace/matrix.js';
import { parseResults } from './trace/results.js';
import { MATRIX_FILE, readStatements, scanRepository } from './trace/scan.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS = '.trace/spec-results.json';

const args = process.argv.slice(2);
const unknownArgs = args.filter((a) => a !== '--no-run');
if (unknownArgs.length > 0) {
  console.error(`trace: unknown argument ${unknownArgs.join(' ')} (usage: npm run trace [-- --no-run])`);
  process.exit(2);
}

const resultsPath = join(ROOT, RESULTS);
if (!(args.includes('--no-run') && existsSync(resultsPath))) {
  mkdirSync(join(ROOT, '.trace'), { recursive: true });
  // A run that dies before writing its report must not leave the previous run's outcomes to be read as its own.
  rmSync(resultsPath, { force: true });
  console.log(`trace: running the spec tests (vitest run --project spec), results in ${RESULTS}`);
  // The default reporter shows progress and failures; the JSON one records each test's outcome.
  const run = spawnSync(
    'npx',
    ['vitest', 'run', '--project', 'spec', '--reporter=default', '--reporter=json', `--outputFile.json=${RESULTS}`],
    { cwd: ROOT, stdio: 'inherit' },
  );
  if (!existsSync(resultsPath)) {
    console.error(`trace: the test run wrote no ${RESULTS} (exit ${run.status ?? run.signal})`);
    process.exit(1);
  }
}

const matrix = buildMatrix(readStatements(ROOT), scanRepository(ROOT), parseResults(readFileSync(resultsPath, 'utf8'), ROOT));
console.log(renderText(matrix));
writeFileSync(join(ROOT, MATRIX_FILE), renderMarkdown(matrix));
console.log(`\ntrace: wrote ${MATRIX_FILE}`);
const summary = summarize(matrix);
process.exitCode = summary.failed.length > 0 || matrix.unknown.length > 0 ? 1 : 0;
