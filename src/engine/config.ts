/**
 * The emulator's configuration in one place: createEmulator()'s options, checked once and frozen into a Config
 * that the engine, the HTTP shell and (through Context.config) the core read. Each bad option throws here,
 * naming it, before anything is built.
 */
import { EARLIEST_INSTANT, LATEST_INSTANT, withinClockBounds, type ClockMode } from '../clock/clock.js';
import { DEFAULT_MAX_STORED_ANSWERS_PER_COMPANY } from '../core/idempotency.js';
import type { CoreConfig } from '../core/state.js';
import { isoString, parseDuration } from '../core/time.js';
import { DEFAULT_DELIVERY_POLICY, type DeliveryPolicy } from '../core/webhooks/events.js';
import { DEFAULT_HANDLER_GRACE_MS } from '../network/transport.js';
import type { CompanyFlags, Permission } from '../core/companies.js';
import type { NetworkRoute } from '../network/routes.js';
import type { Fixtures } from './fixtures.js';

/** The instant a manual clock starts at unless told otherwise: fixed, so runs are reproducible. */
export const DEFAULT_START = Date.UTC(2026, 0, 1);
export const DEFAULT_SEED = 1;

/**
 * The byte budgets EmulatorOptions.pageBudgets may change
 * (docs/where-the-spec-is-silent.md "Limits the emulator adds").
 */
export const DEFAULT_PAGE_BUDGETS: PageBudgets = {
  catalogs: 256 * 1024,
  establishments: 256 * 1024,
  products: 256 * 1024,
};

/**
 * The byte budgets of the lists no option reaches (docs/where-the-spec-is-silent.md "Limits the emulator adds"; the
 * event list's 1 MiB is the spec's: LIM-16).
 */
const FIXED_BUDGETS = {
  executions: 256 * 1024,
  analyses: 256 * 1024,
  ingestionErrors: 256 * 1024,
  events: 1024 * 1024,
  findings: 512 * 1024,
};

export interface CompanyOptions extends CompanyFlags {
  /** 8 digits; a seeded random root when omitted. */
  readonly cnpjRoot?: string;
  /** Permissions of the first credential; all six by default. */
  readonly permissions?: readonly Permission[];
  /**
   * `shared` (default): the company lives on the emulator's clock. `own`: on a clock of its own, which starts at
   * the emulator's now and moves only through the company's own clock controls; its ids, tokens and positions
   * come from its own seeded sources (the seed and its CNPJ root), so nothing another company does changes what
   * it sees. Not for EmulatorOptions.companies, which are on the shared clock.
   */
  readonly clock?: 'shared' | 'own';
}

