/**
 * The state as plain data and back (DESIGN §6 "snapshot and restore"). Only records are exported; the
 * per-company indexes are derived from them on import, in the same order, so cursors stay valid.
 */
import type { Analysis } from './analyses.js';
import type { Catalog } from './catalogs.js';
import type { Evaluation, Execution } from './surveillance-executions.js';
import { isOpen, type Ingestion } from './ingestion/ingestions.js';
import { isEligible, surveillanceOf, type Coverage, type SelectionMode } from './surveillance.js';

export interface SurveillanceData {
  readonly companyId: string;
  readonly modo: SelectionMode;
  readonly versao: number;
  readonly selected: readonly (readonly [string, number])[];
  readonly lastCoverage: Coverage;
}
import type { CnpjCorrection } from './cnpj-corrections.js';
import { exportReference, importReference, type ReferenceData } from './regulatory/reference.js';
import type { Company, Credential } from './companies.js';
import type { Establishment } from './establishments.js';
import { exportIdempotency, importIdempotency, type IdempotencyEntry } from './idempotency.js';
import type { Product } from './products.js';
import { createState, indexesOf, linksOf, type State } from './state.js';
import type { Instant } from './time.js';
import type { WebhookDestination } from './webhooks/destination.js';
import { isClosed, type WebhookEvent } from './webhooks/events.js';

export interface StateData {
  readonly sequence: number;
  readonly companies: readonly Company[];
  readonly credentials: readonly Credential[];
  readonly establishments: readonly Establishment[];
  readonly catalogs: readonly Catalog[];
  readonly products: readonly Product[];
  /** [catalogId, productId, position] in link order. */
  readonly links: readonly (readonly [string, string, number])[];
  readonly idempotency: readonly IdempotencyEntry[];
  readonly webhookDestinations: readonly WebhookDestination[];
  readonly webhookEvents: readonly WebhookEvent[];
  readonly cnpjCorrections: readonly CnpjCorrection[];
  readonly regulatory: ReferenceData;
  readonly analyses: readonly Analysis[];
  readonly executions: readonly Execution[];
  readonly ingestions: readonly Ingestion[];
  /** [company id, [product id, its last evaluation][]]. */
  readonly evaluations: readonly (readonly [string, readonly (readonly [string, Evaluation])[]])[];
  /** [company id, allowance units taken]. */
  readonly analysisUnitsUsed: readonly (readonly [string, number])[];
  /** Per company: mode, version, selection ([product id, position] in order) and the coverage last observed. */
  readonly surveillance: readonly SurveillanceData[];
  /** [company id, acceptance times] of test and resend requests (the per-minute limit). */
  readonly webhookSends: readonly (readonly [string, readonly Instant[]])[];
}

export function exportState(state: State): StateData {
  const links: [string, string, number][] = [];
  for (const catalog of state.catalogs.values()) {
    const index = state.indexes.get(catalog.companyId)?.catalogProducts.get(catalog.id);
    for (const [productId, position] of index?.after() ?? []) links.push([catalog.id, productId, position]);
  }
  links.sort((a, b) => a[2] - b[2]);
  const byPosition = <T extends { position: number }>(records: Iterable<T>) => [...records].sort((a, b) => a.position - b.position);
  return {
    sequence: state.sequence,
    companies: [...state.companies.values()],
    credentials: [...state.credentials.values()],
    establishments: byPosition(state.establishments.values()),
    catalogs: byPosition(state.catalogs.values()),
    products: byPosition(state.products.values()),
    links,
    idempotency: exportIdempotency(state),
    webhookDestinations: [...state.webhookDestinations.values()],
    webhookEvents: byPosition(state.webhookEvents.values()),
    cnpjCorrections: byPosition(state.cnpjCorrections.values()),
    regulatory: exportReference(state.regulatory),
    analyses: byPosition(state.analyses.values()),
    executions: byPosition(state.executions.values()),
    ingestions: byPosition(state.ingestions.values()),
    evaluations: [...state.evaluations.entries()].map(([companyId, cache]) => [companyId, [...cache.entries()]] as const),
    analysisUnitsUsed: [...state.analysisUnitsUsed.entries()],
    surveillance: [...state.surveillance.values()].map((s) => ({ companyId: s.companyId, modo: s.modo, versao: s.versao, selected: s.selected.entries(), lastCoverage: s.lastCoverage })),
    webhookSends: [...state.webhookSends.entries()],
  };
}

