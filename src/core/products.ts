/**
 * Products: shared among the catalogs they are linked to (spec "Product"; general rule 5: editing a product
 * affects every linked catalog). Lifecycle:
 *
 *   ativo   --editar-->      ativo   (PATCH: omitted fields kept, null clears, atributos replaced whole)
 *   ativo   --vincular-->    ativo   (linked to another active catalog; an existing link changes nothing)
 *   ativo   --desvincular--> ativo   (unlinked; a product with no catalog stays, not eligible)
 *   ativo   --desativar-->   inativo (catalog deletion, or a substituicao_integral ingestion it is absent from)
 *   inativo --reativar-->    ativo   (an ingestion record with its id_externo: the integrator sends it again)
 *   inativo  is otherwise kept for history: readable, never edited, linked or unlinked.
 *
 * `versao` moves on each change, including a change of `catalogos`.
 */
import { catalogTransition, findActiveCatalog, findCatalog, replaceCatalog } from './catalogs.js';
import { uuidV7 } from './random.js';
import { ok, refuse, type Result } from './refusal.js';
import {
  indexesOf,
  linksOf,
  nextPosition,
  ownedBy,
  positioned,
  type Context,
  type KindSlice,
  type Slice,
  type State,
} from './state.js';
import { at, repeatedId, repeatedPair } from './integrity.js';
import type { Instant } from './time.js';
import { productChanged } from './surveillance.js';
import { etag, requireMatch, type IfMatch } from './versioning.js';
import type { Lifecycle } from './lifecycle.js';

export interface Attribute {
  readonly codigo: string;
  readonly valores: readonly string[];
}

type ProductState = 'ativo' | 'inativo';
type ProductEvent = 'editar' | 'vincular' | 'desvincular' | 'desativar' | 'reativar';

const LIFECYCLE: Lifecycle<ProductState, ProductEvent> = {
  ativo: { editar: 'ativo', vincular: 'ativo', desvincular: 'ativo', desativar: 'inativo' },
  inativo: { reativar: 'ativo' },
};

export interface Product {
  readonly id: string;
  readonly companyId: string;
  readonly idExterno: string | null;
  readonly origem: string;
  readonly sku: string | null;
  readonly descricao: string | null;
  readonly ncm: string;
  readonly atributos: readonly Attribute[];
  readonly versao: number;
  readonly ativo: boolean;
  /** Linked catalogs, in link order. */
  readonly catalogos: readonly string[];
  readonly position: number;
  readonly criadoEm: Instant;
  readonly atualizadoEm: Instant;
}

export const productEtag = (p: Product): string => etag('produto', p.id, p.versao);

function productTransition(p: Product, event: ProductEvent): Result<ProductState> {
  const next = LIFECYCLE[p.ativo ? 'ativo' : 'inativo'][event];
  if (next !== undefined) return ok(next);
  return refuse(
    'conflict',
    'produto_inativo',
    `Product ${p.id} is inactive: it is kept for history and takes no change.`,
  );
}

export interface ProductFields {
  readonly idExterno?: string | null;
  readonly sku?: string | null;
  readonly descricao?: string | null;
  readonly ncm?: string;
  readonly atributos?: readonly Attribute[];
}

export interface NewProduct extends ProductFields {
  readonly origem: string;
  readonly ncm: string;
}

export function createProduct(
  state: State,
  companyId: string,
  catalogId: string,
  input: NewProduct,
  ctx: Context,
): Result<Product> {
  const found = findActiveCatalog(state, companyId, catalogId);
  if (!found.ok) return found;
  const duplicate = checkExternalId(state, companyId, input.idExterno ?? null, undefined);
  if (duplicate) return duplicate;
  const product = addProduct(state, companyId, catalogId, input, ctx);
  replaceCatalog(state, found.value, {}, ctx);
  return ok(product);
}

/**
 * A new active product linked to `catalogId`, indexed and counted. The caller has checked the catalog and the
 * id_externo, and moves the catalog's version: once per product here, once per application for an ingestion.
 */
export function addProduct(
  state: State,
  companyId: string,
  catalogId: string,
  input: NewProduct,
  ctx: Context,
): Product {
  const product: Product = {
    id: uuidV7(ctx.random, ctx.now),
    companyId,
    idExterno: input.idExterno ?? null,
    origem: input.origem,
    sku: input.sku ?? null,
    descricao: input.descricao ?? null,
    ncm: input.ncm,
    atributos: input.atributos ?? [],
    versao: 1,
    ativo: true,
    catalogos: [catalogId],
    position: nextPosition(state),
    criadoEm: ctx.now,
    atualizadoEm: ctx.now,
  };
  putProduct(state, product);
  linksOf(state, companyId, catalogId).add(product.id, nextPosition(state));
  productChanged(state, undefined, product, ctx);
  return product;
}

