/**
 * Property: the catalog deletion preview predicts the deletion.
 *
 * Random companies: 1 to 3 catalogs (head office and branches), products created in one catalog and linked
 * to others (exclusive or shared), some then unlinked from their first catalog (active with no catalog, maybe
 * still selected), a random selection (accepted under a large capacity) in a random mode, then a random
 * capacity (often below the selection) and entitlement; sometimes another catalog deleted before. For a
 * random active catalog, GET /v1/catalogos/{id}/impacto-exclusao then DELETE with its ETag must:
 *
 *   - answer 200, and leave GET /v1/empresa/vigilancia exactly the preview's `depois` with the preview's
 *     modo, versao, capacidade and direito_ativo (its `antes` being that view before);
 *   - make produtos, exclusivos, compartilhados agree with the products read before (linked to the catalog;
 *     linked to it alone; linked elsewhere too), produtos_desativados the count of products that went from
 *     ativo to inactive (exactly the exclusive ones), selecoes_removidas the count of products that left the
 *     selection (mode selecao; 0 in mode todos), selecoes_adicionadas 0 (nothing joined it).
 *
 * A second property checks the coverage event of the same deletion against the preview: when `antes` is
 * degraded (capacidade_excedida or indisponivel) and `depois` is not, exactly one vigilancia.restabelecida
 * naming antes → depois with depois's selecionados; otherwise none (a deletion never degrades the coverage).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Answer } from '../support/client.js';
import { cnpjOfNumber } from '../support/cnpj.js';
import { lab, PROPERTY_TIMEOUT, runs, type Lab } from './support/lab.js';

interface PlannedProduct {
  /** The catalog it is created in (taken modulo the catalog count). */
  readonly home: number;
  /** Catalogs it is also linked to (index i: catalog i). */
  readonly also: readonly boolean[];
  /** Unlinked from its home catalog afterwards. */
  readonly dropHome: boolean;
  readonly selected: boolean;
}

interface Plan {
  readonly catalogs: number;
  readonly products: readonly PlannedProduct[];
  readonly modo: 'selecao' | 'todos';
  readonly capacity: number;
  readonly entitled: boolean;
  /** Delete the last catalog first (when there are two or more). */
  readonly deleteFirst: boolean;
  /** The catalog to delete, among the active ones (modulo their count). */
  readonly target: number;
}

const plannedProduct: fc.Arbitrary<PlannedProduct> = fc.record({
  home: fc.nat(2),
  also: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  dropHome: fc.boolean(),
  selected: fc.boolean(),
});

const plan: fc.Arbitrary<Plan> = fc.record({
  catalogs: fc.integer({ min: 1, max: 3 }),
  products: fc.array(plannedProduct, { maxLength: 8 }),
  modo: fc.constantFrom('selecao' as const, 'todos' as const),
  capacity: fc.nat(9),
  entitled: fc.boolean(),
  deleteFirst: fc.boolean(),
  target: fc.nat(2),
});

interface ProductView {
  id: string;
  ativo: boolean;
  catalogos: string[];
  versao: number;
}

function ok(answer: Answer, what: string): Answer {
  if (answer.status >= 300) throw new Error(`${what} answered ${answer.status}: ${answer.text}`);
  return answer;
}

const DEGRADED = new Set(['capacidade_excedida', 'indisponivel']);

/** The dados of the company's webhook events, oldest first. */
async function eventDados(l: Lab): Promise<Record<string, unknown>[]> {
  const list = ok(await l.api.get('/v1/webhook/eventos?limite=100'), 'events');
  const ids: string[] = list.body.itens.map((e: { id: string }) => e.id).reverse();
  return Promise.all(
    ids.map(async (id) => ok(await l.api.get(`/v1/webhook/eventos/${id}`), 'event').body.evento.dados),
  );
}

async function all(l: Lab, path: string): Promise<ProductView[]> {
  const answer = ok(await l.api.get(`${path}?limite=200`), path);
  expect(answer.body.proximo_cursor).toBeNull();
  return answer.body.itens;
}

