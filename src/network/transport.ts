/**
 * The outbound transport of webhook deliveries (ARCHITECTURE.md "Layers"). It signs and sends one attempt and
 * reports what the network made of it as a plain outcome; the core decides what that means for the event.
 *
 * Where a delivery goes, by the destination URL: a route to an in-process handler, a route to a local URL
 * (real HTTP through node:http, redirects not followed), or, for any other URL, the built-in inbox, which
 * answers 200. The public internet is never reached. Delivery faults (docs/faults.md) apply before the receiver
 * is reached. An answer counts only once complete, its whole body read (spec: WH-EVT-56).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { EventKind, NetworkOutcome } from '../core/webhooks/events.js';
import type { DeliveryFaultEffect, DeliveryFaultMatch } from '../engine/faults.js';
import type { DeliverySeen } from '../engine/near-misses.js';
import { VERSION } from '../version.js';
import type { Inbox } from './inbox.js';
import type { ReceiverHandler, RouteTable } from './routes.js';
import { deliveryRequest, type RequestParts } from './deferred-request.js';
import { signatureOf } from './signature.js';

/**
 * How long an in-process handler may take in real time before it counts as a peer that never answers
 * (createEmulator({ webhooks: { handlerGraceMs } })). Handlers run in virtual time, so a working one answers in
 * microseconds; the margin is for loaded machines. Each simulated dead peer costs this much real time.
 */
export const DEFAULT_HANDLER_GRACE_MS = 200;
/** The `tamper: "timestamp"` fault signs with a timestamp this old: outside the receivers' 5-minute tolerance. */
const TAMPERED_TIMESTAMP_AGE_S = 600;

/**
 * What the transport asks of the fault registry: the first armed delivery fault matching this delivery, taken
 * (it fires once). The engine's FaultRegistry (src/engine/faults.ts, which defines the effects) is the one
 * implementation; the transport sees only this, and gives the effects their meaning (send, signed).
 */
export interface DeliveryFaults {
  /** `seen`: the delivery's event and attempt, for the fault's near-misses. */
  takeDelivery(request: DeliveryFaultMatch, seen?: DeliverySeen): { readonly effect: DeliveryFaultEffect } | undefined;
}

export interface OutboundDelivery {
  readonly url: string;
  readonly companyId: string;
  readonly eventId: string;
  readonly tipo: EventKind;
  readonly tentativa: number;
  readonly secret: string;
  readonly body: string;
  /** Virtual time of the attempt (Unix ms). */
  readonly now: number;
}

/**
 * `no_answer`: the request was sent and no complete answer came back in time (silence, or a body still
 * arriving); the attempt's time-out will end it.
 */
export type TransportOutcome = NetworkOutcome | { readonly kind: 'no_answer' };

export interface TransportResult {
  readonly outcome: TransportOutcome;
  /** Virtual time the answer takes to come back (a `latencyMs` fault). */
  readonly latencyMs: number;
  /** What a receiver the test routed answered itself; null when none was reached (the built-in inbox, or a fault answered first). */
  readonly receiver: ReceiverAnswer | null;
}

/**
 * What a receiver the test routed (an in-process handler or a local URL) answered one attempt itself, and what it
 * was sent: a `timeout`, `reset` or `latencyMs` fault changes what the attempt makes of the answer, not the answer.
 * The grading of the client judges the receiver by it (a tampered delivery accepted, an answer too slow).
 */
export interface ReceiverAnswer {
  /** Its answer: complete or cut, refused, reset, or none within the time-out (`no_answer`). */
  readonly outcome: TransportOutcome;
  /** The part a `tamper` fault corrupted; null when none did. */
  readonly tamper: 'signature' | 'body' | 'timestamp' | null;
  /** Its answer to the second copy a `duplicate` fault sent; null when none was sent. */
  readonly copy: TransportOutcome | null;
}

type Parts = RequestParts;

/** The signed request of an attempt, made on first use and kept (a `duplicate` fault sends it twice). */
type Signer = () => Parts;

/** Where an attempt goes: a routed handler or local URL, or (undefined) the built-in inbox. */
type Target = ReturnType<RouteTable['resolve']>;

const atOnce = (outcome: TransportOutcome): TransportResult => ({ outcome, latencyMs: 0, receiver: null });
/** A routed receiver's answer, as the attempt's outcome too (no fault changed it). */
const answeredBy = (outcome: TransportOutcome): TransportResult => ({
  outcome,
  latencyMs: 0,
  receiver: { outcome, tamper: null, copy: null },
});

