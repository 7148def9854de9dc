/**
 * The pure core of surveillance executions (src/core/surveillance-executions.ts): the daily schedule and the
 * publication trigger (which companies get an execution), every lifecycle transition (iniciar, impedir,
 * concluir, falhar) and the finality of concluida and falhou, the impediments and their causes, the
 * vigilancia.degradada raised only on the first impeded run of a streak, the reuse of findings exactly when a
 * product's versao and rules fingerprint are unchanged (with their original avaliado_em and snapshot_id),
 * the divergence with the previous concluded execution and the dados of divergencias.alteradas, the
 * immutability of published findings, and the lookups the routes use.
 */
import { describe, expect, it } from 'vitest';
import { createCatalog, type Catalog } from './catalogs.js';
import { createCompany, updateCompany, type CompanyFlags } from './companies.js';
import { createProduct, editProduct, productEtag, unlinkProduct, type NewProduct, type Product } from './products.js';
import { createRandom, seedRandom } from './random.js';
import { evaluateProduct, FINDING_TYPES, type Finding } from './regulatory/rules.js';
import { rulesFingerprint, type SnapshotChange } from './regulatory/snapshot.js';
import type { Context, State } from './state.js';
import { createState } from './slices.js';
import { changeSelection, surveillanceEtag, surveillanceOf, type SelectionMode } from './surveillance.js';
import {
  countByType,
  DAILY_EVERY_MS,
  EXECUTION_FAILURES,
  EXECUTION_PHASE_OF,
  findExecution,
  finishExecution,
  MIN_RUN_MS,
  publishedExecution,
  publishReferenceChange,
  scheduleAfterPublication,
  scheduleDailyExecutions,
  START_DELAY_MS,
  startExecution,
  TASK_DAILY,
  TASK_EXECUTION_END,
  TASK_EXECUTION_START,
  type Execution,
} from './surveillance-executions.js';
import { T0, CORE_CONFIG, ROOT, OTHER_ROOT, expectRefusal, unwrap } from './testing/support.js';
import { DAY, HOUR, MINUTE, SECOND } from './time.js';
import { configureDestination, destinationEtag, revokeDestination } from './webhooks/destination.js';
import { TASK_ATTEMPT } from './webhooks/events.js';

const THIRD_ROOT = '77888999';
const UNKNOWN_ID = '0190a000-0000-7000-8000-000000000000';
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TIPOS = FINDING_TYPES.map((t) => t.tipo);

/** NCMs of the shipped table: parts (requires the free-text ATT_0028 and ATT_0029), beer (another code), and an absent one. */
const PARTS_NCM = '87081000';
const BEER_NCM = '22030000';
const MISSING_NCM = '99999999';
/** A product of PARTS_NCM with no finding at all. */
const CLEAN: NewProduct = {
  origem: 'erp',
  ncm: PARTS_NCM,
  descricao: 'Para-choque',
  atributos: [
    { codigo: 'ATT_0028', valores: ['PC-1'] },
    { codigo: 'ATT_0029', valores: ['Sedan'] },
  ],
};
/** The same with ATT_0005 (voltagem, domain 110V/220V/bivolt) carried too. */
const WITH_VOLTAGE: NewProduct = {
  ...CLEAN,
  atributos: [...CLEAN.atributos!, { codigo: 'ATT_0005', valores: ['220V'] }],
};

interface Tenant {
  readonly companyId: string;
  readonly catalog: Catalog;
}

interface World extends Tenant {
  readonly state: State;
  readonly ctx: (now?: number) => Context;
  /** A product of `tenant` (this company by default) in its catalog. */
  readonly product: (fields?: Partial<NewProduct>, tenant?: Tenant) => Product;
}

function setup(flags: CompanyFlags = {}): World {
  const state = createState(T0);
  const random = createRandom(seedRandom(23));
  const ctx = (now = T0): Context => ({ now, random, config: CORE_CONFIG });
  const tenant = newTenant(state, ctx, ROOT, flags);
  const product = (fields: Partial<NewProduct> = {}, owner: Tenant = tenant) =>
    unwrap(createProduct(state, owner.companyId, owner.catalog.id, { ...CLEAN, ...fields }, ctx()));
  state.outbox.length = 0;
  return { state, ctx, product, ...tenant };
}

function newTenant(state: State, ctx: (now?: number) => Context, root: string, flags: CompanyFlags = {}): Tenant {
  const created = unwrap(createCompany(state, { cnpjRoot: root, ...flags }, ctx()));
  const catalog = unwrap(
    createCatalog(state, created.company.id, { establishmentId: created.headOffice.id, nome: 'Loja' }, ctx()),
  );
  return { companyId: created.company.id, catalog };
}

function other(w: World, root = OTHER_ROOT): Tenant {
  const tenant = newTenant(w.state, w.ctx, root);
  w.state.outbox.length = 0;
  return tenant;
}

/** Selects `products` for `companyId` (mode selecao unless told). */
function select(
  w: World,
  products: readonly Product[],
  companyId = w.companyId,
  modo: SelectionMode = 'selecao',
): void {
  const s = surveillanceOf(w.state, companyId);
  unwrap(
    changeSelection(
      w.state,
      companyId,
      [surveillanceEtag(s)],
      { modo, adicionar: products.map((p) => p.id), remover: [] },
      w.ctx(),
    ),
  );
}

function deselect(w: World, products: readonly Product[], companyId = w.companyId): void {
  const s = surveillanceOf(w.state, companyId);
  unwrap(
    changeSelection(
      w.state,
      companyId,
      [surveillanceEtag(s)],
      { modo: s.modo, adicionar: [], remover: products.map((p) => p.id) },
      w.ctx(),
    ),
  );
}

function setFlags(w: World, flags: CompanyFlags, companyId = w.companyId): void {
  unwrap(updateCompany(w.state, companyId, flags, w.ctx()));
}

function withDestination(w: World, companyId = w.companyId): void {
  unwrap(
    configureDestination(
      w.state,
      companyId,
      { url: 'https://hooks.example.com/eventos', createOnly: true, ifMatch: undefined },
      w.ctx(),
    ),
  );
}

