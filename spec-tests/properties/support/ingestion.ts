/**
 * Shared pieces of the batch-ingestion properties (docs/batch-ingestion.md): a random starting catalog built
 * over HTTP, random product records, the ingestion flow (start, batches, close, validation on the clock,
 * apply), reads of everything the properties compare, and an independent model of what an application does.
 *
 * The starting catalog: the target catalog T (head office), another catalog O (a branch), and products that
 * are in T only, shared by T and O, in O only, inactive (created in a third catalog that is then deleted) or
 * active with no catalog (unlinked from T); some with no id_externo; some selected for surveillance.
 * Existing products have id_externo `P<n>` (their index); records for new products use `N<n>`.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { Api, type Answer } from '../../support/client.js';
import { cnpjOfNumber } from '../../support/cnpj.js';
import { lab, type Lab } from './lab.js';

export type Operacao = 'mesclar' | 'substituicao_catalogo' | 'substituicao_integral';
export const OPERACOES: readonly Operacao[] = ['mesclar', 'substituicao_catalogo', 'substituicao_integral'];

interface Attribute {
  readonly codigo: string;
  readonly valores: readonly string[];
}

/** A product's record fields (null / [] for the absent optional ones). */
export interface Fields {
  readonly origem: string;
  readonly ncm: string;
  readonly sku: string | null;
  readonly descricao: string | null;
  readonly atributos: readonly Attribute[];
}

export interface ProductView extends Fields {
  readonly id: string;
  readonly id_externo: string | null;
  readonly versao: number;
  readonly ativo: boolean;
  readonly catalogos: readonly string[];
}

type Where = 'target' | 'shared' | 'other' | 'inactive' | 'loose';

export interface SeedProduct {
  readonly where: Where;
  readonly fields: Fields;
  /** No id_externo (an ingestion can never match it). */
  readonly noExternalId: boolean;
  readonly selected: boolean;
}

// ---------------------------------------------------------------------------------------------------------
// Generators: small pools, so that equal fields (inalterado) and repeated id_externo happen often.

const ATTRIBUTE_LISTS: readonly (readonly Attribute[])[] = [
  [],
  [{ codigo: 'COR', valores: ['azul'] }],
  [
    { codigo: 'COR', valores: ['azul'] },
    { codigo: 'TAM', valores: ['P', 'M'] },
  ],
  // The same attributes in another order: a change (order included).
  [
    { codigo: 'TAM', valores: ['P', 'M'] },
    { codigo: 'COR', valores: ['azul'] },
  ],
  [{ codigo: 'COR', valores: ['verde'] }],
];

const fieldsArb: fc.Arbitrary<Fields> = fc.record({
  origem: fc.constantFrom('erp', 'pdv'),
  ncm: fc.constantFrom('84713012', '87081000'),
  sku: fc.constantFrom(null, 'S-1', 'S-2'),
  descricao: fc.constantFrom(null, 'Parafuso', 'Porca'),
  atributos: fc.constantFrom(...ATTRIBUTE_LISTS),
});

export const seedProductArb: fc.Arbitrary<SeedProduct> = fc.record({
  where: fc.constantFrom<Where>('target', 'target', 'shared', 'other', 'inactive', 'loose'),
  fields: fieldsArb,
  noExternalId: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
  selected: fc.boolean(),
});

export const seedArb: fc.Arbitrary<readonly SeedProduct[]> = fc.array(seedProductArb, { maxLength: 8 });

/**
 * A record's target: an existing product by index (modulo the seed's count; a new one when there is none),
 * or a new id_externo `N<n>`; its fields, or the product's current fields (`same`).
 */
export interface RecordSpec {
  readonly ref: { readonly existing: number } | { readonly novo: number };
  readonly same: boolean;
  readonly fields: Fields;
  /** How absent optional fields are written: omitted, or null / []. */
  readonly explicitNulls: boolean;
}

export const recordSpecArb = (maxNew = 6): fc.Arbitrary<RecordSpec> =>
  fc.record({
    ref: fc.oneof(
      { weight: 3, arbitrary: fc.nat(7).map((existing) => ({ existing })) },
      { weight: 2, arbitrary: fc.nat(maxNew - 1).map((novo) => ({ novo })) },
    ),
    same: fc.boolean(),
    fields: fieldsArb,
    explicitNulls: fc.boolean(),
  });

const externalIdOf = (index: number) => `P${index}`;
const newExternalIdOf = (index: number) => `N${index}`;

/** The id_externo a record spec names, against the seed. */
export function recordExternalId(seed: readonly SeedProduct[], spec: RecordSpec): string {
  if ('existing' in spec.ref && seed.length > 0) return externalIdOf(spec.ref.existing % seed.length);
  return newExternalIdOf('novo' in spec.ref ? spec.ref.novo : spec.ref.existing);
}

