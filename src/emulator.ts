/**
 * createEmulator(): an emulated Catalog Integration Service, put together from its parts (DESIGN §1–2, §6): the
 * configuration and the engine (src/engine), the in-process controls over it (src/control/api.ts), and one hono
 * app serving the API and the /_emulator controls, in process through emu.fetch or over a socket. It holds no
 * business rule.
 *
 * A fresh instance is a handful of empty maps and one clock: the hono app is built once per process and
 * receives the instance with each request, so a test suite can create one emulator per test.
 */
import type { Hono } from 'hono';
import { uuidV4 } from './core/random.js';
import { Controls } from './control/api.js';
import { buildControlApp } from './control/routes.js';
import type { ControlSettings, EmulatorOptions } from './engine/config.js';
import { Engine } from './engine/engine.js';
import { buildApiApp } from './http/app.js';
import type { BodySource, Runtime, Runtimes } from './http/runtime.js';
import type { World } from './engine/world.js';
import { serve, type ListenOptions, type RunningServer } from './http/server.js';
import { openApiText } from './openapi/served.js';

export type { CompanyOptions, EmulatorOptions } from './engine/config.js';
export type { ListenOptions, RunningServer } from './http/server.js';

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

export class Emulator extends Controls {
  private readonly bindings: Bindings;
  private readonly servers = new Set<RunningServer>();

  /** Throws a TypeError or RangeError naming the first bad option. */
  constructor(options: EmulatorOptions = {}) {
    super(new Engine(options));
    const engine = this.engine;
    // The shared runtime reads the current world on every access: reset and restore swap worlds under it. A
    // company on its own clock gets a runtime bound to its world, made once per world.
    const shared = runtimeOf(engine, () => engine.world);
    const own = new WeakMap<World, Runtime>();
    const runtimes: Runtimes = {
      forToken: (token) => {
        const world = engine.worldOfToken(token);
        if (world.owner === null) return shared;
        let runtime = own.get(world);
        if (!runtime) own.set(world, (runtime = runtimeOf(engine, () => world)));
        return runtime;
      },
    };
    this.bindings = { runtimes, controls: this, control: engine.config.control };
  }

  /** Fetch against the emulated service, in process. Relative URLs are resolved against the emulator. */
  fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? (init ? new Request(input, init) : input) : new Request(new URL(String(input), BASE_URL), init);
    return Promise.resolve(app().fetch(request, this.bindings));
  };

  /**
   * Serves the API and the controls over HTTP. Only there is Host checked: in process no socket is open, so no
   * web page can reach emu.fetch through DNS.
   */
  async listen(options: ListenOptions = {}): Promise<RunningServer> {
    // The bindings written out: a spread followed by `body` took V8's slow path, a measurable part of a GET.
    const { runtimes, controls, control } = this.bindings;
    const server = await serve((request, body) => app().fetch(request, { runtimes, controls, control, body }), options);
    const running: RunningServer = {
      ...server,
      close: () => {
        this.servers.delete(running);
        return server.close();
      },
    };
    this.servers.add(running);
    return running;
  }

  /** Stops servers and real-time timers; requests held by a `delayMs` fault are answered 503 first. */
  async close(): Promise<void> {
    this.engine.close();
    await Promise.all([...this.servers].map((s) => s.close()));
  }
}

/** What the HTTP shell needs of a world (the one `worldOf` returns at each access) and of the engine. */
function runtimeOf(engine: Engine, worldOf: () => World): Runtime {
  const { config } = engine;
  return {
    get state() { return worldOf().state; },
    get clock() { return worldOf().clock; },
    get inFlight() { return worldOf().inFlight; },
    pageBudgets: config.pageBudgets,
    maxStoredAnswersPerCompany: config.maxStoredAnswersPerCompany,
    apply: (fn) => worldOf().apply(fn),
    nextRequestId: () => uuidV4(worldOf().requestRandom),
    credential: (token) => worldOf().state.credentials.get(token),
    takeApiFault: (match, moment, fire) => engine.faults.takeApi(match, moment, fire),
    record: (entry) => engine.journal.record(entry),
  };
}

export function createEmulator(options: EmulatorOptions = {}): Emulator {
  return new Emulator(options);
}
