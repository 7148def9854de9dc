/**
 * Property: a stale ingestion never applies in part (docs/batch-ingestion.md, Apply).
 *
 * A random starting catalog and a random valid ingestion into catalog T are validated. Then, before the apply
 * request or while the ingestion is `aplicando`, one random concurrent change is made over the API:
 *
 *   relevant (the preview read it)               irrelevant
 *   - edit a product a record matched            - edit a product the ingestion does not read
 *   - edit a product the replacement unlinks     - create a product in O with an unrelated id_externo
 *   - create a product in T                      - link to O / unlink from O a product it does not read
 *   - link a product to T / unlink one from T    - nothing at all
 *   - link to O / unlink from O a product it reads
 *   - PATCH T; delete T
 *   - create a product in O with an id_externo the ingestion would create, or rename an unread
 *     product to such an id_externo
 *   - an ingestion into O, applied first, that changes   - such an ingestion changing a product it
 *     a product it reads or creates its new id_externo     does not read
 *
 * After the application's time:
 *   - relevant: the ingestion is revisao_necessaria (codigo_falha catalogo_alterado, no aplicacao), NOTHING is
 *     applied: every product, T and O are exactly as read right after the change; exactly one catalog event,
 *     catalogo.revisao_necessaria {catalogoId, ingestaoId, versaoValidada: the preview's versao_catalogo,
 *     versaoAtual: T's versao now}; T takes a new ingestion (unless deleted);
 *   - irrelevant: the ingestion is aplicada exactly as an independent model predicts from the state after the
 *     change (which gives the preview's own counts), T's versao moved once, one catalogo.aplicado.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROPERTY_TIMEOUT, runs, type Lab } from './support/lab.js';
import {
  allProducts,
  build,
  closeAndValidate,
  countsOf,
  eventDados,
  expectProducts,
  ingestionLab,
  itemOf,
  OPERACOES,
  ok,
  predict,
  recordExternalId,
  recordItem,
  recordSpecArb,
  seedProductArb,
  split,
  startIngestion,
  type Operacao,
  type ProductView,
  type RecordSpec,
  type SeedProduct,
} from './support/ingestion.js';
import type { Api } from '../support/client.js';

const CHANGES = [
  'none',
  'editMatched',
  'editRemoved',
  'editUnread',
  'createInCatalog',
  'linkToCatalog',
  'unlinkFromCatalog',
  'toggleOther',
  'patchCatalog',
  'deleteCatalog',
  'takeNewId',
  'renameToNewId',
  'createElsewhere',
  'otherIngestion',
] as const;
type ChangeKind = (typeof CHANGES)[number];

interface Case {
  readonly seed: readonly SeedProduct[];
  readonly operacao: Operacao;
  readonly records: readonly RecordSpec[];
  readonly parts: number;
  readonly change: ChangeKind;
  readonly pick: number;
  /** Make the change while the ingestion is aplicando (after the apply request) instead of before it (not for otherIngestion). */
  readonly whileApplying: boolean;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  seed: fc.array(seedProductArb, { minLength: 2, maxLength: 8 }),
  operacao: fc.constantFrom(...OPERACOES),
  records: fc.array(recordSpecArb(), { minLength: 1, maxLength: 8 }),
  parts: fc.integer({ min: 1, max: 2 }),
  change: fc.constantFrom(...CHANGES),
  pick: fc.nat(50),
  whileApplying: fc.boolean(),
});

const choose = <T>(list: readonly T[], pick: number): T | undefined =>
  list.length === 0 ? undefined : list[pick % list.length];

/**
 * Makes the change against the products as they are (`now`); whether the ingestion read what it changed,
 * or undefined when the change had no candidate (nothing was done).
 */
