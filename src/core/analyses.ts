/**
 * Full-company analyses (spec "POST /v1/analises", "Analysis acceptance"; docs/api.md "Analyses"). Every active product
 * is evaluated against the regulatory reference in force, whatever the surveillance selection. An analysis is a
 * run (lifecycle.ts RUN_LIFECYCLE):
 *
 *   (none)     --aceitar-->   pendente    POST: consumes no allowance; while one is pendente or executando, POST
 *                                         answers that one (200) instead of a new one (202)
 *   pendente   --iniciar-->   executando  START_DELAY later; takes one unit of the company's allowance
 *   pendente   --impedir-->   falhou      no allowance left (codigo_falha sem_franquia) → analise.falhou
 *   executando --concluir-->  concluida   the findings are published (immutable) → analise.concluida
 *   executando --falhar-->    falhou      the run failed (a `job` fault, codigo_falha falha_execucao) → analise.falhou
 *   concluida, falhou are final.
 *
 * `fase` says where it is: na_fila (pendente), avaliando (executando), publicada (concluida), encerrada (falhou).
 */
import { raiseEvent } from './webhooks/events.js';
import { evaluateProduct, type Finding } from './regulatory/rules.js';
import { schedule } from './outbox.js';
import { uuidV7 } from './random.js';
import { ok, refuse, type Result } from './refusal.js';
import { byEntry, kept, nextPosition, ownedBy, positioned, type Context, type KindSlice, type State } from './state.js';
import { at, repeated, repeatedCompany, repeatedId } from './integrity.js';
import { MINUTE, SECOND, type Instant } from './time.js';
import { RUN_LIFECYCLE, type RunState } from './lifecycle.js';
import type { Job } from './jobs.js';

export { RUN_PHASE as PHASE_OF } from './lifecycle.js';

/** docs/api.md "Analyses": when a run starts and how long it takes, in virtual time. */
export const START_DELAY_MS = MINUTE;
export const MIN_RUN_MS = 10 * SECOND;
/** One second per thousand products evaluated. */
const RUN_MS_PER_PRODUCT = 1;
export const TASK_ANALYSIS_START = 'analise.inicio';
export const TASK_ANALYSIS_END = 'analise.fim';

const ANALYSIS_FAILURES = { noAllowance: 'sem_franquia', runFailed: 'falha_execucao' } as const;

export interface Analysis {
  readonly id: string;
  readonly companyId: string;
  readonly estado: RunState;
  readonly criadaEm: Instant;
  readonly iniciadaEm: Instant | null;
  readonly terminadaEm: Instant | null;
  readonly codigoFalha: string | null;
  /** Set when the findings are published. */
  readonly snapshotId: string | null;
  readonly produtosAvaliados: number | null;
  readonly findings: readonly Finding[] | null;
  readonly position: number;
}

/** Allowance units left: the company's allowance minus the runs that took one. */
export function allowanceLeft(state: State, companyId: string): number {
  const company = state.companies.get(companyId);
  return Math.max((company?.analysisAllowance ?? 0) - (state.analysisUnitsUsed.get(companyId) ?? 0), 0);
}

/** POST /v1/analises: the open analysis if there is one (`created: false`), else a new pending one. */
export function requestAnalysis(
  state: State,
  companyId: string,
  ctx: Context,
): { analysis: Analysis; created: boolean } {
  const openId = state.openAnalyses.get(companyId);
  const open = openId === undefined ? undefined : state.analyses.get(openId);
  if (open) return { analysis: open, created: false };
  const analysis: Analysis = {
    id: uuidV7(ctx.random, ctx.now),
    companyId,
    estado: 'pendente',
    criadaEm: ctx.now,
    iniciadaEm: null,
    terminadaEm: null,
    codigoFalha: null,
    snapshotId: null,
    produtosAvaliados: null,
    findings: null,
    position: nextPosition(state),
  };
  addAnalysis(state, analysis);
  schedule(state, {
    kind: TASK_ANALYSIS_START,
    owner: companyId,
    due: ctx.now + START_DELAY_MS,
    payload: { analysisId: analysis.id },
  });
  return { analysis, created: true };
}

export function findAnalysis(state: State, companyId: string, id: string): Result<Analysis> {
  const analysis = ownedBy(state.analyses, companyId, id);
  if (!analysis) return refuse('not_found', 'analise_nao_encontrada', `No analysis ${id} in this company.`, 'path.id');
  return ok(analysis);
}

/** The result (findings, CSV) exists only once published: 409 before that, and for a failed analysis. */
export function publishedAnalysis(state: State, companyId: string, id: string): Result<Analysis> {
  const found = findAnalysis(state, companyId, id);
  if (!found.ok) return found;
  if (found.value.estado !== 'concluida') {
    return refuse(
      'conflict',
      'resultado_indisponivel',
      `Analysis ${id} is ${found.value.estado}: its result is available once it is concluida (follow GET /v1/analises/${id}).`,
    );
  }
  return found;
}

/** The run starts: takes one allowance unit, or fails without one. */
export function startAnalysis(state: State, analysisId: string, ctx: Context): void {
  const analysis = state.analyses.get(analysisId);
  if (!analysis) return;
  // Its state takes both only while pendente: a start task that finds it otherwise (a state restored meanwhile) leaves it.
  const { iniciar, impedir } = RUN_LIFECYCLE[analysis.estado];
  if (iniciar === undefined || impedir === undefined) return;
  if (allowanceLeft(state, analysis.companyId) === 0) {
    fail(state, analysis, impedir, ANALYSIS_FAILURES.noAllowance, ctx);
    return;
  }
  state.analysisUnitsUsed.set(analysis.companyId, (state.analysisUnitsUsed.get(analysis.companyId) ?? 0) + 1);
  const products = state.products.listOf(analysis.companyId).size;
  const duration = Math.max(MIN_RUN_MS, products * RUN_MS_PER_PRODUCT);
  state.analyses.set(analysisId, { ...analysis, estado: iniciar, iniciadaEm: ctx.now });
  schedule(state, {
    kind: TASK_ANALYSIS_END,
    owner: analysis.companyId,
    due: ctx.now + duration,
    payload: { analysisId },
  });
}

