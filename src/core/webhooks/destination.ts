/**
 * The company's webhook destination (spec "Webhook destination" and its state table). One per company;
 * kept after revocation so it can be reactivated.
 *
 *   (none)    --PUT If-None-Match: *-->  ativo     new secret (subscription active)
 *   ativo     --PUT If-Match-->          ativo     new secret, new version: pending deliveries of the old one cancelled
 *   revogado  --PUT If-Match-->          ativo     reactivation: new secret
 *   ativo     --DELETE If-Match-->       revogado  allowed without subscription; pending deliveries cancelled
 *   revogado  --DELETE-->                refused (409): already revoked
 *
 * Every PUT makes a new secret `svc_whsec_` + 32 seeded random bytes; it leaves the core only in the
 * configuration receipt (and its idempotent replay).
 */
import { randomToken, uuidV4 } from '../random.js';
import { ok, refuse, type Result } from '../refusal.js';
import { byKey, kept, type Context, type KindSlice, type State } from '../state.js';
import { at, repeatedCompany, repeatedId } from '../integrity.js';
import type { Instant } from '../time.js';
import { etag, requireMatch, type IfMatch } from '../versioning.js';
import { cancelOpenEvents } from './events.js';
import type { Lifecycle } from '../lifecycle.js';

type DestinationState = 'ativo' | 'revogado';
type DestinationEvent = 'configurar' | 'revogar';

/** spec: WH-DEST-02 (the states), WH-DEST-10 (a change), WH-DEST-12 (reactivation), WH-DEST-29 (revocation). */
const LIFECYCLE: Lifecycle<DestinationState, DestinationEvent> = {
  ativo: { configurar: 'ativo', revogar: 'revogado' },
  revogado: { configurar: 'ativo' },
};

export const SECRET_PREFIX = 'svc_whsec_';

export interface WebhookDestination {
  readonly id: string;
  readonly companyId: string;
  readonly versao: number;
  readonly estado: DestinationState;
  readonly url: string;
  readonly secret: string;
  /**
   * The secret before the last configuration change (null until one): the receiver check signs its `old-secret`
   * case with it, which a receiver following the rotation refuses (spec: SIG-06). Never shown by the API.
   */
  readonly previousSecret: string | null;
  readonly criadoEm: Instant;
  readonly atualizadoEm: Instant;
}

export const destinationEtag = (d: WebhookDestination): string => etag('webhook', d.id, d.versao);

export function findDestination(state: State, companyId: string): Result<WebhookDestination> {
  const destination = state.webhookDestinations.get(companyId);
  if (!destination)
    return refuse(
      'not_found',
      'destino_nao_encontrado',
      'The company has no webhook destination; create one with PUT /v1/webhook and If-None-Match: *.',
    );
  return ok(destination);
}

/** The destination when it is active, for the operations that need one (test, resend). */
export function activeDestination(d: WebhookDestination): Result<WebhookDestination> {
  if (d.estado === 'ativo') return ok(d);
  return refuse(
    'conflict',
    'destino_revogado',
    `Webhook destination ${d.id} is revoked; reactivate it with PUT /v1/webhook and its current ETag.`,
  );
}

export interface Configuration {
  readonly url: string;
  /** If-None-Match: * was sent: create only. */
  readonly createOnly: boolean;
  readonly ifMatch: IfMatch;
}

/** PUT /v1/webhook: create, change, rotate or reactivate. */
export function configureDestination(
  state: State,
  companyId: string,
  input: Configuration,
  ctx: Context,
): Result<{ destination: WebhookDestination; created: boolean }> {
  const current = state.webhookDestinations.get(companyId);
  if (current === undefined) {
    if (!input.createOnly) {
      if (input.ifMatch !== undefined)
        return refuse(
          'precondition_failed',
          'precondicao_falhou',
          'The company has no webhook destination to match; create one with If-None-Match: *.',
          'header.if-match',
        );
      return refuse(
        'precondition_required',
        'precondicao_ausente',
        'Creating the webhook destination requires If-None-Match: * (changing one requires If-Match with its ETag).',
        'header.if-none-match',
      );
    }
    const destination: WebhookDestination = {
      id: uuidV4(ctx.random),
      companyId,
      versao: 1,
      estado: 'ativo',
      url: input.url,
      secret: randomToken(ctx.random, SECRET_PREFIX),
      previousSecret: null,
      criadoEm: ctx.now,
      atualizadoEm: ctx.now,
    };
    state.webhookDestinations.set(companyId, destination);
    return ok({ destination, created: true });
  }
  if (input.createOnly) {
    return refuse(
      'precondition_failed',
      'destino_existente',
      `The company already has webhook destination ${current.id} (${current.estado}); change it with If-Match and its current ETag.`,
      'header.if-none-match',
    );
  }
  const matched = requireMatch(input.ifMatch, destinationEtag(current), 'webhook destination');
  if (!matched.ok) return matched;
  const destination: WebhookDestination = {
    ...current,
    versao: current.versao + 1,
    estado: LIFECYCLE[current.estado].configurar!,
    url: input.url,
    secret: randomToken(ctx.random, SECRET_PREFIX),
    previousSecret: current.secret,
    atualizadoEm: ctx.now,
  };
  state.webhookDestinations.set(companyId, destination);
  cancelOpenEvents(state, companyId, 'destino_alterado', ctx.now);
  return ok({ destination, created: false });
}

/** DELETE /v1/webhook: revoke. No new delivery of the revoked version starts; one in flight may still arrive. */
export function revokeDestination(
  state: State,
  companyId: string,
  ifMatch: IfMatch,
  ctx: Context,
): Result<WebhookDestination> {
  const found = findDestination(state, companyId);
  if (!found.ok) return found;
  const current = found.value;
  const matched = requireMatch(ifMatch, destinationEtag(current), 'webhook destination');
  if (!matched.ok) return matched;
  const next = LIFECYCLE[current.estado].revogar;
  if (next === undefined)
    return refuse('conflict', 'destino_revogado', `Webhook destination ${current.id} is already revoked.`);
  const destination: WebhookDestination = {
    ...current,
    versao: current.versao + 1,
    estado: next,
    atualizadoEm: ctx.now,
  };
  state.webhookDestinations.set(companyId, destination);
  cancelOpenEvents(state, companyId, 'destino_revogado', ctx.now);
  return ok(destination);
}

export const webhookDestinationsSlice: KindSlice<
  'webhookDestinations',
  readonly WebhookDestination[],
  WebhookDestination
> = {
  key: 'webhookDestinations',
  holds: ['webhookDestinations'],
  collection: kept(),
  log: byKey(
    (state) => state.webhookDestinations,
    (destination) => destination.companyId,
  ),
  toData: (state) => [...state.webhookDestinations.values()],
  fromData: (state, destinations) => {
    for (const destination of destinations) state.webhookDestinations.set(destination.companyId, destination);
  },
  ownerOf: (destination) => destination.companyId,
  removeCompany: (state, companyId) => void state.webhookDestinations.delete(companyId),
  unique: (destinations) =>
    repeatedId('webhookDestinations', destinations, 'webhook destination') ??
    repeatedCompany('webhookDestinations', destinations, 'companyId', (d) => d.companyId, 'the webhook destination'),
  check: (data, r) => {
    for (const [i, d] of data.webhookDestinations.entries())
      if (!r.companies.has(d.companyId))
        return at(
          ['webhookDestinations', i, 'companyId'],
          `webhook destination ${d.id} belongs to unknown company ${d.companyId}`,
        );
    return undefined;
  },
};
