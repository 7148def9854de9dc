/**
 * Surveillance executions (docs/api.md "Surveillance executions"): the watched products evaluated against the
 * regulatory reference, on a daily schedule and after a publication that touches a watched product. An execution
 * is a run (lifecycle.ts RUN_LIFECYCLE):
 *
 *   (none)     --agendar-->   pendente    daily (every 24 h from the emulator's start) for each company watching
 *                                         products, or after a publication affecting one of its watched products
 *   pendente   --iniciar-->   executando  START_DELAY later, when surveillance can run
 *   pendente   --impedir-->   falhou      it cannot run (codigo_falha vigilancia_indisponivel: no entitlement,
 *                                         subscription suspended or capacity exceeded); vigilancia.degradada is
 *                                         raised when the previous execution was not impeded too
 *   executando --concluir-->  concluida   findings published; divergencias.alteradas when they differ from the
 *                                         previous concluded execution's
 *   executando --falhar-->    falhou      the run failed (a `job` fault, codigo_falha falha_execucao);
 *                                         vigilancia.degradada is raised
 *
 * Reuse: a watched product whose version and rules fingerprint (rules of its NCM and of the attributes it
 * carries) are unchanged since its last evaluation keeps that evaluation's findings, marked `reaproveitado`, with
 * their original `avaliado_em` and `snapshot_id`. Findings never change once published.
 */
import { findingsByType } from './analyses.js';
import { isFinal, RUN_LIFECYCLE, type RunState } from './lifecycle.js';
import { schedule } from './outbox.js';
import { uuidV7 } from './random.js';
import { evaluateProduct, FINDING_TYPES, type Finding } from './regulatory/rules.js';
import { publishReference, type Published } from './regulatory/reference.js';
import { rulesFingerprint, type SnapshotChange } from './regulatory/snapshot.js';
import { ok, refuse, type Result } from './refusal.js';
import {
  byEntry,
  kept,
  nextPosition,
  ownedBy,
  positionedKind,
  type Context,
  type KindSlice,
  type State,
} from './state.js';
import { at, repeatedCompany } from './integrity.js';
import { countsOf, coverage, surveillanceOf, watchedAfter } from './surveillance.js';
import { DAY, MINUTE, SECOND, type Instant } from './time.js';
import { raiseEvent } from './webhooks/events.js';
import type { Job } from './jobs.js';

type ExecutionReason = 'agendada' | 'publicacao';

export { RUN_PHASE as EXECUTION_PHASE_OF } from './lifecycle.js';

/** docs/api.md "Surveillance executions": the schedule and durations, in virtual time. */
export const DAILY_EVERY_MS = DAY;
export const START_DELAY_MS = MINUTE;
export const MIN_RUN_MS = 10 * SECOND;
export const TASK_DAILY = 'vigilancia.diaria';
export const TASK_EXECUTION_START = 'vigilancia.inicio';
export const TASK_EXECUTION_END = 'vigilancia.fim';

export const EXECUTION_FAILURES = { impeded: 'vigilancia_indisponivel', runFailed: 'falha_execucao' } as const;

export interface WatchedFinding extends Finding {
  readonly reaproveitado: boolean;
}

export interface Execution {
  readonly id: string;
  readonly companyId: string;
  readonly motivo: ExecutionReason;
  readonly estado: RunState;
  readonly criadaEm: Instant;
  readonly iniciadaEm: Instant | null;
  readonly terminadaEm: Instant | null;
  readonly codigoFalha: string | null;
  readonly snapshotId: string | null;
  readonly produtosAvaliados: number | null;
  readonly reaproveitados: number | null;
  readonly findings: readonly WatchedFinding[] | null;
  /** Whether the findings differ from the previous concluded execution's (null until concluded). */
  readonly divergente: boolean | null;
  readonly position: number;
}

/** The last evaluation of a watched product: what reuse compares with. */
export interface Evaluation {
  readonly versao: number;
  readonly fingerprint: string;
  readonly findings: readonly Finding[];
}

function open(state: State, companyId: string, motivo: ExecutionReason, ctx: Context): Execution {
  const execution: Execution = {
    id: uuidV7(ctx.random, ctx.now),
    companyId,
    motivo,
    estado: 'pendente',
    criadaEm: ctx.now,
    iniciadaEm: null,
    terminadaEm: null,
    codigoFalha: null,
    snapshotId: null,
    produtosAvaliados: null,
    reaproveitados: null,
    findings: null,
    divergente: null,
    position: nextPosition(state),
  };
  state.executions.set(execution.id, execution);
  schedule(state, {
    kind: TASK_EXECUTION_START,
    owner: companyId,
    due: ctx.now + START_DELAY_MS,
    payload: { executionId: execution.id },
  });
  return execution;
}

