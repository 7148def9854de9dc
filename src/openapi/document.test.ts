import { describe, expect, it, test } from 'vitest';
import { apiDocument } from './document.js';

type Json = Record<string, unknown>;

/** operationId by "METHOD /path" of the document. */
function operationIds(): Map<string, string> {
  const ids = new Map<string, string>();
  for (const [path, item] of Object.entries(apiDocument().paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item))
      ids.set(`${method.toUpperCase()} ${path}`, op.operationId as string);
  }
  return ids;
}

describe('company, establishments, products and the surveillance selection', () => {
  test('every operation of the four route files is in the document under its operationId', () => {
    const ids = operationIds();
    const expected: Record<string, string> = {
      'GET /v1/empresa': 'getCompany',
      'GET /v1/contexto': 'getIntegrationContext',
      'GET /v1/empresa/capacidade': 'getCapacity',
      'POST /v1/estabelecimentos': 'createEstablishment',
      'GET /v1/estabelecimentos': 'listEstablishments',
      'GET /v1/estabelecimentos/{id}': 'getEstablishment',
      'PATCH /v1/estabelecimentos/{id}': 'updateEstablishment',
      'DELETE /v1/estabelecimentos/{id}': 'archiveEstablishment',
      'POST /v1/estabelecimentos/{id}/correcoes-cnpj': 'requestCnpjCorrection',
      'GET /v1/correcoes-cnpj/{id}': 'getCnpjCorrection',
      'POST /v1/catalogos/{id}/produtos': 'createProduct',
      'GET /v1/catalogos/{id}/produtos': 'listCatalogProducts',
      'GET /v1/produtos': 'listProducts',
      'GET /v1/produtos/{id}': 'getProduct',
      'PATCH /v1/produtos/{id}': 'updateProduct',
      'PUT /v1/catalogos/{id}/produtos/{produto_id}': 'linkProduct',
      'DELETE /v1/catalogos/{id}/produtos/{produto_id}': 'unlinkProduct',
      'GET /v1/empresa/vigilancia': 'getSurveillanceSelection',
      'PATCH /v1/empresa/vigilancia': 'updateSurveillanceSelection',
      'GET /v1/empresa/vigilancia/produtos': 'listSelectedProducts',
    };
    expect(Object.fromEntries(Object.keys(expected).map((key) => [key, ids.get(key)]))).toEqual(expected);
  });

  test("their answers are named components, and the paths the spec does not show are marked as the emulator's", () => {
    const doc = apiDocument();
    const schemas = (doc.components as { schemas: Json }).schemas;
    for (const name of [
      'Company',
      'IntegrationContext',
      'Capacity',
      'Establishment',
      'EstablishmentPage',
      'CnpjCorrectionAcceptance',
      'CnpjCorrection',
      'Product',
      'ProductAttribute',
      'ProductPage',
      'SurveillanceSelection',
    ]) {
      expect(schemas[name], name).toBeDefined();
    }
    const paths = doc.paths as Record<string, Record<string, Json>>;
    expect(paths['/v1/estabelecimentos']?.get?.['x-emulator-choice']).toMatch(
      /^The spec lists this operation without its path/,
    );
    expect(paths['/v1/estabelecimentos']?.post?.['x-emulator-choice']).toBeUndefined();
    // The spec's own fields are not marked; the payloads it does not show are.
    expect((schemas.Product as Json)['x-emulator-choice']).toBeUndefined();
    expect(typeof (schemas.ProductPage as Json)['x-emulator-choice']).toBe('string');
  });
});

/** The document read loosely: these tests walk it by the names they know. */
type Loose = Record<string, any>;

const document = apiDocument() as Loose;
const operationAt = (method: string, path: string): Loose | undefined => (document.paths as Loose)[path]?.[method];

