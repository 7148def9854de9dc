/**
 * The pure core of full-company analyses (src/core/analyses.ts): acceptance (a new pending analysis, or the
 * open one), the start (one allowance unit taken, or falhou sem_franquia without one), the end (every active
 * product evaluated against the reference in force, or falhou falha_execucao), the finality of concluida and
 * falhou, the counts by tipo, the allowance left, and the task intents and events each transition leaves in
 * the outbox with their due times.
 */
import { describe, expect, it } from 'vitest';
import {
  allowanceLeft,
  findAnalysis,
  findingsByType,
  finishAnalysis,
  MIN_RUN_MS,
  PHASE_OF,
  publishedAnalysis,
  requestAnalysis,
  START_DELAY_MS,
  startAnalysis,
  TASK_ANALYSIS_END,
  TASK_ANALYSIS_START,
  type Analysis,
} from './analyses.js';
import { deleteCatalog, previewDeletion } from './catalog-deletion.js';
import { createCatalog, type Catalog } from './catalogs.js';
import { createCompany, updateCompany } from './companies.js';
import { registerEstablishment } from './establishments.js';
import { createProduct, editProduct, productEtag, type NewProduct, type Product } from './products.js';
import { createRandom, seedRandom } from './random.js';
import { publishReference } from './regulatory/reference.js';
import { evaluateProduct, FINDING_TYPES, type Finding } from './regulatory/rules.js';
import type { Context, State } from './state.js';
import { createState } from './slices.js';
import { T0, CORE_CONFIG, ROOT, OTHER_ROOT, cnpj, expectRefusal, unwrap } from './testing/support.js';
import { configureDestination } from './webhooks/destination.js';
import { TASK_ATTEMPT } from './webhooks/events.js';
import { MINUTE, SECOND } from './time.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TIPOS = FINDING_TYPES.map((t) => t.tipo);

/** NCMs of the shipped table: a valid one requiring only free-text attributes (ATT_0028, ATT_0029), and an absent one. */
const PARTS_NCM = '87081000';
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

interface World {
  readonly state: State;
  readonly companyId: string;
  readonly catalog: Catalog;
  readonly ctx: (now?: number) => Context;
  readonly product: (fields?: Partial<NewProduct>, now?: number) => Product;
}

function setup(analysisAllowance = 10, root = ROOT): World {
  const state = createState(T0);
  const random = createRandom(seedRandom(11));
  const ctx = (now = T0): Context => ({ now, random, config: CORE_CONFIG });
  const created = unwrap(createCompany(state, { cnpjRoot: root, analysisAllowance }, ctx()));
  const companyId = created.company.id;
  const catalog = unwrap(
    createCatalog(state, companyId, { establishmentId: created.headOffice.id, nome: 'Loja' }, ctx()),
  );
  const product = (fields: Partial<NewProduct> = {}, now = T0) =>
    unwrap(createProduct(state, companyId, catalog.id, { ...CLEAN, ...fields }, ctx(now)));
  state.outbox.length = 0;
  return { state, companyId, catalog, ctx, product };
}

/** Another company in the same state, with a catalog and `products` products of its own. */
function otherCompany(w: World, products = 0): { companyId: string; catalog: Catalog } {
  const created = unwrap(createCompany(w.state, { cnpjRoot: OTHER_ROOT }, w.ctx()));
  const catalog = unwrap(
    createCatalog(w.state, created.company.id, { establishmentId: created.headOffice.id, nome: 'Outra' }, w.ctx()),
  );
  for (let i = 0; i < products; i++)
    unwrap(createProduct(w.state, created.company.id, catalog.id, { origem: 'erp', ncm: MISSING_NCM }, w.ctx()));
  w.state.outbox.length = 0;
  return { companyId: created.company.id, catalog };
}

