/**
 * The records of one kind: a Map by key whose every write (set, delete, clear) goes through this class, so that
 * a change log (change-log.ts) sees each one, and which keeps the kind's per-company list (records in position
 * order: what GET lists page through, cursors being positions). Records are replaced, never changed in place.
 *
 * Nothing is noted while no change log watches the state (`written` undefined, the usual case: the emulator inside
 * a test suite): a write then costs one more property read than a plain Map's.
 */
import { OrderedIndex } from './ordered-index.js';

/**
 * The writes a change log has not read yet: per slice key, each key written (in the order it was last moved to the
 * end of its slice's records) and whether it was deleted since the log last read it (then, present again, it comes
 * back at the end of the slice's order, as a Map puts a key deleted and set again).
 */
export type Written = Map<string, Map<string, boolean>>;

/** What a collection notes its writes in: its state, whose `written` a change log sets while it watches it. */
export interface Watched {
  written: Written | undefined;
}

/** A kind whose records a company lists in position order (each record's company and position never change). */
export interface Listing<V> {
  company(record: V): string;
  position(record: V): number;
}

export class Collection<V> extends Map<string, V> {
  readonly #watched: Watched;
  /** The key of the slice's data its writes are noted under. */
  readonly #slice: string;
  /**
   * The key a write is noted under, when it is not the record's own: a collection inside a record of the state (a
   * company's stored answers) notes the key of the item it changes in its slice's data.
   */
  readonly #noteAs: ((key: string) => string) | undefined;
  readonly #listing: Listing<V> | undefined;
  /** Company id → its records in position order; made with the company's first record. */
  #lists: Map<string, OrderedIndex> | undefined;

  constructor(watched: Watched, slice: string, listing?: Listing<V>, noteAs?: (key: string) => string) {
    super();
    this.#watched = watched;
    this.#slice = slice;
    this.#listing = listing;
    this.#noteAs = noteAs;
  }

  override set(key: string, value: V): this {
    const listing = this.#listing;
    if (listing !== undefined && !super.has(key)) this.listOf(listing.company(value)).add(key, listing.position(value));
    super.set(key, value);
    const written = this.#watched.written;
    if (written !== undefined) this.#note(written, key, false);
    return this;
  }

  override delete(key: string): boolean {
    const listing = this.#listing;
    const value = listing === undefined ? undefined : super.get(key);
    if (!super.delete(key)) return false;
    if (listing !== undefined) this.#lists?.get(listing.company(value!))?.remove(key);
    const written = this.#watched.written;
    if (written !== undefined) this.#note(written, key, true);
    return true;
  }

  override clear(): void {
    for (const key of [...this.keys()]) this.delete(key);
  }

  /**
   * Notes a write of `key` without a new value: for a record that holds a mutable index of its own (a company's
   * surveillance selection, its evaluations), changed in place and then touched.
   */
  touch(key: string): void {
    const written = this.#watched.written;
    if (written !== undefined && super.has(key)) this.#note(written, key, false);
  }

  /** A company's records in position order (an empty list for a company with none). */
  listOf(companyId: string): OrderedIndex {
    const lists = (this.#lists ??= new Map());
    let list = lists.get(companyId);
    if (!list) lists.set(companyId, (list = new OrderedIndex()));
    return list;
  }

  /** Each company's list (a company without records may have none). */
  lists(): IterableIterator<[companyId: string, list: OrderedIndex]> {
    return (this.#lists ?? new Map<string, OrderedIndex>()).entries();
  }

  /** Removes every record of `companyId` (through its list), and the list. */
  dropCompany(companyId: string): void {
    const list = this.#lists?.get(companyId);
    if (!list) return;
    this.#lists!.delete(companyId);
    const written = this.#watched.written;
    for (const [key] of list.after()) if (super.delete(key) && written !== undefined) this.#note(written, key, true);
  }

  #note(written: Written, key: string, deleted: boolean): void {
    const noted = this.#noteAs === undefined ? key : this.#noteAs(key);
    let keys = written.get(this.#slice);
    if (!keys) written.set(this.#slice, (keys = new Map()));
    if (deleted) {
      // Deleted, it comes back (if it does) at the end of its slice's order: it moves to the end of the notes too.
      keys.delete(noted);
      keys.set(noted, true);
    } else if (!keys.has(noted)) {
      keys.set(noted, false);
    }
  }
}
