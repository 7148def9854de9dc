/**
 * The timeline's items, newest first, without the DOM. Items are merged in by time: an item is sent when it has
 * ended, stamped with when it began, so it may belong below newer ones; one sent again under its id (an event whose
 * state moved on) replaces the first, moving if its time changed. Among equal times the one merged last is on top.
 */
import type { TimelineItem } from '../wire.js';

export class ItemOrder {
  #items: TimelineItem[] = [];
  readonly #byId = new Map<string, TimelineItem>();

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

  merge(items: readonly TimelineItem[]): void {
    for (const item of items) {
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
      this.#items.splice(this.#position(Date.parse(item.at)), 0, item);
    }
  }

  /** Before the first item not newer than `time`. */
  #position(time: number): number {
    let low = 0;
    let high = this.#items.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (Date.parse(this.#items[mid]!.at) > time) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
