/**
 * Injected faults (DESIGN §6). Each fault fires `times` times (default 1; null = until removed); the first
 * matching fault fires.
 *
 * - `api`: matches method (any case), path (a glob: `*` is any run of characters but `/`, `**` any run at all)
 *   and company. Most effects fire when the request arrives; `concurrentEdit` fires when the request is about
 *   to be evaluated, on an operation that takes If-Match (IF_MATCH_OPERATIONS, src/core/versioning.ts), and only when it can
 *   save the resource the request's If-Match guards.
 * - `delivery`: matches the destination URL (the same glob), the event type and the company.
 * - `job`: matches the kind of background job (JOB_KINDS) and the company.
 *
 * A fault that could never fire is refused when it is added, and every refusal is one sentence naming the
 * field and what it accepts, in process and over HTTP alike: a test that means to inject a fault must never
 * pass because the fault silently did nothing.
 */
import { z } from 'zod';
import { DAY } from '../core/time.js';
import { EVENT_KINDS } from '../core/webhooks/events.js';
import { concurrentEditImpossible } from '../core/concurrent-edit.js';
import { IF_MATCH_OPERATIONS, type IfMatchOperation } from '../core/versioning.js';
import type { ApiFault, ApiFaultEffect, ApiFaultMatch, FaultMoment } from '../http/runtime.js';
import type { DeliveryFaultEffect, DeliveryFaults } from '../network/transport.js';
import { Glob } from './glob.js';
import { JOB_KINDS, type JobKind } from '../core/jobs.js';

/** The background jobs a `job` fault can act on (README "Faults"). */
// The kinds are the core job registry's: a job fault can name exactly the jobs that exist.
export { JOB_KINDS, type JobKind } from '../core/jobs.js';

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;
const MAX_GLOB = 2048;
/** Faults armed at once (spent ones included, until removed). */
export const MAX_FAULTS = 1000;

const apiEffect = z.union([
  z.strictObject({ status: z.number().int().min(400).max(599), retryAfter: z.number().int().min(0).max(86_400).optional() }),
  z.strictObject({ loseResponse: z.literal(true) }),
  z.strictObject({ concurrentEdit: z.literal(true) }),
  z.strictObject({ delayMs: z.number().int().min(0).max(DAY) }),
]);

const deliveryEffect = z.union([
  /** The receiver is not reached; the network answers this status. */
  z.strictObject({ status: z.number().int().min(100).max(599) }),
  /** The network answers a redirect to `redirect` (or to the URL + "/moved"); redirects are not followed. */
  z.strictObject({ redirect: z.union([z.literal(true), z.string().url()]) }),
  /** The receiver gets the request; its answer never comes back: the attempt times out. */
  z.strictObject({ timeout: z.literal(true) }),
  /** The connection is refused: the receiver gets nothing. */
  z.strictObject({ refuse: z.literal(true) }),
  /** The receiver gets the request; the connection breaks before its answer. */
  z.strictObject({ reset: z.literal(true) }),
  /** The answer takes this long (virtual time); 15 s or more is a time-out. */
  z.strictObject({ latencyMs: z.number().int().min(0).max(DAY) }),
  /** The receiver gets the request twice (the attempt's outcome is the first answer). */
  z.strictObject({ duplicate: z.literal(true) }),
  /** The receiver gets a request whose signature, body or timestamp (validly signed, 10 minutes old) was tampered with. */
  z.strictObject({ tamper: z.enum(['signature', 'body', 'timestamp']) }),
]);

const jobEffect = z.union([
  /** The job's run fails (an analysis fails; a cleanup run is skipped until the next one). */
  z.strictObject({ fail: z.literal(true) }),
  /** The job's run is postponed by this long (virtual time). */
  z.strictObject({ delayMs: z.number().int().min(0).max(30 * DAY) }),
]);

const companyId = z.string().min(1).max(64);
const glob = z.string().min(1).max(MAX_GLOB);
const times = z.number().int().min(1).nullable().default(1);
const method = z.string().transform((m) => m.toUpperCase()).pipe(z.enum(METHODS));

