/** Establishments: spec "Endpoints › Establishments"; GET list and DELETE (archive) paths from docs/api.md. */
import {
  archiveEstablishment,
  editEstablishment,
  establishmentEtag,
  establishmentsAfter,
  findEstablishment,
  registerEstablishment,
  type Establishment,
} from '../../core/establishments.js';
import { ok, refuse, type Result } from '../../core/refusal.js';
import { collectPage } from '../paging.js';
import { operation, type Reply } from '../pipeline.js';
import { presentEstablishment } from '../presenters.js';
import { findCnpjCorrection, requestCnpjCorrection } from '../../core/cnpj-corrections.js';
import { presentCorrection, presentCorrectionAcceptance } from '../presenters.js';
import * as answers from '../contract/establishments.js';
import { MUT_STATUSES, READ_STATUSES } from '../contract/wire.js';
import {
  cnpjCorrectionRequest,
  emptyBody,
  establishmentCreate,
  establishmentListQuery,
  establishmentPatch,
  idParams,
  INPUT_LIMITS,
  noQuery,
} from '../schemas.js';

const MANAGE = 'estabelecimento:gerenciar';
const READ = 'catalogo:ler';

const reply = (status: number, e: Establishment, withLocation = false): Reply => ({
  status,
  body: presentEstablishment(e),
  etag: establishmentEtag(e),
  ...(withLocation ? { location: `/v1/estabelecimentos/${e.id}` } : {}),
});

const answer =
  (status: number, withLocation = false) =>
  (result: Result<Establishment>): Result<Reply> =>
    result.ok ? ok(reply(status, result.value, withLocation)) : result;

