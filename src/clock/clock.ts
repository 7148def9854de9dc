/**
 * The virtual clock and scheduler (docs/time-travel.md, after @sinonjs/fake-timers and Temporal's time-skipping test
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
 * - bounds: the clock lives in [EARLIEST_INSTANT, LATEST_INSTANT] and one advance moves at most MAX_ADVANCE_MS.
 *   Real mode stops at LATEST_INSTANT; nothing due after it ever runs.
 * - cost: a periodic kind registered with `coalesce` runs once for all its occurrences due before the next
 *   other task (see HandleOptions), so a long jump costs the work done, not the periods crossed; and a walk
 *   lets other I/O in (setImmediate) whenever it has held the event loop for `yieldAfterMs` of real time.
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

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a walk may hold the event loop (real ms) before it lets other I/O in, by default. */
const DEFAULT_YIELD_AFTER_MS = 15;

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

/** A task still to run, as upcoming() reads it: its id (the scheduling order), due time and nature. */
/**
 * A change of the persistent tasks (the clock's own waits aside), for whoever keeps a log of them: a task added
 * (`+`), one gone (`-`: it ran, or was dropped), or every task gone (`0`: a load, which then adds its own).
 */
export type TaskChange = readonly ['+' | '-', PersistedTask] | readonly ['0'];

export interface UpcomingTask extends ScheduledTask {
  readonly nature: TaskNature;
}

export type TaskHandler = (task: ScheduledTask) => void | Promise<void>;

export interface HandleOptions {
  /**
   * For a periodic kind: whether one run may stand for all its occurrences due before the next task that does
   * not coalesce (and by the walk's target), run once at the last of them. Declare it only where that leaves
   * the state exactly as running each occurrence would: a synchronous run that schedules nothing, whose effect
   * at a later instant includes its effect at an earlier one (a purge monotone in now) or that has nothing to
   * do, and that touches nothing another coalescing kind's run reads (their runs commute). A function is asked
   * when the run comes up, and must not depend on what coalescing runs change: false runs that occurrence alone
   * (a fault that counts runs is armed; the schedule has something to do now). Each coalesced occurrence
   * counts one in `ran`, as if it had run alone.
   */
  readonly coalesce?: boolean | (() => boolean);
}

/** How a sleep ended: its time came, or the clock let it go first (disposed or loaded), for `reason`. */
export type WaitEnd = { readonly reached: true } | { readonly reached: false; readonly reason: string };

/**
 * A queued task. One class, its fields always in the same order, so that every entry has one shape and the
 * heap's comparisons and the walk's reads stay monomorphic: entries built by spreading the task data had one
 * shape per combination of optional fields (payload, everyMs, wake), which made the heap's comparison a visible
 * part of a long advance (ARCHITECTURE.md "Choices made for speed").
 */
class Entry implements ScheduledTask {
  cancelled = false;
  constructor(
    /** Also its seq: its place in the scheduling order, which breaks ties of `due`. */
    readonly id: number,
    readonly due: number,
    readonly kind: string,
    readonly owner: TaskOwner,
    readonly payload: unknown,
    readonly everyMs: number | undefined,
    readonly nature: TaskNature,
    /** A transient wait (a delayed API answer): resolved, never snapshotted. */
    readonly wake: ((end: WaitEnd) => void) | undefined,
  ) {}
}

/** The kind of the transient waits of sleep(): work, since the service finishing an answer is its own doing. */
const SLEEP = 'sleep';
const REACHED: WaitEnd = { reached: true };

export interface AdvanceResult {
  readonly now: number;
  readonly ran: number;
}

/**
 * An advance the clock refuses: a duration or instant that is not one, the past, past LATEST_INSTANT, or more
 * than MAX_ADVANCE_MS ahead. `argument` says which input of the advance is wrong: `by` (a duration) or `to`
 * (an instant).
 */