/** Builds the plan's company; returns the lab and the id of the catalog to delete. */
async function build(p: Plan): Promise<{ l: Lab; target: string }> {
  const l = lab({}, { surveillanceCapacity: 1000 });
  // A webhook destination, so the coverage event of the deletion is recorded (spec: CONV-09: none without one).
  ok(
    await l.api.put('/v1/webhook', { url: 'https://hooks.example.com/eventos' }, { headers: { 'if-none-match': '*' } }),
    'webhook destination',
  );
  const catalogs: string[] = [];
  for (let i = 0; i < p.catalogs; i++) {
    let establishmentId = l.company.headOffice.id;
    if (i > 0) {
      establishmentId = ok(
        await l.api.post('/v1/estabelecimentos', {
          cnpj: cnpjOfNumber(l.company.cnpjRoot, i + 1),
          nome: `Filial ${i}`,
        }),
        'establishment',
      ).body.id;
    }
    catalogs.push(
      ok(await l.api.post('/v1/catalogos', { estabelecimento_id: establishmentId, nome: `C${i}` }), 'catalog').body.id,
    );
  }
  const selected: string[] = [];
  for (const [n, planned] of p.products.entries()) {
    const home = planned.home % p.catalogs;
    const created = ok(
      await l.api.post(`/v1/catalogos/${catalogs[home]}/produtos`, { origem: 'erp', ncm: '84713012', sku: `p${n}` }),
      'product',
    );
    let etag = created.headers.get('etag')!;
    for (let i = 0; i < p.catalogs; i++) {
      if (i === home || !planned.also[i]) continue;
      etag = ok(
        await l.api.put(`/v1/catalogos/${catalogs[i]}/produtos/${created.body.id}`, {}, { ifMatch: etag }),
        'link',
      ).headers.get('etag')!;
    }
    if (planned.dropHome)
      ok(
        await l.api.delete(`/v1/catalogos/${catalogs[home]}/produtos/${created.body.id}`, {}, { ifMatch: etag }),
        'unlink',
      );
    if (planned.selected) selected.push(created.body.id);
  }
  const view = ok(await l.api.get('/v1/empresa/vigilancia'), 'view');
  ok(
    await l.api.patch(
      '/v1/empresa/vigilancia',
      { modo: p.modo, adicionar: selected },
      { ifMatch: view.headers.get('etag')! },
    ),
    'selection',
  );
  let active = catalogs;
  if (p.deleteFirst && catalogs.length >= 2) {
    const last = catalogs[catalogs.length - 1]!;
    const first = ok(await l.api.get(`/v1/catalogos/${last}/impacto-exclusao`), 'first preview');
    ok(await l.api.delete(`/v1/catalogos/${last}`, {}, { ifMatch: first.headers.get('etag')! }), 'first deletion');
    active = catalogs.slice(0, -1);
  }
  l.emu.companies.update(l.company.companyId, { surveillanceCapacity: p.capacity, surveillanceEntitled: p.entitled });
  return { l, target: active[p.target % active.length]! };
}