const watchesSomething = (state: State, companyId: string): boolean => {
  for (const _ of watchedAfter(state, companyId)) return true;
  return false;
};

/**
 * Whether the daily run would open no execution: no company watches anything. Such a run changes nothing
 * (no record, no random draw), so the clock may skip it; otherwise each day's run is a record of its own.
 */
function dailyRunIsIdle(state: State): boolean {
  for (const companyId of state.companies.keys()) if (watchesSomething(state, companyId)) return false;
  return true;
}

/**
 * The daily run: one execution per company watching products, at most one per instant. The clock runs every
 * occurrence of the daily schedule it finds overdue at the current time (a snapshot restored far ahead of its
 * tasks, a real clock after the machine slept): a company gets one execution for that instant, not one per day
 * it missed, all opened at once.
 */
export function scheduleDailyExecutions(state: State, ctx: Context): void {
  for (const companyId of state.companies.keys()) {
    if (watchesSomething(state, companyId) && !scheduledAt(state, companyId, ctx.now))
      open(state, companyId, 'agendada', ctx);
  }
}

/** Whether the company's newest execution is a daily one opened at `now`. */
function scheduledAt(state: State, companyId: string, now: number): boolean {
  const newest = state.executions.listOf(companyId).before().next();
  if (newest.done) return false;
  const execution = state.executions.get(newest.value[0]);
  return execution !== undefined && execution.motivo === 'agendada' && execution.criadaEm === now;
}

/**
 * Publishes a new snapshot of the regulatory reference (the emulator's stand-in for the authority's tables), and
 * with it the surveillance executions the change triggers: one change, never the publication without them.
 */
export function publishReferenceChange(state: State, change: SnapshotChange, ctx: Context): Result<Published> {
  const published = publishReference(state, change, ctx.now);
  if (published.ok) scheduleAfterPublication(state, published.value.afetadas, published.value.atributosAlterados, ctx);
  return published;
}

/** After a publication: an execution for each company watching a product the change touches. */
export function scheduleAfterPublication(
  state: State,
  affectedNcms: readonly string[],
  changedAttributes: readonly string[],
  ctx: Context,
): void {
  const ncms = new Set(affectedNcms);
  const attributes = new Set(changedAttributes);
  for (const companyId of state.companies.keys()) {
    for (const [product] of watchedAfter(state, companyId)) {
      if (ncms.has(product.ncm) || product.atributos.some((a) => attributes.has(a.codigo))) {
        open(state, companyId, 'publicacao', ctx);
        break;
      }
    }
  }
}

/** Why surveillance cannot run for the company now, or undefined when it can. */
function impediment(state: State, companyId: string): string | undefined {
  const company = state.companies.get(companyId);
  if (!company) return 'empresa_inexistente';
  if (!company.subscriptionActive) return 'assinatura_inativa';
  const cobertura = coverage(countsOf(surveillanceOf(state, companyId)), company);
  if (cobertura === 'indisponivel' || cobertura === 'capacidade_excedida') return cobertura;
  return undefined;
}

export function startExecution(state: State, executionId: string, ctx: Context): void {
  const execution = state.executions.get(executionId);
  if (!execution) return;
  // Its state takes both only while pendente: a start task that finds it otherwise (a state restored meanwhile) leaves it.
  const { iniciar, impedir } = RUN_LIFECYCLE[execution.estado];
  if (iniciar === undefined || impedir === undefined) return;
  const reason = impediment(state, execution.companyId);
  if (reason !== undefined) {
    const previous = lastFinished(state, execution.companyId, executionId);
    state.executions.set(executionId, {
      ...execution,
      estado: impedir,
      codigoFalha: EXECUTION_FAILURES.impeded,
      terminadaEm: ctx.now,
    });
    if (previous?.codigoFalha !== EXECUTION_FAILURES.impeded) {
      raiseEvent(
        state,
        execution.companyId,
        { tipo: 'vigilancia.degradada', motivo: 'execucao_impedida', vigilanciaId: executionId, causa: reason },
        ctx,
      );
    }
    return;
  }
  let watched = 0;
  for (const _ of watchedAfter(state, execution.companyId)) watched++;
  state.executions.set(executionId, { ...execution, estado: iniciar, iniciadaEm: ctx.now });
  schedule(state, {
    kind: TASK_EXECUTION_END,
    owner: execution.companyId,
    due: ctx.now + Math.max(MIN_RUN_MS, watched),
    payload: { executionId },
  });
}

