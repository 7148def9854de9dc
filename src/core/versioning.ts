/**
 * Optimistic concurrency (spec: REQ-04..REQ-07; docs/api.md "Rules every request follows › ETags"): every versioned
 * resource has an integer `versao` and a strong, quoted, opaque ETag that changes exactly when `versao` changes; the
 * operations that take If-Match, and the resource whose ETag each one checks, are listed here once
 * (IF_MATCH_OPERATIONS).
 */
import { hashString, putHex } from './random.js';
import { ok, refuse, type Result } from './refusal.js';

/** The entity tags of an If-Match header, quotes included, or undefined when the header is absent. */
export type IfMatch = readonly string[] | undefined;

/** One entity tag (RFC 9110 entity-tag): `W/` for a weak one, then the opaque tag, in quotes. */
const ENTITY_TAG = '(?:W/)?"[\\x21\\x23-\\x7e\\x80-\\xff]*"';
/** One or more entity tags, as If-Match carries them (RFC 9110): the API's document states this very pattern. */
export const ENTITY_TAGS = new RegExp(`^\\s*${ENTITY_TAG}\\s*(?:,\\s*${ENTITY_TAG}\\s*)*$`);
const EACH_TAG = new RegExp(ENTITY_TAG, 'g');

/**
 * An If-Match header's value read (RFC 9110 "If-Match": `*` or a list of entity tags): `'*'`, its tags as sent
 * (each with its quotes and any `W/`; spaces around the commas dropped), or undefined when it is neither. One home
 * for the reading, so that the API's check and the grading of the client see the same tags.
 */
export function readIfMatch(value: string): '*' | readonly string[] | undefined {
  if (!ENTITY_TAGS.test(value)) return value.trim() === '*' ? '*' : undefined;
  // Matched as a whole first: the tags are then exactly the matches (a tag holds no quote, and a comma inside one is
  // part of it, not a separator).
  return value.match(EACH_TAG)!;
}

/** A tag's opaque part, its `W/` dropped: what a weak comparison compares (RFC 9110); `W/"a"` is `"a"` sent weakly. */
export const opaqueTag = (tag: string): string => (tag.startsWith('W/') ? tag.slice(2) : tag);

export function etag(kind: string, id: string, versao: number): string {
  // The hash of `${kind}:${id}:${versao}`, continued piece by piece rather than built as one text first: two
  // tags per PATCH (the one its If-Match is checked against, and the new one), a third of their cost.
  const hashOfText = hashString(String(versao), hashString(':', hashString(id, hashString(':', hashString(kind)))));
  const high = mix(hashOfText);
  // The hash of `${text}:${high}`, continued from that of `text` instead of hashing `text` again.
  const low = mix(hashString(String(high), hashString(':', hashOfText)) ^ high);
  putHex(TAG_CODES, 1, high, 8);
  putHex(TAG_CODES, 9, low, 8);
  return String.fromCharCode.apply(null, TAG_CODES);
}

/** A tag's char codes, its quotes in place: filled and read within one call of etag (see putHex). */
const TAG_CODES: number[] = Array.from({ length: 18 }, () => 34);

/** murmur3's finalizer: neighbouring versions get unrelated-looking tags, so nobody mistakes them for counters. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Steps 428 and 412 of the order of checks (docs/api.md "Rules every request follows") for an operation that requires
 * If-Match.
 */
export function requireMatch(ifMatch: IfMatch, current: string, what: string): Result<void> {
  if (ifMatch === undefined) {
    return refuse(
      'precondition_required',
      'precondicao_ausente',
      `This change requires an If-Match header with the current ETag of the ${what}; read it with GET first and send its ETag whole, quotes included.`,
      'header.if-match',
    );
  }
  if (!ifMatch.includes(current)) {
    return refuse(
      'precondition_failed',
      'precondicao_falhou',
      `The ${what} changed since the ETag you sent was read (current ETag ${current}); read it again, reapply your change and retry with a new idempotency key.`,
      'header.if-match',
    );
  }
  return ok(undefined);
}

/** The versioned resources an If-Match can guard (src/core/concurrent-edit.ts saves each behind a request's back). */
export type GuardedResource =
  | 'catalog'
  | 'product'
  | 'establishment'
  | 'surveillanceSelection'
  | 'webhookDestination'
  | 'ingestion';

