/**
 * Injected faults: the one schema of a fault, the types every layer names a fault's parts by (all inferred from
 * that schema), and the registry that arms and fires them. Each fault fires `times` times (default 1; null = until
 * removed); the first matching fault that fires, fires. With a `probability` below 1 a matching occurrence fires
 * only if a draw from the registry's own seeded random source says so (a stream of its own: the ids the service
 * draws never move), so the same seed and the same calls fire the same faults; `times` counts firings.
 *
 * - `api`: matches method (any case), path (a glob: `*` is any run of characters but `/`, `**` any run at all)
 *   and company. Each effect is taken at a moment of the request (API_EFFECTS: on `arrival`, or at `evaluation`
 *   just before the core runs) and acts at a named hook of the HTTP pipeline (src/http/fault-hooks.ts).
 *   `concurrentEdit` is taken at evaluation, on an operation that takes If-Match (IF_MATCH_OPERATIONS,
 *   src/core/versioning.ts), and only when it can save the resource the request's If-Match guards.
 * - `delivery`: matches the destination URL (the same glob), the event type and the company; the transport
 *   (src/network/transport.ts) gives the effects their meaning.
 * - `job`: matches the kind of background job (JOB_KINDS) and the company; src/engine/jobs.ts applies them.
 *
 * A fault that could never fire is refused when it is added, and every refusal is one sentence naming the
 * field and what it accepts, in process and over HTTP alike: a test that means to inject a fault must never
 * pass because the fault silently did nothing. One that could fire and has not says why (nearMisses,
 * src/engine/near-misses.ts): the requests since it was armed are the journal's; the deliveries and job runs are
 * noted here, only while a fault of their target is armed, so the API's request path does nothing more for it.
 */
import * as z from 'zod';
import { concurrentEditImpossible } from '../core/concurrent-edit.js';
import { JOB_KINDS } from '../core/jobs.js';
import { createRandom, seedRandom, type RandomSource } from '../core/random.js';
import { DAY } from '../core/time.js';
import { IF_MATCH_OPERATIONS, type IfMatchOperation } from '../core/versioning.js';
import { EVENT_KINDS } from '../core/webhooks/events.js';
import type { DeliveryFaults } from '../network/transport.js';
import type { ActivityFeed, FiredFault } from './activity.js';
import { Glob, MAX_GLOB } from './glob.js';
import { pathMatches, type Journal } from './journal.js';
import { keptPath } from '../core/kept-text.js';
import {
  apiNearMisses,
  occurrenceNearMisses,
  type DeliverySeen,
  type JobSeen,
  type NearMisses,
  type Occurrence,
} from './near-misses.js';

/** The background jobs a `job` fault can act on (docs/faults.md). */
// The kinds are the core job registry's: a job fault can name exactly the jobs that exist.
export { JOB_KINDS, type JobKind } from '../core/jobs.js';

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;
/** The longest trickle: real time a test waits, and a server's close() cuts it anyway. */
const MAX_TRICKLE_MS = 60_000;
/** Faults armed at once; a spent fault (its `times` reached 0) leaves the list, so it no longer counts. */
export const MAX_FAULTS = 1000;
/** The most matching occurrences a fault may let pass before it fires. */
export const MAX_SKIP = 1_000_000;

/**
 * The api effects, each named by its one required field, with the moment the pipeline takes it — on `arrival`
 * (before anything is checked; it then acts at arrival or later, src/http/fault-hooks.ts) or at `evaluation`
 * (just before the core runs, where it acts) — and how a refusal names what it accepts (their schemas:
 * faultSchemas). A fault is counted, and journaled, when it is taken.
 */
const API_EFFECTS = {
  /** The request is answered this status (and Retry-After) before anything is checked. */
  status: { moment: 'arrival', accepts: '{"status": 400–599, "retryAfter"?: 0–86400}' },
  /** The request is processed, then its answer is lost: 503. */
  loseResponse: { moment: 'arrival', accepts: '{"loseResponse": true}' },
  /** Another client saves the resource the request's If-Match guards, just before the request is evaluated. */
  concurrentEdit: { moment: 'evaluation', accepts: '{"concurrentEdit": true}' },
  /** The request is held this long (virtual time) before it is validated. */
  delayMs: { moment: 'arrival', accepts: '{"delayMs": 0–86400000}' },
  /** The request is processed; its answer's body, whatever the answer, is not valid JSON (status and type unchanged). */
  malformedJson: { moment: 'arrival', accepts: '{"malformedJson": true}' },
  /** The request is processed; its connection is reset before any of its answer is sent. */
  reset: { moment: 'arrival', accepts: '{"reset": true}', damagesConnection: true },
  /** The request is processed; its answer's headers and half its body are sent, then the connection closes. */
  truncate: { moment: 'arrival', accepts: '{"truncate": true}', damagesConnection: true },
  /** The request is processed; its answer's body is sent a piece at a time over this long (real time). */
  trickleMs: { moment: 'arrival', accepts: `{"trickleMs": 1–${MAX_TRICKLE_MS}}`, damagesConnection: true },
} as const;

