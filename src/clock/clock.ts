/**
 * The virtual clock and scheduler (DESIGN §6, after @sinonjs/fake-timers and Temporal's time-skipping test
 * environment). Every async piece of work of the emulator is a task on this clock, so `advance()` moves it
 * deterministically:
 *
 * - `advance(by)` runs every task due at or before now + by, in due-time order (ties: scheduling order),
 *   setting now to each task's due time before it runs and awaiting it; a task scheduled meanwhile runs too
 *   if it falls due before the target.
 * - `runUntilIdle({ limit })` runs work (never a deadline, see TaskNature) until none is left, and stops
 *   with ClockLimitError after `limit` tasks of work: an endless schedule is a bug, not a hang. A deadline
 *   whose time it passes stays pending and fires, overdue, at the next advance.
 * - manual mode: time moves only when told. Real mode: now = wall clock + offset, tasks fire on real timers,
 *   and `advance` moves the offset.
 *
 * A task is data (`kind`, `owner`, `payload`) run by the handler registered for its kind, so the queue can
 * be snapshotted and restored; the registration also says the kind's nature. Every task belongs to an owner,
 * a company id or null for the emulator's own housekeeping, so that a company can later get its own clock.
 */
import { MinHeap } from './heap.js';

/**
 * The clock's bounds. Ids are UUIDv7 of their creation instant (48 bits of Unix ms, so never before 1970) and
 * every instant is written as a four-digit-year ISO date, so the clock lives in [1970, 9999]. One advance moves
 * at most ten years: a longer jump is refused at once instead of running a decade of daily work per call.
 */
export const EARLIEST_INSTANT = 0;
export const LATEST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
export const MAX_ADVANCE_MS = 3650 * 24 * 60 * 60 * 1000;
/** The shortest period a periodic task may have (the emulator's own are an hour and a day). */
export const MIN_PERIOD_MS = 60 * 1000;

/** Whether `instant` is a whole millisecond the clock can be at. */
export const withinClockBounds = (instant: number): boolean =>
  Number.isInteger(instant) && instant >= EARLIEST_INSTANT && instant <= LATEST_INSTANT;

export type ClockMode = 'manual' | 'real';
export type TaskOwner = string | null;

/**
 * What a kind of task is, declared when its handler is registered:
 * - `work`: what the service does on its own and a test wants finished (a delivery attempt, a job's run, a
 *   delayed answer). runUntilIdle runs work until none is left.
 * - `deadline`: a time that waits for the client or for retention (an expiry, a purge, a daily schedule).
 *   Only advance/advanceTo reach it: "finish the work" must not also mean "let every deadline lapse".
 */
export type TaskNature = 'work' | 'deadline';

export interface TaskData {
  readonly kind: string;
  readonly owner: TaskOwner;
  readonly payload?: unknown;
  /** Set for periodic tasks: the task is scheduled again this long after each due time. */
  readonly everyMs?: number;
}

export interface ScheduledTask extends TaskData {
  readonly id: number;
  readonly due: number;
}

/** A task as a snapshot holds it: its place in the queue is its order in the list. */
export interface PersistedTask extends TaskData {
  readonly due: number;
}

export type TaskHandler = (task: ScheduledTask) => void | Promise<void>;

/** How a sleep ended: its time came, or the clock let it go first (disposed or loaded), for `reason`. */
export type WaitEnd = { readonly reached: true } | { readonly reached: false; readonly reason: string };

interface Entry extends ScheduledTask {
  readonly seq: number;
  readonly nature: TaskNature;
  /** A transient wait (a delayed API answer): resolved, never snapshotted. */
  readonly wake?: (end: WaitEnd) => void;
  cancelled: boolean;
}

/** The kind of the transient waits of sleep(): work, since the service finishing an answer is its own doing. */
const SLEEP = 'sleep';
const REACHED: WaitEnd = { reached: true };

export interface AdvanceResult {
  readonly now: number;
  readonly ran: number;
}

export class ClockLimitError extends Error {
  constructor(limit: number, pendingKinds: string[]) {
    super(
      `runUntilIdle stopped after ${limit} tasks of work (the limit counts work only: deadlines are never run by it) ` +
        `and work is still pending (${pendingKinds.join(', ')}): something keeps scheduling new work. ` +
        'Raise { limit } if this much work is expected, or use advance() to move a fixed span.',
    );
    this.name = 'ClockLimitError';
  }
}

export interface ClockOptions {
  readonly mode: ClockMode;
  /** Unix ms of the virtual start. */
  readonly start: number;
  /** Wall clock for real mode; injectable for tests. */
  readonly wallClock?: () => number;
}

