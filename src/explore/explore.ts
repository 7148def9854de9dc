/**
 * `explore(scenario)`: searches fault plans against an integration, as FoundationDB's simulation or Jepsen search
 * schedules. A fault-free run first: what it did (its requests, from the journal, and its webhook delivery attempts)
 * is where faults can land, and its outcome is what every run must reach. Then fast-check generates plans from
 * those positions, runs the scenario under
 * each on a fresh emulator, and judges each run by four oracles (the scenario threw; a finding of the grading; an
 * outcome that differs from the fault-free run's; the user's invariant). A failure is shrunk by fast-check to a
 * minimal plan (fewest faults, then the earliest positions, then the simplest effects), re-running the scenario to
 * confirm each step. The same seed gives the same plans, and a plan replays exactly.
 */
import { asyncProperty, check, nat, tuple, uniqueArray } from 'fast-check';
import {
  armedFault,
  createEmulator,
  type ClientFinding,
  type Emulator,
  type EmulatorOptions,
  describePlan,
  isFaultPlan,
  PLAN_EFFECT_NAMES,
  slotKey,
  slotsOf,
  type DeliveryCount,
  jobCounts,
  type JobCount,
  type FaultPlan,
  type PlanEffect,
  type PlannedFault,
  type ExplorationReason,
  type ExplorationVerdict,
  type ToldExplorationFailure,
  type RunPhase,
} from '../public.js';
import { outcomeDiff, readDeliveries, readOutcome, type Outcome } from './outcome.js';

/** What a scenario gets for each run: a fresh emulator with one company, whose credential holds every permission. */
export interface ExploreRun {
  /** The emulator's fetch (relative URLs resolve against it). */
  readonly fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  readonly token: string;
  readonly companyId: string;
  /** The run's emulator: its clock, inbox and controls (the plan's faults are armed on it). */
  readonly emulator: Emulator;
  /**
   * Waits `ms` milliseconds of the run's virtual clock, moving it on (its deliveries and jobs due meanwhile run): the
   * sleep a client's retry takes (a Retry-After), without waiting on the machine's clock. The clock moves only so,
   * or through the emulator's controls.
   */
  sleep(ms: number): Promise<void>;
}

/** The integration under test: it runs against the run's emulator, and fails by throwing. */
export type Scenario = (run: ExploreRun) => unknown;

export interface ExploreOptions {
  /** Plans tried (default 100). */
  readonly runs?: number;
  /** The seed of the plans (default 1): the same seed gives the same plans. */
  readonly seed?: number;
  /** The effects plans draw from (default: all of them). */
  readonly faults?: readonly PlanEffect[];
  /** Parts of the outcome left out of the comparison: a resource (`produtos`) or a field (`produtos.descricao`). */
  readonly ignore?: readonly string[];
  /** A check of your own on the outcome of each run: throw (or return false or a message) when it does not hold. */
  readonly invariant?: (outcome: Outcome) => unknown;
  /** Stop searching after this many milliseconds of the machine's clock (the runs so far are reported). */
  readonly timeLimitMs?: number;
  /** The most faults in a plan (default 3). */
  readonly maxFaults?: number;
  /** Run exactly this plan (a failure's `plan`), once, and judge it. */
  readonly replay?: FaultPlan;
  /** The options of each run's emulator (its seed is the same for every run). */
  readonly emulator?: EmulatorOptions;
  /** Told of each run once it is judged (the fault-free run's plan is empty): a progress line, say. */
  readonly onRun?: (plan: FaultPlan, reasons: readonly FailureReason[], phase: RunPhase) => void;
  /**
   * An emulator to tell the exploration as it goes (emu.explorations): its log tells each run in a line, its
   * inspector shows where the search is, and its report holds the exploration once it ended. Give it the emulator
   * you watch (a server with the inspector open); the runs themselves are each on a fresh emulator.
   */
  readonly tell?: Emulator;
}

