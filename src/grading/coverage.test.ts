/**
 * The coverage of a scripted suite, in process: exactly what it exercised (operations and their statuses and codes,
 * faults, behaviours) and nothing it did not; the gaps with the controls that fill them; one company's part alone;
 * and a suite that exercises every behaviour of the table, seen row by row.
 */
import { describe, expect, it } from 'vitest';
import { cnpjCheckDigits } from '../core/cnpj.js';
import { createEmulator, type Emulator } from '../emulator.js';
import { verifyWebhook } from '../network/signature.js';
import { BEHAVIOURS } from './coverage.js';

const HOOKS = 'https://hooks.acme.example';
const PRODUCT = { origem: 'erp', ncm: '21069090' };

function world() {
  const emu = createEmulator({
    fixtures: {
      version: 1,
      companies: [
        {
          cnpjRoot: '11222333',
          catalogs: [{ nome: 'Loja', products: [PRODUCT] }],
          webhook: { url: `${HOOKS}/catalog` },
        },
        { cnpjRoot: '44555666' },
      ],
    },
  });
  const [company, other] = emu.companies.fixtures();
  let n = 0;
  const key = () => `coverage-key-${String(++n).padStart(6, '0')}`;
  const as =
    (token: string) =>
    async (method: string, path: string, init: { key?: string; body?: unknown; ifMatch?: string } = {}) => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      if (method !== 'GET') headers['idempotency-key'] = init.key ?? key();
      if (init.ifMatch !== undefined) headers['if-match'] = init.ifMatch;
      const response = await emu.fetch(path, {
        method,
        headers,
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
      return {
        status: response.status,
        etag: response.headers.get('etag') ?? '',
        body: (await response.json()) as Record<string, unknown>,
      };
    };
  const catalog = company!.catalogs[0]!;
  return {
    emu,
    company: company!,
    other: other!,
    call: as(company!.token),
    callOther: as(other!.token),
    key,
    products: `/v1/catalogos/${catalog.id}/produtos`,
    product: `/v1/produtos/${catalog.products[0]!.id}`,
  };
}

/** A receiver that verifies each delivery and answers 2xx to an event it has seen already. */
function goodReceiver(secret: string, clock: () => number) {
  return async (request: Request): Promise<Response> => {
    const body = await request.text();
    return new Response(null, {
      status: verifyWebhook({ secret, headers: request.headers, body, now: clock() }).ok ? 200 : 401,
    });
  };
}

async function testEvent(w: ReturnType<typeof world>): Promise<string> {
  const destination = await w.call('GET', '/v1/webhook');
  const sent = await w.call('POST', '/v1/webhook/testes', { ifMatch: destination.etag });
  expect(sent.status).toBe(202);
  return sent.body.evento_id as string;
}

const seen = (emu: Emulator, companyId?: string) =>
  emu
    .report(companyId === undefined ? {} : { companyId })
    .coverage.behaviours.filter((b) => b.seen > 0)
    .map((b) => `${b.id} ${b.seen}`);

describe('the coverage of a scripted suite', () => {
  it('lists exactly the operations, statuses, codes, faults and behaviours it exercised, and the gaps', async () => {
    const w = world();
    const { emu, call } = w;
    // A product edit raced (412), read again and redone; a creation whose answer was lost, retried with its key.
    const read = await call('GET', w.product);
    emu.faults.add({ target: 'api', match: { method: 'PATCH' }, effect: { concurrentEdit: true } });
    expect((await call('PATCH', w.product, { ifMatch: read.etag, body: { sku: 'A' } })).status).toBe(412);
    const fresh = await call('GET', w.product);
    expect((await call('PATCH', w.product, { ifMatch: fresh.etag, body: { sku: 'A' } })).status).toBe(200);
    emu.faults.add({ target: 'api', match: { method: 'POST' }, effect: { loseResponse: true } });
    const same = w.key();
    expect((await call('POST', w.products, { key: same, body: PRODUCT })).status).toBe(503);
    expect((await call('POST', w.products, { key: same, body: PRODUCT })).status).toBe(201);
    // A test event to a receiver that verifies it: delivered at once.
    emu.network.route(
      HOOKS,
      goodReceiver(w.company.webhook!.secret, () => emu.clock.now().getTime()),
    );
    await testEvent(w);
    await emu.clock.runUntilIdle();

    const { coverage } = emu.report();
    expect(
      coverage.operations.map((o) => ({
        op: `${o.method} ${o.path}`,
        calls: o.calls,
        statuses: o.statuses,
        codes: o.codes,
      })),
    ).toEqual([
      {
        op: 'POST /v1/catalogos/{id}/produtos',
        calls: 2,
        statuses: [
          { status: 201, count: 1 },
          { status: 503, count: 1 },
        ],
        codes: [{ codigo: 'servico_indisponivel', count: 1 }],
      },
      { op: 'GET /v1/produtos/{id}', calls: 2, statuses: [{ status: 200, count: 2 }], codes: [] },
      {
        op: 'PATCH /v1/produtos/{id}',
        calls: 2,
        statuses: [
          { status: 200, count: 1 },
          { status: 412, count: 1 },
        ],
        codes: [{ codigo: 'precondicao_falhou', count: 1 }],
      },
      { op: 'GET /v1/webhook', calls: 1, statuses: [{ status: 200, count: 1 }], codes: [] },
      { op: 'POST /v1/webhook/testes', calls: 1, statuses: [{ status: 202, count: 1 }], codes: [] },
    ]);
    expect(coverage.operations.find((o) => o.id === 'updateProduct')!.unreceived).toEqual([
      400, 401, 403, 404, 408, 409, 413, 415, 422, 428, 429, 503,
    ]);
    expect(coverage.notCalled).toHaveLength(48 - 5);
    expect(coverage.notCalled).toContain('GET /v1/empresa');
    expect(coverage.faults).toEqual([
      { target: 'api', effect: 'concurrentEdit', fired: 1 },
      { target: 'api', effect: 'loseResponse', fired: 1 },
    ]);
    expect(seen(emu)).toEqual([
      'idempotent-replay 1',
      'lost-answer 1',
      'precondition-failed 1',
      'service-unavailable 1',
      'delivered-first-attempt 1',
    ]);
    expect(coverage.score).toEqual({ exercised: 5, listed: BEHAVIOURS.length });
    expect(coverage.unrouted).toBe(0);
    expect(coverage.inboxAttempts).toBe(0);
    expect(coverage.gaps.filter((g) => !BEHAVIOURS.some((b) => g.startsWith(`no ${b.id}: `)))).toEqual([
      'no 429 or 503 with Retry-After on POST /v1/catalogos/{id}/produtos: POST /_emulator/faults {"target":"api","match":{"method":"POST","path":"/v1/catalogos/*/produtos"},"effect":{"status":503,"retryAfter":2}}',
      'no lost answer on PATCH /v1/produtos/{id}: POST /_emulator/faults {"target":"api","match":{"method":"PATCH","path":"/v1/produtos/*"},"effect":{"loseResponse":true}}, then retry with the same idempotency-key',
      'no 429 or 503 with Retry-After on PATCH /v1/produtos/{id}: POST /_emulator/faults {"target":"api","match":{"method":"PATCH","path":"/v1/produtos/*"},"effect":{"status":503,"retryAfter":2}}',
      'no 412 on POST /v1/webhook/testes: POST /_emulator/faults {"target":"api","match":{"method":"POST","path":"/v1/webhook/testes"},"effect":{"concurrentEdit":true}}',
      'no lost answer on POST /v1/webhook/testes: POST /_emulator/faults {"target":"api","match":{"method":"POST","path":"/v1/webhook/testes"},"effect":{"loseResponse":true}}, then retry with the same idempotency-key',
      'no 429 or 503 with Retry-After on POST /v1/webhook/testes: POST /_emulator/faults {"target":"api","match":{"method":"POST","path":"/v1/webhook/testes"},"effect":{"status":503,"retryAfter":2}}',
    ]);
    expect(coverage.gaps).toContain(
      'no rate-limited: POST /_emulator/faults {"target":"api","effect":{"status":429,"retryAfter":2}} (or a sixth webhook test or resend within a minute)',
    );
  });

  it("keeps a company's part to its own requests, faults and deliveries", async () => {
    const w = world();
    const { emu } = w;
    emu.faults.add({ target: 'api', match: { companyId: w.other.companyId }, effect: { status: 429, retryAfter: 1 } });
    expect((await w.callOther('GET', '/v1/empresa')).status).toBe(429);
    expect((await w.call('GET', '/v1/empresa')).status).toBe(200);
    await testEvent(w);
    await emu.clock.runUntilIdle();
    const mine = emu.report({ companyId: w.company.companyId }).coverage;
    const theirs = emu.report({ companyId: w.other.companyId }).coverage;
    expect(mine.operations.map((o) => `${o.id} ${o.statuses.map((s) => s.status).join(',')}`)).toEqual([
      'getCompany 200',
      'getWebhookDestination 200',
      'sendWebhookTestEvent 202',
    ]);
    expect(theirs.operations.map((o) => `${o.id} ${o.statuses.map((s) => s.status).join(',')}`)).toEqual([
      'getCompany 429',
    ]);
    expect(mine.faults).toEqual([]);
    expect(theirs.faults).toEqual([{ target: 'api', effect: 'status', fired: 1 }]);
    expect(seen(emu, w.company.companyId)).toEqual([]);
    expect(seen(emu, w.other.companyId)).toEqual(['rate-limited 1']);
    // The test event went to the built-in inbox: no receiver of the company's saw it.
    expect(mine.inboxAttempts).toBe(1);
    expect(emu.report().coverage.operations.find((o) => o.id === 'getCompany')!.statuses).toEqual([
      { status: 200, count: 1 },
      { status: 429, count: 1 },
    ]);
  });

  it('sees an event past retention only once retention removed it, and never an event a reset removed', async () => {
    const w = world();
    const { emu } = w;
    const retention = () => emu.report().coverage.behaviours.find((b) => b.id === 'event-past-retention')!.seen;
    await testEvent(w);
    await emu.clock.runUntilIdle();
    await emu.clock.advance('29d');
    expect(retention()).toBe(0);
    await emu.clock.advance('2d');
    expect(retention()).toBe(1);
    await testEvent(w);
    await emu.clock.runUntilIdle();
    emu.reset();
    await emu.clock.advance('31d');
    expect(retention()).toBe(1);
  });

  it('counts a request no operation took apart', async () => {
    const { emu, call } = world();
    expect((await call('GET', '/v1/nada')).status).toBe(404);
    expect((await call('DELETE', '/v1/empresa')).status).toBe(405);
    expect(emu.report().coverage.unrouted).toBe(2);
    expect(emu.report().coverage.operations).toEqual([]);
  });
});

describe('a suite that exercises every behaviour of the table', () => {
  it('sees each row, and leaves no behaviour gap', { timeout: 20_000 }, async () => {
    const w = world();
    const { emu, call } = w;
    const secret = w.company.webhook!.secret;
    const now = () => emu.clock.now().getTime();
    const seenIds = new Set<string>();
    emu.network.route(HOOKS, async (request) => {
      const body = await request.text();
      if (!verifyWebhook({ secret, headers: request.headers, body, now: now() }).ok)
        return new Response(null, { status: 401 });
      seenIds.add(request.headers.get('service-event-id')!);
      return new Response(null, { status: 200 });
    });

    // Requests: a replay after a lost answer, a 412, a 409 in flight, a held request, a 429 and a 503.
    emu.faults.add({
      target: 'api',
      match: { method: 'POST', path: '/v1/catalogos/*/produtos' },
      effect: { loseResponse: true },
    });
    const lostKey = w.key();
    await call('POST', w.products, { key: lostKey, body: PRODUCT });
    await call('POST', w.products, { key: lostKey, body: PRODUCT });
    const read = await call('GET', w.product);
    emu.faults.add({ target: 'api', match: { method: 'PATCH' }, effect: { concurrentEdit: true } });
    await call('PATCH', w.product, { ifMatch: read.etag, body: { sku: 'A' } });
    emu.faults.add({
      target: 'api',
      match: { method: 'POST', path: '/v1/catalogos/*/produtos' },
      effect: { delayMs: 1000 },
    });
    const heldKey = w.key();
    const held = call('POST', w.products, { key: heldKey, body: { ...PRODUCT, sku: 'held' } });
    for (let spins = 0; emu.clock.pending() === 0; spins++) {
      if (spins > 1000) throw new Error('never held');
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect((await call('POST', w.products, { key: heldKey, body: { ...PRODUCT, sku: 'held' } })).status).toBe(409);
    await emu.clock.advance('1s');
    await held;
    emu.faults.add({ target: 'api', match: { path: '/v1/empresa' }, effect: { status: 429, retryAfter: 1 } });
    await call('GET', '/v1/empresa');
    emu.faults.add({ target: 'api', match: { path: '/v1/empresa' }, effect: { status: 503, retryAfter: 1 } });
    await emu.clock.advance('1s');
    await call('GET', '/v1/empresa');

    // Deliveries: at once; after a failed attempt; a cycle that fails; a time-out; a tampered copy refused; a duplicate.
    await testEvent(w);
    await emu.clock.runUntilIdle();
    emu.faults.add({ target: 'delivery', effect: { status: 503 } });
    await emu.clock.advance('1m');
    await testEvent(w);
    await emu.clock.advance('10s');
    emu.faults.add({ target: 'delivery', effect: { status: 503 }, times: 8 });
    await testEvent(w);
    await emu.clock.advance('24h');
    emu.faults.add({ target: 'delivery', effect: { timeout: true } });
    emu.faults.add({ target: 'delivery', effect: { tamper: 'timestamp' } });
    emu.faults.add({ target: 'delivery', effect: { duplicate: true } });
    await testEvent(w);
    await emu.clock.advance('1h');

    // The clock: an analysis concluded and one failed, a surveillance execution, an ingestion applied and one
    // expired, a CNPJ correction decided, and events past retention.
    await call('POST', '/v1/analises', { body: {} });
    await emu.clock.runUntilIdle();
    emu.faults.add({ target: 'job', match: { kind: 'analise' }, effect: { fail: true } });
    await call('POST', '/v1/analises', { body: {} });
    await emu.clock.runUntilIdle();
    const selection = await call('GET', '/v1/empresa/vigilancia');
    expect(
      (await call('PATCH', '/v1/empresa/vigilancia', { ifMatch: selection.etag, body: { modo: 'todos' } })).status,
    ).toBe(200);
    const started = await call('POST', '/v1/catalogos/ingestoes', { body: { operacao: 'mesclar' } });
    const ingestion = `/v1/catalogos/ingestoes/${started.body.ingestao_id as string}`;
    await call('PUT', `${ingestion}/lotes/1`, {
      body: { itens: [{ id_externo: 'CAFE-500', origem: 'erp', ncm: '09012100' }] },
    });
    await call('POST', `${ingestion}/fechamento`, { body: { total_lotes: 1 } });
    await emu.clock.advance('2s');
    const validated = await call('GET', ingestion);
    expect(validated.body.estado).toBe('validada');
    expect((await call('POST', `${ingestion}/aplicacao`, { ifMatch: validated.etag, body: {} })).status).toBe(202);
    await emu.clock.advance('10s');
    const head = await call('GET', `/v1/estabelecimentos/${w.company.headOffice.id}`);
    const base = '112223330009';
    expect(
      (
        await call('POST', `/v1/estabelecimentos/${w.company.headOffice.id}/correcoes-cnpj`, {
          ifMatch: head.etag,
          body: { cnpj_novo: base + cnpjCheckDigits(base), motivo: 'Digitação errada' },
        })
      ).status,
    ).toBe(202);
    await call('POST', '/v1/catalogos/ingestoes', { body: { operacao: 'mesclar' } });
    await emu.clock.advance('31d');

    const { coverage } = emu.report();
    expect(coverage.behaviours.filter((b) => b.seen === 0).map((b) => b.id)).toEqual([]);
    expect(coverage.score).toEqual({ exercised: BEHAVIOURS.length, listed: BEHAVIOURS.length });
    expect(coverage.gaps.filter((g) => BEHAVIOURS.some((b) => g.startsWith(`no ${b.id}: `)))).toEqual([]);
    expect(emu.report().findings).toEqual([]);
  });
});
