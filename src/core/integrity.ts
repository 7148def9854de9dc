/**
 * What the integrity checks of a snapshot's state share (checkIntegrity in snapshot.ts runs them; each slice
 * declares its own beside its aggregate): where a problem is and what it is, the records every check looks
 * others up in, and the rule "each key once".
 */
import type { Catalog } from './catalogs.js';
import type { Company } from './companies.js';
import type { Establishment } from './establishments.js';
import type { Product } from './products.js';

/** Where a problem is (keys and indexes from the root of StateData, or of the task list) and what it is. */
export interface IntegrityProblem {
  readonly path: readonly (string | number)[];
  readonly problem: string;
}

export type Found = IntegrityProblem | undefined;
export const at = (path: readonly (string | number)[], problem: string): IntegrityProblem => ({ path, problem });

/** The records every check looks others up in, by id. */
export interface Records {
  readonly companies: ReadonlyMap<string, Company>;
  readonly establishments: ReadonlyMap<string, Establishment>;
  readonly catalogs: ReadonlyMap<string, Catalog>;
  readonly products: ReadonlyMap<string, Product>;
}

/** The first record of `records` whose key (undefined: none) an earlier one already has. */
export function repeated<T>(
  collection: string,
  records: readonly T[],
  field: string | number,
  key: (record: T) => string | undefined,
  what: (record: T) => string,
): Found {
  const seen = new Set<string>();
  for (let i = 0; i < records.length; i++) {
    const k = key(records[i]!);
    if (k === undefined) continue;
    if (seen.has(k)) return at([collection, i, field], `${what(records[i]!)} appears twice`);
    seen.add(k);
  }
  return undefined;
}

/**
 * `repeated` for a key of two parts (a link's catalog and product, a product's company and id_externo): one set of
 * second parts per first part, so no string is built per record to join them: building, hashing and collecting
 * joined strings took twice as long.
 */
export function repeatedPair<T>(
  collection: string,
  records: readonly T[],
  field: string | number,
  first: (record: T) => string,
  second: (record: T) => string | undefined,
  what: (record: T) => string,
): Found {
  const seen = new Map<string, Set<string>>();
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    const b = second(record);
    if (b === undefined) continue;
    const a = first(record);
    let seconds = seen.get(a);
    if (!seconds) seen.set(a, (seconds = new Set()));
    if (seconds.has(b)) return at([collection, i, field], `${what(record)} appears twice`);
    seconds.add(b);
  }
  return undefined;
}

/**
 * The first record of `collection` whose id an earlier one has. `byId`, the same records by id (the check's
 * Records), answers at once when it holds as many as there are records: then no id repeats, and the set of ids
 * need not be built again.
 */
export const repeatedId = <T extends { readonly id: string }>(
  collection: string,
  records: readonly T[],
  noun: string,
  byId?: ReadonlyMap<string, unknown>,
): Found =>
  byId?.size === records.length
    ? undefined
    : repeated(
        collection,
        records,
        'id',
        (r) => r.id,
        (r) => `${noun} ${r.id}`,
      );

/** The first entry of a per-company table (`collection`) whose company an earlier one has. */
export const repeatedCompany = <T>(
  collection: string,
  records: readonly T[],
  field: string | number,
  companyOf: (r: T) => string,
  what: string,
): Found => repeated(collection, records, field, companyOf, (r) => `${what} of company ${companyOf(r)}`);
