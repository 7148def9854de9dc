/**
 * An ingestion's 24 h expiry on the company's own clock: open, a batch restarting the 24 h, then `expirada`
 * (`prazo_expirado`) exactly 24 h after the last change and not a millisecond before; the catalog is then free
 * for the next ingestion.
 */
import { expect, it } from 'vitest';
import { headOfficeCatalog, NCM } from '../support/client.js';
import { expectError } from '../support/expect.js';
import { advance, DAY, HOUR, iso, MINUTE, ok, ownCompany } from './support.js';

const INGESTIONS = '/v1/catalogos/ingestoes';

it('expires an open ingestion exactly 24 h after its last accepted batch', async () => {
  const c = await ownCompany('61000300');
  const catalog = await headOfficeCatalog(c);
  const t0 = await advance(c, 9 * HOUR);
  const started = ok(await c.api.post(INGESTIONS, { operacao: 'mesclar' }), 201);
  expect(started).toMatchObject({ estado: 'aberta', repetida: false, catalogo_id: catalog.id });
  const path = `${INGESTIONS}/${started.ingestao_id}`;
  expect(ok(await c.api.get(path), 200)).toMatchObject({
    estado: 'aberta',
    criada_em: iso(t0),
    atualizada_em: iso(t0),
    expira_em: iso(t0 + DAY),
  });

  // A batch 5 h 30 min later restarts the 24 h.
  const t1 = await advance(c, 5 * HOUR + 30 * MINUTE);
  ok(await c.api.put(`${path}/lotes/1`, { itens: [{ id_externo: 'CAFE-500', origem: 'erp', ncm: NCM }] }), 201);
  expect(ok(await c.api.get(path), 200)).toMatchObject({
    estado: 'aberta',
    atualizada_em: iso(t1),
    expira_em: iso(t1 + DAY),
    lotes_recebidos: [1],
  });

  expect(await advance(c, DAY - 1)).toBe(t1 + DAY - 1);
  expect(ok(await c.api.get(path), 200)).toMatchObject({ estado: 'aberta', codigo_falha: null });
  // The catalog is still held by it.
  expectError(await c.api.post(INGESTIONS, { operacao: 'mesclar' }), 409, 'ingestao_em_andamento');

  await advance(c, 1);
  expect(ok(await c.api.get(path), 200)).toMatchObject({
    estado: 'expirada',
    codigo_falha: 'prazo_expirado',
    atualizada_em: iso(t1 + DAY),
    criada_em: iso(t0),
  });
  const next = ok(await c.api.post(INGESTIONS, { operacao: 'mesclar' }), 201);
  expect(ok(await c.api.get(`${INGESTIONS}/${next.ingestao_id}`), 200)).toMatchObject({
    estado: 'aberta',
    criada_em: iso(t1 + DAY),
    expira_em: iso(t1 + 2 * DAY),
  });
});
