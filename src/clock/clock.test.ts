import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClockLimitError, VirtualClock, type ScheduledTask } from './clock.js';

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
  clock.handle('log', (task) => {
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
    clock.handle('spawn', () => {
      ran.push(['spawn', clock.now() - START]);
      clock.schedule({ kind: 'child', owner: 'c1', payload: 'inside' }, clock.now() + 50);
      clock.schedule({ kind: 'child', owner: 'c1', payload: 'outside' }, clock.now() + 500);
    });
    clock.handle('child', (task) => {
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
    clock.handle('slow', async (task) => {
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

  it('rejects an advance that meets a task kind with no handler, and keeps working afterwards', async () => {
    const clock = manualClock();
    clock.schedule({ kind: 'orphan', owner: null }, START + 10);
    await expect(clock.advance(20)).rejects.toThrow(/No handler registered for task kind "orphan"/);
    expect(await clock.advance(5)).toMatchObject({ ran: 0 });
  });

  it('periodic tasks repeat every everyMs', async () => {
    const clock = manualClock();
    const ticks: number[] = [];
    clock.handle('tick', () => void ticks.push(clock.now() - START));
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
    clock.handle('tick', () => void ticks++);
    const task = clock.schedule({ kind: 'tick', owner: null, everyMs: 100 }, START + 100);
    expect(clock.cancel(task.id)).toBe(true);
    await clock.advance(1000);
    expect(ticks).toBe(0);
  });

  it('sleep resolves only once the clock is advanced past it', async () => {
    const clock = manualClock();
    let woke: number | undefined;
    const sleeping = clock.sleep(1000, 'c1').then(() => {
      woke = clock.now() - START;
    });
    await flush();
    expect(woke).toBeUndefined();
    expect(clock.pending()).toBe(1);
    await clock.advance(999);
    await flush();
    expect(woke).toBeUndefined();
    await clock.advance(1);
    await sleeping;
    expect(woke).toBe(1000);
    expect(clock.pending()).toBe(0);
  });

  it('a woken sleeper runs up to its next await before the next task runs', async () => {
    const clock = manualClock();
    const events: string[] = [];
    clock.handle('log', () => void events.push('task'));
    void clock.sleep(100, null).then(() => events.push('woken'));
    clock.schedule({ kind: 'log', owner: null }, START + 100);
    await clock.advance(100);
    expect(events).toEqual(['woken', 'task']);
  });

  it('pending counts one-off tasks and waits, not periodic tasks', async () => {
    const clock = manualClock();
    clock.handle('x', () => undefined);
    expect(clock.pending()).toBe(0);
    clock.schedule({ kind: 'x', owner: null, everyMs: 60_000 }, START + 60_000);
    expect(clock.pending()).toBe(0);
    clock.schedule({ kind: 'x', owner: 'c1' }, START + 10);
    clock.schedule({ kind: 'x', owner: 'c2' }, START + 20);
    void clock.sleep(30, 'c1');
    expect(clock.pending()).toBe(3);
    await clock.advance(15);
    expect(clock.pending()).toBe(2);
    await clock.advance(15);
    expect(clock.pending()).toBe(0);
  });

  it('runUntilIdle runs every one-off task, in order, and ignores periodic ones for idleness', async () => {
    const clock = manualClock();
    const ran: string[] = [];
    clock.handle('job', (task) => void ran.push(`job ${String(task.payload)} @${clock.now() - START}`));
    clock.handle('housekeeping', () => void ran.push(`housekeeping @${clock.now() - START}`));
    clock.schedule({ kind: 'housekeeping', owner: null, everyMs: 10_000 }, START + 10_000);
    clock.schedule({ kind: 'job', owner: 'c1', payload: 'b' }, START + 25_000);
    clock.schedule({ kind: 'job', owner: 'c1', payload: 'a' }, START + 5_000);
    const result = await clock.runUntilIdle();
    expect(ran).toEqual(['job a @5000', 'housekeeping @10000', 'housekeeping @20000', 'job b @25000']);
    expect(result).toEqual({ now: START + 25_000, ran: 4 });
    expect(clock.pending()).toBe(0);
    expect(await clock.runUntilIdle()).toEqual({ now: START + 25_000, ran: 0 });
    expect(clock.tasks()).toEqual([{ kind: 'housekeeping', owner: null, due: START + 30_000, everyMs: 10_000 }]);
  });

  it('runUntilIdle follows chains of tasks that schedule further tasks until none is left', async () => {
    const clock = manualClock();
    let steps = 0;
    clock.handle('retry', (task) => {
      steps++;
      const attempt = task.payload as number;
      if (attempt < 5) clock.schedule({ kind: 'retry', owner: task.owner, payload: attempt + 1 }, clock.now() + 2 ** attempt * 1000);
    });
    clock.schedule({ kind: 'retry', owner: 'c1', payload: 1 }, START);
    expect(await clock.runUntilIdle()).toEqual({ now: START + (2 + 4 + 8 + 16) * 1000, ran: 5 });
    expect(steps).toBe(5);
  });

  it('runUntilIdle stops with a ClockLimitError naming the limit and the pending work when a task keeps rescheduling itself', async () => {
    const clock = manualClock();
    clock.handle('forever', (task) => void clock.schedule({ kind: 'forever', owner: task.owner }, clock.now() + 1000));
    clock.schedule({ kind: 'forever', owner: 'c1' }, START + 1000);
    const error = await clock.runUntilIdle({ limit: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClockLimitError);
    expect(error).toBeInstanceOf(Error);
    const { name, message } = error as Error;
    expect(name).toBe('ClockLimitError');
    expect(message).toContain('after 50 tasks');
    expect(message).toContain('forever');
    expect(message).toMatch(/Raise \{ limit \}/);
    expect(message).toMatch(/advance\(\)/);
    expect(clock.now()).toBe(START + 50_000);
    // The clock stays usable.
    expect(await clock.advance(1000)).toMatchObject({ now: START + 51_000, ran: 1 });
  });

  it('runUntilIdle uses a default limit of 10000', async () => {
    const clock = manualClock();
    clock.handle('forever', () => void clock.schedule({ kind: 'forever', owner: null }, clock.now() + 1));
    clock.schedule({ kind: 'forever', owner: null }, START + 1);
    await expect(clock.runUntilIdle()).rejects.toThrow(/after 10000 tasks/);
  });

  it('tasks() lists persistent tasks in due order, without waits or cancelled ones, and load() restores them', async () => {
    const clock = manualClock();
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
    restored.load(START + 10, tasks);
    expect(restored.now()).toBe(START + 10);
    expect(restored.tasks()).toEqual(tasks);
    expect(restored.pending()).toBe(3);
    const order: string[] = [];
    for (const kind of ['a', 'b', 'tie2', 'tick']) restored.handle(kind, (task: ScheduledTask) => void order.push(`${task.kind}@${task.due - START}`));
    await restored.advanceTo(START + 60_000);
    expect(order).toEqual(['a@100', 'b@200', 'tie2@200', 'tick@60000']);
  });

  it('load() replaces the queue and releases sleepers', async () => {
    const clock = manualClock();
    let woke = false;
    const sleeping = clock.sleep(10_000, null).then(() => {
      woke = true;
    });
    clock.schedule({ kind: 'old', owner: null }, START + 5);
    clock.load(START + 1, []);
    await sleeping;
    expect(woke).toBe(true);
    expect(clock.pending()).toBe(0);
    expect(clock.tasks()).toEqual([]);
    expect(clock.now()).toBe(START + 1);
  });

  it('serializes concurrent advance calls: the second starts from where the first ended', async () => {
    const clock = manualClock();
    const events: string[] = [];
    clock.handle('slow', async (task) => {
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
    clock.handle('log', () => void ran.push(clock.now() - START));
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
    clock.handle('log', () => void ran.push(clock.now() - START));
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

  it('load() sets now and the offset from the snapshot instant', () => {
    const { clock, wall } = realClock();
    clock.load(START + 86_400_000, []);
    expect(clock.now()).toBe(START + 86_400_000);
    wall.now += 10;
    expect(clock.now()).toBe(START + 86_400_010);
  });
});
