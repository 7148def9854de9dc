/**
 * The views of the faults, the inbox and the journal kept to one company, in process: the filters
 * (emu.faults.list({ companyId }), …) and a company's scope (emu.companies.scope(id)).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../index.js';
import { ControlError } from './control-error.js';
import { FaultInputError } from '../engine/faults.js';
import { JournalFilterError } from '../engine/journal.js';

const emulators: Emulator[] = [];
afterEach(async () => {
  await Promise.all(emulators.splice(0).map((emu) => emu.close()));
});

const UNKNOWN = '019b76da-a800-7520-a337-000000000000';

/** An emulator with two companies, each with an unrouted destination (its deliveries land in the inbox). */
async function twoCompanies() {
  const emu = createEmulator();
  emulators.push(emu);
  const [a, b] = [emu.companies.create(), emu.companies.create()];
  for (const [company, host] of [
    [a, 'https://a.example'],
    [b, 'https://b.example'],
  ] as const) {
    const answer = await emu.fetch('/v1/webhook', {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${company.token}`,
        'content-type': 'application/json',
        'idempotency-key': `destination-${company.companyId}`,
        'if-none-match': '*',
      },
      body: JSON.stringify({ url: `${host}/recebe` }),
    });
    expect(answer.status).toBe(201);
  }
  return { emu, a, b };
}

/** Throws `run` a ControlError with this status, code and caminho? */
function refused(run: () => unknown, status: number, codigo: string, caminho: string): void {
  let error: unknown;
  try {
    run();
  } catch (thrown) {
    error = thrown;
  }
  expect(error).toBeInstanceOf(ControlError);
  expect(error).toMatchObject({ status, codigo, caminho });
}

describe('views filtered by company', () => {
  it('inbox: each delivery carries its companyId; list and clear keep to the company named', async () => {
    const { emu, a, b } = await twoCompanies();
    const eventA = emu.webhooks.raise(a.companyId, { tipo: 'webhook.teste' }).eventId;
    const eventB = emu.webhooks.raise(b.companyId, { tipo: 'webhook.teste' }).eventId;
    await emu.clock.runUntilIdle();

    expect(emu.inbox.list().map((e) => [e.companyId, e.eventId])).toEqual([
      [a.companyId, eventA],
      [b.companyId, eventB],
    ]);
    expect(emu.inbox.list({ companyId: a.companyId }).map((e) => e.eventId)).toEqual([eventA]);
    expect(emu.inbox.list({ companyId: b.companyId }).map((e) => e.eventId)).toEqual([eventB]);

    emu.inbox.clear({ companyId: a.companyId });
    expect(emu.inbox.list({ companyId: a.companyId })).toEqual([]);
    expect(emu.inbox.list().map((e) => e.eventId)).toEqual([eventB]);
    emu.inbox.clear();
    expect(emu.inbox.list()).toEqual([]);
  });

  it('journal: entries and clear keep to the company whose credential made the request', async () => {
    const { emu, a, b } = await twoCompanies();
    emu.journal.clear();
    await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${a.token}` } });
    await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${b.token}` } });
    await emu.fetch('/v1/empresa');

    expect(emu.journal.entries().map((e) => e.companyId)).toEqual([a.companyId, b.companyId, null]);
    expect(emu.journal.entries({ companyId: b.companyId }).map((e) => [e.companyId, e.path, e.status])).toEqual([
      [b.companyId, '/v1/empresa', 200],
    ]);

    emu.journal.clear({ companyId: b.companyId });
    expect(emu.journal.entries().map((e) => e.companyId)).toEqual([a.companyId, null]);
  });

  it('faults: a fault is of the company its match.companyId names; clear keeps the others', async () => {
    const { emu, a, b } = await twoCompanies();
    const ofA = emu.faults.add({ target: 'job', match: { companyId: a.companyId }, effect: { fail: true } }).id;
    const ofB = emu.faults.add({ target: 'api', match: { companyId: b.companyId }, effect: { status: 503 } }).id;
    const ofNone = emu.faults.add({ target: 'delivery', effect: { refuse: true } }).id;

    expect(emu.faults.list({ companyId: a.companyId }).map((f) => f.id)).toEqual([ofA]);
    expect(emu.faults.list({ companyId: b.companyId }).map((f) => f.id)).toEqual([ofB]);
    emu.faults.clear({ companyId: a.companyId });
    expect(emu.faults.list().map((f) => f.id)).toEqual([ofB, ofNone]);
  });

  it('refuses a malformed filter 422 and a company that does not exist 404, changing nothing', async () => {
    const { emu, a } = await twoCompanies();
    const fault = emu.faults.add({ target: 'api', match: { companyId: a.companyId }, effect: { status: 503 } }).id;
    for (const companyId of ['', 'acme', a.companyId.toUpperCase(), `${a.companyId} `]) {
      refused(() => emu.faults.clear({ companyId }), 422, 'valor_invalido', 'query.companyId');
      refused(() => emu.inbox.list({ companyId }), 422, 'valor_invalido', 'query.companyId');
    }
    refused(() => emu.journal.count({ companyId: UNKNOWN }), 404, 'empresa_nao_encontrada', 'query.companyId');
    // The journal's filters, companyId among them, are refused as a filter that is not one: a TypeError naming the
    // field, with what it accepts (the same 422 over HTTP).
    for (const companyId of ['', 'acme', a.companyId.toUpperCase(), `${a.companyId} `, 7]) {
      const accepts = 'a company id of this emulator (a lowercase UUID, as POST /_emulator/companies answers it)';
      const message = `companyId must be ${accepts}; got ${JSON.stringify(companyId)}.`;
      const filter = { companyId } as never;
      for (const query of [() => emu.journal.entries(filter), () => emu.journal.count(filter)]) {
        let error: unknown;
        try {
          query();
        } catch (thrown) {
          error = thrown;
        }
        expect(error).toBeInstanceOf(JournalFilterError);
        expect(error).toMatchObject({ field: 'companyId', message });
      }
    }
    expect(() => emu.journal.entries({ company: a.companyId } as never)).toThrow(JournalFilterError);
    refused(() => emu.journal.clear(null as never), 422, 'valor_invalido', 'query');
    refused(() => emu.faults.clear({ companyId: UNKNOWN }), 404, 'empresa_nao_encontrada', 'query.companyId');
    expect(emu.faults.list().map((f) => f.id)).toEqual([fault]);
  });
});

describe('emu.companies.scope(id)', () => {
  it('adds faults that match only the company; lists, removes and clears only its own', async () => {
    const { emu, a, b } = await twoCompanies();
    const scopeA = emu.companies.scope(a.companyId);
    const scopeB = emu.companies.scope(b.companyId);
    const added = scopeA.faults.add({
      target: 'api',
      match: { method: 'get', path: '/v1/empresa' },
      effect: { status: 503 },
      times: null,
    });
    const named = scopeA.faults.add({ target: 'job', match: { companyId: a.companyId }, effect: { fail: true } });
    const unmatched = scopeA.faults.add({ target: 'delivery', effect: { refuse: true } });
    const ofB = scopeB.faults.add({ target: 'delivery', effect: { timeout: true } });

    expect(scopeA.faults.list()).toEqual([
      {
        id: added.id,
        target: 'api',
        match: { method: 'GET', path: '/v1/empresa', companyId: a.companyId },
        effect: { status: 503 },
        times: null,
        skip: 0,
        hits: 0,
      },
      {
        id: named.id,
        target: 'job',
        match: { companyId: a.companyId },
        effect: { fail: true },
        times: 1,
        skip: 0,
        hits: 0,
      },
      {
        id: unmatched.id,
        target: 'delivery',
        match: { companyId: a.companyId },
        effect: { refuse: true },
        times: 1,
        skip: 0,
        hits: 0,
      },
    ]);
    // The fault fires for its company only.
    expect((await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${a.token}` } })).status).toBe(503);
    expect((await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${b.token}` } })).status).toBe(200);

    expect(scopeA.faults.remove(ofB.id)).toBe(false);
    expect(scopeB.faults.list().map((f) => f.id)).toEqual([ofB.id]);
    expect(scopeA.faults.remove(named.id)).toBe(true);
    scopeA.faults.clear();
    expect(emu.faults.list().map((f) => f.id)).toEqual([ofB.id]);
  });

  it('refuses a fault whose match names another company (FaultInputError at match.companyId), adding nothing', async () => {
    const { emu, a, b } = await twoCompanies();
    const scope = emu.companies.scope(a.companyId);
    expect(() =>
      scope.faults.add({ target: 'api', match: { companyId: b.companyId }, effect: { status: 503 } }),
    ).toThrow(
      new FaultInputError(
        `match.companyId must be this company's id (${a.companyId}) or left out: a fault added for a company matches only that company; got "${b.companyId}".`,
        'match.companyId',
      ),
    );
    // What is not a fault at all is refused by the fault's own check, as emu.faults.add refuses it.
    expect(() => scope.faults.add({ target: 'api', match: null, effect: { status: 503 } } as never)).toThrow(
      FaultInputError,
    );
    expect(() => scope.faults.add('api' as never)).toThrow(FaultInputError);
    expect(emu.faults.list()).toEqual([]);
  });

  it("shows and clears only the company's inbox and journal", async () => {
    const { emu, a, b } = await twoCompanies();
    emu.webhooks.raise(a.companyId, { tipo: 'webhook.teste' });
    const eventB = emu.webhooks.raise(b.companyId, { tipo: 'webhook.teste' }).eventId;
    await emu.clock.runUntilIdle();
    const scopeA = emu.companies.scope(a.companyId);
    expect(scopeA.inbox.list().map((e) => e.companyId)).toEqual([a.companyId]);
    expect(scopeA.journal.entries().map((e) => [e.companyId, e.method, e.path])).toEqual([
      [a.companyId, 'PUT', '/v1/webhook'],
    ]);
    scopeA.inbox.clear();
    scopeA.journal.clear();
    expect(emu.inbox.list().map((e) => e.eventId)).toEqual([eventB]);
    expect(emu.journal.entries().map((e) => e.companyId)).toEqual([b.companyId]);
  });

  it('is 404 empresa_nao_encontrada for an unknown company, when taken and at each call once the company is gone', async () => {
    const { emu, a } = await twoCompanies();
    refused(() => emu.companies.scope(UNKNOWN), 404, 'empresa_nao_encontrada', 'path.companyId');
    const scope = emu.companies.scope(a.companyId);
    emu.reset();
    refused(() => scope.faults.list(), 404, 'empresa_nao_encontrada', 'path.companyId');
    refused(() => scope.inbox.clear(), 404, 'empresa_nao_encontrada', 'path.companyId');
  });

  it('works the same for a company on a clock of its own', async () => {
    const { emu } = await twoCompanies();
    const own = emu.companies.create({ clock: 'own' });
    const scope = emu.companies.scope(own.companyId);
    scope.faults.add({ target: 'api', effect: { status: 500 } });
    expect((await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${own.token}` } })).status).toBe(500);
    expect(scope.journal.entries().map((e) => [e.status, e.faultId])).toEqual([[500, expect.stringMatching(/^flt_/)]]);
    expect(emu.journal.entries({ companyId: own.companyId })).toEqual(scope.journal.entries());
  });
});

describe('emu.journal.find and count', () => {
  /** Two companies' requests over two minutes: reads, a 412 edit, a replayed create, a fault's 503 and an anonymous 401. */
  async function traffic() {
    const { emu, a, b } = await twoCompanies();
    emu.journal.clear();
    const as = (token: string | undefined, path: string, init: RequestInit = {}) =>
      emu.fetch(path, {
        ...init,
        headers: {
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
          'content-type': 'application/json',
          ...init.headers,
        },
      });
    await as(a.token, '/v1/empresa');
    const catalog = await as(a.token, '/v1/catalogos', {
      method: 'POST',
      headers: { 'idempotency-key': 'catalog-create-0001' },
      body: JSON.stringify({ estabelecimento_id: a.headOffice.id, nome: 'Loja' }),
    });
    expect(catalog.status).toBe(201);
    await as(a.token, '/v1/catalogos', {
      method: 'POST',
      headers: { 'idempotency-key': 'catalog-create-0001' },
      body: JSON.stringify({ estabelecimento_id: a.headOffice.id, nome: 'Loja' }),
    });
    await emu.clock.advance('1m');
    const id = ((await catalog.json()) as { id: string }).id;
    const stale = await as(a.token, `/v1/catalogos/${id}`, {
      method: 'PATCH',
      headers: { 'idempotency-key': 'catalog-edit-00001', 'if-match': '"stale"' },
      body: JSON.stringify({ nome: 'Outra' }),
    });
    expect(stale.status).toBe(412);
    const fault = emu.faults.add({ target: 'api', match: { path: '/v1/empresa' }, effect: { status: 503 } }).id;
    await as(b.token, '/v1/empresa');
    await as(undefined, '/v1/empresa');
    return { emu, a, b, catalogId: id, fault };
  }

  it('keeps the entries every field given holds for, and counts them', async () => {
    const { emu, a, b, catalogId, fault } = await traffic();
    const seen = (filter: Parameters<typeof emu.journal.find>[0]) =>
      emu.journal.find(filter).map((e) => `${e.method} ${e.path} ${e.status}${e.codigo ? ` ${e.codigo}` : ''}`);
    expect(seen({})).toEqual([
      'GET /v1/empresa 200',
      'POST /v1/catalogos 201',
      'POST /v1/catalogos 201',
      `PATCH /v1/catalogos/${catalogId} 412 precondicao_falhou`,
      'GET /v1/empresa 503 servico_indisponivel',
      'GET /v1/empresa 401 credencial_ausente',
    ]);
    expect(seen({ companyId: b.companyId })).toEqual(['GET /v1/empresa 503 servico_indisponivel']);
    expect(seen({ method: 'patch', path: '/v1/catalogos/*', status: 412 })).toEqual([
      `PATCH /v1/catalogos/${catalogId} 412 precondicao_falhou`,
    ]);
    expect(seen({ status: '4xx' })).toEqual([
      `PATCH /v1/catalogos/${catalogId} 412 precondicao_falhou`,
      'GET /v1/empresa 401 credencial_ausente',
    ]);
    expect(seen({ codigo: 'servico_indisponivel' })).toEqual(['GET /v1/empresa 503 servico_indisponivel']);
    expect(emu.journal.find({ replayed: true }).map((e) => [e.idempotencyKey, e.replayed])).toEqual([
      ['catalog-create-0001', true],
    ]);
    expect(emu.journal.find({ faultId: fault }).map((e) => e.companyId)).toEqual([b.companyId]);
    expect(seen({ to: '2026-01-01T00:01:00Z' })).toEqual([
      'GET /v1/empresa 200',
      'POST /v1/catalogos 201',
      'POST /v1/catalogos 201',
    ]);
    expect(seen({ from: new Date('2026-01-01T00:01:00Z'), companyId: a.companyId })).toEqual([
      `PATCH /v1/catalogos/${catalogId} 412 precondicao_falhou`,
    ]);
    expect(seen({ limit: 2 })).toEqual([
      'GET /v1/empresa 503 servico_indisponivel',
      'GET /v1/empresa 401 credencial_ausente',
    ]);
    expect(emu.journal.count({ method: 'GET', path: '/v1/empresa' })).toBe(3);
    expect(emu.journal.count({ status: '5xx', companyId: a.companyId })).toBe(0);
    // find with no filter is the journal whole, as entries() has always been.
    expect(emu.journal.find()).toEqual(emu.journal.entries());
  });

  it("through a company's scope: its requests only, and a companyId there must be its own", async () => {
    const { emu, a, b } = await traffic();
    const scope = emu.companies.scope(a.companyId);
    expect(scope.journal.count()).toBe(4);
    expect(scope.journal.find({ method: 'POST', replayed: false }).map((e) => e.status)).toEqual([201]);
    expect(scope.journal.count({ companyId: a.companyId, status: 412 })).toBe(1);
    expect(scope.journal.entries({ status: '2xx' })).toEqual(
      emu.journal.find({ companyId: a.companyId, status: '2xx' }),
    );
    expect(() => scope.journal.find({ companyId: b.companyId })).toThrow(
      new JournalFilterError(
        'companyId',
        `companyId must be this company's id (${a.companyId}) or left out: a company's journal holds only its requests; got "${b.companyId}".`,
      ),
    );
    expect(() => scope.journal.count({ status: 'oops' } as never)).toThrow(JournalFilterError);
  });

  it('refuses a filter that is not one with a TypeError naming the field, and changes nothing', async () => {
    const { emu } = await traffic();
    const before = emu.journal.find();
    expect(() => emu.journal.find({ path: 'v1/empresa' })).toThrow(TypeError);
    expect(() => emu.journal.count({ limit: 0 })).toThrow(
      new JournalFilterError('limit', 'limit must be an integer from 1 to 10000; got 0.'),
    );
    expect(() => emu.journal.find({ from: '2026-01-01T00:02:00Z', to: '2026-01-01T00:01:00Z' })).toThrow(
      expect.objectContaining({ field: 'to' }) as unknown as Error,
    );
    expect(emu.journal.find()).toEqual(before);
  });
});