export class VirtualClock {
  readonly mode: ClockMode;
  private current: number;
  private offset: number;
  private readonly wall: () => number;
  /** One queue per nature: runUntilIdle reads only the work queue; advance merges both by (due, seq). */
  private readonly queues: Record<TaskNature, MinHeap<Entry>> = { work: newQueue(), deadline: newQueue() };
  private readonly live: Record<TaskNature, number> = { work: 0, deadline: 0 };
  private readonly entries = new Map<number, Entry>();
  private readonly handlers = new Map<string, { readonly nature: TaskNature; readonly run: TaskHandler }>();
  private nextSeq = 0;
  /** Serializes advance/runUntilIdle/real-timer runs: one walk through time at a time. */
  private walking: Promise<unknown> = Promise.resolve();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Set by dispose(): why a sleep asked for afterwards is released at once. */
  private disposedFor: string | undefined;

  constructor(options: ClockOptions) {
    this.mode = options.mode;
    this.wall = options.wallClock ?? Date.now;
    this.current = options.start;
    this.offset = options.start - this.wall();
  }

  now(): number {
    return this.mode === 'real' ? Math.max(this.current, this.wall() + this.offset) : this.current;
  }

  /** Registers what runs a task of `kind`, and whether such a task is work or a deadline. */
  handle(kind: string, nature: TaskNature, handler: TaskHandler): void {
    if (kind === SLEEP) throw new TypeError(`"${SLEEP}" is the clock's own kind of task (sleep()); register another kind`);
    if (nature !== 'work' && nature !== 'deadline') throw new TypeError(`a task kind is "work" or "deadline"; got ${String(nature)} for "${kind}"`);
    this.handlers.set(kind, { nature, run: handler });
  }

  /** Whether a task of `kind` can be scheduled: it has a handler. */
  handles(kind: string): boolean {
    return this.handlers.has(kind);
  }

  /** Schedules a task of a registered kind; throws a TypeError for a kind with no handler. */
  schedule(data: TaskData, due: number): ScheduledTask {
    const entry: Entry = { ...data, id: ++this.nextSeq, seq: this.nextSeq, due, nature: this.natureOf(data.kind), cancelled: false };
    this.enqueue(entry);
    return entry;
  }

  cancel(id: number): boolean {
    const entry = this.entries.get(id);
    if (!entry) return false;
    entry.cancelled = true;
    this.forget(entry);
    return true;
  }

  /**
   * Resolves `{ reached: true }` once the clock reaches now + ms (manual mode: once something advances it that
   * far), or `{ reached: false, reason }` if the clock lets the wait go first (dispose, load). The wait is work.
   */
  sleep(ms: number, owner: TaskOwner): Promise<WaitEnd> {
    if (this.disposedFor !== undefined) return Promise.resolve({ reached: false, reason: this.disposedFor });
    return new Promise((resolve) => {
      const entry: Entry = { kind: SLEEP, owner, id: ++this.nextSeq, seq: this.nextSeq, due: this.now() + ms, nature: 'work', wake: resolve, cancelled: false };
      this.enqueue(entry);
    });
  }

  /** Work still to run: what runUntilIdle would run now (tasks and waits; deadlines are not counted). */
  pending(): number {
    return this.live.work;
  }

  /** Deadline tasks scheduled, periodic ones included. */
  deadlines(): number {
    return this.live.deadline;
  }

  /** The persistent tasks of both natures, in due order, for a snapshot. */
  tasks(): PersistedTask[] {
    return [...this.queues.work.toArray(), ...this.queues.deadline.toArray()]
      .filter((e) => !e.cancelled && !e.wake)
      .sort((a, b) => a.due - b.due || a.seq - b.seq)
      .map(({ due, kind, owner, payload, everyMs }) => ({ due, kind, owner, ...(payload === undefined ? {} : { payload }), ...(everyMs === undefined ? {} : { everyMs }) }));
  }

  /**
   * Replaces every task and the current time (restore of a snapshot); sleeps are released with `reason`.
   * Every kind must have a handler: a TypeError names the first that has none, and nothing is replaced.
   */
  load(now: number, tasks: readonly PersistedTask[], reason = 'restored'): void {
    for (const task of tasks) this.natureOf(task.kind);
    this.release(reason);
    for (const queue of Object.values(this.queues)) queue.clear();
    this.entries.clear();
    this.live.work = 0;
    this.live.deadline = 0;
    this.nextSeq = 0;
    this.current = now;
    this.offset = now - this.wall();
    for (const task of tasks) this.schedule(task, task.due);
  }

  advance(byMs: number): Promise<AdvanceResult> {
    if (!Number.isFinite(byMs) || byMs < 0) return Promise.reject(new RangeError(`advance() takes a non-negative duration, got ${byMs}`));
    return this.walk(() => this.now() + byMs, Infinity);
  }

