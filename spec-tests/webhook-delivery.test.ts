/**
 * The webhook delivery engine over HTTP (spec "Events", "Delivery semantics", "Delivery attempt";
 * docs/webhooks.md "Delivery", "Faults"): the schedule of the 8 attempts of a cycle, the states between attempts,
 * every delivery fault, real receiver answers (redirect, closed port, responses cut short), rotation and revocation,
 * the built-in inbox, and a deduplicating receiver.
 *
 * The emulator is driven only through HTTP (the API and /_emulator), so the file runs the same in process and
 * against the built CLI. Each test has its own company and destination host; times are read from the clock at
 * the start of the test (the server's clock is shared). Receivers are node:http servers on loopback, reached
 * through a network route; signatures are checked with node:crypto, independently of the emulator.
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { otherCompany, world, type World } from './support/client.js';
import { notHere } from './support/deployment.js';
import { UUID } from './support/expect.js';
import {
  addRoute,
  advance,
  attemptsOf,
  changeDestination,
  clockNow,
  closedPort,
  createDestination,
  DAY,
  deliveryFault,
  eventDetail,
  expectedSignature,
  faultById,
  hookHost,
  HOUR,
  inboxFor,
  iso,
  MINUTE,
  ms,
  raiseEvent,
  rawResponse,
  Receiver,
  removeFault,
  removeRoute,
  SECOND,
  unixSeconds,
  verifyDelivery,
  type Answerer,
  type Attempt,
  type Destination,
  type RawReply,
} from './support/webhooks.js';

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The default waits before attempts 2..8, from the end of the previous attempt (docs/webhooks.md "Delivery"). */
const WAITS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 7 * HOUR, 8 * HOUR];
/** Start of each attempt after the first when every answer is instant: 0, 5 s, 5 min 5 s, …, 22 h 35 min 5 s. */
const OFFSETS = WAITS.reduce<number[]>((acc, wait) => [...acc, acc[acc.length - 1]! + wait], [0]);
const TIMEOUT = 15 * SECOND;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  readonly w: World;
  readonly host: string;
  /** The destination URL: `${host}/recebe`. */
  readonly url: string;
  readonly destination: Destination;
  /** The virtual now when the test started (Unix ms). */
  readonly t0: number;
}

interface Routed extends Setup {
  readonly receiver: Receiver;
}

/** A company with an active destination on a host of its own (unrouted: the inbox receives). */
async function setup(w?: World): Promise<Setup> {
  const own = w ?? (await world());
  // Every delivery test reads the virtual clock and what a receiver got: on a deployment, skipped before it
  // changes the shared destination.
  if (own.target.kind === 'deployment')
    notHere("needs the emulator's controls (the virtual clock, the inbox, routes and delivery faults)");
  const host = hookHost();
  const url = `${host}/recebe`;
  const destination = await createDestination(own, url);
  const t0 = await clockNow(own);
  return { w: own, host, url, destination, t0 };
}

/** As setup, with the host routed to a receiver on loopback answering as `answer` says. */
async function routed(answer: Answerer = () => 200): Promise<Routed> {
  const base = await setup();
  const receiver = await Receiver.start(answer);
  cleanups.push(() => receiver.close());
  await addRoute(base.w, base.host, receiver.origin);
  cleanups.push(() => removeRoute(base.w, base.host));
  return { ...base, receiver };
}

/** A delivery fault removed after the test (if still there). */
async function fault(
  s: Setup,
  match: Record<string, unknown>,
  effect: Record<string, unknown>,
  times: number | null = 1,
): Promise<string> {
  const id = await deliveryFault(s.w, match, effect, times);
  cleanups.push(() => removeFault(s.w, id));
  return id;
}

const urlMatch = (s: Setup) => ({ url: `${s.host}/**` });

function attemptAt(attempts: Attempt[], index: number): Attempt {
  const attempt = attempts[index];
  if (attempt === undefined) throw new Error(`no attempt #${index + 1} among ${attempts.length}`);
  return attempt;
}

function requestAt(receiver: Receiver, index: number) {
  const request = receiver.requests[index];
  if (request === undefined)
    throw new Error(`the receiver got ${receiver.requests.length} requests, not #${index + 1}`);
  return request;
}

