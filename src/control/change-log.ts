/**
 * replayChanges: a snapshot with the changes emu.changes told since it was taken folded into it, entry after entry
 * (the CLI's serve --state keeps them in a log beside its snapshot). Each entry is checked before it is folded, field
 * by field by the snapshot's own rules, each record by its kind's; the result is a snapshot, which emu.restore checks
 * whole as it checks any. A refusal names the entry and the place in it.
 */
import type { PersistedTask } from '../clock/clock.js';
import { LATEST_INSTANT } from '../clock/clock.js';
import { StateFold, type RecordChange } from '../core/changes.js';
import { changeEntrySchema, problemOf, recordItem, type ChangeEntry, type Snapshot } from './snapshot-schema.js';

/** An entry of a change log that cannot be replayed: which (`entry`, its index), where in it and why. */
export class ChangeLogError extends TypeError {
  constructor(
    readonly entry: number,
    readonly path: readonly (string | number)[],
    message: string,
  ) {
    super(`entry ${entry}${path.length === 0 ? '' : ` at ${path.join('.')}`}: ${message}`);
    this.name = 'ChangeLogError';
  }
}

export interface Replayed {
  readonly snapshot: Snapshot;
  /**
   * The wall-clock time the snapshot's clocks are at: `takenAt`, or the last entry's `at` (real time moved every
   * world on to it, see replayChanges). Undefined without `takenAt`.
   */
  readonly at: number | undefined;
}

/** The world of a snapshot as the fold reads and writes it. */
interface WorldData {
  companyId?: string;
  now: unknown;
  random: unknown;
  requestRandom: unknown;
  tasks: unknown;
  state: unknown;
}

/**
 * `snapshot` (as emu.snapshot() gave it, unchecked: emu.restore checks the result) with `entries` folded into it:
 * the result is built in `snapshot` itself, which a large state cannot afford to copy (parse it for this). With
 * `takenAt`, the wall-clock time the snapshot was taken at, the emulator ran on a real clock: an entry's `at`
 * says when it was told, and each world's now is moved on by the wall-clock time from its last change to the last
 * entry (a clock in real mode runs with the wall clock). Throws a ChangeLogError for an entry that is not a change
 * of this emulator or does not fit the state it comes after; `snapshot` is then half folded.
 */
export function replayChanges(snapshot: unknown, entries: Iterable<unknown>, takenAt?: number): Replayed {
  if (typeof snapshot !== 'object' || snapshot === null)
    throw new ChangeLogError(0, [], 'the snapshot they come after is not an object');
  const base = snapshot as Record<string, unknown>;
  const worlds = new Map<string | null, Folding>();
  const shared = base as unknown as WorldData;
  const own: WorldData[] = Array.isArray(base.ownClocks) ? (base.ownClocks as WorldData[]) : [];
  const foldingOf = (companyId: string | null): Folding | undefined => {
    let folding = worlds.get(companyId);
    if (!folding) {
      const data = companyId === null ? shared : own.find((world) => world.companyId === companyId);
      if (!data) return undefined;
      worlds.set(companyId, (folding = new Folding(data, takenAt)));
    }
    return folding;
  };
  let at = takenAt;
  let index = 0;
  for (const raw of entries) {
    const parsed = changeEntrySchema.safeParse(raw);
    if (!parsed.success) {
      const { path, problem } = problemOf(parsed.error);
      throw new ChangeLogError(index, path, problem);
    }
    const entry = parsed.data;
    if (takenAt !== undefined && entry.at !== undefined) at = Math.max(at ?? entry.at, entry.at);
    for (const companyId of entry.dropped) {
      const i = own.findIndex((world) => world.companyId === companyId);
      if (i < 0) throw new ChangeLogError(index, ['dropped'], `no company ${companyId} on a clock of its own to drop`);
      own.splice(i, 1);
      worlds.delete(companyId);
    }
    for (const [w, change] of entry.worlds.entries()) {
      const where = ['worlds', w];
      if (change.world !== undefined) {
        if (change.companyId === null)
          throw new ChangeLogError(
            index,
            [...where, 'world'],
            'the shared world is never new: a reset or a restore is a snapshot, not a change',
          );
        // A company reset on a clock of its own gets a new world, which comes after the others.
        const i = own.findIndex((world) => world.companyId === change.companyId);
        if (i >= 0) own.splice(i, 1);
        const data: WorldData = {
          companyId: change.companyId,
          now: change.now,
          random: change.random,
          requestRandom: change.requestRandom,
          tasks: change.world.tasks,
          state: change.world.state,
        };
        own.push(data);
        worlds.set(change.companyId, new Folding(data, entry.at ?? takenAt));
        continue;
      }
      const folding = foldingOf(change.companyId);
      if (!folding)
        throw new ChangeLogError(
          index,
          [...where, 'companyId'],
          `no world of company ${change.companyId} in the state (it is on the shared clock, or not there)`,
        );
      const problem = folding.fold(change, entry.at ?? takenAt);
      if (problem) throw new ChangeLogError(index, [...where, ...problem.path], problem.problem);
    }
    index++;
  }
  for (const folding of worlds.values()) folding.finish(at);
  if (own.length > 0) base.ownClocks = own;
  else delete base.ownClocks;
  return { snapshot: base as unknown as Snapshot, at };
}

