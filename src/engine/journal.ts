/**
 * The request journal: the last 10,000 API requests, oldest first. It never holds a token or a secret. Read whole
 * or through a JournalFilter (emu.journal.find and count, GET /_emulator/requests): the filter's fields are declared
 * once here (FILTER_FIELDS), with what each accepts and which entries it keeps.
 *
 * What a request leaves here is bounded, whoever sent it (a request without a credential is journaled too): its
 * path is kept cut to MAX_PATH characters (src/core/kept-text.ts). A query that matches a glob against the kept paths
 * (a `path` filter, a timeline's, a fault's near-misses) is refused once its matching has taken QUERY_STEPS steps
 * (QueryBudget), never left to stall the server.
 */
import { ID_PATTERN } from '../core/random.js';
import { isoString } from '../core/time.js';
import { Glob, MAX_GLOB } from './glob.js';
import { TextArena } from '../core/text-arena.js';
import { CUT, MAX_PATH } from '../core/kept-text.js';

/** One API request as the journal keeps it: no token, no secret, no body. */
export interface JournalEntry {
  /** Virtual time of its arrival (ISO 8601). */
  readonly at: string;
  readonly method: string;
  /**
   * The path as received, percent-decoded: the client's text, to be escaped before it reaches a terminal. One longer
   * than MAX_PATH characters is kept cut (keptPath): its start and "…".
   */
  readonly path: string;
  readonly status: number;
  /** The error answer's `codigo`; null for a success. */
  readonly codigo: string | null;
  readonly requestId: string;
  /** The company its credential belongs to; null when it had none that opens a company. */
  readonly companyId: string | null;
  readonly idempotencyKey: string | null;
  /** Answered from the idempotency store (the `idempotent-replayed: true` answer). */
  readonly replayed: boolean;
  /** The api fault that fired on it. */
  readonly faultId: string | null;
}

/**
 * What the journal keeps of a request beyond its entry, for the grading of the client (src/grading): fixed-size
 * facts the request path has at hand anyway (a reference each, nothing computed for them), so that what the client
 * did can be judged whenever it is asked, however long after. Not part of the entry as read.
 */
interface RequestFacts {
  /** The operation it reached (its operationId in openapi.json); null when none did (404, 405). */
  readonly operation: string | null;
  /** The entity tags of the If-Match a write sent (keptTags); null without one. */
  readonly ifMatch: readonly string[] | null;
  /** A keyed write's fingerprint (method, path, canonical body) as the idempotency store computes it; null otherwise. */
  readonly fingerprint: string | null;
  /** The answer's Retry-After, in seconds; null without one. */
  readonly retryAfter: number | null;
  /**
   * The answer never reached the client: a `loseResponse` fault took it, or the client had gone (its connection
   * closed, or in process its Request's signal aborted) before a request a `delayMs` fault held was answered.
   */
  readonly lost: boolean;
}

/**
 * An entry as it is recorded, with its facts: its time still the clock's instant. It is formatted only when read
 * (list, a listener): an ISO string per request, kept for 10,000 requests, was a date formatted on every request
 * and ~40 bytes more of every retained entry, for a journal that is mostly never read.
 */
export type JournalRecord = Omit<JournalEntry, 'at'> & { readonly at: number } & RequestFacts;

const JOURNAL_CAPACITY = 10_000;

/**
 * Whether `glob` matches the kept path `kept` (keptPath). A cut path is known only by its start: it matches only
 * where every path with that start would (the glob ends in `**` and its start reaches it: `/v1/**`,
 * `/v1/produtos/**`), never by the "…" that marks the cut, nor by a guess at what was cut off.
 */
export function pathMatches(glob: Glob, kept: string): boolean {
  return kept.length > MAX_PATH ? glob.matchesEveryTextStartingWith(kept.slice(0, -CUT.length)) : glob.matches(kept);
}

/**
 * The steps (Glob.steps) one query may spend matching a glob against the kept paths: one step a character of a full
 * journal of the longest kept paths, so a glob of fewer than 32 characters (one word of states: one step a
 * character at most) is never refused by it; a longer one costs up to a word more a character and is refused only
 * where its matching would take more (docs/journal.md). It bounds the matching at a few tens of milliseconds.
 */