export class ClockRangeError extends RangeError {
  constructor(
    readonly argument: 'by' | 'to',
    message: string,
  ) {
    super(message);
    this.name = 'ClockRangeError';
  }
}

/** A walk stopped because the clock was disposed under it (the emulator was reset, restored or closed). */
export class ClockDisposedError extends Error {
  constructor(
    readonly reason: string,
    ran: number,
  ) {
    super(
      `The emulator was ${reason} while the clock was running its tasks: it had run ${ran} and stopped there; the rest will not run.`,
    );
    this.name = 'ClockDisposedError';
  }
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
  /**
   * Real milliseconds a walk may run before it yields to the event loop (setImmediate) so other requests get
   * answers meanwhile; default DEFAULT_YIELD_AFTER_MS. What a walk does does not depend on it.
   */
  readonly yieldAfterMs?: number;
  /** Told each time a walk moves the clock (to a task's due time, or to its target): now, a snapshot's field, changed. */
  readonly onMove?: () => void;
  /**
   * Real mode: the wall clock's reading `start` was taken at (another clock's reading()), so that this clock reads
   * exactly as that one did, however long passed since; by default the wall clock now.
   */
  readonly wallAtStart?: number | undefined;
}

/** A clock's now and the wall clock's reading it was taken at (VirtualClock.reading()). */
export interface ClockReading {
  readonly now: number;
  readonly wall: number;
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
  private readonly handlers = new Map<
    string,
    { readonly nature: TaskNature; readonly run: TaskHandler; readonly coalesce: boolean | (() => boolean) }
  >();
  private readonly yieldAfterMs: number;
  private readonly onMove: (() => void) | undefined;
  private nextSeq = 0;
  /** Serializes advance/runUntilIdle/real-timer runs: one walk through time at a time. */
  private walking: Promise<unknown> = Promise.resolve();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Set by dispose(): why a sleep asked for afterwards is released at once. */
  private disposedFor: string | undefined;
  /** Told of every change of the persistent tasks, while set (a change log); nothing is built while it is not. */
  onTasks: ((change: TaskChange) => void) | undefined = undefined;

  constructor(options: ClockOptions) {
    this.mode = options.mode;
    this.wall = options.wallClock ?? Date.now;
    this.yieldAfterMs = options.yieldAfterMs ?? DEFAULT_YIELD_AFTER_MS;
    this.onMove = options.onMove;
    this.current = options.start;
    this.offset = options.start - (options.wallAtStart ?? this.wall());
  }

  /** Now, and the wall clock's reading it was taken at (real mode; unused in manual mode): what ClockOptions.wallAtStart takes. */
  reading(): ClockReading {
    const wall = this.wall();
    return { now: this.mode === 'real' ? this.atWall(wall) : this.current, wall };
  }

  /** Real mode: the wall clock plus the offset, never back and never past LATEST_INSTANT (time stops there). */
  now(): number {
    return this.mode === 'real' ? this.atWall(this.wall()) : this.current;
  }

  /** Real mode: now at the wall clock's reading `wall`. */
  private atWall(wall: number): number {
    return Math.min(LATEST_INSTANT, Math.max(this.current, wall + this.offset));
  }

  /** Registers what runs a task of `kind`, whether such a task is work or a deadline, and (periodic kinds) whether runs may coalesce. */
  handle(kind: string, nature: TaskNature, handler: TaskHandler, options: HandleOptions = {}): void {
    if (kind === SLEEP)
      throw new TypeError(`"${SLEEP}" is the clock's own kind of task (sleep()); register another kind`);
    if (nature !== 'work' && nature !== 'deadline')
      throw new TypeError(`a task kind is "work" or "deadline"; got ${String(nature)} for "${kind}"`);
    this.handlers.set(kind, { nature, run: handler, coalesce: options.coalesce ?? false });
  }

  /** Whether a task of `kind` can be scheduled: it has a handler. */
  handles(kind: string): boolean {
    return this.handlers.has(kind);
  }

