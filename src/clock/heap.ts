/** A binary min-heap. Small and allocation-free per operation; the scheduler's queue. */
export class MinHeap<T> {
  private readonly items: T[] = [];
  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** Sifts up with a hole: the parents move down and `item` is written once, where it belongs. */
  push(item: T): void {
    const items = this.items;
    let i = items.length;
    items.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const above = items[parent]!;
      if (!this.before(item, above)) break;
      items[i] = above;
      i = parent;
    }
    items[i] = item;
  }

  /** Takes the top; the last item sifts down from the root with a hole, as in push. */
  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    const size = items.length;
    if (size === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && this.before(items[child + 1]!, items[child]!)) child++;
      const below = items[child]!;
      if (!this.before(below, last)) break;
      items[i] = below;
      i = child;
    }
    items[i] = last;
    return top;
  }

  toArray(): T[] {
    return [...this.items];
  }

  clear(): void {
    this.items.length = 0;
  }
}
