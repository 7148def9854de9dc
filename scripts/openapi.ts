/**
 * `npm run openapi`: writes the OpenAPI documents the package ships from the code that serves them:
 * openapi.json (the service API) and openapi.controls.json (the /_emulator controls). A unit test fails when a
 * committed file differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import { openApiText } from '../src/index.js';

const ROOT = new URL('../', import.meta.url);
for (const [file, which] of [['openapi.json', 'api'], ['openapi.controls.json', 'controls']] as const) {
  writeFileSync(new URL(file, ROOT), openApiText(which));
  process.stdout.write(`wrote ${file}\n`);
}
