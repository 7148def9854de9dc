/**
 * The receiver check: a battery of signed deliveries sent to an integrator's webhook receiver, each judged by its
 * answer, for the obligations the specification puts on the receiver (spec: SIG-07 to SIG-11, docs/grading.md
 * "Checking your webhook receiver"). A receiver that accepts a forged, altered or stale delivery is a hole no
 * happy-path test shows.
 *
 * Every case is built as the delivery engine builds an attempt (the envelope of src/core/webhooks/events.ts, the
 * headers and signature of src/network/transport.ts), then changed the one way the case says, and sent through the
 * network's own exchange, which judges the answer as an attempt is judged (core classifyOutcome): only a completed
 * 2xx within the engine's attempt time-out accepts; a redirect (never followed), any other status, a refused
 * connection, a reset or no answer in that time refuses. Each delivery carries a fresh event id but `duplicate`'s,
 * so a receiver's deduplication never masks a refusal.
 *
 * The cases run side by side (a case that follows another, `duplicate`, once that one is answered), each delivery
 * given the whole attempt time-out, so the check takes at most twice that. Its deadline never cuts an answer short
 * into a refusal: a delivery the deadline stopped is not judged, its case fails, and the check says it was not
 * `judged` (the command exits 2).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { SECRET_PREFIX } from '../core/webhooks/destination.js';
import { classifyOutcome, envelopeBody, type NetworkOutcome } from '../core/webhooks/events.js';
import type { RequestParts } from '../network/deferred-request.js';
import type { ReceiverHandler } from '../network/routes.js';
import { AnswerProbe, deliveryParts, exchange, lastDigitChanged, type TransportOutcome } from '../network/transport.js';

/** One event of a case: its id, its envelope's bytes, and the Service-Timestamp it is sent with (Unix seconds). */
interface CaseEvent {
  readonly eventId: string;
  readonly body: string;
  readonly timestamp: number;
}

/** What a case is built with: the receiver's clock, and deliveries made as the engine makes an attempt's. */
interface CaseTools {
  /** The receiver's clock when the case is built, in Unix seconds. */
  readonly now: number;
  /** What the case named by the row's `after` sent first, as an event; undefined for a row without one. */
  readonly earlier: CaseEvent | undefined;
  /** A fresh event (its own id) sent at `timestamp`, occurred at `occurred` (Unix seconds; `timestamp` by default). */
  event(timestamp: number, occurred?: number): CaseEvent;
  /** The attempt of `event`, signed with the receiver's secret, or with another secret, or the one before it. */
  signed(event: CaseEvent, key?: 'wrong' | 'old'): RequestParts;
}

/** A case: what the README's table shows of it, how it is built, and (`after`) the case it must follow. */
interface CaseRow {
  readonly id: string;
  readonly expect: 'accept' | 'reject';
  readonly statement: string;
  readonly sends: string;
  readonly fix: string;
  /** A case sent once this other one is answered, built from what it sent (another attempt of its event). */
  readonly after?: string;
  /** The deliveries of the case: one, or several a correct receiver answers alike (each with its own event). */
  readonly build: (tools: CaseTools) => readonly RequestParts[];
}

/**
 * Seconds of skew inside the spec's five minutes, and 20 s past them, so that a tolerance only a little wider than
 * the spec's (330 s) lets the stale and future cases through (spec: SIG-08).
 */
const WITHIN_TOLERANCE_S = 240;
const OUTSIDE_TOLERANCE_S = 320;
/** How long before its attempt `late-retry`'s event occurred: the fifth attempt comes 2 h 5 min after the first. */
const LATE_RETRY_AGE_S = 2 * 3600;
/** The hex digits of the valid signature `truncated-signature` keeps: none (`v1=` alone), half, all but one. */
const TRUNCATED_DIGITS = [0, 32, 63] as const;

