/**
 * Every slice of the state (see Slice in state.ts), in the order of a snapshot's `state`: exportState writes
 * their keys in this order and importState imports them in it, so a slice may rebuild what it derives from an
 * earlier one (the links need the catalogs; the surveillance counters need the products). A slice with a
 * `collection` gives the State its field (Collections below), which createState makes on first use.
 *
 * Adding a record kind: its slice (beside its aggregate, or right here), one line in SLICES, and its schema in
 * src/control/snapshot-schema.ts (which the compiler checks against the record's type and StateData).
 */
import { analysesSlice, analysisUnitsUsedSlice } from './analyses.js';
import { catalogsSlice } from './catalogs.js';
import { cnpjCorrectionsSlice } from './cnpj-corrections.js';
import { companiesSlice, credentialsSlice, originsSlice } from './companies.js';
import { establishmentsSlice } from './establishments.js';
import { idempotencySlice, type CompanyAnswers } from './idempotency.js';
import { ingestionsSlice } from './ingestion/ingestions.js';
import { linksSlice, productsSlice } from './products.js';
import { regulatorySlice, shippedReference } from './regulatory/reference.js';
import { Collection, type Written } from './collection.js';
import { sequenceSlice, type CompanyIndexes, type Kept, type Slice, type State } from './state.js';
import type { Instant } from './time.js';
import type { TaskIntent } from './outbox.js';
import type { RegulatorySnapshot } from './regulatory/snapshot.js';
import { evaluationsSlice, executionsSlice } from './surveillance-executions.js';
import { surveillanceSlice } from './surveillance.js';
import { webhookDestinationsSlice } from './webhooks/destination.js';
import { webhookEventsSlice } from './webhooks/events.js';
import { webhookSendsSlice } from './webhooks/sending.js';

/** A slice of some data (`Slice` alone is one of unknown data, whose log could hold no record at all). */
type SomeSlice = Slice<string, any>;

export const SLICES = [
  sequenceSlice,
  companiesSlice,
  credentialsSlice,
  establishmentsSlice,
  catalogsSlice,
  productsSlice,
  linksSlice,
  idempotencySlice,
  webhookDestinationsSlice,
  webhookEventsSlice,
  cnpjCorrectionsSlice,
  regulatorySlice,
  analysesSlice,
  executionsSlice,
  ingestionsSlice,
  evaluationsSlice,
  analysisUnitsUsedSlice,
  surveillanceSlice,
  webhookSendsSlice,
  originsSlice,
] as const satisfies readonly SomeSlice[];

/**
 * What no slice holds: the outbox is drained after every change, so a state at rest has none; the writes a change
 * log has not read yet are its own.
 */
export const TRANSIENT: readonly (keyof State)[] = ['outbox', 'written'];

type DataOf<S> = S extends Slice<string, infer D> ? D : never;

/** The state as plain data: each slice's key and what it exports. */
export type StateData = { readonly [S in (typeof SLICES)[number] as S['key']]: DataOf<S> };

type KeptOf<S> = S extends { readonly collection: Kept<infer V> } ? V : never;

/** The State's collections: one per slice that keeps its records in one, under the slice's key. */
export type Collections = {
  readonly [S in (typeof SLICES)[number] as S extends { readonly collection: object } ? S['key'] : never]: Collection<
    KeptOf<S>
  >;
};

/** The slices that keep a collection, each with its place among a state's collections. */
const KEPT = (SLICES as readonly Slice[]).flatMap((slice) => (slice.collection === undefined ? [] : [slice]));

/** Where a state keeps its collections (not an enumerable property: a state is never compared or copied whole). */
const COLLECTIONS = Symbol('collections');

/**
 * A State whose collections and maps are made on first use: a fresh emulator touches few of them (a test of
 * webhooks never reads the analyses), and empty maps made at once were a large part of what every emulator kept.
 * Each is a getter of the class (those of the collections defined below, from the registry), so
 * every state has one shape and reading a map stays a property load once optimized. The maps are not own
 * properties: a state is compared, copied and saved through its slices, never as a whole object.
 */
class LazyState {
  regulatory: RegulatorySnapshot;
  readonly closedWebhookEvents: [Instant, string][] = [];
  readonly outbox: TaskIntent[] = [];
  sequence = 0;
  written: Written | undefined = undefined;
  readonly [COLLECTIONS]: (Collection<unknown> | undefined)[] = new Array<undefined>(KEPT.length).fill(undefined);
  #indexes: Map<string, CompanyIndexes> | undefined;
  #idempotency: Map<string, CompanyAnswers> | undefined;
  #openAnalyses: Map<string, string> | undefined;
  #openIngestions: Map<string, string> | undefined;
  #pendingCnpjCorrections: Map<string, string> | undefined;

  constructor(regulatory: RegulatorySnapshot) {
    this.regulatory = regulatory;
  }

  get indexes(): Map<string, CompanyIndexes> {
    return (this.#indexes ??= new Map());
  }
  get idempotency(): Map<string, CompanyAnswers> {
    return (this.#idempotency ??= new Map());
  }
  get openAnalyses(): Map<string, string> {
    return (this.#openAnalyses ??= new Map());
  }
  get openIngestions(): Map<string, string> {
    return (this.#openIngestions ??= new Map());
  }
  get pendingCnpjCorrections(): Map<string, string> {
    return (this.#pendingCnpjCorrections ??= new Map());
  }
}

for (const [i, slice] of KEPT.entries()) {
  Object.defineProperty(LazyState.prototype, slice.key, {
    get(this: LazyState) {
      return (this[COLLECTIONS][i] ??= new Collection(this, slice.key, slice.collection!.listing));
    },
    enumerable: false,
    configurable: false,
  });
}

/** An empty service; `start` is when its shipped regulatory reference counts as published. */
export function createState(start: Instant = 0): State {
  return new LazyState(shippedReference(start)) as unknown as State;
}
