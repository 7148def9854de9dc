/**
 * The state as plain data and back (DESIGN §6 "snapshot and restore"). Only records are exported; the
 * per-company indexes are derived from them on import, in the same order, so cursors stay valid.
 */
import type { Catalog } from './catalogs.js';
import type { Company } from './companies.js';
import { cnpjRoot } from './cnpj.js';
import type { Establishment } from './establishments.js';
import { idempotencyScope } from './idempotency.js';
import { isOpen, type Ingestion } from './ingestion/ingestions.js';
import type { Product } from './products.js';
import type { ReferenceData } from './regulatory/reference.js';
import { SLICES, type StateData } from './slices.js';
import { createState, type Slice, type State } from './state.js';
import { isClosed } from './webhooks/events.js';

export type { StateData } from './slices.js';

/** Each slice's records under its key, in the registry's order (the order of a snapshot's keys). */
export function exportState(state: State): StateData {
  const data: Record<string, unknown> = {};
  for (const slice of SLICES) data[slice.key] = slice.toData(state);
  return data as StateData;
}

/** A state from its data: each slice imports its key, in the registry's order. */
export function importState(data: StateData): State {
  const state = createState();
  // Each slice reads the key it wrote: the loop cannot say so to the compiler, hence the widening.
  for (const slice of SLICES as readonly Slice[]) slice.fromData(state, data[slice.key as keyof StateData]);
  return state;
}

/** Where a problem is (keys and indexes from the root of StateData, or of the task list) and what it is. */
export interface IntegrityProblem {
  readonly path: readonly (string | number)[];
  readonly problem: string;
}

type Found = IntegrityProblem | undefined;
const at = (path: readonly (string | number)[], problem: string): IntegrityProblem => ({ path, problem });

/** The records every read path looks others up in, by id. */
interface Records {
  readonly companies: ReadonlyMap<string, Company>;
  readonly establishments: ReadonlyMap<string, Establishment>;
  readonly catalogs: ReadonlyMap<string, Catalog>;
  readonly products: ReadonlyMap<string, Product>;
}

/**
 * What must hold between records for an imported state to be usable: every reference resolves within its
 * company, what is unique is unique, and the derived indexes can be rebuilt (positions increase). importState
 * and every read path rely on it. Returns the first problem found, or undefined.
 */
export function checkIntegrity(data: StateData): Found {
  const byId = <T extends { readonly id: string }>(records: readonly T[]) => new Map(records.map((r) => [r.id, r]));
  const records: Records = { companies: byId(data.companies), establishments: byId(data.establishments), catalogs: byId(data.catalogs), products: byId(data.products) };
  return (
    uniqueness(data) ??
    companiesAndEstablishments(data, records) ??
    catalogsAndProducts(data, records) ??
    webhooks(data, records) ??
    jobs(data, records) ??
    surveillanceData(data, records) ??
    reference(data.regulatory) ??
    positions(data)
  );
}

/** The first record of `records` whose key (undefined: none) an earlier one already has. */
function repeated<T>(collection: string, records: readonly T[], field: string | number, key: (record: T) => string | undefined, what: (record: T) => string): Found {
  const seen = new Set<string>();
  for (let i = 0; i < records.length; i++) {
    const k = key(records[i]!);
    if (k === undefined) continue;
    if (seen.has(k)) return at([collection, i, field], `${what(records[i]!)} appears twice`);
    seen.add(k);
  }
  return undefined;
}

