/**
 * The receiver check: a battery of signed deliveries sent to an integrator's webhook receiver, each judged by its
 * answer, for the obligations the specification puts on the receiver (spec: SIG-07 to SIG-11, README "Checking your
 * webhook receiver"). A receiver that accepts a forged, altered or stale delivery is a hole no happy-path test shows.
 *
 * Every case is built as the delivery engine builds an attempt (the envelope of src/core/webhooks/events.ts, the
 * headers and signature of src/network/transport.ts), then changed the one way the case says, and sent through the
 * network's own exchange, which judges the answer as an attempt is judged (core classifyOutcome): only a completed
 * 2xx accepts; a redirect (never followed), any other status, a refused connection, a reset or a time-out refuses.
 * Each case carries a fresh event id but `duplicate`, so a receiver's deduplication never masks a refusal.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { SECRET_PREFIX } from '../core/webhooks/destination.js';
import { classifyOutcome, envelopeBody, type NetworkOutcome } from '../core/webhooks/events.js';
import type { RequestParts } from '../network/deferred-request.js';
import type { ReceiverHandler } from '../network/routes.js';
import { AnswerProbe, deliveryParts, exchange, type TransportOutcome } from '../network/transport.js';

export type ReceiverCaseId =
  | 'valid'
  | 'within-tolerance'
  | 'duplicate'
  | 'exact-bytes'
  | 'wrong-key'
  | 'old-secret'
  | 'body-altered'
  | 'stale-timestamp'
  | 'future-timestamp'
  | 'missing-signature'
  | 'missing-timestamp'
  | 'missing-event-id'
  | 'unknown-scheme';

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

/** Seconds of skew inside the spec's five minutes, and outside them (spec: SIG-08). */
const WITHIN_TOLERANCE_S = 240;
const OUTSIDE_TOLERANCE_S = 360;

/** The cases, in the order they are sent (`duplicate` repeats `valid`'s event, so it comes after it). */
export const RECEIVER_CASES: readonly ReceiverCase[] = [
  {
    id: 'valid',
    expect: 'accept',
    statement: 'SIG-03',
    sends: 'a delivery signed with the secret, stamped now',
    fix: 'verify HMAC-SHA256(secret, Service-Timestamp + "." + Service-Event-Id + "." + the raw body) with the whole secret (its svc_whsec_ prefix included) against the v1= value, then answer 2xx directly (a redirect is never followed)',
  },
  {
    id: 'within-tolerance',
    expect: 'accept',
    statement: 'SIG-08',
    sends: 'the same, stamped 4 minutes ago',
    fix: 'accept a Service-Timestamp up to 5 minutes from your clock either way (compare in seconds); if this refusal surprises you, synchronize the receiver\'s clock (NTP)',
  },
  {
    id: 'duplicate',
    expect: 'accept',
    statement: 'SIG-11',
    sends: "valid's event again (same id and body), with a new timestamp and signature",
    fix: 'answer 2xx to another attempt of an event you already processed (the first answer may have been lost), without applying it again',
  },
  {
    id: 'exact-bytes',
    expect: 'accept',
    statement: 'SIG-07',
    sends: 'a delivery whose body is the envelope in another valid JSON layout (indented, one character \\u-escaped), signed over those bytes',
    fix: 'compute the HMAC over the exact bytes received, before parsing: a receiver that signs a re-serialized parse (JSON.stringify(req.body) after a JSON middleware) refuses every body not laid out as its serializer would',
  },
  {
    id: 'wrong-key',
    expect: 'reject',
    statement: 'SIG-04',
    sends: 'a delivery signed with another secret',
    fix: "verify with your destination's secret and refuse (4xx) a delivery whose v1= signature does not match",
  },
  {
    id: 'old-secret',
    expect: 'reject',
    statement: 'SIG-06',
    sends: 'a delivery signed with the secret before the last configuration change',
    fix: 'after a configuration change, verify with the new secret only: the old one signs nothing any more',
  },
  {
    id: 'body-altered',
    expect: 'reject',
    statement: 'SIG-03',
    sends: "a valid delivery's body with one byte changed after signing",
    fix: 'compute the HMAC over the exact bytes received and refuse a mismatch: the body is part of what is signed',
  },
  {
    id: 'stale-timestamp',
    expect: 'reject',
    statement: 'SIG-08',
    sends: 'a validly signed delivery stamped 6 minutes ago',
    fix: 'refuse a Service-Timestamp more than 5 minutes from your clock: a replayed delivery looks like this one',
  },
  {
    id: 'future-timestamp',
    expect: 'reject',
    statement: 'SIG-08',
    sends: 'a validly signed delivery stamped 6 minutes ahead',
    fix: 'refuse a Service-Timestamp more than 5 minutes from your clock in either direction, ahead as well as behind',
  },
  {
    id: 'missing-signature',
    expect: 'reject',
    statement: 'SIG-02',
    sends: 'a delivery without Service-Signature',
    fix: 'refuse a delivery that carries no v1= signature',
  },
  {
    id: 'missing-timestamp',
    expect: 'reject',
    statement: 'SIG-01',
    sends: 'a delivery without Service-Timestamp (signed as if it had one)',
    fix: 'refuse a delivery without Service-Timestamp: it is part of what is signed and what is checked for freshness',
  },
  {
    id: 'missing-event-id',
    expect: 'reject',
    statement: 'SIG-03',
    sends: 'a delivery without Service-Event-Id (signed as if it had one)',
    fix: 'refuse a delivery without Service-Event-Id: it is part of what is signed and what you deduplicate on',
  },
  {
    id: 'unknown-scheme',
    expect: 'reject',
    statement: 'SIG-02',
    sends: 'the valid signature labelled v0= instead of v1=',
    fix: 'count only v1= signatures (skip any other scheme) and compare the whole hex value',
  },
];

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

