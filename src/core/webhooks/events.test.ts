import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCompany } from '../companies.js';
import { createRandom, seedRandom } from '../random.js';
import { indexesOf, type Context } from '../state.js';
import { createState } from '../slices.js';
import { raised } from '../testing/support.js';
import { DAY, HOUR, MINUTE, SECOND } from '../time.js';
import { configureDestination, destinationEtag, revokeDestination, type WebhookDestination } from './destination.js';
import {
  attemptsInCycle,
  attemptTimeoutIntent,
  beginAttempt,
  cancelOpenEvents,
  classifyOutcome,
  DEFAULT_DELIVERY_POLICY,
  FAILURE_CODES,
  finishAttempt,
  raiseEvent,
  rearmStartedAttempts,
  reopen,
  resendable,
  TASK_ATTEMPT,
  TASK_ATTEMPT_TIMEOUT,
  type DeliveryPolicy,
  type EventData,
  type EventState,
  type NetworkOutcome,
  type WebhookEvent,
} from './events.js';

const T0 = Date.UTC(2026, 0, 1);
const HOOK = 'https://hooks.example.com/a';
const OK: NetworkOutcome = { kind: 'response', status: 200 };
const FAIL: NetworkOutcome = { kind: 'response', status: 500 };

/** A state with one company; helpers that drive the exported transitions at given instants. */
function setup() {
  const state = createState();
  const random = createRandom(seedRandom(1));
  const ctx = (now: number, delivery: DeliveryPolicy = DEFAULT_DELIVERY_POLICY): Context => ({
    now,
    random,
    config: { delivery },
  });
  const created = createCompany(state, {}, ctx(T0));
  if (!created.ok) throw new Error(created.refusal.mensagem);
  const companyId = created.value.company.id;
  const cnpjRoot = created.value.company.cnpjRoot;

  const configure = (now = T0, url = HOOK): WebhookDestination => {
    const current = state.webhookDestinations.get(companyId);
    const result = configureDestination(
      state,
      companyId,
      { url, createOnly: current === undefined, ifMatch: current ? [destinationEtag(current)] : undefined },
      ctx(now),
    );
    if (!result.ok) throw new Error(result.refusal.mensagem);
    return result.value.destination;
  };
  const revoke = (now = T0): WebhookDestination => {
    const current = state.webhookDestinations.get(companyId)!;
    const result = revokeDestination(state, companyId, [destinationEtag(current)], ctx(now));
    if (!result.ok) throw new Error(result.refusal.mensagem);
    return result.value;
  };
  const raise = (now = T0, dados: EventData = { tipo: 'catalogo.aplicado' }, policy?: DeliveryPolicy): WebhookEvent =>
    raised(raiseEvent(state, companyId, dados, ctx(now, policy)));
  const event = (id: string): WebhookEvent => state.webhookEvents.get(id)!;
  const drain = () => state.outbox.splice(0, state.outbox.length);

  /** An event in `estado`, reached through the transitions themselves. */
  const eventIn = (estado: EventState): WebhookEvent => {
    if (!state.webhookDestinations.has(companyId)) configure();
    const e = raise();
    if (estado === 'pendente') return event(e.id);
    if (estado === 'cancelado') {
      cancelOpenEvents(state, companyId, FAILURE_CODES.destinationChanged, T0 + SECOND);
      return event(e.id);
    }
    beginAttempt(state, e.id, 1, ctx(T0));
    if (estado === 'executando') return event(e.id);
    if (estado === 'entregue') {
      finishAttempt(state, e.id, 1, OK, ctx(T0 + 10));
      return event(e.id);
    }
    let now = T0;
    for (let n = 1; n <= 8; n++) {
      if (n > 1) {
        now = event(e.id).proximaTentativaEm!;
        beginAttempt(state, e.id, 1, ctx(now));
      }
      finishAttempt(state, e.id, n, FAIL, ctx(now));
    }
    return event(e.id);
  };

  return { state, ctx, companyId, cnpjRoot, configure, revoke, raise, event, drain, eventIn };
}

