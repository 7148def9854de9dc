/**
 * The virtual clock and scheduler (DESIGN §6, after @sinonjs/fake-timers and Temporal's time-skipping test
 * environment). Every async piece of work of the emulator is a task on this clock, so `advance()` moves it
 * deterministically:
 *
 * - `advance(by)` runs every task due at or before now + by, in due-time order (ties: scheduling order),
 *   setting now to each task's due time before it runs and awaiting it; a task scheduled meanwhile runs too
 *   if it falls due before the target.
 * - `runUntilIdle({ limit })` runs tasks until no one-off task is left (periodic housekeeping aside) and
 *   stops with ClockLimitError after `limit` tasks: an endless schedule is a bug, not a hang.
 * - manual mode: time moves only when told. Real mode: now = wall clock + offset, tasks fire on real timers,
 *   and `advance` moves the offset.
 *
 * A task is data (`kind`, `owner`, `payload`) run by the handler registered for its kind, so the queue can
 * be snapshotted and restored. Every task belongs to an owner, a company id or null for the emulator's own
 * housekeeping, so that a company can later get its own clock.
 */
import { MinHeap } from './heap.js';

export type ClockMode = 'manual' | 'real';
export type TaskOwner = string | null;

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

type Handler = (task: ScheduledTask) => void | Promise<void>;

interface Entry extends ScheduledTask {
  readonly seq: number;
  /** A transient wait (a delayed API answer): resolved, never snapshotted. */
  readonly wake?: () => void;
  cancelled: boolean;
}

export interface AdvanceResult {
  readonly now: number;
  readonly ran: number;
}

export class ClockLimitError extends Error {
  constructor(limit: number, pendingKinds: string[]) {
    super(
      `runUntilIdle stopped after ${limit} tasks and work is still pending (${pendingKinds.join(', ')}): ` +
        'something keeps scheduling new work. Raise { limit } if this much work is expected, or use advance() to move a fixed span.',
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
  private readonly queue = new MinHeap<Entry>((a, b) => a.due < b.due || (a.due === b.due && a.seq < b.seq));
  private readonly entries = new Map<number, Entry>();
  private readonly handlers = new Map<string, Handler>();
  private nextSeq = 0;
  private oneOff = 0;
  /** Serializes advance/runUntilIdle/real-timer runs: one walk through time at a time. */
  private walking: Promise<unknown> = Promise.resolve();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private disposed = false;

  constructor(options: ClockOptions) {
    this.mode = options.mode;
    this.wall = options.wallClock ?? Date.now;
    this.current = options.start;
    this.offset = options.start - this.wall();
  }

  now(): number {
    return this.mode === 'real' ? Math.max(this.current, this.wall() + this.offset) : this.current;
  }

  /** Registers what runs a task of `kind`. */
  handle(kind: string, handler: Handler): void {
    this.handlers.set(kind, handler);
  }

  schedule(data: TaskData, due: number): ScheduledTask {
    const entry: Entry = { ...data, id: ++this.nextSeq, seq: this.nextSeq, due, cancelled: false };
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

  /** Resolves once the clock reaches now + ms (manual mode: once something advances it that far). */
  sleep(ms: number, owner: TaskOwner): Promise<void> {
    return new Promise((resolve) => {
      const entry: Entry = { kind: 'sleep', owner, id: ++this.nextSeq, seq: this.nextSeq, due: this.now() + ms, wake: resolve, cancelled: false };
      this.enqueue(entry);
    });
  }

  /** One-off tasks and waits still to run (periodic housekeeping is not counted). */
  pending(): number {
    return this.oneOff;
  }

  /** The persistent tasks, in due order, for a snapshot. */
  tasks(): PersistedTask[] {
    return this.queue
      .toArray()
      .filter((e) => !e.cancelled && !e.wake)
      .sort((a, b) => a.due - b.due || a.seq - b.seq)
      .map(({ due, kind, owner, payload, everyMs }) => ({ due, kind, owner, ...(payload === undefined ? {} : { payload }), ...(everyMs === undefined ? {} : { everyMs }) }));
  }

  /** Replaces every task and the current time (restore of a snapshot). */
  load(now: number, tasks: readonly PersistedTask[]): void {
    for (const entry of this.entries.values()) entry.wake?.();
    this.queue.clear();
    this.entries.clear();
    this.oneOff = 0;
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

  runUntilIdle(options: { limit?: number } = {}): Promise<AdvanceResult> {
    const limit = options.limit ?? 10_000;
    return this.walk(() => undefined, limit);
  }

  /** Stops real timers; pending waits are released. */
  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private walk(target: () => number | undefined, limit: number): Promise<AdvanceResult> {
    const run = this.walking.then(() => this.runDue(target(), limit));
    this.walking = run.catch(() => undefined);
    return run;
  }

  /** Runs due tasks up to `target`, or, when target is undefined, until no one-off task is left. */
  private async runDue(target: number | undefined, limit: number): Promise<AdvanceResult> {
    let ran = 0;
    for (;;) {
      const next = this.queue.peek();
      if (!next) break;
      if (next.cancelled) {
        this.queue.pop();
        continue;
      }
      if (target === undefined ? this.oneOff === 0 : next.due > target) break;
      if (ran >= limit) throw new ClockLimitError(limit, this.pendingKinds());
      this.queue.pop();
      this.forget(next);
      this.moveTo(next.due);
      ran++;
      if (next.everyMs !== undefined) this.schedule({ kind: next.kind, owner: next.owner, payload: next.payload, everyMs: next.everyMs }, next.due + next.everyMs);
      if (next.wake) {
        next.wake();
        // Let the woken request run up to its next await before the next task, as real time would.
        await new Promise<void>((resolve) => setImmediate(resolve));
      } else {
        const handler = this.handlers.get(next.kind);
        if (!handler) throw new Error(`No handler registered for task kind "${next.kind}"`);
        await handler(next);
      }
    }
    if (target !== undefined) this.moveTo(target);
    this.arm();
    return { now: this.now(), ran };
  }

  private moveTo(instant: number): void {
    if (this.mode === 'real') {
      const wallNow = this.wall();
      if (instant > wallNow + this.offset) this.offset = instant - wallNow;
    }
    this.current = Math.max(this.current, instant);
  }

  private enqueue(entry: Entry): void {
    this.queue.push(entry);
    this.entries.set(entry.id, entry);
    if (entry.everyMs === undefined) this.oneOff++;
    this.arm();
  }

  private forget(entry: Entry): void {
    if (this.entries.delete(entry.id) && entry.everyMs === undefined) this.oneOff--;
  }

  private pendingKinds(): string[] {
    const kinds = new Set<string>();
    for (const entry of this.entries.values()) if (entry.everyMs === undefined) kinds.add(entry.kind);
    return [...kinds];
  }

  /** Real mode: a wall-clock timer for the earliest task. Unref'd: the emulator never keeps a process alive. */
  private arm(): void {
    if (this.mode !== 'real' || this.disposed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    let next = this.queue.peek();
    while (next?.cancelled) {
      this.queue.pop();
      next = this.queue.peek();
    }
    if (!next) return;
    const delay = Math.max(0, Math.min(next.due - this.now(), 2 ** 31 - 1));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.walk(() => this.now(), Infinity);
    }, delay);
    this.timer.unref?.();
  }
}
