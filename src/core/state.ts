/**
 * The whole state of one emulated service: its records, a Collection per kind (collection.ts), plus per-company
 * indexes derived from them. Records are never mutated in place: a change replaces the record, so a reader (a
 * snapshot, a page being serialized) never sees half of one. Every change goes through a function of an aggregate
 * module, and every write of a record through its Collection, where a change log sees it.
 *
 * A kind of record is declared once, by its slice (see Slice below, and the registry in slices.ts): its key in a
 * snapshot, which is its State field (`state.products`, made on first use), how it travels and is checked, and how
 * the change log writes and replays its changes.
 */
import type { Collection, Listing, Written } from './collection.js';
import type { CompanyAnswers } from './idempotency.js';
import { at, repeatedId, type Found, type Records } from './integrity.js';
import type { Collections, StateData } from './slices.js';
import { OrderedIndex } from './ordered-index.js';
import type { TaskIntent } from './outbox.js';
import type { RegulatorySnapshot } from './regulatory/snapshot.js';
import type { RandomSource } from './random.js';
import type { Instant } from './time.js';
import type { DeliveryPolicy } from './webhooks/events.js';

export interface CompanyIndexes {
  /** CNPJ → establishment id: a CNPJ is unique within the company. */
  readonly establishmentsByCnpj: Map<string, string>;
  /** Product `id_externo` → product id: unique within the company (ingestion keys products by it). */
  readonly productsByExternalId: Map<string, string>;
  /** Catalog id → its linked products, in link order. */
  readonly catalogProducts: Map<string, OrderedIndex>;
  /** Events still `pendente` or `executando`: what a destination change cancels. */
  readonly openWebhookEvents: Set<string>;
}

/**
 * The state: one Collection per kind of record (see Collections in slices.ts: each slice that keeps its records in
 * one gives it its key), and the tables derived from them, which each slice rebuilds on import.
 */
export interface State extends Collections {
  /** Company id → the indexes of its records that are not per-company lists of a collection. */
  readonly indexes: Map<string, CompanyIndexes>;
  /** Company id → its stored answers, a collection of their own (idempotency.ts). */
  readonly idempotency: Map<string, CompanyAnswers>;
  /** Company id → its analysis still pendente or executando (at most one). */
  readonly openAnalyses: Map<string, string>;
  /** Catalog id → its ingestion still open (aberta, validando, validada or aplicando; at most one). */
  readonly openIngestions: Map<string, string>;
  /** Establishment id → its correction still `pendente` (at most one). */
  readonly pendingCnpjCorrections: Map<string, string>;
  /** [closed at, event id] in closing order: what retention walks, oldest first. Stale entries are skipped. */
  readonly closedWebhookEvents: [Instant, string][];
  /** The regulatory reference in force (regulatory/reference.ts). */
  regulatory: RegulatorySnapshot;
  /** Work the core asks the shell to schedule; drained after every change (see outbox.ts). */
  readonly outbox: TaskIntent[];
  /** The last position handed out: orders records and links in lists. */
  sequence: number;
  /** The writes of the collections a change log has not read yet; undefined while none watches (collection.ts). */
  written: Written | undefined;
}

/**
 * The part of the emulator's configuration (src/engine/config.ts) the core reads: it travels in every Context, so
 * no transition falls back on a default the emulator was configured away from.
 */
export interface CoreConfig {
  /** Webhook delivery timing: retry waits, attempt time-out, cycle length, attempts per cycle. */
  readonly delivery: DeliveryPolicy;
}

/** What a transition needs from the outside world: the virtual time, the seeded random source and the configuration. */
export interface Context {
  readonly now: Instant;
  readonly random: RandomSource;
  readonly config: CoreConfig;
}

export function nextPosition(state: State): number {
  state.sequence += 1;
  return state.sequence;
}

export function indexesOf(state: State, companyId: string): CompanyIndexes {
  let indexes = state.indexes.get(companyId);
  if (!indexes) {
    indexes = {
      establishmentsByCnpj: new Map(),
      productsByExternalId: new Map(),
      catalogProducts: new Map(),
      openWebhookEvents: new Set(),
    };
    state.indexes.set(companyId, indexes);
  }
  return indexes;
}

export function linksOf(state: State, companyId: string, catalogId: string): OrderedIndex {
  const indexes = indexesOf(state, companyId);
  let links = indexes.catalogProducts.get(catalogId);
  if (!links) {
    links = new OrderedIndex();
    indexes.catalogProducts.set(catalogId, links);
  }
  return links;
}

/**
 * One kind of record (or one derived table) as it travels in a snapshot: the `key` it has in the snapshot's
 * `state`, the parts of the State it holds, how it exports them as plain data and how it imports them back,
 * rebuilding its indexes with its aggregate's own functions, and how the change log writes its changes. Each
 * aggregate declares its slices beside its transitions; src/core/slices.ts lists them all, and exportState,
 * importState and the change log loop over that list.
 */