/** The record item (JSON) of a spec, against the products as they are (`same` copies the product's fields). */
export function recordItem(
  seed: readonly SeedProduct[],
  products: readonly ProductView[],
  spec: RecordSpec,
): Record<string, unknown> {
  const idExterno = recordExternalId(seed, spec);
  const holder = products.find((p) => p.id_externo === idExterno);
  const fields: Fields = spec.same && holder ? holder : spec.fields;
  return itemOf(idExterno, fields, spec.explicitNulls);
}

export function itemOf(idExterno: string, f: Fields, explicitNulls: boolean): Record<string, unknown> {
  const item: Record<string, unknown> = { id_externo: idExterno, origem: f.origem, ncm: f.ncm };
  if (f.sku !== null || explicitNulls) item.sku = f.sku;
  if (f.descricao !== null || explicitNulls) item.descricao = f.descricao;
  if (f.atributos.length > 0 || explicitNulls)
    item.atributos = f.atributos.map((a) => ({ codigo: a.codigo, valores: [...a.valores] }));
  return item;
}

/** The fields of a valid record item (absent optional fields → null / []). */
function fieldsOfItem(item: Record<string, unknown>): Fields {
  return {
    origem: item.origem as string,
    ncm: item.ncm as string,
    sku: (item.sku as string | null | undefined) ?? null,
    descricao: (item.descricao as string | null | undefined) ?? null,
    atributos: (item.atributos as Attribute[] | undefined) ?? [],
  };
}

// ---------------------------------------------------------------------------------------------------------
// HTTP helpers

export function ok(answer: Answer, what: string): Answer {
  if (answer.status >= 300) throw new Error(`${what} answered ${answer.status}: ${answer.text}`);
  return answer;
}

/** Every item of a cursor-paged list. */
async function allItems<T>(api: Api, path: string, limite = 200): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const answer = ok(
      await api.get(`${path}${sep}limite=${limite}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`),
      path,
    );
    items.push(...(answer.body.itens as T[]));
    cursor = answer.body.proximo_cursor ?? null;
  } while (cursor !== null);
  return items;
}

export const allProducts = (api: Api) => allItems<ProductView>(api, '/v1/produtos');
export const catalogProductIds = async (api: Api, catalogId: string) =>
  (await allItems<ProductView>(api, `/v1/catalogos/${catalogId}/produtos`)).map((p) => p.id);
export const watchedIds = async (api: Api) =>
  (await allItems<ProductView>(api, '/v1/empresa/vigilancia/produtos')).map((p) => p.id);

/** The dados of the company's webhook events, oldest first. */
export async function eventDados(api: Api): Promise<Record<string, unknown>[]> {
  const list = ok(await api.get('/v1/webhook/eventos?limite=100'), 'events');
  expect(list.body.proximo_cursor ?? null).toBeNull();
  const ids: string[] = list.body.itens.map((e: { id: string }) => e.id).reverse();
  const dados: Record<string, unknown>[] = [];
  for (const id of ids) dados.push(ok(await api.get(`/v1/webhook/eventos/${id}`), 'event').body.evento.dados);
  return dados;
}

// ---------------------------------------------------------------------------------------------------------
// The starting catalog

export interface Built {
  readonly api: Api;
  /** The target catalog T (head office). */
  readonly target: string;
  /** The other catalog O (a branch). */
  readonly other: string;
  /** Product id per seed index. */
  readonly ids: readonly string[];
}

/** A fresh lab (capacity 1000, so every selection fits). */
export function ingestionLab(): Lab {
  return lab({}, { surveillanceCapacity: 1000 });
}

/** A second company on the lab's emulator, with its own all-permissions API. */
export function secondCompany(l: Lab): { api: Api; headOffice: string; cnpjRoot: string } {
  const info = l.emu.companies.create({ surveillanceCapacity: 1000 });
  return { api: new Api(l.target, info.token), headOffice: info.headOffice.id, cnpjRoot: info.cnpjRoot };
}

