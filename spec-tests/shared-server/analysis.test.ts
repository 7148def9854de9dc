/**
 * An analysis on the company's own clock: accepted `pendente`, started (one unit of the allowance taken) exactly
 * 1 min later, concluded 10 s after that with `analise.concluida`.
 */
import { expect, it } from 'vitest';
import { headOfficeCatalog, NCM } from '../support/client.js';
import { productsPath } from '../support/fixtures.js';
import { createDestination, hookHost } from '../support/webhooks.js';
import { advance, DAY, HOUR, idTime, iso, MINUTE, ok, ownCompany, SECOND } from './support.js';

it('runs an analysis at acceptance + 1 min for 10 s, taking one unit of the allowance when it starts', async () => {
  const c = await ownCompany('61000700', { analysisAllowance: 3 });
  const catalog = await headOfficeCatalog(c);
  for (const sku of ['A-1', 'A-2'])
    ok(await c.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM, sku, descricao: 'Analisado' }), 201);
  await createDestination(c, `${hookHost()}/eventos`);
  const t0 = await advance(c, 4 * DAY + 13 * HOUR + 17 * MINUTE);

  const accepted = await c.api.post('/v1/analises', {});
  const { id } = ok(accepted, 202);
  expect(idTime(id)).toBe(t0);
  expect(accepted.headers.get('location')).toBe(`/v1/analises/${id}`);
  const path = `/v1/analises/${id}`;
  const pendente = ok(await c.api.get(path), 200);
  expect(pendente).toMatchObject({
    estado: 'pendente',
    fase: 'na_fila',
    criada_em: iso(t0),
    iniciada_em: null,
    terminada_em: null,
    resumo: null,
  });
  const capacity = async () => ok(await c.api.get('/v1/empresa/capacidade'), 200).analises;
  expect(await capacity()).toMatchObject({ franquia: 3, disponiveis: 3 });

  await advance(c, MINUTE - 1);
  expect(ok(await c.api.get(path), 200)).toMatchObject({ estado: 'pendente' });
  await advance(c, 1);
  expect(ok(await c.api.get(path), 200)).toMatchObject({
    estado: 'executando',
    fase: 'avaliando',
    iniciada_em: iso(t0 + MINUTE),
    terminada_em: null,
  });
  expect(await capacity()).toMatchObject({ franquia: 3, disponiveis: 2 });
  await advance(c, 10 * SECOND - 1);
  expect(ok(await c.api.get(path), 200)).toMatchObject({ estado: 'executando' });
  await advance(c, 1);
  expect(ok(await c.api.get(path), 200)).toMatchObject({
    estado: 'concluida',
    fase: 'publicada',
    criada_em: iso(t0),
    iniciada_em: iso(t0 + MINUTE),
    terminada_em: iso(t0 + MINUTE + 10 * SECOND),
    codigo_falha: null,
    resumo: { produtos_avaliados: 2 },
  });
  const [event] = ok(await c.api.get('/v1/webhook/eventos'), 200).itens;
  expect(event).toMatchObject({ tipo: 'analise.concluida', ocorrido_em: iso(t0 + MINUTE + 10 * SECOND) });
});
