/**
 * A fault's near-misses over HTTP: GET /_emulator/faults/{id}/near-misses (and a company's
 * /_emulator/companies/{companyId}/faults/{id}/near-misses) answers, for an armed fault that has not fired, the
 * requests (deliveries, job runs) since it was armed that came closest, each with the conditions it met and those it
 * failed. On the server other tests' requests are in the journal too: each test's faults and views name its company.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { otherCompany, world, type World } from '../support/client.js';
import { expectControlError } from '../support/expect.js';
import { deployment } from '../support/deployment.js';
import { advance, createDestination, hookHost, raiseEvent } from '../support/webhooks.js';

beforeEach((context) => {
  if (deployment !== undefined)
    context.skip("checks the emulator's own faults, which a deployment of the service does not have");
});

interface Candidate {
  readonly method?: string;
  readonly path?: string;
  readonly status?: number;
  readonly companyId: string | null;
  readonly failed: string[];
  readonly matched: string[];
  readonly [field: string]: unknown;
}

interface NearMisses {
  readonly fault: Record<string, unknown>;
  readonly examined: number;
  readonly passedOver: number;
  readonly candidates: Candidate[];
}

async function nearMisses(w: World, id: string): Promise<NearMisses> {
  const answer = await w.controls.raw('GET', `/companies/${w.company.companyId}/faults/${id}/near-misses`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body as NearMisses;
}

async function addFault(w: World, fault: Record<string, unknown>): Promise<string> {
  const answer = await w.controls.raw('POST', `/companies/${w.company.companyId}/faults`, fault);
  expect(answer.status, answer.text).toBe(201);
  return answer.body.id as string;
}

describe('GET /_emulator/faults/{id}/near-misses', () => {
  it('an api fault: the method, path and company each request since it was armed failed, the closest first', async () => {
    const w = await world();
    const other = await otherCompany(w);
    const id = w.company.companyId;
    const fault = await addFault(w, {
      target: 'api',
      match: { method: 'POST', path: '/v1/catalogos/*/produtos' },
      effect: { status: 503 },
    });
    expect((await w.api.get('/v1/catalogos')).status).toBe(200);
    expect((await w.api.post('/v1/catalogos', { estabelecimento_id: w.company.headOffice.id })).status).toBe(422);
    expect((await other.api.post('/v1/catalogos/0193a0e0-0000-7000-8000-000000000001/produtos', {})).status).toBe(422);

    const own = await nearMisses(w, fault);
    expect(own.fault).toEqual({
      id: fault,
      target: 'api',
      match: { method: 'POST', path: '/v1/catalogos/*/produtos', companyId: id },
      effect: { status: 503 },
      times: 1,
      skip: 0,
      hits: 0,
    });
    expect(own.examined).toBe(2);
    expect(own.passedOver).toBe(0);
    expect(own.candidates.map((c) => [`${c.method} ${c.path} ${c.status}`, c.failed, c.matched])).toEqual([
      // A fault added through a company's view matches only that company: its match names it.
      [
        'POST /v1/catalogos 422',
        ['path: /v1/catalogos does not match /v1/catalogos/*/produtos'],
        ['operation: createCatalog', 'method: POST', `companyId: ${id}`],
      ],
      [
        'GET /v1/catalogos 200',
        ['method: GET ≠ POST', 'path: /v1/catalogos does not match /v1/catalogos/*/produtos'],
        ['operation: listCatalogs', `companyId: ${id}`],
      ],
    ]);
    // Unscoped, every company's requests are looked at: the other company's POST met all but the company.
    const all = await w.controls.raw('GET', `/faults/${fault}/near-misses`);
    expect(all.status, all.text).toBe(200);
    const closest = (all.body as NearMisses).candidates[0]!;
    expect(closest).toMatchObject({
      method: 'POST',
      path: '/v1/catalogos/0193a0e0-0000-7000-8000-000000000001/produtos',
      status: 422,
      companyId: other.company.companyId,
    });
    expect(closest.failed).toEqual([`companyId: ${other.company.companyId} ≠ ${id}`]);
    expect(closest.matched).toEqual([
      'operation: createProduct',
      'method: POST',
      'path: /v1/catalogos/0193a0e0-0000-7000-8000-000000000001/produtos matches /v1/catalogos/*/produtos',
    ]);
    // ?companyId= keeps to one company's requests, as the other views do.
    const ofOther = await w.controls.raw('GET', `/faults/${fault}/near-misses?companyId=${other.company.companyId}`);
    expect((ofOther.body as NearMisses).candidates.map((c) => c.companyId)).toEqual([other.company.companyId]);
  });

  it('a concurrentEdit: a GET takes no If-Match', async () => {
    const w = await world();
    const fault = await addFault(w, {
      target: 'api',
      match: { path: '/v1/empresa/vigilancia' },
      effect: { concurrentEdit: true },
    });
    expect((await w.api.get('/v1/empresa/vigilancia')).status).toBe(200);
    const near = await nearMisses(w, fault);
    expect(near.candidates.map((c) => [c.method, c.failed])).toEqual([
      [
        'GET',
        [
          'If-Match: GET /v1/empresa/vigilancia is no operation that takes it; concurrentEdit acts only on one that does',
        ],
      ],
    ]);
  });

  it('a probability: the draws that passed over are counted, and said of each request that met every condition', async () => {
    const w = await world();
    const fault = await addFault(w, {
      target: 'api',
      match: { path: '/v1/empresa' },
      effect: { status: 503 },
      times: null,
      probability: 0.5,
    });
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await w.api.get('/v1/empresa')).status);
    const near = await nearMisses(w, fault);
    const fired = statuses.filter((s) => s === 503).length;
    expect(near.fault.hits).toBe(fired);
    expect(near.passedOver).toBe(20 - fired);
    expect(near.passedOver).toBeGreaterThan(0);
    expect(near.candidates.length).toBe(Math.min(10, 20 - fired));
    for (const candidate of near.candidates)
      expect(candidate.failed).toEqual(['probability: the draw passed over it (probability 0.5)']);
  });

  it('a delivery fault: each attempt since, with its event, and what it failed', async () => {
    const w = await world();
    const host = hookHost();
    await createDestination(w, `${host}/recebe`);
    const fault = await addFault(w, {
      target: 'delivery',
      match: { url: `${host}/outro`, eventType: 'webhook.teste' },
      effect: { refuse: true },
    });
    const eventId = await raiseEvent(w, { tipo: 'webhook.teste' });
    await advance(w, 0);
    const near = await nearMisses(w, fault);
    expect(near.candidates).toEqual([
      {
        eventId,
        attempt: 1,
        url: `${host}/recebe`,
        eventType: 'webhook.teste',
        companyId: w.company.companyId,
        failed: [`url: ${host}/recebe does not match ${host}/outro`],
        matched: ['eventType: webhook.teste', `companyId: ${w.company.companyId}`],
      },
    ]);
  });

  it("is 404 falha_nao_encontrada for no fault armed, or another company's; 422 for a malformed companyId", async () => {
    const w = await world();
    const other = await otherCompany(w);
    const theirs = await addFault(other, { target: 'api', effect: { status: 503 } });
    expectControlError(
      await w.controls.raw('GET', '/faults/flt_0/near-misses'),
      404,
      'falha_nao_encontrada',
      'path.id',
    );
    expectControlError(
      await w.controls.raw('GET', `/companies/${w.company.companyId}/faults/${theirs}/near-misses`),
      404,
      'falha_nao_encontrada',
      'path.id',
    );
    expectControlError(
      await w.controls.raw('GET', `/faults/${theirs}/near-misses?companyId=acme`),
      422,
      'valor_invalido',
      'query.companyId',
    );
    expectControlError(
      await w.controls.raw('GET', `/faults/${theirs}/near-misses?limit=3`),
      422,
      'valor_invalido',
      'query.limit',
    );
    // Once it has fired its times, a fault leaves the list, and has no near-misses to ask for.
    expect((await other.api.get('/v1/empresa')).status).toBe(503);
    expectControlError(
      await w.controls.raw('GET', `/faults/${theirs}/near-misses`),
      404,
      'falha_nao_encontrada',
      'path.id',
    );
  });
});