export const establishmentOperations = [
  operation({
    method: 'POST',
    path: '/v1/estabelecimentos',
    doc: {
      id: 'createEstablishment',
      summary: 'Register a head office or branch',
      tag: 'Establishments',
      description:
        "cnpj must be a valid CNPJ of the company's root, not used by another establishment of the company (archived ones count). Creates no catalog and contracts no surveillance.",
      success: {
        201: {
          description: 'The establishment registered.',
          body: answers.Establishment,
          headers: ['etag', 'location'],
        },
      },
      errors: MUT_STATUSES,
    },
    permission: MANAGE,
    params: noQuery,
    query: noQuery,
    body: establishmentCreate,
    run: ({ state, ctx, company, body }) =>
      answer(
        201,
        true,
      )(
        registerEstablishment(
          state,
          company.id,
          { cnpj: body.cnpj, nome: body.nome, idExterno: body.id_externo ?? null },
          ctx,
        ),
      ),
  }),
  operation({
    method: 'GET',
    path: '/v1/estabelecimentos',
    doc: {
      id: 'listEstablishments',
      summary: 'Get the head office and branches of the company',
      tag: 'Establishments',
      choice:
        'The spec lists this operation without its path: GET on the collection the establishments are registered in.',
      description:
        'In creation order, archived ones too unless estado says otherwise. Follow proximo_id (as apos_id) until null.',
      success: { 200: { description: 'A page of establishments.', body: answers.EstablishmentPage } },
      errors: READ_STATUSES,
    },
    permission: READ,
    params: noQuery,
    query: establishmentListQuery,
    run: ({ state, runtime, company, query }) => {
      let after: number | undefined;
      if (query.apos_id !== undefined) {
        after = state.establishments.listOf(company.id).positionOf(query.apos_id);
        if (after === undefined)
          return refuse(
            'invalid',
            'cursor_invalido',
            `apos_id ${query.apos_id} is not an establishment of this company; pass a proximo_id this list returned.`,
            'query.apos_id',
          );
      }
      const items = filter(
        establishmentsAfter(state, company.id, after),
        (e) => query.estado === undefined || e.estado === query.estado,
      );
      const page = collectPage(
        items,
        query.limite ?? INPUT_LIMITS.page.default,
        runtime.pageBudgets.establishments,
        presentEstablishment,
        (e) => e.id,
      );
      return ok({ status: 200, body: `{"itens":[${page.itemsJson}],"proximo_id":${JSON.stringify(page.next)}}` });
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/estabelecimentos/:id',
    doc: {
      id: 'getEstablishment',
      summary: 'Get an establishment',
      tag: 'Establishments',
      success: { 200: { description: 'The establishment.', body: answers.Establishment, headers: ['etag'] } },
      errors: READ_STATUSES,
    },
    permission: READ,
    params: idParams,
    query: noQuery,
    run: ({ state, company, params }) => answer(200)(findEstablishment(state, company.id, params.id)),
  }),
  operation({
    method: 'PATCH',
    path: '/v1/estabelecimentos/:id',
    doc: {
      id: 'updateEstablishment',
      summary: 'Edit the name or external reference of an establishment',
      tag: 'Establishments',
      description:
        'Omitted fields are preserved; id_externo null clears it. The CNPJ is corrected by a separate correction request.',
      success: {
        200: { description: 'The establishment as changed.', body: answers.Establishment, headers: ['etag'] },
      },
      errors: MUT_STATUSES,
    },
    permission: MANAGE,
    params: idParams,
    query: noQuery,
    body: establishmentPatch,
    run: ({ state, ctx, company, params, body, ifMatch }) =>
      answer(200)(
        editEstablishment(state, company.id, params.id, ifMatch, { nome: body.nome, idExterno: body.id_externo }, ctx),
      ),
  }),
  operation({
    method: 'DELETE',
    path: '/v1/estabelecimentos/:id',
    doc: {
      id: 'archiveEstablishment',
      summary: 'Archive an establishment that has no active catalog',
      tag: 'Establishments',
      choice:
        'The spec lists this operation without its path: DELETE on the establishment, answered like the catalog deletion (200 with the resource).',
      description:
        'Archiving is final: an archived establishment takes no change and no new catalog (409). One with an active catalog is 409.',
      success: { 200: { description: 'The establishment, archived.', body: answers.Establishment, headers: ['etag'] } },
      errors: MUT_STATUSES,
    },
    permission: MANAGE,
    params: idParams,
    query: noQuery,
    body: emptyBody,
    bodyOptional: true,
    run: ({ state, ctx, company, params, ifMatch }) =>
      answer(200)(archiveEstablishment(state, company.id, params.id, ifMatch, ctx)),
  }),
  operation({
    method: 'POST',
    path: '/v1/estabelecimentos/:id/correcoes-cnpj',
    doc: {
      id: 'requestCnpjCorrection',
      summary: 'Request a review of the CNPJ of an establishment',
      tag: 'Establishments',
      description:
        'Accepted durably, not applied: follow Location for the review. A repetition with the same key returns the original acceptance.',
      success: {
        202: {
          description: 'The correction request, accepted.',
          body: answers.CnpjCorrectionAcceptance,
          headers: ['location'],
        },
      },
      errors: MUT_STATUSES,
    },
    permission: MANAGE,
    params: idParams,
    query: noQuery,
    body: cnpjCorrectionRequest,
    run: ({ state, ctx, company, params, body, ifMatch }) => {
      const result = requestCnpjCorrection(
        state,
        company.id,
        params.id,
        ifMatch,
        { cnpjNovo: body.cnpj_novo, motivo: body.motivo },
        ctx,
      );
      // 202: accepted durably, not applied (spec); Location is where to follow it.
      return result.ok
        ? ok({
            status: 202,
            body: presentCorrectionAcceptance(result.value),
            location: `/v1/correcoes-cnpj/${result.value.id}`,
          })
        : result;
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/correcoes-cnpj/:id',
    doc: {
      id: 'getCnpjCorrection',
      summary: 'Follow a CNPJ correction request',
      tag: 'Establishments',
      choice: 'The spec lists this operation without its path: the Location the acceptance gives.',
      success: { 200: { description: 'The correction request and its review.', body: answers.CnpjCorrection } },
      errors: READ_STATUSES,
    },
    permission: READ,
    params: idParams,
    query: noQuery,
    run: ({ state, company, params }) => {
      const found = findCnpjCorrection(state, company.id, params.id);
      return found.ok ? ok({ status: 200, body: presentCorrection(found.value) }) : found;
    },
  }),
];

function* filter<T>(items: Iterable<T>, keep: (item: T) => boolean): Generator<T> {
  for (const item of items) if (keep(item)) yield item;
}