describe('delivery schedule', () => {
  // spec: WH-EVT-56
  it('fails 7 times then delivers: one advance of 23 h runs attempts 1..8 at 0, 5 s, 5 min 5 s, 35 min 5 s, 2 h 35 min 5 s, 7 h 35 min 5 s, 14 h 35 min 5 s, 22 h 35 min 5 s', async () => {
    const s = await routed((_, index) => (index < 7 ? 500 : 200));
    const eventId = await raiseEvent(s.w);
    await advance(s.w, '23h');

    const attempts = await attemptsOf(s.w, eventId);
    expect(attempts.map((a) => a.tentativa)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const first = ms(attemptAt(attempts, 0).iniciada_em);
    expect(first).toBe(s.t0);
    expect(attempts.map((a) => ms(a.iniciada_em) - first)).toEqual([
      0,
      5 * SECOND,
      5 * MINUTE + 5 * SECOND,
      35 * MINUTE + 5 * SECOND,
      2 * HOUR + 35 * MINUTE + 5 * SECOND,
      7 * HOUR + 35 * MINUTE + 5 * SECOND,
      14 * HOUR + 35 * MINUTE + 5 * SECOND,
      22 * HOUR + 35 * MINUTE + 5 * SECOND,
    ]);
    for (const attempt of attempts.slice(0, 7)) {
      expect(attempt).toEqual({
        tentativa: attempt.tentativa,
        destino_versao: 1,
        estado: 'falhou',
        iniciada_em: attempt.iniciada_em,
        terminada_em: attempt.iniciada_em,
        codigo_falha: 'status_nao_2xx',
        status_http: 500,
      });
    }
    const last = attemptAt(attempts, 7);
    expect(last).toEqual({
      tentativa: 8,
      destino_versao: 1,
      estado: 'entregue',
      iniciada_em: iso(s.t0 + OFFSETS[7]!),
      terminada_em: iso(s.t0 + OFFSETS[7]!),
      codigo_falha: null,
      status_http: 200,
    });

    const detail = await eventDetail(s.w, eventId);
    expect(detail).toMatchObject({
      id: eventId,
      estado: 'entregue',
      destino_id: s.destination.id,
      destino_versao: 1,
      tentativas_ciclo: 8,
      tentativas_totais: 8,
      status_http: 200,
      codigo_falha: null,
      terminado_em: iso(s.t0 + OFFSETS[7]!),
      proxima_tentativa_em: null,
      criado_em: iso(s.t0),
      prazo_em: iso(s.t0 + DAY),
    });
    expect(s.receiver.requests).toHaveLength(8);
  });

  // spec: WH-EVT-50, WH-EVT-54, SIG-01, SIG-03
  it('signs each attempt with its own Service-Timestamp (Unix seconds of the attempt) over identical body bytes and the same Service-Event-Id', async () => {
    const s = await routed((_, index) => (index < 7 ? 500 : 200));
    const eventId = await raiseEvent(s.w);
    await advance(s.w, '23h');
    const attempts = await attemptsOf(s.w, eventId);
    const detail = await eventDetail(s.w, eventId);
    expect(s.receiver.requests).toHaveLength(8);

    const firstBody = requestAt(s.receiver, 0).raw;
    const timestamps = new Set<string>();
    s.receiver.requests.forEach((request, index) => {
      const startedAt = ms(attemptAt(attempts, index).iniciada_em);
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/recebe');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['user-agent']).toBe(`catalog-emulator/${PACKAGE_VERSION}`);
      expect(request.headers['service-event-id']).toBe(eventId);
      expect(request.headers['service-timestamp']).toBe(String(unixSeconds(startedAt)));
      expect(request.headers['service-signature']).toBe(
        expectedSignature(s.destination.secret, unixSeconds(startedAt), eventId, request.raw),
      );
      expect(verifyDelivery(s.destination.secret, request, unixSeconds(startedAt))).toEqual({ ok: true, reason: 'ok' });
      expect(request.raw.equals(firstBody), `attempt ${index + 1} sends the same bytes`).toBe(true);
      timestamps.add(String(request.headers['service-timestamp']));
    });
    expect(timestamps.size).toBe(8);
    expect(JSON.parse(firstBody.toString('utf8'))).toEqual(detail.evento);
    expect(detail.evento).toEqual({
      id: eventId,
      versao: 1,
      empresa: s.w.company.cnpjRoot,
      ocorridoEm: iso(s.t0),
      dados: detail.evento.dados,
    });
  });

  // spec: WH-EVT-58, WH-EVT-59
  it('a receiver that always fails: the event falhou after 8 attempts (status_nao_2xx, 500), none after prazo_em, no 9th even days later', async () => {
    const s = await routed(() => 500);
    const eventId = await raiseEvent(s.w);
    await advance(s.w, '23h');

    const attempts = await attemptsOf(s.w, eventId);
    expect(attempts).toHaveLength(8);
    expect(
      attempts.every((a) => a.estado === 'falhou' && a.codigo_falha === 'status_nao_2xx' && a.status_http === 500),
    ).toBe(true);
    const detail = await eventDetail(s.w, eventId);
    expect(detail).toMatchObject({
      estado: 'falhou',
      codigo_falha: 'status_nao_2xx',
      status_http: 500,
      tentativas_ciclo: 8,
      tentativas_totais: 8,
      terminado_em: iso(s.t0 + OFFSETS[7]!),
      proxima_tentativa_em: null,
      prazo_em: iso(s.t0 + DAY),
    });
    expect(attempts.every((a) => ms(a.iniciada_em) <= ms(detail.prazo_em))).toBe(true);

    await advance(s.w, '3d');
    expect(await attemptsOf(s.w, eventId)).toEqual(attempts);
    expect(s.receiver.requests).toHaveLength(8);
    expect(await eventDetail(s.w, eventId)).toEqual(detail);
  });

  it('the first attempt is due at once but runs only when the clock moves; between attempts the event is pendente with proxima_tentativa_em and a shorter advance runs nothing', async () => {
    const s = await routed(() => 500);
    const eventId = await raiseEvent(s.w);

    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'pendente',
      proxima_tentativa_em: iso(s.t0),
      tentativas_ciclo: 0,
      tentativas_totais: 0,
      status_http: null,
      terminado_em: null,
      codigo_falha: null,
    });
    expect(await attemptsOf(s.w, eventId)).toEqual([]);
    expect(s.receiver.requests).toHaveLength(0);

    await advance(s.w, 0);
    expect(s.receiver.requests).toHaveLength(1);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'pendente',
      proxima_tentativa_em: iso(s.t0 + 5 * SECOND),
      tentativas_ciclo: 1,
      status_http: 500,
      terminado_em: null,
    });

    await advance(s.w, 5 * SECOND - 1);
    expect(s.receiver.requests).toHaveLength(1);
    expect(await attemptsOf(s.w, eventId)).toHaveLength(1);
    expect((await eventDetail(s.w, eventId)).estado).toBe('pendente');

    await advance(s.w, 1);
    expect(s.receiver.requests).toHaveLength(2);
    expect(attemptAt(await attemptsOf(s.w, eventId), 1).iniciada_em).toBe(iso(s.t0 + 5 * SECOND));
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'pendente',
      proxima_tentativa_em: iso(s.t0 + 5 * SECOND + 5 * MINUTE),
      tentativas_ciclo: 2,
    });

    await advance(s.w, 5 * MINUTE - 1);
    expect(s.receiver.requests).toHaveLength(2);
    await advance(s.w, 1);
    expect(s.receiver.requests).toHaveLength(3);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'pendente',
      proxima_tentativa_em: iso(s.t0 + 5 * SECOND + 35 * MINUTE),
      tentativas_ciclo: 3,
    });
  });
});