export function findProduct(state: State, companyId: string, id: string, caminho = 'path.id'): Result<Product> {
  const product = ownedBy(state.products, companyId, id);
  if (!product) return refuse('not_found', 'produto_nao_encontrado', `No product ${id} in this company.`, caminho);
  return ok(product);
}

export function editProduct(
  state: State,
  companyId: string,
  id: string,
  ifMatch: IfMatch,
  changes: ProductFields,
  ctx: Context,
): Result<Product> {
  const found = findProduct(state, companyId, id);
  if (!found.ok) return found;
  const current = found.value;
  const matched = requireMatch(ifMatch, productEtag(current), 'product');
  if (!matched.ok) return matched;
  const allowed = productTransition(current, 'editar');
  if (!allowed.ok) return allowed;
  if (changes.idExterno !== undefined) {
    const duplicate = checkExternalId(state, companyId, changes.idExterno, current.id);
    if (duplicate) return duplicate;
  }
  const updated = replaceProduct(
    state,
    current,
    {
      idExterno: changes.idExterno === undefined ? current.idExterno : changes.idExterno,
      sku: changes.sku === undefined ? current.sku : changes.sku,
      descricao: changes.descricao === undefined ? current.descricao : changes.descricao,
      ncm: changes.ncm ?? current.ncm,
      atributos: changes.atributos ?? current.atributos,
    },
    ctx,
  );
  return ok(updated);
}

/** PUT link: an existing link is a success without a new version (spec "PUT /v1/catalogos/{id}/produtos/{product_id}"). */
export function linkProduct(
  state: State,
  companyId: string,
  catalogId: string,
  productId: string,
  ifMatch: IfMatch,
  ctx: Context,
): Result<Product> {
  const catalogFound = findCatalog(state, companyId, catalogId);
  if (!catalogFound.ok) return catalogFound;
  const productFound = findProduct(state, companyId, productId, 'path.produto_id');
  if (!productFound.ok) return productFound;
  const product = productFound.value;
  const matched = requireMatch(ifMatch, productEtag(product), 'product');
  if (!matched.ok) return matched;
  const catalogAllows = catalogTransition(catalogFound.value, 'alterar_produtos');
  if (!catalogAllows.ok) return catalogAllows;
  const productAllows = productTransition(product, 'vincular');
  if (!productAllows.ok) return productAllows;
  if (product.catalogos.includes(catalogId)) return ok(product);
  linksOf(state, companyId, catalogId).add(productId, nextPosition(state));
  replaceCatalog(state, catalogFound.value, {}, ctx);
  return ok(replaceProduct(state, product, { catalogos: [...product.catalogos, catalogId] }, ctx));
}

export function unlinkProduct(
  state: State,
  companyId: string,
  catalogId: string,
  productId: string,
  ifMatch: IfMatch,
  ctx: Context,
): Result<Product> {
  const catalogFound = findCatalog(state, companyId, catalogId);
  if (!catalogFound.ok) return catalogFound;
  const productFound = findProduct(state, companyId, productId, 'path.produto_id');
  if (!productFound.ok) return productFound;
  const product = productFound.value;
  if (!product.catalogos.includes(catalogId)) {
    return refuse(
      'not_found',
      'vinculo_nao_encontrado',
      `Product ${productId} is not linked to catalog ${catalogId}.`,
      'path.produto_id',
    );
  }
  const matched = requireMatch(ifMatch, productEtag(product), 'product');
  if (!matched.ok) return matched;
  const catalogAllows = catalogTransition(catalogFound.value, 'alterar_produtos');
  if (!catalogAllows.ok) return catalogAllows;
  const productAllows = productTransition(product, 'desvincular');
  if (!productAllows.ok) return productAllows;
  const unlinked = dropLink(state, product, catalogId, false, ctx);
  replaceCatalog(state, catalogFound.value, {}, ctx);
  return ok(unlinked);
}

/**
 * Removes the product's link to `catalogId`, from the catalog's index and from its `catalogos`, in one new
 * version; `deactivate` makes it inactive in the same version (a catalog deletion, a substituicao_integral).
 * The caller moves the catalog's version.
 */
export function dropLink(
  state: State,
  product: Product,
  catalogId: string,
  deactivate: boolean,
  ctx: Context,
): Product {
  linksOf(state, product.companyId, catalogId).remove(product.id);
  const catalogos = product.catalogos.filter((c) => c !== catalogId);
  return replaceProduct(state, product, deactivate ? { catalogos, ativo: false } : { catalogos }, ctx);
}

