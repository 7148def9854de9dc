import { describe, expect, it } from 'vitest';
import { OrderedIndex } from './ordered-index.js';

const keysAfter = (index: OrderedIndex, position?: number) => [...index.after(position)].map(([key]) => key);

/** Reads the whole index a page at a time, the way a list endpoint does with a cursor. */
function pages(index: OrderedIndex, size: number): string[][] {
  const out: string[][] = [];
  let cursor: number | undefined;
  for (;;) {
    const page: [string, number][] = [];
    for (const entry of index.after(cursor)) {
      page.push(entry);
      if (page.length === size) break;
    }
    if (page.length === 0) return out;
    out.push(page.map(([key]) => key));
    cursor = page[page.length - 1]![1];
  }
}

describe('OrderedIndex', () => {
  it('lists keys in the order added, with their positions', () => {
    const index = new OrderedIndex();
    index.add('a', 1);
    index.add('b', 5);
    index.add('c', 9);
    expect(index.entries()).toEqual([
      ['a', 1],
      ['b', 5],
      ['c', 9],
    ]);
    expect(index.size).toBe(3);
  });

  it('after(position) lists only keys at greater positions, also for positions between or beyond keys', () => {
    const index = new OrderedIndex();
    index.add('a', 10);
    index.add('b', 20);
    index.add('c', 30);
    expect(keysAfter(index)).toEqual(['a', 'b', 'c']);
    expect(keysAfter(index, 0)).toEqual(['a', 'b', 'c']);
    expect(keysAfter(index, 10)).toEqual(['b', 'c']);
    expect(keysAfter(index, 15)).toEqual(['b', 'c']);
    expect(keysAfter(index, 29)).toEqual(['c']);
    expect(keysAfter(index, 30)).toEqual([]);
    expect(keysAfter(index, 1000)).toEqual([]);
  });

  it('is empty when new', () => {
    const index = new OrderedIndex();
    expect(index.size).toBe(0);
    expect(index.entries()).toEqual([]);
    expect(keysAfter(index, 3)).toEqual([]);
  });

  it('refuses a position that is not after the last one', () => {
    const index = new OrderedIndex();
    index.add('a', 5);
    expect(() => index.add('b', 5)).toThrow(/position 5 is not after 5/);
    expect(() => index.add('c', 4)).toThrow(/not after 5/);
    expect(index.size).toBe(1);
    expect(index.has('b')).toBe(false);
  });

  it('refuses a non-increasing position also after the last key was removed', () => {
    const index = new OrderedIndex();
    index.add('a', 5);
    index.remove('a');
    expect(() => index.add('b', 3)).toThrow();
  });

  it('refuses a position below one already used even after compaction dropped the keys that used it', () => {
    const index = new OrderedIndex();
    for (let i = 1; i <= 100; i++) index.add(`k${i}`, i);
    // Remove the newest 65 keys: compaction drops their slots, positions 36-100 included.
    for (let i = 100; i >= 36; i--) index.remove(`k${i}`);
    expect(index.size).toBe(35);
    // A cursor handed out at position 90 must not skip a key added later, so 50 cannot be accepted now.
    expect(() => index.add('late', 50)).toThrow(/not after 100/);
  });

  it('adding a key already present changes nothing', () => {
    const index = new OrderedIndex();
    index.add('a', 1);
    index.add('a', 2);
    expect(index.entries()).toEqual([['a', 1]]);
    expect(index.positionOf('a')).toBe(1);
  });

  it('remove drops the key from lists, size, has and positionOf; removing an absent key is a no-op', () => {
    const index = new OrderedIndex();
    index.add('a', 1);
    index.add('b', 2);
    index.add('c', 3);
    index.remove('b');
    index.remove('nope');
    index.remove('b');
    expect(keysAfter(index)).toEqual(['a', 'c']);
    expect(index.size).toBe(2);
    expect(index.has('b')).toBe(false);
    expect(index.positionOf('b')).toBeUndefined();
    expect(index.positionOf('c')).toBe(3);
  });

  it('a removed key can be added again, at a new later position', () => {
    const index = new OrderedIndex();
    index.add('a', 1);
    index.add('b', 2);
    index.remove('a');
    index.add('a', 3);
    expect(index.entries()).toEqual([
      ['b', 2],
      ['a', 3],
    ]);
  });

  it('a cursor at a removed key still lists what follows it', () => {
    const index = new OrderedIndex();
    for (let i = 1; i <= 5; i++) index.add(`k${i}`, i);
    const cursor = index.positionOf('k3')!;
    index.remove('k3');
    index.remove('k4');
    expect(keysAfter(index, cursor)).toEqual(['k5']);
  });

  it('keys added after a cursor was taken appear after it; keys removed before it do not shift it', () => {
    const index = new OrderedIndex();
    for (let i = 1; i <= 4; i++) index.add(`k${i}`, i * 2);
    const cursor = index.positionOf('k2')!;
    index.remove('k1');
    index.add('k5', 100);
    expect(keysAfter(index, cursor)).toEqual(['k3', 'k4', 'k5']);
  });

  it('positions and cursors survive compaction (more than 64 removals)', () => {
    const index = new OrderedIndex();
    for (let i = 1; i <= 300; i++) index.add(`k${i}`, i * 10);
    const cursor = index.positionOf('k200')!;
    // Remove 250 keys including the cursor's: well past the compaction threshold (> 64 and > half).
    for (let i = 1; i <= 250; i++) index.remove(`k${i}`);
    expect(index.size).toBe(50);
    expect(keysAfter(index, cursor)).toEqual(Array.from({ length: 50 }, (_, i) => `k${251 + i}`));
    expect(keysAfter(index, 2510)).toEqual(Array.from({ length: 49 }, (_, i) => `k${252 + i}`));
    expect(index.positionOf('k251')).toBe(2510);
    expect(index.positionOf('k300')).toBe(3000);
    expect(index.entries()[0]).toEqual(['k251', 2510]);
    index.add('k301', 3010);
    expect(() => index.add('x', 3010)).toThrow();
    expect(keysAfter(index, 2990)).toEqual(['k300', 'k301']);
  });

  it('interleaved removals (every other key, many rounds) keep the remaining order and positions', () => {
    const index = new OrderedIndex();
    const alive = new Map<string, number>();
    let position = 0;
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < 50; i++) {
        position += 3;
        const key = `r${round}-${i}`;
        index.add(key, position);
        alive.set(key, position);
      }
      let n = 0;
      for (const key of [...alive.keys()])
        if (n++ % 2 === 0) {
          index.remove(key);
          alive.delete(key);
        }
    }
    expect(index.entries()).toEqual([...alive.entries()]);
    expect(index.size).toBe(alive.size);
    for (const [key, pos] of alive) expect(index.positionOf(key)).toBe(pos);
    const middle = [...alive.values()][Math.floor(alive.size / 2)]!;
    expect([...index.after(middle)].map(([, p]) => p)).toEqual([...alive.values()].filter((p) => p > middle));
  });

  it('paging through with cursors while keys are removed between pages neither repeats nor skips a surviving key', () => {
    const index = new OrderedIndex();
    for (let i = 1; i <= 200; i++) index.add(`k${i}`, i);
    const seen: string[] = [];
    let cursor: number | undefined;
    let removed = 0;
    for (;;) {
      const page = [...index.after(cursor)].slice(0, 7);
      if (page.length === 0) break;
      seen.push(...page.map(([k]) => k));
      cursor = page[page.length - 1]![1];
      // Remove keys on both sides of the cursor, enough to trigger compactions along the way.
      for (const [key] of page.slice(0, 3)) {
        index.remove(key);
        removed++;
      }
      for (const [key] of [...index.after(cursor)].slice(0, 2)) {
        index.remove(key);
        removed++;
      }
    }
    expect(removed).toBeGreaterThan(64);
    expect(new Set(seen).size).toBe(seen.length);
    const positions = seen.map((k) => Number(k.slice(1)));
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('pages of a fixed size cover every key exactly once', () => {
    const index = new OrderedIndex();
    for (let i = 1; i <= 23; i++) index.add(`k${i}`, i);
    const all = pages(index, 5);
    expect(all.map((p) => p.length)).toEqual([5, 5, 5, 5, 3]);
    expect(all.flat()).toEqual(index.entries().map(([k]) => k));
  });
});
