/**
 * The pure core of the surveillance selection (src/core/surveillance.ts): coverage() branch by branch, the
 * view and its formulas, the counters productChanged maintains for every product change, changeSelection's
 * refusals in their documented order and its whole-or-nothing rule, the events observeCoverage raises on
 * exactly the documented transitions, and the watched products in both modes.
 */
import { describe, expect, it } from 'vitest';
import { deleteCatalog, previewDeletion } from './catalog-deletion.js';
import { createCatalog, type Catalog } from './catalogs.js';
import { createCompany, updateCompany, type Company, type CompanyFlags } from './companies.js';
import { registerEstablishment } from './establishments.js';
import {
  createProduct,
  editProduct,
  linkProduct,
  productEtag,
  replaceProduct,
  unlinkProduct,
  type Product,
} from './products.js';
import { createRandom, seedRandom } from './random.js';
import type { Result } from './refusal.js';
import { type Context, type State } from './state.js';
import { createState } from './slices.js';
import {
  changeSelection,
  countsOf,
  coverage,
  isEligible,
  MAX_CHANGES_PER_LIST,
  observeCoverage,
  selectedCount,
  surveillanceEtag,
  surveillanceOf,
  viewSurveillance,
  watchedAfter,
  type Coverage,
  type SelectionChange,
  type SelectionCounts,
  type SelectionMode,
  type Surveillance,
} from './surveillance.js';
import { T0, CORE_CONFIG, ROOT, cnpj, expectRefusal, unwrap } from './testing/support.js';
import { configureDestination, destinationEtag, revokeDestination } from './webhooks/destination.js';
import { TASK_ATTEMPT } from './webhooks/events.js';

const UNKNOWN = '0190a000-0000-7000-8000-000000000000';

// ---------------------------------------------------------------------------------------------------------
// Pure values: a company and a surveillance record built by hand

function company(flags: { entitled?: boolean; capacity?: number } = {}): Company {
  return {
    id: 'c',
    cnpjRoot: ROOT,
    name: 'Empresa',
    subscriptionActive: true,
    surveillanceEntitled: flags.entitled ?? true,
    surveillanceCapacity: flags.capacity ?? 10,
    analysisAllowance: 10,
    headOfficeId: 'h',
    createdAt: T0,
  };
}

/** The counts the formulas read, built by hand (`selected` is the size of the explicit selection). */
function record(fields: {
  modo?: SelectionMode;
  selected?: number;
  active?: number;
  eligible?: number;
  selectedEligible?: number;
  versao?: number;
}): SelectionCounts {
  return {
    modo: fields.modo ?? 'selecao',
    versao: fields.versao ?? 1,
    active: fields.active ?? fields.eligible ?? 0,
    eligible: fields.eligible ?? 0,
    selected: fields.selected ?? 0,
    selectedEligible: fields.selectedEligible ?? 0,
  };
}

describe('coverage', () => {
  it('indisponivel without entitlement, before every other rule', () => {
    const off = company({ entitled: false, capacity: 2 });
    expect(coverage(record({}), off)).toBe('indisponivel');
    expect(coverage(record({ selected: 5, eligible: 5, selectedEligible: 5 }), off)).toBe('indisponivel');
    expect(coverage(record({ modo: 'todos', eligible: 1 }), off)).toBe('indisponivel');
    expect(coverage(record({ selected: 1, eligible: 3, selectedEligible: 1 }), off)).toBe('indisponivel');
  });

  it('sem_selecao with nothing watched: an empty selection, or mode todos with no eligible product', () => {
    expect(coverage(record({ eligible: 4 }), company())).toBe('sem_selecao');
    expect(coverage(record({ modo: 'todos', selected: 2 }), company())).toBe('sem_selecao');
    expect(coverage(record({}), company({ capacity: 0 }))).toBe('sem_selecao');
  });

  it('capacidade_excedida above the capacity (not at it), in both modes', () => {
    expect(coverage(record({ selected: 3, eligible: 3, selectedEligible: 3 }), company({ capacity: 2 }))).toBe(
      'capacidade_excedida',
    );
    expect(coverage(record({ selected: 1 }), company({ capacity: 0 }))).toBe('capacidade_excedida');
    expect(coverage(record({ modo: 'todos', eligible: 3 }), company({ capacity: 2 }))).toBe('capacidade_excedida');
    expect(coverage(record({ selected: 2, eligible: 2, selectedEligible: 2 }), company({ capacity: 2 }))).toBe(
      'integral',
    );
    expect(coverage(record({ modo: 'todos', eligible: 2 }), company({ capacity: 2 }))).toBe('integral');
  });

  it('integral in mode todos whatever the selection, or when every eligible product is selected', () => {
    expect(coverage(record({ modo: 'todos', eligible: 3, selected: 1, selectedEligible: 1 }), company())).toBe(
      'integral',
    );
    expect(coverage(record({ selected: 3, eligible: 3, selectedEligible: 3 }), company())).toBe('integral');
    // Selected products that are not eligible count in selecionados; every eligible one (none) is selected.
    expect(coverage(record({ selected: 2, eligible: 0, selectedEligible: 0 }), company())).toBe('integral');
    expect(coverage(record({ selected: 4, eligible: 2, selectedEligible: 2 }), company())).toBe('integral');
  });

  it('parcial when some eligible product is not selected', () => {
    expect(coverage(record({ selected: 1, eligible: 2, selectedEligible: 1 }), company())).toBe('parcial');
    expect(coverage(record({ selected: 3, eligible: 2, selectedEligible: 1 }), company())).toBe('parcial');
  });
});