describe('the webhook, analysis, surveillance execution and ingestion operations', () => {
  // [method, path, operationId, success statuses, whether the path is the emulator's (docs/api.md)]
  const operations: readonly (readonly [string, string, string, readonly string[], boolean])[] = [
    ['get', '/v1/webhook', 'getWebhookDestination', ['200'], false],
    ['put', '/v1/webhook', 'configureWebhookDestination', ['200', '201'], false],
    ['delete', '/v1/webhook', 'revokeWebhookDestination', ['200'], false],
    ['post', '/v1/webhook/testes', 'sendWebhookTestEvent', ['202'], false],
    ['post', '/v1/webhook/eventos/{id}/reenvios', 'resendWebhookEvent', ['202'], false],
    ['get', '/v1/webhook/eventos', 'listWebhookEvents', ['200'], false],
    ['get', '/v1/webhook/eventos/{id}', 'getWebhookEvent', ['200'], false],
    ['get', '/v1/webhook/eventos/{id}/tentativas', 'listDeliveryAttempts', ['200'], false],
    ['post', '/v1/analises', 'requestAnalysis', ['200', '202'], false],
    ['get', '/v1/analises', 'listAnalyses', ['200'], false],
    ['get', '/v1/analises/{id}', 'getAnalysis', ['200'], true],
    ['get', '/v1/analises/{id}/achados', 'listAnalysisFindings', ['200'], true],
    ['get', '/v1/analises/{id}/resultado.csv', 'exportAnalysisResult', ['200'], true],
    ['get', '/v1/vigilancias', 'listSurveillanceExecutions', ['200'], false],
    ['get', '/v1/vigilancias/{id}', 'getSurveillanceExecution', ['200'], true],
    ['get', '/v1/vigilancias/{id}/resultados', 'listSurveillanceFindings', ['200'], false],
    ['get', '/v1/vigilancias/{id}/resultados.csv', 'exportSurveillanceResult', ['200'], true],
    ['post', '/v1/catalogos/ingestoes', 'startIngestion', ['200', '201'], false],
    ['get', '/v1/catalogos/ingestoes/{id}', 'getIngestion', ['200'], true],
    ['put', '/v1/catalogos/ingestoes/{id}/lotes/{numero}', 'sendIngestionBatch', ['200', '201'], true],
    ['post', '/v1/catalogos/ingestoes/{id}/fechamento', 'closeIngestion', ['202'], true],
    ['post', '/v1/catalogos/ingestoes/{id}/aplicacao', 'applyIngestion', ['202'], true],
  ];

  it.each(operations)('%s %s is %s, answering %j', (method, path, id, successes, emulators) => {
    const op = operationAt(method, path);
    expect(op?.operationId).toBe(id);
    expect(Object.keys(op!.responses).filter((status) => status.startsWith('2'))).toEqual(successes);
    expect('x-emulator-choice' in op!).toBe(emulators);
  });

  it('gives each of them an operationId no other operation has', () => {
    const ids = Object.values(document.paths as Loose).flatMap((item: Loose) =>
      Object.values(item).map((op: Loose) => op.operationId as string),
    );
    for (const [, , id] of operations) expect(ids.filter((other) => other === id)).toEqual([id]);
  });

  it('says which headers their answers carry: ETag and Location where the emulator sends them, the quota on test and resend', () => {
    const headersOf = (method: string, path: string, status: string) =>
      Object.keys(operationAt(method, path)!.responses[status].headers as Loose);
    expect(headersOf('get', '/v1/webhook', '200')).toEqual(['x-request-id', 'etag', 'location']);
    expect(headersOf('put', '/v1/webhook', '201')).toEqual(['x-request-id', 'etag', 'location', 'idempotent-replayed']);
    expect(headersOf('post', '/v1/webhook/testes', '202')).toEqual([
      'x-request-id',
      'location',
      'ratelimit-policy',
      'ratelimit',
      'idempotent-replayed',
    ]);
    expect(headersOf('post', '/v1/analises', '202')).toEqual(['x-request-id', 'location', 'idempotent-replayed']);
    expect(headersOf('get', '/v1/catalogos/ingestoes/{id}', '200')).toEqual(['x-request-id', 'etag']);
    expect(headersOf('get', '/v1/webhook/eventos/{id}', '200')).toEqual(['x-request-id']);
  });

  it("keeps the error sets the spec gives each (the ingestion start's own, the surveillance results' READ with 409)", () => {
    const errorsOf = (method: string, path: string) =>
      Object.keys(operationAt(method, path)!.responses).filter((status) => /^[45][0-9]{2}$/.test(status));
    expect(errorsOf('post', '/v1/catalogos/ingestoes')).toEqual([
      '400',
      '401',
      '403',
      '404',
      '408',
      '409',
      '413',
      '415',
      '422',
      '429',
      '503',
    ]);
    expect(errorsOf('get', '/v1/vigilancias/{id}/resultados')).toEqual([
      '401',
      '403',
      '404',
      '409',
      '422',
      '429',
      '503',
    ]);
    expect(errorsOf('get', '/v1/analises/{id}/achados')).toEqual(['401', '403', '404', '409', '422', '429', '503']);
    expect(operationAt('get', '/v1/analises/{id}/achados')!.responses['409']['x-emulator-choice']).toMatch(
      /resultado_indisponivel/,
    );
  });

  it('describes the CSV exports by their columns', () => {
    const csv = (path: string) =>
      operationAt('get', path)!.responses['200'].content['text/csv'].schema.description as string;
    expect(csv('/v1/analises/{id}/resultado.csv')).toMatch(/: produto_id,ncm,tipo,detalhe,avaliado_em,snapshot_id$/);
    expect(csv('/v1/vigilancias/{id}/resultados.csv')).toMatch(
      /: produto_id,ncm,tipo,detalhe,avaliado_em,snapshot_id,reaproveitado$/,
    );
  });
});

