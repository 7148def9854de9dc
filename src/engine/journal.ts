/** The request journal: the last 10,000 API requests, oldest first. It never holds a token or a secret. */
import { isoString } from '../core/time.js';

/** One API request as the journal keeps it: no token, no secret, no body. */
export interface JournalEntry {
  /** Virtual time of its arrival (ISO 8601). */
  readonly at: string;
  readonly method: string;
  /** The path as received, percent-decoded: the client's text, to be escaped before it reaches a terminal. */
  readonly path: string;
  readonly status: number;
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
  /** The error answer's `codigo`; null for a success. */
  readonly codigo: string | null;
  /** The entity tags of the If-Match a write sent; null without one. */
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

/** The entry as read: its fields in their order, its time as ISO 8601 (the facts stay in the record). */
const readable = (r: JournalRecord): JournalEntry => ({
  at: isoString(r.at),
  method: r.method,
  path: r.path,
  status: r.status,
  requestId: r.requestId,
  companyId: r.companyId,
  idempotencyKey: r.idempotencyKey,
  replayed: r.replayed,
  faultId: r.faultId,
});

export class Journal {
  private entries: JournalRecord[] = [];
  private readonly listeners = new Set<(entry: JournalEntry) => void>();

  /**
   * `exists`: whether a company is (still) in the emulator. A request is journaled when it is answered, which may
   * be after its company was removed (a request a `delayMs` fault held, answered 503 by the removal): the removal
   * dropped the company's entries, and such a late one is dropped too.
   */
  constructor(private readonly exists: (companyId: string) => boolean = () => true) {}

  /** Keeps `record` as it is (the caller hands it over and changes it no more), unless its company is gone. */
  record(record: JournalRecord): void {
    if (record.companyId !== null && !this.exists(record.companyId)) return;
    this.entries.push(record);
    if (this.entries.length > JOURNAL_CAPACITY * 1.5) this.entries = this.entries.slice(-JOURNAL_CAPACITY);
    if (this.listeners.size === 0) return;
    const entry = readable(record);
    for (const listener of this.listeners) listener(entry);
  }

  list(): JournalEntry[] {
    return this.entries.slice(-JOURNAL_CAPACITY).map(readable);
  }

  /** The kept records of one company, oldest first, their times as the clock's instants (the inspector reads them unformatted). */
  recordsOf(companyId: string): JournalRecord[] {
    const kept = this.entries.length > JOURNAL_CAPACITY ? this.entries.slice(-JOURNAL_CAPACITY) : this.entries;
    return kept.filter((record) => record.companyId === companyId);
  }

  /** Drops the entries `drop` picks (every one without it). */
  clear(drop?: (entry: { readonly companyId: string | null }) => boolean): void {
    this.entries = drop === undefined ? [] : this.entries.filter((entry) => !drop(entry));
  }

  /** Called for every request; returns the function that stops it (emu.activity tells more: the CLI logs that). */
  subscribe(listener: (entry: JournalEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
