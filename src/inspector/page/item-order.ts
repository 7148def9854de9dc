/**
 * The timeline's items, newest first, without the DOM. Items are merged in by time: an item is sent when it has
 * ended, stamped with when it began, so it may belong below newer ones; one sent again under its id (an event whose
 * state moved on) replaces the first, moving if its time changed. Many items share an instant (the virtual clock
 * stands still between advances), so among equal times the order is the server's: a batch (a page, newest first)
 * keeps its own order, and lands above the items of its instant already here when it is newer (a live item, the
 * newest page read again) or below them when it is older (the next page down).
 */
import type { TimelineItem } from '../wire.js';

export class ItemOrder {
  #items: TimelineItem[] = [];
  readonly #byId = new Map<string, TimelineItem>();
  #compared = 0;

  /**
   * How many items the merges have compared an instant with so far: the cost of finding places, counted, so that a
   * test can hold it to a binary search (a merge into n items compares about log2(n) per item, never n).
   */
  get compared(): number {
    return this.#compared;
  }

  get size(): number {
    return this.#items.length;
  }

  at(index: number): TimelineItem | undefined {
    return this.#items[index];
  }

  get(id: string): TimelineItem | undefined {
    return this.#byId.get(id);
  }

  clear(): void {
    this.#items = [];
    this.#byId.clear();
  }

  /** Merges `items`, newest first as the server sends them: `newer` or `older` than those of their instant here. */
  merge(items: readonly TimelineItem[], side: 'newer' | 'older' = 'newer'): void {
    // Each item goes above (newer) or below (older) its instant's items: newer ones are taken oldest first, so the
    // batch's newest ends on top; older ones newest first, so its oldest ends at the bottom.
    const ordered = side === 'newer' ? [...items].reverse() : items;
    for (const item of ordered) {
      const old = this.#byId.get(item.id);
      this.#byId.set(item.id, item);
      if (old !== undefined) {
        const index = this.#items.indexOf(old);
        if (old.at === item.at) {
          this.#items[index] = item;
          continue;
        }
        this.#items.splice(index, 1);
      }
      this.#items.splice(this.#position(Date.parse(item.at), side), 0, item);
    }
  }

  /** Newer: before the first item not newer than `time`; older: before the first item older than it. */
  #position(time: number, side: 'newer' | 'older'): number {
    let low = 0;
    let high = this.#items.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      this.#compared++;
      const at = Date.parse(this.#items[mid]!.at);
      if (at > time || (side === 'older' && at === time)) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