/** The company's webhook destination, active (events raised then are pendente with an attempt due). */
function withDestination(w: World): void {
  unwrap(
    configureDestination(
      w.state,
      w.companyId,
      { url: 'https://hooks.example.com/eventos', createOnly: true, ifMatch: undefined },
      w.ctx(),
    ),
  );
}

const analysis = (w: World, id: string): Analysis => w.state.analyses.get(id)!;

/** The events raised for the company, oldest first: tipo, estado and the envelope's dados. */
function events(
  w: World,
  companyId = w.companyId,
): { id: string; tipo: string; estado: string; dados: Record<string, unknown> }[] {
  return [...w.state.webhookEvents.values()]
    .filter((e) => e.companyId === companyId)
    .sort((a, b) => a.position - b.position)
    .map((e) => ({ id: e.id, tipo: e.tipo, estado: e.estado, dados: JSON.parse(e.body).dados }));
}

/** Accepts, then runs the start at T0 + 1 min; returns the analysis id and the start time. */
function started(w: World, at = T0): { id: string; startAt: number } {
  const { analysis: a } = requestAnalysis(w.state, w.companyId, w.ctx(at));
  const startAt = at + START_DELAY_MS;
  startAnalysis(w.state, a.id, w.ctx(startAt));
  w.state.outbox.length = 0;
  return { id: a.id, startAt };
}

/** Everything a no-op must leave alone. */
function fingerprint(w: World) {
  return {
    analyses: [...w.state.analyses.entries()],
    open: [...w.state.openAnalyses.entries()],
    used: [...w.state.analysisUnitsUsed.entries()],
    outbox: [...w.state.outbox],
    events: [...w.state.webhookEvents.keys()],
    sequence: w.state.sequence,
  };
}

describe('timing constants', () => {
  it('starts a run 1 minute after acceptance and runs at least 10 seconds; tasks are analise.inicio and analise.fim', () => {
    expect(START_DELAY_MS).toBe(MINUTE);
    expect(MIN_RUN_MS).toBe(10 * SECOND);
    expect(TASK_ANALYSIS_START).toBe('analise.inicio');
    expect(TASK_ANALYSIS_END).toBe('analise.fim');
  });

  it('maps each estado to its fase', () => {
    expect(PHASE_OF).toEqual({
      pendente: 'na_fila',
      executando: 'avaliando',
      concluida: 'publicada',
      falhou: 'encerrada',
    });
  });
});