describe('viewSurveillance and selectedCount', () => {
  it('answers the ten fields from the counters and the company', () => {
    const s = record({ selected: 2, active: 7, eligible: 5, selectedEligible: 2, versao: 4 });
    expect(viewSurveillance(s, company({ capacity: 3 }))).toEqual({
      cadastrados: 7,
      selecionados: 2,
      elegiveis: 5,
      vagas: 1,
      cobertura: 'parcial',
      exige_selecao: true,
      modo: 'selecao',
      versao: 4,
      capacidade: 3,
      direito_ativo: true,
    });
  });

  it('selecionados is the eligible count in mode todos (not the kept selection)', () => {
    const s = record({ modo: 'todos', selected: 1, eligible: 4, selectedEligible: 1 });
    expect(selectedCount(s)).toBe(4);
    expect(viewSurveillance(s, company({ capacity: 6 }))).toMatchObject({
      selecionados: 4,
      vagas: 2,
      cobertura: 'integral',
      modo: 'todos',
    });
    expect(selectedCount(record({ selected: 3, eligible: 1 }))).toBe(3);
  });

  it('vagas never goes below zero; exige_selecao is elegiveis > capacidade (not ≥)', () => {
    expect(
      viewSurveillance(record({ selected: 5, eligible: 5, selectedEligible: 5 }), company({ capacity: 2 })),
    ).toMatchObject({ vagas: 0, exige_selecao: true });
    expect(
      viewSurveillance(record({ selected: 2, eligible: 2, selectedEligible: 2 }), company({ capacity: 2 })),
    ).toMatchObject({ vagas: 0, exige_selecao: false });
    expect(viewSurveillance(record({ eligible: 3 }), company({ capacity: 2 }))).toMatchObject({
      vagas: 2,
      exige_selecao: true,
    });
  });

  it('shows the entitlement and the capacity as the company has them', () => {
    expect(viewSurveillance(record({}), company({ entitled: false, capacity: 0 }))).toEqual({
      cadastrados: 0,
      selecionados: 0,
      elegiveis: 0,
      vagas: 0,
      cobertura: 'indisponivel',
      exige_selecao: false,
      modo: 'selecao',
      versao: 1,
      capacidade: 0,
      direito_ativo: false,
    });
  });
});

// ---------------------------------------------------------------------------------------------------------
// A state with one company, two catalogs (head office and a branch) and helpers

interface World {
  readonly state: State;
  readonly companyId: string;
  readonly head: Catalog;
  readonly branch: Catalog;
  readonly ctx: (now?: number) => Context;
  readonly s: () => Surveillance;
}

function setup(flags: CompanyFlags = {}): World {
  const state = createState();
  const random = createRandom(seedRandom(1));
  const ctx = (now = T0): Context => ({ now, random, config: CORE_CONFIG });
  const created = unwrap(createCompany(state, { cnpjRoot: ROOT, ...flags }, ctx()));
  const companyId = created.company.id;
  const branchEstablishment = unwrap(
    registerEstablishment(state, companyId, { cnpj: cnpj(ROOT, '0002'), nome: 'Filial' }, ctx()),
  );
  const head = unwrap(
    createCatalog(state, companyId, { establishmentId: created.headOffice.id, nome: 'Matriz' }, ctx()),
  );
  const branch = unwrap(
    createCatalog(state, companyId, { establishmentId: branchEstablishment.id, nome: 'Filial' }, ctx()),
  );
  state.outbox.length = 0;
  return { state, companyId, head, branch, ctx, s: () => surveillanceOf(state, companyId) };
}

const current = (w: World, id: string): Product => w.state.products.get(id)!;
const newProduct = (w: World, catalog: Catalog = w.head): Product =>
  unwrap(createProduct(w.state, w.companyId, catalog.id, { origem: 'erp', ncm: '84713012' }, w.ctx()));
const link = (w: World, catalog: Catalog, id: string) =>
  unwrap(linkProduct(w.state, w.companyId, catalog.id, id, [productEtag(current(w, id))], w.ctx()));
const unlink = (w: World, catalog: Catalog, id: string) =>
  unwrap(unlinkProduct(w.state, w.companyId, catalog.id, id, [productEtag(current(w, id))], w.ctx()));
const deactivate = (w: World, id: string) => replaceProduct(w.state, current(w, id), { ativo: false }, w.ctx());

/** The change with the current ETag; modo selecao and no ids unless given. */
function select(
  w: World,
  change: Partial<SelectionChange> = {},
  ifMatch: readonly string[] | null | 'current' = 'current',
): Result<Surveillance> {
  const sent = ifMatch === 'current' ? [surveillanceEtag(w.s())] : ifMatch === null ? undefined : ifMatch;
  return changeSelection(
    w.state,
    w.companyId,
    sent,
    { modo: change.modo ?? 'selecao', adicionar: change.adicionar ?? [], remover: change.remover ?? [] },
    w.ctx(),
  );
}