const FAULTS = {
  api: z.strictObject({
    target: z.literal('api'),
    match: z.strictObject({ method: method.optional(), path: glob.startsWith('/').optional(), companyId: companyId.optional() }).default({}),
    effect: apiEffect,
    times,
  }),
  delivery: z.strictObject({
    target: z.literal('delivery'),
    match: z.strictObject({ url: glob.optional(), eventType: z.enum(EVENT_KINDS).optional(), companyId: companyId.optional() }).default({}),
    effect: deliveryEffect,
    times,
  }),
  job: z.strictObject({
    target: z.literal('job'),
    match: z.strictObject({ kind: z.enum(JOB_KINDS).optional(), companyId: companyId.optional() }).default({}),
    effect: jobEffect,
    times,
  }),
};
type Target = keyof typeof FAULTS;
const TARGETS = Object.keys(FAULTS) as Target[];
const MATCH_FIELDS: Record<Target, string> = { api: 'method, path, companyId', delivery: 'url, eventType, companyId', job: 'kind, companyId' };

/** What each field accepts, as the refusal says it. */
const ACCEPTS = {
  fault: 'a fault is a JSON object {"target", "match"?, "effect", "times"?}',
  target: 'target must be "api", "delivery" or "job"',
  times: 'times must be a positive integer, or null to keep the fault until it is removed',
  companyId: 'match.companyId must be a company id (1 to 64 characters)',
  api: {
    article: 'an api fault',
    effect: 'effect of an api fault must be one of {"status": 400–599, "retryAfter"?: 0–86400}, {"loseResponse": true}, {"concurrentEdit": true} or {"delayMs": 0–86400000}',
    method: `match.method must be one of ${METHODS.join(', ')} (any case)`,
    path: `match.path must be a glob of 1 to ${MAX_GLOB} characters starting with "/" ("*" is any run of characters but "/", "**" any run at all)`,
  },
  delivery: {
    article: 'a delivery fault',
    effect:
      'effect of a delivery fault must be one of {"status": 100–599}, {"redirect": true or "<absolute URL>"}, {"timeout": true}, {"refuse": true}, {"reset": true}, ' +
      '{"latencyMs": 0–86400000}, {"duplicate": true} or {"tamper": "signature", "body" or "timestamp"}',
    url: `match.url must be a glob of 1 to ${MAX_GLOB} characters ("*" is any run of characters but "/", "**" any run at all)`,
    eventType: `match.eventType must be one of ${EVENT_KINDS.join(', ')}`,
  },
  job: {
    article: 'a job fault',
    effect: 'effect of a job fault must be one of {"fail": true} or {"delayMs": 0–2592000000}',
    kind: `match.kind must be one of ${JOB_KINDS.join(', ')}`,
  },
} as const;

/** A fault that is not one, or could never fire: `caminho` locates the field, the message says what it accepts. */
export class FaultInputError extends TypeError {
  constructor(message: string, readonly caminho: string) {
    super(message);
    this.name = 'FaultInputError';
  }
}

export type FaultInput = z.input<(typeof FAULTS)[Target]>;
type ParsedFault = z.output<(typeof FAULTS)[Target]>;
export type JobFaultEffect = z.output<typeof jobEffect>;

export type FaultView = ParsedFault & {
  readonly id: string;
  /** Firings left; null = until removed. */
  readonly times: number | null;
  readonly hits: number;
};

interface Fault {
  readonly id: string;
  readonly spec: ParsedFault;
  readonly pattern: Glob | undefined;
  times: number | null;
  hits: number;
}

export interface DeliveryFaultMatch {
  readonly url: string;
  readonly eventType: string;
  readonly companyId: string;
}

export interface JobFaultMatch {
  readonly kind: JobKind;
  readonly companyId: string | null;
  /** Only faults with this effect (a job that can be postponed at its start and fail at its end asks for each there). */
  readonly effect?: 'fail' | 'delayMs';
}

export class FaultRegistry implements DeliveryFaults {
  private readonly faults: Fault[] = [];
  private counter = 0;