  /** Schedules a task of a registered kind; throws a TypeError for a kind with no handler, a RangeError for a period under MIN_PERIOD_MS. */
  schedule(data: TaskData, due: number): ScheduledTask {
    const entry = new Entry(
      ++this.nextSeq,
      due,
      data.kind,
      data.owner,
      data.payload,
      data.everyMs,
      this.check(data),
      undefined,
    );
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
      this.enqueue(new Entry(++this.nextSeq, this.now() + ms, SLEEP, owner, undefined, undefined, 'work', resolve));
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

  /**
   * The live tasks of `owner` (the clock's own waits left out), soonest first, at most `limit`: what is ahead of a
   * company (the inspector's view). A read-only scan of the live tasks, nothing is sorted but the owner's.
   */
  upcoming(owner: TaskOwner, limit: number): UpcomingTask[] {
    const found: UpcomingTask[] = [];
    for (const entry of this.entries.values()) {
      if (entry.owner === owner && entry.wake === undefined)
        found.push({
          id: entry.id,
          due: entry.due,
          kind: entry.kind,
          owner: entry.owner,
          payload: entry.payload,
          nature: entry.nature,
        });
    }
    return found.sort((a, b) => a.due - b.due || a.id - b.id).slice(0, limit);
  }

  /** The persistent tasks of both natures, in due order, for a snapshot. */
  tasks(): PersistedTask[] {
    return [...this.queues.work.toArray(), ...this.queues.deadline.toArray()]
      .filter((e) => !e.cancelled && !e.wake)
      .sort((a, b) => a.due - b.due || a.id - b.id)
      .map(persisted);
  }

  /** The persistent tasks of `owner`, in due order: what a snapshot of one company carries. */
  tasksOf(owner: TaskOwner): PersistedTask[] {
    return this.tasks().filter((task) => task.owner === owner);
  }

  /**
   * Drops every task of `owner` (a company removed, reset or restored on its own): its persistent tasks, and its
   * sleeps, released `{ reached: false, reason }` so a held request answers instead of waiting for nothing.
   * Returns how many it dropped. Other owners' tasks keep their order and due times.
   */
  removeOwner(owner: TaskOwner, reason: string): number {
    let dropped = 0;
    for (const entry of [...this.entries.values()]) {
      if (entry.owner !== owner) continue;
      entry.cancelled = true;
      this.forget(entry);
      entry.wake?.({ reached: false, reason });
      dropped++;
    }
    return dropped;
  }

  /**
   * Why `task` could not be loaded, or undefined: its kind has no handler, or it repeats (`everyMs`) though it is
   * work, which runUntilIdle would then never finish. Restore asks this of every task before it replaces anything.
   */
  loadProblem(task: TaskData): { readonly field: 'kind' | 'everyMs'; readonly problem: string } | undefined {
    const handler = this.handlers.get(task.kind);
    if (!handler) return { field: 'kind', problem: `"${task.kind}" is not a task kind of this emulator` };
    if (task.everyMs !== undefined && handler.nature === 'work')
      return {
        field: 'everyMs',
        problem: `a "${task.kind}" task is work, which never repeats: runUntilIdle would never be idle`,
      };
    return undefined;
  }

  /**
   * Replaces every task and the current time (restore of a snapshot); sleeps are released with `reason`.
   * Every kind must have a handler: a TypeError names the first that has none, and nothing is replaced.
   */
  load(now: number, tasks: readonly PersistedTask[], reason = 'restored', wallAtNow?: number): void {
    for (const task of tasks) this.check(task);
    this.release(reason);
    for (const queue of Object.values(this.queues)) queue.clear();
    this.entries.clear();
    this.live.work = 0;
    this.live.deadline = 0;
    this.onTasks?.(['0']);
    this.nextSeq = 0;
    this.current = now;
    this.offset = now - (wallAtNow ?? this.wall());
    for (const task of tasks) this.schedule(task, task.due);
  }

  /**
   * Runs every task due within now + byMs. Refused with a ClockRangeError: a duration that is not a whole,
   * non-negative number of milliseconds, more than MAX_ADVANCE_MS, or one that would pass LATEST_INSTANT
   * (checked again when the walk starts: an advance queued behind another starts where that one ended).
   */
  advance(byMs: number): Promise<AdvanceResult> {
    if (!Number.isSafeInteger(byMs) || byMs < 0)
      return refuse('by', `advance() takes a whole, non-negative number of milliseconds; got ${byMs}`);
    if (byMs > MAX_ADVANCE_MS) {
      return refuse(
        'by',
        `advance() moves the clock at most ${MAX_ADVANCE_MS / DAY_MS} days (${MAX_ADVANCE_MS} ms) at a time; got ${days(byMs)} days (${byMs} ms): advance in steps`,
      );
    }
    const pastTheEnd = (now: number) => (now + byMs > LATEST_INSTANT ? beyondTheEnd(now, byMs) : undefined);
    const refused = pastTheEnd(this.now());
    if (refused) return Promise.reject(refused);
    return this.walk(() => {
      const now = this.now();
      const late = pastTheEnd(now);
      if (late) throw late;
      return now + byMs;
    }, Infinity);
  }

  /** Runs every task due by `instant`. Refused with a ClockRangeError: not a whole ms, the past, past LATEST_INSTANT, more than MAX_ADVANCE_MS ahead. */
  advanceTo(instant: number): Promise<AdvanceResult> {
    if (!Number.isSafeInteger(instant))
      return refuse('to', `advanceTo() takes an instant in whole milliseconds; got ${instant}`);
    const now = this.now();
    if (instant < now)
      return refuse('to', `advanceTo() cannot move the clock back: ${shown(instant)} is before now (${shown(now)})`);
    if (instant > LATEST_INSTANT)
      return refuse(
        'to',
        `advanceTo() cannot move the clock past its last instant, ${shown(LATEST_INSTANT)}; got ${shown(instant)}`,
      );
    if (instant - now > MAX_ADVANCE_MS) {
      return refuse(
        'to',
        `advanceTo() moves the clock at most ${MAX_ADVANCE_MS / DAY_MS} days (${MAX_ADVANCE_MS} ms) at a time; ${shown(instant)} is ${days(instant - now)} days after now (${shown(now)}): advance in steps`,
      );
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

  /** The nature of a task that may be scheduled; throws for one that may not. */
  private check(data: TaskData): TaskNature {
    const nature = this.natureOf(data.kind);
    // A shorter period would make every advance run a flood of occurrences (and coalescing cannot always help).
    if (data.everyMs !== undefined && !(Number.isSafeInteger(data.everyMs) && data.everyMs >= MIN_PERIOD_MS)) {
      throw new RangeError(
        `a periodic task repeats every ${MIN_PERIOD_MS} ms or more, in whole milliseconds; got everyMs ${data.everyMs} for "${data.kind}"`,
      );
    }
    return nature;
  }

  private natureOf(kind: string): TaskNature {
    if (kind === SLEEP) return 'work';
    const handler = this.handlers.get(kind);
    if (!handler)
      throw new TypeError(
        `No handler registered for task kind "${kind}": register it with handle(kind, "work" | "deadline", handler) before scheduling`,
      );
    return handler.nature;
  }

  private walk(target: () => number | undefined, limit: number): Promise<AdvanceResult> {
    const run = this.walking.then(() => this.runDue(target(), limit));
    this.walking = run.catch(() => undefined);
    return run;
  }

  /**
   * Runs due tasks of both natures up to `target`, in (due, seq) order; or, when target is undefined, work
   * only until none is left (nothing due after LATEST_INSTANT), counting it against `limit`. Stops with a
   * ClockDisposedError once the clock is disposed under it.
   */
  private async runDue(target: number | undefined, limit: number): Promise<AdvanceResult> {
    let ran = 0;
    let heldSince = performance.now();
    for (;;) {
      if (this.disposedFor !== undefined) throw new ClockDisposedError(this.disposedFor, ran);
      const next = target === undefined ? this.head('work') : this.earliest();
      if (!next || next.due > (target ?? LATEST_INSTANT)) break;
      if (ran >= limit) throw new ClockLimitError(limit, this.pendingKinds());
      const coalesced =
        target !== undefined && next.everyMs !== undefined && this.handlers.get(next.kind)?.coalesce
          ? await this.runCoalesced(target)
          : 0;
      if (coalesced > 0) {
        ran += coalesced;
      } else {
        this.queues[next.nature].pop();
        this.forget(next);
        this.moveTo(next.due);
        ran++;
        if (next.everyMs !== undefined) this.reschedule(next, next.due);
        if (next.wake) {
          next.wake(REACHED);
          // Let the woken request run up to its next await before the next task, as real time would.
          await new Promise<void>((resolve) => setImmediate(resolve));
        } else {
          // Every queued kind has its handler: schedule() and load() refuse a kind without one.
          await this.handlers.get(next.kind)!.run(next);
        }
      }
      // A long walk lets other requests in now and then; which tasks it runs, and when, does not change.
      if (performance.now() - heldSince >= this.yieldAfterMs) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        heldSince = performance.now();
      }
    }
    if (target !== undefined) this.moveTo(target);
    this.arm();
    return { now: this.now(), ran };
  }

  /**
   * Runs the coalescing periodic tasks at the head of the queue (see HandleOptions) up to the first other task
   * or `target`: each once, at the last of its occurrences in that window, in the order those last occurrences
   * would have run one by one, so that the next occurrences are queued in the same order too. Returns how many
   * occurrences that was; 0 when the head is not such a task now (its `coalesce` answers false).
   *
   * Exact because nothing else runs in the window and the runs in it commute: an occurrence rescheduled at the
   * due time of the first other task comes after it (scheduled later), so only occurrences strictly before it
   * belong to the window (the queued entry itself may share its due time, if it was queued first). The runs go
   * back to back, without letting other requests in, so none sees the clock inside the window.
   */
  private async runCoalesced(target: number): Promise<number> {
    const group: Entry[] = [];
    let other: Entry | undefined;
    for (let head = this.earliest(); head && head.due <= target; head = this.earliest()) {
      if (!this.coalesces(head)) {
        other = head;
        break;
      }
      this.queues[head.nature].pop();
      this.forget(head);
      group.push(head);
    }
    const runs = group.map((entry): Run => {
      const every = entry.everyMs!;
      let last = Math.floor((target - entry.due) / every);
      if (other) last = Math.min(last, Math.ceil((other.due - entry.due) / every) - 1);
      last = Math.max(0, last);
      return { entry, last, at: entry.due + last * every };
    });
    runs.sort(inRunOrder);
    for (const { entry, last, at } of runs) {
      this.moveTo(at);
      this.reschedule(entry, at);
      await this.handlers.get(entry.kind)!.run(last === 0 ? entry : { ...entry, due: at });
    }
    return runs.reduce((sum, run) => sum + run.last + 1, 0);
  }

  /** Whether `entry` is a periodic task whose kind may coalesce its runs now. */
  private coalesces(entry: Entry): boolean {
    const coalesce = this.handlers.get(entry.kind)?.coalesce;
    return (
      entry.everyMs !== undefined && coalesce !== undefined && (typeof coalesce === 'function' ? coalesce() : coalesce)
    );
  }

  /** Queues the occurrence of periodic `entry` after the one due at `due`. */
  private reschedule(entry: Entry, due: number): void {
    this.schedule(
      { kind: entry.kind, owner: entry.owner, payload: entry.payload, everyMs: entry.everyMs },
      due + entry.everyMs!,
    );
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
    this.onMove?.();
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
    if (this.onTasks !== undefined && entry.wake === undefined) this.onTasks(['+', persisted(entry)]);
    this.arm();
  }

  private forget(entry: Entry): void {
    if (!this.entries.delete(entry.id)) return;
    this.live[entry.nature]--;
    if (this.onTasks !== undefined && entry.wake === undefined) this.onTasks(['-', persisted(entry)]);
  }

  private pendingKinds(): string[] {
    const kinds = new Set<string>();
    for (const entry of this.entries.values()) if (entry.nature === 'work') kinds.add(entry.kind);
    return [...kinds];
  }

  /**
   * Real mode: one wall-clock timer for the earliest task of either nature (none for a task after LATEST_INSTANT,
   * which real time never reaches). Unref'd: the emulator never keeps a process alive.
   */
  private arm(): void {
    if (this.mode !== 'real' || this.disposedFor !== undefined) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const next = this.earliest();
    if (!next || next.due > LATEST_INSTANT) return;
    const delay = Math.max(0, Math.min(next.due - this.now(), 2 ** 31 - 1));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // A walk the clock's disposal stopped is done with; any other failure is a bug and surfaces.
      this.walk(() => this.now(), Infinity).catch((error: unknown) => {
        if (!(error instanceof ClockDisposedError)) throw error;
      });
    }, delay);
    this.timer.unref?.();
  }
}

