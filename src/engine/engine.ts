/**
 * The engine of one emulator: its configuration, what outlives a reset of the service state only until the
 * reset itself (faults, routes, the journal, the inbox), the network they shape, and the current world, which a
 * reset or a restore replaces.
 */
import { FaultRegistry } from './faults.js';
import { Inbox } from '../network/inbox.js';
import { RouteTable } from '../network/routes.js';
import { Transport } from '../network/transport.js';
import { readConfig, type Config, type EmulatorOptions } from './config.js';
import { ActivityFeed, type ObservedEmulator } from './activity.js';
import { Journal } from './journal.js';
import { pickCnpjRoot } from '../core/companies.js';
import type { Result } from '../core/refusal.js';
import type { CompanyOptions } from './config.js';
import { freshWorld, ownWorld, restoredWorld, type CreatedCompanyInfo, type SavedWorld, type World } from './world.js';
import type { Seeder } from './fixtures.js';
import { ChangeFeed, type StateChangeListener } from './changes.js';

/**
 * What a viewer of the emulator's past (the inspector) is told of: a reset of the whole emulator (`companyId` null)
 * or of one company (reset or removed), which ends what it keeps of them; a restore of either, which replaces their
 * records (what it keeps stays, as the journal does); and the emulator's close.
 */
export type EngineChange =
  | { readonly kind: 'reset' | 'restored'; readonly companyId: string | null }
  | { readonly kind: 'closed' };

/** Why a world's clock stops: the words a released request's 503 uses ("the emulator was reset …"). */
type WorldEnd = 'reset' | 'restored' | 'closed';

export class Engine implements ObservedEmulator {
  readonly config: Config;
  readonly faults: FaultRegistry;
  readonly journal = new Journal((companyId) => this.worldOf(companyId).state.companies.has(companyId));
  /**
   * What the emulator does, for whoever listens (emu.activity): it outlives resets and restores. An observer made
   * with it (the inspector) reads the engine only as an ObservedEmulator.
   */
  readonly activity = new ActivityFeed(this);
  readonly routes = new RouteTable();
  readonly inbox = new Inbox();
  /** The fake network the worlds' delivery tasks send through (WorldServices). */
  readonly transport: Transport;
  private current: World;
  /**
   * The worlds of the companies on clocks of their own, by company id, and which of them each credential token
   * opens: made with the first such company, as most emulators never have one.
   */
  private ownClocks: { readonly worlds: Map<string, World>; readonly tokens: Map<string, World> } | undefined;
  /** Creates the fixtures' records in every fresh world (EmulatorOptions.fixtures, read by the facade). */
  private readonly seeder: Seeder | undefined;
  /** See stateVersion. */
  private changes = 0;
  /** The change feed (emu.changes): made for its first listener, as most emulators never have one. */
  private feed: ChangeFeed | undefined;
  /** Who is told of resets and the close (see EngineChange): the grading of the client, and the inspector once opened. */
  private readonly watchers = new Set<(change: EngineChange) => void>();

  /** Throws a TypeError or RangeError naming the first bad option. */
  constructor(options: EmulatorOptions, seeder?: Seeder) {
    this.config = readConfig(options);
    this.faults = new FaultRegistry(this.config.seed, this.activity, this.journal);
    this.seeder = seeder;
    this.addConfiguredRoutes();
    const { delivery } = this.config.core;
    this.transport = new Transport(
      this.routes,
      this.inbox,
      this.faults,
      () => delivery.attemptTimeoutMs,
      this.config.handlerGraceMs,
    );
    this.current = freshWorld(this.config, this, seeder);
  }

  /**
   * A count that grows whenever what a snapshot carries may have changed: every transition of any world (an API
   * request, a control that changes records, a delivery or job the clock runs), a clock moved by its controls, a
   * reset, a restore, a world dropped. A reader that saw the same count twice saw the same state in between (the
   * CLI's --state saves only when it moved). It may grow without a change (a read runs as a transition too).
   */
  get stateVersion(): number {
    return this.changes;
  }

  /** Counts a change (WorldServices): called by every world's transitions, and by whatever else moves the state. */
  changed(): void {
    this.changes++;
    this.feed?.schedule();
  }

