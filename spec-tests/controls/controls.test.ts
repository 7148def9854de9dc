/**
 * The emulator controls over HTTP under /_emulator (docs/controls.md): description, companies and credentials,
 * the virtual clock, api faults, the request journal, state snapshot and restore, and reset (in process only:
 * reset is global, and the server is shared by every spec file).
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  Api,
  headOfficeCatalog,
  NCM,
  newKey,
  otherCompany,
  product,
  until,
  world,
  type Answer,
  type World,
} from '../support/client.js';
import { headOfficeCnpj } from '../support/cnpj.js';
import { expectControlError, expectError, UUID } from '../support/expect.js';
import { ALL_PERMISSIONS, productsPath, UNKNOWN_V7_ID } from '../support/fixtures.js';
import { mayResetTarget } from '../support/target.js';
import {
  clockNow,
  createDestination,
  DAY,
  deliveryFault,
  eventDetail,
  hookHost,
  HOUR,
  iso,
  MINUTE,
  raiseEvent,
  removeFault,
  SECOND,
} from '../support/webhooks.js';
import { deployment } from '../support/deployment.js';

// Every test here is about the emulator itself: against a deployment each is skipped, before it sends anything.
beforeEach((context) => {
  if (deployment !== undefined)
    context.skip("checks the emulator's own /_emulator controls, which a deployment of the service does not have");
});

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** A root no company is likely to have: the world's own root plus one (mod 10^8). */
const neighbourRoot = (root: string) => String((Number(root) + 1) % 100_000_000).padStart(8, '0');

interface JournalItem {
  at: string;
  method: string;
  path: string;
  status: number;
  companyId: string | null;
  idempotencyKey: string | null;
  replayed: boolean;
  requestId: string;
  faultId: string | null;
}

async function journalEntry(w: World, answer: Answer): Promise<JournalItem | undefined> {
  const { items } = (await w.controls.requests()) as { items: JournalItem[] };
  return items.find((e) => e.requestId === answer.headers.get('x-request-id'));
}

describe('GET /_emulator', () => {
  it('describes the emulator: name, version, now, clock mode manual, seed', async () => {
    const w = await world();
    const info = await w.controls.info();
    const clock = await w.controls.clock();
    expect(info).toEqual({
      name: 'catalog-emulator',
      version: PACKAGE_VERSION,
      now: clock.now,
      clockMode: 'manual',
      seed: info.seed,
    });
    expect(['number', 'string']).toContain(typeof info.seed);
    expect(new Date(info.now).toISOString()).toBe(info.now);
  });

  it('answers an unknown control with 404 rota_nao_encontrada', async () => {
    const w = await world();
    expectControlError(await w.controls.raw('GET', '/nada'), 404, 'rota_nao_encontrada');
    expectControlError(await w.controls.raw('POST', '/clock/nada', {}), 404, 'rota_nao_encontrada');
  });
});

describe('/_emulator/companies', () => {
  it('creates a company with defaults: 201, head office CNPJ of its root, a token with all six permissions', async () => {
    const w = await world();
    const answer = await w.controls.raw('POST', '/companies', {});
    expect(answer.status).toBe(201);
    const { companyId, cnpjRoot, token, headOffice } = answer.body;
    expect(Object.keys(answer.body).sort()).toEqual(['cnpjRoot', 'companyId', 'headOffice', 'token']);
    expect(companyId).toMatch(UUID);
    expect(cnpjRoot).toMatch(/^\d{8}$/);
    expect(typeof token).toBe('string');
    expect(headOffice.id).toMatch(UUID);
    expect(headOffice.cnpj).toBe(headOfficeCnpj(cnpjRoot));
    const api = w.api.as(token);
    const empresa = await api.get('/v1/empresa');
    expect(empresa.body).toMatchObject({ id: companyId, cnpj_raiz: cnpjRoot });
    const contexto = await api.get('/v1/contexto');
    expect([...contexto.body.credencial.permissoes].sort()).toEqual([...ALL_PERMISSIONS].sort());
    expect(contexto.body.assinatura).toEqual({ ativa: true });
    const establishment = await api.get(`/v1/estabelecimentos/${headOffice.id}`);
    expect(establishment.body).toMatchObject({
      id: headOffice.id,
      cnpj: headOffice.cnpj,
      estado: 'ativo',
      catalogo_id: null,
    });
    const capacity = await api.get('/v1/empresa/capacidade');
    expect(capacity.body).toEqual({
      vigilancia: { direito_ativo: true, capacidade: 100, selecionados: 0, vagas: 100 },
      analises: { franquia: 10, disponiveis: 10 },
    });
  });

  it('creates a company with a chosen root, name, flags and permissions', async () => {
    const w = await world();
    const cnpjRoot = neighbourRoot(w.company.cnpjRoot);
    const answer = await w.controls.raw('POST', '/companies', {
      cnpjRoot,
      name: 'Acme Ltda',
      subscriptionActive: false,
      surveillanceEntitled: false,
      surveillanceCapacity: 3,
      analysisAllowance: 1,
      permissions: ['catalogo:ler'],
    });
    expect(answer.status).toBe(201);
    expect(answer.body.cnpjRoot).toBe(cnpjRoot);
    expect(answer.body.headOffice.cnpj).toBe(headOfficeCnpj(cnpjRoot));
    const api = w.api.as(answer.body.token);
    expect((await api.get('/v1/empresa')).body).toEqual({
      id: answer.body.companyId,
      cnpj_raiz: cnpjRoot,
      nome: 'Acme Ltda',
    });
    const contexto = await api.get('/v1/contexto');
    expect(contexto.body.credencial.permissoes).toEqual(['catalogo:ler']);
    expect(contexto.body.assinatura).toEqual({ ativa: false });
    expect((await api.get('/v1/empresa/capacidade')).body).toEqual({
      vigilancia: { direito_ativo: false, capacidade: 3, selecionados: 0, vagas: 3 },
      analises: { franquia: 1, disponiveis: 1 },
    });
    expect((await api.post('/v1/catalogos', { estabelecimento_id: answer.body.headOffice.id, nome: 'x' })).status).toBe(
      403,
    );
  });

  it('refuses a root another company has with 409', async () => {
    const w = await world();
    const answer = await w.controls.raw('POST', '/companies', { cnpjRoot: w.company.cnpjRoot });
    expectControlError(answer, 409, 'raiz_cnpj_duplicada', 'body.cnpjRoot');
  });

  it.each(['1234567', '123456789', 'ABCDEFGH', '1234 678'])(
    'refuses the root %j with 422 raiz_cnpj_invalida',
    async (cnpjRoot) => {
      const w = await world();
      expectControlError(
        await w.controls.raw('POST', '/companies', { cnpjRoot }),
        422,
        'raiz_cnpj_invalida',
        'body.cnpjRoot',
      );
    },
  );

  it('refuses a malformed company body with 422', async () => {
    const w = await world();
    expectControlError(
      await w.controls.raw('POST', '/companies', { cnpjRoot: 12345678 }),
      422,
      'valor_invalido',
      'body.cnpjRoot',
    );
    expectControlError(
      await w.controls.raw('POST', '/companies', { permissions: ['tudo:fazer'] }),
      422,
      'valor_invalido',
      'body.permissions[0]',
    );
    expectControlError(
      await w.controls.raw('POST', '/companies', { surveillanceCapacity: -1 }),
      422,
      'valor_invalido',
      'body.surveillanceCapacity',
    );
    expectControlError(
      await w.controls.raw('POST', '/companies', { nome: 'typo' }),
      422,
      'valor_invalido',
      'body.nome',
    );
  });

  it('changes flags with PATCH: the API sees them at once', async () => {
    const w = await world();
    const answer = await w.controls.raw('PATCH', `/companies/${w.company.companyId}`, {
      name: 'Renomeada',
      subscriptionActive: false,
      surveillanceCapacity: 7,
      analysisAllowance: 0,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      id: w.company.companyId,
      name: 'Renomeada',
      subscriptionActive: false,
      surveillanceCapacity: 7,
      analysisAllowance: 0,
    });
    expect((await w.api.get('/v1/empresa')).body.nome).toBe('Renomeada');
    expect((await w.api.get('/v1/contexto')).body.assinatura).toEqual({ ativa: false });
    expect((await w.api.get('/v1/empresa/capacidade')).body).toMatchObject({
      vigilancia: { capacidade: 7 },
      analises: { franquia: 0 },
    });
    // Omitted flags are kept.
    const again = await w.controls.raw('PATCH', `/companies/${w.company.companyId}`, { subscriptionActive: true });
    expect(again.body).toMatchObject({ name: 'Renomeada', subscriptionActive: true, surveillanceCapacity: 7 });
  });

  it('refuses PATCH of an unknown company with 404 and bad flags with 422', async () => {
    const w = await world();
    expectControlError(
      await w.controls.raw('PATCH', `/companies/${UNKNOWN_V7_ID}`, { name: 'x' }),
      404,
      'empresa_nao_encontrada',
    );
    expectControlError(
      await w.controls.raw('PATCH', `/companies/${w.company.companyId}`, { surveillanceCapacity: -3 }),
      422,
      'valor_invalido',
      'body.surveillanceCapacity',
    );
    expectControlError(
      await w.controls.raw('PATCH', `/companies/${w.company.companyId}`, { cnpjRoot: '11111111' }),
      422,
      'valor_invalido',
      'body.cnpjRoot',
    );
  });

  it('issues credentials with chosen permissions: 201 {token}', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const answer = await w.controls.raw('POST', `/companies/${w.company.companyId}/credentials`, {
      permissions: ['catalogo:ler'],
    });
    expect(answer.status).toBe(201);
    expect(Object.keys(answer.body)).toEqual(['token']);
    expect(answer.body.token).not.toBe(w.company.token);
    const reader = w.api.as(answer.body.token);
    expect((await reader.get('/v1/contexto')).body.credencial.permissoes).toEqual(['catalogo:ler']);
    expect((await reader.get(`/v1/catalogos/${catalog.id}`)).status).toBe(200);
    expectError(
      await reader.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }),
      403,
      'permissao_insuficiente',
    );
    // Without permissions: all six.
    const full = await w.controls.raw('POST', `/companies/${w.company.companyId}/credentials`, {});
    expect(full.status).toBe(201);
    expect([...(await w.api.as(full.body.token).get('/v1/contexto')).body.credencial.permissoes].sort()).toEqual(
      [...ALL_PERMISSIONS].sort(),
    );
  });

  it('refuses credentials for an unknown company with 404 and unknown permissions with 422', async () => {
    const w = await world();
    expectControlError(
      await w.controls.raw('POST', `/companies/${UNKNOWN_V7_ID}/credentials`, {}),
      404,
      'empresa_nao_encontrada',
    );
    expectControlError(
      await w.controls.raw('POST', `/companies/${w.company.companyId}/credentials`, {
        permissions: ['catalogo:apagar'],
      }),
      422,
      'valor_invalido',
      'body.permissions[0]',
    );
  });
});

