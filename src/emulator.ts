/**
 * createEmulator(): wires the pure core, the virtual clock, the controls and the HTTP app into one
 * emulated Catalog Integration Service (DESIGN §1–2, §6). It holds no business rule.
 *
 * A fresh instance is a handful of empty maps and one clock: the hono app is built once per process and
 * receives the instance with each request, so a test suite can create one emulator per test.
 */
import type { Hono } from 'hono';
import { buildApiApp } from './http/app.js';
import { answerClientError } from './http/client-errors.js';
import { STATUS_OF } from './http/errors.js';
import { ClockDisposedError, ClockLimitError, ClockRangeError, VirtualClock, type ClockMode, type PersistedTask } from './clock/clock.js';
import { addCredential, createCompany, PERMISSIONS, updateCompany, type Company, type CompanyFlags, type CreatedCompany, type Permission } from './core/companies.js';
import { createRandom, seedRandom, uuidV4, type RandomSource, type RandomState } from './core/random.js';
import type { Result } from './core/refusal.js';
import { exportState, importState } from './core/snapshot.js';
import { createState, type Context, type State } from './core/state.js';
import { isoString, parseDuration } from './core/time.js';
import { ControlError } from './control/control-error.js';
import { FaultRegistry, type FaultInput, type FaultView } from './control/faults.js';
import { Journal } from './control/journal.js';
import { buildControlApp } from './control/routes.js';
import { hostGuard, localAddress } from './control/guard.js';
import { readSnapshot, type Snapshot } from './control/snapshot-schema.js';
import { readingBody, type BodySource, type JournalEntry, type Runtime } from './http/runtime.js';
import type { IncomingHttpHeaders } from 'node:http';
import { RouteTable, type NetworkRoute, type ReceiverHandler } from './network/routes.js';
import { Inbox, type InboxEntry } from './network/inbox.js';
import { Transport } from './network/transport.js';
import { registerDeliveryTasks } from './engine/deliveries.js';
import { registerJobs, schedulePeriodicJobs, type TaskWorld } from './engine/jobs.js';
import { drainOutbox } from './core/outbox.js';
import { scheduleAfterPublication } from './core/surveillance-executions.js';
import { currentReference, publishReference, type Published } from './core/regulatory/reference.js';
import { snapshotView, type SnapshotChange, type SnapshotView } from './core/regulatory/snapshot.js';

import { EVENT_KINDS, raiseEvent, rearmStartedAttempts, type EventData } from './core/webhooks/events.js';
import { readConfig, toInstant, type CompanyOptions, type Config, type ControlSettings, type EmulatorOptions } from './engine/config.js';

export type { CompanyOptions, EmulatorOptions };
import { VERSION } from './version.js';

export type { Published, SnapshotChange, SnapshotView };
export type { FaultInput, FaultView, JournalEntry, NetworkRoute, Permission, Snapshot, ClockMode, InboxEntry, ReceiverHandler, EventData };
export { ClockDisposedError, ClockLimitError, ClockRangeError, ControlError, PERMISSIONS };

export { DEFAULT_SEED, DEFAULT_START } from './engine/config.js';

export interface CreatedCompanyInfo {
  readonly companyId: string;
  readonly cnpjRoot: string;
  readonly token: string;
  readonly headOffice: { readonly id: string; readonly cnpj: string };
}

export interface ClockInfo {
  readonly now: Date;
  readonly mode: ClockMode;
  /** Work pending: what runUntilIdle would run (deliveries, job runs, held requests). */
  readonly pending: number;
  /** Deadline tasks scheduled (expiries, retention, daily schedules): only advance fires them. */
  readonly deadlines: number;
}

export interface EmulatorInfo {
  readonly name: 'catalog-emulator';
  readonly version: string;
  readonly now: string;
  readonly clockMode: ClockMode;
  readonly seed: number | string;
}

