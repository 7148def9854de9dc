/**
 * Test events and resends (spec "POST /v1/webhook/testes", "POST /v1/webhook/eventos/{id}/reenvios", "Event
 * delivery", "Events", "Limits"; docs/webhooks.md): the scheduling receipt and its
 * headers, what the receiver gets (exact body, headers, a signature verified here with node:crypto), the
 * requirements and their order, the shared limit of 5 per rolling minute, and the new cycle a resend opens.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { newKey, otherCompany, world, type Answer, type World } from './support/client.js';
import { deployment, needsControls, needsOwnCompany } from './support/deployment.js';
import { expectError, REQUEST_ID } from './support/expect.js';
import { UNKNOWN_ID } from './support/fixtures.js';
import { closedPort } from './support/webhooks.js';
import {
  addFault,
  advance,
  advanceTo,
  attemptsPath,
  changeDestination,
  Cleanup,
  createDestination,
  DAY,
  eventDetail,
  eventoBytes,
  eventPath,
  EVENTS,
  HOUR,
  inboxFor,
  iso,
  LOWER_UUID,
  now,
  raiseEvent,
  resendPath,
  revokeDestination,
  route,
  SECOND,
  signature,
  skipWhenRateLimited,
  startReceiver,
  testEvent,
  TESTS,
  uniqueHost,
  type Destination,
} from './support/webhook-setup.js';

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
const POLICY = '"testes-reenvios";q=5;w=60';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** A world with a destination on a fresh host. */
async function configured(): Promise<{ w: World; host: string; destination: Destination }> {
  const w = await world();
  const host = uniqueHost();
  const destination = await createDestination(w, `https://${host}/catalogo/eventos`);
  return { w, host, destination };
}

/**
 * What is left of the 5 a minute after a request that is the `nth` of the test (1-based) on a company of its own.
 * On a deployment the company is shared, and its earlier requests of the last minute (earlier tests, earlier runs)
 * count too: there the remaining quota is only known to be a number from 0 to 5 − nth.
 */
const remainingAfter = (nth: number): number | undefined => (deployment === undefined ? 5 - nth : undefined);

function expectSchedulingReceipt(
  answer: Answer,
  fields: { evento_id?: string; destino_id: string; destino_versao: number; remaining: number | undefined },
): void {
  skipWhenRateLimited(answer);
  expect(answer.status, answer.text).toBe(202);
  expect(Object.keys(answer.body).sort()).toEqual(['destino_id', 'destino_versao', 'estado', 'evento_id']);
  expect(answer.body).toMatchObject({
    destino_id: fields.destino_id,
    destino_versao: fields.destino_versao,
    estado: 'aceito',
  });
  if (fields.evento_id !== undefined) expect(answer.body.evento_id).toBe(fields.evento_id);
  expect(answer.body.evento_id).toMatch(LOWER_UUID);
  expect(answer.headers.get('location')).toBe(`/v1/webhook/eventos/${answer.body.evento_id}`);
  expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
  expect(answer.headers.get('ratelimit-policy')).toBe(POLICY);
  const remaining = answer.headers.get('ratelimit')?.match(/^"testes-reenvios";r=(\d+);t=\d+$/);
  expect(remaining, `RateLimit ${answer.headers.get('ratelimit')}`).toBeTruthy();
  if (fields.remaining !== undefined) expect(Number(remaining![1])).toBe(fields.remaining);
  else expect(Number(remaining![1])).toBeLessThanOrEqual(4);
}

function expectLimited(answer: Answer, retryAfter: number): void {
  expectError(answer, 429, 'limite_testes_reenvios');
  expect(answer.headers.get('retry-after')).toBe(String(retryAfter));
  expect(answer.headers.get('ratelimit-policy')).toBe(POLICY);
  expect(answer.headers.get('ratelimit')).toBe(`"testes-reenvios";r=0;t=${retryAfter}`);
}