describe('requestAnalysis', () => {
  it('creates a pendente analysis with nothing set but its creation time, and consumes no allowance', () => {
    const w = setup(3);
    const now = T0 + 12_345;
    const { analysis: a, created } = requestAnalysis(w.state, w.companyId, w.ctx(now));
    expect(created).toBe(true);
    expect(a).toEqual({
      id: expect.stringMatching(UUID_V7),
      companyId: w.companyId,
      estado: 'pendente',
      criadaEm: now,
      iniciadaEm: null,
      terminadaEm: null,
      codigoFalha: null,
      snapshotId: null,
      produtosAvaliados: null,
      findings: null,
      position: expect.any(Number),
    });
    expect(w.state.analyses.get(a.id)).toBe(a);
    expect([...w.state.openAnalyses.entries()]).toEqual([[w.companyId, a.id]]);
    expect([...w.state.analyses.listOf(w.companyId).after()].map(([id]) => id)).toEqual([a.id]);
    expect(allowanceLeft(w.state, w.companyId)).toBe(3);
    expect(w.state.analysisUnitsUsed.get(w.companyId)).toBeUndefined();
    expect(events(w)).toEqual([]);
  });

  it('leaves one start intent in the outbox, due START_DELAY_MS later, owned by the company', () => {
    const w = setup();
    const now = T0 + 7 * MINUTE + 3;
    const { analysis: a } = requestAnalysis(w.state, w.companyId, w.ctx(now));
    expect(w.state.outbox).toEqual([
      { kind: TASK_ANALYSIS_START, owner: w.companyId, due: now + MINUTE, payload: { analysisId: a.id } },
    ]);
  });

  it('answers the pendente analysis (created: false) instead of a new one, adding no analysis, intent or position', () => {
    const w = setup();
    const { analysis: first } = requestAnalysis(w.state, w.companyId, w.ctx());
    w.state.outbox.length = 0;
    const before = fingerprint(w);
    const again = requestAnalysis(w.state, w.companyId, w.ctx(T0 + 30 * SECOND));
    expect(again.created).toBe(false);
    expect(again.analysis).toBe(first);
    expect(fingerprint(w)).toEqual(before);
  });

  it('answers the executando analysis (created: false) while it runs', () => {
    const w = setup();
    const { id } = started(w);
    const before = fingerprint(w);
    const again = requestAnalysis(w.state, w.companyId, w.ctx(T0 + MINUTE + 5 * SECOND));
    expect(again.created).toBe(false);
    expect(again.analysis).toBe(analysis(w, id));
    expect(again.analysis.estado).toBe('executando');
    expect(fingerprint(w)).toEqual(before);
  });

  it('creates a new analysis once the open one concluded, and another once that one failed', () => {
    const w = setup();
    const { id: first, startAt } = started(w);
    finishAnalysis(w.state, first, false, w.ctx(startAt + MIN_RUN_MS));
    expect(w.state.openAnalyses.has(w.companyId)).toBe(false);
    const later = startAt + MIN_RUN_MS + 1;
    const second = requestAnalysis(w.state, w.companyId, w.ctx(later));
    expect(second.created).toBe(true);
    expect(second.analysis.id).not.toBe(first);
    expect(second.analysis.position).toBeGreaterThan(analysis(w, first).position);
    startAnalysis(w.state, second.analysis.id, w.ctx(later + MINUTE));
    finishAnalysis(w.state, second.analysis.id, true, w.ctx(later + MINUTE + MIN_RUN_MS));
    expect(analysis(w, second.analysis.id).estado).toBe('falhou');
    const third = requestAnalysis(w.state, w.companyId, w.ctx(later + 2 * MINUTE));
    expect(third.created).toBe(true);
    expect(new Set([first, second.analysis.id, third.analysis.id]).size).toBe(3);
    expect([...w.state.analyses.listOf(w.companyId).after()].map(([id]) => id)).toEqual([
      first,
      second.analysis.id,
      third.analysis.id,
    ]);
  });

  it("keeps companies apart: another company's open analysis does not answer for this one", () => {
    const w = setup();
    const other = otherCompany(w);
    const theirs = requestAnalysis(w.state, other.companyId, w.ctx());
    const ours = requestAnalysis(w.state, w.companyId, w.ctx());
    expect(theirs.created).toBe(true);
    expect(ours.created).toBe(true);
    expect(ours.analysis.id).not.toBe(theirs.analysis.id);
    expect(w.state.openAnalyses.get(other.companyId)).toBe(theirs.analysis.id);
    expect(w.state.openAnalyses.get(w.companyId)).toBe(ours.analysis.id);
  });
});

