// The journal and near-miss examples of docs/journal.md and docs/faults.md, shown as written (examples/readme.test.ts
// checks them): the journal queried and counted in process and over HTTP, and why a fault with a mistyped path never
// fired.
import { expect, test } from 'vitest';
import { createEmulator } from 'catalog-emulator';

/** An emulator, a company, and a call of the API as it. */
function setUp() {
  const emu = createEmulator();
  const acme = emu.companies.create({ cnpjRoot: '11222333' });
  let keys = 0;
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    emu.fetch(path, {
      method,
      headers: {
        authorization: `Bearer ${acme.token}`,
        ...(method === 'GET'
          ? {}
          : {
              'content-type': 'application/json',
              'idempotency-key': `journal-example-${String(++keys).padStart(3, '0')}`,
            }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return { emu, acme, call };
}

test('the journal: the requests a filter keeps, and how many', async () => {
  const { emu, acme, call } = setUp();
  const catalog = (await (
    await call('POST', '/v1/catalogos', { estabelecimento_id: acme.headOffice.id, nome: 'Loja' })
  ).json()) as { id: string };
  const created = await call('POST', `/v1/catalogos/${catalog.id}/produtos`, { origem: 'erp', ncm: '84713012' });
  const product = (await created.json()) as { id: string };
  const etag = created.headers.get('etag')!;
  await call('PATCH', `/v1/produtos/${product.id}`, { sku: 'A-1' }, { 'if-match': etag }); // 200
  await call('PATCH', `/v1/produtos/${product.id}`, { sku: 'A-2' }, { 'if-match': etag }); // 412: a stale ETag
  await call('PATCH', `/v1/produtos/${product.id}`, { sku: 'A-3' }, { 'if-match': etag }); // 412 again

  // #region find
  // Exactly 2 PATCH /v1/produtos/* answered 412, in process and over HTTP.
  const stale = { method: 'PATCH', path: '/v1/produtos/*', status: 412 } as const;
  expect(emu.journal.count(stale)).toBe(2);
  expect(emu.journal.find(stale).map((e) => e.codigo)).toEqual(['precondicao_falhou', 'precondicao_falhou']);
  const counted = await emu.fetch('/_emulator/requests/count?method=PATCH&path=/v1/produtos/*&status=412');
  expect(await counted.json()).toEqual({ count: 2 });

  // The most recent error, whatever it was.
  const [last] = emu.journal.find({ status: '4xx', limit: 1 });
  expect(last).toMatchObject({
    method: 'PATCH',
    status: 412,
    codigo: 'precondicao_falhou',
    replayed: false,
    faultId: null,
  });
  // #endregion
});

test('near-misses: why a fault never fired', async () => {
  const { emu, acme, call } = setUp();
  // #region near-misses
  // Meant for POST /v1/catalogos, written with a /* too many: it never fires.
  const { id } = emu.faults.add({
    target: 'api',
    match: { method: 'POST', path: '/v1/catalogos/*' },
    effect: { status: 503 },
  });
  await call('GET', '/v1/catalogos');
  await call('POST', '/v1/catalogos', { estabelecimento_id: acme.headOffice.id, nome: 'Loja' });

  const { fault, examined, candidates } = emu.faults.nearMisses(id);
  expect([fault.hits, examined]).toEqual([0, 2]);
  expect(candidates.map(({ failed, matched }) => ({ failed, matched }))).toEqual([
    {
      failed: ['path: /v1/catalogos does not match /v1/catalogos/*'],
      matched: ['operation: createCatalog', 'method: POST'],
    },
    {
      failed: ['method: GET ≠ POST', 'path: /v1/catalogos does not match /v1/catalogos/*'],
      matched: ['operation: listCatalogs'],
    },
  ]);
  // #endregion
  expect(candidates[0]).toMatchObject({
    method: 'POST',
    path: '/v1/catalogos',
    status: 201,
    companyId: acme.companyId,
  });
  const overHttp = await emu.fetch(`/_emulator/faults/${id}/near-misses`);
  expect(await overHttp.json()).toEqual(emu.faults.nearMisses(id));
});
