/**
 * The company's surveillance selection and capacity (spec "Surveillance selection and capacity";
 * docs/api.md "Surveillance selection").
 *
 * Counters (kept incrementally: every product change passes through `productChanged`, so reading them is O(1)):
 *   cadastrados   active products
 *   elegiveis     active products linked to an active catalog (a product's `catalogos` names active catalogs only)
 *   selecionados  the selection; in mode `todos`, every eligible product
 *   vagas         max(capacidade − selecionados, 0)
 *   cobertura     indisponivel without entitlement; sem_selecao with nothing selected; capacidade_excedida above
 *                 capacity; integral when every eligible product is watched; else parcial
 *   exige_selecao elegiveis > capacidade: mode `todos` cannot be chosen, the company must select
 *
 * Selection (`modo`, `versao`): PATCH changes it as a whole or not at all; `versao` and the ETag move exactly on
 * those changes (the counters move with the catalog, the ETag does not). Coverage transitions raise events:
 *   anything → capacidade_excedida | indisponivel       vigilancia.degradada
 *   capacidade_excedida | indisponivel → anything else  vigilancia.restabelecida
 */
import type { Company } from './companies.js';
import { OrderedIndex } from './ordered-index.js';
import type { Product } from './products.js';
import { ok, refuse, type Result } from './refusal.js';
import { kept, nextPosition, type Context, type KindSlice, type State } from './state.js';
import { at, repeated, repeatedCompany } from './integrity.js';
import { etag, requireMatch, type IfMatch } from './versioning.js';
import { raiseEvent } from './webhooks/events.js';

export type SelectionMode = 'selecao' | 'todos';
export type Coverage = 'indisponivel' | 'sem_selecao' | 'parcial' | 'integral' | 'capacidade_excedida';

const DEGRADED: ReadonlySet<Coverage> = new Set(['capacidade_excedida', 'indisponivel']);

/** Spec "Limits": additions and removals per request. */
export const MAX_CHANGES_PER_LIST = 200;

/**
 * A company's surveillance: what a snapshot carries of it (mode, version, selection, last coverage) and the counters
 * derived from the products. It changes in place (every product change moves the counters); a change of what a
 * snapshot carries touches its entry of `state.surveillance`, where the change log sees it.
 */
export interface Surveillance {
  readonly companyId: string;
  modo: SelectionMode;
  versao: number;
  /** Selected product ids, in selection order (kept while mode is `todos`, so switching back restores it). */
  readonly selected: OrderedIndex;
  /** Maintained counts (see the table above). */
  active: number;
  eligible: number;
  selectedEligible: number;
  /** The coverage last observed: what the next change is compared with to raise events. */
  lastCoverage: Coverage;
  /** Inside a batch change (see inBatch): product changes wait for the end to compare the coverage. */
  batch: boolean;
}

export interface SurveillanceView {
  readonly cadastrados: number;
  readonly selecionados: number;
  readonly elegiveis: number;
  readonly vagas: number;
  readonly cobertura: Coverage;
  readonly exige_selecao: boolean;
  readonly modo: SelectionMode;
  readonly versao: number;
  readonly capacidade: number;
  readonly direito_ativo: boolean;
}

export function surveillanceOf(state: State, companyId: string): Surveillance {
  let s = state.surveillance.get(companyId);
  if (!s) {
    s = {
      companyId,
      modo: 'selecao',
      versao: 1,
      selected: new OrderedIndex(),
      active: 0,
      eligible: 0,
      selectedEligible: 0,
      lastCoverage: 'sem_selecao',
      batch: false,
    };
    state.surveillance.set(companyId, s);
    const company = state.companies.get(companyId);
    if (company) s.lastCoverage = coverage(countsOf(s), company);
  }
  return s;
}

export const surveillanceEtag = (s: Surveillance): string => etag('vigilancia', s.companyId, s.versao);

export const isEligible = (p: Product): boolean => p.ativo && p.catalogos.length > 0;

/** What the formulas read: the live counts, or a projection of them (the deletion preview's `depois`). */
export interface SelectionCounts {
  readonly modo: SelectionMode;
  readonly versao: number;
  readonly active: number;
  readonly eligible: number;
  /** Size of the explicit selection. */
  readonly selected: number;
  readonly selectedEligible: number;
}

export const countsOf = (s: Surveillance): SelectionCounts => ({
  modo: s.modo,
  versao: s.versao,
  active: s.active,
  eligible: s.eligible,
  selected: s.selected.size,
  selectedEligible: s.selectedEligible,
});

export function selectedCount(c: SelectionCounts): number {
  return c.modo === 'todos' ? c.eligible : c.selected;
}

export function coverage(c: SelectionCounts, company: Company): Coverage {
  const selecionados = selectedCount(c);
  if (!company.surveillanceEntitled) return 'indisponivel';
  if (selecionados === 0) return 'sem_selecao';
  if (selecionados > company.surveillanceCapacity) return 'capacidade_excedida';
  if (c.modo === 'todos' || c.selectedEligible === c.eligible) return 'integral';
  return 'parcial';
}