export const QUERY_STEPS = JOURNAL_CAPACITY * (MAX_PATH + 1);

/** A query stopped at QUERY_STEPS: it answers nothing, never a part presented as the whole. */
export class QueryBudgetError extends RangeError {
  /** `field`: the query's field whose glob took the steps (its name in the query string too), if it has one. */
  constructor(
    readonly field: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'QueryBudgetError';
  }
}

/** The steps a query has spent matching `glob` (from its making on), and its refusal past QUERY_STEPS. */
export class QueryBudget {
  readonly #start: number;
  constructor(
    private readonly glob: Glob,
    /** What the refusal names: the field whose glob it is, and how to narrow the query. */
    private readonly field: string | undefined,
    private readonly narrow: string,
  ) {
    this.#start = glob.steps;
  }

  /** `matched`, once the steps are counted: a QueryBudgetError past the budget. */
  spent(matched: boolean): boolean {
    if (this.glob.steps - this.#start <= QUERY_STEPS) return matched;
    throw new QueryBudgetError(
      this.field,
      `The query was stopped: matching ${shown(this.glob.pattern)} took more than ${QUERY_STEPS} steps (a step: one ` +
        `32-bit word of the glob's automaton moved over one character), and it answers nothing; ${this.narrow}.`,
    );
  }
}

/** The entry as read: its fields in their order, its time as ISO 8601 (the facts stay in the record). */
const readable = (r: JournalRecord): JournalEntry => ({
  at: isoString(r.at),
  method: r.method,
  path: r.path,
  status: r.status,
  codigo: r.codigo,
  requestId: r.requestId,
  companyId: r.companyId,
  idempotencyKey: r.idempotencyKey,
  replayed: r.replayed,
  faultId: r.faultId,
});

/** A class of statuses, for a filter: every status of that hundred. */
export type StatusClass = '1xx' | '2xx' | '3xx' | '4xx' | '5xx';

/**
 * Which journal entries a query keeps (emu.journal.find and count, GET /_emulator/requests and …/count): every
 * field is optional, and an entry is kept when all the given ones hold. The in-process object and the query string
 * are read by the same table (FILTER_FIELDS); a field that is not one, or a value it does not accept, is refused
 * with a JournalFilterError naming the field.
 */
export interface JournalFilter {
  /** The requests made with this company's credentials: its id as the emulator gives it (a lowercase UUID). */
  readonly companyId?: string;
  /** This method, any case. */
  readonly method?: string;
  /** A path this glob matches, as a fault's `match.path` does: `*` any run of characters but `/`, `**` any run; case-insensitive. */
  readonly path?: string;
  /** This status, or a class of them (`'4xx'`). */
  readonly status?: number | StatusClass;
  /** Answered with this error code (`precondicao_falhou`); a success has none. */
  readonly codigo?: string;
  /** Arrived at or after this virtual instant (inclusive): ISO 8601 with a time zone, a date alone (its midnight UTC) or a Date. */
  readonly from?: string | Date;
  /** Arrived before this virtual instant (exclusive): as `from`. */
  readonly to?: string | Date;
  /** Answered from the idempotency store (true), or not (false). */
  readonly replayed?: boolean;
  /** The api fault with this id fired on it. */
  readonly faultId?: string;
  /** Only the most recent this many of the entries kept (1 to 10,000); still oldest first. */
  readonly limit?: number;
}

/** A filter that is not one: `field` names the field (its name in the query string too), the message what it accepts. */
export class JournalFilterError extends TypeError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'JournalFilterError';
  }
}

/** A JournalFilter read: which records it keeps, and how many of the most recent. */
export interface JournalQuery {
  readonly companyId: string | undefined;
  readonly limit: number | undefined;
  keeps(record: JournalRecord): boolean;
}

/**
 * One field of the filter: how a query string writes it (`text`: as it is, or digits read as a number, `true` and
 * `false` as booleans, any other text left for `read` to refuse), what it accepts, its value as read (undefined when
 * it is not one), and which records it keeps (none: it picks no record, as `limit`).
 */
