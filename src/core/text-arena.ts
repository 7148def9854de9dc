/**
 * Long-lived texts kept as bytes in a few large typed arrays, each read back by a number: how the idempotency
 * store keeps every stored answer (idempotency.ts). A string kept for 60 days is copied twice by V8's
 * young-generation collections (into the survivor space, then into the old generation) while the requests
 * around it are answered, and those copies are what makes such a collection's pause long; the bytes of a typed
 * array are not in the collected heap, and a number held in a Map is no object at all. On a product PATCH over
 * HTTP the stored answer was half of what each request left for the young generation to copy.
 *
 * A text is kept as UTF-8, written and read by the platform's encoder and decoder; a text holding a lone surrogate
 * (which UTF-8 cannot carry; a pair, as an emoji is, it can) is kept as its UTF-16 code units instead, so every
 * string comes back exactly as it went in. Texts are written one after another into chunks, which double in size from
 * FIRST_CHUNK (a company in a test suite stores a few answers) to MAX_CHUNK; a larger text gets a chunk of its
 * own. A chunk is freed when its last text is removed; the store removes its oldest texts first, so chunks empty
 * in the order they filled.
 */
export type TextHandle = number;

/**
 * The WHATWG Encoding API, which every runtime the package supports provides (Node, browsers); the core's
 * ECMAScript library does not declare it. Pure functions of their input: no I/O, no clock.
 */
declare const TextEncoder: new () => {
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
};
declare const TextDecoder: new () => { decode(input: Uint8Array): string };
const UTF8 = new TextEncoder();
const FROM_UTF8 = new TextDecoder();

/** A handle is its chunk's index times SLOT plus the text's offset in it: a small integer (a V8 Smi) per text. */
const SLOT = 2 ** 16;
const FIRST_CHUNK = 1024;
const MAX_CHUNK = SLOT;
/** Emptied chunks of MAX_CHUNK bytes kept for reuse (256 KiB at most). */
const SPARE_CHUNKS = 4;
/**
 * Each text starts with its size (4 bytes, little-endian): its UTF-8 bytes, or, with the top bit set, its UTF-16
 * code units. Texts start at multiples of 4, so a text of code units is aligned for a Uint16Array.
 */
const HEADER = 4;
const UNITS = 2 ** 31;
/** Code units handed to one String.fromCharCode call when a text of code units is read back. */
const PIECE = 8192;
/**
 * ES2024's String.prototype.isWellFormed (Node 20 on, and every browser the inspector's page supports): no lone
 * surrogate. A text of one-byte characters, nearly every text kept, is answered without a scan of it.
 */
const wellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

export class TextArena {
  /** By index; undefined once freed (its index is then reused). */
  readonly #chunks: (Uint8Array | undefined)[] = [];
  /** How many texts of each chunk are still kept. */
  readonly #live: number[] = [];
  readonly #freed: number[] = [];
  /**
   * Emptied chunks of the largest size, kept for the next ones: a store that keeps its texts for a while (the
   * inspector's history, a bounded ring) empties a chunk for each it fills, and a typed array's bytes are memory V8
   * counts as external, whose growth alone starts full collections of the heap.
   */
  readonly #spare: Uint8Array[] = [];
  /** The chunk texts are written into (-1: none yet), and how far it is written. */
  #current = -1;
  #used = 0;

