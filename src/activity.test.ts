/**
 * emu.activity: every kind of entry with its details, from a scripted scenario in process; and nothing made while
 * nobody listens.
 */
import { describe, expect, it } from 'vitest';
import { createEmulator, type ActivityEntry } from './index.js';

const HOOKS = 'https://hooks.acme.example';

function scenario() {
  const emu = createEmulator({ clock: 'manual', seed: 7 });
  const acme = emu.companies.create();
  const entries: ActivityEntry[] = [];
  const stop = emu.activity.subscribe((entry) => entries.push(entry));
  const api = async (
    method: string,
    path: string,
    options: { body?: unknown; key?: string; headers?: Record<string, string> } = {},
  ) => {
    const headers: Record<string, string> = { authorization: `Bearer ${acme.token}`, ...options.headers };
    if (method !== 'GET') headers['content-type'] = 'application/json';
    if (options.key !== undefined) headers['idempotency-key'] = options.key;
    const response = await emu.fetch(path, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    return {
      status: response.status,
      etag: response.headers.get('etag'),
      body: (await response.json()) as Record<string, unknown>,
    };
  };
  const control = async (method: string, path: string, body?: unknown) => {
    const response = await emu.fetch(`/_emulator${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { emu, acme, entries, stop, api, control };
}

describe('emu.activity', () => {
  it('tells a 422 with its code and path, a replay, a fault that fired, a control call, and three delivery attempts', async () => {
    const { acme, entries, api, control } = scenario();

    expect(
      (
        await api('POST', '/v1/catalogos', {
          body: { estabelecimento_id: acme.headOffice.id },
          key: 'activity-test-0001',
        })
      ).status,
    ).toBe(422);
    const put = { body: { url: `${HOOKS}/catalogo` }, key: 'activity-test-0002', headers: { 'if-none-match': '*' } };
    const destination = await api('PUT', '/v1/webhook', put);
    expect((await api('PUT', '/v1/webhook', put)).status).toBe(destination.status);
    expect(
      (await control('POST', '/faults', { target: 'api', match: { path: '/v1/empresa' }, effect: { status: 503 } }))
        .status,
    ).toBe(201);
    expect((await api('GET', '/v1/empresa')).status).toBe(503);
    expect((await control('POST', '/faults', { target: 'delivery', effect: { status: 503 }, times: 2 })).status).toBe(
      201,
    );
    expect(
      (
        await api('POST', '/v1/webhook/testes', {
          key: 'activity-test-0003',
          headers: { 'if-match': destination.etag! },
        })
      ).status,
    ).toBe(202);
    expect((await control('POST', '/clock/advance', { by: '10m' })).status).toBe(200);

    const requests = entries.filter((e) => e.kind === 'request');
    expect(requests[0]).toEqual({
      kind: 'request',
      at: '2026-01-01T00:00:00.000Z',
      method: 'POST',
      path: '/v1/catalogos',
      status: 422,
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      companyId: acme.companyId,
      idempotencyKey: 'activity-test-0001',
      replayed: false,
      faultId: null,
      error: { codigo: 'campo_obrigatorio', caminho: 'body.nome' },
      durationMs: 0,
    });
    expect(requests[1]).toMatchObject({
      method: 'PUT',
      path: '/v1/webhook',
      status: destination.status,
      replayed: false,
      error: null,
    });
    expect(requests[2]).toMatchObject({
      method: 'PUT',
      path: '/v1/webhook',
      status: destination.status,
      replayed: true,
      error: null,
    });
    expect(requests[3]).toMatchObject({
      method: 'GET',
      path: '/v1/empresa',
      status: 503,
      faultId: expect.stringMatching(/\S/),
      error: { codigo: 'servico_indisponivel', caminho: null },
    });

    const controls = entries.filter((e) => e.kind === 'control');
    expect(controls.map((c) => [c.method, c.path, c.status, c.operation])).toEqual([
      ['POST', '/_emulator/faults', 201, 'addFault'],
      ['POST', '/_emulator/faults', 201, 'addFault'],
      ['POST', '/_emulator/clock/advance', 200, 'advanceClock'],
    ]);
    expect(controls[0]!.detail).toBe('fault flt_1: api path=/v1/empresa → status=503, once');
    expect(controls[1]!.detail).toBe('fault flt_2: delivery any → status=503, 2 times');
    expect(controls[2]).toMatchObject({
      at: '2026-01-01T00:00:00.000Z',
      detail: 'now 2026-01-01T00:10:00.000Z, ran 3 tasks',
      error: null,
    });
    expect(controls.map((c) => [c.scope, c.companyId, c.faultId])).toEqual([
      ['emulator', null, 'flt_1'],
      ['emulator', null, 'flt_2'],
      ['shared clock', null, null],
    ]);

    const deliveries = entries.filter((e) => e.kind === 'delivery');
    const eventId = deliveries[0]?.eventId;
    expect(deliveries).toEqual([
      {
        kind: 'delivery',
        at: '2026-01-01T00:00:00.000Z',
        companyId: acme.companyId,
        eventId,
        eventType: 'webhook.teste',
        attempt: 1,
        cycle: 1,
        attemptInCycle: 1,
        attemptsPerCycle: 8,
        url: `${HOOKS}/catalogo`,
        outcome: 'falhou',
        failure: 'status_nao_2xx',
        status: 503,
        durationMs: 0,
        nextAttemptAt: '2026-01-01T00:00:05.000Z',
        eventState: 'pendente',
      },
      {
        kind: 'delivery',
        at: '2026-01-01T00:00:05.000Z',
        companyId: acme.companyId,
        eventId,
        eventType: 'webhook.teste',
        attempt: 2,
        cycle: 1,
        attemptInCycle: 2,
        attemptsPerCycle: 8,
        url: `${HOOKS}/catalogo`,
        outcome: 'falhou',
        failure: 'status_nao_2xx',
        status: 503,
        durationMs: 0,
        nextAttemptAt: '2026-01-01T00:05:05.000Z',
        eventState: 'pendente',
      },
      {
        kind: 'delivery',
        at: '2026-01-01T00:05:05.000Z',
        companyId: acme.companyId,
        eventId,
        eventType: 'webhook.teste',
        attempt: 3,
        cycle: 1,
        attemptInCycle: 3,
        attemptsPerCycle: 8,
        url: `${HOOKS}/catalogo`,
        outcome: 'entregue',
        failure: null,
        status: 200,
        durationMs: 0,
        nextAttemptAt: null,
        eventState: 'entregue',
      },
    ]);
    // The deliveries ran inside the advance: told as each ended, before the advance's own entry.
    expect(entries.map((e) => e.kind).slice(-4)).toEqual(['delivery', 'delivery', 'delivery', 'control']);
  });

  it('tells a timed-out attempt once, with its 15 s, and a refused control call with its code', async () => {
    const { entries, api, control } = scenario();
    const destination = await api('PUT', '/v1/webhook', {
      body: { url: `${HOOKS}/x` },
      key: 'activity-test-0010',
      headers: { 'if-none-match': '*' },
    });
    await control('POST', '/faults', { target: 'delivery', effect: { timeout: true } });
    await api('POST', '/v1/webhook/testes', { key: 'activity-test-0011', headers: { 'if-match': destination.etag! } });
    await control('POST', '/clock/advance', { by: '20s' });
    expect((await control('POST', '/clock/advance', { by: 'soon' })).status).toBe(422);

    expect(entries.filter((e) => e.kind === 'delivery')).toMatchObject([
      {
        attempt: 1,
        outcome: 'incerta',
        failure: 'tempo_esgotado',
        status: null,
        durationMs: 15_000,
        nextAttemptAt: '2026-01-01T00:00:20.000Z',
      },
      { attempt: 2, outcome: 'entregue', status: 200, durationMs: 0, nextAttemptAt: null },
    ]);
    expect(entries.at(-1)).toMatchObject({
      kind: 'control',
      status: 422,
      operation: 'advanceClock',
      detail: null,
      error: { codigo: 'valor_invalido', caminho: expect.stringMatching(/^body/) },
    });
  });

  it('names what a control acts on, the company it is about and the fault it added or removed, a refused call too', async () => {
    const emu = createEmulator({ clock: 'manual', seed: 7, controlToken: 'activity-control-token' });
    const acme = emu.companies.create();
    const own = emu.companies.create({ clock: 'own' });
    const entries: ActivityEntry[] = [];
    emu.activity.subscribe((entry) => entries.push(entry));
    const control = async (
      method: string,
      path: string,
      body?: unknown,
      token: string | null = 'activity-control-token',
    ) => {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      };
      return (
        await emu.fetch(`/_emulator${path}`, {
          method,
          headers,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        })
      ).status;
    };

    expect(await control('PATCH', `/companies/${acme.companyId}`, { name: 'Acme 2' })).toBe(200);
    expect(
      await control('POST', '/faults', {
        target: 'api',
        match: { companyId: acme.companyId },
        effect: { status: 503 },
      }),
    ).toBe(201);
    expect(await control('DELETE', '/faults/flt_1')).toBe(204);
    expect(await control('DELETE', '/faults/flt_1')).toBe(404);
    expect(await control('POST', `/companies/${own.companyId}/faults`, { target: 'job', effect: { fail: true } })).toBe(
      201,
    );
    expect(await control('DELETE', `/companies/${own.companyId}/faults/flt_2`)).toBe(204);
    expect(await control('DELETE', `/inbox?companyId=${acme.companyId}`)).toBe(200);
    expect(await control('POST', `/companies/${own.companyId}/clock/advance`, { by: '1m' })).toBe(200);
    expect(await control('POST', '/companies', {})).toBe(201);
    // Refused by the guard, before the control ran: still told as the control it was for, and of the company.
    expect(await control('PATCH', `/companies/${acme.companyId}`, {}, null)).toBe(401);
    // No control at all.
    expect(await control('POST', '/nothing-here')).toBe(404);

    expect(
      entries.map((e) => (e.kind === 'control' ? [e.status, e.operation, e.scope, e.companyId, e.faultId] : e.kind)),
    ).toEqual([
      [200, 'updateCompany', 'company', acme.companyId, null],
      [201, 'addFault', 'emulator', acme.companyId, 'flt_1'],
      [204, 'removeFault', 'emulator', null, 'flt_1'],
      [404, 'removeFault', 'emulator', null, null],
      [201, 'addCompanyFault', 'company', own.companyId, 'flt_2'],
      [204, 'removeCompanyFault', 'company', own.companyId, 'flt_2'],
      [200, 'clearInbox', 'emulator', acme.companyId, null],
      [200, 'advanceOwnClock', 'company', own.companyId, null],
      [201, 'createCompany', 'emulator', null, null],
      [401, 'updateCompany', 'company', acme.companyId, null],
      [404, null, null, null, null],
    ]);
  });

  it('tells the steps of a job on a record, and a job fault that took one', async () => {
    const { acme, entries, api, control } = scenario();
    await api('POST', '/v1/catalogos', {
      body: { estabelecimento_id: acme.headOffice.id, nome: 'Loja' },
      key: 'activity-test-0020',
    });
    const start = await api('POST', '/v1/catalogos/ingestoes', {
      body: { operacao: 'substituicao_catalogo' },
      key: 'activity-test-0021',
    });
    const ingestion = `/v1/catalogos/ingestoes/${String(start.body.ingestao_id)}`;
    await api('PUT', `${ingestion}/lotes/1`, {
      body: { itens: [{ id_externo: 'CAFE-500', origem: 'erp', ncm: '09012100' }] },
      key: 'activity-test-0022',
    });
    await control('POST', '/faults', { target: 'job', match: { kind: 'ingestao' }, effect: { delayMs: 30_000 } });
    await api('POST', `${ingestion}/fechamento`, { body: { total_lotes: 1 }, key: 'activity-test-0023' });
    await control('POST', '/clock/advance', { by: '1m' });

    const jobs = entries.filter((e) => e.kind === 'job');
    expect(jobs).toEqual([
      {
        kind: 'job',
        at: expect.any(String),
        task: expect.any(String),
        companyId: acme.companyId,
        subjectId: start.body.ingestao_id,
        fault: 'delayed',
      },
      {
        kind: 'job',
        at: expect.any(String),
        task: jobs[0]!.task,
        companyId: acme.companyId,
        subjectId: start.body.ingestao_id,
        fault: null,
      },
    ]);
    expect(Date.parse(jobs[1]!.at) - Date.parse(jobs[0]!.at)).toBe(30_000);
  });

  it('stops calling a listener once unsubscribed; a listener that throws changes no answer', async () => {
    const { emu, entries, stop, api } = scenario();
    emu.activity.subscribe(() => {
      throw new Error('broken log');
    });
    expect((await api('GET', '/v1/empresa')).status).toBe(200);
    expect(entries).toHaveLength(1);
    stop();
    await api('GET', '/v1/empresa');
    expect(entries).toHaveLength(1);
  });
});
