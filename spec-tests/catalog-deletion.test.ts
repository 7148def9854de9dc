/**
 * Catalog deletion over HTTP: spec "Catalog deletion impact preview", the catalog state table (ativo →
 * excluido with the current preview's ETag; anything changed → 412, no partial deletion), "GET
 * /v1/catalogos/{id}/impacto-exclusao" and "DELETE /v1/catalogos/{id}"; the emulator's choices
 * (docs/api.md "Catalog deletion"): the preview's exact figures, what its ETag covers, the effects of the deletion on
 * products, the selection, the establishment and the lists, and the refusals in order.
 *
 * Driven only through HTTP (the API and /_emulator), so the file runs the same in process and against the
 * built CLI. Each test has its own company (world()); branches get CNPJs from the independent helpers.
 */
import { describe, expect, it } from 'vitest';
import { headOfficeCatalog, newKey, otherCompany, product, world, type Answer, type World } from './support/client.js';
import { ETAG, expectError, REQUEST_ID } from './support/expect.js';
import { branchCatalog, freshSelection, productsPath, unique, UNKNOWN_ID } from './support/fixtures.js';
import { createDestination, EVENTS, eventDetail } from './support/webhook-setup.js';
import { deployment, needsControls } from './support/deployment.js';

const VIGILANCIA = '/v1/empresa/vigilancia';
const WATCHED = '/v1/empresa/vigilancia/produtos';
const previewPath = (catalogId: string) => `/v1/catalogos/${catalogId}/impacto-exclusao`;
const catalogPath = (catalogId: string) => `/v1/catalogos/${catalogId}`;
/** The preview's ETag: strong, opaque, "x…" (the emulator's form, as opaque as any other). */
const PREVIEW_ETAG = /^"x[^"]+"$/;

type Coverage = 'indisponivel' | 'sem_selecao' | 'parcial' | 'integral' | 'capacidade_excedida';

interface Counters {
  cadastrados: number;
  selecionados: number;
  elegiveis: number;
  vagas: number;
  cobertura: Coverage;
  exige_selecao: boolean;
}

interface View extends Counters {
  modo: 'selecao' | 'todos';
  versao: number;
  capacidade: number;
  direito_ativo: boolean;
}

interface Preview {
  catalogo_id: string;
  versao: number;
  produtos: number;
  exclusivos: number;
  compartilhados: number;
  produtos_desativados: number;
  selecoes_removidas: number;
  selecoes_adicionadas: number;
  vigilancia: {
    modo: 'selecao' | 'todos';
    versao: number;
    capacidade: number;
    direito_ativo: boolean;
    antes: Counters;
    depois: Counters;
  };
}

const countersOf = (v: View): Counters => ({
  cadastrados: v.cadastrados,
  selecionados: v.selecionados,
  elegiveis: v.elegiveis,
  vagas: v.vagas,
  cobertura: v.cobertura,
  exige_selecao: v.exige_selecao,
});

/** GET the preview: 200 with a preview ETag. */
async function preview(w: World, catalogId: string): Promise<{ body: Preview; etag: string; answer: Answer }> {
  const answer = await w.api.get(previewPath(catalogId));
  expect(answer.status, answer.text).toBe(200);
  const etag = answer.headers.get('etag');
  expect(etag).toMatch(PREVIEW_ETAG);
  return { body: answer.body as Preview, etag: etag!, answer };
}

/** GET /v1/empresa/vigilancia: 200 with an ETag. */
async function vigilancia(w: World): Promise<{ body: View; etag: string; answer: Answer }> {
  const answer = await w.api.get(VIGILANCIA);
  expect(answer.status, answer.text).toBe(200);
  return { body: answer.body as View, etag: answer.headers.get('etag')!, answer };
}

/** PATCH the selection with its current ETag; fails unless 200. */
async function select(w: World, body: Record<string, unknown>): Promise<void> {
  const answer = await w.api.patch(VIGILANCIA, body, { ifMatch: (await vigilancia(w)).etag });
  if (answer.status !== 200) throw new Error(`PATCH ${VIGILANCIA} answered ${answer.status}: ${answer.text}`);
}

/** GET a product: 200; its body and ETag. */
async function readProduct(w: World, id: string): Promise<{ body: any; etag: string }> {
  const answer = await w.api.get(`/v1/produtos/${id}`);
  expect(answer.status, answer.text).toBe(200);
  return { body: answer.body, etag: answer.headers.get('etag')! };
}

/** PUT link with the product's current ETag; fails unless 200. */
async function link(w: World, catalogId: string, productId: string): Promise<void> {
  const answer = await w.api.put(
    `${productsPath(catalogId)}/${productId}`,
    {},
    { ifMatch: (await readProduct(w, productId)).etag },
  );
  if (answer.status !== 200) throw new Error(`link answered ${answer.status}: ${answer.text}`);
}

/** DELETE link with the product's current ETag; fails unless 200. */
async function unlink(w: World, catalogId: string, productId: string): Promise<void> {
  const answer = await w.api.delete(
    `${productsPath(catalogId)}/${productId}`,
    {},
    { ifMatch: (await readProduct(w, productId)).etag },
  );
  if (answer.status !== 200) throw new Error(`unlink answered ${answer.status}: ${answer.text}`);
}