/** The cases, in the order the report shows them; each is one row, its id, words, and how it is built. */
const CASE_ROWS = [
  {
    id: 'valid',
    expect: 'accept',
    statement: 'SIG-03',
    sends: 'a delivery signed with the secret, stamped now',
    fix:
      'verify HMAC-SHA256(secret, Service-Timestamp + "." + Service-Event-Id + "." + the raw body) with the whole ' +
      'secret (its svc_whsec_ prefix included) against the v1= value, then answer 2xx directly (a redirect is never ' +
      'followed) within the attempt time-out',
    build: ({ now, event, signed }) => [signed(event(now))],
  },
  {
    id: 'within-tolerance',
    expect: 'accept',
    statement: 'SIG-08',
    sends: 'the same, stamped 4 minutes ago',
    fix:
      'accept a Service-Timestamp up to 5 minutes from your clock either way (compare in seconds); if this refusal ' +
      "surprises you, synchronize the receiver's clock (NTP)",
    build: ({ now, event, signed }) => [signed(event(now - WITHIN_TOLERANCE_S))],
  },
  {
    id: 'duplicate',
    expect: 'accept',
    statement: 'SIG-11',
    sends: "valid's event again (same id and body), with a new timestamp and signature, once valid is answered",
    fix:
      'answer 2xx to another attempt of an event you already processed (the first answer may have been lost), ' +
      'without applying it again',
    after: 'valid',
    // Another attempt of valid's event: a new timestamp (a second later at least), so a new signature.
    build: ({ now, earlier, event, signed }) => {
      const first = earlier ?? event(now);
      return [signed({ ...first, timestamp: Math.max(now, first.timestamp + 1) })];
    },
  },
  {
    id: 'exact-bytes',
    expect: 'accept',
    statement: 'SIG-07',
    sends:
      'a delivery whose body is the envelope in another valid JSON layout (indented, one character \\u-escaped), ' +
      'signed over those bytes',
    fix:
      'compute the HMAC over the exact bytes received, before parsing: a receiver that signs a re-serialized parse ' +
      '(JSON.stringify(req.body) after a JSON middleware) refuses every body not laid out as its serializer would',
    build: ({ now, event, signed }) => {
      const e = event(now);
      return [signed({ ...e, body: relaid(e.body) })];
    },
  },
  {
    id: 'late-retry',
    expect: 'accept',
    statement: 'SIG-08',
    sends:
      'an attempt, stamped now and validly signed, of an event that occurred 2 hours before (its ocorridoEm), as a ' +
      'retry is',
    fix:
      "judge freshness by Service-Timestamp, the time of the attempt, never by the envelope's ocorridoEm, the time " +
      'of the event: a retry comes hours after its event, freshly stamped and signed',
    build: ({ now, event, signed }) => [signed(event(now, now - LATE_RETRY_AGE_S))],
  },
  {
    id: 'wrong-key',
    expect: 'reject',
    statement: 'SIG-04',
    sends: 'a delivery signed with another secret',
    fix: "verify with your destination's secret and refuse (4xx) a delivery whose v1= signature does not match",
    build: ({ now, event, signed }) => [signed(event(now), 'wrong')],
  },
  {
    id: 'old-secret',
    expect: 'reject',
    statement: 'SIG-06',
    sends: 'a delivery signed with the secret before the last configuration change',
    fix: 'after a configuration change, verify with the new secret only: the old one signs nothing any more',
    build: ({ now, event, signed }) => [signed(event(now), 'old')],
  },
  {
    id: 'body-altered',
    expect: 'reject',
    statement: 'SIG-03',
    sends: "a valid delivery's body with one byte changed after signing",
    fix: 'compute the HMAC over the exact bytes received and refuse a mismatch: the body is part of what is signed',
    build: ({ now, event, signed }) => {
      const parts = signed(event(now));
      return [{ ...parts, body: oneByteChanged(parts.body) }];
    },
  },
  {
    id: 'truncated-signature',
    expect: 'reject',
    statement: 'SIG-02',
    sends:
      'three deliveries, each with a starting part of its valid signature: v1= with none, 32 and 63 of the 64 hex ' +
      'digits',
    fix:
      'compare the whole v1= value with the whole expected hex, refusing any other length: a receiver that accepts a ' +
      'starting part of the signature accepts v1= with nothing after it, which anyone can send',
    build: ({ now, event, signed }) =>
      // Each its own delivery: v1= (3 characters) and the first `digits` of the hex.
      TRUNCATED_DIGITS.map((digits) => withSignature(signed(event(now)), (whole) => whole.slice(0, 3 + digits))),
  },
  {
    id: 'signature-one-digit',
    expect: 'reject',
    statement: 'SIG-02',
    sends: 'the valid signature with its last hex digit changed, as the delivery fault tamper: signature sends it',
    fix:
      'compare all 64 hex digits of the signature (crypto.timingSafeEqual over buffers of equal length): a ' +
      'comparison of its first digits only misses a change in the last one',
    build: ({ now, event, signed }) => [withSignature(signed(event(now)), lastDigitChanged)],
  },
  {
    id: 'stale-timestamp',
    expect: 'reject',
    statement: 'SIG-08',
    sends: 'a validly signed delivery stamped 5 minutes 20 seconds ago',
    fix:
      'refuse a Service-Timestamp more than 5 minutes (300 s) from your clock: a replayed delivery looks like this ' +
      'one, and a wider tolerance lets it through',
    build: ({ now, event, signed }) => [signed(event(now - OUTSIDE_TOLERANCE_S))],
  },
  {
    id: 'future-timestamp',
    expect: 'reject',
    statement: 'SIG-08',
    sends: 'a validly signed delivery stamped 5 minutes 20 seconds ahead',
    fix:
      'refuse a Service-Timestamp more than 5 minutes (300 s) from your clock in either direction, ahead as well as ' +
      'behind',
    build: ({ now, event, signed }) => [signed(event(now + OUTSIDE_TOLERANCE_S))],
  },
  {
    id: 'missing-signature',
    expect: 'reject',
    statement: 'SIG-02',
    sends: 'a delivery without Service-Signature',
    fix: 'refuse a delivery that carries no v1= signature',
    build: ({ now, event, signed }) => [without(signed(event(now)), 'service-signature')],
  },
  {
    id: 'missing-timestamp',
    expect: 'reject',
    statement: 'SIG-01',
    sends: 'a delivery without Service-Timestamp (signed as if it had one)',
    fix: 'refuse a delivery without Service-Timestamp: it is part of what is signed and what is checked for freshness',
    build: ({ now, event, signed }) => [without(signed(event(now)), 'service-timestamp')],
  },
  {
    id: 'missing-event-id',
    expect: 'reject',
    statement: 'SIG-03',
    sends: 'a delivery without Service-Event-Id (signed as if it had one)',
    fix: 'refuse a delivery without Service-Event-Id: it is part of what is signed and what you deduplicate on',
    build: ({ now, event, signed }) => [without(signed(event(now)), 'service-event-id')],
  },
  {
    id: 'unknown-scheme',
    expect: 'reject',
    statement: 'SIG-02',
    sends: 'the valid signature labelled v0= instead of v1=',
    fix: 'count only v1= signatures (skip any other scheme) and compare the whole hex value',
    build: ({ now, event, signed }) => [withSignature(signed(event(now)), (whole) => whole.replace(/^v1=/, 'v0='))],
  },
] as const satisfies readonly CaseRow[];

