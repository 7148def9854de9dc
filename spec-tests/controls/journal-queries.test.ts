/**
 * The journal's filters over HTTP: GET /_emulator/requests and /requests/count, and a company's
 * /_emulator/companies/{id}/journal and …/journal/count, take method, path (a glob), status (or a class), codigo,
 * from/to (virtual time), replayed, faultId, companyId and limit; a parameter that is not one, one given twice or a
 * value its filter does not accept is refused 422 at query.<name>. On the server other tests' requests are in the
 * journal too: every query here names the test's company, or reads the company's own journal.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/index.js';
import { otherCompany, world, type World } from '../support/client.js';
import { expectControlError } from '../support/expect.js';
import { deployment } from '../support/deployment.js';

beforeEach((context) => {
  if (deployment !== undefined)
    context.skip("checks the emulator's own journal of requests, which a deployment of the service does not have");
});

/** A company's requests over a minute: a read, a catalog created and replayed, a stale edit (412), a fault's 503; and another company's read. */
async function traffic() {
  const w = await world();
  const other = await otherCompany(w);
  const start = (await w.controls.clock()).now;
  expect((await w.api.get('/v1/empresa')).status).toBe(200);
  const key = 'journal-queries-catalog-0001';
  const body = { estabelecimento_id: w.company.headOffice.id, nome: 'Loja' };
  const created = await w.api.post('/v1/catalogos', body, { key });
  expect(created.status, created.text).toBe(201);
  const catalog = { id: created.body.id as string };
  const replay = await w.api.post('/v1/catalogos', body, { key });
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  const later = (await w.controls.advance('1m')).now;
  expect((await w.api.patch(`/v1/catalogos/${catalog.id}`, { nome: 'Nova' }, { ifMatch: '"stale"' })).status).toBe(412);
  const fault = await w.controls.addFault({
    target: 'api',
    match: { path: '/v1/empresa', companyId: w.company.companyId },
    effect: { status: 503 },
  });
  expect((await w.api.get('/v1/empresa')).status).toBe(503);
  expect((await other.api.get('/v1/empresa')).status).toBe(200);
  return { w, other, catalog, start, later, fault: fault.id };
}

