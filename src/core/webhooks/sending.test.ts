import { describe, expect, it } from 'vitest';
import type { Result } from '../refusal.js';
import { configureWebhook, raised, seededWorld, T0 } from '../testing/support.js';
import { DAY, SECOND } from '../time.js';
import type { IfMatch } from '../versioning.js';
import { destinationEtag, revokeDestination, type WebhookDestination } from './destination.js';
import {
  beginAttempt,
  cancelOpenEvents,
  FAILURE_CODES,
  finishAttempt,
  raiseEvent,
  type WebhookEvent,
} from './events.js';
import { RESEND_MAX_AGE_MS, resendEvent, SEND_LIMIT, SEND_WINDOW_MS, sendTestEvent } from './sending.js';

const STALE: IfMatch = ['"00000000deadbeef"'];

function setup() {
  const { state, random, ctx, company } = seededWorld();
  const companyId = company();
  const destination = (id = companyId): WebhookDestination => state.webhookDestinations.get(id)!;
  const current = (id = companyId): IfMatch => [destinationEtag(destination(id))];
  const configure = (id = companyId, now = T0): WebhookDestination => configureWebhook(state, id, ctx(now));
  const revoke = (id = companyId, now = T0) => {
    const result = revokeDestination(state, id, current(id), ctx(now));
    if (!result.ok) throw new Error(result.refusal.mensagem);
  };
  /** `ifMatch`: the header's tags, null when absent, or 'current' for the destination's current ETag. */
  type Tags = IfMatch | null | 'current';
  const tags = (ifMatch: Tags, id: string): IfMatch => (ifMatch === 'current' ? current(id) : (ifMatch ?? undefined));
  const test = (now: number, ifMatch: Tags = 'current', id = companyId) =>
    sendTestEvent(state, id, tags(ifMatch, id), ctx(now));
  const resend = (eventId: string, now: number, ifMatch: Tags = 'current', id = companyId) =>
    resendEvent(state, id, eventId, tags(ifMatch, id), ctx(now));
  /** A closed event of the company (delivered), raised at `at`. */
  const closedEvent = (at: number, id = companyId): WebhookEvent => {
    const e = raised(raiseEvent(state, id, { tipo: 'catalogo.aplicado' }, ctx(at)));
    beginAttempt(state, e.id, 1, ctx(at));
    finishAttempt(state, e.id, 1, { kind: 'response', status: 200 }, ctx(at));
    return state.webhookEvents.get(e.id)!;
  };
  /** Takes every slot of the window at `now` with accepted tests. */
  const exhaust = (now: number, id = companyId) => {
    for (let i = 0; i < SEND_LIMIT; i++) expect(test(now, current(id), id).ok).toBe(true);
  };
  /** What a refusal must leave alone. */
  const fingerprint = () => ({
    events: new Map(state.webhookEvents),
    sends: new Map(state.webhookSends),
    destinations: new Map(state.webhookDestinations),
    outbox: state.outbox.length,
    random: random.state(),
  });
  return {
    state,
    ctx,
    company,
    companyId,
    destination,
    current,
    configure,
    revoke,
    test,
    resend,
    closedEvent,
    exhaust,
    fingerprint,
  };
}

function refusal<T>(result: Result<T>) {
  if (result.ok) throw new Error('expected a refusal, got acceptance');
  return result.refusal;
}

describe('sendTestEvent', () => {
  it('accepts: a webhook.teste event pendente on the current version, and the quota left', () => {
    const s = setup();
    const destination = s.configure();
    s.state.outbox.length = 0;
    const result = s.test(T0);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.destination).toBe(destination);
    expect(result.value.event).toMatchObject({
      tipo: 'webhook.teste',
      estado: 'pendente',
      ciclo: 1,
      destinoId: destination.id,
      destinoVersao: destination.versao,
    });
    expect(JSON.parse(result.value.event.body).dados).toEqual({ tipo: 'webhook.teste' });
    expect(result.value.quota).toEqual({
      policy: 'testes-reenvios',
      limit: 5,
      windowSeconds: 60,
      remaining: 4,
      resetSeconds: 60,
    });
    expect(s.state.outbox).toHaveLength(1);
  });

  it('refuses in the order 404 → 428 → 412 → 409 → 429, and a refusal changes nothing', () => {
    const s = setup();
    let before = s.fingerprint();
    // No destination: 404 even without If-Match.
    expect(refusal(s.test(T0, null))).toMatchObject({ kind: 'not_found', codigo: 'destino_nao_encontrado' });
    expect(s.fingerprint()).toEqual(before);

    s.configure();
    s.exhaust(T0);
    s.revoke(s.companyId, T0);
    before = s.fingerprint();
    // Revoked, limit reached, and no If-Match: 428 first.
    expect(refusal(s.test(T0, null))).toMatchObject({
      kind: 'precondition_required',
      codigo: 'precondicao_ausente',
      caminho: 'header.if-match',
    });
    expect(refusal(s.test(T0, STALE))).toMatchObject({
      kind: 'precondition_failed',
      codigo: 'precondicao_falhou',
      caminho: 'header.if-match',
    });
    expect(refusal(s.test(T0))).toMatchObject({ kind: 'conflict', codigo: 'destino_revogado' });
    expect(s.fingerprint()).toEqual(before);

    s.configure(s.companyId, T0);
    before = s.fingerprint();
    expect(refusal(s.test(T0))).toMatchObject({ kind: 'rate_limited', codigo: 'limite_testes_reenvios' });
    expect(s.fingerprint()).toEqual(before);
  });
});

