import { describe, expect, it } from 'vitest';
import { JOB_KINDS, JOBS } from './jobs.js';

describe('the job registry', () => {
  it('names each task kind once', () => {
    const tasks = JOBS.map((job) => job.task);
    expect(new Set(tasks).size).toBe(tasks.length);
  });

  it('reaches every kind a job fault can name, so no fault kind is one that never fires', () => {
    const reached = new Set(JOBS.flatMap((job) => (job.faults ? [job.faults.kind] : [])));
    expect([...JOB_KINDS].filter((kind) => !reached.has(kind))).toEqual([]);
  });

  it('makes every periodic job a deadline that repeats at most once a minute (runUntilIdle never runs it)', () => {
    for (const job of JOBS.filter((j) => j.everyMs !== undefined)) {
      expect(job.nature, job.task).toBe('deadline');
      expect(job.everyMs, job.task).toBeGreaterThanOrEqual(60_000);
    }
  });

  it('has every one-off job name the record its task works on, and no periodic job name one', () => {
    for (const job of JOBS) expect(job.subject === undefined, job.task).toBe(job.everyMs !== undefined);
  });

  it('schedules the periodic jobs in the order snapshots have always listed them', () => {
    expect(JOBS.filter((job) => job.everyMs !== undefined).map((job) => [job.task, job.everyMs])).toEqual([
      ['housekeeping.idempotency', 86_400_000],
      ['webhook.retencao', 3_600_000],
      ['vigilancia.diaria', 86_400_000],
    ]);
  });
});