/** One world's data being folded into: its records, its tasks, its clock and random sources. */
class Folding {
  readonly #data: WorldData;
  readonly #state: StateFold;
  readonly #tasks: TaskFold;
  /** The wall-clock time of its now, for a world on a real clock. */
  #nowAt: number | undefined;

  constructor(data: WorldData, nowAt: number | undefined) {
    this.#data = data;
    this.#state = new StateFold(
      typeof data.state === 'object' && data.state !== null ? (data.state as Record<string, unknown>) : {},
    );
    this.#tasks = new TaskFold(Array.isArray(data.tasks) ? (data.tasks as PersistedTask[]) : []);
    this.#nowAt = nowAt;
  }

  fold(
    change: ChangeEntry['worlds'][number],
    at: number | undefined,
  ): { path: readonly (string | number)[]; problem: string } | undefined {
    const records: RecordChange[] = [];
    for (const [i, [slice, key, items, moved]] of (change.records ?? []).entries()) {
      const checked: unknown[] = [];
      for (const [j, item] of items.entries()) {
        const result = recordItem(slice, item);
        if (!result.ok) return { path: ['records', i, 2, j, ...result.problem.path], problem: result.problem.problem };
        checked.push(result.item);
      }
      records.push([slice, key, checked, moved]);
    }
    const problem = this.#state.fold({
      records,
      ...(change.sequence === undefined ? {} : { sequence: change.sequence }),
      ...(change.regulatory === undefined ? {} : { regulatory: change.regulatory }),
    });
    if (problem) return problem;
    for (const [i, task] of (change.tasks ?? []).entries()) {
      const gone = this.#tasks.apply(task);
      if (gone) return { path: ['tasks', i], problem: gone };
    }
    this.#data.now = change.now;
    this.#data.random = change.random;
    this.#data.requestRandom = change.requestRandom;
    this.#nowAt = at;
    return undefined;
  }

  /** Writes the folded records and tasks back; on a real clock, moves now on to `at` (see replayChanges). */
  finish(at: number | undefined): void {
    this.#data.state = this.#state.result();
    this.#data.tasks = this.#tasks.result();
    const now = this.#data.now;
    if (at !== undefined && this.#nowAt !== undefined && typeof now === 'number' && Number.isSafeInteger(now))
      this.#data.now = Math.min(LATEST_INSTANT, Math.max(now, now + at - this.#nowAt));
  }
}

/**
 * A world's tasks being folded into: in the clock's order (due, then when scheduled), so tasks added come after the
 * others, and a task gone is the first one equal to it (the clock runs the earliest of equal tasks first).
 */
class TaskFold {
  readonly #tasks: (PersistedTask | undefined)[];
  /** A task's identity → where the tasks equal to it are, in order. */
  readonly #where = new Map<string, number[]>();

  constructor(tasks: readonly PersistedTask[]) {
    this.#tasks = [...tasks];
    for (const [i, task] of this.#tasks.entries()) this.#index(task!, i);
  }

  /** Folds one change; the problem, for a task gone that is not there. */
  apply(change: readonly ['+' | '-', PersistedTask] | readonly ['0']): string | undefined {
    if (change[0] === '0') {
      this.#tasks.length = 0;
      this.#where.clear();
      return undefined;
    }
    const [op, task] = change;
    if (op === '+') {
      this.#tasks.push(task);
      this.#index(task, this.#tasks.length - 1);
      return undefined;
    }
    const at = this.#where.get(identity(task));
    const i = at?.shift();
    if (i === undefined) return `a task gone (${task.kind}, due ${task.due}) that the world does not have`;
    this.#tasks[i] = undefined;
    return undefined;
  }

  result(): PersistedTask[] {
    return this.#tasks.filter((task): task is PersistedTask => task !== undefined);
  }

  #index(task: PersistedTask, i: number): void {
    const key = identity(task);
    const at = this.#where.get(key);
    if (at) at.push(i);
    else this.#where.set(key, [i]);
  }
}

const identity = (task: PersistedTask): string =>
  JSON.stringify([task.due, task.kind, task.owner, task.payload ?? null, task.everyMs ?? null]);
