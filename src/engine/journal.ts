/** The request journal: the last 10,000 API requests, oldest first. It never holds a token or a secret. */

/** One API request as the journal keeps it: no token, no secret, no body. */
export interface JournalEntry {
  readonly at: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly companyId: string | null;
  readonly idempotencyKey: string | null;
  readonly replayed: boolean;
  readonly requestId: string;
  readonly faultId: string | null;
}

const JOURNAL_CAPACITY = 10_000;

export class Journal {
  private entries: JournalEntry[] = [];
  private readonly listeners = new Set<(entry: JournalEntry) => void>();

  record(entry: JournalEntry): void {
    this.entries.push(entry);
    if (this.entries.length > JOURNAL_CAPACITY * 1.5) this.entries = this.entries.slice(-JOURNAL_CAPACITY);
    for (const listener of this.listeners) listener(entry);
  }

  list(): JournalEntry[] {
    return this.entries.slice(-JOURNAL_CAPACITY);
  }

  /** Drops the entries `drop` picks (every one without it). */
  clear(drop?: (entry: JournalEntry) => boolean): void {
    this.entries = drop === undefined ? [] : this.entries.filter((entry) => !drop(entry));
  }

  /** Called for every request; returns the function that stops it (the CLI's --log uses it). */
  subscribe(listener: (entry: JournalEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