const refuse = (argument: 'by' | 'to', message: string): Promise<never> =>
  Promise.reject(new ClockRangeError(argument, message));

/** A task as a snapshot carries it. */
const persisted = ({ due, kind, owner, payload, everyMs }: Entry): PersistedTask => ({
  due,
  kind,
  owner,
  ...(payload === undefined ? {} : { payload }),
  ...(everyMs === undefined ? {} : { everyMs }),
});

/** An instant for a message: ISO 8601 where a Date can show it, else its milliseconds. */
const shown = (instant: number): string =>
  Math.abs(instant) <= 8.64e15 ? new Date(instant).toISOString() : `${instant} ms after 1970`;
const days = (ms: number): string => (ms / DAY_MS).toLocaleString('en-US', { maximumFractionDigits: 3 });

function beyondTheEnd(now: number, byMs: number): ClockRangeError {
  return new ClockRangeError(
    'by',
    `advance() cannot move the clock past its last instant, ${shown(LATEST_INSTANT)}: now is ${shown(now)}, so at most ${LATEST_INSTANT - now} ms remain; got ${byMs} ms`,
  );
}

/** A coalesced run: `entry`'s occurrence `last` (0: the queued entry itself), due `at`. */
interface Run {
  readonly entry: Entry;
  readonly last: number;
  readonly at: number;
}

/**
 * The order coalesced runs would have had one by one: by due time; at a tie, by the seq each occurrence would
 * have had. A queued entry (last 0) is older than any occurrence rescheduled in the window, and queued entries
 * keep their seq order. Two rescheduled ones got their seq when their previous occurrences ran: the longer
 * period's ran first. With equal periods (in phase, since they tie) they have tied since the first occurrence
 * of the entry due later, where that one, still queued, ran first; entries due at the same time keep their
 * seq order.
 */
function inRunOrder(a: Run, b: Run): number {
  if (a.at !== b.at) return a.at - b.at;
  if ((a.last === 0) !== (b.last === 0)) return a.last === 0 ? -1 : 1;
  if (a.last !== 0) {
    const [everyA, everyB] = [a.entry.everyMs!, b.entry.everyMs!];
    if (everyA !== everyB) return everyB - everyA;
    if (a.entry.due !== b.entry.due) return b.entry.due - a.entry.due;
  }
  return a.entry.id - b.entry.id;
}

const before = (a: Entry, b: Entry): boolean => a.due < b.due || (a.due === b.due && a.id < b.id);
const newQueue = () => new MinHeap<Entry>(before);