/** The product as it is now. */
const current = (w: World, p: Product): Product => w.state.products.get(p.id)!;

function edit(w: World, p: Product, changes: Parameters<typeof editProduct>[4], at = T0): Product {
  return unwrap(editProduct(w.state, w.companyId, p.id, [productEtag(current(w, p))], changes, w.ctx(at)));
}

const execution = (w: World, id: string): Execution => w.state.executions.get(id)!;

/** The company's executions in creation order. */
function executionsOf(w: World, companyId = w.companyId): Execution[] {
  return [...w.state.executions.listOf(companyId).after()].map(([id]) => w.state.executions.get(id)!);
}

/** The events raised for the company, oldest first: tipo, estado and the envelope's dados. */
function events(w: World, companyId = w.companyId): { tipo: string; estado: string; dados: Record<string, unknown> }[] {
  return [...w.state.webhookEvents.values()]
    .filter((e) => e.companyId === companyId)
    .sort((a, b) => a.position - b.position)
    .map((e) => ({ tipo: e.tipo, estado: e.estado, dados: JSON.parse(e.body).dados }));
}

/** Opens a daily execution for every watching company at `at`; returns this company's new execution (the one opened last). */
function daily(w: World, at: number): Execution {
  const before = executionsOf(w).length;
  scheduleDailyExecutions(w.state, w.ctx(at));
  const list = executionsOf(w);
  expect(list.length).toBe(before + 1);
  return list[list.length - 1]!;
}

/** Runs an execution opened at `at` through its start and its end (10 s for a small company); returns it and its end time. */
function run(w: World, e: Execution, at: number, failed = false): { done: Execution; end: number } {
  startExecution(w.state, e.id, w.ctx(at + START_DELAY_MS));
  const end = at + START_DELAY_MS + MIN_RUN_MS;
  finishExecution(w.state, e.id, failed, w.ctx(end));
  return { done: execution(w, e.id), end };
}

/** A daily execution at `at` run to its end. */
function dailyRun(w: World, at: number, failed = false): { done: Execution; end: number } {
  return run(w, daily(w, at), at, failed);
}

/** Publishes `change` at `at`, with the executions it triggers. */
function publish(
  w: World,
  change: SnapshotChange,
  at: number,
): { id: string; afetadas: readonly string[]; atributosAlterados: readonly string[] } {
  return unwrap(publishReferenceChange(w.state, change, w.ctx(at)));
}

/** The findings of `product` in an execution. */
const findingsOf = (e: Execution, p: Product) => e.findings!.filter((f) => f.produto_id === p.id);

/** A fresh evaluation of the product as it is now, marked as the execution shows it. */
function fresh(w: World, p: Product, at: number) {
  return evaluateProduct(current(w, p), w.state.regulatory, at).map((f) => ({ ...f, reaproveitado: false }));
}

const reused = (findings: readonly Finding[]) => findings.map((f) => ({ ...f, reaproveitado: true }));

describe('constants', () => {
  it('a daily task every 24 h, the start 1 min after opening, runs of at least 10 s; task kinds and failure codes', () => {
    expect(DAILY_EVERY_MS).toBe(DAY);
    expect(START_DELAY_MS).toBe(MINUTE);
    expect(MIN_RUN_MS).toBe(10 * SECOND);
    expect(TASK_DAILY).toBe('vigilancia.diaria');
    expect(TASK_EXECUTION_START).toBe('vigilancia.inicio');
    expect(TASK_EXECUTION_END).toBe('vigilancia.fim');
    expect(EXECUTION_FAILURES).toEqual({ impeded: 'vigilancia_indisponivel', runFailed: 'falha_execucao' });
  });

  it('maps each estado to its fase', () => {
    expect(EXECUTION_PHASE_OF).toEqual({
      pendente: 'na_fila',
      executando: 'avaliando',
      concluida: 'publicada',
      falhou: 'encerrada',
    });
  });

  it('countByType lists every tipo of the rules, zeros included', () => {
    expect(countByType([])).toEqual(Object.fromEntries(TIPOS.map((t) => [t, 0])));
    const w = setup();
    const p = w.product({
      ncm: MISSING_NCM,
      descricao: null,
      atributos: [
        { codigo: 'ATT_9998', valores: ['x'] },
        { codigo: 'ATT_9999', valores: ['y'] },
      ],
    });
    const counts = countByType(evaluateProduct(p, w.state.regulatory, T0));
    expect(counts).toEqual({
      ...Object.fromEntries(TIPOS.map((t) => [t, 0])),
      ncm_inexistente: 1,
      atributo_desconhecido: 2,
      descricao_ausente: 1,
    });
  });
});

