import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_STORED_ANSWERS_PER_COMPANY,
  IDEMPOTENCY_RETENTION_MS,
  canonicalJson,
  exportIdempotency,
  idempotencyScope,
  importIdempotency,
  lookupIdempotency,
  purgeExpiredIdempotency,
  storeIdempotency,
  type StoredResponse,
} from './idempotency.js';
import { createState } from './slices.js';
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
const plainKey = fc
  .string({ maxLength: 6, unit: 'grapheme' })
  .filter((k) => !/^(0|[1-9]\d*)$/.test(k) && k !== '__proto__');
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
    expect(canonicalJson({ b: 1, a: 2, c: { z: 1, y: [3, { k: 1, j: 2 }] } })).toBe(
      '{"a":2,"b":1,"c":{"y":[3,{"j":2,"k":1}],"z":1}}',
    );
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
    const value = {
      café: 'Café torrado 500 g',
      emoji: '☕🫘',
      sep: '\u2028\u2029',
      ctl: '\u0000\u001f\n\t',
      lone: '\ud800',
    };
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
    expect(text.length).toBe(
      '{"a":'.length * depth + '"leaf"'.length + [...Array(depth).keys()].reduce((n, i) => n + `,"b":${i}}`.length, 0),
    );
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

  it('writes a flat body, as parsed from a request, with its keys in sorted order whatever they are: integer-like keys, which objects list first, and __proto__ included (property)', () => {
    const key = fc.oneof(
      fc.constantFrom('0', '1', '9', '10', '01', '-1', '1.5', '__proto__', 'a', 'B', 'é', ''),
      fc.string({ maxLength: 4 }),
    );
    const scalar = fc.oneof(
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(key, scalar), { selector: ([k]) => k, maxLength: 6 }), (entries) => {
        const body: unknown = JSON.parse(
          `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`,
        );
        const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : 1));
        expect(canonicalJson(body)).toBe(
          `{${sorted.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`,
        );
      }),
      { numRuns: 1000 },
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
  const MAX = DEFAULT_MAX_STORED_ANSWERS_PER_COMPANY;
  const ok: StoredResponse = { status: 200, body: '{"versao":2}', etag: '"abc"', location: null, headers: null };
  const fp = 'fingerprint-of-request-1';
  const other = 'fingerprint-of-request-2';
  const replay = (response: StoredResponse) => ({ kind: 'replay', response });
  const keysOf = (state: ReturnType<typeof createState>, companyId: string) => [
    ...(state.idempotency.get(companyId)?.records.keys() ?? []),
  ];

  it('keeps records 60 days, and 100,000 answers per company by default', () => {
    expect(IDEMPOTENCY_RETENTION_MS).toBe(60 * DAY);
    expect(MAX).toBe(100_000);
  });

  it('an unknown key is new', () => {
    expect(lookupIdempotency(createState(), 'c1', 'k1', fp, T0)).toEqual({ kind: 'new' });
  });

  it('a stored key replays the stored response for the same request and is other_request for another', () => {
    const state = createState();
    const created: StoredResponse = {
      status: 201,
      body: '{"id":"p1"}',
      etag: '"abc"',
      location: '/v1/produtos/p1',
      headers: { ratelimit: '"x";r=4;t=60' },
    };
    storeIdempotency(state, 'c1', 'k1', fp, created, T0 + 5, MAX);
    expect(lookupIdempotency(state, 'c1', 'k1', fp, T0 + 10)).toEqual(replay(created));
    expect(lookupIdempotency(state, 'c1', 'k1', other, T0 + 10)).toEqual({ kind: 'other_request' });
    expect(exportIdempotency(state)).toEqual([
      { companyId: 'c1', key: 'k1', fingerprint: fp, expiresAt: T0 + 5 + 60 * DAY, ...created },
    ]);
  });

  it("keeps a record as one text in its company's arena, a field a line and then the body; the company id and key only as the keys of its maps, the record as a number", () => {
    const state = createState();
    storeIdempotency(state, 'c1', 'k1', fp, ok, T0, MAX);
    storeIdempotency(
      state,
      'c1',
      'k2',
      fp,
      {
        status: 201,
        body: '{"a":"\\n"}\n',
        etag: null,
        location: '/v1/x',
        headers: { 'ratelimit-policy': '"p";q=5;w=60' },
      },
      T0,
      MAX,
    );
    const { records, texts } = state.idempotency.get('c1')!;
    expect([...records.values()].map((packed) => typeof packed)).toEqual(['number', 'number']);
    expect(texts.text(records.get('k1')!)).toBe(`${T0 + 60 * DAY}\n200\n${fp}\n"abc"\n\n\n{"versao":2}`);
    expect(texts.text(records.get('k2')!)).toBe(
      `${T0 + 60 * DAY}\n201\n${fp}\n\n/v1/x\n{"ratelimit-policy":"\\"p\\";q=5;w=60"}\n{"a":"\\n"}\n`,
    );
    expect(lookupIdempotency(state, 'c1', 'k2', fp, T0)).toEqual(
      replay({
        status: 201,
        body: '{"a":"\\n"}\n',
        etag: null,
        location: '/v1/x',
        headers: { 'ratelimit-policy': '"p";q=5;w=60' },
      }),
    );
  });

  it('keys are scoped by company', () => {
    const state = createState();
    storeIdempotency(state, 'c1', 'k1', fp, ok, T0, MAX);
    expect(lookupIdempotency(state, 'c2', 'k1', fp, T0)).toEqual({ kind: 'new' });
    expect(lookupIdempotency(state, 'c1', 'k2', fp, T0)).toEqual({ kind: 'new' });
    expect(idempotencyScope('c1', 'k1')).not.toBe(idempotencyScope('c2', 'k1'));
  });

  it('looking up changes nothing, an expired record included', () => {
    const state = createState();
    storeIdempotency(state, 'c1', 'k1', fp, ok, T0, MAX);
    const before = exportIdempotency(state);
    lookupIdempotency(state, 'c1', 'k1', other, T0 + 61 * DAY);
    lookupIdempotency(state, 'c1', 'k1', fp, T0 + 61 * DAY);
    lookupIdempotency(state, 'c2', 'k1', fp, T0);
    expect(exportIdempotency(state)).toEqual(before);
    expect([...state.idempotency.keys()]).toEqual(['c1']);
  });

  it('a record counts its 60 days from when it was stored and expires exactly at expiresAt', () => {
    const state = createState();
    const done = T0 + 3_000;
    storeIdempotency(state, 'c1', 'k1', fp, ok, done, MAX);
    expect(lookupIdempotency(state, 'c1', 'k1', fp, done + 60 * DAY - 1)).toEqual(replay(ok));
    expect(lookupIdempotency(state, 'c1', 'k1', fp, done + 60 * DAY)).toEqual({ kind: 'new' });
    expect(lookupIdempotency(state, 'c1', 'k1', other, done + 60 * DAY)).toEqual({ kind: 'new' });
  });

  it('an expired key can be stored again for another request, replacing the old record', () => {
    const state = createState();
    storeIdempotency(state, 'c1', 'k1', fp, ok, T0, MAX);
    const later = T0 + 60 * DAY;
    storeIdempotency(state, 'c1', 'k1', other, ok, later, MAX);
    expect(lookupIdempotency(state, 'c1', 'k1', other, later)).toEqual(replay(ok));
    expect(lookupIdempotency(state, 'c1', 'k1', fp, later)).toEqual({ kind: 'other_request' });
    expect(keysOf(state, 'c1')).toEqual(['k1']);
  });

  it('purge drops the records expired at now (boundary included), keeps the rest, and forgets a company left with none', () => {
    const state = createState();
    for (const [key, at] of [
      ['k1', T0],
      ['k2', T0 + 1],
      ['k3', T0 + 2],
    ] as const) {
      storeIdempotency(state, 'c1', key, fp, ok, at, MAX);
    }
    storeIdempotency(state, 'c2', 'k1', fp, ok, T0 + 1, MAX);
    expect(purgeExpiredIdempotency(state, T0 + 60 * DAY - 1)).toBe(0);
    expect(purgeExpiredIdempotency(state, T0 + 60 * DAY + 1)).toBe(3);
    expect(keysOf(state, 'c1')).toEqual(['k3']);
    expect(state.idempotency.has('c2')).toBe(false);
    expect(lookupIdempotency(state, 'c1', 'k3', fp, T0 + 60 * DAY + 1)).toEqual(replay(ok));
    expect(purgeExpiredIdempotency(state, T0 + 60 * DAY + 2)).toBe(1);
    expect(state.idempotency.size).toBe(0);
  });

  it('purge follows expiry order: a key stored again later outlives one first stored after it', () => {
    const state = createState();
    storeIdempotency(state, 'c1', 'early', fp, ok, T0, MAX);
    storeIdempotency(state, 'c1', 'late', fp, ok, T0 + 1, MAX);
    storeIdempotency(state, 'c1', 'early', fp, ok, T0 + 10, MAX);
    expect(purgeExpiredIdempotency(state, T0 + 1 + 60 * DAY)).toBe(1);
    expect(lookupIdempotency(state, 'c1', 'late', fp, T0 + 1 + 60 * DAY)).toEqual({ kind: 'new' });
    expect(lookupIdempotency(state, 'c1', 'early', fp, T0 + 1 + 60 * DAY)).toEqual(replay(ok));
  });
});