export function finishExecution(state: State, executionId: string, failed: boolean, ctx: Context): void {
  const execution = state.executions.get(executionId);
  if (!execution) return;
  const { concluir, falhar } = RUN_LIFECYCLE[execution.estado];
  if (concluir === undefined || falhar === undefined) return;
  if (failed) {
    state.executions.set(executionId, {
      ...execution,
      estado: falhar,
      codigoFalha: EXECUTION_FAILURES.runFailed,
      terminadaEm: ctx.now,
    });
    raiseEvent(
      state,
      execution.companyId,
      {
        tipo: 'vigilancia.degradada',
        motivo: 'execucao_falhou',
        vigilanciaId: executionId,
        causa: EXECUTION_FAILURES.runFailed,
      },
      ctx,
    );
    return;
  }
  const snapshot = state.regulatory;
  const cache = evaluationsOf(state, execution.companyId);
  const findings: WatchedFinding[] = [];
  let evaluated = 0;
  let reused = 0;
  // Products sharing an NCM and attribute codes share their rules: one fingerprint each per run.
  const fingerprints = new Map<string, string>();
  for (const [product] of watchedAfter(state, execution.companyId)) {
    evaluated++;
    const codes = product.atributos.map((a) => a.codigo);
    const rulesKey = `${product.ncm}|${codes.join(',')}`;
    let fingerprint = fingerprints.get(rulesKey);
    if (fingerprint === undefined) {
      fingerprint = rulesFingerprint(snapshot, product.ncm, codes);
      fingerprints.set(rulesKey, fingerprint);
    }
    const last = cache.get(product.id);
    if (last && last.versao === product.versao && last.fingerprint === fingerprint) {
      reused++;
      for (const f of last.findings) findings.push({ ...f, reaproveitado: true });
      continue;
    }
    const fresh = evaluateProduct(product, snapshot, ctx.now);
    cache.set(product.id, { versao: product.versao, fingerprint, findings: fresh });
    for (const f of fresh) findings.push({ ...f, reaproveitado: false });
  }
  // The cache changed in place: its entry is written again (the change log writes the company's evaluations).
  if (evaluated > reused) state.evaluations.touch(execution.companyId);
  const previous = lastConcluded(state, execution.companyId, executionId);
  const divergente = previous !== undefined && !sameFindings(previous.findings ?? [], findings);
  state.executions.set(executionId, {
    ...execution,
    estado: concluir,
    terminadaEm: ctx.now,
    snapshotId: snapshot.id,
    produtosAvaliados: evaluated,
    reaproveitados: reused,
    findings,
    divergente,
  });
  if (divergente && previous) {
    const before = new Set((previous.findings ?? []).map(findingKey));
    const after = new Set(findings.map(findingKey));
    raiseEvent(
      state,
      execution.companyId,
      {
        tipo: 'divergencias.alteradas',
        vigilanciaId: executionId,
        anteriorId: previous.id,
        novas: [...after].filter((k) => !before.has(k)).length,
        resolvidas: [...before].filter((k) => !after.has(k)).length,
        totalAchados: findings.length,
      },
      ctx,
    );
  }
}

const findingKey = (f: Finding): string => `${f.produto_id}|${f.tipo}|${f.detalhe}`;

function sameFindings(a: readonly Finding[], b: readonly Finding[]): boolean {
  if (a.length !== b.length) return false;
  const keys = new Set(a.map(findingKey));
  return b.every((f) => keys.has(findingKey(f)));
}

function evaluationsOf(state: State, companyId: string): Map<string, Evaluation> {
  let cache = state.evaluations.get(companyId);
  if (!cache) {
    cache = new Map();
    state.evaluations.set(companyId, cache);
  }
  return cache;
}

/** The company's newest execution other than `except` that passes `test`. */
function latest(
  state: State,
  companyId: string,
  except: string,
  test: (e: Execution) => boolean,
): Execution | undefined {
  for (const [id] of state.executions.listOf(companyId).before()) {
    const e = state.executions.get(id);
    if (e && id !== except && test(e)) return e;
  }
  return undefined;
}

