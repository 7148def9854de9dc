/**
 * A fault plan: a list of faults from the emulator's catalogue, each bound to a position in the run (the n-th
 * request of a method and path, or the n-th delivery attempt of an event type) rather than to a time, so that the
 * same plan does the same thing to the same scenario on every run. A plan is plain JSON: it is printed, saved and
 * replayed as it is.
 */
import { JOB_KINDS, JOBS, type JobKind } from '../core/jobs.js';
import { EVENT_KINDS } from '../core/webhooks/events.js';
import { IF_MATCH_OPERATIONS, type GuardedResource } from '../core/versioning.js';
import * as z from 'zod';
import { MAX_SKIP, type FaultInput } from './faults.js';
import { MAX_GLOB } from './glob.js';

/** The api effects a plan draws from, simplest first (shrinking goes towards the first). */
const API_PLAN_EFFECTS = {
  status503: { status: 503, retryAfter: 1 },
  loseResponse: { loseResponse: true },
  status429: { status: 429, retryAfter: 1 },
  concurrentEdit: { concurrentEdit: true },
  reset: { reset: true },
  truncate: { truncate: true },
  malformedJson: { malformedJson: true },
} as const;

/**
 * The delivery effects, simplest first: the receiver is not reached (a 500 from the network), it gets the request
 * and its answer never comes back (a time-out) or the connection breaks before it, it gets the request twice, or it
 * gets one whose signature is wrong (a correct receiver refuses it, and the service retries).
 */
const DELIVERY_PLAN_EFFECTS = {
  status500: { status: 500 },
  timeout: { timeout: true },
  reset: { reset: true },
  duplicate: { duplicate: true },
  tamper: { tamper: 'signature' },
} as const;

/**
 * The job effects: the run fails (an analysis fails, an ingestion's validation or application fails), or it is
 * postponed by ten minutes of the run's clock (a client that reads the result once, after the time a run usually
 * takes, reads it too soon).
 */
const JOB_PLAN_EFFECTS = {
  fail: { fail: true },
  delay: { delayMs: 10 * 60_000 },
} as const;

/** The name of an effect a plan draws from (`status503`, `loseResponse`, `duplicate`, …). */
export type PlanEffect =
  | keyof typeof API_PLAN_EFFECTS
  | keyof typeof DELIVERY_PLAN_EFFECTS
  | keyof typeof JOB_PLAN_EFFECTS;
type ApiPlanEffect = keyof typeof API_PLAN_EFFECTS;
type DeliveryPlanEffect = keyof typeof DELIVERY_PLAN_EFFECTS;
type JobPlanEffect = keyof typeof JOB_PLAN_EFFECTS;
const API_EFFECT_NAMES = Object.keys(API_PLAN_EFFECTS) as ApiPlanEffect[];
const DELIVERY_EFFECT_NAMES = Object.keys(DELIVERY_PLAN_EFFECTS) as DeliveryPlanEffect[];
const JOB_EFFECT_NAMES = Object.keys(JOB_PLAN_EFFECTS) as JobPlanEffect[];
/** Every effect's name, each once (`reset` acts on a request or a delivery, wherever it lands). */
export const PLAN_EFFECT_NAMES: readonly PlanEffect[] = [
  ...new Set<PlanEffect>([...API_EFFECT_NAMES, ...DELIVERY_EFFECT_NAMES, ...JOB_EFFECT_NAMES]),
];

/** One fault of a plan on a request: it fires on the `nth` request of `method` whose path matches `path`, once. */
export interface ApiPlannedFault {
  readonly target: 'api';
  readonly method: string;
  /** The path as a glob: each id of the path the run saw is `*`, so a run whose ids differ still matches it. */
  readonly path: string;
  /** 1 for the first such request of the run. */
  readonly nth: number;
  readonly effect: PlanEffect;
}

/** One fault of a plan on a webhook delivery: it fires on the `nth` delivery attempt of an event of `eventType`, once. */
export interface DeliveryPlannedFault {
  readonly target: 'delivery';
  readonly eventType: string;
  /** 1 for the first attempt of the run to deliver an event of that type (a retry is an attempt). */
  readonly nth: number;
  readonly effect: PlanEffect;
}

/**
 * One fault of a plan on a background job: it fires on the `nth` run of a job of `kind` that the effect can act on
 * (an analysis is postponed at its start and fails at its end: `delay` counts its starts, `fail` its ends), once.
 */
export interface JobPlannedFault {
  readonly target: 'job';
  readonly kind: JobKind;
  readonly nth: number;
  readonly effect: PlanEffect;
}

