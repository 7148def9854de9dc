/**
 * The views of the faults, the inbox and the journal kept to one company, over HTTP: `?companyId=` on
 * /_emulator/faults, /inbox and /requests, and a company's own /_emulator/companies/{id}/faults, /inbox and
 * /journal. Two companies on one emulator each see only their own; the unfiltered views still see every one.
 * On the shared server other suites' companies are there too: the tests look only at their own two.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { otherCompany, world, type World } from '../support/client.js';
import { expectControlError } from '../support/expect.js';
import { advance, createDestination, hookHost, raiseEvent, type InboxItem } from '../support/webhooks.js';
import { deployment } from '../support/deployment.js';

// Every test here is about the emulator itself: against a deployment each is skipped, before it sends anything.
beforeEach((context) => {
  if (deployment !== undefined)
    context.skip(
      "checks the emulator's own /_emulator views of faults, inbox and journal by company, which a deployment of the service does not have",
    );
});

const UNKNOWN = '019b76da-a800-7520-a337-000000000000';

/** Two companies on one target, each with an unrouted destination of its own (its deliveries land in the inbox). */
async function twoCompanies(): Promise<[World, World]> {
  const a = await world();
  const b = await otherCompany(a);
  await createDestination(a, `${hookHost()}/recebe`);
  await createDestination(b, `${hookHost()}/recebe`);
  return [a, b];
}

/** GET a view's items (200). */
async function items<T = Record<string, unknown>>(w: World, path: string): Promise<T[]> {
  const answer = await w.controls.raw('GET', path);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.items as T[];
}

/** DELETE a view: 200 {items: []}. */
async function cleared(w: World, path: string): Promise<void> {
  const answer = await w.controls.raw('DELETE', path);
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body).toEqual({ items: [] });
}

const ids = (entries: { eventId: string }[]) => entries.map((e) => e.eventId);
const companyOf = (w: World) => w.company.companyId;

describe('the inbox by company', () => {
  it("each entry names its company; ?companyId= and /companies/{id}/inbox list only that company's, the unfiltered inbox both", async () => {
    const [a, b] = await twoCompanies();
    const eventA = await raiseEvent(a);
    const eventB = await raiseEvent(b);
    await advance(a, 0);

    const ofA = await items<InboxItem>(a, `/inbox?companyId=${companyOf(a)}`);
    expect(ofA.map((e) => [e.companyId, e.eventId, e.tentativa, e.answer.status])).toEqual([
      [companyOf(a), eventA, 1, 200],
    ]);
    expect(await items<InboxItem>(a, `/companies/${companyOf(a)}/inbox`)).toEqual(ofA);
    expect(ids(await items<InboxItem>(b, `/companies/${companyOf(b)}/inbox`))).toEqual([eventB]);
    const all = await items<InboxItem>(a, '/inbox');
    expect(
      all.filter((e) => [companyOf(a), companyOf(b)].includes(e.companyId)).map((e) => [e.companyId, e.eventId]),
    ).toEqual([
      [companyOf(a), eventA],
      [companyOf(b), eventB],
    ]);
  });

  it("DELETE /companies/{id}/inbox and DELETE /inbox?companyId= drop only that company's deliveries", async () => {
    const [a, b] = await twoCompanies();
    await raiseEvent(a);
    const eventB = await raiseEvent(b);
    await advance(a, 0);

    await cleared(a, `/companies/${companyOf(a)}/inbox`);
    expect(await items(a, `/inbox?companyId=${companyOf(a)}`)).toEqual([]);
    expect(ids(await items<InboxItem>(b, `/inbox?companyId=${companyOf(b)}`))).toEqual([eventB]);
    expect(ids(await items<InboxItem>(b, '/inbox'))).toContain(eventB);

    await cleared(b, `/inbox?companyId=${companyOf(b)}`);
    expect(await items(b, `/companies/${companyOf(b)}/inbox`)).toEqual([]);
  });
});

