/**
 * The receiver check over HTTP, against a company's own webhook destination (POST
 * /_emulator/companies/{companyId}/receiver-checks): the destination's URL is routed to a receiver on 127.0.0.1, the
 * cases are signed with its secret, old-secret with the secret before its last configuration change, and stamped by
 * the company's clock. The check passes the correct receiver and fails each faulty one on exactly its cases; the
 * receiver obligations it checks (spec: SIG-07, SIG-08, SIG-11) are tagged on the tests that show it catching their
 * breach.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RECEIVER_CASES } from '../../src/index.js';
import { world, type World } from '../support/client.js';
import { deployment } from '../support/deployment.js';
import { expectControlError } from '../support/expect.js';
import { FAILING, receiver, serveHandler, type ReceiverKind } from '../support/receivers.js';
import {
  addRoute,
  changeDestination,
  clockNow,
  createDestination,
  hookHost,
  removeRoute,
} from '../support/webhooks.js';

beforeEach((context) => {
  if (deployment !== undefined)
    context.skip("checks the emulator's own /_emulator controls, which a deployment of the service does not have");
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Checked {
  readonly w: World;
  readonly body: any;
  readonly failing: string[];
  readonly destinationUrl: string;
  readonly receiverUrl: string;
  readonly applied: string[];
}

/**
 * A company whose destination was configured twice (so it has a previous secret), routed to a `kind` receiver on
 * 127.0.0.1 that verifies with the current secret (and, the one that wrongly does, the previous) against the
 * company's clock; then its receiver check.
 */
async function checked(kind: ReceiverKind): Promise<Checked> {
  const w = await world();
  const host = hookHost();
  const destinationUrl = `${host}/catalogo/eventos`;
  const first = await createDestination(w, destinationUrl);
  const current = await changeDestination(w, destinationUrl, first.etag);
  const now = await clockNow(w);
  const handler = receiver(kind, { secret: current.secret, previousSecret: first.secret, now: () => now });
  const served = await serveHandler(handler, '/');
  cleanups.push(() => served.close());
  await addRoute(w, host, `${served.url}hooks`);
  cleanups.push(() => removeRoute(w, host));
  const answer = await w.controls.raw('POST', `/companies/${w.company.companyId}/receiver-checks`, {});
  expect(answer.status, answer.text).toBe(200);
  const failing = (answer.body.cases as { id: string; verdict: string }[])
    .filter((c) => c.verdict === 'fail')
    .map((c) => c.id);
  return {
    w,
    body: answer.body,
    failing,
    destinationUrl,
    receiverUrl: `${served.url}hooks/catalogo/eventos`,
    applied: handler.applied,
  };
}