describe('scheduleDailyExecutions', () => {
  it('opens one pendente agendada execution per watching company, with nothing set but its creation time, and a start intent 1 min later', () => {
    const w = setup();
    const p = w.product();
    select(w, [p]);
    w.state.outbox.length = 0;
    const at = T0 + DAY;
    scheduleDailyExecutions(w.state, w.ctx(at));
    const [e] = executionsOf(w);
    expect(executionsOf(w)).toHaveLength(1);
    expect(e).toEqual({
      id: expect.stringMatching(UUID_V7),
      companyId: w.companyId,
      motivo: 'agendada',
      estado: 'pendente',
      criadaEm: at,
      iniciadaEm: null,
      terminadaEm: null,
      codigoFalha: null,
      snapshotId: null,
      produtosAvaliados: null,
      reaproveitados: null,
      findings: null,
      divergente: null,
      position: expect.any(Number),
    });
    expect(w.state.outbox).toEqual([
      { kind: TASK_EXECUTION_START, owner: w.companyId, due: at + MINUTE, payload: { executionId: e!.id } },
    ]);
    expect(events(w)).toEqual([]);
  });

  it('opens none for a company watching nothing: no products, products not selected, an emptied selection, mode todos with no eligible product', () => {
    const w = setup();
    const noProducts = other(w, OTHER_ROOT);
    const unselected = other(w, THIRD_ROOT);
    w.product({}, unselected);
    // This company: one product, selected then removed, then mode todos after unlinking it from its only catalog.
    const p = w.product();
    select(w, [p]);
    deselect(w, [p]);
    w.state.outbox.length = 0;
    scheduleDailyExecutions(w.state, w.ctx(T0 + DAY));
    expect(w.state.executions.size).toBe(0);
    unwrap(unlinkProduct(w.state, w.companyId, w.catalog.id, p.id, [productEtag(current(w, p))], w.ctx()));
    select(w, [], w.companyId, 'todos');
    scheduleDailyExecutions(w.state, w.ctx(T0 + 2 * DAY));
    expect(w.state.executions.size).toBe(0);
    expect(w.state.outbox).toEqual([]);
    for (const c of [noProducts, unselected]) expect(executionsOf(w, c.companyId)).toEqual([]);
  });

  it('counts the selection (even a product no longer linked) in mode selecao, and every eligible product in mode todos', () => {
    const w = setup();
    const p = w.product();
    select(w, [p]);
    unwrap(unlinkProduct(w.state, w.companyId, w.catalog.id, p.id, [productEtag(current(w, p))], w.ctx()));
    const todos = other(w);
    w.product({}, todos);
    select(w, [], todos.companyId, 'todos');
    scheduleDailyExecutions(w.state, w.ctx(T0 + DAY));
    expect(executionsOf(w).map((e) => e.motivo)).toEqual(['agendada']);
    expect(executionsOf(w, todos.companyId).map((e) => e.motivo)).toEqual(['agendada']);
  });

  it('opens a new one each day even while the previous one is still open, and for companies that were impeded', () => {
    const w = setup({ surveillanceEntitled: false });
    const p = w.product();
    select(w, [p]);
    scheduleDailyExecutions(w.state, w.ctx(T0 + DAY));
    scheduleDailyExecutions(w.state, w.ctx(T0 + 2 * DAY));
    const list = executionsOf(w);
    expect(list.map((e) => [e.estado, e.criadaEm])).toEqual([
      ['pendente', T0 + DAY],
      ['pendente', T0 + 2 * DAY],
    ]);
    expect(list[1]!.position).toBeGreaterThan(list[0]!.position);
  });
});

describe('publishReferenceChange', () => {
  it('publishes the snapshot with the executions it triggers, and a refused change publishes nothing and opens none', () => {
    const w = setup();
    select(w, [w.product()]);
    const before = w.state.regulatory;
    const refused = publishReferenceChange(w.state, { atributos: [{ codigo: 'bad', nome: 'x' }] }, w.ctx(T0 + MINUTE));
    expect(refused).toMatchObject({
      ok: false,
      refusal: { codigo: 'valor_invalido', caminho: 'body.atributos[0].codigo' },
    });
    expect(w.state.regulatory).toBe(before);
    expect(executionsOf(w)).toEqual([]);
    const published = unwrap(publishReferenceChange(w.state, { extinguir: [PARTS_NCM] }, w.ctx(T0 + MINUTE)));
    expect(published.afetadas).toEqual([PARTS_NCM]);
    expect(executionsOf(w).map((e) => [e.motivo, e.estado])).toEqual([['publicacao', 'pendente']]);
  });
});

describe('scheduleAfterPublication', () => {
  it('opens a publicacao execution only for companies watching a product with an affected NCM or carrying a changed attribute', () => {
    const w = setup();
    const beer = other(w, OTHER_ROOT);
    const carrier = other(w, THIRD_ROOT);
    // This company watches a product of the affected NCM; `beer` watches another code; `carrier` watches a product carrying ATT_0005.
    const parts = w.product();
    w.product({ ncm: BEER_NCM, atributos: [] }, beer);
    const beerProduct = [...w.state.products.values()].find((p) => p.companyId === beer.companyId)!;
    select(w, [parts]);
    select(w, [beerProduct], beer.companyId);
    const voltage = w.product({ ...WITH_VOLTAGE, ncm: BEER_NCM }, carrier);
    select(w, [voltage], carrier.companyId);
    w.state.outbox.length = 0;
    const at = T0 + 5 * MINUTE;
    scheduleAfterPublication(w.state, [PARTS_NCM], [], w.ctx(at));
    expect(executionsOf(w).map((e) => [e.motivo, e.estado, e.criadaEm])).toEqual([['publicacao', 'pendente', at]]);
    expect(executionsOf(w, beer.companyId)).toEqual([]);
    expect(executionsOf(w, carrier.companyId)).toEqual([]);
    expect(w.state.outbox).toEqual([
      {
        kind: TASK_EXECUTION_START,
        owner: w.companyId,
        due: at + MINUTE,
        payload: { executionId: executionsOf(w)[0]!.id },
      },
    ]);
    scheduleAfterPublication(w.state, [], ['ATT_0005'], w.ctx(at + 1));
    expect(executionsOf(w)).toHaveLength(1);
    expect(executionsOf(w, carrier.companyId).map((e) => e.motivo)).toEqual(['publicacao']);
    expect(executionsOf(w, beer.companyId)).toEqual([]);
  });

  it('opens one execution per company however many of its watched products are affected, and none for unwatched products', () => {
    const w = setup();
    const a = w.product();
    const b = w.product();
    const unwatched = other(w);
    w.product({}, unwatched);
    select(w, [a, b]);
    scheduleAfterPublication(w.state, [PARTS_NCM, BEER_NCM], ['ATT_0028'], w.ctx(T0 + MINUTE));
    expect(executionsOf(w)).toHaveLength(1);
    expect(executionsOf(w, unwatched.companyId)).toEqual([]);
  });

  it('opens none when nothing is affected', () => {
    const w = setup();
    select(w, [w.product()]);
    w.state.outbox.length = 0;
    scheduleAfterPublication(w.state, [], [], w.ctx());
    scheduleAfterPublication(w.state, [BEER_NCM], ['ATT_0005'], w.ctx());
    expect(w.state.executions.size).toBe(0);
    expect(w.state.outbox).toEqual([]);
  });

  it('in mode todos, an affected eligible product counts; an unlinked one does not', () => {
    const w = setup();
    const p = w.product();
    select(w, [], w.companyId, 'todos');
    unwrap(unlinkProduct(w.state, w.companyId, w.catalog.id, p.id, [productEtag(current(w, p))], w.ctx()));
    scheduleAfterPublication(w.state, [PARTS_NCM], [], w.ctx());
    expect(w.state.executions.size).toBe(0);
    w.product();
    scheduleAfterPublication(w.state, [PARTS_NCM], [], w.ctx());
    expect(executionsOf(w).map((e) => e.motivo)).toEqual(['publicacao']);
  });
});