/** A case's outcome when no complete answer came: the kind of network failure, or not sent (the deadline passed). */
export type ReceiverCaseFailure = 'refused' | 'unreachable' | 'reset' | 'incomplete' | 'timeout' | 'not-sent';

export interface ReceiverCaseResult {
  readonly id: ReceiverCaseId;
  readonly expect: 'accept' | 'reject';
  readonly statement: string;
  readonly sent: ReceiverCaseSent;
  /** The answer's status (also of one cut short); null when no status line came. */
  readonly status: number | null;
  /** Null for a complete answer. */
  readonly failure: ReceiverCaseFailure | null;
  /** Why the connection failed (Node's error code, or what an in-process handler threw); null otherwise. */
  readonly cause: string | null;
  /** The first bytes of the answer's body (at most 2 KiB), as text. */
  readonly answer: string;
  /** Whether the receiver accepted it: a completed 2xx. */
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
  /** Real time each request was given, answer included. */
  readonly timeoutMs: number;
  readonly cases: readonly ReceiverCaseResult[];
  readonly passed: number;
  readonly failed: number;
  /** False when no case got an answer (every one refused, unreachable, reset, timed out or not sent). */
  readonly reachable: boolean;
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
  /** Real time each request may take, answer included (default 10 s). */
  readonly timeoutMs?: number;
  /** Real time the whole check may take; cases not sent by then fail (default 60 s). */
  readonly deadlineMs?: number;
  /** The envelope's `empresa`, 8 digits (default 00000000). */
  readonly cnpjRoot?: string;
}

const RECEIVER_CHECK_DEFAULTS = { timeoutMs: 10_000, deadlineMs: 60_000, maxTimeoutMs: 60_000, maxDeadlineMs: 600_000, cnpjRoot: '00000000' } as const;
/** How much of an answer's body the report keeps. */
const ANSWER_BYTES = 2048;

/** The options the in-process call, the control and the command share, checked, with their defaults. */
export interface CheckLimits {
  readonly timeoutMs: number;
  readonly deadlineMs: number;
  readonly cnpjRoot: string;
  /** Undefined: the caller's default clock. */
  readonly now: (() => number) | undefined;
}

/** The options checked (a TypeError naming the first that is wrong), with their defaults. */
export function readCheckOptions(options: Pick<ReceiverCheckOptions, 'now' | 'timeoutMs' | 'deadlineMs' | 'cnpjRoot'>): CheckLimits {
  if (typeof options !== 'object' || options === null) throw new TypeError('the receiver check takes an options object');
  const { timeoutMs = RECEIVER_CHECK_DEFAULTS.timeoutMs, deadlineMs = RECEIVER_CHECK_DEFAULTS.deadlineMs, cnpjRoot = RECEIVER_CHECK_DEFAULTS.cnpjRoot, now } = options;
  const whole = (name: string, value: unknown, max: number) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) throw new TypeError(`${name} must be a whole number of milliseconds from 1 to ${max} (got ${String(value)})`);
  };
  whole('timeoutMs', timeoutMs, RECEIVER_CHECK_DEFAULTS.maxTimeoutMs);
  whole('deadlineMs', deadlineMs, RECEIVER_CHECK_DEFAULTS.maxDeadlineMs);
  if (typeof cnpjRoot !== 'string' || !/^\d{8}$/.test(cnpjRoot)) throw new TypeError(`cnpjRoot must be the 8 digits of a CNPJ root (got ${String(cnpjRoot)})`);
  return { timeoutMs, deadlineMs, cnpjRoot, now: now === undefined ? undefined : clockOf(now) };
}