describe('delivery faults', () => {
  // spec: WH-EVT-56
  it('status 503: the receiver is not reached; the attempt falhou status_nao_2xx with status_http 503, and the retry 5 s later delivers', async () => {
    const s = await routed(() => 200);
    const faultId = await fault(s, urlMatch(s), { status: 503 });
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);

    expect(s.receiver.requests).toHaveLength(0);
    expect(await attemptsOf(s.w, eventId)).toEqual([
      {
        tentativa: 1,
        destino_versao: 1,
        estado: 'falhou',
        iniciada_em: iso(s.t0),
        terminada_em: iso(s.t0),
        codigo_falha: 'status_nao_2xx',
        status_http: 503,
      },
    ]);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'pendente',
      status_http: 503,
      proxima_tentativa_em: iso(s.t0 + 5 * SECOND),
    });
    expect(await faultById(s.w, faultId)).toBeUndefined();

    await advance(s.w, '5s');
    expect(s.receiver.requests).toHaveLength(1);
    expect(attemptAt(await attemptsOf(s.w, eventId), 1)).toMatchObject({
      tentativa: 2,
      estado: 'entregue',
      status_http: 200,
      iniciada_em: iso(s.t0 + 5 * SECOND),
    });
    expect(await eventDetail(s.w, eventId)).toMatchObject({ estado: 'entregue', status_http: 200, codigo_falha: null });
  });

  it('redirect: falhou redirecionamento_nao_seguido with status_http 302, the receiver not reached', async () => {
    const s = await routed(() => 200);
    await fault(s, urlMatch(s), { redirect: true });
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);

    expect(s.receiver.requests).toHaveLength(0);
    expect(await attemptsOf(s.w, eventId)).toEqual([
      {
        tentativa: 1,
        destino_versao: 1,
        estado: 'falhou',
        iniciada_em: iso(s.t0),
        terminada_em: iso(s.t0),
        codigo_falha: 'redirecionamento_nao_seguido',
        status_http: 302,
      },
    ]);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'pendente',
      status_http: 302,
      proxima_tentativa_em: iso(s.t0 + 5 * SECOND),
    });
  });

  it('refuse (matched by companyId): falhou conexao_recusada with status_http null, the receiver not reached', async () => {
    const s = await routed(() => 200);
    await fault(s, { companyId: s.w.company.companyId }, { refuse: true });
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);

    expect(s.receiver.requests).toHaveLength(0);
    expect(await attemptsOf(s.w, eventId)).toEqual([
      {
        tentativa: 1,
        destino_versao: 1,
        estado: 'falhou',
        iniciada_em: iso(s.t0),
        terminada_em: iso(s.t0),
        codigo_falha: 'conexao_recusada',
        status_http: null,
      },
    ]);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'pendente',
      status_http: null,
      proxima_tentativa_em: iso(s.t0 + 5 * SECOND),
    });
  });

  it('reset: the receiver gets the request; the attempt is incerta conexao_interrompida at once and the retry follows 5 s later', async () => {
    const s = await routed(() => 200);
    await fault(s, urlMatch(s), { reset: true });
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);

    expect(s.receiver.requests).toHaveLength(1);
    expect(requestAt(s.receiver, 0).headers['service-event-id']).toBe(eventId);
    expect(await attemptsOf(s.w, eventId)).toEqual([
      {
        tentativa: 1,
        destino_versao: 1,
        estado: 'incerta',
        iniciada_em: iso(s.t0),
        terminada_em: iso(s.t0),
        codigo_falha: 'conexao_interrompida',
        status_http: null,
      },
    ]);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'pendente',
      proxima_tentativa_em: iso(s.t0 + 5 * SECOND),
    });

    await advance(s.w, '5s');
    expect(s.receiver.requests).toHaveLength(2);
    expect((await eventDetail(s.w, eventId)).estado).toBe('entregue');
  });

  it('timeout: the receiver gets the request; the attempt stays iniciada (event executando) for 14 s, is incerta tempo_esgotado at 15 s, and the retry comes 5 s after that', async () => {
    const s = await routed(() => 200);
    await fault(s, urlMatch(s), { timeout: true });
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);

    expect(s.receiver.requests).toHaveLength(1);
    const running = {
      tentativa: 1,
      destino_versao: 1,
      estado: 'iniciada',
      iniciada_em: iso(s.t0),
      terminada_em: null,
      codigo_falha: null,
      status_http: null,
    };
    expect(await attemptsOf(s.w, eventId)).toEqual([running]);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'executando',
      proxima_tentativa_em: null,
      tentativas_ciclo: 1,
    });

    await advance(s.w, '14s');
    expect(await attemptsOf(s.w, eventId)).toEqual([running]);
    expect((await eventDetail(s.w, eventId)).estado).toBe('executando');

    await advance(s.w, '1s');
    expect(await attemptsOf(s.w, eventId)).toEqual([
      { ...running, estado: 'incerta', terminada_em: iso(s.t0 + TIMEOUT), codigo_falha: 'tempo_esgotado' },
    ]);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'pendente',
      status_http: null,
      proxima_tentativa_em: iso(s.t0 + TIMEOUT + 5 * SECOND),
    });

    await advance(s.w, 5 * SECOND - 1);
    expect(s.receiver.requests).toHaveLength(1);
    await advance(s.w, 1);
    expect(s.receiver.requests).toHaveLength(2);
    expect(attemptAt(await attemptsOf(s.w, eventId), 1)).toMatchObject({
      tentativa: 2,
      estado: 'entregue',
      iniciada_em: iso(s.t0 + TIMEOUT + 5 * SECOND),
      status_http: 200,
    });
    expect((await eventDetail(s.w, eventId)).estado).toBe('entregue');
  });

  it('latencyMs 2000: the answer comes 2 s later (terminada_em − iniciada_em = 2 s) and delivers', async () => {
    const s = await routed(() => 200);
    await fault(s, urlMatch(s), { latencyMs: 2000 });
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);

    expect(s.receiver.requests).toHaveLength(1);
    expect(attemptAt(await attemptsOf(s.w, eventId), 0)).toMatchObject({ estado: 'iniciada', terminada_em: null });
    expect((await eventDetail(s.w, eventId)).estado).toBe('executando');

    await advance(s.w, 1999);
    expect(attemptAt(await attemptsOf(s.w, eventId), 0)).toMatchObject({ estado: 'iniciada', terminada_em: null });

    await advance(s.w, 1);
    const attempt = attemptAt(await attemptsOf(s.w, eventId), 0);
    expect(attempt).toEqual({
      tentativa: 1,
      destino_versao: 1,
      estado: 'entregue',
      iniciada_em: iso(s.t0),
      terminada_em: iso(s.t0 + 2000),
      codigo_falha: null,
      status_http: 200,
    });
    expect(ms(attempt.terminada_em!) - ms(attempt.iniciada_em)).toBe(2000);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'entregue',
      terminado_em: iso(s.t0 + 2000),
      status_http: 200,
    });
  });

  it('latencyMs 20000: the attempt times out at 15 s (incerta tempo_esgotado); the late answer changes nothing and the retry comes at 20 s', async () => {
    const s = await routed(() => 200);
    await fault(s, urlMatch(s), { latencyMs: 20_000 });
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);
    await advance(s.w, TIMEOUT - 1);
    expect(attemptAt(await attemptsOf(s.w, eventId), 0)).toMatchObject({ estado: 'iniciada', terminada_em: null });
    expect((await eventDetail(s.w, eventId)).estado).toBe('executando');

    await advance(s.w, 1);
    const timedOut = {
      tentativa: 1,
      destino_versao: 1,
      estado: 'incerta',
      iniciada_em: iso(s.t0),
      terminada_em: iso(s.t0 + TIMEOUT),
      codigo_falha: 'tempo_esgotado',
      status_http: null,
    };
    expect(await attemptsOf(s.w, eventId)).toEqual([timedOut]);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'pendente',
      proxima_tentativa_em: iso(s.t0 + TIMEOUT + 5 * SECOND),
    });

    await advance(s.w, '5s');
    const attempts = await attemptsOf(s.w, eventId);
    expect(attemptAt(attempts, 0)).toEqual(timedOut);
    expect(attemptAt(attempts, 1)).toMatchObject({
      tentativa: 2,
      estado: 'entregue',
      iniciada_em: iso(s.t0 + 20 * SECOND),
      terminada_em: iso(s.t0 + 20 * SECOND),
    });
    expect(s.receiver.requests).toHaveLength(2);
  });

  it('latencyMs at the limit: 14999 delivers at 14.999 s, 15000 is a time-out (incerta tempo_esgotado at 15 s)', async () => {
    const s = await routed(() => 200);
    await fault(s, { url: `${s.host}/**`, eventType: 'catalogo.aplicado' }, { latencyMs: 14_999 });
    await fault(s, { url: `${s.host}/**`, eventType: 'analise.concluida' }, { latencyMs: 15_000 });
    const justInTime = await raiseEvent(s.w);
    const tooLate = await raiseEvent(s.w, { tipo: 'analise.concluida', analiseId: randomUUID() });
    await advance(s.w, TIMEOUT);

    expect(await attemptsOf(s.w, justInTime)).toEqual([
      {
        tentativa: 1,
        destino_versao: 1,
        estado: 'entregue',
        iniciada_em: iso(s.t0),
        terminada_em: iso(s.t0 + 14_999),
        codigo_falha: null,
        status_http: 200,
      },
    ]);
    expect(await attemptsOf(s.w, tooLate)).toEqual([
      {
        tentativa: 1,
        destino_versao: 1,
        estado: 'incerta',
        iniciada_em: iso(s.t0),
        terminada_em: iso(s.t0 + TIMEOUT),
        codigo_falha: 'tempo_esgotado',
        status_http: null,
      },
    ]);
    expect(s.receiver.requests).toHaveLength(2);
  });

  it('duplicate: the receiver gets the same event id twice with identical bytes, both validly signed; one attempt, entregue', async () => {
    const s = await routed(() => 200);
    await fault(s, urlMatch(s), { duplicate: true });
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);

    expect(s.receiver.requests).toHaveLength(2);
    const [a, b] = [requestAt(s.receiver, 0), requestAt(s.receiver, 1)];
    expect(a.headers['service-event-id']).toBe(eventId);
    expect(b.headers['service-event-id']).toBe(eventId);
    expect(a.raw.equals(b.raw)).toBe(true);
    for (const request of [a, b])
      expect(verifyDelivery(s.destination.secret, request, unixSeconds(s.t0))).toEqual({ ok: true, reason: 'ok' });
    expect(await attemptsOf(s.w, eventId)).toEqual([
      {
        tentativa: 1,
        destino_versao: 1,
        estado: 'entregue',
        iniciada_em: iso(s.t0),
        terminada_em: iso(s.t0),
        codigo_falha: null,
        status_http: 200,
      },
    ]);
    expect(await eventDetail(s.w, eventId)).toMatchObject({ estado: 'entregue', tentativas_totais: 1 });
  });

  /** A receiver that verifies as the spec says (on the virtual clock) and answers 401 to what fails. */
  async function verifyingReceiver() {
    const box: { secret: string; nowSeconds: number } = { secret: '', nowSeconds: 0 };
    const verdicts: string[] = [];
    const s = await routed((request) => {
      const verdict = verifyDelivery(box.secret, request, box.nowSeconds);
      verdicts.push(verdict.reason);
      return verdict.ok ? 200 : 401;
    });
    box.secret = s.destination.secret;
    box.nowSeconds = unixSeconds(s.t0);
    return { s, box, verdicts };
  }

  it('tamper signature: the receiver gets a wrong HMAC (last hex char flipped) and refuses it; the untampered retry verifies', async () => {
    const { s, box, verdicts } = await verifyingReceiver();
    await fault(s, urlMatch(s), { tamper: 'signature' });
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);

    const tampered = requestAt(s.receiver, 0);
    const valid = expectedSignature(s.destination.secret, unixSeconds(s.t0), eventId, tampered.raw);
    const given = String(tampered.headers['service-signature']);
    expect(given).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(given).not.toBe(valid);
    expect(given.slice(0, -1)).toBe(valid.slice(0, -1));
    expect(tampered.headers['service-timestamp']).toBe(String(unixSeconds(s.t0)));
    expect(verdicts).toEqual(['assinatura_invalida']);
    expect(attemptAt(await attemptsOf(s.w, eventId), 0)).toMatchObject({
      estado: 'falhou',
      codigo_falha: 'status_nao_2xx',
      status_http: 401,
    });

    box.nowSeconds = unixSeconds(s.t0 + 5 * SECOND);
    await advance(s.w, '5s');
    expect(verdicts).toEqual(['assinatura_invalida', 'ok']);
    expect(requestAt(s.receiver, 1).raw.equals(tampered.raw)).toBe(true);
    expect((await eventDetail(s.w, eventId)).estado).toBe('entregue');
  });

  it('tamper body: one space appended after signing, so the HMAC of the bytes received fails while that of the original bytes matches', async () => {
    const { s, box, verdicts } = await verifyingReceiver();
    await fault(s, urlMatch(s), { tamper: 'body' });
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);
    box.nowSeconds = unixSeconds(s.t0 + 5 * SECOND);
    await advance(s.w, '5s');

    const [tampered, clean] = [requestAt(s.receiver, 0), requestAt(s.receiver, 1)];
    expect(tampered.body).toBe(`${clean.body} `);
    expect(tampered.headers['service-signature']).toBe(
      expectedSignature(s.destination.secret, unixSeconds(s.t0), eventId, clean.raw),
    );
    expect(tampered.headers['service-signature']).not.toBe(
      expectedSignature(s.destination.secret, unixSeconds(s.t0), eventId, tampered.raw),
    );
    expect(verdicts).toEqual(['assinatura_invalida', 'ok']);
    const attempts = await attemptsOf(s.w, eventId);
    expect(attemptAt(attempts, 0)).toMatchObject({
      estado: 'falhou',
      codigo_falha: 'status_nao_2xx',
      status_http: 401,
    });
    expect(attemptAt(attempts, 1)).toMatchObject({ estado: 'entregue', status_http: 200 });
  });

  // spec: SIG-08
  it('tamper timestamp: validly signed with a timestamp 600 s older than the attempt, so a receiver with 5 minutes of tolerance refuses it', async () => {
    const { s, box, verdicts } = await verifyingReceiver();
    await fault(s, urlMatch(s), { tamper: 'timestamp' });
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);

    const tampered = requestAt(s.receiver, 0);
    const stale = unixSeconds(s.t0) - 600;
    expect(tampered.headers['service-timestamp']).toBe(String(stale));
    expect(tampered.headers['service-signature']).toBe(
      expectedSignature(s.destination.secret, stale, eventId, tampered.raw),
    );
    expect(verdicts).toEqual(['timestamp_fora_da_tolerancia']);
    expect(attemptAt(await attemptsOf(s.w, eventId), 0)).toMatchObject({
      estado: 'falhou',
      codigo_falha: 'status_nao_2xx',
      status_http: 401,
    });

    box.nowSeconds = unixSeconds(s.t0 + 5 * SECOND);
    await advance(s.w, '5s');
    expect(requestAt(s.receiver, 1).headers['service-timestamp']).toBe(String(unixSeconds(s.t0 + 5 * SECOND)));
    expect(verdicts).toEqual(['timestamp_fora_da_tolerancia', 'ok']);
  });

  it('times counts down: a 500 fault with times 3 fails attempts 1–3 (times 2, 1, gone) and the 4th reaches the receiver', async () => {
    const s = await routed(() => 200);
    const faultId = await fault(s, urlMatch(s), { status: 500 }, 3);
    expect(await faultById(s.w, faultId)).toMatchObject({ times: 3, hits: 0 });
    const eventId = await raiseEvent(s.w);

    await advance(s.w, 0);
    expect(await faultById(s.w, faultId)).toMatchObject({ times: 2, hits: 1 });
    await advance(s.w, '5s');
    expect(await faultById(s.w, faultId)).toMatchObject({ times: 1, hits: 2 });
    await advance(s.w, '5m');
    expect(await faultById(s.w, faultId)).toBeUndefined();
    expect(s.receiver.requests).toHaveLength(0);

    await advance(s.w, '30m');
    expect(s.receiver.requests).toHaveLength(1);
    const attempts = await attemptsOf(s.w, eventId);
    expect(attempts.map((a) => [a.estado, a.status_http])).toEqual([
      ['falhou', 500],
      ['falhou', 500],
      ['falhou', 500],
      ['entregue', 200],
    ]);
    expect(attemptAt(attempts, 3).iniciada_em).toBe(iso(s.t0 + OFFSETS[3]!));
  });

  it('matches by eventType: a fault for analise.concluida fails only that event; a catalogo.aplicado event is delivered', async () => {
    const s = await routed(() => 200);
    const faultId = await fault(
      s,
      { companyId: s.w.company.companyId, eventType: 'analise.concluida' },
      { status: 500 },
      null,
    );
    const catalogEvent = await raiseEvent(s.w, { tipo: 'catalogo.aplicado', catalogoId: randomUUID(), versao: 3 });
    const analysisEvent = await raiseEvent(s.w, { tipo: 'analise.concluida', analiseId: randomUUID() });
    await advance(s.w, 0);

    expect(s.receiver.requests.map((r) => r.headers['service-event-id'])).toEqual([catalogEvent]);
    expect(await eventDetail(s.w, catalogEvent)).toMatchObject({ estado: 'entregue', status_http: 200 });
    expect(await attemptsOf(s.w, analysisEvent)).toEqual([
      {
        tentativa: 1,
        destino_versao: 1,
        estado: 'falhou',
        iniciada_em: iso(s.t0),
        terminada_em: iso(s.t0),
        codigo_falha: 'status_nao_2xx',
        status_http: 500,
      },
    ]);
    expect(await faultById(s.w, faultId)).toMatchObject({ times: null, hits: 1 });
  });

  it("matches by companyId: a fault for another company leaves this one's deliveries alone", async () => {
    const s = await routed(() => 200);
    const other = await otherCompany(s.w);
    const faultId = await fault(s, { companyId: other.company.companyId }, { status: 500 }, null);
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);

    expect(s.receiver.requests).toHaveLength(1);
    expect(await eventDetail(s.w, eventId)).toMatchObject({ estado: 'entregue', status_http: 200 });
    expect(await faultById(s.w, faultId)).toMatchObject({ hits: 0 });
  });
});