export interface ListenOptions {
  /** Default 4747; 0 picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /**
   * Host names a request's Host header may give besides localhost, 127.0.0.1, [::1] and `host` itself (not a
   * wildcard such as 0.0.0.0 or ::); another is refused 403. `'*'` admits any host, which turns the check off.
   * The CLI's --allow-host.
   */
  readonly allowHosts?: readonly string[];
}

export interface RunningServer {
  /** Where to reach the server from this machine (after a wildcard bind, 0.0.0.0 or ::, its loopback address). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const BASE_URL = 'http://catalog-emulator.local';
/** How long a closing server lets answers in progress finish before it cuts the connections, and how often it looks. */
const CLOSE_GRACE_MS = 500;
const CLOSE_SWEEP_MS = 5;
/** Why a world's clock stops: the words a released request's 503 uses ("the emulator was reset …"). */
type WorldEnd = 'reset' | 'restored' | 'closed';

type Bindings = { runtime: Runtime; emulator: Emulator; control: ControlSettings; body?: BodySource };

let sharedApp: Hono<{ Bindings: Bindings }> | undefined;
function app(): Hono<{ Bindings: Bindings }> {
  if (!sharedApp) {
    const root = buildApiApp() as unknown as Hono<{ Bindings: Bindings }>;
    root.route('/_emulator', buildControlApp());
    sharedApp = root;
  }
  return sharedApp;
}

/** Everything a reset replaces. */
interface World extends TaskWorld {
  /**
   * Runs a core transition against this world: builds its Context (the clock's now, or `at`; the world's random;
   * the configuration), runs `fn`, then moves the task intents it left in the outbox onto the clock. The only
   * place either happens.
   */
  apply<T>(fn: (state: State, ctx: Context) => T, at?: number): T;
  state: State;
  /** Keys of the requests being processed (transient: a snapshot or reset never carries them). */
  inFlight: Map<string, string>;
  /** The companies of EmulatorOptions.companies, as created in this world. */
  readonly initialCompanies: CreatedCompanyInfo[];
  clock: VirtualClock;
  random: RandomSource;
  requestRandom: RandomSource;
}

export class Emulator {
  readonly seed: number | string;
  readonly mode: ClockMode;
  private readonly config: Config;
  private readonly bootstrap: readonly CompanyOptions[];
  private readonly configuredRoutes: readonly NetworkRoute[];
  private world: World;
  private readonly faultRegistry = new FaultRegistry();
  private readonly journalLog = new Journal();
  private readonly routeTable = new RouteTable();
  private readonly inboxLog = new Inbox();
  private readonly transport: Transport;
  private readonly bindings: Bindings;
  private readonly servers = new Set<RunningServer>();

  constructor(options: EmulatorOptions = {}) {
    this.config = readConfig(options);
    this.seed = this.config.seed;
    this.mode = this.config.mode;
    this.bootstrap = options.companies ?? [];
    this.configuredRoutes = [...(options.routes ?? [])];
    this.addConfiguredRoutes();
    const { delivery } = this.config.core;
    this.transport = new Transport(this.routeTable, this.inboxLog, this.faultRegistry, () => delivery.attemptTimeoutMs, this.config.handlerGraceMs);
    this.world = this.freshWorld();
    // The runtime reads the current world on every access: reset and restore swap worlds under it.
    const self = this;
    const runtime: Runtime = {
      get state() { return self.world.state; },
      get clock() { return self.world.clock; },
      get inFlight() { return self.world.inFlight; },
      pageBudgets: this.config.pageBudgets,
      maxStoredAnswersPerCompany: this.config.maxStoredAnswersPerCompany,
      apply: (fn) => this.world.apply(fn),
      nextRequestId: () => uuidV4(this.world.requestRandom),
      credential: (token) => this.world.state.credentials.get(token),
      takeApiFault: (match, moment, fire) => this.faultRegistry.takeApi(match, moment, fire),
      record: (entry) => this.journalLog.record(entry),
    };
    this.bindings = { runtime, emulator: this, control: this.config.control };
  }