async function makeChange(
  l: Lab,
  api: Api,
  c: Case,
  t: { target: string; other: string },
  now: readonly ProductView[],
  matched: ReadonlySet<string>,
  removed: ReadonlySet<string>,
  creates: readonly string[],
): Promise<boolean | undefined> {
  const active = now.filter((p) => p.ativo);
  const read = (p: ProductView) => matched.has(p.id) || removed.has(p.id);
  const etagOf = async (id: string) => ok(await api.get(`/v1/produtos/${id}`), 'product').headers.get('etag')!;
  const edit = async (p: ProductView | undefined, body: Record<string, unknown>) => {
    if (!p) return false;
    ok(await api.patch(`/v1/produtos/${p.id}`, body, { ifMatch: await etagOf(p.id) }), 'edit');
    return true;
  };
  switch (c.change) {
    case 'none':
      return false;
    case 'editMatched':
      return (await edit(
        choose(
          active.filter((p) => matched.has(p.id)),
          c.pick,
        ),
        { descricao: 'Editada' },
      ))
        ? true
        : undefined;
    case 'editRemoved':
      return (await edit(
        choose(
          active.filter((p) => removed.has(p.id)),
          c.pick,
        ),
        { sku: 'S-editado' },
      ))
        ? true
        : undefined;
    case 'editUnread':
      return (await edit(
        choose(
          active.filter((p) => !read(p)),
          c.pick,
        ),
        { descricao: 'Editada', sku: null },
      ))
        ? false
        : undefined;
    case 'renameToNewId': {
      const idExterno = choose(creates, c.pick);
      if (idExterno === undefined) return undefined;
      return (await edit(
        choose(
          active.filter((p) => !read(p)),
          c.pick,
        ),
        { id_externo: idExterno },
      ))
        ? true
        : undefined;
    }
    case 'createInCatalog':
      ok(
        await api.post(`/v1/catalogos/${t.target}/produtos`, {
          origem: 'erp',
          ncm: '84713012',
          id_externo: 'CONCORRENTE',
        }),
        'create in T',
      );
      return true;
    case 'createElsewhere':
      ok(
        await api.post(`/v1/catalogos/${t.other}/produtos`, {
          origem: 'erp',
          ncm: '84713012',
          id_externo: 'CONCORRENTE',
        }),
        'create in O',
      );
      return false;
    case 'takeNewId': {
      const idExterno = choose(creates, c.pick);
      if (idExterno === undefined) return undefined;
      ok(
        await api.post(`/v1/catalogos/${t.other}/produtos`, { origem: 'erp', ncm: '84713012', id_externo: idExterno }),
        'create in O',
      );
      return true;
    }
    case 'linkToCatalog': {
      const p = choose(
        active.filter((x) => !x.catalogos.includes(t.target)),
        c.pick,
      );
      if (!p) return undefined;
      ok(await api.put(`/v1/catalogos/${t.target}/produtos/${p.id}`, {}, { ifMatch: await etagOf(p.id) }), 'link to T');
      return true;
    }
    case 'unlinkFromCatalog': {
      const p = choose(
        active.filter((x) => x.catalogos.includes(t.target)),
        c.pick,
      );
      if (!p) return undefined;
      ok(
        await api.delete(`/v1/catalogos/${t.target}/produtos/${p.id}`, {}, { ifMatch: await etagOf(p.id) }),
        'unlink from T',
      );
      return true;
    }
    case 'toggleOther': {
      const p = choose(active, c.pick);
      if (!p) return undefined;
      const etag = await etagOf(p.id);
      if (p.catalogos.includes(t.other))
        ok(await api.delete(`/v1/catalogos/${t.other}/produtos/${p.id}`, {}, { ifMatch: etag }), 'unlink from O');
      else ok(await api.put(`/v1/catalogos/${t.other}/produtos/${p.id}`, {}, { ifMatch: etag }), 'link to O');
      return read(p);
    }
    case 'patchCatalog': {
      const etag = ok(await api.get(`/v1/catalogos/${t.target}`), 'T').headers.get('etag')!;
      ok(await api.patch(`/v1/catalogos/${t.target}`, { nome: 'T renomeado' }, { ifMatch: etag }), 'patch T');
      return true;
    }
    case 'otherIngestion': {
      // A whole ingestion into O (mesclar), validated and applied: one record, for an existing product
      // (another descricao) or for an id_externo the ingestion into T would create.
      const candidates = [
        ...active.filter((p) => p.id_externo !== null).map((p) => ({ p })),
        ...creates.map((idExterno) => ({ idExterno })),
      ];
      const chosen = choose(candidates, c.pick);
      if (!chosen) return undefined;
      const item =
        'p' in chosen
          ? itemOf(chosen.p.id_externo!, { ...chosen.p, descricao: 'Outra ingestao' }, false)
          : itemOf(
              chosen.idExterno,
              { origem: 'erp', ncm: '84713012', sku: null, descricao: null, atributos: [] },
              false,
            );
      const id = await startIngestion(api, t.other, 'mesclar');
      ok(await api.put(`/v1/catalogos/ingestoes/${id}/lotes/1`, { itens: [item] }), 'batch into O');
      const validated = await closeAndValidate(l, api, id, 1);
      expect(validated.body.estado).toBe('validada');
      ok(
        await api.post(`/v1/catalogos/ingestoes/${id}/aplicacao`, {}, { ifMatch: validated.headers.get('etag')! }),
        'apply into O',
      );
      await l.controls.advance('1m');
      expect(ok(await api.get(`/v1/catalogos/ingestoes/${id}`), 'ingestion into O').body.estado).toBe('aplicada');
      return 'p' in chosen ? read(chosen.p) : true;
    }
    case 'deleteCatalog': {
      const preview = ok(await api.get(`/v1/catalogos/${t.target}/impacto-exclusao`), 'deletion preview');
      ok(await api.delete(`/v1/catalogos/${t.target}`, {}, { ifMatch: preview.headers.get('etag')! }), 'delete T');
      return true;
    }
  }
}

