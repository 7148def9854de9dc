/**
 * The in-process control API (emu.companies, emu.clock, emu.faults, …): the emulator's groups of controls, each made
 * by its group's module (src/control/groups/), which also holds the group's /_emulator routes (its rows, a thin HTTP
 * rendering of the same controls). Each control is a thin call into the engine and the core, a refusal thrown as a
 * ControlError with the status and code the HTTP controls answer. This class only gathers the groups and the
 * emulator's own methods, each a call of its group.
 */
import type { ClockMode } from '../clock/clock.js';
import type { Activity } from '../engine/activity.js';
import type { Engine } from '../engine/engine.js';
import type { Grading, Report } from '../grading/report.js';
import { ControlContext, type CompanyFilter } from './context.js';
import { activityOf } from './groups/activity.js';
import { clockControls, type ClockControls } from './groups/clock.js';
import { companiesControls, type CompaniesControls } from './groups/companies.js';
import { info, reset, type EmulatorInfo } from './groups/emulator.js';
import { explorationsControls, type ExplorationsControls } from './groups/explorations.js';
import { faultsControls, type FaultsControls } from './groups/faults.js';
import { inboxControls, type InboxControls } from './groups/inbox.js';
import { journalControls, type JournalControls } from './groups/journal.js';
import { networkControls, type NetworkControls } from './groups/network.js';
import { regulatoryControls, type RegulatoryControls } from './groups/regulatory.js';
import { reportOf } from './groups/report.js';
import { restore, snapshotOf, type ChangeSubscription } from './groups/state.js';
import { webhooksControls, type WebhooksControls } from './groups/webhooks.js';
import type { Snapshot } from './snapshot-schema.js';

/**
 * Each group of controls (emu.companies, emu.clock, …) is an object of arrow functions, so that a control taken
 * off it (`const { create } = emu.companies`) still works; it is built on the first read of its getter and kept,
 * as is what the groups share (ControlContext): an emulator a test never asks for most of them of stays small.
 */
export class Controls {
  readonly seed: number | string;
  readonly mode: ClockMode;
  readonly #grading: Grading;
  #context: ControlContext | undefined;
  #companies: CompaniesControls | undefined;
  #clock: ClockControls | undefined;
  #faults: FaultsControls | undefined;
  #network: NetworkControls | undefined;
  #inbox: InboxControls | undefined;
  #webhooks: WebhooksControls | undefined;
  #regulatory: RegulatoryControls | undefined;
  #journal: JournalControls | undefined;
  #activity: Activity | undefined;
  #explorations: ExplorationsControls | undefined;

  constructor(
    protected readonly engine: Engine,
    grading: Grading,
  ) {
    this.seed = engine.config.seed;
    this.mode = engine.config.mode;
    this.#grading = grading;
  }

  get #shared(): ControlContext {
    return (this.#context ??= new ControlContext(this.engine, this.#grading, this));
  }

  get companies(): CompaniesControls {
    return (this.#companies ??= companiesControls(this.#shared));
  }

  get clock(): ClockControls {
    return (this.#clock ??= clockControls(
      () => this.engine.world.clock,
      () => this.engine.config.mode,
    ));
  }

  get faults(): FaultsControls {
    return (this.#faults ??= faultsControls(this.#shared));
  }

  get network(): NetworkControls {
    return (this.#network ??= networkControls(this.#shared));
  }

  /** Deliveries to URLs no route covers, as the built-in receiver got them (it answers 200). */
  get inbox(): InboxControls {
    return (this.#inbox ??= inboxControls(this.#shared));
  }

  get webhooks(): WebhooksControls {
    return (this.#webhooks ??= webhooksControls(this.#shared));
  }

  /** The regulatory reference (NCM table and attribute rules) products are evaluated against. */
  get regulatory(): RegulatoryControls {
    return (this.#regulatory ??= regulatoryControls(this.#shared));
  }

  get journal(): JournalControls {
    return (this.#journal ??= journalControls(this.#shared));
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
    return (this.#activity ??= activityOf(this.#shared));
  }

  /**
   * Explorations told to this emulator (explore() given it as `tell`, or `catalog-emulator explore` on its server):
   * each run is logged and shown as it is told, and the report holds the last.
   */
  get explorations(): ExplorationsControls {
    return (this.#explorations ??= explorationsControls(this.#shared));
  }

  /**
   * What the emulator saw the integration do, judged: the client's mistakes (findings, each with its rule, the
   * statements it comes from, the requests or events involved and the fix) and what its tests exercised of the
   * service (coverage). With `companyId`, that company's alone. It covers the emulator's whole life, resets included.
   */
  report(filter: CompanyFilter = {}): Report {
    return reportOf(this.#shared, filter);
  }

  info(): EmulatorInfo {
    return info(this.#shared);
  }

  /**
   * The whole service state as JSON-safe data: records, clock, scheduled tasks and random sources; with
   * `ownClocks`, the same of each company on a clock of its own.
   */
  snapshot(): Snapshot {
    return snapshotOf(this.#shared);
  }

  /**
   * Puts back a snapshot; throws a TypeError (a SnapshotError, with the path of the field) saying what is wrong
   * with one that is not, and then nothing has changed. Faults, routes and the journal are kept.
   */
  restore(snapshot: unknown): void {
    restore(this.#shared, snapshot);
  }

  /**
   * Back to a fresh emulator: clock at its start, no state but the configured companies, only the configured routes,
   * no faults or journal.
   */
  reset(): void {
    reset(this.#shared);
  }
}