describe('/_emulator/clock', () => {
  it('GET answers {now, mode, pending, deadlines}', async () => {
    const w = await world();
    const clock = await w.controls.raw('GET', '/clock');
    expect(clock.status).toBe(200);
    expect(Object.keys(clock.body).sort()).toEqual(['deadlines', 'mode', 'now', 'pending']);
    expect(clock.body.mode).toBe('manual');
    expect(Number.isInteger(clock.body.pending)).toBe(true);
    // At least the emulator's own: idempotency purge, event retention, daily surveillance schedule.
    expect(clock.body.deadlines).toBeGreaterThanOrEqual(3);
    expect(new Date(clock.body.now).toISOString()).toBe(clock.body.now);
  });

  it.each([
    ['90s', 90_000],
    ['15m', 15 * 60_000],
    ['24h', 24 * 3_600_000],
    ['31d', 31 * 86_400_000],
    [1234, 1234],
  ])('advances by %j exactly', async (by, ms) => {
    const w = await world();
    const before = Date.parse((await w.controls.clock()).now);
    const answer = await w.controls.raw('POST', '/clock/advance', { by });
    expect(answer.status).toBe(200);
    expect(answer.body.now).toBe(new Date(before + ms).toISOString());
    expect(Number.isInteger(answer.body.ran)).toBe(true);
    expect((await w.controls.clock()).now).toBe(answer.body.now);
  });

  it('advances to an instant with {to}, and the API stamps records with the virtual time', async () => {
    const w = await world();
    const before = Date.parse((await w.controls.clock()).now);
    const to = new Date(before + 3 * 86_400_000 + 17_000).toISOString();
    const answer = await w.controls.raw('POST', '/clock/advance', { to });
    expect(answer.status).toBe(200);
    expect(answer.body.now).toBe(to);
    const catalog = await headOfficeCatalog(w);
    expect(catalog.body.criado_em).toBe(to);
    // {to: now} is not the past.
    expect((await w.controls.raw('POST', '/clock/advance', { to })).status).toBe(200);
  });

  it.each([
    ['a bad duration', { by: 'soon' }, 'body.by'],
    ['a negative duration', { by: -5 }, 'body.by'],
    ['a duration with an unknown unit', { by: '3w' }, 'body.by'],
  ])('refuses %s with 422', async (_name, body, caminho) => {
    const w = await world();
    const before = (await w.controls.clock()).now;
    expectControlError(await w.controls.raw('POST', '/clock/advance', body), 422, 'valor_invalido', caminho);
    expect((await w.controls.clock()).now).toBe(before);
  });

  it('refuses moving into the past, a bad instant, and a body that is neither {by} nor {to}, with 422', async () => {
    const w = await world();
    const before = (await w.controls.clock()).now;
    const past = new Date(Date.parse(before) - 1).toISOString();
    expectControlError(await w.controls.raw('POST', '/clock/advance', { to: past }), 422, 'valor_invalido', 'body.to');
    expectControlError(
      await w.controls.raw('POST', '/clock/advance', { to: 'next tuesday' }),
      422,
      'valor_invalido',
      'body.to',
    );
    expectControlError(await w.controls.raw('POST', '/clock/advance', {}), 422, 'valor_invalido');
    expectControlError(await w.controls.raw('POST', '/clock/advance', { by: '1s', to: before }), 422, 'valor_invalido');
    expect((await w.controls.clock()).now).toBe(before);
  });
});