describe('idempotency store: the ceiling of answers per company', () => {
  const T0 = Date.UTC(2026, 0, 1);
  const answer = (n: number): StoredResponse => ({
    status: 201,
    body: `{"n":${n}}`,
    etag: `"${n}"`,
    location: `/v1/produtos/p${n}`,
    headers: null,
  });
  const keysOf = (state: ReturnType<typeof createState>, companyId: string) => [
    ...(state.idempotency.get(companyId)?.records.keys() ?? []),
  ];

  it('at a ceiling of 3, the 4th store drops the 1st; the 2nd still replays; another company keeps its own', () => {
    const state = createState();
    for (const n of [1, 2, 3]) storeIdempotency(state, 'c1', `k${n}`, `f${n}`, answer(n), T0 + n, 3);
    storeIdempotency(state, 'c2', 'k1', 'f1', answer(1), T0, 3);
    storeIdempotency(state, 'c1', 'k4', 'f4', answer(4), T0 + 4, 3);
    expect(keysOf(state, 'c1')).toEqual(['k2', 'k3', 'k4']);
    expect(lookupIdempotency(state, 'c1', 'k1', 'f1', T0 + 5)).toEqual({ kind: 'new' });
    expect(lookupIdempotency(state, 'c1', 'k2', 'f2', T0 + 5)).toEqual({ kind: 'replay', response: answer(2) });
    expect(lookupIdempotency(state, 'c2', 'k1', 'f1', T0 + 5)).toEqual({ kind: 'replay', response: answer(1) });
    storeIdempotency(state, 'c1', 'k5', 'f5', answer(5), T0 + 5, 3);
    expect(keysOf(state, 'c1')).toEqual(['k3', 'k4', 'k5']);
    expect(keysOf(state, 'c2')).toEqual(['k1']);
  });

  it('a key stored again (after its expiry) counts as the newest', () => {
    const state = createState();
    for (const n of [1, 2, 3]) storeIdempotency(state, 'c1', `k${n}`, `f${n}`, answer(n), T0 + n, 3);
    const later = T0 + 1 + 60 * DAY;
    storeIdempotency(state, 'c1', 'k1', 'g1', answer(11), later, 3);
    expect(keysOf(state, 'c1')).toEqual(['k2', 'k3', 'k1']);
    storeIdempotency(state, 'c1', 'k4', 'f4', answer(4), later, 3);
    expect(keysOf(state, 'c1')).toEqual(['k3', 'k1', 'k4']);
  });

  it('a snapshot keeps the order: after export and import, the next stores drop the oldest first', () => {
    const state = createState();
    for (const n of [1, 2, 3, 4]) storeIdempotency(state, 'c1', `k${n}`, `f${n}`, answer(n), T0 + n, 3);
    storeIdempotency(state, 'c2', 'k9', 'f9', answer(9), T0, 3);
    const exported = exportIdempotency(state);
    expect(exported.map((e) => `${e.companyId}/${e.key}`)).toEqual(['c1/k2', 'c1/k3', 'c1/k4', 'c2/k9']);
    const restored = createState();
    importIdempotency(restored, JSON.parse(JSON.stringify(exported)));
    expect(exportIdempotency(restored)).toEqual(exported);
    storeIdempotency(restored, 'c1', 'k5', 'f5', answer(5), T0 + 5, 3);
    expect(keysOf(restored, 'c1')).toEqual(['k3', 'k4', 'k5']);
    storeIdempotency(restored, 'c1', 'k6', 'f6', answer(6), T0 + 6, 3);
    expect(keysOf(restored, 'c1')).toEqual(['k4', 'k5', 'k6']);
    expect(keysOf(restored, 'c2')).toEqual(['k9']);
  });

  it('a restored company holding more than the ceiling is trimmed to it by its next store, oldest first', () => {
    const state = createState();
    for (const n of [1, 2, 3, 4, 5]) storeIdempotency(state, 'c1', `k${n}`, `f${n}`, answer(n), T0 + n, 10);
    const restored = createState();
    importIdempotency(restored, exportIdempotency(state));
    storeIdempotency(restored, 'c1', 'k6', 'f6', answer(6), T0 + 6, 2);
    expect(keysOf(restored, 'c1')).toEqual(['k5', 'k6']);
  });

  it('a ceiling of 1 keeps only the latest answer', () => {
    const state = createState();
    for (const n of [1, 2, 3]) storeIdempotency(state, 'c1', `k${n}`, `f${n}`, answer(n), T0 + n, 1);
    expect(keysOf(state, 'c1')).toEqual(['k3']);
  });

  it('drops exactly the oldest answers of the company, whatever the stores, re-stores and purges (property, against a list model)', () => {
    type Op = { kind: 'store'; company: number; key: number } | { kind: 'purge' } | { kind: 'wait'; days: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 8, arbitrary: fc.record({ kind: fc.constant('store' as const), company: fc.nat(2), key: fc.nat(12) }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'purge' as const }) },
      {
        weight: 1,
        arbitrary: fc.record({ kind: fc.constant('wait' as const), days: fc.integer({ min: 1, max: 40 }) }),
      },
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 300 }), (max, ops) => {
        const state = createState();
        // The model: per company, [key, expiresAt] oldest first.
        const model = new Map<string, [string, number][]>();
        let now = T0;
        let n = 0;
        for (const o of ops) {
          if (o.kind === 'wait') now += o.days * DAY;
          else if (o.kind === 'purge') {
            purgeExpiredIdempotency(state, now);
            for (const [c, list] of model)
              model.set(
                c,
                list.filter(([, at]) => at > now),
              );
          } else {
            const c = `c${o.company}`;
            const k = `k${o.key}`;
            if (lookupIdempotency(state, c, k, `f${n}`, now).kind !== 'new') continue; // only a new request is stored
            storeIdempotency(state, c, k, `f${n}`, answer(n++), now, max);
            const list = (model.get(c) ?? []).filter(([key]) => key !== k);
            list.push([k, now + 60 * DAY]);
            model.set(c, list.slice(-max));
          }
          now += 1;
          for (const [c, list] of model)
            expect(keysOf(state, c), `${c} after ${JSON.stringify(o)}`).toEqual(list.map(([key]) => key));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gives the room of every answer it drops back to its arena: evicted at the ceiling, stored again, purged', () => {
    const state = createState();
    const body = `{"descricao":"${'x'.repeat(300)}"}`;
    const chunkOf = () => Math.max(...state.idempotency.get('c1')!.records.values()) / 2 ** 16;
    // 20,000 answers of ~350 bytes through a ceiling of 1,000: 7 MB written, some 350 KB kept.
    for (let i = 0; i < 20_000; i++) storeIdempotency(state, 'c1', `k${i}`, 'f', { ...answer(i), body }, T0, 1_000);
    expect(chunkOf()).toBeLessThan(16);
    // The same keys again, past their expiry: each replaces its own record.
    for (let i = 0; i < 20_000; i++)
      storeIdempotency(state, 'c1', `k${19_000 + (i % 1_000)}`, 'g', { ...answer(i), body }, T0 + 61 * DAY + i, 1_000);
    expect(chunkOf()).toBeLessThan(16);
    purgeExpiredIdempotency(state, T0 + 200 * DAY);
    expect(state.idempotency.has('c1')).toBe(false);
  });

  it('evicts at the ceiling in constant steps: one live iterator over the records, advanced once per eviction', () => {
    const a = answer(0);
    const state = createState();
    for (let i = 0; i < 10_000; i++) storeIdempotency(state, 'c1', `k${i}`, 'f', a, T0, 10_000);
    const { records } = state.idempotency.get('c1')!;
    // Counted, not timed (CONTRIBUTING.md "Tests"). The cost that matters is hidden in V8: a fresh iterator walks
    // every deleted slot still at the front of the table (about 100 µs per store at 100,000 records), so what is
    // counted is how many iterators the evictions make, and how far they move them.
    let made = 0;
    let advanced = 0;
    const keys = records.keys.bind(records);
    records.keys = () => {
      made++;
      const live = keys();
      return Object.assign(Object.create(live) as MapIterator<string>, {
        next: () => {
          advanced++;
          return live.next();
        },
      });
    };
    for (let i = 10_000; i < 30_000; i++) storeIdempotency(state, 'c1', `k${i}`, 'f', a, T0, 10_000);
    expect({ made, advanced }).toEqual({ made: 1, advanced: 20_000 });
    expect(records.size).toBe(10_000);
    expect(keysOf(state, 'c1')[0]).toBe('k20000');
  });
});