  /** Tells `listener` of every change of the state from now on (see ChangeFeed); returns the function that stops it. */
  subscribeChanges(listener: StateChangeListener): () => void {
    return (this.feed ??= new ChangeFeed(this)).subscribe(listener);
  }

  /** Whether anyone listens to the changes: then an answer flushes them before it leaves (flushChanges). */
  get listeningToChanges(): boolean {
    return this.feed?.listening === true;
  }

  /**
   * Tells the change listeners what changed so far, before an answer that may depend on it leaves the emulator; the
   * promise the answer then waits for, while a listener's is under way (see StateChangeListener).
   */
  flushChanges(): Promise<void> | undefined {
    return this.feed?.flush();
  }

  /** Calls `watcher` with every reset and the close from now on; returns the function that stops it. */
  watch(watcher: (change: EngineChange) => void): () => void {
    this.watchers.add(watcher);
    return () => void this.watchers.delete(watcher);
  }

  /** Tells the watchers (a company's reset or removal is told by the controls, which do it). */
  tell(change: EngineChange): void {
    for (const watcher of [...this.watchers]) {
      try {
        watcher(change);
      } catch {
        // A watcher's failure is its own, as an activity listener's is.
      }
    }
  }

  /** The shared world as it is now: read it at each use, never keep it, since reset and restore replace it. */
  get world(): World {
    return this.current;
  }

  /** The world a company lives in: its own, or the shared one (also for a company that does not exist). */
  worldOf(companyId: string): World {
    return this.ownClocks?.worlds.get(companyId) ?? this.current;
  }

  /** The world a credential token opens: an own-clock company's, or the shared one. */
  worldOfToken(token: string | undefined): World {
    const tokens = this.ownClocks?.tokens;
    return token === undefined || tokens === undefined || tokens.size === 0
      ? this.current
      : (tokens.get(token) ?? this.current);
  }

  /** The shared world, then every company's own. */
  worlds(): World[] {
    return this.ownClocks === undefined ? [this.current] : [this.current, ...this.ownClocks.worlds.values()];
  }

  /**
   * A company on a clock of its own (see ownWorld): its clock starts at the shared clock's now. Its CNPJ root, when
   * not given, is drawn by the shared world, the only draw it takes from there.
   */
  createOwnClockCompany(options: CompanyOptions): Result<CreatedCompanyInfo> {
    const roots = this.rootsOutside(undefined);
    const cnpjRoot = options.cnpjRoot ?? this.current.apply((_, ctx) => pickCnpjRoot(roots, ctx.random));
    const made = ownWorld(this.config, this, {
      options,
      cnpjRoot,
      start: this.current.clock.reading(),
      regulatory: this.current.state.regulatory,
      rootsElsewhere: roots,
    });
    if (!made.ok) return made;
    const { world, created } = made.value;
    this.owned().worlds.set(created.companyId, world);
    this.indexTokens(world);
    return { ok: true, value: created };
  }

  /** The CNPJ roots of the companies of every world but `world`: a root names one company on the emulator. */
  rootsOutside(world: World | undefined): Set<string> {
    const roots = new Set<string>();
    for (const other of this.worlds())
      if (other !== world) for (const company of other.state.companies.values()) roots.add(company.cnpjRoot);
    return roots;
  }

  /** Records the tokens of an own world's credentials (after a credential is added there). */
  indexTokens(world: World): void {
    if (world.owner === null) return;
    const { tokens } = this.owned();
    for (const token of world.state.credentials.keys()) tokens.set(token, world);
  }

  /** Back to a fresh world from the seed, with only the configured routes, and no faults, journal or inbox. */
  reset(): void {
    this.faults.reset();
    this.routes.clear();
    this.addConfiguredRoutes();
    this.journal.clear();
    this.inbox.clear();
    this.dropOwnWorlds('reset');
    this.replace(freshWorld(this.config, this, this.seeder), 'reset');
    this.tell({ kind: 'reset', companyId: null });
  }

