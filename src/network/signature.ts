/**
 * Signing and verification of webhook deliveries (spec "Events": Envelope, Delivery headers, Signature
 * verification). These are the receiver helpers of the public entry: integrators are pointed here as the
 * reference for their own receivers, so every rule of the spec is applied in the order the spec implies,
 * and every refusal says how to fix it rather than only that something failed.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The delivered body (spec "Envelope"). `dados` is discriminated by `tipo`; only `catalogo.aplicado` has a published shape. */
export interface WebhookEnvelope {
  id: string;
  versao: 1;
  empresa: string;
  ocorridoEm: string;
  dados: { tipo: string; [field: string]: unknown };
}

export type VerifyFailure =
  | 'cabecalho_ausente'
  | 'timestamp_invalido'
  | 'timestamp_fora_da_tolerancia'
  | 'assinatura_invalida'
  | 'corpo_invalido'
  | 'evento_divergente';

export type VerifyResult = { ok: true; event: WebhookEnvelope } | { ok: false; reason: VerifyFailure; message: string };

/** Header names as the spec spells them ("Delivery headers"); HTTP makes them case-insensitive on the wire. */
const EVENT_ID = 'Service-Event-Id';
const TIMESTAMP = 'Service-Timestamp';
const SIGNATURE = 'Service-Signature';

/** Spec "Signature verification" 3: "more than five minutes". */
const DEFAULT_TOLERANCE_SECONDS = 300;
const SECRET_PREFIX = 'svc_whsec_';
const SCHEME = 'v1=';
/** A hex SHA-256 digest; anything else after `v1=` cannot match, so it is refused before decoding. */
const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;

/**
 * `v1=<hex HMAC-SHA256>` of `timestamp + "." + eventId + "." + body`, keyed by the whole secret.
 *
 * The timestamp is hashed as the text it is sent as: a verifier must pass the Service-Timestamp header
 * exactly as received (leading zeros and all), because the sender signed that text, not a number.
 */
export function signatureOf(
  secret: string,
  timestamp: string | number,
  eventId: string,
  body: string | Uint8Array,
): string {
  requireSecret(secret);
  const stamp = typeof timestamp === 'number' ? timestampText(timestamp) : timestamp;
  return SCHEME + hmacHex(secret, stamp, eventId, body);
}

/** The three delivery headers for one attempt (spec "Delivery headers"). */
export function signWebhook(input: {
  secret: string;
  eventId: string;
  body: string | Uint8Array;
  timestamp: number /* Unix seconds */;
}): {
  'Service-Event-Id': string;
  'Service-Timestamp': string;
  'Service-Signature': string;
} {
  const stamp = timestampText(input.timestamp);
  return {
    [EVENT_ID]: input.eventId,
    [TIMESTAMP]: stamp,
    [SIGNATURE]: signatureOf(input.secret, stamp, input.eventId, input.body),
  };
}

/**
 * Verifies one delivery and, only once it is authentic, parses its envelope.
 *
 * The order is the spec's ("Signature verification" 3): the cheap freshness check first, so that a replay of
 * an old delivery is reported as stale rather than as a bad signature; then the signature over the exact
 * bytes; the JSON is parsed only after that, so unauthenticated input never reaches the parser.
 *
 * Never throws on anything that came over the wire. It throws a TypeError only for a caller mistake that
 * would otherwise make verification meaningless: an empty secret (a missing environment variable would make
 * the key public), or a `now`/`toleranceSeconds` that is not a finite number.
 *
 * A success does not make the delivery new: the same event may arrive again with a fresh timestamp and
 * signature (spec "Signature verification" 4), so record `event.id` in the transaction that applies it.
 */