describe('raiseEvent', () => {
  it('with an active destination: pendente, bound to its version, first attempt due at once, deadline 24 h later', () => {
    const s = setup();
    const destination = s.configure();
    s.drain();
    const e = s.raise(T0 + 5, { tipo: 'catalogo.aplicado', catalogoId: 'c1', versao: 3 });
    expect(e).toMatchObject({
      companyId: s.companyId,
      tipo: 'catalogo.aplicado',
      estado: 'pendente',
      ciclo: 1,
      destinoId: destination.id,
      destinoVersao: destination.versao,
      ocorridoEm: T0 + 5,
      criadoEm: T0 + 5,
      prazoEm: T0 + 5 + DAY,
      terminadoEm: null,
      proximaTentativaEm: T0 + 5,
      codigoFalha: null,
      statusHttp: null,
      attempts: [],
    });
    expect(e.body).toBe(
      `{"id":"${e.id}","versao":1,"empresa":"${s.cnpjRoot}","ocorridoEm":"2026-01-01T00:00:00.005Z","dados":{"tipo":"catalogo.aplicado","catalogoId":"c1","versao":3}}`,
    );
    expect(s.drain()).toEqual([
      { kind: TASK_ATTEMPT, owner: s.companyId, due: T0 + 5, payload: { eventId: e.id, ciclo: 1 } },
    ]);
    expect(indexesOf(s.state, s.companyId).openWebhookEvents.has(e.id)).toBe(true);
    expect(s.state.webhookEvents.listOf(s.companyId).has(e.id)).toBe(true);
    expect(s.state.closedWebhookEvents).toEqual([]);
  });

  // spec: CONV-09, WH-EVT-01 — destino_id and destino_versao admit no null: without a destination there is no event.
  it('with no destination ever configured: records nothing, draws no id, schedules nothing, and returns undefined', () => {
    const s = setup();
    const before = s.state.sequence;
    const random = [...s.ctx(T0).random.state()];
    expect(raiseEvent(s.state, s.companyId, { tipo: 'catalogo.aplicado' }, s.ctx(T0 + 7))).toBeUndefined();
    expect(s.state.webhookEvents.size).toBe(0);
    expect(s.state.webhookEvents.listOf(s.companyId).size).toBe(0);
    expect(s.state.closedWebhookEvents).toEqual([]);
    expect(s.state.sequence).toBe(before);
    expect([...s.ctx(T0).random.state()]).toEqual(random);
    expect(s.drain()).toEqual([]);
  });

  it('with a revoked destination: cancelado destino_inativo, bound to the revoked version (so it can be resent after reactivation)', () => {
    const s = setup();
    s.configure();
    const revoked = s.revoke(T0 + 1);
    s.drain();
    const e = s.raise(T0 + 2);
    expect(e).toMatchObject({
      estado: 'cancelado',
      codigoFalha: 'destino_inativo',
      destinoId: revoked.id,
      destinoVersao: revoked.versao,
      terminadoEm: T0 + 2,
    });
    expect(s.drain()).toEqual([]);
  });

  it('gives every event its own id and a growing list position', () => {
    const s = setup();
    s.configure();
    const a = s.raise();
    const b = s.raise();
    expect(a.id).not.toBe(b.id);
    expect(b.position).toBeGreaterThan(a.position);
  });
});

