/**
 * The changes of a state's records, as a change log writes them and as replaying it folds them back into a
 * snapshot's data (the engine's change feed and the control's replay do the rest: the clock, the random sources,
 * the worlds). Each slice says how (Slice.log): the key of an item of its data, and the items under a key now. A
 * write of a record is noted by its collection under that key (collection.ts); taking the changes reads, for each
 * key noted, the items under it now. Folding puts them in place of those the data had under the key: the same
 * items in the same order as the state's own export, so that a state rebuilt from a snapshot and its changes
 * exports exactly what the state did.
 */
import { at, type Found } from './integrity.js';
import { SLICES, type StateData } from './slices.js';
import type { Slice, SliceLog, State } from './state.js';
import type { RegulatorySnapshot } from './regulatory/snapshot.js';

/**
 * The items of slice `slice` now under `key` (none: gone), and whether the key was deleted meanwhile: then its items
 * go to the end of the slice's order, as a Map puts a key deleted and set again, instead of staying in place.
 */
export type RecordChange = readonly [slice: string, key: string, items: readonly unknown[], moved: boolean];

/** What changed in a state's data since the changes were last taken. */
export interface StateChanges {
  readonly records: readonly RecordChange[];
  /** The last position handed out, when it moved. */
  readonly sequence?: number;
  /** The regulatory reference, when another one was published (its data, as a snapshot carries it). */
  readonly regulatory?: StateData['regulatory'];
}

/** What the last changes taken of a state said of its values that are no record: what the next ones compare with. */
export interface Seen {
  sequence: number;
  regulatory: RegulatorySnapshot;
}

/** The slices whose records are logged one key at a time, each with its log (the others' data is logged whole). */
const LOGGED: readonly { readonly key: string; readonly log: SliceLog<unknown> }[] = (
  SLICES as readonly Slice[]
).flatMap((slice) => (slice.log === undefined ? [] : [{ key: slice.key, log: slice.log as SliceLog<unknown> }]));
const REFERENCE = (SLICES as readonly Slice[]).find((slice) => slice.key === 'regulatory')!;

/** Starts noting the writes of `state`'s records (nothing is noted before); what the first changes compare with. */
export function watchState(state: State): Seen {
  state.written = new Map();
  return { sequence: state.sequence, regulatory: state.regulatory };
}

/** Stops noting, and drops what was noted. */
export function unwatchState(state: State): void {
  state.written = undefined;
}

/**
 * The changes of `state` since they were last taken (or since watchState), slice by slice in the registry's order,
 * each slice's keys in the order they were noted; and forgets them. The items are the state's own records (never
 * changed in place): a caller that keeps them past the next change copies them.
 */
export function takeChanges(state: State, seen: Seen): StateChanges | undefined {
  const written = state.written;
  if (written === undefined) throw new Error('takeChanges: the state is not watched (watchState)');
  const records: RecordChange[] = [];
  if (written.size > 0) {
    state.written = new Map();
    for (const { key: slice, log } of LOGGED) {
      for (const [key, moved] of written.get(log.follows ?? slice) ?? [])
        records.push([slice, key, log.itemsAt(state, key), moved]);
    }
  }
  const sequence = state.sequence !== seen.sequence ? state.sequence : undefined;
  const regulatory =
    state.regulatory !== seen.regulatory ? (REFERENCE.toData(state) as StateData['regulatory']) : undefined;
  seen.sequence = state.sequence;
  seen.regulatory = state.regulatory;
  if (records.length === 0 && sequence === undefined && regulatory === undefined) return undefined;
  return {
    records,
    ...(sequence === undefined ? {} : { sequence }),
    ...(regulatory === undefined ? {} : { regulatory }),
  };
}

/**
 * A state's data (one world's `state` of a snapshot) with changes folded into it, change after change; `fold`
 * returns the first problem of a change that does not fit the data (a kind of record the state has no list of, an
 * item under another key than its own), the changes before it folded. Each slice's items are
 * grouped by key when its first change comes, so a fold costs the changes and the slices they touch.
 */
export class StateFold {
  readonly #data: Record<string, unknown>;
  readonly #groups = new Map<string, Map<string, readonly unknown[]>>();

  /** Takes `data` over: the caller reads it back from result(). */
  constructor(data: Record<string, unknown>) {
    this.#data = data;
  }

  fold(changes: StateChanges): Found {
    for (const [i, [key, recordKey, items, moved]] of changes.records.entries()) {
      const slice = LOGGED.find((s) => s.key === key);
      if (!slice) return at(['records', i, 0], `"${key}" is not a kind of record of this emulator's state`);
      if (!Array.isArray(this.#data[key]) && !this.#groups.has(key))
        return at(['records', i, 0], `the state they come after has no list of ${key}`);
      const log = slice.log;
      for (const [j, item] of items.entries()) {
        if (log.keyOf(item) !== recordKey)
          return at(
            ['records', i, 2, j],
            `this item of ${key} is noted under ${JSON.stringify(log.keyOf(item))}, not under ${JSON.stringify(recordKey)}`,
          );
      }
      const groups = this.#groupsOf(slice);
      if (items.length === 0 || moved) groups.delete(recordKey);
      if (items.length > 0) groups.set(recordKey, items);
    }
    if (changes.sequence !== undefined) this.#data.sequence = changes.sequence;
    if (changes.regulatory !== undefined) this.#data.regulatory = changes.regulatory;
    return undefined;
  }

  /** The data with every change folded in. */
  result(): Record<string, unknown> {
    for (const [key, groups] of this.#groups) this.#data[key] = [...groups.values()].flat();
    this.#groups.clear();
    return this.#data;
  }

  #groupsOf(slice: (typeof LOGGED)[number]): Map<string, readonly unknown[]> {
    let groups = this.#groups.get(slice.key);
    if (!groups) {
      groups = new Map();
      for (const [i, item] of (this.#data[slice.key] as unknown[]).entries()) {
        // An item the snapshot's check will refuse stays as it is, in its place, for the check to name.
        let key: string;
        try {
          key = slice.log.keyOf(item);
        } catch {
          key = `\0${i}`;
        }
        const group = groups.get(key) as unknown[] | undefined;
        if (group) group.push(item);
        else groups.set(key, [item]);
      }
      this.#groups.set(slice.key, groups);
    }
    return groups;
  }
}
