/**
 * The controls as a client reads them (answers.ts): a control's request by its id; a real answer of each kind read
 * as the control's, and an answer with each mistake a server can make (a status, a media type, a body, a shape, an
 * error body not the control's) read as foreign, saying why; and the activity stream's frames, every kind of entry
 * as an emulator sends it read as a frame of the stream, and frames with a mistake as foreign.
 */
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../emulator.js';
import { controlRequest, readControlAnswer, readControlFrame } from './answers.js';
import type { ControlId } from './table.js';

type Answer = Parameters<typeof readControlAnswer>[1];
const JSON_TYPE = 'application/json; charset=utf-8';
const JSON_HEADERS = { 'content-type': JSON_TYPE };
const other = (status: number, contentType: string | null, body: string): Answer => ({ status, contentType, body });
const json = (status: number, value: unknown): Answer => other(status, JSON_TYPE, JSON.stringify(value));
const RUN = { now: '2026-01-01T00:00:00.000Z', ran: 1 };
const ANSWERS_200 = 'advanceClock answers 200, or an error (4xx, 5xx) with the error body';
const NOT_RUN = "not advanceClock's 200: body";
const RUN_IS_JSON = "advanceClock's 200 is application/json";

describe('controlRequest', () => {
  it('gives the method and the path of a control by its id, its parameters encoded', () => {
    expect(controlRequest('getEmulatorInfo')).toEqual({ method: 'GET', path: '/_emulator' });
    const own = controlRequest('advanceOwnClock', { companyId: 'c/1 é' });
    expect(own).toEqual({ method: 'POST', path: '/_emulator/companies/c%2F1%20%C3%A9/clock/advance' });
    expect(() => controlRequest('removeFault')).toThrow('removeFault needs the path parameter id');
  });
});

describe('readControlAnswer', () => {
  it("reads the emulator's own answers as successes and refusals", async () => {
    const emu = createEmulator({ clock: 'manual' });
    const read = async (id: ControlId, path: string, init?: RequestInit) => {
      const response = await emu.fetch(path, init);
      const body = await response.text();
      const contentType = response.headers.get('content-type');
      return readControlAnswer(id, { status: response.status, contentType, body });
    };
    const post = (value: unknown): RequestInit => ({
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify(value),
    });
    expect(await read('advanceClock', '/_emulator/clock/advance', post({ by: '1h' }))).toEqual({
      kind: 'success',
      status: 200,
      value: { now: '2026-01-01T01:00:00.000Z', ran: expect.any(Number) },
    });
    const fault = post({ target: 'api', effect: { status: 503 } });
    const added = await read('addFault', '/_emulator/faults', fault);
    expect(added).toEqual({ kind: 'success', status: 201, value: { id: 'flt_1' } });
    const remove = { method: 'DELETE' };
    const removed = await read('removeFault', '/_emulator/faults/flt_1', remove);
    expect(removed).toEqual({ kind: 'success', status: 204, value: undefined });
    expect(await read('removeFault', '/_emulator/faults/flt_1', remove)).toEqual({
      kind: 'refusal',
      status: 404,
      error: {
        codigo: 'falha_nao_encontrada',
        mensagem: 'No fault flt_1; GET /_emulator/faults lists them.',
        caminho: 'path.id',
      },
    });
    const report = await read('getReport', '/_emulator/report');
    expect(report).toMatchObject({ kind: 'success', status: 200, value: { findings: [], findingsDropped: 0 } });
    expect(await read('streamActivity', '/_emulator/activity/stream?kinds=nope')).toMatchObject({
      kind: 'refusal',
      status: 422,
      error: { codigo: 'valor_invalido', caminho: 'query.kinds' },
    });
    await emu.close();
  });

  it('reads an answer with each mistake as foreign, saying why', () => {
    const cases: [ControlId, Answer, string][] = [
      ['advanceClock', json(200, {}), `${NOT_RUN}.now: Invalid input: expected string, received undefined`],
      ['advanceClock', json(200, { ...RUN, extra: true }), `${NOT_RUN}.extra: Unrecognized key: "extra"`],
      ['advanceClock', json(201, RUN), ANSWERS_200],
      ['advanceClock', json(302, RUN), ANSWERS_200],
      ['advanceClock', other(200, 'text/html', '<h1>hi</h1>'), `${RUN_IS_JSON}; this one is text/html`],
      ['advanceClock', other(200, null, JSON.stringify(RUN)), `${RUN_IS_JSON}; this one is of no content-type`],
      ['advanceClock', other(200, 'application/json', '{"now":'), "advanceClock's 200 is JSON; this one is not"],
      ['getReport', json(200, null), "not getReport's 200: body: Invalid input: expected object, received null"],
      ['removeFault', other(204, null, 'x'), 'its 204 has no body; this one has 1 characters'],
      ['streamActivity', json(200, {}), 'its 200 is text/event-stream; this one is application/json'],
      ['getClock', json(404, {}), 'not the error body: body.erro: Invalid input: expected object, received undefined'],
      ['getClock', other(500, 'text/plain', 'Oops'), 'the error body is application/json; this one is text/plain'],
      [
        'getClock',
        json(404, { erro: { codigo: 'x', mensagem: 'y', request_id: 'z', extra: 1 } }),
        'not the error body: body.erro.extra: Unrecognized key: "extra"',
      ],
    ];
    for (const [id, answer, why] of cases) expect(readControlAnswer(id, answer), why).toEqual({ kind: 'foreign', why });
  });
});