export interface EmulatorOptions {
  /** Seed of every id, token and secret. Same seed + same calls = byte-identical answers. Default 1. */
  readonly seed?: number | string;
  /** `manual` (default): time moves only through the clock controls. `real`: wall clock + offset. */
  readonly clock?: ClockMode;
  /**
   * Virtual start, from 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z in whole milliseconds. Default:
   * 2026-01-01T00:00:00.000Z in manual mode, the wall clock in real mode.
   */
  readonly start?: string | number | Date;
  /** Companies created at start and again after every reset (same seed: same ids and tokens). */
  readonly companies?: readonly CompanyOptions[];
  /**
   * Companies and their records (establishments, catalogs, products, a webhook destination) created at start,
   * after `companies`, and again after every reset, through the API's operations: same seed and fixtures, same
   * ids and tokens. Checked whole at creation: a TypeError names the first problem (`fixtures.companies[0]…`).
   */
  readonly fixtures?: Fixtures;
  /**
   * Delivery routes that belong to the emulator's configuration (the CLI's --route): in place from the start and
   * put back by every reset, unlike routes added later through emu.network, which a reset drops. Checked like
   * emu.network.route(); a bad one throws a TypeError naming it (`routes[1]: …`).
   */
  readonly routes?: readonly NetworkRoute[];
  /** The idempotency store: every successful state-changing request's answer, kept 60 days for its replay. */
  readonly idempotency?: {
    /**
     * Answers kept per company (default 100,000): at this count a company's oldest answer is dropped before
     * the next is stored, and a retry with its key is then a new request. A whole number, 1 or more.
     */
    readonly maxStoredAnswersPerCompany?: number;
  };
  /** Byte budgets of list pages; lower them to see budget-cut pages in a test. */
  readonly pageBudgets?: Partial<PageBudgets>;
  /** Webhook delivery timing; by default the schedule of docs/webhooks.md "Delivery". */
  readonly webhooks?: {
    /** Waits before attempts 2..8 ("5s", "5m", … or ms); default 5 s, 5 min, 30 min, 2 h, 5 h, 7 h, 8 h. */
    readonly retryWaits?: readonly (number | string)[];
    /** How long an attempt waits for an answer; default 15 s. */
    readonly attemptTimeout?: number | string;
    /**
     * Real milliseconds an in-process handler may take before it counts as a peer that never answers
     * (default 200). Lower it in tests that simulate many dead peers.
     */
    readonly handlerGraceMs?: number;
  };
  /**
   * When set, every /_emulator request (in process too) needs `Authorization: Bearer <controlToken>`, else 401.
   * Visible ASCII without spaces. The API's own credentials are unaffected.
   */
  readonly controlToken?: string;
  /** The largest body PUT /_emulator/state reads, in bytes (default 256 MiB); the other controls take 1 MiB. */
  readonly maxSnapshotBytes?: number;
  /**
   * The inspector's history: every company's activity (API requests with their headers, bodies and error codes,
   * control calls, delivery attempts, job runs, findings), kept from the start in one ring for the whole emulator,
   * whose oldest entries are dropped (and counted) past either bound.
   */
  readonly inspector?: {
    /** Entries kept at most (default 10,000); 0 keeps none, and then the request path records nothing. */
    readonly historyEntries?: number;
    /**
     * Bytes kept at most (default 16 MiB): each body as kept (up to 64 KiB), each header's name and value, and 512
     * bytes for each entry's own objects.
     */
    readonly historyBytes?: number;
  };
}

/** The inspector's history bounds (EmulatorOptions.inspector), checked. */
export interface HistoryBounds {
  readonly entries: number;
  readonly bytes: number;
}

const DEFAULT_HISTORY_BOUNDS: HistoryBounds = Object.freeze({ entries: 10_000, bytes: 16 * 1024 * 1024 });
/** The largest bounds accepted: a million entries, 4 GiB. */
const MAX_HISTORY_ENTRIES = 1_000_000;
const MAX_HISTORY_BYTES = 4 * 1024 * 1024 * 1024;

/**
 * Byte budgets per list page (docs/where-the-spec-is-silent.md "Limits the emulator adds"): settable per emulator so
 * tests can see budget-cut pages.
 */
export interface PageBudgets {
  readonly catalogs: number;
  readonly establishments: number;
  readonly products: number;
}

/** Byte budgets of every list page: the settable ones (PageBudgets) and those of the lists no option reaches. */
export interface ListBudgets extends PageBudgets {
  /** GET /v1/vigilancias. */
  readonly executions: number;
  /** GET /v1/analises. */
  readonly analyses: number;
  /** An ingestion's preview errors. */
  readonly ingestionErrors: number;
  /** GET /v1/webhook/eventos (the spec's 1 MiB). */
  readonly events: number;
  /** The findings of an execution or an analysis. */
  readonly findings: number;
}

/** PUT /_emulator/state: the largest state seen in a long spec run was 81 MB. */
export const DEFAULT_MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024;

export interface ControlSettings {
  /** The control token; undefined: the controls take no token. */
  readonly token: string | undefined;
  readonly maxSnapshotBytes: number;
}

