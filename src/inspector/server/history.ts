/**
 * The inspector's history: every company's activity from the emulator's making on, whether or not a page was ever
 * opened — each API request with its headers, bodies and error (as the API wrote them), each control call that
 * changed something, each delivery attempt, each job run on a record and each finding on the client — in one ring
 * for the whole emulator, bounded by a count of entries and by bytes (EmulatorOptions.inspector). Past either bound
 * the oldest entries are dropped, and counted, per company.
 *
 * It is the emulator's recorder (ActivityRecorder), set when the emulator is made: the request path hands it each
 * exchange, of which it keeps the journal's own record and the answer's text by reference, the headers as a flat
 * list of their strings (not the Headers objects, whose graph is several times the objects for the collector to
 * keep), and the request's body bytes, copied only when they are a view of a larger buffer. Nothing is allocated
 * before its first entry, so createEmulator() stays a few small objects.
 *
 * A byte is counted for each byte of a body as kept (a text by its length) and of each header's name and value,
 * plus ENTRY_BYTES for each entry: its objects and the journal record (history.test.ts holds the retained heap of a
 * long run within the bound).
 */
import type { ActivityFeed, ActivityRecorder, AnswerError, ControlActivity, DeliveryActivity, FindingActivity, JobActivity, RecordedActivity } from '../../engine/activity.js';
import type { HistoryBounds } from '../../engine/config.js';
import type { EngineChange } from '../../engine/engine.js';
import type { JournalRecord } from '../../engine/journal.js';

/** A recorded body's cap, in bytes: what is past it is dropped and the body marked truncated. */
export const BODY_CAP = 64 * 1024;
/** What each entry is counted for beyond its bodies and headers (see above). */
export const ENTRY_BYTES = 512;

/** What every entry has: its place in the history, the company it is about (null: every company), its instant. */
interface Kept {
  readonly seq: number;
  readonly companyId: string | null;
  readonly atMs: number;
  readonly bytes: number;
}

/** A body as kept: its bytes (a request's) or text (an answer's), up to BODY_CAP bytes. */
export interface KeptBody {
  readonly content: Uint8Array | string;
  /** Its whole size in bytes, before the cap; undefined for a text under it (counted when it is read). */
  readonly size: number | undefined;
  readonly truncated: boolean;
}

/** An API request as sent and answered. */
export interface KeptRequest extends Kept {
  readonly kind: 'request';
  readonly record: JournalRecord;
  readonly error: AnswerError | undefined;
  /** Name, value, name, value, … as sent (names in lower case). */
  readonly requestHeaders: readonly string[];
  /** Null when the pipeline read no body. */
  readonly requestBody: KeptBody | null;
  readonly status: number;
  readonly responseHeaders: readonly string[];
  /** Null for an error answer (rebuilt from `error`) or while an answer not made from text is read. */
  responseBody: KeptBody | null;
  /** While the answer's body is being read from a copy of its stream. */
  reading: Promise<void> | undefined;
}

export interface KeptControl extends Kept, Omit<ControlActivity, 'companyId'> {}
export interface KeptDelivery extends Kept, Omit<DeliveryActivity, 'companyId'> {}
export interface KeptJob extends Kept, Omit<JobActivity, 'companyId'> {}
export interface KeptFinding extends Kept, Omit<FindingActivity, 'companyId'> {}

export type HistoryEntry = KeptRequest | KeptControl | KeptDelivery | KeptJob | KeptFinding;

/** What the inspector's live part is told as the history takes things (Inspector). */
export interface HistoryTap {
  taken(entry: HistoryEntry): void;
  clockMoved(owner: string | null): void;
}

/** How much the history holds and has dropped. */
export interface HistoryCounts {
  readonly entries: number;
  readonly bytes: number;
  readonly maxEntries: number;
  readonly maxBytes: number;
  /** Entries dropped at the bounds since the emulator's making (or its last reset). */
  readonly dropped: number;
}

/** Leaves the ring's array unshifted until this many dropped slots are at its front (then shifts them at once). */
const COMPACT_AFTER = 1024;