// A case that follows another is sent once that one is answered: it must name a case that follows none.
for (const row of CASE_ROWS as readonly CaseRow[]) {
  const followed = CASE_ROWS.find((other: CaseRow) => other.id === row.after);
  if (row.after !== undefined && (followed === undefined || 'after' in followed)) {
    throw new Error(`receiver case ${row.id} follows ${row.after}, which is not a case that follows none`);
  }
}

export type ReceiverCaseId = (typeof CASE_ROWS)[number]['id'];

/** One case of the check, as the README's table shows it. */
export interface ReceiverCase {
  readonly id: ReceiverCaseId;
  /** What a correct receiver does with it. */
  readonly expect: 'accept' | 'reject';
  /** The statement of the specification it checks. */
  readonly statement: string;
  /** What is sent. */
  readonly sends: string;
  /** How to fix a receiver that fails it. */
  readonly fix: string;
}

/** The cases, in the order the report shows them (`duplicate` is sent once `valid` is answered). */
export const RECEIVER_CASES: readonly ReceiverCase[] = CASE_ROWS.map(({ id, expect, statement, sends, fix }) =>
  Object.freeze({ id, expect, statement, sends, fix }),
);

/**
 * The receiver's obligations no answer can show, and why: what the check says of them instead of a verdict.
 * SIG-07 and SIG-11 are checked through what they show outside (exact-bytes, duplicate), SIG-08 whole.
 */