export class Transport {
  constructor(
    private readonly routes: RouteTable,
    private readonly inbox: Inbox,
    private readonly faults: DeliveryFaults,
    private readonly attemptTimeoutMs: () => number,
    private readonly handlerGraceMs: number = DEFAULT_HANDLER_GRACE_MS,
  ) {}

  /**
   * Sends one attempt. The result is given synchronously when nothing had to be waited for (the inbox, a fault
   * that answers in the network's place, an in-process handler that answered at once with a bodiless Response),
   * and as a promise otherwise: most attempts need no promise at all.
   */
  send(delivery: OutboundDelivery): TransportResult | Promise<TransportResult> {
    const effect = this.faults.takeDelivery(
      { url: delivery.url, eventType: delivery.tipo, companyId: delivery.companyId },
      delivery,
    )?.effect;
    if (effect && 'status' in effect) return atOnce({ kind: 'response', status: effect.status });
    if (effect && 'redirect' in effect) return atOnce({ kind: 'response', status: 302 });
    if (effect && 'refuse' in effect) return atOnce({ kind: 'refused' });

    // Signed when first needed: an in-process handler that never reads its request never needs the signature.
    let parts: Parts | undefined;
    const sign: Signer = () => (parts ??= signed(delivery, effect));
    const target = this.routes.resolve(delivery.url);
    const outcome = this.deliver(target, sign, delivery);
    if (effect === undefined) {
      const result = target === undefined ? atOnce : answeredBy;
      return outcome instanceof Promise ? outcome.then(result) : result(outcome);
    }
    return this.withEffect(outcome, effect, sign, delivery, target);
  }

  /** The faults that act once the request is sent: sent twice, or its answer lost, cut or delayed. */
  private async withEffect(
    first: TransportOutcome | Promise<TransportOutcome>,
    effect: DeliveryFaultEffect,
    sign: Signer,
    delivery: OutboundDelivery,
    target: Target,
  ): Promise<TransportResult> {
    const outcome = await first;
    const copy = 'duplicate' in effect ? await this.deliver(target, sign, delivery) : null;
    const receiver = target === undefined ? null : { outcome, tamper: 'tamper' in effect ? effect.tamper : null, copy };
    if ('timeout' in effect) return { outcome: { kind: 'no_answer' }, latencyMs: 0, receiver };
    if ('reset' in effect) return { outcome: { kind: 'reset' }, latencyMs: 0, receiver };
    return { outcome, latencyMs: 'latencyMs' in effect ? effect.latencyMs : 0, receiver };
  }

  private deliver(
    target: Target,
    sign: Signer,
    delivery: OutboundDelivery,
  ): TransportOutcome | Promise<TransportOutcome> {
    if (typeof target === 'function') return callHandler(target, sign, this.handlerGraceMs);
    const parts = sign();
    if (typeof target === 'string') return post({ ...parts, url: target }, this.attemptTimeoutMs());
    this.inbox.record({
      at: new Date(delivery.now).toISOString(),
      companyId: delivery.companyId,
      url: parts.url,
      headers: parts.headers,
      body: parts.body,
      eventId: delivery.eventId,
      tipo: delivery.tipo,
      tentativa: delivery.tentativa,
      answer: { status: 200 },
    });
    return { kind: 'response', status: 200 };
  }
}

const USER_AGENT = `catalog-emulator/${VERSION}`;

/**
 * What an attempt sends (spec "Delivery headers"): the body as it is, signed at `timestamp` (Unix seconds) with the
 * secret. The one place the delivery headers are written: the engine's attempts and the receiver check's cases
 * (src/grading) are both built here.
 */
export function deliveryParts(input: {
  readonly url: string;
  readonly secret: string;
  readonly eventId: string;
  readonly body: string;
  readonly timestamp: number;
}): Parts {
  return {
    url: input.url,
    headers: {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'service-event-id': input.eventId,
      'service-timestamp': String(input.timestamp),
      'service-signature': signatureOf(input.secret, input.timestamp, input.eventId, input.body),
    },
    body: input.body,
  };
}

/**
 * The signature with its last hex digit changed: what the `tamper: "signature"` fault sends, and the receiver
 * check's `signature-one-digit` case, so a receiver that compares only a prefix of the hex is caught by both.
 */
export function lastDigitChanged(signature: string): string {
  return signature.slice(0, -1) + (signature.endsWith('0') ? '1' : '0');
}