async function found(w: World, query: string): Promise<JournalEntry[]> {
  const answer = await w.controls.raw('GET', `/requests?companyId=${w.company.companyId}${query}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.items as JournalEntry[];
}

async function counted(w: World, path: string): Promise<number> {
  const answer = await w.controls.raw('GET', path);
  expect(answer.status, answer.text).toBe(200);
  expect(Object.keys(answer.body as object)).toEqual(['count']);
  return answer.body.count as number;
}

const lines = (entries: JournalEntry[]) =>
  entries.map((e) => `${e.method} ${e.path} ${e.status}${e.codigo === null ? '' : ` ${e.codigo}`}`);

describe('GET /_emulator/requests with filters', () => {
  it('each filter keeps the entries it names, and every entry shows its codigo', async () => {
    const { w, other, catalog, start, later, fault } = await traffic();
    const all = await found(w, '');
    expect(lines(all)).toEqual([
      'GET /v1/empresa 200',
      'POST /v1/catalogos 201',
      'POST /v1/catalogos 201',
      `PATCH /v1/catalogos/${catalog.id} 412 precondicao_falhou`,
      'GET /v1/empresa 503 servico_indisponivel',
    ]);
    expect(all[0]).toEqual({
      at: start,
      method: 'GET',
      path: '/v1/empresa',
      status: 200,
      codigo: null,
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      companyId: w.company.companyId,
      idempotencyKey: null,
      replayed: false,
      faultId: null,
    });
    expect(lines(await found(w, '&method=patch'))).toEqual([
      `PATCH /v1/catalogos/${catalog.id} 412 precondicao_falhou`,
    ]);
    expect(lines(await found(w, '&path=/v1/catalogos/*'))).toEqual([
      `PATCH /v1/catalogos/${catalog.id} 412 precondicao_falhou`,
    ]);
    expect(lines(await found(w, '&path=/v1/**'))).toEqual(lines(all));
    expect(lines(await found(w, '&status=503'))).toEqual(['GET /v1/empresa 503 servico_indisponivel']);
    expect(lines(await found(w, '&status=4xx'))).toEqual([`PATCH /v1/catalogos/${catalog.id} 412 precondicao_falhou`]);
    expect(lines(await found(w, '&status=2XX'))).toEqual(lines(all).slice(0, 3));
    expect(lines(await found(w, '&codigo=precondicao_falhou'))).toEqual([
      `PATCH /v1/catalogos/${catalog.id} 412 precondicao_falhou`,
    ]);
    expect((await found(w, `&from=${later}`)).map((e) => e.at)).toEqual([later, later]);
    expect((await found(w, `&to=${later}`)).map((e) => e.at)).toEqual([start, start, start]);
    expect((await found(w, '&replayed=true')).map((e) => [e.path, e.status, e.replayed, e.idempotencyKey])).toEqual([
      ['/v1/catalogos', 201, true, 'journal-queries-catalog-0001'],
    ]);
    expect(await found(w, '&replayed=false')).toEqual(all.filter((e) => !e.replayed));
    expect((await found(w, `&faultId=${fault}`)).map((e) => [e.status, e.faultId])).toEqual([[503, fault]]);
    expect(lines(await found(w, '&limit=2'))).toEqual(lines(all).slice(-2));
    // The other company's request is in its own journal, not this one's.
    expect(lines(await found(other, ''))).toEqual(['GET /v1/empresa 200']);
  });

  it('combines filters, and /count counts what the list answers', async () => {
    const { w, start } = await traffic();
    const id = w.company.companyId;
    expect(lines(await found(w, '&method=POST&path=/v1/catalogos&status=201&replayed=false&limit=1'))).toEqual([
      'POST /v1/catalogos 201',
    ]);
    expect(await counted(w, `/requests/count?companyId=${id}&method=POST&status=2xx`)).toBe(2);
    expect(await counted(w, `/requests/count?companyId=${id}&method=POST&status=2xx&limit=2`)).toBe(2);
    expect(await counted(w, `/requests/count?companyId=${id}&path=/v1/empresa&from=${start}`)).toBe(2);
    expect(await counted(w, `/requests/count?companyId=${id}&codigo=nada_disso`)).toBe(0);
    // A company's own journal takes the same filters, and its count too.
    const own = await w.controls.raw('GET', `/companies/${id}/journal?status=4xx&method=PATCH`);
    expect(own.status, own.text).toBe(200);
    expect(own.body.items).toEqual(await found(w, '&status=4xx&method=PATCH'));
    expect(await counted(w, `/companies/${id}/journal/count?status=5xx`)).toBe(1);
    expect(await counted(w, `/companies/${id}/journal/count`)).toBe(5);
  });
});

describe('refusals', () => {
  it('a parameter that is not a filter, one given twice or a value its filter does not accept is 422 at query.<name>', async () => {
    const { w } = await traffic();
    const id = w.company.companyId;
    const refusals: [string, string, string][] = [
      [
        'staus=500',
        'query.staus',
        'query.staus is not a parameter of this control; it takes companyId, method, path, status, codigo, from, to, replayed, faultId, limit.',
      ],
      ['method=GET&method=POST', 'query.method', 'query.method must be given once; got 2 values.'],
      [
        'method=GET%20X',
        'query.method',
        'method must be an HTTP method (GET, POST, PUT, PATCH, DELETE, …; any case); got "GET X".',
      ],
      [
        'path=v1/x',
        'query.path',
        'path must be a glob of 1 to 2048 characters starting with "/" ("*" is any run of characters but "/", "**" any run at all); got "v1/x".',
      ],
      [
        'status=7xx',
        'query.status',
        'status must be a status (100 to 599) or a class of them (1xx, 2xx, 3xx, 4xx, 5xx); got "7xx".',
      ],
      [
        'status=99',
        'query.status',
        'status must be a status (100 to 599) or a class of them (1xx, 2xx, 3xx, 4xx, 5xx); got 99.',
      ],
      [
        'status=-1',
        'query.status',
        'status must be a status (100 to 599) or a class of them (1xx, 2xx, 3xx, 4xx, 5xx); got "-1".',
      ],
      ['codigo=', 'query.codigo', 'codigo must be an error code (precondicao_falhou, …); got "".'],
      [
        'from=yesterday',
        'query.from',
        'from must be an ISO 8601 instant (2026-01-01T10:00:00Z, or a date: its midnight UTC), inclusive; got "yesterday".',
      ],
      [
        'from=2026-01-02&to=2026-01-01',
        'query.to',
        'to must be after from (from is inclusive, to exclusive): 2026-01-02T00:00:00.000Z to 2026-01-01T00:00:00.000Z keeps nothing.',
      ],
      ['replayed=1', 'query.replayed', 'replayed must be true or false; got "1".'],
      ['limit=0', 'query.limit', 'limit must be an integer from 1 to 10000; got 0.'],
      ['limit=10001', 'query.limit', 'limit must be an integer from 1 to 10000; got 10001.'],
      ['limit=1e3', 'query.limit', 'limit must be an integer from 1 to 10000; got "1e3".'],
      [
        'companyId=acme',
        'query.companyId',
        'companyId must be a company id of this emulator (a lowercase UUID, as POST /_emulator/companies answers ' +
          'it); got "acme".',
      ],
    ];
    for (const path of ['/requests', '/requests/count']) {
      for (const [query, caminho, message] of refusals) {
        const answer = await w.controls.raw('GET', `${path}?${query}`);
        expectControlError(answer, 422, 'valor_invalido', caminho as `query.${string}`);
        expect(answer.body.erro.mensagem, `${path}?${query}`).toBe(message);
      }
    }
    // A company's journal is the path's company: companyId is not one of its parameters.
    expectControlError(
      await w.controls.raw('GET', `/companies/${id}/journal?companyId=${id}`),
      422,
      'valor_invalido',
      'query.companyId',
    );
    expectControlError(
      await w.controls.raw('GET', `/companies/${id}/journal/count?limit=x`),
      422,
      'valor_invalido',
      'query.limit',
    );
    // Refused, nothing changed: the journal is as it was.
    expect(await counted(w, `/companies/${id}/journal/count`)).toBe(5);
  });

  it('an id no company has is 404, a value that is no company id 422, as every view answers', async () => {
    const { w } = await traffic();
    const unknown = '019b76da-a800-7520-a337-000000000000';
    const mensagem = `No company ${unknown} in this emulator.`;
    const notFound = (caminho: string) => ({
      erro: { codigo: 'empresa_nao_encontrada', mensagem, request_id: '_emulator', caminho },
    });
    const views = [
      ['GET', '/requests'],
      ['GET', '/requests/count'],
      ['DELETE', '/requests'],
      ['GET', '/faults'],
      ['GET', '/report'],
    ] as const;
    for (const [method, path] of views) {
      const answer = await w.controls.raw(method, `${path}?companyId=${unknown}`);
      expect([answer.status, answer.body], `${method} ${path}`).toEqual([404, notFound('query.companyId')]);
    }
    for (const path of [`/companies/${unknown}/journal`, `/companies/${unknown}/journal/count`]) {
      const answer = await w.controls.raw('GET', path);
      expect([answer.status, answer.body], path).toEqual([404, notFound('path.companyId')]);
    }
    const accepts = 'a company id of this emulator (a lowercase UUID, as POST /_emulator/companies answers it)';
    for (const value of ['acme', '', 'x'.repeat(65), w.company.companyId.toUpperCase()]) {
      const erro = { codigo: 'valor_invalido', request_id: '_emulator', caminho: 'query.companyId' };
      const invalid = (mensagem: string) => [422, { erro: { ...erro, mensagem } }];
      for (const path of ['/requests', '/requests/count']) {
        const answer = await w.controls.raw('GET', `${path}?companyId=${encodeURIComponent(value)}`);
        const refusal = invalid(`companyId must be ${accepts}; got ${JSON.stringify(value)}.`);
        expect([answer.status, answer.body], `${path} ${value}`).toEqual(refusal);
      }
      // The other views of a company say the same, with the parameter's place first.
      const faults = await w.controls.raw('GET', `/faults?companyId=${encodeURIComponent(value)}`);
      const refusal = invalid(`query.companyId must be ${accepts}; got ${JSON.stringify(value)}.`);
      expect([faults.status, faults.body], `/faults ${value}`).toEqual(refusal);
    }
  });
});
