/**
 * The webhook destination, its events and their attempts, test events and resends (spec "Endpoints ›
 * Webhook"). Every operation needs webhook:gerenciar; configuration, test and resend also an active
 * subscription, while revocation and the queries stay allowed after suspension.
 */
import {
  configureDestination,
  destinationEtag,
  findDestination,
  revokeDestination,
  type WebhookDestination,
} from '../../core/webhooks/destination.js';
import { ok, refuse, type Result } from '../../core/refusal.js';
import { resendEvent, sendTestEvent, type SchedulingReceipt } from '../../core/webhooks/sending.js';
import { operation, rateLimitHeaders, type Reply } from '../pipeline.js';
import { newestFirstPage } from '../results.js';
import { presentAttempt, presentDestination, presentEventDetail, presentEventItem } from '../presenters.js';
import { attemptListQuery, cursorQuery, emptyBody, idParams, noQuery, webhookPut } from '../schemas.js';
import * as answers from '../contract/webhooks.js';
import { MUT_STATUSES, READ_STATUSES } from '../contract/wire.js';

const MANAGE = 'webhook:gerenciar';
/** Spec "Limits": webhook configuration and revocation bodies. */
const CONFIGURATION_BODY_LIMIT = 4 * 1024;
const LOCATION = '/v1/webhook';

const destinationReply = (status: number, d: WebhookDestination, body: unknown): Reply => ({
  status,
  body,
  etag: destinationEtag(d),
  location: LOCATION,
});

/** 202: accepted for delivery, not delivered (spec "Accepted webhook scheduling receipt"). */
const schedulingReply = (result: Result<SchedulingReceipt>): Result<Reply> =>
  result.ok
    ? ok({
        status: 202,
        body: {
          evento_id: result.value.event.id,
          destino_id: result.value.destination.id,
          destino_versao: result.value.destination.versao,
          estado: 'aceito',
        },
        location: `/v1/webhook/eventos/${result.value.event.id}`,
        headers: rateLimitHeaders(result.value.quota),
      })
    : result;

const eventNotFound = (id: string) =>
  refuse(
    'not_found',
    'evento_nao_encontrado',
    `No webhook event ${id} in this company (closed events are removed 30 days after closing).`,
    'path.id',
  );