/** The request of one attempt, with a `tamper` fault applied after signing. */
function signed(d: OutboundDelivery, effect: DeliveryFaultEffect | undefined): Parts {
  const tamper = effect && 'tamper' in effect ? effect.tamper : undefined;
  const timestamp = Math.floor(d.now / 1000) - (tamper === 'timestamp' ? TAMPERED_TIMESTAMP_AGE_S : 0);
  const parts = deliveryParts({ url: d.url, secret: d.secret, eventId: d.eventId, body: d.body, timestamp });
  if (tamper === 'signature') {
    parts.headers['service-signature'] = lastDigitChanged(parts.headers['service-signature']!);
  }
  // One byte appended: still JSON that parses the same, so only a receiver that verifies the exact bytes notices.
  return tamper === 'body' ? { ...parts, body: `${d.body} ` } : parts;
}

/**
 * What the receiver check (src/grading) reads of an exchange besides its outcome: the first bytes of the answer's
 * body (at most `limit`; the rest is read to judge the answer complete, and dropped), and why a connection failed
 * (Node's error code, or what an in-process handler threw).
 */
export class AnswerProbe {
  private readonly chunks: Uint8Array[] = [];
  private kept = 0;
  cause: string | undefined;

  constructor(private readonly limit: number) {}

  keep(chunk: Uint8Array): void {
    if (this.kept >= this.limit) return;
    const part = chunk.subarray(0, this.limit - this.kept);
    this.chunks.push(part);
    this.kept += part.length;
  }

  /** The bytes kept, as text (a character cut at the limit shows as U+FFFD). */
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/**
 * One request to a receiver outside any delivery, with no fault applied and nothing recorded: a local or remote URL
 * over real HTTP (redirects not followed), or an in-process handler, each given `timeoutMs` of real time for the
 * whole exchange, answer body included, judged as an attempt is. What the receiver check sends its cases with.
 * `stop` abandons the exchange early (the check's deadline): it then ends `no_answer`, as at the time-out.
 */
export function exchange(
  target: string | ReceiverHandler,
  parts: Parts,
  timeoutMs: number,
  probe: AnswerProbe,
  stop?: AbortSignal,
): Promise<TransportOutcome> {
  if (typeof target === 'function') return Promise.resolve(callHandler(target, () => parts, timeoutMs, probe, stop));
  return post({ ...parts, url: target }, timeoutMs, probe, stop);
}

/**
 * An in-process receiver: its Response counts once its body has been read to the end (spec: WH-EVT-56), all
 * within the grace. A body stream that errors is a response cut short; one still running when the grace is
 * up is a peer that never finished answering, like one that never answered. A bodiless Response handed back
 * at once is complete already: its outcome is given without a promise or a timer.
 */
function callHandler(
  handler: ReceiverHandler,
  sign: Signer,
  graceMs: number,
  probe?: AnswerProbe,
  stop?: AbortSignal,
): TransportOutcome | Promise<TransportOutcome> {
  let given: ReturnType<ReceiverHandler>;
  try {
    given = handler(deliveryRequest(sign));
  } catch (error) {
    if (probe) probe.cause = `the handler threw ${String(error)}`;
    return { kind: 'refused' };
  }
  if (given instanceof Response && given.body === null) return { kind: 'response', status: given.status };
  return answerWithinGrace(given, graceMs, probe, stop);
}

async function answerWithinGrace(
  given: ReturnType<ReceiverHandler>,
  graceMs: number,
  probe: AnswerProbe | undefined,
  stop: AbortSignal | undefined,
): Promise<TransportOutcome> {
  let body: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const readAnswer = async (response: unknown): Promise<TransportOutcome> => {
    if (!(response instanceof Response)) {
      if (probe) probe.cause = `the handler answered ${response === null ? 'null' : typeof response}, not a Response`;
      return { kind: 'reset' };
    }
    try {
      body = response.body?.getReader();
      for (let read = await body?.read(); read && !read.done; read = await body!.read()) probe?.keep(read.value);
      return { kind: 'response', status: response.status };
    } catch {
      return { kind: 'incomplete', status: response.status };
    }
  };
  const refused = (error: unknown): TransportOutcome => {
    if (probe) probe.cause = `the handler rejected with ${String(error)}`;
    return { kind: 'refused' };
  };
  const answered = Promise.resolve(given).then(readAnswer, refused);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped: (() => void) | undefined;
  const silence = new Promise<TransportOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'no_answer' }), graceMs);
    timer.unref?.();
    stopped = () => resolve({ kind: 'no_answer' });
    if (stop?.aborted) stopped();
    else stop?.addEventListener('abort', stopped, { once: true });
  });
  try {
    const outcome = await Promise.race([answered, silence]);
    // A body still streaming is abandoned: cancelling it tells its source to stop.
    if (outcome.kind === 'no_answer') body?.cancel().catch(() => undefined);
    return outcome;
  } finally {
    clearTimeout(timer);
    if (stopped) stop?.removeEventListener('abort', stopped);
  }
}

