/**
 * The controls' document: every row of the control table is there, with its parameters, its body schema and its
 * answers; every $ref resolves.
 */
import { describe, expect, it } from 'vitest';
import { CONTROLS } from '../control/table.js';
import { controlsDocument } from './controls.js';

const CONTROL_ROUTES = CONTROLS;

type Json = Record<string, any>;

const doc = controlsDocument() as Json;
const openApiPath = (path: string) => `/_emulator${path === '/' ? '' : path.replace(/:(\w+)/g, '{$1}')}`;

function refsOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsOf(v, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) k === '$ref' ? out.push(v as string) : refsOf(v, out);
  return out;
}

describe('controlsDocument()', () => {
  it('is an OpenAPI 3.1 document with one operation per control, and nothing else', () => {
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths as Json).flatMap(([path, item]) =>
      Object.keys(item as Json).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(CONTROL_ROUTES.map((r) => `${r.method} ${openApiPath(r.path)}`).sort());
  });

  for (const route of CONTROL_ROUTES) {
    it(`${route.method} ${route.path}: ${route.id}`, () => {
      const op = doc.paths[openApiPath(route.path)][route.method.toLowerCase()] as Json;
      expect(op.operationId).toBe(route.id);
      expect(op.summary).toBe(route.summary);
      expect(op.tags).toEqual([route.tag]);
      const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
      expect((op.parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => p.name)).toEqual(pathParams);
      expect((op.parameters ?? []).filter((p: Json) => p.in === 'query').map((p: Json) => p.name)).toEqual(
        (route.query ?? []).map((q) => q.name),
      );
      if (route.body) {
        expect(op.requestBody.content['application/json'].schema).toEqual(expect.any(Object));
        const shown = route.body.shown === undefined ? route.body.schema : route.body.shown();
        expect(op.requestBody.required).toBe(!shown.safeParse({}).success);
      } else expect(op.requestBody).toBeUndefined();
      const statuses = Object.keys(op.responses).map(Number);
      expect(statuses).toEqual(
        expect.arrayContaining([...Object.keys(route.success), ...Object.keys(route.errors)].map(Number)),
      );
      // Every control may be refused the control token; every write the content type.
      expect(statuses).toContain(401);
      if (['POST', 'PUT', 'PATCH'].includes(route.method))
        expect(statuses).toEqual(expect.arrayContaining([400, 413, 415]));
      // A control that reads its query refuses what it does not take.
      if (route.query !== undefined) expect(statuses).toContain(422);
      for (const status of statuses.filter((s) => s >= 400))
        expect(op.responses[status].content['application/json'].schema).toEqual({
          $ref: '#/components/schemas/ErrorBody',
        });
    });
  }

  it('writes the schemas of the bodies the routes parse: a company, an advance, a fault', () => {
    const body = (path: string, method: string) =>
      doc.paths[path][method].requestBody.content['application/json'].schema as Json;
    expect(body('/_emulator/companies', 'post').properties.clock).toEqual({
      description: expect.any(String),
      type: 'string',
      enum: ['shared', 'own'],
    });
    expect(body('/_emulator/clock/advance', 'post').anyOf).toHaveLength(2);
    expect(body('/_emulator/faults', 'post')).toEqual({ $ref: '#/components/schemas/FaultInput' });
    expect(doc.components.schemas.FaultInput.oneOf.map((f: Json) => f.properties.target.const)).toEqual([
      'api',
      'delivery',
      'job',
    ]);
  });

  it('resolves every $ref to a component', () => {
    const refs = refsOf(doc);
    expect(refs.length).toBeGreaterThan(CONTROL_ROUTES.length);
    for (const ref of new Set(refs))
      expect(doc.components.schemas[ref.replace('#/components/schemas/', '')], ref).toBeDefined();
  });
});
