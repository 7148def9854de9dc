/**
 * The inspector's history: every company's activity from the emulator's making on, whether or not a page was ever
 * opened — each API request with its headers, bodies and error (as the API wrote them), each control call that
 * changed something, each delivery attempt, each job run on a record and each finding on the client — in one ring
 * for the whole emulator, bounded by a count of entries and by bytes (EmulatorOptions.inspector). Past either bound
 * the oldest entries are dropped, and counted, per company.
 *
 * It is the emulator's recorder (ActivityRecorder), set when the emulator is made: the request path hands it each
 * exchange, of which it keeps the journal's own record by reference, a few numbers in arrays beside the ring, and the
 * headers and bodies as one text in a TextArena, outside the collected heap (see Slot). Nothing is allocated before
 * its first entry, so createEmulator() stays a few small objects.
 *
 * A byte is counted for each byte of a body as kept (a text by its length) and of each header's name and value,
 * plus ENTRY_BYTES for each entry: its objects and the journal record (history.test.ts holds the retained heap of a
 * long run within the bound).
 */
import type { ActivityFeed, ActivityRecorder, AnswerError, ControlActivity, DeliveryActivity, FindingActivity, JobActivity, RecordedActivity } from '../../engine/activity.js';
import type { HistoryBounds } from '../../engine/config.js';
import type { EngineChange } from '../../engine/engine.js';
import type { JournalRecord } from '../../engine/journal.js';
import { TextArena } from '../../core/text-arena.js';

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

/** Leaves the ring's arrays unshifted until this many dropped slots are at their front (then shifts them at once). */
const COMPACT_AFTER = 1024;

/**
 * A slot of the ring: an entry, or for a request the journal's own record of it (which the journal keeps anyway),
 * its numbers in the parallel arrays and its headers and bodies in the arena. A request kept as objects of its own
 * was promoted to the old generation by every young-generation collection it outlived, then collected there: a
 * full collection every few thousand requests, and pauses of tens of milliseconds at the PATCH tail. A request's
 * KeptRequest is made when the inspector reads it.
 */