const counters = (w: World) => ({
  active: w.s().active,
  eligible: w.s().eligible,
  selectedEligible: w.s().selectedEligible,
  selected: w.s().selected.size,
});

/** The counters recomputed from the records: what the maintained ones must always equal. */
function recount(w: World) {
  let active = 0;
  let eligible = 0;
  let selectedEligible = 0;
  for (const p of w.state.products.values()) {
    if (p.companyId !== w.companyId) continue;
    if (p.ativo) active++;
    if (isEligible(p)) {
      eligible++;
      if (w.s().selected.has(p.id)) selectedEligible++;
    }
  }
  return { active, eligible, selectedEligible, selected: w.s().selected.size };
}

/** Everything a refused change must leave alone. */
function fingerprint(w: World) {
  const s = w.s();
  return {
    modo: s.modo,
    versao: s.versao,
    selected: s.selected.entries(),
    counters: counters(w),
    lastCoverage: s.lastCoverage,
    outbox: [...w.state.outbox],
    events: [...w.state.webhookEvents.keys()],
    sequence: w.state.sequence,
  };
}

describe('surveillanceOf and surveillanceEtag', () => {
  it('a company starts in mode selecao, versao 1, nothing selected, its coverage observed at creation', () => {
    const w = setup();
    expect(w.s()).toMatchObject({
      companyId: w.companyId,
      modo: 'selecao',
      versao: 1,
      active: 0,
      eligible: 0,
      selectedEligible: 0,
      lastCoverage: 'sem_selecao',
    });
    expect(w.s().selected.size).toBe(0);
    expect(setup({ surveillanceEntitled: false }).s().lastCoverage).toBe('indisponivel');
  });

  it('the ETag is a strong tag that moves exactly with versao', () => {
    const w = setup();
    const first = surveillanceEtag(w.s());
    expect(first).toMatch(/^"[^"]+"$/);
    newProduct(w);
    expect(surveillanceEtag(w.s())).toBe(first);
    unwrap(select(w));
    expect(surveillanceEtag(w.s())).not.toBe(first);
  });

  it("countsOf reads the record: the explicit selection's size, whatever the mode", () => {
    const w = setup();
    const [a, b] = [newProduct(w), newProduct(w)];
    unlink(w, w.head, b.id);
    unwrap(select(w, { adicionar: [a.id, b.id] }));
    unwrap(select(w, { modo: 'todos' }));
    expect(countsOf(w.s())).toEqual({
      modo: 'todos',
      versao: 3,
      active: 2,
      eligible: 1,
      selected: 2,
      selectedEligible: 1,
    });
    expect(selectedCount(countsOf(w.s()))).toBe(1);
  });

  it("MAX_CHANGES_PER_LIST is the spec's 200", () => {
    expect(MAX_CHANGES_PER_LIST).toBe(200);
  });
});