describe("POST /_emulator/companies/{companyId}/receiver-checks: the company's own receiver", () => {
  // spec: SIG-07, SIG-08, SIG-11
  it("passes a correct receiver on every case, through the destination's route, old-secret signed with the destination's previous secret", async () => {
    const { w, body, failing, destinationUrl, receiverUrl, applied } = await checked('correct');
    expect(failing).toEqual([]);
    // Each delivery given the emulator's attempt time-out, 15 s.
    const totals = { passed: RECEIVER_CASES.length, failed: 0, reachable: true, judged: true, timeoutMs: 15_000 };
    const receiver = { url: destinationUrl, via: receiverUrl };
    expect(body).toMatchObject({ receiver, oldSecret: 'previous', ...totals });
    // Stamped by the company's clock: what its deliveries are signed with.
    expect(body.clock).toBe(new Date(await clockNow(w)).toISOString());
    expect(body.cases[0].sent.headers['service-timestamp']).toBe(String(Math.floor(Date.parse(body.clock) / 1000)));
    // The envelope names the company; valid and duplicate carried one event, applied once.
    expect(
      body.cases.every((c: { status: number; failure: null }) => [204, 400].includes(c.status) && c.failure === null),
    ).toBe(true);
    const eventOf = (id: string) =>
      body.cases.find((c: { id: string }) => c.id === id).sent.headers['service-event-id'];
    expect(eventOf('duplicate')).toBe(eventOf('valid'));
    // The cases run side by side: applied in the order they arrived.
    expect([...applied].sort()).toEqual(['valid', 'within-tolerance', 'exact-bytes', 'late-retry'].map(eventOf).sort());
    // Kept as the company's last check.
    const last = await w.controls.raw('GET', `/companies/${w.company.companyId}/receiver-checks/last`);
    expect(last.status).toBe(200);
    expect(last.body).toEqual(body);
  });

  // spec: SIG-07
  it('fails a receiver that verifies the HMAC over a re-serialized parse on exactly exact-bytes', async () => {
    const { failing } = await checked('parses-before-verifying');
    expect(failing).toEqual(FAILING['parses-before-verifying']);
    expect(failing).toEqual(['exact-bytes']);
  });

  // spec: SIG-08
  it('fails a receiver that checks no timestamp on exactly stale-timestamp and future-timestamp', async () => {
    const { failing } = await checked('no-timestamp-check');
    expect(failing).toEqual(FAILING['no-timestamp-check']);
    expect(failing).toEqual(['stale-timestamp', 'future-timestamp']);
  });

  // spec: SIG-08
  it('fails a receiver with 330 s of tolerance, and one judging freshness by ocorridoEm, on its cases', async () => {
    expect((await checked('tolerance-330s')).failing).toEqual(['stale-timestamp', 'future-timestamp']);
    expect((await checked('judges-body-time')).failing).toEqual(['late-retry']);
  });

  it('fails receivers that accept part of a signature on truncated-signature (and signature-one-digit)', async () => {
    const prefix = await checked('accepts-signature-prefix');
    expect(prefix.failing).toEqual(['truncated-signature']);
    // What it accepted: the empty signature, which anyone can send.
    const truncated = prefix.body.cases.find((c: { id: string }) => c.id === 'truncated-signature');
    expect(truncated).toMatchObject({ status: 204, failure: null, accepted: true, verdict: 'fail' });
    expect(truncated.sent.headers['service-signature']).toBe('v1=');
    expect((await checked('compares-16-digits')).failing).toEqual(['truncated-signature', 'signature-one-digit']);
  });

  it('judges answers within the attempt time-out: accepting forgeries late fails every reject case', async () => {
    const { body, failing } = await checked('slow-on-forgeries');
    expect(failing).toEqual(RECEIVER_CASES.filter((c) => c.expect === 'reject').map((c) => c.id));
    const cases = body.cases as { verdict: string; status: number; accepted: boolean }[];
    const failed = cases.filter((c) => c.verdict === 'fail');
    expect(failed.every((c) => c.status === 200 && c.accepted)).toBe(true);
  });

  // spec: SIG-11
  it('fails a receiver that refuses another attempt of an event it processed on exactly duplicate', async () => {
    const { body, failing } = await checked('refuses-duplicates');
    expect(failing).toEqual(FAILING['refuses-duplicates']);
    expect(body.cases.find((c: { id: string }) => c.id === 'duplicate')).toMatchObject({
      status: 409,
      failure: null,
      accepted: false,
      verdict: 'fail',
      answer: 'already processed',
    });
  });

  it("fails a receiver that still accepts the destination's previous secret on exactly old-secret", async () => {
    const { failing } = await checked('accepts-old-secret');
    expect(failing).toEqual(FAILING['accepts-old-secret']);
  });

  it('fails a receiver that checks no signature, and one that redirects, on exactly their cases', async () => {
    expect((await checked('no-signature-check')).failing).toEqual(FAILING['no-signature-check']);
    const redirects = await checked('redirects');
    expect(redirects.failing).toEqual(RECEIVER_CASES.filter((c) => c.expect === 'accept').map((c) => c.id));
    expect(redirects.body.cases[0]).toMatchObject({ status: 302, failure: null, accepted: false });
  });

  it('refuses a company without a destination (404), a destination no route covers (409), and a body that is not one (422), sending nothing', async () => {
    const w = await world();
    const path = `/companies/${w.company.companyId}/receiver-checks`;
    expectControlError(await w.controls.raw('POST', path, {}), 404, 'destino_nao_encontrado');
    await createDestination(w, `${hookHost()}/eventos`);
    expectControlError(await w.controls.raw('POST', path, {}), 409, 'destino_sem_rota');
    // Each delivery is given the emulator's attempt time-out: no option shortens it, and no deadline cuts it short.
    const timeout = await w.controls.raw('POST', path, { timeoutMs: 60_000 });
    expectControlError(timeout, 422, 'valor_invalido', 'body.timeoutMs');
    const short = await w.controls.raw('POST', path, { deadlineMs: 29_999 });
    expectControlError(short, 422, 'valor_invalido');
    expect(short.body.erro.mensagem).toBe(
      'deadlineMs must be a whole number of milliseconds from 30000 to 600000 (got 29999): at least twice the ' +
        'attempt time-out of 15000 ms, the time the check needs to judge every case',
    );
    expectControlError(await w.controls.raw('POST', path, { now: 'yesterday' }), 422, 'valor_invalido', 'body.now');
    expectControlError(await w.controls.raw('POST', path, { secret: 'x' }), 422, 'valor_invalido', 'body.secret');
    expectControlError(await w.controls.raw('GET', `${path}/last`), 404, 'verificacao_inexistente');
    expectControlError(
      await w.controls.raw('POST', '/companies/00000000-0000-4000-8000-000000000000/receiver-checks', {}),
      404,
      'empresa_nao_encontrada',
    );
  });
});