  /** Keeps `text`; its handle reads it back until it is removed. */
  add(text: string): TextHandle {
    const units = !wellFormed(text);
    // UTF-8 takes at most 3 bytes a code unit when no unit is a lone surrogate (a pair takes 4 for its 2).
    const most = HEADER + (units ? 2 : 3) * text.length;
    if (most > MAX_CHUNK) return this.#alone(text, units);
    if (this.#current < 0) this.#open(most);
    if (!units) {
      // Written where the last text ended when it fits there (an ASCII text takes HEADER and its length), else at
      // the start of a new chunk, where the most it can take fits.
      let chunk = this.#chunks[this.#current]!;
      if (this.#used + HEADER + text.length > chunk.length) chunk = this.#open(most);
      let { read, written } = UTF8.encodeInto(text, chunk.subarray(this.#used + HEADER));
      if (read < text.length) {
        chunk = this.#open(most);
        ({ written } = UTF8.encodeInto(text, chunk.subarray(HEADER)));
      }
      return this.#keep(this.#current, this.#used, written);
    }
    if (this.#used + most > this.#chunks[this.#current]!.length) this.#open(most);
    writeUnits(this.#chunks[this.#current]!, this.#used + HEADER, text);
    return this.#keep(this.#current, this.#used, UNITS + text.length);
  }

  /** The text of `handle` (a handle this arena gave, not yet removed). */
  text(handle: TextHandle): string {
    const [chunk, offset] = this.#find(handle);
    const size = readHeader(chunk, offset);
    const start = offset + HEADER;
    if (size < UNITS) return FROM_UTF8.decode(chunk.subarray(start, start + size));
    return fromUnits(new Uint16Array(chunk.buffer, chunk.byteOffset + start, size - UNITS));
  }

  /**
   * The first `bytes` bytes of the text of `handle`, as text: enough to read a field at the start of a text
   * whose start is ASCII, without reading the whole text.
   */
  head(handle: TextHandle, bytes: number): string {
    const [chunk, offset] = this.#find(handle);
    const size = readHeader(chunk, offset);
    const start = offset + HEADER;
    if (size < UNITS) return FROM_UTF8.decode(chunk.subarray(start, start + Math.min(size, bytes)));
    return fromUnits(new Uint16Array(chunk.buffer, chunk.byteOffset + start, Math.min(size - UNITS, bytes)));
  }

  /** Forgets the text of `handle`; its chunk is freed with its last text. */
  remove(handle: TextHandle): void {
    const index = this.#find(handle)[2];
    if (--this.#live[index]! > 0) return;
    if (index === this.#current) {
      this.#used = 0;
      return;
    }
    this.#release(index);
  }

  /** Frees chunk `index`, keeping it for reuse when it is of the largest size and few are kept. */
  #release(index: number): void {
    const chunk = this.#chunks[index]!;
    if (chunk.length === MAX_CHUNK && this.#spare.length < SPARE_CHUNKS) this.#spare.push(chunk);
    this.#chunks[index] = undefined;
    this.#freed.push(index);
  }

  #find(handle: TextHandle): [chunk: Uint8Array, offset: number, index: number] {
    const index = Math.floor(handle / SLOT);
    const chunk = this.#chunks[index];
    if (chunk === undefined || !(handle >= 0)) throw new RangeError(`no text at handle ${handle}`);
    return [chunk, handle - index * SLOT, index];
  }

  /** Counts the text just written at `offset` of chunk `index` (its bytes after the header) and moves past it. */
  #keep(index: number, offset: number, size: number): TextHandle {
    writeHeader(this.#chunks[index]!, offset, size);
    this.#live[index]!++;
    if (index === this.#current) this.#used = (offset + HEADER + (size < UNITS ? size : 2 * (size - UNITS)) + 3) & ~3;
    return index * SLOT + offset;
  }

  /** A text larger than any chunk, in a chunk of its own and of its size. */
  #alone(text: string, units: boolean): TextHandle {
    const size = units ? 2 * text.length : utf8Length(text);
    const index = this.#place(new Uint8Array(HEADER + size));
    const chunk = this.#chunks[index]!;
    if (units) {
      writeUnits(chunk, HEADER, text);
      return this.#keep(index, 0, UNITS + text.length);
    }
    return this.#keep(index, 0, UTF8.encodeInto(text, chunk.subarray(HEADER)).written);
  }

  /** A new current chunk with room for `size` bytes; the last one is freed if it holds no text. */
  #open(size: number): Uint8Array {
    const last = this.#current;
    const grown = last < 0 ? FIRST_CHUNK : Math.min(MAX_CHUNK, 2 * this.#chunks[last]!.length);
    const length = Math.max(grown, size);
    const chunk = (length === MAX_CHUNK ? this.#spare.pop() : undefined) ?? new Uint8Array(length);
    this.#current = this.#place(chunk);
    this.#used = 0;
    if (last >= 0 && this.#live[last] === 0) this.#release(last);
    return chunk;
  }

  #place(chunk: Uint8Array): number {
    const index = this.#freed.pop() ?? this.#chunks.length;
    this.#chunks[index] = chunk;
    this.#live[index] = 0;
    return index;
  }
}

/** The UTF-8 size of a text without lone surrogates: exact, or for each pair 2 bytes more than it takes. */
function utf8Length(text: string): number {
  let size = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0x80) size += unit >= 0x800 ? 2 : 1;
  }
  return size;
}

function writeUnits(chunk: Uint8Array, start: number, text: string): void {
  const units = new Uint16Array(chunk.buffer, chunk.byteOffset + start, text.length);
  for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
}

function fromUnits(units: Uint16Array): string {
  if (units.length <= PIECE) return String.fromCharCode.apply(null, units as unknown as number[]);
  const pieces: string[] = [];
  for (let at = 0; at < units.length; at += PIECE)
    pieces.push(String.fromCharCode.apply(null, units.subarray(at, at + PIECE) as unknown as number[]));
  return pieces.join('');
}

function writeHeader(chunk: Uint8Array, at: number, value: number): void {
  chunk[at] = value & 0xff;
  chunk[at + 1] = (value >>> 8) & 0xff;
  chunk[at + 2] = (value >>> 16) & 0xff;
  chunk[at + 3] = (value >>> 24) & 0xff;
}

function readHeader(chunk: Uint8Array, at: number): number {
  return (chunk[at]! | (chunk[at + 1]! << 8) | (chunk[at + 2]! << 16)) + chunk[at + 3]! * 2 ** 24;
}