/** The settings of createEmulator({ controlToken, maxSnapshotBytes }), checked; a bad one throws naming the option. */
function controlSettings(options: {
  readonly controlToken?: string;
  readonly maxSnapshotBytes?: number;
}): ControlSettings {
  const token = options.controlToken;
  // Visible ASCII, no space: what travels intact as `Authorization: Bearer <token>`.
  if (token !== undefined && !(typeof token === 'string' && /^[\x21-\x7e]+$/.test(token))) {
    throw new TypeError(
      'controlToken must be a non-empty string of visible ASCII characters without spaces (it travels as "Authorization: Bearer <token>")',
    );
  }
  const maxSnapshotBytes = options.maxSnapshotBytes ?? DEFAULT_MAX_SNAPSHOT_BYTES;
  if (!(Number.isSafeInteger(maxSnapshotBytes) && maxSnapshotBytes > 0)) {
    throw new RangeError(
      `maxSnapshotBytes must be a whole number of bytes above 0; got ${String(options.maxSnapshotBytes)}`,
    );
  }
  return token === undefined && maxSnapshotBytes === DEFAULT_MAX_SNAPSHOT_BYTES
    ? DEFAULT_CONTROL
    : { token, maxSnapshotBytes };
}

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
  /** The companies every fresh world starts with (copies of the options: freezing never reaches the caller's). */
  readonly companies: readonly CompanyOptions[];
  /** The delivery routes every fresh world starts with, checked as the engine adds them. */
  readonly routes: readonly NetworkRoute[];
  /** The inspector's history bounds. */
  readonly history: HistoryBounds;
}

/*
 * The parts of a Config that most emulators share, made once and frozen: an emulator that does not set an option
 * points at its default rather than a copy of it: copies made reading the options a large part of
 * createEmulator()'s time and of what each emulator keeps.
 */
const NONE: readonly never[] = Object.freeze([]);
const DEFAULT_LIST_BUDGETS: ListBudgets = deepFreeze({ ...DEFAULT_PAGE_BUDGETS, ...FIXED_BUDGETS });
const DEFAULT_CONTROL: ControlSettings = deepFreeze({ token: undefined, maxSnapshotBytes: DEFAULT_MAX_SNAPSHOT_BYTES });
// A copy: the exported DEFAULT_DELIVERY_POLICY stays the caller's to read, unfrozen as it always was.
const DEFAULT_DELIVERY: DeliveryPolicy = deepFreeze({
  ...DEFAULT_DELIVERY_POLICY,
  retryWaitsMs: [...DEFAULT_DELIVERY_POLICY.retryWaitsMs],
});

/** createEmulator()'s options as a checked, frozen Config; throws a TypeError or RangeError naming a bad option. */
export function readConfig(options: EmulatorOptions): Config {
  const seed = options.seed ?? DEFAULT_SEED;
  const mode = options.clock ?? 'manual';
  if (mode !== 'manual' && mode !== 'real')
    throw new TypeError(`clock must be "manual" or "real", got ${String(mode)}`);
  const start =
    options.start === undefined ? (mode === 'manual' ? DEFAULT_START : Date.now()) : toInstant(options.start, 'start');
  if (!withinClockBounds(start)) {
    throw new RangeError(
      `start must be an instant from ${isoString(EARLIEST_INSTANT)} to ${isoString(LATEST_INSTANT)}, in whole milliseconds; got ${String(options.start)}`,
    );
  }
  const pageBudgets =
    options.pageBudgets === undefined
      ? DEFAULT_LIST_BUDGETS
      : { ...DEFAULT_PAGE_BUDGETS, ...options.pageBudgets, ...FIXED_BUDGETS };
  const maxStoredAnswersPerCompany =
    options.idempotency?.maxStoredAnswersPerCompany ?? DEFAULT_MAX_STORED_ANSWERS_PER_COMPANY;
  if (!(Number.isSafeInteger(maxStoredAnswersPerCompany) && maxStoredAnswersPerCompany >= 1)) {
    throw new RangeError(
      `idempotency.maxStoredAnswersPerCompany must be a whole number, 1 or more; got ${maxStoredAnswersPerCompany}`,
    );
  }
  const delivery = deliveryPolicy(options.webhooks);
  const handlerGraceMs = options.webhooks?.handlerGraceMs ?? DEFAULT_HANDLER_GRACE_MS;
  if (!(Number.isFinite(handlerGraceMs) && handlerGraceMs >= 0))
    throw new RangeError(
      `webhooks.handlerGraceMs must be a non-negative number of milliseconds; got ${handlerGraceMs}`,
    );
  const control = controlSettings(options);
  const companies = (options.companies ?? NONE).map((c, i) => {
    if (c?.clock !== undefined && c.clock !== 'shared') {
      throw new TypeError(
        `companies[${i}].clock: the configured companies are on the shared clock; create a company on a clock of its own with companies.create({ clock: 'own' })`,
      );
    }
    return { ...c, ...(c.permissions && { permissions: [...c.permissions] }) };
  });
  const routes = (options.routes ?? NONE).map((r) => (typeof r === 'object' && r !== null ? { ...r } : r));
  const history = historyBounds(options.inspector);
  return deepFreeze({
    seed,
    mode,
    start,
    core: { delivery },
    pageBudgets,
    maxStoredAnswersPerCompany,
    handlerGraceMs,
    control,
    companies,
    routes,
    history,
  });
}