/** The run ends: every active product evaluated against the reference in force, or the run failed. */
export function finishAnalysis(state: State, analysisId: string, failed: boolean, ctx: Context): void {
  const analysis = state.analyses.get(analysisId);
  if (!analysis) return;
  const { concluir, falhar } = RUN_LIFECYCLE[analysis.estado];
  if (concluir === undefined || falhar === undefined) return;
  if (failed) {
    fail(state, analysis, falhar, ANALYSIS_FAILURES.runFailed, ctx);
    return;
  }
  const snapshot = state.regulatory;
  const findings: Finding[] = [];
  let evaluated = 0;
  for (const [id] of state.products.listOf(analysis.companyId).after()) {
    const product = state.products.get(id);
    if (!product || !product.ativo) continue;
    evaluated++;
    for (const finding of evaluateProduct(product, snapshot, ctx.now)) findings.push(finding);
  }
  const done: Analysis = {
    ...analysis,
    estado: concluir,
    terminadaEm: ctx.now,
    snapshotId: snapshot.id,
    produtosAvaliados: evaluated,
    findings,
  };
  state.analyses.set(analysisId, done);
  state.openAnalyses.delete(analysis.companyId);
  raiseEvent(
    state,
    analysis.companyId,
    {
      tipo: 'analise.concluida',
      analiseId: analysisId,
      produtosAvaliados: evaluated,
      achados: findings.length,
      snapshotId: snapshot.id,
    },
    ctx,
  );
}

function fail(state: State, analysis: Analysis, estado: RunState, codigoFalha: string, ctx: Context): void {
  state.analyses.set(analysis.id, { ...analysis, estado, codigoFalha, terminadaEm: ctx.now });
  state.openAnalyses.delete(analysis.companyId);
  raiseEvent(state, analysis.companyId, { tipo: 'analise.falhou', analiseId: analysis.id, codigoFalha }, ctx);
}

/** Findings counted by `tipo`, every tipo of the rules present (0 when none). */
export function findingsByType(findings: readonly Finding[], tipos: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(tipos.map((t) => [t, 0]));
  for (const f of findings) counts[f.tipo] = (counts[f.tipo] ?? 0) + 1;
  return counts;
}

/** An analysis runs as two tasks: a `delayMs` fault postpones its start, a `fail` fault fails its end. */
export const analysisJobs: readonly Job[] = [
  {
    task: TASK_ANALYSIS_START,
    nature: 'work',
    subject: 'analysisId',
    faults: { kind: 'analise', effects: 'delayMs' },
    run: (state, payload, ctx) => startAnalysis(state, payload.analysisId!, ctx),
  },
  {
    task: TASK_ANALYSIS_END,
    nature: 'work',
    subject: 'analysisId',
    faults: { kind: 'analise', effects: 'fail' },
    run: (state, payload, ctx, failed) => finishAnalysis(state, payload.analysisId!, failed, ctx),
  },
];

/** A new (or restored) analysis, in its company's list; while pendente or executando, the company's open one. */
function addAnalysis(state: State, analysis: Analysis): void {
  state.analyses.set(analysis.id, analysis);
  if (analysis.estado === 'pendente' || analysis.estado === 'executando')
    state.openAnalyses.set(analysis.companyId, analysis.id);
}

export const analysesSlice: KindSlice<'analyses', readonly Analysis[], Analysis> = {
  ...positioned('analyses', (state) => state.analyses, addAnalysis, true),
  holds: ['analyses', 'openAnalyses'],
  removeCompany: (state, companyId) => {
    state.analyses.dropCompany(companyId);
    state.openAnalyses.delete(companyId);
  },
  unique: (analyses) => repeatedId('analyses', analyses, 'analysis'),
  check: (data, r) => {
    for (const [i, a] of data.analyses.entries())
      if (!r.companies.has(a.companyId))
        return at(['analyses', i, 'companyId'], `analysis ${a.id} belongs to unknown company ${a.companyId}`);
    return repeated(
      'analyses',
      data.analyses,
      'estado',
      (a) => (a.estado === 'pendente' || a.estado === 'executando' ? a.companyId : undefined),
      (a) => `an open (pendente or executando) analysis of company ${a.companyId}`,
    );
  },
};

/** Per company, the allowance units its analysis runs took. */
export const analysisUnitsUsedSlice: KindSlice<
  'analysisUnitsUsed',
  readonly (readonly [companyId: string, used: number])[],
  number
> = {
  key: 'analysisUnitsUsed',
  holds: ['analysisUnitsUsed'],
  collection: kept(),
  log: byEntry((state) => state.analysisUnitsUsed),
  toData: (state) => [...state.analysisUnitsUsed.entries()],
  fromData: (state, entries) => {
    for (const [companyId, used] of entries) state.analysisUnitsUsed.set(companyId, used);
  },
  ownerOf: ([companyId]) => companyId,
  removeCompany: (state, companyId) => void state.analysisUnitsUsed.delete(companyId),
  unique: (entries) => repeatedCompany('analysisUnitsUsed', entries, 0, ([c]) => c, 'the allowance taken'),
  check: (data, r) => {
    for (const [i, [companyId]] of data.analysisUnitsUsed.entries())
      if (!r.companies.has(companyId))
        return at(['analysisUnitsUsed', i, 0], `allowance taken by unknown company ${companyId}`);
    return undefined;
  },
};
