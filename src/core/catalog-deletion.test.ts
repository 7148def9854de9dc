/**
 * The pure core of catalog deletion (src/core/catalog-deletion.ts): the preview's figures and what its ETag
 * covers, the refusals of DELETE in order (404 → 428 → 412 → 409) leaving the state as it was, and the
 * deletion's effects on the catalog, its links, its products, the establishment, the selection's counters
 * and the coverage events.
 */
import { describe, expect, it } from 'vitest';
import { deleteCatalog, previewDeletion, type DeletionPreview } from './catalog-deletion.js';
import { catalogEtag, createCatalog, editCatalog, type Catalog } from './catalogs.js';
import { createCompany, updateCompany } from './companies.js';
import { registerEstablishment } from './establishments.js';
import { createProduct, editProduct, linkProduct, productEtag, unlinkProduct, type Product } from './products.js';
import { createRandom, seedRandom } from './random.js';
import { indexesOf, linksOf, type Context } from './state.js';
import { createState } from './slices.js';
import {
  changeSelection,
  countsOf,
  surveillanceEtag,
  surveillanceOf,
  viewSurveillance,
  type SelectionChange,
} from './surveillance.js';
import { T0, CORE_CONFIG, ROOT, OTHER_ROOT, cnpj, configureWebhook, expectRefusal, unwrap } from './testing/support.js';

const T1 = T0 + 5 * 60_000;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/**
 * Catalog A (head office): exclusive e1, e2, e3 and s1, s2 shared with catalog B (a branch), which also has
 * its own b1. Selected (mode selecao): e1, s1, b1.
 */
function setup(capacity = 3) {
  const state = createState();
  const random = createRandom(seedRandom(7));
  const ctx = (now = T0): Context => ({ now, random, config: CORE_CONFIG });
  const created = unwrap(createCompany(state, { cnpjRoot: ROOT, surveillanceCapacity: capacity }, ctx()));
  const companyId = created.company.id;
  const branch = unwrap(registerEstablishment(state, companyId, { cnpj: cnpj(ROOT, '0002'), nome: 'Filial' }, ctx()));
  const a = unwrap(createCatalog(state, companyId, { establishmentId: created.headOffice.id, nome: 'A' }, ctx()));
  const b = unwrap(createCatalog(state, companyId, { establishmentId: branch.id, nome: 'B' }, ctx()));
  const make = (catalog: Catalog, sku: string) =>
    unwrap(createProduct(state, companyId, catalog.id, { origem: 'erp', ncm: '84713012', sku }, ctx())).id;
  const p = { e1: make(a, 'e1'), e2: make(a, 'e2'), e3: make(a, 'e3'), s1: make(a, 's1'), s2: make(a, 's2'), b1: '' };
  const product = (id: string): Product => state.products.get(id)!;
  const link = (catalogId: string, id: string, now = T0) =>
    unwrap(linkProduct(state, companyId, catalogId, id, [productEtag(product(id))], ctx(now)));
  link(b.id, p.s1);
  link(b.id, p.s2);
  p.b1 = make(b, 'b1');
  const select = (change: Partial<SelectionChange>) =>
    unwrap(
      changeSelection(
        state,
        companyId,
        [surveillanceEtag(surveillanceOf(state, companyId))],
        { modo: 'selecao', adicionar: [], remover: [], ...change },
        ctx(),
      ),
    );
  select({ adicionar: [p.e1, p.s1, p.b1] });
  state.outbox.length = 0;
  return {
    state,
    ctx,
    companyId,
    headOffice: created.headOffice.id,
    branch: branch.id,
    a: a.id,
    b: b.id,
    p,
    product,
    link,
    select,
    catalog: (id: string): Catalog => state.catalogs.get(id)!,
    preview: (id = a.id) => unwrap(previewDeletion(state, companyId, id)),
  };
}
type Setup = ReturnType<typeof setup>;