describe('startExecution (pendente → executando | falhou)', () => {
  it('iniciar: executando from now, and the end intent MIN_RUN_MS later for a small company', () => {
    const w = setup();
    select(w, [w.product(), w.product()]);
    const e = daily(w, T0 + DAY);
    w.state.outbox.length = 0;
    const at = T0 + DAY + MINUTE;
    startExecution(w.state, e.id, w.ctx(at));
    expect(execution(w, e.id)).toEqual({ ...e, estado: 'executando', iniciadaEm: at });
    expect(w.state.outbox).toEqual([
      { kind: TASK_EXECUTION_END, owner: w.companyId, due: at + 10 * SECOND, payload: { executionId: e.id } },
    ]);
    expect(events(w)).toEqual([]);
  });

  it('runs 1 ms per watched product when that exceeds 10 s (products not watched do not count)', () => {
    const w = setup({ surveillanceCapacity: 20_000 });
    const count = 10_021;
    for (let i = 0; i < count; i++)
      unwrap(createProduct(w.state, w.companyId, w.catalog.id, { origem: 'erp', ncm: MISSING_NCM }, w.ctx()));
    w.product();
    w.product();
    select(w, [], w.companyId, 'todos');
    // Two unlinked products are not eligible: not watched in mode todos.
    for (const p of [...w.state.products.values()].slice(-2))
      unwrap(unlinkProduct(w.state, w.companyId, w.catalog.id, p.id, [productEtag(current(w, p))], w.ctx()));
    const e = daily(w, T0 + DAY);
    w.state.outbox.length = 0;
    startExecution(w.state, e.id, w.ctx(T0 + DAY + MINUTE));
    expect(w.state.outbox).toEqual([
      { kind: TASK_EXECUTION_END, owner: w.companyId, due: T0 + DAY + MINUTE + count, payload: { executionId: e.id } },
    ]);
  });

  const impediments: [string, CompanyFlags, string][] = [
    ['the subscription is suspended', { subscriptionActive: false }, 'assinatura_inativa'],
    ['there is no entitlement', { surveillanceEntitled: false }, 'indisponivel'],
    ['the selection exceeds the capacity', { surveillanceCapacity: 1 }, 'capacidade_excedida'],
    [
      'the subscription is suspended and there is no entitlement (the subscription first)',
      { subscriptionActive: false, surveillanceEntitled: false },
      'assinatura_inativa',
    ],
    [
      'there is no entitlement and the capacity is exceeded (indisponivel first)',
      { surveillanceEntitled: false, surveillanceCapacity: 1 },
      'indisponivel',
    ],
  ];
  for (const [when, flags, causa] of impediments) {
    it(`impedir when ${when}: falhou vigilancia_indisponivel at once, never started, and vigilancia.degradada causa ${causa}`, () => {
      const w = setup();
      withDestination(w);
      select(w, [w.product(), w.product()]);
      const e = daily(w, T0 + DAY);
      setFlags(w, flags);
      const before = events(w).length;
      w.state.outbox.length = 0;
      const at = T0 + DAY + MINUTE;
      startExecution(w.state, e.id, w.ctx(at));
      expect(execution(w, e.id)).toEqual({
        ...e,
        estado: 'falhou',
        codigoFalha: 'vigilancia_indisponivel',
        terminadaEm: at,
        iniciadaEm: null,
      });
      const raised = events(w).slice(before);
      expect(raised).toEqual([
        {
          tipo: 'vigilancia.degradada',
          estado: 'pendente',
          dados: { tipo: 'vigilancia.degradada', motivo: 'execucao_impedida', vigilanciaId: e.id, causa },
        },
      ]);
      // No end task: only the event's first delivery attempt.
      expect(w.state.outbox.map((t) => t.kind)).toEqual([TASK_ATTEMPT]);
      expect(w.state.outbox[0]!.due).toBe(at);
    });
  }

  it('runs when the selection is exactly at capacity', () => {
    const w = setup({ surveillanceCapacity: 2 });
    select(w, [w.product(), w.product()]);
    const { done } = dailyRun(w, T0 + DAY);
    expect(done.estado).toBe('concluida');
  });

  it('raises vigilancia.degradada only on the first impeded run: not again while the previous finished one was impeded; again after a concluded or a failed run', () => {
    const w = setup();
    withDestination(w);
    select(w, [w.product(), w.product()]);
    const impededRuns = (from: number, n: number) => {
      for (let i = 0; i < n; i++) dailyRun(w, from + i * DAY);
    };
    const impedidas = () =>
      events(w)
        .filter((e) => e.dados.motivo === 'execucao_impedida')
        .map((e) => e.dados.vigilanciaId);
    setFlags(w, { surveillanceCapacity: 1 });
    impededRuns(T0 + DAY, 3);
    const ids = executionsOf(w).map((e) => e.id);
    expect(executionsOf(w).map((e) => e.codigoFalha)).toEqual([
      'vigilancia_indisponivel',
      'vigilancia_indisponivel',
      'vigilancia_indisponivel',
    ]);
    expect(impedidas()).toEqual([ids[0]]);
    // The cause changing within the streak raises nothing either.
    setFlags(w, { subscriptionActive: false });
    impededRuns(T0 + 4 * DAY, 1);
    expect(impedidas()).toEqual([ids[0]]);
    // A concluded run ends the streak.
    setFlags(w, { subscriptionActive: true, surveillanceCapacity: 10 });
    expect(dailyRun(w, T0 + 5 * DAY).done.estado).toBe('concluida');
    setFlags(w, { surveillanceCapacity: 1 });
    impededRuns(T0 + 6 * DAY, 2);
    let all = executionsOf(w).map((e) => e.id);
    expect(impedidas()).toEqual([ids[0], all[5]]);
    // A failed run (falha_execucao) ends it too.
    setFlags(w, { surveillanceCapacity: 10 });
    expect(dailyRun(w, T0 + 8 * DAY, true).done.codigoFalha).toBe('falha_execucao');
    setFlags(w, { surveillanceCapacity: 1 });
    impededRuns(T0 + 9 * DAY, 1);
    all = executionsOf(w).map((e) => e.id);
    expect(impedidas()).toEqual([ids[0], all[5], all[8]]);
  });

  it('judges the streak by the previous finished execution, not by one still pendente', () => {
    const w = setup({ surveillanceCapacity: 1 });
    withDestination(w);
    select(w, [w.product()]);
    const first = daily(w, T0 + DAY);
    // A second one opens before the first started.
    const second = daily(w, T0 + DAY + 30 * SECOND);
    setFlags(w, { surveillanceCapacity: 0 });
    startExecution(w.state, first.id, w.ctx(T0 + DAY + MINUTE));
    startExecution(w.state, second.id, w.ctx(T0 + DAY + MINUTE + 30 * SECOND));
    expect([execution(w, first.id).estado, execution(w, second.id).estado]).toEqual(['falhou', 'falhou']);
    expect(
      events(w)
        .filter((e) => e.dados.motivo === 'execucao_impedida')
        .map((e) => e.dados.vigilanciaId),
    ).toEqual([first.id]);
  });

  // spec: CONV-09 — an event names its destination: a company without one gets no event recorded.
  it('records no event when the company has no destination (the impeded run still fails); one raised while revoked is cancelado destino_inativo', () => {
    const w = setup({ surveillanceEntitled: false });
    select(w, [w.product()]);
    const { done } = dailyRun(w, T0 + DAY);
    expect(done.estado).toBe('falhou');
    expect(events(w)).toEqual([]);

    // Revoked: recorded against the revoked destination, cancelled at once (resendable after reactivation).
    withDestination(w);
    const destination = w.state.webhookDestinations.get(w.companyId)!;
    unwrap(revokeDestination(w.state, w.companyId, [destinationEtag(destination)], w.ctx()));
    setFlags(w, { surveillanceEntitled: true });
    expect(dailyRun(w, T0 + 2 * DAY).done.estado).toBe('concluida');
    setFlags(w, { surveillanceEntitled: false });
    const impeded = dailyRun(w, T0 + 3 * DAY).done;
    expect(events(w).filter((e) => e.dados.motivo === 'execucao_impedida')).toEqual([
      {
        tipo: 'vigilancia.degradada',
        estado: 'cancelado',
        dados: {
          tipo: 'vigilancia.degradada',
          motivo: 'execucao_impedida',
          vigilanciaId: impeded.id,
          causa: 'indisponivel',
        },
      },
    ]);
  });

  it('does nothing for an unknown id or an execution that is not pendente', () => {
    const w = setup();
    select(w, [w.product()]);
    startExecution(w.state, UNKNOWN_ID, w.ctx());
    expect(w.state.outbox).toEqual([]);
    const e = daily(w, T0 + DAY);
    startExecution(w.state, e.id, w.ctx(T0 + DAY + MINUTE));
    const running = execution(w, e.id);
    w.state.outbox.length = 0;
    startExecution(w.state, e.id, w.ctx(T0 + DAY + 2 * MINUTE));
    expect(execution(w, e.id)).toBe(running);
    expect(w.state.outbox).toEqual([]);
  });
});