/** Whether the api effect `name` is carried out by whoever sends the answer (the socket, or emu.fetch): see damagesAnswers. */
const damagesConnection = (name: ApiEffectName): boolean => 'damagesConnection' in API_EFFECTS[name];

/** The unit of an effect's duration field, which its description gives (faultEffects): a client names its value so. */
const UNITS = new WeakMap<z.ZodType, DurationUnit>();
type DurationUnit = 'ms' | 's';
function inUnit<S extends z.ZodNumber>(unit: DurationUnit, schema: S): S {
  UNITS.set(schema, unit);
  return schema;
}

/**
 * The schema of a fault, built on its first use (a fault added, the controls' document): built when the module
 * loaded, it was 5 ms of the CLI's start before its first answer (about 200 ms), for a control few runs call.
 */
function faultSchemas() {
  const apiEffects = {
    // Retry-After counts seconds (RFC 9110).
    status: z.strictObject({
      status: z.number().int().min(400).max(599),
      retryAfter: inUnit('s', z.number().int().min(0).max(86_400)).optional(),
    }),
    loseResponse: z.strictObject({ loseResponse: z.literal(true) }),
    concurrentEdit: z.strictObject({ concurrentEdit: z.literal(true) }),
    delayMs: z.strictObject({ delayMs: inUnit('ms', z.number().int().min(0).max(DAY)) }),
    malformedJson: z.strictObject({ malformedJson: z.literal(true) }),
    reset: z.strictObject({ reset: z.literal(true) }),
    truncate: z.strictObject({ truncate: z.literal(true) }),
    trickleMs: z.strictObject({ trickleMs: inUnit('ms', z.number().int().min(1).max(MAX_TRICKLE_MS)) }),
  } satisfies Record<keyof typeof API_EFFECTS, z.ZodType>;

  const apiEffect = z.union(Object.values(apiEffects));

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
    z.strictObject({ latencyMs: inUnit('ms', z.number().int().min(0).max(DAY)) }),
    /** The receiver gets the request twice (the attempt's outcome is the first answer). */
    z.strictObject({ duplicate: z.literal(true) }),
    /** The receiver gets a request whose signature, body or timestamp (validly signed, 10 minutes old) was tampered with. */
    z.strictObject({ tamper: z.enum(['signature', 'body', 'timestamp']) }),
  ]);

  const jobEffect = z.union([
    /** The job's run fails (an analysis fails; a cleanup run is skipped until the next one). */
    z.strictObject({ fail: z.literal(true) }),
    /** The job's run is postponed by this long (virtual time). */
    z.strictObject({
      delayMs: inUnit(
        'ms',
        z
          .number()
          .int()
          .min(0)
          .max(30 * DAY),
      ),
    }),
  ]);

  const companyId = z.string().min(1).max(64);
  const glob = z.string().min(1).max(MAX_GLOB);
  const times = z.number().int().min(1).nullable().default(1);
  const skip = z.number().int().min(0).max(MAX_SKIP).default(0).meta({
    description:
      'The matching occurrences the fault lets pass before it may fire (absent: 0): skip 2 fires on the third. Every matching occurrence counts, whichever fault fires on it, so a fault is bound to a position in the run.',
  });
  // 0 is refused: a fault that could never fire.
  const probability = z.number().gt(0).max(1).optional().meta({
    description:
      "The chance that each matching occurrence fires (absent: 1, every one), drawn from the emulator's seed: the same seed and calls fire the same occurrences. times counts firings.",
  });
  const method = z
    .string()
    .transform((m) => m.toUpperCase())
    .pipe(z.enum(METHODS));

  const faults = {
    api: z.strictObject({
      target: z.literal('api'),
      match: z
        .strictObject({
          method: method.optional(),
          path: glob.startsWith('/').optional(),
          companyId: companyId.optional(),
        })
        .default({}),
      effect: apiEffect,
      times,
      skip,
      probability,
    }),
    delivery: z.strictObject({
      target: z.literal('delivery'),
      match: z
        .strictObject({
          url: glob.optional(),
          eventType: z.enum(EVENT_KINDS).optional(),
          companyId: companyId.optional(),
        })
        .default({}),
      effect: deliveryEffect,
      times,
      skip,
      probability,
    }),
    job: z.strictObject({
      target: z.literal('job'),
      match: z.strictObject({ kind: z.enum(JOB_KINDS).optional(), companyId: companyId.optional() }).default({}),
      effect: jobEffect,
      times,
      skip,
      probability,
    }),
  };

  const input = z.discriminatedUnion('target', [faults.api, faults.delivery, faults.job]);
  const viewFields = {
    id: z.string(),
    times: z.number().int().min(0).nullable(),
    hits: z.number().int().min(0),
    skip: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'The matching occurrences it still lets pass before it may fire.' }),
  };
  const view = z.discriminatedUnion('target', [
    faults.api.extend(viewFields),
    faults.delivery.extend(viewFields),
    faults.job.extend(viewFields),
  ]);
  return { apiEffects, apiEffect, deliveryEffect, jobEffect, faults, input, view };
}