describe('startAnalysis', () => {
  it('with allowance left: executando from now, one unit taken, and the end intent due MIN_RUN_MS later for a small company', () => {
    const w = setup(2);
    w.product();
    w.product();
    const { analysis: a } = requestAnalysis(w.state, w.companyId, w.ctx());
    w.state.outbox.length = 0;
    const at = T0 + MINUTE;
    startAnalysis(w.state, a.id, w.ctx(at));
    expect(analysis(w, a.id)).toEqual({ ...a, estado: 'executando', iniciadaEm: at });
    expect(allowanceLeft(w.state, w.companyId)).toBe(1);
    expect(w.state.analysisUnitsUsed.get(w.companyId)).toBe(1);
    expect(w.state.openAnalyses.get(w.companyId)).toBe(a.id);
    expect(w.state.outbox).toEqual([
      { kind: TASK_ANALYSIS_END, owner: w.companyId, due: at + 10 * SECOND, payload: { analysisId: a.id } },
    ]);
    expect(events(w)).toEqual([]);
  });

  it("runs 1 ms per product of the company when that exceeds 10 s (another company's products do not count)", () => {
    const w = setup();
    otherCompany(w, 50);
    const count = 10_037;
    for (let i = 0; i < count; i++)
      unwrap(createProduct(w.state, w.companyId, w.catalog.id, { origem: 'erp', ncm: MISSING_NCM }, w.ctx()));
    const { analysis: a } = requestAnalysis(w.state, w.companyId, w.ctx());
    w.state.outbox.length = 0;
    startAnalysis(w.state, a.id, w.ctx(T0 + MINUTE));
    expect(w.state.outbox).toEqual([
      { kind: TASK_ANALYSIS_END, owner: w.companyId, due: T0 + MINUTE + count, payload: { analysisId: a.id } },
    ]);
  });

  it('without allowance: falhou sem_franquia at once, never started, no unit taken, the open slot freed and analise.falhou raised', () => {
    const w = setup(0);
    withDestination(w);
    const { analysis: a } = requestAnalysis(w.state, w.companyId, w.ctx());
    w.state.outbox.length = 0;
    const at = T0 + MINUTE;
    startAnalysis(w.state, a.id, w.ctx(at));
    expect(analysis(w, a.id)).toEqual({
      ...a,
      estado: 'falhou',
      codigoFalha: 'sem_franquia',
      terminadaEm: at,
      iniciadaEm: null,
    });
    expect(w.state.analysisUnitsUsed.get(w.companyId)).toBeUndefined();
    expect(allowanceLeft(w.state, w.companyId)).toBe(0);
    expect(w.state.openAnalyses.has(w.companyId)).toBe(false);
    const raised = events(w);
    expect(raised).toEqual([
      {
        id: expect.any(String),
        tipo: 'analise.falhou',
        estado: 'pendente',
        dados: { tipo: 'analise.falhou', analiseId: a.id, codigoFalha: 'sem_franquia' },
      },
    ]);
    // No end task: only the event's first delivery attempt, due now.
    expect(w.state.outbox).toEqual([
      { kind: TASK_ATTEMPT, owner: w.companyId, due: at, payload: { eventId: raised[0]!.id, ciclo: 1 } },
    ]);
  });

  it('fails sem_franquia once the runs used the whole allowance', () => {
    const w = setup(1);
    const { id: first, startAt } = started(w);
    expect(analysis(w, first).estado).toBe('executando');
    finishAnalysis(w.state, first, false, w.ctx(startAt + MIN_RUN_MS));
    const { id: second } = started(w, startAt + MIN_RUN_MS);
    expect(analysis(w, second)).toMatchObject({ estado: 'falhou', codigoFalha: 'sem_franquia', iniciadaEm: null });
    expect(w.state.analysisUnitsUsed.get(w.companyId)).toBe(1);
  });

  it('fails sem_franquia when the allowance was lowered below the units used (allowanceLeft clamps at 0)', () => {
    const w = setup(3);
    const { id: first, startAt } = started(w);
    finishAnalysis(w.state, first, false, w.ctx(startAt + MIN_RUN_MS));
    unwrap(updateCompany(w.state, w.companyId, { analysisAllowance: 0 }, w.ctx()));
    expect(allowanceLeft(w.state, w.companyId)).toBe(0);
    const { id: second } = started(w, startAt + MINUTE);
    expect(analysis(w, second)).toMatchObject({ estado: 'falhou', codigoFalha: 'sem_franquia' });
    expect(w.state.analysisUnitsUsed.get(w.companyId)).toBe(1);
  });

  // spec: CONV-09 — an event names its destination; a company without one gets no event recorded.
  it('fails sem_franquia but records no analise.falhou and schedules nothing when the company has no destination', () => {
    const w = setup(0);
    const { analysis: a } = requestAnalysis(w.state, w.companyId, w.ctx());
    w.state.outbox.length = 0;
    startAnalysis(w.state, a.id, w.ctx(T0 + MINUTE));
    expect(analysis(w, a.id)).toMatchObject({ estado: 'falhou', codigoFalha: 'sem_franquia' });
    expect(events(w)).toEqual([]);
    expect(w.state.outbox).toEqual([]);
  });

  it('does nothing for an unknown id or an analysis that is not pendente', () => {
    const w = setup(5);
    startAnalysis(w.state, '0190a000-0000-7000-8000-000000000000', w.ctx());
    expect(w.state.outbox).toEqual([]);
    const { id: running, startAt } = started(w);
    let before = fingerprint(w);
    startAnalysis(w.state, running, w.ctx(startAt + SECOND));
    expect(fingerprint(w)).toEqual(before);
    finishAnalysis(w.state, running, false, w.ctx(startAt + MIN_RUN_MS));
    w.state.outbox.length = 0;
    before = fingerprint(w);
    startAnalysis(w.state, running, w.ctx(startAt + MINUTE));
    expect(fingerprint(w)).toEqual(before);
    expect(allowanceLeft(w.state, w.companyId)).toBe(4);
  });
});

