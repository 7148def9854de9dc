/**
 * Optimistic concurrency (spec "General rules" 2, DESIGN §4 "ETags"): every versioned resource has an
 * integer `versao` and a strong, quoted, opaque ETag that changes exactly when `versao` changes.
 */
import { hashString, hex32 } from './random.js';
import { ok, refuse, type Result } from './refusal.js';

/** The entity tags of an If-Match header, quotes included, or undefined when the header is absent. */
export type IfMatch = readonly string[] | undefined;

export function etag(kind: string, id: string, versao: number): string {
  const text = `${kind}:${id}:${versao}`;
  const hashOfText = hashString(text);
  const high = mix(hashOfText);
  // The hash of `${text}:${high}`, continued from that of `text` instead of hashing `text` again.
  const low = mix(hashString(`:${high}`, hashOfText) ^ high);
  return `"${hex32(high)}${hex32(low)}"`;
}

/** murmur3's finalizer: neighbouring versions get unrelated-looking tags, so nobody mistakes them for counters. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Steps 428 and 412 of DESIGN §4 for an operation that requires If-Match. */
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