describe('the event lifecycle table', () => {
  const STATES: EventState[] = ['pendente', 'executando', 'entregue', 'falhou', 'cancelado'];

  /** Which state each trigger leads to from each state; undefined = refused (nothing changes). */
  const TABLE: Record<string, Partial<Record<EventState, EventState>>> = {
    iniciar_tentativa: { pendente: 'executando' },
    entregar: { executando: 'entregue' },
    falhar_tentativa: { executando: 'pendente' },
    cancelar: { pendente: 'cancelado', executando: 'cancelado' },
    reenviar: { entregue: 'pendente', falhou: 'pendente', cancelado: 'pendente' },
  };

  const fire = (s: ReturnType<typeof setup>, e: WebhookEvent, trigger: string): void => {
    const inFlight = e.attempts.find((a) => a.estado === 'iniciada')?.tentativa ?? e.attempts.length;
    switch (trigger) {
      case 'iniciar_tentativa':
        beginAttempt(s.state, e.id, e.ciclo, s.ctx(T0 + 20));
        return;
      case 'entregar':
        finishAttempt(s.state, e.id, inFlight, OK, s.ctx(T0 + 20));
        return;
      case 'falhar_tentativa':
        finishAttempt(s.state, e.id, inFlight, FAIL, s.ctx(T0 + 20));
        return;
      case 'cancelar':
        cancelOpenEvents(s.state, s.companyId, FAILURE_CODES.destinationRevoked, T0 + 20);
        return;
      case 'reenviar':
        reopen(s.state, e, s.state.webhookDestinations.get(s.companyId)!, s.ctx(T0 + 20));
        return;
    }
  };

  for (const [trigger, row] of Object.entries(TABLE)) {
    for (const from of STATES) {
      const to = row[from];
      it(`${trigger} from ${from} ${to === undefined ? 'is refused and changes nothing' : `leads to ${to}`}`, () => {
        const s = setup();
        const e = s.eventIn(from);
        expect(e.estado).toBe(from);
        s.drain();
        const closedBefore = s.state.closedWebhookEvents.length;
        if (to === undefined) {
          if (trigger === 'reenviar') expect(() => fire(s, e, trigger)).toThrow(/reopen/);
          else fire(s, e, trigger);
          // The record is the same object: nothing replaced it.
          expect(s.event(e.id)).toBe(e);
          expect(s.drain()).toEqual([]);
          expect(s.state.closedWebhookEvents.length).toBe(closedBefore);
          return;
        }
        fire(s, e, trigger);
        expect(s.event(e.id).estado).toBe(to);
        const open = indexesOf(s.state, s.companyId).openWebhookEvents.has(e.id);
        expect(open).toBe(to === 'pendente' || to === 'executando');
      });
    }
  }

  it('esgotar from executando: the 8th failed attempt closes the cycle falhou with its code', () => {
    const s = setup();
    const e = s.eventIn('falhou');
    expect(e.attempts).toHaveLength(8);
    expect(e).toMatchObject({
      estado: 'falhou',
      codigoFalha: FAILURE_CODES.status,
      statusHttp: 500,
      proximaTentativaEm: null,
    });
    expect(e.terminadoEm).toBe(e.attempts[7]!.terminadaEm);
    expect(indexesOf(s.state, s.companyId).openWebhookEvents.has(e.id)).toBe(false);
  });

  it('esgotar from pendente: a due attempt that finds the deadline passed closes the event falhou without starting', () => {
    const s = setup();
    s.configure();
    const e = s.raise();
    beginAttempt(s.state, e.id, 1, s.ctx(T0));
    finishAttempt(s.state, e.id, 1, { kind: 'refused' }, s.ctx(T0));
    s.drain();
    expect(beginAttempt(s.state, e.id, 1, s.ctx(e.prazoEm + 1))).toBeUndefined();
    expect(s.event(e.id)).toMatchObject({
      estado: 'falhou',
      codigoFalha: FAILURE_CODES.refused,
      terminadoEm: e.prazoEm + 1,
    });
    expect(s.event(e.id).attempts).toHaveLength(1);
    expect(s.drain()).toEqual([]);
  });
});

