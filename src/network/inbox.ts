/**
 * The built-in receiver: every delivery to a URL no route covers lands here and is answered 200, so a test
 * can read exactly what the service sent (url, headers, exact body) without running a server.
 */
export interface InboxEntry {
  /** Virtual time of the attempt. */
  readonly at: string;
  /** The company whose event this is (a view filtered by company shows it). */
  readonly companyId: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The exact bytes sent, as text. */
  readonly body: string;
  readonly eventId: string;
  readonly tipo: string;
  readonly tentativa: number;
  /** What the inbox answered. */
  readonly answer: { readonly status: number };
}

const INBOX_CAPACITY = 10_000;

export class Inbox {
  private entries: InboxEntry[] = [];

  record(entry: InboxEntry): void {
    this.entries.push(entry);
    if (this.entries.length > INBOX_CAPACITY * 1.5) this.entries = this.entries.slice(-INBOX_CAPACITY);
  }

  /** The deliveries received, oldest first (the last 10,000). */
  list(): InboxEntry[] {
    return this.entries.slice(-INBOX_CAPACITY);
  }

  /** Drops the deliveries `drop` picks (every one without it). */
  clear(drop?: (entry: InboxEntry) => boolean): void {
    this.entries = drop === undefined ? [] : this.entries.filter((entry) => !drop(entry));
  }
}