/** Whoever is told an exploration as it goes: an emulator's explorations (tell), or the CLI's server over HTTP. */
export interface ExplorationTeller {
  begin(exploration: { readonly seed: number; readonly runs: number }): Promise<void>;
  run(run: {
    readonly phase: RunPhase;
    readonly plan: FaultPlan;
    readonly reasons: readonly ExplorationReason[];
  }): Promise<void>;
  end(verdict: ExplorationVerdict): Promise<void>;
}

/** Why a run failed. */
export type FailureReason =
  | { readonly kind: 'exit'; readonly message: string }
  | { readonly kind: 'finding'; readonly rule: string; readonly message: string }
  | { readonly kind: 'outcome'; readonly diff: readonly string[] }
  | { readonly kind: 'invariant'; readonly message: string };

/** A failure as the search found it: as an emulator is told it (ToldExplorationFailure), each reason whole. */
export interface ExploreFailure extends Omit<ToldExplorationFailure, 'reasons'> {
  readonly reasons: readonly FailureReason[];
}

export interface ExploreResult {
  readonly seed: number;
  /** Runs made with a plan (the fault-free run and the shrinking's re-runs not counted). */
  readonly runs: number;
  readonly passed: number;
  readonly failure: ExploreFailure | null;
  /**
   * Why the search tried fewer plans than asked, with no failure found (the time limit passed; the fault-free run
   * made no request a fault can land on); null when it tried them all. A search that was cut short proves less: it
   * is no pass.
   */
  readonly incomplete: string | null;
}

/**
 * What one run under a plan did, as its runner reports it: how the integration ended (its error's message, or null),
 * the grading's findings on it, the company's outcome once it ended, the requests it made (method and path, in
 * their order), read before the outcome's own reads, and its webhook delivery attempts by event type (a runner that
 * leaves them out gets no delivery faults in its plans).
 */
export interface PlanRun {
  readonly exit: string | null;
  readonly findings: readonly ClientFinding[];
  readonly outcome: Outcome;
  readonly requests: readonly { readonly method: string; readonly path: string }[];
  readonly deliveries?: readonly DeliveryCount[];
  /**
   * The runs of its background jobs a job fault can act on (jobCounts of the tasks its clock ran for the company),
   * asked of the fault-free run only (its plan is empty): a runner that leaves them out gets no job faults.
   */
  readonly jobs?: readonly JobCount[];
}

/** Runs the integration once under `plan` on a fresh company (no faults: the fault-free run), and reports it. */
export type PlanRunner = (plan: FaultPlan) => Promise<PlanRun>;

/** How one run went. */
interface Judged {
  readonly reasons: FailureReason[];
  readonly findings: readonly ClientFinding[];
  readonly outcome: Outcome | null;
  readonly outcomeDiff: string[];
  readonly requests: readonly { readonly method: string; readonly path: string }[];
  readonly deliveries: readonly DeliveryCount[];
  readonly jobs: readonly JobCount[];
}

/** Searches fault plans against `scenario`, in process (see the module's comment); the result is plain data. */
export function explore(scenario: Scenario, options: ExploreOptions = {}): Promise<ExploreResult> {
  return exploreRuns(inProcess(scenario, options.emulator), options);
}

/**
 * The same search with a runner of your own: one that runs the integration under a plan somewhere else (a server,
 * another process) and reports what it did. The CLI's `explore` runs a command this way.
 */
export async function exploreRuns(
  runner: PlanRunner,
  options: ExploreOptions & { readonly teller?: ExplorationTeller } = {},
): Promise<ExploreResult> {
  const seed = options.seed ?? 1;
  const allowed = checkExploreOptions(options);
  const teller = options.teller ?? (options.tell === undefined ? undefined : emulatorTeller(options.tell));
  await teller?.begin({ seed, runs: options.replay === undefined ? (options.runs ?? 100) : 1 });
  const runWith = async (plan: FaultPlan, expected: Outcome | null, phase: RunPhase) => {
    const judged = await judge(await runner(plan), expected, options);
    options.onRun?.(plan, judged.reasons, phase);
    await teller?.run({ phase, plan, reasons: judged.reasons.map(toldReason) });
    return judged;
  };
  const result = await search(runWith, options, seed, allowed);
  await teller?.end(toldVerdict(result));
  return result;
}