describe('beginAttempt', () => {
  it('starts attempt n+1 of the cycle: executando, the delivery to send (the shell arms its time-out only if no answer comes back at once)', () => {
    const s = setup();
    const destination = s.configure();
    const e = s.raise();
    s.drain();
    const delivery = beginAttempt(s.state, e.id, 1, s.ctx(T0 + 3));
    expect(delivery).toEqual({
      eventId: e.id,
      companyId: s.companyId,
      tipo: 'catalogo.aplicado',
      tentativa: 1,
      url: HOOK,
      secret: destination.secret,
      body: e.body,
    });
    expect(s.event(e.id)).toMatchObject({ estado: 'executando', proximaTentativaEm: null });
    expect(s.event(e.id).attempts).toEqual([
      {
        tentativa: 1,
        ciclo: 1,
        destinoVersao: destination.versao,
        estado: 'iniciada',
        iniciadaEm: T0 + 3,
        terminadaEm: null,
        codigoFalha: null,
        statusHttp: null,
      },
    ]);
    expect(s.drain()).toEqual([]);
  });

  it('attemptTimeoutIntent schedules the time-out of a started attempt at its start + the attempt time-out', () => {
    const s = setup();
    s.configure();
    const e = s.raise();
    beginAttempt(s.state, e.id, 1, s.ctx(T0 + 3));
    s.drain();
    attemptTimeoutIntent(s.state, e.id, 1, T0 + 3, s.ctx(T0 + 3));
    attemptTimeoutIntent(
      s.state,
      e.id,
      1,
      T0 + 3,
      s.ctx(T0 + 3, { ...DEFAULT_DELIVERY_POLICY, attemptTimeoutMs: 2 * SECOND }),
    );
    attemptTimeoutIntent(s.state, 'no-such-event', 1, T0 + 3, s.ctx(T0 + 3));
    expect(s.drain()).toEqual([
      {
        kind: TASK_ATTEMPT_TIMEOUT,
        owner: s.companyId,
        due: T0 + 3 + 15 * SECOND,
        payload: { eventId: e.id, tentativa: 1 },
      },
      {
        kind: TASK_ATTEMPT_TIMEOUT,
        owner: s.companyId,
        due: T0 + 3 + 2 * SECOND,
        payload: { eventId: e.id, tentativa: 1 },
      },
    ]);
  });

  it('rearmStartedAttempts arms a time-out for every attempt still iniciada (after a restore), and only those', () => {
    const s = setup();
    s.configure();
    const running = s.raise();
    beginAttempt(s.state, running.id, 1, s.ctx(T0 + 1));
    const done = s.raise();
    beginAttempt(s.state, done.id, 1, s.ctx(T0 + 2));
    finishAttempt(s.state, done.id, 1, FAIL, s.ctx(T0 + 2));
    s.raise();
    s.drain();
    rearmStartedAttempts(s.state, s.ctx(T0));
    expect(s.drain()).toEqual([
      {
        kind: TASK_ATTEMPT_TIMEOUT,
        owner: s.companyId,
        due: T0 + 1 + 15 * SECOND,
        payload: { eventId: running.id, tentativa: 1 },
      },
    ]);
  });

  it('does nothing for an unknown event or another cycle', () => {
    const s = setup();
    s.configure();
    const e = s.raise();
    s.drain();
    expect(beginAttempt(s.state, 'no-such-event', 1, s.ctx(T0))).toBeUndefined();
    expect(beginAttempt(s.state, e.id, 2, s.ctx(T0))).toBeUndefined();
    expect(s.event(e.id)).toBe(e);
    expect(s.drain()).toEqual([]);
  });

  it('starts an attempt due exactly at prazo_em; one later than that closes the event instead', () => {
    const s = setup();
    s.configure();
    const policy: DeliveryPolicy = { ...DEFAULT_DELIVERY_POLICY, retryWaitsMs: [DAY] };
    const e = s.raise(T0, { tipo: 'webhook.teste' }, policy);
    beginAttempt(s.state, e.id, 1, s.ctx(T0, policy));
    finishAttempt(s.state, e.id, 1, FAIL, s.ctx(T0, policy));
    expect(s.event(e.id)).toMatchObject({ estado: 'pendente', proximaTentativaEm: T0 + DAY });
    expect(beginAttempt(s.state, e.id, 1, s.ctx(T0 + DAY, policy))?.tentativa).toBe(2);
  });

  it('guards a restored state: a destination that moved to another version cancels the event destino_alterado', () => {
    const s = setup();
    const destination = s.configure();
    const e = s.raise();
    s.state.webhookDestinations.set(s.companyId, { ...destination, versao: destination.versao + 1 });
    expect(beginAttempt(s.state, e.id, 1, s.ctx(T0 + 1))).toBeUndefined();
    expect(s.event(e.id)).toMatchObject({
      estado: 'cancelado',
      codigoFalha: FAILURE_CODES.destinationChanged,
      terminadoEm: T0 + 1,
    });
    expect(s.event(e.id).attempts).toEqual([]);
  });

  it('guards a restored state: a revoked destination cancels the event destino_revogado', () => {
    const s = setup();
    const destination = s.configure();
    const e = s.raise();
    s.state.webhookDestinations.set(s.companyId, { ...destination, estado: 'revogado' });
    expect(beginAttempt(s.state, e.id, 1, s.ctx(T0 + 1))).toBeUndefined();
    expect(s.event(e.id)).toMatchObject({ estado: 'cancelado', codigoFalha: FAILURE_CODES.destinationRevoked });
  });
});