describe("POST /_emulator/clock/advance: the clock's bounds", () => {
  /**
   * Sends `body`, refused with 422 at `caminho` and `message`; then the clock is as it was, its instant and its
   * tasks pending and scheduled: the refusal ran nothing (which no test times: CONTRIBUTING.md "Tests").
   */
  async function refusedAtOnce(w: World, body: object, caminho: string, message: string): Promise<void> {
    const before = await w.controls.clock();
    const answer = await w.controls.raw('POST', '/clock/advance', body);
    expectControlError(answer, 422, 'valor_invalido', caminho);
    expect(answer.body.erro.mensagem).toBe(message);
    expect(await w.controls.clock()).toEqual(before);
  }

  /** Days a {by} may not reach: 100 years, and the longest span a JSON number can carry exactly. */
  it.each([
    ['100 years', '36500d', '36,500 days (3153600000000 ms)'],
    ['100,000 days', '100000d', '100,000 days (8640000000000 ms)'],
    ['the largest safe integer of milliseconds', 9_007_199_254_740_991, '104,249,991.374 days (9007199254740991 ms)'],
    ['a day more than the bound, in milliseconds', 3651 * DAY, '3,651 days (315446400000 ms)'],
  ])(
    'refuses a {by} of %s at once, running nothing, with 422 naming the 3650-day bound, and the clock stays',
    async (_name, by, got) => {
      const w = await world();
      const message = `advance() moves the clock at most 3650 days (315360000000 ms) at a time; got ${got}: advance in steps`;
      await refusedAtOnce(w, { by }, 'body.by', message);
    },
  );

  it.each([
    ['half a millisecond', '0.5ms', /^by must be whole milliseconds or a duration such as "90s"/],
    ['a duration with a fraction of a millisecond', '1.0005s', /^by must be whole milliseconds/],
    ['more milliseconds than a JSON number holds exactly', '99999999999999999999', /^by must be whole milliseconds/],
    ['a fraction of a millisecond as a number', 1.5, /^by must be whole milliseconds .*; got 1\.5$/],
  ])('refuses a {by} of %s with 422 body.by instead of rounding it', async (_name, by, message) => {
    const w = await world();
    const before = await w.controls.clock();
    const answer = await w.controls.raw('POST', '/clock/advance', { by });
    expectControlError(answer, 422, 'valor_invalido', 'body.by');
    expect(answer.body.erro.mensagem).toMatch(message);
    expect(await w.controls.clock()).toEqual(before);
  });

  it('refuses a {to} past 9999-12-31T23:59:59.999Z (the furthest a Date can hold included) at once, running nothing, naming the last instant', async () => {
    const w = await world();
    for (const to of ['+275760-09-13T00:00:00.000Z', '+010000-01-01T00:00:00.000Z']) {
      const message = `advanceTo() cannot move the clock past its last instant, 9999-12-31T23:59:59.999Z; got ${to}`;
      await refusedAtOnce(w, { to }, 'body.to', message);
    }
  });

  it('refuses a {to} more than 3650 days ahead, naming the bound and how far it is', async () => {
    const w = await world();
    const before = await w.controls.clock();
    const to = new Date(Date.parse(before.now) + 3651 * DAY).toISOString();
    const answer = await w.controls.raw('POST', '/clock/advance', { to });
    expectControlError(answer, 422, 'valor_invalido', 'body.to');
    expect(answer.body.erro.mensagem).toBe(
      `advanceTo() moves the clock at most 3650 days (315360000000 ms) at a time; ${to} is 3,651 days after now (${before.now}): advance in steps`,
    );
    expect(await w.controls.clock()).toEqual(before);
  });
});

/**
 * Run-until-idle finishes the service's own work (deliveries, job runs) and never fires a deadline (an expiry,
 * retention, a daily schedule): those wait for the client or for time, and only advance reaches them.
 */