export const UNCHECKED_RECEIVER_STATEMENTS: Readonly<Record<string, string>> = {
  'SIG-09':
    "a constant-time comparison: one that stops at the first differing byte is faster by nanoseconds, far below the jitter of a network round trip, so no answer tells the two apart. Compare with crypto.timingSafeEqual, hmac.compare_digest, MessageDigest.isEqual or your platform's equivalent",
  'SIG-10':
    'the event id recorded in the transaction that applies the event: no answer shows it, only a crash between the two would. Record the id under a unique constraint in that transaction',
};

/** What one case sent: the headers as they went out (lower-case names), and the body by its length and hash. */
export interface ReceiverCaseSent {
  readonly headers: Readonly<Record<string, string>>;
  readonly bodyBytes: number;
  readonly bodySha256: string;
}

/**
 * A case's outcome when no complete answer came: the kind of network failure (`timeout`: none within the attempt
 * time-out), or not judged: `not-sent` (the check's deadline passed before it was sent), `deadline` (it passed
 * while the answer was awaited).
 */
export const RECEIVER_CASE_FAILURES = [
  'refused',
  'unreachable',
  'reset',
  'incomplete',
  'timeout',
  'not-sent',
  'deadline',
] as const;
export type ReceiverCaseFailure = (typeof RECEIVER_CASE_FAILURES)[number];

export interface ReceiverCaseResult {
  readonly id: ReceiverCaseId;
  readonly expect: 'accept' | 'reject';
  readonly statement: string;
  /** What was sent: of a case of several deliveries, the one that decided its verdict (else the first). */
  readonly sent: ReceiverCaseSent;
  /** The answer's status (also of one cut short); null when no status line came. */
  readonly status: number | null;
  /** Null for a complete answer. */
  readonly failure: ReceiverCaseFailure | null;
  /** Why the connection failed (Node's error code, or what an in-process handler threw); null otherwise. */
  readonly cause: string | null;
  /** The first bytes of the answer's body (at most 2 KiB), as text. */
  readonly answer: string;
  /** Whether the receiver accepted it: a completed 2xx within the attempt time-out. */
  readonly accepted: boolean;
  /** Real milliseconds from sending to the answer (or the failure). */
  readonly ms: number;
  readonly verdict: 'pass' | 'fail';
  /** How to fix the receiver, when it failed; null when it passed. */
  readonly fix: string | null;
}

/** The result of a check: each case, the totals, and what the check cannot say. */
export interface ReceiverCheck {
  /** The URL the requests named, and where they went when that is elsewhere (a network route, an in-process handler). */
  readonly receiver: { readonly url: string; readonly via: string | null };
  /** The receiver's clock the timestamps were taken from, when the first case was sent (ISO 8601). */
  readonly clock: string;
  /** What `old-secret` was signed with: the destination's previous secret, the one given, or a fresh one (none known). */
  readonly oldSecret: 'previous' | 'given' | 'fresh';
  /** Real time each delivery was given, answer included: the attempt time-out of the emulator's deliveries. */
  readonly timeoutMs: number;
  readonly cases: readonly ReceiverCaseResult[];
  readonly passed: number;
  readonly failed: number;
  /** False when no delivery got an answer (every one refused, unreachable, reset, timed out or not judged). */
  readonly reachable: boolean;
  /** False when the check's deadline passed before a case was judged (failure `not-sent` or `deadline`). */
  readonly judged: boolean;
  /** What no answer can show (spec: SIG-09, SIG-10), with why, and what the duplicate case cannot (spec: SIG-11). */
  readonly notChecked: readonly { readonly statement: string; readonly reason: string }[];
}

/** Where the cases go: the request URL they name, and what reaches the receiver (a URL, or an in-process handler). */
export interface ReceiverTarget {
  readonly url: string;
  readonly reach: string | ReceiverHandler;
  /** What to call `reach` in the report, when it is not `url`. */
  readonly via: string | null;
}