describe('receiver answers', () => {
  // spec: WH-EVT-56, WH-EVT-57
  it('a 301 from the receiver is not followed: falhou redirecionamento_nao_seguido with status_http 301, one request only', async () => {
    let origin = '';
    const s = await routed(() => ({ status: 301, headers: { location: `${origin}/movido` } }));
    origin = s.receiver.origin;
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);

    expect(s.receiver.requests.map((r) => r.path)).toEqual(['/recebe']);
    expect(await attemptsOf(s.w, eventId)).toEqual([
      {
        tentativa: 1,
        destino_versao: 1,
        estado: 'falhou',
        iniciada_em: iso(s.t0),
        terminada_em: iso(s.t0),
        codigo_falha: 'redirecionamento_nao_seguido',
        status_http: 301,
      },
    ]);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'pendente',
      status_http: 301,
      proxima_tentativa_em: iso(s.t0 + 5 * SECOND),
    });
  });

  it('a route to a closed local port: falhou conexao_recusada with status_http null', async () => {
    const s = await setup();
    await addRoute(s.w, s.host, `http://127.0.0.1:${await closedPort()}`);
    cleanups.push(() => removeRoute(s.w, s.host));
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);

    expect(await attemptsOf(s.w, eventId)).toEqual([
      {
        tentativa: 1,
        destino_versao: 1,
        estado: 'falhou',
        iniciada_em: iso(s.t0),
        terminada_em: iso(s.t0),
        codigo_falha: 'conexao_recusada',
        status_http: null,
      },
    ]);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'pendente',
      status_http: null,
      proxima_tentativa_em: iso(s.t0 + 5 * SECOND),
    });
  });

  it('a receiver that drops the connection after getting the request: incerta conexao_interrompida, retried 5 s later', async () => {
    const s = await routed((_, index) => (index === 0 ? { status: 200, destroy: true } : 200));
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);

    expect(s.receiver.requests).toHaveLength(1);
    expect(await attemptsOf(s.w, eventId)).toEqual([
      {
        tentativa: 1,
        destino_versao: 1,
        estado: 'incerta',
        iniciada_em: iso(s.t0),
        terminada_em: iso(s.t0),
        codigo_falha: 'conexao_interrompida',
        status_http: null,
      },
    ]);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'pendente',
      proxima_tentativa_em: iso(s.t0 + 5 * SECOND),
    });
    await advance(s.w, '5s');
    expect(await eventDetail(s.w, eventId)).toMatchObject({ estado: 'entregue', status_http: 200 });
  });

  it('a route to a host that does not resolve: falhou destino_inalcancavel with status_http null', async () => {
    const s = await setup();
    await addRoute(s.w, s.host, 'http://destino-inexistente.invalid');
    cleanups.push(() => removeRoute(s.w, s.host));
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);

    expect(await attemptsOf(s.w, eventId)).toEqual([
      {
        tentativa: 1,
        destino_versao: 1,
        estado: 'falhou',
        iniciada_em: iso(s.t0),
        terminada_em: iso(s.t0),
        codigo_falha: 'destino_inalcancavel',
        status_http: null,
      },
    ]);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'pendente',
      status_http: null,
      proxima_tentativa_em: iso(s.t0 + 5 * SECOND),
    });
  });

  // spec: WH-EVT-55, WH-EVT-56
  it('a 404 fails the attempt (status_nao_2xx) and a later 204 delivers it', async () => {
    const s = await routed((_, index) => (index === 0 ? 404 : 204));
    const eventId = await raiseEvent(s.w);
    await advance(s.w, '5s');

    const attempts = await attemptsOf(s.w, eventId);
    expect(attempts.map((a) => [a.estado, a.codigo_falha, a.status_http])).toEqual([
      ['falhou', 'status_nao_2xx', 404],
      ['entregue', null, 204],
    ]);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'entregue',
      status_http: 204,
      codigo_falha: null,
      terminado_em: iso(s.t0 + 5 * SECOND),
    });
  });

  // spec: WH-EVT-55, WH-EVT-56: only a completed 2xx confirms an attempt. A response that began and was cut
  // short arrived in part: the receiver may have processed the event, so the attempt is incerta, with the
  // status that arrived, and it is retried like any other failure.
  describe('a response cut short is not a completed response', () => {
    /** The first request gets `raw`, later ones a plain 200: the attempt, then the retry 5 s later. */
    async function cutThenDelivered(raw: RawReply, status: number): Promise<void> {
      const s = await routed((_, index) => (index === 0 ? { status: 200, raw } : 200));
      const eventId = await raiseEvent(s.w);
      await advance(s.w, 0);

      expect(s.receiver.requests).toHaveLength(1);
      expect(await attemptsOf(s.w, eventId)).toEqual([
        {
          tentativa: 1,
          destino_versao: 1,
          estado: 'incerta',
          iniciada_em: iso(s.t0),
          terminada_em: iso(s.t0),
          codigo_falha: 'resposta_incompleta',
          status_http: status,
        },
      ]);
      expect(await eventDetail(s.w, eventId)).toMatchObject({
        estado: 'pendente',
        codigo_falha: 'resposta_incompleta',
        status_http: status,
        proxima_tentativa_em: iso(s.t0 + 5 * SECOND),
      });

      await advance(s.w, 5 * SECOND - 1);
      expect(s.receiver.requests).toHaveLength(1);
      await advance(s.w, 1);
      expect(s.receiver.requests).toHaveLength(2);
      expect(requestAt(s.receiver, 1).headers['service-event-id']).toBe(eventId);
      expect(attemptAt(await attemptsOf(s.w, eventId), 1)).toEqual({
        tentativa: 2,
        destino_versao: 1,
        estado: 'entregue',
        iniciada_em: iso(s.t0 + 5 * SECOND),
        terminada_em: iso(s.t0 + 5 * SECOND),
        codigo_falha: null,
        status_http: 200,
      });
      expect(await eventDetail(s.w, eventId)).toMatchObject({
        estado: 'entregue',
        codigo_falha: null,
        status_http: 200,
        tentativas_ciclo: 2,
        terminado_em: iso(s.t0 + 5 * SECOND),
      });
    }

    it('a 200 declaring Content-Length: 1000 that sends 7 bytes and closes: incerta resposta_incompleta with status_http 200; the retry 5 s later delivers', async () => {
      await cutThenDelivered(
        {
          bytes: rawResponse(200, { 'content-type': 'text/plain', 'content-length': '1000' }, 'recebid'),
          then: 'close',
        },
        200,
      );
    });

    it('a chunked 200 whose last chunk never comes (the connection closes after one chunk): incerta resposta_incompleta with status_http 200; the retry delivers', async () => {
      await cutThenDelivered(
        { bytes: rawResponse(200, { 'transfer-encoding': 'chunked' }, '7\r\nrecebid\r\n'), then: 'close' },
        200,
      );
    });

    it('a 200 whose connection is reset right after the status line and headers: incerta resposta_incompleta with status_http 200; the retry delivers', async () => {
      await cutThenDelivered({ bytes: rawResponse(200, { 'content-length': '2' }), then: 'reset' }, 200);
    });

    it('a 200 with a body delimited by the connection close, then reset instead of closed: incerta resposta_incompleta; the retry delivers', async () => {
      await cutThenDelivered({ bytes: rawResponse(200, { connection: 'close' }, 'recebido'), then: 'reset' }, 200);
    });

    it('a 503 cut short is incerta resposta_incompleta with status_http 503, not falhou status_nao_2xx: no complete answer arrived', async () => {
      await cutThenDelivered({ bytes: rawResponse(503, { 'content-length': '100' }, 'ocupado'), then: 'close' }, 503);
    });

    it('a 200 with a body delimited by the connection close, closed cleanly, is complete: entregue with status_http 200', async () => {
      const s = await routed(() => ({
        status: 200,
        raw: { bytes: rawResponse(200, { connection: 'close' }, 'recebido'), then: 'close' },
      }));
      const eventId = await raiseEvent(s.w);
      await advance(s.w, 0);

      expect(await attemptsOf(s.w, eventId)).toEqual([
        {
          tentativa: 1,
          destino_versao: 1,
          estado: 'entregue',
          iniciada_em: iso(s.t0),
          terminada_em: iso(s.t0),
          codigo_falha: null,
          status_http: 200,
        },
      ]);
      expect(await eventDetail(s.w, eventId)).toMatchObject({
        estado: 'entregue',
        status_http: 200,
        terminado_em: iso(s.t0),
      });
    });
  });
});

