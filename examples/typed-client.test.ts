// The typed-client example of docs/openapi.md, kept runnable: it imports the package as you do (the built one, so
// `npm test` builds first), and examples/tsconfig.json type-checks it under strict and exactOptionalPropertyTypes.
// openapi-fetch is not a dependency of catalog-emulator: npm install -D openapi-fetch
// #region readme
import { createEmulator, type paths } from 'catalog-emulator';
import createClient from 'openapi-fetch';
import { expect, test } from 'vitest';

test('a typed client: create a catalog, read it, and rename it with its ETag', async () => {
  const emu = createEmulator(); // manual clock at 2026-01-01T00:00:00Z, seed 1
  const client = createClient<paths>({ baseUrl: 'http://catalog-emulator.local', fetch: emu.fetch });
  const acme = emu.companies.create({ cnpjRoot: '11222333' });
  const headers = { authorization: `Bearer ${acme.token}` };

  const created = await client.POST('/v1/catalogos', {
    headers,
    params: { header: { 'idempotency-key': 'create-catalog-0001' } },
    body: { estabelecimento_id: acme.headOffice.id, nome: 'Loja' },
  });
  expect(created.response.status).toBe(201);
  const catalog = created.data!; // a Catalog: every field typed
  expect(catalog).toEqual({
    id: catalog.id,
    id_externo: null,
    estabelecimento_id: acme.headOffice.id,
    cnpj_estabelecimento: acme.headOffice.cnpj,
    nome: 'Loja',
    estado: 'ativo',
    versao: 1,
    produtos: 0,
    criado_em: '2026-01-01T00:00:00.000Z',
    atualizado_em: '2026-01-01T00:00:00.000Z',
    excluido_em: null,
  });
  expect(created.response.headers.get('location')).toBe(`/v1/catalogos/${catalog.id}`);
  // @ts-expect-error: a typo in a field name is a type error
  expect(catalog.nmoe).toBeUndefined();

  const read = await client.GET('/v1/catalogos/{id}', { headers, params: { path: { id: catalog.id } } });
  expect(read.response.status).toBe(200);
  expect(read.data).toEqual(catalog);
  const etag = read.response.headers.get('etag')!;
  expect(etag).toBe(created.response.headers.get('etag'));

  const renamed = await client.PATCH('/v1/catalogos/{id}', {
    headers,
    params: { path: { id: catalog.id }, header: { 'idempotency-key': 'rename-catalog-0001', 'if-match': etag } },
    body: { nome: 'Loja Centro' },
  });
  expect(renamed.response.status).toBe(200);
  expect(renamed.data).toEqual({ ...catalog, nome: 'Loja Centro', versao: 2 });
  expect(renamed.response.headers.get('etag')).not.toBe(etag);

  // The same ETag again is stale now: the error body is typed too (ErrorBody).
  const stale = await client.PATCH('/v1/catalogos/{id}', {
    headers,
    params: { path: { id: catalog.id }, header: { 'idempotency-key': 'rename-catalog-0002', 'if-match': etag } },
    body: { nome: 'Loja Norte' },
  });
  expect(stale.response.status).toBe(412);
  expect(stale.error?.erro.codigo).toBe('precondicao_falhou');
});
// #endregion