/** Builds the seed's starting catalog in the company of `api`. */
export async function build(
  api: Api,
  headOffice: string,
  cnpjRoot: string,
  seed: readonly SeedProduct[],
): Promise<Built> {
  // A webhook destination, so the events an application raises are recorded (spec: CONV-09: none without one).
  ok(
    await api.put(
      '/v1/webhook',
      { url: `https://hooks-${cnpjRoot}.example.com/eventos` },
      { headers: { 'if-none-match': '*' } },
    ),
    'webhook destination',
  );
  const catalogFor = async (order: number, nome: string) => {
    let establishmentId = headOffice;
    if (order > 1)
      establishmentId = ok(
        await api.post('/v1/estabelecimentos', { cnpj: cnpjOfNumber(cnpjRoot, order), nome: `Filial ${order}` }),
        'establishment',
      ).body.id;
    return ok(await api.post('/v1/catalogos', { estabelecimento_id: establishmentId, nome }), 'catalog').body
      .id as string;
  };
  const target = await catalogFor(1, 'T');
  const other = await catalogFor(2, 'O');
  const doomed = seed.some((s) => s.where === 'inactive') ? await catalogFor(3, 'D') : undefined;
  const ids: string[] = [];
  for (const [n, s] of seed.entries()) {
    const home = s.where === 'other' ? other : s.where === 'inactive' ? doomed! : target;
    const body = { ...itemOf(externalIdOf(n), s.fields, false), ...(s.noExternalId ? { id_externo: null } : {}) };
    const created = ok(await api.post(`/v1/catalogos/${home}/produtos`, body), 'product');
    ids.push(created.body.id);
    const etag = created.headers.get('etag')!;
    if (s.where === 'shared')
      ok(await api.put(`/v1/catalogos/${other}/produtos/${created.body.id}`, {}, { ifMatch: etag }), 'link');
    if (s.where === 'loose')
      ok(await api.delete(`/v1/catalogos/${target}/produtos/${created.body.id}`, {}, { ifMatch: etag }), 'unlink');
  }
  if (doomed !== undefined) {
    const preview = ok(await api.get(`/v1/catalogos/${doomed}/impacto-exclusao`), 'deletion preview');
    ok(await api.delete(`/v1/catalogos/${doomed}`, {}, { ifMatch: preview.headers.get('etag')! }), 'deletion');
  }
  const selected = seed.flatMap((s, n) => (s.selected && s.where !== 'inactive' ? [ids[n]!] : []));
  if (selected.length > 0) {
    const view = ok(await api.get('/v1/empresa/vigilancia'), 'surveillance');
    ok(
      await api.patch(
        '/v1/empresa/vigilancia',
        { modo: 'selecao', adicionar: selected },
        { ifMatch: view.headers.get('etag')! },
      ),
      'selection',
    );
  }
  return { api, target, other, ids };
}

// ---------------------------------------------------------------------------------------------------------
// The ingestion flow

export async function startIngestion(api: Api, catalogId: string, operacao: Operacao): Promise<string> {
  const answer = await api.post('/v1/catalogos/ingestoes', { operacao, catalogo_id: catalogId });
  expect(answer.status, answer.text).toBe(201);
  return answer.body.ingestao_id;
}

/** Closes the ingestion and runs the validation on the clock; the ingestion read afterwards. */
export async function closeAndValidate(l: Lab, api: Api, id: string, totalLotes: number): Promise<Answer> {
  const closed = await api.post(`/v1/catalogos/ingestoes/${id}/fechamento`, { total_lotes: totalLotes });
  expect(closed.status, closed.text).toBe(202);
  expect(closed.body.estado).toBe('validando');
  await l.controls.advance('1m');
  return ok(await api.get(`/v1/catalogos/ingestoes/${id}`), 'ingestion');
}

/** The preview with every page of its errors (read `limite` at a time), and the ingestion's other fields. */
export async function fullIngestion(
  api: Api,
  id: string,
  limite: number,
): Promise<{ ingestion: Record<string, unknown>; previa: Record<string, unknown> | null }> {
  const first = ok(await api.get(`/v1/catalogos/ingestoes/${id}?limite=${limite}`), 'ingestion');
  const { previa, ...ingestion } = first.body as { previa: Record<string, unknown> | null };
  if (previa === null) return { ingestion, previa };
  const erros = [...(previa.erros as unknown[])];
  let cursor = previa.proximo_cursor as string | null;
  while (cursor !== null) {
    const page = ok(
      await api.get(`/v1/catalogos/ingestoes/${id}?limite=${limite}&cursor=${encodeURIComponent(cursor)}`),
      'errors page',
    );
    erros.push(...(page.body.previa.erros as unknown[]));
    cursor = page.body.previa.proximo_cursor;
  }
  const { proximo_cursor: _last, ...rest } = previa;
  return { ingestion, previa: { ...rest, erros } };
}

/** Splits `items` into `parts` non-empty batches (fewer when there are fewer items), in order. */
export function split<T>(items: readonly T[], parts: number): T[][] {
  const count = Math.max(1, Math.min(parts, items.length));
  const size = Math.ceil(items.length / count);
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}

// ---------------------------------------------------------------------------------------------------------
// The model of an application (simpler than the system: whole product views, no indexes)

