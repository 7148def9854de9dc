/** Products and links: spec "Endpoints › Products" and the PUT link; other paths from docs/api.md. */
import { findActiveCatalog } from '../../core/catalogs.js';
import {
  catalogProductsAfter,
  createProduct,
  editProduct,
  findProduct,
  linkProduct,
  productByExternalId,
  productsAfter,
  unlinkProduct,
  type Product,
} from '../../core/products.js';
import { ok, type Result } from '../../core/refusal.js';
import { collectPage, cursorPageBody, readCursor } from '../paging.js';
import { operation, type Reply } from '../pipeline.js';
import { presentedProduct, presentProduct } from '../presenters.js';
import * as answers from '../contract/products.js';
import { MUT_STATUSES, READ_STATUSES } from '../contract/wire.js';
import {
  catalogProductParams,
  companyProductListQuery,
  emptyBody,
  idParams,
  INPUT_LIMITS,
  noQuery,
  productCreate,
  productListQuery,
  productPatch,
} from '../schemas.js';

const MANAGE = 'catalogo:gerenciar';
const READ = 'catalogo:ler';

/** The product as answered; a `read` keeps its answer for the next read of this version (presenters.ts). */
function answer(result: Result<Product>, status = 200, withLocation = false, read = false): Result<Reply> {
  if (!result.ok) return result;
  const { json, etag } = presentedProduct(result.value, read);
  return ok(
    withLocation
      ? { status, body: json, etag, location: `/v1/produtos/${result.value.id}` }
      : { status, body: json, etag },
  );
}

function productPage(
  entries: Iterable<[Product, number]>,
  limit: number,
  budget: number,
  companyId: string,
  list: string,
): Reply {
  const page = collectPage(
    entries,
    limit,
    budget,
    ([p]) => presentProduct(p),
    ([, position]) => position,
  );
  return { status: 200, body: cursorPageBody(page, companyId, list) };
}

