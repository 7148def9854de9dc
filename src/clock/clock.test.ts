import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ClockDisposedError,
  ClockLimitError,
  ClockRangeError,
  LATEST_INSTANT,
  MAX_ADVANCE_MS,
  MIN_PERIOD_MS,
  VirtualClock,
  type ClockOptions,
  type HandleOptions,
  type ScheduledTask,
  type WaitEnd,
} from './clock.js';

const START = Date.UTC(2026, 0, 1);
const clocks: VirtualClock[] = [];

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function manualClock(start = START, options: Partial<ClockOptions> = {}): VirtualClock {
  const clock = new VirtualClock({ mode: 'manual', start, ...options });
  clocks.push(clock);
  return clock;
}

/** Lets every pending promise callback and immediate run (no real time passes for the clock). */
const flush = async (rounds = 5) => {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

/** A clock whose `log` tasks record [payload, clock.now()] when they run. */
function loggingClock() {
  const clock = manualClock();
  const ran: [unknown, number][] = [];
  clock.handle('log', 'work', (task) => {
    ran.push([task.payload, clock.now() - START]);
  });
  const at = (offset: number, payload: unknown) =>
    clock.schedule({ kind: 'log', owner: null, payload }, START + offset);
  return { clock, ran, at };
}

afterEach(() => {
  for (const clock of clocks.splice(0)) clock.dispose();
  vi.useRealTimers();
});

describe('VirtualClock, manual mode', () => {
  it('stays at its start until advanced', async () => {
    const clock = manualClock();
    expect(clock.mode).toBe('manual');
    expect(clock.now()).toBe(START);
    await flush();
    expect(clock.now()).toBe(START);
    expect(await clock.advance(90_000)).toEqual({ now: START + 90_000, ran: 0 });
    expect(clock.now()).toBe(START + 90_000);
  });

  it("advance runs due tasks in due order, ties in scheduling order, with now at each task's due time", async () => {
    const { clock, ran, at } = loggingClock();
    at(300, 'c');
    at(100, 'a1');
    at(200, 'b');
    at(100, 'a2');
    at(301, 'later');
    const result = await clock.advance(300);
    expect(ran).toEqual([
      ['a1', 100],
      ['a2', 100],
      ['b', 200],
      ['c', 300],
    ]);
    expect(result).toEqual({ now: START + 300, ran: 4 });
    expect(clock.now()).toBe(START + 300);
    expect(clock.pending()).toBe(1);
  });

  it('runs a task scheduled in the past at the next advance, without moving now back', async () => {
    const { clock, ran, at } = loggingClock();
    await clock.advance(1000);
    at(500, 'overdue');
    await clock.advance(0);
    expect(ran).toEqual([['overdue', 1000]]);
    expect(clock.now()).toBe(START + 1000);
  });

  it('a task scheduled during an advance runs in it when due by the target, and waits when due after', async () => {
    const clock = manualClock();
    const ran: [string, number][] = [];
    clock.handle('spawn', 'work', () => {
      ran.push(['spawn', clock.now() - START]);
      clock.schedule({ kind: 'child', owner: 'c1', payload: 'inside' }, clock.now() + 50);
      clock.schedule({ kind: 'child', owner: 'c1', payload: 'outside' }, clock.now() + 500);
    });
    clock.handle('child', 'work', (task) => {
      ran.push([String(task.payload), clock.now() - START]);
    });
    clock.schedule({ kind: 'spawn', owner: 'c1' }, START + 100);
    expect(await clock.advance(200)).toEqual({ now: START + 200, ran: 2 });
    expect(ran).toEqual([
      ['spawn', 100],
      ['inside', 150],
    ]);
    expect(clock.pending()).toBe(1);
    await clock.advance(400);
    expect(ran.at(-1)).toEqual(['outside', 600]);
  });

  it('awaits async handlers before running the next task', async () => {
    const clock = manualClock();
    const events: string[] = [];
    clock.handle('slow', 'work', async (task) => {
      events.push(`start ${String(task.payload)} @${clock.now() - START}`);
      await flush(3);
      events.push(`end ${String(task.payload)} @${clock.now() - START}`);
    });
    clock.schedule({ kind: 'slow', owner: null, payload: 1 }, START + 10);
    clock.schedule({ kind: 'slow', owner: null, payload: 2 }, START + 20);
    await clock.advance(20);
    expect(events).toEqual(['start 1 @10', 'end 1 @10', 'start 2 @20', 'end 2 @20']);
  });

  it('advanceTo moves to an instant, runs what is due, and refuses the past with a RangeError', async () => {
    const { clock, ran, at } = loggingClock();
    at(1000, 'x');
    expect(await clock.advanceTo(START + 5000)).toEqual({ now: START + 5000, ran: 1 });
    expect(ran).toEqual([['x', 1000]]);
    await expect(clock.advanceTo(START + 4999)).rejects.toThrow(RangeError);
    await expect(clock.advanceTo(START + 4999)).rejects.toThrow(
      /cannot move the clock back.*2026-01-01T00:00:04\.999Z.*2026-01-01T00:00:05\.000Z/,
    );
    expect(clock.now()).toBe(START + 5000);
    expect(await clock.advanceTo(START + 5000)).toEqual({ now: START + 5000, ran: 0 });
  });

  it('advanceTo refuses a non-finite instant with a rejected promise carrying its own RangeError message', async () => {
    const clock = manualClock();
    let refused: Promise<unknown> | undefined;
    expect(() => {
      refused = clock.advanceTo(Number.NaN);
    }).not.toThrow();
    await expect(refused).rejects.toThrow(/advanceTo\(\)/);
    expect(clock.now()).toBe(START);
  });

  it('advance refuses a negative or non-finite duration with a RangeError', async () => {
    const clock = manualClock();
    await expect(clock.advance(-1)).rejects.toThrow(RangeError);
    await expect(clock.advance(Number.POSITIVE_INFINITY)).rejects.toThrow(RangeError);
    await expect(clock.advance(Number.NaN)).rejects.toThrow(RangeError);
    expect(clock.now()).toBe(START);
  });

  it('refuses to schedule a kind with no handler, to register the clock\'s own "sleep" kind, or a nature other than work or deadline', () => {
    const clock = manualClock();
    expect(() => clock.schedule({ kind: 'orphan', owner: null }, START + 10)).toThrow(TypeError);
    expect(() => clock.schedule({ kind: 'orphan', owner: null }, START + 10)).toThrow(
      /No handler registered for task kind "orphan": register it with handle\(kind, "work" \| "deadline", handler\)/,
    );
    expect(() => clock.handle('sleep', 'work', () => undefined)).toThrow(/"sleep" is the clock's own kind/);
    expect(() => clock.handle('x', 'chore' as never, () => undefined)).toThrow(
      /a task kind is "work" or "deadline"; got chore for "x"/,
    );
    expect(clock.handles('orphan')).toBe(false);
    expect(clock.handles('sleep')).toBe(false);
    expect(clock.pending()).toBe(0);
    expect(clock.deadlines()).toBe(0);
    expect(clock.tasks()).toEqual([]);
  });

  it('periodic tasks repeat every everyMs', async () => {
    const clock = manualClock();
    const ticks: number[] = [];
    clock.handle('tick', 'deadline', () => void ticks.push(clock.now() - START));
    clock.schedule({ kind: 'tick', owner: null, everyMs: 60_000 }, START + 60_000);
    expect(await clock.advance(210_000)).toEqual({ now: START + 210_000, ran: 3 });
    expect(ticks).toEqual([60_000, 120_000, 180_000]);
    expect(clock.tasks()).toEqual([{ kind: 'tick', owner: null, due: START + 240_000, everyMs: 60_000 }]);
    await clock.advance(30_000);
    expect(ticks).toEqual([60_000, 120_000, 180_000, 240_000]);
  });

  it('cancel removes a task before it runs; cancelling twice or an unknown id answers false', async () => {
    const { clock, ran, at } = loggingClock();
    const keep = at(10, 'keep');
    const drop = at(20, 'drop');
    expect(clock.pending()).toBe(2);
    expect(clock.cancel(drop.id)).toBe(true);
    expect(clock.cancel(drop.id)).toBe(false);
    expect(clock.cancel(9999)).toBe(false);
    expect(clock.pending()).toBe(1);
    await clock.advance(100);
    expect(ran).toEqual([['keep', 10]]);
    expect(clock.cancel(keep.id)).toBe(false);
    expect(clock.tasks()).toEqual([]);
  });

  it('cancel stops a periodic task', async () => {
    const clock = manualClock();
    let ticks = 0;
    clock.handle('tick', 'deadline', () => void ticks++);
    const task = clock.schedule({ kind: 'tick', owner: null, everyMs: 60_000 }, START + 60_000);
    expect(clock.cancel(task.id)).toBe(true);
    await clock.advance(600_000);
    expect(ticks).toBe(0);
  });

  it('sleep resolves { reached: true } only once the clock is advanced past it', async () => {
    const clock = manualClock();
    let woke: [WaitEnd, number] | undefined;
    const sleeping = clock.sleep(1000, 'c1').then((end) => {
      woke = [end, clock.now() - START];
    });
    await flush();
    expect(woke).toBeUndefined();
    expect(clock.pending()).toBe(1);
    await clock.advance(999);
    await flush();
    expect(woke).toBeUndefined();
    await clock.advance(1);
    await sleeping;
    expect(woke).toEqual([{ reached: true }, 1000]);
    expect(clock.pending()).toBe(0);
  });

  it('a woken sleeper runs up to its next await before the next task runs', async () => {
    const clock = manualClock();
    const events: string[] = [];
    clock.handle('log', 'work', () => void events.push('task'));
    void clock.sleep(100, null).then(() => events.push('woken'));
    clock.schedule({ kind: 'log', owner: null }, START + 100);
    await clock.advance(100);
    expect(events).toEqual(['woken', 'task']);
  });

  it('pending() counts work (tasks and sleeps); deadlines() counts deadline tasks, periodic ones included', async () => {
    const clock = manualClock();
    clock.handle('job', 'work', () => undefined);
    clock.handle('expiry', 'deadline', () => undefined);
    expect([clock.pending(), clock.deadlines()]).toEqual([0, 0]);
    clock.schedule({ kind: 'expiry', owner: null, everyMs: 60_000 }, START + 60_000);
    clock.schedule({ kind: 'expiry', owner: 'c1' }, START + 5);
    expect([clock.pending(), clock.deadlines()]).toEqual([0, 2]);
    clock.schedule({ kind: 'job', owner: 'c1' }, START + 10);
    const cancelled = clock.schedule({ kind: 'job', owner: 'c2' }, START + 20);
    void clock.sleep(30, 'c1');
    expect([clock.pending(), clock.deadlines()]).toEqual([3, 2]);
    clock.cancel(cancelled.id);
    expect([clock.pending(), clock.deadlines()]).toEqual([2, 2]);
    await clock.advance(15);
    expect([clock.pending(), clock.deadlines()]).toEqual([1, 1]);
    await clock.advance(15);
    expect([clock.pending(), clock.deadlines()]).toEqual([0, 1]);
  });

  it('advance merges work and deadlines into one due order, ties in scheduling order across the two kinds', async () => {
    const clock = manualClock();
    const ran: string[] = [];
    clock.handle('job', 'work', (task) => void ran.push(`job ${String(task.payload)} @${clock.now() - START}`));
    clock.handle(
      'expiry',
      'deadline',
      (task) => void ran.push(`expiry ${String(task.payload)} @${clock.now() - START}`),
    );
    clock.schedule({ kind: 'expiry', owner: null, payload: 'x1' }, START + 100);
    clock.schedule({ kind: 'job', owner: null, payload: 'j1' }, START + 100);
    clock.schedule({ kind: 'expiry', owner: null, payload: 'x2' }, START + 100);
    clock.schedule({ kind: 'job', owner: null, payload: 'j2' }, START + 50);
    clock.schedule({ kind: 'expiry', owner: null, payload: 'x3' }, START + 75);
    expect(await clock.advance(100)).toEqual({ now: START + 100, ran: 5 });
    expect(ran).toEqual(['job j2 @50', 'expiry x3 @75', 'expiry x1 @100', 'job j1 @100', 'expiry x2 @100']);
  });

  it('runUntilIdle runs work in due order until none is left and never a deadline, even one due before the work', async () => {
    const clock = manualClock();
    const ran: string[] = [];
    clock.handle('job', 'work', (task) => void ran.push(`job ${String(task.payload)} @${clock.now() - START}`));
    clock.handle('housekeeping', 'deadline', () => void ran.push(`housekeeping @${clock.now() - START}`));
    clock.handle('expiry', 'deadline', () => void ran.push(`expiry @${clock.now() - START}`));
    clock.schedule({ kind: 'housekeeping', owner: null, everyMs: 60_000 }, START + 60_000);
    clock.schedule({ kind: 'expiry', owner: 'c1' }, START + 6_000);
    clock.schedule({ kind: 'job', owner: 'c1', payload: 'b' }, START + 150_000);
    clock.schedule({ kind: 'job', owner: 'c1', payload: 'a' }, START + 30_000);
    const result = await clock.runUntilIdle();
    expect(ran).toEqual(['job a @30000', 'job b @150000']);
    expect(result).toEqual({ now: START + 150_000, ran: 2 });
    expect([clock.pending(), clock.deadlines()]).toEqual([0, 2]);
    expect(await clock.runUntilIdle()).toEqual({ now: START + 150_000, ran: 0 });
    expect(clock.tasks()).toEqual([
      { kind: 'expiry', owner: 'c1', due: START + 6_000 },
      { kind: 'housekeeping', owner: null, due: START + 60_000, everyMs: 60_000 },
    ]);
  });

  it('deadlines runUntilIdle passed fire at the next advance, overdue (now stays where it is), in due order', async () => {
    const clock = manualClock();
    const ran: string[] = [];
    clock.handle('job', 'work', () => void ran.push(`job @${clock.now() - START}`));
    clock.handle(
      'housekeeping',
      'deadline',
      (task) => void ran.push(`housekeeping due ${task.due - START} @${clock.now() - START}`),
    );
    clock.handle(
      'expiry',
      'deadline',
      (task) => void ran.push(`expiry due ${task.due - START} @${clock.now() - START}`),
    );
    clock.schedule({ kind: 'housekeeping', owner: null, everyMs: 60_000 }, START + 60_000);
    clock.schedule({ kind: 'expiry', owner: 'c1' }, START + 90_000);
    clock.schedule({ kind: 'job', owner: 'c1' }, START + 150_000);
    await clock.runUntilIdle();
    expect(ran).toEqual(['job @150000']);
    expect(await clock.advance(0)).toEqual({ now: START + 150_000, ran: 3 });
    expect(ran).toEqual([
      'job @150000',
      'housekeeping due 60000 @150000',
      'expiry due 90000 @150000',
      'housekeeping due 120000 @150000',
    ]);
    // The periodic task keeps its own rhythm: next due at 3 min, not 2.5 min + 1 min.
    expect(clock.tasks()).toEqual([{ kind: 'housekeeping', owner: null, due: START + 180_000, everyMs: 60_000 }]);
  });

  it('runUntilIdle counts only work against its limit: deadlines in the span it crosses do not use it up', async () => {
    const clock = manualClock();
    let deadlinesRan = 0;
    clock.handle('retry', 'work', (task) => {
      const attempt = task.payload as number;
      if (attempt < 8)
        clock.schedule({ kind: 'retry', owner: task.owner, payload: attempt + 1 }, clock.now() + 3_600_000);
    });
    clock.handle('hourly', 'deadline', () => void deadlinesRan++);
    clock.schedule({ kind: 'hourly', owner: null, everyMs: 60_000 }, START + 60_000);
    clock.schedule({ kind: 'retry', owner: 'c1', payload: 1 }, START);
    expect(await clock.runUntilIdle({ limit: 8 })).toEqual({ now: START + 7 * 3_600_000, ran: 8 });
    expect(deadlinesRan).toBe(0);
  });

  it('runUntilIdle follows chains of tasks that schedule further tasks until none is left', async () => {
    const clock = manualClock();
    let steps = 0;
    clock.handle('retry', 'work', (task) => {
      steps++;
      const attempt = task.payload as number;
      if (attempt < 5)
        clock.schedule({ kind: 'retry', owner: task.owner, payload: attempt + 1 }, clock.now() + 2 ** attempt * 1000);
    });
    clock.schedule({ kind: 'retry', owner: 'c1', payload: 1 }, START);
    expect(await clock.runUntilIdle()).toEqual({ now: START + (2 + 4 + 8 + 16) * 1000, ran: 5 });
    expect(steps).toBe(5);
  });

  it('runUntilIdle stops with a ClockLimitError naming the limit, that it counts work only, and the pending work', async () => {
    const clock = manualClock();
    clock.handle(
      'forever',
      'work',
      (task) => void clock.schedule({ kind: 'forever', owner: task.owner }, clock.now() + 1000),
    );
    clock.handle('expiry', 'deadline', () => undefined);
    clock.schedule({ kind: 'forever', owner: 'c1' }, START + 1000);
    clock.schedule({ kind: 'expiry', owner: 'c1' }, START + 500);
    const error = await clock.runUntilIdle({ limit: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClockLimitError);
    expect(error).toBeInstanceOf(Error);
    const { name, message } = error as Error;
    expect(name).toBe('ClockLimitError');
    expect(message).toBe(
      'runUntilIdle stopped after 50 tasks of work (the limit counts work only: deadlines are never run by it) and work is still pending (forever): ' +
        'something keeps scheduling new work. Raise { limit } if this much work is expected, or use advance() to move a fixed span.',
    );
    expect(clock.now()).toBe(START + 50_000);
    // The clock stays usable; the passed deadline fires at the next advance.
    expect(await clock.advance(1000)).toMatchObject({ now: START + 51_000, ran: 2 });
    expect(clock.deadlines()).toBe(0);
  });

  it('runUntilIdle uses a default limit of 10000', async () => {
    const clock = manualClock();
    clock.handle('forever', 'work', () => void clock.schedule({ kind: 'forever', owner: null }, clock.now() + 1));
    clock.schedule({ kind: 'forever', owner: null }, START + 1);
    await expect(clock.runUntilIdle()).rejects.toThrow(/after 10000 tasks of work/);
  });

  it('tasks() lists persistent tasks of both kinds in due order, without waits or cancelled ones, and load() restores them with their kinds', async () => {
    const natures = { a: 'work', b: 'work', tie2: 'deadline', tick: 'deadline', dropped: 'work' } as const;
    const clock = manualClock();
    for (const [kind, nature] of Object.entries(natures)) clock.handle(kind, nature, () => undefined);
    clock.schedule({ kind: 'b', owner: 'c1', payload: { n: 2 } }, START + 200);
    clock.schedule({ kind: 'a', owner: null, payload: [1] }, START + 100);
    clock.schedule({ kind: 'tie2', owner: 'c2' }, START + 200);
    clock.schedule({ kind: 'tick', owner: null, everyMs: 60_000 }, START + 60_000);
    const dropped = clock.schedule({ kind: 'dropped', owner: null }, START + 1);
    clock.cancel(dropped.id);
    void clock.sleep(50, 'c1');
    const tasks = clock.tasks();
    expect(tasks).toEqual([
      { kind: 'a', owner: null, payload: [1], due: START + 100 },
      { kind: 'b', owner: 'c1', payload: { n: 2 }, due: START + 200 },
      { kind: 'tie2', owner: 'c2', due: START + 200 },
      { kind: 'tick', owner: null, everyMs: 60_000, due: START + 60_000 },
    ]);

    const restored = manualClock(0);
    const order: string[] = [];
    for (const [kind, nature] of Object.entries(natures))
      restored.handle(kind, nature, (task: ScheduledTask) => void order.push(`${task.kind}@${task.due - START}`));
    restored.load(START + 10, tasks);
    expect(restored.now()).toBe(START + 10);
    expect(restored.tasks()).toEqual(tasks);
    expect([restored.pending(), restored.deadlines()]).toEqual([2, 2]);
    expect(await restored.runUntilIdle()).toEqual({ now: START + 200, ran: 2 });
    expect(order).toEqual(['a@100', 'b@200']);
    await restored.advanceTo(START + 60_000);
    expect(order).toEqual(['a@100', 'b@200', 'tie2@200', 'tick@60000']);
  });

  it('load() refuses tasks of a kind with no handler with a TypeError, and keeps what it had', async () => {
    const clock = manualClock();
    clock.handle('a', 'work', () => undefined);
    clock.schedule({ kind: 'a', owner: null }, START + 5);
    expect(() =>
      clock.load(START + 1, [
        { kind: 'a', owner: null, due: START + 2 },
        { kind: 'gone', owner: null, due: START + 3 },
      ]),
    ).toThrow(/No handler registered for task kind "gone"/);
    expect(clock.now()).toBe(START);
    expect(clock.tasks()).toEqual([{ kind: 'a', owner: null, due: START + 5 }]);
  });

  it('load() replaces the queue and releases sleepers: { reached: false, reason } ("restored" unless told)', async () => {
    const clock = manualClock();
    clock.handle('old', 'work', () => undefined);
    const first = clock.sleep(10_000, null);
    clock.schedule({ kind: 'old', owner: null }, START + 5);
    clock.load(START + 1, []);
    expect(await first).toEqual({ reached: false, reason: 'restored' });
    expect(clock.pending()).toBe(0);
    expect(clock.tasks()).toEqual([]);
    expect(clock.now()).toBe(START + 1);
    const second = clock.sleep(10, null);
    clock.load(START + 2, [], 'rewound');
    expect(await second).toEqual({ reached: false, reason: 'rewound' });
  });

  it('release() lets every sleeper go with the reason and leaves the tasks; a released sleep never wakes later', async () => {
    const clock = manualClock();
    clock.handle('job', 'work', () => undefined);
    const ends: WaitEnd[] = [];
    const sleeps = [clock.sleep(100, 'c1'), clock.sleep(200, 'c2')].map((p) => p.then((end) => ends.push(end)));
    clock.schedule({ kind: 'job', owner: 'c1' }, START + 150);
    clock.release('reset');
    await Promise.all(sleeps);
    expect(ends).toEqual([
      { reached: false, reason: 'reset' },
      { reached: false, reason: 'reset' },
    ]);
    expect(clock.pending()).toBe(1);
    expect(await clock.advance(1000)).toEqual({ now: START + 1000, ran: 1 });
    expect(ends).toHaveLength(2);
    // The clock is not disposed: a new sleep waits for its time as usual.
    const later = clock.sleep(10, null);
    await clock.advance(10);
    expect(await later).toEqual({ reached: true });
  });

  it("tasksOf() lists one owner's persistent tasks in due order; removeOwner() drops its tasks and releases its sleeps, leaving the others' as they were", async () => {
    const clock = manualClock();
    const ran: string[] = [];
    clock.handle('work', 'work', (task) => void ran.push(`${String(task.owner)}:${String(task.payload)}`));
    clock.handle('deadline', 'deadline', (task) => void ran.push(`${String(task.owner)}:${String(task.payload)}`));
    clock.schedule({ kind: 'work', owner: 'c1', payload: 'w1' }, START + 300);
    clock.schedule({ kind: 'work', owner: 'c2', payload: 'w2' }, START + 100);
    clock.schedule({ kind: 'deadline', owner: 'c1', payload: 'd1', everyMs: MINUTE }, START + 200);
    clock.schedule({ kind: 'deadline', owner: null, payload: 'h' }, START + 250);
    const ends: WaitEnd[] = [];
    const c1Sleep = clock.sleep(1000, 'c1').then((end) => ends.push(end));
    const c2Sleep = clock.sleep(400, 'c2').then((end) => ends.push(end));
    expect(clock.tasksOf('c1')).toEqual([
      { kind: 'deadline', owner: 'c1', payload: 'd1', everyMs: MINUTE, due: START + 200 },
      { kind: 'work', owner: 'c1', payload: 'w1', due: START + 300 },
    ]);
    expect(clock.tasksOf(null)).toEqual([{ kind: 'deadline', owner: null, payload: 'h', due: START + 250 }]);
    expect([clock.pending(), clock.deadlines()]).toEqual([4, 2]);

    expect(clock.removeOwner('c1', 'company removed')).toBe(3);
    await c1Sleep;
    expect(ends).toEqual([{ reached: false, reason: 'company removed' }]);
    expect(clock.tasksOf('c1')).toEqual([]);
    expect(clock.tasks()).toEqual([
      { kind: 'work', owner: 'c2', payload: 'w2', due: START + 100 },
      { kind: 'deadline', owner: null, payload: 'h', due: START + 250 },
    ]);
    expect([clock.pending(), clock.deadlines()]).toEqual([2, 1]);
    expect(await clock.advance(2 * MINUTE)).toEqual({ now: START + 2 * MINUTE, ran: 3 });
    await c2Sleep;
    expect(ran).toEqual(['c2:w2', 'null:h']);
    expect(ends).toEqual([{ reached: false, reason: 'company removed' }, { reached: true }]);
    expect(clock.removeOwner('nobody', 'x')).toBe(0);
  });

  it('dispose() releases every sleeper with its reason, and a sleep asked for afterwards is released at once', async () => {
    const clock = manualClock();
    const held = clock.sleep(5000, 'c1');
    clock.dispose('closed');
    expect(await held).toEqual({ reached: false, reason: 'closed' });
    expect(await clock.sleep(5000, 'c1')).toEqual({ reached: false, reason: 'closed' });
    expect(clock.pending()).toBe(0);
  });

  it('serializes concurrent advance calls: the second starts from where the first ended', async () => {
    const clock = manualClock();
    const events: string[] = [];
    clock.handle('slow', 'work', async (task) => {
      events.push(`start ${String(task.payload)} @${clock.now() - START}`);
      await flush(3);
      events.push(`end ${String(task.payload)}`);
    });
    clock.schedule({ kind: 'slow', owner: null, payload: 'first' }, START + 1000);
    clock.schedule({ kind: 'slow', owner: null, payload: 'second' }, START + 1500);
    const [a, b] = await Promise.all([clock.advance(1000), clock.advance(1000)]);
    expect(a).toEqual({ now: START + 1000, ran: 1 });
    expect(b).toEqual({ now: START + 2000, ran: 1 });
    expect(events).toEqual(['start first @1000', 'end first', 'start second @1500', 'end second']);
  });

  it('a runUntilIdle queued behind an advance waits for it', async () => {
    const { clock, ran, at } = loggingClock();
    at(100, 'x');
    at(5000, 'y');
    const advancing = clock.advance(200);
    const idle = clock.runUntilIdle();
    expect(await advancing).toEqual({ now: START + 200, ran: 1 });
    expect(await idle).toEqual({ now: START + 5000, ran: 1 });
    expect(ran).toEqual([
      ['x', 100],
      ['y', 5000],
    ]);
  });
});

describe('VirtualClock, real mode (injected wall clock)', () => {
  function realClock(start = START) {
    const wall = { now: 1_700_000_000_000 };
    const clock = new VirtualClock({ mode: 'real', start, wallClock: () => wall.now });
    clocks.push(clock);
    return { clock, wall };
  }

  it('now is the wall clock plus the offset set by start', () => {
    const { clock, wall } = realClock();
    expect(clock.mode).toBe('real');
    expect(clock.now()).toBe(START);
    wall.now += 1234;
    expect(clock.now()).toBe(START + 1234);
  });

  it("a clock made from another's reading() reads as that one did, however long passed before it was made; load takes a reading too", () => {
    const { clock, wall } = realClock();
    wall.now += 250;
    const taken = clock.reading();
    expect(taken).toEqual({ now: START + 250, wall: 1_700_000_000_250 });
    // Made 40 ms of wall clock later, from the reading: it reads as the first clock does, not 40 ms behind.
    wall.now += 40;
    const copy = new VirtualClock({
      mode: 'real',
      start: taken.now,
      wallAtStart: taken.wall,
      wallClock: () => wall.now,
    });
    clocks.push(copy);
    expect(copy.now()).toBe(clock.now());
    expect(new VirtualClock({ mode: 'real', start: taken.now, wallClock: () => wall.now }).now()).toBe(
      clock.now() - 40,
    );
    wall.now += 10;
    copy.load(taken.now, [], 'restored', taken.wall);
    expect(copy.now()).toBe(clock.now());
  });

  it('advance moves the offset: time keeps flowing from the advanced instant', async () => {
    const { clock, wall } = realClock();
    wall.now += 500;
    expect(await clock.advance(60_000)).toEqual({ now: START + 60_500, ran: 0 });
    expect(clock.now()).toBe(START + 60_500);
    wall.now += 100;
    expect(clock.now()).toBe(START + 60_600);
  });

  it('advance runs the tasks due in the skipped span at their due times', async () => {
    const { clock, wall } = realClock();
    const ran: number[] = [];
    clock.handle('log', 'work', () => void ran.push(clock.now() - START));
    clock.schedule({ kind: 'log', owner: null }, START + 10_000);
    clock.schedule({ kind: 'log', owner: null }, START + 20_000);
    clock.schedule({ kind: 'log', owner: null }, START + 90_000);
    expect(await clock.advance(30_000)).toEqual({ now: START + 30_000, ran: 2 });
    expect(ran).toEqual([10_000, 20_000]);
    wall.now += 5;
    expect(clock.now()).toBe(START + 30_005);
  });

  it('advanceTo refuses an instant the wall clock has already passed', async () => {
    const { clock, wall } = realClock();
    wall.now += 1000;
    await expect(clock.advanceTo(START + 999)).rejects.toThrow(RangeError);
    expect(await clock.advanceTo(START + 1000)).toMatchObject({ now: START + 1000 });
  });

  it('fires a task on a wall-clock timer when its due time arrives (fake timers, no real waiting)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { clock, wall } = realClock();
    const ran: number[] = [];
    clock.handle('log', 'work', () => void ran.push(clock.now() - START));
    clock.schedule({ kind: 'log', owner: null }, START + 5000);
    wall.now += 4999;
    await vi.advanceTimersByTimeAsync(4999);
    expect(ran).toEqual([]);
    wall.now += 1;
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    expect(ran).toEqual([5000]);
    expect(clock.pending()).toBe(0);
  });

  it('keeps one timer for the earliest task of either kind: a deadline before the work fires first, on time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { clock, wall } = realClock();
    const ran: string[] = [];
    clock.handle('job', 'work', () => void ran.push(`job @${clock.now() - START}`));
    clock.handle('expiry', 'deadline', () => void ran.push(`expiry @${clock.now() - START}`));
    clock.schedule({ kind: 'job', owner: null }, START + 3000);
    clock.schedule({ kind: 'expiry', owner: null }, START + 1000);
    expect(vi.getTimerCount()).toBe(1);
    wall.now += 1000;
    await vi.advanceTimersByTimeAsync(1000);
    await flush();
    expect(ran).toEqual(['expiry @1000']);
    expect(vi.getTimerCount()).toBe(1);
    wall.now += 2000;
    await vi.advanceTimersByTimeAsync(2000);
    await flush();
    expect(ran).toEqual(['expiry @1000', 'job @3000']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('dispose() stops the timer: nothing fires afterwards', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { clock, wall } = realClock();
    const ran: number[] = [];
    clock.handle('expiry', 'deadline', () => void ran.push(clock.now() - START));
    clock.schedule({ kind: 'expiry', owner: null }, START + 1000);
    clock.dispose();
    expect(vi.getTimerCount()).toBe(0);
    wall.now += 5000;
    await vi.advanceTimersByTimeAsync(5000);
    await flush();
    expect(ran).toEqual([]);
  });

  it('load() sets now and the offset from the snapshot instant', () => {
    const { clock, wall } = realClock();
    clock.load(START + 86_400_000, []);
    expect(clock.now()).toBe(START + 86_400_000);
    wall.now += 10;
    expect(clock.now()).toBe(START + 86_400_010);
  });
});

/** The ClockRangeError an advance was refused with (a rejected promise): its argument and message. */
async function refusal(advancing: Promise<unknown>): Promise<{ argument: string; message: string }> {
  const error = await advancing.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ClockRangeError);
  return { argument: (error as ClockRangeError).argument, message: (error as ClockRangeError).message };
}

describe('VirtualClock bounds', () => {
  it('advance moves at most MAX_ADVANCE_MS (3650 days): exactly that runs, a millisecond more is refused on `by`, naming the bound', async () => {
    const clock = manualClock();
    expect(await refusal(clock.advance(MAX_ADVANCE_MS + 1))).toEqual({
      argument: 'by',
      message:
        'advance() moves the clock at most 3650 days (315360000000 ms) at a time; got 3,650 days (315360000001 ms): advance in steps',
    });
    expect(await refusal(clock.advance(Number.MAX_SAFE_INTEGER))).toMatchObject({
      argument: 'by',
      message: expect.stringContaining('got 104,249,991.374 days (9007199254740991 ms)'),
    });
    expect(clock.now()).toBe(START);
    expect(await clock.advance(MAX_ADVANCE_MS)).toEqual({ now: START + MAX_ADVANCE_MS, ran: 0 });
  });

  it('advance refuses a duration that is not whole milliseconds', async () => {
    const clock = manualClock();
    expect(await refusal(clock.advance(1.5))).toEqual({
      argument: 'by',
      message: 'advance() takes a whole, non-negative number of milliseconds; got 1.5',
    });
    expect(clock.now()).toBe(START);
  });

  it('advance never passes LATEST_INSTANT: it reaches it exactly, and refuses a millisecond more, saying how much remains', async () => {
    const clock = manualClock(LATEST_INSTANT - 1000);
    expect(await refusal(clock.advance(1001))).toEqual({
      argument: 'by',
      message:
        'advance() cannot move the clock past its last instant, 9999-12-31T23:59:59.999Z: now is 9999-12-31T23:59:58.999Z, so at most 1000 ms remain; got 1001 ms',
    });
    expect(await clock.advance(1000)).toEqual({ now: LATEST_INSTANT, ran: 0 });
    expect(await clock.advance(0)).toEqual({ now: LATEST_INSTANT, ran: 0 });
    expect((await refusal(clock.advance(1))).message).toContain('so at most 0 ms remain; got 1 ms');
    expect(clock.now()).toBe(LATEST_INSTANT);
  });

  it('an advance queued behind another is checked again when it starts, from where the first one ended', async () => {
    const clock = manualClock(LATEST_INSTANT - 2 * DAY);
    const first = clock.advance(DAY);
    const second = clock.advance(1.5 * DAY);
    expect(await first).toEqual({ now: LATEST_INSTANT - DAY, ran: 0 });
    expect(await refusal(second)).toMatchObject({
      argument: 'by',
      message: expect.stringContaining(`so at most ${DAY} ms remain; got ${1.5 * DAY} ms`),
    });
    expect(clock.now()).toBe(LATEST_INSTANT - DAY);
  });

  it('advanceTo refuses, on `to`, an instant past LATEST_INSTANT (even past what a Date can show), more than 3650 days ahead, or not whole ms', async () => {
    const clock = manualClock();
    expect(await refusal(clock.advanceTo(LATEST_INSTANT + 1))).toEqual({
      argument: 'to',
      message:
        'advanceTo() cannot move the clock past its last instant, 9999-12-31T23:59:59.999Z; got +010000-01-01T00:00:00.000Z',
    });
    expect((await refusal(clock.advanceTo(Number.MAX_SAFE_INTEGER))).message).toBe(
      'advanceTo() cannot move the clock past its last instant, 9999-12-31T23:59:59.999Z; got 9007199254740991 ms after 1970',
    );
    expect(await refusal(clock.advanceTo(START + MAX_ADVANCE_MS + 1))).toEqual({
      argument: 'to',
      message:
        'advanceTo() moves the clock at most 3650 days (315360000000 ms) at a time; 2035-12-30T00:00:00.001Z is 3,650 days after now (2026-01-01T00:00:00.000Z): advance in steps',
    });
    expect(await refusal(clock.advanceTo(START + 0.5))).toEqual({
      argument: 'to',
      message: 'advanceTo() takes an instant in whole milliseconds; got 1767225600000.5',
    });
    expect(clock.now()).toBe(START);
    expect(await clock.advanceTo(START + MAX_ADVANCE_MS)).toEqual({ now: START + MAX_ADVANCE_MS, ran: 0 });
    const end = manualClock(LATEST_INSTANT - DAY);
    expect(await end.advanceTo(LATEST_INSTANT)).toEqual({ now: LATEST_INSTANT, ran: 0 });
  });

  it(`schedule refuses a period under MIN_PERIOD_MS (${MIN_PERIOD_MS} ms) or not whole; load refuses such a task and keeps what it had`, async () => {
    const clock = manualClock();
    clock.handle('tick', 'deadline', () => undefined);
    for (const everyMs of [MIN_PERIOD_MS - 1, 0, -MIN_PERIOD_MS, MIN_PERIOD_MS + 0.5, Number.NaN]) {
      expect(() => clock.schedule({ kind: 'tick', owner: null, everyMs }, START + MIN_PERIOD_MS)).toThrow(
        new RangeError(
          `a periodic task repeats every 60000 ms or more, in whole milliseconds; got everyMs ${everyMs} for "tick"`,
        ),
      );
    }
    clock.schedule({ kind: 'tick', owner: null, everyMs: MIN_PERIOD_MS }, START + MIN_PERIOD_MS);
    const kept = clock.tasks();
    expect(() => clock.load(START + 5, [{ kind: 'tick', owner: null, due: START + 10, everyMs: 1 }])).toThrow(
      RangeError,
    );
    expect(clock.tasks()).toEqual(kept);
    expect(clock.now()).toBe(START);
  });

  it('runUntilIdle runs no work due after LATEST_INSTANT: the clock never gets there, so the work stays pending', async () => {
    const { clock, ran } = loggingClock();
    clock.load(LATEST_INSTANT - 10, []);
    clock.schedule({ kind: 'log', owner: null, payload: 'last' }, LATEST_INSTANT);
    clock.schedule({ kind: 'log', owner: null, payload: 'never' }, LATEST_INSTANT + 1);
    expect(await clock.runUntilIdle()).toEqual({ now: LATEST_INSTANT, ran: 1 });
    expect(ran).toEqual([['last', LATEST_INSTANT - START]]);
    expect(clock.pending()).toBe(1);
  });

  it('real mode stops at LATEST_INSTANT: now never passes it, and a task due after it gets no timer', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const wall = { now: 1_700_000_000_000 };
    const clock = new VirtualClock({ mode: 'real', start: LATEST_INSTANT - 1000, wallClock: () => wall.now });
    clocks.push(clock);
    clock.handle('log', 'work', () => undefined);
    clock.schedule({ kind: 'log', owner: null }, LATEST_INSTANT + 1);
    expect(vi.getTimerCount()).toBe(0);
    wall.now += 999;
    expect(clock.now()).toBe(LATEST_INSTANT - 1);
    wall.now += 10 * DAY;
    expect(clock.now()).toBe(LATEST_INSTANT);
  });
});

describe('VirtualClock, coalesced periodic runs', () => {
  /** A clock with an hourly `purge` that may coalesce and one-off `job`s, each logging [kind, due, now] offsets from START. */
  function purgeClock(coalesce: HandleOptions['coalesce'] = true) {
    const clock = manualClock();
    const runs: [string, number, number][] = [];
    const log = (task: ScheduledTask) => void runs.push([task.kind, task.due - START, clock.now() - START]);
    clock.handle('purge', 'deadline', log, { coalesce });
    clock.handle('job', 'work', log);
    clock.schedule({ kind: 'purge', owner: null, everyMs: HOUR }, START + HOUR);
    return { clock, runs };
  }

  it('runs once at the last occurrence before the next other task, and again for the rest up to the target; ran counts every occurrence', async () => {
    const { clock, runs } = purgeClock();
    clock.schedule({ kind: 'job', owner: null }, START + 10.5 * HOUR);
    expect(await clock.advance(DAY)).toEqual({ now: START + DAY, ran: 25 });
    expect(runs).toEqual([
      ['purge', 10 * HOUR, 10 * HOUR],
      ['job', 10.5 * HOUR, 10.5 * HOUR],
      ['purge', 24 * HOUR, 24 * HOUR],
    ]);
    expect(clock.tasks()).toEqual([{ kind: 'purge', owner: null, due: START + 25 * HOUR, everyMs: HOUR }]);
  });

  it('an occurrence due at the same instant as a task queued before it runs after that task, so the coalesced run stops short of it', async () => {
    const { clock, runs } = purgeClock();
    clock.schedule({ kind: 'job', owner: null }, START + 10 * HOUR);
    expect(await clock.advance(12 * HOUR)).toEqual({ now: START + 12 * HOUR, ran: 13 });
    expect(runs).toEqual([
      ['purge', 9 * HOUR, 9 * HOUR],
      ['job', 10 * HOUR, 10 * HOUR],
      ['purge', 12 * HOUR, 12 * HOUR],
    ]);
  });

  it('a coalesce function answering false runs that occurrence alone; it is asked again at the next', async () => {
    let counting = true;
    const { clock, runs } = purgeClock(() => !counting);
    clock.handle('stop', 'work', () => {
      counting = false;
    });
    clock.schedule({ kind: 'stop', owner: null }, START + 3.5 * HOUR);
    expect(await clock.advance(10 * HOUR)).toEqual({ now: START + 10 * HOUR, ran: 11 });
    expect(runs).toEqual([
      ['purge', HOUR, HOUR],
      ['purge', 2 * HOUR, 2 * HOUR],
      ['purge', 3 * HOUR, 3 * HOUR],
      ['purge', 10 * HOUR, 10 * HOUR],
    ]);
  });

  it('overdue occurrences (runUntilIdle passed them) coalesce into one run at the current time', async () => {
    const { clock, runs } = purgeClock();
    clock.schedule({ kind: 'job', owner: null }, START + 5.5 * HOUR);
    await clock.runUntilIdle();
    expect(await clock.advance(0)).toEqual({ now: START + 5.5 * HOUR, ran: 5 });
    expect(runs).toEqual([
      ['job', 5.5 * HOUR, 5.5 * HOUR],
      ['purge', 5 * HOUR, 5.5 * HOUR],
    ]);
    expect(clock.tasks()).toEqual([{ kind: 'purge', owner: null, due: START + 6 * HOUR, everyMs: HOUR }]);
  });

  it('aligned coalescing kinds jump together: one run each per window, queued next in the order one-by-one runs leave them', async () => {
    const kinds = ['hourly', 'daily-a', 'daily-b', 'every-90-min'] as const;
    const build = (coalesce: boolean) => {
      const clock = manualClock();
      const runs: string[] = [];
      for (const kind of kinds)
        clock.handle(kind, 'deadline', (task) => void runs.push(`${kind} ${(task.due - START) / MINUTE}`), {
          coalesce,
        });
      clock.schedule({ kind: 'daily-b', owner: null, everyMs: DAY }, START + DAY);
      clock.schedule({ kind: 'hourly', owner: null, everyMs: HOUR }, START + HOUR);
      clock.schedule({ kind: 'daily-a', owner: null, everyMs: DAY }, START + DAY);
      clock.schedule({ kind: 'every-90-min', owner: null, everyMs: 90 * MINUTE }, START + 90 * MINUTE);
      return { clock, runs };
    };
    const one = build(false);
    const all = build(true);
    const [each, coalesced] = [await one.clock.advance(10 * DAY), await all.clock.advance(10 * DAY)];
    expect(coalesced).toEqual(each);
    expect(each.ran).toBe(240 + 10 + 10 + 160);
    // At a tie, the longer period ran its previous occurrence earlier, so it was queued first.
    expect(all.runs).toEqual(['daily-b 14400', 'daily-a 14400', 'every-90-min 14400', 'hourly 14400']);
    expect(one.runs.slice(-4)).toEqual(all.runs);
    expect(all.clock.tasks()).toEqual(one.clock.tasks());
  });

  it('a walk by runUntilIdle never coalesces: it runs work only', async () => {
    const clock = manualClock();
    const runs: number[] = [];
    clock.handle('poll', 'work', () => void runs.push(clock.now() - START), { coalesce: true });
    clock.schedule({ kind: 'poll', owner: null, everyMs: HOUR }, START + HOUR);
    await expect(clock.runUntilIdle({ limit: 3 })).rejects.toThrow(ClockLimitError);
    expect(runs).toEqual([HOUR, 2 * HOUR, 3 * HOUR]);
  });

  /**
   * The model of what may coalesce: each periodic kind keeps a frontier, the latest `now` it ran at (a purge
   * monotone in now). A kind in `counting` mode while its flag is set logs each run instead (the daily schedule
   * with a company watching), and its coalesce function says no then. One-off tasks log the frontiers they see,
   * flip flags, or schedule more.
   */
  type Mode = 'always' | 'flagged' | 'never';
  interface Periodic {
    readonly every: number;
    readonly first: number;
    readonly mode: Mode;
    readonly nature: 'work' | 'deadline';
  }
  type OneOff = {
    readonly at: number;
    readonly nature: 'work' | 'deadline';
    readonly action: 'record' | 'flip' | 'spawn';
    readonly target: number;
    readonly delta: number;
  };
  type Op =
    | { readonly op: 'advance'; readonly by: number }
    | { readonly op: 'advanceTo'; readonly ahead: number }
    | { readonly op: 'idle' };

  function run(periodics: readonly Periodic[], oneOffs: readonly OneOff[], coalescing: boolean) {
    const clock = manualClock();
    const frontier = periodics.map(() => START);
    const flags = periodics.map(() => false);
    const log: string[] = [];
    periodics.forEach((p, k) => {
      const options =
        !coalescing || p.mode === 'never' ? {} : { coalesce: p.mode === 'always' ? true : () => !flags[k] };
      clock.handle(
        `p${k}`,
        p.nature,
        () => {
          if (p.mode === 'never' || (p.mode === 'flagged' && flags[k])) log.push(`p${k} ran @${clock.now() - START}`);
          else frontier[k] = Math.max(frontier[k]!, clock.now());
        },
        options,
      );
    });
    for (const nature of ['work', 'deadline'] as const) {
      clock.handle(`one-${nature}`, nature, (task) => {
        const { action, target, delta, name } = task.payload as OneOff & { name: string };
        const k = target % Math.max(1, periodics.length);
        log.push(`${name} @${clock.now() - START} sees ${frontier.map((f) => f - START).join(',')}`);
        if (action === 'flip' && periodics.length > 0) flags[k] = !flags[k];
        if (action === 'spawn')
          clock.schedule(
            { kind: `one-${nature}`, owner: null, payload: { action: 'record', target, delta, name: `${name}'` } },
            clock.now() + delta,
          );
      });
    }
    periodics.forEach((p, k) => clock.schedule({ kind: `p${k}`, owner: null, everyMs: p.every }, START + p.first));
    oneOffs.forEach((o, i) =>
      clock.schedule({ kind: `one-${o.nature}`, owner: null, payload: { ...o, name: `o${i}` } }, START + o.at),
    );
    return { clock, log, frontier };
  }

  it('leaves exactly the state, log, queue and results of running every occurrence one by one (property)', async () => {
    const nature = fc.constantFrom('work' as const, 'deadline' as const);
    const periodic = fc.record({
      every: fc.integer({ min: 1, max: 12 }).map((n) => n * 30 * MINUTE),
      first: fc.integer({ min: 0, max: 48 }).map((n) => n * 15 * MINUTE),
      mode: fc.constantFrom<Mode>('always', 'always', 'flagged', 'never'),
      nature,
    });
    const oneOff = fc.record({
      at: fc.integer({ min: 0, max: 96 }).map((n) => n * 15 * MINUTE),
      nature,
      action: fc.constantFrom('record' as const, 'flip' as const, 'spawn' as const),
      target: fc.nat(),
      delta: fc.integer({ min: 0, max: 16 }).map((n) => n * 15 * MINUTE),
    });
    const op = fc.oneof(
      fc.record({
        op: fc.constant('advance' as const),
        by: fc.integer({ min: 0, max: 24 }).map((n) => n * 20 * MINUTE),
      }),
      fc.record({ op: fc.constant('advanceTo' as const), ahead: fc.integer({ min: 0, max: 3 * DAY }) }),
      fc.record({ op: fc.constant('idle' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(periodic, { maxLength: 4 }),
        fc.array(oneOff, { maxLength: 8 }),
        fc.array(op, { minLength: 1, maxLength: 6 }),
        async (periodics, oneOffs, ops: Op[]) => {
          const each = run(periodics, oneOffs, false);
          const coalesced = run(periodics, oneOffs, true);
          for (const step of ops) {
            const walk = (clock: VirtualClock) =>
              step.op === 'advance'
                ? clock.advance(step.by)
                : step.op === 'advanceTo'
                  ? clock.advanceTo(clock.now() + step.ahead)
                  : clock.runUntilIdle({ limit: 50 }).catch((e: unknown) => (e as Error).name);
            expect(await walk(coalesced.clock)).toEqual(await walk(each.clock));
            expect(coalesced.log).toEqual(each.log);
            expect(coalesced.frontier).toEqual(each.frontier);
            expect(coalesced.clock.tasks()).toEqual(each.clock.tasks());
            expect(coalesced.clock.now()).toBe(each.clock.now());
          }
          for (const clock of [each.clock, coalesced.clock]) clock.dispose();
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('VirtualClock, a long walk and the event loop', () => {
  /** A clock running 300 tasks, each logging its payload and time; `other` callbacks log themselves. */
  async function walkWith(yieldAfterMs: number) {
    const clock = manualClock(START, { yieldAfterMs });
    const log: string[] = [];
    clock.handle('log', 'work', (task) => void log.push(`task ${String(task.payload)} @${clock.now() - START}`));
    clock.handle('chain', 'work', async (task) => {
      await Promise.resolve();
      log.push(`chain @${clock.now() - START}`);
      if ((task.payload as number) > 0)
        clock.schedule({ kind: 'chain', owner: null, payload: (task.payload as number) - 1 }, clock.now() + 7);
    });
    for (let i = 0; i < 300; i++) clock.schedule({ kind: 'log', owner: null, payload: i }, START + i * 10);
    clock.schedule({ kind: 'chain', owner: null, payload: 100 }, START + 5);
    const result = clock.advance(5000);
    setImmediate(() => log.push('other'));
    return { result: await result, log };
  }

  it('lets other callbacks run between tasks once it has held the event loop yieldAfterMs, and runs the same tasks at the same times either way', async () => {
    const yielding = await walkWith(0);
    const holding = await walkWith(Number.POSITIVE_INFINITY);
    expect(yielding.result).toEqual(holding.result);
    expect(yielding.result.ran).toBe(401);
    const without = (log: string[]) => log.filter((line) => line !== 'other');
    expect(without(yielding.log)).toEqual(without(holding.log));
    // Holding on, the walk only awaits promises: the other callback runs once it is over.
    expect(holding.log).not.toContain('other');
    // Yielding after every task, it runs right after the first.
    expect(yielding.log.indexOf('other')).toBe(1);
  });

  it('dispose() stops a walk in progress: the walk rejects with ClockDisposedError saying why and how far it got, and runs nothing more', async () => {
    const clock = manualClock();
    const ran: number[] = [];
    let release: () => void = () => undefined;
    clock.handle('slow', 'work', async (task) => {
      ran.push(task.payload as number);
      if (task.payload === 2) await new Promise<void>((resolve) => (release = resolve));
    });
    for (let i = 1; i <= 4; i++) clock.schedule({ kind: 'slow', owner: null, payload: i }, START + i);
    const walking = clock.advance(10);
    const queued = clock.advance(10);
    await flush();
    clock.dispose('reset');
    release();
    const error = await walking.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClockDisposedError);
    expect((error as ClockDisposedError).message).toBe(
      'The emulator was reset while the clock was running its tasks: it had run 2 and stopped there; the rest will not run.',
    );
    expect(await queued.catch((e: unknown) => (e as Error).message)).toBe(
      'The emulator was reset while the clock was running its tasks: it had run 0 and stopped there; the rest will not run.',
    );
    expect(ran).toEqual([1, 2]);
  });

  it('real mode: a timer walk that dispose() stops ends quietly (no unhandled rejection)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const wall = { now: 1_700_000_000_000 };
    const clock = new VirtualClock({ mode: 'real', start: START, wallClock: () => wall.now });
    clocks.push(clock);
    const ran: number[] = [];
    let release: () => void = () => undefined;
    clock.handle('slow', 'work', async (task) => {
      ran.push(task.payload as number);
      await new Promise<void>((resolve) => (release = resolve));
    });
    clock.schedule({ kind: 'slow', owner: null, payload: 1 }, START + 1000);
    clock.schedule({ kind: 'slow', owner: null, payload: 2 }, START + 1000);
    wall.now += 1000;
    await vi.advanceTimersByTimeAsync(1000);
    expect(ran).toEqual([1]);
    clock.dispose('closed');
    release();
    await flush();
    expect(ran).toEqual([1]);
  });
});