describe('finishAnalysis', () => {
  it('concludes: every active product evaluated against the reference in force, findings in product then rule order, stamped now', () => {
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
    const { id, startAt } = started(w);
    const end = startAt + MIN_RUN_MS;
    finishAnalysis(w.state, id, false, w.ctx(end));
    const snapshot = w.state.regulatory;
    const expected: Finding[] = [a, b, c].flatMap((p) => evaluateProduct(p, snapshot, end));
    expect(expected.map((f) => [f.produto_id, f.tipo])).toEqual([
      [a.id, 'ncm_inexistente'],
      [a.id, 'atributo_desconhecido'],
      [a.id, 'descricao_ausente'],
      [c.id, 'atributo_obrigatorio_ausente'],
      [c.id, 'atributo_valor_invalido'],
    ]);
    const done = analysis(w, id);
    expect(done).toEqual({
      ...done,
      estado: 'concluida',
      iniciadaEm: startAt,
      terminadaEm: end,
      codigoFalha: null,
      snapshotId: snapshot.id,
      produtosAvaliados: 3,
      findings: expected,
    });
    expect(done.findings!.every((f) => f.avaliado_em === end && f.snapshot_id === snapshot.id)).toBe(true);
    expect(w.state.openAnalyses.has(w.companyId)).toBe(false);
    expect(w.state.analysisUnitsUsed.get(w.companyId)).toBe(1);
    const raised = events(w);
    expect(raised).toEqual([
      {
        id: expect.any(String),
        tipo: 'analise.concluida',
        estado: 'pendente',
        dados: { tipo: 'analise.concluida', analiseId: id, produtosAvaliados: 3, achados: 5, snapshotId: snapshot.id },
      },
    ]);
    expect(w.state.outbox).toEqual([
      { kind: TASK_ATTEMPT, owner: w.companyId, due: end, payload: { eventId: raised[0]!.id, ciclo: 1 } },
    ]);
  });

  it("skips inactive products and other companies' products", () => {
    const w = setup();
    const other = otherCompany(w, 3);
    const establishment = unwrap(
      registerEstablishment(w.state, w.companyId, { cnpj: cnpj(ROOT, '0002'), nome: 'Filial' }, w.ctx()),
    );
    const branchCatalog = unwrap(
      createCatalog(w.state, w.companyId, { establishmentId: establishment.id, nome: 'Filial' }, w.ctx()),
    );
    const kept = w.product({ descricao: null });
    const gone = unwrap(
      createProduct(w.state, w.companyId, branchCatalog.id, { origem: 'erp', ncm: MISSING_NCM }, w.ctx()),
    );
    const preview = unwrap(previewDeletion(w.state, w.companyId, branchCatalog.id));
    unwrap(deleteCatalog(w.state, w.companyId, branchCatalog.id, [preview.etag], w.ctx()));
    expect(w.state.products.get(gone.id)!.ativo).toBe(false);
    const { id, startAt } = started(w);
    finishAnalysis(w.state, id, false, w.ctx(startAt + MIN_RUN_MS));
    const done = analysis(w, id);
    expect(done.produtosAvaliados).toBe(1);
    expect(done.findings!.map((f) => [f.produto_id, f.tipo])).toEqual([[kept.id, 'descricao_ausente']]);
    expect(events(w, other.companyId)).toEqual([]);
  });

  it('uses the reference in force at the end, not the one at acceptance or start', () => {
    const w = setup();
    const p = w.product();
    withDestination(w);
    const { id, startAt } = started(w);
    const initialId = w.state.regulatory.id;
    const published = unwrap(publishReference(w.state, { extinguir: [PARTS_NCM] }, startAt + SECOND));
    expect(published.id).not.toBe(initialId);
    const end = startAt + MIN_RUN_MS;
    finishAnalysis(w.state, id, false, w.ctx(end));
    const done = analysis(w, id);
    expect(done.snapshotId).toBe(published.id);
    expect(done.findings).toEqual([
      {
        produto_id: p.id,
        ncm: PARTS_NCM,
        tipo: 'ncm_extinta',
        detalhe: expect.any(String),
        avaliado_em: end,
        snapshot_id: published.id,
      },
    ]);
    expect(events(w)[0]!.dados).toMatchObject({ snapshotId: published.id, achados: 1, produtosAvaliados: 1 });
  });

  it('concludes with no findings and 0 products evaluated for a company without products', () => {
    const w = setup();
    withDestination(w);
    const { id, startAt } = started(w);
    finishAnalysis(w.state, id, false, w.ctx(startAt + MIN_RUN_MS));
    expect(analysis(w, id)).toMatchObject({
      estado: 'concluida',
      produtosAvaliados: 0,
      findings: [],
      snapshotId: w.state.regulatory.id,
    });
    expect(events(w)[0]!.dados).toEqual({
      tipo: 'analise.concluida',
      analiseId: id,
      produtosAvaliados: 0,
      achados: 0,
      snapshotId: w.state.regulatory.id,
    });
  });

  it('fails the run (falha_execucao): no findings, no summary, the unit not refunded, the open slot freed, analise.falhou raised', () => {
    const w = setup(2);
    withDestination(w);
    w.product({ descricao: null });
    const { id, startAt } = started(w);
    const before = analysis(w, id);
    const end = startAt + MIN_RUN_MS;
    finishAnalysis(w.state, id, true, w.ctx(end));
    expect(analysis(w, id)).toEqual({ ...before, estado: 'falhou', codigoFalha: 'falha_execucao', terminadaEm: end });
    expect(analysis(w, id)).toMatchObject({
      findings: null,
      snapshotId: null,
      produtosAvaliados: null,
      iniciadaEm: startAt,
    });
    expect(allowanceLeft(w.state, w.companyId)).toBe(1);
    expect(w.state.openAnalyses.has(w.companyId)).toBe(false);
    const raised = events(w);
    expect(raised).toEqual([
      {
        id: expect.any(String),
        tipo: 'analise.falhou',
        estado: 'pendente',
        dados: { tipo: 'analise.falhou', analiseId: id, codigoFalha: 'falha_execucao' },
      },
    ]);
    expect(w.state.outbox).toEqual([
      { kind: TASK_ATTEMPT, owner: w.companyId, due: end, payload: { eventId: raised[0]!.id, ciclo: 1 } },
    ]);
  });

  it('does nothing for an unknown id or a pendente analysis (not started)', () => {
    const w = setup();
    finishAnalysis(w.state, '0190a000-0000-7000-8000-000000000000', false, w.ctx());
    const { analysis: a } = requestAnalysis(w.state, w.companyId, w.ctx());
    w.state.outbox.length = 0;
    const before = fingerprint(w);
    finishAnalysis(w.state, a.id, false, w.ctx(T0 + 5 * SECOND));
    finishAnalysis(w.state, a.id, true, w.ctx(T0 + 5 * SECOND));
    expect(fingerprint(w)).toEqual(before);
    expect(analysis(w, a.id).estado).toBe('pendente');
  });
});