type Slot = RecordedActivity | JournalRecord;
const isRecord = (slot: Slot): slot is JournalRecord => !('kind' in slot);

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
  /** Oldest first, from #head on; made on the first entry, as are the arrays beside it (same index). */
  #ring: (Slot | undefined)[] | undefined;
  #seqs: number[] = [];
  #sizes: number[] = [];
  /** A request's text in the arena (-1 for other entries). */
  #texts: number[] = [];
  /** Each entry's instant as a number where the history has one (a request's, a control call's); NaN: its `at`. */
  #ats: number[] = [];
  #head = 0;
  #bytes = 0;
  #seq = 0;
  #dropped = 0;
  /** Entries dropped at the bounds, by company (null: those about every company). */
  #droppedOf: Map<string | null, number> | undefined;
  /** Where the requests' headers and bodies are kept (made with the first). */
  #arena: TextArena | undefined;
  #late: Map<JournalRecord, LateAnswer> | undefined;
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
    if (!this.keeps && this.tap === undefined) return;
    const seq = ++this.#seq;
    const text = requestText(requestHeaders, requestBody, responseHeaders, responseBody, error);
    const size = ENTRY_BYTES + text.length;
    const handle = this.keeps ? (this.#arena ??= new TextArena()).add(text) : -1;
    // An answer the API did not write from text (a malformedJson fault's): its body read from a copy of its stream.
    if (responseBody === undefined && error === undefined && response.body !== null) {
      const late: LateAnswer = { reading: undefined, body: null };
      late.reading = response
        .clone()
        .arrayBuffer()
        .then((buffer) => void (late.body = keptBytes(new Uint8Array(buffer))))
        .catch(() => undefined)
        .finally(() => (late.reading = undefined));
      (this.#late ??= new Map()).set(record, late);
    }
    this.#keep(record, seq, size, handle, record.at);
    if (this.tap !== undefined) this.tap.taken(this.#requestView(record, seq, size, handle < 0 ? text : undefined));
  }

  entry(activity: RecordedActivity): void {
    // Only what changed something, and not the inspector's own calls: its page reads, and paces a demo.
    if (activity.kind === 'control' && (activity.method === 'GET' || activity.scope === 'inspector')) return;
    const seq = ++this.#seq;
    // The other entries' instant is their `at`, read when the entry is (a 30-day advance makes tens of thousands).
    const atMs = activity.kind === 'control' ? this.#controlInstant(activity) : NaN;
    this.#keep(activity, seq, ENTRY_BYTES, -1, atMs);
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

  /** Every entry kept, oldest first (a request's made as it is reached). */
  *entries(): IterableIterator<HistoryEntry> {
    const ring = this.#ring;
    if (ring === undefined) return;
    for (let i = this.#head; i < ring.length; i++) yield this.#entryAt(i);
  }

  /** The entry numbered `seq`, if it is still kept. */
  bySeq(seq: number): HistoryEntry | undefined {
    const index = this.#indexOf(seq);
    return index < 0 ? undefined : this.#entryAt(index);
  }

  /** Where the entry numbered `seq` is in the ring; -1 once dropped. */
  #indexOf(seq: number): number {
    const ring = this.#ring;
    if (ring === undefined) return -1;
    const seqs = this.#seqs;
    let low = this.#head;
    let high = ring.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const at = seqs[middle]!;
      if (at === seq) return middle;
      if (at < seq) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  /** The request `requestId` of `companyId`, if it is still kept (the newest are looked at first). */
  request(companyId: string, requestId: string): KeptRequest | undefined {
    const ring = this.#ring;
    if (ring === undefined) return undefined;
    for (let i = ring.length - 1; i >= this.#head; i--) {
      const slot = ring[i]!;
      if (isRecord(slot) && slot.requestId === requestId && slot.companyId === companyId) return this.#entryAt(i) as KeptRequest;
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

  #entryAt(index: number): HistoryEntry {
    const slot = this.#ring![index]!;
    if (!isRecord(slot)) return entryOf(slot, this.#seqs[index]!, this.#ats[index]!);
    return this.#requestView(slot, this.#seqs[index]!, this.#sizes[index]!, undefined);
  }

  /** A request as the inspector reads it: its text, when not given, read from the arena while the ring keeps it. */
  #requestView(record: JournalRecord, seq: number, size: number, text: string | undefined): KeptRequest {
    return new RequestView(record, seq, size, () => text ?? this.#textOf(seq), this.#late?.get(record));
  }

  /** The text of the request numbered `seq`, while the ring keeps it (an arena's place is reused once freed). */
  #textOf(seq: number): string | undefined {
    const index = this.#indexOf(seq);
    const handle = index < 0 ? -1 : this.#texts[index]!;
    return handle < 0 ? undefined : this.#arena!.text(handle);
  }

  #keep(slot: Slot, seq: number, size: number, text: number, atMs: number): void {
    if (!this.keeps) return;
    if (this.#ring === undefined) {
      this.#ring = [];
      // What a reset replaced goes with it: made with the first entry, as the ring is.
      this.#feed.emulator.watch((change) => this.#changed(change));
    }
    this.#ring.push(slot);
    this.#seqs.push(seq);
    this.#sizes.push(size);
    this.#texts.push(text);
    this.#ats.push(atMs);
    this.#bytes += size;
    while (this.#size > this.bounds.entries || this.#bytes > this.bounds.bytes) this.#dropOldest();
  }

  /** Frees what the slot at `index` keeps outside the ring: its text, its late answer. */
  #free(index: number): void {
    const text = this.#texts[index]!;
    if (text >= 0) this.#arena!.remove(text);
    const slot = this.#ring![index]!;
    if (this.#late !== undefined && isRecord(slot)) this.#late.delete(slot);
  }

  #dropOldest(): void {
    const ring = this.#ring!;
    const index = this.#head++;
    const gone = ring[index]!;
    this.#free(index);
    ring[index] = undefined;
    this.#bytes -= this.#sizes[index]!;
    this.#dropped++;
    const of = (this.#droppedOf ??= new Map());
    of.set(gone.companyId, (of.get(gone.companyId) ?? 0) + 1);
    // The dropped slots at the front go all at once.
    if (this.#head >= COMPACT_AFTER && this.#head * 2 >= ring.length) this.#keepOnly(() => true);
  }

  /**
   * Keeps the slots from #head on that `keep` picks (by index), and the numbers beside them, at the front of new
   * arrays; recounts the bytes.
   */
  #keepOnly(keep: (index: number) => boolean): void {
    const ring = this.#ring!;
    const kept: number[] = [];
    for (let i = this.#head; i < ring.length; i++) if (keep(i)) kept.push(i);
    const pick = <T>(column: readonly T[]): T[] => kept.map((i) => column[i]!);
    this.#ring = pick(ring);
    this.#seqs = pick(this.#seqs);
    this.#sizes = pick(this.#sizes);
    this.#texts = pick(this.#texts);
    this.#ats = pick(this.#ats);
    this.#head = 0;
    this.#bytes = this.#sizes.reduce((sum, size) => sum + size, 0);
  }

  /** A reset of the emulator empties the history; a company's reset or removal drops its entries. A restore keeps them. */
  #changed(change: EngineChange): void {
    const ring = this.#ring;
    if (change.kind !== 'reset' || ring === undefined) return;
    const { companyId } = change;
    this.#keepOnly((i) => {
      const gone = companyId === null || ring[i]!.companyId === companyId;
      if (gone) this.#free(i);
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
function requestText(requestHeaders: Headers | readonly string[], requestBody: Uint8Array | undefined, responseHeaders: Headers | Readonly<Record<string, string>>, responseBody: string | undefined, error: AnswerError | undefined): string {
  const sent = headerText(requestHeaders);
  const answered = headerText(responseHeaders);
  const body = requestBody === undefined ? '' : latin1(requestBody.length > BODY_CAP ? requestBody.subarray(0, BODY_CAP) : requestBody);
  const answer = responseBody === undefined ? undefined : keptText(responseBody);
  const answerText = error !== undefined ? JSON.stringify(error.caminho === undefined ? { codigo: error.codigo, mensagem: error.mensagem } : { codigo: error.codigo, mensagem: error.mensagem, caminho: error.caminho }) : answer === undefined ? '' : (answer.content as string);
  const answerSize = error !== undefined ? -3 : answer === undefined ? -1 : (answer.size ?? -2);
  const answerHeadersAt = sent.length;
  const bodyAt = answerHeadersAt + answered.length;
  const answerAt = bodyAt + body.length;
  return `${answerHeadersAt},${bodyAt},${answerAt},${requestBody === undefined ? -1 : requestBody.length},${answerSize}\n${sent}${answered}${body}${answerText}`;
}

/** A request the history keeps, as the inspector reads it: its text read back and cut when first asked for. */
class RequestView implements KeptRequest {
  readonly kind = 'request';
  readonly companyId: string | null;
  readonly atMs: number;
  readonly status: number;
  #parts: { sent: string; answered: string; body: string; answer: string; requestSize: number; answerSize: number } | null | undefined;

  constructor(
    readonly record: JournalRecord,
    readonly seq: number,
    readonly bytes: number,
    private readonly read: () => string | undefined,
    private readonly late: LateAnswer | undefined,
  ) {
    this.companyId = record.companyId;
    this.atMs = record.at;
    this.status = record.status;
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
    return { content: Buffer.from(parts.body, 'latin1'), size: parts.requestSize, truncated: parts.requestSize > BODY_CAP };
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
    const text = this.read();
    if (text === undefined) return (this.#parts = null);
    const line = text.indexOf('\n');
    const [answeredAt, bodyAt, answerAt, requestSize, answerSize] = text.slice(0, line).split(',').map(Number) as [number, number, number, number, number];
    const rest = text.slice(line + 1);
    return (this.#parts = { sent: rest.slice(0, answeredAt), answered: rest.slice(answeredAt, bodyAt), body: rest.slice(bodyAt, answerAt), answer: rest.slice(answerAt), requestSize, answerSize });
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

const UTF8 = new TextDecoder('utf-8');

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