describe('routes', () => {
  /** A company whose destination is `path` on a host of its own, that host routed as `from(host)` to a receiver. */
  async function routedPath(path: string, from: (host: string) => string) {
    const w = await world();
    const host = hookHost();
    const destination = await createDestination(w, `${host}${path}`);
    const receiver = await Receiver.start();
    cleanups.push(() => receiver.close());
    await addRoute(w, from(host), receiver.origin);
    cleanups.push(() => removeRoute(w, from(host)));
    return { w, host, destination, receiver, t0: await clockNow(w) };
  }

  it('a destination path can never change the routed host or port: "/@127.0.0.1:PORT/hook" reaches the routed receiver as that path, not the port it names', async () => {
    const victim = await Receiver.start();
    cleanups.push(() => victim.close());
    const victimPort = new URL(victim.origin).port;
    // Appended as a string to "http://127.0.0.1:<receiver port>", this path made the receiver's address userinfo.
    const s = await routedPath(`/@127.0.0.1:${victimPort}/hook`, (host) => `${host}/`);
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);

    expect(victim.requests).toEqual([]);
    expect(s.receiver.requests.map((r) => r.path)).toEqual([`/@127.0.0.1:${victimPort}/hook`]);
    expect(s.receiver.requests[0]!.headers.host).toBe(new URL(s.receiver.origin).host);
    expect(await eventDetail(s.w, eventId)).toMatchObject({ estado: 'entregue', status_http: 200 });
  });

  it('a route with a path covers that path and what continues it after "/", not a longer segment: /hooksx lands in the inbox', async () => {
    const s = await routedPath('/hooks/catalogo?origem=emulador', (host) => `${host}/hooks`);
    await raiseEvent(s.w);
    await advance(s.w, 0);
    expect(s.receiver.requests.map((r) => r.path)).toEqual(['/catalogo?origem=emulador']);

    await changeDestination(s.w, `${s.host}/hooksx/catalogo`, s.destination.etag);
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);
    expect(s.receiver.requests).toHaveLength(1);
    expect((await inboxFor(s.w, s.host)).map((e) => [e.eventId, e.url])).toEqual([
      [eventId, `${s.host}/hooksx/catalogo`],
    ]);
  });
});