describe('POST /_emulator/clock/run-until-idle', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** Runs the work other tests left on a shared server, so that `ran` counts only this test's work. */
  async function idle(w: World): Promise<void> {
    const answer = await w.controls.raw('POST', '/clock/run-until-idle', {});
    expect(answer.status, answer.text).toBe(200);
  }

  /** An ingestion of one record into the catalog, closed and validated by the clock: its id and its receipt as validated. */
  async function validatedIngestion(w: World, catalogId: string): Promise<{ id: string; validated: any }> {
    const started = await w.api.post('/v1/catalogos/ingestoes', { operacao: 'mesclar', catalogo_id: catalogId });
    expect(started.status, started.text).toBe(201);
    const id: string = started.body.ingestao_id;
    expect(
      (
        await w.api.put(`/v1/catalogos/ingestoes/${id}/lotes/1`, {
          itens: [{ id_externo: 'idle-1', origem: 'erp', ncm: NCM }],
        })
      ).status,
    ).toBe(201);
    expect((await w.api.post(`/v1/catalogos/ingestoes/${id}/fechamento`, { total_lotes: 1 })).status).toBe(202);
    // Validation: 1 s + 1 ms per record, work run-until-idle carries out.
    const closedAt = await clockNow(w);
    const ran = await w.controls.raw('POST', '/clock/run-until-idle', {});
    expect(ran.status, ran.text).toBe(200);
    expect(ran.body).toEqual({ now: iso(closedAt + SECOND + 1), ran: 1 });
    const validated = await w.api.get(`/v1/catalogos/ingestoes/${id}`);
    expect(validated.body).toMatchObject({
      estado: 'validada',
      atualizada_em: iso(closedAt + SECOND + 1),
      expira_em: iso(closedAt + SECOND + 1 + DAY),
    });
    return { id, validated: validated.body };
  }

  /** A destination on a host of its own whose every delivery answers 500 (a delivery fault removed after the test). */
  async function failingDestination(w: World): Promise<string> {
    const host = hookHost();
    await createDestination(w, `${host}/recebe`);
    const faultId = await deliveryFault(w, { url: `${host}/**` }, { status: 500 }, null);
    cleanups.push(() => removeFault(w, faultId));
    return faultId;
  }

  it('leaves a validated ingestion validada: its 24 h expiry is a deadline, and run-until-idle fires none', async () => {
    const w = await world();
    await idle(w);
    const { id, validated } = await validatedIngestion(w, (await headOfficeCatalog(w)).id);
    const before = await w.controls.clock();

    const answer = await w.controls.raw('POST', '/clock/run-until-idle', {});
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.body).toEqual({ now: before.now, ran: 0 });
    const after = await w.api.get(`/v1/catalogos/ingestoes/${id}`);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(validated);
    expect(await w.controls.clock()).toEqual({ ...before, pending: 0 });
  });

  it('{limit: 10} carries a delivery that always fails through its 8 attempts: 200, ran 8, the event falhou; the hourly and daily deadlines it crosses neither run nor count', async () => {
    const w = await world();
    await idle(w);
    const faultId = await failingDestination(w);
    const t0 = await clockNow(w);
    const eventId = await raiseEvent(w);
    const { deadlines } = await w.controls.clock();

    const answer = await w.controls.raw('POST', '/clock/run-until-idle', { limit: 10 });
    expect(answer.status, answer.text).toBe(200);
    // The 8th attempt starts 22 h 35 min 5 s after the first (waits 5 s, 5 min, 30 min, 2 h, 5 h, 7 h, 8 h).
    const last = t0 + 22 * HOUR + 35 * MINUTE + 5 * SECOND;
    expect(answer.body).toEqual({ now: iso(last), ran: 8 });
    expect(await eventDetail(w, eventId)).toMatchObject({
      estado: 'falhou',
      codigo_falha: 'status_nao_2xx',
      status_http: 500,
      tentativas_ciclo: 8,
      tentativas_totais: 8,
      terminado_em: iso(last),
      proxima_tentativa_em: null,
    });
    expect(
      ((await w.controls.faults()).items as { id: string; hits: number }[]).find((f) => f.id === faultId)?.hits,
    ).toBe(8);
    // 22 hourly retention runs are overdue now, and still scheduled: nothing but work ran.
    expect(await w.controls.clock()).toEqual({ now: iso(last), mode: 'manual', pending: 0, deadlines });
  });

  it('{limit: 7} stops a delivery of 8 attempts with 409 limite_de_tarefas, saying the limit counts work only', async () => {
    const w = await world();
    await idle(w);
    await failingDestination(w);
    const eventId = await raiseEvent(w);

    const answer = await w.controls.raw('POST', '/clock/run-until-idle', { limit: 7 });
    expectControlError(answer, 409, 'limite_de_tarefas');
    expect(answer.body.erro.mensagem).toBe(
      'runUntilIdle stopped after 7 tasks of work (the limit counts work only: deadlines are never run by it) and work is still pending (webhook.tentativa): ' +
        'something keeps scheduling new work. Raise { limit } if this much work is expected, or use advance() to move a fixed span.',
    );
    expect(await eventDetail(w, eventId)).toMatchObject({ estado: 'pendente', tentativas_ciclo: 7 });
  });

  it('advance still fires deadlines: one run-until-idle passed fires at the next advance, overdue; a later one at its time', async () => {
    const w = await world();
    await idle(w);
    const catalog = await headOfficeCatalog(w);
    const { id, validated } = await validatedIngestion(w, catalog.id);
    const expiry = Date.parse(validated.expira_em);
    // A delivery raised 2 h later ends 22 h 35 min 5 s after that: past the ingestion's expiry.
    await w.controls.advance('2h');
    await failingDestination(w);
    const t0 = await clockNow(w);
    await raiseEvent(w);
    const last = t0 + 22 * HOUR + 35 * MINUTE + 5 * SECOND;
    expect(last).toBeGreaterThan(expiry);

    expect((await w.controls.raw('POST', '/clock/run-until-idle', {})).body).toEqual({ now: iso(last), ran: 8 });
    const passed = await w.api.get(`/v1/catalogos/ingestoes/${id}`);
    expect(passed.body).toMatchObject({ estado: 'validada', expira_em: validated.expira_em, codigo_falha: null });

    // The overdue expiry fires at the next advance, even of 0, at the current time.
    const advanced = await w.controls.advance(0);
    expect(advanced.now).toBe(iso(last));
    expect(advanced.ran).toBeGreaterThanOrEqual(1);
    const expired = await w.api.get(`/v1/catalogos/ingestoes/${id}`);
    expect(expired.body).toMatchObject({
      estado: 'expirada',
      codigo_falha: 'prazo_expirado',
      expira_em: null,
      atualizada_em: iso(last),
      versao: validated.versao + 1,
    });

    // A deadline ahead of now fires at its own time under advance (the expired ingestion freed the catalog). The
    // deadlines just fired may have opened work (a daily schedule opens surveillance executions): finish it first.
    await idle(w);
    const second = await validatedIngestion(w, catalog.id);
    const secondExpiry = Date.parse(second.validated.expira_em);
    await w.controls.advance(secondExpiry - 1 - (await clockNow(w)));
    expect((await w.api.get(`/v1/catalogos/ingestoes/${second.id}`)).body.estado).toBe('validada');
    await w.controls.advance(1);
    expect((await w.api.get(`/v1/catalogos/ingestoes/${second.id}`)).body).toMatchObject({
      estado: 'expirada',
      codigo_falha: 'prazo_expirado',
      atualizada_em: iso(secondExpiry),
    });
  });
});