export class History implements ActivityRecorder {
  readonly bounds: HistoryBounds;
  readonly #feed: ActivityFeed;
  /** Oldest first, from #head on; made on the first entry. */
  #ring: (HistoryEntry | undefined)[] | undefined;
  #head = 0;
  #bytes = 0;
  #seq = 0;
  #dropped = 0;
  /** Entries dropped at the bounds, by company (null: those about every company). */
  #droppedOf: Map<string | null, number> | undefined;
  /** The inspector's live part, once a page or a data route was used. */
  tap: HistoryTap | undefined;

  constructor(feed: ActivityFeed, bounds: HistoryBounds) {
    this.#feed = feed;
    this.bounds = bounds;
  }

  /** Whether it keeps anything: with a bound of 0 it only passes what it is told to the tap. */
  get keeps(): boolean {
    return this.bounds.entries > 0 && this.bounds.bytes > 0;
  }

  exchange(record: JournalRecord, request: Request, requestBody: Uint8Array | undefined, response: Response, responseBody: string | undefined, error: AnswerError | undefined): void {
    const requestKept = requestBody === undefined ? null : keptBytes(requestBody);
    const answerKept = responseBody === undefined ? null : keptText(responseBody);
    const requestHeaders = flat(request.headers);
    const responseHeaders = flat(response.headers);
    const entry: KeptRequest = {
      kind: 'request',
      seq: ++this.#seq,
      companyId: record.companyId,
      atMs: record.at,
      bytes: ENTRY_BYTES + length(requestHeaders) + length(responseHeaders) + (requestKept === null ? 0 : requestKept.content.length) + (answerKept === null ? 0 : answerKept.content.length),
      record,
      error,
      requestHeaders,
      requestBody: requestKept,
      status: response.status,
      responseHeaders,
      responseBody: answerKept,
      reading: undefined,
    };
    // An answer the API did not write from text (a malformedJson fault's): its body read from a copy of its stream.
    if (responseBody === undefined && error === undefined && response.body !== null) {
      entry.reading = response
        .clone()
        .arrayBuffer()
        .then((buffer) => void (entry.responseBody = keptBytes(new Uint8Array(buffer))))
        .catch(() => undefined)
        .finally(() => (entry.reading = undefined));
    }
    this.#keep(entry);
  }

  entry(activity: RecordedActivity): void {
    switch (activity.kind) {
      case 'control': {
        // Only what changed something, and not the inspector's own calls: its page reads, and paces a demo.
        if (activity.method === 'GET' || activity.scope === 'inspector') return;
        // A call about a company on a clock of its own happened at that clock's now.
        const world = activity.companyId === null ? undefined : this.#feed.emulator.worldOf(activity.companyId);
        const atMs = world !== undefined && world.owner === activity.companyId ? world.clock.now() : Date.parse(activity.at);
        return this.#keep({ ...activity, seq: ++this.#seq, atMs, bytes: ENTRY_BYTES });
      }
      case 'delivery':
      case 'job':
      case 'finding':
        return this.#keep({ ...activity, seq: ++this.#seq, atMs: Date.parse(activity.at), bytes: ENTRY_BYTES });
    }
  }

  clockMoved(owner: string | null): void {
    this.tap?.clockMoved(owner);
  }

