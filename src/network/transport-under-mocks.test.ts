/**
 * Deliveries go through Node's own HTTP client, captured when the transport loads, so the mocks a test
 * suite installs around the emulator never divert them: a global `fetch` replaced by vi.stubGlobal (here
 * with emu.fetch itself, a common pattern), or msw's setupServer, which patches the global fetch and
 * node:http's request functions. A delivery routed to a real local receiver reaches it and is `entregue`.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { http as mswHttp, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEmulator } from '../index.js';

const HOST = 'https://hooks.acme.example';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real receiver on loopback answering 204, which records the Service-Event-Id of each request it gets. */
async function receiver(): Promise<{ origin: string; got: string[] }> {
  const got: string[] = [];
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      got.push(String(request.headers['service-event-id']));
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got };
}

interface Attempt {
  estado: string;
  codigo_falha: string | null;
  status_http: number | null;
}

/** A company whose destination on HOST is routed to `origin`; one event raised and delivered by advance(0). */
async function deliverOnce(
  create: typeof createEmulator,
  origin: string,
): Promise<{ eventId: string; attempts: Attempt[] }> {
  const emu = create();
  const acme = emu.companies.create();
  const headers = { authorization: `Bearer ${acme.token}`, 'content-type': 'application/json' };
  const put = await emu.fetch('/v1/webhook', {
    method: 'PUT',
    headers: { ...headers, 'idempotency-key': 'configure-webhook-01', 'if-none-match': '*' },
    body: JSON.stringify({ url: `${HOST}/recebe` }),
  });
  expect(put.status).toBe(201);
  emu.network.route(HOST, origin);
  const { eventId } = emu.webhooks.raise(acme.companyId, {
    tipo: 'catalogo.aplicado',
    catalogoId: randomUUID(),
    versao: 1,
  });
  await emu.clock.advance(0);
  const answer = await emu.fetch(`/v1/webhook/eventos/${eventId}/tentativas`, { headers });
  expect(answer.status).toBe(200);
  return { eventId, attempts: ((await answer.json()) as { itens: Attempt[] }).itens };
}

const DELIVERED: Attempt[] = [{ estado: 'entregue', codigo_falha: null, status_http: 204 }];
const summary = (attempts: Attempt[]) =>
  attempts.map(({ estado, codigo_falha, status_http }) => ({ estado, codigo_falha, status_http }));

describe('deliveries are not diverted by a mocked fetch', () => {
  it('vi.stubGlobal("fetch", emu.fetch): the delivery still reaches the routed local receiver and is entregue', async () => {
    const r = await receiver();
    const emu = createEmulator();
    vi.stubGlobal('fetch', emu.fetch);
    cleanups.push(() => {
      vi.unstubAllGlobals();
    });
    // The stub is in place: a plain fetch of the receiver's URL goes to the emulator, which has no such path.
    expect((await fetch(`${r.origin}/recebe`, { method: 'POST' })).status).toBe(404);
    expect(r.got).toEqual([]);

    const { eventId, attempts } = await deliverOnce(createEmulator, r.origin);
    expect(r.got).toEqual([eventId]);
    expect(summary(attempts)).toEqual(DELIVERED);
  });
});

describe('deliveries are not diverted by msw', () => {
  /** msw answering 404 to every request it intercepts, closed after the test. */
  function listeningMsw(): void {
    const server = setupServer(mswHttp.all('*', () => new HttpResponse(null, { status: 404 })));
    server.listen({ onUnhandledRequest: 'error' });
    cleanups.push(() => server.close());
  }

  /** msw is really in the way of the clients it patches: the global fetch and node:http's request. */
  async function expectMswIntercepts(origin: string, got: string[]): Promise<void> {
    expect((await fetch(`${origin}/recebe`, { method: 'POST' })).status).toBe(404);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      http
        .request(`${origin}/recebe`, { method: 'POST' }, (response) => resolve(response.resume().statusCode))
        .on('error', reject)
        .end();
    });
    expect(status).toBe(404);
    expect(got).toEqual([]);
  }

  it('setupServer with a catch-all 404 listening: the delivery still reaches the routed local receiver and is entregue', async () => {
    const r = await receiver();
    listeningMsw();
    await expectMswIntercepts(r.origin, r.got);

    const { eventId, attempts } = await deliverOnce(createEmulator, r.origin);
    expect(r.got).toEqual([eventId]);
    expect(summary(attempts)).toEqual(DELIVERED);
  });

  // Evaluating the emulator's modules afresh takes a while on a loaded machine.
  it('the same when msw was listening before the emulator module was loaded', { timeout: 30_000 }, async () => {
    const r = await receiver();
    listeningMsw();
    await expectMswIntercepts(r.origin, r.got);
    vi.resetModules();
    const fresh = await import('../index.js');
    expect(fresh.createEmulator).not.toBe(createEmulator);

    const { eventId, attempts } = await deliverOnce(fresh.createEmulator, r.origin);
    expect(r.got).toEqual([eventId]);
    expect(summary(attempts)).toEqual(DELIVERED);
  });
});