function uniqueness(data: StateData): Found {
  const id = <T extends { readonly id: string }>(collection: string, records: readonly T[], noun: string) => repeated(collection, records, 'id', (r) => r.id, (r) => `${noun} ${r.id}`);
  const company = <T>(collection: string, records: readonly T[], field: string | number, companyOf: (r: T) => string, what: string) =>
    repeated(collection, records, field, companyOf, (r) => `${what} of company ${companyOf(r)}`);
  return (
    id('companies', data.companies, 'company') ??
    repeated('companies', data.companies, 'cnpjRoot', (c) => c.cnpjRoot, (c) => `CNPJ root ${c.cnpjRoot}`) ??
    // The token itself is not repeated in the message: it is a credential.
    repeated('credentials', data.credentials, 'token', (c) => c.token, () => 'a credential token') ??
    id('establishments', data.establishments, 'establishment') ??
    repeated('establishments', data.establishments, 'cnpj', (e) => `${e.companyId} ${e.cnpj}`, (e) => `CNPJ ${e.cnpj} in company ${e.companyId}`) ??
    id('catalogs', data.catalogs, 'catalog') ??
    id('products', data.products, 'product') ??
    repeated('products', data.products, 'idExterno', (p) => (p.idExterno === null ? undefined : `${p.companyId} ${p.idExterno}`), (p) => `id_externo "${p.idExterno}" in company ${p.companyId}`) ??
    repeated('links', data.links, 1, ([catalogId, productId]) => `${catalogId} ${productId}`, ([catalogId, productId]) => `the link of product ${productId} to catalog ${catalogId}`) ??
    repeated('idempotency', data.idempotency, 'key', (r) => idempotencyScope(r.companyId, r.key), (r) => `idempotency-key "${r.key}" of company ${r.companyId}`) ??
    id('webhookDestinations', data.webhookDestinations, 'webhook destination') ??
    company('webhookDestinations', data.webhookDestinations, 'companyId', (d) => d.companyId, 'the webhook destination') ??
    id('webhookEvents', data.webhookEvents, 'webhook event') ??
    id('cnpjCorrections', data.cnpjCorrections, 'CNPJ correction') ??
    id('analyses', data.analyses, 'analysis') ??
    id('executions', data.executions, 'surveillance execution') ??
    id('ingestions', data.ingestions, 'ingestion') ??
    company('evaluations', data.evaluations, 0, ([c]) => c, 'the evaluations') ??
    company('analysisUnitsUsed', data.analysisUnitsUsed, 0, ([c]) => c, 'the allowance taken') ??
    company('surveillance', data.surveillance, 'companyId', (s) => s.companyId, 'the surveillance') ??
    company('webhookSends', data.webhookSends, 0, ([c]) => c, 'the test and resend times')
  );
}

function companiesAndEstablishments(data: StateData, r: Records): Found {
  for (const [i, c] of data.companies.entries()) {
    if (r.establishments.get(c.headOfficeId)?.companyId !== c.id) return at(['companies', i, 'headOfficeId'], `company ${c.id}: head office ${c.headOfficeId} is not one of its establishments`);
  }
  for (const [i, c] of data.credentials.entries()) if (!r.companies.has(c.companyId)) return at(['credentials', i, 'companyId'], `a credential belongs to unknown company ${c.companyId}`);
  for (const [i, e] of data.establishments.entries()) {
    const company = r.companies.get(e.companyId);
    if (!company) return at(['establishments', i, 'companyId'], `establishment ${e.id} belongs to unknown company ${e.companyId}`);
    if (cnpjRoot(e.cnpj) !== company.cnpjRoot) return at(['establishments', i, 'cnpj'], `establishment ${e.id}: CNPJ ${e.cnpj} does not start with its company's root ${company.cnpjRoot}`);
    if (e.catalogoId === null) continue;
    const catalog = r.catalogs.get(e.catalogoId);
    if (catalog?.establishmentId !== e.id || catalog.estado !== 'ativo') return at(['establishments', i, 'catalogoId'], `establishment ${e.id}: catalog ${e.catalogoId} is not an active catalog of it`);
    if (e.estado === 'arquivado') return at(['establishments', i, 'catalogoId'], `establishment ${e.id} is archived, so it has no active catalog`);
  }
  for (const [i, c] of data.cnpjCorrections.entries()) {
    if (r.establishments.get(c.establishmentId)?.companyId !== c.companyId) return at(['cnpjCorrections', i, 'establishmentId'], `CNPJ correction ${c.id}: establishment ${c.establishmentId} is not of its company`);
    // An approval gives the establishment this CNPJ: it keeps the establishment in its company.
    const root = r.companies.get(c.companyId)!.cnpjRoot;
    if (cnpjRoot(c.cnpjNovo) !== root) return at(['cnpjCorrections', i, 'cnpjNovo'], `CNPJ correction ${c.id}: ${c.cnpjNovo} does not start with its company's root ${root}`);
  }
  const pending = repeated('cnpjCorrections', data.cnpjCorrections, 'estado', (c) => (c.estado === 'pendente' ? c.establishmentId : undefined), (c) => `a pending CNPJ correction of establishment ${c.establishmentId}`);
  if (pending) return pending;
  for (const [i, record] of data.idempotency.entries()) if (!r.companies.has(record.companyId)) return at(['idempotency', i, 'companyId'], `an idempotent answer belongs to unknown company ${record.companyId}`);
  return undefined;
}