interface FilterField<V> {
  /** What it keeps, as the controls' document says it. */
  readonly means: string;
  readonly text: 'string' | 'number' | 'boolean';
  readonly accepts: string;
  read(value: unknown): V | undefined;
  keep?(value: V): (record: JournalRecord) => boolean;
  /** Tried after the other fields' tests: it costs steps of the query's budget (QueryBudget), the others none. */
  readonly last?: true;
}

const field = <V>(spec: FilterField<V>): FilterField<unknown> => spec as FilterField<unknown>;

const STATUS_CLASS = /^[1-5]xx$/i;
/** ISO 8601 as a filter takes it: a date, or a date and time with its zone (one without is no instant). */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/i;

const text = (max: number) => (value: unknown) =>
  typeof value === 'string' && value.length > 0 && value.length <= max ? value : undefined;
const integer = (min: number, max: number) => (value: unknown) =>
  Number.isInteger(value) && (value as number) >= min && (value as number) <= max ? (value as number) : undefined;

function instant(value: unknown): number | undefined {
  if (value instanceof Date) return Number.isFinite(value.getTime()) ? value.getTime() : undefined;
  if (typeof value !== 'string' || !ISO_INSTANT.test(value)) return undefined;
  // Date.parse takes 2026-02-30 for March 2nd: the day must be one of its month.
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  const parsed = Date.parse(value);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/** The fields of a JournalFilter, in the order refusals and the controls' document list them. */
const FILTER_FIELDS: { readonly [K in keyof JournalFilter]-?: FilterField<unknown> } = {
  // Read as every view's companyId is (a value of another form is refused here, 422; an id no company has, 404, by
  // the controls, which know the companies).
  companyId: field({
    means: "the requests made with this company's credentials",
    text: 'string',
    accepts: 'a company id of this emulator (a lowercase UUID, as POST /_emulator/companies answers it)',
    read: (value) => (typeof value === 'string' && ID_PATTERN.test(value) ? value : undefined),
    keep: (id) => (r) => r.companyId === id,
  }),
  method: field({
    means: 'the requests with this method',
    text: 'string',
    accepts: 'an HTTP method (GET, POST, PUT, PATCH, DELETE, …; any case)',
    read: (value) => (typeof value === 'string' && /^[A-Za-z]{1,20}$/.test(value) ? value.toUpperCase() : undefined),
    keep: (method) => (r) => r.method === method,
  }),
  path: field({
    means: "the requests whose path this glob matches, as a fault's match.path does",
    text: 'string',
    accepts: `a glob of 1 to ${MAX_GLOB} characters starting with "/" ("*" is any run of characters but "/", "**" any run at all)`,
    read: (value) =>
      typeof value === 'string' && value.startsWith('/') && value.length <= MAX_GLOB ? new Glob(value) : undefined,
    keep: (glob: Glob) => {
      const narrow = 'narrow it (a companyId, method, status, from and to, or a limit leave fewer paths to match)';
      const budget = new QueryBudget(glob, 'path', narrow);
      return (r) => budget.spent(pathMatches(glob, r.path));
    },
    last: true,
  }),
  status: field<number | StatusClass>({
    means: 'the requests answered with this status, or one of this class',
    text: 'number',
    accepts: 'a status (100 to 599) or a class of them (1xx, 2xx, 3xx, 4xx, 5xx)',
    read: (value) =>
      typeof value === 'string' && STATUS_CLASS.test(value)
        ? (value.toLowerCase() as StatusClass)
        : integer(100, 599)(value),
    keep: (status) => {
      if (typeof status === 'number') return (r) => r.status === status;
      const hundred = Number(status[0]) * 100;
      return (r) => r.status >= hundred && r.status < hundred + 100;
    },
  }),
  codigo: field({
    means: 'the requests refused with this error code (a success has none)',
    text: 'string',
    accepts: 'an error code (precondicao_falhou, …)',
    read: text(100),
    keep: (codigo) => (r) => r.codigo === codigo,
  }),
  from: field({
    means: 'the requests that arrived at or after this virtual instant',
    text: 'string',
    accepts: 'an ISO 8601 instant (2026-01-01T10:00:00Z, or a date: its midnight UTC), inclusive',
    read: instant,
    keep: (from: number) => (r) => r.at >= from,
  }),
  to: field({
    means: 'the requests that arrived before this virtual instant',
    text: 'string',
    accepts: 'an ISO 8601 instant (2026-01-01T10:00:00Z, or a date: its midnight UTC), exclusive, after from',
    read: instant,
    keep: (to: number) => (r) => r.at < to,
  }),
  replayed: field({
    means: 'the requests answered from the idempotency store (true), or not (false)',
    text: 'boolean',
    accepts: 'true or false',
    read: (value) => (typeof value === 'boolean' ? value : undefined),
    keep: (replayed) => (r) => r.replayed === replayed,
  }),
  faultId: field({
    means: 'the requests this api fault fired on',
    text: 'string',
    accepts: "a fault's id (flt_1, …)",
    read: text(64),
    keep: (id) => (r) => r.faultId === id,
  }),
  limit: field({
    means: 'the most recent this many of those kept, still oldest first',
    text: 'number',
    accepts: `an integer from 1 to ${JOURNAL_CAPACITY}`,
    read: integer(1, JOURNAL_CAPACITY),
  }),
};

/** The filter's fields: their names, how a query string writes each, and what each accepts (the controls' query reads them). */
export const JOURNAL_FILTER_FIELDS: readonly {
  readonly name: keyof JournalFilter;
  readonly means: string;
  readonly text: 'string' | 'number' | 'boolean';
  readonly accepts: string;
}[] = Object.entries(FILTER_FIELDS).map(([name, spec]) => ({
  name: name as keyof JournalFilter,
  means: spec.means,
  text: spec.text,
  accepts: spec.accepts,
}));

const FIELD_NAMES = Object.keys(FILTER_FIELDS).join(', ');

/** `filter` read: a JournalFilterError names the first field that is not one of the filter's, or a value it does not accept. */
export function readJournalFilter(filter: unknown): JournalQuery {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter) || filter instanceof Date) {
    throw new JournalFilterError(
      '',
      `A journal filter is an object of ${FIELD_NAMES} (each optional); got ${shown(filter)}.`,
    );
  }
  const tests: ((record: JournalRecord) => boolean)[] = [];
  const lastTests: ((record: JournalRecord) => boolean)[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, given] of Object.entries(filter as Record<string, unknown>)) {
    const spec = (FILTER_FIELDS as Record<string, FilterField<unknown> | undefined>)[name];
    if (spec === undefined || !Object.hasOwn(FILTER_FIELDS, name))
      throw new JournalFilterError(
        name,
        `${JSON.stringify(name)} is not a filter of the journal; the filters are ${FIELD_NAMES}.`,
      );
    if (given === undefined) continue;
    const value = spec.read(given);
    if (value === undefined)
      throw new JournalFilterError(name, `${name} must be ${spec.accepts}; got ${shown(given)}.`);
    values[name] = value;
    if (spec.keep) (spec.last ? lastTests : tests).push(spec.keep(value));
  }
  tests.push(...lastTests);
  const { from, to } = values as { from?: number; to?: number };
  if (from !== undefined && to !== undefined && to <= from)
    throw new JournalFilterError(
      'to',
      `to must be after from (from is inclusive, to exclusive): ${isoString(from)} to ${isoString(to)} keeps nothing.`,
    );
  return {
    companyId: values.companyId as string | undefined,
    limit: values.limit as number | undefined,
    keeps: (record) => tests.every((test) => test(record)),
  };
}

