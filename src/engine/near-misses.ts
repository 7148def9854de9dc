/**
 * Why an armed fault never fired (or fired fewer times than asked): what it was checked against since it was armed
 * (the journal's requests for an api fault; the deliveries and job runs the fault registry kept for the others), each
 * with the fault's conditions it met and those it failed, the closest first. The conditions are the match's fields
 * and what else stops a fault: an api fault acts only on a request that reaches an operation; `concurrentEdit` only
 * on an operation that takes If-Match, a request that sends one and reaches its evaluation; a draw of `probability`
 * may pass over; and the first matching fault takes the occurrence (spec of the faults: src/engine/faults.ts).
 */
import { concurrentEditImpossible } from '../core/concurrent-edit.js';
import { isoString } from '../core/time.js';
import { IF_MATCH_OPERATIONS } from '../core/versioning.js';
import type { DeliveryFaultMatch, FaultView, JobFaultMatch } from './faults.js';
import type { Glob } from './glob.js';
import { pathMatches, QueryBudget, type JournalRecord } from './journal.js';

/** The closest occurrences an answer shows. */
const NEAR_MISS_LIMIT = 10;

/** The fault's conditions an occurrence met and failed, each one sentence: `method: PATCH ≠ POST`. */
interface Conditions {
  readonly failed: readonly string[];
  readonly matched: readonly string[];
}

/** A request an api fault was checked against. */
export interface ApiNearMiss extends Conditions {
  readonly requestId: string;
  readonly at: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly companyId: string | null;
}

/** A delivery attempt a delivery fault was checked against. */
export interface DeliveryNearMiss extends Conditions {
  readonly eventId: string | null;
  readonly attempt: number | null;
  readonly url: string;
  readonly eventType: string;
  readonly companyId: string;
}

/** A run of a background job a job fault was checked against. */
export interface JobNearMiss extends Conditions {
  readonly at: string | null;
  readonly kind: string;
  /** The record the run works on (an analysis, an execution, …); null for housekeeping. */
  readonly subjectId: string | null;
  readonly companyId: string | null;
}

export type NearMiss = ApiNearMiss | DeliveryNearMiss | JobNearMiss;

/** emu.faults.nearMisses(id): the fault, what it was checked against since it was armed, and the closest of those. */
export interface NearMisses {
  readonly fault: FaultView;
  /**
   * The occurrences since it was armed that it did not fire on, of those kept: the journal's last 10,000 requests for
   * an api fault; the last 1,000 deliveries or job runs checked while a fault of that target was armed.
   */
  readonly examined: number;
  /** The occurrences that met every other condition and that its `probability` draw passed over. */
  readonly passedOver: number;
  /** The closest (at most 10): the most conditions met first, then the most recent. */
  readonly candidates: readonly NearMiss[];
}

/** A delivery or job run as the registry kept it for near-misses: what the faults saw, which one took it, whose draws passed over it. */
export type Occurrence = {
  /** Its number in the registry's order of occurrences. */
  readonly seq: number;
  /** The fault that fired on it. */
  readonly taken: string | null;
  /** The faults that matched it and whose draw passed over it. */
  readonly passed: readonly string[];
} & (
  | { readonly target: 'delivery'; readonly match: DeliveryFaultMatch; readonly seen: DeliverySeen | undefined }
  | { readonly target: 'job'; readonly match: JobFaultMatch; readonly seen: JobSeen | undefined }
);

/** What the transport knows of a delivery beyond what faults match: its event and attempt (the delivery itself, passed as it is). */
export interface DeliverySeen {
  readonly eventId: string;
  readonly tentativa: number;
}

/** What the job runner knows of a run beyond what faults match: when, and the record it works on. */
export interface JobSeen {
  readonly at: number;
  readonly subjectId: string | null;
}

/** A fault as near-misses read it: its view, its glob, its probability. */
export interface ArmedFault {
  readonly view: FaultView;
  readonly pattern: Glob | undefined;
  readonly probability: number;
  /** The matching occurrences it has let pass so far (its skip as given, less the skip left). */
  readonly skipped: number;
}

/** The first `skipped` occurrences that met every condition were let pass by the fault's skip: the others get `last`. */
function skipCheck(fault: ArmedFault): (last: () => Check) => Check {
  let left = fault.skipped;
  const given = fault.skipped + fault.view.skip;
  return (last) => (left-- > 0 ? [false, `skip: one of the ${given} matching it lets pass before it fires`] : last());
}

/** One condition checked: met (its sentence for `matched`) or not (for `failed`). */
type Check = readonly [met: boolean, sentence: string];

