/**
 * The whole state of one emulated service: plain records in maps, plus per-company indexes derived from
 * them. Records are never mutated in place: a change replaces the record, so a reader (a snapshot, a page
 * being serialized) never sees half of one. Every change goes through a function of an aggregate module.
 */
import type { Analysis } from './analyses.js';
import type { Catalog } from './catalogs.js';
import type { Evaluation, Execution } from './surveillance-executions.js';
import type { CnpjCorrection } from './cnpj-corrections.js';
import type { Company, CreatedCompany, Credential } from './companies.js';
import type { Found, Records } from './integrity.js';
import type { StateData } from './slices.js';
import type { Establishment } from './establishments.js';
import type { CompanyAnswers } from './idempotency.js';
import type { Ingestion } from './ingestion/ingestions.js';
import { OrderedIndex } from './ordered-index.js';
import type { TaskIntent } from './outbox.js';
import type { Product } from './products.js';
import type { RegulatorySnapshot } from './regulatory/snapshot.js';
import type { Surveillance } from './surveillance.js';
import { shippedReference } from './regulatory/reference.js';
import type { RandomSource } from './random.js';
import type { Instant } from './time.js';
import type { WebhookDestination } from './webhooks/destination.js';
import type { DeliveryPolicy, WebhookEvent } from './webhooks/events.js';

export interface CompanyIndexes {
  readonly establishments: OrderedIndex;
  /** CNPJ → establishment id: a CNPJ is unique within the company. */
  readonly establishmentsByCnpj: Map<string, string>;
  readonly catalogs: OrderedIndex;
  readonly products: OrderedIndex;
  /** Product `id_externo` → product id: unique within the company (ingestion keys products by it). */
  readonly productsByExternalId: Map<string, string>;
  /** Catalog id → its linked products, in link order. */
  readonly catalogProducts: Map<string, OrderedIndex>;
  /** Webhook events in creation order (listed newest first). */
  readonly webhookEvents: OrderedIndex;
  /** Events still `pendente` or `executando`: what a destination change cancels. */
  readonly openWebhookEvents: Set<string>;
  /** Analyses in creation order (listed newest first). */
  readonly analyses: OrderedIndex;
  /** Surveillance executions in creation order (listed newest first). */
  readonly executions: OrderedIndex;
}

