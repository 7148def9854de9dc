/**
 * A fault plan: a list of faults from the emulator's catalogue, each bound to a position in the run (the n-th
 * request of a method and path) rather than to a time, so that the same plan does the same thing to the same
 * scenario on every run. A plan is plain JSON: it is printed, saved and replayed as it is.
 */
import { IF_MATCH_OPERATIONS, type FaultInput } from '../public.js';

/** The api effects a plan draws from, simplest first (shrinking goes towards the first). */
const PLAN_EFFECTS = {
  status503: { status: 503, retryAfter: 1 },
  loseResponse: { loseResponse: true },
  status429: { status: 429, retryAfter: 1 },
  concurrentEdit: { concurrentEdit: true },
  reset: { reset: true },
  truncate: { truncate: true },
  malformedJson: { malformedJson: true },
} as const;

/** The name of an effect a plan draws from (`status503`, `loseResponse`, …). */
export type PlanEffect = keyof typeof PLAN_EFFECTS;
export const PLAN_EFFECT_NAMES = Object.keys(PLAN_EFFECTS) as PlanEffect[];

/** One fault of a plan: it fires on the `nth` request of `method` whose path matches `path`, once. */
export interface PlannedFault {
  readonly target: 'api';
  readonly method: string;
  /** The path as a glob: each id of the path the run saw is `*`, so a run whose ids differ still matches it. */
  readonly path: string;
  /** 1 for the first such request of the run. */
  readonly nth: number;
  readonly effect: PlanEffect;
}

export type FaultPlan = readonly PlannedFault[];

/** A request of the fault-free run that a fault of a plan can stand on, with the effects that can act there. */
export interface Slot {
  readonly method: string;
  readonly path: string;
  readonly nth: number;
  readonly effects: readonly PlanEffect[];
}

/** An id in a path: a UUID, as every id of the service is. */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `path` with each id segment a `*`. */
export function pathGlob(path: string): string {
  return path
    .split('/')
    .map((segment) => (ID.test(segment) ? '*' : segment))
    .join('/');
}

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
 * applied with its answer lost; an operation that takes If-Match can also meet another client's save (except the
 * ingestion's application, which no other save can make stale).
 */
export function effectsFor(method: string, glob: string, allowed: readonly PlanEffect[]): PlanEffect[] {
  const write = method !== 'GET';
  const guarded = IF_MATCH_OPERATIONS.some(
    (o) => o.method === method && o.guards !== 'ingestion' && fitsTemplate(glob, o.path),
  );
  return allowed.filter((effect) => (effect === 'loseResponse' ? write : effect === 'concurrentEdit' ? guarded : true));
}

/** The slots of the requests a fault-free run made, in their order: each is the n-th of its method and path. */
export function slotsOf(
  requests: readonly { readonly method: string; readonly path: string }[],
  allowed: readonly PlanEffect[],
): Slot[] {
  const seen = new Map<string, number>();
  const slots: Slot[] = [];
  for (const { method, path } of requests) {
    const glob = pathGlob(path);
    const key = `${method} ${glob}`;
    const nth = (seen.get(key) ?? 0) + 1;
    seen.set(key, nth);
    const effects = effectsFor(method, glob, allowed);
    if (effects.length > 0) slots.push({ method, path: glob, nth, effects });
  }
  return slots;
}

/** The fault the registry arms for `planned`, for `companyId` alone: it lets nth − 1 matching requests pass. */
export function armedFault(planned: PlannedFault, companyId: string): FaultInput {
  return {
    target: 'api',
    match: { method: planned.method, path: planned.path, companyId },
    effect: PLAN_EFFECTS[planned.effect],
    skip: planned.nth - 1,
    times: 1,
  } as FaultInput;
}

/** `plan` in one line: `loseResponse on the 2nd POST /v1/produtos; status503 on the 1st GET /v1/empresa`. */
export function describePlan(plan: FaultPlan): string {
  if (plan.length === 0) return 'no faults';
  return plan.map((f) => `${f.effect} on the ${ordinal(f.nth)} ${f.method} ${f.path}`).join('; ');
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** Whether `value` is a fault plan (a replay's input comes from a file or a user). */
export function isFaultPlan(value: unknown): value is FaultPlan {
  return (
    Array.isArray(value) &&
    value.every(
      (f: unknown) =>
        typeof f === 'object' &&
        f !== null &&
        (f as PlannedFault).target === 'api' &&
        typeof (f as PlannedFault).method === 'string' &&
        typeof (f as PlannedFault).path === 'string' &&
        (f as PlannedFault).path.startsWith('/') &&
        Number.isInteger((f as PlannedFault).nth) &&
        (f as PlannedFault).nth >= 1 &&
        PLAN_EFFECT_NAMES.includes((f as PlannedFault).effect),
    )
  );
}
