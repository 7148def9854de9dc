/**
 * `npm run trace [-- --no-run] [-- --project conformance]`: runs the spec tests (vitest's `spec` project, JSON
 * reporter), then prints the conformance matrix (each spec statement, the tests tagged `spec: ID` that check it,
 * their outcome) and writes it to docs/conformance.md. With `--no-run`, the outcomes of the last run
 * (.trace/spec-results.json) are used when that file exists. With `--project conformance` (CONFORMANCE_BASE_URL and
 * CONFORMANCE_TOKEN set), the run is against that deployment: the matrix is printed, docs/conformance.md (the
 * emulator's own) left as it is. Exits 1 when a tagged test failed or a test cites an id that is no statement.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildMatrix, renderMarkdown, renderText, summarize } from './trace/matrix.js';
import { receiverNotes } from './trace/receiver.js';
import { parseResults } from './trace/results.js';
import { MATRIX_FILE, readStatements, scanRepository } from './trace/scan.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const USAGE = 'usage: npm run trace [-- --no-run] [-- --project conformance]';

const args = process.argv.slice(2);
const projectAt = args.indexOf('--project');
const project = projectAt < 0 ? 'spec' : args[projectAt + 1];
const unknownArgs = args.filter(
  (a, i) => a !== '--no-run' && !(projectAt >= 0 && (i === projectAt || i === projectAt + 1)),
);
if (unknownArgs.length > 0) {
  console.error(`trace: unknown argument ${unknownArgs.join(' ')} (${USAGE})`);
  process.exit(2);
}
if (project !== 'spec' && project !== 'conformance') {
  console.error(
    `trace: --project takes spec or conformance (got ${project === undefined ? 'nothing' : `"${project}"`}) (${USAGE})`,
  );
  process.exit(2);
}
// vitest.config.ts defines the conformance project only when a deployment is named.
if (project === 'conformance' && !process.env.CONFORMANCE_BASE_URL) {
  console.error(
    'trace: --project conformance needs CONFORMANCE_BASE_URL and CONFORMANCE_TOKEN (the deployment to run against)',
  );
  process.exit(2);
}
const RESULTS = `.trace/${project}-results.json`;

const resultsPath = join(ROOT, RESULTS);
if (!(args.includes('--no-run') && existsSync(resultsPath))) {
  mkdirSync(join(ROOT, '.trace'), { recursive: true });
  // A run that dies before writing its report must not leave the previous run's outcomes to be read as its own.
  rmSync(resultsPath, { force: true });
  console.log(`trace: running the spec tests (vitest run --project ${project}), results in ${RESULTS}`);
  // The default reporter shows progress and failures; the JSON one records each test's outcome.
  const run = spawnSync(
    'npx',
    ['vitest', 'run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${RESULTS}`],
    { cwd: ROOT, stdio: 'inherit' },
  );
  if (!existsSync(resultsPath)) {
    console.error(`trace: the test run wrote no ${RESULTS} (exit ${run.status ?? run.signal})`);
    process.exit(1);
  }
}

const matrix = buildMatrix(
  readStatements(ROOT),
  scanRepository(ROOT),
  parseResults(readFileSync(resultsPath, 'utf8'), ROOT),
);
const notes = receiverNotes();
console.log(renderText(matrix, notes));
if (project === 'spec') {
  writeFileSync(join(ROOT, MATRIX_FILE), renderMarkdown(matrix, notes));
  console.log(`\ntrace: wrote ${MATRIX_FILE}`);
} else
  console.log(
    `\ntrace: the matrix of ${process.env.CONFORMANCE_BASE_URL} (skipped tests count as not run); ${MATRIX_FILE} left as it is`,
  );
const summary = summarize(matrix);
process.exitCode = summary.failed.length > 0 || matrix.unknown.length > 0 ? 1 : 0;
