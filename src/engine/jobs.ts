/**
 * The background jobs on the clock: every job of the core's registry (src/core/jobs.ts) registered the same way,
 * with the `job` faults of its kind applied the same way, and the periodic ones scheduled from the start.
 */
import type { ScheduledTask, VirtualClock } from '../clock/clock.js';
import { JOBS, type Job, type JobPayload } from '../core/jobs.js';
import type { Context, State } from '../core/state.js';
import { isoString } from '../core/time.js';
import type { ActivityFeed, JobActivity } from './activity.js';
import type { FaultRegistry } from './faults.js';

/** What a task handler needs of a world: its state as it is now, its clock, and the one way to run a transition. */
export interface TaskWorld {
  readonly state: State;
  readonly clock: VirtualClock;
  /** Runs a core transition with the world's Context and moves the task intents it left onto the clock. */
  apply<T>(fn: (state: State, ctx: Context) => T): T;
}

/**
 * Registers every job's task kind. A `delayMs` fault postpones the run: this occurrence does nothing and one
 * extra run of the same task comes that much later (a periodic one keeps its own rhythm besides). A `fail` fault
 * runs it failed. A job's run reads world.state at the time it runs, never a state captured here. One handler
 * serves every kind, finding the job by the task's kind: a handler per job was eleven closures and their contexts in
 * every world.
 */
export function registerJobs(
  world: TaskWorld,
  faults: FaultRegistry,
  activity: ActivityFeed,
  jobs: readonly Job[] = JOBS,
): void {
  const { clock } = world;
  const byTask = jobs === JOBS ? jobsByTask() : new Map(jobs.map((job) => [job.task, job]));
  // Only the steps of a job on a record are told: the periodic housekeeping runs every hour and would drown them.
  const tell = (job: Job, task: ScheduledTask, fault: JobActivity['fault']) => {
    if (!activity.wanted || job.subject === undefined) return;
    const payload = (task.payload ?? {}) as JobPayload;
    activity.tell({
      kind: 'job',
      at: isoString(clock.now()),
      task: job.task,
      companyId: task.owner,
      subjectId: payload[job.subject] ?? null,
      fault,
    });
  };
  const run = (task: ScheduledTask): void => {
    const job = byTask.get(task.kind)!;
    const takes = job.faults;
    const seen = {
      at: clock.now(),
      subjectId: job.subject === undefined ? null : (((task.payload ?? {}) as JobPayload)[job.subject] ?? null),
    };
    const effect =
      takes &&
      faults.takeJob(
        { kind: takes.kind, companyId: task.owner, ...(takes.effects === 'both' ? {} : { effect: takes.effects }) },
        seen,
      )?.effect;
    if (effect && 'delayMs' in effect) {
      clock.schedule({ kind: job.task, owner: task.owner, payload: task.payload }, clock.now() + effect.delayMs);
      tell(job, task, 'delayed');
      return;
    }
    const failed = effect !== undefined && 'fail' in effect;
    const payload = (task.payload ?? {}) as JobPayload;
    world.apply((state, ctx) => job.run(state, payload, ctx, failed));
    activity.observer?.jobRan(world.state, {
      task: job.task,
      companyId: task.owner,
      subjectId: job.subject === undefined ? null : (payload[job.subject] ?? null),
      failed,
    });
    tell(job, task, failed ? 'failed' : null);
  };
  for (const job of jobs) clock.handle(job.task, job.nature, run, { coalesce: coalescing(job, world, faults) });
}

let registry: ReadonlyMap<string, Job> | undefined;
/** The core's jobs by their task kind. */
function jobsByTask(): ReadonlyMap<string, Job> {
  return (registry ??= new Map(JOBS.map((job) => [job.task, job])));
}

/** The periodic jobs' first runs, one period after `start`, in the registry's order. */
export function schedulePeriodicJobs(clock: VirtualClock, start: number, jobs: readonly Job[] = JOBS): void {
  for (const job of jobs)
    if (job.everyMs !== undefined)
      clock.schedule({ kind: job.task, owner: null, everyMs: job.everyMs }, start + job.everyMs);
}

/** The clock's coalesce rule of a job: its own, and never while a fault of its kind could fire (a fault counts runs). */
function coalescing(job: Job, world: TaskWorld, faults: FaultRegistry): boolean | (() => boolean) {
  const { coalesce, faults: takes } = job;
  if (coalesce === undefined) return false;
  if (coalesce === true && takes === undefined) return true;
  return () =>
    (coalesce === true || coalesce(world.state)) && !(takes && faults.armsJob({ kind: takes.kind, companyId: null }));
}
