/**
 * Every slice of the state (see Slice in state.ts), in the order of a snapshot's `state`: exportState writes
 * their keys in this order and importState imports them in it, so a slice may rebuild what it derives from an
 * earlier one (the links need the catalogs; the surveillance counters need the products).
 *
 * Adding a record kind: its slice beside its aggregate, one line here, and its schema in
 * src/control/snapshot-schema.ts (which the compiler checks against the record's type and StateData).
 */
import { analysesSlice, analysisUnitsUsedSlice } from './analyses.js';
import { catalogsSlice } from './catalogs.js';
import { cnpjCorrectionsSlice } from './cnpj-corrections.js';
import { companiesSlice, credentialsSlice, originsSlice } from './companies.js';
import { establishmentsSlice } from './establishments.js';
import { idempotencySlice } from './idempotency.js';
import { ingestionsSlice } from './ingestion/ingestions.js';
import { linksSlice, productsSlice } from './products.js';
import { regulatorySlice } from './regulatory/reference.js';
import { sequenceSlice, type Slice, type State } from './state.js';
import { evaluationsSlice, executionsSlice } from './surveillance-executions.js';
import { surveillanceSlice } from './surveillance.js';
import { webhookDestinationsSlice } from './webhooks/destination.js';
import { webhookEventsSlice } from './webhooks/events.js';
import { webhookSendsSlice } from './webhooks/sending.js';

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
] as const satisfies readonly Slice[];

/** What no slice holds: the outbox is drained after every change, so a state at rest has none. */
export const TRANSIENT: readonly (keyof State)[] = ['outbox'];

type DataOf<S> = S extends Slice<string, infer D> ? D : never;

/** The state as plain data: each slice's key and what it exports. */
export type StateData = { readonly [S in (typeof SLICES)[number] as S['key']]: DataOf<S> };
