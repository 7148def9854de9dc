/**
 * The daily surveillance execution on the company's own clock: the schedule runs every 24 h from the instant the
 * company's clock started, so a company watching a product gets its `agendada` execution at exactly start + 24 h
 * (pendente), executando 1 min later, concluida 10 s after that, and the next one a day later.
 */
import { expect, it } from 'vitest';
import { headOfficeCatalog, NCM } from '../support/client.js';
import { productsPath } from '../support/fixtures.js';
import {
  advance,
  advanceToOffset,
  DAY,
  HOUR,
  iso,
  MINUTE,
  ok,
  ownCompany,
  SECOND,
  type OwnCompany,
} from './support.js';

const VIGILANCIAS = '/v1/vigilancias';

async function executions(c: OwnCompany): Promise<{ id: string; estado: string; fase: string; criada_em: string }[]> {
  return ok(await c.api.get(VIGILANCIAS), 200).itens;
}

it("opens the agendada execution at the company clock's next day, starts it 1 min later and concludes it 10 s after", async () => {
  const c = await ownCompany('61000600');
  const catalog = await headOfficeCatalog(c);
  await advance(c, 6 * HOUR);
  const product = ok(
    await c.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM, descricao: 'Vigiado' }),
    201,
  );
  const selection = await c.api.get('/v1/empresa/vigilancia');
  ok(
    await c.api.patch(
      '/v1/empresa/vigilancia',
      { modo: 'selecao', adicionar: [product.id], remover: [] },
      { ifMatch: selection.headers.get('etag')! },
    ),
    200,
  );

  const day = c.start + DAY;
  await advanceToOffset(c, DAY - 1);
  expect(await executions(c)).toEqual([]);
  await advance(c, 1);
  const [opened] = await executions(c);
  expect(opened).toEqual({
    id: expect.any(String),
    estado: 'pendente',
    fase: 'na_fila',
    criada_em: iso(day),
    resultado_disponivel: false,
  });
  const path = `${VIGILANCIAS}/${opened!.id}`;
  expect(ok(await c.api.get(path), 200)).toMatchObject({ motivo: 'agendada', iniciada_em: null, terminada_em: null });

  await advance(c, MINUTE - 1);
  expect(ok(await c.api.get(path), 200)).toMatchObject({ estado: 'pendente', iniciada_em: null });
  await advance(c, 1);
  expect(ok(await c.api.get(path), 200)).toMatchObject({
    estado: 'executando',
    fase: 'avaliando',
    iniciada_em: iso(day + MINUTE),
    terminada_em: null,
  });
  await advance(c, 10 * SECOND - 1);
  expect(ok(await c.api.get(path), 200)).toMatchObject({ estado: 'executando' });
  await advance(c, 1);
  expect(ok(await c.api.get(path), 200)).toMatchObject({
    estado: 'concluida',
    fase: 'publicada',
    resultado_disponivel: true,
    motivo: 'agendada',
    iniciada_em: iso(day + MINUTE),
    terminada_em: iso(day + MINUTE + 10 * SECOND),
    codigo_falha: null,
    resumo: { produtos_avaliados: 1 },
  });

  await advanceToOffset(c, 2 * DAY + MINUTE + 10 * SECOND);
  const [second, first] = await executions(c);
  expect(first!.id).toBe(opened!.id);
  expect(second).toMatchObject({ estado: 'concluida', criada_em: iso(day + DAY) });
  expect(ok(await c.api.get(`${VIGILANCIAS}/${second!.id}`), 200)).toMatchObject({
    motivo: 'agendada',
    iniciada_em: iso(day + DAY + MINUTE),
    terminada_em: iso(day + DAY + MINUTE + 10 * SECOND),
  });
});