describe('finishExecution (executando → concluida | falhou)', () => {
  it('concluir: every watched product evaluated in watch order against the reference in force, the summary fields set, findings stamped now', () => {
    const w = setup();
    withDestination(w);
    const a = w.product({ ncm: MISSING_NCM, descricao: null, atributos: [{ codigo: 'ATT_9999', valores: ['x'] }] });
    const b = w.product();
    const c = w.product({
      atributos: [
        { codigo: 'ATT_0028', valores: ['PC-2'] },
        { codigo: 'ATT_0005', valores: ['12V'] },
      ],
    });
    const notWatched = w.product({ descricao: null });
    select(w, [c, a, b]);
    const e = daily(w, T0 + DAY);
    const start = T0 + DAY + MINUTE;
    startExecution(w.state, e.id, w.ctx(start));
    w.state.outbox.length = 0;
    const end = start + MIN_RUN_MS;
    finishExecution(w.state, e.id, false, w.ctx(end));
    const snapshot = w.state.regulatory;
    const expected = [c, a, b]
      .flatMap((p) => evaluateProduct(p, snapshot, end))
      .map((f) => ({ ...f, reaproveitado: false }));
    expect(expected.map((f) => [f.produto_id, f.tipo])).toEqual([
      [c.id, 'atributo_obrigatorio_ausente'],
      [c.id, 'atributo_valor_invalido'],
      [a.id, 'ncm_inexistente'],
      [a.id, 'atributo_desconhecido'],
      [a.id, 'descricao_ausente'],
    ]);
    expect(execution(w, e.id)).toEqual({
      ...e,
      estado: 'concluida',
      iniciadaEm: start,
      terminadaEm: end,
      codigoFalha: null,
      snapshotId: snapshot.id,
      produtosAvaliados: 3,
      reaproveitados: 0,
      findings: expected,
      divergente: false,
    });
    expect(execution(w, e.id).findings!.some((f) => f.produto_id === notWatched.id)).toBe(false);
    // The first concluded execution raises nothing (no divergencias.alteradas), and leaves no task.
    expect(events(w)).toEqual([]);
    expect(w.state.outbox).toEqual([]);
  });

  it('concludes with no findings and 0 products when the selection was emptied after it opened', () => {
    const w = setup();
    const p = w.product();
    select(w, [p]);
    const e = daily(w, T0 + DAY);
    deselect(w, [p]);
    const { done } = run(w, e, T0 + DAY);
    expect(done).toMatchObject({
      estado: 'concluida',
      produtosAvaliados: 0,
      reaproveitados: 0,
      findings: [],
      divergente: false,
    });
  });

  it('falhar: falhou falha_execucao at the end, no findings or summary, vigilancia.degradada execucao_falhou raised', () => {
    const w = setup();
    withDestination(w);
    select(w, [w.product({ descricao: null })]);
    const e = daily(w, T0 + DAY);
    const start = T0 + DAY + MINUTE;
    startExecution(w.state, e.id, w.ctx(start));
    const running = execution(w, e.id);
    w.state.outbox.length = 0;
    const end = start + MIN_RUN_MS;
    finishExecution(w.state, e.id, true, w.ctx(end));
    expect(execution(w, e.id)).toEqual({
      ...running,
      estado: 'falhou',
      codigoFalha: 'falha_execucao',
      terminadaEm: end,
    });
    expect(execution(w, e.id)).toMatchObject({
      findings: null,
      snapshotId: null,
      produtosAvaliados: null,
      reaproveitados: null,
      divergente: null,
      iniciadaEm: start,
    });
    expect(events(w)).toEqual([
      {
        tipo: 'vigilancia.degradada',
        estado: 'pendente',
        dados: { tipo: 'vigilancia.degradada', motivo: 'execucao_falhou', vigilanciaId: e.id, causa: 'falha_execucao' },
      },
    ]);
    expect(w.state.outbox.map((t) => [t.kind, t.due])).toEqual([[TASK_ATTEMPT, end]]);
  });

  it('raises execucao_falhou on every failed run (not only the first)', () => {
    const w = setup();
    withDestination(w);
    select(w, [w.product()]);
    dailyRun(w, T0 + DAY, true);
    dailyRun(w, T0 + 2 * DAY, true);
    expect(events(w).map((e) => e.dados.motivo)).toEqual(['execucao_falhou', 'execucao_falhou']);
  });

  it('a failed run does not remember evaluations: the next run evaluates afresh', () => {
    const w = setup();
    const p = w.product({ descricao: null });
    select(w, [p]);
    dailyRun(w, T0 + DAY, true);
    const { done, end } = dailyRun(w, T0 + 2 * DAY);
    expect(done.reaproveitados).toBe(0);
    expect(done.findings).toEqual(fresh(w, p, end));
  });

  it('does nothing for an unknown id or a pendente execution', () => {
    const w = setup();
    select(w, [w.product()]);
    finishExecution(w.state, UNKNOWN_ID, false, w.ctx());
    const e = daily(w, T0 + DAY);
    w.state.outbox.length = 0;
    finishExecution(w.state, e.id, false, w.ctx(T0 + DAY + 5 * SECOND));
    finishExecution(w.state, e.id, true, w.ctx(T0 + DAY + 5 * SECOND));
    expect(execution(w, e.id)).toBe(e);
    expect(w.state.outbox).toEqual([]);
    expect(events(w)).toEqual([]);
  });
});