describe('rotation and revocation', () => {
  // spec: WH-DEST-33, WH-EVT-46, SIG-06
  it('rotation cancels a pending event at once (cancelado destino_alterado), no attempt follows, and a resend delivers on the new version signed with the new secret', async () => {
    let status = 500;
    const s = await routed(() => status);
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);
    expect((await eventDetail(s.w, eventId)).estado).toBe('pendente');

    const rotated = await changeDestination(s.w, s.url, s.destination.etag);
    expect(rotated.versao).toBe(2);
    expect(rotated.secret).not.toBe(s.destination.secret);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'cancelado',
      codigo_falha: 'destino_alterado',
      terminado_em: iso(s.t0),
      proxima_tentativa_em: null,
      destino_versao: 1,
    });

    await advance(s.w, '1d');
    expect(await attemptsOf(s.w, eventId)).toHaveLength(1);
    expect(s.receiver.requests).toHaveLength(1);
    expect((await eventDetail(s.w, eventId)).estado).toBe('cancelado');

    status = 200;
    const resend = await s.w.api.post(`/v1/webhook/eventos/${eventId}/reenvios`, {}, { ifMatch: rotated.etag });
    expect(resend.status, resend.text).toBe(202);
    expect(resend.body).toEqual({
      evento_id: eventId,
      destino_id: s.destination.id,
      destino_versao: 2,
      estado: 'aceito',
    });
    const resentAt = await clockNow(s.w);
    await advance(s.w, 0);

    const attempts = await attemptsOf(s.w, eventId);
    expect(attemptAt(attempts, 1)).toEqual({
      tentativa: 2,
      destino_versao: 2,
      estado: 'entregue',
      iniciada_em: iso(resentAt),
      terminada_em: iso(resentAt),
      codigo_falha: null,
      status_http: 200,
    });
    const request = requestAt(s.receiver, 1);
    expect(request.headers['service-event-id']).toBe(eventId);
    expect(request.raw.equals(requestAt(s.receiver, 0).raw)).toBe(true);
    expect(verifyDelivery(rotated.secret, request, unixSeconds(resentAt))).toEqual({ ok: true, reason: 'ok' });
    expect(verifyDelivery(s.destination.secret, request, unixSeconds(resentAt)).reason).toBe('assinatura_invalida');
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'entregue',
      destino_versao: 2,
      tentativas_ciclo: 1,
      tentativas_totais: 2,
    });
  });

  // spec: WH-DEST-32
  it('revocation cancels a pending event at once (cancelado destino_revogado) and no attempt follows', async () => {
    const s = await routed(() => 500);
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);

    const revoked = await s.w.api.delete('/v1/webhook', undefined, { ifMatch: s.destination.etag });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body).toEqual({ id: s.destination.id, versao: 2, estado: 'revogado' });
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'cancelado',
      codigo_falha: 'destino_revogado',
      terminado_em: iso(s.t0),
      proxima_tentativa_em: null,
    });

    await advance(s.w, '1d');
    expect(await attemptsOf(s.w, eventId)).toHaveLength(1);
    expect(s.receiver.requests).toHaveLength(1);
  });

  // spec: SIG-06
  it('an event raised while revoked is cancelado destino_inativo; after reactivation a resend delivers on the new version with the new secret', async () => {
    const s = await routed(() => 200);
    const revoked = await s.w.api.delete('/v1/webhook', undefined, { ifMatch: s.destination.etag });
    expect(revoked.status, revoked.text).toBe(200);
    const eventId = await raiseEvent(s.w);

    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'cancelado',
      codigo_falha: 'destino_inativo',
      destino_id: s.destination.id,
      destino_versao: 2,
      tentativas_ciclo: 0,
      tentativas_totais: 0,
      terminado_em: iso(s.t0),
      proxima_tentativa_em: null,
    });
    await advance(s.w, '1h');
    expect(s.receiver.requests).toHaveLength(0);
    expect(await attemptsOf(s.w, eventId)).toEqual([]);

    const reactivated = await changeDestination(s.w, s.url, revoked.headers.get('etag')!);
    expect(reactivated.versao).toBe(3);
    expect(reactivated.secret).not.toBe(s.destination.secret);
    const resend = await s.w.api.post(`/v1/webhook/eventos/${eventId}/reenvios`, {}, { ifMatch: reactivated.etag });
    expect(resend.status, resend.text).toBe(202);
    expect(resend.body).toEqual({
      evento_id: eventId,
      destino_id: s.destination.id,
      destino_versao: 3,
      estado: 'aceito',
    });
    const resentAt = s.t0 + HOUR;
    await advance(s.w, 0);

    expect(await attemptsOf(s.w, eventId)).toEqual([
      {
        tentativa: 1,
        destino_versao: 3,
        estado: 'entregue',
        iniciada_em: iso(resentAt),
        terminada_em: iso(resentAt),
        codigo_falha: null,
        status_http: 200,
      },
    ]);
    const request = requestAt(s.receiver, 0);
    expect(verifyDelivery(reactivated.secret, request, unixSeconds(resentAt))).toEqual({ ok: true, reason: 'ok' });
    expect(verifyDelivery(s.destination.secret, request, unixSeconds(resentAt)).reason).toBe('assinatura_invalida');
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'entregue',
      destino_versao: 3,
      codigo_falha: null,
    });
  });
  // spec: WH-DEST-32
  it('an attempt in flight when the destination is revoked still records its answer, but the event stays cancelado and nothing follows', async () => {
    const s = await routed(() => 200);
    await fault(s, urlMatch(s), { latencyMs: 2000 });
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);
    expect(s.receiver.requests).toHaveLength(1);
    expect((await eventDetail(s.w, eventId)).estado).toBe('executando');

    const revoked = await s.w.api.delete('/v1/webhook', undefined, { ifMatch: s.destination.etag });
    expect(revoked.status, revoked.text).toBe(200);
    const cancelled = await eventDetail(s.w, eventId);
    expect(cancelled).toMatchObject({
      estado: 'cancelado',
      codigo_falha: 'destino_revogado',
      terminado_em: iso(s.t0),
      proxima_tentativa_em: null,
    });

    await advance(s.w, '1d');
    expect(await attemptsOf(s.w, eventId)).toEqual([
      {
        tentativa: 1,
        destino_versao: 1,
        estado: 'entregue',
        iniciada_em: iso(s.t0),
        terminada_em: iso(s.t0 + 2000),
        codigo_falha: null,
        status_http: 200,
      },
    ]);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'cancelado',
      codigo_falha: 'destino_revogado',
      terminado_em: iso(s.t0),
    });
    expect(s.receiver.requests).toHaveLength(1);
  });

  it('an attempt timing out after a rotation ends incerta tempo_esgotado; the event stays cancelado destino_alterado with no retry', async () => {
    const s = await routed(() => 200);
    await fault(s, urlMatch(s), { timeout: true });
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);
    await changeDestination(s.w, s.url, s.destination.etag);
    expect((await eventDetail(s.w, eventId)).estado).toBe('cancelado');

    await advance(s.w, '1d');
    expect(await attemptsOf(s.w, eventId)).toEqual([
      {
        tentativa: 1,
        destino_versao: 1,
        estado: 'incerta',
        iniciada_em: iso(s.t0),
        terminada_em: iso(s.t0 + TIMEOUT),
        codigo_falha: 'tempo_esgotado',
        status_http: null,
      },
    ]);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'cancelado',
      codigo_falha: 'destino_alterado',
      terminado_em: iso(s.t0),
      proxima_tentativa_em: null,
    });
    expect(s.receiver.requests).toHaveLength(1);
  });

  // spec: WH-EVT-45, WH-EVT-58, WH-EVT-60
  it('a resend of a failed event opens a new cycle on the same schedule: attempts 9..16 from the resend, prazo_em resend + 24 h, tentativas_ciclo 8 of 16 in all', async () => {
    const s = await routed(() => 500);
    const eventId = await raiseEvent(s.w);
    await advance(s.w, '1d');
    expect((await eventDetail(s.w, eventId)).estado).toBe('falhou');

    const resentAt = s.t0 + DAY;
    const resend = await s.w.api.post(`/v1/webhook/eventos/${eventId}/reenvios`, {}, { ifMatch: s.destination.etag });
    expect(resend.status, resend.text).toBe(202);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'pendente',
      tentativas_ciclo: 0,
      tentativas_totais: 8,
      prazo_em: iso(resentAt + DAY),
      proxima_tentativa_em: iso(resentAt),
      terminado_em: null,
      codigo_falha: null,
      status_http: null,
    });
    await advance(s.w, '23h');

    const attempts = await attemptsOf(s.w, eventId);
    expect(attempts.map((a) => a.tentativa)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
    expect(attempts.slice(8).map((a) => ms(a.iniciada_em) - resentAt)).toEqual(OFFSETS);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'falhou',
      codigo_falha: 'status_nao_2xx',
      tentativas_ciclo: 8,
      tentativas_totais: 16,
      terminado_em: iso(resentAt + OFFSETS[7]!),
      prazo_em: iso(resentAt + DAY),
    });
    expect(s.receiver.requests).toHaveLength(16);
  });
});

