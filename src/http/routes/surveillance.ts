/** The surveillance selection and capacity (spec "Endpoints › Surveillance"; docs/api.md for the product list). */
import {
  changeSelection,
  countsOf,
  surveillanceEtag,
  surveillanceOf,
  viewSurveillance,
  watchedAfter,
} from '../../core/surveillance.js';
import { ok } from '../../core/refusal.js';
import { collectPage, cursorPageBody, readCursor } from '../paging.js';
import { operation } from '../pipeline.js';
import { presentProduct } from '../presenters.js';
import * as answers from '../contract/surveillance.js';
import { ProductPage } from '../contract/products.js';
import { MUT_STATUSES, READ_STATUSES } from '../contract/wire.js';
import { noQuery, productListQuery, surveillancePatch } from '../schemas.js';

export const surveillanceOperations = [
  operation({
    method: 'GET',
    path: '/v1/empresa/vigilancia',
    doc: {
      id: 'getSurveillanceSelection',
      summary: 'Get the surveillance selection and capacity',
      tag: 'Surveillance',
      success: {
        200: { description: 'The selection and capacity.', body: answers.SurveillanceSelection, headers: ['etag'] },
      },
      errors: READ_STATUSES,
    },
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
    doc: {
      id: 'updateSurveillanceSelection',
      summary: 'Replace the selected products or watch all',
      tag: 'Surveillance',
      description:
        'Mode todos requires capacity for every eligible product. The change is applied whole or refused whole: beyond the capacity it is 409 capacidade_insuficiente (the spec does not show that status). Runs no analysis and changes no billing.',
      success: {
        200: {
          description: 'The selection and capacity as changed.',
          body: answers.SurveillanceSelection,
          headers: ['etag'],
        },
      },
      errors: MUT_STATUSES,
    },
    permission: 'vigilancia:gerenciar',
    params: noQuery,
    query: noQuery,
    body: surveillancePatch,
    run: ({ state, ctx, company, body, ifMatch }) => {
      const result = changeSelection(
        state,
        company.id,
        ifMatch,
        { modo: body.modo, adicionar: body.adicionar ?? [], remover: body.remover ?? [] },
        ctx,
      );
      return result.ok
        ? ok({
            status: 200,
            body: viewSurveillance(countsOf(result.value), company),
            etag: surveillanceEtag(result.value),
          })
        : result;
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/empresa/vigilancia/produtos',
    doc: {
      id: 'listSelectedProducts',
      summary: 'Get the selected products',
      tag: 'Surveillance',
      choice: 'The spec lists this operation without its path: the products of the selection, under it.',
      description:
        'The selection in mode selecao, every eligible product in mode todos. Follow proximo_cursor (as cursor) until null; a cursor is bound to the mode.',
      success: { 200: { description: 'A page of the watched products.', body: ProductPage } },
      errors: READ_STATUSES,
    },
    permission: 'catalogo:ler',
    params: noQuery,
    query: productListQuery,
    run: ({ state, runtime, company, query }) => {
      // The list is the selection in mode selecao and the eligible products in mode todos: a cursor is bound to both.
      const list = `vigilancia:${surveillanceOf(state, company.id).modo}`;
      const after = readCursor(query.cursor, company.id, list);
      if (!after.ok) return after;
      const page = collectPage(
        watchedAfter(state, company.id, after.value),
        query.limite ?? 50,
        runtime.pageBudgets.products,
        ([p]) => presentProduct(p),
        ([, position]) => position,
      );
      return ok({ status: 200, body: cursorPageBody(page, company.id, list) });
    },
  }),
];
