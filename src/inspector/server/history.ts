/**
 * The inspector's history: every company's activity from the emulator's making on, whether or not a page was ever
 * opened — each API request with its headers, bodies and error (as the API wrote them), each control call that
 * changed something, each delivery attempt, each job run on a record and each finding on the client — in one ring
 * for the whole emulator, bounded by a count of entries and by bytes (EmulatorOptions.inspector). Past either bound
 * the oldest entries are dropped, and counted, per company.
 *
 * It is the emulator's recorder (ActivityRecorder), set when the emulator is made: the request path hands it each
 * exchange, of which it keeps the journal's own record by reference and the headers and bodies as one text in a
 * TextArena, outside the collected heap (ArenaRequest). Nothing is allocated before its first entry, so
 * createEmulator() stays a few small objects.
 *
 * A byte is counted for each byte of a body as kept (a text by its length) and of each header's name and value,
 * plus ENTRY_BYTES for each entry: its objects and the journal record (history.test.ts holds the retained heap of a
 * long run within the bound).
 */
import type { ActivityFeed, ActivityRecorder, AnswerError, ControlActivity, DeliveryActivity, FindingActivity, JobActivity, RecordedActivity } from '../../engine/activity.js';
import type { HistoryBounds } from '../../engine/config.js';
import type { EngineChange } from '../../engine/engine.js';
import type { JournalRecord } from '../../engine/journal.js';
import { TextArena, type TextHandle } from '../../core/text-arena.js';

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
  /** Where the requests' headers and bodies are kept (made with the first). */
  #arena: TextArena | undefined;
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

  exchange(record: JournalRecord, requestHeaders: Headers | readonly string[], requestBody: Uint8Array | undefined, response: Response, responseHeaders: Headers | Readonly<Record<string, string>>, responseBody: string | undefined, error: AnswerError | undefined): void {
    const entry = new ArenaRequest(this.#arena ??= new TextArena(), ++this.#seq, record, error, requestHeaders, requestBody, response.status, responseHeaders, responseBody);
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
    if (gone instanceof ArenaRequest) gone.drop();
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
      for (const entry of this.entries()) if (entry instanceof ArenaRequest) entry.drop();
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
      if (entry.companyId === companyId) {
        if (entry instanceof ArenaRequest) entry.drop();
        continue;
      }
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

/**
 * A request as the history keeps it: the journal's record, the error, the status and a few numbers in the object,
 * and its headers and bodies as one text in the history's TextArena (outside the collected heap), read back when
 * the inspector shows it. Kept as objects (the header lists, the body bytes and the answer's text), they were
 * most of what each request over HTTP left V8's young-generation collections to copy, which is what makes the
 * tail of a PATCH; bare hono keeps nothing.
 *
 * The text: the request's headers, NUL, the answer's headers (each list `name\nvalue\n…`: no header holds a
 * line break or a NUL), NUL, the request's body (its bytes as Latin-1, one character a byte), then the answer's.
 */
class ArenaRequest implements KeptRequest {
  readonly kind = 'request';
  readonly companyId: string | null;
  readonly atMs: number;
  readonly bytes: number;
  readonly status: number;
  reading: Promise<void> | undefined = undefined;
  readonly #arena: TextArena;
  #handle: TextHandle | undefined;
  /** Where the answer's headers, the request's body and the answer's body begin in the text. */
  readonly #answerHeaders: number;
  readonly #requestBody: number;
  readonly #answerBody: number;
  /** Each body's size in bytes before the cap (-1: none; for the answer, -2: a text under the cap, counted when read). */
  readonly #requestSize: number;
  readonly #answerSize: number;
  /** The answer's body read later from a copy of its stream (see History.exchange). */
  #answerRead: KeptBody | null = null;

  constructor(
    arena: TextArena,
    readonly seq: number,
    readonly record: JournalRecord,
    readonly error: AnswerError | undefined,
    requestHeaders: Headers | readonly string[],
    requestBody: Uint8Array | undefined,
    status: number,
    responseHeaders: Headers | Readonly<Record<string, string>>,
    responseBody: string | undefined,
  ) {
    this.#arena = arena;
    this.companyId = record.companyId;
    this.atMs = record.at;
    this.status = status;
    const sent = headerText(requestHeaders);
    const answered = headerText(responseHeaders);
    const body = requestBody === undefined ? '' : latin1(requestBody.length > BODY_CAP ? requestBody.subarray(0, BODY_CAP) : requestBody);
    const answer = responseBody === undefined ? undefined : keptText(responseBody);
    const answerText = answer === undefined ? '' : (answer.content as string);
    this.#answerHeaders = sent.length + 1;
    this.#requestBody = this.#answerHeaders + answered.length + 1;
    this.#answerBody = this.#requestBody + body.length;
    this.#requestSize = requestBody === undefined ? -1 : requestBody.length;
    this.#answerSize = answer === undefined ? -1 : (answer.size ?? -2);
    const text = `${sent}\0${answered}\0${body}${answerText}`;
    this.bytes = ENTRY_BYTES + text.length;
    this.#handle = arena.add(text);
  }

  /** Frees its text: the entry left the history (read after, it has no headers and no bodies). */
  drop(): void {
    if (this.#handle !== undefined) this.#arena.remove(this.#handle);
    this.#handle = undefined;
  }

  get requestHeaders(): readonly string[] {
    const text = this.#text();
    return text === undefined ? [] : headerList(text.slice(0, this.#answerHeaders - 1));
  }

  get responseHeaders(): readonly string[] {
    const text = this.#text();
    return text === undefined ? [] : headerList(text.slice(this.#answerHeaders, this.#requestBody - 1));
  }

  get requestBody(): KeptBody | null {
    const text = this.#text();
    if (text === undefined || this.#requestSize < 0) return null;
    return { content: Buffer.from(text.slice(this.#requestBody, this.#answerBody), 'latin1'), size: this.#requestSize, truncated: this.#requestSize > BODY_CAP };
  }

  get responseBody(): KeptBody | null {
    if (this.#answerSize === -1) return this.#answerRead;
    const text = this.#text();
    if (text === undefined) return null;
    const size = this.#answerSize === -2 ? undefined : this.#answerSize;
    return { content: text.slice(this.#answerBody), size, truncated: size !== undefined && size > BODY_CAP };
  }

  set responseBody(body: KeptBody | null) {
    this.#answerRead = body;
  }

  /** Its text; undefined once dropped. */
  #text(): string | undefined {
    return this.#handle === undefined ? undefined : this.#arena.text(this.#handle);
  }
}

/**
 * Headers as `name\nvalue\n…`, names in lower case as a Headers object gives them: from a socket's raw list, a
 * plain object or a Headers (forEach with a `this`: no closure, no pair arrays made).
 */
function headerText(headers: Headers | readonly string[] | Readonly<Record<string, string>>): string {
  if (headers instanceof Headers) {
    const out = { text: '' };
    headers.forEach(appendPair, out);
    return out.text;
  }
  let text = '';
  if (Array.isArray(headers)) {
    const raw = headers as readonly string[];
    for (let i = 0; i + 1 < raw.length; i += 2) text += `${raw[i]!.toLowerCase()}\n${raw[i + 1]!}\n`;
    return text;
  }
  const plain = headers as Readonly<Record<string, string>>;
  for (const name in plain) text += `${name.toLowerCase()}\n${plain[name]!}\n`;
  return text;
}
function appendPair(this: { text: string }, value: string, name: string): void {
  this.text += `${name}\n${value}\n`;
}

/** The list `name, value, …` of a header text. */
function headerList(text: string): string[] {
  return text === '' ? [] : text.slice(0, -1).split('\n');
}

/** Bytes as a string of one character each. */
function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
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