describe('/_emulator/faults', () => {
  it('a status fault answers first, with Retry-After, and applies nothing (the key is not spent)', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const added = await w.controls.raw('POST', '/faults', {
      target: 'api',
      match: { method: 'POST', path: productsPath(catalog.id), companyId: w.company.companyId },
      effect: { status: 503, retryAfter: 7 },
    });
    expect(added.status).toBe(201);
    expect(typeof added.body.id).toBe('string');
    const key = newKey();
    const answer = await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key });
    expectError(answer, 503, 'servico_indisponivel');
    expect(answer.headers.get('retry-after')).toBe('7');
    // The answer names the fault that chose it: a client's logs tell an injected 503 from a real one.
    expect(answer.headers.get('x-emulator-fault')).toBe(added.body.id);
    expect(answer.body.erro.request_id).toBe(answer.headers.get('x-request-id'));
    expect((await w.api.get('/v1/produtos')).body.itens).toEqual([]);
    expect((await w.api.get(`/v1/catalogos/${catalog.id}`)).body.produtos).toBe(0);
    const retried = await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a status fault answers before the credential check', async () => {
    const w = await world();
    await w.controls.addFault({
      target: 'api',
      match: { method: 'GET', path: '/v1/empresa' },
      effect: { status: 429, retryAfter: 30 },
    });
    const answer = await w.api.as(undefined).get('/v1/empresa');
    expectError(answer, 429, 'limite_requisicoes');
    expect(answer.headers.get('retry-after')).toBe('30');
    expectError(await w.api.as(undefined).get('/v1/empresa'), 401, 'credencial_ausente');
  });

  it('counts `times` down and removes the fault when it reaches zero', async () => {
    const w = await world();
    const { id } = await w.controls.addFault({
      target: 'api',
      match: { method: 'GET', path: '/v1/empresa', companyId: w.company.companyId },
      effect: { status: 500 },
      times: 2,
    });
    const mine = async () =>
      ((await w.controls.faults()) as { items: { id: string; times: number | null; hits: number }[] }).items.find(
        (f) => f.id === id,
      );
    expect(await mine()).toMatchObject({ id, target: 'api', times: 2, hits: 0, effect: { status: 500 } });
    expect((await w.api.get('/v1/empresa')).status).toBe(500);
    expect(await mine()).toMatchObject({ times: 1, hits: 1 });
    expect((await w.api.get('/v1/empresa')).status).toBe(500);
    expect(await mine()).toBeUndefined();
    expect((await w.api.get('/v1/empresa')).status).toBe(200);
    expect((await w.api.get('/v1/empresa')).headers.get('x-emulator-fault')).toBeNull();
  });

  it('`skip` binds a fault to a position: the first matching requests pass, the next fires, and the list counts down', async () => {
    const w = await world();
    const { id } = await w.controls.addFault({
      target: 'api',
      match: { method: 'GET', path: '/v1/empresa', companyId: w.company.companyId },
      effect: { status: 503 },
      skip: 2,
    });
    const mine = async () =>
      ((await w.controls.faults()) as { items: { id: string; skip: number; hits: number }[] }).items.find(
        (f) => f.id === id,
      );
    expect(await mine()).toMatchObject({ skip: 2, times: 1, hits: 0 });
    expect((await w.api.get('/v1/catalogos')).status).toBe(200); // no match: not counted
    expect((await w.api.get('/v1/empresa')).status).toBe(200);
    expect(await mine()).toMatchObject({ skip: 1, hits: 0 });
    expect((await w.api.get('/v1/empresa')).status).toBe(200);
    const third = await w.api.get('/v1/empresa');
    expectError(third, 503, 'servico_indisponivel');
    expect(third.headers.get('x-emulator-fault')).toBe(id);
    expect(await mine()).toBeUndefined();
    expect((await w.api.get('/v1/empresa')).status).toBe(200);
    expectControlError(
      await w.controls.raw('POST', '/faults', { target: 'api', effect: { status: 503 }, skip: -1 }),
      422,
      'valor_invalido',
      'body.skip',
    );
  });

  it('defaults `times` to 1', async () => {
    const w = await world();
    await w.controls.addFault({
      target: 'api',
      match: { path: '/v1/empresa', companyId: w.company.companyId },
      effect: { status: 408 },
    });
    expectError(await w.api.get('/v1/empresa'), 408, 'tempo_esgotado');
    expect((await w.api.get('/v1/empresa')).status).toBe(200);
  });

  it('keeps a fault with times null until DELETE /_emulator/faults/{id}', async () => {
    const w = await world();
    const { id } = await w.controls.addFault({
      target: 'api',
      match: { path: '/v1/empresa', companyId: w.company.companyId },
      effect: { status: 503 },
      times: null,
    });
    try {
      for (let i = 0; i < 4; i++) expect((await w.api.get('/v1/empresa')).status).toBe(503);
      const listed = (
        (await w.controls.faults()) as { items: { id: string; times: number | null; hits: number }[] }
      ).items.find((f) => f.id === id);
      expect(listed).toMatchObject({ times: null, hits: 4 });
    } finally {
      const removed = await w.controls.raw('DELETE', `/faults/${id}`);
      expect(removed.status).toBe(204);
    }
    expect((await w.api.get('/v1/empresa')).status).toBe(200);
    expectControlError(await w.controls.raw('DELETE', `/faults/${id}`), 404, 'falha_nao_encontrada', 'path.id');
  });

  it('matches by method', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    await w.controls.addFault({
      target: 'api',
      match: { method: 'GET', path: `/v1/produtos/${created.id}`, companyId: w.company.companyId },
      effect: { status: 503 },
    });
    expect((await w.api.patch(`/v1/produtos/${created.id}`, { sku: 'a' }, { ifMatch: created.etag })).status).toBe(200);
    expect((await w.api.get(`/v1/produtos/${created.id}`)).status).toBe(503);
  });

  it('matches a path glob: * within one segment, ** across segments', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const companyId = w.company.companyId;
    await w.controls.addFault({
      target: 'api',
      match: { path: '/v1/catalogos/*/produtos', companyId },
      effect: { status: 503 },
      times: null,
    });
    try {
      expect((await w.api.get(`/v1/catalogos/${catalog.id}`)).status).toBe(200);
      expect((await w.api.get('/v1/catalogos')).status).toBe(200);
      expect((await w.api.get(productsPath(catalog.id))).status).toBe(503);
      expect((await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM })).status).toBe(503);
    } finally {
      await w.controls.clearFaults();
    }
    const created = await product(w, catalog.id);
    await w.controls.addFault({
      target: 'api',
      match: { path: '/v1/catalogos/**', companyId },
      effect: { status: 503 },
      times: null,
    });
    try {
      expect((await w.api.get('/v1/catalogos')).status).toBe(200);
      expect((await w.api.get(`/v1/produtos/${created.id}`)).status).toBe(200);
      expect((await w.api.get(`/v1/catalogos/${catalog.id}`)).status).toBe(503);
      expect(
        (await w.api.delete(`${productsPath(catalog.id)}/${created.id}`, {}, { ifMatch: created.etag })).status,
      ).toBe(503);
    } finally {
      await w.controls.clearFaults();
    }
    expect((await w.api.get(`/v1/produtos/${created.id}`)).body.catalogos).toEqual([catalog.id]);
  });

  it('matches by companyId: another company is unaffected', async () => {
    const a = await world();
    const b = await otherCompany(a);
    await a.controls.addFault({
      target: 'api',
      match: { path: '/v1/empresa', companyId: a.company.companyId },
      effect: { status: 503 },
    });
    expect((await b.api.get('/v1/empresa')).status).toBe(200);
    expect((await a.api.get('/v1/empresa')).status).toBe(503);
    expect((await a.api.get('/v1/empresa')).status).toBe(200);
  });

  it('loseResponse applies the change, answers 503, and the retry with the same key replays 200', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    const path = `/v1/produtos/${created.id}`;
    const fault = await w.controls.addFault({
      target: 'api',
      match: { method: 'PATCH', path, companyId: w.company.companyId },
      effect: { loseResponse: true },
    });
    const key = newKey();
    const lost = await w.api.patch(path, { sku: 'saved' }, { key, ifMatch: created.etag });
    expectError(lost, 503, 'servico_indisponivel');
    expect(lost.headers.get('x-emulator-fault')).toBe(fault.id);
    const read = await w.api.get(path);
    expect(read.body).toMatchObject({ sku: 'saved', versao: 2 });
    const retried = await w.api.patch(path, { sku: 'saved' }, { key, ifMatch: created.etag });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body).toEqual(read.body);
    expect(retried.headers.get('etag')).toBe(read.headers.get('etag'));
    expect((await w.api.get(path)).body.versao).toBe(2);
  });

  it('loseResponse on a creation: the retry replays 201 with the Location of the one product created', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    await w.controls.addFault({
      target: 'api',
      match: { method: 'POST', path: productsPath(catalog.id), companyId: w.company.companyId },
      effect: { loseResponse: true },
    });
    const key = newKey();
    expectError(
      await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key }),
      503,
      'servico_indisponivel',
    );
    const list = await w.api.get('/v1/produtos');
    expect(list.body.itens).toHaveLength(1);
    const retried = await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.headers.get('location')).toBe(`/v1/produtos/${list.body.itens[0].id}`);
    expect((await w.api.get('/v1/produtos')).body.itens).toHaveLength(1);
  });

  it("concurrentEdit makes a current If-Match stale: 412, and the resource's versao moved by one", async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id, { sku: 'orig' });
    const path = `/v1/produtos/${created.id}`;
    const { id } = await w.controls.addFault({
      target: 'api',
      match: { method: 'PATCH', path, companyId: w.company.companyId },
      effect: { concurrentEdit: true },
    });
    const answer = await w.api.patch(path, { sku: 'mine' }, { ifMatch: created.etag });
    expectError(answer, 412, 'precondicao_falhou', 'header.if-match');
    const read = await w.api.get(path);
    expect(read.body).toEqual({ ...created.body, versao: 2 });
    expect(read.headers.get('etag')).not.toBe(created.etag);
    expect((await journalEntry(w, answer))?.faultId).toBe(id);
    // With the new ETag the change goes through.
    expect((await w.api.patch(path, { sku: 'mine' }, { ifMatch: read.headers.get('etag')! })).body).toMatchObject({
      sku: 'mine',
      versao: 3,
    });
  });

  it('concurrentEdit waits for a request guarded by If-Match', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    await w.controls.addFault({
      target: 'api',
      match: { companyId: w.company.companyId },
      effect: { concurrentEdit: true },
    });
    const created = await product(w, catalog.id);
    expect((await w.api.get(`/v1/produtos/${created.id}`)).body.versao).toBe(1);
    expect((await w.api.patch(`/v1/produtos/${created.id}`, { sku: 'x' }, { ifMatch: created.etag })).status).toBe(412);
    expect(
      (
        await w.api.patch(
          `/v1/produtos/${created.id}`,
          { sku: 'x' },
          { ifMatch: (await w.api.get(`/v1/produtos/${created.id}`)).headers.get('etag')! },
        )
      ).status,
    ).toBe(200);
  });

  it('delayMs holds the request on the virtual clock; meanwhile the same key is 409 idempotencia_em_curso', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    const path = `/v1/produtos/${created.id}`;
    await w.controls.addFault({
      target: 'api',
      match: { method: 'PATCH', path, companyId: w.company.companyId },
      effect: { delayMs: 5000 },
    });
    const before = (await w.controls.clock()).pending;
    const key = newKey();
    const delayed = w.api.patch(path, { sku: 'late' }, { key, ifMatch: created.etag });
    await until(async () => (await w.controls.clock()).pending > before);
    const concurrent = await w.api.patch(path, { sku: 'late' }, { key, ifMatch: created.etag });
    expectError(concurrent, 409, 'idempotencia_em_curso', 'header.idempotency-key');
    expect((await w.api.get(path)).body.versao).toBe(1);
    await w.controls.advance(4999);
    expect((await w.api.get(path)).body.versao).toBe(1);
    await w.controls.advance(1);
    const answer = await delayed;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ sku: 'late', versao: 2 });
    const replay = await w.api.patch(path, { sku: 'late' }, { key, ifMatch: created.etag });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses a malformed fault with 422', async () => {
    const w = await world();
    expectControlError(
      await w.controls.raw('POST', '/faults', { target: 'api', effect: { status: 200 } }),
      422,
      'valor_invalido',
    );
    expectControlError(
      await w.controls.raw('POST', '/faults', { target: 'api', effect: { explode: true } }),
      422,
      'valor_invalido',
    );
    expectControlError(
      await w.controls.raw('POST', '/faults', { target: 'api', match: { path: 'v1/x' }, effect: { status: 503 } }),
      422,
      'valor_invalido',
    );
    expectControlError(
      await w.controls.raw('POST', '/faults', { target: 'api', effect: { status: 503 }, times: 0 }),
      422,
      'valor_invalido',
    );
  });
});