function historyBounds(options: EmulatorOptions['inspector']): HistoryBounds {
  if (options === undefined) return DEFAULT_HISTORY_BOUNDS;
  if (typeof options !== 'object' || options === null)
    throw new TypeError(
      `inspector must be an object such as { historyEntries: 10000, historyBytes: 16777216 }; got ${String(options)}`,
    );
  const unknown = Object.keys(options).find((key) => key !== 'historyEntries' && key !== 'historyBytes');
  if (unknown !== undefined)
    throw new TypeError(`inspector.${unknown} is not an option: inspector takes historyEntries and historyBytes`);
  const bound = (value: number | undefined, fallback: number, name: string, max: number, unit: string) => {
    if (value === undefined) return fallback;
    if (!(Number.isSafeInteger(value) && value >= 0 && value <= max))
      throw new RangeError(
        `inspector.${name} must be a whole number of ${unit} from 0 to ${max}; got ${String(value)}`,
      );
    return value;
  };
  const entries = bound(
    options.historyEntries,
    DEFAULT_HISTORY_BOUNDS.entries,
    'historyEntries',
    MAX_HISTORY_ENTRIES,
    'entries',
  );
  const bytes = bound(options.historyBytes, DEFAULT_HISTORY_BOUNDS.bytes, 'historyBytes', MAX_HISTORY_BYTES, 'bytes');
  return entries === DEFAULT_HISTORY_BOUNDS.entries && bytes === DEFAULT_HISTORY_BOUNDS.bytes
    ? DEFAULT_HISTORY_BOUNDS
    : { entries, bytes };
}

/** An instant given as an ISO 8601 date-time, a Date or Unix milliseconds; `refusal` builds the error of a bad one. */
export function toInstant(
  value: string | number | Date,
  what: string,
  refusal: (message: string) => Error = (message) => new RangeError(message),
): number {
  const instant = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(instant))
    throw refusal(`${what} must be an ISO 8601 date-time, a Date or Unix milliseconds; got ${String(value)}`);
  return instant;
}

function deliveryPolicy(options: EmulatorOptions['webhooks']): DeliveryPolicy {
  if (options?.retryWaits === undefined && options?.attemptTimeout === undefined) return DEFAULT_DELIVERY;
  const duration = (value: number | string, what: string) => {
    const ms = parseDuration(value);
    if (ms === undefined)
      throw new RangeError(
        `${what} must be milliseconds or a duration such as "5s", "30m", "2h"; got ${JSON.stringify(value)}`,
      );
    return ms;
  };
  const retryWaitsMs =
    options?.retryWaits?.map((w, i) => duration(w, `webhooks.retryWaits[${i}]`)) ??
    DEFAULT_DELIVERY_POLICY.retryWaitsMs;
  const attemptTimeoutMs =
    options?.attemptTimeout === undefined
      ? DEFAULT_DELIVERY_POLICY.attemptTimeoutMs
      : duration(options.attemptTimeout, 'webhooks.attemptTimeout');
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