  /** Fetch against the emulated service, in process. Relative URLs are resolved against the emulator. */
  fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? (init ? new Request(input, init) : input) : new Request(new URL(String(input), BASE_URL), init);
    return Promise.resolve(app().fetch(request, this.bindings));
  };

  readonly companies = {
    /** A company with its head office and a credential holding `permissions` (all six by default). */
    create: (options: CompanyOptions = {}): CreatedCompanyInfo => {
      return describe(unwrap(this.world.apply((state, ctx) => createCompany(state, options, ctx))));
    },
    /** The companies given in EmulatorOptions.companies, with their tokens (the same after every reset). */
    initial: (): CreatedCompanyInfo[] => [...this.world.initialCompanies],
    /** Changes a company's flags: suspend its subscription, cut its capacity or allowance. */
    update: (companyId: string, flags: CompanyFlags): Company => {
      return unwrap(this.world.apply((state, ctx) => updateCompany(state, companyId, flags, ctx)));
    },
    addCredential: (companyId: string, permissions: readonly Permission[] = PERMISSIONS): { token: string } => ({
      token: unwrap(this.world.apply((state, ctx) => addCredential(state, companyId, permissions, ctx))).token,
    }),
    list: (): Company[] => [...this.world.state.companies.values()],
  };

  readonly clock = {
    now: (): Date => new Date(this.world.clock.now()),
    mode: (): ClockMode => this.mode,
    /** Work pending: what runUntilIdle would run. */
    pending: (): number => this.world.clock.pending(),
    info: (): ClockInfo => {
      const clock = this.world.clock;
      return { now: new Date(clock.now()), mode: this.mode, pending: clock.pending(), deadlines: clock.deadlines() };
    },
    /**
     * Runs every task due within `by` ("90s", "15m", "24h", "31d", or ms), each at its own virtual time; at most
     * 3650 days, and never past 9999-12-31T23:59:59.999Z (a ClockRangeError says which bound). `ran` counts
     * every occurrence due, coalesced housekeeping runs included.
     */
    advance: async (by: number | string): Promise<{ now: Date; ran: number }> => {
      const ms = parseDuration(by);
      if (ms === undefined) throw new ClockRangeError('by', `by must be whole milliseconds or a duration such as "90s", "15m", "24h", "31d", "1h30m"; got ${JSON.stringify(by)}`);
      const result = await this.world.clock.advance(ms);
      return { now: new Date(result.now), ran: result.ran };
    },
    /** advance() to an instant: not the past, at most 3650 days ahead, never past 9999-12-31T23:59:59.999Z. */
    advanceTo: async (instant: string | number | Date): Promise<{ now: Date; ran: number }> => {
      const to = toInstant(instant, 'to', (message) => new ClockRangeError('to', message));
      const result = await this.world.clock.advanceTo(to);
      return { now: new Date(result.now), ran: result.ran };
    },
    /**
     * Runs the service's work (deliveries, job runs, held requests) until none is left, never a deadline; throws
     * ClockLimitError after `limit` tasks of work (default 10,000). A deadline it passes fires at the next advance.
     */
    runUntilIdle: async (options: { limit?: number } = {}): Promise<{ now: Date; ran: number }> => {
      const result = await this.world.clock.runUntilIdle(options);
      return { now: new Date(result.now), ran: result.ran };
    },
  };

  readonly faults = {
    /** Adds a fault; throws a FaultInputError naming the field and what it accepts when `fault` is not one, or could never fire. */
    add: (fault: FaultInput): { id: string } => this.faultRegistry.add(fault),
    list: (): FaultView[] => this.faultRegistry.list(),
    remove: (id: string): boolean => this.faultRegistry.remove(id),
    clear: (): void => this.faultRegistry.clear(),
  };

  readonly network = {
    /**
     * Sends deliveries for URLs under `from` (https) to the local URL `to`, or to an in-process handler that
     * takes a Fetch Request and returns a Response (throwing, or never answering, simulates a dead peer).
     */
    route: (from: string, to: string | ReceiverHandler): NetworkRoute => this.routeTable.add(from, to),
    routes: (): NetworkRoute[] => this.routeTable.list(),
    unroute: (from: string): boolean => this.routeTable.remove(from),
    clear: (): void => this.routeTable.clear(),
  };