  advanceTo(instant: number): Promise<AdvanceResult> {
    if (!Number.isFinite(instant)) return Promise.reject(new RangeError(`advanceTo() takes a finite instant, got ${instant}`));
    const now = this.now();
    if (instant < now) {
      return Promise.reject(new RangeError(`advanceTo() cannot move the clock back: ${new Date(instant).toISOString()} is before now (${new Date(now).toISOString()})`));
    }
    return this.walk(() => instant, Infinity);
  }

  /** Runs work, in due order, until none is left; `ran` and `limit` count work only. Never fires a deadline. */
  runUntilIdle(options: { limit?: number } = {}): Promise<AdvanceResult> {
    const limit = options.limit ?? 10_000;
    return this.walk(() => undefined, limit);
  }

  /** Lets every sleep go at once, resolved `{ reached: false, reason }`: the waiter decides what that means. */
  release(reason: string): void {
    for (const entry of [...this.entries.values()]) {
      if (!entry.wake) continue;
      entry.cancelled = true;
      this.forget(entry);
      entry.wake({ reached: false, reason });
    }
  }

  /** Stops real timers and releases every sleep with `reason`; a sleep asked for afterwards is released at once. */
  dispose(reason = 'disposed'): void {
    this.disposedFor = reason;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.release(reason);
  }

  private natureOf(kind: string): TaskNature {
    if (kind === SLEEP) return 'work';
    const handler = this.handlers.get(kind);
    if (!handler) throw new TypeError(`No handler registered for task kind "${kind}": register it with handle(kind, "work" | "deadline", handler) before scheduling`);
    return handler.nature;
  }

  private walk(target: () => number | undefined, limit: number): Promise<AdvanceResult> {
    const run = this.walking.then(() => this.runDue(target(), limit));
    this.walking = run.catch(() => undefined);
    return run;
  }

  /**
   * Runs due tasks of both natures up to `target`, in (due, seq) order; or, when target is undefined, work
   * only until none is left, counting it against `limit`.
   */
  private async runDue(target: number | undefined, limit: number): Promise<AdvanceResult> {
    let ran = 0;
    for (;;) {
      const next = target === undefined ? this.head('work') : this.earliest();
      if (!next || (target !== undefined && next.due > target)) break;
      if (ran >= limit) throw new ClockLimitError(limit, this.pendingKinds());
      this.queues[next.nature].pop();
      this.forget(next);
      this.moveTo(next.due);
      ran++;
      if (next.everyMs !== undefined) this.schedule({ kind: next.kind, owner: next.owner, payload: next.payload, everyMs: next.everyMs }, next.due + next.everyMs);
      if (next.wake) {
        next.wake(REACHED);
        // Let the woken request run up to its next await before the next task, as real time would.
        await new Promise<void>((resolve) => setImmediate(resolve));
      } else {
        // Every queued kind has its handler: schedule() and load() refuse a kind without one.
        await this.handlers.get(next.kind)!.run(next);
      }
    }
    if (target !== undefined) this.moveTo(target);
    this.arm();
    return { now: this.now(), ran };
  }

  /** The next live entry of one nature, dropping cancelled ones from the top of its queue. */
  private head(nature: TaskNature): Entry | undefined {
    const queue = this.queues[nature];
    let next = queue.peek();
    while (next?.cancelled) {
      queue.pop();
      next = queue.peek();
    }
    return next;
  }

  /** The next live entry of either nature: the two queues merged by (due, seq). */
  private earliest(): Entry | undefined {
    const work = this.head('work');
    const deadline = this.head('deadline');
    if (!work || !deadline) return work ?? deadline;
    return before(work, deadline) ? work : deadline;
  }

  private moveTo(instant: number): void {
    if (this.mode === 'real') {
      const wallNow = this.wall();
      if (instant > wallNow + this.offset) this.offset = instant - wallNow;
    }
    this.current = Math.max(this.current, instant);
  }

  private enqueue(entry: Entry): void {
    this.queues[entry.nature].push(entry);
    this.entries.set(entry.id, entry);
    this.live[entry.nature]++;
    this.arm();
  }

  private forget(entry: Entry): void {
    if (this.entries.delete(entry.id)) this.live[entry.nature]--;
  }

  private pendingKinds(): string[] {
    const kinds = new Set<string>();
    for (const entry of this.entries.values()) if (entry.nature === 'work') kinds.add(entry.kind);
    return [...kinds];
  }

  /** Real mode: one wall-clock timer for the earliest task of either nature. Unref'd: the emulator never keeps a process alive. */
  private arm(): void {
    if (this.mode !== 'real' || this.disposedFor !== undefined) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const next = this.earliest();
    if (!next) return;
    const delay = Math.max(0, Math.min(next.due - this.now(), 2 ** 31 - 1));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.walk(() => this.now(), Infinity);
    }, delay);
    this.timer.unref?.();
  }
}

const before = (a: Entry, b: Entry): boolean => a.due < b.due || (a.due === b.due && a.seq < b.seq);
const newQueue = () => new MinHeap<Entry>(before);
