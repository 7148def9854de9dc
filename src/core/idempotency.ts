/**
 * Idempotency (spec "Common rules"; DESIGN §4, after the IETF Idempotency-Key draft and Stripe).
 * Scope: company + key. The fingerprint is method, path and canonical body; the If-Match header is not part
 * of it, so a retry after a lost answer replays the stored answer even though its ETag is stale by then.
 *
 *   (none)    --store-->   stored   (a 2xx answer: status, headers and body, kept 60 days)
 *   stored    --expire-->  (none)   (60 days after it was stored: ignored on lookup, purged by housekeeping)
 *
 * Refusals are not stored: a refused request changes nothing, this store included. A request still being
 * processed is not service state either: the HTTP shell tracks those keys (409 while in flight) outside it.
 */
import { DAY, type Instant } from './time.js';
import type { State } from './state.js';

export const IDEMPOTENCY_RETENTION_MS = 60 * DAY;

export interface StoredResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface IdempotencyRecord {
  readonly companyId: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly response: StoredResponse;
  readonly storedAt: Instant;
  readonly expiresAt: Instant;
}

export type Lookup =
  | { readonly kind: 'new' }
  | { readonly kind: 'replay'; readonly response: StoredResponse }
  | { readonly kind: 'other_request' };

/** The scope of a key: one company's. */
export const idempotencyScope = (companyId: string, key: string): string => `${companyId} ${key}`;

export function lookupIdempotency(state: State, companyId: string, key: string, fingerprint: string, now: Instant): Lookup {
  const record = state.idempotency.get(idempotencyScope(companyId, key));
  if (!record || record.expiresAt <= now) return { kind: 'new' };
  if (record.fingerprint !== fingerprint) return { kind: 'other_request' };
  return { kind: 'replay', response: record.response };
}

export function storeIdempotency(state: State, companyId: string, key: string, fingerprint: string, response: StoredResponse, now: Instant): void {
  const scope = idempotencyScope(companyId, key);
  // Delete first so that Map order stays the order of expiry, which purgeExpiredIdempotency relies on.
  state.idempotency.delete(scope);
  state.idempotency.set(scope, { companyId, key, fingerprint, response, storedAt: now, expiresAt: now + IDEMPOTENCY_RETENTION_MS });
}

/** Drops expired records, oldest first; O(records dropped). */
export function purgeExpiredIdempotency(state: State, now: Instant): number {
  let purged = 0;
  for (const [id, record] of state.idempotency) {
    if (record.expiresAt > now) break;
    state.idempotency.delete(id);
    purged++;
  }
  return purged;
}

/** Structural text of the output, told apart from values (which come from JSON.parse, never this class). */
class Raw {
  constructor(readonly text: string) {}
}

/**
 * JSON with object keys sorted at every depth: two bodies that differ only in key order or white space
 * are the same request. Iterative, so no body depth can overflow the stack. The pieces are joined once at
 * the end rather than appended one by one: appending builds a tree of partial strings, and the result is
 * kept in the idempotency record (60 days), where each piece is one more object for the GC to copy.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Raw) {
      out.push(item.text);
    } else if (Array.isArray(item)) {
      out.push('[');
      stack.push(new Raw(']'));
      for (let i = item.length - 1; i >= 0; i--) {
        stack.push(item[i]);
        if (i > 0) stack.push(new Raw(','));
      }
    } else if (item !== null && typeof item === 'object') {
      const keys = Object.keys(item).sort();
      out.push('{');
      stack.push(new Raw('}'));
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        stack.push((item as Record<string, unknown>)[k]);
        stack.push(new Raw(`${JSON.stringify(k)}:`));
        if (i > 0) stack.push(new Raw(','));
      }
    } else {
      out.push(JSON.stringify(item) ?? 'null');
    }
  }
  return out.join('');
}