const lastFinished = (state: State, companyId: string, except: string) =>
  latest(state, companyId, except, (e) => isFinal(RUN_LIFECYCLE, e.estado));
const lastConcluded = (state: State, companyId: string, except: string) =>
  latest(state, companyId, except, (e) => e.estado === 'concluida');

export function findExecution(state: State, companyId: string, id: string): Result<Execution> {
  const execution = ownedBy(state.executions, companyId, id);
  if (!execution)
    return refuse(
      'not_found',
      'vigilancia_nao_encontrada',
      `No surveillance execution ${id} in this company.`,
      'path.id',
    );
  return ok(execution);
}

export function publishedExecution(state: State, companyId: string, id: string): Result<Execution> {
  const found = findExecution(state, companyId, id);
  if (!found.ok) return found;
  if (found.value.estado !== 'concluida') {
    return refuse(
      'conflict',
      'resultado_indisponivel',
      `Surveillance execution ${id} is ${found.value.estado}: its result is available once it is concluida.`,
    );
  }
  return found;
}

export const countByType = (findings: readonly Finding[]): Record<string, number> =>
  findingsByType(
    findings,
    FINDING_TYPES.map((t) => t.tipo),
  );

/** An execution runs as two tasks: a `delayMs` fault postpones its start, a `fail` fault fails its end. */
export const executionJobs: readonly Job[] = [
  {
    task: TASK_EXECUTION_START,
    nature: 'work',
    subject: 'executionId',
    faults: { kind: 'vigilancia', effects: 'delayMs' },
    run: (state, payload, ctx) => startExecution(state, payload.executionId!, ctx),
  },
  {
    task: TASK_EXECUTION_END,
    nature: 'work',
    subject: 'executionId',
    faults: { kind: 'vigilancia', effects: 'fail' },
    run: (state, payload, ctx, failed) => finishExecution(state, payload.executionId!, failed, ctx),
  },
];

/**
 * The daily schedule waits for time to pass, not for work to be done. A day's run while no company watches
 * anything does nothing, so such days coalesce; one that opens executions runs each day (each execution is a
 * record GET /v1/vigilancias lists).
 */
export const dailyScheduleJob: Job = {
  task: TASK_DAILY,
  nature: 'deadline',
  everyMs: DAILY_EVERY_MS,
  coalesce: dailyRunIsIdle,
  run: (state, _payload, ctx) => scheduleDailyExecutions(state, ctx),
};

export const executionsSlice: KindSlice<'executions', readonly Execution[], Execution> = positionedKind<Execution>()(
  'executions',
  'surveillance execution',
  true,
);

/** Per company, each product's last evaluation: what the next execution's reuse compares with. */
export const evaluationsSlice: KindSlice<
  'evaluations',
  readonly (readonly [companyId: string, readonly (readonly [productId: string, Evaluation])[]])[],
  Map<string, Evaluation>
> = {
  key: 'evaluations',
  holds: ['evaluations'],
  // A company's evaluations change in place, a run at a time: the run touches the company's entry (finishExecution).
  collection: kept(),
  log: byEntry(
    (state) => state.evaluations,
    (cache) => [...cache.entries()],
  ),
  toData: (state) =>
    [...state.evaluations.entries()].map(([companyId, cache]) => [companyId, [...cache.entries()]] as const),
  fromData: (state, evaluations) => {
    for (const [companyId, entries] of evaluations) state.evaluations.set(companyId, new Map(entries));
  },
  ownerOf: ([companyId]) => companyId,
  removeCompany: (state, companyId) => void state.evaluations.delete(companyId),
  unique: (evaluations) => repeatedCompany('evaluations', evaluations, 0, ([c]) => c, 'the evaluations'),
  check: (data, r) => {
    for (const [i, [companyId, entries]] of data.evaluations.entries()) {
      if (!r.companies.has(companyId)) return at(['evaluations', i, 0], `evaluations of unknown company ${companyId}`);
      const seen = new Set<string>();
      for (const [j, [productId]] of entries.entries()) {
        if (r.products.get(productId)?.companyId !== companyId)
          return at(
            ['evaluations', i, 1, j, 0],
            `evaluations of ${companyId}: ${productId} is not a product of the company`,
          );
        if (seen.has(productId))
          return at(['evaluations', i, 1, j, 0], `evaluations of ${companyId}: product ${productId} appears twice`);
        seen.add(productId);
      }
    }
    return undefined;
  },
};