describe('the whole document', () => {
  const document = apiDocument();
  const entries = Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op })),
  );

  it('lists every operation of the API: the 48 of the operation table, each once', () => {
    expect(entries).toHaveLength(48);
    expect(new Set(entries.map((e) => e.op.operationId)).size).toBe(48);
    expect(operationIds().size).toBe(48);
  });

  it('gives every error status the error body, and every answer x-request-id', () => {
    for (const { op } of entries) {
      for (const [status, written] of Object.entries(op.responses as Record<string, Json>)) {
        const response =
          typeof written.$ref === 'string'
            ? ((document.components as Json).responses as Record<string, Json>)[
                written.$ref.replace('#/components/responses/', '')
              ]!
            : written;
        expect((response.headers as Json)['x-request-id'], `${String(op.operationId)} ${status}`).toEqual({
          $ref: '#/components/headers/x-request-id',
        });
        if (!status.startsWith('2'))
          expect(response.content, `${String(op.operationId)} ${status}`).toEqual({
            'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } },
          });
      }
    }
  });

  it('asks every change for an idempotency-key, and every operation guarded by an ETag for If-Match', () => {
    for (const { method, op } of entries) {
      const headers = ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'header').map((p) => p.name);
      if (method !== 'get') expect(headers, String(op.operationId)).toContain('idempotency-key');
      else expect(headers, String(op.operationId)).toEqual([]);
    }
    const guarded = entries
      .filter((e) => ((e.op.parameters ?? []) as Json[]).some((p) => p.name === 'if-match'))
      .map((e) => `${e.method.toUpperCase()} ${e.path}`);
    expect(guarded).toHaveLength(14);
  });

  it('marks each operation whose path the spec does not show as the emulator choice', () => {
    const chosen = entries
      .filter((e) => e.op['x-emulator-choice'] !== undefined)
      .map((e) => `${e.method.toUpperCase()} ${e.path}`);
    expect(chosen).toEqual(
      expect.arrayContaining([
        'GET /v1/contexto',
        'GET /v1/empresa',
        'POST /v1/catalogos',
        'GET /v1/analises/{id}/achados',
        'PUT /v1/catalogos/ingestoes/{id}/lotes/{numero}',
      ]),
    );
  });
});

test("the shipped documents speak for themselves: no reference to the project's internal design notes or issues", async () => {
  const { controlsDocument } = await import('./controls.js');
  for (const text of [JSON.stringify(apiDocument()), JSON.stringify(controlsDocument())])
    expect(text).not.toMatch(/DESIGN|§|\bissue \d/);
});