describe('lifecycle finality', () => {
  it('concluida is final: a later start or end (ok or failed) changes nothing, and its findings stay as published', () => {
    const w = setup();
    const p = w.product({ descricao: null });
    const { id, startAt } = started(w);
    const end = startAt + MIN_RUN_MS;
    finishAnalysis(w.state, id, false, w.ctx(end));
    w.state.outbox.length = 0;
    const done = analysis(w, id);
    const findings = structuredClone(done.findings);
    const before = fingerprint(w);
    startAnalysis(w.state, id, w.ctx(end + 1));
    finishAnalysis(w.state, id, false, w.ctx(end + 2));
    finishAnalysis(w.state, id, true, w.ctx(end + 3));
    expect(fingerprint(w)).toEqual(before);
    expect(analysis(w, id)).toBe(done);
    // The product and the reference change afterwards: the published findings do not.
    unwrap(
      editProduct(
        w.state,
        w.companyId,
        p.id,
        [productEtag(p)],
        { descricao: 'Agora com descrição', ncm: MISSING_NCM },
        w.ctx(end + 4),
      ),
    );
    unwrap(publishReference(w.state, { extinguir: [PARTS_NCM] }, end + 5));
    expect(analysis(w, id).findings).toEqual(findings);
    expect(analysis(w, id).snapshotId).not.toBe(w.state.regulatory.id);
  });

  it('falhou is final, whether it failed for want of allowance or in the run', () => {
    for (const failedRun of [false, true]) {
      const w = setup(failedRun ? 1 : 0);
      const { id, startAt } = started(w);
      if (failedRun) finishAnalysis(w.state, id, true, w.ctx(startAt + MIN_RUN_MS));
      w.state.outbox.length = 0;
      const failed = analysis(w, id);
      expect(failed.estado).toBe('falhou');
      unwrap(updateCompany(w.state, w.companyId, { analysisAllowance: 5 }, w.ctx()));
      const before = fingerprint(w);
      startAnalysis(w.state, id, w.ctx(startAt + MINUTE));
      finishAnalysis(w.state, id, false, w.ctx(startAt + 2 * MINUTE));
      finishAnalysis(w.state, id, true, w.ctx(startAt + 3 * MINUTE));
      expect(fingerprint(w)).toEqual(before);
      expect(analysis(w, id)).toBe(failed);
    }
  });
});

