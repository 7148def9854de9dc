/**
 * Keys in the order they were added, each at a position that only grows. Listing a page after a cursor
 * costs O(log n + page): the cursor is a position, found by binary search, and removed keys leave a
 * tombstone until compaction. Positions survive removals and compaction, so a cursor stays valid while
 * items are added or removed around it (docs/api.md "Rules every request follows › Lists": stable under concurrent
 * inserts).
 */
export class OrderedIndex {
  private keys: (string | undefined)[] = [];
  private positions: number[] = [];
  private readonly where = new Map<string, number>();
  private tombstones = 0;
  /** The highest position ever added: compaction may drop its slot, never the rule that positions grow. */
  private lastPosition = -Infinity;

  get size(): number {
    return this.where.size;
  }

  has(key: string): boolean {
    return this.where.has(key);
  }

  positionOf(key: string): number | undefined {
    return this.where.get(key);
  }

  /** Appends `key` at `position`, which must exceed every position already used. */
  add(key: string, position: number): void {
    if (this.where.has(key)) return;
    if (position <= this.lastPosition)
      throw new Error(`OrderedIndex: position ${position} is not after ${this.lastPosition}`);
    this.lastPosition = position;
    this.keys.push(key);
    this.positions.push(position);
    this.where.set(key, position);
  }

  remove(key: string): void {
    const position = this.where.get(key);
    if (position === undefined) return;
    this.where.delete(key);
    this.keys[this.indexAfter(position - 1)] = undefined;
    this.tombstones++;
    if (this.tombstones > 64 && this.tombstones * 2 > this.keys.length) this.compact();
  }

  /** Keys after `position` (all keys when undefined), in order, with their positions. */
  *after(position?: number): IterableIterator<[key: string, position: number]> {
    for (let i = position === undefined ? 0 : this.indexAfter(position); i < this.keys.length; i++) {
      const key = this.keys[i];
      if (key !== undefined) yield [key, this.positions[i]!];
    }
  }

  /** Keys before `position` (all keys when undefined), newest first, with their positions. */
  *before(position?: number): IterableIterator<[key: string, position: number]> {
    for (let i = (position === undefined ? this.positions.length : this.indexAfter(position - 1)) - 1; i >= 0; i--) {
      const key = this.keys[i];
      if (key !== undefined) yield [key, this.positions[i]!];
    }
  }

  entries(): [key: string, position: number][] {
    return [...this.after()];
  }

  /** Index of the first slot whose position is greater than `position`. */
  private indexAfter(position: number): number {
    let low = 0;
    let high = this.positions.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.positions[mid]! <= position) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private compact(): void {
    const keys: string[] = [];
    const positions: number[] = [];
    for (let i = 0; i < this.keys.length; i++) {
      const key = this.keys[i];
      if (key !== undefined) {
        keys.push(key);
        positions.push(this.positions[i]!);
      }
    }
    this.keys = keys;
    this.positions = positions;
    this.tombstones = 0;
  }
}
