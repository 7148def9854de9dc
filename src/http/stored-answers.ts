/**
 * The HTTP side of the idempotency store (src/core/idempotency.ts): what tells two requests under one key
 * apart, what of an answer is kept for its replay, and the answer a replay rebuilds from it.
 */
import crypto from 'node:crypto';
import type { IdempotencyEntry, StoredResponse } from '../core/idempotency.js';
import type { Reply } from './pipeline.js';
import { withPlainHeaders } from './errors.js';

/** The content type of every answer of the API that can be stored (CSV answers are reads). */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * What tells two requests under one key apart: method, path and canonical body. A long body is written as its
 * SHA-256, as snapshots taken before the store kept digests wrote it (see fromEarlierFormat).
 */
const FINGERPRINT_TEXT_LIMIT = 512;
function requestFingerprint(method: string, path: string, canonicalBody: string): string {
  const body =
    canonicalBody.length <= FINGERPRINT_TEXT_LIMIT ? canonicalBody : `sha256:${sha256(canonicalBody, 'hex')}`;
  return `${method} ${path} ${body}`;
}

/**
 * The request's fingerprint as the store keeps it: the first 132 bits of its SHA-256, 22 characters of
 * base64url, whatever the body's size. Two different requests under one key get one digest only by a SHA-256
 * collision on 132 bits: by chance, about 2^-132 per repeat; on purpose, about 2^66 hashes of work by the
 * key's own holder, whose prize would be one of its own earlier answers.
 */
export function requestDigest(method: string, path: string, canonicalBody: string): string {
  return fingerprintDigest(requestFingerprint(method, path, canonicalBody));
}

/**
 * Its first 22 characters: a slice, a view of the whole digest, since nothing keeps it as a string for long (the
 * journal and the idempotency store keep it in their texts).
 */
function fingerprintDigest(fingerprint: string): string {
  return sha256(fingerprint, 'base64url').slice(0, DIGEST_LENGTH);
}
const DIGEST_LENGTH = 22;

/** crypto.hash (Node 20.12) takes a third of createHash's time for one short text; the package supports Node 20.0. */
const sha256: (text: string, encoding: 'hex' | 'base64url') => string =
  typeof crypto.hash === 'function'
    ? (text, encoding) => crypto.hash('sha256', text, encoding)
    : (text, encoding) => crypto.createHash('sha256').update(text).digest(encoding);

/**
 * A copy of `text` in one piece, for a key the store keeps 60 days. V8 builds a template literal or a `+` of
 * long strings as a tree of its pieces (32 bytes a node, besides each piece's own header), and a slice as a
 * view that keeps its whole parent alive; a string parsed out of JSON is one sequential copy of exactly its
 * characters (JSON.stringify escapes lone surrogates, so nothing is lost).
 */
export const flat = (text: string): string => JSON.parse(JSON.stringify(text)) as string;

/**
 * What of a successful answer is kept: its status, body, ETag, Location and any other header of its own. The
 * content type is JSON_CONTENT_TYPE unless the operation's headers say otherwise.
 */
export function toStored(reply: Reply): StoredResponse {
  return {
    status: reply.status,
    body: typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body),
    etag: reply.etag ?? null,
    location: reply.location ?? null,
    headers: reply.headers ?? null,
  };
}

/**
 * A stored answer as this request's Response, its x-request-id included: headers are given as one plain object
 * and never changed afterwards, which keeps @hono/node-server on its fast path (see app.ts).
 */
export function storedResponse(
  stored: StoredResponse,
  requestId: string,
  extra?: Readonly<Record<string, string>>,
): Response {
  const { etag, location } = stored;
  // Nearly every answer: its headers as one literal (a spread, then keys added one by one, built the object the
  // slow way); the same headers in the same order as the general case below.
  if (stored.headers === null && extra === undefined && location === null) {
    const headers: Record<string, string> =
      etag === null
        ? { 'content-type': JSON_CONTENT_TYPE, 'x-request-id': requestId }
        : { 'content-type': JSON_CONTENT_TYPE, 'x-request-id': requestId, etag };
    return kept(new Response(stored.body, { status: stored.status, headers }), stored.body, headers);
  }
  const headers: Record<string, string> = {
    'content-type': JSON_CONTENT_TYPE,
    ...stored.headers,
    ...extra,
    'x-request-id': requestId,
  };
  if (etag !== null) headers.etag = etag;
  if (location !== null) headers.location = location;
  return kept(new Response(stored.body, { status: stored.status, headers }), stored.body, headers);
}

/**
 * The text of the answers storedResponse made, kept on them once `keep` is on: what the history records of an
 * answer without reading a copy of its stream (a Response clone costs more than the request itself). A property of
 * the answer rather than a WeakMap beside it: a weak map's entries are a cost of every garbage collection. Off in a
 * process where no emulator keeps a history: the request path then pays this one boolean. On for the process once
 * one does (src/http/app.ts).
 */
export const answerTexts: { keep: boolean; of(response: Response): string | undefined } = {
  keep: false,
  of: (response) => (response as Texted)[TEXT],
};

const TEXT = Symbol('answer text');
type Texted = Response & { [TEXT]?: string };

const kept = (response: Response, text: string, headers: Readonly<Record<string, string>>): Response => {
  if (answerTexts.keep) {
    (response as Texted)[TEXT] = text;
    withPlainHeaders(response, headers);
  }
  return response;
};

/** A stored answer as snapshots wrote it before the store kept a digest: the whole fingerprint text and every header. */
export interface EarlierStoredAnswer {
  readonly companyId: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly response: {
    readonly status: number;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: string;
  };
  readonly storedAt: number;
  readonly expiresAt: number;
}

/** The same stored answer in today's form: a restore converts, so such a snapshot replays as it did. */
export function fromEarlierFormat(earlier: EarlierStoredAnswer): IdempotencyEntry {
  const { etag, location, 'content-type': contentType, ...rest } = earlier.response.headers;
  const headers: Record<string, string> = { ...rest };
  if (contentType !== undefined && contentType !== JSON_CONTENT_TYPE) headers['content-type'] = contentType;
  return {
    companyId: earlier.companyId,
    key: earlier.key,
    fingerprint: fingerprintDigest(earlier.fingerprint),
    expiresAt: earlier.expiresAt,
    status: earlier.response.status,
    body: earlier.response.body,
    etag: etag ?? null,
    location: location ?? null,
    headers: Object.keys(headers).length === 0 ? null : headers,
  };
}
