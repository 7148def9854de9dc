/**
 * `npm run openapi`: writes the OpenAPI documents the package ships (openapi.json: the service API) from the
 * code that serves them, and the TypeScript types generated from openapi.json (src/openapi/types.ts). `npm test`
 * fails when a committed file differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import { apiDocument } from '../src/index.js';
import { TYPES_FILE, typesOf } from './openapi-types.js';

const ROOT = new URL('../', import.meta.url);
const document = apiDocument();
writeFileSync(new URL('openapi.json', ROOT), `${JSON.stringify(document, null, 2)}\n`);
process.stdout.write('wrote openapi.json\n');
writeFileSync(new URL(TYPES_FILE, ROOT), await typesOf(document));
process.stdout.write(`wrote ${TYPES_FILE}\n`);