export interface Counts {
  registros: number;
  novos: number;
  alterados: number;
  inalterados: number;
  reativados: number;
  vinculados: number;
  desvinculados: number;
  desativados: number;
}

export interface Predicted {
  readonly counts: Counts;
  /** Existing products after the application, by id (unchanged ones included, same versao). */
  readonly existing: Map<string, ProductView>;
  /** The products created, without their id. */
  readonly created: readonly Omit<ProductView, 'id'>[];
  /** Existing products that went from active to inactive. */
  readonly deactivated: readonly string[];
  /** Existing products the application reads (matched by a record, or to be unlinked): their change makes it stale. */
  readonly read: ReadonlySet<string>;
  /** The id_externo of the products it creates. */
  readonly creates: ReadonlySet<string>;
}

const sameFields = (p: Fields, f: Fields) =>
  p.origem === f.origem &&
  p.sku === f.sku &&
  p.descricao === f.descricao &&
  p.ncm === f.ncm &&
  JSON.stringify(p.atributos) === JSON.stringify(f.atributos);

/** What applying `items` (valid, one per id_externo) with `operacao` to catalog `target` does to `before`. */
export function predict(
  before: readonly ProductView[],
  target: string,
  operacao: Operacao,
  items: readonly Record<string, unknown>[],
): Predicted {
  const counts: Counts = {
    registros: 0,
    novos: 0,
    alterados: 0,
    inalterados: 0,
    reativados: 0,
    vinculados: 0,
    desvinculados: 0,
    desativados: 0,
  };
  const existing = new Map(before.map((p) => [p.id, p]));
  const created: Omit<ProductView, 'id'>[] = [];
  const deactivated: string[] = [];
  const read = new Set<string>();
  const creates = new Set<string>();
  const named = new Set<string>();
  for (const item of items) {
    const idExterno = item.id_externo as string;
    named.add(idExterno);
    counts.registros++;
    const fields = fieldsOfItem(item);
    const product = before.find((p) => p.id_externo === idExterno);
    if (!product) {
      counts.novos++;
      creates.add(idExterno);
      created.push({ id_externo: idExterno, ...fields, versao: 1, ativo: true, catalogos: [target] });
      continue;
    }
    read.add(product.id);
    const link = !product.catalogos.includes(target);
    if (link) counts.vinculados++;
    const catalogos = link ? [...product.catalogos, target] : product.catalogos;
    if (!product.ativo) {
      counts.reativados++;
      existing.set(product.id, { ...product, ...fields, ativo: true, catalogos, versao: product.versao + 1 });
    } else if (sameFields(product, fields)) {
      counts.inalterados++;
      if (link) existing.set(product.id, { ...product, catalogos, versao: product.versao + 1 });
    } else {
      counts.alterados++;
      existing.set(product.id, { ...product, ...fields, catalogos, versao: product.versao + 1 });
    }
  }
  if (operacao !== 'mesclar') {
    for (const product of before) {
      if (!product.catalogos.includes(target) || (product.id_externo !== null && named.has(product.id_externo)))
        continue;
      read.add(product.id);
      counts.desvinculados++;
      const deactivate = operacao === 'substituicao_integral' && product.catalogos.length === 1;
      if (deactivate) {
        counts.desativados++;
        deactivated.push(product.id);
      }
      existing.set(product.id, {
        ...product,
        catalogos: product.catalogos.filter((c) => c !== target),
        ativo: deactivate ? false : product.ativo,
        versao: product.versao + 1,
      });
    }
  }
  return { counts, existing, created, deactivated, read, creates };
}

/** The preview's counts, in the model's shape. */
export function countsOf(previa: Record<string, unknown>): Counts {
  const { registros, novos, alterados, inalterados, reativados, vinculados, desvinculados, desativados } =
    previa as unknown as Counts;
  return { registros, novos, alterados, inalterados, reativados, vinculados, desvinculados, desativados };
}

/**
 * Asserts that the company's products are exactly the prediction: every existing product as predicted
 * (fields, ativo, catalogos, versao), the created ones after them (compared by id_externo), and nothing else.
 */
export function expectProducts(
  after: readonly ProductView[],
  before: readonly ProductView[],
  predicted: Predicted,
): void {
  expect(after.length).toBe(before.length + predicted.created.length);
  for (const [i, p] of before.entries()) expect(after[i]).toEqual(predicted.existing.get(p.id));
  const byExternalId = (a: { id_externo: string | null }, b: { id_externo: string | null }) =>
    String(a.id_externo).localeCompare(String(b.id_externo));
  const created = after
    .slice(before.length)
    .map(({ id: _id, ...rest }) => rest)
    .sort(byExternalId);
  expect(created).toEqual([...predicted.created].sort(byExternalId));
}
