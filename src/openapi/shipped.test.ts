/**
 * The documents the package ships are the ones the code generates: openapi.json and openapi.controls.json at the
 * root, in package.json's files and exports.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiText, type OpenApiDocumentName } from './served.js';

const ROOT = new URL('../../', import.meta.url);
const FILES: Record<OpenApiDocumentName, string> = { api: 'openapi.json', controls: 'openapi.controls.json' };

describe('the shipped OpenAPI documents', () => {
  for (const [which, file] of Object.entries(FILES) as [OpenApiDocumentName, string][]) {
    it(`${file} is the generated ${which} document`, () => {
      const committed = readFileSync(new URL(file, ROOT), 'utf8');
      // Not toEqual on the texts: a diff of two 100 KB documents would bury the one thing to do.
      if (committed !== openApiText(which))
        expect.fail(`${file} differs from the document the code generates: run \`npm run openapi\` and commit ${file}`);
      expect(JSON.parse(committed)).toEqual(expect.objectContaining({ openapi: '3.1.0' }));
    });
  }

  it('are in the package: files and exports name them', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as {
      files: string[];
      exports: Record<string, unknown>;
    };
    for (const file of Object.values(FILES)) {
      expect(pkg.files).toContain(file);
      expect(pkg.exports[`./${file}`]).toBe(`./${file}`);
    }
  });
});