export interface Slice<K extends string = string, D = unknown> {
  readonly key: K;
  /** The State fields it fills on import (each field belongs to exactly one slice; its collection's is its key). */
  readonly holds: readonly (keyof State)[];
  /** The per-company indexes it rebuilds on import (each belongs to exactly one slice). */
  readonly indexes?: readonly (keyof CompanyIndexes)[];
  /**
   * Present on a slice that keeps its records in a Collection, `state[key]`, made on first use: what it is a
   * collection of, and whether each company lists its records in position order (`state[key].listOf(companyId)`).
   */
  readonly collection?: Kept<unknown>;
  /**
   * How the change log (change-log.ts) writes its changes and folds them back into data: absent on a slice whose
   * data is one value (the sequence, the reference), which is logged whole when it changed.
   */
  readonly log?: SliceLog<RecordOf<D>>;
  /** Its records as plain data, in their export order; they may be the state's own (never changed in place). */
  toData(state: State): D;
  /**
   * A copy of its data (from toData) that shares nothing with the state, for a snapshot its caller owns and may
   * change. Absent: a deep copy of the plain data (plainCopy); a kind held by the hundred thousand copies its own
   * fields, several times faster again.
   */
  copy?(data: D): D;
  /** Runs in the registry's order, so it may read what earlier slices imported. */
  fromData(state: State, data: D): void;
  /**
   * What must be unique in its data, before fromData may run on it (checkIntegrity runs every slice's before any
   * slice's `check`): the first problem, or undefined.
   */
  unique?(data: D, records: Records): Found;
  /** What its records must hold of the others (a reference resolves within its company, …); run in the registry's order. */
  check?(data: StateData, records: Records): Found;
  /** The positions its records hold, list by list: a position is unique across the state and at most `sequence`. */
  positions?(data: D): readonly Positions[];
  /**
   * The company a record of its data belongs to (undefined: it names a record that is not in `r`), with `r` the
   * records by id of the state or of the data it comes in: what one company's export keeps and what its import
   * requires of every record (company-data.ts). Absent on the global slices (the sequence, the reference).
   */
  ownerOf?(record: RecordOf<D>, r: Records): string | undefined;
  /**
   * Drops every record and derived entry of company `companyId`, through its per-company indexes where it has
   * some, so removing a small company costs little beside large ones. removeCompany runs the slices in reverse
   * registry order: the companies (and their indexes) go last, after every slice has read them.
   */
  removeCompany?(state: State, companyId: string): void;
}

/** What a slice keeps in its Collection (the type is what Collections in slices.ts reads), and how it lists them. */
export interface Kept<V> {
  readonly listing?: Listing<V>;
}

/** A slice that keeps its records in a Collection of V and logs them: a kind of record. */
export type KindSlice<K extends string, D, V> = Slice<K, D> & {
  readonly collection: Kept<V>;
  readonly log: SliceLog<RecordOf<D>>;
};

/** The collection of a kind of record whose records are listed by nobody (a company's own, or the emulator's). */
export const kept = <V>(listing?: Listing<V>): Kept<V> => (listing === undefined ? {} : { listing });

/**
 * How a slice's changes are logged: each item of its data has a key (a record's id; noted by its collection when it
 * writes it), and the items under a key are what the state holds now. The log writes, for each key written, the
 * items under it; replaying puts them in place of those the data had under that key (change-log.ts).
 */
export interface SliceLog<I> {
  /** The key of an item of its data; several items may share one (the links of a product). */
  keyOf(item: I): string;
  /** The items under `key` now, in the order of its data (none: gone). */
  itemsAt(state: State, key: string): readonly I[];
  /** Another slice whose noted keys are this one's too: the links change only with their product, and under its id. */
  readonly follows?: string;
}

/** The log of a slice whose items are the records of its collection, by key: a record's key is `keyOf` of it. */
export const byKey = <V>(
  collection: (state: State) => ReadonlyMap<string, V>,
  keyOf: (record: V) => string,
): SliceLog<V> => ({
  keyOf,
  itemsAt: (state, key) => {
    const record = collection(state).get(key);
    return record === undefined ? [] : [record];
  },
});

/** The log of a slice whose items are its collection's entries, [key, value] (a company's allowance taken, …). */
export const byEntry = <V, W = V>(
  collection: (state: State) => ReadonlyMap<string, V>,
  item: (value: V) => W = (value) => value as unknown as W,
): SliceLog<readonly [string, W]> => ({
  keyOf: ([key]) => key,
  itemsAt: (state, key) => {
    const value = collection(state).get(key);
    return value === undefined ? [] : [[key, item(value)]];
  },
});

