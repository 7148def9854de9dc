/**
 * The surveillance selection and capacity over HTTP: spec "Surveillance selection and capacity", "Endpoints ›
 * Surveillance", "Limits" (200 additions and removals per request), "Events" (vigilancia.degradada and
 * vigilancia.restabelecida); the emulator's choices (docs/api.md "Surveillance selection"): the counters and
 * their formulas, the order of the PATCH refusals, the whole-or-nothing capacity rule, the watched products
 * list and its cursors, the real capacity figures and the coverage transitions that raise events.
 *
 * Driven only through HTTP (the API and /_emulator), so the file runs the same in process and against the
 * built CLI. Each test has its own company, and each test that reads the inbox its own webhook host.
 */
import { describe, expect, it } from 'vitest';
import { headOfficeCatalog, newKey, otherCompany, product, world, type Answer, type World } from './support/client.js';
import { cnpjOf, cnpjOfNumber } from './support/cnpj.js';
import { ETAG, expectError, REQUEST_ID, type Caminho } from './support/expect.js';
import { freshSelection, nextOrder, productsPath, UNKNOWN_ID, UNKNOWN_V7_ID } from './support/fixtures.js';
import { deployment, notHere } from './support/deployment.js';
import { advance, createDestination, EVENTS, inboxFor, uniqueHost } from './support/webhook-setup.js';

const VIGILANCIA = '/v1/empresa/vigilancia';
const PRODUTOS = '/v1/empresa/vigilancia/produtos';
const CAPACIDADE = '/v1/empresa/capacidade';

type Coverage = 'indisponivel' | 'sem_selecao' | 'parcial' | 'integral' | 'capacidade_excedida';

interface View {
  cadastrados: number;
  selecionados: number;
  elegiveis: number;
  vagas: number;
  cobertura: Coverage;
  exige_selecao: boolean;
  modo: 'selecao' | 'todos';
  versao: number;
  capacidade: number;
  direito_ativo: boolean;
}

/** A company with these flags (capacity 100 and entitlement unless said). */
const companyWith = (flags: Record<string, unknown> = {}) => world({}, flags);

/**
 * A company whose selection starts empty, for a test its capacity plays no part in (it selects at most `selects`
 * products): a new one with `capacity`; on a deployment, the shared company with its selection cleared
 * (freshSelection), provided its capacity takes `selects` products.
 */
async function selectionCompany(capacity: number, selects: number): Promise<World> {
  if (deployment === undefined) return companyWith({ surveillanceCapacity: capacity });
  const w = await world();
  await freshSelection(w.api);
  const { body } = await read(w);
  if (body.capacidade < selects)
    notHere(`needs a surveillance capacity of ${selects} at least (the company has ${body.capacidade})`);
  return w;
}

/** GET /v1/empresa/vigilancia: 200 with an ETag; the answer too (for byte comparisons). */
async function read(w: World): Promise<{ body: View; etag: string; answer: Answer }> {
  const answer = await w.api.get(VIGILANCIA);
  expect(answer.status, answer.text).toBe(200);
  const etag = answer.headers.get('etag');
  expect(etag).toMatch(ETAG);
  return { body: answer.body as View, etag: etag!, answer };
}

/** PATCH with If-Match `etag` (undefined: none). */
function patch(w: World, etag: string | undefined, body: unknown, options: { key?: string } = {}): Promise<Answer> {
  return w.api.patch(VIGILANCIA, body, {
    ...(etag === undefined ? {} : { ifMatch: etag }),
    ...(options.key === undefined ? {} : { key: options.key }),
  });
}

/** PATCH with the current ETag; fails unless 200. Returns the new view and ETag. */
async function change(w: World, body: Record<string, unknown>): Promise<{ body: View; etag: string }> {
  const answer = await patch(w, (await read(w)).etag, body);
  if (answer.status !== 200) throw new Error(`PATCH ${VIGILANCIA} answered ${answer.status}: ${answer.text}`);
  return { body: answer.body as View, etag: answer.headers.get('etag')! };
}

/** `n` products created in `catalogId`; their ids in creation order. */
async function products(w: World, catalogId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await product(w, catalogId)).id);
  return ids;
}

