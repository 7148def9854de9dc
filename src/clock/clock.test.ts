import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClockLimitError, VirtualClock, type ScheduledTask, type WaitEnd } from './clock.js';

const START = Date.UTC(2026, 0, 1);
const clocks: VirtualClock[] = [];

function manualClock(start = START): VirtualClock {
  const clock = new VirtualClock({ mode: 'manual', start });
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
  const at = (offset: number, payload: unknown) => clock.schedule({ kind: 'log', owner: null, payload }, START + offset);
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

  it('advance runs due tasks in due order, ties in scheduling order, with now at each task\'s due time', async () => {
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
    await expect(clock.advanceTo(START + 4999)).rejects.toThrow(/cannot move the clock back.*2026-01-01T00:00:04\.999Z.*2026-01-01T00:00:05\.000Z/);
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
    expect(() => clock.schedule({ kind: 'orphan', owner: null }, START + 10)).toThrow(/No handler registered for task kind "orphan": register it with handle\(kind, "work" \| "deadline", handler\)/);
    expect(() => clock.handle('sleep', 'work', () => undefined)).toThrow(/"sleep" is the clock's own kind/);
    expect(() => clock.handle('x', 'chore' as never, () => undefined)).toThrow(/a task kind is "work" or "deadline"; got chore for "x"/);
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
    clock.schedule({ kind: 'tick', owner: null, everyMs: 1000 }, START + 1000);
    expect(await clock.advance(3500)).toEqual({ now: START + 3500, ran: 3 });
    expect(ticks).toEqual([1000, 2000, 3000]);
    expect(clock.tasks()).toEqual([{ kind: 'tick', owner: null, due: START + 4000, everyMs: 1000 }]);
    await clock.advance(500);
    expect(ticks).toEqual([1000, 2000, 3000, 4000]);
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
    const task = clock.schedule({ kind: 'tick', owner: null, everyMs: 100 }, START + 100);
    expect(clock.cancel(task.id)).toBe(true);
    await clock.advance(1000);
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
    clock.handle('expiry', 'deadline', (task) => void ran.push(`expiry ${String(task.payload)} @${clock.now() - START}`));
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
    clock.schedule({ kind: 'housekeeping', owner: null, everyMs: 10_000 }, START + 10_000);
    clock.schedule({ kind: 'expiry', owner: 'c1' }, START + 1_000);
    clock.schedule({ kind: 'job', owner: 'c1', payload: 'b' }, START + 25_000);
    clock.schedule({ kind: 'job', owner: 'c1', payload: 'a' }, START + 5_000);
    const result = await clock.runUntilIdle();
    expect(ran).toEqual(['job a @5000', 'job b @25000']);
    expect(result).toEqual({ now: START + 25_000, ran: 2 });
    expect([clock.pending(), clock.deadlines()]).toEqual([0, 2]);
    expect(await clock.runUntilIdle()).toEqual({ now: START + 25_000, ran: 0 });
    expect(clock.tasks()).toEqual([
      { kind: 'expiry', owner: 'c1', due: START + 1_000 },
      { kind: 'housekeeping', owner: null, due: START + 10_000, everyMs: 10_000 },
    ]);
  });

  it('deadlines runUntilIdle passed fire at the next advance, overdue (now stays where it is), in due order', async () => {
    const clock = manualClock();
    const ran: string[] = [];
    clock.handle('job', 'work', () => void ran.push(`job @${clock.now() - START}`));
    clock.handle('housekeeping', 'deadline', (task) => void ran.push(`housekeeping due ${task.due - START} @${clock.now() - START}`));
    clock.handle('expiry', 'deadline', (task) => void ran.push(`expiry due ${task.due - START} @${clock.now() - START}`));
    clock.schedule({ kind: 'housekeeping', owner: null, everyMs: 10_000 }, START + 10_000);
    clock.schedule({ kind: 'expiry', owner: 'c1' }, START + 15_000);
    clock.schedule({ kind: 'job', owner: 'c1' }, START + 25_000);
    await clock.runUntilIdle();
    expect(ran).toEqual(['job @25000']);
    expect(await clock.advance(0)).toEqual({ now: START + 25_000, ran: 3 });
    expect(ran).toEqual(['job @25000', 'housekeeping due 10000 @25000', 'expiry due 15000 @25000', 'housekeeping due 20000 @25000']);
    // The periodic task keeps its own rhythm: next due at 30 s, not 25 s + 10 s.
    expect(clock.tasks()).toEqual([{ kind: 'housekeeping', owner: null, due: START + 30_000, everyMs: 10_000 }]);
  });

  it('runUntilIdle counts only work against its limit: deadlines in the span it crosses do not use it up', async () => {
    const clock = manualClock();
    let deadlinesRan = 0;
    clock.handle('retry', 'work', (task) => {
      const attempt = task.payload as number;
      if (attempt < 8) clock.schedule({ kind: 'retry', owner: task.owner, payload: attempt + 1 }, clock.now() + 3_600_000);
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
      if (attempt < 5) clock.schedule({ kind: 'retry', owner: task.owner, payload: attempt + 1 }, clock.now() + 2 ** attempt * 1000);
    });
    clock.schedule({ kind: 'retry', owner: 'c1', payload: 1 }, START);
    expect(await clock.runUntilIdle()).toEqual({ now: START + (2 + 4 + 8 + 16) * 1000, ran: 5 });
    expect(steps).toBe(5);
  });

  it('runUntilIdle stops with a ClockLimitError naming the limit, that it counts work only, and the pending work', async () => {
    const clock = manualClock();
    clock.handle('forever', 'work', (task) => void clock.schedule({ kind: 'forever', owner: task.owner }, clock.now() + 1000));
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
    for (const [kind, nature] of Object.entries(natures)) restored.handle(kind, nature, (task: ScheduledTask) => void order.push(`${task.kind}@${task.due - START}`));
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
    expect(() => clock.load(START + 1, [{ kind: 'a', owner: null, due: START + 2 }, { kind: 'gone', owner: null, due: START + 3 }])).toThrow(/No handler registered for task kind "gone"/);
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
    expect(ends).toEqual([{ reached: false, reason: 'reset' }, { reached: false, reason: 'reset' }]);
    expect(clock.pending()).toBe(1);
    expect(await clock.advance(1000)).toEqual({ now: START + 1000, ran: 1 });
    expect(ends).toHaveLength(2);
    // The clock is not disposed: a new sleep waits for its time as usual.
    const later = clock.sleep(10, null);
    await clock.advance(10);
    expect(await later).toEqual({ reached: true });
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