describe('readControlFrame', () => {
  it("reads every kind of entry of an emulator's activity stream, its open and its end as the stream's", async () => {
    const emu = createEmulator({ clock: 'manual' });
    const acme = emu.companies.create();
    const stream = await emu.fetch('/_emulator/activity/stream');
    const api = (method: string, path: string, headers: Record<string, string>, body: unknown) =>
      emu.fetch(path, {
        method,
        headers: { authorization: `Bearer ${acme.token}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const control = (path: string, body: unknown) =>
      emu.fetch(`/_emulator${path}`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });
    // A request, a control call, a delivery, a job's steps (an analysis), and a finding (a write without a key).
    const hook = { url: 'https://hooks.acme.example/in' };
    const put = { 'idempotency-key': 'answers-test-0001', 'if-none-match': '*' };
    expect((await api('PUT', '/v1/webhook', put, hook)).status).toBe(201);
    const event = { dados: { tipo: 'webhook.teste' } };
    expect((await control(`/companies/${acme.companyId}/events`, event)).status).toBe(201);
    expect((await api('POST', '/v1/analises', {}, {})).status).toBe(400);
    expect((await api('POST', '/v1/analises', { 'idempotency-key': 'answers-test-0002' }, {})).status).toBe(202);
    expect((await control('/clock/advance', { by: '1h' })).status).toBe(200);
    await emu.close();
    const frames = (await stream.text()).split('\n\n').filter((frame) => frame !== '' && !frame.startsWith(':'));
    const read = frames.map((frame) => {
      const [event, data] = frame.split('\n');
      return readControlFrame('streamActivity', event!.slice('event: '.length), data!.slice('data: '.length));
    });
    expect(read.filter((reading) => reading.kind === 'foreign')).toEqual([]);
    const seen = read.map((reading) => {
      if (reading.kind !== 'frame') return 'foreign';
      return reading.event === 'activity' ? (reading.value as { kind: string }).kind : reading.event;
    });
    expect(new Set(seen)).toEqual(new Set(['open', 'request', 'control', 'delivery', 'job', 'finding', 'end']));
    expect([seen[0], seen.at(-1)]).toEqual(['open', 'end']);
  });

  it('reads a frame with each mistake as foreign, saying why', () => {
    const entry = { kind: 'job', at: RUN.now, task: 'analise.executar', companyId: null, subjectId: null, fault: null };
    const job = JSON.stringify(entry);
    const read = readControlFrame('streamActivity', 'activity', job);
    expect(read).toEqual({ kind: 'frame', event: 'activity', value: entry });
    const notData = "not the activity event's data: data";
    const cases: [ControlId, string, string, string][] = [
      ['streamActivity', 'activity', 'null', `${notData}: Invalid input: expected object, received null`],
      ['streamActivity', 'activity', '<html>', "the activity event's data is JSON; this one is not"],
      [
        'streamActivity',
        'activity',
        JSON.stringify({ ...entry, fault: 'sometimes' }),
        `${notData}.fault: Invalid option: expected one of "delayed"|"failed"`,
      ],
      [
        'streamActivity',
        'activity',
        JSON.stringify({ ...entry, kind: 'gossip' }),
        `${notData}.kind: Invalid discriminator value. Expected 'request' | 'control' | 'delivery' | 'job' | 'finding'`,
      ],
      [
        'streamActivity',
        'end',
        '{"reason":"bored"}',
        'not the end event\'s data: data.reason: Invalid option: expected one of "closed"|"behind"',
      ],
      ['streamActivity', 'toString', '{}', 'streamActivity sends open, activity, end events, not "toString"'],
      ['getClock', 'open', '{}', 'getClock sends no events'],
    ];
    for (const [id, event, data, why] of cases) {
      expect(readControlFrame(id, event, data), why).toEqual({ kind: 'foreign', why });
    }
  });
});