describe('finishAttempt', () => {
  const started = () => {
    const s = setup();
    s.configure();
    const e = s.raise();
    beginAttempt(s.state, e.id, 1, s.ctx(T0));
    s.drain();
    return { s, id: e.id };
  };

  it('a 2xx delivers: attempt and event entregue, closed in the closing order, nothing more scheduled', () => {
    const { s, id } = started();
    finishAttempt(s.state, id, 1, { kind: 'response', status: 204 }, s.ctx(T0 + 40));
    expect(s.event(id)).toMatchObject({
      estado: 'entregue',
      statusHttp: 204,
      codigoFalha: null,
      terminadoEm: T0 + 40,
      proximaTentativaEm: null,
    });
    expect(s.event(id).attempts[0]).toMatchObject({
      estado: 'entregue',
      terminadaEm: T0 + 40,
      statusHttp: 204,
      codigoFalha: null,
    });
    expect(s.drain()).toEqual([]);
    expect(s.state.closedWebhookEvents).toEqual([[T0 + 40, id]]);
    expect(indexesOf(s.state, s.companyId).openWebhookEvents.has(id)).toBe(false);
  });

  it('a failure leaves the event pendente with the next attempt due the first wait after the END of this one', () => {
    const { s, id } = started();
    finishAttempt(s.state, id, 1, { kind: 'response', status: 503 }, s.ctx(T0 + 3 * SECOND));
    expect(s.event(id)).toMatchObject({
      estado: 'pendente',
      statusHttp: 503,
      codigoFalha: 'status_nao_2xx',
      proximaTentativaEm: T0 + 8 * SECOND,
      terminadoEm: null,
    });
    expect(s.drain()).toEqual([
      { kind: TASK_ATTEMPT, owner: s.companyId, due: T0 + 8 * SECOND, payload: { eventId: id, ciclo: 1 } },
    ]);
  });

  it.each<[NetworkOutcome, string, number | null]>([
    [{ kind: 'timeout' }, 'tempo_esgotado', null],
    [{ kind: 'reset' }, 'conexao_interrompida', null],
    [{ kind: 'incomplete', status: 200 }, 'resposta_incompleta', 200],
  ])('an uncertain outcome (%j) makes the attempt incerta and retries', (outcome, code, statusHttp) => {
    const { s, id } = started();
    finishAttempt(s.state, id, 1, outcome, s.ctx(T0 + 15 * SECOND));
    expect(s.event(id).attempts[0]).toMatchObject({ estado: 'incerta', codigoFalha: code, statusHttp });
    expect(s.event(id)).toMatchObject({
      estado: 'pendente',
      codigoFalha: code,
      statusHttp,
      proximaTentativaEm: T0 + 20 * SECOND,
    });
  });

  it('with instant failures the default schedule starts the 8th attempt 22:35:05 after the 1st, then gives up', () => {
    const s = setup();
    s.configure();
    const e = s.raise();
    const starts: number[] = [];
    let now = T0;
    for (let n = 1; n <= 8; n++) {
      expect(beginAttempt(s.state, e.id, 1, s.ctx(now))?.tentativa).toBe(n);
      starts.push(now);
      finishAttempt(s.state, e.id, n, FAIL, s.ctx(now));
      now = s.event(e.id).proximaTentativaEm ?? now;
    }
    expect(starts.map((t) => t - T0)).toEqual([
      0,
      5 * SECOND,
      5 * MINUTE + 5 * SECOND,
      35 * MINUTE + 5 * SECOND,
      2 * HOUR + 35 * MINUTE + 5 * SECOND,
      7 * HOUR + 35 * MINUTE + 5 * SECOND,
      14 * HOUR + 35 * MINUTE + 5 * SECOND,
      22 * HOUR + 35 * MINUTE + 5 * SECOND,
    ]);
    expect(s.event(e.id).estado).toBe('falhou');
    expect(attemptsInCycle(s.event(e.id))).toBe(8);
  });

  it('gives up early when the next attempt would start after prazo_em', () => {
    const s = setup();
    s.configure();
    const policy: DeliveryPolicy = { ...DEFAULT_DELIVERY_POLICY, retryWaitsMs: [20 * HOUR] };
    const e = s.raise(T0, { tipo: 'webhook.teste' }, policy);
    beginAttempt(s.state, e.id, 1, s.ctx(T0, policy));
    finishAttempt(s.state, e.id, 1, FAIL, s.ctx(T0, policy));
    expect(s.event(e.id).estado).toBe('pendente');
    beginAttempt(s.state, e.id, 1, s.ctx(T0 + 20 * HOUR, policy));
    s.drain();
    finishAttempt(s.state, e.id, 2, { kind: 'refused' }, s.ctx(T0 + 20 * HOUR + 1, policy));
    expect(s.event(e.id)).toMatchObject({
      estado: 'falhou',
      codigoFalha: 'conexao_recusada',
      terminadoEm: T0 + 20 * HOUR + 1,
    });
    expect(s.drain()).toEqual([]);
  });

  it('a late outcome of an attempt already ended changes nothing', () => {
    const { s, id } = started();
    finishAttempt(s.state, id, 1, FAIL, s.ctx(T0 + 1));
    s.drain();
    const before = s.event(id);
    finishAttempt(s.state, id, 1, OK, s.ctx(T0 + 15 * SECOND));
    finishAttempt(s.state, id, 7, OK, s.ctx(T0 + 15 * SECOND));
    expect(s.event(id)).toBe(before);
    expect(s.drain()).toEqual([]);
  });

  it('an attempt in flight when its event is cancelled still records its outcome; the event stays cancelado', () => {
    const { s, id } = started();
    cancelOpenEvents(s.state, s.companyId, FAILURE_CODES.destinationChanged, T0 + 1);
    const closed = s.state.closedWebhookEvents.length;
    finishAttempt(s.state, id, 1, OK, s.ctx(T0 + 2));
    expect(s.event(id)).toMatchObject({
      estado: 'cancelado',
      codigoFalha: 'destino_alterado',
      terminadoEm: T0 + 1,
      statusHttp: null,
    });
    expect(s.event(id).attempts[0]).toMatchObject({ estado: 'entregue', terminadaEm: T0 + 2 });
    expect(s.state.closedWebhookEvents.length).toBe(closed);
    expect(s.drain()).toEqual([]);
  });

  it("an outcome of an earlier cycle's attempt after a resend touches only that attempt", () => {
    const { s, id } = started();
    cancelOpenEvents(s.state, s.companyId, FAILURE_CODES.destinationChanged, T0 + 1);
    const destination = s.configure(T0 + 2);
    reopen(s.state, s.event(id), destination, s.ctx(T0 + 3));
    beginAttempt(s.state, id, 2, s.ctx(T0 + 3));
    s.drain();
    finishAttempt(s.state, id, 1, FAIL, s.ctx(T0 + 4));
    expect(s.event(id)).toMatchObject({ estado: 'executando', ciclo: 2, codigoFalha: null });
    expect(s.event(id).attempts.map((a) => [a.tentativa, a.ciclo, a.estado])).toEqual([
      [1, 1, 'falhou'],
      [2, 2, 'iniciada'],
    ]);
    expect(s.drain()).toEqual([]);
  });
});