describe('finality', () => {
  it('concluida is final: a later start or end changes nothing, and its findings stay as published whatever changes later', () => {
    const w = setup();
    const p = w.product({ descricao: null });
    const q = w.product();
    select(w, [p, q]);
    const { done, end } = dailyRun(w, T0 + DAY);
    const published = structuredClone(done);
    startExecution(w.state, done.id, w.ctx(end + 1));
    finishExecution(w.state, done.id, false, w.ctx(end + 2));
    finishExecution(w.state, done.id, true, w.ctx(end + 3));
    expect(execution(w, done.id)).toBe(done);
    // The products and the reference change, later runs reuse or re-evaluate: the published findings do not move.
    edit(w, p, { descricao: 'Agora com descrição', ncm: MISSING_NCM }, end + 4);
    publish(w, { extinguir: [PARTS_NCM] }, end + 5);
    run(w, executionsOf(w).at(-1)!, end + 5);
    dailyRun(w, T0 + 2 * DAY);
    expect(execution(w, done.id)).toEqual(published);
    expect(execution(w, done.id).snapshotId).not.toBe(w.state.regulatory.id);
  });

  it('falhou is final, whether impeded or failed in the run', () => {
    for (const failedRun of [false, true]) {
      const w = setup({ surveillanceEntitled: failedRun });
      select(w, [w.product()]);
      const { done } = dailyRun(w, T0 + DAY, failedRun);
      expect(done.estado).toBe('falhou');
      setFlags(w, { surveillanceEntitled: true });
      const eventCount = events(w).length;
      startExecution(w.state, done.id, w.ctx(T0 + DAY + 2 * MINUTE));
      finishExecution(w.state, done.id, false, w.ctx(T0 + DAY + 3 * MINUTE));
      finishExecution(w.state, done.id, true, w.ctx(T0 + DAY + 4 * MINUTE));
      expect(execution(w, done.id)).toBe(done);
      expect(events(w)).toHaveLength(eventCount);
    }
  });
});