describe('the shared limit of 5 per sliding minute', () => {
  it('counts down remaining; t is the seconds until the oldest counted request leaves the window', () => {
    const s = setup();
    s.configure();
    const quotas = [0, 10, 20, 30, 40].map((sec) => {
      const result = s.test(T0 + sec * SECOND);
      if (!result.ok) throw new Error(result.refusal.codigo);
      return [result.value.quota.remaining, result.value.quota.resetSeconds];
    });
    expect(quotas).toEqual([
      [4, 60],
      [3, 50],
      [2, 40],
      [1, 30],
      [0, 20],
    ]);
    const refused = refusal(s.test(T0 + 50 * SECOND));
    expect(refused).toMatchObject({ kind: 'rate_limited', codigo: 'limite_testes_reenvios' });
    expect(refused.limit).toEqual({
      policy: 'testes-reenvios',
      limit: 5,
      windowSeconds: 60,
      remaining: 0,
      resetSeconds: 10,
    });
    expect(SEND_LIMIT).toBe(5);
    expect(SEND_WINDOW_MS).toBe(60 * SECOND);
  });

  it('slides: a request leaves the window exactly 60 s after it was accepted (1 ms before, still refused with t = 1)', () => {
    const s = setup();
    s.configure();
    s.exhaust(T0);
    expect(refusal(s.test(T0 + 60 * SECOND - 1)).limit).toMatchObject({ remaining: 0, resetSeconds: 1 });
    const result = s.test(T0 + 60 * SECOND);
    expect(result.ok).toBe(true);
    // The five of T0 left together: this one alone counts now.
    if (result.ok) expect(result.value.quota).toMatchObject({ remaining: 4, resetSeconds: 60 });
  });

  it('with requests spread over the minute, one slot frees at a time', () => {
    const s = setup();
    s.configure();
    for (const sec of [0, 1, 2, 3, 4]) expect(s.test(T0 + sec * SECOND).ok).toBe(true);
    expect(s.test(T0 + 60 * SECOND).ok).toBe(true);
    const refused = refusal(s.test(T0 + 60 * SECOND + 500));
    expect(refused.limit).toMatchObject({ remaining: 0, resetSeconds: 1 });
    expect(s.test(T0 + 61 * SECOND).ok).toBe(true);
    expect(s.test(T0 + 61 * SECOND).ok).toBe(false);
  });

  it('refused requests (429 or any other refusal) take no slot', () => {
    const s = setup();
    s.configure();
    s.exhaust(T0);
    for (let i = 0; i < 10; i++) expect(s.test(T0 + 30 * SECOND).ok).toBe(false);
    expect(s.test(T0 + 30 * SECOND, STALE).ok).toBe(false);
    expect(s.state.webhookSends.get(s.companyId)).toEqual([T0, T0, T0, T0, T0]);
    const result = s.test(T0 + 60 * SECOND);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.value.quota.remaining).toBe(4);
  });

  it('is shared by tests and resends, per company', () => {
    const s = setup();
    s.configure();
    const e = s.closedEvent(T0);
    for (let i = 0; i < 4; i++) expect(s.test(T0).ok).toBe(true);
    const resent = s.resend(e.id, T0 + SECOND);
    expect(resent.ok).toBe(true);
    if (resent.ok) expect(resent.value.quota).toMatchObject({ remaining: 0, resetSeconds: 59 });
    expect(refusal(s.test(T0 + 2 * SECOND)).codigo).toBe('limite_testes_reenvios');

    const other = s.company();
    s.configure(other);
    const theirs = s.test(T0 + 2 * SECOND, s.current(other), other);
    expect(theirs.ok).toBe(true);
    if (theirs.ok) expect(theirs.value.quota.remaining).toBe(4);
  });
});