describe('productChanged: the counters follow every product change', () => {
  it('creation: cadastrados +1 and elegiveis +1', () => {
    const w = setup();
    newProduct(w);
    expect(counters(w)).toEqual({ active: 1, eligible: 1, selectedEligible: 0, selected: 0 });
    newProduct(w, w.branch);
    expect(counters(w)).toEqual({ active: 2, eligible: 2, selectedEligible: 0, selected: 0 });
  });

  it('link to a second catalog and unlink from one of two: no change; unlink from the last: elegiveis −1; link again: +1', () => {
    const w = setup();
    const p = newProduct(w);
    link(w, w.branch, p.id);
    expect(counters(w)).toEqual({ active: 1, eligible: 1, selectedEligible: 0, selected: 0 });
    unlink(w, w.head, p.id);
    expect(counters(w)).toEqual({ active: 1, eligible: 1, selectedEligible: 0, selected: 0 });
    unlink(w, w.branch, p.id);
    expect(counters(w)).toEqual({ active: 1, eligible: 0, selectedEligible: 0, selected: 0 });
    link(w, w.head, p.id);
    expect(counters(w)).toEqual({ active: 1, eligible: 1, selectedEligible: 0, selected: 0 });
  });

  it('a selected product: selectedEligible follows its eligibility; it stays selected when unlinked from its last catalog', () => {
    const w = setup();
    const p = newProduct(w);
    unwrap(select(w, { adicionar: [p.id] }));
    expect(counters(w)).toEqual({ active: 1, eligible: 1, selectedEligible: 1, selected: 1 });
    link(w, w.branch, p.id);
    expect(counters(w)).toEqual({ active: 1, eligible: 1, selectedEligible: 1, selected: 1 });
    unlink(w, w.head, p.id);
    unlink(w, w.branch, p.id);
    expect(counters(w)).toEqual({ active: 1, eligible: 0, selectedEligible: 0, selected: 1 });
    link(w, w.branch, p.id);
    expect(counters(w)).toEqual({ active: 1, eligible: 1, selectedEligible: 1, selected: 1 });
  });

  it('an edit changes no counter', () => {
    const w = setup();
    const p = newProduct(w);
    unwrap(select(w, { adicionar: [p.id] }));
    unwrap(editProduct(w.state, w.companyId, p.id, [productEtag(p)], { descricao: 'Outra' }, w.ctx()));
    expect(counters(w)).toEqual({ active: 1, eligible: 1, selectedEligible: 1, selected: 1 });
  });

  it('deactivation: cadastrados −1, elegiveis −1 when it was eligible, and it leaves the selection (selectedEligible −1 only if it was eligible)', () => {
    const w = setup();
    const [a, b, c, d] = [newProduct(w), newProduct(w), newProduct(w), newProduct(w)];
    unlink(w, w.head, b.id);
    unlink(w, w.head, d.id);
    unwrap(select(w, { adicionar: [a.id, b.id] }));
    expect(counters(w)).toEqual({ active: 4, eligible: 2, selectedEligible: 1, selected: 2 });
    deactivate(w, a.id); // selected, eligible
    expect(counters(w)).toEqual({ active: 3, eligible: 1, selectedEligible: 0, selected: 1 });
    expect(w.s().selected.has(a.id)).toBe(false);
    deactivate(w, b.id); // selected, not eligible
    expect(counters(w)).toEqual({ active: 2, eligible: 1, selectedEligible: 0, selected: 0 });
    deactivate(w, c.id); // not selected, eligible
    expect(counters(w)).toEqual({ active: 1, eligible: 0, selectedEligible: 0, selected: 0 });
    deactivate(w, d.id); // not selected, not eligible
    expect(counters(w)).toEqual({ active: 0, eligible: 0, selectedEligible: 0, selected: 0 });
    expect(counters(w)).toEqual(recount(w));
  });

  it('an inactive product cannot come back: edit and link are refused (produto_inativo) and the counters stay', () => {
    const w = setup();
    const p = newProduct(w);
    const inactive = deactivate(w, p.id);
    const before = counters(w);
    expectRefusal(
      editProduct(w.state, w.companyId, p.id, [productEtag(inactive)], { descricao: 'x' }, w.ctx()),
      'conflict',
      'produto_inativo',
    );
    expectRefusal(
      linkProduct(w.state, w.companyId, w.branch.id, p.id, [productEtag(inactive)], w.ctx()),
      'conflict',
      'produto_inativo',
    );
    expectRefusal(
      unlinkProduct(w.state, w.companyId, w.head.id, p.id, [productEtag(inactive)], w.ctx()),
      'conflict',
      'produto_inativo',
    );
    expect(counters(w)).toEqual(before);
    expect(current(w, p.id)).toBe(inactive);
    // Nor can it be selected again.
    expectRefusal(select(w, { adicionar: [p.id] }), 'invalid', 'produto_invalido', 'body.adicionar[0]');
  });

  it("counters of one company never move with another company's products", () => {
    const w = setup();
    const other = unwrap(createCompany(w.state, { cnpjRoot: '44555666' }, w.ctx()));
    const theirs = unwrap(
      createCatalog(w.state, other.company.id, { establishmentId: other.headOffice.id, nome: 'X' }, w.ctx()),
    );
    unwrap(createProduct(w.state, other.company.id, theirs.id, { origem: 'erp', ncm: '84713012' }, w.ctx()));
    expect(counters(w)).toEqual({ active: 0, eligible: 0, selectedEligible: 0, selected: 0 });
    expect(surveillanceOf(w.state, other.company.id)).toMatchObject({ active: 1, eligible: 1 });
  });
});

