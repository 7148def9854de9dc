/**
 * createEmulator(): an emulated Catalog Integration Service, put together from its parts (DESIGN §1–2, §6): the
 * configuration and the engine (src/engine), the in-process controls over it (src/control/api.ts), and one hono
 * app serving the API and the /_emulator controls, in process through emu.fetch or over a socket. It holds no
 * business rule.
 *
 * A fresh instance is a few small objects and one clock (5 KB, about 10 µs): the hono app is built once per
 * process and receives the instance with each request, and the rest is made on first use, so a test suite can
 * create one emulator per test.
 */
import type { Hono } from 'hono';
import { uuidV4 } from './core/random.js';
import { Controls } from './control/api.js';
import { buildControlApp } from './control/routes.js';
import type { VirtualClock } from './clock/clock.js';
import type { Credential } from './core/companies.js';
import type { Context, State } from './core/state.js';
import type { ControlSettings, EmulatorOptions, ListBudgets } from './engine/config.js';
import { Engine } from './engine/engine.js';
import { buildApiApp } from './http/app.js';
import { applyFixtures, readFixtures } from './http/fixtures.js';
import { errorOf } from './http/errors.js';
import type { ApiFault, ApiFaultMatch, FaultMoment } from './engine/faults.js';
import { requestActivity, type ActivityFeed } from './engine/activity.js';
import type { JournalRecord } from './engine/journal.js';
import type { BodySource, Runtime, Runtimes } from './http/runtime.js';
import type { World } from './engine/world.js';
import { serve, type ListenOptions, type RunningServer } from './http/server.js';
import { openApiText } from './openapi/served.js';

export type { CompanyOptions, EmulatorOptions } from './engine/config.js';
export type { Fixtures, FixtureCompany, FixtureEstablishment, FixtureCatalog, FixtureProduct, SeededCompany, SeededCatalog } from './engine/fixtures.js';
export type { ListenOptions, RunningServer } from './http/server.js';
// The CLI's `demo NAME --ui` paces a scenario with it; a program can too (a demo's run(print, gate)).
export { DemoGate } from './inspector/server/demo-gate.js';

const BASE_URL = 'http://catalog-emulator.local';

type Bindings = { runtimes: Runtimes; controls: Controls; control: ControlSettings; body?: BodySource };

let sharedApp: Hono<{ Bindings: Bindings }> | undefined;
function app(): Hono<{ Bindings: Bindings }> {
  if (!sharedApp) {
    const root = buildApiApp() as unknown as Hono<{ Bindings: Bindings }>;
    root.route('/_emulator', buildControlApp({ text: openApiText }));
    sharedApp = root;
  }
  return sharedApp;
}

/** The API without the controls, for listen({ controls: false }): /_emulator is then a path like any unknown one. */
let apiOnlyApp: Hono<{ Bindings: Bindings }> | undefined;
function apiApp(): Hono<{ Bindings: Bindings }> {
  return (apiOnlyApp ??= buildApiApp({ controls: false }) as unknown as Hono<{ Bindings: Bindings }>);
}

export class Emulator extends Controls implements AsyncDisposable {
  #bindings: Bindings | undefined;
  #servers: Set<RunningServer> | undefined;

  /** Throws a TypeError or RangeError naming the first bad option. */
  constructor(options: EmulatorOptions = {}) {
    // Checked whole before anything is built; then applied to every fresh world, at start and after each reset.
    const fixtures = options.fixtures === undefined ? undefined : readFixtures(options.fixtures);
    super(new Engine(options, fixtures && ((world, at, config) => applyFixtures(world, fixtures, at, config))));
  }

  /** What the app gets with each request of this emulator: made on the first request, in process or over HTTP. */
  get #env(): Bindings {
    return (this.#bindings ??= { runtimes: new WorldRuntimes(this.engine), controls: this, control: this.engine.config.control });
  }

  /** Fetch against the emulated service, in process. Relative URLs are resolved against the emulator. */
  fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? (init ? new Request(input, init) : input) : new Request(new URL(String(input), BASE_URL), init);
    const answer = Promise.resolve(app().fetch(request, this.#env));
    return this.engine.listeningToChanges ? this.#once(answer) : answer;
  };

  /** An answer that leaves only once its changes are told (emu.changes), and what the listeners do with them done. */
  #once(answer: Promise<Response>): Promise<Response> {
    const told = () => this.engine.flushChanges();
    return answer.then(
      async (response) => {
        await told();
        return response;
      },
      async (error: unknown) => {
        await told();
        throw error;
      },
    );
  }

  /**
   * Serves the API and the controls over HTTP. Only there is Host checked: in process no socket is open, so no
   * web page can reach emu.fetch through DNS.
   */
  async listen(options: ListenOptions = {}): Promise<RunningServer> {
    // The bindings written out: a spread followed by `body` took V8's slow path, a measurable part of a GET.
    const { runtimes, controls, control } = this.#env;
    if (options.controls !== undefined && typeof options.controls !== 'boolean') throw new TypeError(`controls must be true or false (got ${JSON.stringify(options.controls)})`);
    const served = options.controls === false ? apiApp() : app();
    const server = await serve((request, body) => {
      const answer = served.fetch(request, { runtimes, controls, control, body });
      return this.engine.listeningToChanges ? this.#once(Promise.resolve(answer)) : answer;
    }, options);
    const servers = (this.#servers ??= new Set());
    const running: RunningServer = {
      ...server,
      inspector: options.controls === false ? null : `${server.url}/_emulator/ui`,
      close: () => {
        servers.delete(running);
        return server.close();
      },
    };
    servers.add(running);
    return running;
  }

  /** Stops servers and real-time timers; requests held by a `delayMs` fault are answered 503 first. */
  async close(): Promise<void> {
    this.engine.close();
    await Promise.all([...(this.#servers ?? [])].map((s) => s.close()));
  }

  /** `await using emu = createEmulator()`: close() at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * The runtimes of an emulator (see Runtimes): the shared one reads the current world at every access, since reset
 * and restore swap worlds under it; a company on its own clock gets a runtime bound to its world, made once per
 * world. Classes rather than objects of closures and getters (1.8 KB of every emulator, heap snapshot, as each had
 * a hidden class of its own): an emulator makes two small objects, on its first request, and every runtime of every
 * emulator has the same shape, which keeps the request path's property reads monomorphic.
 */
class WorldRuntimes implements Runtimes {
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

/** What the HTTP shell needs of a world (its own, or else the engine's current one at each access) and of the engine. */
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
  record(entry: JournalRecord, response: Response): void {
    const engine = this.#engine;
    engine.journal.record(entry);
    if (engine.activity.listening) engine.activity.emit(requestActivity(entry, errorOf(response), this.#current.clock.now()));
  }
}

export function createEmulator(options: EmulatorOptions = {}): Emulator {
  return new Emulator(options);
}