describe('findAnalysis and publishedAnalysis', () => {
  it("finds the company's analysis; another company's or an unknown one is analise_nao_encontrada at path.id", () => {
    const w = setup();
    const other = otherCompany(w);
    const { analysis: a } = requestAnalysis(w.state, w.companyId, w.ctx());
    expect(unwrap(findAnalysis(w.state, w.companyId, a.id))).toBe(a);
    expectRefusal(findAnalysis(w.state, other.companyId, a.id), 'not_found', 'analise_nao_encontrada', 'path.id');
    expectRefusal(
      findAnalysis(w.state, w.companyId, '0190a000-0000-7000-8000-000000000000'),
      'not_found',
      'analise_nao_encontrada',
      'path.id',
    );
    expectRefusal(publishedAnalysis(w.state, other.companyId, a.id), 'not_found', 'analise_nao_encontrada', 'path.id');
  });

  it('publishes the result only once concluida: resultado_indisponivel (409) while pendente, executando or after falhou', () => {
    const w = setup(1);
    const { analysis: a } = requestAnalysis(w.state, w.companyId, w.ctx());
    expectRefusal(publishedAnalysis(w.state, w.companyId, a.id), 'conflict', 'resultado_indisponivel');
    startAnalysis(w.state, a.id, w.ctx(T0 + MINUTE));
    expectRefusal(publishedAnalysis(w.state, w.companyId, a.id), 'conflict', 'resultado_indisponivel');
    finishAnalysis(w.state, a.id, false, w.ctx(T0 + MINUTE + MIN_RUN_MS));
    expect(unwrap(publishedAnalysis(w.state, w.companyId, a.id))).toBe(analysis(w, a.id));
    const { id: failed } = started(w, T0 + 2 * MINUTE);
    expect(analysis(w, failed).codigoFalha).toBe('sem_franquia');
    expectRefusal(publishedAnalysis(w.state, w.companyId, failed), 'conflict', 'resultado_indisponivel');
  });
});