  /** Every entry kept, oldest first. */
  *entries(): IterableIterator<HistoryEntry> {
    const ring = this.#ring;
    if (ring === undefined) return;
    for (let i = this.#head; i < ring.length; i++) yield ring[i]!;
  }

  /** The entry numbered `seq`, if it is still kept. */
  bySeq(seq: number): HistoryEntry | undefined {
    const ring = this.#ring;
    if (ring === undefined) return undefined;
    let low = this.#head;
    let high = ring.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const entry = ring[middle]!;
      if (entry.seq === seq) return entry;
      if (entry.seq < seq) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }

  /** The request `requestId` of `companyId`, if it is still kept (the newest are looked at first). */
  request(companyId: string, requestId: string): KeptRequest | undefined {
    const ring = this.#ring;
    if (ring === undefined) return undefined;
    for (let i = ring.length - 1; i >= this.#head; i--) {
      const entry = ring[i]!;
      if (entry.kind === 'request' && entry.record.requestId === requestId && entry.companyId === companyId) return entry;
    }
    return undefined;
  }

  /** What the history holds, and what it dropped of `companyId`'s entries (those about every company included). */
  counts(companyId?: string): HistoryCounts {
    const dropped = companyId === undefined ? this.#dropped : (this.#droppedOf?.get(companyId) ?? 0) + (this.#droppedOf?.get(null) ?? 0);
    return { entries: this.#size, bytes: this.#bytes, maxEntries: this.bounds.entries, maxBytes: this.bounds.bytes, dropped };
  }

  get #size(): number {
    return this.#ring === undefined ? 0 : this.#ring.length - this.#head;
  }

  #keep(entry: HistoryEntry): void {
    if (this.keeps) {
      if (this.#ring === undefined) {
        this.#ring = [];
        // What a reset replaced goes with it: made with the first entry, as the ring is.
        this.#feed.emulator.watch((change) => this.#changed(change));
      }
      this.#ring.push(entry);
      this.#bytes += entry.bytes;
      while (this.#size > this.bounds.entries || this.#bytes > this.bounds.bytes) this.#dropOldest();
    }
    this.tap?.taken(entry);
  }

  #dropOldest(): void {
    const ring = this.#ring!;
    const gone = ring[this.#head]!;
    ring[this.#head++] = undefined;
    this.#bytes -= gone.bytes;
    this.#dropped++;
    const of = (this.#droppedOf ??= new Map());
    of.set(gone.companyId, (of.get(gone.companyId) ?? 0) + 1);
    if (this.#head >= COMPACT_AFTER && this.#head * 2 >= ring.length) {
      ring.splice(0, this.#head);
      this.#head = 0;
    }
  }

  /** A reset of the emulator empties the history; a company's reset or removal drops its entries. A restore keeps them. */
  #changed(change: EngineChange): void {
    if (change.kind !== 'reset' || this.#ring === undefined) return;
    const { companyId } = change;
    if (companyId === null) {
      this.#ring = [];
      this.#head = 0;
      this.#bytes = 0;
      this.#dropped = 0;
      this.#droppedOf = undefined;
      return;
    }
    const kept: HistoryEntry[] = [];
    let bytes = 0;
    for (const entry of this.entries()) {
      if (entry.companyId === companyId) continue;
      kept.push(entry);
      bytes += entry.bytes;
    }
    this.#ring = kept;
    this.#head = 0;
    this.#bytes = bytes;
    this.#droppedOf?.delete(companyId);
  }
}

const UTF8 = new TextDecoder('utf-8');

/** Headers as name, value, name, value, … (forEach with a `this`: no closure, no pair arrays made). */
function flat(headers: Headers): string[] {
  const out: string[] = [];
  headers.forEach(pushPair, out);
  return out;
}
function pushPair(this: string[], value: string, name: string): void {
  this.push(name, value);
}

/** The characters of a list of strings. */
function length(strings: readonly string[]): number {
  let n = 0;
  for (const text of strings) n += text.length;
  return n;
}

/** A flat list of headers as the pairs maskHeaders reads. */
export function headerPairs(flat: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
  return pairs;
}

/** A request body as kept: its bytes up to BODY_CAP, copied when they are a view of a larger buffer (a pool's). */
function keptBytes(bytes: Uint8Array): KeptBody {
  const truncated = bytes.length > BODY_CAP;
  const shown = truncated ? bytes.subarray(0, BODY_CAP) : bytes;
  const own = shown.byteOffset === 0 && shown.buffer.byteLength === shown.byteLength ? shown : new Uint8Array(shown);
  return { content: own, size: bytes.length, truncated };
}

/** An answer the API wrote as text: the text itself under the cap (no copy), else its first BODY_CAP bytes. */
function keptText(text: string): KeptBody {
  // At most 3 bytes of UTF-8 for each UTF-16 unit: a short text is under the cap without counting its bytes.
  if (text.length <= BODY_CAP / 3) return { content: text, size: undefined, truncated: false };
  const size = Buffer.byteLength(text);
  if (size <= BODY_CAP) return { content: text, size, truncated: false };
  return { content: UTF8.decode(Buffer.from(text).subarray(0, BODY_CAP)), size, truncated: true };
}

/** A kept body's text (a request's bytes decoded as UTF-8) and its size in bytes. */
export function bodyText(body: KeptBody): { readonly text: string; readonly size: number; readonly truncated: boolean } {
  const text = typeof body.content === 'string' ? body.content : UTF8.decode(body.content);
  return { text, size: body.size ?? Buffer.byteLength(text), truncated: body.truncated };
}