describe('stale ingestion', { timeout: PROPERTY_TIMEOUT }, () => {
  it('after a concurrent change the preview read, applies nothing (revisao_necessaria); after any other, applies as predicted', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const l = ingestionLab();
        const built = await build(l.api, l.company.headOffice.id, l.company.cnpjRoot, c.seed);
        const { api, target, other } = built;
        const before = await allProducts(api);

        const seen = new Set<string>();
        const items = c.records
          .filter((r) => {
            const idExterno = recordExternalId(c.seed, r);
            if (seen.has(idExterno)) return false;
            seen.add(idExterno);
            return true;
          })
          .map((r) => recordItem(c.seed, before, r));
        const predictedBefore = predict(before, target, c.operacao, items);
        const matched = new Set(before.filter((p) => p.id_externo !== null && seen.has(p.id_externo)).map((p) => p.id));
        const removed = new Set([...predictedBefore.read].filter((id) => !matched.has(id)));

        const id = await startIngestion(api, target, c.operacao);
        const batches = split(items, c.parts);
        for (const [i, itens] of batches.entries())
          expect((await api.put(`/v1/catalogos/ingestoes/${id}/lotes/${i + 1}`, { itens })).status).toBe(201);
        ok(await api.post(`/v1/catalogos/ingestoes/${id}/fechamento`, { total_lotes: batches.length }), 'close');
        await l.controls.advance('1m');
        const validated = ok(await api.get(`/v1/catalogos/ingestoes/${id}`), 'ingestion');
        expect(validated.body.estado).toBe('validada');
        const previa = validated.body.previa;
        expect(countsOf(previa)).toEqual(predictedBefore.counts);

        const apply = async () => {
          const answer = await api.post(
            `/v1/catalogos/ingestoes/${id}/aplicacao`,
            {},
            { ifMatch: validated.headers.get('etag')! },
          );
          expect(answer.status, answer.text).toBe(202);
        };
        // Another ingestion runs on the clock: it always completes before the apply request.
        const whileApplying = c.whileApplying && c.change !== 'otherIngestion';
        if (whileApplying) await apply();
        const relevant = await makeChange(l, api, c, built, before, matched, removed, [...predictedBefore.creates]);
        if (!whileApplying) await apply();

        // The state right after the change.
        const mid = await allProducts(api);
        const targetMid = ok(await api.get(`/v1/catalogos/${target}`), 'T').body;
        const otherMid = ok(await api.get(`/v1/catalogos/${other}`), 'O').body;
        const eventsMid = (await eventDados(api)).length;

        await l.controls.advance('1m');
        const ended = ok(await api.get(`/v1/catalogos/ingestoes/${id}`), 'ingestion').body;
        const raised = (await eventDados(api)).slice(eventsMid).filter((e) => String(e.tipo).startsWith('catalogo.'));

        if (relevant === true) {
          expect(ended).toMatchObject({
            estado: 'revisao_necessaria',
            codigo_falha: 'catalogo_alterado',
            aplicacao: null,
          });
          expect(ended.previa).toEqual(previa);
          expect(await allProducts(api)).toEqual(mid);
          expect(ok(await api.get(`/v1/catalogos/${target}`), 'T').body).toEqual(targetMid);
          expect(ok(await api.get(`/v1/catalogos/${other}`), 'O').body).toEqual(otherMid);
          expect(raised).toEqual([
            {
              tipo: 'catalogo.revisao_necessaria',
              catalogoId: target,
              ingestaoId: id,
              versaoValidada: previa.versao_catalogo,
              versaoAtual: targetMid.versao,
            },
          ]);
          if (targetMid.estado === 'ativo') await startIngestion(api, target, 'mesclar');
        } else {
          // Nothing the preview read moved: the model on the state after the change gives the preview's counts.
          const predicted = predict(mid, target, c.operacao, items);
          expect(countsOf(previa)).toEqual(predicted.counts);
          const versao = targetMid.versao + 1;
          expect(targetMid.versao).toBe(previa.versao_catalogo);
          expect(ended).toMatchObject({
            estado: 'aplicada',
            codigo_falha: null,
            aplicacao: { versao_catalogo: versao },
          });
          expectProducts(await allProducts(api), mid, predicted);
          expect(ok(await api.get(`/v1/catalogos/${target}`), 'T').body.versao).toBe(versao);
          expect(raised).toEqual([{ tipo: 'catalogo.aplicado', catalogoId: target, versao }]);
        }
      }),
      { numRuns: runs(300) },
    );
  });
});
