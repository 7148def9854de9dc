/**
 * createEmulator(): an emulated Catalog Integration Service, put together from its parts: the configuration and
 * the engine (src/engine, whose runtimes each request runs against), the in-process controls over it
 * (src/control/api.ts), and one hono app serving the API and the /_emulator controls, in process through emu.fetch
 * or over a socket. It holds no business rule. The app is built once per process and receives the instance with
 * each request, and the rest is made on first use, so that a suite can create one emulator per test.
 */
import type { Hono } from 'hono';
import { Controls } from './control/api.js';
import { landingAnswer } from './control/landing.js';
import { buildControlApp } from './control/routes.js';
import type { ControlSettings, EmulatorOptions } from './engine/config.js';
import { Engine } from './engine/engine.js';
import { EngineRuntimes, type Runtimes } from './engine/runtimes.js';
import type { GradedOperation } from './grading/findings.js';
import { Grading } from './grading/report.js';
import { buildApiApp, operations } from './http/app.js';
import { inProcess } from './http/damage.js';
import { applyFixtures, readFixtures } from './http/fixtures.js';
import { documentedOperation } from './http/pipeline.js';
import type { BodySource } from './http/runtime.js';
import { serve, type AsyncDisposableWhereDeclared, type ListenOptions, type RunningServer } from './http/server.js';
import { servedOpenApiText } from './openapi/served.js';
import { recordHistory } from './inspector/server/inspector.js';

const BASE_URL = 'http://catalog-emulator.local';

type Bindings = {
  runtimes: Runtimes;
  controls: Controls;
  control: ControlSettings;
  body?: BodySource;
  target?: string;
};

type App = Hono<{ Bindings: Bindings }>;
let sharedApp: App | undefined;
function app(): App {
  if (!sharedApp) {
    const root = buildApiApp() as unknown as App;
    root.route('/_emulator', buildControlApp({ text: servedOpenApiText }));
    // The one path of the controls outside /_emulator (see landing.ts); HEAD / is hono's GET without the body.
    root.get('/', (c) => landingAnswer(c.req.raw, c.env.control));
    sharedApp = root;
  }
  return sharedApp;
}

/** The API's operations as the grading of the client knows them: made once per process, on the first emulator. */
let graded: readonly GradedOperation[] | undefined;
const gradedOperations = (): readonly GradedOperation[] => (graded ??= operations.map(documentedOperation));

/** The API without the controls, for listen({ controls: false }): /_emulator is then a path like any unknown one. */
let apiOnlyApp: App | undefined;
const apiApp = (): App => (apiOnlyApp ??= buildApiApp({ controls: false }) as unknown as App);

/** `await using emu = createEmulator()`: close() at the end of the scope ([Symbol.asyncDispose], set below the class). */
export interface Emulator extends AsyncDisposableWhereDeclared {}
export class Emulator extends Controls {
  #bindings: Bindings | undefined;
  #servers: Set<RunningServer> | undefined;

  /** Throws a TypeError or RangeError naming the first bad option. */
  constructor(options: EmulatorOptions = {}) {
    // Checked whole before anything is built; then applied to every fresh world, at start and after each reset.
    const fixtures = options.fixtures === undefined ? undefined : readFixtures(options.fixtures);
    const engine = new Engine(options, fixtures && ((world, at, config) => applyFixtures(world, fixtures, at, config)));
    // Told every fact from the start, so that a report asked for at any time tells all the emulator saw.
    const grading = new Grading(engine, gradedOperations());
    engine.activity.observer = grading;
    // Its history, for the inspector, likewise from the start (a few fields until its first entry).
    recordHistory(engine.activity, engine.config.history);
    super(engine, grading);
  }

  /** What the app gets with each request of this emulator: made on the first request, in process or over HTTP. */
  get #env(): Bindings {
    return (this.#bindings ??= {
      runtimes: new EngineRuntimes(this.engine),
      controls: this,
      control: this.engine.config.control,
    });
  }

  /** Fetch against the emulated service, in process. Relative URLs are resolved against the emulator. */
  fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request =
      input instanceof Request
        ? init
          ? new Request(input, init)
          : input
        : new Request(new URL(String(input), BASE_URL), init);
    // Asked first: the fault that damages an answer is taken within app().fetch (see damagesAnswers).
    const damaging = this.engine.faults.damagesAnswers;
    const answer = Promise.resolve(app().fetch(request, this.#env));
    const told = this.engine.listeningToChanges ? this.#once(answer) : answer;
    return damaging ? told.then(inProcess) : told;
  };

  /** The answer (or its error), once its changes are told (emu.changes) and what the listeners do with them done. */
  #once(answer: Promise<Response>): Promise<Response> {
    return answer.finally(() => this.engine.flushChanges());
  }

  /**
   * Serves the API and the controls over HTTP. Only there is Host checked: in process no socket is open, so no
   * web page can reach emu.fetch through DNS.
   */
  async listen(options: ListenOptions = {}): Promise<RunningServer> {
    // The bindings written out: a spread followed by `body` took V8's slow path, a measurable part of a GET.
    const { runtimes, controls, control } = this.#env;
    if (options.controls !== undefined && typeof options.controls !== 'boolean')
      throw new TypeError(`controls must be true or false (got ${JSON.stringify(options.controls)})`);
    const served = options.controls === false ? apiApp() : app();
    const faults = this.engine.faults;
    const server = await serve(
      (request, body, target) => {
        const answer = served.fetch(request, { runtimes, controls, control, body, target });
        return this.engine.listeningToChanges ? this.#once(Promise.resolve(answer)) : answer;
      },
      options,
      () => faults.damagesAnswers,
    );
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
}
// On the prototype, not a method in the class: the class's declarations would name Symbol.asyncDispose, an unknown
// name in a project without lib esnext.disposable or @types/node. Its type is AsyncDisposableWhereDeclared's.
Emulator.prototype[Symbol.asyncDispose] = Emulator.prototype.close;

export function createEmulator(options: EmulatorOptions = {}): Emulator {
  return new Emulator(options);
}
