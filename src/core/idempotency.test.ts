import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  IDEMPOTENCY_RETENTION_MS,
  canonicalJson,
  idempotencyScope,
  lookupIdempotency,
  purgeExpiredIdempotency,
  storeIdempotency,
  type StoredResponse,
} from './idempotency.js';
import { createState } from './state.js';
import { DAY } from './time.js';

/** A copy of `value` whose object keys are inserted in sorted order at every depth. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

// Integer-like keys are listed first by every JS object whatever the insertion order, so a "key-sorted"
// object literal cannot hold them in sorted order; __proto__ cannot be set as a plain key.
const plainKey = fc.string({ maxLength: 6, unit: 'grapheme' }).filter((k) => !/^(0|[1-9]\d*)$/.test(k) && k !== '__proto__');
const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.string({ unit: 'grapheme' }),
    fc.array(tie('json'), { maxLength: 4 }),
    fc.dictionary(plainKey, tie('json'), { maxKeys: 4 }),
  ),
}));

describe('canonicalJson', () => {
  it('sorts object keys, so key order does not matter', () => {
    expect(canonicalJson({ b: 1, a: 2, c: { z: 1, y: [3, { k: 1, j: 2 }] } })).toBe('{"a":2,"b":1,"c":{"y":[3,{"j":2,"k":1}],"z":1}}');
    expect(canonicalJson({ nome: 'x', id_externo: 'y' })).toBe(canonicalJson({ id_externo: 'y', nome: 'x' }));
  });

  it('keeps array order: different orders are different requests', () => {
    expect(canonicalJson([1, 2, 3])).toBe('[1,2,3]');
    expect(canonicalJson([1, 2, 3])).not.toBe(canonicalJson([3, 2, 1]));
  });

  it('writes scalars and empty containers as JSON does', () => {
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson(true)).toBe('true');
    expect(canonicalJson(false)).toBe('false');
    expect(canonicalJson(0)).toBe('0');
    expect(canonicalJson(-1.5e-7)).toBe(JSON.stringify(-1.5e-7));
    expect(canonicalJson('')).toBe('""');
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson([])).toBe('[]');
    expect(canonicalJson([[], {}, [{}]])).toBe('[[],{},[{}]]');
  });

  it('escapes strings and keys holding commas, brackets, braces, quotes, backslashes and colons', () => {
    const value = { 'a,b': 'x]}",{[', 'k"}': ['"', ',', ']', '}', '\\', ':'], 'c:d': 'e' };
    const text = canonicalJson(value);
    expect(JSON.parse(text)).toEqual(value);
    expect(text).toBe(JSON.stringify(sortKeys(value)));
  });

  it('tells apart values that a naive concatenation would confuse', () => {
    expect(canonicalJson(['a,b'])).not.toBe(canonicalJson(['a', 'b']));
    expect(canonicalJson({ a: 'b","c":"d' })).not.toBe(canonicalJson({ a: 'b', c: 'd' }));
    expect(canonicalJson('1')).not.toBe(canonicalJson(1));
  });

  it('keeps unicode as JSON.stringify does (accents, emoji, line separators, control characters)', () => {
    const value = { 'café': 'Café torrado 500 g', emoji: '☕🫘', sep: '\u2028\u2029', ctl: '\u0000\u001f\n\t', lone: '\ud800' };
    expect(canonicalJson(value)).toBe(JSON.stringify(sortKeys(value)));
  });

  it('handles 100000 levels of nested arrays without overflowing the stack', () => {
    const depth = 100_000;
    let value: unknown = 0;
    for (let i = 0; i < depth; i++) value = [value];
    expect(canonicalJson(value)).toBe('['.repeat(depth) + '0' + ']'.repeat(depth));
  });

  it('handles 100000 levels of nested objects without overflowing the stack', () => {
    const depth = 100_000;
    let value: unknown = 'leaf';
    for (let i = 0; i < depth; i++) value = { a: value, b: i };
    const text = canonicalJson(value);
    expect(text.startsWith('{"a":{"a":{"a":')).toBe(true);
    expect(text.endsWith(`},"b":${depth - 2}},"b":${depth - 1}}`)).toBe(true);
    expect(text.length).toBe('{"a":'.length * depth + '"leaf"'.length + [...Array(depth).keys()].reduce((n, i) => n + `,"b":${i}}`.length, 0));
  });

  it('equals JSON.stringify for key-sorted input (property)', () => {
    fc.assert(
      fc.property(json, (value) => {
        const sorted = sortKeys(value);
        expect(canonicalJson(sorted)).toBe(JSON.stringify(sorted));
      }),
      { numRuns: 500 },
    );
  });

  it('does not depend on key order and round-trips through JSON.parse (property)', () => {
    fc.assert(
      fc.property(json, (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        expect(canonicalJson(sortKeys(value))).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 500 },
    );
  });
});

describe('idempotency store', () => {
  const T0 = Date.UTC(2026, 0, 1);
  const ok: StoredResponse = { status: 200, headers: { etag: '"abc"' }, body: '{"versao":2}' };
  const fp = 'PATCH /v1/produtos/p1 {"descricao":"x"}';
  const other = 'PATCH /v1/produtos/p1 {"descricao":"y"}';

  it('keeps records 60 days', () => {
    expect(IDEMPOTENCY_RETENTION_MS).toBe(60 * DAY);
  });

  it('an unknown key is new', () => {
    expect(lookupIdempotency(createState(), 'c1', 'k1', fp, T0)).toEqual({ kind: 'new' });
  });

  it('a stored key replays the stored response for the same request and is other_request for another', () => {
    const state = createState();
    storeIdempotency(state, 'c1', 'k1', fp, ok, T0 + 5);
    expect(lookupIdempotency(state, 'c1', 'k1', fp, T0 + 10)).toEqual({ kind: 'replay', response: ok });
    expect(lookupIdempotency(state, 'c1', 'k1', other, T0 + 10)).toEqual({ kind: 'other_request' });
    expect(state.idempotency.get(idempotencyScope('c1', 'k1'))).toEqual({ companyId: 'c1', key: 'k1', fingerprint: fp, response: ok, storedAt: T0 + 5, expiresAt: T0 + 5 + 60 * DAY });
  });

  it('keys are scoped by company', () => {
    const state = createState();
    storeIdempotency(state, 'c1', 'k1', fp, ok, T0);
    expect(lookupIdempotency(state, 'c2', 'k1', fp, T0)).toEqual({ kind: 'new' });
    expect(lookupIdempotency(state, 'c1', 'k2', fp, T0)).toEqual({ kind: 'new' });
    expect(idempotencyScope('c1', 'k1')).not.toBe(idempotencyScope('c2', 'k1'));
  });

  it('looking up changes nothing, an expired record included', () => {
    const state = createState();
    storeIdempotency(state, 'c1', 'k1', fp, ok, T0);
    const before = [...state.idempotency.entries()];
    lookupIdempotency(state, 'c1', 'k1', other, T0 + 61 * DAY);
    lookupIdempotency(state, 'c1', 'k1', fp, T0 + 61 * DAY);
    expect([...state.idempotency.entries()]).toEqual(before);
  });

  it('a record counts its 60 days from when it was stored and expires exactly at expiresAt', () => {
    const state = createState();
    const done = T0 + 3_000;
    storeIdempotency(state, 'c1', 'k1', fp, ok, done);
    expect(lookupIdempotency(state, 'c1', 'k1', fp, done + 60 * DAY - 1)).toEqual({ kind: 'replay', response: ok });
    expect(lookupIdempotency(state, 'c1', 'k1', fp, done + 60 * DAY)).toEqual({ kind: 'new' });
    expect(lookupIdempotency(state, 'c1', 'k1', other, done + 60 * DAY)).toEqual({ kind: 'new' });
  });

  it('an expired key can be stored again for another request, replacing the old record', () => {
    const state = createState();
    storeIdempotency(state, 'c1', 'k1', fp, ok, T0);
    const later = T0 + 60 * DAY;
    storeIdempotency(state, 'c1', 'k1', other, ok, later);
    expect(lookupIdempotency(state, 'c1', 'k1', other, later)).toEqual({ kind: 'replay', response: ok });
    expect(lookupIdempotency(state, 'c1', 'k1', fp, later)).toEqual({ kind: 'other_request' });
    expect(state.idempotency.size).toBe(1);
  });

  it('purge drops the records expired at now (boundary included) and keeps the rest', () => {
    const state = createState();
    for (const [key, at] of [
      ['k1', T0],
      ['k2', T0 + 1],
      ['k3', T0 + 2],
    ] as const) {
      storeIdempotency(state, 'c1', key, fp, ok, at);
    }
    expect(purgeExpiredIdempotency(state, T0 + 60 * DAY - 1)).toBe(0);
    expect(purgeExpiredIdempotency(state, T0 + 60 * DAY + 1)).toBe(2);
    expect(state.idempotency.size).toBe(1);
    expect(lookupIdempotency(state, 'c1', 'k3', fp, T0 + 60 * DAY + 1)).toEqual({ kind: 'replay', response: ok });
    expect(purgeExpiredIdempotency(state, T0 + 60 * DAY + 2)).toBe(1);
    expect(state.idempotency.size).toBe(0);
  });

  it('purge follows expiry order: a key stored again later outlives one first stored after it', () => {
    const state = createState();
    storeIdempotency(state, 'c1', 'early', fp, ok, T0);
    storeIdempotency(state, 'c1', 'late', fp, ok, T0 + 1);
    storeIdempotency(state, 'c1', 'early', fp, ok, T0 + 10);
    expect(purgeExpiredIdempotency(state, T0 + 1 + 60 * DAY)).toBe(1);
    expect(lookupIdempotency(state, 'c1', 'late', fp, T0 + 1 + 60 * DAY)).toEqual({ kind: 'new' });
    expect(lookupIdempotency(state, 'c1', 'early', fp, T0 + 1 + 60 * DAY)).toEqual({ kind: 'replay', response: ok });
  });
});
