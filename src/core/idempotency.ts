/**
 * Idempotency (spec "Common rules"; DESIGN §4, after the IETF Idempotency-Key draft and Stripe).
 * Scope: company + key. The fingerprint is method, path and canonical body; the If-Match header is not part
 * of it, so a retry after a lost answer replays the stored answer even though its ETag is stale by then.
 *
 *   (none)     --reserve-->  em_curso   (the request passed every check before the domain operation)
 *   em_curso   --complete--> concluida  (2xx: status, headers and body are stored for 60 days)
 *   em_curso   --release-->  (none)     (refused: a refusal changes nothing, the idempotency store included)
 *   concluida  --expire-->   (none)     (60 days after it was stored)
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
  readonly estado: 'em_curso' | 'concluida';
  readonly response: StoredResponse | null;
  readonly storedAt: Instant;
  readonly expiresAt: Instant;
}

export type Lookup =
  | { readonly kind: 'new' }
  | { readonly kind: 'replay'; readonly response: StoredResponse }
  | { readonly kind: 'in_flight' }
  | { readonly kind: 'other_request' };

const storeKey = (companyId: string, key: string) => `${companyId} ${key}`;

export function lookupIdempotency(state: State, companyId: string, key: string, fingerprint: string, now: Instant): Lookup {
  const record = state.idempotency.get(storeKey(companyId, key));
  if (!record || record.expiresAt <= now) return { kind: 'new' };
  if (record.fingerprint !== fingerprint) return { kind: 'other_request' };
  if (record.estado === 'em_curso' || record.response === null) return { kind: 'in_flight' };
  return { kind: 'replay', response: record.response };
}

export function reserveIdempotency(state: State, companyId: string, key: string, fingerprint: string, now: Instant): void {
  const id = storeKey(companyId, key);
  // Delete first so that Map order stays the order of expiry, which purgeExpired relies on.
  state.idempotency.delete(id);
  state.idempotency.set(id, { companyId, key, fingerprint, estado: 'em_curso', response: null, storedAt: now, expiresAt: now + IDEMPOTENCY_RETENTION_MS });
}

export function completeIdempotency(state: State, companyId: string, key: string, response: StoredResponse, now: Instant): void {
  const id = storeKey(companyId, key);
  const record = state.idempotency.get(id);
  if (!record) return;
  state.idempotency.delete(id);
  state.idempotency.set(id, { ...record, estado: 'concluida', response, storedAt: now, expiresAt: now + IDEMPOTENCY_RETENTION_MS });
}

export function releaseIdempotency(state: State, companyId: string, key: string): void {
  const id = storeKey(companyId, key);
  if (state.idempotency.get(id)?.estado === 'em_curso') state.idempotency.delete(id);
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
 * are the same request. Iterative, so no body depth can overflow the stack.
 */
export function canonicalJson(value: unknown): string {
  let out = '';
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Raw) {
      out += item.text;
    } else if (Array.isArray(item)) {
      out += '[';
      stack.push(new Raw(']'));
      for (let i = item.length - 1; i >= 0; i--) {
        stack.push(item[i]);
        if (i > 0) stack.push(new Raw(','));
      }
    } else if (item !== null && typeof item === 'object') {
      const keys = Object.keys(item).sort();
      out += '{';
      stack.push(new Raw('}'));
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        stack.push((item as Record<string, unknown>)[k]);
        stack.push(new Raw(`${JSON.stringify(k)}:`));
        if (i > 0) stack.push(new Raw(','));
      }
    } else {
      out += JSON.stringify(item) ?? 'null';
    }
  }
  return out;
}
