/**
 * API faults on the company's own clock, each test on a company as created (`startOver`): a 503 before anything
 * is applied, then the request succeeds; a lost answer (`loseResponse`), then the retry with the same key gets
 * the stored answer and the resource exists once. The records carry the company's time, not the server's.
 */
import { beforeEach, expect, it } from 'vitest';
import { headOfficeCatalog, NCM } from '../support/client.js';
import { expectError } from '../support/expect.js';
import { productsPath } from '../support/fixtures.js';
import { advance, DAY, HOUR, idTime, iso, MINUTE, ok, ownCompany, startOver, type OwnCompany } from './support.js';

let c: OwnCompany | undefined;
beforeEach(async () => {
  c = c === undefined ? await ownCompany('61000800') : await startOver(c);
});

it('answers a status fault 503 with Retry-After and applies nothing; the same request then succeeds', async () => {
  const w = c!;
  const t0 = await advance(w, 17 * DAY + 2 * HOUR);
  await w.controls.addFault({
    target: 'api',
    match: { method: 'POST', path: '/v1/catalogos' },
    effect: { status: 503, retryAfter: 7 },
    times: 1,
  });
  const body = { estabelecimento_id: w.company.headOffice.id, nome: 'Loja' };
  const refused = await w.api.post('/v1/catalogos', body, { key: 'shared-server-fault-0001' });
  expectError(refused, 503, 'servico_indisponivel');
  expect(refused.headers.get('retry-after')).toBe('7');
  expect(ok(await w.api.get('/v1/catalogos'), 200).itens).toEqual([]);

  const t1 = await advance(w, 7 * 1000);
  expect(t1).toBe(t0 + 7000);
  const created = await w.api.post('/v1/catalogos', body, { key: 'shared-server-fault-0001' });
  expect(ok(created, 201)).toMatchObject({ nome: 'Loja', versao: 1, criado_em: iso(t1), atualizado_em: iso(t1) });
  expect(created.headers.get('idempotent-replayed')).toBeNull();
});

it('processes a request whose answer is lost (503) and answers its retry with the same key from the store, the product created once', async () => {
  const w = c!;
  const catalog = await headOfficeCatalog(w);
  const t0 = await advance(w, 3 * DAY + 45 * MINUTE);
  await w.controls.addFault({
    target: 'api',
    match: { method: 'POST', path: '/v1/catalogos/*/produtos' },
    effect: { loseResponse: true },
    times: 1,
  });
  const key = 'shared-server-lost-0001';
  const lost = await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM, sku: 'PERDIDO' }, { key });
  expectError(lost, 503, 'servico_indisponivel');

  await advance(w, 30 * 1000);
  const retry = await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM, sku: 'PERDIDO' }, { key });
  const product = ok(retry, 201);
  expect(retry.headers.get('idempotent-replayed')).toBe('true');
  expect(idTime(product.id)).toBe(t0);
  const listed = ok(await w.api.get(productsPath(catalog.id)), 200).itens;
  expect(listed.map((p: { id: string }) => p.id)).toEqual([product.id]);
});
