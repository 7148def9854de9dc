import { describe, expect, it } from 'vitest';
import { configureWebhook, raised, seededWorld, T0, unwrap } from '../testing/support.js';
import { DAY, HOUR, SECOND } from '../time.js';
import { destinationEtag, revokeDestination } from './destination.js';
import {
  beginAttempt,
  cancelOpenEvents,
  FAILURE_CODES,
  finishAttempt,
  raiseEvent,
  reopen,
  type WebhookEvent,
} from './events.js';
import { EVENT_RETENTION_MS, purgeClosedEvents } from './retention.js';

/** The state's webhookEvents, counting its reads, to see which events a purge looks at. */
function countingReads(events: Map<string, WebhookEvent>): Map<string, WebhookEvent> & { reads: string[] } {
  const counting = Object.assign(events, { reads: [] as string[] });
  const get = events.get.bind(events);
  counting.get = (key) => {
    counting.reads.push(key);
    return get(key);
  };
  return counting;
}

function setup() {
  const { state, ctx, company } = seededWorld(1);
  const events = countingReads(state.webhookEvents);
  const companyId = company();
  const configure = (id = companyId, now = T0) => configureWebhook(state, id, ctx(now));
  /**
   * An event closed at `at`: raised while the company's destination is revoked, so cancelado at once (the
   * destination is created and revoked first when it is not revoked yet).
   */
  const closedAt = (at: number, id = companyId): WebhookEvent => {
    const current = state.webhookDestinations.get(id) ?? configureWebhook(state, id, ctx(at));
    if (current.estado === 'ativo') unwrap(revokeDestination(state, id, [destinationEtag(current)], ctx(at)));
    const e = raised(raiseEvent(state, id, { tipo: 'webhook.teste' }, ctx(at)));
    expect(e.estado).toBe('cancelado');
    return e;
  };
  /** An event delivered at `at` (the company must have an active destination). */
  const deliveredAt = (at: number, id = companyId): WebhookEvent => {
    const e = raised(raiseEvent(state, id, { tipo: 'webhook.teste' }, ctx(at)));
    beginAttempt(state, e.id, 1, ctx(at));
    finishAttempt(state, e.id, 1, { kind: 'response', status: 200 }, ctx(at));
    return state.webhookEvents.get(e.id)!;
  };
  const present = (id: string) => events.has(id);
  const listed = (company = companyId) => [...state.webhookEvents.listOf(company).after()].map(([key]) => key);
  return { state, events, ctx, company, companyId, configure, closedAt, deliveredAt, present, listed };
}

