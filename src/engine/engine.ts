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
import { Journal } from './journal.js';
import { freshWorld, restoredWorld, type SavedWorld, type World } from './world.js';

/** Why a world's clock stops: the words a released request's 503 uses ("the emulator was reset …"). */
type WorldEnd = 'reset' | 'restored' | 'closed';

export class Engine {
  readonly config: Config;
  readonly faults = new FaultRegistry();
  readonly journal = new Journal();
  readonly routes = new RouteTable();
  readonly inbox = new Inbox();
  /** The fake network the worlds' delivery tasks send through (WorldServices). */
  readonly transport: Transport;
  private current: World;

  /** Throws a TypeError or RangeError naming the first bad option. */
  constructor(options: EmulatorOptions) {
    this.config = readConfig(options);
    this.addConfiguredRoutes();
    const { delivery } = this.config.core;
    this.transport = new Transport(this.routes, this.inbox, this.faults, () => delivery.attemptTimeoutMs, this.config.handlerGraceMs);
    this.current = freshWorld(this.config, this);
  }

  /** The world as it is now: read it at each use, never keep it, since reset and restore replace it. */
  get world(): World {
    return this.current;
  }

  /** Back to a fresh world from the seed, with only the configured routes, and no faults, journal or inbox. */
  reset(): void {
    this.faults.clear();
    this.routes.clear();
    this.addConfiguredRoutes();
    this.journal.clear();
    this.inbox.clear();
    this.replace(freshWorld(this.config, this), 'reset');
  }

  /** Puts a saved world in place (checked before it gets here). Faults, routes and the journal are kept. */
  restore(saved: Omit<SavedWorld, 'initialCompanies'>): void {
    const initialCompanies = this.current.initialCompanies.filter((c) => saved.state.companies.has(c.companyId));
    this.replace(restoredWorld(this.config, this, { ...saved, initialCompanies }), 'restored');
  }

  /** Stops the clock's real-time timers; requests a `delayMs` fault holds are answered 503. */
  close(): void {
    this.current.clock.dispose('closed');
  }

  /**
   * The old world's clock is disposed, which releases every request held by a `delayMs` fault: each answers 503
   * saying why, instead of hanging on a clock nothing will move again or running against the new state.
   */
  private replace(world: World, reason: WorldEnd): void {
    this.current.clock.dispose(reason);
    this.current = world;
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
