/**
 * The webhook destination, its events and their attempts, test events and resends (spec "Endpoints ›
 * Webhook"). Every operation needs webhook:gerenciar; configuration, test and resend also an active
 * subscription, while revocation and the queries stay allowed after suspension.
 */
import { configureDestination, destinationEtag, findDestination, revokeDestination, type WebhookDestination } from '../../core/webhooks/destination.js';
import { ok, refuse, type Result } from '../../core/refusal.js';
import { resendEvent, sendTestEvent, type SchedulingReceipt } from '../../core/webhooks/sending.js';
import { indexesOf } from '../../core/state.js';
import { operation, rateLimitHeaders, type Reply } from '../pipeline.js';
import { newestFirstPage } from '../results.js';
import { presentAttempt, presentDestination, presentEventDetail, presentEventItem } from '../presenters.js';
import { attemptListQuery, cursorQuery, emptyBody, idParams, noQuery, webhookPut } from '../schemas.js';

const MANAGE = 'webhook:gerenciar';
/** Spec "Limits": webhook configuration and revocation bodies. */
const CONFIGURATION_BODY_LIMIT = 4 * 1024;
const LOCATION = '/v1/webhook';

const destinationReply = (status: number, d: WebhookDestination, body: unknown): Reply => ({ status, body, etag: destinationEtag(d), location: LOCATION });

/** 202: accepted for delivery, not delivered (spec "Accepted webhook scheduling receipt"). */
const schedulingReply = (result: Result<SchedulingReceipt>): Result<Reply> =>
  result.ok
    ? ok({
        status: 202,
        body: { evento_id: result.value.event.id, destino_id: result.value.destination.id, destino_versao: result.value.destination.versao, estado: 'aceito' },
        location: `/v1/webhook/eventos/${result.value.event.id}`,
        headers: rateLimitHeaders(result.value.quota),
      })
    : result;

const eventNotFound = (id: string) => refuse('not_found', 'evento_nao_encontrado', `No webhook event ${id} in this company (closed events are removed 30 days after closing).`, 'path.id');

export const webhookOperations = [
  operation({
    method: 'GET',
    path: '/v1/webhook',
    permission: MANAGE,
    params: noQuery,
    query: noQuery,
    run: ({ state, company }) => {
      const found = findDestination(state, company.id);
      return found.ok ? ok(destinationReply(200, found.value, presentDestination(found.value))) : found;
    },
  }),
  operation({
    method: 'PUT',
    path: '/v1/webhook',
    permission: MANAGE,
    requiresSubscription: true,
    acceptsIfNoneMatch: true,
    bodyLimit: CONFIGURATION_BODY_LIMIT,
    params: noQuery,
    query: noQuery,
    body: webhookPut,
    run: ({ state, ctx, company, body, ifMatch, createOnly }) => {
      const result = configureDestination(state, company.id, { url: body.url, createOnly, ifMatch }, ctx);
      if (!result.ok) return result;
      const { destination, created } = result.value;
      // The receipt is the only answer that carries the secret (and its idempotent replay).
      return ok(destinationReply(created ? 201 : 200, destination, { id: destination.id, versao: destination.versao, estado: destination.estado, segredo: destination.secret }));
    },
  }),
  operation({
    method: 'DELETE',
    path: '/v1/webhook',
    permission: MANAGE,
    bodyLimit: CONFIGURATION_BODY_LIMIT,
    params: noQuery,
    query: noQuery,
    body: emptyBody,
    bodyOptional: true,
    run: ({ state, ctx, company, ifMatch }) => {
      const result = revokeDestination(state, company.id, ifMatch, ctx);
      return result.ok ? ok(destinationReply(200, result.value, { id: result.value.id, versao: result.value.versao, estado: result.value.estado })) : result;
    },
  }),
  operation({
    method: 'POST',
    path: '/v1/webhook/testes',
    permission: MANAGE,
    requiresSubscription: true,
    params: noQuery,
    query: noQuery,
    body: emptyBody,
    bodyOptional: true,
    run: ({ state, ctx, company, ifMatch }) => schedulingReply(sendTestEvent(state, company.id, ifMatch, ctx)),
  }),
  operation({
    method: 'POST',
    path: '/v1/webhook/eventos/:id/reenvios',
    permission: MANAGE,
    requiresSubscription: true,
    params: idParams,
    query: noQuery,
    body: emptyBody,
    bodyOptional: true,
    run: ({ state, ctx, company, params, ifMatch }) => schedulingReply(resendEvent(state, company.id, params.id, ifMatch, ctx)),
  }),
  operation({
    method: 'GET',
    path: '/v1/webhook/eventos',
    permission: MANAGE,
    params: noQuery,
    query: cursorQuery(100, 'cap'),
    run: ({ state, company, query, runtime }) =>
      newestFirstPage(indexesOf(state, company.id).webhookEvents, state.webhookEvents, { companyId: company.id, list: 'eventos' }, query, { defaultLimit: 50, budgetBytes: runtime.pageBudgets.events }, presentEventItem),
  }),
  operation({
    method: 'GET',
    path: '/v1/webhook/eventos/:id',
    permission: MANAGE,
    params: idParams,
    query: noQuery,
    run: ({ state, company, params }) => {
      const event = state.webhookEvents.get(params.id);
      if (!event || event.companyId !== company.id) return eventNotFound(params.id);
      return ok({ status: 200, body: presentEventDetail(event) });
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/webhook/eventos/:id/tentativas',
    permission: MANAGE,
    params: idParams,
    query: attemptListQuery,
    run: ({ state, company, params, query }) => {
      const event = state.webhookEvents.get(params.id);
      if (!event || event.companyId !== company.id) return eventNotFound(params.id);
      const after = query.apos_tentativa ?? 0;
      const limit = query.limite ?? 50;
      const page = event.attempts.slice(after, after + limit);
      const last = page[page.length - 1];
      const next = last !== undefined && last.tentativa < event.attempts.length ? last.tentativa : null;
      return ok({ status: 200, body: { itens: page.map(presentAttempt), proxima_tentativa: next } });
    },
  }),
];