export type PlannedFault = ApiPlannedFault | DeliveryPlannedFault | JobPlannedFault;

export type FaultPlan = readonly PlannedFault[];

/** The delivery attempts of a run to deliver events of one type. */
export interface DeliveryCount {
  readonly eventType: string;
  readonly attempts: number;
}

/** The runs of a run's background jobs of one kind that one job effect can act on. */
export interface JobCount {
  readonly kind: JobKind;
  readonly effect: JobPlanEffect;
  readonly runs: number;
}

/**
 * The runs a job effect can act on, counted from the tasks a run's clock ran for its company (in any order): each
 * task of a job a fault can reach counts for `delay` where the job is postponed, for `fail` where it fails.
 */
export function jobCounts(tasks: readonly string[]): JobCount[] {
  const counts = new Map<string, { kind: JobKind; effect: JobPlanEffect; runs: number }>();
  const count = (kind: JobKind, effect: JobPlanEffect) => {
    const key = `${kind} ${effect}`;
    const now = counts.get(key) ?? { kind, effect, runs: 0 };
    counts.set(key, { ...now, runs: now.runs + 1 });
  };
  for (const task of tasks) {
    const takes = JOBS.find((job) => job.task === task)?.faults;
    if (takes === undefined) continue;
    if (takes.effects !== 'fail') count(takes.kind, 'delay');
    if (takes.effects !== 'delayMs') count(takes.kind, 'fail');
  }
  return [...counts.values()].sort((a, b) => (`${a.kind} ${a.effect}` < `${b.kind} ${b.effect}` ? -1 : 1));
}

/**
 * A position of the fault-free run a fault of a plan can stand on (a request, a delivery attempt, a job's run), with
 * the effects that can act there.
 */
export type Slot = (
  | Omit<ApiPlannedFault, 'effect'>
  | Omit<DeliveryPlannedFault, 'effect'>
  | Omit<JobPlannedFault, 'effect'>
) & {
  readonly effects: readonly PlanEffect[];
};

/** An id in a path: a UUID, as every id of the service is. */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `path` with each id segment a `*`. */
export function pathGlob(path: string): string {
  return path
    .split('/')
    .map((segment) => (ID.test(segment) ? '*' : segment))
    .join('/');
}

/** What another client's save can change behind an integration's back and the integration still recover. */
const RECOVERABLE: ReadonlySet<GuardedResource> = new Set<GuardedResource>([
  'catalog',
  'product',
  'establishment',
  'surveillanceSelection',
]);

/** Whether `glob` (ids as `*`) is a path of `template` (`/v1/produtos/{id}`). */
function fitsTemplate(glob: string, template: string): boolean {
  const want = template.split('/');
  const got = glob.split('/');
  return (
    want.length === got.length && want.every((part, i) => (part.startsWith('{') ? got[i] === '*' : part === got[i]))
  );
}

/**
 * The effects that can act on a request of `method` to `glob`: a GET is only answered badly; a write can also be
 * applied with its answer lost; an operation that takes If-Match can also meet another client's save, except where
 * no correct client could recover from that save: the ingestion's application (no other save can make it stale) and
 * the webhook destination's operations (the other client's PUT makes a new secret, which only that client is shown:
 * the integration's receiver could no longer verify a delivery).
 */
export function effectsFor(method: string, glob: string, allowed: readonly PlanEffect[]): PlanEffect[] {
  const write = method !== 'GET';
  const guarded = IF_MATCH_OPERATIONS.some(
    (o) => o.method === method && RECOVERABLE.has(o.guards) && fitsTemplate(glob, o.path),
  );
  return API_EFFECT_NAMES.filter(
    (effect) =>
      allowed.includes(effect) && (effect === 'loseResponse' ? write : effect === 'concurrentEdit' ? guarded : true),
  );
}

/**
 * The slots of a fault-free run: each request it made, in their order, as the n-th of its method and path; then
 * each delivery attempt, as the n-th of its event type; then each run of a job, as the n-th of its kind that its
 * effect can act on.
 */
export function slotsOf(
  requests: readonly { readonly method: string; readonly path: string }[],
  deliveries: readonly DeliveryCount[],
  allowed: readonly PlanEffect[],
  jobs: readonly JobCount[] = [],
): Slot[] {
  const seen = new Map<string, number>();
  const slots: Slot[] = [];
  for (const { method, path } of requests) {
    const glob = pathGlob(path);
    const key = `${method} ${glob}`;
    const nth = (seen.get(key) ?? 0) + 1;
    seen.set(key, nth);
    const effects = effectsFor(method, glob, allowed);
    if (effects.length > 0) slots.push({ target: 'api', method, path: glob, nth, effects });
  }
  const effects = DELIVERY_EFFECT_NAMES.filter((effect) => allowed.includes(effect));
  if (effects.length > 0)
    for (const { eventType, attempts } of deliveries)
      for (let nth = 1; nth <= attempts; nth++) slots.push({ target: 'delivery', eventType, nth, effects });
  for (const { kind, effect, runs } of jobs)
    if (allowed.includes(effect))
      for (let nth = 1; nth <= runs; nth++) slots.push({ target: 'job', kind, nth, effects: [effect] });
  return slots;
}

