// The README shows the region below as written (examples/readme.test.ts checks it): it imports the package as your
// project does (here the built one, resolved by name, so `npm test` builds first).
// #region readme
import { expect, test } from 'vitest';
import { createEmulator } from 'catalog-emulator';

test('a lost PATCH answer, retried with the same idempotency key, is applied exactly once', async () => {
  const emu = createEmulator(); // manual clock at 2026-01-01T00:00:00Z, seed 1
  const acme = emu.companies.create({ cnpjRoot: '11222333' });
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    emu.fetch(path, {
      method,
      headers: { authorization: `Bearer ${acme.token}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? null : JSON.stringify(body),
    });

  const catalog = (await (
    await call(
      'POST',
      '/v1/catalogos',
      { estabelecimento_id: acme.headOffice.id, nome: 'Loja' },
      { 'idempotency-key': 'create-catalog-0001' },
    )
  ).json()) as { id: string };
  const created = await call(
    'POST',
    `/v1/catalogos/${catalog.id}/produtos`,
    { origem: 'erp', ncm: '21069090' },
    { 'idempotency-key': 'create-product-0001' },
  );
  const product = (await created.json()) as { id: string };

  emu.faults.add({ target: 'api', match: { method: 'PATCH', path: '/v1/produtos/*' }, effect: { loseResponse: true } });
  const patch = () =>
    call(
      'PATCH',
      `/v1/produtos/${product.id}`,
      { sku: 'CAFE-500' },
      { 'idempotency-key': 'patch-product-0001', 'if-match': created.headers.get('etag')! },
    );

  expect((await patch()).status).toBe(503); // applied, but the answer was lost
  const retry = await patch(); // same key, same (now stale) If-Match
  expect(retry.status).toBe(200);
  expect(retry.headers.get('idempotent-replayed')).toBe('true');
  expect(((await retry.json()) as { versao: number }).versao).toBe(2); // applied exactly once

  await emu.clock.advance('61d'); // time travel: the key's 60-day retention is over
  expect(emu.clock.now().toISOString()).toBe('2026-03-03T00:00:00.000Z');
});
// #endregion
