/**
 * Part of `npm run build`: the spec tests (spec-tests/*.test.ts: not the property tests, not the shared-server
 * suites) bundled with their runner into dist/conformance/ (scripts/conformance-bundle.ts), for `catalog-emulator
 * conformance`; and dist/conformance/statements.json: the spec's statements and, for each test, the statement ids
 * it cites, found by the trace's own scanner (scripts/trace), so the runner prints the matrix of its target.
 */
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleConformance, bundleName } from './conformance-bundle.js';
import { readStatements } from './trace/scan.js';
import { scanTestFile, type NamePart } from './trace/tags.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = join(ROOT, 'dist', 'conformance');

/** The regular expression a name level takes at run time: its literal text, anything where it is made at run time. */
function pattern(parts: readonly NamePart[]): string {
  return `^${parts.map((p) => ('text' in p ? p.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : '[^]*?')).join('')}$`;
}

const testFiles = readdirSync(join(ROOT, 'spec-tests'))
  .filter((name) => name.endsWith('.test.ts'))
  .sort()
  .map((name) => `spec-tests/${name}`);
const packages = await bundleConformance({
  root: ROOT,
  testFiles,
  outdir: OUT,
  vitestModule: join(ROOT, 'src', 'conformance', 'vitest.ts'),
  // The support's deployment module is an entry too: the runner loads it for the preflight and the deadline, the
  // same instance the tests share (its one chunk).
  extraEntries: ['src/conformance/run.ts', 'spec-tests/support/deployment.ts'],
});

const tests = testFiles.flatMap((file) =>
  scanTestFile(file, readFileSync(join(ROOT, file), 'utf8')).map((test) => ({
    file,
    line: test.line,
    name: test.names.map((parts) => parts.map((p) => ('text' in p ? p.text : p.unknown)).join('')).join(' › '),
    patterns: test.names.map(pattern),
    ids: test.ids,
  })),
);
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const catalogue = {
  version,
  statements: readStatements(ROOT),
  files: testFiles.map((source) => ({ source, bundle: bundleName(source) })),
  tests,
};
writeFileSync(join(OUT, 'statements.json'), `${JSON.stringify(catalogue)}\n`);
// The fixtures a user tries the command with against `serve --no-controls` (docs/conformance-testing.md): shipped
// beside the tests.
copyFileSync(new URL('../examples/conformance-fixtures.json', import.meta.url), join(OUT, 'fixtures.json'));
console.log(
  `build-conformance: ${testFiles.length} spec test files, ${tests.length} tests, into dist/conformance (bundled: ${packages.join(', ')})`,
);
