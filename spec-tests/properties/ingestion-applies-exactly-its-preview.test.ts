/**
 * Property: an ingestion applies exactly what its preview says (docs/batch-ingestion.md).
 *
 * From a random starting catalog (products in the target catalog T only, shared with another catalog O, in O
 * only, inactive, active with no catalog, some without id_externo, some selected for surveillance), a random
 * ingestion of valid records (new ones, changed, unchanged, for inactive products, for products of O), with a
 * random operacao, is validated on the clock and applied. An independent model, run on the products read
 * before, predicts the result; afterwards:
 *
 *   - the preview's counts are the model's, against T's versao before; the validation ran 1 s + 1 ms per
 *     record after the close, the application 1 s + 1 ms per record after the request;
 *   - every product of the company is as the model says (fields, ativo, catalogos in link order, versao moved
 *     once for each changed product, untouched otherwise), plus exactly the created ones;
 *   - T lists exactly the products the model links to it, its versao moved exactly once; O is untouched;
 *   - the surveillance selection lost exactly the deactivated products, and the counters agree with the
 *     products (cadastrados = active, elegiveis = active with a catalog);
 *   - the ingestion is aplicada with aplicacao.versao_catalogo = T's new versao, and exactly one catalog event
 *     was raised: catalogo.aplicado {catalogoId: T, versao: that versao}.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROPERTY_TIMEOUT, runs } from './support/lab.js';
import {
  allProducts,
  build,
  catalogProductIds,
  countsOf,
  eventDados,
  expectProducts,
  ingestionLab,
  OPERACOES,
  ok,
  predict,
  recordExternalId,
  recordItem,
  recordSpecArb,
  seedArb,
  split,
  startIngestion,
  watchedIds,
  type Operacao,
  type RecordSpec,
  type SeedProduct,
} from './support/ingestion.js';

interface Case {
  readonly seed: readonly SeedProduct[];
  readonly operacao: Operacao;
  readonly records: readonly RecordSpec[];
  readonly parts: number;
  /** Send the batches in reverse number order. */
  readonly reverse: boolean;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  seed: seedArb,
  operacao: fc.constantFrom(...OPERACOES),
  records: fc.array(recordSpecArb(), { minLength: 1, maxLength: 10 }),
  parts: fc.integer({ min: 1, max: 3 }),
  reverse: fc.boolean(),
});

describe('ingestion application', { timeout: PROPERTY_TIMEOUT }, () => {
  it('changes the catalog, its products and the selection exactly as the preview (and an independent model) predict', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const l = ingestionLab();
        const { api, target, other } = await build(l.api, l.company.headOffice.id, l.company.cnpjRoot, c.seed);
        const before = await allProducts(api);
        const targetBefore = ok(await api.get(`/v1/catalogos/${target}`), 'T').body;
        const otherBefore = ok(await api.get(`/v1/catalogos/${other}`), 'O').body;
        const watchedBefore = await watchedIds(api);
        const eventsBefore = (await eventDados(api)).length;

        // One record per id_externo (the first spec naming it).
        const seen = new Set<string>();
        const specs = c.records.filter((r) => {
          const idExterno = recordExternalId(c.seed, r);
          if (seen.has(idExterno)) return false;
          seen.add(idExterno);
          return true;
        });
        const items = specs.map((r) => recordItem(c.seed, before, r));
        const predicted = predict(before, target, c.operacao, items);

        const id = await startIngestion(api, target, c.operacao);
        const batches = split(items, c.parts).map((itens, i) => ({ numero: i + 1, itens }));
        for (const b of c.reverse ? [...batches].reverse() : batches) {
          const answer = await api.put(`/v1/catalogos/ingestoes/${id}/lotes/${b.numero}`, { itens: b.itens });
          expect(answer.status, answer.text).toBe(201);
          expect(answer.body).toEqual({
            ingestao_id: id,
            numero: b.numero,
            itens: b.itens.length,
            repetido: false,
            erros: [],
          });
        }

        // Validation: 1 s + 1 ms per record after the close.
        const closed = await api.post(`/v1/catalogos/ingestoes/${id}/fechamento`, { total_lotes: batches.length });
        expect(closed.status, closed.text).toBe(202);
        await l.controls.advance(1000 + items.length - 1);
        expect(ok(await api.get(`/v1/catalogos/ingestoes/${id}`), 'ingestion').body.estado).toBe('validando');
        await l.controls.advance(1);
        const validated = ok(await api.get(`/v1/catalogos/ingestoes/${id}`), 'ingestion');
        expect(validated.body).toMatchObject({
          estado: 'validada',
          codigo_falha: null,
          itens_recebidos: items.length,
          total_lotes: batches.length,
        });
        const previa = validated.body.previa;
        expect(countsOf(previa)).toEqual(predicted.counts);
        expect(previa).toMatchObject({
          versao_catalogo: targetBefore.versao,
          lotes_faltantes: [],
          total_erros: 0,
          erros: [],
          proximo_cursor: null,
        });

        // Application: 1 s + 1 ms per record after the request.
        const applying = await api.post(
          `/v1/catalogos/ingestoes/${id}/aplicacao`,
          {},
          { ifMatch: validated.headers.get('etag')! },
        );
        expect(applying.status, applying.text).toBe(202);
        expect(applying.body.estado).toBe('aplicando');
        await l.controls.advance(1000 + items.length - 1);
        expect(ok(await api.get(`/v1/catalogos/ingestoes/${id}`), 'ingestion').body.estado).toBe('aplicando');
        expect(await allProducts(api)).toEqual(before);
        await l.controls.advance(1);

        const applied = ok(await api.get(`/v1/catalogos/ingestoes/${id}`), 'ingestion').body;
        const versao = targetBefore.versao + 1;
        expect(applied).toMatchObject({
          estado: 'aplicada',
          codigo_falha: null,
          aplicacao: { versao_catalogo: versao },
        });
        expect(applied.previa).toEqual(previa);

        const after = await allProducts(api);
        expectProducts(after, before, predicted);

        const linked = after.filter((p) => p.catalogos.includes(target)).map((p) => p.id);
        expect(new Set(await catalogProductIds(api, target))).toEqual(new Set(linked));
        const { atualizado_em: _t, ...targetAfter } = ok(await api.get(`/v1/catalogos/${target}`), 'T').body;
        const { atualizado_em: _t0, ...targetRest } = targetBefore;
        expect(targetAfter).toEqual({ ...targetRest, versao, produtos: linked.length });
        expect(ok(await api.get(`/v1/catalogos/${other}`), 'O').body).toEqual(otherBefore);

        const watchedAfter = await watchedIds(api);
        expect(watchedAfter).toEqual(watchedBefore.filter((w) => !predicted.deactivated.includes(w)));
        const view = ok(await api.get('/v1/empresa/vigilancia'), 'surveillance').body;
        expect({ cadastrados: view.cadastrados, elegiveis: view.elegiveis, selecionados: view.selecionados }).toEqual({
          cadastrados: after.filter((p) => p.ativo).length,
          elegiveis: after.filter((p) => p.ativo && p.catalogos.length > 0).length,
          selecionados: watchedAfter.length,
        });

        const raised = (await eventDados(api)).slice(eventsBefore);
        expect(raised.filter((e) => String(e.tipo).startsWith('catalogo.'))).toEqual([
          { tipo: 'catalogo.aplicado', catalogoId: target, versao },
        ]);
      }),
      { numRuns: runs(150) },
    );
  });
});