export function importState(data: StateData): State {
  const state = createState();
  state.sequence = data.sequence;
  state.regulatory = importReference(data.regulatory);
  for (const company of data.companies) {
    state.companies.set(company.id, company);
    indexesOf(state, company.id);
  }
  for (const credential of data.credentials) state.credentials.set(credential.token, credential);
  for (const e of [...data.establishments].sort((a, b) => a.position - b.position)) {
    state.establishments.set(e.id, e);
    const indexes = indexesOf(state, e.companyId);
    indexes.establishments.add(e.id, e.position);
    indexes.establishmentsByCnpj.set(e.cnpj, e.id);
  }
  for (const c of [...data.catalogs].sort((a, b) => a.position - b.position)) {
    state.catalogs.set(c.id, c);
    indexesOf(state, c.companyId).catalogs.add(c.id, c.position);
    linksOf(state, c.companyId, c.id);
  }
  for (const p of [...data.products].sort((a, b) => a.position - b.position)) {
    state.products.set(p.id, p);
    const indexes = indexesOf(state, p.companyId);
    indexes.products.add(p.id, p.position);
    if (p.idExterno !== null) indexes.productsByExternalId.set(p.idExterno, p.id);
  }
  for (const [catalogId, productId, position] of [...data.links].sort((a, b) => a[2] - b[2])) {
    const catalog = state.catalogs.get(catalogId);
    if (catalog) linksOf(state, catalog.companyId, catalogId).add(productId, position);
  }
  importIdempotency(state, data.idempotency);
  for (const destination of data.webhookDestinations) state.webhookDestinations.set(destination.companyId, destination);
  for (const event of [...data.webhookEvents].sort((a, b) => a.position - b.position)) {
    state.webhookEvents.set(event.id, event);
    const indexes = indexesOf(state, event.companyId);
    indexes.webhookEvents.add(event.id, event.position);
    if (!isClosed(event.estado)) indexes.openWebhookEvents.add(event.id);
  }
  const closed = data.webhookEvents.filter((e) => e.terminadoEm !== null && isClosed(e.estado)).map((e): [Instant, string] => [e.terminadoEm!, e.id]);
  state.closedWebhookEvents.push(...closed.sort((a, b) => a[0] - b[0]));
  for (const [companyId, times] of data.webhookSends) state.webhookSends.set(companyId, [...times]);
  for (const analysis of [...data.analyses].sort((a, b) => a.position - b.position)) {
    state.analyses.set(analysis.id, analysis);
    indexesOf(state, analysis.companyId).analyses.add(analysis.id, analysis.position);
    if (analysis.estado === 'pendente' || analysis.estado === 'executando') state.openAnalyses.set(analysis.companyId, analysis.id);
  }
  for (const [companyId, used] of data.analysisUnitsUsed) state.analysisUnitsUsed.set(companyId, used);
  for (const execution of [...data.executions].sort((a, b) => a.position - b.position)) {
    state.executions.set(execution.id, execution);
    indexesOf(state, execution.companyId).executions.add(execution.id, execution.position);
  }
  for (const ingestion of [...data.ingestions].sort((a, b) => a.position - b.position)) {
    state.ingestions.set(ingestion.id, ingestion);
    if (isOpen(ingestion.estado)) state.openIngestions.set(ingestion.catalogId, ingestion.id);
  }
  for (const [companyId, entries] of data.evaluations) state.evaluations.set(companyId, new Map(entries));
  for (const saved of data.surveillance) {
    const s = surveillanceOf(state, saved.companyId);
    s.modo = saved.modo;
    s.versao = saved.versao;
    for (const [id, position] of saved.selected) s.selected.add(id, position);
    s.lastCoverage = saved.lastCoverage;
  }
  // The counters are derived from the products.
  for (const p of state.products.values()) {
    const s = surveillanceOf(state, p.companyId);
    if (p.ativo) s.active++;
    if (isEligible(p)) {
      s.eligible++;
      if (s.selected.has(p.id)) s.selectedEligible++;
    }
  }
  for (const correction of data.cnpjCorrections) {
    state.cnpjCorrections.set(correction.id, correction);
    if (correction.estado === 'pendente') state.pendingCnpjCorrections.set(correction.establishmentId, correction.id);
  }
  return state;
}

/**
 * What must hold between records for an imported state to be usable: every reference resolves within its
 * company. Returns the first problem found, or undefined.
 */