type RunWith = (plan: FaultPlan, expected: Outcome | null, phase: RunPhase) => Promise<Judged>;

/** The search itself: the fault-free run, then the plans, then the shrinking of the first that fails. */
async function search(
  runWith: RunWith,
  options: ExploreOptions,
  seed: number,
  allowed: readonly PlanEffect[],
): Promise<ExploreResult> {
  const reference = await runWith([], null, 'fault-free');
  if (reference.reasons.length > 0) {
    return { seed, runs: 0, passed: 0, failure: failureOf(reference, [], [], seed, true), incomplete: null };
  }
  const expected = reference.outcome!;
  if (options.replay !== undefined) {
    const judged = await runWith(options.replay, expected, 'replay');
    return {
      seed,
      runs: 1,
      passed: judged.reasons.length === 0 ? 1 : 0,
      failure: judged.reasons.length === 0 ? null : failureOf(judged, options.replay, options.replay, seed, false),
      incomplete: null,
    };
  }
  const slots = slotsOf(reference.requests, reference.deliveries, allowed, reference.jobs);
  if (slots.length === 0) {
    const none =
      'the fault-free run made no request or delivery a fault of the allowed effects can land on: nothing was explored';
    return { seed, runs: 0, passed: 0, failure: null, incomplete: none };
  }
  const planned = tuple(nat({ max: slots.length - 1 }), nat({ max: PLAN_EFFECT_NAMES.length - 1 })).map(
    ([at, pick]): PlannedFault => {
      const { effects, ...slot } = slots[at]!;
      return { ...slot, effect: effects[pick % effects.length]! };
    },
  );
  const plans = uniqueArray(planned, { minLength: 1, maxLength: options.maxFaults ?? 3, selector: slotKey });
  let runs = 0;
  let passed = 0;
  // The first failing plan; the runs after it are the shrinking's, not counted.
  let first: FaultPlan | undefined;
  const details = await check(
    asyncProperty(plans, async (plan) => {
      const judged = await runWith(plan, expected, first === undefined ? 'search' : 'shrinking');
      if (first === undefined) {
        runs++;
        if (judged.reasons.length === 0) passed++;
        else first = plan;
      }
      return judged.reasons.length === 0;
    }),
    {
      numRuns: options.runs ?? 100,
      seed,
      ...(options.timeLimitMs === undefined ? {} : { interruptAfterTimeLimit: options.timeLimitMs }),
    },
  );
  if (!details.failed || details.counterexample === null) {
    const asked = options.runs ?? 100;
    const cut = runs < asked ? `the time limit passed after ${runs} of the ${asked} runs asked` : null;
    return { seed, runs, passed, failure: null, incomplete: cut };
  }
  // fast-check's shrinking leaves an array's items shrunk but not always fewer: drop each fault the failure does
  // not need, re-running to confirm.
  // Its effects shrink through an index into the slot's list, so the simplest effect that fails is not always the
  // one it stops at: try each simpler one, re-running to confirm.
  const fails = async (plan: FaultPlan) => (await runWith(plan, expected, 'shrinking')).reasons.length > 0;
  const effectsAt = new Map(slots.map((slot) => [slotKey({ ...slot, effect: slot.effects[0]! }), slot.effects]));
  const fewest = await withoutSpareFaults(details.counterexample[0], fails);
  const plan = await withSimplestEffects(fewest, (fault) => effectsAt.get(slotKey(fault)) ?? [], fails);
  const judged = await runWith(plan, expected, 'shrinking');
  return { seed, runs, passed, failure: failureOf(judged, plan, first ?? plan, seed, false), incomplete: null };
}

/** An emulator told the exploration through its explorations controls. */
function emulatorTeller(emulator: Emulator): ExplorationTeller {
  let id = '';
  return {
    begin: async (exploration) => void (id = emulator.explorations.begin(exploration).id),
    run: async (run) => void emulator.explorations.run(id, run),
    end: async (verdict) => void emulator.explorations.end(id, verdict),
  };
}