  /** Deliveries to URLs no route covers, as the built-in receiver got them (it answers 200). */
  readonly inbox = {
    list: (): InboxEntry[] => this.inboxLog.list(),
    clear: (): void => this.inboxLog.clear(),
  };

  readonly webhooks = {
    /**
     * Raises an event for a company as the service would (the envelope built, signed and delivered on the
     * clock): to exercise a receiver with any of the eight kinds before the feature that raises it exists.
     * Refused (404 destino_nao_encontrado) for a company without a webhook destination: the service records
     * no event there (an event always names its destination: spec CONV-09, WH-EVT-01), and a control that
     * made one up would show what the service never does.
     */
    raise: (companyId: string, dados: EventData): { eventId: string } => {
      if (!this.world.state.companies.has(companyId)) throw new ControlError(404, 'empresa_nao_encontrada', `No company ${companyId} in this emulator.`, 'path.companyId');
      if (!EVENT_KINDS.includes(dados.tipo)) throw new ControlError(422, 'valor_invalido', `dados.tipo must be one of ${EVENT_KINDS.join(', ')}.`, 'body.dados.tipo');
      const event = this.world.apply((state, ctx) => raiseEvent(state, companyId, dados, ctx));
      if (event === undefined) {
        throw new ControlError(
          404,
          'destino_nao_encontrado',
          `Company ${companyId} has no webhook destination: the service records and delivers events only for a company that has a destination (active, or revoked and kept for resends). Configure one with PUT /v1/webhook (If-None-Match: *) first.`,
        );
      }
      return { eventId: event.id };
    },
  };

  /** The regulatory reference (NCM table and attribute rules) products are evaluated against. */
  readonly regulatory = {
    /** The snapshot in force: id, publication time, every NCM and attribute definition. */
    current: (): SnapshotView => snapshotView(currentReference(this.world.state)),
    /** Publishes a new snapshot: extinguish or add NCMs, replace required attributes, add or change attributes. */
    publish: (change: SnapshotChange): Published => {
      return this.world.apply((state, ctx) => {
        const published = unwrap(publishReference(state, change, ctx.now));
        // Publishing triggers the surveillance executions it affects.
        scheduleAfterPublication(state, published.afetadas, published.atributosAlterados, ctx);
        return published;
      });
    },
  };

  readonly journal = {
    entries: (): JournalEntry[] => this.journalLog.list(),
    clear: (): void => this.journalLog.clear(),
    subscribe: (listener: (entry: JournalEntry) => void): (() => void) => this.journalLog.subscribe(listener),
  };

  info(): EmulatorInfo {
    return { name: 'catalog-emulator', version: VERSION, now: isoString(this.world.clock.now()), clockMode: this.mode, seed: this.seed };
  }

  /** The whole service state as JSON-safe data: records, clock, scheduled tasks and random sources. */
  snapshot(): Snapshot {
    const { state, clock, random, requestRandom } = this.world;
    const snapshot = {
      format: 'catalog-emulator/state' as const,
      version: 1 as const,
      seed: this.seed,
      now: clock.now(),
      random: [...random.state()] as [number, number, number, number],
      requestRandom: [...requestRandom.state()] as [number, number, number, number],
      tasks: clock.tasks(),
      state: exportState(state),
    };
    return structuredClone(snapshot) as Snapshot;
  }

  /**
   * Puts back a snapshot; throws a TypeError (a SnapshotError, with the path of the field) saying what is wrong
   * with one that is not, and then nothing has changed. Faults, routes and the journal are kept.
   */
  restore(snapshot: unknown): void {
    // Every check comes first: the current clock has the handlers of every task kind, and answers for a new one.
    const data = structuredClone(readSnapshot(snapshot, (task) => this.world.clock.loadProblem(task)));
    const state = importState(data.state);
    const initialCompanies = this.world.initialCompanies.filter((c) => state.companies.has(c.companyId));
    const world = this.freshWorld({ state, initialCompanies, random: data.random, requestRandom: data.requestRandom });
    world.clock.load(data.now, data.tasks as PersistedTask[]);
    // Requests in flight did not survive: attempts still running end by their time-out.
    world.apply(rearmStartedAttempts);
    this.replaceWorld(world, 'restored');
  }