describe('changeSelection: refusals in order', () => {
  it('an unknown company → not_found empresa_nao_encontrada', () => {
    const w = setup();
    expectRefusal(
      changeSelection(w.state, UNKNOWN, undefined, { modo: 'selecao', adicionar: [], remover: [] }, w.ctx()),
      'not_found',
      'empresa_nao_encontrada',
    );
  });

  it('a repeated id → produto_repetido at its second place, within a list or across them', () => {
    const w = setup();
    const [a, b] = [newProduct(w), newProduct(w)];
    unwrap(select(w, { adicionar: [a.id] }));
    const before = fingerprint(w);
    expectRefusal(select(w, { adicionar: [b.id, b.id] }), 'invalid', 'produto_repetido', 'body.adicionar[1]');
    expectRefusal(select(w, { remover: [a.id, a.id] }), 'invalid', 'produto_repetido', 'body.remover[1]');
    expectRefusal(
      select(w, { adicionar: [b.id, a.id], remover: [a.id] }),
      'invalid',
      'produto_repetido',
      'body.remover[0]',
    );
    expect(fingerprint(w)).toEqual(before);
  });

  it("not an active product of the company → produto_invalido: unknown, another company's, inactive, in either list", () => {
    const w = setup();
    const [a, gone] = [newProduct(w), newProduct(w)];
    deactivate(w, gone.id);
    const other = unwrap(createCompany(w.state, { cnpjRoot: '44555666' }, w.ctx()));
    const theirCatalog = unwrap(
      createCatalog(w.state, other.company.id, { establishmentId: other.headOffice.id, nome: 'X' }, w.ctx()),
    );
    const theirs = unwrap(
      createProduct(w.state, other.company.id, theirCatalog.id, { origem: 'erp', ncm: '84713012' }, w.ctx()),
    );
    unwrap(select(w, { adicionar: [a.id] }));
    const before = fingerprint(w);
    expectRefusal(select(w, { adicionar: [UNKNOWN] }), 'invalid', 'produto_invalido', 'body.adicionar[0]');
    expectRefusal(select(w, { adicionar: [w.head.id] }), 'invalid', 'produto_invalido', 'body.adicionar[0]');
    expectRefusal(select(w, { adicionar: [theirs.id] }), 'invalid', 'produto_invalido', 'body.adicionar[0]');
    expectRefusal(select(w, { adicionar: [gone.id] }), 'invalid', 'produto_invalido', 'body.adicionar[0]');
    expectRefusal(select(w, { remover: [a.id, theirs.id] }), 'invalid', 'produto_invalido', 'body.remover[1]');
    expect(fingerprint(w)).toEqual(before);
  });

  it('removing a product not selected → produto_nao_selecionado (adding it in the same change does not select it first)', () => {
    const w = setup();
    const [a, b] = [newProduct(w), newProduct(w)];
    unwrap(select(w, { adicionar: [a.id] }));
    const before = fingerprint(w);
    expectRefusal(select(w, { remover: [a.id, b.id] }), 'invalid', 'produto_nao_selecionado', 'body.remover[1]');
    expect(fingerprint(w)).toEqual(before);
  });

  it('each id gets its three checks before the next id; adicionar before remover', () => {
    const w = setup();
    const [a, b, c] = [newProduct(w), newProduct(w), newProduct(w)];
    unwrap(select(w, { adicionar: [a.id] }));
    expectRefusal(
      select(w, { adicionar: [b.id, UNKNOWN], remover: [b.id] }),
      'invalid',
      'produto_invalido',
      'body.adicionar[1]',
    );
    expectRefusal(select(w, { adicionar: [UNKNOWN, UNKNOWN] }), 'invalid', 'produto_invalido', 'body.adicionar[0]');
    expectRefusal(select(w, { remover: [c.id, UNKNOWN] }), 'invalid', 'produto_nao_selecionado', 'body.remover[0]');
    expectRefusal(select(w, { remover: [UNKNOWN, c.id] }), 'invalid', 'produto_invalido', 'body.remover[0]');
    expectRefusal(
      select(w, { adicionar: [c.id], remover: [b.id, c.id] }),
      'invalid',
      'produto_nao_selecionado',
      'body.remover[0]',
    );
  });

  it('then the precondition: none → precondicao_ausente, stale → precondicao_falhou (header.if-match); id refusals come first', () => {
    const w = setup();
    const [a, b] = [newProduct(w), newProduct(w)];
    const stale = [surveillanceEtag(w.s())];
    unwrap(select(w, { adicionar: [a.id] }));
    const before = fingerprint(w);
    expectRefusal(
      select(w, { remover: [a.id] }, null),
      'precondition_required',
      'precondicao_ausente',
      'header.if-match',
    );
    expectRefusal(
      select(w, { remover: [a.id] }, stale),
      'precondition_failed',
      'precondicao_falhou',
      'header.if-match',
    );
    expectRefusal(select(w, { adicionar: [b.id, b.id] }, null), 'invalid', 'produto_repetido', 'body.adicionar[1]');
    expectRefusal(select(w, { remover: [b.id] }, stale), 'invalid', 'produto_nao_selecionado', 'body.remover[0]');
    expect(fingerprint(w)).toEqual(before);
  });

  it('then the capacity: conflict capacidade_insuficiente without caminho, after the precondition', () => {
    const w = setup({ surveillanceCapacity: 1 });
    const [a, b] = [newProduct(w), newProduct(w)];
    const stale = [surveillanceEtag(w.s())];
    unwrap(select(w, { adicionar: [a.id] }));
    const before = fingerprint(w);
    expectRefusal(select(w, { adicionar: [b.id] }), 'conflict', 'capacidade_insuficiente');
    expectRefusal(select(w, { modo: 'todos' }), 'conflict', 'capacidade_insuficiente');
    expectRefusal(
      select(w, { adicionar: [b.id] }, null),
      'precondition_required',
      'precondicao_ausente',
      'header.if-match',
    );
    expectRefusal(select(w, { modo: 'todos' }, stale), 'precondition_failed', 'precondicao_falhou', 'header.if-match');
    expect(fingerprint(w)).toEqual(before);
  });

  it('mode todos needs elegiveis ≤ capacidade: non-eligible products do not count; the size of the kept selection does not either', () => {
    const w = setup({ surveillanceCapacity: 2 });
    const [a, b, c] = [newProduct(w), newProduct(w), newProduct(w)];
    expectRefusal(select(w, { modo: 'todos' }), 'conflict', 'capacidade_insuficiente');
    unlink(w, w.head, c.id);
    // 2 eligible = capacity; the selection grows to 3 while in mode todos.
    const s = unwrap(select(w, { modo: 'todos', adicionar: [a.id, b.id, c.id] }));
    expect(s.modo).toBe('todos');
    expect(s.selected.size).toBe(3);
    expect(coverage(countsOf(s), w.state.companies.get(w.companyId)!)).toBe('integral');
    // Back to selecao with the 3 kept: above the capacity.
    expectRefusal(select(w, { modo: 'selecao' }), 'conflict', 'capacidade_insuficiente');
    unwrap(select(w, { modo: 'selecao', remover: [c.id] }));
  });

  it('mode selecao needs the resulting size ≤ capacidade: removals count, re-added selected ids do not', () => {
    const w = setup({ surveillanceCapacity: 2 });
    const [a, b, c] = [newProduct(w), newProduct(w), newProduct(w)];
    unwrap(select(w, { adicionar: [a.id, b.id] }));
    unwrap(select(w, { adicionar: [a.id, b.id] }));
    expectRefusal(select(w, { adicionar: [c.id] }), 'conflict', 'capacidade_insuficiente');
    unwrap(select(w, { adicionar: [c.id], remover: [a.id] }));
    expect(
      w
        .s()
        .selected.entries()
        .map(([id]) => id),
    ).toEqual([b.id, c.id]);
  });
});