describe('reuse: exactly when versao and rules fingerprint are unchanged', () => {
  it('an unchanged product keeps its findings, reaproveitado, with the first avaliado_em and snapshot_id; reaproveitados counts it', () => {
    const w = setup();
    const p = w.product({ descricao: null, ncm: MISSING_NCM, atributos: [] });
    const clean = w.product();
    select(w, [p, clean]);
    const first = dailyRun(w, T0 + DAY);
    expect(first.done.reaproveitados).toBe(0);
    const second = dailyRun(w, T0 + 2 * DAY);
    expect(second.done.reaproveitados).toBe(2);
    expect(second.done.produtosAvaliados).toBe(2);
    expect(second.done.findings).toEqual(reused(findingsOf(first.done, p)));
    expect(
      second.done.findings!.every((f) => f.avaliado_em === first.end && f.snapshot_id === first.done.snapshotId),
    ).toBe(true);
    const third = dailyRun(w, T0 + 3 * DAY);
    expect(third.done.findings).toEqual(second.done.findings);
    expect(third.done.reaproveitados).toBe(2);
  });

  it('a product PATCH (a new versao) breaks its reuse even when its findings come out the same; the others stay reused', () => {
    const w = setup();
    const p = w.product({ descricao: null });
    const q = w.product({ descricao: null });
    select(w, [p, q]);
    const first = dailyRun(w, T0 + DAY);
    edit(w, p, { sku: 'SKU-1' });
    const second = dailyRun(w, T0 + 2 * DAY);
    expect(second.done.reaproveitados).toBe(1);
    expect(findingsOf(second.done, p)).toEqual(fresh(w, p, second.end));
    expect(findingsOf(second.done, p)[0]!.avaliado_em).toBe(second.end);
    expect(findingsOf(second.done, q)).toEqual(reused(findingsOf(first.done, q)));
    // The fresh evaluation is remembered: the next run reuses it, with the second run's date.
    const third = dailyRun(w, T0 + 3 * DAY);
    expect(third.done.reaproveitados).toBe(2);
    expect(findingsOf(third.done, p)).toEqual(reused(findingsOf(second.done, p)));
    expect(findingsOf(third.done, p)[0]!.avaliado_em).toBe(second.end);
  });

  it('a publication changing the rules of its NCM (extinction, required attributes) breaks its reuse; the new snapshot_id shows on the fresh findings only', () => {
    const w = setup();
    const parts = w.product();
    const beer = w.product({ ncm: BEER_NCM, atributos: [], descricao: null });
    select(w, [parts, beer]);
    const first = dailyRun(w, T0 + DAY);
    const required = publish(
      w,
      { obrigatorios: { [PARTS_NCM]: ['ATT_0028', 'ATT_0029', 'ATT_0021'] } },
      T0 + DAY + HOUR,
    );
    expect(required.afetadas).toEqual([PARTS_NCM]);
    const second = run(w, executionsOf(w).at(-1)!, T0 + DAY + HOUR);
    expect(second.done.motivo).toBe('publicacao');
    expect(second.done.reaproveitados).toBe(1);
    expect(findingsOf(second.done, parts)).toEqual(fresh(w, parts, second.end));
    expect(findingsOf(second.done, parts).map((f) => [f.tipo, f.snapshot_id])).toEqual([
      ['atributo_obrigatorio_ausente', required.id],
    ]);
    expect(findingsOf(second.done, beer)).toEqual(reused(findingsOf(first.done, beer)));
    expect(findingsOf(second.done, beer)[0]!.snapshot_id).toBe(first.done.snapshotId);
    expect(second.done.snapshotId).toBe(required.id);
    const extinct = publish(w, { extinguir: [PARTS_NCM] }, T0 + DAY + 2 * HOUR);
    const third = run(w, executionsOf(w).at(-1)!, T0 + DAY + 2 * HOUR);
    expect(third.done.reaproveitados).toBe(1);
    expect(findingsOf(third.done, parts).map((f) => [f.tipo, f.snapshot_id, f.avaliado_em, f.reaproveitado])).toEqual([
      ['ncm_extinta', extinct.id, third.end, false],
    ]);
  });

  it('a change of an attribute definition the product carries breaks its reuse, even when its NCM does not require it', () => {
    const w = setup();
    const voltage = w.product(WITH_VOLTAGE);
    const plain = w.product();
    select(w, [voltage, plain]);
    const first = dailyRun(w, T0 + DAY);
    expect(first.done.findings).toEqual([]);
    const changed = publish(
      w,
      { atributos: [{ codigo: 'ATT_0005', nome: 'voltagem', dominio: ['110V', 'bivolt'] }] },
      T0 + DAY + HOUR,
    );
    expect(changed.atributosAlterados).toEqual(['ATT_0005']);
    const second = run(w, executionsOf(w).at(-1)!, T0 + DAY + HOUR);
    expect(second.done.reaproveitados).toBe(1);
    expect(findingsOf(second.done, voltage).map((f) => [f.tipo, f.snapshot_id, f.reaproveitado])).toEqual([
      ['atributo_valor_invalido', changed.id, false],
    ]);
  });

  it('an unrelated publication (another NCM, an attribute the product does not carry, a rename of a free-text attribute it carries) keeps the reuse', () => {
    const w = setup();
    const p = w.product({ descricao: null });
    select(w, [p]);
    const first = dailyRun(w, T0 + DAY);
    const fingerprint = rulesFingerprint(w.state.regulatory, PARTS_NCM, ['ATT_0028', 'ATT_0029']);
    publish(
      w,
      {
        extinguir: [BEER_NCM],
        atributos: [
          { codigo: 'ATT_0005', nome: 'voltagem', dominio: ['bivolt'] },
          { codigo: 'ATT_0777', nome: 'novo' },
        ],
      },
      T0 + DAY + HOUR,
    );
    expect(rulesFingerprint(w.state.regulatory, PARTS_NCM, ['ATT_0028', 'ATT_0029'])).toBe(fingerprint);
    expect(executionsOf(w)).toHaveLength(1);
    const second = dailyRun(w, T0 + 2 * DAY);
    expect(second.done.reaproveitados).toBe(1);
    expect(second.done.findings).toEqual(reused(first.done.findings!));
    expect(second.done.snapshotId).toBe(w.state.regulatory.id);
    expect(second.done.findings![0]!.snapshot_id).toBe(first.done.snapshotId);
    expect(second.done.snapshotId).not.toBe(first.done.snapshotId);
  });

  it('keeps the last evaluation while a product is not watched: selected again unchanged, it is reused', () => {
    const w = setup();
    const p = w.product({ descricao: null });
    const q = w.product();
    select(w, [p, q]);
    const first = dailyRun(w, T0 + DAY);
    deselect(w, [p]);
    const second = dailyRun(w, T0 + 2 * DAY);
    expect(second.done.produtosAvaliados).toBe(1);
    select(w, [p]);
    const third = dailyRun(w, T0 + 3 * DAY);
    expect(third.done.reaproveitados).toBe(2);
    expect(findingsOf(third.done, p)).toEqual(reused(findingsOf(first.done, p)));
  });

  it("keeps each company's evaluations apart", () => {
    const w = setup();
    const p = w.product({ descricao: null });
    select(w, [p]);
    dailyRun(w, T0 + DAY);
    const o = other(w);
    const q = w.product({ descricao: null }, o);
    select(w, [q], o.companyId);
    scheduleDailyExecutions(w.state, w.ctx(T0 + 2 * DAY));
    const theirs = executionsOf(w, o.companyId)[0]!;
    startExecution(w.state, theirs.id, w.ctx(T0 + 2 * DAY + MINUTE));
    finishExecution(w.state, theirs.id, false, w.ctx(T0 + 2 * DAY + MINUTE + MIN_RUN_MS));
    expect(execution(w, theirs.id).reaproveitados).toBe(0);
  });
});