function catalogsAndProducts(data: StateData, r: Records): Found {
  for (const [i, c] of data.catalogs.entries()) {
    const establishment = r.establishments.get(c.establishmentId);
    if (establishment?.companyId !== c.companyId) return at(['catalogs', i, 'establishmentId'], `catalog ${c.id}: establishment ${c.establishmentId} is not of its company`);
    if ((c.estado === 'ativo') !== (c.excluidoEm === null)) return at(['catalogs', i, 'excluidoEm'], `catalog ${c.id}: excluidoEm must be set exactly when it is excluido`);
    if (c.estado === 'ativo' && establishment.catalogoId !== c.id) return at(['catalogs', i, 'estado'], `catalog ${c.id} is active, yet establishment ${c.establishmentId} names ${establishment.catalogoId ?? 'no catalog'} as its active catalog`);
  }
  const linked = new Set(data.links.map(([catalogId, productId]) => `${catalogId} ${productId}`));
  for (const [i, p] of data.products.entries()) {
    if (!r.companies.has(p.companyId)) return at(['products', i, 'companyId'], `product ${p.id} belongs to unknown company ${p.companyId}`);
    if (!p.ativo && p.catalogos.length > 0) return at(['products', i, 'catalogos'], `product ${p.id} is inactive, so it is linked to no catalog`);
    for (const [j, id] of p.catalogos.entries()) {
      const catalog = r.catalogs.get(id);
      if (catalog?.companyId !== p.companyId) return at(['products', i, 'catalogos', j], `product ${p.id}: catalog ${id} is not of its company`);
      if (catalog.estado !== 'ativo') return at(['products', i, 'catalogos', j], `product ${p.id}: catalog ${id} is deleted, and a deleted catalog has no products`);
      if (p.catalogos.indexOf(id) !== j) return at(['products', i, 'catalogos', j], `product ${p.id}: catalog ${id} appears twice`);
      if (!linked.has(`${id} ${p.id}`)) return at(['products', i, 'catalogos', j], `product ${p.id}: its link to catalog ${id} is not in links`);
    }
  }
  for (const [i, [catalogId, productId]] of data.links.entries()) {
    if (!r.products.get(productId)?.catalogos.includes(catalogId)) return at(['links', i], `link ${catalogId} → ${productId} is not in the product's catalogos`);
  }
  return undefined;
}

function webhooks(data: StateData, r: Records): Found {
  for (const [i, d] of data.webhookDestinations.entries()) if (!r.companies.has(d.companyId)) return at(['webhookDestinations', i, 'companyId'], `webhook destination ${d.id} belongs to unknown company ${d.companyId}`);
  const destinationOf = new Map(data.webhookDestinations.map((d) => [d.companyId, d]));
  for (const [i, e] of data.webhookEvents.entries()) {
    if (!r.companies.has(e.companyId)) return at(['webhookEvents', i, 'companyId'], `webhook event ${e.id} belongs to unknown company ${e.companyId}`);
    const destination = destinationOf.get(e.companyId);
    if (destination?.id !== e.destinoId || e.destinoVersao > destination.versao) {
      return at(['webhookEvents', i, destination?.id !== e.destinoId ? 'destinoId' : 'destinoVersao'], `webhook event ${e.id}: destination ${e.destinoId} version ${e.destinoVersao} is not a version of its company's webhook destination`);
    }
    if (isClosed(e.estado) !== (e.terminadoEm !== null)) return at(['webhookEvents', i, 'terminadoEm'], `webhook event ${e.id}: terminadoEm must be set exactly when it is closed`);
    for (const [j, a] of e.attempts.entries()) {
      const path = ['webhookEvents', i, 'attempts', j];
      // The attempts query pages by this number, and a late outcome finds its attempt by it.
      if (a.tentativa !== j + 1) return at([...path, 'tentativa'], `webhook event ${e.id}: attempt ${j + 1} is numbered ${a.tentativa}; attempts are numbered 1, 2, … in order`);
      if (a.ciclo > e.ciclo) return at([...path, 'ciclo'], `webhook event ${e.id}: attempt ${a.tentativa} is of cycle ${a.ciclo}, after the event's cycle ${e.ciclo}`);
      if ((a.estado === 'iniciada') !== (a.terminadaEm === null)) return at([...path, 'terminadaEm'], `webhook event ${e.id}: attempt ${a.tentativa} must have terminadaEm exactly when it has ended`);
    }
  }
  for (const [i, [companyId]] of data.webhookSends.entries()) if (!r.companies.has(companyId)) return at(['webhookSends', i, 0], `test and resend times of unknown company ${companyId}`);
  return undefined;
}