describe('cancelOpenEvents', () => {
  it('cancels the pendente and executando events of the company only, with the code and time given', () => {
    const s = setup();
    s.configure();
    const pending = s.raise();
    const running = s.raise();
    beginAttempt(s.state, running.id, 1, s.ctx(T0));
    const delivered = s.raise();
    beginAttempt(s.state, delivered.id, 1, s.ctx(T0));
    finishAttempt(s.state, delivered.id, 1, OK, s.ctx(T0));
    const otherCompany = createCompany(s.state, {}, s.ctx(T0));
    if (!otherCompany.ok) throw new Error('company');
    const otherId = otherCompany.value.company.id;
    const otherDestination = configureDestination(
      s.state,
      otherId,
      { url: HOOK, createOnly: true, ifMatch: undefined },
      s.ctx(T0),
    );
    expect(otherDestination.ok).toBe(true);
    const other = raised(raiseEvent(s.state, otherId, { tipo: 'webhook.teste' }, s.ctx(T0)));
    const deliveredBefore = s.event(delivered.id);

    cancelOpenEvents(s.state, s.companyId, FAILURE_CODES.destinationRevoked, T0 + 9);
    for (const id of [pending.id, running.id])
      expect(s.event(id)).toMatchObject({
        estado: 'cancelado',
        codigoFalha: 'destino_revogado',
        terminadoEm: T0 + 9,
        proximaTentativaEm: null,
      });
    expect(s.event(delivered.id)).toBe(deliveredBefore);
    expect(s.event(other.id).estado).toBe('pendente');
    expect(indexesOf(s.state, s.companyId).openWebhookEvents.size).toBe(0);
  });
});

