/**
 * Retention (spec "Delivery semantics"): events closed more than 30 days ago become eligible for cleanup;
 * pending and executing ones are kept. A periodic cleanup task removes them, with their attempts; until it
 * runs (or while a `job` fault holds it back) they are still answered — cleanup is not instantaneous.
 * Afterwards the event query answers 404. Cost: O(events removed), walking the closing order.
 */
import { DAY, HOUR, type Instant } from '../time.js';
import type { State } from '../state.js';
import { isClosed } from './events.js';
import type { Job } from '../jobs.js';

export const EVENT_RETENTION_MS = 30 * DAY;
const TASK_RETENTION = 'webhook.retencao';

/** Removes every event closed at least 30 days before `now`; returns how many. */
export function purgeClosedEvents(state: State, now: Instant): number {
  const queue = state.closedWebhookEvents;
  let head = 0;
  let removed = 0;
  while (head < queue.length && queue[head]![0] + EVENT_RETENTION_MS <= now) {
    const [closedAt, eventId] = queue[head]!;
    head++;
    const event = state.webhookEvents.get(eventId);
    // Stale entry: the event was resent (reopened) and closed again later, or is already gone.
    if (!event || event.terminadoEm !== closedAt || !isClosed(event.estado)) continue;
    state.webhookEvents.delete(eventId);
    removed++;
  }
  queue.splice(0, head);
  return removed;
}

/**
 * The hourly retention run, a deadline. A `fail` fault skips a run; a `delayMs` one skips it and runs once more
 * later. The purge is monotone in now (a run removes everything an earlier one would have) and schedules nothing,
 * so hourly runs with no other task between them coalesce into the last one.
 */
export const eventRetentionJob: Job = {
  task: TASK_RETENTION,
  nature: 'deadline',
  faults: { kind: 'retencao_eventos', effects: 'both' },
  everyMs: HOUR,
  coalesce: true,
  run: (state, _payload, ctx, failed) => {
    if (!failed) purgeClosedEvents(state, ctx.now);
  },
};
