/**
 * Near-misses in process (emu.faults.nearMisses): for an armed fault that has not fired, the requests, deliveries
 * or job runs since it was armed, each with the conditions it met and failed, the closest first: the match's fields,
 * an operation reached, what a concurrentEdit needs, the probability draws passed over, another fault first.
 */
import { describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../index.js';
import { ControlError } from '../control/control-error.js';
import { nearMisses } from '../control/groups/faults.js';
import { closedAfterEach } from '../../spec-tests/support/closed-after-each.js';
import type { FaultView } from './faults.js';
import { Glob, globSteps } from './glob.js';
import { QUERY_STEPS, QueryBudgetError } from './journal.js';
import { occurrenceNearMisses, type Occurrence } from './near-misses.js';

const closing = closedAfterEach();

function setUp() {
  const emu = closing(createEmulator({ seed: 3 }));
  const a = emu.companies.create({ cnpjRoot: '11222333' });
  const b = emu.companies.create({ cnpjRoot: '44555666' });
  let keys = 0;
  const call = (
    token: string | undefined,
    method: string,
    path: string,
    init: { body?: unknown; headers?: Record<string, string> } = {},
  ) =>
    emu.fetch(path, {
      method,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(method === 'GET'
          ? {}
          : {
              'content-type': 'application/json',
              'idempotency-key': `near-miss-key-${String(++keys).padStart(4, '0')}`,
            }),
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  return { emu, a, b, call };
}

/** The near-misses as `failed` lists, each with the request's method and path, closest first. */
const failures = (emu: Emulator, id: string) =>
  emu.faults.nearMisses(id).candidates.map((c) => ('method' in c ? [`${c.method} ${c.path}`, c.failed] : [c.failed]));

describe('a fault still skipping', () => {
  it('says of each matching request it let pass that its skip did, and names no other reason', async () => {
    const { emu, a, call } = setUp();
    const { id } = emu.faults.add({
      target: 'api',
      match: { method: 'GET', path: '/v1/empresa', companyId: a.companyId },
      effect: { status: 503 },
      skip: 3,
    });
    await call(a.token, 'GET', '/v1/empresa');
    await call(a.token, 'GET', '/v1/catalogos');
    await call(a.token, 'GET', '/v1/empresa');
    expect(emu.faults.nearMisses(id).fault).toMatchObject({ skip: 1, hits: 0 });
    expect(failures(emu, id)).toEqual([
      ['GET /v1/empresa', ['skip: one of the 3 matching it lets pass before it fires']],
      ['GET /v1/empresa', ['skip: one of the 3 matching it lets pass before it fires']],
      ['GET /v1/catalogos', ['path: /v1/catalogos does not match /v1/empresa']],
    ]);
  });

  it('a delivery fault alike', async () => {
    const { emu, a, call } = setUp();
    const { id } = emu.faults.add({ target: 'delivery', effect: { refuse: true }, skip: 5 });
    const put = await call(a.token, 'PUT', '/v1/webhook', {
      body: { url: 'https://hooks.example.com/in' },
      headers: { 'if-none-match': '*' },
    });
    expect(put.status).toBe(201);
    const test = await call(a.token, 'POST', '/v1/webhook/testes', {
      body: {},
      headers: { 'if-match': put.headers.get('etag')! },
    });
    expect(test.status).toBe(202);
    await emu.clock.runUntilIdle();
    expect(emu.faults.nearMisses(id).candidates.map((c) => c.failed)).toEqual([
      ['skip: one of the 5 matching it lets pass before it fires'],
    ]);
  });
});

describe('an api fault that never fired', () => {
  it('names the method, path and company each request failed, and what it met; closest first, then most recent', async () => {
    const { emu, a, b, call } = setUp();
    await call(a.token, 'GET', '/v1/catalogos'); // before the fault: not one of its near-misses
    const { id } = emu.faults.add({
      target: 'api',
      match: { method: 'POST', path: '/v1/catalogos/*', companyId: a.companyId },
      effect: { status: 503 },
    });
    await call(a.token, 'GET', '/v1/catalogos');
    await call(b.token, 'POST', '/v1/catalogos', { body: {} });
    await call(a.token, 'POST', '/v1/catalogos', { body: {} });
    await call(undefined, 'POST', '/v1/catalogos/x');
    await call(a.token, 'GET', '/v1/nada');

    const near = emu.faults.nearMisses(id);
    expect(near.fault).toEqual({
      id,
      target: 'api',
      match: { method: 'POST', path: '/v1/catalogos/*', companyId: a.companyId },
      effect: { status: 503 },
      times: 1,
      skip: 0,
      hits: 0,
    });
    expect(near.examined).toBe(5);
    expect(near.passedOver).toBe(0);
    expect(
      near.candidates.map((c) =>
        'method' in c
          ? {
              request: `${c.method} ${c.path} ${c.status}`,
              companyId: c.companyId,
              failed: c.failed,
              matched: c.matched,
            }
          : c,
      ),
    ).toEqual([
      // Three of the four met: A's POST, but not under /v1/catalogos/.
      {
        request: 'POST /v1/catalogos 422',
        companyId: a.companyId,
        failed: ['path: /v1/catalogos does not match /v1/catalogos/*'],
        matched: ['operation: createCatalog', 'method: POST', `companyId: ${a.companyId}`],
      },
      // Two met, the most recent first: the anonymous POST (no operation takes POST there, and no company), B's POST, A's GET.
      {
        request: 'POST /v1/catalogos/x 405',
        companyId: null,
        failed: [
          'operation: POST /v1/catalogos/x reached none (answered 405); a fault acts only on a request to an operation',
          `companyId: none (no company's credential recognized) ≠ ${a.companyId}`,
        ],
        matched: ['method: POST', 'path: /v1/catalogos/x matches /v1/catalogos/*'],
      },
      {
        request: 'POST /v1/catalogos 422',
        companyId: b.companyId,
        failed: ['path: /v1/catalogos does not match /v1/catalogos/*', `companyId: ${b.companyId} ≠ ${a.companyId}`],
        matched: ['operation: createCatalog', 'method: POST'],
      },
      {
        request: 'GET /v1/catalogos 200',
        companyId: a.companyId,
        failed: ['method: GET ≠ POST', 'path: /v1/catalogos does not match /v1/catalogos/*'],
        matched: ['operation: listCatalogs', `companyId: ${a.companyId}`],
      },
      // A request to no operation is no company's: its credential is not read.
      {
        request: 'GET /v1/nada 404',
        companyId: null,
        failed: [
          'operation: GET /v1/nada reached none (answered 404); a fault acts only on a request to an operation',
          'method: GET ≠ POST',
          'path: /v1/nada does not match /v1/catalogos/*',
          `companyId: none (no company's credential recognized) ≠ ${a.companyId}`,
        ],
        matched: [],
      },
    ]);
    // Every candidate as the controls answer it.
    expect(nearMisses().safeParse(near).success).toBe(true);
  });

  it('keeps the ten closest', async () => {
    const { emu, a, call } = setUp();
    const { id } = emu.faults.add({ target: 'api', match: { method: 'DELETE' }, effect: { status: 503 } });
    for (let i = 0; i < 12; i++) await call(a.token, 'GET', `/v1/produtos/p${i}`);
    const near = emu.faults.nearMisses(id);
    expect(near.examined).toBe(12);
    // The same conditions met by all: the most recent ten, newest first.
    expect(near.candidates.map((c) => ('path' in c ? c.path : ''))).toEqual(
      Array.from({ length: 10 }, (_, i) => `/v1/produtos/p${11 - i}`),
    );
  });

  it('concurrentEdit: a GET takes no If-Match, a write sent none, or was refused before the save could act', async () => {
    const { emu, a, call } = setUp();
    const { id } = emu.faults.add({
      target: 'api',
      match: { path: '/v1/produtos/*' },
      effect: { concurrentEdit: true },
    });
    await call(a.token, 'GET', '/v1/produtos/0193a0e0-0000-7000-8000-000000000001');
    await call(a.token, 'PATCH', '/v1/produtos/0193a0e0-0000-7000-8000-000000000001', { body: { sku: 'x' } });
    await call(a.token, 'PATCH', '/v1/produtos/0193a0e0-0000-7000-8000-000000000002', {
      body: { sku: 'x' },
      headers: { 'if-match': '"abc"' },
    });
    expect(failures(emu, id)).toEqual([
      [
        'PATCH /v1/produtos/0193a0e0-0000-7000-8000-000000000002',
        [
          'evaluation: answered 404 produto_nao_encontrado before the concurrent save could act, or with nothing to save',
        ],
      ],
      [
        'PATCH /v1/produtos/0193a0e0-0000-7000-8000-000000000001',
        [
          'If-Match: none sent; concurrentEdit acts on a request that sends one',
          'evaluation: answered 404 produto_nao_encontrado before the concurrent save could act, or with nothing to save',
        ],
      ],
      [
        'GET /v1/produtos/0193a0e0-0000-7000-8000-000000000001',
        [
          'If-Match: GET /v1/produtos/0193a0e0-0000-7000-8000-000000000001 is no operation that takes it; concurrentEdit acts only on one that does',
        ],
      ],
    ]);
    expect(emu.faults.nearMisses(id).candidates[0]!.matched).toEqual([
      'operation: updateProduct',
      'path: /v1/produtos/0193a0e0-0000-7000-8000-000000000002 matches /v1/produtos/*',
      'If-Match: PATCH /v1/produtos/{id} takes it',
      'If-Match: sent "abc"',
    ]);
  });

  it('probability: counts the draws that passed over, and says so of each request that met every condition', async () => {
    const { emu, a, call } = setUp();
    const { id } = emu.faults.add({
      target: 'api',
      match: { path: '/v1/empresa' },
      effect: { status: 503 },
      times: null,
      probability: 0.2,
    });
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await call(a.token, 'GET', '/v1/empresa')).status);
    const fired = statuses.filter((s) => s === 503).length;
    expect(fired).toBeGreaterThan(0);
    expect(fired).toBeLessThan(20);
    const near = emu.faults.nearMisses(id);
    expect(near.fault.hits).toBe(fired);
    expect(near.passedOver).toBe(20 - fired);
    expect(near.examined).toBe(20 - fired);
    for (const candidate of near.candidates)
      expect(candidate.failed).toEqual(['probability: the draw passed over it (probability 0.2)']);
  });

  it('another fault armed before it took the request first', async () => {
    const { emu, a, call } = setUp();
    const first = emu.faults.add({ target: 'api', match: { method: 'GET' }, effect: { status: 500 }, times: 2 }).id;
    const second = emu.faults.add({ target: 'api', match: { path: '/v1/empresa' }, effect: { status: 503 } }).id;
    expect((await call(a.token, 'GET', '/v1/empresa')).status).toBe(500);
    expect(failures(emu, second)).toEqual([['GET /v1/empresa', [`another fault: ${first} fired on it first`]]]);
    // The request the first fault fired on is none of its own near-misses.
    expect(emu.faults.nearMisses(first)).toMatchObject({ examined: 0, candidates: [] });
  });

  it("is 404 falha_nao_encontrada for a fault not armed, and a company's view has only its own", async () => {
    const { emu, a, b, call } = setUp();
    expect(() => emu.faults.nearMisses('flt_9')).toThrow(
      new ControlError(
        404,
        'falha_nao_encontrada',
        'No fault "flt_9" is armed (one that fired its times has left the list); GET /_emulator/faults lists them.',
        'path.id',
      ),
    );
    const ofA = emu.companies
      .scope(a.companyId)
      .faults.add({ target: 'api', match: { method: 'DELETE' }, effect: { status: 503 } }).id;
    const ofNone = emu.faults.add({ target: 'api', match: { method: 'DELETE' }, effect: { status: 503 } }).id;
    await call(a.token, 'GET', '/v1/empresa');
    await call(b.token, 'GET', '/v1/empresa');
    expect(
      emu.companies
        .scope(a.companyId)
        .faults.nearMisses(ofA)
        .candidates.map((c) => c.companyId),
    ).toEqual([a.companyId]);
    // Unscoped: every company's, A's first (it met the company too).
    expect(emu.faults.nearMisses(ofA).candidates.map((c) => c.companyId)).toEqual([a.companyId, b.companyId]);
    expect(emu.faults.nearMisses(ofNone, { companyId: b.companyId }).candidates.map((c) => c.companyId)).toEqual([
      b.companyId,
    ]);
    expect(() => emu.companies.scope(b.companyId).faults.nearMisses(ofA)).toThrow(ControlError);
    expect(() => emu.companies.scope(a.companyId).faults.nearMisses(ofNone)).toThrow(
      expect.objectContaining({ status: 404, codigo: 'falha_nao_encontrada' }) as unknown as Error,
    );
  });
});

describe('a delivery or job fault that never fired', () => {
  it('delivery: each attempt since, with its event, and the url, event type or company it failed', async () => {
    const { emu, a, call } = setUp();
    const put = await call(a.token, 'PUT', '/v1/webhook', {
      body: { url: 'https://hooks.acme.example/in' },
      headers: { 'if-none-match': '*' },
    });
    expect(put.status).toBe(201);
    const { id } = emu.faults.add({
      target: 'delivery',
      match: { url: 'https://hooks.acme.example/other', eventType: 'analise.concluida' },
      effect: { refuse: true },
    });
    const { eventId } = emu.webhooks.raise(a.companyId, { tipo: 'webhook.teste' });
    await emu.clock.runUntilIdle();
    const near = emu.faults.nearMisses(id);
    expect(near).toMatchObject({ examined: 1, passedOver: 0 });
    expect(near.candidates).toEqual([
      {
        eventId,
        attempt: 1,
        url: 'https://hooks.acme.example/in',
        eventType: 'webhook.teste',
        companyId: a.companyId,
        failed: [
          'url: https://hooks.acme.example/in does not match https://hooks.acme.example/other',
          'eventType: webhook.teste ≠ analise.concluida',
        ],
        matched: [],
      },
    ]);
    expect(nearMisses().safeParse(near).success).toBe(true);
  });

  it('job: each run since, with its time, and the kind, company or effect it failed', async () => {
    const { emu, a, b, call } = setUp();
    const { id } = emu.faults.add({
      target: 'job',
      match: { kind: 'analise', companyId: a.companyId },
      effect: { fail: true },
      times: 2,
    });
    expect((await call(a.token, 'POST', '/v1/analises', { body: {} })).status).toBe(202);
    expect((await call(b.token, 'POST', '/v1/analises', { body: {} })).status).toBe(202);
    await emu.clock.runUntilIdle();
    await emu.clock.advance('1h');
    const near = emu.faults.nearMisses(id);
    expect(near.fault.hits).toBe(1);
    const seen = near.candidates.map((c) => ('kind' in c ? [c.kind, c.companyId, c.failed, c.matched] : []));
    expect(seen).toEqual([
      // B's analysis end takes fail, but is B's; A's start is A's, but takes only delayMs (A's end fired).
      [
        'analise',
        b.companyId,
        [`companyId: ${b.companyId} ≠ ${a.companyId}`],
        ['kind: analise', 'effect: this run takes fail'],
      ],
      [
        'analise',
        a.companyId,
        ['effect: this run of analise takes only delayMs, not fail'],
        ['kind: analise', `companyId: ${a.companyId}`],
      ],
      [
        'analise',
        b.companyId,
        [`companyId: ${b.companyId} ≠ ${a.companyId}`, 'effect: this run of analise takes only delayMs, not fail'],
        ['kind: analise'],
      ],
      // The hourly retention of events: a job of the whole emulator.
      [
        'retencao_eventos',
        null,
        ['kind: retencao_eventos ≠ analise', `companyId: none (a job of the whole emulator) ≠ ${a.companyId}`],
        [],
      ],
    ]);
    expect(near.candidates.at(-1)).toMatchObject({ at: '2026-01-01T01:00:00.000Z', subjectId: null });
    expect(near.candidates[1]).toMatchObject({
      at: '2026-01-01T00:01:00.000Z',
      subjectId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(nearMisses().safeParse(near).success).toBe(true);
  });
});

describe('near-misses on a budget', () => {
  it("a delivery fault's glob against the URLs kept stops at a query's budget: refused, never answered in part", () => {
    // 1,000 deliveries to long URLs (a destination's URL may be up to the 4 KiB of its configuration's body).
    const url = `https://hooks.example/${'a'.repeat(3_000)}`;
    const occurrences: Occurrence[] = Array.from({ length: 1_000 }, (_, seq) => ({
      seq,
      taken: null,
      passed: [],
      target: 'delivery',
      match: { url, eventType: 'webhook.teste', companyId: 'c1' },
      seen: undefined,
    }));
    const glob = (pattern: string) => new Glob(pattern);
    const view = (url: string): FaultView => ({
      id: 'flt_1',
      target: 'delivery',
      match: { url },
      effect: { status: 500 },
      times: 1,
      skip: 0,
      hits: 0,
    });
    // A piece that starts again at every character of the run of `a`: several words of states a character.
    const costly = `https://hooks.example/**${'a'.repeat(200)}b**`;
    const before = globSteps.total;
    const armed = (pattern: string) => ({ view: view(pattern), pattern: glob(pattern), probability: 1, skipped: 0 });
    expect(() => occurrenceNearMisses(armed(costly), occurrences, 0)).toThrow(QueryBudgetError);
    expect(globSteps.total - before).toBeLessThanOrEqual(QUERY_STEPS + url.length * 8);
    // An ordinary glob answers.
    const ordinary = 'https://hooks.example/**';
    expect(occurrenceNearMisses(armed(ordinary), occurrences, 0).examined).toBe(1_000);
  });
});