function jobs(data: StateData, r: Records): Found {
  for (const [i, a] of data.analyses.entries()) if (!r.companies.has(a.companyId)) return at(['analyses', i, 'companyId'], `analysis ${a.id} belongs to unknown company ${a.companyId}`);
  const open = repeated('analyses', data.analyses, 'estado', (a) => (a.estado === 'pendente' || a.estado === 'executando' ? a.companyId : undefined), (a) => `an open (pendente or executando) analysis of company ${a.companyId}`);
  if (open) return open;
  for (const [i, [companyId]] of data.analysisUnitsUsed.entries()) if (!r.companies.has(companyId)) return at(['analysisUnitsUsed', i, 0], `allowance taken by unknown company ${companyId}`);
  for (const [i, e] of data.executions.entries()) if (!r.companies.has(e.companyId)) return at(['executions', i, 'companyId'], `surveillance execution ${e.id} belongs to unknown company ${e.companyId}`);
  for (const [i, [companyId, entries]] of data.evaluations.entries()) {
    if (!r.companies.has(companyId)) return at(['evaluations', i, 0], `evaluations of unknown company ${companyId}`);
    const seen = new Set<string>();
    for (const [j, [productId]] of entries.entries()) {
      if (r.products.get(productId)?.companyId !== companyId) return at(['evaluations', i, 1, j, 0], `evaluations of ${companyId}: ${productId} is not a product of the company`);
      if (seen.has(productId)) return at(['evaluations', i, 1, j, 0], `evaluations of ${companyId}: product ${productId} appears twice`);
      seen.add(productId);
    }
  }
  const openCatalogs = new Set<string>();
  for (const [i, g] of data.ingestions.entries()) {
    const path = ['ingestions', i];
    if (r.catalogs.get(g.catalogId)?.companyId !== g.companyId) return at([...path, 'catalogId'], `ingestion ${g.id}: catalog ${g.catalogId} is not of its company`);
    if (isOpen(g.estado) && openCatalogs.has(g.catalogId)) return at([...path, 'estado'], `catalog ${g.catalogId} has two open ingestions`);
    if (isOpen(g.estado)) openCatalogs.add(g.catalogId);
    if ((g.estado === 'validada' || g.estado === 'aplicando') !== (g.plan !== null)) return at([...path, 'plan'], `ingestion ${g.id}: a plan exists exactly while validada or aplicando`);
    const batch = repeated('batches', g.batches, 'numero', (b) => String(b.numero), (b) => `ingestion ${g.id}: batch ${b.numero}`);
    if (batch) return at([...path, ...batch.path], batch.problem);
    const planProblem = plan(g, r);
    if (planProblem) return at([...path, 'plan', ...planProblem.path], planProblem.problem);
  }
  return undefined;
}

/**
 * An ingestion's plan names products of its company. The application acts on a product only while it is at the
 * version the plan read (else the plan is stale and nothing is applied), so for such a product the plan must say
 * what is true of it: whether it is linked to the catalog, whether it is inactive, and (to deactivate it) that
 * this catalog is its only one. Otherwise the application would leave the products inconsistent.
 */