describe('/_emulator/requests (journal)', () => {
  it('lists method, path, status, codigo, companyId, idempotencyKey, replayed and faultId, and never a token', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const key = newKey();
    const first = await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key });
    const replay = await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key });
    const { id: faultId } = await w.controls.addFault({
      target: 'api',
      match: { method: 'GET', path: '/v1/produtos', companyId: w.company.companyId },
      effect: { status: 503 },
    });
    const faulted = await w.api.get('/v1/produtos');
    const anonymous = await w.api.as(undefined).get('/v1/produtos');
    const now = (await w.controls.clock()).now;

    expect(await journalEntry(w, first)).toEqual({
      at: now,
      method: 'POST',
      path: productsPath(catalog.id),
      status: 201,
      codigo: null,
      companyId: w.company.companyId,
      idempotencyKey: key,
      replayed: false,
      requestId: first.headers.get('x-request-id'),
      faultId: null,
    });
    expect(await journalEntry(w, replay)).toMatchObject({
      method: 'POST',
      status: 201,
      idempotencyKey: key,
      replayed: true,
      faultId: null,
    });
    expect(await journalEntry(w, faulted)).toMatchObject({
      method: 'GET',
      path: '/v1/produtos',
      status: 503,
      codigo: 'servico_indisponivel',
      companyId: w.company.companyId,
      idempotencyKey: null,
      replayed: false,
      faultId,
    });
    expect(await journalEntry(w, anonymous)).toMatchObject({
      status: 401,
      codigo: 'credencial_ausente',
      companyId: null,
    });

    const all = await w.controls.raw('GET', '/requests');
    expect(all.status).toBe(200);
    expect(all.text).not.toContain(w.company.token);
    expect(all.text.toLowerCase()).not.toContain('bearer');
  });
});

/**
 * A snapshot, a restore or a reset costs time in proportion to the whole service state. On the shared server
 * that is every earlier file's records (tens of MB late in a run), whatever the test itself does: 5 s is too
 * little on a loaded machine.
 */
const WHOLE_STATE_TIMEOUT = 30_000;