type FaultSchemas = ReturnType<typeof faultSchemas>;
let schemas: FaultSchemas | undefined;
const schemasOf = (): FaultSchemas => (schemas ??= faultSchemas());

/** A fault as POST /_emulator/faults takes it (the controls' document shows it; add() parses each target's schema). */
export const faultInputSchema = (): FaultSchemas['input'] => schemasOf().input;
/** A fault as the controls answer it: the fault parsed, its id, the firings left (null: until removed) and its hits. */
export const faultViewSchema = (): FaultSchemas['view'] => schemasOf().view;

type Target = keyof FaultSchemas['faults'];
const TARGETS: readonly Target[] = ['api', 'delivery', 'job'];

/** How a field of an effect takes its value, as faultEffects describes it. */
export type FaultEffectValue =
  /** `true`: naming the effect is all it takes. */
  | { readonly kind: 'true' }
  /** A whole number from `min` to `max`; `unit` for a duration. */
  | { readonly kind: 'integer'; readonly min: number; readonly max: number; readonly unit: DurationUnit | null }
  /** One of `choices`. */
  | { readonly kind: 'choice'; readonly choices: readonly string[] }
  /** An absolute URL, or `true` too when `orTrue`. */
  | { readonly kind: 'url'; readonly orTrue: boolean };

/** A field of an effect and the value it takes. */
export interface FaultEffectField {
  readonly field: string;
  readonly value: FaultEffectValue;
}

/** One effect of a target: the field that names it, its value, and the optional fields it also takes (`retryAfter`). */
export interface FaultEffect extends FaultEffectField {
  readonly target: Target;
  readonly options: readonly FaultEffectField[];
}

let effects: readonly FaultEffect[] | undefined;

/**
 * Every effect of every target (api, delivery, job, each in the schema's order), read from the fault schema itself:
 * what a client that builds a fault from words needs (the CLI's `fault add` makes a flag of each), so that an
 * effect added to the schema reaches it with no list of its own to keep equal.
 */
export function faultEffects(): readonly FaultEffect[] {
  if (effects !== undefined) return effects;
  const { apiEffect, deliveryEffect, jobEffect } = schemasOf();
  const unions = { api: apiEffect, delivery: deliveryEffect, job: jobEffect } satisfies Record<Target, z.ZodUnion>;
  return (effects = TARGETS.flatMap((target) =>
    unions[target].options.map((option) => {
      // Each effect is a strict object with one required field, its name, and optional fields beside it.
      const fields = Object.entries((option as z.ZodObject).shape);
      const named = fields.filter(([, schema]) => !(schema instanceof z.ZodOptional));
      if (named.length !== 1) {
        const got = named.map(([f]) => f).join(', ');
        throw new Error(`an effect of a ${target} fault must have one required field (got ${got})`);
      }
      const [field, schema] = named[0]!;
      const options = fields.flatMap(([name, value]) =>
        value instanceof z.ZodOptional ? [{ field: name, value: valueOf(value.unwrap() as z.ZodType, name) }] : [],
      );
      return { target, field, value: valueOf(schema as z.ZodType, field), options };
    }),
  ));
}