/** The product's current ETag. */
async function productEtag(w: World, id: string): Promise<string> {
  const answer = await w.api.get(`/v1/produtos/${id}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.headers.get('etag')!;
}

async function link(w: World, catalogId: string, productId: string): Promise<void> {
  const answer = await w.api.put(`${productsPath(catalogId)}/${productId}`, undefined, {
    ifMatch: await productEtag(w, productId),
  });
  expect(answer.status, answer.text).toBe(200);
}

async function unlink(w: World, catalogId: string, productId: string): Promise<void> {
  const answer = await w.api.delete(`${productsPath(catalogId)}/${productId}`, undefined, {
    ifMatch: await productEtag(w, productId),
  });
  expect(answer.status, answer.text).toBe(200);
}

/**
 * A catalog of a new branch (order 0002 of the company's root, computed by the independent CNPJ rule; on a
 * deployment, whose company keeps earlier tests' branches, a fresh order).
 */
async function branchCatalog(w: World, n = 2): Promise<string> {
  const cnpj = deployment === undefined ? cnpjOfNumber(w.company.cnpjRoot, n) : cnpjOf(w.company.cnpjRoot, nextOrder());
  const establishment = await w.api.post('/v1/estabelecimentos', { cnpj, nome: `Filial ${n}` });
  expect(establishment.status, establishment.text).toBe(201);
  const catalog = await w.api.post('/v1/catalogos', { estabelecimento_id: establishment.body.id, nome: `Filial ${n}` });
  expect(catalog.status, catalog.text).toBe(201);
  return catalog.body.id;
}

/** Deletes a catalog with its impact preview's ETag (spec "Catalog deletion impact preview"); fails unless 200. */
async function deleteCatalog(w: World, catalogId: string): Promise<void> {
  const preview = await w.api.get(`/v1/catalogos/${catalogId}/impacto-exclusao`);
  expect(preview.status, preview.text).toBe(200);
  const answer = await w.api.delete(`/v1/catalogos/${catalogId}`, undefined, { ifMatch: preview.headers.get('etag')! });
  expect(answer.status, answer.text).toBe(200);
}

const setCompany = (w: World, flags: Record<string, unknown>) => w.controls.updateCompany(w.company.companyId, flags);

/** The view of a company with nothing registered or selected. */
const emptyView = (capacidade: number, direito_ativo = true): View => ({
  cadastrados: 0,
  selecionados: 0,
  elegiveis: 0,
  vagas: capacidade,
  cobertura: direito_ativo ? 'sem_selecao' : 'indisponivel',
  exige_selecao: false,
  modo: 'selecao',
  versao: 1,
  capacidade,
  direito_ativo,
});

/** The ids of every watched product, following proximo_cursor with `limite` per page; the page sizes too. */
async function watched(w: World, limite: number): Promise<{ ids: string[]; sizes: number[] }> {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 100; guard++) {
    const query = new URLSearchParams({ limite: String(limite), ...(cursor === null ? {} : { cursor }) });
    const page = await w.api.get(`${PRODUTOS}?${query}`);
    expect(page.status, page.text).toBe(200);
    expect(Object.keys(page.body).sort()).toEqual(['itens', 'proximo_cursor']);
    ids.push(...page.body.itens.map((p: { id: string }) => p.id));
    sizes.push(page.body.itens.length);
    cursor = page.body.proximo_cursor;
    if (cursor === null) return { ids, sizes };
    expect(typeof cursor).toBe('string');
  }
  throw new Error(`${PRODUTOS} did not end within 100 pages`);
}

/** Expects the refusal and that GET answers exactly what it answered before (body bytes and ETag). */
async function expectRefusedUnchanged(
  w: World,
  answer: Answer,
  before: { answer: Answer; etag: string },
  status: number,
  codigo: string,
  caminho: Caminho,
): Promise<void> {
  expectError(answer, status, codigo, caminho);
  expect(answer.headers.get('etag')).toBeNull();
  const after = await read(w);
  expect(after.answer.text).toBe(before.answer.text);
  expect(after.etag).toBe(before.etag);
}

describe('GET /v1/empresa/vigilancia', () => {
  // spec: SURV-01, SURV-02, SURV-03, SURV-04
  it('answers exactly the ten fields and an ETag for a new company: nothing registered or selected, mode selecao, versao 1', async () => {
    const w = await companyWith({ surveillanceCapacity: 7 });
    const first = await read(w);
    expect(first.body).toEqual(emptyView(7));
    expect(first.answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
    const again = await read(w);
    expect(again.answer.text).toBe(first.answer.text);
    expect(again.etag).toBe(first.etag);
  });

  // spec: CAT-47
  it('counts products of two catalogs: cadastrados and elegiveis grow with every product (a link to a second catalog counts once), versao and ETag stay', async () => {
    const w = await selectionCompany(10, 0);
    const before = await read(w);
    // A new company starts empty; a deployment's shared one with what earlier tests left: the counts move the same.
    if (deployment === undefined) expect(before.body).toEqual(emptyView(10));
    const head = await headOfficeCatalog(w);
    const branch = await branchCatalog(w);
    const inHead = await products(w, head.id, 3);
    await products(w, branch, 2);
    await link(w, branch, inHead[0]!);
    const after = await read(w);
    expect(after.body).toEqual({
      ...before.body,
      cadastrados: before.body.cadastrados + 5,
      elegiveis: before.body.elegiveis + 5,
    });
    expect(after.etag).toBe(before.etag);
  });

  it('after a product is unlinked from its only catalog: elegiveis −1, cadastrados the same; unlinked from one of two catalogs it stays eligible', async () => {
    const w = await selectionCompany(10, 0);
    // What the company counted before the test's products: nothing in a new company (emptyView).
    const start = (await read(w)).body;
    if (deployment === undefined) expect(start).toEqual(emptyView(10));
    const counts = (cadastrados: number, elegiveis: number) => ({
      cadastrados: start.cadastrados + cadastrados,
      elegiveis: start.elegiveis + elegiveis,
    });
    const head = await headOfficeCatalog(w);
    const branch = await branchCatalog(w);
    const [a, b] = await products(w, head.id, 2);
    await link(w, branch, b!);
    const before = await read(w);
    expect(before.body).toMatchObject(counts(2, 2));
    await unlink(w, head.id, a!);
    const once = await read(w);
    expect(once.body).toEqual({ ...start, ...counts(2, 1) });
    expect(once.etag).toBe(before.etag);
    await unlink(w, head.id, b!);
    expect((await read(w)).body).toMatchObject(counts(2, 1));
    await unlink(w, branch, b!);
    expect((await read(w)).body).toMatchObject(counts(2, 0));
    await link(w, branch, a!);
    expect((await read(w)).body).toMatchObject(counts(2, 1));
  });

  it('after a catalog is deleted: its exclusive products leave cadastrados, elegiveis and the selection; shared ones stay', async () => {
    const w = await companyWith({ surveillanceCapacity: 10 });
    const head = await headOfficeCatalog(w);
    const branch = await branchCatalog(w);
    const [a, b] = await products(w, head.id, 3);
    const [d] = await products(w, branch, 1);
    await link(w, branch, a!);
    await change(w, { modo: 'selecao', adicionar: [a, b, d] });
    const before = await read(w);
    expect(before.body).toMatchObject({ cadastrados: 4, elegiveis: 4, selecionados: 3, cobertura: 'parcial' });
    await deleteCatalog(w, head.id);
    const after = await read(w);
    // b and c were exclusive to the deleted catalog: deactivated; b leaves the selection. a stays, in the branch.
    expect(after.body).toEqual({
      ...before.body,
      cadastrados: 2,
      elegiveis: 2,
      selecionados: 2,
      vagas: 8,
      cobertura: 'integral',
    });
    expect(after.etag).toBe(before.etag);
    expect((await watched(w, 50)).ids).toEqual([a, d]);
  });

  it('exige_selecao is true exactly when elegiveis exceed the capacity', async () => {
    const w = await companyWith({ surveillanceCapacity: 2 });
    const head = await headOfficeCatalog(w);
    await products(w, head.id, 2);
    expect((await read(w)).body).toMatchObject({ elegiveis: 2, capacidade: 2, exige_selecao: false, vagas: 2 });
    await products(w, head.id, 1);
    expect((await read(w)).body).toMatchObject({
      elegiveis: 3,
      capacidade: 2,
      exige_selecao: true,
      vagas: 2,
      cobertura: 'sem_selecao',
    });
  });
});

describe('PATCH /v1/empresa/vigilancia: accepted changes', () => {
  // spec: SURV-17, REQ-06
  it('adicionar: 200 with the view, versao + 1 and a new ETag; GET then answers the same bytes and ETag', async () => {
    const w = await selectionCompany(5, 2);
    const head = await headOfficeCatalog(w);
    const [a, b] = await products(w, head.id, 3);
    const before = await read(w);
    // A new company has just these three products; a deployment's shared one more: the change moves the same.
    if (deployment === undefined) expect(before.body).toEqual({ ...emptyView(5), cadastrados: 3, elegiveis: 3 });
    const answer = await patch(w, before.etag, { modo: 'selecao', adicionar: [a, b] });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({
      ...before.body,
      selecionados: 2,
      vagas: before.body.capacidade - 2,
      cobertura: 'parcial',
      versao: before.body.versao + 1,
    });
    const etag = answer.headers.get('etag');
    expect(etag).toMatch(ETAG);
    expect(etag).not.toBe(before.etag);
    expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
    const after = await read(w);
    expect(after.answer.text).toBe(answer.text);
    expect(after.etag).toBe(etag);
  });

  // spec: SURV-17, REQ-06
  it('remover, and adicionar and remover together: each accepted change moves versao by one and the ETag', async () => {
    const w = await companyWith({ surveillanceCapacity: 5 });
    const head = await headOfficeCatalog(w);
    const [a, b, c] = await products(w, head.id, 3);
    const first = await change(w, { modo: 'selecao', adicionar: [a, b, c] });
    expect(first.body).toMatchObject({ selecionados: 3, cobertura: 'integral', versao: 2, vagas: 2 });
    const second = await change(w, { modo: 'selecao', remover: [b] });
    expect(second.body).toMatchObject({ selecionados: 2, cobertura: 'parcial', versao: 3, vagas: 3 });
    expect(second.etag).not.toBe(first.etag);
    const third = await change(w, { modo: 'selecao', adicionar: [b], remover: [a, c] });
    expect(third.body).toMatchObject({ selecionados: 1, cobertura: 'parcial', versao: 4, vagas: 4 });
    expect(new Set([first.etag, second.etag, third.etag]).size).toBe(3);
    expect((await watched(w, 50)).ids).toEqual([b]);
    const last = await change(w, { modo: 'selecao', remover: [b] });
    expect(last.body).toMatchObject({ selecionados: 0, cobertura: 'sem_selecao', versao: 5 });
  });

  it('adding an already selected product is accepted and changes nothing for it; a change with no ids is accepted too; both move versao', async () => {
    const w = await companyWith({ surveillanceCapacity: 2 });
    const head = await headOfficeCatalog(w);
    const [a, b] = await products(w, head.id, 2);
    await change(w, { modo: 'selecao', adicionar: [a, b] });
    // At capacity: re-adding a selected product does not count against it.
    const again = await change(w, { modo: 'selecao', adicionar: [b, a] });
    expect(again.body).toMatchObject({ selecionados: 2, vagas: 0, cobertura: 'integral', versao: 3 });
    expect((await watched(w, 50)).ids).toEqual([a, b]);
    const empty = await change(w, { modo: 'selecao' });
    expect(empty.body).toMatchObject({ selecionados: 2, versao: 4 });
    const lists = await change(w, { modo: 'selecao', adicionar: [], remover: [] });
    expect(lists.body).toMatchObject({ selecionados: 2, versao: 5 });
    expect(lists.etag).not.toBe(empty.etag);
  });

  // spec: SURV-15
  it('runs no analysis: GET /v1/analises lists the same analyses before and after changes in both modes', async () => {
    const w = await selectionCompany(100, 2);
    const head = await headOfficeCatalog(w);
    const [a, b] = await products(w, head.id, 2);
    const before = await w.api.get('/v1/analises?limite=100');
    expect(before.status, before.text).toBe(200);
    await change(w, { modo: 'selecao', adicionar: [a, b] });
    await change(w, { modo: 'selecao', remover: [a] });
    // Mode todos takes every eligible product of the company: a deployment's may have more than its capacity.
    if (!(await read(w)).body.exige_selecao) await change(w, { modo: 'todos' });
    await change(w, { modo: 'selecao' });
    const after = await w.api.get('/v1/analises?limite=100');
    expect(after.status, after.text).toBe(200);
    // The ids, not the bytes: an analysis the company had before may move on meanwhile on a real deployment.
    const ids = (answer: Answer) => answer.body.itens.map((i: { id: string }) => i.id);
    expect(ids(after)).toEqual(ids(before));
  });

  // spec: CONV-04
  it('ids are accepted in upper case and answered in lower case', async () => {
    const w = await selectionCompany(2, 1);
    const head = await headOfficeCatalog(w);
    const [a] = await products(w, head.id, 1);
    await change(w, { modo: 'selecao', adicionar: [a!.toUpperCase()] });
    expect((await watched(w, 50)).ids).toEqual([a]);
  });

  // spec: REQ-02, REQ-03
  it('a repeat with the same idempotency-key answers the stored 200 (same bytes and ETag) and changes nothing more', async () => {
    const w = await selectionCompany(5, 1);
    const head = await headOfficeCatalog(w);
    const [a] = await products(w, head.id, 1);
    const before = await read(w);
    const key = newKey();
    const first = await patch(w, before.etag, { modo: 'selecao', adicionar: [a] }, { key });
    expect(first.status, first.text).toBe(200);
    const again = await patch(w, before.etag, { modo: 'selecao', adicionar: [a] }, { key });
    expect(again.status, again.text).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect((await read(w)).body.versao).toBe(before.body.versao + 1);
  });
});

describe('PATCH /v1/empresa/vigilancia: refusals', () => {
  it('a repeated id → 422 produto_repetido at its second place, within a list, across the lists and in another letter case', async () => {
    const w = await selectionCompany(5, 1);
    const head = await headOfficeCatalog(w);
    const [a, b] = await products(w, head.id, 2);
    await change(w, { modo: 'selecao', adicionar: [a] });
    const before = await read(w);
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', adicionar: [b, a, b] }),
      before,
      422,
      'produto_repetido',
      'body.adicionar[2]',
    );
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', adicionar: [b], remover: [a, a] }),
      before,
      422,
      'produto_repetido',
      'body.remover[1]',
    );
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', adicionar: [a], remover: [a] }),
      before,
      422,
      'produto_repetido',
      'body.remover[0]',
    );
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'todos', adicionar: [b, b!.toUpperCase()] }),
      before,
      422,
      'produto_repetido',
      'body.adicionar[1]',
    );
  });

  it("an id that is not an active product of the company → 422 produto_invalido at its place: unknown, not a product, another company's product", async () => {
    const w = await companyWith({ surveillanceCapacity: 5 });
    const head = await headOfficeCatalog(w);
    const [a, b] = await products(w, head.id, 2);
    await change(w, { modo: 'selecao', adicionar: [a] });
    const other = await otherCompany(w);
    const theirs = (await product(other, (await headOfficeCatalog(other)).id)).id;
    const before = await read(w);
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', adicionar: [b, UNKNOWN_V7_ID] }),
      before,
      422,
      'produto_invalido',
      'body.adicionar[1]',
    );
    // Ids of the company that name something else: its catalog, its head office.
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', adicionar: [head.id] }),
      before,
      422,
      'produto_invalido',
      'body.adicionar[0]',
    );
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', remover: [w.company.headOffice.id] }),
      before,
      422,
      'produto_invalido',
      'body.remover[0]',
    );
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', adicionar: [b, theirs] }),
      before,
      422,
      'produto_invalido',
      'body.adicionar[1]',
    );
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', remover: [a, theirs] }),
      before,
      422,
      'produto_invalido',
      'body.remover[1]',
    );
    // The other company's selection is untouched by any of it.
    expect((await read(other)).body).toMatchObject({ selecionados: 0, versao: 1 });
  });

  it('removing a product that is not selected → 422 produto_nao_selecionado at its place', async () => {
    const w = await selectionCompany(5, 1);
    const head = await headOfficeCatalog(w);
    const [a, b, c] = await products(w, head.id, 3);
    await change(w, { modo: 'selecao', adicionar: [a] });
    const before = await read(w);
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', remover: [a, b] }),
      before,
      422,
      'produto_nao_selecionado',
      'body.remover[1]',
    );
    // Added in the same request does not count as selected.
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', adicionar: [c], remover: [b] }),
      before,
      422,
      'produto_nao_selecionado',
      'body.remover[0]',
    );
  });

  it('checks the ids one by one in body order (adicionar, then remover), each with its three checks, before anything else', async () => {
    const w = await companyWith({ surveillanceCapacity: 1 });
    const head = await headOfficeCatalog(w);
    const [a, b, c] = await products(w, head.id, 3);
    await change(w, { modo: 'selecao', adicionar: [a] });
    const before = await read(w);
    // adicionar[1] is unknown, remover[0] repeats adicionar[0]: the first in body order wins.
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', adicionar: [b, UNKNOWN_ID], remover: [b] }),
      before,
      422,
      'produto_invalido',
      'body.adicionar[1]',
    );
    // remover[0] is not selected, remover[1] is unknown.
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', remover: [c, UNKNOWN_ID] }),
      before,
      422,
      'produto_nao_selecionado',
      'body.remover[0]',
    );
    // An unknown id written twice: the first place is already invalid.
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', adicionar: [UNKNOWN_ID, UNKNOWN_ID] }),
      before,
      422,
      'produto_invalido',
      'body.adicionar[0]',
    );
    // The ids before the precondition (none, stale) and before the capacity (2 > 1).
    await expectRefusedUnchanged(
      w,
      await patch(w, undefined, { modo: 'selecao', adicionar: [b, b] }),
      before,
      422,
      'produto_repetido',
      'body.adicionar[1]',
    );
    await expectRefusedUnchanged(
      w,
      await patch(w, '"stale"', { modo: 'selecao', remover: [c] }),
      before,
      422,
      'produto_nao_selecionado',
      'body.remover[0]',
    );
  });

  // spec: LIM-12, LIM-13
  it('more than 200 ids in a list → 422 valor_invalido at body.adicionar or body.remover; 200 pass the shape check', async () => {
    const w = await selectionCompany(5, 0);
    await headOfficeCatalog(w);
    const before = await read(w);
    const ids = (n: number) =>
      Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', adicionar: ids(201) }),
      before,
      422,
      'valor_invalido',
      'body.adicionar',
    );
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', remover: ids(201) }),
      before,
      422,
      'valor_invalido',
      'body.remover',
    );
    // Exactly 200: the shape is fine, the first id is not a product.
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, {
        modo: 'selecao',
        adicionar: ids(200),
        remover: ids(200).map((id) => id.replace('-4000-', '-4001-')),
      }),
      before,
      422,
      'produto_invalido',
      'body.adicionar[0]',
    );
  });

  // spec: SURV-09, SURV-11
  it('an invalid modo, an unknown field or an id that is not a uuid → 422 at its place', async () => {
    const w = await selectionCompany(5, 0);
    const before = await read(w);
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'tudo' }),
      before,
      422,
      'valor_invalido',
      'body.modo',
    );
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'TODOS' }),
      before,
      422,
      'valor_invalido',
      'body.modo',
    );
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 1 }),
      before,
      422,
      'valor_invalido',
      'body.modo',
    );
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', adicionar: ['123'] }),
      before,
      422,
      'valor_invalido',
      'body.adicionar[0]',
    );
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', remover: 'x' }),
      before,
      422,
      'valor_invalido',
      'body.remover',
    );
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', selecionar: [] }),
      before,
      422,
      'campo_desconhecido',
      'body.selecionar',
    );
  });

  // spec: SURV-10
  it('an adicionar that is not an array of strings → 422 valor_invalido at body.adicionar (or at its item that is no string), changing nothing', async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    const [a] = await products(w, head.id, 1);
    const before = await read(w);
    for (const adicionar of [a, {}, { 0: a }, 1, true, null]) {
      await expectRefusedUnchanged(
        w,
        await patch(w, before.etag, { modo: 'selecao', adicionar }),
        before,
        422,
        'valor_invalido',
        'body.adicionar',
      );
    }
    for (const item of [1, null, true, [a], { id: a }]) {
      await expectRefusedUnchanged(
        w,
        await patch(w, before.etag, { modo: 'selecao', adicionar: [item] }),
        before,
        422,
        'valor_invalido',
        'body.adicionar[0]',
      );
    }
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', adicionar: [a, 2] }),
      before,
      422,
      'valor_invalido',
      'body.adicionar[1]',
    );
    // The same product as an array of one string is accepted: the refusals were the shape's.
    const answer = await patch(w, before.etag, { modo: 'selecao', adicionar: [a] });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.selecionados).toBe(1);
  });

  // spec: SURV-08
  it('a missing modo → 422 campo_obrigatorio at body.modo (modo is required)', async () => {
    const w = await selectionCompany(5, 0);
    const before = await read(w);
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { adicionar: [] }),
      before,
      422,
      'campo_obrigatorio',
      'body.modo',
    );
    await expectRefusedUnchanged(w, await patch(w, before.etag, {}), before, 422, 'campo_obrigatorio', 'body.modo');
  });

  // spec: SURV-06, SURV-07
  it('without If-Match → 428 precondicao_ausente; with a stale one → 412 precondicao_falhou (both at header.if-match); both before the capacity', async () => {
    const w = await companyWith({ surveillanceCapacity: 1 });
    const head = await headOfficeCatalog(w);
    const [a, b] = await products(w, head.id, 2);
    const stale = (await read(w)).etag;
    await change(w, { modo: 'selecao', adicionar: [a] });
    const before = await read(w);
    await expectRefusedUnchanged(
      w,
      await patch(w, undefined, { modo: 'selecao', remover: [a] }),
      before,
      428,
      'precondicao_ausente',
      'header.if-match',
    );
    await expectRefusedUnchanged(
      w,
      await patch(w, stale, { modo: 'selecao', remover: [a] }),
      before,
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    // Over capacity (2 > 1 in selecao; 2 eligible > 1 in todos), the precondition is still checked first.
    await expectRefusedUnchanged(
      w,
      await patch(w, undefined, { modo: 'selecao', adicionar: [b] }),
      before,
      428,
      'precondicao_ausente',
      'header.if-match',
    );
    await expectRefusedUnchanged(
      w,
      await patch(w, stale, { modo: 'todos' }),
      before,
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    // The current ETag among others matches.
    const answer = await patch(w, `"other", ${before.etag}`, { modo: 'selecao', remover: [a] });
    expect(answer.status, answer.text).toBe(200);
  });

  // spec: SURV-12, SURV-14
  it('mode todos with more eligible products than capacity → 409 capacidade_insuficiente without caminho, and nothing changes', async () => {
    const w = await companyWith({ surveillanceCapacity: 2 });
    const head = await headOfficeCatalog(w);
    const [a, b] = await products(w, head.id, 3);
    await change(w, { modo: 'selecao', adicionar: [a] });
    const before = await read(w);
    expect(before.body).toMatchObject({ exige_selecao: true, modo: 'selecao', versao: 2 });
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'todos' }),
      before,
      409,
      'capacidade_insuficiente',
      null,
    );
    // The additions and removals that came with it are not applied either.
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'todos', adicionar: [b], remover: [a] }),
      before,
      409,
      'capacidade_insuficiente',
      null,
    );
    expect((await watched(w, 50)).ids).toEqual([a]);
  });

  // spec: SURV-13, SURV-14
  it('a selection that would exceed the capacity is refused whole (409 capacidade_insuficiente); at exactly the capacity it is accepted', async () => {
    const w = await companyWith({ surveillanceCapacity: 2 });
    const head = await headOfficeCatalog(w);
    const [a, b, c] = await products(w, head.id, 3);
    await change(w, { modo: 'selecao', adicionar: [a] });
    const before = await read(w);
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', adicionar: [b, c] }),
      before,
      409,
      'capacidade_insuficiente',
      null,
    );
    expect((await watched(w, 50)).ids).toEqual([a]);
    const answer = await patch(w, before.etag, { modo: 'selecao', adicionar: [b, c], remover: [a] });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ selecionados: 2, vagas: 0, cobertura: 'parcial', versao: 3 });
    expect((await watched(w, 50)).ids).toEqual([b, c]);
  });
});

describe('PATCH /v1/empresa/vigilancia: mode todos', () => {
  it('within capacity: every eligible product watched, cobertura integral; switching back to selecao restores the selection', async () => {
    const w = await companyWith({ surveillanceCapacity: 3 });
    const head = await headOfficeCatalog(w);
    const [a, b, c] = await products(w, head.id, 3);
    await change(w, { modo: 'selecao', adicionar: [b] });
    const all = await change(w, { modo: 'todos' });
    expect(all.body).toEqual({
      cadastrados: 3,
      selecionados: 3,
      elegiveis: 3,
      vagas: 0,
      cobertura: 'integral',
      exige_selecao: false,
      modo: 'todos',
      versao: 3,
      capacidade: 3,
      direito_ativo: true,
    });
    expect((await watched(w, 50)).ids).toEqual([a, b, c]);
    const back = await change(w, { modo: 'selecao' });
    expect(back.body).toMatchObject({ selecionados: 1, vagas: 2, cobertura: 'parcial', modo: 'selecao', versao: 4 });
    expect((await watched(w, 50)).ids).toEqual([b]);
  });

  it('adicionar and remover still apply to the kept selection while in mode todos', async () => {
    const w = await companyWith({ surveillanceCapacity: 3 });
    const head = await headOfficeCatalog(w);
    const [a, b, c] = await products(w, head.id, 3);
    await change(w, { modo: 'selecao', adicionar: [a, b] });
    const all = await change(w, { modo: 'todos', adicionar: [c], remover: [a] });
    expect(all.body).toMatchObject({ selecionados: 3, modo: 'todos', cobertura: 'integral' });
    const back = await change(w, { modo: 'selecao' });
    expect(back.body).toMatchObject({ selecionados: 2, modo: 'selecao' });
    expect((await watched(w, 50)).ids).toEqual([b, c]);
  });

  it('with no eligible product: accepted, selecionados 0 and cobertura sem_selecao', async () => {
    const w = await companyWith({ surveillanceCapacity: 0 });
    const all = await change(w, { modo: 'todos' });
    expect(all.body).toEqual({ ...emptyView(0), modo: 'todos', versao: 2 });
  });
});

describe('cobertura', () => {
  it('sem_selecao, parcial, integral as products are selected; integral again when an unselected product leaves its last catalog', async () => {
    const w = await companyWith({ surveillanceCapacity: 5 });
    const head = await headOfficeCatalog(w);
    const [a, b, c] = await products(w, head.id, 3);
    expect((await read(w)).body.cobertura).toBe('sem_selecao');
    expect((await change(w, { modo: 'selecao', adicionar: [a] })).body.cobertura).toBe('parcial');
    expect((await change(w, { modo: 'selecao', adicionar: [b, c] })).body.cobertura).toBe('integral');
    const [d] = await products(w, head.id, 1);
    expect((await read(w)).body).toMatchObject({ cobertura: 'parcial', elegiveis: 4, selecionados: 3 });
    await unlink(w, head.id, d!);
    expect((await read(w)).body).toMatchObject({
      cobertura: 'integral',
      elegiveis: 3,
      selecionados: 3,
      cadastrados: 4,
    });
  });

  it('a selected product unlinked from its last catalog stays selected and watched, no longer eligible', async () => {
    const w = await companyWith({ surveillanceCapacity: 5 });
    const head = await headOfficeCatalog(w);
    const [a, b, c] = await products(w, head.id, 3);
    await change(w, { modo: 'selecao', adicionar: [a, b] });
    const before = await read(w);
    await unlink(w, head.id, a!);
    const after = await read(w);
    expect(after.body).toEqual({ ...before.body, elegiveis: 2, cobertura: 'parcial' });
    expect(after.etag).toBe(before.etag);
    expect((await watched(w, 50)).ids).toEqual([a, b]);
    await change(w, { modo: 'selecao', adicionar: [c] });
    expect((await read(w)).body).toMatchObject({ selecionados: 3, elegiveis: 2, cobertura: 'integral' });
  });

  it('capacidade_excedida when the capacity is cut below selecionados (PATCH /_emulator/companies/{id}); the counters follow, versao does not', async () => {
    const w = await companyWith({ surveillanceCapacity: 5 });
    const head = await headOfficeCatalog(w);
    const ids = await products(w, head.id, 3);
    await change(w, { modo: 'selecao', adicionar: ids });
    const before = await read(w);
    await setCompany(w, { surveillanceCapacity: 2 });
    const after = await read(w);
    expect(after.body).toEqual({
      cadastrados: 3,
      selecionados: 3,
      elegiveis: 3,
      vagas: 0,
      cobertura: 'capacidade_excedida',
      exige_selecao: true,
      modo: 'selecao',
      versao: 2,
      capacidade: 2,
      direito_ativo: true,
    });
    expect(after.etag).toBe(before.etag);
    await setCompany(w, { surveillanceCapacity: 3 });
    expect((await read(w)).body).toMatchObject({ cobertura: 'integral', vagas: 0, exige_selecao: false });
  });

  it('capacidade_excedida in mode todos when products are created beyond the capacity', async () => {
    const w = await companyWith({ surveillanceCapacity: 2 });
    const head = await headOfficeCatalog(w);
    await products(w, head.id, 2);
    await change(w, { modo: 'todos' });
    await products(w, head.id, 1);
    expect((await read(w)).body).toMatchObject({
      selecionados: 3,
      elegiveis: 3,
      vagas: 0,
      cobertura: 'capacidade_excedida',
      exige_selecao: true,
      modo: 'todos',
    });
  });

  it('indisponivel without entitlement whatever the selection; the selection can still be changed', async () => {
    const w = await companyWith({ surveillanceCapacity: 4, surveillanceEntitled: false });
    expect((await read(w)).body).toEqual(emptyView(4, false));
    const head = await headOfficeCatalog(w);
    const [a, b] = await products(w, head.id, 2);
    const changed = await change(w, { modo: 'selecao', adicionar: [a] });
    expect(changed.body).toMatchObject({
      selecionados: 1,
      vagas: 3,
      cobertura: 'indisponivel',
      direito_ativo: false,
      versao: 2,
    });
    expect((await change(w, { modo: 'todos' })).body).toMatchObject({
      selecionados: 2,
      cobertura: 'indisponivel',
      modo: 'todos',
    });
    // The capacity check still applies.
    await setCompany(w, { surveillanceCapacity: 1 });
    expect((await read(w)).body).toMatchObject({ cobertura: 'indisponivel', capacidade: 1 });
    const before = await read(w);
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'todos', adicionar: [b] }),
      before,
      409,
      'capacidade_insuficiente',
      null,
    );
    // Entitled again: the coverage it has by the other rules.
    await setCompany(w, { surveillanceEntitled: true });
    expect((await read(w)).body).toMatchObject({ cobertura: 'capacidade_excedida', direito_ativo: true });
    // An entitled company losing its entitlement.
    await setCompany(w, { surveillanceCapacity: 5 });
    expect((await read(w)).body.cobertura).toBe('integral');
    await setCompany(w, { surveillanceEntitled: false });
    expect((await read(w)).body).toMatchObject({
      cobertura: 'indisponivel',
      direito_ativo: false,
      selecionados: 2,
      vagas: 3,
    });
  });
});

describe('GET /v1/empresa/vigilancia/produtos', () => {
  it('mode selecao: the selection in selection order, as product representations, paged by limite and cursor', async () => {
    const w = await selectionCompany(10, 4);
    const head = await headOfficeCatalog(w);
    const [a, b, c, d] = await products(w, head.id, 4);
    expect((await w.api.get(PRODUTOS)).body).toEqual({ itens: [], proximo_cursor: null });
    await change(w, { modo: 'selecao', adicionar: [c, a, d] });
    await change(w, { modo: 'selecao', remover: [a] });
    await change(w, { modo: 'selecao', adicionar: [b, a] });
    const pages = await watched(w, 2);
    expect(pages.ids).toEqual([c, d, b, a]);
    expect(pages.sizes).toEqual([2, 2]);
    const one = await w.api.get(`${PRODUTOS}?limite=1`);
    expect(one.status, one.text).toBe(200);
    const representation = await w.api.get(`/v1/produtos/${c}`);
    expect(one.body.itens).toEqual([representation.body]);
    expect(one.body.proximo_cursor).toEqual(expect.any(String));
    expect(one.headers.get('x-request-id')).toMatch(REQUEST_ID);
    // Default page: all four.
    expect((await w.api.get(PRODUTOS)).body.itens.map((p: { id: string }) => p.id)).toEqual([c, d, b, a]);
  });

  it('mode todos: every eligible product in creation order (not the selection), without the unlinked ones', async () => {
    const w = await companyWith({ surveillanceCapacity: 10 });
    const head = await headOfficeCatalog(w);
    const branch = await branchCatalog(w);
    const [a, b] = await products(w, head.id, 2);
    const [c] = await products(w, branch, 1);
    const [d, e] = await products(w, head.id, 2);
    await link(w, branch, a!);
    await unlink(w, head.id, d!);
    await change(w, { modo: 'selecao', adicionar: [e, d] });
    await change(w, { modo: 'todos' });
    const pages = await watched(w, 2);
    expect(pages.ids).toEqual([a, b, c, e]);
    expect(pages.sizes).toEqual([2, 2]);
    expect((await watched(w, 200)).ids).toEqual([a, b, c, e]);
  });

  it("a cursor of the other mode → 422 cursor_invalido at query.cursor; so is another company's cursor", async () => {
    const w = await companyWith({ surveillanceCapacity: 10 });
    const head = await headOfficeCatalog(w);
    const [a, b, c] = await products(w, head.id, 3);
    await change(w, { modo: 'selecao', adicionar: [a, b, c] });
    const selecao = (await w.api.get(`${PRODUTOS}?limite=1`)).body.proximo_cursor as string;
    // Still valid in its mode.
    const next = await w.api.get(`${PRODUTOS}?limite=1&cursor=${encodeURIComponent(selecao)}`);
    expect(next.status, next.text).toBe(200);
    expect(next.body.itens.map((p: { id: string }) => p.id)).toEqual([b]);
    await change(w, { modo: 'todos' });
    expectError(
      await w.api.get(`${PRODUTOS}?cursor=${encodeURIComponent(selecao)}`),
      422,
      'cursor_invalido',
      'query.cursor',
    );
    const todos = (await w.api.get(`${PRODUTOS}?limite=1`)).body.proximo_cursor as string;
    await change(w, { modo: 'selecao' });
    expectError(
      await w.api.get(`${PRODUTOS}?cursor=${encodeURIComponent(todos)}`),
      422,
      'cursor_invalido',
      'query.cursor',
    );
    // A cursor of a product list is not a cursor of this one either.
    const productList = (await w.api.get('/v1/produtos?limite=1')).body.proximo_cursor as string;
    expectError(
      await w.api.get(`${PRODUTOS}?cursor=${encodeURIComponent(productList)}`),
      422,
      'cursor_invalido',
      'query.cursor',
    );
    const other = await otherCompany(w);
    expectError(
      await other.api.get(`${PRODUTOS}?cursor=${encodeURIComponent(selecao)}`),
      422,
      'cursor_invalido',
      'query.cursor',
    );
    expectError(await w.api.get(`${PRODUTOS}?cursor=nada`), 422, 'cursor_invalido', 'query.cursor');
  });

  it('limite must be 1 to 200 → else 422 at query.limite; unknown parameters → 422 campo_desconhecido', async () => {
    const w = await companyWith();
    for (const limite of ['0', '201', 'x', '-1'])
      expectError(await w.api.get(`${PRODUTOS}?limite=${limite}`), 422, 'valor_invalido', 'query.limite');
    expect((await w.api.get(`${PRODUTOS}?limite=200`)).status).toBe(200);
    expectError(await w.api.get(`${PRODUTOS}?modo=todos`), 422, 'campo_desconhecido', 'query.modo');
  });
});

describe('GET /v1/empresa/capacidade', () => {
  it('answers the real figures: capacity, selecionados and vagas follow the selection, the mode, the capacity and the entitlement', async () => {
    const w = await companyWith({ surveillanceCapacity: 3, analysisAllowance: 4 });
    const capacity = async () => {
      const answer = await w.api.get(CAPACIDADE);
      expect(answer.status, answer.text).toBe(200);
      return answer.body;
    };
    expect(await capacity()).toEqual({
      vigilancia: { direito_ativo: true, capacidade: 3, selecionados: 0, vagas: 3 },
      analises: { franquia: 4, disponiveis: 4 },
    });
    const head = await headOfficeCatalog(w);
    const [a, b] = await products(w, head.id, 3);
    await change(w, { modo: 'selecao', adicionar: [a, b] });
    expect((await capacity()).vigilancia).toEqual({ direito_ativo: true, capacidade: 3, selecionados: 2, vagas: 1 });
    await change(w, { modo: 'todos' });
    expect((await capacity()).vigilancia).toEqual({ direito_ativo: true, capacidade: 3, selecionados: 3, vagas: 0 });
    await setCompany(w, { surveillanceCapacity: 1, surveillanceEntitled: false });
    expect((await capacity()).vigilancia).toEqual({ direito_ativo: false, capacidade: 1, selecionados: 3, vagas: 0 });
    // The same figures as the selection view.
    const view = (await read(w)).body;
    expect((await capacity()).vigilancia).toEqual({
      direito_ativo: view.direito_ativo,
      capacidade: view.capacidade,
      selecionados: view.selecionados,
      vagas: view.vagas,
    });
  });
});

describe('events vigilancia.degradada and vigilancia.restabelecida', () => {
  /** A company with a destination on its own host. */
  async function configured(flags: Record<string, unknown>): Promise<{ w: World; host: string }> {
    const w = await companyWith(flags);
    const host = uniqueHost();
    await createDestination(w, `https://${host}/vigilancia`);
    return { w, host };
  }

  /** Runs what is due now; the `dados` of every delivery to `host` so far, in order, checking each envelope. */
  async function delivered(w: World, host: string): Promise<Record<string, unknown>[]> {
    await advance(w, 0);
    const items = await inboxFor(w, host);
    return items.map((item) => {
      const envelope = JSON.parse(item.body);
      expect(Object.keys(envelope)).toEqual(['id', 'versao', 'empresa', 'ocorridoEm', 'dados']);
      expect(envelope.empresa).toBe(w.company.cnpjRoot);
      expect(item.tipo).toBe(envelope.dados.tipo);
      expect(item.eventId).toBe(envelope.id);
      return envelope.dados;
    });
  }

  const degradada = (cobertura: Coverage, coberturaAnterior: Coverage, selecionados: number, capacidade: number) => ({
    tipo: 'vigilancia.degradada',
    cobertura,
    coberturaAnterior,
    selecionados,
    capacidade,
  });
  const restabelecida = (
    cobertura: Coverage,
    coberturaAnterior: Coverage,
    selecionados: number,
    capacidade: number,
  ) => ({ tipo: 'vigilancia.restabelecida', cobertura, coberturaAnterior, selecionados, capacidade });

  it('cutting the capacity below selecionados raises exactly one vigilancia.degradada; restoring it raises vigilancia.restabelecida', async () => {
    const { w, host } = await configured({ surveillanceCapacity: 5 });
    const head = await headOfficeCatalog(w);
    const ids = await products(w, head.id, 3);
    await change(w, { modo: 'selecao', adicionar: ids });
    expect(await delivered(w, host)).toEqual([]);
    await setCompany(w, { surveillanceCapacity: 2 });
    expect(await delivered(w, host)).toEqual([degradada('capacidade_excedida', 'integral', 3, 2)]);
    // Further cuts stay in capacidade_excedida: nothing more.
    await setCompany(w, { surveillanceCapacity: 1 });
    expect(await delivered(w, host)).toHaveLength(1);
    await setCompany(w, { surveillanceCapacity: 5 });
    expect(await delivered(w, host)).toEqual([
      degradada('capacidade_excedida', 'integral', 3, 2),
      restabelecida('integral', 'capacidade_excedida', 3, 5),
    ]);
    // The events are the company's webhook events too.
    const list = await w.api.get(`${EVENTS}?limite=100`);
    expect(list.status, list.text).toBe(200);
    expect(list.body.itens.map((e: { tipo: string }) => e.tipo)).toEqual([
      'vigilancia.restabelecida',
      'vigilancia.degradada',
    ]);
  });

  it('losing the entitlement raises degradada (indisponivel); moving between indisponivel and capacidade_excedida raises nothing; regaining it raises restabelecida', async () => {
    const { w, host } = await configured({ surveillanceCapacity: 5 });
    const head = await headOfficeCatalog(w);
    const [a, b] = await products(w, head.id, 2);
    await change(w, { modo: 'selecao', adicionar: [a] });
    await setCompany(w, { surveillanceEntitled: false });
    expect(await delivered(w, host)).toEqual([degradada('indisponivel', 'parcial', 1, 5)]);
    // While unentitled the capacity is cut below the selection, then the entitlement returns: capacidade_excedida.
    await change(w, { modo: 'selecao', adicionar: [b] });
    await setCompany(w, { surveillanceCapacity: 1 });
    await setCompany(w, { surveillanceEntitled: true });
    expect((await read(w)).body.cobertura).toBe('capacidade_excedida');
    await setCompany(w, { surveillanceEntitled: false });
    expect(await delivered(w, host)).toHaveLength(1);
    await setCompany(w, { surveillanceCapacity: 5, surveillanceEntitled: true });
    expect(await delivered(w, host)).toEqual([
      degradada('indisponivel', 'parcial', 1, 5),
      restabelecida('integral', 'indisponivel', 2, 5),
    ]);
  });

  it('a company created without entitlement that gains it raises restabelecida (indisponivel → sem_selecao)', async () => {
    const { w, host } = await configured({ surveillanceCapacity: 5, surveillanceEntitled: false });
    expect(await delivered(w, host)).toEqual([]);
    await setCompany(w, { surveillanceEntitled: true });
    expect(await delivered(w, host)).toEqual([restabelecida('sem_selecao', 'indisponivel', 0, 5)]);
  });

  it('in mode todos, products created or linked beyond the capacity raise degradada; unlinking back within it raises restabelecida', async () => {
    const { w, host } = await configured({ surveillanceCapacity: 2 });
    const head = await headOfficeCatalog(w);
    const branch = await branchCatalog(w);
    const [a] = await products(w, head.id, 2);
    await change(w, { modo: 'todos' });
    expect(await delivered(w, host)).toEqual([]);
    const [c] = await products(w, branch, 1);
    expect(await delivered(w, host)).toEqual([degradada('capacidade_excedida', 'integral', 3, 2)]);
    await unlink(w, branch, c!);
    expect(await delivered(w, host)).toEqual([
      degradada('capacidade_excedida', 'integral', 3, 2),
      restabelecida('integral', 'capacidade_excedida', 2, 2),
    ]);
    // Linking a product that already has a catalog changes nothing; relinking the unlinked one exceeds again.
    await link(w, branch, a!);
    expect(await delivered(w, host)).toHaveLength(2);
    await link(w, head.id, c!);
    expect((await delivered(w, host)).slice(2)).toEqual([degradada('capacidade_excedida', 'integral', 3, 2)]);
  });

  it('a PATCH that brings the selection back within the capacity raises restabelecida', async () => {
    const { w, host } = await configured({ surveillanceCapacity: 3 });
    const head = await headOfficeCatalog(w);
    const [a, b, c] = await products(w, head.id, 3);
    await change(w, { modo: 'selecao', adicionar: [a, b, c] });
    await setCompany(w, { surveillanceCapacity: 1 });
    // Still above the capacity after the change (2 > 1): refused whole, nothing raised.
    const before = await read(w);
    await expectRefusedUnchanged(
      w,
      await patch(w, before.etag, { modo: 'selecao', remover: [a] }),
      before,
      409,
      'capacidade_insuficiente',
      null,
    );
    expect(await delivered(w, host)).toEqual([degradada('capacidade_excedida', 'integral', 3, 1)]);
    const cured = await change(w, { modo: 'selecao', remover: [a, b] });
    expect(cured.body).toMatchObject({ cobertura: 'parcial', selecionados: 1, vagas: 0 });
    expect(await delivered(w, host)).toEqual([
      degradada('capacidade_excedida', 'integral', 3, 1),
      restabelecida('parcial', 'capacidade_excedida', 1, 1),
    ]);
  });

  it('a catalog deletion that ends capacidade_excedida raises one restabelecida with the coverage and figures after the whole deletion', async () => {
    const { w, host } = await configured({ surveillanceCapacity: 2 });
    const head = await headOfficeCatalog(w);
    await products(w, head.id, 2);
    await change(w, { modo: 'todos' });
    await products(w, head.id, 2);
    expect(await delivered(w, host)).toEqual([degradada('capacidade_excedida', 'integral', 3, 2)]);
    await deleteCatalog(w, head.id);
    expect((await read(w)).body).toMatchObject({
      cobertura: 'sem_selecao',
      selecionados: 0,
      elegiveis: 0,
      cadastrados: 0,
    });
    expect(await delivered(w, host)).toEqual([
      degradada('capacidade_excedida', 'integral', 3, 2),
      restabelecida('sem_selecao', 'capacidade_excedida', 0, 2),
    ]);
  });

  it('raises nothing for changes that neither enter nor leave capacidade_excedida and indisponivel', async () => {
    const { w, host } = await configured({ surveillanceCapacity: 2 });
    const head = await headOfficeCatalog(w);
    const [a, b, c] = await products(w, head.id, 3);
    // sem_selecao → parcial → integral → parcial → sem_selecao, in selecao mode with elegiveis above the capacity.
    await change(w, { modo: 'selecao', adicionar: [a] });
    await change(w, { modo: 'selecao', adicionar: [b] });
    await unlink(w, head.id, c!);
    expect((await read(w)).body.cobertura).toBe('integral');
    await link(w, head.id, c!);
    await change(w, { modo: 'selecao', remover: [a, b] });
    // Capacity and entitlement changes that keep the coverage out of the degraded values.
    await setCompany(w, { surveillanceCapacity: 3 });
    await setCompany(w, { surveillanceEntitled: true });
    await change(w, { modo: 'todos' });
    await setCompany(w, { surveillanceCapacity: 4 });
    await setCompany(w, { surveillanceCapacity: 3 });
    expect((await read(w)).body).toMatchObject({ cobertura: 'integral', selecionados: 3 });
    expect(await delivered(w, host)).toEqual([]);
    const none = await w.api.get(`${EVENTS}?limite=100`);
    expect(none.body.itens).toEqual([]);
    // The destination works: the first cut below the 3 watched products is delivered.
    await setCompany(w, { surveillanceCapacity: 0 });
    expect(await delivered(w, host)).toEqual([degradada('capacidade_excedida', 'integral', 3, 0)]);
  });
});