describe('the built-in inbox', () => {
  it("an unrouted destination's delivery lands in GET /_emulator/inbox with its company, url, signed headers, the exact body and answer 200", async () => {
    const s = await setup();
    const dados = { tipo: 'catalogo.aplicado', catalogoId: randomUUID(), versao: 7 };
    const eventId = await raiseEvent(s.w, dados);
    expect(await inboxFor(s.w, s.host)).toEqual([]);
    await advance(s.w, 0);

    const entries = await inboxFor(s.w, s.host);
    expect(entries).toHaveLength(1);
    const entry = entries[0]!;
    const timestamp = String(unixSeconds(s.t0));
    expect(entry).toEqual({
      at: iso(s.t0),
      companyId: s.w.company.companyId,
      url: s.url,
      headers: entry.headers,
      body: entry.body,
      eventId,
      tipo: 'catalogo.aplicado',
      tentativa: 1,
      answer: { status: 200 },
    });
    expect(entry.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': `catalog-emulator/${PACKAGE_VERSION}`,
      'service-event-id': eventId,
      'service-timestamp': timestamp,
      'service-signature': expectedSignature(s.destination.secret, timestamp, eventId, entry.body),
    });
    expect(JSON.parse(entry.body)).toEqual({
      id: eventId,
      versao: 1,
      empresa: s.w.company.cnpjRoot,
      ocorridoEm: iso(s.t0),
      dados,
    });
    const detailAnswer = await s.w.api.get(`/v1/webhook/eventos/${eventId}`);
    expect(detailAnswer.status).toBe(200);
    expect(detailAnswer.body.evento).toEqual(JSON.parse(entry.body));
    // evento is the envelope as signed and sent: its exact bytes appear in the detail.
    expect(detailAnswer.text).toContain(entry.body);
    expect(detailAnswer.body).toMatchObject({ estado: 'entregue', status_http: 200, tentativas_ciclo: 1 });
  });

  // spec: WH-EVT-52
  it('a test event (POST /v1/webhook/testes) reaches the inbox with dados exactly {tipo: "webhook.teste"}', async () => {
    const s = await setup();
    const accepted = await s.w.api.post('/v1/webhook/testes', {}, { ifMatch: s.destination.etag });
    expect(accepted.status, accepted.text).toBe(202);
    const eventId: string = accepted.body.evento_id;
    expect(eventId).toMatch(UUID);
    await advance(s.w, 0);

    const entries = await inboxFor(s.w, s.host);
    expect(entries.map((e) => e.eventId)).toEqual([eventId]);
    const entry = entries[0]!;
    expect(entry.tipo).toBe('webhook.teste');
    expect(JSON.parse(entry.body)).toEqual({
      id: eventId,
      versao: 1,
      empresa: s.w.company.cnpjRoot,
      ocorridoEm: iso(s.t0),
      dados: { tipo: 'webhook.teste' },
    });
    expect(entry.headers['service-signature']).toBe(
      expectedSignature(s.destination.secret, unixSeconds(s.t0), eventId, entry.body),
    );
  });
});