describe('findingsByType', () => {
  const finding = (tipo: Finding['tipo']): Finding => ({
    produto_id: 'p',
    ncm: PARTS_NCM,
    tipo,
    detalhe: 'd',
    avaliado_em: T0,
    snapshot_id: 'ref-0001',
  });

  it('counts every tipo of the rules, zeros included, in rule order', () => {
    const counts = findingsByType(
      [
        finding('descricao_ausente'),
        finding('ncm_inexistente'),
        finding('descricao_ausente'),
        finding('atributo_desconhecido'),
      ],
      TIPOS,
    );
    expect(counts).toEqual({
      ncm_inexistente: 1,
      ncm_extinta: 0,
      atributo_obrigatorio_ausente: 0,
      atributo_valor_invalido: 0,
      atributo_desconhecido: 1,
      descricao_ausente: 2,
    });
    expect(Object.keys(counts)).toEqual(TIPOS);
  });

  it('gives all zeros for no findings', () => {
    expect(findingsByType([], TIPOS)).toEqual(Object.fromEntries(TIPOS.map((t) => [t, 0])));
  });

  it('sums to the number of findings', () => {
    const all = TIPOS.flatMap((t, i) => Array.from({ length: i + 1 }, () => finding(t)));
    const counts = findingsByType(all, TIPOS);
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(all.length);
    expect(counts).toEqual(Object.fromEntries(TIPOS.map((t, i) => [t, i + 1])));
  });
});

describe('allowanceLeft', () => {
  it('is the allowance minus the units used, never below 0, and follows allowance changes', () => {
    const w = setup(2);
    expect(allowanceLeft(w.state, w.companyId)).toBe(2);
    const { id, startAt } = started(w);
    expect(allowanceLeft(w.state, w.companyId)).toBe(1);
    finishAnalysis(w.state, id, false, w.ctx(startAt + MIN_RUN_MS));
    expect(allowanceLeft(w.state, w.companyId)).toBe(1);
    unwrap(updateCompany(w.state, w.companyId, { analysisAllowance: 0 }, w.ctx()));
    expect(allowanceLeft(w.state, w.companyId)).toBe(0);
    unwrap(updateCompany(w.state, w.companyId, { analysisAllowance: 4 }, w.ctx()));
    expect(allowanceLeft(w.state, w.companyId)).toBe(3);
  });

  it('is the default allowance (10) for a new company, and 0 for an unknown company', () => {
    const state = createState(T0);
    const ctx: Context = { now: T0, random: createRandom(seedRandom(3)), config: CORE_CONFIG };
    const created = unwrap(createCompany(state, {}, ctx));
    expect(allowanceLeft(state, created.company.id)).toBe(10);
    expect(allowanceLeft(state, 'no-such-company')).toBe(0);
  });

  it("counts each company's units apart", () => {
    const w = setup(2);
    const other = otherCompany(w);
    started(w);
    expect(allowanceLeft(w.state, w.companyId)).toBe(1);
    expect(allowanceLeft(w.state, other.companyId)).toBe(10);
  });
});