/**
 * Where a fault stands: two faults of a plan never stand on the same slot. A job's slot is of its effect too, as each
 * effect counts runs of its own (an analysis's starts, its ends).
 */
export function slotKey(fault: PlannedFault): string {
  return fault.target === 'api'
    ? `${fault.method} ${fault.path} ${fault.nth}`
    : fault.target === 'delivery'
      ? `delivery ${fault.eventType} ${fault.nth}`
      : `job ${fault.kind} ${fault.effect} ${fault.nth}`;
}

/** The fault the registry arms for `planned`, for `companyId` alone: it lets nth − 1 matching occurrences pass. */
export function armedFault(planned: PlannedFault, companyId: string): FaultInput {
  const position = { skip: planned.nth - 1, times: 1 };
  if (planned.target === 'job')
    return {
      target: 'job',
      match: { kind: planned.kind, companyId },
      effect: JOB_PLAN_EFFECTS[planned.effect as JobPlanEffect],
      ...position,
    } as FaultInput;
  if (planned.target === 'delivery')
    return {
      target: 'delivery',
      match: { eventType: planned.eventType, companyId },
      effect: DELIVERY_PLAN_EFFECTS[planned.effect as DeliveryPlanEffect],
      ...position,
    } as FaultInput;
  return {
    target: 'api',
    match: { method: planned.method, path: planned.path, companyId },
    effect: API_PLAN_EFFECTS[planned.effect as ApiPlanEffect],
    ...position,
  } as FaultInput;
}

/**
 * `plan` in one line: `loseResponse on the 2nd POST /v1/produtos; duplicate on the 1st delivery of
 * webhook.teste`.
 */
export function describePlan(plan: FaultPlan): string {
  if (plan.length === 0) return 'no faults';
  return plan
    .map((f) =>
      f.target === 'api'
        ? `${f.effect} on the ${ordinal(f.nth)} ${f.method} ${f.path}`
        : f.target === 'delivery'
          ? `${f.effect} on the ${ordinal(f.nth)} delivery of ${f.eventType}`
          : `${f.effect} on the ${ordinal(f.nth)} run of the ${f.kind} job`,
    )
    .join('; ');
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** The most faults a plan holds that is told or replayed: more than a search ever makes (its maxFaults). */
const MAX_PLAN_FAULTS = 100;

/**
 * The schema of a plan (the shape of a planned fault is declared here once): what a replay, a file, or an explorer
 * telling the emulator its runs gives is checked against it. Built on its first use.
 */
export const faultPlanSchema = (): z.ZodType<FaultPlan> => (planSchema ??= makePlanSchema());
let planSchema: z.ZodType<FaultPlan> | undefined;
function makePlanSchema(): z.ZodType<FaultPlan> {
  const nth = z
    .number()
    .int()
    .min(1)
    .max(MAX_SKIP + 1);
  const api = z.strictObject({
    target: z.literal('api'),
    method: z.string().min(1).max(16),
    path: z.string().startsWith('/').max(MAX_GLOB),
    nth,
    effect: z.enum(API_EFFECT_NAMES as [ApiPlanEffect, ...ApiPlanEffect[]]),
  });
  const delivery = z.strictObject({
    target: z.literal('delivery'),
    eventType: z.enum(EVENT_KINDS),
    nth,
    effect: z.enum(DELIVERY_EFFECT_NAMES as [DeliveryPlanEffect, ...DeliveryPlanEffect[]]),
  });
  const job = z.strictObject({
    target: z.literal('job'),
    kind: z.enum(JOB_KINDS),
    nth,
    effect: z.enum(JOB_EFFECT_NAMES as [JobPlanEffect, ...JobPlanEffect[]]),
  });
  return z.array(z.discriminatedUnion('target', [api, delivery, job])).max(MAX_PLAN_FAULTS);
}

/** Whether `value` is a fault plan (a replay's input comes from a file or a user). */
export function isFaultPlan(value: unknown): value is FaultPlan {
  return faultPlanSchema().safeParse(value).success;
}