  /** Throws a FaultInputError, registering nothing, when `input` is not a fault or could never fire. */
  add(input: unknown): { id: string } {
    const spec = parseFault(input);
    // Every API request is checked against every fault: a bound keeps that check a small part of any answer.
    if (this.faults.length >= MAX_FAULTS) {
      throw new FaultInputError(`At most ${MAX_FAULTS} faults can be armed at once; remove some (DELETE /_emulator/faults/{id}, or DELETE /_emulator/faults for all) before adding more.`, '');
    }
    const id = `flt_${++this.counter}`;
    const pattern = spec.target === 'api' ? spec.match.path : spec.target === 'delivery' ? spec.match.url : undefined;
    this.faults.push({ id, spec, pattern: pattern === undefined ? undefined : new Glob(pattern), times: spec.times, hits: 0 });
    return { id };
  }

  list(): FaultView[] {
    return this.faults.map(({ id, spec, times, hits }) => ({ ...spec, id, times, hits }));
  }

  remove(id: string): boolean {
    const index = this.faults.findIndex((f) => f.id === id);
    if (index < 0) return false;
    this.faults.splice(index, 1);
    return true;
  }

  clear(): void {
    this.faults.length = 0;
  }

  /**
   * The first api fault matching the request at this moment: on `arrival` any but `concurrentEdit`; at
   * `evaluation` only `concurrentEdit`, which counts as fired only if `fire` (the concurrent save) says it
   * could save the guarded resource — otherwise it stays armed for a later request.
   */
  takeApi(request: ApiFaultMatch, moment: FaultMoment, fire?: () => boolean): ApiFault | undefined {
    const fault = this.take(
      (f) => f.spec.target === 'api' && ('concurrentEdit' in f.spec.effect) === (moment === 'evaluation') && matchesApi(f, f.spec.match, request),
      fire,
    );
    return fault && fault.spec.target === 'api' ? { id: fault.id, effect: fault.spec.effect as ApiFaultEffect } : undefined;
  }

  takeDelivery(request: DeliveryFaultMatch): { id: string; effect: DeliveryFaultEffect } | undefined {
    const fault = this.take((f) => {
      if (f.spec.target !== 'delivery') return false;
      const { eventType, companyId } = f.spec.match;
      return (eventType === undefined || eventType === request.eventType) && (companyId === undefined || companyId === request.companyId) && (!f.pattern || f.pattern.matches(request.url));
    });
    return fault && fault.spec.target === 'delivery' ? { id: fault.id, effect: fault.spec.effect } : undefined;
  }

  takeJob(request: JobFaultMatch): { id: string; effect: JobFaultEffect } | undefined {
    const fault = this.take((f) => matchesJob(f, request));
    return fault && fault.spec.target === 'job' ? { id: fault.id, effect: fault.spec.effect } : undefined;
  }

  /**
   * Whether a job fault matching `request` is armed, without firing it: a job whose runs a fault counts must
   * run each time (the clock coalesces a periodic job's runs only while this answers false).
   */
  armsJob(request: JobFaultMatch): boolean {
    return this.faults.some((f) => matchesJob(f, request));
  }

  private take(test: (fault: Fault) => boolean, fire?: () => boolean): Fault | undefined {
    if (this.faults.length === 0) return undefined;
    const index = this.faults.findIndex(test);
    if (index < 0) return undefined;
    const fault = this.faults[index]!;
    if (fire && !fire()) return undefined;
    fault.hits++;
    if (fault.times !== null && --fault.times === 0) this.faults.splice(index, 1);
    return fault;
  }
}

function matchesJob(fault: Fault, request: JobFaultMatch): boolean {
  if (fault.spec.target !== 'job') return false;
  const { kind, companyId } = fault.spec.match;
  return (kind === undefined || kind === request.kind) && (companyId === undefined || companyId === request.companyId) && (request.effect === undefined || request.effect in fault.spec.effect);
}

function matchesApi(fault: Fault, match: { method?: string; companyId?: string }, request: ApiFaultMatch): boolean {
  if (match.method !== undefined && match.method !== request.method) return false;
  if (match.companyId !== undefined && match.companyId !== request.companyId) return false;
  return !fault.pattern || fault.pattern.matches(request.path);
}

