/**
 * `npm run docs:examples`: writes every block of README.md and docs/*.md that names an example from that example
 * (examples/doc-examples.ts says how a block names one). Run it after changing an example, or after the formatter
 * changed one; examples/readme.test.ts fails until the documents show the examples as they are.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withExamples } from './doc-examples.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const documents = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
let changed = 0;
for (const name of documents) {
  const path = join(ROOT, name);
  const before = readFileSync(path, 'utf8');
  const after = withExamples(before);
  if (after === before) continue;
  writeFileSync(path, after);
  changed++;
  console.log(`docs:examples: ${name} now shows its examples as they are`);
}
console.log(`docs:examples: ${changed} of ${documents.length} documents changed`);