/**
 * Node's own HTTP client, captured when this module loads, never looked up at call time: deliveries to a
 * routed local receiver must reach it whatever the test around the emulator mocks. vi.stubGlobal('fetch', …)
 * and msw replace the global `fetch`; msw (@mswjs/interceptors' ClientRequestInterceptor) and nock also
 * replace `request`, `get` and `ClientRequest` on the `node:http` and `node:https` module objects with
 * proxies that hand every request to the mock. A named import is a binding of Node's ES module facade of
 * node:http, which keeps the original function when the property is replaced (only
 * module.syncBuiltinESMExports() would update it): even a mock installed before this module loads is
 * bypassed, provided node:http was imported as an ES module before it was patched (msw's own import of it
 * is). `request` alone suffices: it builds Node's internal ClientRequest, not the module's property.
 */
const REQUEST = { 'http:': httpRequest, 'https:': httpsRequest } as const;

/**
 * Real HTTP to a routed local URL: redirects not followed (node:http never follows them), the attempt
 * time-out in real time over the whole exchange, headers and body. The response counts only once complete
 * (spec: WH-EVT-56): its whole declared body read (Content-Length reached, chunked terminated, or a
 * close-delimited body ended by a clean close). A response that began and then broke is `incomplete`; a
 * response still arriving at the time-out is `no_answer`, like silence.
 */
function post(parts: Parts, timeoutMs: number, probe?: AnswerProbe, stop?: AbortSignal): Promise<TransportOutcome> {
  return new Promise((resolve) => {
    const url = new URL(parts.url);
    const timeout = AbortSignal.timeout(timeoutMs);
    const timedOut = () => settle({ kind: 'no_answer' });
    /** The response, once its status line and headers are in. */
    let response: IncomingMessage | undefined;
    // `complete` is node's own verdict: its parser reached the end of the message as the headers framed it
    // (Content-Length read, last chunk, or a close-delimited body ended by a clean close). An 'error' or a
    // 'close' before that is a response cut short: the connection broke, or closed short of the length.
    // One blind spot, the platform's: a reset landing with the last bytes of a close-delimited body, before
    // they are read, reaches node as a clean end (libuv reports a hang-up after a partial read as the end of
    // the stream), so that body counts as complete. Bodies framed by length or chunks have no such gap.
    const judged = (begun: IncomingMessage): TransportOutcome => ({
      kind: begun.complete ? 'response' : 'incomplete',
      status: begun.statusCode ?? 0,
    });
    let settled = false;
    const settle = (outcome: TransportOutcome) => {
      if (settled) return;
      settled = true;
      timeout.removeEventListener('abort', timedOut);
      stop?.removeEventListener('abort', timedOut);
      resolve(timeout.aborted || stop?.aborted === true ? { kind: 'no_answer' } : outcome);
      request.destroy();
    };
    // One connection per attempt (agent: false): no pooled socket the receiver may have closed meanwhile,
    // which would break an attempt for a reason of our own. Host, connection and length are given here so
    // that every header name goes out in lower case, as the signed ones do.
    const headers = {
      host: url.host,
      connection: 'close',
      ...parts.headers,
      'content-length': String(Buffer.byteLength(parts.body)),
    };
    const request = REQUEST[url.protocol as keyof typeof REQUEST](
      url,
      { method: 'POST', headers, agent: false, signal: timeout },
      (begun) => {
        response = begun;
        const ended = () => settle(judged(begun));
        if (probe) begun.on('data', (chunk: Buffer) => probe.keep(chunk));
        begun.on('end', ended).on('error', ended).on('close', ended).resume();
      },
    );
    timeout.addEventListener('abort', timedOut, { once: true });
    if (stop?.aborted) timedOut();
    else stop?.addEventListener('abort', timedOut, { once: true });
    // Bytes after a complete response (a 204 with a body, say) fail the parser after the fact: judged, not an error.
    request.on('error', (error) => {
      if (probe && !response) probe.cause = (error as NodeJS.ErrnoException).code ?? error.message;
      settle(response ? judged(response) : classifyError(error));
    });
    request.end(parts.body);
  });
}

function classifyError(error: unknown): TransportOutcome {
  const code = (error as { code?: string })?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return { kind: 'refused' };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return { kind: 'unreachable' };
    default:
      // Anything else broke an exchange already under way before its answer began (ECONNRESET, a closed socket).
      return { kind: 'reset' };
  }
}