export function verifyWebhook(input: {
  secret: string;
  headers: Headers | Record<string, string | string[] | undefined>;
  body: string | Uint8Array;
  now?: number | Date /* default: Date.now(); number = Unix ms */;
  toleranceSeconds?: number /* default 300 */;
}): VerifyResult {
  requireSecret(input.secret);
  const nowMs = nowMillis(input.now);
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0)
    throw new TypeError(`toleranceSeconds must be a finite number >= 0 (got ${String(tolerance)})`);

  const eventId = headerValue(input.headers, EVENT_ID);
  const stamp = headerValue(input.headers, TIMESTAMP);
  const signature = headerValue(input.headers, SIGNATURE);
  const missing = [
    eventId === undefined && EVENT_ID,
    stamp === undefined && TIMESTAMP,
    signature === undefined && SIGNATURE,
  ].filter((name): name is string => name !== false);
  if (eventId === undefined || stamp === undefined || signature === undefined) {
    return fail(
      'cabecalho_ausente',
      `missing or empty header(s): ${missing.join(', ')}. Pass the request headers as received (a Headers object or a header record); a proxy in front of the receiver may be stripping them.`,
    );
  }

  // Digits only (spec "Delivery headers": Unix seconds): a sign, a fraction or an exponent would let two
  // different header texts denote the same instant while hashing differently.
  if (!/^[0-9]+$/.test(stamp)) {
    return fail(
      'timestamp_invalido',
      `${TIMESTAMP} must be Unix seconds in decimal digits only (got ${JSON.stringify(stamp)}).`,
    );
  }
  // Compared in milliseconds, so the boundary is exact: 300 s apart is accepted, 300.001 s is not.
  const skewMs = nowMs - Number(stamp) * 1000;
  if (Math.abs(skewMs) > tolerance * 1000) {
    const seconds = Math.round(Math.abs(skewMs) / 1000);
    const direction = skewMs > 0 ? 'in the past' : 'in the future';
    return fail(
      'timestamp_fora_da_tolerancia',
      `${TIMESTAMP} is ${seconds} s ${direction}, beyond the tolerance of ${tolerance} s. A stale timestamp is a replay or a delivery held up in a queue; either way refuse it and let the service retry with a fresh one. If this happens to every delivery, synchronize the receiver's clock (NTP), or pass \`now\` from the clock you intend.`,
    );
  }

  const expected = Buffer.from(hmacHex(input.secret, stamp, eventId, input.body), 'hex');
  if (!anySignatureMatches(signature, expected)) {
    const hint = input.secret.startsWith(SECRET_PREFIX)
      ? `Check that the key is the current secret of the destination (a new one is issued on every configuration change) and that the body is the raw request bytes, not a re-serialized JSON value.`
      : `The secret you passed does not start with "${SECRET_PREFIX}": the key is the whole secret including that prefix.`;
    return fail(
      'assinatura_invalida',
      `no "${SCHEME}" signature in ${SIGNATURE} matches HMAC-SHA256(secret, timestamp + "." + event id + "." + body). ${hint}`,
    );
  }

  const event = parseEnvelope(input.body);
  if (typeof event === 'string') return fail('corpo_invalido', event);
  // The envelope id is what receivers deduplicate on (spec "Envelope"); it must be the id the signature covered.
  if (event.id !== eventId) {
    return fail(
      'evento_divergente',
      `the envelope id ${JSON.stringify(event.id)} differs from ${EVENT_ID} ${JSON.stringify(eventId)}; refuse the delivery, it was not assembled by the service.`,
    );
  }
  return { ok: true, event };
}

function hmacHex(secret: string, stamp: string, eventId: string, body: string | Uint8Array): string {
  // Spec "Signature verification" 1-2: key = the whole secret with its prefix; the body goes in as bytes,
  // untouched, so that any re-encoding on the receiver's side shows up as a mismatch rather than passing.
  // A string is hashed as its UTF-8 bytes directly: no Buffer copy of the body per attempt.
  const hmac = createHmac('sha256', secret).update(`${stamp}.${eventId}.`, 'utf8');
  return (typeof body === 'string' ? hmac.update(body, 'utf8') : hmac.update(body)).digest('hex');
}

