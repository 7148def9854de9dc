/**
 * Idempotency (spec: REQ-02, REQ-03; docs/api.md "Rules every request follows" › Idempotency, after the IETF
 * Idempotency-Key draft and Stripe).
 * Scope: company + key. The fingerprint is a digest of method, path and canonical body, computed by the HTTP
 * shell; the If-Match header is not part of it, so a retry after a lost answer replays the stored answer even
 * though its ETag is stale by then.
 *
 *   (none)    --store-->   stored   (a 2xx answer: status, ETag, Location, other headers and body, kept 60 days)
 *   stored    --expire-->  (none)   (60 days after it was stored: ignored on lookup, purged by housekeeping)
 *   stored    --evict-->   (none)   (the company's oldest, when a store would pass its ceiling of answers)
 *
 * Refusals are not stored: a refused request changes nothing, this store included. A request still being
 * processed is not service state either: the HTTP shell tracks those keys (409 while in flight) outside it.
 */
import { DAY, type Instant } from './time.js';
import { Collection } from './collection.js';
import type { Slice, State } from './state.js';
import { at, repeated } from './integrity.js';
import type { Job } from './jobs.js';
import { TextArena, type TextHandle } from './text-arena.js';

export const IDEMPOTENCY_RETENTION_MS = 60 * DAY;

/**
 * How many answers a company's store keeps by default before its oldest is dropped early: far beyond what a
 * test suite sends, and a bound on a long-running server (the memory it implies:
 * docs/api.md "Rules every request follows › Stored answers per company").
 */
export const DEFAULT_MAX_STORED_ANSWERS_PER_COMPANY = 100_000;

/** A successful answer as replay needs it. The HTTP shell adds the content type every answer has. */
export interface StoredResponse {
  readonly status: number;
  readonly body: string;
  readonly etag: string | null;
  readonly location: string | null;
  /** Any other header of the answer (the rate-limit headers of a webhook test); null on nearly every answer. */
  readonly headers: Readonly<Record<string, string>> | null;
}

interface IdempotencyRecord extends StoredResponse {
  /** What tells a repeat from another request under the same key (the HTTP shell's requestDigest). */
  readonly fingerprint: string;
  readonly expiresAt: Instant;
}

/** A record as a snapshot carries it: with its company and key. */
export interface IdempotencyEntry extends IdempotencyRecord {
  readonly companyId: string;
  readonly key: string;
}

/**
 * A record as the store keeps it: one text, a field a line, then the body to the end, in its company's arena
 * (text-arena.ts: bytes outside the collected heap, each text read back by a number).
 *
 *   1777593600000            expiresAt
 *   200                      status
 *   pjucMPfSBock1Te9poN-YA   fingerprint
 *   "60ba47deeb86dcb4"       ETag           (an empty line: none)
 *                            Location       (an empty line: none)
 *                            other headers, as JSON (an empty line: none)
 *   {"id":"…",…}             body
 *
 * A long-running server stores an answer per state-changing request, so its size is what bounds memory: the
 * same answer as an object of seven fields, a boxed expiresAt and a string per field cost ~110 bytes more
 * (about 500 bytes instead of 390 for a product PATCH, its key and map entry included). The company id and key
 * are not repeated in it (the maps' keys hold them), nor storedAt (expiresAt less the retention). No field
 * before the body holds a line break: numbers, the shell's base64url digest, header values (which cannot hold
 * one) and JSON text; restore checks a snapshot's.
 */
type PackedRecord = TextHandle;

function pack(
  texts: TextArena,
  fingerprint: string,
  expiresAt: Instant,
  { status, body, etag, location, headers }: StoredResponse,
): PackedRecord {
  return texts.add(
    [
      expiresAt,
      status,
      fingerprint,
      etag ?? '',
      location ?? '',
      headers === null ? '' : JSON.stringify(headers),
      body,
    ].join('\n'),
  );
}

function unpack(texts: TextArena, packed: PackedRecord): IdempotencyRecord {
  return unpackAs(texts, packed, (fingerprint, expiresAt, status, body, etag, location, headers) => ({
    fingerprint,
    expiresAt,
    status,
    body,
    etag,
    location,
    headers,
  }));
}

/** A record as a snapshot carries it, made in one piece (a snapshot holds a hundred thousand of them). */
function unpackEntry(texts: TextArena, packed: PackedRecord, companyId: string, key: string): IdempotencyEntry {
  return unpackAs(texts, packed, (fingerprint, expiresAt, status, body, etag, location, headers) => ({
    companyId,
    key,
    fingerprint,
    expiresAt,
    status,
    body,
    etag,
    location,
    headers,
  }));
}

function unpackAs<R>(
  texts: TextArena,
  packed: PackedRecord,
  make: (
    fingerprint: string,
    expiresAt: Instant,
    status: number,
    body: string,
    etag: string | null,
    location: string | null,
    headers: Readonly<Record<string, string>> | null,
  ) => R,
): R {
  const text = texts.text(packed);
  const fields: string[] = [];
  let from = 0;
  for (let i = 0; i < 6; i++) {
    const to = text.indexOf('\n', from);
    fields.push(text.slice(from, to));
    from = to + 1;
  }
  const [expiresAt, status, fingerprint, etag, location, headers] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  return make(
    fingerprint,
    Number(expiresAt),
    Number(status),
    text.slice(from),
    etag === '' ? null : etag,
    location === '' ? null : location,
    headers === '' ? null : (JSON.parse(headers) as Record<string, string>),
  );
}

