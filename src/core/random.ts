/**
 * The seeded source of every id, token and secret: one seed and one call sequence give
 * the same values. sfc32 seeded through splitmix32; its whole state is four uint32s, so a snapshot can carry
 * it and a restore continues the same sequence.
 */
export type RandomState = readonly [number, number, number, number];

export interface RandomSource {
  /** A uint32. */
  next(): number;
  bytes(count: number): Uint8Array;
  state(): RandomState;
}

export function seedRandom(seed: number | string): RandomState {
  // A uint32 seeds directly; any other number is hashed as text, so -1 and 2^32 − 1 stay distinct seeds.
  let h =
    typeof seed === 'number' && Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff
      ? seed
      : hashString(`${typeof seed}:${String(seed)}`);
  const splitmix = () => {
    h = (h + 0x9e3779b9) | 0;
    let z = h;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  // Discard the first outputs: sfc32 mixes poorly right after seeding.
  const warm = createRandom([splitmix(), splitmix(), splitmix(), splitmix()]);
  for (let i = 0; i < 12; i++) warm.next();
  return warm.state();
}

export function createRandom(initial: RandomState): RandomSource {
  return new Sfc32(initial);
}

/**
 * sfc32 as a class: its four words are fields and its methods are shared, where a closure per method cost every
 * world two objects, six functions and their contexts.
 */
class Sfc32 implements RandomSource {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor([a, b, c, d]: RandomState) {
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
  }

  next(): number {
    const { a, b, c, d } = this;
    const t = (((a + b) | 0) + d) | 0;
    this.d = (d + 1) | 0;
    this.a = b ^ (b >>> 9);
    this.b = (c + (c << 3)) | 0;
    const rotated = (c << 21) | (c >>> 11);
    this.c = (rotated + t) | 0;
    return t >>> 0;
  }

  bytes(count: number): Uint8Array {
    const out = new Uint8Array(count);
    for (let i = 0; i < count; i += 4) {
      const word = this.next();
      for (let j = 0; j < 4 && i + j < count; j++) out[i + j] = (word >>> (j * 8)) & 0xff;
    }
    return out;
  }

  state(): RandomState {
    return [this.a >>> 0, this.b >>> 0, this.c >>> 0, this.d >>> 0];
  }
}

/**
 * FNV-1a, 32 bits: turns a string seed into a number. Given the hash of a prefix as `h`, it continues it:
 * hashString(b, hashString(a)) === hashString(a + b).
 */
export function hashString(text: string, h = 0x811c9dc5): number {
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** A uint32 as 8 lowercase hex digits, by byte: n.toString(16).padStart(8, '0') is several times slower. */
export function hex32(n: number): string {
  return HEX[n >>> 24]! + HEX[(n >>> 16) & 0xff]! + HEX[(n >>> 8) & 0xff]! + HEX[n & 0xff]!;
}

function formatUuid(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) s += '-';
    s += HEX[b[i]!];
  }
  return s;
}

/** The char codes of the 16 lowercase hex digits. */
const DIGIT_CODES = Array.from({ length: 16 }, (_, i) => i.toString(16).charCodeAt(0));

/**
 * `count` hex digits of uint32 `n` (its `count` lowest nibbles, most significant first) into `codes` at `at`:
 * a short id or tag is then written by one String.fromCharCode, a flat string in one allocation. A template
 * literal or `+` of its pieces builds a tree of strings instead (one node per piece), which V8 copies into a flat
 * string again the first time the id is compared, hashed or written out: several times the time, and garbage for
 * every id, on every request.
 */
export function putHex(codes: number[], at: number, n: number, count: number): void {
  for (let i = count - 1; i >= 0; i--) {
    codes[at + i] = DIGIT_CODES[n & 15]!;
    n >>>= 4;
  }
}

/** A uuid's char codes, dashes in place: filled and read within one call (uuidV4), never across an await. */
const UUID_CODES: number[] = Array.from({ length: 36 }, () => 45);

/** A byte as two hex digits at `at` of UUID_CODES. */
const putByte = (at: number, byte: number): void => putHex(UUID_CODES, at, byte & 0xff, 2);

/** A lowercase RFC 9562 version-4 uuid (spec "Conventions": version 1–8, variant 8, 9, a or b). */
export function uuidV4(random: RandomSource): string {
  // bytes(16) and formatUuid, written out: one id per API request (its request id). The same four draws, each
  // word's bytes low first as bytes() lays them out, with the version and variant bits of bytes 6 and 8.
  const w0 = random.next();
  const w1 = random.next();
  const w2 = random.next();
  const w3 = random.next();
  putByte(0, w0);
  putByte(2, w0 >>> 8);
  putByte(4, w0 >>> 16);
  putByte(6, w0 >>> 24);
  putByte(9, w1);
  putByte(11, w1 >>> 8);
  putByte(14, ((w1 >>> 16) & 0x0f) | 0x40);
  putByte(16, w1 >>> 24);
  putByte(19, (w2 & 0x3f) | 0x80);
  putByte(21, w2 >>> 8);
  putByte(24, w2 >>> 16);
  putByte(26, w2 >>> 24);
  putByte(28, w3);
  putByte(30, w3 >>> 8);
  putByte(32, w3 >>> 16);
  putByte(34, w3 >>> 24);
  return String.fromCharCode.apply(null, UUID_CODES);
}

/**
 * A lowercase version-7 uuid: 48 bits of Unix milliseconds, then random bits. Resource ids use it so that
 * they read in creation order, as ids of a real service usually do; nothing relies on that order.
 */
export function uuidV7(random: RandomSource, unixMs: number): string {
  const b = random.bytes(16);
  let ms = Math.max(0, Math.floor(unixMs));
  for (let i = 5; i >= 0; i--) {
    b[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  return formatUuid(b);
}

/**
 * Every id the emulator hands out (uuidV4, uuidV7): a lowercase UUID; ids travel in paths, Location headers and
 * delivery headers.
 */
export const ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

export function base64url(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let j = 0; j < chars; j++) out += BASE64URL[(n >>> (18 - 6 * j)) & 63];
  }
  return out;
}

/** `prefix` + base64url of `byteCount` random bytes: API tokens (`svc_at_`), webhook secrets (`svc_whsec_`). */
export function randomToken(random: RandomSource, prefix: string, byteCount = 32): string {
  return prefix + base64url(random.bytes(byteCount));
}

/** 8 random decimal digits: the CNPJ root of a company created without one. */
export function randomDigits(random: RandomSource, count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += String(random.next() % 10);
  return out;
}
