/**
 * The in-process control API (emu.companies, emu.clock, emu.faults, …): each control a thin call into the
 * engine and the core, a refusal thrown as a ControlError with the status and code the HTTP controls answer.
 * The /_emulator routes (the rows of table.ts) are a thin HTTP rendering of this same API.
 */
import { ClockRangeError, type ClockMode, type PersistedTask, type VirtualClock } from '../clock/clock.js';
import { addCredential, createCompany, PERMISSIONS, updateCompany, type Company, type CompanyFlags, type Permission } from '../core/companies.js';
import { ID_PATTERN } from '../core/random.js';
import type { Result } from '../core/refusal.js';
import { currentReference, type Published } from '../core/regulatory/reference.js';
import { snapshotView, type SnapshotChange, type SnapshotView } from '../core/regulatory/snapshot.js';
import { exportState, importState, plainCopy } from '../core/snapshot.js';
import { publishReferenceChange } from '../core/surveillance-executions.js';
import { isoString, parseDuration } from '../core/time.js';
import { EVENT_KINDS, raiseEvent, rearmStartedAttempts, type EventData } from '../core/webhooks/events.js';
import { toInstant, type CompanyOptions } from '../engine/config.js';
import type { Engine } from '../engine/engine.js';
import type { SeededCompany } from '../engine/fixtures.js';
import type { Activity } from '../engine/activity.js';
import type { StateChangeListener } from '../engine/changes.js';
import { JournalFilterError, readJournalFilter, type JournalEntry, type JournalFilter, type JournalQuery } from '../engine/journal.js';
import { describeCompany, type CreatedCompanyInfo, type World } from '../engine/world.js';
import { STATUS_OF } from '../http/errors.js';
import { formatPath } from '../http/schemas.js';
import type { InboxEntry } from '../network/inbox.js';
import type { NetworkRoute, ReceiverHandler } from '../network/routes.js';
import { VERSION } from '../version.js';
import { ControlError } from './control-error.js';
import { FaultInputError, type FaultInput, type FaultView } from '../engine/faults.js';
import type { NearMisses } from '../engine/near-misses.js';
import { companyStateError, readCompanySnapshot, readSnapshot, type CompanySnapshot, type Snapshot } from './snapshot-schema.js';
import { companyProblem, exportCompany, removeCompany, resetCompany, swapCompany } from '../core/company-data.js';
import { checkReceiver, readCheckOptions, readSecret, type ReceiverCheck, type ReceiverCheckOptions } from '../grading/receiver-check.js';
import { receiverSummary, type Grading, type Report } from '../grading/report.js';

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

/**
 * Each group of controls (emu.companies, emu.clock, …) is an object of arrow functions, so that a control taken
 * off it (`const { create } = emu.companies`) still works; it is built on the first read of its getter and kept.
 * Built in the constructor, the eight groups (36 closures, 8 objects) were 2.5 KB of the 17 KB every emulator kept
 * (heap snapshot), though a test may never ask for most of them.
 */
export class Controls {
  readonly seed: number | string;
  readonly mode: ClockMode;
  #companies: ReturnType<Controls['companiesControls']> | undefined;
  #clock: ClockControls | undefined;
  #faults: ReturnType<Controls['faultsControls']> | undefined;
  #network: ReturnType<Controls['networkControls']> | undefined;
  #inbox: ReturnType<Controls['inboxControls']> | undefined;
  #webhooks: ReturnType<Controls['webhooksControls']> | undefined;
  #regulatory: ReturnType<Controls['regulatoryControls']> | undefined;
  #journal: ReturnType<Controls['journalControls']> | undefined;
  #activity: Activity | undefined;
  /** Each company's last receiver check (webhooks.checkDestination), until it or the emulator is reset. */
  readonly #receiverChecks = new Map<string, ReceiverCheck>();
  /** The last receiver check of any kind (a URL, a handler, a company's destination): the whole report's receiver part. */
  #lastReceiverCheck: ReceiverCheck | undefined;

  readonly #grading: Grading;

  constructor(protected readonly engine: Engine, grading: Grading) {
    this.seed = engine.config.seed;
    this.mode = engine.config.mode;
    this.#grading = grading;
  }