describe('the journal by company', () => {
  it("?companyId= on /requests and /companies/{id}/journal list and clear only the requests made with that company's credentials", async () => {
    const [a, b] = await twoCompanies();
    expect((await a.api.get('/v1/empresa')).status).toBe(200);
    expect((await b.api.get('/v1/catalogos')).status).toBe(200);

    const ofA = await items(a, `/requests?companyId=${companyOf(a)}`);
    expect(ofA.map((e) => [e.companyId, e.method, e.path, e.status])).toEqual([
      [companyOf(a), 'PUT', '/v1/webhook', 201],
      [companyOf(a), 'GET', '/v1/empresa', 200],
    ]);
    expect(await items(a, `/companies/${companyOf(a)}/journal`)).toEqual(ofA);
    expect((await items(b, `/companies/${companyOf(b)}/journal`)).map((e) => e.path)).toEqual([
      '/v1/webhook',
      '/v1/catalogos',
    ]);
    const all = await items(a, '/requests');
    expect(all.filter((e) => e.companyId === companyOf(a) || e.companyId === companyOf(b)).map((e) => e.path)).toEqual([
      '/v1/webhook',
      '/v1/webhook',
      '/v1/empresa',
      '/v1/catalogos',
    ]);

    await cleared(a, `/companies/${companyOf(a)}/journal`);
    expect(await items(a, `/requests?companyId=${companyOf(a)}`)).toEqual([]);
    expect((await items(b, `/requests?companyId=${companyOf(b)}`)).map((e) => e.path)).toEqual([
      '/v1/webhook',
      '/v1/catalogos',
    ]);
    await cleared(b, `/requests?companyId=${companyOf(b)}`);
    expect(await items(b, `/companies/${companyOf(b)}/journal`)).toEqual([]);
  });
});

describe('faults by company', () => {
  it('a fault added through /companies/{id}/faults matches only that company, and GET ?companyId= or the scope lists it there only', async () => {
    const [a, b] = await twoCompanies();
    const added = await a.controls.raw('POST', `/companies/${companyOf(a)}/faults`, {
      target: 'api',
      match: { method: 'get', path: '/v1/empresa' },
      effect: { status: 503 },
      times: 2,
    });
    expect(added.status, added.text).toBe(201);
    const id = added.body.id as string;
    const view = {
      id,
      target: 'api',
      match: { method: 'GET', path: '/v1/empresa', companyId: companyOf(a) },
      effect: { status: 503 },
      times: 2,
      skip: 0,
      hits: 0,
    };
    expect(await items(a, `/companies/${companyOf(a)}/faults`)).toEqual([view]);
    expect(await items(a, `/faults?companyId=${companyOf(a)}`)).toEqual([view]);
    expect(await items(b, `/companies/${companyOf(b)}/faults`)).toEqual([]);
    expect(await items(b, '/faults')).toContainEqual(view);

    expect((await b.api.get('/v1/empresa')).status).toBe(200);
    expect((await a.api.get('/v1/empresa')).status).toBe(503);
    expect(await items(a, `/companies/${companyOf(a)}/faults`)).toEqual([{ ...view, times: 1, hits: 1 }]);
  });

  it('a body naming another company in match.companyId is refused 422 at body.match.companyId, adding nothing', async () => {
    const [a, b] = await twoCompanies();
    const answer = await a.controls.raw('POST', `/companies/${companyOf(a)}/faults`, {
      target: 'job',
      match: { companyId: companyOf(b) },
      effect: { fail: true },
    });
    expectControlError(answer, 422, 'valor_invalido', 'body.match.companyId');
    expect(answer.body.erro.mensagem).toBe(
      `match.companyId must be this company's id (${companyOf(a)}) or left out: a fault added for a company matches only that company; got "${companyOf(b)}".`,
    );
    expectControlError(
      await a.controls.raw('POST', `/companies/${companyOf(a)}/faults`, { target: 'api', effect: { status: 42 } }),
      422,
      'valor_invalido',
      'body.effect',
    );
    const same = await a.controls.raw('POST', `/companies/${companyOf(a)}/faults`, {
      target: 'job',
      match: { companyId: companyOf(a) },
      effect: { fail: true },
    });
    expect(same.status, same.text).toBe(201);
    expect((await items(a, `/companies/${companyOf(a)}/faults`)).map((f) => f.id)).toEqual([same.body.id]);
    expect(await items(b, `/companies/${companyOf(b)}/faults`)).toEqual([]);
  });

  it("removing through a company's scope removes only its faults: another company's fault id is 404 falha_nao_encontrada", async () => {
    const [a, b] = await twoCompanies();
    const ofA = (
      await a.controls.raw('POST', `/companies/${companyOf(a)}/faults`, {
        target: 'delivery',
        effect: { refuse: true },
      })
    ).body.id as string;
    const ofB = (
      await b.controls.raw('POST', `/companies/${companyOf(b)}/faults`, {
        target: 'delivery',
        effect: { timeout: true },
      })
    ).body.id as string;
    const ofB2 = (
      await b.controls.addFault({ target: 'job', match: { companyId: companyOf(b) }, effect: { fail: true } })
    ).id;

    expectControlError(
      await a.controls.raw('DELETE', `/companies/${companyOf(a)}/faults/${ofB}`),
      404,
      'falha_nao_encontrada',
      'path.id',
    );
    expect((await items(b, `/faults?companyId=${companyOf(b)}`)).map((f) => f.id)).toEqual([ofB, ofB2]);

    const removed = await b.controls.raw('DELETE', `/companies/${companyOf(b)}/faults/${ofB}`);
    expect(removed.status, removed.text).toBe(204);
    expect(removed.text).toBe('');
    await cleared(b, `/faults?companyId=${companyOf(b)}`);
    expect(await items(b, `/companies/${companyOf(b)}/faults`)).toEqual([]);
    expect((await items(a, `/companies/${companyOf(a)}/faults`)).map((f) => f.id)).toEqual([ofA]);
    await cleared(a, `/companies/${companyOf(a)}/faults`);
    expect(await items(a, `/faults?companyId=${companyOf(a)}`)).toEqual([]);
  });
});

