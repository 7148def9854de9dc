/** Catalogs: spec "Endpoints › Catalogs"; POST path from docs/api.md. Deletion comes with surveillance. */
import { catalogsAfter, createCatalog, editCatalog, findCatalog, type Catalog } from '../../core/catalogs.js';
import { ok, refuse, type Result } from '../../core/refusal.js';
import type { State } from '../../core/state.js';
import { collectPage } from '../paging.js';
import { operation, type Reply } from '../pipeline.js';
import { presentCatalog, presentedCatalog } from '../presenters.js';
import {
  catalogCreate,
  catalogListQuery,
  catalogPatch,
  emptyBody,
  idParams,
  INPUT_LIMITS,
  noQuery,
} from '../schemas.js';
import { deleteCatalog, previewDeletion } from '../../core/catalog-deletion.js';
import * as answers from '../contract/catalogs.js';
import { MUT_STATUSES, READ_STATUSES } from '../contract/wire.js';

const MANAGE = 'catalogo:gerenciar';
const READ = 'catalogo:ler';

/** The catalog as answered; a `read` keeps its answer for the next read of this version (presenters.ts). */
function answer(
  state: State,
  result: Result<Catalog>,
  status = 200,
  withLocation = false,
  read = false,
): Result<Reply> {
  if (!result.ok) return result;
  const { json, etag } = presentedCatalog(state, result.value, read);
  return ok(
    withLocation
      ? { status, body: json, etag, location: `/v1/catalogos/${result.value.id}` }
      : { status, body: json, etag },
  );
}

export const catalogOperations = [
  operation({
    method: 'POST',
    path: '/v1/catalogos',
    doc: {
      id: 'createCatalog',
      summary: 'Create a catalog for an existing establishment',
      tag: 'Catalogs',
      choice: 'The spec does not show this path; POST on the collection, as the other creations.',
      success: { 201: { description: 'The catalog created.', body: answers.Catalog, headers: ['etag', 'location'] } },
      errors: MUT_STATUSES,
    },
    permission: MANAGE,
    params: noQuery,
    query: noQuery,
    body: catalogCreate,
    run: ({ state, ctx, company, body }) =>
      answer(
        state,
        createCatalog(
          state,
          company.id,
          { establishmentId: body.estabelecimento_id, nome: body.nome, idExterno: body.id_externo ?? null },
          ctx,
        ),
        201,
        true,
      ),
  }),
  operation({
    method: 'GET',
    path: '/v1/catalogos',
    doc: {
      id: 'listCatalogs',
      summary: 'List the catalogs of the company',
      tag: 'Catalogs',
      description:
        'Without estado, active and deleted catalogs are returned. Follow proximo_id (as apos_id) until null.',
      success: { 200: { description: 'A page of catalogs.', body: answers.CatalogPage } },
      errors: READ_STATUSES,
    },
    permission: READ,
    params: noQuery,
    query: catalogListQuery,
    run: ({ state, runtime, company, query }) => {
      const items = catalogsAfter(state, company.id, query.apos_id, {
        establishmentId: query.estabelecimento_id,
        idExterno: query.id_externo,
        estado: query.estado,
      });
      if (!items)
        return refuse(
          'invalid',
          'cursor_invalido',
          `apos_id ${query.apos_id} is not a catalog of this company; pass a proximo_id this list returned.`,
          'query.apos_id',
        );
      const page = collectPage(
        items,
        query.limite ?? INPUT_LIMITS.page.default,
        runtime.pageBudgets.catalogs,
        (c) => presentCatalog(state, c),
        (c) => c.id,
      );
      return ok({ status: 200, body: `{"itens":[${page.itemsJson}],"proximo_id":${JSON.stringify(page.next)}}` });
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/catalogos/:id',
    doc: {
      id: 'getCatalog',
      summary: 'Get a catalog',
      tag: 'Catalogs',
      success: { 200: { description: 'The catalog.', body: answers.Catalog, headers: ['etag'] } },
      errors: READ_STATUSES,
    },
    permission: READ,
    params: idParams,
    query: noQuery,
    run: ({ state, company, params }) => answer(state, findCatalog(state, company.id, params.id), 200, false, true),
  }),
  operation({
    method: 'PATCH',
    path: '/v1/catalogos/:id',
    doc: {
      id: 'updateCatalog',
      summary: 'Edit the name or external reference of a catalog',
      tag: 'Catalogs',
      description:
        'Omitted fields are preserved; id_externo null clears it. Does not move the catalog to another company or establishment.',
      success: { 200: { description: 'The catalog as changed.', body: answers.Catalog, headers: ['etag'] } },
      errors: MUT_STATUSES,
    },
    permission: MANAGE,
    params: idParams,
    query: noQuery,
    body: catalogPatch,
    run: ({ state, ctx, company, params, body, ifMatch }) =>
      answer(
        state,
        editCatalog(state, company.id, params.id, ifMatch, { nome: body.nome, idExterno: body.id_externo }, ctx),
      ),
  }),
];

/** Catalog deletion: the impact preview, and DELETE with its ETag (spec "Catalog deletion impact preview"). */
export const catalogDeletionOperations = [
  operation({
    method: 'GET',
    path: '/v1/catalogos/:id/impacto-exclusao',
    doc: {
      id: 'previewCatalogDeletion',
      summary: 'Preview what deleting a catalog would do',
      tag: 'Catalogs',
      description:
        'Projects registration and selection; runs no analysis or scan. Send its ETag as the If-Match of the DELETE.',
      success: { 200: { description: 'The impact preview.', body: answers.DeletionPreview, headers: ['etag'] } },
      errors: READ_STATUSES,
    },
    permission: MANAGE,
    params: idParams,
    query: noQuery,
    run: ({ state, company, params }) => {
      const result = previewDeletion(state, company.id, params.id);
      return result.ok ? ok({ status: 200, body: result.value.preview, etag: result.value.etag }) : result;
    },
  }),
  operation({
    method: 'DELETE',
    path: '/v1/catalogos/:id',
    doc: {
      id: 'deleteCatalog',
      summary: 'Delete a catalog',
      tag: 'Catalogs',
      description:
        "If-Match is the impact preview's ETag: 412 when anything changed since the preview, with no partial deletion.",
      success: { 200: { description: 'The catalog, deleted.', body: answers.Catalog, headers: ['etag'] } },
      errors: MUT_STATUSES,
    },
    permission: MANAGE,
    params: idParams,
    query: noQuery,
    body: emptyBody,
    bodyOptional: true,
    run: ({ state, ctx, company, params, ifMatch }) =>
      answer(state, deleteCatalog(state, company.id, params.id, ifMatch, ctx)),
  }),
];
