/**
 * The 60-day idempotency window on the company's own clock: a key replays its stored answer (and refuses another
 * body) until 60 days after the request, to the millisecond; from then on the same key is a new request.
 */
import { expect, it } from 'vitest';
import { headOfficeCatalog, NCM } from '../support/client.js';
import { expectError } from '../support/expect.js';
import { productsPath } from '../support/fixtures.js';
import { advance, DAY, HOUR, idTime, ok, ownCompany } from './support.js';

it('replays a product creation until 60 days after it, refuses the key with another body meanwhile, and takes the key as new after the purge', async () => {
  const c = await ownCompany('61000400');
  const catalog = await headOfficeCatalog(c);
  const key = 'shared-server-idempotency-0001';
  const body = { origem: 'erp', ncm: NCM, sku: 'CAFE-500' };
  const t0 = await advance(c, 11 * HOUR);
  const first = await c.api.post(productsPath(catalog.id), body, { key });
  const created = ok(first, 201);
  expect(created).toMatchObject({ sku: 'CAFE-500', versao: 1 });
  expect(idTime(created.id)).toBe(t0);
  expect(first.headers.get('idempotent-replayed')).toBeNull();

  expect(await advance(c, 60 * DAY - 1)).toBe(t0 + 60 * DAY - 1);
  const replay = await c.api.post(productsPath(catalog.id), body, { key });
  expect(replay.status).toBe(201);
  expect(replay.text).toBe(first.text);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expectError(
    await c.api.post(productsPath(catalog.id), { ...body, sku: 'CAFE-250' }, { key }),
    422,
    'idempotencia_reutilizada',
  );

  await advance(c, 1);
  const again = await c.api.post(productsPath(catalog.id), body, { key });
  const recreated = ok(again, 201);
  expect(again.headers.get('idempotent-replayed')).toBeNull();
  expect(recreated.id).not.toBe(created.id);
  expect(recreated).toMatchObject({ sku: 'CAFE-500', versao: 1 });
  expect(idTime(recreated.id)).toBe(t0 + 60 * DAY);
  // The purge ran with the day: a day later the key is still the new request's.
  await advance(c, DAY);
  const later = await c.api.post(productsPath(catalog.id), body, { key });
  expect(later.text).toBe(again.text);
  expect(later.headers.get('idempotent-replayed')).toBe('true');
});
