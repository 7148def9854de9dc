/**
 * `npm run openapi`: writes the OpenAPI documents the package ships (openapi.json: the service API) from the
 * code that serves them. `npm test` fails when a committed file differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import { apiDocument } from '../src/index.js';

const ROOT = new URL('../', import.meta.url);
writeFileSync(new URL('openapi.json', ROOT), `${JSON.stringify(apiDocument(), null, 2)}\n`);
process.stdout.write('wrote openapi.json\n');
