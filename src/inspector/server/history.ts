/**
 * The inspector's history: every company's activity from the emulator's making on, whether or not a page was ever
 * opened — each API request with its headers, bodies and error (as the API wrote them), each control call that
 * changed something, each delivery attempt, each job run on a record and each finding on the client — in one ring
 * for the whole emulator, bounded by a count of entries and by bytes (EmulatorOptions.inspector). Past either bound
 * the oldest entries are dropped, and counted, per company.
 *
 * It is the emulator's recorder (ActivityRecorder), set when the emulator is made: the request path hands it each
 * exchange, of which it keeps the record, headers and bodies as one text in a TextArena, outside the collected heap,
 * and a few numbers in arrays beside the ring (see Slot). Nothing is allocated before its first entry, so
 * createEmulator() stays a few small objects.
 *
 * A byte is counted for each byte of a body as kept (a text by its length), of each header's name and value and of
 * a request's record as kept (its text), plus ENTRY_BYTES for each entry: its slot and objects (history.test.ts
 * holds the retained heap of a long run within the bound).
 */
import type {
  ActivityFeed,
  ActivityRecorder,
  AnswerError,
  ControlActivity,
  DeliveryActivity,
  FindingActivity,
  JobActivity,
  RecordedActivity,
} from '../../engine/activity.js';
import type { HistoryBounds } from '../../engine/config.js';
import type { EngineChange } from '../../engine/engine.js';
import { packRecord, readRecord, type JournalRecord } from '../../engine/journal.js';
import { TextArena } from '../../core/text-arena.js';
import { keptText, MAX_HEADER } from '../../core/kept-text.js';

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
  readonly responseBody: KeptBody | null;
  /** While the answer's body is being read from a copy of its stream. */
  readonly reading: Promise<void> | undefined;
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

/** The ring's first size; it doubles as entries need, up to the bound of entries. */
const FIRST_CAPACITY = 1024;

/**
 * A slot of the ring: an entry other than a request's, as the emulator made it, or null for a request, whose record,
 * headers and bodies are its text in the arena (packRecord, then requestText). A request kept as objects (the
 * journal's record and the strings it points to) was promoted to the old generation by every young-generation
 * collection it outlived, then collected there: a full collection every few seconds under load, and pauses of tens
 * of milliseconds at the PATCH tail. The ring's other columns are typed arrays of fixed size, so that keeping an
 * entry allocates nothing once the ring is full. A request's KeptRequest is made when the inspector reads it.
 */
type Slot = RecordedActivity | null;

/**
 * An entry other than a request's as the inspector reads it: the activity entry the slot keeps as the emulator made
 * it (its listeners get it frozen), with its place and instant (`atMs`; NaN: its `at`). Made when read, so that
 * keeping one costs no copy.
 */
function entryOf(activity: RecordedActivity, seq: number, atMs: number): Exclude<HistoryEntry, KeptRequest> {
  return { ...activity, seq, atMs: Number.isNaN(atMs) ? Date.parse(activity.at) : atMs, bytes: ENTRY_BYTES };
}

/** What a request's answer became when it was not made from text (a malformedJson fault's): read from a copy of its stream. */
interface LateAnswer {
  reading: Promise<void> | undefined;
  body: KeptBody | null;
}

export class History implements ActivityRecorder {
  readonly bounds: HistoryBounds;
  readonly #feed: ActivityFeed;
  /** The ring, oldest first from #start (made on the first entry), and the columns beside it (same slot). */
  #slots: Slot[] = [];
  #companies: (string | null)[] = [];
  #seqs = new Float64Array(0);
  #sizes = new Float64Array(0);
  /** A request's text in the arena (-1 for other entries). */
  #texts = new Int32Array(0);
  /** Each entry's instant as a number where the history has one (a request's, a control call's); NaN: its `at`. */
  #ats = new Float64Array(0);
  #start = 0;
  #size = 0;
  #bytes = 0;
  #seq = 0;
  #dropped = 0;
  /** Entries dropped at the bounds, by company (null: those about every company). */
  #droppedOf: Map<string | null, number> | undefined;
  /** Where the requests' records, headers and bodies are kept (made with the first). */
  #arena: TextArena | undefined;
  /** By the request's seq. */
  #late: Map<number, LateAnswer> | undefined;
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

