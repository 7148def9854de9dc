/**
 * The OpenAPI documents the package ships pass a real linter with no problem at all: Redocly's
 * (@redocly/openapi-core) recommended rules as redocly.yaml sets them (a rule set otherwise there says why, a
 * problem accepted in .redocly.lint-ignore.yaml says why there), the official OpenAPI 3.1 JSON Schema
 * (@seriousme/openapi-schema-validator), and JSON Schema 2020-12's meta-schema for every Schema Object in them (the
 * OpenAPI schema leaves those unchecked).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { lint, loadConfig, type NormalizedProblem } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const path = (file: string) => fileURLToPath(new URL(file, ROOT));
const DOCUMENTS = ['openapi.json', 'openapi.controls.json'];
const config = await loadConfig({ configPath: path('redocly.yaml') });

const describeProblem = (p: NormalizedProblem) =>
  `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`;

/** Every Schema Object of an OpenAPI 3.1 document, by its JSON pointer (a schema's own subschemas are its). */
function schemasOf(node: unknown, pointer = '#'): [string, unknown][] {
  if (typeof node !== 'object' || node === null) return [];
  const found: [string, unknown][] = [];
  for (const [key, value] of Object.entries(node)) {
    const at = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (key === 'schema' && typeof value === 'object') found.push([at, value]);
    else if (key === 'schemas' && pointer === '#/components')
      found.push(
        ...Object.entries(value as object).map(([name, schema]): [string, unknown] => [`${at}/${name}`, schema]),
      );
    else found.push(...schemasOf(value, at));
  }
  return found;
}

describe.each(DOCUMENTS)('%s', (file) => {
  const document = JSON.parse(readFileSync(path(file), 'utf8')) as object;

  it("has no problem by Redocly's recommended rules (redocly.yaml)", async () => {
    const problems = (await lint({ ref: path(file), config })).filter((p) => !p.ignored);
    expect(problems.map(describeProblem), `npx @redocly/cli lint ${file} shows them in context`).toEqual([]);
  });

  it('is valid by the official OpenAPI 3.1 JSON Schema', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document) as Record<string, unknown>);
    expect(validator.version).toBe('3.1');
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('holds Schema Objects that are valid JSON Schema 2020-12', () => {
    const ajv = new Ajv2020({ strict: false });
    const schemas = schemasOf(document);
    expect(schemas.length).toBeGreaterThan(0);
    const invalid = schemas.flatMap(([at, schema]) =>
      ajv.validateSchema(schema as object) ? [] : [`${at}: ${ajv.errorsText(ajv.errors)}`],
    );
    expect(invalid).toEqual([]);
  });
});