/** A new version of the product: `versao` + 1, `atualizado_em` = now; keeps the id_externo index in step. */
export function replaceProduct(
  state: State,
  current: Product,
  changes: Partial<Omit<Product, 'id' | 'companyId' | 'versao' | 'position' | 'criadoEm' | 'atualizadoEm'>>,
  ctx: Context,
): Product {
  // Field by field in Product's order, not `{ ...current, ...changes, … }`: a spread of two objects and then two
  // more fields takes V8's generic path, ten times as long, on every PATCH.
  const updated: Product = {
    id: current.id,
    companyId: current.companyId,
    idExterno: changes.idExterno === undefined ? current.idExterno : changes.idExterno,
    origem: changes.origem === undefined ? current.origem : changes.origem,
    sku: changes.sku === undefined ? current.sku : changes.sku,
    descricao: changes.descricao === undefined ? current.descricao : changes.descricao,
    ncm: changes.ncm === undefined ? current.ncm : changes.ncm,
    atributos: changes.atributos === undefined ? current.atributos : changes.atributos,
    versao: current.versao + 1,
    ativo: changes.ativo === undefined ? current.ativo : changes.ativo,
    catalogos: changes.catalogos === undefined ? current.catalogos : changes.catalogos,
    position: current.position,
    criadoEm: current.criadoEm,
    atualizadoEm: ctx.now,
  };
  state.products.set(updated.id, updated);
  productChanged(state, current, updated, ctx);
  if (updated.idExterno !== current.idExterno) {
    const byExternalId = indexesOf(state, current.companyId).productsByExternalId;
    if (current.idExterno !== null) byExternalId.delete(current.idExterno);
    if (updated.idExterno !== null) byExternalId.set(updated.idExterno, updated.id);
  }
  return updated;
}

function checkExternalId(
  state: State,
  companyId: string,
  idExterno: string | null,
  self: string | undefined,
): Result<never> | undefined {
  if (idExterno === null) return undefined;
  const holder = indexesOf(state, companyId).productsByExternalId.get(idExterno);
  if (holder === undefined || holder === self) return undefined;
  return refuse(
    'conflict',
    'id_externo_duplicado',
    `Product ${holder} already has id_externo "${idExterno}"; a product's id_externo is unique within the company.`,
    'body.id_externo',
  );
}

export function productByExternalId(state: State, companyId: string, idExterno: string): Product | undefined {
  const id = indexesOf(state, companyId).productsByExternalId.get(idExterno);
  return id === undefined ? undefined : state.products.get(id);
}

/** The company's products after `position`, in creation order. */
export function* productsAfter(state: State, companyId: string, position?: number): Generator<[Product, number]> {
  for (const [id, at] of state.products.listOf(companyId).after(position)) {
    const product = state.products.get(id);
    if (product) yield [product, at];
  }
}

/** The products linked to a catalog after link `position`, in link order. */
export function* catalogProductsAfter(
  state: State,
  companyId: string,
  catalogId: string,
  position?: number,
): Generator<[Product, number]> {
  for (const [id, at] of linksOf(state, companyId, catalogId).after(position)) {
    const product = state.products.get(id);
    if (product) yield [product, at];
  }
}

/** A new (or restored) product, in its company's list and `id_externo` index. */
function putProduct(state: State, product: Product): void {
  state.products.set(product.id, product);
  if (product.idExterno !== null)
    indexesOf(state, product.companyId).productsByExternalId.set(product.idExterno, product.id);
}

/** A product that shares nothing with `p`, its fields in the order of Product (and of a snapshot's products). */
const copyProduct = (p: Product): Product => ({
  id: p.id,
  companyId: p.companyId,
  idExterno: p.idExterno,
  origem: p.origem,
  sku: p.sku,
  descricao: p.descricao,
  ncm: p.ncm,
  atributos: p.atributos.map((a) => ({ codigo: a.codigo, valores: [...a.valores] })),
  versao: p.versao,
  ativo: p.ativo,
  catalogos: [...p.catalogos],
  position: p.position,
  criadoEm: p.criadoEm,
  atualizadoEm: p.atualizadoEm,
});