describe('divergence with the previous concluded execution', () => {
  it('raises divergencias.alteradas with {tipo, vigilanciaId, anteriorId, novas, resolvidas, totalAchados} when the findings changed; divergente true', () => {
    const w = setup();
    withDestination(w);
    const p = w.product({ descricao: null });
    const q = w.product();
    const r = w.product({ ncm: MISSING_NCM, atributos: [] });
    select(w, [p, q, r]);
    const first = dailyRun(w, T0 + DAY);
    expect(first.done.divergente).toBe(false);
    // p fixed (resolved), q loses its description and gets an unknown attribute (two new), r unchanged.
    edit(w, p, { descricao: 'ok' });
    edit(w, q, { descricao: null, atributos: [...CLEAN.atributos!, { codigo: 'ATT_9999', valores: ['x'] }] });
    const second = dailyRun(w, T0 + 2 * DAY);
    expect(second.done.divergente).toBe(true);
    expect(second.done.findings!.length).toBe(3);
    expect(events(w).filter((e) => e.tipo === 'divergencias.alteradas')).toEqual([
      {
        tipo: 'divergencias.alteradas',
        estado: 'pendente',
        dados: {
          tipo: 'divergencias.alteradas',
          vigilanciaId: second.done.id,
          anteriorId: first.done.id,
          novas: 2,
          resolvidas: 1,
          totalAchados: 3,
        },
      },
    ]);
  });

  it('raises nothing (divergente false) when only the evaluation dates differ: the same produto_id|tipo|detalhe set', () => {
    const w = setup();
    const p = w.product({ descricao: null });
    select(w, [p]);
    dailyRun(w, T0 + DAY);
    edit(w, p, { sku: 'novo' });
    const second = dailyRun(w, T0 + 2 * DAY);
    expect(second.done.reaproveitados).toBe(0);
    expect(second.done.divergente).toBe(false);
    expect(events(w)).toEqual([]);
  });

  it('compares with the previous concluded execution, skipping failed and impeded ones', () => {
    const w = setup();
    withDestination(w);
    const p = w.product({ descricao: null });
    select(w, [p]);
    const first = dailyRun(w, T0 + DAY);
    dailyRun(w, T0 + 2 * DAY, true);
    setFlags(w, { surveillanceEntitled: false });
    dailyRun(w, T0 + 3 * DAY);
    setFlags(w, { surveillanceEntitled: true });
    edit(w, p, { descricao: 'ok' });
    const later = dailyRun(w, T0 + 4 * DAY);
    expect(later.done.divergente).toBe(true);
    expect(
      events(w)
        .filter((e) => e.tipo === 'divergencias.alteradas')
        .map((e) => e.dados),
    ).toEqual([
      {
        tipo: 'divergencias.alteradas',
        vigilanciaId: later.done.id,
        anteriorId: first.done.id,
        novas: 0,
        resolvidas: 1,
        totalAchados: 0,
      },
    ]);
  });

  it('counts a product that stopped being watched as resolved and a newly watched one as new', () => {
    const w = setup();
    withDestination(w);
    const p = w.product({ descricao: null });
    const q = w.product({ ncm: MISSING_NCM, atributos: [] });
    select(w, [p]);
    const first = dailyRun(w, T0 + DAY);
    deselect(w, [p]);
    select(w, [q]);
    const second = dailyRun(w, T0 + 2 * DAY);
    expect(
      events(w)
        .filter((e) => e.tipo === 'divergencias.alteradas')
        .map((e) => e.dados),
    ).toEqual([
      {
        tipo: 'divergencias.alteradas',
        vigilanciaId: second.done.id,
        anteriorId: first.done.id,
        novas: 1,
        resolvidas: 1,
        totalAchados: 1,
      },
    ]);
  });
});

describe('findExecution and publishedExecution', () => {
  it("find: the company's own execution; 404 vigilancia_nao_encontrada at path.id for another company's or an unknown id", () => {
    const w = setup();
    select(w, [w.product()]);
    const e = daily(w, T0 + DAY);
    expect(unwrap(findExecution(w.state, w.companyId, e.id))).toBe(e);
    const o = other(w);
    expectRefusal(findExecution(w.state, o.companyId, e.id), 'not_found', 'vigilancia_nao_encontrada', 'path.id');
    expectRefusal(findExecution(w.state, w.companyId, UNKNOWN_ID), 'not_found', 'vigilancia_nao_encontrada', 'path.id');
    expectRefusal(publishedExecution(w.state, o.companyId, e.id), 'not_found', 'vigilancia_nao_encontrada', 'path.id');
  });

  it('published: 409 resultado_indisponivel (no caminho) while pendente and executando and once falhou; the execution once concluida', () => {
    const w = setup();
    select(w, [w.product()]);
    const e = daily(w, T0 + DAY);
    expectRefusal(publishedExecution(w.state, w.companyId, e.id), 'conflict', 'resultado_indisponivel');
    startExecution(w.state, e.id, w.ctx(T0 + DAY + MINUTE));
    expectRefusal(publishedExecution(w.state, w.companyId, e.id), 'conflict', 'resultado_indisponivel');
    finishExecution(w.state, e.id, false, w.ctx(T0 + DAY + MINUTE + MIN_RUN_MS));
    expect(unwrap(publishedExecution(w.state, w.companyId, e.id))).toBe(execution(w, e.id));
    const failed = dailyRun(w, T0 + 2 * DAY, true).done;
    expectRefusal(publishedExecution(w.state, w.companyId, failed.id), 'conflict', 'resultado_indisponivel');
    setFlags(w, { surveillanceEntitled: false });
    const impeded = dailyRun(w, T0 + 3 * DAY).done;
    expectRefusal(publishedExecution(w.state, w.companyId, impeded.id), 'conflict', 'resultado_indisponivel');
  });
});
