/**
 * An exploration as the emulator it ran on shows it (emu.explorations, /_emulator/explorations; the report, the log
 * and the inspector): explore() or `catalog-emulator explore` tells it each run and its verdict, and the record is
 * what a person watching the server sees: where the search is, its last runs, and once it ended the minimal plan and
 * why it fails. The explorer does the searching; this is the account of it, plain data with its transitions.
 *
 *   state      | told                      | becomes
 *   -----------|---------------------------|------------------------------------------------------------
 *   (none)     | begin(seed, runs, command)| running
 *   running    | run(phase, plan, reasons) | running, the run counted and kept among the recent ones
 *   running    | end(verdict)              | passed (no failure, complete), failed, or incomplete
 *   any ended  | run or end                | refused: an ended exploration is told nothing more
 */
import { describePlan, type FaultPlan } from '../engine/fault-plans.js';
import type { ClientFinding } from './findings.js';

export type ExplorationState = 'running' | 'passed' | 'failed' | 'incomplete';

/** Where a run stands in the search: the fault-free run, a plan of the search, a re-run that shrinks, a replay. */
export type RunPhase = 'fault-free' | 'search' | 'shrinking' | 'replay';
export const RUN_PHASES = ['fault-free', 'search', 'shrinking', 'replay'] as const satisfies readonly RunPhase[];
export const REASON_KINDS = ['exit', 'finding', 'outcome', 'invariant'] as const;
type ReasonKind = (typeof REASON_KINDS)[number];

/** Why a run failed, as the record keeps it: its kind and one line. */
export interface ExplorationReason {
  readonly kind: ReasonKind;
  readonly message: string;
}

/** One run as told. */
export interface ExplorationRun {
  /** 1 for the first run told (the fault-free one). */
  readonly n: number;
  readonly phase: RunPhase;
  readonly plan: FaultPlan;
  /** The plan in one line (describePlan). */
  readonly description: string;
  /** Empty when the run passed. */
  readonly reasons: readonly ExplorationReason[];
}

/** The minimal plan of a failure and why it fails, as the explorer's result says it. */
export interface ExplorationFailure {
  /** The minimal plan: the run under it fails. Empty when the fault-free run itself failed. */
  readonly plan: FaultPlan;
  /** The first failing plan found, before shrinking. */
  readonly shrunkFrom: FaultPlan;
  readonly reasons: readonly ExplorationReason[];
  /** The grading's findings in the failing run. */
  readonly findings: readonly ClientFinding[];
  /** How the failing run's outcome differs from the fault-free run's, by resource. */
  readonly outcomeDiff: readonly string[];
  /** The line that runs the plan again. */
  readonly replay: string;
  /** True when the fault-free run itself failed: nothing was explored. */
  readonly faultFree: boolean;
}

/** How the search ended, as the explorer's result says it. */
export interface ExplorationVerdict {
  /** Plans of the search run (the fault-free run and the shrinking's re-runs not counted). */
  readonly runs: number;
  readonly passed: number;
  readonly failure: ExplorationFailure | null;
  /** Why the search tried fewer plans than asked, with no failure found; else null. */
  readonly incomplete: string | null;
}

export interface Exploration {
  readonly id: string;
  readonly state: ExplorationState;
  readonly seed: number;
  /** The plans the search was asked to try. */
  readonly runsAsked: number;
  /** The command the CLI explores (null in process). */
  readonly command: string | null;
  /** Runs told so far, every phase. */
  readonly told: number;
  /** The last runs told, oldest first (at most RECENT_RUNS). */
  readonly recent: readonly ExplorationRun[];
  /** Once it ended; null while it runs. */
  readonly verdict: ExplorationVerdict | null;
}

/** The runs an exploration keeps to show: the search may run thousands, a person reads the last few. */
const RECENT_RUNS = 20;

export function beginExploration(
  id: string,
  input: { readonly seed: number; readonly runs: number; readonly command?: string | null | undefined },
): Exploration {
  return {
    id,
    state: 'running',
    seed: input.seed,
    runsAsked: input.runs,
    command: input.command ?? null,
    told: 0,
    recent: [],
    verdict: null,
  };
}

/** `exploration` told one more run; null when it has ended (nothing more is told to it). */
export function tellRun(
  exploration: Exploration,
  run: { readonly phase: RunPhase; readonly plan: FaultPlan; readonly reasons: readonly ExplorationReason[] },
): Exploration | null {
  if (exploration.state !== 'running') return null;
  const told = exploration.told + 1;
  const entry: ExplorationRun = { n: told, ...run, description: describePlan(run.plan) };
  return { ...exploration, told, recent: [...exploration.recent, entry].slice(-RECENT_RUNS) };
}

/** `exploration` ended with `verdict`; null when it had already ended. */
export function endExploration(exploration: Exploration, verdict: ExplorationVerdict): Exploration | null {
  if (exploration.state !== 'running') return null;
  const state: ExplorationState =
    verdict.failure !== null ? 'failed' : verdict.incomplete !== null ? 'incomplete' : 'passed';
  return { ...exploration, state, verdict };
}

/** A run in one line, as the log tells it: `run 3 (search): status503 on the 1st GET /v1/empresa → passed`. */
export function runLine(run: ExplorationRun): string {
  return `run ${run.n} (${run.phase}): ${run.description} → ${runVerdict(run.reasons)}`;
}

/** How a run ended, by its reasons: `passed`, or `failed (exit, outcome)`, each kind once. */
export function runVerdict(reasons: readonly { readonly kind: string }[]): string {
  const kinds = [...new Set(reasons.map((r) => r.kind))].join(', ');
  return kinds === '' ? 'passed' : `failed (${kinds})`;
}

/** The report's section on an exploration: where it is or how it ended, the minimal plan and why, its last runs. */
export function explorationSection(exploration: Exploration): string[] {
  const lines = [`## The last exploration: ${explorationLine(exploration)}`, ''];
  if (exploration.command !== null) lines.push(`Command: ${exploration.command}`, '');
  const failure = exploration.verdict?.failure;
  if (failure) {
    lines.push(`Minimal plan: \`${JSON.stringify(failure.plan)}\``);
    for (const reason of failure.reasons) lines.push(`- ${reason.kind}: ${reason.message}`);
    lines.push(`Replay: ${failure.replay}`, '');
  }
  lines.push(`Last runs (${exploration.recent.length} of ${exploration.told}):`);
  for (const run of exploration.recent) lines.push(`- ${runLine(run)}`);
  return lines;
}

/** Where an exploration is, in one line: `running: 12 runs told of 100 asked` or its verdict. */
export function explorationLine(exploration: Exploration): string {
  const { verdict } = exploration;
  if (verdict === null)
    return `running (seed ${exploration.seed}): ${exploration.told} run${exploration.told === 1 ? '' : 's'} told, ${exploration.runsAsked} plans asked`;
  if (verdict.failure?.faultFree) return 'failed: the fault-free run itself fails, nothing was explored';
  if (verdict.failure !== null)
    return `failed (seed ${exploration.seed}, ${verdict.runs} runs): ${describePlan(verdict.failure.plan)}`;
  if (verdict.incomplete !== null) return `incomplete (seed ${exploration.seed}): ${verdict.incomplete}`;
  return `passed (seed ${exploration.seed}): ${verdict.passed} of ${verdict.runs} plans`;
}