describe('/_emulator/state', { timeout: WHOLE_STATE_TIMEOUT }, () => {
  it('restores a snapshot: every GET answers as before the changes', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id, { sku: 'before' });
    const snapshot = await w.controls.snapshot();
    expect(snapshot).toMatchObject({ format: 'catalog-emulator/state', version: 1 });
    const reads = async () =>
      Promise.all([
        w.api.get(`/v1/produtos/${created.id}`),
        w.api.get('/v1/produtos'),
        w.api.get(`/v1/catalogos/${catalog.id}`),
        w.api.get(productsPath(catalog.id)),
        w.api.get('/v1/estabelecimentos'),
      ]).then((answers) => answers.map((a) => ({ status: a.status, etag: a.headers.get('etag'), body: a.text })));
    const before = await reads();
    const clockBefore = await w.controls.clock();

    const key = newKey();
    expect(
      (await w.api.patch(`/v1/produtos/${created.id}`, { sku: 'after' }, { key, ifMatch: created.etag })).status,
    ).toBe(200);
    await product(w, catalog.id);
    await w.controls.advance('1h');
    expect(await reads()).not.toEqual(before);

    const restored = await w.controls.raw('PUT', '/state', snapshot);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ name: 'catalog-emulator', now: clockBefore.now });
    expect(await reads()).toEqual(before);
    expect((await w.controls.clock()).now).toBe(clockBefore.now);
    // The idempotency store is part of the state: the key used after the snapshot is unknown again.
    const again = await w.api.patch(`/v1/produtos/${created.id}`, { sku: 'after' }, { key, ifMatch: created.etag });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  // spec: CONV-09, WH-EVT-01 — an event always names the destination it was recorded against.
  it('refuses (422) a snapshot holding a webhook event without its destination, naming the field, and restores nothing', async () => {
    const w = await world();
    const put = await w.api.put(
      '/v1/webhook',
      { url: 'https://hooks-snapshot.example.com/eventos' },
      { headers: { 'if-none-match': '*' } },
    );
    expect(put.status, put.text).toBe(201);
    const raised = await w.controls.raw('POST', `/companies/${w.company.companyId}/events`, {
      dados: { tipo: 'webhook.teste' },
    });
    expect(raised.status, raised.text).toBe(201);
    const eventId = raised.body.eventId as string;
    const snapshot = await w.controls.snapshot();
    const index = (snapshot.state.webhookEvents as { id: string }[]).findIndex((e) => e.id === eventId);
    expect(index).toBeGreaterThanOrEqual(0);
    const detail = await w.api.get(`/v1/webhook/eventos/${eventId}`);
    const broken = (changes: Record<string, unknown>) => {
      const copy = structuredClone(snapshot);
      Object.assign(copy.state.webhookEvents[index], changes);
      return copy;
    };
    for (const field of ['destinoId', 'destinoVersao']) {
      const refused = await w.controls.raw('PUT', '/state', broken({ [field]: null }));
      expectControlError(refused, 422, 'valor_invalido', `body.state.webhookEvents[${index}].${field}`);
      expect(refused.body.erro.mensagem).toContain(`state.webhookEvents.${index}.${field}`);
      expect(refused.body.erro.mensagem).toContain('null is not allowed');
    }
    const foreign = await w.controls.raw('PUT', '/state', broken({ destinoId: UNKNOWN_V7_ID }));
    expectControlError(foreign, 422, 'valor_invalido', `body.state.webhookEvents[${index}].destinoId`);
    expect(foreign.body.erro.mensagem).toBe(
      `Not a consistent snapshot: state.webhookEvents.${index}.destinoId: webhook event ${eventId}: destination ${UNKNOWN_V7_ID} version 1 is not a version of its company's webhook destination`,
    );
    const ahead = await w.controls.raw('PUT', '/state', broken({ destinoVersao: 2 }));
    expectControlError(ahead, 422, 'valor_invalido', `body.state.webhookEvents[${index}].destinoVersao`);
    expect(ahead.body.erro.mensagem).toContain('is not a version of its company');
    // Nothing was restored: the event reads as before.
    expect((await w.api.get(`/v1/webhook/eventos/${eventId}`)).text).toBe(detail.text);
  });

  it('a snapshot taken while a request is held holds no trace of it: after restore its key is a new request', async () => {
    const w = await world();
    await w.controls.addFault({
      target: 'api',
      match: { method: 'POST', path: '/v1/catalogos', companyId: w.company.companyId },
      effect: { delayMs: 1000 },
    });
    const before = (await w.controls.clock()).pending;
    const key = newKey();
    const body = { estabelecimento_id: w.company.headOffice.id, nome: 'Loja' };
    const delayed = w.api.post('/v1/catalogos', body, { key });
    await until(async () => (await w.controls.clock()).pending > before);
    const snapshot = await w.controls.snapshot();
    await w.controls.advance(1000);
    expect((await delayed).status).toBe(201);

    await w.controls.restore(snapshot);
    const again = await w.api.post('/v1/catalogos', body, { key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a request held by delayMs when the state is restored answers 503 servico_indisponivel and applies nothing, then or later', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id, { sku: 'orig' });
    const path = `/v1/produtos/${created.id}`;
    const snapshot = await w.controls.snapshot();
    const { id: faultId } = await w.controls.addFault({
      target: 'api',
      match: { method: 'PATCH', path, companyId: w.company.companyId },
      effect: { delayMs: 5000 },
    });
    const before = (await w.controls.clock()).pending;
    const key = newKey();
    const held = w.api.patch(path, { sku: 'late' }, { key, ifMatch: created.etag });
    await until(async () => (await w.controls.clock()).pending > before);

    expect((await w.controls.raw('PUT', '/state', snapshot)).status).toBe(200);
    const answer = await held;
    expectError(answer, 503, 'servico_indisponivel', null);
    expect(answer.body.erro.mensagem).toBe(
      `Injected fault ${faultId}: the emulator was restored while this request was held by its delayMs; nothing was applied. Send the request again.`,
    );
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    // By key, not request id: the restored state rewinds the request-id source too, so ids repeat.
    const journaled = ((await w.controls.requests()).items as JournalItem[]).filter((e) => e.idempotencyKey === key);
    expect(journaled).toEqual([
      expect.objectContaining({
        method: 'PATCH',
        path,
        status: 503,
        replayed: false,
        faultId,
        requestId: answer.headers.get('x-request-id'),
      }),
    ]);

    // Not then, and not when the clock reaches the end of the delay either.
    expect((await w.api.get(path)).body).toEqual(created.body);
    await w.controls.advance('5s');
    expect((await w.api.get(path)).body).toEqual(created.body);
    // The key is free: neither in flight (409) nor stored (a replay).
    const again = await w.api.patch(path, { sku: 'late' }, { key, ifMatch: created.etag });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body).toMatchObject({ sku: 'late', versao: 2 });
  });

  it('carries ingestions at every step: restored while validando the validation still runs; restored while validada it applies', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const started = await w.api.post('/v1/catalogos/ingestoes', { operacao: 'mesclar', catalogo_id: catalog.id });
    expect(started.status).toBe(201);
    const id: string = started.body.ingestao_id;
    const batch = {
      itens: [
        { id_externo: 'snap-1', origem: 'erp', ncm: NCM },
        { id_externo: 'snap-2', origem: 'erp', ncm: NCM, sku: 'S2' },
      ],
    };
    expect((await w.api.put(`/v1/catalogos/ingestoes/${id}/lotes/1`, batch)).status).toBe(201);
    expect((await w.api.post(`/v1/catalogos/ingestoes/${id}/fechamento`, { total_lotes: 1 })).status).toBe(202);
    const whileValidating = await w.controls.snapshot();

    await w.controls.advance('1m');
    const validated = await w.api.get(`/v1/catalogos/ingestoes/${id}`);
    expect(validated.body).toMatchObject({ estado: 'validada', previa: { novos: 2 } });
    const whileValidated = await w.controls.snapshot();

    // Back to validando: the scheduled validation is part of the snapshot and runs again, to the same preview.
    await w.controls.restore(whileValidating);
    expect((await w.api.get(`/v1/catalogos/ingestoes/${id}`)).body.estado).toBe('validando');
    await w.controls.advance('1m');
    const again = await w.api.get(`/v1/catalogos/ingestoes/${id}`);
    expect(again.text).toBe(validated.text);
    expect(again.headers.get('etag')).toBe(validated.headers.get('etag'));

    // From validada: the plan is in the snapshot; the batch content too (a repeat is still told from a change).
    await w.controls.restore(whileValidated);
    const apply = await w.api.post(
      `/v1/catalogos/ingestoes/${id}/aplicacao`,
      {},
      { ifMatch: validated.headers.get('etag')! },
    );
    expect(apply.status).toBe(202);
    await w.controls.advance('1m');
    expect((await w.api.get(`/v1/catalogos/ingestoes/${id}`)).body).toMatchObject({
      estado: 'aplicada',
      aplicacao: { versao_catalogo: catalog.body.versao + 1 },
    });
    const products = await w.api.get(productsPath(catalog.id));
    expect(products.body.itens.map((p: { id_externo: string; sku: string | null }) => [p.id_externo, p.sku])).toEqual([
      ['snap-1', null],
      ['snap-2', 'S2'],
    ]);
  });

  it('refuses (422) a snapshot whose now the clock cannot hold, naming body.now, and then every call answers as before', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    const snapshot = await w.controls.snapshot();
    const clock = await w.controls.clock();
    for (const now of [8640000000000001, -1, Date.UTC(10000, 0, 1), 1.5]) {
      const refused = await w.controls.raw('PUT', '/state', { ...snapshot, now });
      expectControlError(refused, 422, 'valor_invalido', 'body.now');
      expect(refused.body.erro.mensagem).toBe(
        'Not a snapshot of this emulator: now: must be an instant the clock can hold: whole Unix milliseconds from 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z',
      );
    }
    expect(await w.controls.clock()).toEqual(clock);
    const read = await w.api.get(`/v1/produtos/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it('refuses a PUT that is not a snapshot with 422 (and a body that is not JSON with 400), changing nothing', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    const snapshot = await w.controls.snapshot();
    expectControlError(await w.controls.raw('PUT', '/state', { garbage: true }), 422, 'valor_invalido');
    expectControlError(await w.controls.raw('PUT', '/state', {}), 422, 'valor_invalido');
    expectControlError(await w.controls.raw('PUT', '/state', [1, 2, 3]), 422, 'valor_invalido');
    expectControlError(await w.controls.raw('PUT', '/state', { ...snapshot, version: 99 }), 422, 'valor_invalido');
    const unknownTask = await w.controls.raw('PUT', '/state', {
      ...snapshot,
      tasks: [...snapshot.tasks, { due: 0, kind: 'nada', owner: null }],
    });
    expectControlError(unknownTask, 422, 'valor_invalido', `body.tasks[${snapshot.tasks.length}].kind`);
    expect(unknownTask.body.erro.mensagem).toBe(
      `Not a snapshot of this emulator: tasks.${snapshot.tasks.length}.kind: "nada" is not a task kind of this emulator`,
    );
    const notJson = await w.target.fetch('/_emulator/state', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"format":',
    });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { erro: { codigo: string } }).erro.codigo).toBe('json_invalido');
    const read = await w.api.get(`/v1/produtos/${created.id}`);
    expect(read.body).toEqual(created.body);
  });
});

// Reset is global: it runs in process and on the server this test run started (its files run one at a time),
// never on someone else's server named by SPEC_BASE_URL.
describe.runIf(mayResetTarget())('POST /_emulator/reset', { timeout: WHOLE_STATE_TIMEOUT }, () => {
  it('wipes everything back to a fresh emulator: clock at its start, only the initial companies, no faults or journal', async () => {
    const { target, controls } = await world();
    // A first reset gives the fresh state to compare with, whatever other tests did to this target.
    await controls.raw('POST', '/reset');
    const fresh = { clock: await controls.clock(), companies: (await controls.raw('GET', '/companies')).body.items };
    const company = await controls.createCompany();
    const w: World = { target, controls, company, api: new Api(target, company.token) };
    const catalog = await headOfficeCatalog(w);
    await product(w, catalog.id);
    await controls.addFault({ target: 'api', match: { path: '/v1/nada' }, effect: { status: 503 }, times: null });
    await controls.advance('2d');

    const answer = await controls.raw('POST', '/reset');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ name: 'catalog-emulator', now: fresh.clock.now, clockMode: 'manual' });
    // Only the emulator's own deadlines: idempotency purge, event retention, daily surveillance schedule.
    expect(await controls.clock()).toEqual({ now: fresh.clock.now, mode: 'manual', pending: 0, deadlines: 3 });
    expect((await controls.requests()).items).toEqual([]);
    expect((await controls.faults()).items).toEqual([]);
    expect((await controls.raw('GET', '/companies')).body.items).toEqual(fresh.companies);
    expectError(await w.api.get('/v1/empresa'), 401, 'credencial_invalida');
  });
  it('a request held by delayMs when the emulator is reset answers 503 servico_indisponivel and never runs against the fresh state', async () => {
    const { target, controls } = await world();
    // From a fresh emulator, the same calls give the same ids and tokens: the company made again after the
    // reset below is the very one the held request was sent for, so running it there would be visible.
    await controls.raw('POST', '/reset');
    const company = await controls.createCompany();
    const w: World = { target, controls, company, api: new Api(target, company.token) };
    const { id: faultId } = await controls.addFault({
      target: 'api',
      match: { method: 'POST', path: '/v1/catalogos', companyId: company.companyId },
      effect: { delayMs: 1000 },
    });
    const body = { estabelecimento_id: company.headOffice.id, nome: 'Loja' };
    const held = w.api.post('/v1/catalogos', body);
    await until(async () => (await controls.clock()).pending > 0);

    expect((await controls.raw('POST', '/reset')).status).toBe(200);
    expect(await controls.createCompany()).toEqual(company);
    const answer = await held;
    expectError(answer, 503, 'servico_indisponivel', null);
    expect(answer.body.erro.mensagem).toBe(
      `Injected fault ${faultId}: the emulator was reset while this request was held by its delayMs; nothing was applied. Send the request again.`,
    );

    await controls.advance('1s');
    expect((await w.api.get('/v1/catalogos')).body.itens).toEqual([]);
    expect((await w.api.get(`/v1/estabelecimentos/${company.headOffice.id}`)).body).toMatchObject({
      catalogo_id: null,
      versao: 1,
    });
    expect(await controls.clock()).toMatchObject({ pending: 0 });
  });
});
