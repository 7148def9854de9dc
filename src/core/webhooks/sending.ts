/**
 * Test events and resends (spec "POST /v1/webhook/testes", "POST /v1/webhook/eventos/{id}/reenvios"). Both
 * need an active destination and its current ETag, and share the limit of 5 accepted requests per minute per
 * company (spec "Limits"), counted on the virtual clock. Checks run in the order of
 * docs/api.md "Rules every request follows": the event (404), the destination (404), If-Match (428, 412), states
 * (409), then the limit (429), so that only requests that would be accepted count against it.
 */
import { DAY, MINUTE, type Instant } from '../time.js';
import { ok, refuse, type Quota, type Result } from '../refusal.js';
import { byEntry, kept, type Context, type KindSlice, type State } from '../state.js';
import { at, repeatedCompany } from '../integrity.js';
import { requireMatch, type IfMatch } from '../versioning.js';
import { activeDestination, destinationEtag, findDestination, type WebhookDestination } from './destination.js';
import { recordEvent, reopen, resendable, type WebhookEvent } from './events.js';

export const SEND_LIMIT = 5;
export const SEND_WINDOW_MS = MINUTE;
export const RESEND_MAX_AGE_MS = 30 * DAY;

type SendQuota = Quota;
const POLICY = 'testes-reenvios';
const quota = (remaining: number, resetSeconds: number): SendQuota => ({
  policy: POLICY,
  limit: SEND_LIMIT,
  windowSeconds: SEND_WINDOW_MS / 1000,
  remaining,
  resetSeconds,
});

export interface SchedulingReceipt {
  readonly event: WebhookEvent;
  readonly destination: WebhookDestination;
  readonly quota: SendQuota;
}

export function sendTestEvent(
  state: State,
  companyId: string,
  ifMatch: IfMatch,
  ctx: Context,
): Result<SchedulingReceipt> {
  const destination = usableDestination(state, companyId, ifMatch);
  if (!destination.ok) return destination;
  const quota = takeSendSlot(state, companyId, ctx.now);
  if (!quota.ok) return quota;
  const event = recordEvent(state, destination.value, { tipo: 'webhook.teste' }, ctx);
  return ok({ event, destination: destination.value, quota: quota.value });
}

export function resendEvent(
  state: State,
  companyId: string,
  eventId: string,
  ifMatch: IfMatch,
  ctx: Context,
): Result<SchedulingReceipt> {
  const event = state.webhookEvents.get(eventId);
  if (!event || event.companyId !== companyId)
    return refuse(
      'not_found',
      'evento_nao_encontrado',
      `No webhook event ${eventId} in this company (closed events are removed 30 days after closing).`,
      'path.id',
    );
  const destination = usableDestination(state, companyId, ifMatch);
  if (!destination.ok) return destination;
  const allowed = resendable(event, ctx.now, RESEND_MAX_AGE_MS);
  if (!allowed.ok) return allowed;
  const quota = takeSendSlot(state, companyId, ctx.now);
  if (!quota.ok) return quota;
  return ok({
    event: reopen(state, event, destination.value, ctx),
    destination: destination.value,
    quota: quota.value,
  });
}

/** 404 without a destination, 428/412 on its ETag, 409 when revoked. */
function usableDestination(state: State, companyId: string, ifMatch: IfMatch): Result<WebhookDestination> {
  const found = findDestination(state, companyId);
  if (!found.ok) return found;
  const matched = requireMatch(ifMatch, destinationEtag(found.value), 'webhook destination');
  if (!matched.ok) return matched;
  return activeDestination(found.value);
}

/** Counts an accepted request against the shared limit, or refuses with 429 and when to retry. */
function takeSendSlot(state: State, companyId: string, now: Instant): Result<SendQuota> {
  const recent = (state.webhookSends.get(companyId) ?? []).filter((at) => at > now - SEND_WINDOW_MS);
  if (recent.length >= SEND_LIMIT) {
    const resetSeconds = Math.max(1, Math.ceil((recent[0]! + SEND_WINDOW_MS - now) / 1000));
    return refuse(
      'rate_limited',
      'limite_testes_reenvios',
      `At most ${SEND_LIMIT} test and resend requests per minute per company; retry in ${resetSeconds} s.`,
      undefined,
      quota(0, resetSeconds),
    );
  }
  const sends = [...recent, now];
  state.webhookSends.set(companyId, sends);
  // RateLimit `t`: seconds until more quota comes back, i.e. until the oldest counted request leaves the window.
  const resetSeconds = Math.max(1, Math.ceil((sends[0]! + SEND_WINDOW_MS - now) / 1000));
  return ok(quota(SEND_LIMIT - sends.length, resetSeconds));
}

/** Per company, the acceptance times of its test and resend requests (what the shared limit counts). */
export const webhookSendsSlice: KindSlice<
  'webhookSends',
  readonly (readonly [companyId: string, times: readonly Instant[]])[],
  readonly Instant[]
> = {
  key: 'webhookSends',
  holds: ['webhookSends'],
  collection: kept(),
  log: byEntry((state) => state.webhookSends),
  toData: (state) => [...state.webhookSends.entries()],
  fromData: (state, sends) => {
    for (const [companyId, times] of sends) state.webhookSends.set(companyId, [...times]);
  },
  ownerOf: ([companyId]) => companyId,
  removeCompany: (state, companyId) => void state.webhookSends.delete(companyId),
  unique: (sends) => repeatedCompany('webhookSends', sends, 0, ([c]) => c, 'the test and resend times'),
  check: (data, r) => {
    for (const [i, [companyId]] of data.webhookSends.entries())
      if (!r.companies.has(companyId))
        return at(['webhookSends', i, 0], `test and resend times of unknown company ${companyId}`);
    return undefined;
  },
};
