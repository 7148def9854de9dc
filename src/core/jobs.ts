/**
 * The service's background jobs, as data: the task kind each runs as, whether it is work or a deadline, the
 * `job` faults that reach it, its period, and the core transition it runs. Each aggregate declares its own jobs
 * beside its transitions; this list is the one registry the engine registers on the clock (src/engine/jobs.ts).
 *
 * Adding a job: its descriptor in the aggregate's module (and its test), and one line here.
 */
import type { Context, State } from './state.js';
import { analysisJobs } from './analyses.js';
import { cnpjReviewJob } from './cnpj-corrections.js';
import { idempotencyPurgeJob } from './idempotency.js';
import { ingestionJobs } from './ingestion/ingestions.js';
import { dailyScheduleJob, executionJobs } from './surveillance-executions.js';
import { eventRetentionJob } from './webhooks/retention.js';

/** The kinds of background job a `job` fault names (`match.kind`). */
export const JOB_KINDS = ['retencao_eventos', 'vigilancia', 'analise', 'revisao_cnpj', 'ingestao'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export type JobPayload = Readonly<Record<string, string>>;

export interface Job {
  /** The clock task kind it runs as. */
  readonly task: string;
  /** Work: the service's own doing, which runUntilIdle finishes. Deadline: a time that waits (only advance reaches it). */
  readonly nature: 'work' | 'deadline';
  /**
   * The `job` faults that reach it: their kind, and the effects this task takes (a job with a start and an end
   * task is postponed at its start and fails at its end). `delayMs` postpones the run; `fail` runs it failed.
   */
  readonly faults?: { readonly kind: JobKind; readonly effects: 'delayMs' | 'fail' | 'both' };
  /** The payload key naming the record a task of this job works on (a snapshot's task must name one that exists). */
  readonly subject?: 'executionId' | 'analysisId' | 'correctionId' | 'ingestionId';
  /** A periodic job: first due this long after the emulator's start, then again each time. */
  readonly everyMs?: number;
  /**
   * Whether missed runs of a periodic job may coalesce into one (the clock's rule): always, or while the state
   * says its run has nothing to do. Never while a fault of its kind is armed, since a fault counts runs.
   */
  readonly coalesce?: true | ((state: State) => boolean);
  /** Runs one task of the job; `failed` when a `fail` fault took it. */
  run(state: State, payload: JobPayload, ctx: Context, failed: boolean): void;
}

/** Every job. The periodic ones are first scheduled in this order. */
export const JOBS: readonly Job[] = [
  idempotencyPurgeJob,
  eventRetentionJob,
  dailyScheduleJob,
  ...executionJobs,
  ...analysisJobs,
  cnpjReviewJob,
  ...ingestionJobs,
];