/** The api fault's near-misses among `records` (the journal's since it was armed). */
export function apiNearMisses(fault: ArmedFault, records: readonly JournalRecord[], passedOver: number): NearMisses {
  const spec = fault.view;
  if (spec.target !== 'api') throw new TypeError(`${spec.id} is a ${spec.target} fault`);
  const { method, companyId } = spec.match;
  const concurrent = 'concurrentEdit' in spec.effect;
  const ranked: Ranked<ApiNearMiss>[] = [];
  // The glob against up to the journal's 10,000 paths: a query like a journal filter, on the same budget.
  const narrow = "ask for one company's (companyId), or arm a fault with fewer stars";
  const budget = fault.pattern && new QueryBudget(fault.pattern, undefined, narrow);
  const skipOrLast = skipCheck(fault);
  records.forEach((r, seq) => {
    if (r.faultId === spec.id) return;
    const checks: Check[] = [
      r.operation === null
        ? [
            false,
            `operation: ${r.method} ${r.path} reached none (answered ${r.status}); a fault acts only on a request to an operation`,
          ]
        : [true, `operation: ${r.operation}`],
    ];
    if (method !== undefined)
      checks.push(r.method === method ? [true, `method: ${method}`] : [false, `method: ${r.method} ≠ ${method}`]);
    if (fault.pattern && budget) {
      const { pattern } = fault.pattern;
      const matched = budget.spent(pathMatches(fault.pattern, r.path));
      checks.push(
        matched ? [true, `path: ${r.path} matches ${pattern}`] : [false, `path: ${r.path} does not match ${pattern}`],
      );
    }
    if (companyId !== undefined)
      checks.push(companyCheck(r.companyId, companyId, "no company's credential recognized"));
    if (concurrent) checks.push(...concurrentEditChecks(r));
    if (checks.every(([met]) => met))
      checks.push(
        skipOrLast(() => lastCheck(spec.id, fault.probability, r.faultId, concurrent ? 'evaluation' : 'arrival')),
      );
    ranked.push(
      rankedOf(seq, checks, {
        requestId: r.requestId,
        at: isoString(r.at),
        method: r.method,
        path: r.path,
        status: r.status,
        companyId: r.companyId,
      }),
    );
  });
  return answer(spec, ranked, passedOver);
}

/** The delivery or job fault's near-misses among `occurrences` (those of its target since it was armed). */
export function occurrenceNearMisses(
  fault: ArmedFault,
  occurrences: readonly Occurrence[],
  passedOver: number,
): NearMisses {
  const spec = fault.view;
  const ranked: Ranked<DeliveryNearMiss | JobNearMiss>[] = [];
  // A delivery fault's glob against up to the 1,000 URLs kept: on the budget of a query of the journal.
  const budget = fault.pattern && new QueryBudget(fault.pattern, undefined, "ask for one company's (companyId)");
  const skipOrLast = skipCheck(fault);
  for (const o of occurrences) {
    if (o.taken === spec.id) continue;
    const checks: Check[] = [];
    if (o.target === 'delivery' && spec.target === 'delivery') {
      const { eventType, companyId } = spec.match;
      if (fault.pattern && budget) {
        const { pattern } = fault.pattern;
        const matched = budget.spent(fault.pattern.matches(o.match.url));
        const { url } = o.match;
        checks.push([matched, matched ? `url: ${url} matches ${pattern}` : `url: ${url} does not match ${pattern}`]);
      }
      if (eventType !== undefined)
        checks.push(
          o.match.eventType === eventType
            ? [true, `eventType: ${eventType}`]
            : [false, `eventType: ${o.match.eventType} ≠ ${eventType}`],
        );
      if (companyId !== undefined) checks.push(companyCheck(o.match.companyId, companyId, ''));
      if (checks.every(([met]) => met)) checks.push(skipOrLast(() => drawCheck(spec.id, fault.probability, o)));
      ranked.push(
        rankedOf(o.seq, checks, {
          eventId: o.seen?.eventId ?? null,
          attempt: o.seen?.tentativa ?? null,
          url: o.match.url,
          eventType: o.match.eventType,
          companyId: o.match.companyId,
        }),
      );
    } else if (o.target === 'job' && spec.target === 'job') {
      const { kind, companyId } = spec.match;
      if (kind !== undefined)
        checks.push(o.match.kind === kind ? [true, `kind: ${kind}`] : [false, `kind: ${o.match.kind} ≠ ${kind}`]);
      if (companyId !== undefined)
        checks.push(companyCheck(o.match.companyId, companyId, 'a job of the whole emulator'));
      const effect = Object.keys(spec.effect)[0]!;
      const takes = o.match.effect;
      if (takes !== undefined)
        checks.push(
          takes === effect
            ? [true, `effect: this run takes ${effect}`]
            : [false, `effect: this run of ${o.match.kind} takes only ${takes}, not ${effect}`],
        );
      if (checks.every(([met]) => met)) checks.push(drawCheck(spec.id, fault.probability, o));
      ranked.push(
        rankedOf(o.seq, checks, {
          at: o.seen === undefined ? null : isoString(o.seen.at),
          kind: o.match.kind,
          subjectId: o.seen?.subjectId ?? null,
          companyId: o.match.companyId,
        }),
      );
    }
  }
  return answer(spec, ranked, passedOver);
}

