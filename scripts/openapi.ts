/**
 * `npm run openapi`: writes the OpenAPI documents the package ships from the code that serves them:
 * openapi.json (the service API) and openapi.controls.json (the /_emulator controls), and the TypeScript types
 * generated from openapi.json (src/openapi/types.ts). A unit test fails when a committed file differs from what
 * this writes.
 *
 * The examples first: scripts/examples.ts records them from the emulator into src/openapi/examples.ts, then the
 * API document is written with them (those just recorded: the module this process loaded is the one before).
 */
import { writeFileSync } from 'node:fs';
import { apiDocument, openApiText } from '../src/index.js';
import { examplesModule, recordExamples } from './examples.js';
import { TYPES_FILE, typesOf } from './openapi-types.js';

const ROOT = new URL('../', import.meta.url);
const examples = await recordExamples();
writeFileSync(new URL('src/openapi/examples.ts', ROOT), examplesModule(examples));
process.stdout.write(`wrote src/openapi/examples.ts (${Object.keys(examples).length} operations)\n`);
const document = apiDocument(examples);
writeFileSync(new URL('openapi.json', ROOT), `${JSON.stringify(document, null, 2)}\n`);
process.stdout.write('wrote openapi.json\n');
writeFileSync(new URL('openapi.controls.json', ROOT), openApiText('controls'));
process.stdout.write('wrote openapi.controls.json\n');
writeFileSync(new URL(TYPES_FILE, ROOT), await typesOf(document));
process.stdout.write(`wrote ${TYPES_FILE}\n`);