function shown(value: unknown): string {
  const text =
    value instanceof Date && !Number.isFinite(value.getTime())
      ? 'Invalid Date'
      : (JSON.stringify(value) ?? String(value));
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/**
 * A record as one text, for a store that keeps thousands of them (the journal, the inspector's history): a line of
 * numbers, then the record's strings one after another. A record kept as an object, with a string for each of its
 * request id, fingerprint and If-Match, outlived every young-generation collection of the 10,000 requests after it:
 * about 450 bytes a request promoted to the old generation, and a full collection every few seconds under load.
 *
 *   at,status,flags,retryAfter,<a length for each string field, -1 for null>,<one for each If-Match tag>\n
 *   <the strings, in STRING_FIELDS order, then the tags>
 *
 * Lengths are UTF-16 units: a text comes back from a TextArena exactly as it went in, so any string survives.
 */
const STRING_FIELDS = [
  'method',
  'path',
  'codigo',
  'requestId',
  'companyId',
  'idempotencyKey',
  'faultId',
  'operation',
  'fingerprint',
] as const;
const REPLAYED = 1;
const LOST = 2;

export function packRecord(r: JournalRecord): string {
  let head = `${r.at},${r.status},${(r.replayed ? REPLAYED : 0) | (r.lost ? LOST : 0)},${r.retryAfter ?? ''}`;
  let text = '';
  for (const name of STRING_FIELDS) {
    const value = r[name];
    head += value === null ? ',-1' : `,${value.length}`;
    if (value !== null) text += value;
  }
  if (r.ifMatch !== null) {
    for (const tag of r.ifMatch) {
      head += `,${tag.length}`;
      text += tag;
    }
  }
  return `${head}\n${text}`;
}

export function unpackRecord(packed: string): JournalRecord {
  return readRecord(packed)[0];
}

/** The record a text starts with (packRecord's), and where its text ends: a store may keep more after it. */
export function readRecord(text: string): [record: JournalRecord, end: number] {
  const line = text.indexOf('\n');
  const numbers = text.slice(0, line).split(',');
  const strings: (string | null)[] = [];
  let from = line + 1;
  for (let i = 4; i < numbers.length; i++) {
    const length = Number(numbers[i]);
    strings.push(length < 0 ? null : text.slice(from, (from += length)));
  }
  const [method, path, codigo, requestId, companyId, idempotencyKey, faultId, operation, fingerprint] = strings;
  const flags = Number(numbers[2]);
  const tags = strings.slice(STRING_FIELDS.length) as string[];
  const record: JournalRecord = {
    at: Number(numbers[0]),
    method: method!,
    path: path!,
    status: Number(numbers[1]),
    codigo: codigo ?? null,
    requestId: requestId!,
    companyId: companyId ?? null,
    idempotencyKey: idempotencyKey ?? null,
    replayed: (flags & REPLAYED) !== 0,
    faultId: faultId ?? null,
    operation: operation ?? null,
    ifMatch: tags.length === 0 ? null : tags,
    fingerprint: fingerprint ?? null,
    retryAfter: numbers[3] === '' ? null : Number(numbers[3]),
    lost: (flags & LOST) !== 0,
  };
  return [record, from];
}

/**
 * The last JOURNAL_CAPACITY records, in a ring: each record's text in a TextArena (outside the collected heap), its
 * handle, number and company in fixed arrays beside it (made with the first record). Nothing a request leaves here
 * is an object of the collected heap: see packRecord.
 */
export class Journal {
  #arena: TextArena | undefined;
  #handles: Int32Array | undefined;
  /**
   * The number of each record in the order recorded, so that whoever noted `mark` can ask for the records since
   * then (a fault's near-misses are the requests since it was armed), however many were dropped meanwhile.
   */
  #seqs: Float64Array | undefined;
  /** Each record's company (its credential's string, which outlives it), for the filters by company without a read. */
  #companies: (string | null)[] = [];
  /** The ring's oldest slot, and how many are kept. */
  #start = 0;
  #size = 0;
  #recorded = 0;
  readonly #listeners = new Set<(entry: JournalEntry) => void>();

  /**
   * `exists`: whether a company is (still) in the emulator. A request is journaled when it is answered, which may
   * be after its company was removed (a request a `delayMs` fault held, answered 503 by the removal): the removal
   * dropped the company's entries, and such a late one is dropped too.
   */
  constructor(private readonly exists: (companyId: string) => boolean = () => true) {}

  /**
   * Keeps `record` as it is now (the caller changes it no more), unless its company is gone; answers its text as kept
   * (packRecord's), which the inspector's history keeps too.
   */
  record(record: JournalRecord): string | undefined {
    if (record.companyId !== null && !this.exists(record.companyId)) return undefined;
    const arena = (this.#arena ??= new TextArena());
    const handles = (this.#handles ??= new Int32Array(JOURNAL_CAPACITY));
    const seqs = (this.#seqs ??= new Float64Array(JOURNAL_CAPACITY));
    if (this.#size === JOURNAL_CAPACITY) {
      arena.remove(handles[this.#start]!);
      this.#start = this.#slot(1);
      this.#size--;
    }
    const slot = this.#slot(this.#size++);
    const line = packRecord(record);
    handles[slot] = arena.add(line);
    seqs[slot] = this.#recorded++;
    this.#companies[slot] = record.companyId;
    if (this.#listeners.size > 0) {
      const entry = readable(record);
      for (const listener of this.#listeners) listener(entry);
    }
    return line;
  }

  list(): JournalEntry[] {
    return this.#records(0, () => true).map(readable);
  }

  /** The entries `query` keeps, oldest first: with a limit, the most recent that many. */
  find(query: JournalQuery): JournalEntry[] {
    return this.#found(query).map(readable);
  }

  /** How many entries find(query) answers. */
  count(query: JournalQuery): number {
    return this.#found(query).length;
  }

  #found(query: JournalQuery): JournalRecord[] {
    const ofCompany =
      query.companyId === undefined ? () => true : (companyId: string | null) => companyId === query.companyId;
    if (query.limit === undefined) return this.#records(0, ofCompany).filter(query.keeps);
    // From the newest back, stopping at the limit: the most recent N of a full journal without reading all of it.
    const found: JournalRecord[] = [];
    for (let i = this.#size - 1; i >= 0 && found.length < query.limit; i--) {
      if (!ofCompany(this.#companyAt(i))) continue;
      const record = this.#recordAt(i);
      if (query.keeps(record)) found.push(record);
    }
    return found.reverse();
  }

  /** The kept records of one company, oldest first, their times as the clock's instants (the inspector reads them unformatted). */
  recordsOf(companyId: string): JournalRecord[] {
    return this.#records(0, (id) => id === companyId);
  }

  /** What the next record will be numbered: recordsSince(mark) answers the records from then on. */
  get mark(): number {
    return this.#recorded;
  }

  /** The kept records numbered `mark` or later, oldest first. */
  recordsSince(mark: number): JournalRecord[] {
    let low = 0;
    let high = this.#size;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#seqs![this.#slot(middle)]! < mark) low = middle + 1;
      else high = middle;
    }
    return this.#records(low, () => true);
  }

  /** Drops the entries `drop` picks (every one without it). */
  clear(drop?: (entry: { readonly companyId: string | null }) => boolean): void {
    const kept: number[] = [];
    for (let i = 0; i < this.#size; i++) {
      const slot = this.#slot(i);
      if (drop !== undefined && !drop({ companyId: this.#companies[slot]! })) kept.push(slot);
      else this.#arena!.remove(this.#handles![slot]!);
    }
    // The kept slots move to the front, in their order (read before any is written: the ring may have wrapped).
    const handles = kept.map((slot) => this.#handles![slot]!);
    const seqs = kept.map((slot) => this.#seqs![slot]!);
    this.#companies = kept.map((slot) => this.#companies[slot]!);
    this.#handles?.set(handles);
    this.#seqs?.set(seqs);
    this.#start = 0;
    this.#size = kept.length;
  }

  /** Called for every request; returns the function that stops it (emu.activity tells more: the CLI logs that). */
  subscribe(listener: (entry: JournalEntry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The ring's slot of the record `i` places from the oldest kept. */
  #slot(i: number): number {
    return (this.#start + i) % JOURNAL_CAPACITY;
  }

  #companyAt(i: number): string | null {
    return this.#companies[this.#slot(i)]!;
  }

  #recordAt(i: number): JournalRecord {
    return unpackRecord(this.#arena!.text(this.#handles![this.#slot(i)]!));
  }

  /** The kept records from the `from`th oldest on whose company `ofCompany` picks, oldest first. */
  #records(from: number, ofCompany: (companyId: string | null) => boolean): JournalRecord[] {
    const records: JournalRecord[] = [];
    for (let i = from; i < this.#size; i++) if (ofCompany(this.#companyAt(i))) records.push(this.#recordAt(i));
    return records;
  }
}