export interface ReceiverCheckSettings {
  readonly secret: string;
  readonly oldSecret: { readonly secret: string | undefined; readonly source: 'previous' | 'given' };
  /** The receiver's clock, read before each case (Unix ms). */
  readonly now: () => number;
  /** Real time each delivery is given: the engine's attempt time-out. */
  readonly timeoutMs: number;
  readonly deadlineMs: number;
  /** The envelope's `empresa`. */
  readonly cnpjRoot: string;
}

/** The options of the in-process call (emu.webhooks.checkReceiver) and of the CLI's command. */
export interface ReceiverCheckOptions {
  /** The receiver's URL (http or https); with `fetch`, the URL its requests name (default https://receiver.test/). */
  readonly url?: string;
  /** An in-process receiver instead of a URL: a handler taking a Fetch Request (a hono app's fetch, …). */
  readonly fetch?: ReceiverHandler;
  /** The secret the receiver verifies with. */
  readonly secret: string;
  /** The secret before its last configuration change, for `old-secret` (a fresh one when absent). */
  readonly previousSecret?: string;
  /** The receiver's clock: Unix ms, a Date, or a function read before each case; the wall clock by default. */
  readonly now?: number | Date | (() => number | Date);
  /**
   * Real time the whole check may take: at least twice the attempt time-out (`webhooks.attemptTimeout`), which
   * each delivery is given; 60 s or that, whichever is longer, by default.
   */
  readonly deadlineMs?: number;
  /** The envelope's `empresa`, 8 digits (default 00000000). */
  readonly cnpjRoot?: string;
}

const RECEIVER_CHECK_DEFAULTS = { deadlineMs: 60_000, maxDeadlineMs: 600_000 } as const;
/**
 * The deadline the check needs, in attempt time-outs: the cases side by side, then the one that follows another
 * (`duplicate` after `valid`), each delivery given the whole time-out.
 */
const TIME_OUTS_PER_CHECK = 2;
/** How much of an answer's body the report keeps. */
const ANSWER_BYTES = 2048;

/** The options the in-process call, the control and the command share, checked, with their defaults. */
export interface CheckLimits {
  /** The attempt time-out each delivery is given. */
  readonly timeoutMs: number;
  readonly deadlineMs: number;
  readonly cnpjRoot: string;
  /** Undefined: the caller's default clock. */
  readonly now: (() => number) | undefined;
}

/**
 * The options checked (a TypeError naming the first that is wrong), with their defaults. `attemptTimeoutMs` is the
 * engine's (`webhooks.attemptTimeout`): each delivery is judged within it, as an attempt is, and a deadline too short
 * for that is refused rather than let cut an answer short into a refusal.
 */
export function readCheckOptions(
  options: Pick<ReceiverCheckOptions, 'now' | 'deadlineMs' | 'cnpjRoot'>,
  attemptTimeoutMs: number,
): CheckLimits {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('the receiver check takes an options object');
  if ((options as { timeoutMs?: unknown }).timeoutMs !== undefined) {
    throw new TypeError(
      'timeoutMs is not an option of the receiver check: each delivery is given the attempt time-out of the ' +
        "emulator's deliveries (createEmulator({ webhooks: { attemptTimeout } }), 15 s by default)",
    );
  }
  const needed = TIME_OUTS_PER_CHECK * attemptTimeoutMs;
  const { maxDeadlineMs } = RECEIVER_CHECK_DEFAULTS;
  if (needed > maxDeadlineMs) {
    throw new TypeError(
      `the receiver check needs twice the attempt time-out (webhooks.attemptTimeout, ${attemptTimeoutMs} ms) to ` +
        `judge every case, more than its longest deadline (${maxDeadlineMs} ms)`,
    );
  }
  const { deadlineMs = Math.max(RECEIVER_CHECK_DEFAULTS.deadlineMs, needed), cnpjRoot = '00000000', now } = options;
  const least = Math.max(1, needed);
  const whole = typeof deadlineMs === 'number' && Number.isInteger(deadlineMs);
  if (!whole || deadlineMs < least || deadlineMs > maxDeadlineMs) {
    throw new TypeError(
      `deadlineMs must be a whole number of milliseconds from ${least} to ${maxDeadlineMs} ` +
        `(got ${String(deadlineMs)}): at least twice the attempt time-out of ${attemptTimeoutMs} ms, ` +
        'the time the check needs to judge every case',
    );
  }
  if (typeof cnpjRoot !== 'string' || !/^\d{8}$/.test(cnpjRoot)) {
    throw new TypeError(`cnpjRoot must be the 8 digits of a CNPJ root (got ${String(cnpjRoot)})`);
  }
  return { timeoutMs: attemptTimeoutMs, deadlineMs, cnpjRoot, now: now === undefined ? undefined : clockOf(now) };
}

