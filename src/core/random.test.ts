import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  base64url,
  createRandom,
  hashString,
  hex32,
  randomDigits,
  randomToken,
  seedRandom,
  uuidV4,
  uuidV7,
  type RandomSource,
} from './random.js';

const take = (random: RandomSource, count: number) => Array.from({ length: count }, () => random.next());

describe('seeded random source', () => {
  it('gives the same sequence for the same numeric seed', () => {
    expect(take(createRandom(seedRandom(42)), 100)).toEqual(take(createRandom(seedRandom(42)), 100));
  });

  it('gives the same sequence for the same string seed', () => {
    expect(take(createRandom(seedRandom('suite-a')), 100)).toEqual(take(createRandom(seedRandom('suite-a')), 100));
  });

  it('gives different sequences for different seeds', () => {
    const sequences = [seedRandom(1), seedRandom(2), seedRandom(0), seedRandom('a'), seedRandom('b')].map((s) =>
      take(createRandom(s), 8).join(','),
    );
    expect(new Set(sequences).size).toBe(sequences.length);
  });

  it('produces uint32 values that are not constant', () => {
    const values = take(createRandom(seedRandom(7)), 1000);
    for (const v of values) {
      expect(Number.isInteger(v)).toBe(true);
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(2 ** 32);
    }
    expect(new Set(values).size).toBeGreaterThan(990);
  });

  it('state() is four uint32s, and createRandom(state) continues the exact same sequence', () => {
    const original = createRandom(seedRandom(99));
    take(original, 37);
    original.bytes(5);
    const state = original.state();
    expect(state).toHaveLength(4);
    for (const word of state) expect(word >>> 0).toBe(word);
    const resumed = createRandom(state);
    expect(take(resumed, 200)).toEqual(take(original, 200));
    expect(uuidV4(resumed)).toBe(uuidV4(original));
  });

  it('state() is a copy: drawing more values does not change a state already taken', () => {
    const random = createRandom(seedRandom(5));
    const state = random.state();
    const copy = [...state];
    take(random, 10);
    expect([...state]).toEqual(copy);
  });

  it('bytes() gives the requested count of byte values, also for counts not a multiple of 4', () => {
    const random = createRandom(seedRandom(3));
    for (const count of [0, 1, 2, 3, 4, 5, 17]) {
      const bytes = random.bytes(count);
      expect(bytes).toBeInstanceOf(Uint8Array);
      expect(bytes.length).toBe(count);
    }
  });

  it('hashString is FNV-1a 32 bits', () => {
    expect(hashString('')).toBe(0x811c9dc5);
    expect(hashString('a')).toBe(0xe40c292c);
    expect(hashString('foobar')).toBe(0xbf9cf968);
  });

  it('hashString continues the hash of a prefix', () => {
    expect(hashString('bar', hashString('foo'))).toBe(hashString('foobar'));
    expect(hashString('', hashString('foo'))).toBe(hashString('foo'));
  });

  it('hex32 is 8 lowercase hex digits', () => {
    for (const n of [0, 1, 0xabc, 0x7fffffff, 0x80000000, 0xdeadbeef, 0xffffffff])
      expect(hex32(n)).toBe(n.toString(16).padStart(8, '0'));
  });
});