describe('resendEvent', () => {
  // An event is recorded only against its company's destination, so a resend always finds one: the 404
  // destination of usableDestination is reached by test events (sendTestEvent), never by a resend.
  it('refuses in the order 404 event → 428 → 412 → 409 → 429, each while every later check would also fail', () => {
    const s = setup();
    const other = s.company();

    // An event raised while the destination is revoked: cancelado destino_inativo (resendable once reactivated).
    s.configure();
    s.revoke(s.companyId, T0);
    const inactive = raised(raiseEvent(s.state, s.companyId, { tipo: 'webhook.teste' }, s.ctx(T0)));
    expect(inactive.codigoFalha).toBe(FAILURE_CODES.inactiveDestination);
    s.configure(other);
    let before = s.fingerprint();
    expect(refusal(s.resend('0190a000-0000-7000-8000-00000000dead', T0, null))).toMatchObject({
      kind: 'not_found',
      codigo: 'evento_nao_encontrado',
      caminho: 'path.id',
    });
    // Another company's event is not found, even for a company with a destination.
    expect(refusal(s.resend(inactive.id, T0, s.current(other), other))).toMatchObject({
      kind: 'not_found',
      codigo: 'evento_nao_encontrado',
    });
    expect(s.fingerprint()).toEqual(before);

    s.configure();
    const open = raised(raiseEvent(s.state, s.companyId, { tipo: 'webhook.teste' }, s.ctx(T0)));
    s.exhaust(T0);
    before = s.fingerprint();
    expect(refusal(s.resend(open.id, T0, null))).toMatchObject({
      kind: 'precondition_required',
      codigo: 'precondicao_ausente',
      caminho: 'header.if-match',
    });
    expect(refusal(s.resend(open.id, T0, STALE))).toMatchObject({
      kind: 'precondition_failed',
      codigo: 'precondicao_falhou',
    });
    expect(refusal(s.resend(open.id, T0))).toMatchObject({ kind: 'conflict', codigo: 'evento_em_andamento' });
    const running = s.test(T0 + 60 * SECOND);
    expect(running.ok).toBe(true);
    if (running.ok) beginAttempt(s.state, running.value.event.id, 1, s.ctx(T0 + 60 * SECOND));
    // With the running test, five in the window again.
    for (let i = 0; i < SEND_LIMIT - 1; i++) expect(s.test(T0 + 60 * SECOND + 1).ok).toBe(true);
    before = s.fingerprint();
    if (running.ok)
      expect(refusal(s.resend(running.value.event.id, T0 + 60 * SECOND + 1))).toMatchObject({
        codigo: 'evento_em_andamento',
      });
    // Closed and young, but the limit is reached: 429.
    expect(refusal(s.resend(inactive.id, T0 + 60 * SECOND + 1))).toMatchObject({
      kind: 'rate_limited',
      codigo: 'limite_testes_reenvios',
    });
    expect(s.fingerprint()).toEqual(before);

    // Revoked (the open events are cancelled, so resendable): 409 destino_revogado before the limit.
    s.revoke(s.companyId, T0 + 60 * SECOND + 2);
    before = s.fingerprint();
    expect(refusal(s.resend(open.id, T0 + 60 * SECOND + 2))).toMatchObject({
      kind: 'conflict',
      codigo: 'destino_revogado',
    });
    expect(s.fingerprint()).toEqual(before);
  });

  it('refuses an event created 30 days ago with 409 evento_antigo before the limit; one 1 ms younger is accepted', () => {
    const s = setup();
    s.configure();
    const old = s.closedEvent(T0);
    const young = s.closedEvent(T0 + 1);
    const at = T0 + RESEND_MAX_AGE_MS;
    expect(RESEND_MAX_AGE_MS).toBe(30 * DAY);
    expect(refusal(s.resend(old.id, at))).toMatchObject({ kind: 'conflict', codigo: 'evento_antigo' });
    expect(s.resend(young.id, at).ok).toBe(true);
    for (let i = 0; i < 4; i++) expect(s.test(at).ok).toBe(true);
    expect(refusal(s.resend(old.id, at))).toMatchObject({ codigo: 'evento_antigo' });
  });

  it('accepts a closed event: a new cycle on the current version, same id and body, earlier attempts kept', () => {
    const s = setup();
    s.configure();
    const e = s.closedEvent(T0);
    cancelOpenEvents(s.state, s.companyId, FAILURE_CODES.destinationChanged, T0);
    const rotated = s.configure(s.companyId, T0 + DAY);
    s.state.outbox.length = 0;
    const result = s.resend(e.id, T0 + 2 * DAY);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.destination).toBe(rotated);
    expect(result.value.event).toMatchObject({
      id: e.id,
      body: e.body,
      estado: 'pendente',
      ciclo: 2,
      destinoVersao: rotated.versao,
      prazoEm: T0 + 3 * DAY,
    });
    expect(result.value.event.attempts).toEqual(e.attempts);
    expect(result.value.quota).toMatchObject({ remaining: 4 });
    expect(s.state.outbox).toEqual([
      { kind: 'webhook.tentativa', owner: s.companyId, due: T0 + 2 * DAY, payload: { eventId: e.id, ciclo: 2 } },
    ]);
  });
});