describe('reopen', () => {
  it("takes the cycle's length from the Context's delivery policy, as raiseEvent does", () => {
    const s = setup();
    const e = s.eventIn('falhou');
    const destination = s.state.webhookDestinations.get(s.companyId)!;
    const policy: DeliveryPolicy = { ...DEFAULT_DELIVERY_POLICY, cycleMs: HOUR };
    expect(reopen(s.state, e, destination, s.ctx(T0 + DAY, policy)).prazoEm).toBe(T0 + DAY + HOUR);
    expect(s.raise(T0 + 2 * DAY, { tipo: 'webhook.teste' }, policy).prazoEm).toBe(T0 + 2 * DAY + HOUR);
  });

  it('opens the next cycle on the given destination version: same id and body, attempts kept, deadline from now', () => {
    const s = setup();
    const e = s.eventIn('falhou');
    const destination = s.configure(T0 + DAY, 'https://hooks.example.com/b');
    s.drain();
    const reopened = reopen(s.state, e, destination, s.ctx(T0 + 2 * DAY));
    expect(reopened).toMatchObject({
      id: e.id,
      body: e.body,
      estado: 'pendente',
      ciclo: 2,
      destinoId: destination.id,
      destinoVersao: destination.versao,
      prazoEm: T0 + 3 * DAY,
      terminadoEm: null,
      proximaTentativaEm: T0 + 2 * DAY,
      codigoFalha: null,
      statusHttp: null,
      criadoEm: e.criadoEm,
    });
    expect(reopened.attempts).toEqual(e.attempts);
    expect(attemptsInCycle(reopened)).toBe(0);
    expect(s.drain()).toEqual([
      { kind: TASK_ATTEMPT, owner: s.companyId, due: T0 + 2 * DAY, payload: { eventId: e.id, ciclo: 2 } },
    ]);
    // Attempt numbers continue across cycles.
    expect(beginAttempt(s.state, e.id, 2, s.ctx(T0 + 2 * DAY))).toMatchObject({
      tentativa: 9,
      url: 'https://hooks.example.com/b',
      secret: destination.secret,
    });
  });
});