describe('catalog deletion preview', { timeout: PROPERTY_TIMEOUT }, () => {
  it("the preview's depois equals the surveillance view right after the DELETE with that preview's ETag, and its counts match what happened", async () => {
    await fc.assert(
      fc.asyncProperty(plan, async (p) => {
        const { l, target } = await build(p);
        const viewBefore = ok(await l.api.get('/v1/empresa/vigilancia'), 'view before');
        const productsBefore = await all(l, '/v1/produtos');
        const watchedBefore = (await all(l, '/v1/empresa/vigilancia/produtos')).map((x) => x.id);

        const previewAnswer = ok(await l.api.get(`/v1/catalogos/${target}/impacto-exclusao`), 'preview');
        const preview = previewAnswer.body;
        const { modo, versao, capacidade, direito_ativo, antes, depois } = preview.vigilancia;
        const { modo: m0, versao: v0, capacidade: c0, direito_ativo: d0, ...countersBefore } = viewBefore.body;
        expect(antes).toEqual(countersBefore);
        expect({ modo, versao, capacidade, direito_ativo }).toEqual({
          modo: m0,
          versao: v0,
          capacidade: c0,
          direito_ativo: d0,
        });

        const answer = await l.api.delete(
          `/v1/catalogos/${target}`,
          {},
          { ifMatch: previewAnswer.headers.get('etag')! },
        );
        expect(answer.status, answer.text).toBe(200);
        expect(answer.body).toMatchObject({ id: target, estado: 'excluido', produtos: 0, versao: preview.versao + 1 });

        const viewAfter = ok(await l.api.get('/v1/empresa/vigilancia'), 'view after');
        expect(viewAfter.body).toEqual({ ...depois, modo, versao, capacidade, direito_ativo });
        expect(viewAfter.headers.get('etag')).toBe(viewBefore.headers.get('etag'));

        // The counts against the products read before and after.
        const linked = productsBefore.filter((x) => x.catalogos.includes(target));
        const exclusive = linked.filter((x) => x.catalogos.length === 1);
        expect(linked.every((x) => x.ativo)).toBe(true);
        expect({
          produtos: preview.produtos,
          exclusivos: preview.exclusivos,
          compartilhados: preview.compartilhados,
        }).toEqual({
          produtos: linked.length,
          exclusivos: exclusive.length,
          compartilhados: linked.length - exclusive.length,
        });
        const productsAfter = new Map((await all(l, '/v1/produtos')).map((x) => [x.id, x]));
        const deactivated = productsBefore.filter((x) => x.ativo && !productsAfter.get(x.id)!.ativo).map((x) => x.id);
        expect(preview.produtos_desativados).toBe(deactivated.length);
        expect(deactivated).toEqual(exclusive.map((x) => x.id));
        for (const before of productsBefore) {
          const after = productsAfter.get(before.id)!;
          if (before.catalogos.includes(target)) {
            expect(after).toMatchObject({
              versao: before.versao + 1,
              catalogos: before.catalogos.filter((c) => c !== target),
            });
          } else {
            expect(after).toEqual(before);
          }
        }

        const watchedAfter = (await all(l, '/v1/empresa/vigilancia/produtos')).map((x) => x.id);
        expect(preview.selecoes_adicionadas).toBe(0);
        if (modo === 'selecao') {
          const removed = watchedBefore.filter((id) => !watchedAfter.includes(id));
          expect(preview.selecoes_removidas).toBe(removed.length);
          expect(watchedAfter).toEqual(watchedBefore.filter((id) => !deactivated.includes(id)));
          expect(watchedAfter.length).toBe(depois.selecionados);
        } else {
          expect(preview.selecoes_removidas).toBe(0);
          const eligible = [...productsAfter.values()]
            .filter((x) => x.ativo && x.catalogos.length > 0)
            .map((x) => x.id);
          expect(watchedAfter).toEqual(eligible);
          expect(watchedAfter.length).toBe(depois.selecionados);
        }
      }),
      { numRuns: runs(300) },
    );
  });

  it("the coverage event of the deletion names the preview's antes and depois coverage and depois's selecionados", async () => {
    await fc.assert(
      fc.asyncProperty(plan, async (p) => {
        const { l, target } = await build(p);
        const eventsBefore = await eventDados(l);
        const previewAnswer = ok(await l.api.get(`/v1/catalogos/${target}/impacto-exclusao`), 'preview');
        const { capacidade, antes, depois } = previewAnswer.body.vigilancia;
        ok(
          await l.api.delete(`/v1/catalogos/${target}`, {}, { ifMatch: previewAnswer.headers.get('etag')! }),
          'deletion',
        );
        const raised = (await eventDados(l)).slice(eventsBefore.length);
        const expected =
          DEGRADED.has(antes.cobertura) && !DEGRADED.has(depois.cobertura)
            ? [
                {
                  tipo: 'vigilancia.restabelecida',
                  cobertura: depois.cobertura,
                  coberturaAnterior: antes.cobertura,
                  selecionados: depois.selecionados,
                  capacidade,
                },
              ]
            : [];
        expect(raised).toEqual(expected);
      }),
      { numRuns: runs(200) },
    );
  });
});