export interface State {
  readonly companies: Map<string, Company>;
  /** Bearer token → credential. */
  readonly credentials: Map<string, Credential>;
  readonly establishments: Map<string, Establishment>;
  readonly catalogs: Map<string, Catalog>;
  readonly products: Map<string, Product>;
  /** Company id → its stored answers (idempotency.ts). */
  readonly idempotency: Map<string, CompanyAnswers>;
  readonly indexes: Map<string, CompanyIndexes>;
  /** Company id → its webhook destination (one per company, kept after revocation). */
  readonly webhookDestinations: Map<string, WebhookDestination>;
  readonly webhookEvents: Map<string, WebhookEvent>;
  readonly cnpjCorrections: Map<string, CnpjCorrection>;
  readonly analyses: Map<string, Analysis>;
  /** Company id → its analysis still pendente or executando (at most one). */
  readonly openAnalyses: Map<string, string>;
  /** Company id → allowance units taken by analysis runs. */
  readonly analysisUnitsUsed: Map<string, number>;
  readonly executions: Map<string, Execution>;
  /** Company id → product id → its last surveillance evaluation (what reuse compares with). */
  readonly evaluations: Map<string, Map<string, Evaluation>>;
  /** Company id → its surveillance selection and maintained counters. */
  readonly surveillance: Map<string, Surveillance>;
  readonly ingestions: Map<string, Ingestion>;
  /** Catalog id → its ingestion still open (aberta, validando, validada or aplicando; at most one). */
  readonly openIngestions: Map<string, string>;
  /** Establishment id → its correction still `pendente` (at most one). */
  readonly pendingCnpjCorrections: Map<string, string>;
  /** Company id → acceptance times of test and resend requests in the last minute (the shared limit of 5). */
  readonly webhookSends: Map<string, readonly Instant[]>;
  /** [closed at, event id] in closing order: what retention walks, oldest first. Stale entries are skipped. */
  readonly closedWebhookEvents: [Instant, string][];
  /** Company id → the company as it was created (its record, head office and first credential): what a reset of it puts back. */
  readonly companyOrigins: Map<string, CreatedCompany>;
  /** The regulatory reference in force (regulatory/reference.ts). */
  regulatory: RegulatorySnapshot;
  /** Work the core asks the shell to schedule; drained after every change (see outbox.ts). */
  readonly outbox: TaskIntent[];
  /** The last position handed out: orders records and links in lists. */
  sequence: number;
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

/**
 * A State whose maps are made on first use: a fresh emulator touches few of them (a test of webhooks never reads
 * the analyses). Made at once, the 21 empty maps were 3.9 KB of the 17 KB every emulator kept (heap snapshot).
 * Each map is a getter of the class, so every state has one shape and reading a map stays one property load once
 * optimized. The maps are not own properties: a state is compared, copied and saved through its slices
 * (slices.ts), never as a whole object.
 */
class LazyState implements State {
  regulatory: RegulatorySnapshot;
  readonly closedWebhookEvents: [Instant, string][] = [];
  readonly outbox: TaskIntent[] = [];
  sequence = 0;
  #companies: Map<string, Company> | undefined;
  #credentials: Map<string, Credential> | undefined;
  #establishments: Map<string, Establishment> | undefined;
  #catalogs: Map<string, Catalog> | undefined;
  #products: Map<string, Product> | undefined;
  #idempotency: Map<string, CompanyAnswers> | undefined;
  #indexes: Map<string, CompanyIndexes> | undefined;
  #webhookDestinations: Map<string, WebhookDestination> | undefined;
  #webhookEvents: Map<string, WebhookEvent> | undefined;
  #cnpjCorrections: Map<string, CnpjCorrection> | undefined;
  #surveillance: Map<string, Surveillance> | undefined;
  #executions: Map<string, Execution> | undefined;
  #evaluations: Map<string, Map<string, Evaluation>> | undefined;
  #analyses: Map<string, Analysis> | undefined;
  #openAnalyses: Map<string, string> | undefined;
  #analysisUnitsUsed: Map<string, number> | undefined;
  #pendingCnpjCorrections: Map<string, string> | undefined;
  #ingestions: Map<string, Ingestion> | undefined;
  #openIngestions: Map<string, string> | undefined;
  #webhookSends: Map<string, readonly Instant[]> | undefined;
  #companyOrigins: Map<string, CreatedCompany> | undefined;

  constructor(regulatory: RegulatorySnapshot) {
    this.regulatory = regulatory;
  }

