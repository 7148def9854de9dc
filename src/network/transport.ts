/**
 * The outbound transport of webhook deliveries (DESIGN §2 src/network). It signs and sends one attempt and
 * reports what the network made of it as a plain outcome; the core decides what that means for the event.
 *
 * Where a delivery goes, by the destination URL: a route to an in-process handler, a route to a local URL
 * (real HTTP, redirects not followed), or, for any other URL, the built-in inbox, which answers 200. The
 * public internet is never reached. Delivery faults (DESIGN §6) apply before the receiver is reached.
 */
import type { NetworkOutcome } from '../core/webhooks/events.js';
import type { DeliveryFaultEffect, FaultRegistry } from '../control/faults.js';
import { VERSION } from '../version.js';
import type { Inbox } from './inbox.js';
import type { ReceiverHandler, RouteTable } from './routes.js';
import { signatureOf } from './signature.js';

/**
 * How long an in-process handler may take in real time before it counts as a peer that never answers
 * (createEmulator({ webhooks: { handlerGraceMs } })). Handlers run in virtual time, so a working one answers in
 * microseconds; the margin is for loaded machines. Each simulated dead peer costs this much real time.
 */
export const DEFAULT_HANDLER_GRACE_MS = 200;
/** The `tamper: "timestamp"` fault signs with a timestamp this old: outside the receivers' 5-minute tolerance. */
export const TAMPERED_TIMESTAMP_AGE_S = 600;

export interface OutboundDelivery {
  readonly url: string;
  readonly companyId: string;
  readonly eventId: string;
  readonly tipo: string;
  readonly tentativa: number;
  readonly secret: string;
  readonly body: string;
  /** Virtual time of the attempt (Unix ms). */
  readonly now: number;
}

/** `no_answer`: the request was sent and nothing came back; the attempt's time-out will end it. */
export type TransportOutcome = NetworkOutcome | { readonly kind: 'no_answer' };

export interface TransportResult {
  readonly outcome: TransportOutcome;
  /** Virtual time the answer takes to come back (a `latencyMs` fault). */
  readonly latencyMs: number;
}

interface Parts {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export class Transport {
  constructor(
    private readonly routes: RouteTable,
    private readonly inbox: Inbox,
    private readonly faults: FaultRegistry,
    private readonly attemptTimeoutMs: () => number,
    private readonly handlerGraceMs: number = DEFAULT_HANDLER_GRACE_MS,
  ) {}

  async send(delivery: OutboundDelivery): Promise<TransportResult> {
    const effect = this.faults.takeDelivery({ url: delivery.url, eventType: delivery.tipo, companyId: delivery.companyId })?.effect;
    const answer = (outcome: TransportOutcome, latencyMs = 0): TransportResult => ({ outcome, latencyMs });
    if (effect && 'status' in effect) return answer({ kind: 'response', status: effect.status });
    if (effect && 'redirect' in effect) return answer({ kind: 'response', status: 302 });
    if (effect && 'refuse' in effect) return answer({ kind: 'refused' });

    const parts = signed(delivery, effect);
    const outcome = await this.deliver(parts, delivery);
    if (effect && 'duplicate' in effect) await this.deliver(parts, delivery);
    if (effect && 'timeout' in effect) return answer({ kind: 'no_answer' });
    if (effect && 'reset' in effect) return answer({ kind: 'reset' });
    return answer(outcome, effect && 'latencyMs' in effect ? effect.latencyMs : 0);
  }

  private deliver(parts: Parts, delivery: OutboundDelivery): Promise<TransportOutcome> {
    const target = this.routes.resolve(parts.url);
    if (typeof target === 'function') return callHandler(target, parts, this.handlerGraceMs);
    if (typeof target === 'string') return post({ ...parts, url: target }, this.attemptTimeoutMs());
    this.inbox.record({
      at: new Date(delivery.now).toISOString(),
      url: parts.url,
      headers: parts.headers,
      body: parts.body,
      eventId: delivery.eventId,
      tipo: delivery.tipo,
      tentativa: delivery.tentativa,
      answer: { status: 200 },
    });
    return Promise.resolve({ kind: 'response', status: 200 });
  }
}

/** The request of one attempt (spec "Delivery headers"), with a `tamper` fault applied after signing. */
function signed(d: OutboundDelivery, effect: DeliveryFaultEffect | undefined): Parts {
  const tamper = effect && 'tamper' in effect ? effect.tamper : undefined;
  const timestamp = Math.floor(d.now / 1000) - (tamper === 'timestamp' ? TAMPERED_TIMESTAMP_AGE_S : 0);
  let signature = signatureOf(d.secret, timestamp, d.eventId, d.body);
  if (tamper === 'signature') signature = signature.slice(0, -1) + (signature.endsWith('0') ? '1' : '0');
  return {
    url: d.url,
    headers: {
      'content-type': 'application/json',
      'user-agent': `catalog-emulator/${VERSION}`,
      'service-event-id': d.eventId,
      'service-timestamp': String(timestamp),
      'service-signature': signature,
    },
    // One byte appended: still JSON that parses the same, so only a receiver that verifies the exact bytes notices.
    body: tamper === 'body' ? `${d.body} ` : d.body,
  };
}

async function callHandler(handler: ReceiverHandler, parts: Parts, graceMs: number): Promise<TransportOutcome> {
  let answered: Promise<TransportOutcome>;
  try {
    answered = Promise.resolve(handler(new Request(parts.url, { method: 'POST', headers: parts.headers, body: parts.body }))).then(
      (response) => (response instanceof Response ? { kind: 'response', status: response.status } : { kind: 'reset' }),
      () => ({ kind: 'refused' }),
    );
  } catch {
    return { kind: 'refused' };
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const silence = new Promise<TransportOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'no_answer' }), graceMs);
    timer.unref?.();
  });
  try {
    return await Promise.race([answered, silence]);
  } finally {
    clearTimeout(timer);
  }
}

/** Real HTTP to a routed local URL: redirects not followed, the attempt time-out in real time. */
async function post(parts: Parts, timeoutMs: number): Promise<TransportOutcome> {
  try {
    const response = await fetch(parts.url, { method: 'POST', headers: parts.headers, body: parts.body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer().catch(() => undefined);
    return { kind: 'response', status: response.status };
  } catch (error) {
    return classifyError(error);
  }
}

function classifyError(error: unknown): TransportOutcome {
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return { kind: 'no_answer' };
  const code = ((error as { cause?: { code?: string } })?.cause?.code ?? (error as { code?: string })?.code) as string | undefined;
  switch (code) {
    case 'ECONNREFUSED':
      return { kind: 'refused' };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return { kind: 'unreachable' };
    default:
      // Anything else broke an exchange already under way (ECONNRESET, UND_ERR_SOCKET, a closed socket).
      return { kind: 'reset' };
  }
}