/** PATCH a product with its current ETag; fails unless 200. */
async function editProduct(w: World, id: string, fields: Record<string, unknown>, api = w.api): Promise<void> {
  const answer = await api.patch(`/v1/produtos/${id}`, fields, { ifMatch: (await readProduct(w, id)).etag });
  if (answer.status !== 200) throw new Error(`product PATCH answered ${answer.status}: ${answer.text}`);
}

const ids = (answer: Answer): string[] => answer.body.itens.map((item: { id: string }) => item.id);

/**
 * The catalog under deletion A (head office) with exclusive products e1, e2, e3 and products s1, s2 shared
 * with a branch's catalog B, which also has its own b1. Selected (mode selecao): e1, s1, b1.
 */
async function scene(flags: Record<string, unknown> = {}) {
  const w = await world({}, flags);
  // A new company's selection is empty; a deployment's shared one holds what earlier tests selected.
  await freshSelection(w.api);
  const a = await headOfficeCatalog(w, 'A');
  const b = await branchCatalog(w, { nome: 'B' });
  const e1 = await product(w, a.id, { sku: 'e1' });
  const e2 = await product(w, a.id, { sku: 'e2' });
  const e3 = await product(w, a.id, { sku: 'e3' });
  const s1 = await product(w, a.id, { sku: 's1' });
  const s2 = await product(w, a.id, { sku: 's2' });
  await link(w, b.id, s1.id);
  await link(w, b.id, s2.id);
  const b1 = await product(w, b.id, { sku: 'b1' });
  await select(w, { modo: 'selecao', adicionar: [e1.id, s1.id, b1.id] });
  return { w, a, b, e1, e2, e3, s1, s2, b1 };
}
type Scene = Awaited<ReturnType<typeof scene>>;

/** Everything a refused deletion must leave alone, as the API shows it. */
async function observe(sc: Scene): Promise<string[]> {
  const { w } = sc;
  const reads = [
    previewPath(sc.a.id),
    catalogPath(sc.a.id),
    catalogPath(sc.b.id),
    `/v1/estabelecimentos/${w.company.headOffice.id}`,
    VIGILANCIA,
    `${WATCHED}?limite=200`,
    '/v1/produtos?limite=200',
    `${productsPath(sc.a.id)}?limite=200`,
  ];
  const seen: string[] = [];
  for (const path of reads) {
    const answer = await w.api.get(path);
    // An error carries its own request_id: compare its status and codigo only.
    const shown = answer.status < 300 ? answer.text : answer.body?.erro?.codigo;
    seen.push(`${path} ${answer.status} ${answer.headers.get('etag')} ${shown}`);
  }
  return seen;
}