describe('uuids', () => {
  const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('uuidV4 is lowercase, version 4, variant 8-b', () => {
    const random = createRandom(seedRandom(1));
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const id = uuidV4(random);
      expect(id).toMatch(V4);
      seen.add(id);
    }
    expect(seen.size).toBe(500);
  });

  it('uuidV4 is the 16 bytes bytes(16) draws, version and variant bits set, written 8-4-4-4-12', () => {
    fc.assert(
      fc.property(fc.tuple(fc.nat(0xffffffff), fc.nat(0xffffffff), fc.nat(0xffffffff), fc.nat(0xffffffff)), (state) => {
        const random = createRandom(state);
        const reference = createRandom(state);
        const b = reference.bytes(16);
        b[6] = (b[6]! & 0x0f) | 0x40;
        b[8] = (b[8]! & 0x3f) | 0x80;
        const hex = [...b].map((byte) => byte.toString(16).padStart(2, '0')).join('');
        expect(uuidV4(random)).toBe(
          `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
        );
        expect(random.state()).toEqual(reference.state());
      }),
    );
  });

  it('uuidV7 is lowercase, version 7, variant 8-b', () => {
    const random = createRandom(seedRandom(1));
    for (let i = 0; i < 500; i++) expect(uuidV7(random, Date.UTC(2026, 0, 1) + i)).toMatch(V7);
  });

  it('uuidV7 starts with the 48-bit Unix milliseconds it was given', () => {
    const random = createRandom(seedRandom(1));
    for (const ms of [0, 1, Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1, 12, 34, 56, 789), 2 ** 48 - 1]) {
      const id = uuidV7(random, ms);
      const prefix = id.slice(0, 8) + id.slice(9, 13);
      expect(prefix).toBe(ms.toString(16).padStart(12, '0'));
      expect(parseInt(prefix, 16)).toBe(ms);
    }
  });

  it('uuidV7 of 2026-01-01T00:00:00Z begins 019b76da-a800', () => {
    expect(uuidV7(createRandom(seedRandom(1)), Date.UTC(2026, 0, 1)).slice(0, 13)).toBe('019b76da-a800');
  });

  it('uuidV7 ids of later instants sort after earlier ones', () => {
    const random = createRandom(seedRandom(1));
    const ids = Array.from({ length: 50 }, (_, i) => uuidV7(random, 1_700_000_000_000 + i * 1000));
    expect([...ids].sort()).toEqual(ids);
  });

  it('the same seed gives the same uuids', () => {
    const a = createRandom(seedRandom(11));
    const b = createRandom(seedRandom(11));
    expect([uuidV4(a), uuidV7(a, 5), uuidV4(a)]).toEqual([uuidV4(b), uuidV7(b, 5), uuidV4(b)]);
  });
});

describe('base64url and tokens', () => {
  it('base64url equals Buffer base64url for random byte arrays of every length 0-64', () => {
    const random = createRandom(seedRandom('b64'));
    for (let length = 0; length <= 64; length++) {
      for (let round = 0; round < 5; round++) {
        const bytes = random.bytes(length);
        expect(base64url(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
      }
    }
  });

  it('base64url handles all-zero and all-0xff bytes', () => {
    for (const fill of [0x00, 0xff, 0xfb, 0x3e]) {
      const bytes = new Uint8Array(10).fill(fill);
      expect(base64url(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
    }
  });

  it('randomToken is the prefix followed by base64url of 32 bytes (43 characters) by default', () => {
    const token = randomToken(createRandom(seedRandom(1)), 'svc_at_');
    expect(token).toMatch(/^svc_at_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token.slice('svc_at_'.length), 'base64url')).toHaveLength(32);
  });

  it('randomToken honours byteCount', () => {
    const random = createRandom(seedRandom(1));
    expect(randomToken(random, 'svc_whsec_', 16)).toMatch(/^svc_whsec_[A-Za-z0-9_-]{22}$/);
    expect(randomToken(random, 'x', 3)).toMatch(/^x[A-Za-z0-9_-]{4}$/);
  });

  it('randomToken is deterministic per seed and differs across seeds', () => {
    expect(randomToken(createRandom(seedRandom(1)), 'p_')).toBe(randomToken(createRandom(seedRandom(1)), 'p_'));
    expect(randomToken(createRandom(seedRandom(1)), 'p_')).not.toBe(randomToken(createRandom(seedRandom(2)), 'p_'));
  });

  it('randomDigits gives count decimal digits', () => {
    const random = createRandom(seedRandom(1));
    expect(randomDigits(random, 8)).toMatch(/^\d{8}$/);
    expect(randomDigits(random, 0)).toBe('');
  });
});