/**
 * A list of positions in a slice's data, read in place: the path of one is built only for a problem (building one
 * per record cost a restore of 100,000 products and links 0.07 s, and their garbage).
 */
export interface Positions {
  readonly count: number;
  /** The i-th position. */
  at(i: number): number;
  /** Where the i-th position is, from the root of the state's data. */
  path(i: number): readonly (string | number)[];
}

/** One record of a slice's data (the data of a per-company slice is a list of them). */
type RecordOf<D> = D extends readonly (infer R)[] ? R : never;

/**
 * Records in the order their positions give them: lists, and a snapshot's order. Mostly they come in that order
 * already (created in it, restored in it): one pass that checks costs a tenth of a sort through a comparator,
 * which reads every record even then.
 */
function byPosition<T extends { readonly position: number }>(records: Iterable<T>): T[] {
  const list = [...records];
  for (let i = 1; i < list.length; i++)
    if (list[i - 1]!.position > list[i]!.position) return list.sort((a, b) => a.position - b.position);
  return list;
}

/** A record of a kind that positions order: its id, its company and its position. */
interface PositionedRecord {
  readonly id: string;
  readonly companyId: string;
  readonly position: number;
}

/** Each company lists these records in position order. */
const byCompany: Listing<PositionedRecord> = {
  company: (record) => record.companyId,
  position: (record) => record.position,
};

/**
 * What the slice of a kind of record that positions order shares: kept by id in `state[key]` (with each company's
 * list when `listed`), the records in position order, imported in that order by `add` (the aggregate's own, which
 * creation uses too), their positions for the integrity check, and their changes logged by id.
 */
export function positioned<K extends string, T extends PositionedRecord>(
  key: K,
  records: (state: State) => Collection<T>,
  add: (state: State, record: T) => void,
  listed: boolean,
) {
  return {
    key,
    collection: kept<T>(listed ? byCompany : undefined),
    log: byKey(records, (record: T) => record.id),
    ownerOf: (record: T): string => record.companyId,
    toData: (state: State): readonly T[] => byPosition(records(state).values()),
    fromData: (state: State, data: readonly T[]): void => {
      for (const record of byPosition(data)) add(state, record);
    },
    positions: (data: readonly T[]): Positions[] => [
      { count: data.length, at: (i) => data[i]!.position, path: (i) => [key, i, 'position'] },
    ],
  };
}

/**
 * The whole slice of a kind of record that needs nothing of its own: kept by id in `state[key]`, in position order
 * (each company's list too, when `listed`), each id once, each record of a company of the state, and dropped with
 * its company. Adding such a kind is one entry in SLICES (src/core/slices.ts), typed, as the State's type is made
 * from the registry's: `positionedKind<Widget>()('widgets', 'widget', true) as KindSlice<'widgets', readonly
 * Widget[], Widget>`; and its schema in src/control/snapshot-schema.ts. A kind with rules of its own spreads
 * `positioned` and adds them (products.ts).
 */
export const positionedKind =
  <T extends PositionedRecord>() =>
  <K extends string>(key: K, noun: string, listed: boolean): KindSlice<K, readonly T[], T> => {
    // The key is the State field the registry gives this slice: a loop over kinds cannot say so to the compiler.
    const records = (state: State) => (state as unknown as Record<K, Collection<T>>)[key];
    return {
      ...positioned(key, records, (state, record) => void records(state).set(record.id, record), listed),
      holds: [key as unknown as keyof State],
      removeCompany: (state, companyId) => {
        if (listed) records(state).dropCompany(companyId);
        else for (const [id, record] of records(state)) if (record.companyId === companyId) records(state).delete(id);
      },
      unique: (data) => repeatedId(key, data, noun),
      check: (data, r) => {
        for (const [i, record] of (data as unknown as Record<K, readonly T[]>)[key].entries())
          if (!r.companies.has(record.companyId))
            return at([key, i, 'companyId'], `${noun} ${record.id} belongs to unknown company ${record.companyId}`);
        return undefined;
      },
    };
  };

/** A record of `companyId` by id, or undefined: another company's resource does not exist for this one. */
export function ownedBy<T extends { readonly companyId: string }>(
  records: ReadonlyMap<string, T>,
  companyId: string,
  id: string,
): T | undefined {
  const record = records.get(id);
  return record && record.companyId === companyId ? record : undefined;
}

/** The last position handed out, so later records come after every restored one. */
export const sequenceSlice: Slice<'sequence', number> = {
  key: 'sequence',
  holds: ['sequence'],
  toData: (state) => state.sequence,
  fromData: (state, sequence) => {
    state.sequence = sequence;
  },
};