  get companies(): Map<string, Company> {
    return (this.#companies ??= new Map());
  }
  get credentials(): Map<string, Credential> {
    return (this.#credentials ??= new Map());
  }
  get establishments(): Map<string, Establishment> {
    return (this.#establishments ??= new Map());
  }
  get catalogs(): Map<string, Catalog> {
    return (this.#catalogs ??= new Map());
  }
  get products(): Map<string, Product> {
    return (this.#products ??= new Map());
  }
  get idempotency(): Map<string, CompanyAnswers> {
    return (this.#idempotency ??= new Map());
  }
  get indexes(): Map<string, CompanyIndexes> {
    return (this.#indexes ??= new Map());
  }
  get webhookDestinations(): Map<string, WebhookDestination> {
    return (this.#webhookDestinations ??= new Map());
  }
  get webhookEvents(): Map<string, WebhookEvent> {
    return (this.#webhookEvents ??= new Map());
  }
  get cnpjCorrections(): Map<string, CnpjCorrection> {
    return (this.#cnpjCorrections ??= new Map());
  }
  get surveillance(): Map<string, Surveillance> {
    return (this.#surveillance ??= new Map());
  }
  get executions(): Map<string, Execution> {
    return (this.#executions ??= new Map());
  }
  get evaluations(): Map<string, Map<string, Evaluation>> {
    return (this.#evaluations ??= new Map());
  }
  get analyses(): Map<string, Analysis> {
    return (this.#analyses ??= new Map());
  }
  get openAnalyses(): Map<string, string> {
    return (this.#openAnalyses ??= new Map());
  }
  get analysisUnitsUsed(): Map<string, number> {
    return (this.#analysisUnitsUsed ??= new Map());
  }
  get pendingCnpjCorrections(): Map<string, string> {
    return (this.#pendingCnpjCorrections ??= new Map());
  }
  get ingestions(): Map<string, Ingestion> {
    return (this.#ingestions ??= new Map());
  }
  get openIngestions(): Map<string, string> {
    return (this.#openIngestions ??= new Map());
  }
  get webhookSends(): Map<string, readonly Instant[]> {
    return (this.#webhookSends ??= new Map());
  }
  get companyOrigins(): Map<string, CreatedCompany> {
    return (this.#companyOrigins ??= new Map());
  }
}

/** An empty service; `start` is when its shipped regulatory reference counts as published. */
export function createState(start: Instant = 0): State {
  return new LazyState(shippedReference(start));
}

export function nextPosition(state: State): number {
  state.sequence += 1;
  return state.sequence;
}

export function indexesOf(state: State, companyId: string): CompanyIndexes {
  let indexes = state.indexes.get(companyId);
  if (!indexes) {
    indexes = {
      establishments: new OrderedIndex(),
      establishmentsByCnpj: new Map(),
      catalogs: new OrderedIndex(),
      products: new OrderedIndex(),
      productsByExternalId: new Map(),
      catalogProducts: new Map(),
      webhookEvents: new OrderedIndex(),
      openWebhookEvents: new Set(),
      analyses: new OrderedIndex(),
      executions: new OrderedIndex(),
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
 * rebuilding its indexes with its aggregate's own functions. Each aggregate declares its slices beside its
 * transitions; src/core/slices.ts lists them all, and exportState/importState loop over that list.
 */
export interface Slice<K extends string = string, D = unknown> {
  readonly key: K;
  /** The State fields it fills on import (each field belongs to exactly one slice). */
  readonly holds: readonly (keyof State)[];
  /** The per-company indexes it rebuilds on import (each belongs to exactly one slice). */
  readonly indexes?: readonly (keyof CompanyIndexes)[];
  toData(state: State): D;
  /** Runs in the registry's order, so it may read what earlier slices imported. */
  fromData(state: State, data: D): void;
  /**
   * What must be unique in its data, before fromData may run on it (checkIntegrity runs every slice's before any
   * slice's `check`): the first problem, or undefined.
   */
  unique?(data: D): Found;
  /** What its records must hold of the others (a reference resolves within its company, …); run in the registry's order. */
  check?(data: StateData, records: Records): Found;
  /** The positions its records hold, with their paths: a position is unique across the state and at most `sequence`. */
  positions?(data: D): Iterable<readonly [path: readonly (string | number)[], position: number]>;
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

/** One record of a slice's data (the data of a per-company slice is a list of them). */
type RecordOf<D> = D extends readonly (infer R)[] ? R : never;

/** Drops from `records` the ids a per-company index lists. */
export function dropListed(records: Map<string, unknown>, index: OrderedIndex | undefined): void {
  for (const [id] of index?.after() ?? []) records.delete(id);
}

/** Records in the order their positions give them: lists, and a snapshot's order. */
const byPosition = <T extends { readonly position: number }>(records: Iterable<T>): T[] => [...records].sort((a, b) => a.position - b.position);

/**
 * What the slice of a kind of record that positions order shares: the records in position order, imported in that
 * order by `add` (the aggregate's own, which creation uses too), and their positions for the integrity check.
 */
export function positioned<K extends string, T extends { readonly position: number; readonly companyId: string }>(key: K, records: (state: State) => Iterable<T>, add: (state: State, record: T) => void) {
  return {
    key,
    ownerOf: (record: T): string => record.companyId,
    toData: (state: State): readonly T[] => byPosition(records(state)),
    fromData: (state: State, data: readonly T[]): void => {
      for (const record of byPosition(data)) add(state, record);
    },
    positions: (data: readonly T[]) => data.map((record, i) => [[key, i, 'position'], record.position] as const),
  };
}

/** A record of `companyId` by id, or undefined: another company's resource does not exist for this one. */
export function ownedBy<T extends { readonly companyId: string }>(
  records: Map<string, T>,
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