/** expiresAt alone, for the purge: the digits of the first line (an instant has at most 16 characters). */
function expiryOf(texts: TextArena, packed: PackedRecord): Instant {
  const head = texts.head(packed, 24);
  return Number(head.slice(0, head.indexOf('\n')));
}

/**
 * One company's stored answers, key → record, oldest first (a Map keeps insertion order). A collection of their
 * own: each answer is an item of the slice's data, noted by the change log under its scope (company and key).
 */
export interface CompanyAnswers {
  readonly records: Collection<PackedRecord>;
  /** Where the records' texts are: each record is its text's handle. */
  readonly texts: TextArena;
  /**
   * A live iterator over `records`, advanced once per eviction: the oldest in O(1). ECMAScript visits the
   * entries set after an iterator was made and skips deleted ones, and V8 moves a live iterator across the
   * table's rehashes; a fresh `records.keys().next()` instead walks every deleted slot still at the front of
   * the table, on every store of a full store. Only evictions move it, so every record not yet
   * evicted is still ahead of it. Made at the first eviction; a restored state starts without one.
   */
  oldest: Iterator<string> | undefined;
}

export type Lookup =
  | { readonly kind: 'new' }
  | { readonly kind: 'replay'; readonly response: StoredResponse }
  | { readonly kind: 'other_request' };

/** The scope of a key: one company's (the HTTP shell's in-flight requests). */
export const idempotencyScope = (companyId: string, key: string): string => `${companyId} ${key}`;

export function lookupIdempotency(
  state: State,
  companyId: string,
  key: string,
  fingerprint: string,
  now: Instant,
): Lookup {
  const answers = state.idempotency.get(companyId);
  const packed = answers?.records.get(key);
  if (packed === undefined) return { kind: 'new' };
  const { fingerprint: stored, expiresAt, ...response } = unpack(answers!.texts, packed);
  if (expiresAt <= now) return { kind: 'new' };
  if (stored !== fingerprint) return { kind: 'other_request' };
  return { kind: 'replay', response };
}

/**
 * Stores an answer. At `maxPerCompany` (1 or more) the company's oldest answers are dropped first, O(1) each:
 * a retry with such a key is then a new request. Refusing the store instead would fail a request already
 * applied, and refusing new requests would stop a long-running server; the answer dropped is the one least
 * likely to be retried.
 */
export function storeIdempotency(
  state: State,
  companyId: string,
  key: string,
  fingerprint: string,
  response: StoredResponse,
  now: Instant,
  maxPerCompany: number,
): void {
  const answers = answersOf(state, companyId);
  // Delete first so that Map order stays the order of expiry, which purgeExpiredIdempotency relies on.
  drop(answers, key);
  // A restored snapshot may hold more than this emulator's ceiling: the company's next store trims it.
  while (answers.records.size > 0 && answers.records.size >= maxPerCompany) {
    let oldest = answers.oldest?.next();
    if (oldest === undefined || oldest.done === true) {
      answers.oldest = answers.records.keys();
      oldest = answers.oldest.next();
    }
    drop(answers, oldest.value as string);
  }
  answers.records.set(key, pack(answers.texts, fingerprint, now + IDEMPOTENCY_RETENTION_MS, response));
}

/** Removes the record of `key`, if any, and its text. */
function drop(answers: CompanyAnswers, key: string): void {
  const packed = answers.records.get(key);
  if (packed === undefined) return;
  answers.records.delete(key);
  answers.texts.remove(packed);
}

/**
 * Every stored answer, company by company in the order of the companies (whatever order their first stores came
 * in: a state rebuilt from a change log exports the same), each company's oldest first (a snapshot).
 */
export function exportIdempotency(state: State): IdempotencyEntry[] {
  const entries: IdempotencyEntry[] = [];
  const add = (companyId: string, answers: CompanyAnswers | undefined) => {
    if (answers !== undefined)
      for (const [key, packed] of answers.records) entries.push(unpackEntry(answers.texts, packed, companyId, key));
  };
  for (const companyId of state.companies.keys()) add(companyId, state.idempotency.get(companyId));
  // Answers of no company of the state are refused on restore; a test's state may hold some.
  for (const [companyId, answers] of state.idempotency) if (!state.companies.has(companyId)) add(companyId, answers);
  return entries;
}

/** The stored answer a change log notes under `scope` (idempotencyScope), as a snapshot carries it; none when gone. */
function answerAt(state: State, scope: string): IdempotencyEntry[] {
  const space = scope.indexOf(' ');
  const companyId = scope.slice(0, space);
  const key = scope.slice(space + 1);
  const answers = state.idempotency.get(companyId);
  const packed = answers?.records.get(key);
  return packed === undefined ? [] : [unpackEntry(answers!.texts, packed, companyId, key)];
}