/** A secret option: a non-empty string (a TypeError otherwise). */
export function readSecret(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new TypeError(
      `${name} must be the webhook secret the receiver verifies with (a non-empty string, "${SECRET_PREFIX}…")`,
    );
  return value;
}

/** `now` as a function of Unix ms, each reading checked. */
function clockOf(now: number | Date | (() => number | Date)): () => number {
  const read = (value: unknown): number => {
    const ms = value instanceof Date ? value.getTime() : value;
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
      throw new TypeError(`now must be a Date, Unix milliseconds, or a function giving one (got ${String(value)})`);
    return ms;
  };
  if (typeof now === 'function') return () => read(now());
  const fixed = read(now);
  return () => fixed;
}

/** A secret no receiver has: the shape of the service's (prefix and 32 random bytes), drawn here. */
const freshSecret = () => SECRET_PREFIX + randomBytes(32).toString('base64url');

/** What one delivery of a case got: a case's result but for what its row says and its verdict. */
type DeliveryResult = Omit<ReceiverCaseResult, 'id' | 'expect' | 'statement' | 'verdict' | 'fix'>;

/**
 * Sends every case to `target`, side by side (a case that follows another once that one is answered), and judges
 * each answer. Never throws for what the receiver does.
 */
export async function checkReceiver(target: ReceiverTarget, settings: ReceiverCheckSettings): Promise<ReceiverCheck> {
  const clock = new Date(settings.now()).toISOString();
  const keys = { secret: settings.secret, old: settings.oldSecret.secret ?? freshSecret(), wrong: freshSecret() };
  const event = (timestamp: number, occurred = timestamp): CaseEvent => {
    const eventId = randomUUID();
    const body = envelopeBody(eventId, settings.cnpjRoot, occurred * 1000, { tipo: 'webhook.teste' });
    return { eventId, body, timestamp };
  };
  const signed = (e: CaseEvent, key?: 'wrong' | 'old') => {
    const { eventId, body, timestamp } = e;
    return deliveryParts({ url: target.url, secret: keys[key ?? 'secret'], eventId, body, timestamp });
  };
  const deadline = new AbortController();
  // Every delivery in flight listens to it (each removes its listener when answered): more than Node's warning level.
  setMaxListeners(0, deadline.signal);
  const timer = setTimeout(() => deadline.abort(), settings.deadlineMs);
  /** What each case sent, for the case that follows it. */
  const sent = new Map<string, readonly RequestParts[]>();
  const answers: DeliveryResult[] = [];
  const run = async (row: CaseRow): Promise<ReceiverCaseResult> => {
    const earlier = row.after === undefined ? undefined : eventOf(sent.get(row.after)?.[0]);
    const deliveries = row.build({ now: Math.floor(settings.now() / 1000), earlier, event, signed });
    sent.set(row.id, deliveries);
    const send = (parts: RequestParts) => sendDelivery(parts, target.reach, settings.timeoutMs, deadline.signal);
    const got = await Promise.all(deliveries.map(send));
    answers.push(...got);
    return judged(row, got);
  };
  const rows: readonly CaseRow[] = CASE_ROWS;
  const running = new Map<string, Promise<ReceiverCaseResult>>();
  for (const row of rows) if (row.after === undefined) running.set(row.id, run(row));
  for (const row of rows) {
    if (row.after !== undefined)
      running.set(
        row.id,
        running.get(row.after)!.then(() => run(row)),
      );
  }
  let results: ReceiverCaseResult[];
  try {
    results = await Promise.all(rows.map((row) => running.get(row.id)!));
  } finally {
    clearTimeout(timer);
    // Only when the check itself failed (a `now` that threw) is anything still in flight: it is abandoned.
    deadline.abort();
  }
  const failed = results.filter((r) => r.verdict === 'fail').length;
  const validEvent = sent.get('valid')?.[0]?.headers['service-event-id'] ?? '';
  return {
    receiver: { url: target.url, via: target.via },
    clock,
    oldSecret: settings.oldSecret.secret === undefined ? 'fresh' : settings.oldSecret.source,
    timeoutMs: settings.timeoutMs,
    cases: results,
    passed: results.length - failed,
    failed,
    reachable: answers.some((a) => a.status !== null),
    judged: !results.some(unjudged),
    notChecked: [
      ...Object.entries(UNCHECKED_RECEIVER_STATEMENTS).map(([statement, reason]) => ({ statement, reason })),
      {
        statement: 'SIG-11',
        reason:
          `an event's effect applied once: no answer shows it, but valid and duplicate sent event ${validEvent} ` +
          'twice, so check in your records that it took effect once',
      },
    ],
  };
}

