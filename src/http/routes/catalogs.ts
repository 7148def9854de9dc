/** Catalogs: spec "Endpoints › Catalogs"; POST path from DESIGN §3. Deletion comes with surveillance. */
import { catalogEtag, catalogsAfter, createCatalog, editCatalog, findCatalog, type Catalog } from '../../core/catalogs.js';
import { ok, refuse, type Result } from '../../core/refusal.js';
import type { State } from '../../core/state.js';
import { collectPage } from '../paging.js';
import { operation, type Reply } from '../pipeline.js';
import { presentCatalog } from '../presenters.js';
import { catalogCreate, catalogListQuery, catalogPatch, emptyBody, idParams, INPUT_LIMITS, noQuery } from '../schemas.js';
import { deleteCatalog, previewDeletion } from '../../core/catalog-deletion.js';

const MANAGE = 'catalogo:gerenciar';
const READ = 'catalogo:ler';

const answer = (state: State, status: number, withLocation = false) => (result: Result<Catalog>): Result<Reply> =>
  result.ok
    ? ok({
        status,
        body: presentCatalog(state, result.value),
        etag: catalogEtag(result.value),
        ...(withLocation ? { location: `/v1/catalogos/${result.value.id}` } : {}),
      })
    : result;

export const catalogOperations = [
  operation({
    method: 'POST',
    path: '/v1/catalogos',
    permission: MANAGE,
    params: noQuery,
    query: noQuery,
    body: catalogCreate,
    run: ({ state, ctx, company, body }) =>
      answer(state, 201, true)(createCatalog(state, company.id, { establishmentId: body.estabelecimento_id, nome: body.nome, idExterno: body.id_externo ?? null }, ctx)),
  }),
  operation({
    method: 'GET',
    path: '/v1/catalogos',
    permission: READ,
    params: noQuery,
    query: catalogListQuery,
    run: ({ state, runtime, company, query }) => {
      const items = catalogsAfter(state, company.id, query.apos_id, {
        establishmentId: query.estabelecimento_id,
        idExterno: query.id_externo,
        estado: query.estado,
      });
      if (!items) return refuse('invalid', 'cursor_invalido', `apos_id ${query.apos_id} is not a catalog of this company; pass a proximo_id this list returned.`, 'query.apos_id');
      const page = collectPage(items, query.limite ?? INPUT_LIMITS.page.default, runtime.pageBudgets.catalogs, (c) => presentCatalog(state, c), (c) => c.id);
      return ok({ status: 200, body: `{"itens":[${page.itemsJson}],"proximo_id":${JSON.stringify(page.next)}}` });
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/catalogos/:id',
    permission: READ,
    params: idParams,
    query: noQuery,
    run: ({ state, company, params }) => answer(state, 200)(findCatalog(state, company.id, params.id)),
  }),
  operation({
    method: 'PATCH',
    path: '/v1/catalogos/:id',
    permission: MANAGE,
    params: idParams,
    query: noQuery,
    body: catalogPatch,
    run: ({ state, ctx, company, params, body, ifMatch }) =>
      answer(state, 200)(editCatalog(state, company.id, params.id, ifMatch, { nome: body.nome, idExterno: body.id_externo }, ctx)),
  }),
];

/** Catalog deletion: the impact preview, and DELETE with its ETag (spec "Catalog deletion impact preview"). */
export const catalogDeletionOperations = [
  operation({
    method: 'GET',
    path: '/v1/catalogos/:id/impacto-exclusao',
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
    permission: MANAGE,
    params: idParams,
    query: noQuery,
    body: emptyBody,
    bodyOptional: true,
    run: ({ state, ctx, company, params, ifMatch }) => answer(state, 200)(deleteCatalog(state, company.id, params.id, ifMatch, ctx)),
  }),
];