async function listIds(w: World): Promise<string[]> {
  const answer = await w.api.get(`${EVENTS}?limite=100`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.itens.map((item: { id: string }) => item.id);
}

describe('POST /v1/webhook/testes: the receipt', () => {
  // spec: CONV-05, WH-EVT-03, WH-EVT-04, WH-EVT-13, WH-EVT-14, WH-EVT-29, WH-EVT-30, WH-EVT-31, REQ-09, REQ-10
  it('accepts: 202 exactly {evento_id, destino_id, destino_versao, estado aceito}, Location, RateLimit-Policy and RateLimit', async () => {
    const { w, host, destination } = await configured();
    const at = await now(w);
    const answer = await w.api.post(TESTS, {}, { ifMatch: destination.etag });
    expectSchedulingReceipt(answer, { destino_id: destination.id, destino_versao: 1, remaining: 4 });
    const id = answer.body.evento_id;
    const detail = await eventDetail(w, id);
    expect(detail).toMatchObject({
      id,
      tipo: 'webhook.teste',
      ocorrido_em: iso(at),
      destino_id: destination.id,
      destino_versao: 1,
      estado: 'pendente',
      tentativas_ciclo: 0,
      tentativas_totais: 0,
      status_http: null,
      criado_em: iso(at),
      prazo_em: iso(at + DAY),
      terminado_em: null,
      proxima_tentativa_em: iso(at),
      codigo_falha: null,
    });
    // Acceptance only: in manual mode nothing is sent until the clock moves.
    expect(await inboxFor(w, host)).toEqual([]);
  });

  it('accepts an absent body as {}', async () => {
    const { w, destination } = await configured();
    const answer = await w.api.post(TESTS, undefined, { ifMatch: destination.etag });
    expectSchedulingReceipt(answer, {
      destino_id: destination.id,
      destino_versao: destination.versao,
      remaining: remainingAfter(1),
    });
  });

  it('refuses a body with fields with 422 campo_desconhecido and schedules nothing', async () => {
    const { w, destination } = await configured();
    const before = await listIds(w);
    expectError(
      await w.api.post(TESTS, { tipo: 'webhook.teste' }, { ifMatch: destination.etag }),
      422,
      'campo_desconhecido',
      'body.tipo',
    );
    expect(await listIds(w)).toEqual(before);
  });
});

describe('POST /v1/webhook/testes: queue acceptance only', () => {
  // spec: WH-EVT-32
  it('answers 202 whether or not the receiver can be reached: a refused connection, before and after its failed attempt, and a receiver answering 500', async () => {
    const { w, host, destination } = await configured();
    // Deliveries to the destination's host go to a loopback port nobody listens on: the connection is refused.
    await route(w, cleanup, `https://${host}`, `http://127.0.0.1:${await closedPort()}`);
    const first = await w.api.post(TESTS, {}, { ifMatch: destination.etag });
    expectSchedulingReceipt(first, { destino_id: destination.id, destino_versao: 1, remaining: 4 });
    await advance(w, 0);
    const failed = await eventDetail(w, first.body.evento_id);
    expect(failed, JSON.stringify(failed)).toMatchObject({
      estado: 'pendente',
      tentativas_totais: 1,
      status_http: null,
    });
    const attempts = await w.api.get(attemptsPath(first.body.evento_id));
    expect(
      attempts.body.itens.map((a: { estado: string; status_http: number | null }) => [a.estado, a.status_http]),
    ).toEqual([['falhou', null]]);
    // The receiver is known to be unreachable now: still accepted.
    expectSchedulingReceipt(await w.api.post(TESTS, {}, { ifMatch: destination.etag }), {
      destino_id: destination.id,
      destino_versao: 1,
      remaining: 3,
    });
    // A receiver that is reached but fails every request: accepted too.
    const failing = await startReceiver(cleanup, () => 500);
    const otherHost = uniqueHost();
    await route(w, cleanup, `https://${otherHost}`, failing.url);
    const moved = await changeDestination(w, destination.etag, `https://${otherHost}/catalogo/eventos`);
    const third = await w.api.post(TESTS, {}, { ifMatch: moved.etag });
    expectSchedulingReceipt(third, { destino_id: destination.id, destino_versao: 2, remaining: 2 });
    await advance(w, 0);
    expect(failing.received).toHaveLength(1);
    expect(await eventDetail(w, third.body.evento_id)).toMatchObject({
      estado: 'pendente',
      tentativas_totais: 1,
      status_http: 500,
    });
    expectSchedulingReceipt(await w.api.post(TESTS, {}, { ifMatch: moved.etag }), {
      destino_id: destination.id,
      destino_versao: 2,
      remaining: 1,
    });
  });
});

describe('POST /v1/webhook/testes: what the receiver gets', () => {
  // spec: CONV-05, WH-EVT-07, WH-EVT-48, WH-EVT-49, WH-EVT-51, WH-EVT-54, WH-EVT-55, SIG-01, SIG-02, SIG-03, SIG-04, VER-03
  it('after advance(0) the inbox has one POST with exactly the delivery headers, the evento bytes and a signature that verifies', async () => {
    needsControls('the clock and the inbox');
    const { w, host, destination } = await configured();
    const id = await testEvent(w, destination.etag);
    const at = await advance(w, 0);
    const items = await inboxFor(w, host);
    expect(items).toHaveLength(1);
    const item = items[0]!;
    const detail = await w.api.get(eventPath(id));
    const bytes = eventoBytes(detail);
    const timestamp = String(Math.floor(at / 1000));
    expect(item.url).toBe(destination.url);
    expect(item.headers).toEqual({
      'content-type': 'application/json',
      'user-agent': `catalog-emulator/${PACKAGE_VERSION}`,
      'service-event-id': id,
      'service-timestamp': timestamp,
      'service-signature': signature(destination.segredo, timestamp, id, bytes),
    });
    expect(item.body).toBe(bytes);
    expect(item).toMatchObject({
      eventId: id,
      tipo: 'webhook.teste',
      tentativa: 1,
      at: iso(at),
      answer: { status: 200 },
    });
    expect(item.headers['service-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    // The envelope, field by field and in order.
    const envelope = JSON.parse(item.body);
    expect(Object.keys(envelope)).toEqual(['id', 'versao', 'empresa', 'ocorridoEm', 'dados']);
    expect(envelope).toEqual({
      id,
      versao: 1,
      empresa: w.company.cnpjRoot,
      ocorridoEm: detail.body.ocorrido_em,
      dados: { tipo: 'webhook.teste' },
    });
    expect(envelope.id).toMatch(LOWER_UUID);
    expect(envelope.empresa).toMatch(/^\d{8}$/);
    expect(new Date(envelope.ocorridoEm).toISOString()).toBe(envelope.ocorridoEm);
    expect(detail.body.evento).toEqual(envelope);
    // A 200 from the receiver closes the event.
    expect(detail.body).toMatchObject({
      estado: 'entregue',
      tentativas_ciclo: 1,
      tentativas_totais: 1,
      status_http: 200,
      terminado_em: iso(at),
      proxima_tentativa_em: null,
      codigo_falha: null,
    });
  });

  it('a signature computed with another secret or over other bytes does not match', async () => {
    needsControls('the clock and the inbox');
    const { w, host, destination } = await configured();
    const id = await testEvent(w, destination.etag);
    await advance(w, 0);
    const [item] = await inboxFor(w, host);
    const ts = item!.headers['service-timestamp']!;
    expect(item!.headers['service-signature']).toBe(signature(destination.segredo, ts, id, item!.body));
    expect(item!.headers['service-signature']).not.toBe(signature(`${destination.segredo}x`, ts, id, item!.body));
    expect(item!.headers['service-signature']).not.toBe(signature(destination.segredo, ts, id, `${item!.body} `));
    expect(item!.headers['service-signature']).not.toBe(
      signature(destination.segredo.slice('svc_whsec_'.length), ts, id, item!.body),
    );
  });

  it('delivers over real HTTP to a routed loopback receiver: POST to the path, the same bytes and headers, a signature that verifies', async () => {
    const w = await world();
    const host = uniqueHost();
    const receiver = await startReceiver(cleanup);
    await route(w, cleanup, `https://${host}`, receiver.url);
    const destination = await createDestination(w, `https://${host}/hooks/catalogo?conta=7`);
    const id = await testEvent(w, destination.etag);
    const at = await advance(w, 0);
    expect(receiver.received).toHaveLength(1);
    const request = receiver.received[0]!;
    const bytes = eventoBytes(await w.api.get(eventPath(id)));
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hooks/catalogo?conta=7');
    expect(request.body.toString('utf8')).toBe(bytes);
    const timestamp = String(Math.floor(at / 1000));
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toBe(`catalog-emulator/${PACKAGE_VERSION}`);
    expect(request.headers['service-event-id']).toBe(id);
    expect(request.headers['service-timestamp']).toBe(timestamp);
    // Verified over the raw bytes received, before parsing.
    expect(request.headers['service-signature']).toBe(signature(destination.segredo, timestamp, id, request.body));
    expect(await inboxFor(w, host)).toEqual([]);
    expect(await eventDetail(w, id)).toMatchObject({ estado: 'entregue', status_http: 200 });
  });
});

describe('POST /v1/webhook/testes: requirements', () => {
  it('answers 404 destino_nao_encontrado without a destination (before the If-Match checks)', async () => {
    needsOwnCompany('a company without a webhook destination');
    const w = await world();
    expectError(await w.api.post(TESTS, {}), 404, 'destino_nao_encontrado');
    expectError(await w.api.post(TESTS, {}, { ifMatch: '"0123456789abcdef"' }), 404, 'destino_nao_encontrado');
    expect(await listIds(w)).toEqual([]);
  });

  // spec: WH-EVT-26, WH-EVT-27
  it('answers 428 precondicao_ausente without If-Match and 412 precondicao_falhou with a stale ETag', async () => {
    const { w, destination } = await configured();
    const rotated = await changeDestination(w, destination.etag);
    const before = await listIds(w);
    expectError(await w.api.post(TESTS, {}), 428, 'precondicao_ausente', 'header.if-match');
    expectError(
      await w.api.post(TESTS, {}, { ifMatch: destination.etag }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    expect(await listIds(w)).toEqual(before);
    const accepted = await w.api.post(TESTS, {}, { ifMatch: rotated.etag });
    skipWhenRateLimited(accepted);
    expect(accepted.status, accepted.text).toBe(202);
  });

  // spec: WH-EVT-28
  it('answers 409 destino_revogado when the destination is revoked (current ETag), 412 with a stale one', async () => {
    const { w, destination } = await configured();
    const revokedEtag = await revokeDestination(w, destination.etag);
    const before = await listIds(w);
    expectError(await w.api.post(TESTS, {}, { ifMatch: revokedEtag }), 409, 'destino_revogado');
    expectError(
      await w.api.post(TESTS, {}, { ifMatch: destination.etag }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    expect(await listIds(w)).toEqual(before);
  });

  // spec: AUTH-28
  it('answers 403 assinatura_inativa while the subscription is suspended', async () => {
    const { w, destination } = await configured();
    await w.controls.updateCompany(w.company.companyId, { subscriptionActive: false });
    expectError(await w.api.post(TESTS, {}, { ifMatch: destination.etag }), 403, 'assinatura_inativa');
    expect(await listIds(w)).toEqual([]);
  });

  // spec: AUTH-25
  it('answers 403 permissao_insuficiente without webhook:gerenciar', async () => {
    const { w, destination } = await configured();
    const { token } = await w.controls.addCredential(w.company.companyId, ['catalogo:ler']);
    const before = await listIds(w);
    expectError(await w.api.as(token).post(TESTS, {}, { ifMatch: destination.etag }), 403, 'permissao_insuficiente');
    expect(await listIds(w)).toEqual(before);
  });
});

describe('the shared limit: 5 tests and resends per rolling minute per company', () => {
  // spec: ERR-10, LIM-09
  it('counts down in RateLimit and refuses the 6th with 429 limite_testes_reenvios, Retry-After and RateLimit headers', async () => {
    needsOwnCompany("all 5 webhook tests and resends of the minute unused, and an event list that is only the test's");
    const { w, destination } = await configured();
    for (let remaining = 4; remaining >= 0; remaining--) {
      expectSchedulingReceipt(await w.api.post(TESTS, {}, { ifMatch: destination.etag }), {
        destino_id: destination.id,
        destino_versao: 1,
        remaining,
      });
    }
    expectLimited(await w.api.post(TESTS, {}, { ifMatch: destination.etag }), 60);
    expect(await listIds(w)).toHaveLength(5);
  });

  it('frees the slots 60 s later, not before', async () => {
    needsControls('the clock');
    const { w, destination } = await configured();
    for (let i = 0; i < 5; i++) await testEvent(w, destination.etag);
    await advance(w, 59 * SECOND);
    expectLimited(await w.api.post(TESTS, {}, { ifMatch: destination.etag }), 1);
    await advance(w, SECOND);
    expectSchedulingReceipt(await w.api.post(TESTS, {}, { ifMatch: destination.etag }), {
      destino_id: destination.id,
      destino_versao: 1,
      remaining: 4,
    });
  });

  it('is a rolling window: each slot frees 60 s after its own request', async () => {
    needsControls('the clock');
    const { w, destination } = await configured();
    for (let i = 0; i < 5; i++) {
      if (i > 0) await advance(w, 10 * SECOND);
      await testEvent(w, destination.etag);
    }
    // Requests at 0, 10, 20, 30, 40 s; now 40 s.
    expectLimited(await w.api.post(TESTS, {}, { ifMatch: destination.etag }), 20);
    await advance(w, 20 * SECOND);
    expectSchedulingReceipt(await w.api.post(TESTS, {}, { ifMatch: destination.etag }), {
      destino_id: destination.id,
      destino_versao: 1,
      remaining: 0,
    });
    expectLimited(await w.api.post(TESTS, {}, { ifMatch: destination.etag }), 10);
  });

  it('says in RateLimit t when more quota frees: the seconds until the oldest counted request leaves the window', async () => {
    // draft-ietf-httpapi-ratelimit-headers: "t" is the number of seconds until more quota is available
    // (until the quota resets, in earlier drafts): never 0 while a request of the window is counted.
    needsControls('the clock');
    const { w, destination } = await configured();
    const first = await w.api.post(TESTS, {}, { ifMatch: destination.etag });
    expect(first.headers.get('ratelimit')).toBe('"testes-reenvios";r=4;t=60');
    await advance(w, 10 * SECOND);
    const second = await w.api.post(TESTS, {}, { ifMatch: destination.etag });
    expect(second.headers.get('ratelimit')).toBe('"testes-reenvios";r=3;t=50');
  });

  it('does not count idempotent replays or refused requests', async () => {
    needsOwnCompany("all 5 webhook tests and resends of the minute unused, and an event list that is only the test's");
    const { w, destination } = await configured();
    const rotated = await changeDestination(w, destination.etag);
    const key = newKey();
    const first = await w.api.post(TESTS, {}, { ifMatch: rotated.etag, key });
    expectSchedulingReceipt(first, { destino_id: destination.id, destino_versao: 2, remaining: 4 });
    const replay = await w.api.post(TESTS, {}, { ifMatch: rotated.etag, key });
    expect(replay.status).toBe(202);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const { token } = await w.controls.addCredential(w.company.companyId, ['catalogo:ler']);
    expectError(await w.api.post(TESTS, {}), 428, 'precondicao_ausente');
    expectError(await w.api.post(TESTS, {}, { ifMatch: destination.etag }), 412, 'precondicao_falhou');
    expectError(await w.api.post(TESTS, { x: 1 }, { ifMatch: rotated.etag }), 422, 'campo_desconhecido');
    expectError(await w.api.post(resendPath(UNKNOWN_ID), {}, { ifMatch: rotated.etag }), 404, 'evento_nao_encontrado');
    expectError(await w.api.as(token).post(TESTS, {}, { ifMatch: rotated.etag }), 403, 'permissao_insuficiente');
    for (let remaining = 3; remaining >= 0; remaining--) {
      expectSchedulingReceipt(await w.api.post(TESTS, {}, { ifMatch: rotated.etag }), {
        destino_id: destination.id,
        destino_versao: 2,
        remaining,
      });
    }
    expectLimited(await w.api.post(TESTS, {}, { ifMatch: rotated.etag }), 60);
    // A replay still answers from the store once the limit is reached, and a refusal by an earlier check keeps its own status.
    const late = await w.api.post(TESTS, {}, { ifMatch: rotated.etag, key });
    expect(late.status).toBe(202);
    expect(late.body.evento_id).toBe(first.body.evento_id);
    expectError(await w.api.post(TESTS, {}, { ifMatch: destination.etag }), 412, 'precondicao_falhou');
    expect(await listIds(w)).toHaveLength(5);
  });

  // spec: LIM-10
  it('is shared by tests and resends', async () => {
    needsControls('the clock');
    const { w, destination } = await configured();
    const ids = [
      await testEvent(w, destination.etag),
      await testEvent(w, destination.etag),
      await testEvent(w, destination.etag),
    ];
    await advance(w, 0);
    expectSchedulingReceipt(await w.api.post(resendPath(ids[0]!), {}, { ifMatch: destination.etag }), {
      evento_id: ids[0]!,
      destino_id: destination.id,
      destino_versao: 1,
      remaining: 1,
    });
    expectSchedulingReceipt(await w.api.post(resendPath(ids[1]!), {}, { ifMatch: destination.etag }), {
      evento_id: ids[1]!,
      destino_id: destination.id,
      destino_versao: 1,
      remaining: 0,
    });
    expectLimited(await w.api.post(resendPath(ids[2]!), {}, { ifMatch: destination.etag }), 60);
    expectLimited(await w.api.post(TESTS, {}, { ifMatch: destination.etag }), 60);
    expect(await eventDetail(w, ids[2]!)).toMatchObject({ estado: 'entregue', tentativas_totais: 1 });
    // The state checks come before the limit: a pendente event is refused with 409, not 429.
    expectError(await w.api.post(resendPath(ids[0]!), {}, { ifMatch: destination.etag }), 409, 'evento_em_andamento');
  });

  // spec: LIM-11
  it('is counted per company', async () => {
    needsOwnCompany('all 5 webhook tests and resends of the minute unused, and a second company');
    const { w, destination } = await configured();
    for (let i = 0; i < 5; i++) await testEvent(w, destination.etag);
    const other = await otherCompany(w);
    const theirs = await createDestination(other);
    expectSchedulingReceipt(await other.api.post(TESTS, {}, { ifMatch: theirs.etag }), {
      destino_id: theirs.id,
      destino_versao: 1,
      remaining: 4,
    });
    expectLimited(await w.api.post(TESTS, {}, { ifMatch: destination.etag }), 60);
  });
});

describe('POST /v1/webhook/eventos/{id}/reenvios', () => {
  // spec: WH-EVT-21, WH-EVT-24, WH-EVT-39, WH-EVT-40, WH-EVT-41, WH-EVT-43, WH-EVT-44, WH-EVT-45, WH-EVT-50, REQ-09
  it('resends a delivered event: 202 receipt, a new cycle with the same id and body, earlier attempts kept', async () => {
    needsControls('the clock and the inbox');
    const { w, host, destination } = await configured();
    const id = await testEvent(w, destination.etag);
    const t0 = await advance(w, 0);
    const before = await w.api.get(eventPath(id));
    const t1 = await advance(w, 2 * HOUR);
    const answer = await w.api.post(resendPath(id), {}, { ifMatch: destination.etag });
    // The test's slot was freed an hour and more ago.
    expectSchedulingReceipt(answer, { evento_id: id, destino_id: destination.id, destino_versao: 1, remaining: 4 });
    const reopened = await w.api.get(eventPath(id));
    expect(reopened.body).toMatchObject({
      id,
      estado: 'pendente',
      ocorrido_em: iso(t0),
      criado_em: iso(t0),
      tentativas_ciclo: 0,
      tentativas_totais: 1,
      prazo_em: iso(t1 + DAY),
      terminado_em: null,
      proxima_tentativa_em: iso(t1),
      codigo_falha: null,
      status_http: null,
    });
    expect(eventoBytes(reopened)).toBe(eventoBytes(before));
    await advance(w, 0);
    const items = await inboxFor(w, host);
    expect(items.map((i) => [i.eventId, i.tentativa, i.at])).toEqual([
      [id, 1, iso(t0)],
      [id, 2, iso(t1)],
    ]);
    expect(items[1]!.body).toBe(items[0]!.body);
    expect(items[1]!.headers['service-event-id']).toBe(id);
    expect(items[1]!.headers['service-signature']).toBe(
      signature(destination.segredo, String(Math.floor(t1 / 1000)), id, items[1]!.body),
    );
    expect(await eventDetail(w, id)).toMatchObject({
      estado: 'entregue',
      tentativas_ciclo: 1,
      tentativas_totais: 2,
      status_http: 200,
      terminado_em: iso(t1),
    });
    const attempts = await w.api.get(attemptsPath(id));
    expect(attempts.body).toEqual({
      itens: [
        {
          tentativa: 1,
          destino_versao: 1,
          estado: 'entregue',
          iniciada_em: iso(t0),
          terminada_em: iso(t0),
          codigo_falha: null,
          status_http: 200,
        },
        {
          tentativa: 2,
          destino_versao: 1,
          estado: 'entregue',
          iniciada_em: iso(t1),
          terminada_em: iso(t1),
          codigo_falha: null,
          status_http: 200,
        },
      ],
      proxima_tentativa: null,
    });
  });

  // spec: WH-EVT-42
  it('creates no new event: the event list holds the same ids, in the same order, after each resend', async () => {
    const { w, destination } = await configured();
    const a = await testEvent(w, destination.etag);
    const b = await testEvent(w, destination.etag);
    await advance(w, 0);
    const before = await listIds(w);
    expect(before).toEqual([b, a]);
    const resent = await w.api.post(resendPath(a), {}, { ifMatch: destination.etag });
    expect(resent.status, resent.text).toBe(202);
    expect(resent.body.evento_id).toBe(a);
    expect(await listIds(w)).toEqual(before);
    await advance(w, 0);
    expect((await eventDetail(w, a)).tentativas_totais).toBe(2);
    expect(await listIds(w)).toEqual(before);
    expect((await w.api.post(resendPath(b), {}, { ifMatch: destination.etag })).status).toBe(202);
    expect(await listIds(w)).toEqual(before);
  });

  // spec: WH-EVT-46, SIG-06
  it('after a rotation binds the new cycle to the current destination version: its url, signed with its secret', async () => {
    needsControls('the clock and the inbox');
    const w = await world();
    const oldHost = uniqueHost();
    const newHost = uniqueHost();
    const first = await createDestination(w, `https://${oldHost}/a`);
    const id = await testEvent(w, first.etag);
    await advance(w, 0);
    const rotated = await changeDestination(w, first.etag, `https://${newHost}/b`);
    expectError(
      await w.api.post(resendPath(id), {}, { ifMatch: first.etag }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    const t1 = await advance(w, HOUR);
    expectSchedulingReceipt(await w.api.post(resendPath(id), {}, { ifMatch: rotated.etag }), {
      evento_id: id,
      destino_id: first.id,
      destino_versao: 2,
      remaining: 4,
    });
    expect(await eventDetail(w, id)).toMatchObject({ destino_id: first.id, destino_versao: 2, estado: 'pendente' });
    await advance(w, 0);
    const [old] = await inboxFor(w, oldHost);
    const fresh = await inboxFor(w, newHost);
    expect((await inboxFor(w, oldHost)).length).toBe(1);
    expect(fresh).toHaveLength(1);
    expect(fresh[0]!.url).toBe(rotated.url);
    expect(fresh[0]!.body).toBe(old!.body);
    const ts = String(Math.floor(t1 / 1000));
    expect(fresh[0]!.headers['service-signature']).toBe(signature(rotated.segredo, ts, id, fresh[0]!.body));
    expect(fresh[0]!.headers['service-signature']).not.toBe(signature(first.segredo, ts, id, fresh[0]!.body));
    const attempts = await w.api.get(attemptsPath(id));
    expect(
      attempts.body.itens.map((a: { tentativa: number; destino_versao: number }) => [a.tentativa, a.destino_versao]),
    ).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });

  it('resends an event cancelled by a rotation (destino_alterado) to the new destination', async () => {
    needsControls('the clock and the inbox');
    const w = await world();
    const host = uniqueHost();
    const first = await createDestination(w, `https://${host}/a`);
    const id = await testEvent(w, first.etag);
    const rotated = await changeDestination(w, first.etag, `https://${host}/b`);
    expect(await eventDetail(w, id)).toMatchObject({
      estado: 'cancelado',
      codigo_falha: 'destino_alterado',
      tentativas_totais: 0,
    });
    expectSchedulingReceipt(await w.api.post(resendPath(id), {}, { ifMatch: rotated.etag }), {
      evento_id: id,
      destino_id: first.id,
      destino_versao: 2,
      remaining: 3,
    });
    await advance(w, 0);
    const items = await inboxFor(w, host);
    expect(items.map((i) => [i.url, i.tentativa])).toEqual([[rotated.url, 1]]);
    expect(await eventDetail(w, id)).toMatchObject({
      estado: 'entregue',
      tentativas_ciclo: 1,
      tentativas_totais: 1,
      destino_versao: 2,
    });
  });

  // spec: WH-EVT-37
  it('refuses a pendente event (not yet attempted) with 409 evento_em_andamento', async () => {
    needsControls('the clock held still: on a real clock the first attempt starts at once');
    const { w, destination } = await configured();
    const id = await testEvent(w, destination.etag);
    expectError(await w.api.post(resendPath(id), {}, { ifMatch: destination.etag }), 409, 'evento_em_andamento');
    expect(await eventDetail(w, id)).toMatchObject({ estado: 'pendente', tentativas_totais: 0 });
  });

  // spec: WH-EVT-37
  it('refuses an event whose attempt is still open (executando, then pendente between attempts) with 409 evento_em_andamento', async () => {
    const { w, host, destination } = await configured();
    await addFault(w, cleanup, {
      target: 'delivery',
      match: { url: `https://${host}/**` },
      effect: { timeout: true },
      times: 1,
    });
    const id = await testEvent(w, destination.etag);
    const t0 = await advance(w, 0);
    expect(await eventDetail(w, id)).toMatchObject({ estado: 'executando', tentativas_ciclo: 1 });
    expectError(await w.api.post(resendPath(id), {}, { ifMatch: destination.etag }), 409, 'evento_em_andamento');
    await advance(w, 15 * SECOND);
    expect(await eventDetail(w, id)).toMatchObject({
      estado: 'pendente',
      codigo_falha: 'tempo_esgotado',
      proxima_tentativa_em: iso(t0 + 20 * SECOND),
    });
    expectError(await w.api.post(resendPath(id), {}, { ifMatch: destination.etag }), 409, 'evento_em_andamento');
    expect(await eventDetail(w, id)).toMatchObject({ estado: 'pendente', tentativas_totais: 1 });
  });

  // spec: WH-EVT-38
  it('resends a falhou event younger than 30 days and refuses one created 30 days ago with 409 evento_antigo', async () => {
    const { w, host, destination } = await configured();
    await addFault(w, cleanup, {
      target: 'delivery',
      match: { url: `https://${host}/**` },
      effect: { status: 500 },
      times: null,
    });
    const young = await testEvent(w, destination.etag);
    const old = await testEvent(w, destination.etag);
    const t0 = await now(w);
    await advance(w, 23 * HOUR);
    const end = t0 + 5 * SECOND + 5 * 60 * SECOND + 30 * 60 * SECOND + 2 * HOUR + 5 * HOUR + 7 * HOUR + 8 * HOUR;
    for (const id of [young, old]) {
      expect(await eventDetail(w, id)).toMatchObject({
        estado: 'falhou',
        tentativas_ciclo: 8,
        codigo_falha: 'status_nao_2xx',
        status_http: 500,
        terminado_em: iso(end),
      });
    }
    // Resend age counts from criado_em (retention, from terminado_em, has not removed them yet).
    await advanceTo(w, t0 + 30 * DAY - SECOND);
    expectSchedulingReceipt(await w.api.post(resendPath(young), {}, { ifMatch: destination.etag }), {
      evento_id: young,
      destino_id: destination.id,
      destino_versao: 1,
      remaining: 4,
    });
    await advanceTo(w, t0 + 30 * DAY);
    expect(await eventDetail(w, old)).toMatchObject({ estado: 'falhou' });
    expectError(await w.api.post(resendPath(old), {}, { ifMatch: destination.etag }), 409, 'evento_antigo');
    expect(await eventDetail(w, old)).toMatchObject({ estado: 'falhou', tentativas_totais: 8 });
  });

  // spec: CONV-09, WH-EVT-01 — an event raised while the destination is revoked names that destination (id and
  // version); it is closed at once and resent after reactivation, to the new version.
  it('resends an event raised while the destination was revoked (cancelado destino_inativo, that destination and version) once it is reactivated', async () => {
    const { w, host, destination } = await configured();
    const revokedEtag = await revokeDestination(w, destination.etag);
    const dados = { tipo: 'catalogo.aplicado', catalogoId: '0190a000-0000-7000-8000-0000000000c1', versao: 3 };
    const id = await raiseEvent(w, dados);
    const t0 = await now(w);
    const detail = await w.api.get(eventPath(id));
    expect(detail.body).toMatchObject({
      id,
      tipo: 'catalogo.aplicado',
      estado: 'cancelado',
      codigo_falha: 'destino_inativo',
      destino_id: destination.id,
      destino_versao: 2,
      tentativas_totais: 0,
      terminado_em: iso(t0),
    });
    expect(detail.body.evento).toEqual({ id, versao: 1, empresa: w.company.cnpjRoot, ocorridoEm: iso(t0), dados });
    expectError(await w.api.post(resendPath(id), {}, { ifMatch: revokedEtag }), 409, 'destino_revogado');
    const reactivated = await changeDestination(w, revokedEtag, `https://${host}/x`);
    expectSchedulingReceipt(await w.api.post(resendPath(id), {}, { ifMatch: reactivated.etag }), {
      evento_id: id,
      destino_id: destination.id,
      destino_versao: 3,
      remaining: 4,
    });
    const t1 = await advance(w, 0);
    const items = await inboxFor(w, host);
    expect(items).toHaveLength(1);
    expect(items[0]!.body).toBe(eventoBytes(detail));
    expect(items[0]!.headers['service-signature']).toBe(
      signature(reactivated.segredo, String(Math.floor(t1 / 1000)), id, items[0]!.body),
    );
    expect(await eventDetail(w, id)).toMatchObject({
      estado: 'entregue',
      destino_id: destination.id,
      destino_versao: 3,
      tentativas_totais: 1,
    });
  });

  it("answers 404 evento_nao_encontrado for an unknown event or another company's, before the destination checks", async () => {
    const { w, destination } = await configured();
    expectError(
      await w.api.post(resendPath(UNKNOWN_ID), {}, { ifMatch: destination.etag }),
      404,
      'evento_nao_encontrado',
    );
    const other = await otherCompany(w);
    expectError(await other.api.post(resendPath(UNKNOWN_ID), {}), 404, 'evento_nao_encontrado');
    const theirs = await createDestination(other);
    const theirEvent = await testEvent(other, theirs.etag);
    await advance(w, 0);
    expectError(
      await w.api.post(resendPath(theirEvent), {}, { ifMatch: destination.etag }),
      404,
      'evento_nao_encontrado',
    );
  });

  // spec: WH-EVT-34, WH-EVT-35, WH-EVT-36, AUTH-26, AUTH-29
  it('needs If-Match (428, 412), an active destination (409 destino_revogado), the subscription (403) and the permission (403)', async () => {
    needsControls('the clock, and the company flags');
    const { w, destination } = await configured();
    const id = await testEvent(w, destination.etag);
    await advance(w, 0);
    expectError(await w.api.post(resendPath(id), {}), 428, 'precondicao_ausente', 'header.if-match');
    expectError(
      await w.api.post(resendPath(id), {}, { ifMatch: '"0123456789abcdef"' }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    const { token } = await w.controls.addCredential(w.company.companyId, ['catalogo:ler']);
    expectError(
      await w.api.as(token).post(resendPath(id), {}, { ifMatch: destination.etag }),
      403,
      'permissao_insuficiente',
    );
    await w.controls.updateCompany(w.company.companyId, { subscriptionActive: false });
    expectError(await w.api.post(resendPath(id), {}, { ifMatch: destination.etag }), 403, 'assinatura_inativa');
    const revokedEtag = await revokeDestination(w, destination.etag);
    await w.controls.updateCompany(w.company.companyId, { subscriptionActive: true });
    expectError(await w.api.post(resendPath(id), {}, { ifMatch: revokedEtag }), 409, 'destino_revogado');
    expect(await eventDetail(w, id)).toMatchObject({ estado: 'entregue', tentativas_totais: 1 });
  });

  // spec: REQ-02, REQ-03
  it('answers a replay with its key from the store: the same receipt, no second cycle', async () => {
    needsControls('the clock and the inbox');
    const { w, host, destination } = await configured();
    const id = await testEvent(w, destination.etag);
    await advance(w, 0);
    const key = newKey();
    const first = await w.api.post(resendPath(id), {}, { ifMatch: destination.etag, key });
    expectSchedulingReceipt(first, { evento_id: id, destino_id: destination.id, destino_versao: 1, remaining: 3 });
    await advance(w, 0);
    const replay = await w.api.post(resendPath(id), {}, { ifMatch: destination.etag, key });
    expect(replay.status).toBe(202);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('location')).toBe(first.headers.get('location'));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await advance(w, 0);
    expect((await inboxFor(w, host)).map((i) => i.tentativa)).toEqual([1, 2]);
    expect(await eventDetail(w, id)).toMatchObject({ estado: 'entregue', tentativas_totais: 2 });
  });
});
