import { describe, expect, test } from 'vitest';
import { apiDocument } from './document.js';

type Json = Record<string, unknown>;

/** operationId by "METHOD /path" of the document. */
function operationIds(): Map<string, string> {
  const ids = new Map<string, string>();
  for (const [path, item] of Object.entries(apiDocument().paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) ids.set(`${method.toUpperCase()} ${path}`, op.operationId as string);
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

  test('their answers are named components, and the paths the spec does not show are marked as the emulator\'s', () => {
    const doc = apiDocument();
    const schemas = (doc.components as { schemas: Json }).schemas;
    for (const name of ['Company', 'IntegrationContext', 'Capacity', 'Establishment', 'EstablishmentPage', 'CnpjCorrectionAcceptance', 'CnpjCorrection', 'Product', 'ProductAttribute', 'ProductPage', 'SurveillanceSelection']) {
      expect(schemas[name], name).toBeDefined();
    }
    const paths = doc.paths as Record<string, Record<string, Json>>;
    expect(paths['/v1/estabelecimentos']?.get?.['x-emulator-choice']).toMatch(/^The spec lists this operation without its path/);
    expect(paths['/v1/estabelecimentos']?.post?.['x-emulator-choice']).toBeUndefined();
    // The spec's own fields are not marked; the payloads it does not show are.
    expect((schemas.Product as Json)['x-emulator-choice']).toBeUndefined();
    expect(typeof (schemas.ProductPage as Json)['x-emulator-choice']).toBe('string');
  });
});