describe('resendable', () => {
  it.each<EventState>(['entregue', 'falhou', 'cancelado'])('accepts a %s event younger than 30 days', (estado) => {
    const s = setup();
    const e = s.eventIn(estado);
    expect(resendable(e, e.criadoEm + 30 * DAY - 1, 30 * DAY)).toEqual({ ok: true, value: e });
  });

  it.each<EventState>(['pendente', 'executando'])('refuses a %s event with 409 evento_em_andamento', (estado) => {
    const s = setup();
    const e = s.eventIn(estado);
    const result = resendable(e, T0, 30 * DAY);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.refusal).toMatchObject({ kind: 'conflict', codigo: 'evento_em_andamento' });
  });

  it('refuses an event created exactly 30 days ago with 409 evento_antigo', () => {
    const s = setup();
    const e = s.eventIn('entregue');
    const result = resendable(e, e.criadoEm + 30 * DAY, 30 * DAY);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.refusal).toMatchObject({ kind: 'conflict', codigo: 'evento_antigo' });
  });
});

describe('classifyOutcome', () => {
  it('2xx entregue, 3xx falhou redirecionamento_nao_seguido, any other status falhou status_nao_2xx; status_http kept', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), (status) => {
        const result = classifyOutcome({ kind: 'response', status });
        if (status >= 200 && status < 300)
          expect(result).toEqual({ estado: 'entregue', codigoFalha: null, statusHttp: status });
        else if (status >= 300 && status < 400)
          expect(result).toEqual({ estado: 'falhou', codigoFalha: 'redirecionamento_nao_seguido', statusHttp: status });
        else expect(result).toEqual({ estado: 'falhou', codigoFalha: 'status_nao_2xx', statusHttp: status });
      }),
    );
  });

  it.each<[number, string]>([
    [199, 'falhou'],
    [200, 'entregue'],
    [299, 'entregue'],
    [300, 'falhou'],
    [399, 'falhou'],
    [400, 'falhou'],
  ])('status %i at a range edge → %s', (status, estado) => {
    expect(classifyOutcome({ kind: 'response', status }).estado).toBe(estado);
  });

  it.each<[NetworkOutcome, object]>([
    [{ kind: 'refused' }, { estado: 'falhou', codigoFalha: 'conexao_recusada', statusHttp: null }],
    [{ kind: 'unreachable' }, { estado: 'falhou', codigoFalha: 'destino_inalcancavel', statusHttp: null }],
    [{ kind: 'reset' }, { estado: 'incerta', codigoFalha: 'conexao_interrompida', statusHttp: null }],
    [{ kind: 'timeout' }, { estado: 'incerta', codigoFalha: 'tempo_esgotado', statusHttp: null }],
    // spec: WH-EVT-56: a response cut short confirms nothing, whatever its status; the status that arrived is kept.
    [
      { kind: 'incomplete', status: 200 },
      { estado: 'incerta', codigoFalha: 'resposta_incompleta', statusHttp: 200 },
    ],
    [
      { kind: 'incomplete', status: 299 },
      { estado: 'incerta', codigoFalha: 'resposta_incompleta', statusHttp: 299 },
    ],
    [
      { kind: 'incomplete', status: 302 },
      { estado: 'incerta', codigoFalha: 'resposta_incompleta', statusHttp: 302 },
    ],
    [
      { kind: 'incomplete', status: 503 },
      { estado: 'incerta', codigoFalha: 'resposta_incompleta', statusHttp: 503 },
    ],
  ])('%j → %j', (outcome, expected) => {
    expect(classifyOutcome(outcome)).toEqual(expected);
  });
});