/** The value `schema` takes; an error for one of a shape no kind of FaultEffectValue describes. */
function valueOf(schema: z.ZodType, field: string): FaultEffectValue {
  const isTrue = (s: unknown) => s instanceof z.ZodLiteral && s.values.size === 1 && s.values.has(true);
  const isUrl = (s: unknown) => s instanceof z.ZodString && s.format === 'url';
  if (isTrue(schema)) return { kind: 'true' };
  if (schema instanceof z.ZodNumber && schema.isInt && schema.minValue !== null && schema.maxValue !== null) {
    return { kind: 'integer', min: schema.minValue, max: schema.maxValue, unit: UNITS.get(schema) ?? null };
  }
  if (schema instanceof z.ZodEnum) return { kind: 'choice', choices: schema.options.map(String) };
  if (isUrl(schema)) return { kind: 'url', orTrue: false };
  const [first, second, ...more] = schema instanceof z.ZodUnion ? schema.options : [];
  if (more.length === 0 && isTrue(first) && isUrl(second)) return { kind: 'url', orTrue: true };
  throw new Error(`the effect field ${field} takes a value faultEffects cannot describe: describe its kind there`);
}

const MATCH_FIELDS: Record<Target, string> = {
  api: 'method, path, companyId',
  delivery: 'url, eventType, companyId',
  job: 'kind, companyId',
};