export function viewSurveillance(c: SelectionCounts, company: Company): SurveillanceView {
  const selecionados = selectedCount(c);
  return {
    cadastrados: c.active,
    selecionados,
    elegiveis: c.eligible,
    vagas: Math.max(company.surveillanceCapacity - selecionados, 0),
    cobertura: coverage(c, company),
    exige_selecao: c.eligible > company.surveillanceCapacity,
    modo: c.modo,
    versao: c.versao,
    capacidade: company.surveillanceCapacity,
    direito_ativo: company.surveillanceEntitled,
  };
}

/** Every product change reports here (before = undefined on creation): counters and coverage follow. */
export function productChanged(state: State, before: Product | undefined, after: Product, ctx: Context): void {
  const s = count(state, before, after);
  if (!s.batch) observeCoverage(state, after.companyId, ctx);
}

/** The counters follow a product change (before = undefined: a new product); an inactive product leaves the selection. */
function count(state: State, before: Product | undefined, after: Product): Surveillance {
  const s = surveillanceOf(state, after.companyId);
  const eligibleDelta = (isEligible(after) ? 1 : 0) - (before !== undefined && isEligible(before) ? 1 : 0);
  s.active += (after.ativo ? 1 : 0) - (before?.ativo ? 1 : 0);
  s.eligible += eligibleDelta;
  if (s.selected.has(after.id)) {
    if (!after.ativo) deselect(state, s, after.id, false);
    s.selectedEligible += eligibleDelta;
  }
  return s;
}

/**
 * Runs `change` (many product changes that form one operation, such as a catalog deletion) and compares the
 * coverage once, at the end: an all-or-nothing change raises at most one event, with its final figures.
 */
export function inBatch<T>(state: State, companyId: string, ctx: Context, change: () => T): T {
  const s = surveillanceOf(state, companyId);
  const outer = s.batch;
  s.batch = true;
  try {
    return change();
  } finally {
    s.batch = outer;
    if (!outer) observeCoverage(state, companyId, ctx);
  }
}

function deselect(state: State, s: Surveillance, productId: string, eligible: boolean): void {
  s.selected.remove(productId);
  if (eligible) s.selectedEligible--;
  state.surveillance.touch(s.companyId);
}

/** The same selection saved again (a concurrent edit's): its version moves, nothing else. */
export function resaveSelection(state: State, companyId: string): void {
  surveillanceOf(state, companyId).versao += 1;
  state.surveillance.touch(companyId);
}

/** Compares the coverage with the last one observed and raises the event of a transition (see the table above). */
export function observeCoverage(state: State, companyId: string, ctx: Context): void {
  const company = state.companies.get(companyId);
  if (!company) return;
  const s = surveillanceOf(state, companyId);
  const now = coverage(countsOf(s), company);
  const before = s.lastCoverage;
  if (now === before) return;
  s.lastCoverage = now;
  state.surveillance.touch(companyId);
  const dados = {
    cobertura: now,
    coberturaAnterior: before,
    selecionados: selectedCount(countsOf(s)),
    capacidade: company.surveillanceCapacity,
  };
  if (DEGRADED.has(now) && !DEGRADED.has(before))
    raiseEvent(state, companyId, { tipo: 'vigilancia.degradada', ...dados }, ctx);
  else if (!DEGRADED.has(now) && DEGRADED.has(before))
    raiseEvent(state, companyId, { tipo: 'vigilancia.restabelecida', ...dados }, ctx);
}

export interface SelectionChange {
  readonly modo: SelectionMode;
  readonly adicionar: readonly string[];
  readonly remover: readonly string[];
}

/**
 * PATCH /v1/empresa/vigilancia: the whole change or nothing. Product ids are checked first (422 at their
 * place in the body), then the precondition (428, 412), then the capacity (409 capacidade_insuficiente).
 */
export function changeSelection(
  state: State,
  companyId: string,
  ifMatch: IfMatch,
  change: SelectionChange,
  ctx: Context,
): Result<Surveillance> {
  const company = state.companies.get(companyId);
  if (!company)
    return refuse('not_found', 'empresa_nao_encontrada', 'The company of this credential no longer exists.');
  const s = surveillanceOf(state, companyId);
  const seen = new Set<string>();
  for (const [list, ids] of [
    ['adicionar', change.adicionar],
    ['remover', change.remover],
  ] as const) {
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const caminho = `body.${list}[${i}]`;
      if (seen.has(id))
        return refuse(
          'invalid',
          'produto_repetido',
          `${caminho}: product ${id} appears more than once in adicionar and remover.`,
          caminho,
        );
      seen.add(id);
      const product = state.products.get(id);
      if (!product || product.companyId !== companyId || !product.ativo) {
        return refuse(
          'invalid',
          'produto_invalido',
          `${caminho}: ${id} is not an active product of this company.`,
          caminho,
        );
      }
      if (list === 'remover' && !s.selected.has(id))
        return refuse('invalid', 'produto_nao_selecionado', `${caminho}: product ${id} is not selected.`, caminho);
    }
  }
  const matched = requireMatch(ifMatch, surveillanceEtag(s), 'surveillance selection');
  if (!matched.ok) return matched;
  const additions = change.adicionar.filter((id) => !s.selected.has(id));
  const size = s.selected.size + additions.length - change.remover.length;
  const watched = change.modo === 'todos' ? s.eligible : size;
  if (watched > company.surveillanceCapacity) {
    return refuse(
      'conflict',
      'capacidade_insuficiente',
      change.modo === 'todos'
        ? `Mode todos watches all ${s.eligible} eligible products, above the capacity of ${company.surveillanceCapacity}; select products instead.`
        : `The selection would hold ${size} products, above the capacity of ${company.surveillanceCapacity}; nothing was changed.`,
    );
  }
  for (const id of change.remover) deselect(state, s, id, isEligible(state.products.get(id)!));
  for (const id of additions) {
    s.selected.add(id, nextPosition(state));
    if (isEligible(state.products.get(id)!)) s.selectedEligible++;
  }
  s.modo = change.modo;
  s.versao += 1;
  state.surveillance.touch(companyId);
  observeCoverage(state, companyId, ctx);
  return ok(s);
}