describe('GET /v1/catalogos/{id}/impacto-exclusao', () => {
  // spec: CONV-06, CAT-28, CAT-29, CAT-30, CAT-31
  it('answers 200 with the exact figures for exclusive and shared products, some selected, and a preview ETag', async () => {
    const sc = await scene({ surveillanceCapacity: 3 });
    const { w, a } = sc;
    const catalog = await w.api.get(catalogPath(a.id));
    expect(catalog.body.versao).toBe(6); // created, then five products created in it
    const answer = await w.api.get(previewPath(a.id));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({
      catalogo_id: a.id,
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
    const etag = answer.headers.get('etag');
    expect(etag).toMatch(ETAG);
    expect(etag).toMatch(PREVIEW_ETAG);
    expect(etag).not.toBe(catalog.headers.get('etag'));
    expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(answer.headers.get('location')).toBeNull();
  });

  // spec: CAT-30
  it("its antes equals GET /v1/empresa/vigilancia and its vigilancia block the selection's modo, versao, capacidade and direito_ativo", async () => {
    // The capacity plays no part: a deployment's shared company keeps its own.
    const sc = await scene(deployment === undefined ? { surveillanceCapacity: 7 } : {});
    const view = await vigilancia(sc.w);
    const p = await preview(sc.w, sc.a.id);
    expect(p.body.vigilancia.antes).toEqual(countersOf(view.body));
    expect(p.body.vigilancia).toMatchObject({
      modo: view.body.modo,
      versao: view.body.versao,
      capacidade: view.body.capacidade,
      direito_ativo: view.body.direito_ativo,
    });
  });

  it('in mode todos removes no selection, and depois watches the remaining eligible products', async () => {
    const sc = await scene({ surveillanceCapacity: 6 });
    await createDestination(sc.w); // events are recorded only for a company with a destination (spec: CONV-09)
    await select(sc.w, { modo: 'todos' });
    const p = await preview(sc.w, sc.a.id);
    expect(p.body).toMatchObject({
      produtos: 5,
      exclusivos: 3,
      compartilhados: 2,
      produtos_desativados: 3,
      selecoes_removidas: 0,
      selecoes_adicionadas: 0,
    });
    expect(p.body.vigilancia).toEqual({
      modo: 'todos',
      versao: 3,
      capacidade: 6,
      direito_ativo: true,
      antes: { cadastrados: 6, selecionados: 6, elegiveis: 6, vagas: 0, cobertura: 'integral', exige_selecao: false },
      depois: { cadastrados: 3, selecionados: 3, elegiveis: 3, vagas: 3, cobertura: 'integral', exige_selecao: false },
    });
  });

  it('projects a way out of capacidade_excedida when the capacity was cut below the watched products', async () => {
    const sc = await scene({ surveillanceCapacity: 6 });
    await createDestination(sc.w); // events are recorded only for a company with a destination (spec: CONV-09)
    await select(sc.w, { modo: 'todos' });
    await sc.w.controls.updateCompany(sc.w.company.companyId, { surveillanceCapacity: 4 });
    const p = await preview(sc.w, sc.a.id);
    expect(p.body.vigilancia.capacidade).toBe(4);
    expect(p.body.vigilancia.antes).toEqual({
      cadastrados: 6,
      selecionados: 6,
      elegiveis: 6,
      vagas: 0,
      cobertura: 'capacidade_excedida',
      exige_selecao: true,
    });
    expect(p.body.vigilancia.depois).toEqual({
      cadastrados: 3,
      selecionados: 3,
      elegiveis: 3,
      vagas: 1,
      cobertura: 'integral',
      exige_selecao: false,
    });
  });

  it('previews an empty catalog: no product moves, depois equals antes', async () => {
    const w = await world();
    const a = await headOfficeCatalog(w);
    const p = await preview(w, a.id);
    expect(p.body).toMatchObject({
      catalogo_id: a.id,
      versao: 1,
      produtos: 0,
      exclusivos: 0,
      compartilhados: 0,
      produtos_desativados: 0,
      selecoes_removidas: 0,
      selecoes_adicionadas: 0,
    });
    expect(p.body.vigilancia.depois).toEqual(p.body.vigilancia.antes);
    expect(p.body.vigilancia.antes).toEqual(countersOf((await vigilancia(w)).body));
  });

  it('answers the same ETag and bytes to two GETs when nothing changed, time passing included', async () => {
    const sc = await scene();
    const first = await preview(sc.w, sc.a.id);
    const second = await preview(sc.w, sc.a.id);
    await sc.w.controls.advance('1h');
    const third = await preview(sc.w, sc.a.id);
    expect(second.etag).toBe(first.etag);
    expect(second.answer.text).toBe(first.answer.text);
    expect(third.etag).toBe(first.etag);
    expect(third.answer.text).toBe(first.answer.text);
  });

  // spec: CAT-37, CAT-38
  describe('its ETag changes after each thing it depends on, and the old one no longer deletes', () => {
    const causes: [string, (sc: Scene) => Promise<void>, (before: Preview, after: Preview) => void][] = [
      [
        'linking a product of the catalog to another catalog (it stops being exclusive)',
        async (sc) => link(sc.w, sc.b.id, sc.e1.id),
        (before, after) =>
          expect(after).toEqual({
            ...before,
            exclusivos: 2,
            compartilhados: 3,
            produtos_desativados: 2,
            selecoes_removidas: 0,
            vigilancia: {
              ...before.vigilancia,
              depois: {
                ...before.vigilancia.depois,
                cadastrados: before.vigilancia.depois.cadastrados + 1,
                elegiveis: before.vigilancia.depois.elegiveis + 1,
                selecionados: 3,
                vagas: before.vigilancia.depois.vagas - 1,
              },
            },
          }),
      ],
      [
        'linking a shared product of the catalog to a third catalog (no figure moves)',
        async (sc) => link(sc.w, (await branchCatalog(sc.w, { nome: 'C' })).id, sc.s1.id),
        (before, after) => expect(after).toEqual(before),
      ],
      [
        'unlinking a shared product of the catalog from its other catalog (it becomes exclusive)',
        async (sc) => unlink(sc.w, sc.b.id, sc.s1.id),
        (_before, after) =>
          expect(after).toMatchObject({
            exclusivos: 4,
            compartilhados: 1,
            produtos_desativados: 4,
            selecoes_removidas: 2,
          }),
      ],
      [
        'a PATCH of a product linked to the catalog (no figure moves)',
        async (sc) => editProduct(sc.w, sc.e2.id, { sku: 'novo' }),
        (before, after) => expect(after).toEqual(before),
      ],
      [
        'a selection PATCH adding a product of the catalog',
        async (sc) => select(sc.w, { modo: 'selecao', adicionar: [sc.e2.id] }),
        (before, after) =>
          expect(after).toMatchObject({ selecoes_removidas: 2, vigilancia: { versao: before.vigilancia.versao + 1 } }),
      ],
      [
        "a selection PATCH that changes no product (only the selection's versao moves)",
        async (sc) => select(sc.w, { modo: 'selecao' }),
        (before, after) =>
          expect(after).toEqual({
            ...before,
            vigilancia: { ...before.vigilancia, versao: before.vigilancia.versao + 1 },
          }),
      ],
      [
        'a capacity change through the controls',
        async (sc) => {
          await sc.w.controls.updateCompany(sc.w.company.companyId, { surveillanceCapacity: 50 });
        },
        (_before, after) =>
          expect(after.vigilancia).toMatchObject({ capacidade: 50, antes: { vagas: 47 }, depois: { vagas: 48 } }),
      ],
      [
        'an entitlement change through the controls',
        async (sc) => {
          await sc.w.controls.updateCompany(sc.w.company.companyId, { surveillanceEntitled: false });
        },
        (_before, after) =>
          expect(after.vigilancia).toMatchObject({
            direito_ativo: false,
            antes: { cobertura: 'indisponivel' },
            depois: { cobertura: 'indisponivel' },
          }),
      ],
      [
        'a product created in another catalog (antes and depois count it)',
        async (sc) => {
          await product(sc.w, sc.b.id);
        },
        (before, after) =>
          expect(after.vigilancia).toMatchObject({
            antes: { cadastrados: before.vigilancia.antes.cadastrados + 1 },
            depois: { cadastrados: before.vigilancia.depois.cadastrados + 1 },
          }),
      ],
      [
        'a product created in the catalog itself',
        async (sc) => {
          await product(sc.w, sc.a.id);
        },
        (before, after) => expect(after).toMatchObject({ versao: before.versao + 1, produtos: 6, exclusivos: 4 }),
      ],
      [
        'a rename of the catalog',
        async (sc) => {
          const current = await sc.w.api.get(catalogPath(sc.a.id));
          expect(
            (await sc.w.api.patch(catalogPath(sc.a.id), { nome: 'A2' }, { ifMatch: current.headers.get('etag')! }))
              .status,
          ).toBe(200);
        },
        (before, after) => expect(after).toEqual({ ...before, versao: before.versao + 1 }),
      ],
    ];
    for (const [name, act, check] of causes) {
      it(name, async () => {
        const sc = await scene();
        const before = await preview(sc.w, sc.a.id);
        await act(sc);
        const after = await preview(sc.w, sc.a.id);
        expect(after.etag).not.toBe(before.etag);
        check(before.body, after.body);
        expectError(
          await sc.w.api.delete(catalogPath(sc.a.id), {}, { ifMatch: before.etag }),
          412,
          'precondicao_falhou',
          'header.if-match',
        );
        expect((await sc.w.api.get(catalogPath(sc.a.id))).body.estado).toBe('ativo');
      });
    }
  });

  // spec: CAT-32
  it('runs no analysis and no surveillance scan: GET /v1/analises and GET /v1/vigilancias list the same executions before and after', async () => {
    const sc = await scene();
    const { w } = sc;
    // The ids, not the bytes: an execution the company had before may move on meanwhile on a real deployment.
    const executions = async () => {
      const analyses = await w.api.get('/v1/analises?limite=100');
      const scans = await w.api.get('/v1/vigilancias?limite=100');
      expect(analyses.status, analyses.text).toBe(200);
      expect(scans.status, scans.text).toBe(200);
      return { analyses: ids(analyses), scans: ids(scans) };
    };
    const before = await executions();
    await preview(w, sc.a.id);
    await preview(w, sc.b.id);
    await preview(w, sc.a.id);
    expect(await executions()).toEqual(before);
  });

  // spec: AUTH-04, REQ-13
  it("answers 404 catalogo_nao_encontrado for an unknown or another company's catalog, 422 for a malformed id", async () => {
    const w = await world();
    expectError(await w.api.get(previewPath(UNKNOWN_ID)), 404, 'catalogo_nao_encontrado', 'path.id');
    const other = await otherCompany(w);
    const theirs = await headOfficeCatalog(other);
    expectError(await w.api.get(previewPath(theirs.id)), 404, 'catalogo_nao_encontrado', 'path.id');
    expectError(await w.api.get(previewPath('not-a-uuid')), 422, 'valor_invalido', 'path.id');
  });

  // spec: AUTH-13
  it('needs catalogo:gerenciar: a read-only credential gets 403 permissao_insuficiente', async () => {
    const sc = await scene();
    const { token } = await sc.w.controls.addCredential(sc.w.company.companyId, ['catalogo:ler']);
    expectError(await sc.w.api.as(token).get(previewPath(sc.a.id)), 403, 'permissao_insuficiente');
  });
});

describe('DELETE /v1/catalogos/{id}', () => {
  /** The scene, its preview and everything read before, then the DELETE with the preview's ETag (checked 200). */
  async function deleted(flags: Record<string, unknown> = { surveillanceCapacity: 3 }) {
    const sc = await scene(flags);
    const { w, a } = sc;
    const catalogBefore = await w.api.get(catalogPath(a.id));
    const otherBefore = await w.api.get(catalogPath(sc.b.id));
    const establishmentBefore = await w.api.get(`/v1/estabelecimentos/${w.company.headOffice.id}`);
    const viewBefore = await vigilancia(w);
    const products = Object.fromEntries(
      await Promise.all(
        ['e1', 'e2', 'e3', 's1', 's2', 'b1'].map(
          async (name) =>
            [name, (await readProduct(w, (sc as unknown as Record<string, { id: string }>)[name]!.id)).body] as const,
        ),
      ),
    );
    const p = await preview(w, a.id);
    await w.controls.advance('5m');
    const { now } = await w.controls.clock();
    const answer = await w.api.delete(catalogPath(a.id), {}, { ifMatch: p.etag });
    expect(answer.status, answer.text).toBe(200);
    return { ...sc, catalogBefore, otherBefore, establishmentBefore, viewBefore, products, p, now, answer };
  }

  // spec: CAT-02, CAT-35, CAT-36, REQ-09
  it("deletes with the preview's ETag: 200 the catalog excluido (excluido_em now, versao + 1, produtos 0) with its ETag", async () => {
    const d = await deleted();
    expect(d.answer.body).toEqual({
      ...d.catalogBefore.body,
      estado: 'excluido',
      excluido_em: d.now,
      atualizado_em: d.now,
      versao: d.catalogBefore.body.versao + 1,
      produtos: 0,
    });
    const etag = d.answer.headers.get('etag');
    expect(etag).toMatch(ETAG);
    expect(etag).not.toBe(d.catalogBefore.headers.get('etag'));
    expect(etag).not.toBe(d.p.etag);
    expect(d.answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
    const read = await d.w.api.get(catalogPath(d.a.id));
    expect(read.status).toBe(200);
    expect(read.body).toEqual(d.answer.body);
    expect(read.headers.get('etag')).toBe(etag);
  });

  it('accepts an absent body as {}', async () => {
    const sc = await scene();
    const p = await preview(sc.w, sc.a.id);
    const answer = await sc.w.api.delete(catalogPath(sc.a.id), undefined, { ifMatch: p.etag });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.estado).toBe('excluido');
  });

  it("leaves GET /v1/empresa/vigilancia equal to the preview's depois, with modo, versao, capacidade, direito_ativo and its ETag unchanged", async () => {
    const d = await deleted();
    const after = await vigilancia(d.w);
    const { modo, versao, capacidade, direito_ativo, depois } = d.p.body.vigilancia;
    expect(after.body).toEqual({ ...depois, modo, versao, capacidade, direito_ativo });
    expect({ modo, versao, capacidade, direito_ativo }).toEqual({
      modo: d.viewBefore.body.modo,
      versao: d.viewBefore.body.versao,
      capacidade: d.viewBefore.body.capacidade,
      direito_ativo: d.viewBefore.body.direito_ativo,
    });
    expect(after.etag).toBe(d.viewBefore.etag);
    const capacity = await d.w.api.get('/v1/empresa/capacidade');
    expect(capacity.body.vigilancia).toEqual({
      direito_ativo: true,
      capacidade: 3,
      selecionados: depois.selecionados,
      vagas: depois.vagas,
    });
  });

  it('deactivates the exclusive products (ativo false, no catalog, versao + 1) and drops them from the selection', async () => {
    const d = await deleted();
    for (const name of ['e1', 'e2', 'e3'] as const) {
      const now = await readProduct(d.w, d[name].id);
      expect(now.body).toEqual({
        ...d.products[name],
        ativo: false,
        catalogos: [],
        versao: d.products[name].versao + 1,
      });
    }
    const watched = await d.w.api.get(`${WATCHED}?limite=200`);
    expect(watched.status, watched.text).toBe(200);
    expect(ids(watched)).toEqual([d.s1.id, d.b1.id]);
  });

  // spec: CAT-39
  it('keeps the shared products active, linked to their other catalog only (versao + 1), and selected', async () => {
    const d = await deleted();
    for (const name of ['s1', 's2'] as const) {
      const now = await readProduct(d.w, d[name].id);
      expect(now.body).toEqual({
        ...d.products[name],
        ativo: true,
        catalogos: [d.b.id],
        versao: d.products[name].versao + 1,
      });
    }
    expect((await readProduct(d.w, d.b1.id)).body).toEqual(d.products.b1);
    // The other catalog's links did not change: nor did it.
    const other = await d.w.api.get(catalogPath(d.b.id));
    expect(other.body).toEqual(d.otherBefore.body);
    expect(other.headers.get('etag')).toBe(d.otherBefore.headers.get('etag'));
    const list = await d.w.api.get(`${productsPath(d.b.id)}?limite=200`);
    expect(ids(list).sort()).toEqual([d.s1.id, d.s2.id, d.b1.id].sort());
  });

  it('frees the establishment: catalogo_id null (versao + 1), and a new catalog can be created for it', async () => {
    const d = await deleted();
    const establishment = await d.w.api.get(`/v1/estabelecimentos/${d.w.company.headOffice.id}`);
    expect(establishment.body).toEqual({
      ...d.establishmentBefore.body,
      catalogo_id: null,
      versao: d.establishmentBefore.body.versao + 1,
    });
    expect(establishment.headers.get('etag')).not.toBe(d.establishmentBefore.headers.get('etag'));
    const fresh = await d.w.api.post('/v1/catalogos', { estabelecimento_id: d.w.company.headOffice.id, nome: 'Nova' });
    expect(fresh.status, fresh.text).toBe(201);
    expect(fresh.body).toMatchObject({ estado: 'ativo', produtos: 0, estabelecimento_id: d.w.company.headOffice.id });
    expect((await d.w.api.get(`/v1/estabelecimentos/${d.w.company.headOffice.id}`)).body.catalogo_id).toBe(
      fresh.body.id,
    );
  });

  // spec: CAT-07, CAT-08, CAT-09
  it('keeps the deleted catalog listed (default and estado=excluido, not estado=ativo) and readable; its products list answers 409 catalogo_excluido', async () => {
    const d = await deleted();
    const all = await d.w.api.get('/v1/catalogos');
    expect(all.status).toBe(200);
    expect(ids(all)).toEqual([d.a.id, d.b.id]);
    expect(all.body.itens[0]).toEqual(d.answer.body);
    const excluded = await d.w.api.get('/v1/catalogos?estado=excluido');
    expect(ids(excluded)).toEqual([d.a.id]);
    const active = await d.w.api.get('/v1/catalogos?estado=ativo');
    expect(ids(active)).toEqual([d.b.id]);
    expect((await d.w.api.get(catalogPath(d.a.id))).body.estado).toBe('excluido');
    expectError(await d.w.api.get(productsPath(d.a.id)), 409, 'catalogo_excluido');
    const context = await d.w.api.get('/v1/contexto');
    expect(context.body.catalogos).toEqual({ ativos: 1, excluidos: 1 });
  });

  // spec: CAT-40
  it('keeps its history: the catalog keeps its id, name, external id, establishment and creation date, and is found by them; its exclusive products stay readable with their fields', async () => {
    const w = await world();
    // unique(): a deployment's company keeps earlier runs' catalogs and products, and an id_externo names one only.
    const catalogExternal = unique('ERP-LOJA-ANTIGA');
    const a = await w.api.post('/v1/catalogos', {
      estabelecimento_id: w.company.headOffice.id,
      nome: 'Loja antiga',
      id_externo: catalogExternal,
    });
    expect(a.status, a.text).toBe(201);
    const fields = { sku: 'HIST-1', descricao: 'Notebook 14 polegadas', id_externo: unique('ERP-PROD-HIST-1') };
    const e1 = await product(w, a.body.id, fields);
    const before = await w.api.get(catalogPath(a.body.id));
    const productBefore = await readProduct(w, e1.id);
    const p = await preview(w, a.body.id);
    const answer = await w.api.delete(catalogPath(a.body.id), {}, { ifMatch: p.etag });
    expect(answer.status, answer.text).toBe(200);
    const after = await w.api.get(catalogPath(a.body.id));
    expect(after.status, after.text).toBe(200);
    const kept = ['id', 'id_externo', 'estabelecimento_id', 'cnpj_estabelecimento', 'nome', 'criado_em'] as const;
    for (const field of kept) expect(after.body[field], field).toEqual(before.body[field]);
    expect(after.body).toMatchObject({ estado: 'excluido', versao: before.body.versao + 1 });
    // Found by what identified it: its external id and its establishment.
    const byExternal = await w.api.get(`/v1/catalogos?id_externo=${catalogExternal}`);
    expect(byExternal.status, byExternal.text).toBe(200);
    expect(byExternal.body.itens).toEqual([after.body]);
    const byEstablishment = await w.api.get(
      `/v1/catalogos?estabelecimento_id=${w.company.headOffice.id}&estado=excluido`,
    );
    expect(ids(byEstablishment)).toEqual([a.body.id]);
    // Its exclusive product is deactivated, not erased: every field it had stays.
    const productAfter = await readProduct(w, e1.id);
    expect(productAfter.body).toEqual({
      ...productBefore.body,
      ativo: false,
      catalogos: [],
      versao: productBefore.body.versao + 1,
    });
    expect(productAfter.body).toMatchObject(fields);
  });

  // spec: CAT-40
  it("keeps its history: an analysis concluded before the deletion keeps its detail and its findings on the catalog's products, byte for byte", async () => {
    needsControls('the clock: the analysis concludes before the deletion');
    const w = await world();
    const a = await headOfficeCatalog(w, 'A');
    const e1 = await product(w, a.id, { sku: 'sem-descricao' });
    const accepted = await w.api.post('/v1/analises', {});
    expect(accepted.status, accepted.text).toBe(202);
    await w.controls.advance('2m'); // the run starts 1 min after the acceptance and lasts 10 s (small company)
    const detail = `/v1/analises/${accepted.body.id}`;
    const findings = `${detail}/achados`;
    const detailBefore = await w.api.get(detail);
    expect(detailBefore.body.estado, detailBefore.text).toBe('concluida');
    const findingsBefore = await w.api.get(findings);
    expect(findingsBefore.status, findingsBefore.text).toBe(200);
    expect(findingsBefore.body.itens.map((f: { produto_id: string }) => f.produto_id)).toContain(e1.id);
    const p = await preview(w, a.id);
    expect((await w.api.delete(catalogPath(a.id), {}, { ifMatch: p.etag })).status).toBe(200);
    expect((await readProduct(w, e1.id)).body.ativo).toBe(false);
    const detailAfter = await w.api.get(detail);
    expect(detailAfter.status, detailAfter.text).toBe(200);
    expect(detailAfter.text).toBe(detailBefore.text);
    const findingsAfter = await w.api.get(findings);
    expect(findingsAfter.text).toBe(findingsBefore.text);
    expect(ids(await w.api.get('/v1/analises'))).toEqual([accepted.body.id]);
  });

  it('leaves a deactivated product unchangeable: PATCH and link 409 produto_inativo, selecting it 422 produto_invalido', async () => {
    const d = await deleted();
    const e1 = await readProduct(d.w, d.e1.id);
    expectError(
      await d.w.api.patch(`/v1/produtos/${d.e1.id}`, { sku: 'x' }, { ifMatch: e1.etag }),
      409,
      'produto_inativo',
    );
    expectError(
      await d.w.api.put(`${productsPath(d.b.id)}/${d.e1.id}`, {}, { ifMatch: e1.etag }),
      409,
      'produto_inativo',
    );
    const view = await vigilancia(d.w);
    expectError(
      await d.w.api.patch(VIGILANCIA, { modo: 'selecao', adicionar: [d.e1.id] }, { ifMatch: view.etag }),
      422,
      'produto_invalido',
      'body.adicionar[0]',
    );
    expect((await readProduct(d.w, d.e1.id)).body).toEqual(e1.body);
  });

  it('in mode todos leaves the view equal to depois and watches the remaining eligible products', async () => {
    const sc = await scene({ surveillanceCapacity: 6 });
    await createDestination(sc.w); // events are recorded only for a company with a destination (spec: CONV-09)
    await select(sc.w, { modo: 'todos' });
    const p = await preview(sc.w, sc.a.id);
    expect((await sc.w.api.delete(catalogPath(sc.a.id), {}, { ifMatch: p.etag })).status).toBe(200);
    const { modo, versao, capacidade, direito_ativo, depois } = p.body.vigilancia;
    expect((await vigilancia(sc.w)).body).toEqual({ ...depois, modo, versao, capacidade, direito_ativo });
    expect(ids(await sc.w.api.get(`${WATCHED}?limite=200`))).toEqual([sc.s1.id, sc.s2.id, sc.b1.id]);
    // Back to mode selecao: the kept selection lost the deactivated e1.
    await select(sc.w, { modo: 'selecao' });
    expect(ids(await sc.w.api.get(`${WATCHED}?limite=200`))).toEqual([sc.s1.id, sc.b1.id]);
  });

  it('raises one vigilancia.restabelecida with the figures after the deletion when it takes the coverage out of capacidade_excedida', async () => {
    const sc = await scene({ surveillanceCapacity: 6 });
    await createDestination(sc.w); // events are recorded only for a company with a destination (spec: CONV-09)
    await select(sc.w, { modo: 'todos' });
    await sc.w.controls.updateCompany(sc.w.company.companyId, { surveillanceCapacity: 4 });
    const dadosOf = async () => {
      const list = await sc.w.api.get(`${EVENTS}?limite=100`);
      expect(list.status, list.text).toBe(200);
      const ids: string[] = list.body.itens.map((e: { id: string }) => e.id).reverse();
      return Promise.all(ids.map(async (id) => (await eventDetail(sc.w, id)).evento.dados));
    };
    expect(await dadosOf()).toEqual([
      {
        tipo: 'vigilancia.degradada',
        cobertura: 'capacidade_excedida',
        coberturaAnterior: 'integral',
        selecionados: 6,
        capacidade: 4,
      },
    ]);
    const p = await preview(sc.w, sc.a.id);
    expect(p.body.vigilancia.depois).toMatchObject({ selecionados: 3, cobertura: 'integral' });
    expect((await sc.w.api.delete(catalogPath(sc.a.id), {}, { ifMatch: p.etag })).status).toBe(200);
    expect(await dadosOf()).toEqual([
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

  describe('refusals', () => {
    // spec: CAT-34
    it('answers 428 precondicao_ausente without If-Match, changing nothing', async () => {
      const sc = await scene();
      const before = await observe(sc);
      expectError(await sc.w.api.delete(catalogPath(sc.a.id), {}), 428, 'precondicao_ausente', 'header.if-match');
      expect(await observe(sc)).toEqual(before);
    });

    // spec: CAT-37, CAT-38
    it('answers 412 precondicao_falhou to a stale preview ETag and changes nothing; the fresh preview then deletes', async () => {
      const sc = await scene();
      const stale = await preview(sc.w, sc.a.id);
      await editProduct(sc.w, sc.s2.id, { descricao: 'mudou' });
      const before = await observe(sc);
      expectError(
        await sc.w.api.delete(catalogPath(sc.a.id), {}, { ifMatch: stale.etag }),
        412,
        'precondicao_falhou',
        'header.if-match',
      );
      expect(await observe(sc)).toEqual(before);
      const fresh = await preview(sc.w, sc.a.id);
      expect(fresh.answer.text).toBe(stale.answer.text);
      expect((await sc.w.api.delete(catalogPath(sc.a.id), {}, { ifMatch: fresh.etag })).status).toBe(200);
    });

    // spec: CAT-37, CAT-38
    it("answers 412 to the catalog's own ETag (or the selection's) instead of the preview's", async () => {
      const sc = await scene();
      const catalog = await sc.w.api.get(catalogPath(sc.a.id));
      const before = await observe(sc);
      expectError(
        await sc.w.api.delete(catalogPath(sc.a.id), {}, { ifMatch: catalog.headers.get('etag')! }),
        412,
        'precondicao_falhou',
        'header.if-match',
      );
      expectError(
        await sc.w.api.delete(catalogPath(sc.a.id), {}, { ifMatch: (await vigilancia(sc.w)).etag }),
        412,
        'precondicao_falhou',
        'header.if-match',
      );
      expect(await observe(sc)).toEqual(before);
    });

    it('answers a deleted catalog: the preview 404 catalogo_excluido (READ set), DELETE 409 catalogo_excluido (after 428 without If-Match)', async () => {
      const sc = await scene();
      const p = await preview(sc.w, sc.a.id);
      const done = await sc.w.api.delete(catalogPath(sc.a.id), {}, { ifMatch: p.etag });
      expect(done.status).toBe(200);
      expectError(await sc.w.api.get(previewPath(sc.a.id)), 404, 'catalogo_excluido', 'path.id');
      const read = await sc.w.api.get(catalogPath(sc.a.id));
      expectError(await sc.w.api.delete(catalogPath(sc.a.id), {}, { ifMatch: p.etag }), 409, 'catalogo_excluido');
      expectError(
        await sc.w.api.delete(catalogPath(sc.a.id), {}, { ifMatch: done.headers.get('etag')! }),
        409,
        'catalogo_excluido',
      );
      expectError(await sc.w.api.delete(catalogPath(sc.a.id), {}), 428, 'precondicao_ausente', 'header.if-match');
      const again = await sc.w.api.get(catalogPath(sc.a.id));
      expect(again.text).toBe(read.text);
      expect(again.headers.get('etag')).toBe(read.headers.get('etag'));
    });

    // spec: AUTH-05
    it("answers 404 catalogo_nao_encontrado for another company's catalog, and leaves it alone", async () => {
      const w = await world();
      const other = await otherCompany(w);
      const theirs = await headOfficeCatalog(other);
      const theirPreview = await preview(other, theirs.id);
      expectError(
        await w.api.delete(catalogPath(theirs.id), {}, { ifMatch: theirPreview.etag }),
        404,
        'catalogo_nao_encontrado',
        'path.id',
      );
      expectError(
        await w.api.delete(catalogPath(UNKNOWN_ID), {}, { ifMatch: theirPreview.etag }),
        404,
        'catalogo_nao_encontrado',
        'path.id',
      );
      expect((await other.api.get(catalogPath(theirs.id))).body).toEqual(theirs.body);
      expect((await preview(other, theirs.id)).etag).toBe(theirPreview.etag);
    });

    // spec: AUTH-12
    it('needs catalogo:gerenciar: a read-only credential gets 403 permissao_insuficiente, before the precondition, changing nothing', async () => {
      const sc = await scene();
      const p = await preview(sc.w, sc.a.id);
      const { token } = await sc.w.controls.addCredential(sc.w.company.companyId, [
        'catalogo:ler',
        'vigilancia:gerenciar',
      ]);
      const before = await observe(sc);
      expectError(
        await sc.w.api.as(token).delete(catalogPath(sc.a.id), {}, { ifMatch: p.etag }),
        403,
        'permissao_insuficiente',
      );
      expectError(await sc.w.api.as(token).delete(catalogPath(sc.a.id), {}), 403, 'permissao_insuficiente');
      expect(await observe(sc)).toEqual(before);
    });

    // spec: CAT-37, CAT-38
    it('under a concurrentEdit fault answers 412 (someone else changed the catalog); a fresh preview then deletes', async () => {
      const sc = await scene();
      const p = await preview(sc.w, sc.a.id);
      await sc.w.controls.addFault({
        target: 'api',
        match: { method: 'DELETE', path: catalogPath(sc.a.id), companyId: sc.w.company.companyId },
        effect: { concurrentEdit: true },
      });
      expectError(
        await sc.w.api.delete(catalogPath(sc.a.id), {}, { ifMatch: p.etag }),
        412,
        'precondicao_falhou',
        'header.if-match',
      );
      const catalog = await sc.w.api.get(catalogPath(sc.a.id));
      expect(catalog.body).toMatchObject({ estado: 'ativo', versao: p.body.versao + 1, produtos: 5 });
      const fresh = await preview(sc.w, sc.a.id);
      expect(fresh.etag).not.toBe(p.etag);
      expect(fresh.body).toEqual({ ...p.body, versao: p.body.versao + 1 });
      const answer = await sc.w.api.delete(catalogPath(sc.a.id), {}, { ifMatch: fresh.etag });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toMatchObject({ estado: 'excluido', versao: p.body.versao + 2, produtos: 0 });
    });
  });

  // spec: REQ-02, REQ-03
  it('replays the same 200 to a repeat with the same idempotency key after the deletion', async () => {
    const sc = await scene();
    const p = await preview(sc.w, sc.a.id);
    const key = newKey();
    const first = await sc.w.api.delete(catalogPath(sc.a.id), {}, { ifMatch: p.etag, key });
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const state = await observe(sc);
    for (const options of [{ ifMatch: p.etag, key }, { key }]) {
      const again = await sc.w.api.delete(catalogPath(sc.a.id), {}, options);
      expect(again.status, again.text).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.text).toBe(first.text);
      expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    }
    expect(await observe(sc)).toEqual(state);
    // A new key is a new request: the catalog is deleted.
    expectError(await sc.w.api.delete(catalogPath(sc.a.id), {}, { ifMatch: p.etag }), 409, 'catalogo_excluido');
  });

  it('the demo story: preview, another client edits a linked product → 412, fresh preview, delete', async () => {
    const sc = await scene();
    const { w, a } = sc;
    const first = await preview(w, a.id);
    const { token } = await w.controls.addCredential(w.company.companyId);
    await editProduct(w, sc.e3.id, { descricao: 'editado por outro cliente' }, w.api.as(token));
    expectError(
      await w.api.delete(catalogPath(a.id), {}, { ifMatch: first.etag }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    expect((await w.api.get(catalogPath(a.id))).body.estado).toBe('ativo');
    const fresh = await preview(w, a.id);
    expect(fresh.etag).not.toBe(first.etag);
    const answer = await w.api.delete(catalogPath(a.id), {}, { ifMatch: fresh.etag });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.estado).toBe('excluido');
    const e3 = await readProduct(w, sc.e3.id);
    expect(e3.body).toMatchObject({ ativo: false, catalogos: [], descricao: 'editado por outro cliente' });
  });
});