/** What each field accepts, as the refusal says it. */
const ACCEPTS = {
  fault: 'a fault is a JSON object {"target", "match"?, "effect", "times"?, "skip"?, "probability"?}',
  target: 'target must be "api", "delivery" or "job"',
  times: 'times must be a positive integer, or null to keep the fault until it is removed',
  skip: `skip must be a whole number from 0 to ${MAX_SKIP}, the matching occurrences the fault lets pass before it may fire`,
  probability:
    'probability must be a number above 0 and at most 1, the chance that each matching occurrence fires (0 could never fire)',
  companyId: 'match.companyId must be a company id (1 to 64 characters)',
  api: {
    article: 'an api fault',
    effect: `effect of an api fault must be one of ${oneOf(Object.values(API_EFFECTS).map((e) => e.accepts))}`,
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
  constructor(
    message: string,
    readonly caminho: string,
  ) {
    super(message);
    this.name = 'FaultInputError';
  }
}

export type FaultInput = z.input<FaultSchemas['faults'][Target]>;
type ParsedFault = z.output<FaultSchemas['faults'][Target]>;

/** A fault as GET /_emulator/faults shows it. */
export type FaultView = ParsedFault & {
  readonly id: string;
  /** Firings left; null = until removed. */
  readonly times: number | null;
  readonly hits: number;
};

/** The name of an api effect: its one required field (`status`, `loseResponse`, …). */
export type ApiEffectName = keyof typeof API_EFFECTS;
/** The api effect named `K`, as parsed. */
export type ApiFaultEffectOf<K extends ApiEffectName> = z.output<FaultSchemas['apiEffects'][K]>;
type ApiFaultEffect = z.output<FaultSchemas['apiEffect']>;
export type DeliveryFaultEffect = z.output<FaultSchemas['deliveryEffect']>;
export type JobFaultEffect = z.output<FaultSchemas['jobEffect']>;
/** The name of a job effect: its one field (`fail`, `delayMs`). */
type JobEffectName = JobFaultEffect extends infer E ? (E extends unknown ? keyof E : never) : never;
/** When the pipeline takes an api effect: on `arrival`, or at `evaluation` (just before the core runs). */
export type FaultMoment = (typeof API_EFFECTS)[ApiEffectName]['moment'];
/** The moment the pipeline takes the effect named `K`. */
export type ApiEffectMoment<K extends ApiEffectName> = (typeof API_EFFECTS)[K]['moment'];

/** An api fault as it fires: its id and effect, as GET /_emulator/faults shows them. */
export type ApiFault = Pick<Extract<FaultView, { target: 'api' }>, 'id' | 'effect'>;

type MatchOf<T extends Target> = z.output<FaultSchemas['faults'][T]>['match'];
/** A request as a fault's match sees it: a value for every field a match can name; `Missing` where it may have none. */
type Seen<M, Missing extends { [K in keyof M]?: unknown } = {}> = {
  readonly [K in keyof Required<M>]: Required<M>[K] | (K extends keyof Missing ? Missing[K] : never);
};

/** A request to the API as api faults see it (no company before a credential is recognized). */
export type ApiFaultMatch = Seen<MatchOf<'api'>, { companyId: undefined }>;
/** A webhook delivery as delivery faults see it. */
export type DeliveryFaultMatch = Seen<MatchOf<'delivery'>>;
/** A run of a background job as job faults see it (no company for a job of the whole emulator). */
export type JobFaultMatch = Seen<MatchOf<'job'>, { companyId: null }> & {
  /** Only faults with this effect (a job that can be postponed at its start and fail at its end asks for each there). */
  readonly effect?: JobEffectName;
};

interface Fault {
  readonly id: string;
  readonly spec: ParsedFault;
  readonly pattern: Glob | undefined;
  /** 1 when the fault gave none: it fires at every match, drawing nothing. */
  readonly probability: number;
  /** An api fault whose effect the sender of the answer carries out (see damagesAnswers). */
  readonly damages: boolean;
  /** When an api fault's effect is taken (API_EFFECTS), read once: every request asks it of every armed fault. */
  readonly moment: FaultMoment | undefined;
  /** Where it was armed: the journal's mark and the registry's count of occurrences then (its near-misses come after). */
  readonly armed: { readonly request: number; readonly occurrence: number };
  times: number | null;
  /** The matching occurrences it still lets pass before it may fire. */
  skip: number;
  hits: number;
  /** Matching occurrences its draw passed over (a fault with a probability below 1). */
  passedOver: number;
}

/** The deliveries and job runs kept for near-misses, of each target: the most recent this many. */
const OCCURRENCES_KEPT = 1000;

export class FaultRegistry implements DeliveryFaults {
  private readonly faults: Fault[] = [];
  private counter = 0;
  /** How many of the faults armed damage the answer on its way (see damagesAnswers). */
  private damaging = 0;
  /** How many of the faults armed still let occurrences pass (skip above 0): only then does an occurrence a fault fired on go on to the others. */
  private skipping = 0;
  /** The draws of probabilistic faults: seeded by the emulator's seed, apart from the sources of the service's ids. */
  private random: RandomSource;
  /**
   * The deliveries and job runs checked while a fault of their target was armed, for near-misses (api faults read
   * the journal instead): noted only then, so that an emulator without such a fault keeps nothing.
   */
  private occurrences: { delivery: Occurrence[]; job: Occurrence[] } = { delivery: [], job: [] };
  private occurrenceCount = 0;

  /**
   * `seed`: the emulator's, from which the registry's own random stream (the `probability` draws) is made. `feed`: its
   * fact observer is told of each fault that fires (the grading of the client tallies the faults used).
   */
  constructor(
    private readonly seed: number | string = 1,
    private readonly feed?: Pick<ActivityFeed, 'observer'>,
    /** The request journal: an api fault's near-misses are the requests recorded since it was armed. */
    private readonly journal?: Pick<Journal, 'mark' | 'recordsSince'>,
  ) {
    this.random = FaultRegistry.source(seed);
  }

  private static source(seed: number | string): RandomSource {
    return createRandom(seedRandom(`${typeof seed}:${String(seed)}:faults`));
  }

  private fired(fault: FiredFault): void {
    this.feed?.observer?.faultFired(fault);
  }

  /** Throws a FaultInputError, registering nothing, when `input` is not a fault or could never fire. */
  add(input: unknown): { id: string } {
    const spec = parseFault(input);
    // Every API request is checked against every fault: a bound keeps that check a small part of any answer.
    if (this.faults.length >= MAX_FAULTS) {
      throw new FaultInputError(
        `At most ${MAX_FAULTS} faults can be armed at once; remove some (DELETE /_emulator/faults/{id}, or DELETE /_emulator/faults for all) before adding more.`,
        '',
      );
    }
    const id = `flt_${++this.counter}`;
    const pattern = spec.target === 'api' ? spec.match.path : spec.target === 'delivery' ? spec.match.url : undefined;
    const effect = spec.target === 'api' ? apiEffectName(spec.effect) : undefined;
    const damages = effect !== undefined && damagesConnection(effect);
    const moment = effect === undefined ? undefined : API_EFFECTS[effect].moment;
    if (damages) this.damaging++;
    if (spec.skip > 0) this.skipping++;
    const armed = { request: this.journal?.mark ?? 0, occurrence: this.occurrenceCount };
    const glob = pattern === undefined ? undefined : new Glob(pattern);
    const probability = spec.probability ?? 1;
    this.faults.push({
      id,
      spec,
      pattern: glob,
      probability,
      damages,
      moment,
      armed,
      times: spec.times,
      skip: spec.skip,
      hits: 0,
      passedOver: 0,
    });
    return { id };
  }

  list(): FaultView[] {
    return this.faults.map(({ id, spec, times, skip, hits }) => ({ ...spec, id, times, skip, hits }));
  }

  remove(id: string): boolean {
    const index = this.faults.findIndex((f) => f.id === id);
    if (index < 0) return false;
    this.drop(index);
    return true;
  }

  clear(): void {
    this.faults.length = 0;
    this.damaging = 0;
    this.skipping = 0;
    this.occurrences = { delivery: [], job: [] };
  }

  /**
   * Why the armed fault `id` has not fired (or not as often as asked): see NearMisses. With `companyId`, only that
   * company's occurrences are looked at (a company's own view on a shared server). Undefined for no fault armed.
   */
  nearMisses(id: string, companyId?: string): NearMisses | undefined {
    const fault = this.faults.find((f) => f.id === id);
    if (fault === undefined) return undefined;
    const ofCompany = <O extends { readonly companyId?: string | null | undefined }>(o: O) =>
      companyId === undefined || o.companyId === companyId;
    const armed = {
      view: { ...fault.spec, id, times: fault.times, skip: fault.skip, hits: fault.hits },
      pattern: fault.pattern,
      probability: fault.probability,
      skipped: fault.spec.skip - fault.skip,
    };
    if (fault.spec.target === 'api') {
      const records = this.journal?.recordsSince(fault.armed.request) ?? [];
      return apiNearMisses(armed, companyId === undefined ? records : records.filter(ofCompany), fault.passedOver);
    }
    const since = this.occurrences[fault.spec.target]
      .slice(-OCCURRENCES_KEPT)
      .filter((o) => o.seq >= fault.armed.occurrence && ofCompany(o.match));
    return occurrenceNearMisses(armed, since, fault.passedOver);
  }

  /** Drops what is kept of a company's deliveries and job runs (its reset or removal). */
  forget(companyId: string): void {
    for (const target of ['delivery', 'job'] as const)
      this.occurrences[target] = this.occurrences[target].filter((o) => o.match.companyId !== companyId);
  }

  private drop(index: number): void {
    const fault = this.faults[index]!;
    if (fault.damages) this.damaging--;
    if (fault.skip > 0) this.skipping--;
    this.faults.splice(index, 1);
  }

  /** No fault, and the draws of probabilistic faults from their start again (the emulator's reset). */
  reset(): void {
    this.clear();
    this.random = FaultRegistry.source(this.seed);
  }

  /**
   * The first api fault matching the request whose effect is taken at this moment (API_EFFECTS). With `fire`
   * (at `evaluation`: the concurrent save), it counts as fired only if `fire` says it could act — otherwise it
   * stays armed for a later request.
   */
  takeApi(request: ApiFaultMatch, moment: FaultMoment, fire?: (fault: ApiFault) => boolean): ApiFault | undefined {
    // Every API request asks, twice for an If-Match: with none armed, before anything is allocated.
    if (this.faults.length === 0) return undefined;
    const taken = (f: Fault): ApiFault | undefined =>
      f.spec.target === 'api' ? { id: f.id, effect: f.spec.effect } : undefined;
    // The path as the journal keeps it (docs/journal.md): what a glob costs is bounded by MAX_PATH, whatever the
    // client sent, and a fault fires on a request exactly where a journal filter of its glob keeps it.
    const path = keptPath(request.path);
    const fault = this.take(
      (f) => f.moment === moment && f.spec.target === 'api' && matchesApi(f, f.spec.match, request, path),
      fire && ((f) => fire(taken(f)!)),
    );
    if (fault === undefined || fault.spec.target !== 'api') return undefined;
    this.fired({ target: 'api', effect: apiEffectName(fault.spec.effect), companyId: request.companyId ?? null });
    return taken(fault);
  }

  /**
   * Whether an api fault whose effect the sender of the answer carries out (reset, truncate, trickleMs) is armed:
   * asked before each request, so that the request path looks at its answer only then. Such a fault is taken on
   * arrival, within the call that hands the request to the API, so a fault armed after the question never acts on
   * that request.
   */
  get damagesAnswers(): boolean {
    return this.damaging > 0;
  }

  /** `seen`: the delivery's event and attempt, which its near-misses show. */
  takeDelivery(
    request: DeliveryFaultMatch,
    seen?: DeliverySeen,
  ): { id: string; effect: DeliveryFaultEffect } | undefined {
    const passed = this.watches('delivery') ? [] : undefined;
    const fault = this.take(
      (f) => {
        if (f.spec.target !== 'delivery') return false;
        const { eventType, companyId } = f.spec.match;
        return (
          (eventType === undefined || eventType === request.eventType) &&
          (companyId === undefined || companyId === request.companyId) &&
          (!f.pattern || f.pattern.matches(request.url))
        );
      },
      undefined,
      passed,
    );
    // The two fields, not the delivery handed in (its body and secret are not kept).
    if (passed)
      this.note({
        target: 'delivery',
        match: request,
        seen: seen && { eventId: seen.eventId, tentativa: seen.tentativa },
        seq: this.occurrenceCount,
        taken: fault?.id ?? null,
        passed,
      });
    if (fault === undefined || fault.spec.target !== 'delivery') return undefined;
    this.fired({ target: 'delivery', effect: effectName(fault.spec.effect), companyId: request.companyId });
    return { id: fault.id, effect: fault.spec.effect };
  }

  /** `seen`: when the run is and the record it works on, which its near-misses show. */
  takeJob(request: JobFaultMatch, seen?: JobSeen): { id: string; effect: JobFaultEffect } | undefined {
    const passed = this.watches('job') ? [] : undefined;
    const fault = this.take((f) => matchesJob(f, request), undefined, passed);
    if (passed)
      this.note({ target: 'job', match: request, seen, seq: this.occurrenceCount, taken: fault?.id ?? null, passed });
    if (fault === undefined || fault.spec.target !== 'job') return undefined;
    this.fired({ target: 'job', effect: effectName(fault.spec.effect), companyId: request.companyId });
    return { id: fault.id, effect: fault.spec.effect };
  }

  /**
   * Whether a job fault matching `request` is armed, without firing it: a job whose runs a fault counts must
   * run each time (the clock coalesces a periodic job's runs only while this answers false).
   */
  armsJob(request: JobFaultMatch): boolean {
    return this.faults.some((f) => matchesJob(f, request));
  }

  /** Whether a fault of `target` is armed: its occurrences are then noted for near-misses. */
  private watches(target: 'delivery' | 'job'): boolean {
    return this.faults.length > 0 && this.faults.some((f) => f.spec.target === target);
  }

  private note(occurrence: Occurrence): void {
    this.occurrenceCount++;
    const kept = this.occurrences[occurrence.target];
    kept.push(occurrence);
    if (kept.length > OCCURRENCES_KEPT * 1.5) this.occurrences[occurrence.target] = kept.slice(-OCCURRENCES_KEPT);
  }

  /**
   * The first fault that matches and fires: a fault that still lets occurrences pass (skip) counts this one down
   * and leaves it to the next; a probabilistic one draws, and one the draw passes over leaves the occurrence to the
   * next matching fault (its count of passes grows, and `passed` gets its id). With `fire`, a fault that could not
   * act does not fire (and no later one is tried). Every fault still skipping counts every occurrence it matches,
   * whichever fault fires on it: a fault's skip is a position in the run, whatever else is armed.
   */
  private take(
    test: (fault: Fault) => boolean,
    fire?: (fault: Fault) => boolean,
    passed?: string[],
  ): Fault | undefined {
    const { faults } = this;
    let taken: Fault | undefined;
    let takenAt = -1;
    let settled = false;
    for (let index = 0; index < faults.length; index++) {
      const fault = faults[index]!;
      // Once settled, only the faults still skipping are looked at, and only while some are.
      if (settled && this.skipping === 0) break;
      if (settled && fault.skip === 0) continue;
      if (!test(fault)) continue;
      if (fault.skip > 0) {
        if (--fault.skip === 0) this.skipping--;
        continue;
      }
      // next() is a uniform uint32: below p · 2^32 with probability p.
      if (fault.probability < 1 && this.random.next() >= fault.probability * 0x1_0000_0000) {
        fault.passedOver++;
        passed?.push(fault.id);
        continue;
      }
      settled = true;
      if (fire && !fire(fault)) continue;
      taken = fault;
      takenAt = index;
    }
    if (taken === undefined) return undefined;
    taken.hits++;
    if (taken.times !== null && --taken.times === 0) this.drop(takenAt);
    return taken;
  }
}

/** The name of an api effect: the one of API_EFFECTS whose field it has. */
function apiEffectName(effect: ApiFaultEffect): ApiEffectName {
  return (Object.keys(API_EFFECTS) as ApiEffectName[]).find((name) => name in effect)!;
}

/** The name of a delivery or job effect: its one field (`tamper`, `fail`, …). */
const effectName = (effect: DeliveryFaultEffect | JobFaultEffect): string => Object.keys(effect)[0]!;

function matchesJob(fault: Fault, request: JobFaultMatch): boolean {
  if (fault.spec.target !== 'job') return false;
  const { kind, companyId } = fault.spec.match;
  return (
    (kind === undefined || kind === request.kind) &&
    (companyId === undefined || companyId === request.companyId) &&
    (request.effect === undefined || request.effect in fault.spec.effect)
  );
}

/** `path`: the request's, kept (keptPath). */
function matchesApi(
  fault: Fault,
  match: { method?: string; companyId?: string },
  request: ApiFaultMatch,
  path: string,
): boolean {
  if (match.method !== undefined && match.method !== request.method) return false;
  if (match.companyId !== undefined && match.companyId !== request.companyId) return false;
  return !fault.pattern || pathMatches(fault.pattern, path);
}

/** `input` as a fault, or a FaultInputError saying, in one sentence, which field is wrong and what it accepts. */
function parseFault(input: unknown): ParsedFault {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new FaultInputError(`${ACCEPTS.fault}; got ${shown(input)}.`, '');
  const record = input as Record<string, unknown>;
  const unknownField = Object.keys(record).find(
    (k) => !['target', 'match', 'effect', 'times', 'skip', 'probability'].includes(k),
  );
  if (unknownField !== undefined)
    throw new FaultInputError(
      `"${unknownField}" is not a field of a fault (fields: target, match, effect, times, skip, probability).`,
      unknownField,
    );
  const target = record.target;
  if (typeof target !== 'string' || !(TARGETS as string[]).includes(target))
    throw new FaultInputError(`${ACCEPTS.target}; ${got(record, ['target'])}.`, 'target');
  const parsed = schemasOf().faults[target as Target].safeParse(input);
  if (!parsed.success) throw describe(target as Target, record, parsed.error.issues[0]!);
  if (parsed.data.target === 'api' && apiEffectName(parsed.data.effect) === 'concurrentEdit')
    checkConcurrentEditCanFire(parsed.data.match);
  return parsed.data;
}

function describe(target: Target, input: Record<string, unknown>, issue: z.core.$ZodIssue): FaultInputError {
  const [field, sub] = issue.path as (string | number)[];
  if (field === 'match' && issue.code === 'unrecognized_keys') {
    return new FaultInputError(
      `match.${issue.keys[0]} is not a field of ${ACCEPTS[target].article}'s match (fields: ${MATCH_FIELDS[target]}).`,
      `match.${issue.keys[0]}`,
    );
  }
  if (field === 'match' && sub === undefined)
    return new FaultInputError(`match must be a JSON object; ${got(input, ['match'])}.`, 'match');
  if (field === 'match') {
    const accepts = sub === 'companyId' ? ACCEPTS.companyId : (ACCEPTS[target] as Record<string, string>)[String(sub)];
    return new FaultInputError(
      `${accepts ?? `match.${String(sub)} is not valid`}; ${got(input, ['match', String(sub)])}.`,
      `match.${String(sub)}`,
    );
  }
  if (field === 'effect') return new FaultInputError(`${ACCEPTS[target].effect}; ${got(input, ['effect'])}.`, 'effect');
  if (field === 'times') return new FaultInputError(`${ACCEPTS.times}; ${got(input, ['times'])}.`, 'times');
  if (field === 'skip') return new FaultInputError(`${ACCEPTS.skip}; ${got(input, ['skip'])}.`, 'skip');
  if (field === 'probability')
    return new FaultInputError(`${ACCEPTS.probability}; ${got(input, ['probability'])}.`, 'probability');
  return new FaultInputError(`${ACCEPTS.fault}; ${issue.message}.`, String(field ?? ''));
}

/**
 * A `concurrentEdit` fires only on an operation that takes If-Match and whose guarded resource another client
 * can save: refuse one whose match reaches no such operation.
 */
function checkConcurrentEditCanFire(match: { method?: string; path?: string }): void {
  const pattern = match.path === undefined ? undefined : new Glob(match.path);
  const reached = IF_MATCH_OPERATIONS.filter(
    (o) => (match.method === undefined || o.method === match.method) && (!pattern || pattern.overlapsTemplate(o.path)),
  );
  if (reached.some((o) => concurrentEditImpossible(o) === undefined)) return;
  const what = [match.method, match.path].filter(Boolean).join(' ') || 'any request';
  if (reached.length > 0) {
    const operation = reached[0]!;
    throw new FaultInputError(
      `effect concurrentEdit can never fire on ${describeOperation(operation)}: ${concurrentEditImpossible(operation)}.`,
      'effect',
    );
  }
  throw new FaultInputError(
    `effect concurrentEdit can never fire on ${what}: it needs an operation that takes If-Match, and the match reaches none (they are ${IF_MATCH_OPERATIONS.filter(
      (o) => concurrentEditImpossible(o) === undefined,
    )
      .map(describeOperation)
      .join(', ')}).`,
    'match',
  );
}

const describeOperation = (o: IfMatchOperation) => `${o.method} ${o.path}`;

/** "a, b or c". */
function oneOf(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/** "got <value>" for the value at `path` of `input`, or "it is missing". */
function got(input: Record<string, unknown>, path: string[]): string {
  let value: unknown = input;
  for (const key of path)
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return value === undefined ? 'it is missing' : `got ${shown(value)}`;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