  get companies() {
    return (this.#companies ??= this.companiesControls());
  }
  private companiesControls() {
    return {
      /**
       * A company with its head office and a credential holding `permissions` (all six by default); with
       * `clock: 'own'`, on a clock of its own (see CompanyOptions.clock).
       */
      create: (options: CompanyOptions = {}): CompanyHandle => {
        const engine = this.engine;
        if (options.clock === 'own') return this.handle(unwrap(engine.createOwnClockCompany(options)));
        const shared = engine.world;
        return this.handle(describeCompany(unwrap(shared.apply((state, ctx) => createCompany(state, options, ctx, engine.rootsOutside(shared))))));
      },
      /**
       * The companies given in EmulatorOptions.companies, with their tokens (the same after every reset); one removed
       * since (companies.remove) is not among them until the next whole reset brings it back.
       */
      initial: (): CreatedCompanyInfo[] => {
        const { initialCompanies, state } = this.engine.world;
        return initialCompanies.filter((company) => state.companies.has(company.companyId));
      },
      /**
       * What EmulatorOptions.fixtures created at the start or the last reset: each company's ids and token, and
       * the ids of its establishments, catalogs and products, and its webhook destination with its secret, as
       * created (later changes through the API do not show here); a company removed since is not among them.
       */
      fixtures: (): SeededCompany[] => {
        const { seeded, state } = this.engine.world;
        return seeded.filter((company) => state.companies.has(company.companyId));
      },
      /** Changes a company's flags: suspend its subscription, cut its capacity or allowance. */
      update: (companyId: string, flags: CompanyFlags): Company => unwrap(this.engine.worldOf(companyId).apply((state, ctx) => updateCompany(state, companyId, flags, ctx))),
      addCredential: (companyId: string, permissions: readonly Permission[] = PERMISSIONS): { token: string } => {
        const world = this.engine.worldOf(companyId);
        const { token } = unwrap(world.apply((state, ctx) => addCredential(state, companyId, permissions, ctx)));
        this.engine.indexTokens(world);
        return { token };
      },
      /** Every company: those on the shared clock, then those on clocks of their own. */
      list: (): Company[] => this.engine.worlds().flatMap((world) => [...world.state.companies.values()]),
      /**
       * The clock of a company on a clock of its own: the same controls as emu.clock, moving only that company's
       * time. A company on the shared clock has none (404 relogio_proprio_inexistente): emu.clock moves it.
       */
      clock: (companyId: string): ClockControls => clockControls(() => this.ownClockOf(companyId), () => this.mode),
      /**
       * A company's faults, inbox and journal: the views of emu.faults, emu.inbox and emu.journal kept to that
       * company (see CompanyScope). 404 empresa_nao_encontrada for an unknown company, now and at each call.
       */
      scope: (companyId: string): CompanyScope => {
        this.worldWith(companyId);
        return companyScope(this, companyId, () => void this.worldWith(companyId));
      },
      /**
       * Removes a company: its records, credentials (its tokens then get 401) and tasks, or its whole world if it is
       * on a clock of its own; a request of it held by a delayMs fault answers 503. The faults that match only it,
       * and its inbox and journal entries, go with it. Every other company's records, positions and tasks stay as
       * they were.
       */
      remove: (companyId: string): void => {
        const world = this.worldWith(companyId);
        const reason = `told to remove company ${companyId}`;
        this.forgetHarness(companyId);
        if (this.engine.removeOwnWorld(companyId, reason)) return;
        world.apply((state) => removeCompany(state, companyId));
        world.clock.removeOwner(companyId, reason);
      },
      /**
       * The company back as it was created: the same id, CNPJ root, flags, head office and first credential (same
       * token and permissions), no other record and no task; answers as its creation did. A request of it held by a
       * delayMs fault answers 503. A company on a clock of its own starts over in a new world, its clock at the
       * emulator's now. The faults that match only it, and its inbox and journal entries, are dropped. 409
       * criacao_desconhecida for a company restored from a snapshot that predates it.
       */
      reset: (companyId: string): CreatedCompanyInfo => {
        const world = this.worldWith(companyId);
        // A company on a clock of its own starts over in a new world, its clock back at the emulator's now.
        const renewed = this.engine.resetOwnWorld(companyId, `reset for company ${companyId}`);
        const created = renewed ?? describeCompany(unwrap(world.apply((state) => resetCompany(state, companyId))));
        if (!renewed) world.clock.removeOwner(companyId, `reset for company ${companyId}`);
        this.forgetHarness(companyId);
        return created;
      },
      /**
       * One company's records and tasks as JSON-safe data (`catalog-emulator/company`): what restore(companyId, …)
       * puts back. `now` is its clock's now when taken; the regulatory reference is not in it (it is no company's).
       */
      snapshot: (companyId: string): CompanySnapshot => {
        const world = this.worldWith(companyId);
        // Built as new data (the records copied, the tasks' payloads too), which the caller owns: the cast drops
        // the core types' readonly.
        const snapshot = { format: 'catalog-emulator/company' as const, version: 1 as const, companyId, now: world.clock.now(), tasks: plainCopy(world.clock.tasksOf(companyId)), state: exportCompany(world.state, companyId) };
        return snapshot as CompanySnapshot;
      },
      /**
       * Puts a company's snapshot in place of its records and tasks, leaving every other company's. On the shared
       * clock its tasks come back at their due times on the clock as it is now (one due already runs at the next
       * advance); a company on a clock of its own gets its clock back at the saved now. Throws a
       * SnapshotError (the path of the field) for one that is not of this company or would not fit beside the
       * others (an id, CNPJ root, token or position another company has), and then nothing has changed.
       */
      restore: (companyId: string, snapshot: unknown): void => {
        const world = this.worldWith(companyId);
        // A copy of the snapshot (readCompanySnapshot copies while it checks): the caller may change its own later.
        const data = readCompanySnapshot(snapshot, companyId, (task) => world.clock.loadProblem(task));
        const elsewhere = this.engine.worlds().filter((other) => other !== world).map((other) => other.state);
        const problem = companyProblem(world.state, data.state, companyId, elsewhere);
        if (problem) throw companyStateError(problem);
        const reason = `restored for company ${companyId}`;
        if (world.owner === companyId) {
          // A company on a clock of its own gets its time back too: its clock at the saved now, with its tasks, and
          // the housekeeping runs of its world in the same rhythm, each at its first occurrence after that now.
          const housekeeping = world.clock.tasks().filter((task) => task.owner === null).map((task) => ({ ...task, due: firstAfter(task, data.now) }));
          world.clock.load(data.now, [...housekeeping, ...data.tasks], reason);
        } else {
          world.clock.removeOwner(companyId, reason);
          for (const task of data.tasks) world.clock.schedule(task, task.due);
        }
        world.apply((state, ctx) => {
          // Checked above (companyProblem), and the state has not changed since.
          swapCompany(state, companyId, data.state);
          // Requests in flight did not survive: its attempts still running end by their time-out.
          rearmStartedAttempts(state, ctx, companyId);
        });
        this.engine.indexTokens(world);
        this.engine.tell({ kind: 'restored', companyId });
      },
    };
  }

  get clock(): ClockControls {
    return (this.#clock ??= clockControls(() => this.engine.world.clock, () => this.engine.config.mode));
  }

  get faults() {
    return (this.#faults ??= this.faultsControls());
  }
  private faultsControls() {
    return {
      /** Adds a fault; throws a FaultInputError naming the field and what it accepts when `fault` is not one, or could never fire. */
      add: (fault: FaultInput): { id: string } => this.engine.faults.add(fault),
      /** The faults; with `companyId`, only those whose match.companyId is that company. */
      list: (filter: CompanyFilter = {}): FaultView[] => {
        const companyId = this.filtered(filter);
        return only(this.engine.faults.list(), companyId === undefined ? undefined : (fault) => faultOf(fault, companyId));
      },
      remove: (id: string): boolean => this.engine.faults.remove(id),
      /**
       * Why the armed fault `id` has not fired, or not as often as asked: the requests (deliveries, job runs) it was
       * checked against since it was armed, the closest first, each with the conditions it met and those it failed
       * (see NearMisses); with `companyId`, among that company's only. 404 falha_nao_encontrada for no fault armed
       * with this id.
       */
      nearMisses: (id: string, filter: CompanyFilter = {}): NearMisses => {
        const companyId = this.filtered(filter);
        const found = this.engine.faults.nearMisses(id, companyId);
        if (found === undefined) throw new ControlError(404, 'falha_nao_encontrada', `No fault ${shown(id)} is armed (one that fired its times has left the list); GET /_emulator/faults lists them.`, 'path.id');
        return found;
      },
      /** Removes every fault; with `companyId`, only those whose match.companyId is that company. */
      clear: (filter: CompanyFilter = {}): void => {
        const companyId = this.filtered(filter);
        if (companyId === undefined) return this.engine.faults.clear();
        for (const fault of this.engine.faults.list()) if (faultOf(fault, companyId)) this.engine.faults.remove(fault.id);
      },
    };
  }

  get network() {
    return (this.#network ??= this.networkControls());
  }
  private networkControls() {
    return {
      /**
       * Sends deliveries for URLs under `from` (https) to the local URL `to`, or to an in-process handler that
       * takes a Fetch Request and returns a Response (throwing, or never answering, simulates a dead peer).
       */
      route: (from: string, to: string | ReceiverHandler): NetworkRoute => this.engine.routes.add(from, to),
      routes: (): NetworkRoute[] => this.engine.routes.list(),
      unroute: (from: string): boolean => this.engine.routes.remove(from),
      clear: (): void => this.engine.routes.clear(),
    };
  }

  /** Deliveries to URLs no route covers, as the built-in receiver got them (it answers 200). */
  get inbox() {
    return (this.#inbox ??= this.inboxControls());
  }
  private inboxControls() {
    return {
      /** The deliveries received, oldest first; with `companyId`, only those of that company's events. */
      list: (filter: CompanyFilter = {}): InboxEntry[] => only(this.engine.inbox.list(), this.ofCompany(filter)),
      /** Drops every delivery; with `companyId`, only those of that company's events. */
      clear: (filter: CompanyFilter = {}): void => this.engine.inbox.clear(this.ofCompany(filter)),
    };
  }

  get webhooks() {
    return (this.#webhooks ??= this.webhooksControls());
  }
  private webhooksControls() {
    return {
      /**
       * Raises an event for a company as the service would (the envelope built, signed and delivered on the
       * clock): to exercise a receiver with any of the eight kinds before the feature that raises it exists.
       * Refused (404 destino_nao_encontrado) for a company without a webhook destination: the service records
       * no event there (an event always names its destination: spec CONV-09, WH-EVT-01), and a control that
       * made one up would show what the service never does.
       */
      raise: (companyId: string, dados: EventData): { eventId: string } => {
        const world = this.worldWith(companyId);
        if (!EVENT_KINDS.includes(dados.tipo)) throw new ControlError(422, 'valor_invalido', `dados.tipo must be one of ${EVENT_KINDS.join(', ')}.`, 'body.dados.tipo');
        const event = world.apply((state, ctx) => raiseEvent(state, companyId, dados, ctx));
        if (event === undefined) {
          throw new ControlError(
            404,
            'destino_nao_encontrado',
            `Company ${companyId} has no webhook destination: the service records and delivers events only for a company that has a destination (active, or revoked and kept for resends). Configure one with PUT /v1/webhook (If-None-Match: *) first.`,
          );
        }
        return { eventId: event.id };
      },
      /**
       * Sends the receiver check's cases to a receiver (its URL, through a network route that covers it, or an
       * in-process handler) signed with `secret`, and judges each answer within the attempt time-out of this
       * emulator's deliveries (`webhooks.attemptTimeout`), as an attempt is judged. The wall clock stamps them
       * unless `now` says otherwise (a receiver on fake timers). Throws a TypeError for options that are not; never
       * for what the receiver does (a promise rejected, like every failure of these two).
       */
      checkReceiver: async (options: ReceiverCheckOptions): Promise<ReceiverCheck> => {
        const usage = 'checkReceiver takes { url | fetch, secret, previousSecret?, now?, deadlineMs?, cnpjRoot? }';
        if (typeof options !== 'object' || options === null) throw new TypeError(usage);
        const limits = readCheckOptions(options, this.engine.config.core.delivery.attemptTimeoutMs);
        const secret = readSecret('secret', options.secret);
        const previous = options.previousSecret === undefined ? undefined : readSecret('previousSecret', options.previousSecret);
        const handler = options.fetch;
        if (handler !== undefined && typeof handler !== 'function') throw new TypeError('fetch must be a function taking a Fetch Request and returning a Response (a hono app\'s fetch, say)');
        if (handler === undefined && options.url === undefined) throw new TypeError("checkReceiver needs url (the receiver's http or https URL) or fetch (an in-process receiver)");
        const url = options.url === undefined ? DEFAULT_HANDLER_URL : receiverUrl(options.url);
        const routed = handler === undefined ? this.engine.routes.resolve(url) : undefined;
        const reach = handler ?? routed ?? url;
        const target = { url, reach, via: handler !== undefined ? IN_PROCESS : typeof routed === 'function' ? IN_PROCESS : (routed ?? null) };
        const check = await checkReceiver(target, { ...limits, secret, oldSecret: { secret: previous, source: 'given' }, now: limits.now ?? wallClock });
        this.#lastReceiverCheck = check;
        return check;
      },
      /**
       * The receiver check against a company's webhook destination: its URL through the network routes (a URL no
       * route covers would reach the built-in inbox, which accepts everything: 409 destino_sem_rota), signed with its
       * secret, `old-secret` with the secret before its last configuration change. Stamped by the company's clock
       * (the one its deliveries are signed with) unless `now` says otherwise. Kept as its lastReceiverCheck.
       */
      checkDestination: async (
        companyId: string,
        options: Pick<ReceiverCheckOptions, 'now' | 'deadlineMs'> = {},
      ): Promise<ReceiverCheck> => {
        const world = this.worldWith(companyId);
        const limits = readCheckOptions(options, this.engine.config.core.delivery.attemptTimeoutMs);
        const destination = world.state.webhookDestinations.get(companyId);
        if (destination === undefined) throw new ControlError(404, 'destino_nao_encontrado', `Company ${companyId} has no webhook destination to check; configure one with PUT /v1/webhook (If-None-Match: *) first.`);
        const routed = this.engine.routes.resolve(destination.url);
        if (routed === undefined) {
          throw new ControlError(
            409,
            'destino_sem_rota',
            `No network route covers the destination ${destination.url}: its deliveries land in the built-in inbox, which accepts everything, so there is no receiver to check. Route it to your receiver (POST /_emulator/network/routes, emu.network.route or --route) first.`,
          );
        }
        const cnpjRoot = world.state.companies.get(companyId)!.cnpjRoot;
        const target = { url: destination.url, reach: routed, via: typeof routed === 'function' ? IN_PROCESS : routed };
        const previous = destination.previousSecret ?? undefined;
        const check = await checkReceiver(target, { ...limits, cnpjRoot, secret: destination.secret, oldSecret: { secret: previous, source: 'previous' }, now: limits.now ?? (() => this.engine.worldOf(companyId).clock.now()) });
        this.#receiverChecks.set(companyId, check);
        this.#lastReceiverCheck = check;
        return check;
      },
      /** The last checkDestination of a company (undefined before one); a company reset or removed forgets it. */
      lastReceiverCheck: (companyId: string): ReceiverCheck | undefined => {
        this.worldWith(companyId);
        return this.#receiverChecks.get(companyId);
      },
    };
  }

  /** The regulatory reference (NCM table and attribute rules) products are evaluated against. */
  get regulatory() {
    return (this.#regulatory ??= this.regulatoryControls());
  }
  private regulatoryControls() {
    return {
      /** The snapshot in force: id, publication time, every NCM and attribute definition. */
      current: (): SnapshotView => snapshotView(currentReference(this.engine.world.state)),
      /**
       * Publishes a new snapshot (extinguish or add NCMs, replace required attributes, add or change attributes) and
       * triggers the surveillance executions it affects, in every company's world: the reference is the same for all.
       */
      publish: (change: SnapshotChange): Published => {
        const [shared, ...own] = this.engine.worlds();
        const published = unwrap(shared!.apply((state, ctx) => publishReferenceChange(state, change, ctx)));
        // The same change on the same reference: accepted in every world, as it was in the shared one.
        for (const world of own) world.apply((state, ctx) => publishReferenceChange(state, change, ctx));
        return published;
      },
    };
  }

  get journal() {
    return (this.#journal ??= this.journalControls());
  }
  private journalControls() {
    return {
      /**
       * The requests of the last 10,000 that `filter` keeps (every one without it), oldest first: see JournalFilter.
       * Throws a JournalFilterError (a TypeError) naming a field that is not one or a value it does not accept; a
       * ControlError 404 empresa_nao_encontrada for a company of none.
       */
      find: (filter: JournalFilter = {}): JournalEntry[] => this.engine.journal.find(this.journalQuery(filter)),
      /** How many requests find(filter) answers: "exactly 2 PATCH /v1/produtos/* answered 412". */
      count: (filter: JournalFilter = {}): number => this.engine.journal.count(this.journalQuery(filter)),
      /** find(filter), by its first name. */
      entries: (filter: JournalFilter = {}): JournalEntry[] => this.engine.journal.find(this.journalQuery(filter)),
      /** Drops every entry; with `companyId`, only that company's. */
      clear: (filter: CompanyFilter = {}): void => this.engine.journal.clear(this.ofCompany(filter)),
      subscribe: (listener: (entry: JournalEntry) => void): (() => void) => this.engine.journal.subscribe(listener),
    };
  }

  /**
   * A count that grows whenever what snapshot() carries may have changed: an API request, a control that changes
   * records or moves a clock, a delivery or job run by a clock, a reset, a restore. The same count twice means the
   * same state in between, so a caller persisting snapshots saves only when it moved (as the CLI's --state does).
   */
  stateVersion(): number {
    return this.engine.stateVersion;
  }

  /**
   * Every change of what snapshot() carries, as data, as it happens (StateChange): for a program that keeps the
   * state durable with a log of changes instead of a snapshot per change (the CLI's serve --state). A listener is
   * told synchronously, at the end of the turn that changed something and in any case before an answer that depends
   * on it leaves emulator.fetch or a listen() server; replayChanges folds them back into a snapshot. Nothing is
   * noted while nobody subscribes.
   */
  get changes(): ChangeSubscription {
    return { subscribe: (listener) => this.engine.subscribeChanges(listener) };
  }

  /**
   * What the emulator does, as it happens: each API request (its status, error code and path, replay, fault), each
   * control call, each webhook delivery attempt with its outcome, and each step of a job on a record. Nothing is
   * made while nobody subscribes. It outlives resets and restores.
   */
  get activity(): Activity {
    return (this.#activity ??= { subscribe: (listener) => this.engine.activity.subscribe(listener) });
  }

  /**
   * What the emulator saw the integration do, judged: the client's mistakes (findings, each with its rule, the
   * statements it comes from, the requests or events involved and the fix) and what its tests exercised of the
   * service (coverage). With `companyId`, that company's alone. It covers the emulator's whole life, resets included.
   */
  report(filter: CompanyFilter = {}): Report {
    const companyId = this.filtered(filter);
    const report = this.#grading.report(companyId);
    // A company's report shows the last check of its destination; the whole report, the last check of any receiver.
    const check = companyId === undefined ? this.#lastReceiverCheck : this.#receiverChecks.get(companyId);
    return check === undefined ? report : { ...report, receiver: receiverSummary(check) };
  }

  info(): EmulatorInfo {
    return { name: 'catalog-emulator', version: VERSION, now: isoString(this.engine.world.clock.now()), clockMode: this.mode, seed: this.seed };
  }

  /**
   * The whole service state as JSON-safe data: records, clock, scheduled tasks and random sources; with
   * `ownClocks`, the same of each company on a clock of its own.
   */
  snapshot(): Snapshot {
    const own = this.engine.ownWorlds().map((world) => ({ companyId: world.owner!, ...savedWorld(world) }));
    // Built as new data (see savedWorld), which the caller owns: the cast drops the core types' readonly.
    const snapshot = {
      format: 'catalog-emulator/state' as const,
      version: 1 as const,
      seed: this.seed,
      ...savedWorld(this.engine.world),
      ...(own.length === 0 ? {} : { ownClocks: own }),
    };
    return snapshot as Snapshot;
  }

  /**
   * Puts back a snapshot; throws a TypeError (a SnapshotError, with the path of the field) saying what is wrong
   * with one that is not, and then nothing has changed. Faults, routes and the journal are kept.
   */
  restore(snapshot: unknown): void {
    // Every check comes first: the current clock has the handlers of every task kind, and answers for a new one.
    // A copy of the snapshot (readSnapshot copies while it checks): the caller may change its own later.
    const data = readSnapshot(snapshot, (task) => this.engine.world.clock.loadProblem(task));
    const loaded = (world: Pick<Snapshot, 'state' | 'now' | 'tasks' | 'random' | 'requestRandom'>) => ({ state: importState(world.state), now: world.now, tasks: world.tasks, random: world.random, requestRandom: world.requestRandom });
    this.engine.restore(loaded(data), (data.ownClocks ?? []).map((world) => ({ companyId: world.companyId, ...loaded(world) })));
  }

  /**
   * The company a view is filtered by (undefined: every company). A filter that is not `{ companyId? }` with a
   * company id of this emulator is 422 valor_invalido; an id no company has is 404 empresa_nao_encontrada, so
   * that a typo does not pass for a company with nothing to show.
   */
  private filtered(filter: CompanyFilter): string | undefined {
    if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
      throw new ControlError(422, 'valor_invalido', `A view's filter is { companyId?: string }; got ${JSON.stringify(filter) ?? String(filter)}.`, 'query');
    }
    const other = Object.keys(filter).find((key) => key !== 'companyId');
    if (other !== undefined) {
      throw new ControlError(422, 'valor_invalido', `${JSON.stringify(other)} is not a filter of this view; the only one is companyId (a company's id).`, formatPath('query', [other]));
    }
    const { companyId } = filter as { companyId?: unknown };
    return companyId === undefined ? undefined : this.filteredCompany(companyId);
  }

  /** `companyId` as a view's filter: a company id of this emulator (422 valor_invalido for none, 404 empresa_nao_encontrada for an unknown one). */
  private filteredCompany(companyId: unknown): string {
    if (typeof companyId !== 'string' || !ID_PATTERN.test(companyId)) {
      throw new ControlError(422, 'valor_invalido', `query.companyId must be a company id of this emulator (a lowercase UUID, as POST /_emulator/companies answers it); got ${shown(companyId)}.`, 'query.companyId');
    }
    this.worldWith(companyId, 'query.companyId');
    return companyId;
  }

  /**
   * `filter` read (a JournalFilterError naming the field: a companyId that is no company id among them), its company
   * one of this emulator's (404 empresa_nao_encontrada, as every view answers).
   */
  private journalQuery(filter: JournalFilter): JournalQuery {
    const query = readJournalFilter(filter);
    if (query.companyId !== undefined) this.worldWith(query.companyId, 'query.companyId');
    return query;
  }

  /** Which entries (of the inbox, the journal) a filter keeps: undefined for every one. */
  private ofCompany(filter: CompanyFilter): ((entry: { readonly companyId: string | null }) => boolean) | undefined {
    const companyId = this.filtered(filter);
    return companyId === undefined ? undefined : (entry) => entry.companyId === companyId;
  }

  /** The world company `companyId` lives in; a ControlError 404 empresa_nao_encontrada, located at `caminho`, for a company of none. */
  private worldWith(companyId: string, caminho = 'path.companyId'): World {
    const world = this.engine.worldOf(companyId);
    if (!world.state.companies.has(companyId)) throw new ControlError(404, 'empresa_nao_encontrada', `No company ${companyId} in this emulator.`, caminho);
    return world;
  }

  /**
   * A reset or removal of one company drops what the harness holds of it, as a whole reset drops everything:
   * the faults that match only it, and its inbox and journal entries. Faults of every company stay.
   */
  private forgetHarness(companyId: string): void {
    const only = { companyId };
    this.faults.clear(only);
    this.engine.faults.forget(companyId);
    this.inbox.clear(only);
    this.journal.clear(only);
    this.#receiverChecks.delete(companyId);
    this.engine.tell({ kind: 'reset', companyId });
  }

  /** What companies.create answers: the company, and its own controls (see CompanyHandle). */
  private handle(info: CreatedCompanyInfo): CompanyHandle {
    return new Handle(info, this, () => this.worldWith(info.companyId));
  }

  /** The clock of a company on a clock of its own; a ControlError for another. */
  private ownClockOf(companyId: string): VirtualClock {
    const world = this.worldWith(companyId);
    if (world.owner === companyId) return world.clock;
    throw new ControlError(404, 'relogio_proprio_inexistente', `Company ${companyId} is on the shared clock, which /_emulator/clock (emu.clock) moves; create a company with "clock": "own" to give it a clock of its own.`, 'path.companyId');
  }

  /** Back to a fresh emulator: clock at its start, no state but the configured companies, only the configured routes, no faults or journal. */
  reset(): void {
    this.engine.reset();
    this.#receiverChecks.clear();
  }
}

/** What a check's report calls an in-process receiver. */
const IN_PROCESS = 'in-process handler';
/** The URL an in-process receiver's requests name when the check is given none. */
const DEFAULT_HANDLER_URL = 'https://receiver.test/';
const wallClock = () => Date.now();

/** A receiver's URL: http or https (a TypeError otherwise). */
function receiverUrl(url: unknown): string {
  let parsed: URL | undefined;
  try {
    parsed = typeof url === 'string' ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) throw new TypeError(`url must be the receiver's http:// or https:// URL (got ${shown(url)})`);
  return url as string;
}

/** What a view of the faults, the inbox or the journal is kept to: one company (by its id), or every one. */
export interface CompanyFilter {
  readonly companyId?: string;
}


/** The entries `keep` picks; all of them without it. */
const only = <E>(entries: E[], keep: ((entry: E) => boolean) | undefined): E[] => (keep === undefined ? entries : entries.filter(keep));

/** A fault is of a company when its match names that company: it fires for no other. */
const faultOf = (fault: FaultView, companyId: string) => fault.match.companyId === companyId;

/** A company as companies.create answers it, with its own controls. */
export interface CompanyHandle extends CreatedCompanyInfo {
  /**
   * Its clock: its own (created with `clock: 'own'`), or the shared one it lives on, whose moves every company on
   * the shared clock sees.
   */
  readonly clock: ClockControls;
  /** Its faults: one added here matches only this company. */
  readonly faults: CompanyScope['faults'];
  readonly inbox: CompanyScope['inbox'];
  readonly journal: CompanyScope['journal'];
  /** emu.companies.reset(companyId). */
  reset(): CreatedCompanyInfo;
  /** emu.companies.remove(companyId). */
  remove(): void;
}

/**
 * A company with its controls: the four fields are its own enumerable properties, so it prints, compares and
 * serializes as the plain company; the controls are getters and methods of the class, built when first used
 * (creating a company stays cheap).
 */
class Handle implements CompanyHandle {
  readonly companyId: string;
  readonly cnpjRoot: string;
  readonly token: string;
  readonly headOffice: { readonly id: string; readonly cnpj: string };
  readonly #controls: Controls;
  readonly #worldOf: () => World;
  #scope: CompanyScope | undefined;
  #clock: ClockControls | undefined;

  constructor(info: CreatedCompanyInfo, controls: Controls, worldOf: () => World) {
    this.companyId = info.companyId;
    this.cnpjRoot = info.cnpjRoot;
    this.token = info.token;
    this.headOffice = info.headOffice;
    this.#controls = controls;
    this.#worldOf = worldOf;
  }

  get clock(): ClockControls {
    return (this.#clock ??= clockControls(() => this.#worldOf().clock, () => this.#controls.mode));
  }
  get faults(): CompanyScope['faults'] {
    return this.#scoped().faults;
  }
  get inbox(): CompanyScope['inbox'] {
    return this.#scoped().inbox;
  }
  get journal(): CompanyScope['journal'] {
    return this.#scoped().journal;
  }
  reset(): CreatedCompanyInfo {
    return this.#controls.companies.reset(this.companyId);
  }
  remove(): void {
    this.#controls.companies.remove(this.companyId);
  }
  #scoped(): CompanyScope {
    return (this.#scope ??= companyScope(this.#controls, this.companyId, () => void this.#worldOf()));
  }
}

/**
 * One company's faults, inbox and journal (emu.companies.scope(id)): for a test that shares the emulator with
 * others, each on its own company. A fault added here matches only this company; remove and clear touch only
 * its faults; the inbox and journal show and drop only its entries.
 */
export interface CompanyScope {
  readonly companyId: string;
  readonly faults: {
    /** Adds a fault whose match.companyId is this company (a FaultInputError at match.companyId when it names another). */
    add(fault: FaultInput): { id: string };
    list(): FaultView[];
    /** False, removing nothing, for a fault that is not this company's. */
    remove(id: string): boolean;
    clear(): void;
    /** emu.faults.nearMisses(id) of one of its faults, among its own requests, deliveries and job runs only (404 for another's). */
    nearMisses(id: string): NearMisses;
  };
  readonly inbox: { list(): InboxEntry[]; clear(): void };
  readonly journal: {
    /** Its requests that `filter` keeps (see JournalFilter; a companyId there must be this company's). */
    find(filter?: JournalFilter): JournalEntry[];
    count(filter?: JournalFilter): number;
    /** find(filter), by its first name. */
    entries(filter?: JournalFilter): JournalEntry[];
    clear(): void;
  };
}

/** The scope of `companyId` over the controls' filtered views; `check` runs first at each call (the company may be gone). */
function companyScope(controls: Controls, companyId: string, check: () => void): CompanyScope {
  const only = { companyId };
  const checked =
    <A extends unknown[], R>(run: (...args: A) => R) =>
    (...args: A): R => {
      check();
      return run(...args);
    };
  return {
    companyId,
    faults: {
      add: checked((fault: FaultInput) => controls.faults.add(scopedFault(fault, companyId))),
      list: checked(() => controls.faults.list(only)),
      remove: checked((id: string) => controls.faults.list(only).some((fault) => fault.id === id) && controls.faults.remove(id)),
      clear: checked(() => controls.faults.clear(only)),
      nearMisses: checked((id: string) => {
        if (!controls.faults.list(only).some((fault) => fault.id === id)) {
          throw new ControlError(404, 'falha_nao_encontrada', `Company ${companyId} has no fault ${shown(id)} armed; GET /_emulator/companies/${companyId}/faults lists its faults.`, 'path.id');
        }
        return controls.faults.nearMisses(id, only);
      }),
    },
    inbox: { list: checked(() => controls.inbox.list(only)), clear: checked(() => controls.inbox.clear(only)) },
    journal: {
      find: checked((filter?: JournalFilter) => controls.journal.find(scopedFilter(filter, companyId))),
      count: checked((filter?: JournalFilter) => controls.journal.count(scopedFilter(filter, companyId))),
      entries: checked((filter?: JournalFilter) => controls.journal.find(scopedFilter(filter, companyId))),
      clear: checked(() => controls.journal.clear(only)),
    },
  };
}

/**
 * `filter` kept to `companyId`; one naming another company is refused. Anything that is not an object goes on as
 * it is, for the filter's own check to refuse it.
 */
function scopedFilter(filter: JournalFilter = {}, companyId: string): JournalFilter {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) return filter;
  if (filter.companyId !== undefined && filter.companyId !== companyId) {
    throw new JournalFilterError('companyId', `companyId must be this company's id (${companyId}) or left out: a company's journal holds only its requests; got ${shown(filter.companyId)}.`);
  }
  return { ...filter, companyId };
}

/**
 * `fault` with match.companyId set to `companyId`; one whose match names another company is refused. Anything
 * that is not a fault with a match object goes on as it is, for the fault's own check to refuse it.
 */
function scopedFault(fault: FaultInput, companyId: string): FaultInput {
  if (typeof fault !== 'object' || fault === null || Array.isArray(fault)) return fault;
  const given: unknown = (fault as { match?: unknown }).match;
  const match = given === undefined ? {} : given;
  if (typeof match !== 'object' || match === null || Array.isArray(match)) return fault;
  const named = (match as { companyId?: unknown }).companyId;
  if (named !== undefined && named !== companyId) {
    throw new FaultInputError(`match.companyId must be this company's id (${companyId}) or left out: a fault added for a company matches only that company; got ${shown(named)}.`, 'match.companyId');
  }
  return { ...fault, match: { ...match, companyId } } as FaultInput;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** The controls of one clock (emu.clock, or a company's own). */
export interface ClockControls {
  now(): Date;
  mode(): ClockMode;
  /** Work pending: what runUntilIdle would run. */
  pending(): number;
  info(): ClockInfo;
  /**
   * Runs every task due within `by` ("90s", "15m", "24h", "31d", or ms), each at its own virtual time; at most
   * 3650 days, and never past 9999-12-31T23:59:59.999Z (a ClockRangeError says which bound). `ran` counts
   * every occurrence due, coalesced housekeeping runs included.
   */
  advance(by: number | string): Promise<{ now: Date; ran: number }>;
  /** advance() to an instant: not the past, at most 3650 days ahead, never past 9999-12-31T23:59:59.999Z. */
  advanceTo(instant: string | number | Date): Promise<{ now: Date; ran: number }>;
  /**
   * Runs the service's work (deliveries, job runs, held requests) until none is left, never a deadline; throws
   * ClockLimitError after `limit` tasks of work (default 10,000). A deadline it passes fires at the next advance.
   */
  runUntilIdle(options?: { limit?: number }): Promise<{ now: Date; ran: number }>;
}

/** emu.changes: the state's changes, for whoever keeps them. */
export interface ChangeSubscription {
  /** Calls `listener` with every change from now on (the state as it is now is where they start); returns the stop. */
  subscribe(listener: StateChangeListener): () => void;
}

/** Clock controls over the clock `clockOf` finds at each call (reset and restore replace clocks). */
function clockControls(clockOf: () => VirtualClock, modeOf: () => ClockMode): ClockControls {
  return {
    now: () => new Date(clockOf().now()),
    mode: modeOf,
    pending: () => clockOf().pending(),
    info: () => {
      const clock = clockOf();
      return { now: new Date(clock.now()), mode: modeOf(), pending: clock.pending(), deadlines: clock.deadlines() };
    },
    advance: async (by) => {
      const ms = parseDuration(by);
      if (ms === undefined) throw new ClockRangeError('by', `by must be whole milliseconds or a duration such as "90s", "15m", "24h", "31d", "1h30m"; got ${JSON.stringify(by)}`);
      return moved(await clockOf().advance(ms));
    },
    advanceTo: async (instant) => moved(await clockOf().advanceTo(toInstant(instant, 'to', (message) => new ClockRangeError('to', message)))),
    runUntilIdle: async (options = {}) => moved(await clockOf().runUntilIdle(options)),
  };
}

/** A world as a snapshot carries it: new data that shares nothing with the world (the records copied, the tasks' payloads too). */
function savedWorld(world: World) {
  return {
    now: world.clock.now(),
    random: [...world.random.state()] as [number, number, number, number],
    requestRandom: [...world.requestRandom.state()] as [number, number, number, number],
    tasks: plainCopy(world.clock.tasks()),
    state: exportState(world.state),
  };
}

/** A periodic task's first occurrence after `now`, in its rhythm (its due as it is, when it is not periodic). */
function firstAfter(task: PersistedTask, now: number): number {
  if (task.everyMs === undefined) return task.due;
  return task.due - Math.floor((task.due - now - 1) / task.everyMs) * task.everyMs;
}

const moved = (result: { now: number; ran: number }) => ({ now: new Date(result.now), ran: result.ran });

function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  const { kind, codigo, mensagem, caminho } = result.refusal;
  throw new ControlError(STATUS_OF[kind], codigo, mensagem, caminho);
}