/**
 * Puts back the answers of a snapshot: the companies in the order they come, each one's answers in the order
 * they were stored, which is their order of expiry (what the purge and the ceiling drop first).
 */
export function importIdempotency(state: State, entries: readonly IdempotencyEntry[]): void {
  for (const e of entries) answersOf(state, e.companyId);
  for (const e of [...entries].sort((a, b) => a.expiresAt - b.expiresAt)) {
    const answers = answersOf(state, e.companyId);
    drop(answers, e.key);
    answers.records.set(e.key, pack(answers.texts, e.fingerprint, e.expiresAt, e));
  }
}

function answersOf(state: State, companyId: string): CompanyAnswers {
  let answers = state.idempotency.get(companyId);
  if (!answers)
    state.idempotency.set(
      companyId,
      (answers = {
        records: new Collection(state, 'idempotency', undefined, (key) => idempotencyScope(companyId, key)),
        texts: new TextArena(),
        oldest: undefined,
      }),
    );
  return answers;
}

/** Drops expired records, oldest first, and the companies left with none; daily housekeeping. */
export function purgeExpiredIdempotency(state: State, now: Instant): number {
  let purged = 0;
  for (const [companyId, answers] of state.idempotency) {
    for (const [key, packed] of answers.records) {
      if (expiryOf(answers.texts, packed) > now) break;
      answers.records.delete(key);
      answers.texts.remove(packed);
      purged++;
    }
    if (answers.records.size === 0) state.idempotency.delete(companyId);
  }
  return purged;
}

/** Structural text of the output, told apart from values (which come from JSON.parse, never this class). */
class Raw {
  constructor(readonly text: string) {}
}

const CLOSE_ARRAY = new Raw(']');
const CLOSE_OBJECT = new Raw('}');
const COMMA = new Raw(',');

/**
 * JSON with object keys sorted at every depth: two bodies that differ only in key order or white space
 * are the same request. Iterative, so no body depth can overflow the stack. The parts are joined once at the
 * end: a string grown with `+=` is a rope of every piece, which a stored fingerprint or batch would keep alive.
 */
export function canonicalJson(value: unknown): string {
  if (isFlatAndSorted(value)) return JSON.stringify(value);
  const parts: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Raw) {
      parts.push(item.text);
    } else if (Array.isArray(item)) {
      parts.push('[');
      stack.push(CLOSE_ARRAY);
      for (let i = item.length - 1; i >= 0; i--) {
        stack.push(item[i]);
        if (i > 0) stack.push(COMMA);
      }
    } else if (item !== null && typeof item === 'object') {
      const keys = Object.keys(item).sort();
      parts.push('{');
      stack.push(CLOSE_OBJECT);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        stack.push((item as Record<string, unknown>)[k]);
        stack.push(new Raw(`${JSON.stringify(k)}:`));
        if (i > 0) stack.push(COMMA);
      }
    } else {
      parts.push(JSON.stringify(item) ?? 'null');
    }
  }
  return parts.join('');
}

/**
 * An object whose keys come in sorted order and whose values are no objects or arrays (the body of most
 * PATCHes): JSON.stringify writes its keys in the order Object.keys gives them, so it already writes it
 * canonically, in half the time of the general walk.
 */
function isFlatAndSorted(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const item = (value as Record<string, unknown>)[keys[i]!];
    if ((typeof item === 'object' && item !== null) || (i > 0 && !(keys[i - 1]! < keys[i]!))) return false;
  }
  return true;
}

/** The daily purge of expired answers: monotone in now and scheduling nothing, so missed runs coalesce. */
export const idempotencyPurgeJob: Job = {
  task: 'housekeeping.idempotency',
  nature: 'deadline',
  everyMs: DAY,
  coalesce: true,
  run: (state, _payload, ctx) => void purgeExpiredIdempotency(state, ctx.now),
};

export const idempotencySlice: Slice<'idempotency', readonly IdempotencyEntry[]> = {
  key: 'idempotency',
  holds: ['idempotency'],
  toData: exportIdempotency,
  // Every entry is made from its text when exported (unpackEntry): the data shares nothing with the state already.
  copy: (entries) => entries,
  fromData: importIdempotency,
  log: { keyOf: (entry) => idempotencyScope(entry.companyId, entry.key), itemsAt: answerAt },
  ownerOf: (entry) => entry.companyId,
  removeCompany: (state, companyId) => {
    // Answer by answer, so that a change log sees each go.
    state.idempotency.get(companyId)?.records.clear();
    state.idempotency.delete(companyId);
  },
  unique: (entries) =>
    repeated(
      'idempotency',
      entries,
      'key',
      (r) => idempotencyScope(r.companyId, r.key),
      (r) => `idempotency-key "${r.key}" of company ${r.companyId}`,
    ),
  check: (data, r) => {
    for (const [i, record] of data.idempotency.entries())
      if (!r.companies.has(record.companyId))
        return at(
          ['idempotency', i, 'companyId'],
          `an idempotent answer belongs to unknown company ${record.companyId}`,
        );
    return undefined;
  },
};