describe('changeSelection: accepted', () => {
  it('applies removals and additions (in order, at the end), sets the mode, versao + 1, and returns the record', () => {
    const w = setup();
    const [a, b, c, d] = [newProduct(w), newProduct(w), newProduct(w), newProduct(w)];
    unwrap(select(w, { adicionar: [c.id, a.id, b.id] }));
    const s = unwrap(select(w, { adicionar: [d.id, b.id], remover: [a.id] }));
    expect(s).toBe(w.s());
    expect(s.versao).toBe(3);
    expect(s.modo).toBe('selecao');
    expect(s.selected.entries().map(([id]) => id)).toEqual([c.id, b.id, d.id]);
    expect(counters(w)).toEqual(recount(w));
    const all = unwrap(select(w, { modo: 'todos' }));
    expect(all).toMatchObject({ modo: 'todos', versao: 4 });
    expect(all.selected.entries().map(([id]) => id)).toEqual([c.id, b.id, d.id]);
  });

  it('an already selected id keeps its place; a non-eligible product is selected without counting in selectedEligible', () => {
    const w = setup();
    const [a, b] = [newProduct(w), newProduct(w)];
    unwrap(select(w, { adicionar: [a.id] }));
    const position = w.s().selected.positionOf(a.id);
    unlink(w, w.head, b.id);
    unwrap(select(w, { adicionar: [b.id, a.id] }));
    expect(w.s().selected.positionOf(a.id)).toBe(position);
    expect(counters(w)).toEqual({ active: 2, eligible: 1, selectedEligible: 1, selected: 2 });
    unwrap(select(w, { remover: [b.id] }));
    expect(counters(w)).toEqual({ active: 2, eligible: 1, selectedEligible: 1, selected: 1 });
    unwrap(select(w, { remover: [a.id] }));
    expect(counters(w)).toEqual({ active: 2, eligible: 1, selectedEligible: 0, selected: 0 });
  });

  it('is allowed without entitlement (coverage stays indisponivel)', () => {
    const w = setup({ surveillanceEntitled: false });
    const a = newProduct(w);
    unwrap(select(w, { adicionar: [a.id] }));
    expect(viewSurveillance(countsOf(w.s()), w.state.companies.get(w.companyId)!)).toMatchObject({
      selecionados: 1,
      cobertura: 'indisponivel',
      versao: 2,
    });
  });
});