/** The longest line an emulator keeps of a reason or a diff (its controls refuse more). */
const TOLD_TEXT = 16 * 1024;
const cut = (text: string) => (text.length > TOLD_TEXT ? `${text.slice(0, TOLD_TEXT - 1)}…` : text);

/** A reason as an emulator is told it: its kind and one line. */
function toldReason(reason: FailureReason): ExplorationReason {
  const message =
    reason.kind === 'outcome'
      ? reason.diff.join('; ')
      : reason.kind === 'finding'
        ? `${reason.rule}: ${reason.message}`
        : reason.message;
  return { kind: reason.kind, message: cut(message) };
}

/** A result as an emulator is told it. */
export function toldVerdict(result: ExploreResult): ExplorationVerdict {
  const { failure } = result;
  return {
    runs: result.runs,
    passed: result.passed,
    incomplete: result.incomplete === null ? null : cut(result.incomplete),
    failure:
      failure === null
        ? null
        : {
            plan: failure.plan,
            shrunkFrom: failure.shrunkFrom,
            reasons: failure.reasons.slice(0, 1000).map(toldReason),
            findings: failure.findings.slice(0, 1000),
            outcomeDiff: failure.outcomeDiff.slice(0, 1000).map(cut),
            replay: cut(failure.replay),
            faultFree: failure.faultFree,
          },
  };
}

/** `plan` without each fault whose removal leaves the run failing, one at a time, until each is needed. */
async function withoutSpareFaults(plan: FaultPlan, fails: (plan: FaultPlan) => Promise<boolean>): Promise<FaultPlan> {
  let current = plan;
  for (let at = 0; at < current.length && current.length > 1; ) {
    const without = current.filter((_, index) => index !== at);
    if (await fails(without)) current = without;
    else at++;
  }
  return current;
}

/** `plan` with each fault's effect the simplest of its slot's that leaves the run failing, one fault at a time. */
async function withSimplestEffects(
  plan: FaultPlan,
  effectsOf: (fault: PlannedFault) => readonly PlanEffect[],
  fails: (plan: FaultPlan) => Promise<boolean>,
): Promise<FaultPlan> {
  let current = plan;
  for (let at = 0; at < current.length; at++) {
    const fault = current[at]!;
    const effects = effectsOf(fault);
    for (const effect of effects.slice(0, Math.max(0, effects.indexOf(fault.effect)))) {
      const simpler = current.map((f, index) => (index === at ? { ...f, effect } : f));
      if (await fails(simpler)) {
        current = simpler;
        break;
      }
    }
  }
  return current;
}

/**
 * The effects plans may draw from; a TypeError, before anything runs, for an unknown one or a replay that is no plan
 * (the CLI asks it before it starts a server).
 */
export function checkExploreOptions(options: Pick<ExploreOptions, 'faults' | 'replay'>): readonly PlanEffect[] {
  if (options.replay !== undefined && !isFaultPlan(options.replay))
    throw new TypeError('replay must be a fault plan: the plan of a failure');
  const { faults } = options;
  if (faults === undefined) return PLAN_EFFECT_NAMES;
  const unknown = faults.find((f) => !PLAN_EFFECT_NAMES.includes(f));
  if (unknown !== undefined || faults.length === 0)
    throw new TypeError(
      `faults must name effects among ${PLAN_EFFECT_NAMES.join(', ')} (got ${JSON.stringify(unknown ?? faults)})`,
    );
  return faults;
}

