/** The timeline's order: newest first, late arrivals in their place, an item sent again replacing its row. */
import { describe, expect, it } from 'vitest';
import type { TimelineItem } from '../wire.js';
import { ItemOrder } from './item-order.js';

const item = (id: string, second: number, title = id): TimelineItem => ({
  id,
  kind: 'request',
  at: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
  title,
  status: 200,
  tone: 'ok',
  tags: [],
  detail: false,
});
const ids = (order: ItemOrder) => Array.from({ length: order.size }, (_, i) => order.at(i)!.id);

describe('ItemOrder', () => {
  it('keeps items newest first, whatever order they arrive in, a live item on top of its instant', () => {
    const order = new ItemOrder();
    order.merge([item('c', 30), item('a', 10)]);
    order.merge([item('b', 20)]);
    order.merge([item('d', 40)]);
    order.merge([item('b2', 20)]);
    expect(ids(order)).toEqual(['d', 'c', 'b2', 'b', 'a']);
  });

  it('keeps a page in the order the server gave it within an instant: newer pages above its items, older ones below', () => {
    const order = new ItemOrder();
    order.merge([item('r5', 0), item('r4', 0), item('r3', 0)]);
    expect(ids(order)).toEqual(['r5', 'r4', 'r3']);
    order.merge([item('r2', 0), item('r1', 0), item('r0', 0)], 'older');
    expect(ids(order)).toEqual(['r5', 'r4', 'r3', 'r2', 'r1', 'r0']);
    // The newest page read again, with two new ones on top and one already here.
    order.merge([item('r7', 0), item('r6', 0), item('r5', 0, 'r5 again')]);
    expect(ids(order)).toEqual(['r7', 'r6', 'r5', 'r4', 'r3', 'r2', 'r1', 'r0']);
    expect(order.get('r5')!.title).toBe('r5 again');
  });

  it('replaces an item sent again in place, or moves it when its time changed', () => {
    const order = new ItemOrder();
    order.merge([item('a', 10), item('b', 20), item('c', 30)]);
    order.merge([item('b', 20, 'b delivered')]);
    expect(ids(order)).toEqual(['c', 'b', 'a']);
    expect(order.get('b')!.title).toBe('b delivered');
    order.merge([item('a', 50)]);
    expect(ids(order)).toEqual(['a', 'c', 'b']);
    expect(order.size).toBe(3);
    order.clear();
    expect(order.size).toBe(0);
    expect(order.get('a')).toBeUndefined();
  });

  it('finds each place by a binary search: 10,000 items merged in n·log2(n) comparisons, one in log2(n)', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => item(`r${i}`, 0)).map((x, i) => ({
      ...x,
      at: new Date(Date.UTC(2026, 0, 1) + (10_010 - i) * 1000).toISOString(),
    }));
    const order = new ItemOrder();
    order.merge(many);
    // Counted, not timed (CONTRIBUTING.md "Tests"): a place found by walking the items would compare up to n of them.
    const steps = (n: number) => Math.ceil(Math.log2(n + 1));
    let bound = 0;
    for (let n = 0; n < many.length; n++) bound += steps(n);
    expect(order.compared).toBeLessThanOrEqual(bound);
    const before = order.compared;
    order.merge([item('late', 5)]);
    expect(order.at(order.size - 1)!.id).toBe('late');
    expect(order.compared - before).toBeLessThanOrEqual(steps(10_000));
    expect(order.compared - before).toBeGreaterThan(0);
  });
});