  exchange(
    record: JournalRecord,
    line: string | undefined,
    requestHeaders: Headers | readonly string[],
    requestBody: Uint8Array | undefined,
    response: Response,
    responseHeaders: Headers | Readonly<Record<string, string>>,
    responseBody: string | undefined,
    error: AnswerError | undefined,
  ): void {
    if (!this.keeps && this.tap === undefined) return;
    const seq = ++this.#seq;
    const text = requestText(requestHeaders, requestBody, responseHeaders, responseBody, error);
    const kept = this.keeps ? (line ?? packRecord(record)) + text : undefined;
    const size = ENTRY_BYTES + (kept ?? text).length;
    const handle = kept === undefined ? -1 : (this.#arena ??= new TextArena()).add(kept);
    // An answer the API did not write from text (a malformedJson fault's): its body read from a copy of its stream.
    if (responseBody === undefined && error === undefined && response.body !== null) {
      const late: LateAnswer = { reading: undefined, body: null };
      late.reading = response
        .clone()
        .arrayBuffer()
        .then((buffer) => void (late.body = keptBytes(new Uint8Array(buffer))))
        .catch(() => undefined)
        .finally(() => (late.reading = undefined));
      (this.#late ??= new Map()).set(seq, late);
    }
    this.#keep(null, record.companyId, seq, size, handle, record.at);
    if (this.tap !== undefined)
      this.tap.taken(new RequestView(seq, size, record.companyId, record.at, () => text, this.#late?.get(seq), record));
  }

  entry(activity: RecordedActivity): void {
    // Only what changed something, and not the inspector's own calls: its page reads, and paces a demo.
    if (activity.kind === 'control' && (activity.method === 'GET' || activity.scope === 'inspector')) return;
    const seq = ++this.#seq;
    // The other entries' instant is their `at`, read when the entry is (a 30-day advance makes tens of thousands).
    const atMs = activity.kind === 'control' ? this.#controlInstant(activity) : NaN;
    this.#keep(activity, activity.companyId, seq, ENTRY_BYTES, -1, atMs);
    this.tap?.taken(entryOf(activity, seq, atMs));
  }

  /** A call about a company on a clock of its own happened at that clock's now; any other at the shared clock's. */
  #controlInstant(call: ControlActivity): number {
    const world = call.companyId === null ? undefined : this.#feed.emulator.worldOf(call.companyId);
    return world !== undefined && world.owner === call.companyId ? world.clock.now() : Date.parse(call.at);
  }

  clockMoved(owner: string | null): void {
    this.tap?.clockMoved(owner);
  }

  /** Every entry kept, oldest first (a request's read as it is reached). */
  *entries(): IterableIterator<HistoryEntry> {
    for (let i = 0; i < this.#size; i++) yield this.#entryAt(this.#slot(i));
  }

  /** The entry numbered `seq`, if it is still kept. */
  bySeq(seq: number): HistoryEntry | undefined {
    const slot = this.#slotOf(seq);
    return slot < 0 ? undefined : this.#entryAt(slot);
  }

  /** Where the entry numbered `seq` is in the ring; -1 once dropped. */
  #slotOf(seq: number): number {
    let low = 0;
    let high = this.#size - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const at = this.#seqs[this.#slot(middle)]!;
      if (at === seq) return this.#slot(middle);
      if (at < seq) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  /** The request `requestId` of `companyId`, if it is still kept (the newest are looked at first). */
  request(companyId: string, requestId: string): KeptRequest | undefined {
    for (let i = this.#size - 1; i >= 0; i--) {
      const slot = this.#slot(i);
      if (this.#slots[slot] !== null || this.#companies[slot] !== companyId) continue;
      const view = this.#entryAt(slot) as RequestView;
      if (view.record.requestId === requestId) return view;
    }
    return undefined;
  }

  /** What the history holds, and what it dropped of `companyId`'s entries (those about every company included). */
  counts(companyId?: string): HistoryCounts {
    const dropped =
      companyId === undefined
        ? this.#dropped
        : (this.#droppedOf?.get(companyId) ?? 0) + (this.#droppedOf?.get(null) ?? 0);
    return {
      entries: this.#size,
      bytes: this.#bytes,
      maxEntries: this.bounds.entries,
      maxBytes: this.bounds.bytes,
      dropped,
    };
  }

  /** The ring's slot of the `i`th oldest entry. */
  #slot(i: number): number {
    return (this.#start + i) % this.#slots.length;
  }

  #entryAt(slot: number): HistoryEntry {
    const activity = this.#slots[slot]!;
    const seq = this.#seqs[slot]!;
    if (activity !== null) return entryOf(activity, seq, this.#ats[slot]!);
    return new RequestView(
      seq,
      this.#sizes[slot]!,
      this.#companies[slot]!,
      this.#ats[slot]!,
      () => this.#textOf(seq),
      this.#late?.get(seq),
    );
  }

  /** The text of the request numbered `seq`, while the ring keeps it (an arena's place is reused once freed). */
  #textOf(seq: number): string | undefined {
    const slot = this.#slotOf(seq);
    const handle = slot < 0 ? -1 : this.#texts[slot]!;
    return handle < 0 ? undefined : this.#arena!.text(handle);
  }

  #keep(activity: Slot, companyId: string | null, seq: number, size: number, text: number, atMs: number): void {
    if (!this.keeps) return;
    if (this.#slots.length === 0) {
      // What a reset replaced goes with it: watched from the first entry, when the ring is made.
      this.#feed.emulator.watch((change) => this.#changed(change));
    }
    if (this.#size === this.#slots.length) this.#grow();
    const slot = this.#slot(this.#size++);
    this.#slots[slot] = activity;
    this.#companies[slot] = companyId;
    this.#seqs[slot] = seq;
    this.#sizes[slot] = size;
    this.#texts[slot] = text;
    this.#ats[slot] = atMs;
    this.#bytes += size;
    while (this.#size > this.bounds.entries || this.#bytes > this.bounds.bytes) this.#dropOldest();
  }

  /** A ring of twice the size (up to one more than the bound of entries), the entries at its front. */
  #grow(): void {
    const capacity = Math.min(Math.max(FIRST_CAPACITY, 2 * this.#slots.length), this.bounds.entries + 1);
    this.#keepOnly(() => true, capacity);
  }

  /** Frees what the entry in `slot` keeps outside the ring: its text, its late answer. */
  #free(slot: number): void {
    const text = this.#texts[slot]!;
    if (text >= 0) this.#arena!.remove(text);
    if (this.#late !== undefined && this.#slots[slot] === null) this.#late.delete(this.#seqs[slot]!);
  }

  #dropOldest(): void {
    const slot = this.#start;
    const companyId = this.#companies[slot]!;
    this.#free(slot);
    this.#slots[slot] = null;
    this.#companies[slot] = null;
    this.#bytes -= this.#sizes[slot]!;
    this.#start = this.#slot(1);
    this.#size--;
    this.#dropped++;
    const of = (this.#droppedOf ??= new Map());
    of.set(companyId, (of.get(companyId) ?? 0) + 1);
  }

  /**
   * Keeps the entries `keep` picks (by slot), in their order, at the front of the ring; with a `capacity`, of new
   * columns of that many slots (the ring grows), else of the same ones (a reset: nothing the size of the ring is made).
   */
  #keepOnly(keep: (slot: number) => boolean, capacity?: number): void {
    const kept: number[] = [];
    for (let i = 0; i < this.#size; i++) if (keep(this.#slot(i))) kept.push(this.#slot(i));
    // Every kept value is read before any is written: the ring may have wrapped around its end.
    const pick = <T>(column: ArrayLike<T>): T[] => kept.map((slot) => column[slot]!);
    const [slots, companies, seqs, sizes, texts, ats] = [
      pick(this.#slots),
      pick(this.#companies),
      pick(this.#seqs),
      pick(this.#sizes),
      pick(this.#texts),
      pick(this.#ats),
    ];
    if (capacity === undefined) {
      this.#slots.fill(null);
      this.#companies.fill(null);
    } else {
      this.#slots = new Array<Slot>(capacity).fill(null);
      this.#companies = new Array<string | null>(capacity).fill(null);
      [this.#seqs, this.#sizes, this.#texts, this.#ats] = [
        new Float64Array(capacity),
        new Float64Array(capacity),
        new Int32Array(capacity),
        new Float64Array(capacity),
      ];
    }
    slots.forEach((slot, i) => (this.#slots[i] = slot));
    companies.forEach((companyId, i) => (this.#companies[i] = companyId));
    this.#seqs.set(seqs);
    this.#sizes.set(sizes);
    this.#texts.set(texts);
    this.#ats.set(ats);
    this.#start = 0;
    this.#size = kept.length;
    this.#bytes = sizes.reduce((sum, size) => sum + size, 0);
  }

  /** A reset of the emulator empties the history; a company's reset or removal drops its entries. A restore keeps them. */
  #changed(change: EngineChange): void {
    if (change.kind !== 'reset' || this.#size === 0) return;
    const { companyId } = change;
    this.#keepOnly((slot) => {
      const gone = companyId === null || this.#companies[slot] === companyId;
      if (gone) this.#free(slot);
      return !gone;
    });
    if (companyId === null) {
      this.#dropped = 0;
      this.#droppedOf = undefined;
    } else {
      this.#droppedOf?.delete(companyId);
    }
  }
}

/**
 * A request's headers and bodies as one text: a line of the numbers that cut it (where the answer's headers, the
 * request's body and the answer's body begin, and the two bodies' sizes in bytes before the cap: -1 none, -2 an
 * answer under the cap, counted when read, -3 the answer is its error's JSON), then the request's headers, the
 * answer's (each list `name\nvalue\n…`: no header holds a line break), the request's body (its bytes as Latin-1,
 * one character a byte) and the answer's body, or the error it was built from.
 */
function requestText(
  requestHeaders: Headers | readonly string[],
  requestBody: Uint8Array | undefined,
  responseHeaders: Headers | Readonly<Record<string, string>>,
  responseBody: string | undefined,
  error: AnswerError | undefined,
): string {
  const sent = headerText(requestHeaders);
  const answered = headerText(responseHeaders);
  const body =
    requestBody === undefined
      ? ''
      : latin1(requestBody.length > BODY_CAP ? requestBody.subarray(0, BODY_CAP) : requestBody);
  const answer = responseBody === undefined ? undefined : keptAnswer(responseBody);
  const answerText =
    error !== undefined
      ? JSON.stringify(
          error.caminho === undefined
            ? { codigo: error.codigo, mensagem: error.mensagem }
            : { codigo: error.codigo, mensagem: error.mensagem, caminho: error.caminho },
        )
      : answer === undefined
        ? ''
        : (answer.content as string);
  const answerSize = error !== undefined ? -3 : answer === undefined ? -1 : (answer.size ?? -2);
  const answerHeadersAt = sent.length;
  const bodyAt = answerHeadersAt + answered.length;
  const answerAt = bodyAt + body.length;
  return `${answerHeadersAt},${bodyAt},${answerAt},${requestBody === undefined ? -1 : requestBody.length},${answerSize}\n${sent}${answered}${body}${answerText}`;
}

/**
 * A request the history keeps, as the inspector reads it: its text read back and cut when first asked for (its record
 * included, unless the exchange just handed it over).
 */
class RequestView implements KeptRequest {
  readonly kind = 'request';
  #record: JournalRecord | undefined;
  #parts:
    | { sent: string; answered: string; body: string; answer: string; requestSize: number; answerSize: number }
    | null
    | undefined;

  constructor(
    readonly seq: number,
    readonly bytes: number,
    readonly companyId: string | null,
    readonly atMs: number,
    private readonly read: () => string | undefined,
    private readonly late: LateAnswer | undefined,
    record?: JournalRecord,
  ) {
    this.#record = record;
  }

  /**
   * Read with the text. The inspector reads a view in the turn it listed it, while the ring still keeps its entry;
   * one read after its entry was dropped has no record to give.
   */
  get record(): JournalRecord {
    if (this.#record === undefined) this.#cut();
    if (this.#record === undefined)
      throw new Error(`request ${this.seq} of the history was dropped before its record was read`);
    return this.#record;
  }

  get status(): number {
    return this.record.status;
  }

  get reading(): Promise<void> | undefined {
    return this.late?.reading;
  }

  get error(): AnswerError | undefined {
    const parts = this.#cut();
    return parts === null || parts.answerSize !== -3 ? undefined : (JSON.parse(parts.answer) as AnswerError);
  }

  get requestHeaders(): readonly string[] {
    const parts = this.#cut();
    return parts === null ? [] : headerList(parts.sent);
  }

  get responseHeaders(): readonly string[] {
    const parts = this.#cut();
    return parts === null ? [] : headerList(parts.answered);
  }

  get requestBody(): KeptBody | null {
    const parts = this.#cut();
    if (parts === null || parts.requestSize < 0) return null;
    return {
      content: Buffer.from(parts.body, 'latin1'),
      size: parts.requestSize,
      truncated: parts.requestSize > BODY_CAP,
    };
  }

  get responseBody(): KeptBody | null {
    const parts = this.#cut();
    if (parts === null || parts.answerSize === -3) return null;
    if (parts.answerSize === -1) return this.late?.body ?? null;
    const size = parts.answerSize === -2 ? undefined : parts.answerSize;
    return { content: parts.answer, size, truncated: size !== undefined && size > BODY_CAP };
  }

  /** The text's parts; null once the history dropped it. */
  #cut() {
    if (this.#parts !== undefined) return this.#parts;
    let text = this.read();
    if (text === undefined) return (this.#parts = null);
    // The ring's text starts with the record; the one an exchange hands the tap does not.
    if (this.#record === undefined) {
      const [record, end] = readRecord(text);
      this.#record = record;
      text = text.slice(end);
    }
    const line = text.indexOf('\n');
    const [answeredAt, bodyAt, answerAt, requestSize, answerSize] = text.slice(0, line).split(',').map(Number) as [
      number,
      number,
      number,
      number,
      number,
    ];
    const rest = text.slice(line + 1);
    return (this.#parts = {
      sent: rest.slice(0, answeredAt),
      answered: rest.slice(answeredAt, bodyAt),
      body: rest.slice(bodyAt, answerAt),
      answer: rest.slice(answerAt),
      requestSize,
      answerSize,
    });
  }
}

/**
 * Headers as `name\nvalue\n…`, names in lower case as a Headers object gives them: from a socket's raw list, a
 * plain object or a Headers (forEach with a `this`: no closure, no pair arrays made). Each name and value is kept to
 * MAX_HEADER characters (keptText: a longer one is cut and ends in "…"), whoever sent it.
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
    for (let i = 0; i + 1 < raw.length; i += 2) text += headerLine(raw[i]!.toLowerCase(), raw[i + 1]!);
    return text;
  }
  const plain = headers as Readonly<Record<string, string>>;
  for (const name in plain) text += headerLine(name.toLowerCase(), plain[name]!);
  return text;
}
function appendPair(this: { text: string }, value: string, name: string): void {
  this.text += headerLine(name, value);
}
const headerLine = (name: string, value: string): string =>
  `${keptText(name, MAX_HEADER)}\n${keptText(value, MAX_HEADER)}\n`;

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

const UTF8 = new TextDecoder('utf-8');

/** A request body as kept: its bytes up to BODY_CAP, copied when they are a view of a larger buffer (a pool's). */
function keptBytes(bytes: Uint8Array): KeptBody {
  const truncated = bytes.length > BODY_CAP;
  const shown = truncated ? bytes.subarray(0, BODY_CAP) : bytes;
  const own = shown.byteOffset === 0 && shown.buffer.byteLength === shown.byteLength ? shown : new Uint8Array(shown);
  return { content: own, size: bytes.length, truncated };
}

/** An answer the API wrote as text: the text itself under the cap (no copy), else its first BODY_CAP bytes. */
function keptAnswer(text: string): KeptBody {
  // At most 3 bytes of UTF-8 for each UTF-16 unit: a short text is under the cap without counting its bytes.
  if (text.length <= BODY_CAP / 3) return { content: text, size: undefined, truncated: false };
  const size = Buffer.byteLength(text);
  if (size <= BODY_CAP) return { content: text, size, truncated: false };
  return { content: UTF8.decode(Buffer.from(text).subarray(0, BODY_CAP)), size, truncated: true };
}

/** A kept body's text (a request's bytes decoded as UTF-8) and its size in bytes. */
export function bodyText(body: KeptBody): {
  readonly text: string;
  readonly size: number;
  readonly truncated: boolean;
} {
  const text = typeof body.content === 'string' ? body.content : UTF8.decode(body.content);
  return { text, size: body.size ?? Buffer.byteLength(text), truncated: body.truncated };
}
