/** The surveillance selection and capacity (spec "Endpoints › Surveillance"; DESIGN §3 for the product list). */
import { changeSelection, countsOf, surveillanceEtag, surveillanceOf, viewSurveillance, watchedAfter } from '../../core/surveillance.js';
import { ok, refuse } from '../../core/refusal.js';
import { collectPage, decodeCursor, encodeCursor } from '../paging.js';
import { operation } from '../pipeline.js';
import { presentProduct } from '../presenters.js';
import { noQuery, productListQuery, surveillancePatch } from '../schemas.js';

export const surveillanceOperations = [
  operation({
    method: 'GET',
    path: '/v1/empresa/vigilancia',
    permission: 'catalogo:ler',
    params: noQuery,
    query: noQuery,
    run: ({ state, company }) => {
      const s = surveillanceOf(state, company.id);
      return ok({ status: 200, body: viewSurveillance(countsOf(s), company), etag: surveillanceEtag(s) });
    },
  }),
  operation({
    method: 'PATCH',
    path: '/v1/empresa/vigilancia',
    permission: 'vigilancia:gerenciar',
    params: noQuery,
    query: noQuery,
    body: surveillancePatch,
    run: ({ state, ctx, company, body, ifMatch }) => {
      const result = changeSelection(state, company.id, ifMatch, { modo: body.modo, adicionar: body.adicionar ?? [], remover: body.remover ?? [] }, ctx);
      return result.ok ? ok({ status: 200, body: viewSurveillance(countsOf(result.value), company), etag: surveillanceEtag(result.value) }) : result;
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/empresa/vigilancia/produtos',
    permission: 'catalogo:ler',
    params: noQuery,
    query: productListQuery,
    run: ({ state, runtime, company, query }) => {
      // The list is the selection in mode selecao and the eligible products in mode todos: a cursor is bound to both.
      const list = `vigilancia:${surveillanceOf(state, company.id).modo}`;
      let after: number | undefined;
      if (query.cursor !== undefined) {
        after = decodeCursor(query.cursor, company.id, list);
        if (after === undefined) return refuse('invalid', 'cursor_invalido', 'cursor is not a cursor of this list (or the mode changed since); start again without cursor.', 'query.cursor');
      }
      const page = collectPage(watchedAfter(state, company.id, after), query.limite ?? 50, runtime.pageBudgets.products, ([p]) => presentProduct(p), ([, position]) => position);
      const next = page.next === null ? null : encodeCursor(company.id, list, page.next);
      return ok({ status: 200, body: `{"itens":[${page.itemsJson}],"proximo_cursor":${JSON.stringify(next)}}` });
    },
  }),
];
