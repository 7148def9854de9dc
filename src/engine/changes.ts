/**
 * The change feed (emu.changes): every change of what a snapshot carries, told as data, for a program that keeps
 * the state durable without saving a whole snapshot per change (the CLI's serve --state appends them to a log).
 *
 * It is built only when someone subscribes: then each world's state notes the writes of its records (collection.ts),
 * its clock tells its task changes, and a flush, at the end of the turn that changed something and before any
 * answer leaves the emulator (Engine.flushChanges), tells the listeners what changed in each world since the last
 * one: the records (each slice's items under each key written), the sequence and reference when they moved, the
 * tasks added and gone, the clock's now and the random sources. A world of a company on a clock of its own is told
 * whole when it is new (created, or reset in a new world) and by its id when it is gone. A reset or a restore of
 * the emulator is told as `replaced`: the listener then takes a whole snapshot.
 */
import type { PersistedTask, TaskChange } from '../clock/clock.js';
import { takeChanges, unwatchState, watchState, type RecordChange, type Seen } from '../core/changes.js';
import type { RandomState } from '../core/random.js';
import { viewState, type StateData } from '../core/snapshot.js';
import type { World } from './world.js';

/** What changed in one world since the last change told. */
export interface WorldChange {
  /** The company whose world of its own it is; null for the shared world. */
  readonly companyId: string | null;
  /** Its clock's now, and its random sources, as they are now. */
  readonly now: number;
  readonly random: RandomState;
  readonly requestRandom: RandomState;
  /** The whole world, when it is new to the feed (it then says nothing else). */
  readonly world?: { readonly tasks: readonly PersistedTask[]; readonly state: StateData };
  /** The records written: for each, the items of its slice now under its key (src/core/changes.ts). */
  readonly records?: readonly RecordChange[];
  readonly sequence?: number;
  readonly regulatory?: StateData['regulatory'];
  /** Its clock's persistent tasks added (`+`), gone (`-`: the first one equal to it, in due order), or all gone (`0`). */
  readonly tasks?: readonly TaskChange[];
}

/**
 * A change of the emulator's state: what changed in each world (and which worlds of their own went), or `replaced`:
 * a reset or a restore of the emulator replaced every world, and only a whole snapshot says what it holds now.
 */
export type StateChange =
  | { readonly kind: 'changed'; readonly worlds: readonly WorldChange[]; readonly dropped: readonly string[] }
  | { readonly kind: 'replaced' };

/**
 * Told of each change, synchronously. It may return a promise: an answer that depends on the change (and on any told
 * before it) then waits for it before it leaves, as a log flushed to the disk a group of changes at a time does.
 */
export type StateChangeListener = (change: StateChange) => void | Promise<void>;

/** What the feed reads of the engine: its worlds, as they are now. */
interface Worlds {
  readonly world: World;
  ownWorlds(): World[];
}

/** A world the feed watches, and what it last told of it. */
interface Watch {
  readonly world: World;
  readonly seen: Seen;
  random: string;
  moves: number;
  readonly tasks: TaskChange[];
}

export class ChangeFeed {
  readonly #engine: Worlds;
  readonly #listeners = new Set<StateChangeListener>();
  #shared: Watch | undefined;
  readonly #own = new Map<string, Watch>();
  #scheduled = false;
  /** What the listeners' last promises are still doing (see StateChangeListener): an answer waits for it. */
  #pending: Promise<void> | undefined;

  constructor(engine: Worlds) {
    this.#engine = engine;
  }

  get listening(): boolean {
    return this.#listeners.size > 0;
  }

  /** Tells `listener` of every change from now on (the state as it is now is where they start); returns the stop. */
  subscribe(listener: StateChangeListener): () => void {
    if (this.#listeners.size === 0) this.#watchAll();
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#unwatchAll();
    };
  }