/** Everything a refusal (or a preview) must leave alone. */
function fingerprint(w: Setup): string {
  const s = surveillanceOf(w.state, w.companyId);
  const indexes = indexesOf(w.state, w.companyId);
  return JSON.stringify({
    catalogs: [...w.state.catalogs.values()],
    products: [...w.state.products.values()],
    establishments: [...w.state.establishments.values()],
    companies: [...w.state.companies.values()],
    links: [...indexes.catalogProducts.entries()].map(([id, links]) => [id, links.entries()]),
    selection: {
      modo: s.modo,
      versao: s.versao,
      selected: s.selected.entries(),
      active: s.active,
      eligible: s.eligible,
      selectedEligible: s.selectedEligible,
      lastCoverage: s.lastCoverage,
    },
    events: [...w.state.webhookEvents.values()],
    outbox: w.state.outbox,
    sequence: w.state.sequence,
  });
}

const viewNow = (w: Setup) =>
  viewSurveillance(countsOf(surveillanceOf(w.state, w.companyId)), w.state.companies.get(w.companyId)!);

const eventTypes = (w: Setup) => [...w.state.webhookEvents.values()].map((e) => JSON.parse(e.body).dados);

describe('previewDeletion', () => {
  it('counts exclusive and shared products, the selected exclusive ones, and projects the counters', () => {
    const w = setup();
    const { preview, etag } = w.preview();
    expect(preview).toEqual<DeletionPreview>({
      catalogo_id: w.a,
      versao: 6,
      produtos: 5,
      exclusivos: 3,
      compartilhados: 2,
      produtos_desativados: 3,
      selecoes_removidas: 1,
      selecoes_adicionadas: 0,
      vigilancia: {
        modo: 'selecao',
        versao: 2,
        capacidade: 3,
        direito_ativo: true,
        antes: { cadastrados: 6, selecionados: 3, elegiveis: 6, vagas: 0, cobertura: 'parcial', exige_selecao: true },
        depois: { cadastrados: 3, selecionados: 2, elegiveis: 3, vagas: 1, cobertura: 'parcial', exige_selecao: false },
      },
    });
    expect(etag).toMatch(/^"x[0-9a-f]{16}"$/);
    expect(etag).not.toBe(catalogEtag(w.catalog(w.a)));
  });

  it("gives antes exactly the live view's counters", () => {
    const w = setup(50);
    const { cadastrados, selecionados, elegiveis, vagas, cobertura, exige_selecao } = viewNow(w);
    expect(w.preview().preview.vigilancia.antes).toEqual({
      cadastrados,
      selecionados,
      elegiveis,
      vagas,
      cobertura,
      exige_selecao,
    });
  });

  it('changes nothing and answers the same preview and ETag twice', () => {
    const w = setup();
    const before = fingerprint(w);
    const first = w.preview();
    const second = w.preview();
    expect(second).toEqual(first);
    expect(fingerprint(w)).toBe(before);
  });

  it('in mode todos counts no selection removed', () => {
    const w = setup(6);
    configureWebhook(w.state, w.companyId, w.ctx()); // events are recorded only against a destination
    w.select({ modo: 'todos' });
    const { preview } = w.preview();
    expect(preview.selecoes_removidas).toBe(0);
    expect(preview.vigilancia.antes).toMatchObject({ selecionados: 6, cobertura: 'integral' });
    expect(preview.vigilancia.depois).toMatchObject({ selecionados: 3, elegiveis: 3, cobertura: 'integral' });
  });

  it("refuses an unknown or another company's catalog with not_found catalogo_nao_encontrado at path.id", () => {
    const w = setup();
    expectRefusal(previewDeletion(w.state, w.companyId, UNKNOWN_ID), 'not_found', 'catalogo_nao_encontrado', 'path.id');
    const other = unwrap(createCompany(w.state, { cnpjRoot: OTHER_ROOT }, w.ctx()));
    const theirs = unwrap(
      createCatalog(w.state, other.company.id, { establishmentId: other.headOffice.id, nome: 'X' }, w.ctx()),
    );
    expectRefusal(previewDeletion(w.state, w.companyId, theirs.id), 'not_found', 'catalogo_nao_encontrado', 'path.id');
  });

  it('refuses a deleted catalog with not_found catalogo_excluido: there is no deletion to preview', () => {
    const w = setup();
    unwrap(deleteCatalog(w.state, w.companyId, w.a, [w.preview().etag], w.ctx(T1)));
    expectRefusal(previewDeletion(w.state, w.companyId, w.a), 'not_found', 'catalogo_excluido', 'path.id');
  });

  describe('its ETag changes with each thing it depends on', () => {
    const causes: [string, (w: Setup) => void][] = [
      ['a product of the catalog linked to another catalog', (w) => w.link(w.b, w.p.e1)],
      [
        'a shared product linked to a third catalog',
        (w) => {
          const third = unwrap(
            registerEstablishment(w.state, w.companyId, { cnpj: cnpj(ROOT, '0003'), nome: 'Outra' }, w.ctx()),
          );
          const c = unwrap(createCatalog(w.state, w.companyId, { establishmentId: third.id, nome: 'C' }, w.ctx()));
          w.link(c.id, w.p.s1);
        },
      ],
      [
        'a shared product unlinked from its other catalog',
        (w) => unwrap(unlinkProduct(w.state, w.companyId, w.b, w.p.s1, [productEtag(w.product(w.p.s1))], w.ctx())),
      ],
      [
        'an edit of a linked product',
        (w) =>
          unwrap(editProduct(w.state, w.companyId, w.p.e2, [productEtag(w.product(w.p.e2))], { sku: 'novo' }, w.ctx())),
      ],
      ['a selection change of no product (versao only)', (w) => w.select({})],
      [
        'a selection change swapping an exclusive product for another',
        (w) => w.select({ adicionar: [w.p.e2], remover: [w.p.e1] }),
      ],
      ['a capacity change', (w) => unwrap(updateCompany(w.state, w.companyId, { surveillanceCapacity: 9 }, w.ctx()))],
      [
        'an entitlement change',
        (w) => unwrap(updateCompany(w.state, w.companyId, { surveillanceEntitled: false }, w.ctx())),
      ],
      [
        'a product created in another catalog',
        (w) => unwrap(createProduct(w.state, w.companyId, w.b, { origem: 'erp', ncm: '84713012' }, w.ctx())),
      ],
      [
        'a product created in the catalog',
        (w) => unwrap(createProduct(w.state, w.companyId, w.a, { origem: 'erp', ncm: '84713012' }, w.ctx())),
      ],
      [
        'an edit of the catalog',
        (w) => unwrap(editCatalog(w.state, w.companyId, w.a, [catalogEtag(w.catalog(w.a))], { nome: 'A2' }, w.ctx())),
      ],
    ];
    for (const [name, act] of causes) {
      it(name, () => {
        const w = setup();
        const before = w.preview().etag;
        act(w);
        const after = w.preview().etag;
        expect(after).not.toBe(before);
        expectRefusal(
          deleteCatalog(w.state, w.companyId, w.a, [before], w.ctx(T1)),
          'precondition_failed',
          'precondicao_falhou',
          'header.if-match',
        );
      });
    }

    it('but not with the time alone or an edit of a product not linked to the catalog', () => {
      const w = setup();
      const before = w.preview();
      unwrap(
        editProduct(w.state, w.companyId, w.p.b1, [productEtag(w.product(w.p.b1))], { sku: 'b1-novo' }, w.ctx(T1)),
      );
      expect(w.preview()).toEqual(before);
    });
  });
});

