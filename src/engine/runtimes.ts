/**
 * What an API request runs against: the port the HTTP shell (src/http) is written to, and the engine's side of it.
 * Declared here rather than in src/http so that the engine implements it without knowing of HTTP: the shell
 * names these interfaces as types (http may import engine types; the engine imports nothing of http). One hono
 * app, built once per process, serves every emulator: the facade hands each request its emulator's Runtimes
 * through hono's env, which is what keeps createEmulator() cheap.
 */
import { uuidV4 } from '../core/random.js';
import type { Credential } from '../core/companies.js';
import type { Context, State } from '../core/state.js';
import type { VirtualClock } from '../clock/clock.js';
import type { ListBudgets } from './config.js';
import { requestActivity, type ActivityFeed, type AnswerError } from './activity.js';
import type { Engine } from './engine.js';
import type { ApiFault, ApiFaultMatch, FaultMoment } from './faults.js';
import type { JournalRecord } from './journal.js';
import type { World } from './world.js';

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
  /**
   * Journals the answered request, tells the fact observer, and (if anyone listens) the activity stream; answers the
   * journal's text of it (undefined when its company was removed while it was held).
   */
  record(entry: JournalRecord, error: AnswerError | undefined): string | undefined;
}

/**
 * The runtimes of an emulator, one per world: a company on a clock of its own has a world of its own, so its
 * requests run against its state, on its clock, with its request ids; every other request runs in the shared one.
 */
export interface Runtimes {
  forToken(token: string | undefined): Runtime;
  /** The emulator's activity stream (the control calls report to it too). */
  readonly activity: ActivityFeed;
}

/**
 * The runtimes of an engine: the shared one reads the current world at every access, since reset and restore
 * swap worlds under it; a company on its own clock gets a runtime bound to its world, made once per world.
 * Classes rather than objects of closures and getters (which every emulator paid for, each with a hidden class of
 * its own): an emulator makes two small objects, on its first request, and every runtime of every
 * emulator has the same shape, which keeps the request path's property reads monomorphic.
 */
export class EngineRuntimes implements Runtimes {
  readonly #engine: Engine;
  readonly #shared: WorldRuntime;
  #own: WeakMap<World, Runtime> | undefined;

  constructor(engine: Engine) {
    this.#engine = engine;
    this.#shared = new WorldRuntime(engine, undefined);
  }

  get activity(): ActivityFeed {
    return this.#engine.activity;
  }

  forToken(token: string | undefined): Runtime {
    const world = this.#engine.worldOfToken(token);
    if (world.owner === null) return this.#shared;
    const own = (this.#own ??= new WeakMap());
    let runtime = own.get(world);
    if (!runtime) own.set(world, (runtime = new WorldRuntime(this.#engine, world)));
    return runtime;
  }
}

/** A world (its own, or else the engine's current one at each access) and the engine, as a request needs them. */
class WorldRuntime implements Runtime {
  readonly #engine: Engine;
  readonly #world: World | undefined;

  constructor(engine: Engine, world: World | undefined) {
    this.#engine = engine;
    this.#world = world;
  }

  get #current(): World {
    return this.#world ?? this.#engine.world;
  }
  get state(): State {
    return this.#current.state;
  }
  get clock(): VirtualClock {
    return this.#current.clock;
  }
  get inFlight(): Map<string, string> {
    return this.#current.inFlight;
  }
  get pageBudgets(): ListBudgets {
    return this.#engine.config.pageBudgets;
  }
  get maxStoredAnswersPerCompany(): number {
    return this.#engine.config.maxStoredAnswersPerCompany;
  }
  apply<T>(fn: (state: State, ctx: Context) => T): T {
    return this.#current.apply(fn);
  }
  nextRequestId(): string {
    return uuidV4(this.#current.requestRandom);
  }
  credential(token: string): Credential | undefined {
    return this.#current.state.credentials.get(token);
  }
  takeApiFault(match: ApiFaultMatch, moment: FaultMoment, fire?: (fault: ApiFault) => boolean): ApiFault | undefined {
    return this.#engine.faults.takeApi(match, moment, fire);
  }
  record(entry: JournalRecord, error: AnswerError | undefined): string | undefined {
    const engine = this.#engine;
    const line = engine.journal.record(entry);
    const { activity } = engine;
    if (activity.listening) activity.emit(requestActivity(entry, error, this.#current.clock.now()));
    // After the request's own entry: a finding it makes is told on the line after it.
    activity.observer?.request(entry);
    return line;
  }
}