describe('POST /_emulator/webhooks/receiver-checks: any receiver by its URL', () => {
  it('checks the receiver at the URL with the secrets given, stamped by the wall clock unless now is given', async () => {
    const w = await world();
    const secret = 'svc_whsec_the-receivers-own-secret';
    const handler = receiver('accepts-old-secret', { secret, previousSecret: 'svc_whsec_the-one-before' });
    const served = await serveHandler(handler);
    cleanups.push(() => served.close());
    const before = Date.now();
    const answer = await w.controls.raw('POST', '/webhooks/receiver-checks', {
      url: served.url,
      secret,
      previousSecret: 'svc_whsec_the-one-before',
      cnpjRoot: '11222333',
    });
    expect(answer.status, answer.text).toBe(200);
    const totals = { passed: RECEIVER_CASES.length - 1, failed: 1, reachable: true };
    expect(answer.body).toMatchObject({ receiver: { url: served.url, via: null }, oldSecret: 'given', ...totals });
    expect(Date.parse(answer.body.clock)).toBeGreaterThanOrEqual(before - 1000);
    expect(
      answer.body.cases.filter((c: { verdict: string }) => c.verdict === 'fail').map((c: { id: string }) => c.id),
    ).toEqual(['old-secret']);

    // A receiver that answers nothing: every case a network failure, reachable false.
    const gone = `${served.url.replace(/\/webhooks$/, '')}/x`;
    await served.close();
    const unreachable = await w.controls.raw('POST', '/webhooks/receiver-checks', {
      url: gone,
      secret,
      now: '2026-01-01T00:00:00Z',
    });
    expect(unreachable.status).toBe(200);
    expect(unreachable.body).toMatchObject({ clock: '2026-01-01T00:00:00.000Z', reachable: false, oldSecret: 'fresh' });
    expect(
      unreachable.body.cases.every(
        (c: { status: null; failure: string; cause: string }) =>
          c.status === null && c.failure === 'refused' && c.cause === 'ECONNREFUSED',
      ),
    ).toBe(true);
    expectControlError(
      await w.controls.raw('POST', '/webhooks/receiver-checks', { url: 'ftp://x.example/', secret }),
      422,
      'valor_invalido',
    );
    expectControlError(
      await w.controls.raw('POST', '/webhooks/receiver-checks', { url: served.url }),
      422,
      'valor_invalido',
      'body.secret',
    );
  });
});
