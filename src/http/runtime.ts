/**
 * What the HTTP layer needs from the emulator that hosts it. The emulator (src/emulator.ts) provides it
 * per request through hono's env, so one hono app, built once per process, serves every emulator instance:
 * that is what keeps createEmulator() cheap.
 */
import type { Credential } from '../core/companies.js';
import type { Context, State } from '../core/state.js';
import type { VirtualClock } from '../clock/clock.js';
import type { ListBudgets } from '../engine/config.js';
import type { ActivityFeed } from '../engine/activity.js';
import type { JournalRecord } from '../engine/journal.js';
import type { ApiFault, ApiFaultMatch, FaultMoment } from '../engine/faults.js';

export interface Runtime {
  readonly state: State;
  readonly clock: VirtualClock;
  readonly pageBudgets: ListBudgets;
  /** How many answers a company's idempotency store keeps before its oldest is dropped (EmulatorOptions.idempotency). */
  readonly maxStoredAnswersPerCompany: number;
  /** Idempotency scope → fingerprint of the requests being processed now (transient: never in a snapshot). */
  readonly inFlight: Map<string, string>;
  /**
   * Runs one core transition: `fn` gets the state and a Context (time, id source, configuration); the work the
   * core asked for (state.outbox) is then moved onto the virtual clock.
   */
  apply<T>(fn: (state: State, ctx: Context) => T): T;
  nextRequestId(): string;
  credential(token: string): Credential | undefined;
  /**
   * The first api fault matching the request whose effect is taken at `moment`, its `times` counted down. At
   * `evaluation`, `fire` makes the fault act (the concurrent edit); one that could not act does not fire.
   */
  takeApiFault(match: ApiFaultMatch, moment: FaultMoment, fire?: (fault: ApiFault) => boolean): ApiFault | undefined;
  /** Journals the request, answered with `response` (the activity stream reads its error, if anyone listens). */
  record(entry: JournalRecord, response: Response): void;
}

/**
 * Where a request's body comes from. In process it is the Request's stream; the HTTP server provides one
 * built from the Node message, which knows whether a body was sent at all (HTTP/1.1: a length or chunked
 * encoding) and reads it straight from the socket rather than through a web stream.
 */
export interface BodySource {
  /** Whether the request carries a body (before reading it). */
  readonly present: boolean;
  /**
   * The body's bytes, or undefined as soon as they exceed `limit`. Rejects with a BodyReadError, and nothing
   * else, when the body cannot be read to its end.
   */
  read(limit: number): Promise<Uint8Array | undefined>;
}

/**
 * A request body that could not be read to its end: cut short (the connection ended before the declared
 * length or the last chunk), badly framed (a chunk size that is no number, a transfer coding other than
 * chunked), or a stream that failed. The client's doing, never the emulator's: whoever reads a body maps it to
 * a 400 (errors.ts unreadableBody), not to the 500 of a bug.
 */
export class BodyReadError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error && cause.message !== '' ? cause.message : String(cause), { cause });
    this.name = 'BodyReadError';
  }
}

/** Runs a body source's reading, turning whatever it throws or rejects with into a BodyReadError. */
export function readingBody<T>(read: () => Promise<T>): Promise<T> {
  let reading: Promise<T>;
  try {
    reading = read();
  } catch (error) {
    return Promise.reject(asBodyReadError(error));
  }
  return reading.catch((error: unknown) => Promise.reject(asBodyReadError(error)));
}

const asBodyReadError = (error: unknown): BodyReadError => (error instanceof BodyReadError ? error : new BodyReadError(error));

/**
 * The runtimes of an emulator, one per world: a company on a clock of its own has a world of its own, so its
 * requests run against its state, on its clock, with its request ids; every other request runs in the shared one.
 */
export interface Runtimes {
  forToken(token: string | undefined): Runtime;
  /** The emulator's activity stream (the control calls report to it too). */
  readonly activity: ActivityFeed;
}

export interface HttpEnv {
  /**
   * `target`: over a socket, the request target as the client sent it (server.ts), which routing reads instead of
   * the request's URL, whose dot segments are resolved; in process there is none: the URL is what the caller made.
   */
  Bindings: { runtimes: Runtimes; body?: BodySource; target?: string };
}