describe('deleteCatalog', () => {
  it('refuses without If-Match: precondition_required precondicao_ausente at header.if-match, changing nothing', () => {
    const w = setup();
    const before = fingerprint(w);
    expectRefusal(
      deleteCatalog(w.state, w.companyId, w.a, undefined, w.ctx(T1)),
      'precondition_required',
      'precondicao_ausente',
      'header.if-match',
    );
    expect(fingerprint(w)).toBe(before);
  });

  it("refuses a stale preview ETag, the catalog's own ETag and an empty list with precondicao_falhou, changing nothing", () => {
    const w = setup();
    const stale = w.preview().etag;
    unwrap(
      editProduct(w.state, w.companyId, w.p.s2, [productEtag(w.product(w.p.s2))], { descricao: 'mudou' }, w.ctx()),
    );
    const before = fingerprint(w);
    for (const ifMatch of [[stale], [catalogEtag(w.catalog(w.a))], [], ['"x0000000000000000"']]) {
      expectRefusal(
        deleteCatalog(w.state, w.companyId, w.a, ifMatch, w.ctx(T1)),
        'precondition_failed',
        'precondicao_falhou',
        'header.if-match',
      );
    }
    expect(fingerprint(w)).toBe(before);
  });

  it('accepts the current preview ETag among others in If-Match', () => {
    const w = setup();
    const { etag } = w.preview();
    expect(deleteCatalog(w.state, w.companyId, w.a, ['"nope"', etag], w.ctx(T1)).ok).toBe(true);
  });

  it("refuses an unknown or another company's catalog with not_found before the precondition", () => {
    const w = setup();
    expectRefusal(
      deleteCatalog(w.state, w.companyId, UNKNOWN_ID, undefined, w.ctx(T1)),
      'not_found',
      'catalogo_nao_encontrado',
      'path.id',
    );
    const other = unwrap(createCompany(w.state, { cnpjRoot: OTHER_ROOT }, w.ctx()));
    const theirs = unwrap(
      createCatalog(w.state, other.company.id, { establishmentId: other.headOffice.id, nome: 'X' }, w.ctx()),
    );
    const theirEtag = unwrap(previewDeletion(w.state, other.company.id, theirs.id)).etag;
    expectRefusal(
      deleteCatalog(w.state, w.companyId, theirs.id, [theirEtag], w.ctx(T1)),
      'not_found',
      'catalogo_nao_encontrado',
      'path.id',
    );
    expect(w.catalog(theirs.id).estado).toBe('ativo');
  });

  it('deletes: catalog excluido (excluidoEm and atualizadoEm now, versao + 1), no links, establishment freed', () => {
    const w = setup();
    const catalogBefore = w.catalog(w.a);
    const establishmentBefore = w.state.establishments.get(w.headOffice)!;
    const deleted = unwrap(deleteCatalog(w.state, w.companyId, w.a, [w.preview().etag], w.ctx(T1)));
    expect(deleted).toEqual({
      ...catalogBefore,
      estado: 'excluido',
      excluidoEm: T1,
      atualizadoEm: T1,
      versao: catalogBefore.versao + 1,
    });
    expect(w.catalog(w.a)).toEqual(deleted);
    expect(linksOf(w.state, w.companyId, w.a).size).toBe(0);
    expect(w.state.establishments.get(w.headOffice)).toEqual({
      ...establishmentBefore,
      catalogoId: null,
      versao: establishmentBefore.versao + 1,
      atualizadoEm: T1,
    });
    // A new catalog for the establishment is accepted.
    const fresh = unwrap(
      createCatalog(w.state, w.companyId, { establishmentId: w.headOffice, nome: 'Nova' }, w.ctx(T1)),
    );
    expect(w.state.establishments.get(w.headOffice)!.catalogoId).toBe(fresh.id);
  });

  it('deactivates exclusive products, unlinks shared ones (each versao + 1), and leaves the other catalog alone', () => {
    const w = setup();
    const before = Object.fromEntries(Object.entries(w.p).map(([name, id]) => [name, w.product(id)]));
    const otherCatalog = w.catalog(w.b);
    unwrap(deleteCatalog(w.state, w.companyId, w.a, [w.preview().etag], w.ctx(T1)));
    for (const name of ['e1', 'e2', 'e3']) {
      const was = before[name]!;
      expect(w.product(was.id)).toEqual({
        ...was,
        ativo: false,
        catalogos: [],
        versao: was.versao + 1,
        atualizadoEm: T1,
      });
    }
    for (const name of ['s1', 's2']) {
      const was = before[name]!;
      expect(w.product(was.id)).toEqual({
        ...was,
        ativo: true,
        catalogos: [w.b],
        versao: was.versao + 1,
        atualizadoEm: T1,
      });
    }
    expect(w.product(w.p.b1)).toEqual(before.b1);
    expect(w.catalog(w.b)).toEqual(otherCatalog);
    expect([...linksOf(w.state, w.companyId, w.b).after()].map(([id]) => id)).toEqual([w.p.s1, w.p.s2, w.p.b1]);
  });

  it("leaves the counters at the preview's depois, the selection without the exclusive products, its versao and ETag unchanged", () => {
    const w = setup();
    const { preview, etag } = w.preview();
    const s = surveillanceOf(w.state, w.companyId);
    const selectionEtag = surveillanceEtag(s);
    unwrap(deleteCatalog(w.state, w.companyId, w.a, [etag], w.ctx(T1)));
    const { modo, versao, capacidade, direito_ativo, depois } = preview.vigilancia;
    expect(viewNow(w)).toEqual({ ...depois, modo, versao, capacidade, direito_ativo });
    expect(s.selected.entries().map(([id]) => id)).toEqual([w.p.s1, w.p.b1]);
    expect(surveillanceEtag(s)).toBe(selectionEtag);
    // The maintained counters agree with a recount.
    const products = [...w.state.products.values()].filter((p) => p.companyId === w.companyId);
    expect(s.active).toBe(products.filter((p) => p.ativo).length);
    expect(s.eligible).toBe(products.filter((p) => p.ativo && p.catalogos.length > 0).length);
    expect(s.selectedEligible).toBe(
      products.filter((p) => s.selected.has(p.id) && p.ativo && p.catalogos.length > 0).length,
    );
  });

  it('refuses a deleted catalog: precondition_required without If-Match, else conflict catalogo_excluido, changing nothing', () => {
    const w = setup();
    const { etag } = w.preview();
    const deleted = unwrap(deleteCatalog(w.state, w.companyId, w.a, [etag], w.ctx(T1)));
    const before = fingerprint(w);
    expectRefusal(
      deleteCatalog(w.state, w.companyId, w.a, undefined, w.ctx(T1)),
      'precondition_required',
      'precondicao_ausente',
      'header.if-match',
    );
    expectRefusal(deleteCatalog(w.state, w.companyId, w.a, [etag], w.ctx(T1)), 'conflict', 'catalogo_excluido');
    expectRefusal(
      deleteCatalog(w.state, w.companyId, w.a, [catalogEtag(deleted)], w.ctx(T1)),
      'conflict',
      'catalogo_excluido',
    );
    expect(fingerprint(w)).toBe(before);
  });

  it('deletes the other catalog next: products once shared are now exclusive and deactivated', () => {
    const w = setup();
    unwrap(deleteCatalog(w.state, w.companyId, w.a, [w.preview().etag], w.ctx(T1)));
    const { preview, etag } = w.preview(w.b);
    expect(preview).toMatchObject({
      produtos: 3,
      exclusivos: 3,
      compartilhados: 0,
      produtos_desativados: 3,
      selecoes_removidas: 2,
    });
    expect(preview.vigilancia.depois).toEqual({
      cadastrados: 0,
      selecionados: 0,
      elegiveis: 0,
      vagas: 3,
      cobertura: 'sem_selecao',
      exige_selecao: false,
    });
    unwrap(deleteCatalog(w.state, w.companyId, w.b, [etag], w.ctx(T1)));
    const { modo, versao, capacidade, direito_ativo, depois } = preview.vigilancia;
    expect(viewNow(w)).toEqual({ ...depois, modo, versao, capacidade, direito_ativo });
    expect([...w.state.products.values()].every((p) => !p.ativo && p.catalogos.length === 0)).toBe(true);
  });

  it('keeps a selected product that has no catalog out of the figures and in the selection', () => {
    const w = setup(10);
    const loose = unwrap(createProduct(w.state, w.companyId, w.a, { origem: 'erp', ncm: '84713012' }, w.ctx())).id;
    w.select({ adicionar: [loose] });
    unwrap(unlinkProduct(w.state, w.companyId, w.a, loose, [productEtag(w.product(loose))], w.ctx()));
    const { preview, etag } = w.preview();
    expect(preview).toMatchObject({ produtos: 5, exclusivos: 3, selecoes_removidas: 1 });
    unwrap(deleteCatalog(w.state, w.companyId, w.a, [etag], w.ctx(T1)));
    expect(w.product(loose)).toMatchObject({ ativo: true, catalogos: [] });
    expect(surveillanceOf(w.state, w.companyId).selected.has(loose)).toBe(true);
    const { modo, versao, capacidade, direito_ativo, depois } = preview.vigilancia;
    expect(viewNow(w)).toEqual({ ...depois, modo, versao, capacidade, direito_ativo });
  });

  it('raises vigilancia.restabelecida once, with the figures after the deletion, when it takes the coverage out of capacidade_excedida', () => {
    const w = setup(6);
    configureWebhook(w.state, w.companyId, w.ctx()); // events are recorded only against a destination
    w.select({ modo: 'todos' });
    unwrap(updateCompany(w.state, w.companyId, { surveillanceCapacity: 4 }, w.ctx()));
    expect(eventTypes(w).map((d) => d.tipo)).toEqual(['vigilancia.degradada']);
    unwrap(deleteCatalog(w.state, w.companyId, w.a, [w.preview().etag], w.ctx(T1)));
    expect(eventTypes(w)).toEqual([
      {
        tipo: 'vigilancia.degradada',
        cobertura: 'capacidade_excedida',
        coberturaAnterior: 'integral',
        selecionados: 6,
        capacidade: 4,
      },
      {
        tipo: 'vigilancia.restabelecida',
        cobertura: 'integral',
        coberturaAnterior: 'capacidade_excedida',
        selecionados: 3,
        capacidade: 4,
      },
    ]);
  });

  it('reports the final coverage in the event, not one passed through while unlinking product by product', () => {
    const w = setup(10);
    configureWebhook(w.state, w.companyId, w.ctx()); // events are recorded only against a destination
    unwrap(deleteCatalog(w.state, w.companyId, w.a, [w.preview().etag], w.ctx(T1)));
    w.select({ modo: 'todos' });
    unwrap(updateCompany(w.state, w.companyId, { surveillanceCapacity: 1 }, w.ctx(T1)));
    expect(eventTypes(w)).toEqual([
      {
        tipo: 'vigilancia.degradada',
        cobertura: 'capacidade_excedida',
        coberturaAnterior: 'integral',
        selecionados: 3,
        capacidade: 1,
      },
    ]);
    const { preview, etag } = w.preview(w.b);
    expect(preview.vigilancia.depois).toMatchObject({ selecionados: 0, cobertura: 'sem_selecao' });
    unwrap(deleteCatalog(w.state, w.companyId, w.b, [etag], w.ctx(T1)));
    expect(viewNow(w).cobertura).toBe('sem_selecao');
    expect(eventTypes(w)[1]).toEqual({
      tipo: 'vigilancia.restabelecida',
      cobertura: 'sem_selecao',
      coberturaAnterior: 'capacidade_excedida',
      selecionados: 0,
      capacidade: 1,
    });
    expect(eventTypes(w)).toHaveLength(2);
  });

  it('raises no event when the coverage does not cross the degraded boundary', () => {
    const w = setup();
    unwrap(deleteCatalog(w.state, w.companyId, w.a, [w.preview().etag], w.ctx(T1)));
    expect(eventTypes(w)).toEqual([]);
  });
});