describe('purgeClosedEvents', () => {
  it('keeps an event closed 30 days minus 1 ms ago and removes it at exactly 30 days, from the records and the list', () => {
    const s = setup();
    const e = s.closedAt(T0 + 5 * SECOND);
    expect(purgeClosedEvents(s.state, T0 + 5 * SECOND + 30 * DAY - 1)).toBe(0);
    expect(s.present(e.id)).toBe(true);
    expect(s.listed()).toEqual([e.id]);
    expect(s.state.closedWebhookEvents).toEqual([[T0 + 5 * SECOND, e.id]]);

    expect(purgeClosedEvents(s.state, T0 + 5 * SECOND + 30 * DAY)).toBe(1);
    expect(s.present(e.id)).toBe(false);
    expect(s.listed()).toEqual([]);
    expect(s.state.closedWebhookEvents).toEqual([]);
    expect(EVENT_RETENTION_MS).toBe(30 * DAY);
  });

  it('removes entregue, falhou and cancelado events alike, several closed at the same instant', () => {
    const s = setup();
    const cancelled = s.closedAt(T0);
    s.configure();
    const delivered = s.deliveredAt(T0);
    expect(delivered.estado).toBe('entregue');
    expect(purgeClosedEvents(s.state, T0 + 30 * DAY)).toBe(2);
    expect(s.present(cancelled.id) || s.present(delivered.id)).toBe(false);
  });

  it('never removes pendente or executando events, however old', () => {
    const s = setup();
    s.configure();
    const pending = raised(raiseEvent(s.state, s.companyId, { tipo: 'webhook.teste' }, s.ctx(T0)));
    const running = raised(raiseEvent(s.state, s.companyId, { tipo: 'webhook.teste' }, s.ctx(T0)));
    beginAttempt(s.state, running.id, 1, s.ctx(T0));
    expect(purgeClosedEvents(s.state, T0 + 365 * DAY)).toBe(0);
    expect(s.present(pending.id) && s.present(running.id)).toBe(true);
    expect(s.listed()).toEqual([pending.id, running.id]);
  });

  it('skips the stale entry of an event resent and still open, and removes it 30 days after it closes again', () => {
    const s = setup();
    const destination = s.configure();
    const e = s.deliveredAt(T0);
    reopen(s.state, e, destination, s.ctx(T0 + 29 * DAY));
    beginAttempt(s.state, e.id, 2, s.ctx(T0 + 29 * DAY + 12 * HOUR));
    expect(purgeClosedEvents(s.state, T0 + 30 * DAY)).toBe(0);
    expect(s.present(e.id)).toBe(true);
    // The stale entry is gone from the closing order; the reopened event is not in it until it closes.
    expect(s.state.closedWebhookEvents).toEqual([]);

    finishAttempt(s.state, e.id, 2, { kind: 'response', status: 200 }, s.ctx(T0 + 30 * DAY + SECOND));
    expect(s.state.closedWebhookEvents).toEqual([[T0 + 30 * DAY + SECOND, e.id]]);
    expect(purgeClosedEvents(s.state, T0 + 60 * DAY + SECOND - 1)).toBe(0);
    expect(purgeClosedEvents(s.state, T0 + 60 * DAY + SECOND)).toBe(1);
    expect(s.present(e.id)).toBe(false);
  });

  it('skips the stale entry of an event resent and closed again: it goes 30 days after its last closing, not its first', () => {
    const s = setup();
    const destination = s.configure();
    const e = s.deliveredAt(T0);
    reopen(s.state, e, destination, s.ctx(T0 + DAY));
    cancelOpenEvents(s.state, s.companyId, FAILURE_CODES.destinationRevoked, T0 + 2 * DAY);
    expect(s.state.closedWebhookEvents).toEqual([
      [T0, e.id],
      [T0 + 2 * DAY, e.id],
    ]);
    expect(purgeClosedEvents(s.state, T0 + 30 * DAY)).toBe(0);
    expect(s.present(e.id)).toBe(true);
    expect(s.state.closedWebhookEvents).toEqual([[T0 + 2 * DAY, e.id]]);
    expect(purgeClosedEvents(s.state, T0 + 32 * DAY)).toBe(1);
    expect(s.present(e.id)).toBe(false);
  });

  it('skips an entry whose event is already gone', () => {
    const s = setup();
    const gone = s.closedAt(T0);
    const kept = s.closedAt(T0 + 1);
    s.events.delete(gone.id);
    expect(purgeClosedEvents(s.state, T0 + 30 * DAY + 1)).toBe(1);
    expect(s.present(kept.id)).toBe(false);
    expect(s.state.closedWebhookEvents).toEqual([]);
  });

  it('removes the events of every company from their own lists', () => {
    const s = setup();
    const other = s.company();
    const mine = s.closedAt(T0);
    const theirs = s.closedAt(T0 + 1, other);
    const later = s.closedAt(T0 + DAY, other);
    expect(purgeClosedEvents(s.state, T0 + 30 * DAY + 1)).toBe(2);
    expect(s.present(mine.id) || s.present(theirs.id)).toBe(false);
    expect(s.listed()).toEqual([]);
    expect(s.listed(other)).toEqual([later.id]);
  });

  it('costs O(removed): it reads only the entries up to the cut, and leaves the events closed later untouched in the closing order', () => {
    const s = setup();
    const destination = s.configure();
    const events: WebhookEvent[] = [];
    let resent: WebhookEvent | undefined;
    for (let i = 0; i < 50; i++) {
      events.push(s.deliveredAt(T0 + i * HOUR));
      if (i === 2) {
        // A stale entry before the cut: delivered at 2 h 30 min, then resent (open again).
        resent = s.deliveredAt(T0 + 2 * HOUR + 30 * 60 * SECOND);
        reopen(s.state, resent, destination, s.ctx(T0 + 2 * HOUR + 45 * 60 * SECOND));
      }
    }
    const queueAfterCut = s.state.closedWebhookEvents.filter(([at]) => at > T0 + 4 * HOUR);
    expect(queueAfterCut).toHaveLength(45);
    s.events.reads = [];

    expect(purgeClosedEvents(s.state, T0 + 30 * DAY + 4 * HOUR)).toBe(5);
    // 5 removed (closed at 0 h .. 4 h) and the stale entry: 6 reads, none of the 45 later events.
    expect(s.events.reads.sort()).toEqual([...events.slice(0, 5).map((e) => e.id), resent!.id].sort());
    expect(s.state.closedWebhookEvents).toEqual(queueAfterCut);
    expect(s.present(resent!.id)).toBe(true);
    for (const e of events.slice(5)) expect(s.events.get(e.id)).toBe(e);
  });

  it('does nothing when nothing is due', () => {
    const s = setup();
    expect(purgeClosedEvents(s.state, T0 + 365 * DAY)).toBe(0);
    s.closedAt(T0);
    s.events.reads = [];
    expect(purgeClosedEvents(s.state, T0 + DAY)).toBe(0);
    expect(s.events.reads).toEqual([]);
  });
});