  /** Something may have changed: a flush at the end of this turn tells it (an answer's own flush may come first). */
  schedule(): void {
    if (this.#scheduled || this.#listeners.size === 0) return;
    this.#scheduled = true;
    queueMicrotask(() => void this.flush());
  }

  /**
   * Tells the listeners what changed since the last flush, if anything did. Returns, while one is under way, the
   * promise of what the listeners do with the changes told so far: an answer leaves once it resolves.
   */
  flush(): Promise<void> | undefined {
    this.#scheduled = false;
    if (this.#listeners.size === 0) return undefined;
    this.#flush();
    return this.#pending;
  }

  #flush(): void {
    if (this.#shared?.world !== this.#engine.world) {
      this.#unwatchAll();
      this.#watchAll();
      this.#tell({ kind: 'replaced' });
      return;
    }
    const worlds: WorldChange[] = [];
    const dropped: string[] = [];
    const current = new Map(this.#engine.ownWorlds().map((world) => [world.owner!, world]));
    for (const [companyId, watch] of this.#own) {
      if (current.get(companyId) === watch.world) continue;
      if (!current.has(companyId)) dropped.push(companyId);
      unwatch(watch);
      this.#own.delete(companyId);
    }
    const shared = changeOf(this.#shared);
    if (shared) worlds.push(shared);
    for (const [companyId, world] of current) {
      const watch = this.#own.get(companyId);
      if (watch) {
        const change = changeOf(watch);
        if (change) worlds.push(change);
      } else {
        worlds.push({ ...position(world), world: { tasks: world.clock.tasks(), state: viewState(world.state) } });
        this.#own.set(companyId, this.#watch(world));
      }
    }
    if (worlds.length > 0 || dropped.length > 0) this.#tell({ kind: 'changed', worlds, dropped });
  }

  #tell(change: StateChange): void {
    // A listener's failure is its own (the CLI's stops the process when it cannot write its log).
    const promises: Promise<void>[] = [];
    for (const listener of [...this.#listeners]) {
      const told = listener(change);
      if (told !== undefined) promises.push(told);
    }
    if (promises.length === 0) return;
    // Each promise settles after the ones before it (a listener's are in order), so the last ones cover all.
    const pending = Promise.all(promises).then(() => undefined);
    this.#pending = pending;
    const done = () => {
      if (this.#pending === pending) this.#pending = undefined;
    };
    pending.then(done, done);
  }

  #watchAll(): void {
    this.#shared = this.#watch(this.#engine.world);
    for (const world of this.#engine.ownWorlds()) this.#own.set(world.owner!, this.#watch(world));
  }

  #unwatchAll(): void {
    if (this.#shared) unwatch(this.#shared);
    this.#shared = undefined;
    for (const watch of this.#own.values()) unwatch(watch);
    this.#own.clear();
  }

  #watch(world: World): Watch {
    const watch: Watch = {
      world,
      seen: watchState(world.state),
      random: String(world.random.state()),
      moves: world.moves,
      tasks: [],
    };
    world.clock.onTasks = (change) => {
      watch.tasks.push(change);
      this.schedule();
    };
    return watch;
  }
}

function unwatch(watch: Watch): void {
  unwatchState(watch.world.state);
  watch.world.clock.onTasks = undefined;
}

/** Where a world is: its clock's now and its random sources. */
function position(world: World): Pick<WorldChange, 'companyId' | 'now' | 'random' | 'requestRandom'> {
  return {
    companyId: world.owner,
    now: world.clock.now(),
    random: world.random.state(),
    requestRandom: world.requestRandom.state(),
  };
}

/**
 * What changed in a watched world since it was last told, or undefined when nothing did. The request ids' source
 * alone does not count: every request draws from it, a read too, and a read changes nothing else.
 */
function changeOf(watch: Watch | undefined): WorldChange | undefined {
  if (!watch) return undefined;
  const { world } = watch;
  const changes = takeChanges(world.state, watch.seen);
  const random = String(world.random.state());
  const moved = world.moves !== watch.moves;
  if (changes === undefined && watch.tasks.length === 0 && random === watch.random && !moved) return undefined;
  const tasks = watch.tasks.splice(0);
  watch.random = random;
  watch.moves = world.moves;
  return { ...position(world), ...changes, ...(tasks.length === 0 ? {} : { tasks }) };
}
