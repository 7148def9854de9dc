import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MinHeap } from './heap.js';

/** Items ordered by (key, seq): a total order, as the clock's (due, id). */
interface Item {
  readonly key: number;
  readonly seq: number;
}
const before = (a: Item, b: Item) => a.key < b.key || (a.key === b.key && a.seq < b.seq);
const bySortOrder = (a: Item, b: Item) => a.key - b.key || a.seq - b.seq;

describe('MinHeap', () => {
  it('pops, under any mix of pushes and pops, exactly what a sorted list of the items pushed so far would give', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined, freq: 3 }), { maxLength: 300 }),
        (script) => {
          const heap = new MinHeap<Item>(before);
          const model: Item[] = [];
          let seq = 0;
          for (const step of script) {
            if (step === undefined) {
              model.sort(bySortOrder);
              expect(heap.pop()).toBe(model.shift());
            } else {
              const item = { key: step, seq: seq++ };
              heap.push(item);
              model.push(item);
            }
            expect(heap.size).toBe(model.length);
            expect(heap.peek()).toBe([...model].sort(bySortOrder)[0]);
          }
          expect(heap.toArray().sort(bySortOrder)).toEqual(model.sort(bySortOrder));
          heap.clear();
          expect([heap.size, heap.pop()]).toEqual([0, undefined]);
        },
      ),
    );
  });
});