describe('permissions', () => {
  // spec: AUTH-17
  it('PATCH needs vigilancia:gerenciar: a catalogo:ler credential gets 403 permissao_insuficiente (before the precondition) and nothing changes', async () => {
    const w = await companyWith();
    const { token } = await w.controls.addCredential(w.company.companyId, ['catalogo:ler']);
    const reader = w.api.as(token);
    const before = await read(w);
    await expectRefusedUnchanged(
      w,
      await reader.patch(VIGILANCIA, { modo: 'todos' }, { ifMatch: before.etag }),
      before,
      403,
      'permissao_insuficiente',
      undefined,
    );
    expectError(await reader.patch(VIGILANCIA, { modo: 'todos' }), 403, 'permissao_insuficiente');
    // The reads are allowed.
    for (const path of [VIGILANCIA, PRODUTOS, CAPACIDADE]) expect((await reader.get(path)).status).toBe(200);
  });

  // spec: AUTH-07
  it('the reads need catalogo:ler: a vigilancia:gerenciar credential gets 403 on the three GETs, yet may PATCH', async () => {
    const w = await companyWith();
    const { token } = await w.controls.addCredential(w.company.companyId, ['vigilancia:gerenciar']);
    const manager = w.api.as(token);
    for (const path of [VIGILANCIA, PRODUTOS, CAPACIDADE])
      expectError(await manager.get(path), 403, 'permissao_insuficiente');
    // A change a shared company's selection takes too (mode todos is refused beyond the capacity): versao moves.
    const before = await read(w);
    const answer = await manager.patch(VIGILANCIA, { modo: 'selecao' }, { ifMatch: before.etag });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ modo: 'selecao', versao: before.body.versao + 1 });
  });

  // spec: AUTH-01
  it('without a credential → 401 credencial_ausente on all four operations', async () => {
    const w = await companyWith();
    const anonymous = w.api.as(undefined);
    const before = await read(w);
    for (const path of [VIGILANCIA, PRODUTOS, CAPACIDADE])
      expectError(await anonymous.get(path), 401, 'credencial_ausente');
    expectError(
      await anonymous.patch(VIGILANCIA, { modo: 'todos' }, { ifMatch: before.etag }),
      401,
      'credencial_ausente',
    );
    expect((await read(w)).body.versao).toBe(before.body.versao);
  });
});