describe('observeCoverage: events on the documented transitions', () => {
  /** A world with an active destination: raised events are pendente and leave an attempt intent. */
  function withDestination(flags: CompanyFlags = {}): World {
    const w = setup(flags);
    unwrap(
      configureDestination(
        w.state,
        w.companyId,
        { url: 'https://hooks.example.com/v', createOnly: true, ifMatch: undefined },
        w.ctx(),
      ),
    );
    return w;
  }

  /** The `dados` of every event raised so far, in order. */
  const raised = (w: World) =>
    [...w.state.webhookEvents.values()]
      .sort((x, y) => x.position - y.position)
      .map((e) => JSON.parse(e.body).dados as Record<string, unknown>);
  const setFlags = (w: World, flags: CompanyFlags, now = T0) =>
    unwrap(updateCompany(w.state, w.companyId, flags, w.ctx(now)));
  const event = (
    tipo: string,
    cobertura: Coverage,
    coberturaAnterior: Coverage,
    selecionados: number,
    capacidade: number,
  ) => ({ tipo, cobertura, coberturaAnterior, selecionados, capacidade });

  it('none for moves among sem_selecao, parcial and integral', () => {
    const w = withDestination({ surveillanceCapacity: 5 });
    const [a, b] = [newProduct(w), newProduct(w)];
    unwrap(select(w, { adicionar: [a.id] }));
    expect(w.s().lastCoverage).toBe('parcial');
    unwrap(select(w, { adicionar: [b.id] }));
    expect(w.s().lastCoverage).toBe('integral');
    newProduct(w);
    expect(w.s().lastCoverage).toBe('parcial');
    unwrap(select(w, { remover: [a.id, b.id] }));
    expect(w.s().lastCoverage).toBe('sem_selecao');
    setFlags(w, { surveillanceCapacity: 3 });
    expect(w.state.webhookEvents.size).toBe(0);
    expect(w.state.outbox).toEqual([]);
  });

  it('into capacidade_excedida → one vigilancia.degradada, pendente, with its attempt intent due now', () => {
    const w = withDestination({ surveillanceCapacity: 3 });
    const ids = [newProduct(w), newProduct(w), newProduct(w)].map((p) => p.id);
    unwrap(select(w, { adicionar: ids }));
    const now = T0 + 5_000;
    setFlags(w, { surveillanceCapacity: 2 }, now);
    expect(raised(w)).toEqual([event('vigilancia.degradada', 'capacidade_excedida', 'integral', 3, 2)]);
    const [e] = [...w.state.webhookEvents.values()];
    expect(e).toMatchObject({
      tipo: 'vigilancia.degradada',
      estado: 'pendente',
      companyId: w.companyId,
      ocorridoEm: now,
    });
    expect(w.state.outbox).toEqual([
      { kind: TASK_ATTEMPT, owner: w.companyId, due: now, payload: { eventId: e!.id, ciclo: 1 } },
    ]);
    expect(w.s().lastCoverage).toBe('capacidade_excedida');
    // Staying in capacidade_excedida raises nothing more.
    setFlags(w, { surveillanceCapacity: 1 });
    expect(w.state.webhookEvents.size).toBe(1);
  });

  it('out of capacidade_excedida → vigilancia.restabelecida with the new coverage', () => {
    const w = withDestination({ surveillanceCapacity: 3 });
    const ids = [newProduct(w), newProduct(w), newProduct(w)].map((p) => p.id);
    unwrap(select(w, { adicionar: ids.slice(0, 2) }));
    setFlags(w, { surveillanceCapacity: 1 });
    setFlags(w, { surveillanceCapacity: 2 });
    expect(raised(w)).toEqual([
      event('vigilancia.degradada', 'capacidade_excedida', 'parcial', 2, 1),
      event('vigilancia.restabelecida', 'parcial', 'capacidade_excedida', 2, 2),
    ]);
  });

  it('into and out of indisponivel; between indisponivel and capacidade_excedida nothing', () => {
    const w = withDestination({ surveillanceCapacity: 2 });
    const [a, b] = [newProduct(w), newProduct(w)];
    unwrap(select(w, { adicionar: [a.id, b.id] }));
    setFlags(w, { surveillanceEntitled: false });
    setFlags(w, { surveillanceCapacity: 1 });
    setFlags(w, { surveillanceEntitled: true });
    expect(w.s().lastCoverage).toBe('capacidade_excedida');
    setFlags(w, { surveillanceEntitled: false });
    expect(w.s().lastCoverage).toBe('indisponivel');
    setFlags(w, { surveillanceEntitled: true, surveillanceCapacity: 2 });
    expect(raised(w)).toEqual([
      event('vigilancia.degradada', 'indisponivel', 'integral', 2, 2),
      event('vigilancia.restabelecida', 'integral', 'indisponivel', 2, 2),
    ]);
  });

  it('indisponivel at creation → sem_selecao when entitled: restabelecida', () => {
    const w = withDestination({ surveillanceEntitled: false, surveillanceCapacity: 4 });
    setFlags(w, { surveillanceEntitled: true });
    expect(raised(w)).toEqual([event('vigilancia.restabelecida', 'sem_selecao', 'indisponivel', 0, 4)]);
  });

  it('product changes in mode todos: creation and link past the capacity degrade, unlink and deactivation restore', () => {
    const w = withDestination({ surveillanceCapacity: 1 });
    const a = newProduct(w);
    unwrap(select(w, { modo: 'todos' }));
    const b = newProduct(w, w.branch);
    unlink(w, w.branch, b.id);
    link(w, w.head, b.id);
    deactivate(w, a.id);
    expect(raised(w)).toEqual([
      event('vigilancia.degradada', 'capacidade_excedida', 'integral', 2, 1),
      event('vigilancia.restabelecida', 'integral', 'capacidade_excedida', 1, 1),
      event('vigilancia.degradada', 'capacidade_excedida', 'integral', 2, 1),
      event('vigilancia.restabelecida', 'integral', 'capacidade_excedida', 1, 1),
    ]);
  });

  it('a selection change that brings the selection within the capacity restores', () => {
    const w = withDestination({ surveillanceCapacity: 2 });
    const [a, b] = [newProduct(w), newProduct(w)];
    unwrap(select(w, { adicionar: [a.id, b.id] }));
    setFlags(w, { surveillanceCapacity: 1 });
    unwrap(select(w, { remover: [b.id] }));
    expect(raised(w)).toEqual([
      event('vigilancia.degradada', 'capacidade_excedida', 'integral', 2, 1),
      event('vigilancia.restabelecida', 'parcial', 'capacidade_excedida', 1, 1),
    ]);
  });

  it('a catalog deletion raises at most one event, with the coverage and figures after the whole deletion', () => {
    const w = withDestination({ surveillanceCapacity: 2 });
    newProduct(w);
    newProduct(w);
    unwrap(select(w, { modo: 'todos' }));
    newProduct(w);
    newProduct(w);
    const preview = unwrap(previewDeletion(w.state, w.companyId, w.head.id));
    unwrap(deleteCatalog(w.state, w.companyId, w.head.id, [preview.etag], w.ctx()));
    expect(viewSurveillance(countsOf(w.s()), w.state.companies.get(w.companyId)!)).toMatchObject({
      cobertura: 'sem_selecao',
      selecionados: 0,
    });
    expect(raised(w)).toEqual([
      event('vigilancia.degradada', 'capacidade_excedida', 'integral', 3, 2),
      event('vigilancia.restabelecida', 'sem_selecao', 'capacidade_excedida', 0, 2),
    ]);
  });

  // spec: CONV-09 — an event names its destination (destino_id is a string): without one, none is recorded.
  it('without a destination the coverage still moves but no event is recorded and no intent left; with a revoked one it is cancelado destino_inativo', () => {
    const w = setup({ surveillanceCapacity: 1 });
    const a = newProduct(w);
    unwrap(select(w, { adicionar: [a.id] }));
    setFlags(w, { surveillanceCapacity: 0 });
    expect(w.s().lastCoverage).toBe('capacidade_excedida');
    expect(w.state.webhookEvents.size).toBe(0);
    expect(w.state.outbox).toEqual([]);

    const destination = unwrap(
      configureDestination(
        w.state,
        w.companyId,
        { url: 'https://hooks.example.com/v', createOnly: true, ifMatch: undefined },
        w.ctx(),
      ),
    ).destination;
    const revoked = unwrap(revokeDestination(w.state, w.companyId, [destinationEtag(destination)], w.ctx()));
    setFlags(w, { surveillanceCapacity: 1 });
    const events = [...w.state.webhookEvents.values()];
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      tipo: 'vigilancia.restabelecida',
      estado: 'cancelado',
      codigoFalha: 'destino_inativo',
      destinoId: revoked.id,
      destinoVersao: revoked.versao,
    });
    expect(w.state.outbox).toEqual([]);
  });

  it('called with nothing changed it raises nothing; an unknown company is ignored', () => {
    const w = withDestination({ surveillanceCapacity: 0 });
    w.s().lastCoverage = 'parcial';
    observeCoverage(w.state, w.companyId, w.ctx());
    expect(w.s().lastCoverage).toBe('sem_selecao');
    observeCoverage(w.state, w.companyId, w.ctx());
    expect(w.state.webhookEvents.size).toBe(0);
    const sizeBefore = w.state.surveillance.size;
    observeCoverage(w.state, UNKNOWN, w.ctx());
    expect(w.state.surveillance.size).toBe(sizeBefore);
    expect(w.state.webhookEvents.size).toBe(0);
  });
});