  /** Back to a fresh emulator: clock at its start, no state but the bootstrap companies, only the configured routes, no faults or journal. */
  reset(): void {
    this.faultRegistry.clear();
    this.routeTable.clear();
    this.addConfiguredRoutes();
    this.journalLog.clear();
    this.inboxLog.clear();
    this.replaceWorld(this.freshWorld(), 'reset');
  }

  /**
   * Serves the API and the controls over HTTP. Only there is Host checked: in process no socket is open, so no
   * web page can reach emu.fetch through DNS.
   */
  async listen(options: ListenOptions = {}): Promise<RunningServer> {
    const { createAdaptorServer } = await import('@hono/node-server');
    const host = options.host ?? '127.0.0.1';
    const refusedHost = hostGuard(host, options.allowHosts);
    const server = createAdaptorServer({
      // The URL's host when a request names none (HTTP/1.0), which hostGuard lets pass.
      hostname: 'localhost',
      fetch: (request: Request, env: { incoming: NodeIncoming }) =>
        refusedHost(env.incoming.headers.host) ?? app().fetch(request, { ...this.bindings, body: socketBody(request, env.incoming) }),
    });
    // Bytes Node's parser refuses are answered with the error body rather than Node's bare 400.
    server.on('clientError', answerClientError);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 4747, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : options.port ?? 4747;
    // A wildcard bind is reached at its loopback address: the URL's host must pass the Host check.
    const reached = localAddress(host);
    const running: RunningServer = {
      url: `http://${reached.includes(':') ? `[${reached}]` : reached}:${port}`,
      port,
      close: () =>
        new Promise<void>((resolve) => {
          this.servers.delete(running);
          // An answer still being written (a held request emu.close() just released with its 503) may finish:
          // idle keep-alive connections are ended now and as each answer goes out; the rest are cut after a grace.
          const sweep = setInterval(() => {
            if ('closeIdleConnections' in server) server.closeIdleConnections();
          }, CLOSE_SWEEP_MS);
          const cut = setTimeout(() => {
            if ('closeAllConnections' in server) server.closeAllConnections();
          }, CLOSE_GRACE_MS);
          sweep.unref();
          cut.unref();
          server.close(() => {
            clearInterval(sweep);
            clearTimeout(cut);
            resolve();
          });
          if ('closeIdleConnections' in server) server.closeIdleConnections();
        }),
    };
    this.servers.add(running);
    return running;
  }

  /** Stops servers and real-time timers; requests held by a `delayMs` fault are answered 503 first. */
  async close(): Promise<void> {
    this.world.clock.dispose('closed');
    await Promise.all([...this.servers].map((s) => s.close()));
  }

  private addConfiguredRoutes(): void {
    this.configuredRoutes.forEach((route, i) => {
      try {
        this.routeTable.add(route?.from, route?.to);
      } catch (error) {
        throw new TypeError(`routes[${i}]: ${(error as Error).message}`);
      }
    });
  }

