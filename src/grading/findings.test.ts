/**
 * Each rule of the findings table, in process: a scripted client making the mistake gets exactly that finding,
 * naming the requests or events involved, and the same client doing it right gets none.
 */
import { describe, expect, it } from 'vitest';
import { IF_MATCH_OPERATIONS } from '../core/versioning.js';
import { createEmulator, type Emulator } from '../emulator.js';
import { Engine } from '../engine/engine.js';
import type { JournalRecord } from '../engine/journal.js';
import { operations } from '../http/app.js';
import { documentedOperation } from '../http/pipeline.js';
import { verifyWebhook } from '../network/signature.js';
import type { ActivityEntry, ReceivedDelivery } from '../engine/activity.js';
import { FRESH_ETAG_READS, paramsOf, Recent, RULES, SLOW_ATTEMPTS_LISTED } from './findings.js';
import { FINDINGS_KEPT, Grading } from './report.js';

const HOOK = 'https://hooks.acme.example/catalog';
const PRODUCT = { origem: 'erp', ncm: '21069090' };

/** An emulator with one company holding a catalog with a product and a webhook destination. */
function world(options: Omit<Parameters<typeof createEmulator>[0] & object, 'fixtures'> = {}) {
  const emu = createEmulator({
    ...options,
    fixtures: {
      version: 1,
      companies: [{ cnpjRoot: '11222333', catalogs: [{ nome: 'Loja', products: [PRODUCT] }], webhook: { url: HOOK } }],
    },
  });
  const company = emu.companies.fixtures()[0]!;
  const catalog = company.catalogs[0]!;
  let n = 0;
  const key = () => `grading-key-${String(++n).padStart(6, '0')}`;
  const call = async (
    method: string,
    path: string,
    init: { key?: string | null; body?: unknown; ifMatch?: string; signal?: AbortSignal } = {},
  ) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${company.token}`,
      'content-type': 'application/json',
    };
    if (init.key !== null && method !== 'GET') headers['idempotency-key'] = init.key ?? key();
    if (init.ifMatch !== undefined) headers['if-match'] = init.ifMatch;
    const response = await emu.fetch(path, {
      method,
      headers,
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      ...(init.signal ? { signal: init.signal } : {}),
    });
    return {
      status: response.status,
      id: response.headers.get('x-request-id')!,
      etag: response.headers.get('etag') ?? '',
    };
  };
  return {
    emu,
    companyId: company.companyId,
    products: `/v1/catalogos/${catalog.id}/produtos`,
    product: `/v1/produtos/${catalog.products[0]!.id}`,
    secret: company.webhook!.secret,
    call,
    key,
  };
}

/** Waits (a turn of the event loop at a time) until the emulator holds a request (a delayMs fault's). */
async function untilHeld(emu: Emulator): Promise<void> {
  for (let spins = 0; emu.clock.pending() === 0; spins++) {
    if (spins > 1000) throw new Error('no request was ever held');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The findings as `rule: requests | events`, the way the tests compare them. */
const found = (emu: Emulator) =>
  emu.report().findings.map((f) => `${f.rule}: ${[...f.requestIds, ...f.eventIds].join(' ')}`);

describe('new-key-after-lost-answer (spec: REQ-02, REQ-03)', () => {
  it('a write whose answer a loseResponse took, sent again under a new key', async () => {
    const { emu, call, products } = world();
    emu.faults.add({ target: 'api', match: { method: 'POST' }, effect: { loseResponse: true } });
    const lost = await call('POST', products, { body: PRODUCT });
    expect(lost.status).toBe(503);
    const again = await call('POST', products, { body: PRODUCT });
    expect(again.status).toBe(201);
    expect(found(emu)).toEqual([`new-key-after-lost-answer: ${lost.id} ${again.id}`]);
    const [finding] = emu.report().findings;
    expect(finding).toMatchObject({
      statements: ['REQ-02', 'REQ-03'],
      companyId: emu.companies.fixtures()[0]!.companyId,
      at: '2026-01-01T00:00:00.000Z',
    });
    expect(finding!.message).toContain('under a new idempotency-key');
  });

  it('is no finding when the retry keeps its key, nor for another body under a new key', async () => {
    const { emu, call, products, key } = world();
    emu.faults.add({ target: 'api', match: { method: 'POST' }, effect: { loseResponse: true } });
    const same = key();
    expect((await call('POST', products, { key: same, body: PRODUCT })).status).toBe(503);
    expect((await call('POST', products, { key: same, body: PRODUCT })).status).toBe(201);
    expect((await call('POST', products, { body: { ...PRODUCT, sku: 'other' } })).status).toBe(201);
    expect((await call('POST', products, { body: PRODUCT })).status).toBe(201);
    expect(found(emu)).toEqual([]);
  });

  it('a request a delayMs held that the client gave up on (its signal aborted), sent again under a new key', async () => {
    const { emu, call, products } = world();
    emu.faults.add({ target: 'api', match: { method: 'POST' }, effect: { delayMs: 30_000 } });
    const gaveUp = new AbortController();
    const held = call('POST', products, { body: PRODUCT, signal: gaveUp.signal });
    await untilHeld(emu);
    gaveUp.abort();
    await emu.clock.advance('30s');
    const first = await held;
    expect(first.status).toBe(201);
    const again = await call('POST', products, { body: PRODUCT });
    expect(found(emu)).toEqual([`new-key-after-lost-answer: ${first.id} ${again.id}`]);
  });

  it('is no finding for a held request whose client waited for its answer', async () => {
    const { emu, call, products } = world();
    emu.faults.add({ target: 'api', match: { method: 'POST' }, effect: { delayMs: 30_000 } });
    const held = call('POST', products, { body: PRODUCT, signal: new AbortController().signal });
    await untilHeld(emu);
    await emu.clock.advance('30s');
    expect((await held).status).toBe(201);
    expect((await call('POST', products, { body: PRODUCT })).status).toBe(201);
    expect(found(emu)).toEqual([]);
  });
});

describe('key-reused-for-other-request (spec: REQ-03)', () => {
  it('a key sent again with another body: the 422 names the request that used it first', async () => {
    const { emu, call, products, key } = world();
    const reused = key();
    const first = await call('POST', products, { key: reused, body: PRODUCT });
    const second = await call('POST', products, { key: reused, body: { ...PRODUCT, sku: 'other' } });
    expect(second.status).toBe(422);
    expect(found(emu)).toEqual([`key-reused-for-other-request: ${first.id} ${second.id}`]);
  });

  it('is no finding for the same request repeated with its key', async () => {
    const { emu, call, products, key } = world();
    const kept = key();
    await call('POST', products, { key: kept, body: PRODUCT });
    expect((await call('POST', products, { key: kept, body: PRODUCT })).status).toBe(201);
    expect(found(emu)).toEqual([]);
  });
});

describe('retry-before-retry-after (spec: ERR-10)', () => {
  it('a request repeated at once after a 429 asking for 60 s', async () => {
    const { emu, call } = world();
    emu.faults.add({ target: 'api', match: { path: '/v1/empresa' }, effect: { status: 429, retryAfter: 60 } });
    const limited = await call('GET', '/v1/empresa');
    expect(limited.status).toBe(429);
    await emu.clock.advance('59s');
    const early = await call('GET', '/v1/empresa');
    expect(early.status).toBe(200);
    expect(found(emu)).toEqual([`retry-before-retry-after: ${limited.id} ${early.id}`]);
    expect(emu.report().findings[0]!.message).toBe(
      `GET /v1/empresa (request ${early.id}) came 59 s after the 429 of request ${limited.id}, whose Retry-After asked for 60 s.`,
    );
  });

  it('is no finding for a request that waited the Retry-After on the clock, nor for another path', async () => {
    const { emu, call } = world();
    emu.faults.add({ target: 'api', match: { path: '/v1/empresa' }, effect: { status: 503, retryAfter: 60 } });
    expect((await call('GET', '/v1/empresa')).status).toBe(503);
    expect((await call('GET', '/v1/contexto')).status).toBe(200);
    await emu.clock.advance('60s');
    expect((await call('GET', '/v1/empresa')).status).toBe(200);
    expect(found(emu)).toEqual([]);
  });

  it('on a manual clock, a wait in real time counts as waiting', () => {
    let real = 0;
    const engine = new Engine({});
    const grading = new Grading(engine, operations.map(documentedOperation), () => real);
    const request = (fields: Partial<JournalRecord>): JournalRecord => ({
      at: 0,
      method: 'GET',
      path: '/v1/empresa',
      status: 200,
      requestId: 'r',
      companyId: 'c',
      idempotencyKey: null,
      replayed: false,
      faultId: null,
      operation: 'getCompany',
      codigo: null,
      ifMatch: null,
      fingerprint: null,
      retryAfter: null,
      lost: false,
      ...fields,
    });
    grading.request(request({ requestId: 'r1', status: 429, codigo: 'limite_requisicoes', retryAfter: 2 }));
    real = 2000;
    grading.request(request({ requestId: 'r2' }));
    grading.request(request({ requestId: 'r3', status: 429, codigo: 'limite_requisicoes', retryAfter: 2 }));
    real = 3999;
    grading.request(request({ requestId: 'r4' }));
    expect(grading.report().findings.map((f) => f.requestIds)).toEqual([['r3', 'r4']]);
  });

  it('is per resource: a read of another product is no repeat, the same one with its id in upper case is', async () => {
    const { emu, call, product: a, products, key } = world();
    const token = emu.companies.fixtures()[0]!.token;
    const created = await emu.fetch(products, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key() },
      body: JSON.stringify({ ...PRODUCT, sku: 'B' }),
    });
    expect(created.status).toBe(201);
    const b = `/v1/produtos/${((await created.json()) as { id: string }).id}`;
    emu.faults.add({ target: 'api', match: { method: 'GET', path: a }, effect: { status: 503, retryAfter: 60 } });
    const unavailable = await call('GET', a);
    expect(unavailable.status).toBe(503);
    expect((await call('GET', b)).status).toBe(200);
    expect(found(emu)).toEqual([]);
    const upper = a.replace(/[0-9a-f-]{36}$/, (id) => id.toUpperCase());
    await emu.clock.advance('10s');
    const early = await call('GET', upper);
    expect(early.status).toBe(200);
    expect(found(emu)).toEqual([`retry-before-retry-after: ${unavailable.id} ${early.id}`]);
    expect(emu.report().findings[0]!.message).toBe(
      `GET ${upper} (request ${early.id}) came 10 s after the 503 of request ${unavailable.id}, ` +
        'whose Retry-After asked for 60 s.',
    );
  });

  it('is per write: another product created under its own key is no repeat, the first under its key is', async () => {
    const { emu, call, products, key } = world();
    const match = { method: 'POST', path: products };
    emu.faults.add({ target: 'api', match, effect: { status: 503, retryAfter: 30 } });
    const first = key();
    const unavailable = await call('POST', products, { key: first, body: { ...PRODUCT, sku: 'A' } });
    expect(unavailable.status).toBe(503);
    // The journal names the key of a write a fault answered before its headers were checked.
    const journaled = emu.journal.find({ limit: 1 })[0];
    expect(journaled).toMatchObject({ requestId: unavailable.id, status: 503, idempotencyKey: first });
    expect((await call('POST', products, { body: { ...PRODUCT, sku: 'B' } })).status).toBe(201);
    expect(found(emu)).toEqual([]);
    await emu.clock.advance('10s');
    const early = await call('POST', products, { key: first, body: { ...PRODUCT, sku: 'A' } });
    expect(early.status).toBe(201);
    expect(found(emu)).toEqual([`retry-before-retry-after: ${unavailable.id} ${early.id}`]);
    expect(emu.report().findings[0]!.message).toBe(
      `POST ${products} (request ${early.id}) came 10 s after the 503 of request ${unavailable.id}, ` +
        'whose Retry-After asked for 30 s.',
    );
  });
});

describe('stale-etag-retried (spec: REQ-05)', () => {
  it('the ETag a 412 refused, sent again without reading the product', async () => {
    const { emu, call, product } = world();
    const read = await call('GET', product);
    emu.faults.add({ target: 'api', match: { method: 'PATCH' }, effect: { concurrentEdit: true } });
    const refused = await call('PATCH', product, { ifMatch: read.etag, body: { sku: 'A' } });
    expect(refused.status).toBe(412);
    const again = await call('PATCH', product, { ifMatch: read.etag, body: { sku: 'A' } });
    expect(again.status).toBe(412);
    expect(found(emu)).toEqual([`stale-etag-retried: ${refused.id} ${again.id}`]);
  });

  it('is no finding when the product is read again first, in upper case too', async () => {
    const { emu, call, product } = world();
    const read = await call('GET', product);
    emu.faults.add({ target: 'api', match: { method: 'PATCH' }, effect: { concurrentEdit: true } });
    expect((await call('PATCH', product, { ifMatch: read.etag, body: { sku: 'A' } })).status).toBe(412);
    const fresh = await call('GET', product.toUpperCase().replace('/V1/PRODUTOS/', '/v1/produtos/'));
    expect(fresh.status).toBe(200);
    expect((await call('PATCH', product, { ifMatch: fresh.etag, body: { sku: 'A' } })).status).toBe(200);
    // The rule is about the retry that skips the read: once the product was read, even the old ETag sent again is
    // a 412 the client can learn from, not this finding.
    expect((await call('PATCH', product, { ifMatch: read.etag, body: { sku: 'B' } })).status).toBe(412);
    expect(found(emu)).toEqual([]);
  });

  it('the refused ETag among others in an If-Match list, weak or strong, however spaced', async () => {
    const { emu, call, product } = world();
    const read = await call('GET', product);
    const stale = read.etag;
    emu.faults.add({ target: 'api', match: { method: 'PATCH' }, effect: { concurrentEdit: true } });
    const refused = await call('PATCH', product, { ifMatch: stale, body: { sku: 'A' } });
    expect(refused.status).toBe(412);
    const sent: { ifMatch: string; id: string }[] = [];
    for (const ifMatch of [`${stale}, "other"`, `"another",W/${stale}`, `  "a,b" ,\t${stale} `]) {
      const again = await call('PATCH', product, { ifMatch, body: { sku: 'A' } });
      expect(again.status, ifMatch).toBe(412);
      sent.push({ ifMatch, id: again.id });
    }
    // Each repeat is refused again: its tags are then those the latest 412 refused (the others are new each time).
    const earlier = [refused.id, ...sent.map((s) => s.id)];
    expect(found(emu)).toEqual(sent.map((s, i) => `stale-etag-retried: ${earlier[i]} ${s.id}`));
    const unread = `without reading ${product} in between`;
    expect(emu.report().findings.map((f) => f.message)).toEqual([
      `PATCH ${product} (request ${sent[0]!.id}) sent If-Match ${stale}, "other", whose ${stale} is the ETag ` +
        `request ${refused.id} had been refused with 412, ${unread}.`,
      `PATCH ${product} (request ${sent[1]!.id}) sent If-Match "another", W/${stale}, whose W/${stale} is the ETag ` +
        `request ${sent[0]!.id} had been refused with 412, ${unread}.`,
      `PATCH ${product} (request ${sent[2]!.id}) sent If-Match "a,b", ${stale}, whose ${stale} is the ETag ` +
        `request ${sent[1]!.id} had been refused with 412, ${unread}.`,
    ]);
  });

  it('any ETag a 412 refused in a list, sent again alone; none once the product is read', async () => {
    const { emu, call, product } = world();
    const read = await call('GET', product);
    emu.faults.add({ target: 'api', match: { method: 'PATCH' }, effect: { concurrentEdit: true } });
    const refused = await call('PATCH', product, { ifMatch: `"older", ${read.etag}`, body: { sku: 'A' } });
    expect(refused.status).toBe(412);
    const again = await call('PATCH', product, { ifMatch: '"older"', body: { sku: 'A' } });
    expect(again.status).toBe(412);
    expect(found(emu)).toEqual([`stale-etag-retried: ${refused.id} ${again.id}`]);
    expect(emu.report().findings[0]!.message).toBe(
      `PATCH ${product} (request ${again.id}) sent If-Match "older" again, the ETag request ${refused.id} had been ` +
        `refused with 412, without reading ${product} in between.`,
    );
    const fresh = await call('GET', product);
    const saved = await call('PATCH', product, { ifMatch: `${read.etag}, "older", ${fresh.etag}`, body: { sku: 'B' } });
    expect(saved.status).toBe(200);
    expect(found(emu)).toHaveLength(1);
  });
});

describe('missing-idempotency-key', () => {
  it('a write without its key, with the statement of its operation', async () => {
    const { emu, call, product } = world();
    const read = await call('GET', product);
    const refused = await call('PATCH', product, { key: null, ifMatch: read.etag, body: { sku: 'A' } });
    expect(refused.status).toBe(400);
    expect(found(emu)).toEqual([`missing-idempotency-key: ${refused.id}`]);
    expect(emu.report().findings[0]!.statements).toEqual(['PROD-08']);
  });
});

describe('the receiver rules', () => {
  /** A receiver that verifies the signature (or not), answering `status` to what it accepts. */
  function receiver(
    secret: string,
    options: { verifies: boolean; seen?: Set<string>; onDuplicate?: number; silent?: boolean },
  ) {
    return async (request: Request): Promise<Response> => {
      if (options.silent) return new Promise<Response>(() => undefined);
      const body = await request.text();
      if (
        options.verifies &&
        !verifyWebhook({ secret, headers: request.headers, body, now: Date.parse('2026-01-01T00:00:00Z') }).ok
      )
        return new Response(null, { status: 401 });
      const id = request.headers.get('service-event-id')!;
      if (options.seen?.has(id)) return new Response(null, { status: options.onDuplicate ?? 200 });
      options.seen?.add(id);
      return new Response(null, { status: 200 });
    };
  }

  async function testEvent(setup: ReturnType<typeof world>): Promise<string> {
    const destination = await setup.call('GET', '/v1/webhook');
    const response = await setup.emu.fetch('/v1/webhook/testes', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${setup.emu.companies.fixtures()[0]!.token}`,
        'idempotency-key': setup.key(),
        'if-match': destination.etag,
      },
    });
    const { evento_id } = (await response.json()) as { evento_id: string };
    await setup.emu.clock.runUntilIdle();
    return evento_id;
  }

  it('accepted-tampered-delivery: a receiver that accepts what it did not verify', async () => {
    const setup = world();
    setup.emu.network.route('https://hooks.acme.example', receiver(setup.secret, { verifies: false }));
    setup.emu.faults.add({ target: 'delivery', effect: { tamper: 'signature' } });
    const event = await testEvent(setup);
    expect(found(setup.emu)).toEqual([`accepted-tampered-delivery: ${event}`]);
    expect(setup.emu.report().findings[0]!.statements).toEqual(['SIG-02', 'SIG-03', 'SIG-07']);
  });

  it('is no finding for a receiver that refuses the tampered delivery', async () => {
    const setup = world();
    setup.emu.network.route('https://hooks.acme.example', receiver(setup.secret, { verifies: true }));
    setup.emu.faults.add({ target: 'delivery', effect: { tamper: 'body' } });
    await testEvent(setup);
    expect(found(setup.emu)).toEqual([]);
  });

  it('slow-receiver: a receiver that does not answer within the time-out', async () => {
    const setup = world({ webhooks: { handlerGraceMs: 10, retryWaits: ['1h'] } });
    setup.emu.network.route('https://hooks.acme.example', receiver(setup.secret, { verifies: true, silent: true }));
    const destination = await setup.call('GET', '/v1/webhook');
    await setup.emu.fetch('/v1/webhook/testes', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${setup.emu.companies.fixtures()[0]!.token}`,
        'idempotency-key': setup.key(),
        'if-match': destination.etag,
      },
    });
    await setup.emu.clock.advance('15s');
    const [event] = setup.emu.report().findings.map((f) => f.eventIds[0]);
    expect(found(setup.emu)).toEqual([`slow-receiver: ${event}`]);
  });

  /** What slow-receiver says of `event`, its attempts said as `attempts`, within a time-out of `timeout`. */
  const slowly = (event: string, attempts: string, timeout = '15 s') =>
    `The receiver gave no complete answer within the delivery time-out (${timeout}) to event ${event}, ${attempts}.`;

  it('slow-receiver: once per event, told at its first unanswered attempt, listing each of them', async () => {
    const setup = world({ webhooks: { handlerGraceMs: 10 } });
    setup.emu.network.route('https://hooks.acme.example', receiver(setup.secret, { verifies: true, silent: true }));
    const entries: ActivityEntry[] = [];
    setup.emu.activity.subscribe((entry) => {
      if (entry.kind === 'finding' || entry.kind === 'delivery') entries.push(entry);
    });
    const first = await testEvent(setup);
    const second = await testEvent(setup);
    const attempts = (event: string) =>
      entries.flatMap((e) => (e.kind === 'delivery' && e.eventId === event ? [e] : []));
    // Each event's cycle: 8 attempts, each unanswered, then failed.
    for (const event of [first, second]) {
      const ended = attempts(event).map((a) => [a.attempt, a.outcome, a.durationMs]);
      expect(ended).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => [n, 'incerta', 15_000]));
    }
    const starts = attempts(first).map((a) => a.at);
    // The first at once, the second 5 s after the first's 15 s, the third 5 minutes after the second's.
    const day = '2026-01-01T00:';
    expect(starts.slice(0, 3)).toEqual([`${day}00:00.000Z`, `${day}00:20.000Z`, `${day}05:35.000Z`]);
    const listed = (event: string) =>
      attempts(event)
        .map((a) => `${a.attempt} (started ${a.at})`)
        .join(', ');
    const [firstFinding, secondFinding] = setup.emu.report().findings;
    expect(found(setup.emu)).toEqual([`slow-receiver: ${first}`, `slow-receiver: ${second}`]);
    expect(firstFinding).toEqual({
      at: '2026-01-01T00:00:00.000Z',
      rule: 'slow-receiver',
      companyId: setup.companyId,
      statements: ['WH-EVT-56'],
      message: slowly(first, `8 attempts: ${listed(first)}`),
      requestIds: [],
      eventIds: [first],
      fix: RULES.find((r) => r.id === 'slow-receiver')!.fix,
    });
    expect(secondFinding!.message).toBe(slowly(second, `8 attempts: ${listed(second)}`));
    // Told once per event, when its first attempt went unanswered: what it said then.
    const told = entries.flatMap((e) => (e.kind === 'finding' ? [[e.rule, e.eventIds, e.message]] : []));
    expect(told).toEqual([
      ['slow-receiver', [first], slowly(first, 'attempt 1 (started 2026-01-01T00:00:00.000Z)')],
      ['slow-receiver', [second], slowly(second, `attempt 1 (started ${attempts(second)[0]!.at})`)],
    ]);
  });

  it(`slow-receiver: lists the first ${SLOW_ATTEMPTS_LISTED} unanswered attempts, across cycles`, async () => {
    const setup = world({ webhooks: { handlerGraceMs: 10, attemptTimeout: '5s' } });
    setup.emu.network.route('https://hooks.acme.example', receiver(setup.secret, { verifies: true, silent: true }));
    const starts: string[] = [];
    setup.emu.activity.subscribe((entry) => {
      if (entry.kind === 'delivery') starts.push(entry.at);
    });
    const event = await testEvent(setup);
    const destination = await setup.call('GET', '/v1/webhook');
    const resent = await setup.call('POST', `/v1/webhook/eventos/${event}/reenvios`, { ifMatch: destination.etag });
    expect(resent.status).toBe(202);
    await setup.emu.clock.runUntilIdle();
    expect(starts).toHaveLength(16);
    const listed = starts
      .slice(0, SLOW_ATTEMPTS_LISTED)
      .map((at, i) => `${i + 1} (started ${at})`)
      .join(', ');
    expect(found(setup.emu)).toEqual([`slow-receiver: ${event}`]);
    expect(setup.emu.report().findings[0]!.message).toBe(slowly(event, `16 attempts: ${listed}, and 6 more`, '5 s'));
  });

  it('duplicate-refused: the copy of a delivery the receiver had accepted, refused', async () => {
    const setup = world();
    setup.emu.network.route(
      'https://hooks.acme.example',
      receiver(setup.secret, { verifies: true, seen: new Set(), onDuplicate: 409 }),
    );
    setup.emu.faults.add({ target: 'delivery', effect: { duplicate: true } });
    const event = await testEvent(setup);
    expect(found(setup.emu)).toEqual([`duplicate-refused: ${event}`]);
  });

  it('duplicate-refused: a resent event the receiver had accepted, refused', async () => {
    const setup = world();
    setup.emu.network.route(
      'https://hooks.acme.example',
      receiver(setup.secret, { verifies: true, seen: new Set(), onDuplicate: 409 }),
    );
    const event = await testEvent(setup);
    const destination = await setup.call('GET', '/v1/webhook');
    expect(
      (await setup.call('POST', `/v1/webhook/eventos/${event}/reenvios`, { ifMatch: destination.etag })).status,
    ).toBe(202);
    await setup.emu.clock.runUntilIdle();
    expect(found(setup.emu)).toEqual([`duplicate-refused: ${event}`]);
  });

  it('is no finding for a receiver that answers 2xx to what it had processed already', async () => {
    const setup = world();
    setup.emu.network.route(
      'https://hooks.acme.example',
      receiver(setup.secret, { verifies: true, seen: new Set(), onDuplicate: 200 }),
    );
    setup.emu.faults.add({ target: 'delivery', effect: { duplicate: true } });
    await testEvent(setup);
    expect(found(setup.emu)).toEqual([]);
  });

  it('judges no receiver for deliveries to the built-in inbox', async () => {
    const setup = world();
    setup.emu.faults.add({ target: 'delivery', effect: { tamper: 'signature' } });
    await testEvent(setup);
    expect(setup.emu.inbox.list()).toHaveLength(1);
    expect(found(setup.emu)).toEqual([]);
  });
});

describe('the findings kept', () => {
  it('survive the journal, and past FINDINGS_KEPT the oldest are counted as dropped', async () => {
    const { emu, call, product, companyId } = world();
    for (let i = 0; i < FINDINGS_KEPT + 2; i++) await call('PATCH', product, { key: null, body: { sku: 'A' } });
    emu.journal.clear();
    const report = emu.report();
    expect(report.findings).toHaveLength(FINDINGS_KEPT);
    expect(report.findingsDropped).toBe(2);
    expect(emu.report({ companyId }).findingsDropped).toBe(2);
  });

  it('outlive a reset, which forgets what the rules remember (a lost answer before it is no one to retry after)', async () => {
    const { emu, call, products, key } = world();
    emu.faults.add({ target: 'api', match: { method: 'POST' }, effect: { loseResponse: true } });
    const reused = key();
    await call('POST', products, { key: reused, body: PRODUCT });
    await call('POST', products, { key: reused, body: { ...PRODUCT, sku: 'x' } });
    expect(found(emu)).toHaveLength(1);
    emu.faults.add({ target: 'api', match: { method: 'POST' }, effect: { loseResponse: true } });
    const lost = { ...PRODUCT, sku: 'lost' };
    expect((await call('POST', products, { body: lost })).status).toBe(503);
    emu.reset();
    // The same body after the reset (the fixtures are made again, with the same ids), under a new key: a new
    // request of a new world.
    expect((await call('POST', products, { body: lost })).status).toBe(201);
    expect(found(emu).map((f) => f.split(':')[0])).toEqual(['key-reused-for-other-request']);
  });
});

describe("slow-receiver's one finding per event", () => {
  /** A grading of its own, told facts by hand: an attempt its receiver left unanswered, a write without its key. */
  function grading() {
    const engine = new Engine({});
    const graded = new Grading(engine, operations.map(documentedOperation), () => 0);
    const told: string[] = [];
    engine.activity.subscribe((entry) => {
      if (entry.kind === 'finding') told.push(`${entry.rule}: ${entry.message}`);
    });
    const silent = (eventId: string, tentativa: number): ReceivedDelivery => ({
      companyId: 'c',
      eventId,
      tentativa,
      at: tentativa * 20_000,
      timeoutMs: 15_000,
      answer: { outcome: { kind: 'no_answer' }, tamper: null, copy: null },
    });
    const unkeyed = (n: number): JournalRecord => ({
      at: 0,
      method: 'PATCH',
      path: '/v1/produtos/p',
      status: 400,
      requestId: `r${n}`,
      companyId: 'c',
      idempotencyKey: null,
      replayed: false,
      faultId: null,
      operation: 'updateProduct',
      codigo: 'chave_idempotencia_ausente',
      ifMatch: null,
      fingerprint: null,
      retryAfter: null,
      lost: false,
    });
    return { engine, graded, told, silent, unkeyed };
  }
  const slow = (event: string, attempts: string) =>
    `slow-receiver: The receiver gave no complete answer within the delivery time-out (15 s) to event ${event}, ` +
    `${attempts}.`;
  const FIRST = 'attempt 1 (started 1970-01-01T00:00:20.000Z)';

  it("keeps its place among the findings, its time the first attempt's, and says what the latest attempt adds", () => {
    const { graded, told, silent, unkeyed } = grading();
    graded.received(silent('e1', 1));
    graded.request(unkeyed(1));
    graded.received(silent('e1', 2));
    const { findings } = graded.report();
    const unkeyedFinding =
      'missing-idempotency-key: PATCH /v1/produtos/p (request r1) was sent without an idempotency-key: refused 400 ' +
      'chave_idempotencia_ausente.';
    expect(findings.map((f) => `${f.rule}: ${f.message}`)).toEqual([
      slow('e1', '2 attempts: 1 (started 1970-01-01T00:00:20.000Z), 2 (started 1970-01-01T00:00:40.000Z)'),
      unkeyedFinding,
    ]);
    expect(findings[0]!.at).toBe('1970-01-01T00:00:20.000Z');
    expect(told).toEqual([slow('e1', FIRST), unkeyedFinding]);
  });

  it('is told once even when it is no longer kept: a later attempt of its event makes no other', () => {
    const { graded, told, silent, unkeyed } = grading();
    graded.received(silent('e1', 1));
    for (let n = 0; n < FINDINGS_KEPT; n++) graded.request(unkeyed(n));
    expect(graded.report().findingsDropped).toBe(1);
    graded.received(silent('e1', 2));
    const report = graded.report();
    expect(report.findings.filter((f) => f.rule === 'slow-receiver')).toEqual([]);
    expect([report.findings.length, report.findingsDropped]).toEqual([FINDINGS_KEPT, 1]);
    expect(told.filter((line) => line.startsWith('slow-receiver'))).toEqual([slow('e1', FIRST)]);
  });

  it("after a reset of the company, an event of the new world is a finding of its own, the old one's as it was", () => {
    const { engine, graded, told, silent } = grading();
    graded.received(silent('e1', 1));
    engine.tell({ kind: 'reset', companyId: 'c' });
    graded.received(silent('e1', 2));
    const after = slow('e1', 'attempt 2 (started 1970-01-01T00:00:40.000Z)');
    expect(graded.report().findings.map((f) => `${f.rule}: ${f.message}`)).toEqual([slow('e1', FIRST), after]);
    expect(told).toEqual([slow('e1', FIRST), after]);
  });
});

describe('the rules table', () => {
  it('gives every operation that takes If-Match the read of its fresh ETag, a GET the API has', () => {
    const gets = new Set(
      operations
        .map(documentedOperation)
        .filter((o) => o.method === 'GET')
        .map((o) => o.path),
    );
    for (const o of IF_MATCH_OPERATIONS) {
      const read = FRESH_ETAG_READS[`${o.method} ${o.path}`];
      expect(read, `${o.method} ${o.path}`).toBeDefined();
      expect(gets.has(read!.replace('{produto_id}', '{id}')), read).toBe(true);
    }
    expect(Object.keys(FRESH_ETAG_READS)).toHaveLength(IF_MATCH_OPERATIONS.length);
  });

  it('has one row per id, each with statements, a trigger and a fix', () => {
    expect(RULES.map((r) => r.id)).toEqual([
      'new-key-after-lost-answer',
      'key-reused-for-other-request',
      'retry-before-retry-after',
      'stale-etag-retried',
      'missing-idempotency-key',
      'accepted-tampered-delivery',
      'slow-receiver',
      'duplicate-refused',
    ]);
    for (const row of RULES) {
      expect(row.statements.length).toBeGreaterThan(0);
      expect(row.trigger).not.toBe('');
      expect(row.fix).not.toBe('');
    }
  });

  it('reads a path by its template', () => {
    expect(paramsOf('/v1/catalogos/{id}/produtos/{produto_id}', '/v1/catalogos/a/produtos/b')).toEqual({
      id: 'a',
      produto_id: 'b',
    });
    expect(paramsOf('/v1/catalogos/{id}', '/v1/catalogos/a/produtos')).toBeUndefined();
    expect(paramsOf('/v1/empresa/vigilancia', '/v1/empresa/vigilancia')).toEqual({});
  });

  it('remembers at most its capacity, the oldest forgotten first, and forgets a company', () => {
    const memory = new Recent<number>(2);
    memory.set('a\n1', 1);
    memory.set('b\n1', 2);
    memory.set('a\n2', 3);
    expect([...memory.entries()]).toEqual([
      ['b\n1', 2],
      ['a\n2', 3],
    ]);
    memory.forget('a');
    expect([...memory.entries()]).toEqual([['b\n1', 2]]);
    memory.forget(null);
    expect(memory.size).toBe(0);
  });
});