describe('a receiver that deduplicates by Service-Event-Id', () => {
  /** Applies an event only the first time its id is seen (spec "Signature verification" step 4). */
  async function dedupingReceiver() {
    const seen = new Set<string>();
    const applied: string[] = [];
    const s = await routed((request) => {
      const id = String(request.headers['service-event-id']);
      if (!seen.has(id)) {
        seen.add(id);
        applied.push(id);
      }
      return 200;
    });
    return { s, applied };
  }

  // spec: SIG-11
  it('a duplicated delivery reaches it twice and is applied once', async () => {
    const { s, applied } = await dedupingReceiver();
    await fault(s, urlMatch(s), { duplicate: true });
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);

    expect(s.receiver.requests.map((r) => r.headers['service-event-id'])).toEqual([eventId, eventId]);
    expect(applied).toEqual([eventId]);
    expect((await eventDetail(s.w, eventId)).estado).toBe('entregue');
  });

  // spec: SIG-11
  it('an attempt whose answer was lost (timeout) is retried: the receiver gets it twice and applies it once', async () => {
    const { s, applied } = await dedupingReceiver();
    await fault(s, urlMatch(s), { timeout: true });
    const eventId = await raiseEvent(s.w);
    await advance(s.w, TIMEOUT + 5 * SECOND);

    expect(s.receiver.requests).toHaveLength(2);
    expect(s.receiver.requests.map((r) => r.headers['service-event-id'])).toEqual([eventId, eventId]);
    expect(s.receiver.requests.map((r) => r.headers['service-timestamp'])).toEqual([
      String(unixSeconds(s.t0)),
      String(unixSeconds(s.t0 + TIMEOUT + 5 * SECOND)),
    ]);
    expect(applied).toEqual([eventId]);
    const attempts = await attemptsOf(s.w, eventId);
    expect(attempts.map((a) => [a.estado, a.codigo_falha])).toEqual([
      ['incerta', 'tempo_esgotado'],
      ['entregue', null],
    ]);
  });

  // spec: WH-EVT-50, SIG-11
  it('a resend repeats the event id and body: the receiver gets it again and does not apply it twice', async () => {
    const { s, applied } = await dedupingReceiver();
    const eventId = await raiseEvent(s.w);
    await advance(s.w, 0);
    const resend = await s.w.api.post(`/v1/webhook/eventos/${eventId}/reenvios`, {}, { ifMatch: s.destination.etag });
    expect(resend.status, resend.text).toBe(202);
    await advance(s.w, 0);

    expect(s.receiver.requests).toHaveLength(2);
    expect(requestAt(s.receiver, 1).headers['service-event-id']).toBe(eventId);
    expect(requestAt(s.receiver, 1).raw.equals(requestAt(s.receiver, 0).raw)).toBe(true);
    expect(applied).toEqual([eventId]);
    expect(await eventDetail(s.w, eventId)).toMatchObject({
      estado: 'entregue',
      tentativas_ciclo: 1,
      tentativas_totais: 2,
    });
  });
});