/** The event a delivery carries, as the receiver reads it: its id, its bytes and its Service-Timestamp. */
function eventOf(parts: RequestParts | undefined): CaseEvent | undefined {
  const eventId = parts?.headers['service-event-id'];
  const stamp = parts?.headers['service-timestamp'];
  if (parts === undefined || eventId === undefined || stamp === undefined) return undefined;
  return { eventId, body: parts.body, timestamp: Number(stamp) };
}

/** The delivery with its Service-Signature changed by `change`. */
function withSignature(parts: RequestParts, change: (signature: string) => string): RequestParts {
  return { ...parts, headers: { ...parts.headers, 'service-signature': change(parts.headers['service-signature']!) } };
}

/** The delivery without `header` (lower case), signed as if it had it. */
function without(parts: RequestParts, header: string): RequestParts {
  const { [header]: _dropped, ...headers } = parts.headers;
  return { ...parts, headers };
}

/**
 * The envelope in another valid JSON layout that parses to the same value: indented, with the `Z` of `ocorridoEm`
 * written as \u005a, and a final newline. JSON.stringify of its parse gives back the compact bytes, not these.
 */
function relaid(body: string): string {
  const text = JSON.stringify(JSON.parse(body), null, 2).replace(/("ocorridoEm": "[^"]*)Z"/, '$1\\u005a"');
  if (!text.includes('\\u005a')) throw new Error('the envelope has no ocorridoEm to lay out otherwise');
  return `${text}\n`;
}

/** The body with the last digit of `ocorridoEm`'s milliseconds changed: the same length, one byte apart. */
function oneByteChanged(body: string): string {
  const changed = body.replace(
    /("ocorridoEm":"[^"]*)(\d)Z"/,
    (_, head: string, digit: string) => `${head}${digit === '9' ? '8' : String(Number(digit) + 1)}Z"`,
  );
  if (changed === body) throw new Error('the envelope has no ocorridoEm to change');
  return changed;
}

/**
 * Sends one delivery, given the attempt time-out, and judges the answer as an attempt's. Sent after the deadline, or
 * stopped by it before its answer, it is not judged (`not-sent`, `deadline`): never a refusal by default.
 */
async function sendDelivery(
  parts: RequestParts,
  reach: string | ReceiverHandler,
  timeoutMs: number,
  deadline: AbortSignal,
): Promise<DeliveryResult> {
  const bodySha256 = createHash('sha256').update(parts.body).digest('hex');
  const sent: ReceiverCaseSent = { headers: parts.headers, bodyBytes: Buffer.byteLength(parts.body), bodySha256 };
  const unanswered = { sent, status: null, answer: '', accepted: false };
  if (deadline.aborted) {
    return { ...unanswered, failure: 'not-sent', cause: "the check's deadline passed before it was sent", ms: 0 };
  }
  const probe = new AnswerProbe(ANSWER_BYTES);
  const began = performance.now();
  const outcome = await exchange(reach, parts, timeoutMs, probe, deadline);
  const ms = Math.round(performance.now() - began);
  if (outcome.kind === 'no_answer' && deadline.aborted) {
    return { ...unanswered, failure: 'deadline', cause: "the check's deadline passed before its answer", ms };
  }
  const network: NetworkOutcome = outcome.kind === 'no_answer' ? { kind: 'timeout' } : outcome;
  const accepted = classifyOutcome(network).estado === 'entregue';
  const status = 'status' in network ? network.status : null;
  return { sent, status, failure: failureOf(outcome), cause: probe.cause ?? null, answer: probe.text(), accepted, ms };
}