  /** A world with the handlers of every task kind; fresh from the seed, or around a restored state. */
  private freshWorld(restored?: { state: State; initialCompanies: CreatedCompanyInfo[]; random: readonly number[]; requestRandom: readonly number[] }): World {
    const { start, core } = this.config;
    const clock = new VirtualClock({ mode: this.mode, start });
    const random = createRandom(restored ? (restored.random as RandomState) : seedRandom(this.seed));
    const requestRandom = createRandom(restored ? (restored.requestRandom as RandomState) : seedRandom(`${typeof this.seed}:${String(this.seed)}:requests`));
    const world: World = {
      state: restored?.state ?? createState(start),
      inFlight: new Map(),
      initialCompanies: restored?.initialCompanies ?? [],
      clock,
      random,
      requestRandom,
      apply: (fn, at = clock.now()) => {
        const result = fn(world.state, { now: at, random: world.random, config: core });
        for (const task of drainOutbox(world.state)) clock.schedule({ kind: task.kind, owner: task.owner, payload: task.payload }, task.due);
        return result;
      },
    };
    registerDeliveryTasks(world, this.transport);
    registerJobs(world, this.faultRegistry);
    if (!restored) {
      schedulePeriodicJobs(clock, start);
      // At the start instant itself, not clock.now(): in real mode the wall clock moves on while the emulator is
      // built, and ids are UUIDv7 of their creation time, so a reset would otherwise recreate them with other ids.
      for (const options of this.bootstrap) world.initialCompanies.push(describe(unwrap(world.apply((state, ctx) => createCompany(state, options, ctx), start))));
    }
    return world;
  }

  /**
   * The old world's clock is disposed, which releases every request held by a `delayMs` fault: each answers 503
   * saying why, instead of hanging on a clock nothing will move again or running against the new state.
   */
  private replaceWorld(world: World, reason: WorldEnd): void {
    this.world.clock.dispose(reason);
    this.world = world;
  }
}

export function createEmulator(options: EmulatorOptions = {}): Emulator {
  return new Emulator(options);
}

/**
 * The body of a request that came over the socket. HTTP/1.1 has a body only with a length or chunked
 * encoding. A declared length is read through request.arrayBuffer(), which @hono/node-server serves
 * straight from the socket; a chunked one from the Node stream, with the limit applied as it arrives.
 *
 * A body Node's parser cannot finish (the connection ends short of the length or the last chunk, a chunk size
 * that is no number, a transfer coding other than chunked) fails the read with a BodyReadError: the API journals
 * a 400 corpo_ilegivel. What the client gets is the answer of the server's clientError listener
 * (http/client-errors.ts), written as Node's parser gives up on the connection. Framing errors in the headers (a
 * Content-Length that is no number, both Content-Length and Transfer-Encoding) are answered there before the
 * emulator sees the request at all, so the journal has no entry for them.
 */
function socketBody(request: Request, incoming: NodeIncoming): BodySource {
  const declared = incoming.headers['content-length'];
  const chunked = declared === undefined && incoming.headers['transfer-encoding'] !== undefined;
  return {
    present: chunked || (declared !== undefined && declared !== '0'),
    read: (limit) =>
      readingBody(async () => {
        if (chunked) return readStream(incoming, limit);
        if (!(Number(declared) <= limit)) return undefined;
        return new Uint8Array(await request.arrayBuffer());
      }),
  };
}

/**
 * A chunked Node request body, or undefined when it exceeds `limit`. Past the limit the rest is read and
 * dropped, so the keep-alive connection stays usable for the next request; a body that goes on past
 * DRAIN_LIMIT ends the connection instead.
 */
async function readStream(incoming: NodeIncoming, limit: number): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of incoming) {
    total += chunk.byteLength;
    if (total <= limit) chunks.push(chunk);
    else if (total > DRAIN_LIMIT) {
      incoming.destroy();
      break;
    }
  }
  return total > limit ? undefined : Buffer.concat(chunks, total);
}

const DRAIN_LIMIT = 64 * 1024 * 1024;

/** What the server reads of Node's request message (HTTP/1 or HTTP/2). */
type NodeIncoming = { readonly headers: IncomingHttpHeaders; destroy(): unknown } & AsyncIterable<Uint8Array>;

function describe(created: CreatedCompany): CreatedCompanyInfo {
  return {
    companyId: created.company.id,
    cnpjRoot: created.company.cnpjRoot,
    token: created.credential.token,
    headOffice: { id: created.headOffice.id, cnpj: created.headOffice.cnpj },
  };
}

function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  const { kind, codigo, mensagem, caminho } = result.refusal;
  throw new ControlError(STATUS_OF[kind], codigo, mensagem, caminho);
}
