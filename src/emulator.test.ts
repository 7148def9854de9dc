/**
 * What the emulator promises across its own lifecycle, in process: close releases held requests (in process
 * and over its own listener), and the `routes` option is configuration every reset restores.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEmulator, type Emulator } from './index.js';

const emulators: Emulator[] = [];
afterEach(async () => {
  await Promise.all(emulators.splice(0).map((emu) => emu.close()));
});

function emulator(...args: Parameters<typeof createEmulator>): Emulator {
  const emu = createEmulator(...args);
  emulators.push(emu);
  return emu;
}

/** Waits (a turn of the event loop at a time) until the emulator holds `count` pieces of work. */
async function untilPending(emu: Emulator, count: number): Promise<void> {
  for (let spins = 0; emu.clock.pending() < count; spins++) {
    if (spins > 1000) throw new Error(`pending never reached ${count}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('emu.close()', () => {
  /** A POST /v1/catalogos held by a delayMs fault: the fault's id, the request's init and the company. */
  function heldCatalogCreation(emu: Emulator) {
    const company = emu.companies.create();
    const { id: faultId } = emu.faults.add({ target: 'api', match: { method: 'POST', path: '/v1/catalogos' }, effect: { delayMs: 60_000 } });
    const init: RequestInit = {
      method: 'POST',
      headers: { authorization: `Bearer ${company.token}`, 'content-type': 'application/json', 'idempotency-key': 'close-held-0000001' },
      body: JSON.stringify({ estabelecimento_id: company.headOffice.id, nome: 'Loja' }),
    };
    return { company, faultId, init };
  }

  const closedMessage = (faultId: string) =>
    `Injected fault ${faultId}: the emulator was closed while this request was held by its delayMs; nothing was applied. Send the request again.`;

  it('answers a request held by a delayMs fault 503 servico_indisponivel, and nothing is applied', async () => {
    const emu = emulator();
    const { company, faultId, init } = heldCatalogCreation(emu);
    const held = emu.fetch('/v1/catalogos', init);
    await untilPending(emu, 1);

    await emu.close();
    const answer = await held;
    expect(answer.status).toBe(503);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const requestId = answer.headers.get('x-request-id');
    expect(await answer.json()).toEqual({ erro: { codigo: 'servico_indisponivel', mensagem: closedMessage(faultId), request_id: requestId } });
    expect(emu.clock.pending()).toBe(0);
    const catalogs = await emu.fetch('/v1/catalogos', { headers: { authorization: `Bearer ${company.token}` } });
    expect(((await catalogs.json()) as { itens: unknown[] }).itens).toEqual([]);
  });

  it('over its own HTTP server, the held request gets its 503 before the server closes', async () => {
    const emu = emulator();
    const server = await emu.listen({ port: 0 });
    const { faultId, init } = heldCatalogCreation(emu);
    const held = fetch(`${server.url}/v1/catalogos`, init);
    await untilPending(emu, 1);

    const closing = Date.now();
    await emu.close();
    const answer = await held;
    expect(answer.status).toBe(503);
    expect(((await answer.json()) as { erro: { codigo: string; mensagem: string } }).erro).toMatchObject({ codigo: 'servico_indisponivel', mensagem: closedMessage(faultId) });
    // The idle keep-alive connection is closed at once, not after the grace given to answers in progress.
    expect(Date.now() - closing).toBeLessThan(400);
    await expect(fetch(`${server.url}/v1/empresa`)).rejects.toThrow();
  });
});

describe('createEmulator({ routes })', () => {
  const FROM = 'https://hooks.configured.example';

  /** A company with a destination under `host`, and an event raised for it; resolves once the clock delivered it. */
  async function deliverOne(emu: Emulator, host: string): Promise<string> {
    const company = emu.companies.create();
    const destination = await emu.fetch('/v1/webhook', {
      method: 'PUT',
      headers: { authorization: `Bearer ${company.token}`, 'content-type': 'application/json', 'idempotency-key': `destination-${company.companyId}`, 'if-none-match': '*' },
      body: JSON.stringify({ url: `${host}/recebe` }),
    });
    expect(destination.status).toBe(201);
    const { eventId } = emu.webhooks.raise(company.companyId, { tipo: 'webhook.teste' });
    await emu.clock.runUntilIdle();
    return eventId;
  }

  it('routes deliveries from the start, and every reset puts the configured routes back and drops the others', async () => {
    const received: string[] = [];
    const handler = (request: Request) => {
      received.push(request.headers.get('service-event-id') ?? '');
      return new Response(null, { status: 204 });
    };
    const emu = emulator({ routes: [{ from: FROM, to: handler }] });
    expect(emu.network.routes()).toEqual([{ from: FROM, to: handler }]);
    const first = await deliverOne(emu, FROM);
    expect(received).toEqual([first]);

    emu.network.route('https://hooks.later.example', 'http://127.0.0.1:9');
    emu.network.unroute(FROM);
    emu.reset();
    expect(emu.network.routes()).toEqual([{ from: FROM, to: handler }]);
    const second = await deliverOne(emu, FROM);
    expect(received).toEqual([first, second]);
    expect(emu.inbox.list()).toEqual([]);
  });

  it('checks each route as emu.network.route does and throws at creation, naming the bad one', () => {
    expect(() => createEmulator({ routes: [{ from: FROM, to: 'http://127.0.0.1:9000' }, { from: 'http://hooks.example.com', to: 'http://127.0.0.1:9000' }] })).toThrow(
      new TypeError('routes[1]: route "from" must be an https:// URL prefix, as a webhook destination is (got http://hooks.example.com)'),
    );
    expect(() => createEmulator({ routes: [{ from: FROM, to: 'ftp://x' }] })).toThrow(/^routes\[0\]: route "to" must be an http:\/\/ or https:\/\/ URL, or a handler function \(got ftp:\/\/x\)$/);
    expect(() => createEmulator({ routes: [{ from: 'hooks', to: 'http://127.0.0.1:9000' }] })).toThrow('routes[0]: route "from" is not an absolute URL: hooks');
  });
});

describe('options.companies', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('are created at exactly the start instant in real mode, so every reset recreates the same ids and tokens', () => {
    // A wall clock that moves 1 ms each time it is read: time passes while the emulator is built.
    const start = Date.UTC(2026, 10, 22, 10);
    let wall = start;
    vi.spyOn(Date, 'now').mockImplementation(() => wall++);
    const emu = emulator({ clock: 'real', start, companies: [{}, { cnpjRoot: '11222333' }] });
    const initial = emu.companies.initial();
    expect(emu.companies.list().map((c) => c.createdAt)).toEqual([start, start]);
    // A UUIDv7 begins with its 48-bit millisecond time.
    expect(initial.map((c) => parseInt(c.companyId.replace(/-/g, '').slice(0, 12), 16))).toEqual([start, start]);

    wall += 50;
    emu.reset();
    expect(emu.companies.initial()).toEqual(initial);
    expect(emu.companies.list().map((c) => [c.id, c.createdAt])).toEqual(initial.map((c) => [c.companyId, start]));
  });
});