const unjudged = (result: { readonly failure: ReceiverCaseFailure | null }) =>
  result.failure === 'not-sent' || result.failure === 'deadline';

/**
 * A case passes when the receiver did with every delivery what a correct one does; a delivery not judged says
 * nothing, so its case fails. The result shows the delivery that decided: one answered wrongly, else one not
 * judged, else the first.
 */
function judged(row: CaseRow, got: readonly DeliveryResult[]): ReceiverCaseResult {
  const wrong = got.find((d) => !unjudged(d) && d.accepted !== (row.expect === 'accept'));
  const open = got.find(unjudged);
  const shown = wrong ?? open ?? got[0]!;
  const base = { id: row.id as ReceiverCaseId, expect: row.expect, statement: row.statement, ...shown };
  if (wrong !== undefined) return { ...base, verdict: 'fail', fix: row.fix };
  if (open !== undefined) return { ...base, verdict: 'fail', fix: UNJUDGED_FIX };
  return { ...base, verdict: 'pass', fix: null };
}

const UNJUDGED_FIX =
  "the check's deadline passed before this case was answered, so it was not judged: run it again with a longer " +
  'deadline (at least twice the attempt time-out)';

function failureOf(outcome: TransportOutcome): ReceiverCaseFailure | null {
  switch (outcome.kind) {
    case 'response':
      return null;
    case 'no_answer':
    case 'timeout':
      return 'timeout';
    default:
      return outcome.kind;
  }
}

/** What a case got, in a few words: the status, or the failure. */
function answerWords(result: ReceiverCaseResult, timeoutMs: number): string {
  const cause = result.cause === null ? '' : ` (${result.cause})`;
  switch (result.failure) {
    case null:
      return result.status !== null && result.status >= 300 && result.status < 400
        ? `${result.status} redirect, not followed`
        : String(result.status);
    case 'incomplete':
      return `${result.status} cut short`;
    case 'timeout':
      return `no answer in ${timeoutMs} ms`;
    case 'not-sent':
      return 'not sent: deadline passed';
    case 'deadline':
      return 'not judged: deadline passed';
    default:
      return `${result.failure}${cause}`;
  }
}

/**
 * The check as a person reads it: the table of cases (the time last, as it varies from run to run), the totals, one
 * line per failing case saying how to fix it, and what the check cannot say.
 */
export function formatReceiverCheck(check: ReceiverCheck): string {
  const rows = check.cases.map((r) => [
    r.id,
    r.expect,
    answerWords(r, check.timeoutMs),
    r.verdict === 'pass' ? 'pass' : 'FAIL',
    r.statement,
    `${r.ms} ms`,
  ]);
  const header = ['case', 'expect', 'answer', 'verdict', 'checks', 'time'];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
  const oldSecret = {
    previous: "the destination's previous secret",
    given: 'the previous secret given',
    fresh: 'a fresh secret (no previous one given)',
  }[check.oldSecret];
  const out = [
    `Receiver check of ${check.receiver.url}${check.receiver.via === null ? '' : ` (via ${check.receiver.via})`}`,
    `Timestamps from the receiver's clock at ${check.clock}; old-secret signed with ${oldSecret}.`,
    '',
    line(header),
    ...rows.map(line),
    '',
    `${check.passed} of ${check.cases.length} cases passed, ${check.failed} failed.`,
  ];
  const failing = check.cases.filter((r) => r.verdict === 'fail');
  const got = (r: ReceiverCaseResult) => (unjudged(r) ? 'not judged' : r.accepted ? 'accepted' : 'refused');
  if (failing.length > 0) out.push('', 'To fix:', ...failing.map((r) => `  ${r.id}: ${got(r)}; ${r.fix}.`));
  out.push('', 'Not checked from outside:', ...check.notChecked.map((n) => `  ${n.statement}: ${n.reason}.`));
  return `${out.join('\n')}\n`;
}