/** `input` as a fault, or a FaultInputError saying, in one sentence, which field is wrong and what it accepts. */
function parseFault(input: unknown): ParsedFault {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new FaultInputError(`${ACCEPTS.fault}; got ${shown(input)}.`, '');
  const record = input as Record<string, unknown>;
  const unknownField = Object.keys(record).find((k) => !['target', 'match', 'effect', 'times'].includes(k));
  if (unknownField !== undefined) throw new FaultInputError(`"${unknownField}" is not a field of a fault (fields: target, match, effect, times).`, unknownField);
  const target = record.target;
  if (typeof target !== 'string' || !(TARGETS as string[]).includes(target)) throw new FaultInputError(`${ACCEPTS.target}; ${got(record, ['target'])}.`, 'target');
  const parsed = FAULTS[target as Target].safeParse(input);
  if (!parsed.success) throw describe(target as Target, record, parsed.error.issues[0]!);
  if (parsed.data.target === 'api' && 'concurrentEdit' in parsed.data.effect) checkConcurrentEditCanFire(parsed.data.match);
  return parsed.data;
}

function describe(target: Target, input: Record<string, unknown>, issue: z.core.$ZodIssue): FaultInputError {
  const [field, sub] = issue.path as (string | number)[];
  if (field === 'match' && issue.code === 'unrecognized_keys') {
    return new FaultInputError(`match.${issue.keys[0]} is not a field of ${ACCEPTS[target].article}'s match (fields: ${MATCH_FIELDS[target]}).`, `match.${issue.keys[0]}`);
  }
  if (field === 'match' && sub === undefined) return new FaultInputError(`match must be a JSON object; ${got(input, ['match'])}.`, 'match');
  if (field === 'match') {
    const accepts = sub === 'companyId' ? ACCEPTS.companyId : (ACCEPTS[target] as Record<string, string>)[String(sub)];
    return new FaultInputError(`${accepts ?? `match.${String(sub)} is not valid`}; ${got(input, ['match', String(sub)])}.`, `match.${String(sub)}`);
  }
  if (field === 'effect') return new FaultInputError(`${ACCEPTS[target].effect}; ${got(input, ['effect'])}.`, 'effect');
  if (field === 'times') return new FaultInputError(`${ACCEPTS.times}; ${got(input, ['times'])}.`, 'times');
  return new FaultInputError(`${ACCEPTS.fault}; ${issue.message}.`, String(field ?? ''));
}

/**
 * A `concurrentEdit` fires only on an operation that takes If-Match and whose guarded resource another client
 * can save: refuse one whose match reaches no such operation.
 */
function checkConcurrentEditCanFire(match: { method?: string; path?: string }): void {
  const pattern = match.path === undefined ? undefined : new Glob(match.path);
  const reached = IF_MATCH_OPERATIONS.filter((o) => (match.method === undefined || o.method === match.method) && (!pattern || pattern.overlapsTemplate(o.path)));
  if (reached.some((o) => concurrentEditImpossible(o) === undefined)) return;
  const what = [match.method, match.path].filter(Boolean).join(' ') || 'any request';
  if (reached.length > 0) {
    const operation = reached[0]!;
    throw new FaultInputError(`effect concurrentEdit can never fire on ${describeOperation(operation)}: ${concurrentEditImpossible(operation)}.`, 'effect');
  }
  throw new FaultInputError(
    `effect concurrentEdit can never fire on ${what}: it needs an operation that takes If-Match, and the match reaches none (they are ${IF_MATCH_OPERATIONS.filter((o) => concurrentEditImpossible(o) === undefined).map(describeOperation).join(', ')}).`,
    'match',
  );
}

const describeOperation = (o: IfMatchOperation) => `${o.method} ${o.path}`;

/** "got <value>" for the value at `path` of `input`, or "it is missing". */
function got(input: Record<string, unknown>, path: string[]): string {
  let value: unknown = input;
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return value === undefined ? 'it is missing' : `got ${shown(value)}`;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