export interface IfMatchOperation {
  readonly method: 'PATCH' | 'PUT' | 'POST' | 'DELETE';
  /** The path as the spec writes it: `{id}` for a parameter. */
  readonly path: string;
  readonly purpose: string;
  /** The resource whose ETag the operation's requireMatch checks. */
  readonly guards: GuardedResource;
  /** The path parameter that names the guarded resource (absent for the company's own selection and destination). */
  readonly guardedBy?: string;
}

/**
 * The operations that take If-Match (spec "General rules" 2, "Endpoints") and the versioned resource whose ETag
 * each one checks: a domain fact, so declared here, beside the check (requireMatch), once. This one table is
 * read by:
 *
 * - the HTTP pipeline: only these operations see the request's If-Match (everywhere else the header plays no
 *   part), and their core operation answers 428 without it and 412 when it no longer matches;
 * - the `concurrentEdit` fault: it fires on these operations, by saving `guards` behind the request's back, and
 *   one whose match can reach none of them is refused when it is added;
 * - the spec test that proves 412 and one hit for each row (it reads the table from the public entry).
 */
export const IF_MATCH_OPERATIONS: readonly IfMatchOperation[] = [
  { method: 'PATCH', path: '/v1/catalogos/{id}', purpose: 'edit a catalog', guards: 'catalog', guardedBy: 'id' },
  // spec: CAT-37 — the deletion preview's ETag covers the catalog's versao, so a save of the catalog stales it.
  {
    method: 'DELETE',
    path: '/v1/catalogos/{id}',
    purpose: 'delete a catalog (If-Match: its deletion preview)',
    guards: 'catalog',
    guardedBy: 'id',
  },
  {
    method: 'PUT',
    path: '/v1/catalogos/{id}/produtos/{produto_id}',
    purpose: 'link a product to a catalog',
    guards: 'product',
    guardedBy: 'produto_id',
  },
  {
    method: 'DELETE',
    path: '/v1/catalogos/{id}/produtos/{produto_id}',
    purpose: 'unlink a product from a catalog',
    guards: 'product',
    guardedBy: 'produto_id',
  },
  { method: 'PATCH', path: '/v1/produtos/{id}', purpose: 'edit a product', guards: 'product', guardedBy: 'id' },
  {
    method: 'PATCH',
    path: '/v1/estabelecimentos/{id}',
    purpose: 'edit an establishment',
    guards: 'establishment',
    guardedBy: 'id',
  },
  {
    method: 'DELETE',
    path: '/v1/estabelecimentos/{id}',
    purpose: 'archive an establishment',
    guards: 'establishment',
    guardedBy: 'id',
  },
  {
    method: 'POST',
    path: '/v1/estabelecimentos/{id}/correcoes-cnpj',
    purpose: 'request a CNPJ correction',
    guards: 'establishment',
    guardedBy: 'id',
  },
  {
    method: 'PATCH',
    path: '/v1/empresa/vigilancia',
    purpose: 'change the surveillance selection',
    guards: 'surveillanceSelection',
  },
  {
    method: 'PUT',
    path: '/v1/webhook',
    purpose: 'change, rotate or reactivate the webhook destination',
    guards: 'webhookDestination',
  },
  { method: 'DELETE', path: '/v1/webhook', purpose: 'revoke the webhook destination', guards: 'webhookDestination' },
  { method: 'POST', path: '/v1/webhook/testes', purpose: 'send a test event', guards: 'webhookDestination' },
  {
    method: 'POST',
    path: '/v1/webhook/eventos/{id}/reenvios',
    purpose: 'resend an event',
    guards: 'webhookDestination',
  },
  {
    method: 'POST',
    path: '/v1/catalogos/ingestoes/{id}/aplicacao',
    purpose: 'apply a validated ingestion',
    guards: 'ingestion',
    guardedBy: 'id',
  },
];

/** The row of the operation `method` + `path` (as the spec writes it, `{id}`), if it takes If-Match. */
export function ifMatchOperation(method: string, path: string): IfMatchOperation | undefined {
  return IF_MATCH_OPERATIONS.find((o) => o.method === method && o.path === path);
}