/** The runner of `scenario` in process: a fresh emulator for each run, with one company and the plan armed for it. */
function inProcess(scenario: Scenario, emulatorOptions: EmulatorOptions | undefined): PlanRunner {
  return async (plan) => {
    const emulator = createEmulator({ seed: 1, ...emulatorOptions });
    try {
      const { companyId, token } = emulator.companies.create();
      for (const fault of plan) emulator.faults.add(armedFault(fault, companyId));
      // The fault-free run's job runs are where job faults can land: its activity tells each (and only it is asked).
      const tasks: string[] = [];
      const unsubscribe =
        plan.length === 0
          ? emulator.activity.subscribe((entry) => {
              if (entry.kind === 'job' && entry.companyId === companyId) tasks.push(entry.task);
            })
          : undefined;
      let exit: string | null = null;
      try {
        const sleep = async (ms: number) => void (await emulator.clock.advance(ms));
        await scenario({ fetch: emulator.fetch, token, companyId, emulator, sleep });
      } catch (error) {
        exit = error instanceof Error ? error.message : String(error);
      }
      // What the run did, before the outcome's reads add to it.
      const requests = emulator.journal.find({ companyId }).map(({ method, path }) => ({ method, path }));
      const findings = emulator.report().findings.filter((f) => f.companyId === companyId);
      unsubscribe?.();
      emulator.faults.clear();
      const outcome = await readOutcome(emulator.fetch, token);
      const deliveries = await readDeliveries(emulator.fetch, token, outcome);
      return { exit, findings, outcome, requests, deliveries, jobs: jobCounts(tasks) };
    } finally {
      await emulator.close();
    }
  };
}

/** The run's reasons to fail, against the fault-free run's outcome `expected` (null: this is that run). */
async function judge(run: PlanRun, expected: Outcome | null, options: ExploreOptions): Promise<Judged> {
  const reasons: FailureReason[] = [];
  if (run.exit !== null) reasons.push({ kind: 'exit', message: run.exit });
  for (const f of run.findings) reasons.push({ kind: 'finding', rule: f.rule, message: f.message });
  const diff = expected === null ? [] : outcomeDiff(expected, run.outcome, options.ignore);
  if (diff.length > 0) reasons.push({ kind: 'outcome', diff });
  if (options.invariant) {
    const message = await invariantFailure(options.invariant, run.outcome);
    if (message !== null) reasons.push({ kind: 'invariant', message });
  }
  const { findings, outcome, requests, deliveries = [], jobs = [] } = run;
  return { reasons, findings, outcome, outcomeDiff: diff, requests, deliveries, jobs };
}

async function invariantFailure(invariant: (outcome: Outcome) => unknown, outcome: Outcome): Promise<string | null> {
  try {
    const held = await invariant(outcome);
    if (held === false) return 'the invariant returned false';
    if (typeof held === 'string') return held;
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function failureOf(
  judged: Judged,
  plan: FaultPlan,
  shrunkFrom: FaultPlan,
  seed: number,
  faultFree: boolean,
): ExploreFailure {
  return {
    plan,
    shrunkFrom,
    reasons: judged.reasons,
    findings: judged.findings,
    outcomeDiff: judged.outcomeDiff,
    replay: `explore(scenario, { seed: ${seed}, replay: ${JSON.stringify(plan)} })`,
    faultFree,
  };
}

/** The result in a few lines: the minimal plan and why it fails, for a test's failure message. */
export function formatExploration(result: ExploreResult): string {
  const { failure } = result;
  if (failure === null && result.incomplete !== null)
    return `the search is incomplete: ${result.incomplete} (seed ${result.seed}; ${result.passed} runs passed)`;
  if (failure === null)
    return `explored ${result.runs} fault plan${result.runs === 1 ? '' : 's'} (seed ${result.seed}): every run passed`;
  const head = failure.faultFree
    ? 'the fault-free run itself fails: nothing was explored'
    : `a run fails under the plan: ${describePlan(failure.plan)} (shrunk from ${failure.shrunkFrom.length} ${failure.shrunkFrom.length === 1 ? 'fault' : 'faults'}; ${result.runs} ${result.runs === 1 ? 'run' : 'runs'}, seed ${result.seed})`;
  const reasons = failure.reasons.map((r) =>
    r.kind === 'outcome'
      ? `  outcome: ${r.diff.join('; ')}`
      : r.kind === 'finding'
        ? `  finding ${r.rule}: ${r.message}`
        : `  ${r.kind}: ${r.message}`,
  );
  return [head, ...reasons, `replay: ${failure.replay}`].join('\n');
}