/**
 * Several space-separated signatures may arrive (e.g. during secret rotation); any valid `v1` one suffices.
 * Commas are separators too, because a Headers object joins repeated header lines with ", ".
 * Each candidate is compared as 32 decoded bytes with timingSafeEqual (spec "Signature verification" 3);
 * all candidates are compared, without stopping at the first match. Unknown schemes are skipped, not errors.
 */
function anySignatureMatches(header: string, expected: Buffer): boolean {
  let matched = false;
  for (const candidate of header.split(/[\s,]+/)) {
    if (!candidate.startsWith(SCHEME)) continue;
    const hex = candidate.slice(SCHEME.length);
    if (!HEX_DIGEST.test(hex)) continue;
    const given = Buffer.from(hex, 'hex');
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  return matched;
}

/** The envelope, or an English message saying what is wrong with the body. */
function parseEnvelope(body: string | Uint8Array): WebhookEnvelope | string {
  let text: string;
  if (typeof body === 'string') {
    text = body;
  } else {
    try {
      // fatal: malformed UTF-8 is refused instead of being replaced with U+FFFD and parsed anyway.
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
    } catch {
      return 'the body is not valid UTF-8; deliveries are UTF-8 JSON. Pass the raw request body.';
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'the body is not JSON; deliveries carry a JSON envelope. Pass the raw request body.';
  }
  const problem = envelopeProblem(value);
  if (problem !== undefined) return `the body is JSON but not a webhook envelope: ${problem}.`;
  return value as WebhookEnvelope;
}

function envelopeProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'expected an object';
  if (typeof value.id !== 'string') return '"id" must be a string';
  if (value.versao !== 1)
    return `"versao" must be 1 (got ${JSON.stringify(value.versao)}); this helper knows envelope version 1 only`;
  if (typeof value.empresa !== 'string' || !/^[0-9]{8}$/.test(value.empresa))
    return '"empresa" must be a string of 8 digits';
  if (typeof value.ocorridoEm !== 'string') return '"ocorridoEm" must be a string';
  if (!isPlainObject(value.dados)) return '"dados" must be an object';
  if (typeof value.dados.tipo !== 'string') return '"dados.tipo" must be a string';
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * HTTP header names are case-insensitive, and frameworks hand them over differently: fetch gives Headers,
 * node:http lowercases, hand-written records use any case, and repeated headers arrive as arrays (the first
 * is taken). An empty value counts as absent, as it carries nothing to verify.
 */
function headerValue(
  headers: Headers | Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  let raw: string | string[] | null | undefined;
  if (typeof (headers as Headers).get === 'function') {
    raw = (headers as Headers).get(name);
  } else {
    const wanted = name.toLowerCase();
    for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
      if (key.toLowerCase() === wanted && value !== undefined) {
        raw = value;
        break;
      }
    }
  }
  const first = Array.isArray(raw) ? raw[0] : raw;
  if (typeof first !== 'string') return undefined;
  const value = first.trim();
  return value === '' ? undefined : value;
}

function requireSecret(secret: unknown): asserts secret is string {
  if (typeof secret !== 'string' || secret === '') {
    throw new TypeError(
      `the webhook secret must be a non-empty string (the "${SECRET_PREFIX}..." value returned when the destination was configured); an empty key would let anyone sign deliveries`,
    );
  }
}

function timestampText(seconds: number): string {
  if (!Number.isSafeInteger(seconds) || seconds < 0)
    throw new TypeError(`timestamp must be a non-negative integer number of Unix seconds (got ${String(seconds)})`);
  return String(seconds);
}

function nowMillis(now: number | Date | undefined): number {
  const ms = now === undefined ? Date.now() : now instanceof Date ? now.getTime() : now;
  if (!Number.isFinite(ms))
    throw new TypeError(`now must be a valid Date or a finite number of Unix milliseconds (got ${String(now)})`);
  return ms;
}

function fail(reason: VerifyFailure, message: string): VerifyResult {
  return { ok: false, reason, message };
}
