/**
 * The examples of the OpenAPI document (src/openapi/examples.ts): what the recorder (scripts/examples.ts) records
 * now, one per operation of the table, each a valid request and answer by the document's own schemas, and each
 * attached to its operation once the operation has its `doc`.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { examplesModule, OPERATIONS, recordExamples } from '../../scripts/examples.js';
import { operations } from '../http/app.js';
import { apiDocument, type OperationExamples } from './document.js';
import { EXAMPLES } from './examples.js';

type Json = Record<string, any>;

const keyOf = (op: { method: string; path: string }) => `${op.method} ${op.path.replace(/:([A-Za-z_]\w*)/g, '{$1}')}`;
const documented = operations.filter((op) => op.contract.doc !== undefined);

/** A JSON pointer into openapi.json, each segment escaped (RFC 6901) and percent-encoded for the URI fragment. */
const pointer = (...segments: (string | number)[]) =>
  `openapi.json#/${segments.map((s) => encodeURIComponent(String(s).replaceAll('~', '~0').replaceAll('/', '~1'))).join('/')}`;

function validatorOf(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // ajv-formats is CommonJS: under NodeNext its default import is module.exports, the plugin its `default`.
  addFormats.default(ajv);
  ajv.addSchema(doc, 'openapi.json');
  return (ref: string, value: unknown): string[] => {
    const validate = ajv.compile({ $ref: ref });
    return validate(value)
      ? []
      : (validate.errors ?? []).map(
          (e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
        );
  };
}

describe('the examples of the OpenAPI document', () => {
  it('the recorder knows every operation of the table, and no other', () => {
    expect([...OPERATIONS].sort()).toEqual(operations.map(keyOf).sort());
    expect(OPERATIONS).toHaveLength(48);
  });

  it('the committed src/openapi/examples.ts is what the recorder records now (else run npm run openapi)', async () => {
    const recorded = await recordExamples();
    expect(Object.keys(recorded)).toEqual([...OPERATIONS]);
    for (const [key, example] of Object.entries(recorded)) {
      expect(example.response.status, key).toBeGreaterThanOrEqual(200);
      expect(example.response.status, key).toBeLessThan(300);
      expect(example.request.path.startsWith('/v1/'), key).toBe(true);
    }
    // The same scenario on a second emulator in this process: the same bytes (nothing leaks between instances).
    expect(examplesModule(await recordExamples())).toBe(examplesModule(recorded));
    const committed = readFileSync(new URL('./examples.ts', import.meta.url), 'utf8');
    expect(committed, 'src/openapi/examples.ts is not what the emulator answers now: run npm run openapi').toBe(
      examplesModule(recorded),
    );
  });

  it('each request path fills its template, and a mutation sends its idempotency-key', () => {
    for (const [key, example] of Object.entries(EXAMPLES)) {
      const [method, template] = key.split(' ') as [string, string];
      const shape = new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/?]+')}(?:\\?.*)?$`);
      expect(example.request.path, key).toMatch(shape);
      expect(example.request.headers?.['idempotency-key'] !== undefined, key).toBe(method !== 'GET');
    }
  });

  it('each example of a documented operation is on its operation: the request body and the success answer', () => {
    expect(documented.length).toBeGreaterThan(0);
    const doc = apiDocument() as Json;
    for (const op of documented) {
      const key = keyOf(op);
      const example = EXAMPLES[key]!;
      const operation = doc.paths[key.split(' ')[1]!][op.method.toLowerCase()];
      if (op.contract.body)
        expect(operation.requestBody.content['application/json'].example, key).toEqual(example.request.body);
      const content = operation.responses[String(example.response.status)].content;
      if (example.response.csv !== undefined) expect(content['text/csv'].example, key).toBe(example.response.csv);
      else expect(content['application/json'].example, key).toEqual(example.response.body);
      // Only the answer the example shows carries it.
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        if (status !== String(example.response.status))
          expect(
            Object.values((response.content ?? {}) as Record<string, Json>).some((media) => 'example' in media),
            `${key} ${status}`,
          ).toBe(false);
      }
    }
  });

  it("each example of a documented operation validates against the document's schemas: body, headers and answer", () => {
    const doc = apiDocument() as Json;
    const problems = validatorOf(doc);
    const failures: string[] = [];
    for (const op of documented) {
      const key = keyOf(op);
      const path = key.split(' ')[1]!;
      const method = op.method.toLowerCase();
      const example = EXAMPLES[key]!;
      const operation = doc.paths[path][method];
      const report = (what: string, errors: string[]) => failures.push(...errors.map((e) => `${key} ${what}: ${e}`));
      if (example.request.body !== undefined)
        report(
          'request body',
          problems(
            pointer('paths', path, method, 'requestBody', 'content', 'application/json', 'schema'),
            example.request.body,
          ),
        );
      for (const [name, value] of Object.entries(example.request.headers ?? {})) {
        const index = (operation.parameters as Json[]).findIndex((p) => p.in === 'header' && p.name === name);
        if (index === -1) failures.push(`${key}: the document has no header parameter ${name}`);
        else report(`header ${name}`, problems(pointer('paths', path, method, 'parameters', index, 'schema'), value));
      }
      const status = String(example.response.status);
      const media = example.response.csv === undefined ? 'application/json' : 'text/csv';
      report(
        `answer ${status}`,
        problems(
          pointer('paths', path, method, 'responses', status, 'content', media, 'schema'),
          example.response.csv ?? example.response.body,
        ),
      );
    }
    expect(failures).toEqual([]);
  });

  it('the validation can fail: an answer with a field its schema does not have is refused', () => {
    const problems = validatorOf(apiDocument() as Json);
    const example = EXAMPLES['GET /v1/catalogos/{id}']!;
    const ref = pointer(
      'paths',
      '/v1/catalogos/{id}',
      'get',
      'responses',
      '200',
      'content',
      'application/json',
      'schema',
    );
    expect(problems(ref, example.response.body)).toEqual([]);
    expect(problems(ref, { ...(example.response.body as Json), produtos_ativos: 1 })).toHaveLength(1);
  });

  it('an example answering a status its doc does not list stops the document', () => {
    const examples: OperationExamples = {
      ...EXAMPLES,
      'GET /v1/catalogos/{id}': { request: { path: '/v1/catalogos/x' }, response: { status: 201, body: {} } },
    };
    expect(() => apiDocument(examples)).toThrow(
      'the example of GET /v1/catalogos/{id} answered 201, which its doc does not list',
    );
  });
});