/** A secret option: a non-empty string (a TypeError otherwise). */
export function readSecret(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new TypeError(`${name} must be the webhook secret the receiver verifies with (a non-empty string, "${SECRET_PREFIX}…")`);
  return value;
}

/** `now` as a function of Unix ms, each reading checked. */
function clockOf(now: number | Date | (() => number | Date)): () => number {
  const read = (value: unknown): number => {
    const ms = value instanceof Date ? value.getTime() : value;
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) throw new TypeError(`now must be a Date, Unix milliseconds, or a function giving one (got ${String(value)})`);
    return ms;
  };
  if (typeof now === 'function') return () => read(now());
  const fixed = read(now);
  return () => fixed;
}

/** A secret no receiver has: the shape of the service's (prefix and 32 random bytes), drawn here. */
const freshSecret = () => SECRET_PREFIX + randomBytes(32).toString('base64url');

/** Sends every case to `target` in order and judges each answer. Never throws for what the receiver does. */
export async function checkReceiver(target: ReceiverTarget, settings: ReceiverCheckSettings): Promise<ReceiverCheck> {
  const started = performance.now();
  const clock = new Date(settings.now()).toISOString();
  const keys = { secret: settings.secret, old: settings.oldSecret.secret ?? freshSecret(), wrong: freshSecret() };
  let valid: { eventId: string; body: string; timestamp: number } | undefined;
  const results: ReceiverCaseResult[] = [];
  for (const spec of RECEIVER_CASES) {
    const nowSeconds = Math.floor(settings.now() / 1000);
    const built = buildCase(spec.id, { url: target.url, nowSeconds, keys, cnpjRoot: settings.cnpjRoot, valid });
    if (spec.id === 'valid') valid = built.event;
    const left = settings.deadlineMs - (performance.now() - started);
    results.push(await sendCase(spec, built.parts, target.reach, Math.min(settings.timeoutMs, Math.floor(left))));
  }
  const failed = results.filter((r) => r.verdict === 'fail').length;
  return {
    receiver: { url: target.url, via: target.via },
    clock,
    oldSecret: settings.oldSecret.secret === undefined ? 'fresh' : settings.oldSecret.source,
    timeoutMs: settings.timeoutMs,
    cases: results,
    passed: results.length - failed,
    failed,
    reachable: results.some((r) => r.status !== null),
    notChecked: [
      ...Object.entries(UNCHECKED_RECEIVER_STATEMENTS).map(([statement, reason]) => ({ statement, reason })),
      {
        statement: 'SIG-11',
        reason: `an event's effect applied once: no answer shows it, but valid and duplicate sent event ${valid?.eventId ?? ''} twice, so check in your records that it took effect once`,
      },
    ],
  };
}

interface CaseInput {
  readonly url: string;
  readonly nowSeconds: number;
  readonly keys: { readonly secret: string; readonly old: string; readonly wrong: string };
  readonly cnpjRoot: string;
  readonly valid: { readonly eventId: string; readonly body: string; readonly timestamp: number } | undefined;
}