export const webhookOperations = [
  operation({
    method: 'GET',
    path: '/v1/webhook',
    doc: {
      id: 'getWebhookDestination',
      summary: "Get the company's webhook destination",
      tag: 'Webhook',
      description: 'Never the secret. Allowed after subscription suspension; a revoked destination stays readable.',
      success: {
        200: { description: 'The destination.', body: answers.WebhookDestination, headers: ['etag', 'location'] },
      },
      errors: READ_STATUSES,
    },
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
    doc: {
      id: 'configureWebhookDestination',
      summary: 'Create, change, rotate or reactivate the webhook destination',
      tag: 'Webhook',
      description:
        'If-None-Match: * to create (201), If-Match with the current ETag to change, rotate or reactivate (200). Every accepted PUT generates a new secret, shown only in this receipt and its idempotent repetition; a repetition does not reactivate a revoked destination. The url is public HTTPS on port 443, without credentials or fragment; it is not tested.',
      success: {
        200: {
          description: 'The destination changed, rotated or reactivated.',
          body: answers.WebhookConfigurationReceipt,
          headers: ['etag', 'location'],
        },
        201: {
          description: 'The destination created.',
          body: answers.WebhookConfigurationReceipt,
          headers: ['etag', 'location'],
        },
      },
      errors: MUT_STATUSES,
    },
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
      return ok(
        destinationReply(created ? 201 : 200, destination, {
          id: destination.id,
          versao: destination.versao,
          estado: destination.estado,
          segredo: destination.secret,
        }),
      );
    },
  }),
  operation({
    method: 'DELETE',
    path: '/v1/webhook',
    doc: {
      id: 'revokeWebhookDestination',
      summary: 'Revoke the webhook destination',
      tag: 'Webhook',
      description:
        'Allowed without an active subscription. No new delivery of the revoked version starts; one already in flight may still arrive.',
      success: {
        200: {
          description: 'The destination, revoked.',
          body: answers.RevokedWebhookDestination,
          headers: ['etag', 'location'],
        },
      },
      errors: MUT_STATUSES,
    },
    permission: MANAGE,
    bodyLimit: CONFIGURATION_BODY_LIMIT,
    params: noQuery,
    query: noQuery,
    body: emptyBody,
    bodyOptional: true,
    run: ({ state, ctx, company, ifMatch }) => {
      const result = revokeDestination(state, company.id, ifMatch, ctx);
      return result.ok
        ? ok(
            destinationReply(200, result.value, {
              id: result.value.id,
              versao: result.value.versao,
              estado: result.value.estado,
            }),
          )
        : result;
    },
  }),
  operation({
    method: 'POST',
    path: '/v1/webhook/testes',
    doc: {
      id: 'sendWebhookTestEvent',
      summary: 'Schedule a test event',
      tag: 'Webhook',
      description:
        'Needs an active subscription, an active destination and its current ETag in If-Match. The 202 confirms queue acceptance, not connection success. Test and resend share 5 accepted requests per minute per company.',
      success: {
        202: {
          description: 'The test event accepted for delivery.',
          body: answers.SchedulingReceipt,
          headers: ['location', 'ratelimit'],
        },
      },
      errors: MUT_STATUSES,
    },
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
    doc: {
      id: 'resendWebhookEvent',
      summary: 'Resend a closed event',
      tag: 'Webhook',
      description:
        'The event must be entregue, falhou or cancelado and younger than 30 days; same requirements as the test. Opens a new cycle of up to 8 attempts within 24 hours to the current destination, keeping the event id, body and earlier attempts.',
      success: {
        202: {
          description: 'The resend accepted for delivery.',
          body: answers.SchedulingReceipt,
          headers: ['location', 'ratelimit'],
        },
      },
      errors: MUT_STATUSES,
    },
    permission: MANAGE,
    requiresSubscription: true,
    params: idParams,
    query: noQuery,
    body: emptyBody,
    bodyOptional: true,
    run: ({ state, ctx, company, params, ifMatch }) =>
      schedulingReply(resendEvent(state, company.id, params.id, ifMatch, ctx)),
  }),
  operation({
    method: 'GET',
    path: '/v1/webhook/eventos',
    doc: {
      id: 'listWebhookEvents',
      summary: 'List the webhook events',
      tag: 'Webhook',
      description:
        'Newest first, up to 100 events and 1 MiB per page. Follow proximo_cursor (as cursor) until null. Allowed after subscription suspension.',
      success: { 200: { description: 'A page of events.', body: answers.WebhookEventPage } },
      errors: READ_STATUSES,
    },
    permission: MANAGE,
    params: noQuery,
    query: cursorQuery(100, 'cap'),
    run: ({ state, company, query, runtime }) =>
      newestFirstPage(
        state.webhookEvents.listOf(company.id),
        state.webhookEvents,
        { companyId: company.id, list: 'eventos' },
        query,
        { defaultLimit: 50, budgetBytes: runtime.pageBudgets.events },
        presentEventItem,
      ),
  }),
  operation({
    method: 'GET',
    path: '/v1/webhook/eventos/:id',
    doc: {
      id: 'getWebhookEvent',
      summary: 'Get a webhook event',
      tag: 'Webhook',
      description: 'Events closed for 30 days are removed by retention: then 404.',
      success: { 200: { description: 'The event and its envelope.', body: answers.WebhookEventDetail } },
      errors: READ_STATUSES,
    },
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
    doc: {
      id: 'listDeliveryAttempts',
      summary: 'List the delivery attempts of an event',
      tag: 'Webhook',
      description:
        'Ascending attempt order, earlier cycles included. Send proxima_tentativa as apos_tentativa for the next page.',
      success: { 200: { description: 'A page of attempts.', body: answers.DeliveryAttemptPage } },
      errors: READ_STATUSES,
    },
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