describe('watchedAfter', () => {
  const ids = (w: World, position?: number) => [...watchedAfter(w.state, w.companyId, position)].map(([p]) => p.id);

  it('mode selecao: the selection in selection order, unlinked ones included, with selection positions to resume after', () => {
    const w = setup();
    const [a, b, c, d] = [newProduct(w), newProduct(w), newProduct(w), newProduct(w)];
    unwrap(select(w, { adicionar: [c.id, a.id, d.id] }));
    unwrap(select(w, { remover: [a.id] }));
    unwrap(select(w, { adicionar: [b.id, a.id] }));
    unlink(w, w.head, d.id);
    expect(ids(w)).toEqual([c.id, d.id, b.id, a.id]);
    const all = [...watchedAfter(w.state, w.companyId)];
    expect(all.map(([p]) => p)).toEqual([c, d, b, a].map((p) => current(w, p.id)));
    expect(all.map(([, at]) => at)).toEqual([c, d, b, a].map((p) => w.s().selected.positionOf(p.id)));
    expect(ids(w, all[1]![1])).toEqual([b.id, a.id]);
    expect(ids(w, all[3]![1])).toEqual([]);
  });

  it('mode todos: every eligible product in creation order, with product positions to resume after', () => {
    const w = setup();
    const [a, b, c, d] = [newProduct(w), newProduct(w, w.branch), newProduct(w), newProduct(w)];
    unlink(w, w.head, c.id);
    unwrap(select(w, { adicionar: [d.id, c.id] }));
    unwrap(select(w, { modo: 'todos' }));
    expect(ids(w)).toEqual([a.id, b.id, d.id]);
    const all = [...watchedAfter(w.state, w.companyId)];
    expect(all.map(([, at]) => at)).toEqual([a.position, b.position, d.position]);
    expect(ids(w, b.position)).toEqual([d.id]);
    // A position between items resumes at the next one.
    expect(ids(w, c.position)).toEqual([d.id]);
    deactivate(w, a.id);
    expect(ids(w)).toEqual([b.id, d.id]);
    unwrap(select(w, { modo: 'selecao' }));
    expect(ids(w)).toEqual([d.id, c.id]);
  });

  it('nothing for a company with nothing watched', () => {
    const w = setup();
    newProduct(w);
    expect(ids(w)).toEqual([]);
  });
});