/** The request of one case: a delivery as the engine builds it, changed the one way the case says. */
function buildCase(id: ReceiverCaseId, input: CaseInput): { parts: RequestParts; event: { eventId: string; body: string; timestamp: number } } {
  const { url, nowSeconds, keys } = input;
  const event = (timestamp: number) => {
    const eventId = randomUUID();
    return { eventId, body: envelopeBody(eventId, input.cnpjRoot, timestamp * 1000, { tipo: 'webhook.teste' }), timestamp };
  };
  const signed = (e: { eventId: string; body: string; timestamp: number }, secret = keys.secret) => ({ parts: deliveryParts({ url, secret, eventId: e.eventId, body: e.body, timestamp: e.timestamp }), event: e });
  const without = (header: string) => {
    const made = signed(event(nowSeconds));
    const { [header]: _dropped, ...headers } = made.parts.headers;
    return { ...made, parts: { ...made.parts, headers } };
  };
  switch (id) {
    case 'valid':
      return signed(event(nowSeconds));
    case 'within-tolerance':
      return signed(event(nowSeconds - WITHIN_TOLERANCE_S));
    case 'duplicate': {
      // Another attempt of valid's event: a new timestamp (a second later at least), so a new signature.
      const first = input.valid ?? event(nowSeconds);
      return signed({ ...first, timestamp: Math.max(nowSeconds, first.timestamp + 1) });
    }
    case 'exact-bytes': {
      const e = event(nowSeconds);
      return signed({ ...e, body: relaid(e.body) });
    }
    case 'wrong-key':
      return signed(event(nowSeconds), keys.wrong);
    case 'old-secret':
      return signed(event(nowSeconds), keys.old);
    case 'body-altered': {
      const made = signed(event(nowSeconds));
      return { ...made, parts: { ...made.parts, body: oneByteChanged(made.parts.body) } };
    }
    case 'stale-timestamp':
      return signed(event(nowSeconds - OUTSIDE_TOLERANCE_S));
    case 'future-timestamp':
      return signed(event(nowSeconds + OUTSIDE_TOLERANCE_S));
    case 'missing-signature':
      return without('service-signature');
    case 'missing-timestamp':
      return without('service-timestamp');
    case 'missing-event-id':
      return without('service-event-id');
    case 'unknown-scheme': {
      const made = signed(event(nowSeconds));
      return { ...made, parts: { ...made.parts, headers: { ...made.parts.headers, 'service-signature': made.parts.headers['service-signature']!.replace(/^v1=/, 'v0=') } } };
    }
  }
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
  const changed = body.replace(/("ocorridoEm":"[^"]*)(\d)Z"/, (_, head: string, digit: string) => `${head}${digit === '9' ? '8' : String(Number(digit) + 1)}Z"`);
  if (changed === body) throw new Error('the envelope has no ocorridoEm to change');
  return changed;
}

/** Sends one case within `timeoutMs` (none left: not sent) and judges the answer as an attempt's. */
async function sendCase(spec: ReceiverCase, parts: RequestParts, reach: string | ReceiverHandler, timeoutMs: number): Promise<ReceiverCaseResult> {
  const sent: ReceiverCaseSent = { headers: parts.headers, bodyBytes: Buffer.byteLength(parts.body), bodySha256: createHash('sha256').update(parts.body).digest('hex') };
  const base = { id: spec.id, expect: spec.expect, statement: spec.statement, sent };
  if (timeoutMs < 1) return judged(spec, { ...base, status: null, failure: 'not-sent', cause: 'the deadline of the check passed before it was sent', answer: '', accepted: false, ms: 0 });
  const probe = new AnswerProbe(ANSWER_BYTES);
  const began = performance.now();
  const outcome = await exchange(reach, parts, timeoutMs, probe);
  const ms = Math.round(performance.now() - began);
  const network: NetworkOutcome = outcome.kind === 'no_answer' ? { kind: 'timeout' } : outcome;
  const accepted = classifyOutcome(network).estado === 'entregue';
  return judged(spec, { ...base, status: 'status' in network ? network.status : null, failure: failureOf(outcome), cause: probe.cause ?? null, answer: probe.text(), accepted, ms });
}

/** A case passes when the receiver did what a correct one does with it; a case never sent says nothing, so fails. */
function judged(spec: ReceiverCase, result: Omit<ReceiverCaseResult, 'verdict' | 'fix'>): ReceiverCaseResult {
  if (result.failure === 'not-sent') return { ...result, verdict: 'fail', fix: NOT_SENT_FIX };
  const pass = result.accepted === (spec.expect === 'accept');
  return { ...result, verdict: pass ? 'pass' : 'fail', fix: pass ? null : spec.fix };
}

const NOT_SENT_FIX = 'the check ran out of time before sending it: answer each delivery within a few seconds (the service waits 15 s for an attempt), or give the check a longer deadline';

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
      return result.status !== null && result.status >= 300 && result.status < 400 ? `${result.status} redirect, not followed` : String(result.status);
    case 'incomplete':
      return `${result.status} cut short`;
    case 'timeout':
      return `no answer in ${timeoutMs} ms`;
    case 'not-sent':
      return 'not sent: deadline passed';
    default:
      return `${result.failure}${cause}`;
  }
}

/**
 * The check as a person reads it: the table of cases (the time last, as it varies from run to run), the totals, one
 * line per failing case saying how to fix it, and what the check cannot say.
 */
export function formatReceiverCheck(check: ReceiverCheck): string {
  const rows = check.cases.map((r) => [r.id, r.expect, answerWords(r, check.timeoutMs), r.verdict === 'pass' ? 'pass' : 'FAIL', r.statement, `${r.ms} ms`]);
  const header = ['case', 'expect', 'answer', 'verdict', 'checks', 'time'];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
  const oldSecret = { previous: "the destination's previous secret", given: 'the previous secret given', fresh: 'a fresh secret (no previous one given)' }[check.oldSecret];
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
  const got = (r: ReceiverCaseResult) => (r.failure === 'not-sent' ? 'not sent' : r.accepted ? 'accepted' : 'refused');
  if (failing.length > 0) out.push('', 'To fix:', ...failing.map((r) => `  ${r.id}: ${got(r)}; ${r.fix}.`));
  out.push('', 'Not checked from outside:', ...check.notChecked.map((n) => `  ${n.statement}: ${n.reason}.`));
  return `${out.join('\n')}\n`;
}
