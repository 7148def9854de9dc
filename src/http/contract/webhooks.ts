/**
 * The answers of the webhook operations (spec "Resources › Webhook destination", "Webhook event (list item)",
 * "Webhook event (detail)", "Delivery attempt", "Accepted webhook scheduling receipt", and "Events › Envelope").
 */
import * as z from 'zod';
import { EVENT_KINDS } from '../../core/webhooks/events.js';
import { choice, component, int, oneOf } from './wire.js';

/** spec "Resources › Conventions": event and webhook identifiers in responses are lowercase. */
const lowercaseUuid = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  .meta({ description: 'a uuid, in lowercase' });

const destinationState = oneOf(['ativo', 'revogado']);

export const WebhookDestination = component(
  'WebhookDestination',
  z.strictObject({
    id: lowercaseUuid,
    versao: int,
    estado: destinationState,
    url: z.string(),
  }),
  'The company\'s webhook destination (spec "Webhook destination"), never with its secret; answered with its ETag.',
);

export const WebhookConfigurationReceipt = component(
  'WebhookConfigurationReceipt',
  z.strictObject({
    id: lowercaseUuid,
    versao: int,
    estado: destinationState,
    segredo: choice(
      z
        .string()
        .regex(/^svc_whsec_/)
        .meta({
          description:
            'the signing secret, prefix included (spec "Signature verification"); shown only here and in an idempotent repetition',
        }),
      'The spec does not name the field carrying the secret.',
    ),
  }),
  'The receipt of a configuration (spec "Webhook destination"): the only answer that carries the signing secret.',
);

export const RevokedWebhookDestination = component(
  'RevokedWebhookDestination',
  z.strictObject({ id: lowercaseUuid, versao: int, estado: destinationState }),
  'The destination as revoked (spec "DELETE /v1/webhook": id, versao, estado).',
);

export const SchedulingReceipt = component(
  'SchedulingReceipt',
  z.strictObject({
    evento_id: lowercaseUuid,
    destino_id: lowercaseUuid,
    destino_versao: int,
    estado: oneOf(['aceito']),
  }),
  'A test or resend accepted for delivery, not delivered (spec "Accepted webhook scheduling receipt").',
);

const eventFields = {
  id: lowercaseUuid,
  tipo: oneOf(EVENT_KINDS),
  ocorrido_em: z.string(),
  destino_id: lowercaseUuid,
  destino_versao: int,
  estado: oneOf(['pendente', 'executando', 'entregue', 'falhou', 'cancelado']),
  tentativas_ciclo: int.meta({ description: 'attempts of the current delivery cycle' }),
  tentativas_totais: int.meta({ description: 'attempts of every cycle' }),
  status_http: int.nullable(),
  criado_em: z.string(),
  prazo_em: z.string().meta({ description: 'the deadline of the current delivery cycle: no attempt starts after it' }),
};

const WebhookEvent = component(
  'WebhookEvent',
  z.strictObject(eventFields),
  'A webhook event as the list shows it (spec "Webhook event (list item)"; id, destino_id, estado and tipo as the detail refines them).',
);

export const WebhookEventPage = component(
  'WebhookEventPage',
  z.strictObject({
    itens: z.array(WebhookEvent),
    proximo_cursor: choice(
      z.string().nullable().meta({ description: 'pass it as cursor for the next page; null on the last page' }),
      'The spec does not name the next-page cursor field of the event list.',
    ),
  }),
  'A page of webhook events, newest first: up to 100 events and 1 MiB.',
);

/** spec "Events › Envelope": for catalogo.aplicado, the one kind whose `dados` the spec shows. */
const CatalogAppliedData = component(
  'CatalogAppliedData',
  z.strictObject({ tipo: z.literal('catalogo.aplicado'), catalogoId: lowercaseUuid, versao: int }),
  'dados of catalogo.aplicado (spec "Envelope").',
);

const OtherEventData = component(
  'OtherEventData',
  choice(
    z.looseObject({ tipo: oneOf(EVENT_KINDS.filter((k) => k !== 'catalogo.aplicado') as [string, ...string[]]) }),
    'The spec does not show dados of these kinds; docs/webhooks.md and the sections of the features that raise them give what the emulator sends.',
  ),
  'dados of the other event kinds: tipo, and the fields of that kind. The emulator sends catalogo.revisao_necessaria {catalogoId, ingestaoId, versaoValidada, versaoAtual}; analise.concluida {analiseId, produtosAvaliados, achados, snapshotId}; analise.falhou {analiseId, codigoFalha}; divergencias.alteradas {vigilanciaId, anteriorId, novas, resolvidas, totalAchados}; vigilancia.degradada and vigilancia.restabelecida on a coverage change {cobertura, coberturaAnterior, selecionados, capacidade}, vigilancia.degradada of an execution {motivo, vigilanciaId, causa}; webhook.teste nothing more. Events raised through the emulator controls carry whatever dados they were given.',
);

const WebhookEnvelope = component(
  'WebhookEnvelope',
  z.strictObject({
    id: lowercaseUuid.meta({ description: 'the event id: stable, used for deduplication' }),
    versao: z.literal(1),
    empresa: z
      .string()
      .regex(/^[0-9]{8}$/)
      .meta({ description: "the company's CNPJ root" }),
    ocorridoEm: z.string(),
    dados: z.union([CatalogAppliedData, OtherEventData]).meta({ description: 'discriminated by tipo' }),
  }),
  'The signed envelope of an event: the delivered body (spec "Events › Envelope").',
);

export const WebhookEventDetail = component(
  'WebhookEventDetail',
  z.strictObject({
    ...eventFields,
    terminado_em: z.string().nullable(),
    proxima_tentativa_em: z.string().nullable(),
    codigo_falha: z.string().nullable(),
    evento: WebhookEnvelope,
  }),
  'A webhook event with its timing, its failure and its envelope (spec "Webhook event (detail)"); never the secret nor the receiver\'s answer.',
);

const DeliveryAttempt = component(
  'DeliveryAttempt',
  z.strictObject({
    tentativa: int.meta({ description: 'attempt number, counting every cycle' }),
    destino_versao: int.nullable(),
    estado: oneOf(['iniciada', 'entregue', 'falhou', 'incerta']),
    iniciada_em: z.string(),
    terminada_em: z.string().nullable(),
    codigo_falha: z.string().nullable(),
    status_http: int.nullable(),
  }),
  'A delivery attempt of an event (spec "Delivery attempt").',
);

export const DeliveryAttemptPage = component(
  'DeliveryAttemptPage',
  z.strictObject({
    itens: z.array(DeliveryAttempt),
    proxima_tentativa: int
      .nullable()
      .meta({ description: 'pass it as apos_tentativa for the next page; null on the last page' }),
  }),
  'A page of delivery attempts, in ascending order, earlier cycles included.',
);