export function checkIntegrity(data: StateData): string | undefined {
  const companies = new Set(data.companies.map((c) => c.id));
  const establishments = new Map(data.establishments.map((e) => [e.id, e]));
  const catalogs = new Map(data.catalogs.map((c) => [c.id, c]));
  const products = new Map(data.products.map((p) => [p.id, p]));
  for (const c of data.companies) if (establishments.get(c.headOfficeId)?.companyId !== c.id) return `company ${c.id}: head office ${c.headOfficeId} is not one of its establishments`;
  for (const c of data.credentials) if (!companies.has(c.companyId)) return `a credential belongs to unknown company ${c.companyId}`;
  for (const e of data.establishments) {
    if (!companies.has(e.companyId)) return `establishment ${e.id} belongs to unknown company ${e.companyId}`;
    if (e.catalogoId !== null && catalogs.get(e.catalogoId)?.establishmentId !== e.id) return `establishment ${e.id}: catalog ${e.catalogoId} is not one of its catalogs`;
  }
  for (const c of data.catalogs) if (establishments.get(c.establishmentId)?.companyId !== c.companyId) return `catalog ${c.id}: establishment ${c.establishmentId} is not of its company`;
  for (const p of data.products) {
    if (!companies.has(p.companyId)) return `product ${p.id} belongs to unknown company ${p.companyId}`;
    for (const id of p.catalogos) if (catalogs.get(id)?.companyId !== p.companyId) return `product ${p.id}: catalog ${id} is not of its company`;
  }
  for (const [catalogId, productId] of data.links) {
    if (!products.get(productId)?.catalogos.includes(catalogId)) return `link ${catalogId} → ${productId} is not in the product's catalogos`;
  }
  for (const d of data.webhookDestinations) if (!companies.has(d.companyId)) return `webhook destination ${d.id} belongs to unknown company ${d.companyId}`;
  const destinationOf = new Map(data.webhookDestinations.map((d) => [d.companyId, d]));
  for (const e of data.webhookEvents) {
    if (!companies.has(e.companyId)) return `webhook event ${e.id} belongs to unknown company ${e.companyId}`;
    const destination = destinationOf.get(e.companyId);
    if (destination?.id !== e.destinoId || e.destinoVersao > destination.versao) return `webhook event ${e.id}: destination ${e.destinoId} version ${e.destinoVersao} is not a version of its company's webhook destination`;
    if (isClosed(e.estado) !== (e.terminadoEm !== null)) return `webhook event ${e.id}: terminadoEm must be set exactly when it is closed`;
  }
  for (const s of data.surveillance) {
    if (!companies.has(s.companyId)) return `surveillance of unknown company ${s.companyId}`;
    for (const [id] of s.selected) if (products.get(id)?.companyId !== s.companyId || !products.get(id)?.ativo) return `surveillance of ${s.companyId}: ${id} is not an active product of the company`;
  }
  for (const c of data.cnpjCorrections) if (establishments.get(c.establishmentId)?.companyId !== c.companyId) return `CNPJ correction ${c.id}: establishment ${c.establishmentId} is not of its company`;
  for (const a of [...data.analyses, ...data.executions]) if (!companies.has(a.companyId)) return `${a.id} belongs to unknown company ${a.companyId}`;
  const open = new Set<string>();
  for (const i of data.ingestions) {
    if (catalogs.get(i.catalogId)?.companyId !== i.companyId) return `ingestion ${i.id}: catalog ${i.catalogId} is not of its company`;
    if (isOpen(i.estado) && open.has(i.catalogId)) return `catalog ${i.catalogId} has two open ingestions`;
    if (isOpen(i.estado)) open.add(i.catalogId);
    if ((i.estado === 'validada' || i.estado === 'aplicando') !== (i.plan !== null)) return `ingestion ${i.id}: a plan exists exactly while validada or aplicando`;
  }
  const positions = [...data.establishments, ...data.catalogs, ...data.products, ...data.webhookEvents, ...data.cnpjCorrections, ...data.analyses, ...data.executions, ...data.ingestions]
    .map((r) => r.position)
    .concat(data.surveillance.flatMap((s) => s.selected.map((e) => e[1])))
    .concat(data.links.map((l) => l[2]));
  if (positions.some((p) => p > data.sequence)) return 'a position is beyond sequence';
  if (new Set(positions).size !== positions.length) return 'two records share a position';
  return undefined;
}
