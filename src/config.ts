/**
 * The emulator's configuration in one place: createEmulator()'s options, checked once and frozen into a Config
 * that the engine, the HTTP shell and (through Context.config) the core read. Each bad option throws here,
 * naming it, before anything is built.
 */
import { EARLIEST_INSTANT, LATEST_INSTANT, withinClockBounds, type ClockMode } from './clock/clock.js';
import { controlSettings, type ControlSettings } from './control/guard.js';
import { DEFAULT_MAX_STORED_ANSWERS_PER_COMPANY } from './core/idempotency.js';
import type { CoreConfig } from './core/state.js';
import { isoString, parseDuration } from './core/time.js';
import { DEFAULT_DELIVERY_POLICY, type DeliveryPolicy } from './core/webhooks/events.js';
import type { ListBudgets, PageBudgets } from './http/runtime.js';
import { DEFAULT_HANDLER_GRACE_MS } from './network/transport.js';
import type { EmulatorOptions } from './emulator.js';

/** The instant a manual clock starts at unless told otherwise: fixed, so runs are reproducible. */
export const DEFAULT_START = Date.UTC(2026, 0, 1);
export const DEFAULT_SEED = 1;

/** The byte budgets EmulatorOptions.pageBudgets may change (DESIGN §4 "Lists"). */
export const DEFAULT_PAGE_BUDGETS: PageBudgets = { catalogs: 256 * 1024, establishments: 256 * 1024, products: 256 * 1024 };

/** The byte budgets of the lists no option reaches (DESIGN §4 "Lists"; the event list's 1 MiB is the spec's). */
const FIXED_BUDGETS = { executions: 256 * 1024, analyses: 256 * 1024, ingestionErrors: 256 * 1024, events: 1024 * 1024, findings: 512 * 1024 };

export interface Config {
  readonly seed: number | string;
  readonly mode: ClockMode;
  /** The virtual start instant (in real mode, the wall clock when the options were read, unless given). */
  readonly start: number;
  /** What the core reads: the webhook delivery policy. */
  readonly core: CoreConfig;
  readonly pageBudgets: ListBudgets;
  /** How many answers a company's idempotency store keeps before its oldest is dropped. */
  readonly maxStoredAnswersPerCompany: number;
  /** Real milliseconds an in-process receiver may take before it counts as a peer that never answers. */
  readonly handlerGraceMs: number;
  /** The control token and the snapshot body limit. */
  readonly control: ControlSettings;
}

/** createEmulator()'s options as a checked, frozen Config; throws a TypeError or RangeError naming a bad option. */
export function readConfig(options: EmulatorOptions): Config {
  const seed = options.seed ?? DEFAULT_SEED;
  const mode = options.clock ?? 'manual';
  if (mode !== 'manual' && mode !== 'real') throw new TypeError(`clock must be "manual" or "real", got ${String(mode)}`);
  const start = options.start === undefined ? (mode === 'manual' ? DEFAULT_START : Date.now()) : toInstant(options.start, 'start');
  if (!withinClockBounds(start)) {
    throw new RangeError(`start must be an instant from ${isoString(EARLIEST_INSTANT)} to ${isoString(LATEST_INSTANT)}, in whole milliseconds; got ${String(options.start)}`);
  }
  const pageBudgets = { ...DEFAULT_PAGE_BUDGETS, ...options.pageBudgets, ...FIXED_BUDGETS };
  const maxStoredAnswersPerCompany = options.idempotency?.maxStoredAnswersPerCompany ?? DEFAULT_MAX_STORED_ANSWERS_PER_COMPANY;
  if (!(Number.isSafeInteger(maxStoredAnswersPerCompany) && maxStoredAnswersPerCompany >= 1)) {
    throw new RangeError(`idempotency.maxStoredAnswersPerCompany must be a whole number, 1 or more; got ${maxStoredAnswersPerCompany}`);
  }
  const delivery = deliveryPolicy(options.webhooks);
  const handlerGraceMs = options.webhooks?.handlerGraceMs ?? DEFAULT_HANDLER_GRACE_MS;
  if (!(Number.isFinite(handlerGraceMs) && handlerGraceMs >= 0)) throw new RangeError(`webhooks.handlerGraceMs must be a non-negative number of milliseconds; got ${handlerGraceMs}`);
  const control = controlSettings(options);
  return deepFreeze({ seed, mode, start, core: { delivery }, pageBudgets, maxStoredAnswersPerCompany, handlerGraceMs, control });
}

/** An instant given as an ISO 8601 date-time, a Date or Unix milliseconds; `refusal` builds the error of a bad one. */
export function toInstant(value: string | number | Date, what: string, refusal: (message: string) => Error = (message) => new RangeError(message)): number {
  const instant = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(instant)) throw refusal(`${what} must be an ISO 8601 date-time, a Date or Unix milliseconds; got ${String(value)}`);
  return instant;
}

function deliveryPolicy(options: EmulatorOptions['webhooks']): DeliveryPolicy {
  const duration = (value: number | string, what: string) => {
    const ms = parseDuration(value);
    if (ms === undefined) throw new RangeError(`${what} must be milliseconds or a duration such as "5s", "30m", "2h"; got ${JSON.stringify(value)}`);
    return ms;
  };
  const retryWaitsMs = options?.retryWaits?.map((w, i) => duration(w, `webhooks.retryWaits[${i}]`)) ?? DEFAULT_DELIVERY_POLICY.retryWaitsMs;
  const attemptTimeoutMs = options?.attemptTimeout === undefined ? DEFAULT_DELIVERY_POLICY.attemptTimeoutMs : duration(options.attemptTimeout, 'webhooks.attemptTimeout');
  if (retryWaitsMs.length === 0) throw new RangeError('webhooks.retryWaits needs at least one wait');
  return { ...DEFAULT_DELIVERY_POLICY, retryWaitsMs: [...retryWaitsMs], attemptTimeoutMs };
}

/** Freezes plain data all the way down: the Config is read from many places and changed by none. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