export const productsSlice: KindSlice<'products', readonly Product[], Product> = {
  ...positioned('products', (state) => state.products, putProduct, true),
  copy: (products) => products.map(copyProduct),
  removeCompany: (state, companyId) => state.products.dropCompany(companyId),
  holds: ['products'],
  indexes: ['productsByExternalId'],
  unique: (products, r) =>
    repeatedId('products', products, 'product', r.products) ??
    repeatedPair(
      'products',
      products,
      'idExterno',
      (p) => p.companyId,
      (p) => p.idExterno ?? undefined,
      (p) => `id_externo "${p.idExterno}" in company ${p.companyId}`,
    ),
  check: (data, r) => {
    // Catalog id → the products linked to it: looked up by the two ids as they are, not by a string joining them
    // per link and per lookup, which took several times as long on a large state.
    const linked = new Map<string, Set<string>>();
    for (const [catalogId, productId] of data.links) {
      let products = linked.get(catalogId);
      if (!products) linked.set(catalogId, (products = new Set()));
      products.add(productId);
    }
    for (const [i, p] of data.products.entries()) {
      if (!r.companies.has(p.companyId))
        return at(['products', i, 'companyId'], `product ${p.id} belongs to unknown company ${p.companyId}`);
      if (!p.ativo && p.catalogos.length > 0)
        return at(['products', i, 'catalogos'], `product ${p.id} is inactive, so it is linked to no catalog`);
      // A product has a few catalogs, searched in place; a snapshot could list thousands, which a set keeps linear.
      const earlier = p.catalogos.length > 16 ? new Set<string>() : undefined;
      for (const [j, id] of p.catalogos.entries()) {
        const catalog = r.catalogs.get(id);
        if (catalog?.companyId !== p.companyId)
          return at(['products', i, 'catalogos', j], `product ${p.id}: catalog ${id} is not of its company`);
        if (catalog.estado !== 'ativo')
          return at(
            ['products', i, 'catalogos', j],
            `product ${p.id}: catalog ${id} is deleted, and a deleted catalog has no products`,
          );
        if (earlier ? earlier.has(id) : p.catalogos.indexOf(id) !== j)
          return at(['products', i, 'catalogos', j], `product ${p.id}: catalog ${id} appears twice`);
        earlier?.add(id);
        if (!linked.get(id)?.has(p.id))
          return at(['products', i, 'catalogos', j], `product ${p.id}: its link to catalog ${id} is not in links`);
      }
    }
    return undefined;
  },
};

/** A link of a product to a catalog: [catalog id, product id, position], in link order. */
export type Link = readonly [catalogId: string, productId: string, position: number];

/** `links` in position order, sorted in place unless they are in it already (as byPosition in state.ts does). */
function inLinkOrder<L extends Link>(links: L[]): L[] {
  for (let i = 1; i < links.length; i++) if (links[i - 1]![2] > links[i]![2]) return links.sort((a, b) => a[2] - b[2]);
  return links;
}

/** A product's links, in the order of its `catalogos` (none for a product that is gone). */
function linksOfProduct(state: State, productId: string): Link[] {
  const product = state.products.get(productId);
  if (!product) return [];
  const lists = state.indexes.get(product.companyId)?.catalogProducts;
  return product.catalogos.map(
    (catalogId): Link => [catalogId, productId, lists?.get(catalogId)?.positionOf(productId) ?? -1],
  );
}

/**
 * The links, each catalog's in its own index (a product's `catalogos` says the same, without their order). A link
 * changes only with its product's `catalogos` (linked, unlinked, the product deactivated or removed), so the change
 * log writes a product's links with the product, under its id.
 */
export const linksSlice: Slice<'links', readonly Link[]> = {
  key: 'links',
  holds: [],
  indexes: ['catalogProducts'],
  log: { keyOf: ([, productId]) => productId, itemsAt: linksOfProduct, follows: 'products' },
  ownerOf: ([catalogId], r) => r.catalogs.get(catalogId)?.companyId,
  // The links live in the company's indexes, which its companies slice drops.
  removeCompany: () => undefined,
  toData: (state) => {
    const links: [string, string, number][] = [];
    for (const catalog of state.catalogs.values()) {
      const index = state.indexes.get(catalog.companyId)?.catalogProducts.get(catalog.id);
      for (const [productId, position] of index?.after() ?? []) links.push([catalog.id, productId, position]);
    }
    return inLinkOrder(links);
  },
  // toData builds each link new, out of strings and numbers: it shares nothing with the state already.
  copy: (links) => links,
  fromData: (state, links) => {
    for (const [catalogId, productId, position] of inLinkOrder([...links])) {
      const catalog = state.catalogs.get(catalogId);
      if (catalog) linksOf(state, catalog.companyId, catalogId).add(productId, position);
    }
  },
  unique: (links) =>
    repeatedPair(
      'links',
      links,
      1,
      ([catalogId]) => catalogId,
      ([, productId]) => productId,
      ([catalogId, productId]) => `the link of product ${productId} to catalog ${catalogId}`,
    ),
  check: (data, r) => {
    for (const [i, [catalogId, productId]] of data.links.entries()) {
      if (!r.products.get(productId)?.catalogos.includes(catalogId))
        return at(['links', i], `link ${catalogId} → ${productId} is not in the product's catalogos`);
    }
    return undefined;
  },
  positions: (links) => [{ count: links.length, at: (i) => links[i]![2], path: (i) => ['links', i, 2] }],
};
