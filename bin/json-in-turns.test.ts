/**
 * stringifyInTurns: exactly JSON.stringify's text, whatever the value; and a large one made in parts, with the event
 * loop let through between them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringifyInTurns } from './json-in-turns.js';

/** JSON values with what JSON.stringify treats apart mixed in: undefined, functions, Dates, Maps, toJSON, wide and deep containers. */
const odd = fc.oneof(
  fc.constant(undefined),
  fc.constant(() => 1),
  fc.date({ noInvalidDate: true }),
  fc.constant(new Map([[1, 2]])),
  fc.constant({ toJSON: () => 'custom' }),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 2 }), odd, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 80 }),
  object: fc.dictionary(fc.oneof(fc.string(), fc.constant('__proto__'), fc.constant('toJSON')), tie('value'), {
    maxKeys: 70,
  }),
}));

describe('stringifyInTurns', () => {
  it('makes the text JSON.stringify makes, for any value (undefined and functions left out, toJSON called, own __proto__ keys kept)', async () => {
    await fc.assert(
      fc.asyncProperty(value, async (v) => {
        expect(await stringifyInTurns(v, 0)).toBe(JSON.stringify(v) ?? 'null');
      }),
      { numRuns: 300 },
    );
  });

  it('lets the event loop through while it makes a large text: a timer due meanwhile runs before it is done', async () => {
    // A snapshot's shape: 200,000 records of an array deep in an object, beside a small part.
    const snapshot = {
      format: 'x',
      state: {
        answers: Array.from({ length: 200_000 }, (_, i) => ({
          key: `key-${i}`,
          status: 200,
          body: `{"sku":"SKU-${i}"}`,
          headers: null,
        })),
      },
    };
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const text = await stringifyInTurns(snapshot, 2);
    clearInterval(timer);
    expect(text).toBe(JSON.stringify(snapshot));
    expect(ticks).toBeGreaterThan(2);
  });
});