function plan(g: Ingestion, r: Records): Found {
  const current = (productId: string, versao: number | null) => {
    const product = r.products.get(productId);
    return product?.versao === versao ? product : undefined;
  };
  for (const [j, planned] of (g.plan?.records ?? []).entries()) {
    const where = ['records', j];
    if ((planned.action === 'novo') !== (planned.productId === null) || (planned.productId === null) !== (planned.productVersao === null)) {
      return at([...where, 'productId'], `ingestion ${g.id}: a novo record names no product (productId and productVersao null); any other names the product it matched and its version`);
    }
    if (planned.productId === null) continue;
    if (r.products.get(planned.productId)?.companyId !== g.companyId) return at([...where, 'productId'], `ingestion ${g.id}: ${planned.productId} is not a product of its company`);
    const product = current(planned.productId, planned.productVersao);
    if (product && planned.link === product.catalogos.includes(g.catalogId)) return at([...where, 'link'], `ingestion ${g.id}: link must say whether product ${product.id} is still to be linked to catalog ${g.catalogId}`);
    if (product && (planned.action === 'reativado') === product.ativo) return at([...where, 'action'], `ingestion ${g.id}: a record is reativado exactly when its product (${product.id}) is inactive`);
  }
  const named = new Set((g.plan?.records ?? []).flatMap((planned) => (planned.productId === null ? [] : [planned.productId])));
  if (named.size !== (g.plan?.records ?? []).filter((planned) => planned.productId !== null).length) return at(['records'], `ingestion ${g.id}: a product is named by two records`);
  for (const [j, removal] of (g.plan?.removals ?? []).entries()) {
    const where = ['removals', j];
    if (named.has(removal.productId)) return at([...where, 'productId'], `ingestion ${g.id}: product ${removal.productId} is both in the records and among the removals`);
    named.add(removal.productId);
    if (r.products.get(removal.productId)?.companyId !== g.companyId) return at([...where, 'productId'], `ingestion ${g.id}: ${removal.productId} is not a product of its company`);
    const product = current(removal.productId, removal.productVersao);
    if (product && !product.catalogos.includes(g.catalogId)) return at([...where, 'productId'], `ingestion ${g.id}: product ${product.id} is not linked to catalog ${g.catalogId}, so it cannot be unlinked`);
    if (product && removal.deactivate && product.catalogos.length !== 1) return at([...where, 'deactivate'], `ingestion ${g.id}: product ${product.id} is linked to other catalogs too, so it is not deactivated`);
  }
  return undefined;
}

function surveillanceData(data: StateData, r: Records): Found {
  for (const [i, s] of data.surveillance.entries()) {
    if (!r.companies.has(s.companyId)) return at(['surveillance', i, 'companyId'], `surveillance of unknown company ${s.companyId}`);
    const selected = repeated('selected', s.selected, 0, ([id]) => id, ([id]) => `surveillance of ${s.companyId}: product ${id}`);
    if (selected) return at(['surveillance', i, ...selected.path], selected.problem);
    for (const [j, [id, position]] of s.selected.entries()) {
      const product = r.products.get(id);
      if (product?.companyId !== s.companyId || !product.ativo) return at(['surveillance', i, 'selected', j, 0], `surveillance of ${s.companyId}: ${id} is not an active product of the company`);
      if (j > 0 && position <= s.selected[j - 1]![1]) return at(['surveillance', i, 'selected', j, 1], `surveillance of ${s.companyId}: the selection is listed in position order, and ${position} comes after ${s.selected[j - 1]![1]}`);
    }
  }
  return undefined;
}

/** A table of the regulatory reference: each code once, and required attributes that are defined. */
function reference(regulatory: ReferenceData): Found {
  const table = regulatory.table;
  if (table === null) return undefined;
  const path = ['regulatory', 'table'];
  const ncm = repeated('ncms', table.ncms, 'codigo', (n) => n.codigo, (n) => `NCM ${n.codigo}`);
  const attribute = repeated('atributos', table.atributos, 'codigo', (a) => a.codigo, (a) => `attribute ${a.codigo}`);
  const twice = ncm ?? attribute;
  if (twice) return at([...path, ...twice.path], twice.problem);
  const defined = new Set(table.atributos.map((a) => a.codigo));
  for (const [i, n] of table.ncms.entries()) {
    if (n.extinta !== (n.extintaDesde !== null)) return at([...path, 'ncms', i, 'extintaDesde'], `NCM ${n.codigo}: extintaDesde must be set exactly when it is extinta`);
    for (const [j, code] of n.obrigatorios.entries()) {
      if (!defined.has(code)) return at([...path, 'ncms', i, 'obrigatorios', j], `NCM ${n.codigo} requires attribute ${code}, which the table does not define`);
      if (n.obrigatorios.indexOf(code) !== j) return at([...path, 'ncms', i, 'obrigatorios', j], `NCM ${n.codigo} requires attribute ${code} twice`);
    }
  }
  return undefined;
}