  /**
   * Puts saved worlds in place (checked before they get here): the shared one, and those of the companies on
   * clocks of their own. Faults, routes and the journal are kept.
   */
  restore(
    saved: Omit<SavedWorld, 'initialCompanies'>,
    own: readonly (Omit<SavedWorld, 'initialCompanies'> & { readonly companyId: string })[] = [],
  ): void {
    const initialCompanies = this.current.initialCompanies.filter((c) => saved.state.companies.has(c.companyId));
    const seeded = this.current.seeded.filter((c) => saved.state.companies.has(c.companyId));
    this.dropOwnWorlds('restored');
    this.replace(restoredWorld(this.config, this, { ...saved, initialCompanies, seeded }), 'restored');
    for (const world of own) {
      const restored = restoredWorld(this.config, this, { ...world, initialCompanies: [] }, world.companyId);
      this.owned().worlds.set(world.companyId, restored);
      this.indexTokens(restored);
    }
    this.tell({ kind: 'restored', companyId: null });
  }

  /**
   * Drops the world of a company on a clock of its own (the company removed): its clock stops, releasing the
   * requests it holds with `reason`, and its tokens open nothing. False for a company without one.
   */
  removeOwnWorld(companyId: string, reason: string): boolean {
    const world = this.ownClocks?.worlds.get(companyId);
    if (!world) return false;
    world.clock.dispose(reason);
    this.changed();
    const { worlds, tokens } = this.owned();
    worlds.delete(companyId);
    for (const [token, owner] of tokens) if (owner === world) tokens.delete(token);
    return true;
  }

  /**
   * A company on a clock of its own back as it was created, in a new world: created again from its seeded
   * sources at its creation instant (same id, root, flags, head office and first token), its clock at the shared
   * now, no other record and no task but the periodic ones; requests the old world holds answer 503 with
   * `reason`. Undefined for a company without a world of its own, or one whose creation cannot be repeated
   * (restored from an emulator with another seed): the caller resets it in place.
   */
  resetOwnWorld(companyId: string, reason: string): CreatedCompanyInfo | undefined {
    const old = this.ownClocks?.worlds.get(companyId);
    const origin = old?.state.origins.get(companyId);
    if (!old || !origin) return undefined;
    const { company, credential } = origin;
    const options: CompanyOptions = {
      name: company.name,
      subscriptionActive: company.subscriptionActive,
      surveillanceEntitled: company.surveillanceEntitled,
      surveillanceCapacity: company.surveillanceCapacity,
      analysisAllowance: company.analysisAllowance,
      permissions: credential.permissions,
    };
    const made = ownWorld(this.config, this, {
      options,
      cnpjRoot: company.cnpjRoot,
      start: this.current.clock.reading(),
      createdAt: company.createdAt,
      regulatory: this.current.state.regulatory,
      rootsElsewhere: this.rootsOutside(old),
    });
    if (!made.ok || made.value.created.companyId !== companyId || made.value.created.token !== credential.token) {
      if (made.ok) made.value.world.clock.dispose('closed');
      return undefined;
    }
    this.removeOwnWorld(companyId, reason);
    this.owned().worlds.set(companyId, made.value.world);
    this.indexTokens(made.value.world);
    return made.value.created;
  }

  /** The worlds of the companies on clocks of their own. */
  ownWorlds(): World[] {
    return this.ownClocks === undefined ? [] : [...this.ownClocks.worlds.values()];
  }

  /** Stops the clock's real-time timers; requests a `delayMs` fault holds are answered 503. */
  close(): void {
    for (const world of this.worlds()) world.clock.dispose('closed');
    this.tell({ kind: 'closed' });
  }

  /**
   * The old world's clock is disposed, which releases every request held by a `delayMs` fault: each answers 503
   * saying why, instead of hanging on a clock nothing will move again or running against the new state.
   */
  private replace(world: World, reason: WorldEnd): void {
    this.current.clock.dispose(reason);
    this.current = world;
    this.changed();
  }

  private dropOwnWorlds(reason: WorldEnd): void {
    for (const world of this.ownWorlds()) world.clock.dispose(reason);
    this.ownClocks = undefined;
    this.changed();
  }

  private owned(): { readonly worlds: Map<string, World>; readonly tokens: Map<string, World> } {
    return (this.ownClocks ??= { worlds: new Map(), tokens: new Map() });
  }

  private addConfiguredRoutes(): void {
    this.config.routes.forEach((route, i) => {
      try {
        this.routes.add(route?.from, route?.to);
      } catch (error) {
        throw new TypeError(`routes[${i}]: ${(error as Error).message}`);
      }
    });
  }
}