describe('refusals', () => {
  it('an unknown query parameter, companyId twice or a malformed companyId is 422 valor_invalido, and nothing is cleared', async () => {
    const [a] = await twoCompanies();
    await raiseEvent(a);
    await advance(a, 0);
    const id = companyOf(a);
    for (const view of ['/faults', '/inbox', '/requests']) {
      for (const method of ['GET', 'DELETE']) {
        expectControlError(
          await a.controls.raw(method, `${view}?company=${id}`),
          422,
          'valor_invalido',
          'query.company',
        );
        expectControlError(
          await a.controls.raw(method, `${view}?companyId=${id}&limite=5`),
          422,
          'valor_invalido',
          'query.limite',
        );
        expectControlError(
          await a.controls.raw(method, `${view}?companyId=${id}&companyId=${id}`),
          422,
          'valor_invalido',
          'query.companyId',
        );
        for (const bad of ['', 'acme', id.toUpperCase(), '%ZZ', `${id}%00`]) {
          expectControlError(
            await a.controls.raw(method, `${view}?companyId=${bad}`),
            422,
            'valor_invalido',
            'query.companyId',
          );
        }
      }
    }
    expect((await items(a, `/inbox?companyId=${id}`)).length).toBe(1);
    expect((await items(a, `/requests?companyId=${id}`)).length).toBe(1);
  });

  it('a company id no company has is 404 empresa_nao_encontrada, filtered (at query.companyId) or scoped (at path.companyId)', async () => {
    const [a] = await twoCompanies();
    for (const view of ['/faults', '/inbox', '/requests']) {
      for (const method of ['GET', 'DELETE'])
        expectControlError(
          await a.controls.raw(method, `${view}?companyId=${UNKNOWN}`),
          404,
          'empresa_nao_encontrada',
          'query.companyId',
        );
    }
    for (const view of ['faults', 'inbox', 'journal']) {
      for (const method of ['GET', 'DELETE'])
        expectControlError(
          await a.controls.raw(method, `/companies/${UNKNOWN}/${view}`),
          404,
          'empresa_nao_encontrada',
          'path.companyId',
        );
    }
    expectControlError(
      await a.controls.raw('POST', `/companies/${UNKNOWN}/faults`, { target: 'api', effect: { status: 503 } }),
      404,
      'empresa_nao_encontrada',
      'path.companyId',
    );
    expectControlError(
      await a.controls.raw('DELETE', `/companies/${UNKNOWN}/faults/flt_1`),
      404,
      'empresa_nao_encontrada',
      'path.companyId',
    );
    expect(await items(a, `/faults?companyId=${companyOf(a)}`)).toEqual([]);
  });
});