export const productOperations = [
  operation({
    method: 'POST',
    path: '/v1/catalogos/:id/produtos',
    doc: {
      id: 'createProduct',
      summary: 'Create a product in a catalog',
      tag: 'Products',
      choice: 'The spec lists this operation without its path: POST on the products of the catalog.',
      description:
        "The product is created linked to the catalog, which must be active. A product's id_externo is unique within the company (409).",
      success: { 201: { description: 'The product created.', body: answers.Product, headers: ['etag', 'location'] } },
      errors: MUT_STATUSES,
    },
    permission: MANAGE,
    params: idParams,
    query: noQuery,
    body: productCreate,
    run: ({ state, ctx, company, params, body }) =>
      answer(
        createProduct(
          state,
          company.id,
          params.id,
          {
            origem: body.origem,
            ncm: body.ncm,
            idExterno: body.id_externo ?? null,
            sku: body.sku ?? null,
            descricao: body.descricao ?? null,
            atributos: body.atributos ?? [],
          },
          ctx,
        ),
        201,
        true,
      ),
  }),
  operation({
    method: 'GET',
    path: '/v1/catalogos/:id/produtos',
    doc: {
      id: 'listCatalogProducts',
      summary: 'Get the products of an active catalog',
      tag: 'Products',
      choice:
        'The spec lists this operation without its path: GET on the products of the catalog, where they are created and linked.',
      description: 'Follow proximo_cursor (as cursor) until null.',
      success: { 200: { description: 'A page of the products linked to the catalog.', body: answers.ProductPage } },
      errors: READ_STATUSES,
      extraErrors: [
        {
          status: 409,
          choice: 'The catalog is deleted (catalogo_excluido): the operation lists the products of an active catalog.',
        },
      ],
    },
    permission: READ,
    params: idParams,
    query: productListQuery,
    run: ({ state, runtime, company, params, query }) => {
      const catalog = findActiveCatalog(state, company.id, params.id);
      if (!catalog.ok) return catalog;
      const list = `catalogo:${params.id}`;
      const after = readCursor(query.cursor, company.id, list);
      if (!after.ok) return after;
      return ok(
        productPage(
          catalogProductsAfter(state, company.id, params.id, after.value),
          query.limite ?? INPUT_LIMITS.page.default,
          runtime.pageBudgets.products,
          company.id,
          list,
        ),
      );
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/produtos',
    doc: {
      id: 'listProducts',
      summary: 'Get the products of the company',
      tag: 'Products',
      choice: 'The spec lists this operation without its path: the collection of GET /v1/produtos/{id}.',
      description:
        'Follow proximo_cursor (as cursor) until null. With id_externo, the page holds that product alone, or nothing.',
      success: { 200: { description: 'A page of the products of the company.', body: answers.ProductPage } },
      errors: READ_STATUSES,
    },
    permission: READ,
    params: noQuery,
    query: companyProductListQuery,
    run: ({ state, runtime, company, query }) => {
      const after = readCursor(query.cursor, company.id, 'produtos');
      if (!after.ok) return after;
      // id_externo is unique in the company: the filtered list is that product alone, on one page.
      if (query.id_externo !== undefined) {
        const product = productByExternalId(state, company.id, query.id_externo);
        const matches: [Product, number][] = product && after.value === undefined ? [[product, product.position]] : [];
        return ok(productPage(matches, 1, runtime.pageBudgets.products, company.id, 'produtos'));
      }
      return ok(
        productPage(
          productsAfter(state, company.id, after.value),
          query.limite ?? INPUT_LIMITS.page.default,
          runtime.pageBudgets.products,
          company.id,
          'produtos',
        ),
      );
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/produtos/:id',
    doc: {
      id: 'getProduct',
      summary: 'Get a product',
      tag: 'Products',
      success: { 200: { description: 'The product.', body: answers.Product, headers: ['etag'] } },
      errors: READ_STATUSES,
    },
    permission: READ,
    params: idParams,
    query: noQuery,
    run: ({ state, company, params }) => answer(findProduct(state, company.id, params.id), 200, false, true),
  }),
  operation({
    method: 'PATCH',
    path: '/v1/produtos/:id',
    doc: {
      id: 'updateProduct',
      summary: 'Edit a shared product',
      tag: 'Products',
      description:
        'Omitted fields are preserved; null clears optional fields; atributos replaces the whole list. Affects every catalog linked to the product.',
      success: { 200: { description: 'The product as changed.', body: answers.Product, headers: ['etag'] } },
      errors: MUT_STATUSES,
    },
    permission: MANAGE,
    params: idParams,
    query: noQuery,
    body: productPatch,
    run: ({ state, ctx, company, params, body, ifMatch }) =>
      answer(
        editProduct(
          state,
          company.id,
          params.id,
          ifMatch,
          {
            idExterno: body.id_externo,
            sku: body.sku,
            descricao: body.descricao,
            ncm: body.ncm,
            atributos: body.atributos,
          },
          ctx,
        ),
      ),
  }),
  operation({
    method: 'PUT',
    path: '/v1/catalogos/:id/produtos/:produto_id',
    doc: {
      id: 'linkProduct',
      summary: 'Link an existing product to a catalog',
      tag: 'Products',
      description:
        "If-Match is the product's ETag. Changes no product field and selects nothing for surveillance; an existing link is a success without a new change.",
      success: { 200: { description: 'The product, linked.', body: answers.Product, headers: ['etag'] } },
      errors: MUT_STATUSES,
    },
    permission: MANAGE,
    params: catalogProductParams,
    query: noQuery,
    body: emptyBody,
    bodyOptional: true,
    run: ({ state, ctx, company, params, ifMatch }) =>
      answer(linkProduct(state, company.id, params.id, params.produto_id, ifMatch, ctx)),
  }),
  operation({
    method: 'DELETE',
    path: '/v1/catalogos/:id/produtos/:produto_id',
    doc: {
      id: 'unlinkProduct',
      summary: 'Remove a product from a catalog',
      tag: 'Products',
      choice: 'The spec lists this operation without its path: DELETE on the link the PUT creates.',
      description:
        "If-Match is the product's ETag. A product left in no catalog stays active. A product not linked to the catalog is 404.",
      success: { 200: { description: 'The product, unlinked.', body: answers.Product, headers: ['etag'] } },
      errors: MUT_STATUSES,
    },
    permission: MANAGE,
    params: catalogProductParams,
    query: noQuery,
    body: emptyBody,
    bodyOptional: true,
    run: ({ state, ctx, company, params, ifMatch }) =>
      answer(unlinkProduct(state, company.id, params.id, params.produto_id, ifMatch, ctx)),
  }),
];