/** The watched products after `position`: the selection, or in mode `todos` every eligible product. */
export function* watchedAfter(state: State, companyId: string, position?: number): Generator<[Product, number]> {
  const s = surveillanceOf(state, companyId);
  if (s.modo === 'selecao') {
    for (const [id, at] of s.selected.after(position)) {
      const product = state.products.get(id);
      if (product) yield [product, at];
    }
    return;
  }
  for (const [id, at] of state.products.listOf(companyId).after(position)) {
    const product = state.products.get(id);
    if (product && isEligible(product)) yield [product, at];
  }
}

/** A company's surveillance in a snapshot: the counters are not in it, they are derived from the products. */
export interface SurveillanceData {
  readonly companyId: string;
  readonly modo: SelectionMode;
  readonly versao: number;
  /** [product id, position] in selection order. */
  readonly selected: readonly (readonly [productId: string, position: number])[];
  readonly lastCoverage: Coverage;
}

/**
 * Each company's mode, version, selection and the coverage last observed. Imported after the products: the
 * counters are counted as each product were new, by the rule a product change follows, and no coverage is
 * compared (the one last observed comes with the snapshot).
 */
const surveillanceData = (s: Surveillance): SurveillanceData => ({
  companyId: s.companyId,
  modo: s.modo,
  versao: s.versao,
  selected: s.selected.entries(),
  lastCoverage: s.lastCoverage,
});

export const surveillanceSlice: KindSlice<'surveillance', readonly SurveillanceData[], Surveillance> = {
  key: 'surveillance',
  holds: ['surveillance'],
  collection: kept(),
  log: {
    keyOf: (s) => s.companyId,
    itemsAt: (state, companyId) => {
      const s = state.surveillance.get(companyId);
      return s === undefined ? [] : [surveillanceData(s)];
    },
  },
  toData: (state) => [...state.surveillance.values()].map(surveillanceData),
  fromData: (state, surveillance) => {
    // The companies imported now (one company's import beside others, or all of them): their products are counted.
    const counted = new Set(state.surveillance.keys());
    for (const saved of surveillance) {
      const s = surveillanceOf(state, saved.companyId);
      s.modo = saved.modo;
      s.versao = saved.versao;
      for (const [id, position] of saved.selected) s.selected.add(id, position);
      s.lastCoverage = saved.lastCoverage;
    }
    for (const [companyId, products] of state.products.lists()) {
      if (counted.has(companyId)) continue;
      for (const [id] of products.after()) count(state, undefined, state.products.get(id)!);
    }
  },
  ownerOf: (s) => s.companyId,
  removeCompany: (state, companyId) => void state.surveillance.delete(companyId),
  unique: (surveillance) =>
    repeatedCompany('surveillance', surveillance, 'companyId', (s) => s.companyId, 'the surveillance'),
  check: (data, r) => {
    for (const [i, s] of data.surveillance.entries()) {
      if (!r.companies.has(s.companyId))
        return at(['surveillance', i, 'companyId'], `surveillance of unknown company ${s.companyId}`);
      const selected = repeated(
        'selected',
        s.selected,
        0,
        ([id]) => id,
        ([id]) => `surveillance of ${s.companyId}: product ${id}`,
      );
      if (selected) return at(['surveillance', i, ...selected.path], selected.problem);
      for (const [j, [id, position]] of s.selected.entries()) {
        const product = r.products.get(id);
        if (product?.companyId !== s.companyId || !product.ativo)
          return at(
            ['surveillance', i, 'selected', j, 0],
            `surveillance of ${s.companyId}: ${id} is not an active product of the company`,
          );
        if (j > 0 && position <= s.selected[j - 1]![1])
          return at(
            ['surveillance', i, 'selected', j, 1],
            `surveillance of ${s.companyId}: the selection is listed in position order, and ${position} comes after ${s.selected[j - 1]![1]}`,
          );
      }
    }
    return undefined;
  },
  positions: (surveillance) =>
    surveillance.map((s, i) => ({
      count: s.selected.length,
      at: (j) => s.selected[j]![1],
      path: (j) => ['surveillance', i, 'selected', j, 1],
    })),
};