function companyCheck(seen: string | null | undefined, wanted: string, none: string): Check {
  if (seen === wanted) return [true, `companyId: ${wanted}`];
  return [false, `companyId: ${seen ?? `none (${none})`} ≠ ${wanted}`];
}

/**
 * What a `concurrentEdit` needs of a request beyond the match: an operation that takes If-Match (and whose guarded
 * resource another client can save), an If-Match sent, and the request evaluated (a replay never is; an error
 * other than 412 means it was refused before the save could act, or found nothing to save).
 */
function concurrentEditChecks(r: JournalRecord): Check[] {
  const operation = IF_MATCH_OPERATIONS.find((o) => o.method === r.method && templateMatches(o.path, r.path));
  if (operation === undefined)
    return [
      [
        false,
        `If-Match: ${r.method} ${r.path} is no operation that takes it; concurrentEdit acts only on one that does`,
      ],
    ];
  const impossible = concurrentEditImpossible(operation);
  if (impossible !== undefined)
    return [[false, `If-Match: ${operation.method} ${operation.path} takes it, but ${impossible}`]];
  const checks: Check[] = [[true, `If-Match: ${operation.method} ${operation.path} takes it`]];
  checks.push(
    r.ifMatch === null
      ? [false, 'If-Match: none sent; concurrentEdit acts on a request that sends one']
      : [true, `If-Match: sent ${r.ifMatch.join(', ')}`],
  );
  if (r.replayed) checks.push([false, 'evaluation: answered from the idempotency store (a replay is never evaluated)']);
  else if (r.status >= 400 && r.status !== 412)
    checks.push([
      false,
      `evaluation: answered ${r.status}${r.codigo === null ? '' : ` ${r.codigo}`} before the concurrent save could act, or with nothing to save`,
    ]);
  else checks.push([true, 'evaluation: reached']);
  return checks;
}

/**
 * Why an api fault whose every other condition held did not fire: another fault took the request first (one armed
 * before it; or any, when it fires at every match), its draw passed over, or the request had passed the fault's
 * moment when the fault was armed (a request a `delayMs` held).
 */
function lastCheck(id: string, probability: number, firedId: string | null, moment: string): Check {
  if (firedId !== null && (probability === 1 || order(firedId) < order(id)))
    return [false, `another fault: ${firedId} fired on it first`];
  if (probability < 1) return [false, `probability: the draw passed over it (probability ${probability})`];
  return [false, `armed: the request had passed the fault's moment (${moment}) when the fault was armed`];
}

/** The same for a delivery or job run: the registry noted which fault took it and whose draws passed over it. */
function drawCheck(id: string, probability: number, o: Occurrence): Check {
  if (o.passed.includes(id)) return [false, `probability: the draw passed over it (probability ${probability})`];
  if (o.taken !== null) return [false, `another fault: ${o.taken} fired on it first`];
  return [false, 'armed: the fault was armed after it was checked'];
}

/** A fault's place in the order faults are checked in: the order they were added. */
const order = (id: string) => Number(id.slice(id.indexOf('_') + 1));

/** Whether `path` is a path of `template` (`/v1/produtos/{id}`): a parameter is one segment, of any text. */
function templateMatches(template: string, path: string): boolean {
  const want = template.split('/');
  const got = path.split('/');
  return (
    want.length === got.length &&
    want.every((segment, i) => (segment.startsWith('{') ? got[i] !== '' : segment === got[i]))
  );
}

interface Ranked<T> {
  readonly seq: number;
  readonly met: number;
  readonly candidate: T;
}

function rankedOf<T extends object>(seq: number, checks: readonly Check[], fields: T): Ranked<T & Conditions> {
  const matched = checks.filter(([met]) => met).map(([, sentence]) => sentence);
  const failed = checks.filter(([met]) => !met).map(([, sentence]) => sentence);
  return { seq, met: matched.length, candidate: { ...fields, failed, matched } };
}

function answer(fault: FaultView, ranked: Ranked<NearMiss>[], passedOver: number): NearMisses {
  const closest = ranked.sort((a, b) => b.met - a.met || b.seq - a.seq).slice(0, NEAR_MISS_LIMIT);
  return { fault, examined: ranked.length, passedOver, candidates: closest.map((r) => r.candidate) };
}