/** Positions order every list: each one is unique and at most `sequence`, the last one handed out. */
function positions(data: StateData): Found {
  const seen = new Map<number, readonly (string | number)[]>();
  const check = (path: readonly (string | number)[], position: number): Found => {
    if (position > data.sequence) return at(path, `position ${position} is beyond sequence ${data.sequence}, the last position handed out`);
    const other = seen.get(position);
    if (other !== undefined) return at(path, `position ${position} is also that of ${other.join('.')}`);
    seen.set(position, path);
    return undefined;
  };
  const collections = { establishments: data.establishments, catalogs: data.catalogs, products: data.products, webhookEvents: data.webhookEvents, cnpjCorrections: data.cnpjCorrections, analyses: data.analyses, executions: data.executions, ingestions: data.ingestions };
  for (const [name, records] of Object.entries(collections)) {
    for (const [i, record] of records.entries()) {
      const found = check([name, i, 'position'], record.position);
      if (found) return found;
    }
  }
  for (const [i, s] of data.surveillance.entries()) {
    for (const [j, [, position]] of s.selected.entries()) {
      const found = check(['surveillance', i, 'selected', j, 1], position);
      if (found) return found;
    }
  }
  for (const [i, [, , position]] of data.links.entries()) {
    const found = check(['links', i, 2], position);
    if (found) return found;
  }
  return undefined;
}

/** What a task may name in its payload: the record it works on. */
export interface TaskReference {
  readonly owner: string | null;
  readonly payload?: unknown;
}

/**
 * The record a task's payload names, by payload key. A job's records are never removed, so a task naming one
 * that does not exist cannot come from this emulator; an event may have been removed by retention, and the
 * delivery handlers do nothing for one that is gone, so a task may outlive it.
 */
const TASK_SUBJECTS = [
  { key: 'analysisId', noun: 'analysis', records: (d: StateData) => d.analyses, mustExist: true },
  { key: 'executionId', noun: 'surveillance execution', records: (d: StateData) => d.executions, mustExist: true },
  { key: 'correctionId', noun: 'CNPJ correction', records: (d: StateData) => d.cnpjCorrections, mustExist: true },
  { key: 'ingestionId', noun: 'ingestion', records: (d: StateData) => d.ingestions, mustExist: true },
  { key: 'eventId', noun: 'webhook event', records: (d: StateData) => d.webhookEvents, mustExist: false },
] as const;

/**
 * Every task belongs to a company of the state (or to none: the emulator's housekeeping), and the record its
 * payload names is of that company, so a job fault aimed at one company never fires on another's work.
 * Paths are from the root of the task list.
 */
export function checkTaskSubjects(data: StateData, tasks: readonly TaskReference[]): Found {
  const companies = new Set(data.companies.map((c) => c.id));
  const lookups = TASK_SUBJECTS.map((s) => ({ ...s, byId: new Map<string, { readonly companyId: string }>(s.records(data).map((record) => [record.id, record])) }));
  for (const [i, task] of tasks.entries()) {
    if (task.owner !== null && !companies.has(task.owner)) return at([i, 'owner'], `a task of unknown company ${task.owner}`);
    const payload = task.payload;
    if (typeof payload !== 'object' || payload === null) continue;
    for (const subject of lookups) {
      const id = (payload as Record<string, unknown>)[subject.key];
      if (typeof id !== 'string') continue;
      const record = subject.byId.get(id);
      if (!record) {
        if (subject.mustExist) return at([i, 'payload', subject.key], `no ${subject.noun} ${id} in the state`);
      } else if (record.companyId !== task.owner) {
        return at([i, 'owner'], `a task of ${subject.noun} ${id} belongs to its company ${record.companyId}, not ${task.owner ?? 'null'}`);
      }
    }
  }
  return undefined;
}
