/**
 * The inspector's engine object and the emulator's history: every exchange whole from the start (bodies capped), the
 * other entries, the bounds and what they drop, resets, the live stream and its end (abort, close, over a socket
 * too), and a timeline page at scale.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Emulator } from '../../emulator.js';
import type { EmulatorOptions } from '../../engine/config.js';
import type { ActivityFeed } from '../../engine/activity.js';
import { packRecord } from '../../engine/journal.js';
import { MAX_PATH } from '../../core/kept-text.js';
import type { ItemDetail, Timeline, TimelineItem } from '../wire.js';
import { STREAM_BUFFER_BYTES } from './event-stream.js';
import { BODY_CAP, ENTRY_BYTES, History } from './history.js';
import { Inspector, inspectorOf } from './inspector.js';
import { decodeCursor, encodeCursor } from './timeline.js';

/**
 * An emulator whose activity feed a test reaches: the port the inspector is made with (inspectorOf, new
 * Inspector), which the emulator keeps to itself (its engine is protected).
 */
class Observed extends Emulator {
  get feed(): ActivityFeed {
    return this.engine.activity;
  }
}

const started: Emulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((emu) => emu.close()));
});
function emulator(options: EmulatorOptions = {}): Observed {
  const emu = new Observed({ seed: 3, ...options });
  started.push(emu);
  return emu;
}

const json = (body: unknown, method = 'POST'): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
const get = async <T>(emu: Emulator, path: string): Promise<T> => {
  const response = await emu.fetch(path);
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
};
const timeline = (emu: Emulator, companyId: string, query = '') =>
  get<Timeline>(emu, `/_emulator/inspector/companies/${companyId}/timeline${query}`);
const item = (emu: Emulator, companyId: string, id: string) =>
  get<ItemDetail>(emu, `/_emulator/inspector/companies/${companyId}/items/${encodeURIComponent(id)}`);

async function putWebhook(
  emu: Emulator,
  token: string,
  key: string,
  body: string = JSON.stringify({ url: 'https://hooks.acme.example/in' }),
): Promise<Response> {
  return emu.fetch('/v1/webhook', {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'idempotency-key': key,
      'if-none-match': '*',
    },
    body,
  });
}

/** The characters of headers' names and values, as the history counts them. */
/** What a list of headers takes in the history: each name and value with the line break after it. */
function headerChars(headers: Headers): number {
  let n = 0;
  headers.forEach((value, name) => (n += name.length + value.length + 2));
  return n;
}

/** Resolves once `done()` holds, looked at every 10 ms (a hang is the test's time-out). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Whether `promise` is still pending after the event loop has turned `turns` times (its I/O polled each time). */
async function pendingAfter(promise: Promise<unknown>, turns = 10): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < turns && !settled; i++) await new Promise((resolve) => setImmediate(resolve));
  return !settled;
}

/**
 * Runs `act` with the timers fake (CONTRIBUTING.md "Tests"): they move only as `act` advances them, so what it
 * awaits without advancing them comes without a timer. One that waits for a timer never resolves: a real timer of
 * 10 s (set before the fake ones) says so instead.
 */
async function onFakeTimers(act: () => Promise<void>): Promise<void> {
  let guard: ReturnType<typeof setTimeout> | undefined;
  const stuck = new Promise<never>((_, reject) => {
    guard = setTimeout(() => reject(new Error('it waited for a timer that did not run')), 10_000);
  });
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  try {
    await Promise.race([act(), stuck]);
  } finally {
    vi.useRealTimers();
    clearTimeout(guard);
  }
}

/** Reads server-sent frames from a stream: each `event:`/`data:` block, comments kept as `: …`. */
function frames(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    reader,
    async next(): Promise<{ event: string; data: unknown } | { comment: string } | undefined> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(':')) return { comment: block.slice(1).trim() };
          const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
          const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null') as unknown;
          return { event, data };
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
      }
    },
  };
}

describe('the history', () => {
  it("keeps each exchange whole from the emulator's making, before any page was opened, tokens and secrets masked", async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    const activity = emu.feed;
    expect(activity.recorder).toBeInstanceOf(History);
    const before = await putWebhook(emu, acme.token, 'destination-0001');
    expect(before.status).toBe(201);
    const refused = await putWebhook(emu, acme.token, 'destination-0002');
    expect(refused.status).toBe(412);
    // Nobody listens: the history is no listener of the activity stream.
    expect(activity.listening).toBe(false);

    const first = await timeline(emu, acme.companyId);
    const beforeId = `req:${before.headers.get('x-request-id')}`;
    const refusedId = `req:${refused.headers.get('x-request-id')}`;
    const codigo = ((await refused.json()) as { erro: { codigo: string } }).erro.codigo;
    expect(first.items.map((i) => [i.id, i.title, i.tags, i.detail])).toEqual([
      [refusedId, 'PUT /v1/webhook → 412', [codigo], true],
      [beforeId, 'PUT /v1/webhook → 201', [], true],
    ]);
    expect(first.history).toEqual({
      entries: 2,
      bytes: first.history.bytes,
      maxEntries: 10_000,
      maxBytes: 16 * 1024 * 1024,
      dropped: 0,
    });
    expect(first.history.bytes).toBeGreaterThan(2 * ENTRY_BYTES);

    const detail = await item(emu, acme.companyId, refusedId);
    expect(detail.item).toMatchObject({
      id: refusedId,
      kind: 'request',
      status: 412,
      tone: 'warn',
      detail: true,
      tags: [codigo],
    });
    expect(detail.sections.map((s) => [s.title, s.kind])).toEqual([
      ['Request', 'json'],
      ['Request headers', 'headers'],
      ['Request body', 'json'],
      ['Answer headers (412)', 'headers'],
      ['Answer body', 'json'],
    ]);
    expect(detail.sections[1]!.value).toEqual({
      authorization: 'Bearer ••••',
      'content-type': 'application/json',
      'idempotency-key': 'destination-0002',
      'if-none-match': '*',
    });
    expect(detail.sections[2]!.value).toEqual({ url: 'https://hooks.acme.example/in' });
    // The error answer as it was sent, rebuilt from its error.
    expect(detail.sections[4]!.value).toEqual(
      JSON.parse(
        await (await putWebhook(emu, acme.token, 'destination-0002'))
          .text()
          .then((text) => text.replace(/"request_id":"[^"]+"/, `"request_id":"${refusedId.slice(4)}"`)),
      ),
    );
    expect((detail.sections[0]!.value as { error: unknown }).error).toEqual({
      codigo,
      caminho: 'header.if-none-match',
    });

    // The first answer's secret never reaches the inspector's answers.
    const secret = (
      emu.companies.snapshot(acme.companyId) as unknown as { state: { webhookDestinations: { secret: string }[] } }
    ).state.webhookDestinations[0]!.secret;
    expect(secret).toMatch(/^svc_whsec_/);
    const texts = await Promise.all(
      [
        `/_emulator/inspector/companies/${acme.companyId}/timeline`,
        `/_emulator/inspector/companies/${acme.companyId}/items/${beforeId}`,
      ].map(async (p) => (await emu.fetch(p)).text()),
    );
    expect(texts[1]).toContain('••••');
    for (const text of texts) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(acme.token);
    }
  });

  it('keeps the control calls, job runs and findings made before the inspector was first used', async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    const fault = await emu.fetch(
      `/_emulator/companies/${acme.companyId}/faults`,
      json({ target: 'job', match: { kind: 'analise' }, effect: { fail: true } }),
    );
    expect(fault.status).toBe(201);
    const faultId = ((await fault.json()) as { id: string }).id;
    // No idempotency-key: a finding on the client.
    const started = await emu.fetch('/v1/analises', {
      method: 'POST',
      headers: { authorization: `Bearer ${acme.token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(started.status).toBe(400);
    const analysis = await emu.fetch('/v1/analises', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${acme.token}`,
        'content-type': 'application/json',
        'idempotency-key': 'analysis-0000000001',
      },
      body: '{}',
    });
    const analysisId = ((await analysis.json()) as { id: string }).id;
    const advanced = await emu.fetch('/_emulator/clock/advance', json({ by: '1h' }));
    expect(advanced.status).toBe(200);

    const page = await timeline(emu, acme.companyId);
    // Newest first; at one instant, by what caused what: the calls, then the requests, then a finding on them.
    expect(page.items.map((i) => [i.kind, i.title.split(' → ')[0]!.split(' (request ')[0]])).toEqual([
      ['job', `end of analysis ${analysisId} failed by a fault`],
      ['job', `start of analysis ${analysisId}`],
      ['finding', 'finding missing-idempotency-key: POST /v1/analises'],
      ['request', 'POST /v1/analises'],
      ['request', 'POST /v1/analises'],
      ['control', 'POST /_emulator/clock/advance'],
      ['control', `POST /_emulator/companies/${acme.companyId}/faults`],
    ]);
    const faultItem = page.items.at(-1)!;
    expect(faultItem.tags).toEqual(['addCompanyFault']);
    expect((await item(emu, acme.companyId, faultItem.id)).sections[0]!.value).toMatchObject({
      operation: 'addCompanyFault',
      companyId: acme.companyId,
      faultId,
    });
    const finding = page.items.find((i) => i.kind === 'finding')!;
    expect(finding).toMatchObject({ tone: 'warn', tags: ['missing-idempotency-key', 'ANA-03'] });
    expect((await item(emu, acme.companyId, finding.id)).sections[0]!.value).toMatchObject({
      rule: 'missing-idempotency-key',
      requestIds: [started.headers.get('x-request-id')],
    });
  });

  it('caps a kept body at 64 KiB, marked truncated', async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    const big = JSON.stringify({ nome: 'x'.repeat(BODY_CAP + 100) });
    const answer = await emu.fetch('/v1/catalogos', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${acme.token}`,
        'content-type': 'application/json',
        'idempotency-key': 'catalog-000000001',
      },
      body: big,
    });
    expect(answer.status).toBe(422);
    const detail = await item(emu, acme.companyId, `req:${answer.headers.get('x-request-id')}`);
    const body = detail.sections.find((s) => s.title.startsWith('Request body'))!;
    expect(body.title).toBe(
      `Request body (first ${BODY_CAP} characters of ${Buffer.byteLength(big)} bytes: truncated)`,
    );
    expect(body.kind).toBe('text');
    expect(body.value).toBe(big.slice(0, BODY_CAP));
    // The entry, its journal line as kept, the line of numbers that cut its text, every header's name and value, the
    // body as kept, and the error the answer was built from (its body is rebuilt from it, not kept).
    const history = emu.feed.recorder as History;
    const line = packRecord(history.request(acme.companyId, answer.headers.get('x-request-id')!)!.record);
    const sent = new Request('http://x/', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${acme.token}`,
        'content-type': 'application/json',
        'idempotency-key': 'catalog-000000001',
      },
      body: big,
    });
    const { erro } = (await answer.json()) as { erro: { codigo: string; mensagem: string; caminho: string } };
    const error = JSON.stringify({ codigo: erro.codigo, mensagem: erro.mensagem, caminho: erro.caminho });
    const [sentChars, answerChars] = [headerChars(sent.headers), headerChars(answer.headers)];
    const numbers = `${sentChars},${sentChars + answerChars},${sentChars + answerChars + BODY_CAP},${Buffer.byteLength(big)},-3\n`;
    expect((await timeline(emu, acme.companyId)).history.bytes).toBe(
      ENTRY_BYTES + line.length + numbers.length + sentChars + answerChars + BODY_CAP + error.length,
    );
  });

  it('drops its oldest entries past its bound of entries, counted per company: older requests stay on the timeline from the journal', async () => {
    const emu = emulator({ inspector: { historyEntries: 5 } });
    const acme = emu.companies.create();
    const other = emu.companies.create();
    for (let i = 0; i < 3; i++) await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${other.token}` } });
    for (let i = 0; i < 6; i++) await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${acme.token}` } });
    const page = await timeline(emu, acme.companyId);
    expect(page.items.map((i) => i.detail)).toEqual([true, true, true, true, true, false]);
    expect(page.history).toMatchObject({ entries: 5, maxEntries: 5, dropped: 1 });
    expect((await timeline(emu, other.companyId)).history.dropped).toBe(3);
    const dropped = await item(emu, acme.companyId, page.items.at(-1)!.id);
    expect(dropped.sections.map((s) => s.title)).toEqual(['Request', 'Headers and bodies']);
    expect(dropped.sections[1]!.value).toBe(
      'Dropped from the history, which keeps the last 5 entries within 16777216 bytes for every company: the journal kept its line, not its headers or bodies.',
    );
  });

  it('drops its oldest entries past its bound of bytes', async () => {
    // Each request: its entry and its body of 500 bytes (its error answer is rebuilt, not kept). The bound holds two.
    const body = JSON.stringify({ nome: 'x'.repeat(489) });
    expect(Buffer.byteLength(body)).toBe(500);
    // Room for two, with up to 768 bytes of headers and journal line each (theirs are about 500): not for three.
    const bound = 2 * (ENTRY_BYTES + 500 + 768);
    const emu = emulator({ inspector: { historyBytes: bound } });
    const acme = emu.companies.create();
    const send = (n: number) =>
      emu.fetch('/v1/catalogos', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${acme.token}`,
          'content-type': 'application/json',
          'idempotency-key': `catalog-bytes-0000${n}`,
        },
        body,
      });
    for (let i = 0; i < 4; i++) expect((await send(i)).status).toBe(422);
    const page = await timeline(emu, acme.companyId);
    expect(page.history).toMatchObject({ entries: 2, maxEntries: 10_000, maxBytes: bound, dropped: 2 });
    // Two entries, each with its body and its headers, within the bound.
    expect(page.history.bytes).toBeGreaterThan(2 * (ENTRY_BYTES + 500));
    expect(page.history.bytes).toBeLessThanOrEqual(bound);
    expect(page.items.map((i) => i.detail)).toEqual([true, true, false, false]);
  });

  it('keeps nothing with a bound of 0: the request path records nothing until the inspector is used, and then only feeds its streams', async () => {
    const emu = emulator({ inspector: { historyEntries: 0 } });
    const acme = emu.companies.create();
    expect(emu.feed.recorder).toBeUndefined();
    const answer = await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${acme.token}` } });
    const page = await timeline(emu, acme.companyId);
    expect(emu.feed.recorder).toBeInstanceOf(History);
    expect(page.history).toEqual({ entries: 0, bytes: 0, maxEntries: 0, maxBytes: 0, dropped: 0 });
    const detail = await item(emu, acme.companyId, `req:${answer.headers.get('x-request-id')}`);
    expect(detail.sections[1]!.value).toBe(
      'This emulator keeps no history (its inspector option historyEntries or historyBytes is 0): the journal kept its line, not its headers or bodies.',
    );
  });

  it('refuses bad bounds, naming the option', () => {
    expect(() => new Emulator({ inspector: { historyEntries: -1 } })).toThrow(
      'inspector.historyEntries must be a whole number of entries from 0 to 1000000; got -1',
    );
    expect(() => new Emulator({ inspector: { historyBytes: 1.5 } })).toThrow(
      'inspector.historyBytes must be a whole number of bytes from 0 to 4294967296; got 1.5',
    );
    expect(() => new Emulator({ inspector: { historyEntrys: 5 } as never })).toThrow(
      'inspector.historyEntrys is not an option: inspector takes historyEntries and historyBytes',
    );
  });

  it('keeps the attempts of an event the state no longer has (past its retention)', async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    await putWebhook(emu, acme.token, 'destination-0003');
    emu.faults.add({ target: 'delivery', effect: { status: 503 }, times: null });
    const { eventId } = emu.webhooks.raise(acme.companyId, { tipo: 'webhook.teste' } as never);
    await emu.clock.advance('10s');
    const attempts = async () =>
      (await timeline(emu, acme.companyId)).items
        .filter((i) => i.kind === 'attempt' || i.kind === 'event')
        .map((i) => [i.id, i.title]);
    expect(await attempts()).toEqual([
      [`att:${eventId}:2`, 'attempt 2/8 of webhook.teste → falhou 503 (+5s after the previous)'],
      [`att:${eventId}:1`, 'attempt 1/8 of webhook.teste → falhou 503'],
      [`evt:${eventId}`, 'event webhook.teste raised → pendente after 2 attempts'],
    ]);
    // Its eight attempts fail within a day; 30 days on, the event is past its retention and gone from the state.
    await emu.clock.advance('31d');
    const listed = await emu.fetch('/v1/webhook/eventos', { headers: { authorization: `Bearer ${acme.token}` } });
    expect(((await listed.json()) as { itens: unknown[] }).itens).toEqual([]);
    const kept = await attempts();
    expect(kept).toHaveLength(8);
    expect(kept.at(-1)).toEqual([`att:${eventId}:1`, 'attempt 1/8 of webhook.teste → falhou 503']);
    expect(kept[0]).toEqual([`att:${eventId}:8`, 'attempt 8/8 of webhook.teste → falhou 503']);
    const detail = await item(emu, acme.companyId, `att:${eventId}:2`);
    expect(detail.sections[0]).toMatchObject({
      title: 'Attempt (its event is no longer kept)',
      value: { eventId, attempt: 2, outcome: 'falhou', status: 503 },
    });
  });

  it("empties on an emulator reset, and drops a company's entries on that company's reset", async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    const other = emu.companies.create();
    const addFault = await emu.fetch(
      '/_emulator/faults',
      json({ target: 'api', match: { path: '/v1/nada' }, effect: { status: 503 } }),
    );
    expect(addFault.status).toBe(201);
    const ownCall = await emu.fetch(`/_emulator/companies/${acme.companyId}`, json({ name: 'Acme 2' }, 'PATCH'));
    expect(ownCall.status).toBe(200);
    const othersFault = await emu.fetch(
      '/_emulator/faults',
      json({ target: 'api', match: { companyId: other.companyId }, effect: { status: 503 } }),
    );
    expect(othersFault.status).toBe(201);
    const own = emu.companies.create({ clock: 'own' });
    expect((await emu.fetch('/_emulator/clock/advance', json({ by: '1m' }))).status).toBe(200);
    const kinds = async (companyId: string) =>
      (await timeline(emu, companyId)).items.map((i) => `${i.kind} ${i.title.split(' → ')[0]}`);
    expect(await kinds(acme.companyId)).toEqual([
      'control POST /_emulator/clock/advance',
      `control PATCH /_emulator/companies/${acme.companyId}`,
      'control POST /_emulator/faults',
    ]);
    expect(await kinds(other.companyId)).toEqual([
      'control POST /_emulator/clock/advance',
      'control POST /_emulator/faults',
      'control POST /_emulator/faults',
    ]);
    // A company on its own clock: not the shared clock's moves, nor another company's fault.
    expect(await kinds(own.companyId)).toEqual(['control POST /_emulator/faults']);
    emu.companies.reset(acme.companyId);
    expect(await kinds(acme.companyId)).toEqual([
      'control POST /_emulator/clock/advance',
      'control POST /_emulator/faults',
    ]);
    emu.companies.reset(other.companyId);
    expect(await kinds(other.companyId)).toEqual([
      'control POST /_emulator/clock/advance',
      'control POST /_emulator/faults',
    ]);
    emu.reset();
    const fresh = emu.companies.create();
    expect(await kinds(fresh.companyId)).toEqual([]);
  });
});

describe('control calls on the timeline', () => {
  it("shows a call on the company its entry names (path, query or fault), a shared-clock move on the companies on it, and not the inspector's own", async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    const other = emu.companies.create();
    const own = emu.companies.create({ clock: 'own' });
    await timeline(emu, acme.companyId);
    const calls: [string, string, unknown?][] = [
      ['DELETE', `/_emulator/inbox?companyId=${other.companyId}`],
      ['POST', `/_emulator/companies/${own.companyId}/faults`, { target: 'api', effect: { status: 503 } }],
      ['POST', '/_emulator/clock/run-until-idle', {}],
      ['POST', '/_emulator/inspector/demo/next', {}],
      ['POST', '/_emulator/network/routes', { from: 'https://hooks.other.example', to: 'http://127.0.0.1:9/in' }],
    ];
    for (const [method, path, body] of calls)
      await emu.fetch(path, body === undefined ? { method } : json(body, method));
    const titles = async (companyId: string) =>
      (await timeline(emu, companyId)).items.map((i) => i.title.split(' → ')[0]);
    expect(await titles(acme.companyId)).toEqual([
      'POST /_emulator/network/routes',
      'POST /_emulator/clock/run-until-idle',
    ]);
    expect(await titles(other.companyId)).toEqual([
      'POST /_emulator/network/routes',
      'POST /_emulator/clock/run-until-idle',
      'DELETE /_emulator/inbox',
    ]);
    expect(await titles(own.companyId)).toEqual([
      'POST /_emulator/network/routes',
      `POST /_emulator/companies/${own.companyId}/faults`,
    ]);
  });
});

describe('the timeline', () => {
  it('pages newest first by a cursor, each item once; refuses a bad limit, cursor or parameter with 422, an unknown company with 404', async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    for (let i = 0; i < 7; i++) await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${acme.token}` } });
    await emu.clock.advance('1h');
    for (let i = 0; i < 3; i++) await emu.fetch('/v1/contexto', { headers: { authorization: `Bearer ${acme.token}` } });
    const seen: TimelineItem[] = [];
    let before: string | null = null;
    do {
      const page: Timeline = await timeline(
        emu,
        acme.companyId,
        `?limit=3${before === null ? '' : `&before=${before}`}`,
      );
      seen.push(...page.items);
      before = page.nextBefore;
    } while (before !== null);
    expect(seen.map((i) => i.title)).toEqual([
      ...Array(3).fill('GET /v1/contexto → 200'),
      ...Array(7).fill('GET /v1/empresa → 200'),
    ]);
    expect(new Set(seen.map((i) => i.id)).size).toBe(10);
    const journal = emu.journal
      .entries()
      .map((e) => `req:${e.requestId}`)
      .reverse();
    expect(seen.map((i) => i.id)).toEqual(journal);

    const refused = async (query: string, status: number, caminho: string) => {
      const response = await emu.fetch(`/_emulator/inspector/companies/${acme.companyId}/timeline${query}`);
      expect(response.status, query).toBe(status);
      expect(((await response.json()) as { erro: { caminho: string } }).erro.caminho).toBe(caminho);
    };
    await refused('?limit=0', 422, 'query.limit');
    await refused('?limit=1001', 422, 'query.limit');
    await refused('?limit=2.5', 422, 'query.limit');
    await refused('?limit=1&limit=2', 422, 'query.limit');
    await refused('?before=nope!', 422, 'query.before');
    await refused(`?before=${Buffer.from('12~nada:1').toString('base64url')}`, 422, 'query.before');
    await refused('?depois=1', 422, 'query.depois');
    const unknown = await emu.fetch('/_emulator/inspector/companies/nada/timeline');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { erro: { codigo: string } }).erro.codigo).toBe('empresa_nao_encontrada');
    const noItem = await emu.fetch(`/_emulator/inspector/companies/${acme.companyId}/items/req:nada`);
    expect(noItem.status).toBe(404);
    expect(((await noItem.json()) as { erro: { codigo: string } }).erro.codigo).toBe('item_nao_encontrado');
  });

  it("filters by the journal's filter, server-side: a call's method, path glob, status or class, codigo, faultId; every item by from and to", async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    const auth = { authorization: `Bearer ${acme.token}` };
    const fault = emu.companies
      .scope(acme.companyId)
      .faults.add({ target: 'api', match: { path: '/v1/contexto' }, effect: { status: 503 }, times: 1 });
    expect((await emu.fetch('/v1/contexto', { headers: auth })).status).toBe(503);
    expect((await emu.fetch('/v1/empresa', { headers: auth })).status).toBe(200);
    await emu.clock.advance('1h');
    expect((await emu.fetch('/v1/catalogos/nada', { headers: auth })).status).toBe(422);
    const titles = async (query: string) =>
      (await timeline(emu, acme.companyId, query)).items.map((i) => i.title.split(' → ')[0]);
    expect(await titles('?method=get')).toEqual(['GET /v1/catalogos/nada', 'GET /v1/empresa', 'GET /v1/contexto']);
    expect(await titles('?path=/v1/catalogos/*')).toEqual(['GET /v1/catalogos/nada']);
    expect(await titles('?status=5xx')).toEqual(['GET /v1/contexto']);
    expect(await titles('?status=4xx&codigo=valor_invalido')).toEqual(['GET /v1/catalogos/nada']);
    expect(await titles(`?faultId=${fault.id}`)).toEqual(['GET /v1/contexto']);
    // The control calls are calls too (the in-process faults.add and clock.advance made none over HTTP).
    expect((await emu.fetch('/_emulator/clock/advance', json({ by: '1m' }))).status).toBe(200);
    expect(await titles('?path=/_emulator/**')).toEqual(['POST /_emulator/clock/advance']);
    // from and to: every item in range, of any kind.
    const start = emu.clock.now().getTime() - 3_660_000;
    expect(await titles(`?to=${new Date(start + 1).toISOString()}`)).toEqual(['GET /v1/empresa', 'GET /v1/contexto']);
    expect(await titles(`?from=${new Date(start + 3_600_000).toISOString()}&method=GET`)).toEqual([
      'GET /v1/catalogos/nada',
    ]);
    const refused = async (query: string, caminho: string, message: string) => {
      const response = await emu.fetch(`/_emulator/inspector/companies/${acme.companyId}/timeline${query}`);
      expect(response.status, query).toBe(422);
      expect(((await response.json()) as { erro: { caminho: string; mensagem: string } }).erro).toMatchObject({
        caminho,
        mensagem: message,
      });
    };
    await refused(
      '?status=6xx',
      'query.status',
      'status must be a status (100 to 599) or a class of them (1xx, 2xx, 3xx, 4xx, 5xx); got "6xx".',
    );
    await refused(
      '?path=v1',
      'query.path',
      'path must be a glob of 1 to 2048 characters starting with "/" ("*" is any run of characters but "/", "**" any run at all); got "v1".',
    );
    await refused(
      '?from=2026-01-02&to=2026-01-01',
      'query.to',
      'to must be after from (from is inclusive, to exclusive): 2026-01-02T00:00:00.000Z to 2026-01-01T00:00:00.000Z keeps nothing.',
    );
    await refused('?companyId=x', 'query.companyId', expect.any(String) as unknown as string);
  });

  it('round-trips its cursors and refuses text no page gave', () => {
    expect(decodeCursor(encodeCursor({ at: 1_767_225_600_000, id: 'att:1fc8:8' }))).toEqual({
      at: 1_767_225_600_000,
      id: 'att:1fc8:8',
    });
    expect(decodeCursor('')).toBeUndefined();
    expect(decodeCursor('a'.repeat(401))).toBeUndefined();
    expect(decodeCursor(Buffer.from('x~req:1').toString('base64url'))).toBeUndefined();
  });

  it("shows a job's runs on its record, once the inspector is open, and the steps still ahead", async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    await timeline(emu, acme.companyId);
    const started = await emu.fetch('/v1/analises', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${acme.token}`,
        'content-type': 'application/json',
        'idempotency-key': 'analysis-0000000001',
      },
      body: '{}',
    });
    expect(started.status).toBe(202);
    const analysisId = ((await started.json()) as { id: string }).id;
    const ahead = (await timeline(emu, acme.companyId)).ahead;
    expect(ahead.map((i) => [i.kind, i.title])).toEqual([['task', `start of analysis ${analysisId}`]]);
    await emu.clock.runUntilIdle();
    const page = await timeline(emu, acme.companyId);
    expect(page.items.filter((i) => i.kind === 'job').map((i) => [i.title, i.tags])).toEqual([
      [`end of analysis ${analysisId}`, ['analise.fim']],
      [`start of analysis ${analysisId}`, ['analise.inicio']],
    ]);
    expect(page.ahead).toEqual([]);
    const run = await item(emu, acme.companyId, page.items.find((i) => i.kind === 'job')!.id);
    expect(run.sections).toEqual([
      {
        title: 'Run',
        kind: 'json',
        value: {
          at: page.items.find((i) => i.kind === 'job')!.at,
          task: 'analise.fim',
          companyId: acme.companyId,
          subjectId: analysisId,
          fault: null,
        },
      },
    ]);
  });

  it('shows the tasks ahead of a company, soonest first, on its own clock', async () => {
    const emu = emulator();
    const own = emu.companies.create({ clock: 'own' });
    await putWebhook(emu, own.token, 'destination-0004');
    emu.faults.add({ target: 'delivery', match: { companyId: own.companyId }, effect: { status: 503 }, times: null });
    const { eventId } = emu.webhooks.raise(own.companyId, { tipo: 'webhook.teste' } as never);
    await emu.companies.clock(own.companyId).advance('1s');
    const page = await timeline(emu, own.companyId);
    expect(page.clock).toBe('own');
    expect(page.now).toBe(emu.companies.clock(own.companyId).info().now.toISOString());
    const next = page.ahead.find((i) => i.tags[0] === 'webhook.tentativa')!;
    expect(next).toMatchObject({
      kind: 'task',
      title: `next attempt of event ${eventId}`,
      tone: 'pending',
      status: null,
    });
    expect(Date.parse(next.at) - Date.parse(page.now)).toBe(4_000);
    const detail = await item(emu, own.companyId, next.id);
    expect(detail.sections).toEqual([
      {
        title: 'Task',
        kind: 'json',
        value: { kind: 'webhook.tentativa', nature: 'work', due: next.at, payload: { eventId, ciclo: 1 } },
      },
    ]);
  });

  it("answers a page of 1,000 companies' journal at its cap by its company's entries, wording its own", async () => {
    const emu = emulator();
    const companies = Array.from({ length: 1_000 }, () => emu.companies.create());
    const busy = companies[0]!;
    const empresa = (token: string) => emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 5_000; i++) await empresa(busy.token);
    for (let i = 0; i < 5_000; i++) await empresa(companies[1 + (i % 999)]!.token);
    expect(emu.journal.entries()).toHaveLength(10_000);
    // Counted, not timed (CONTRIBUTING.md "Tests"; the page's speed is the browser test's print): a page looks at
    // the history's entries once, and at its company's own journal records and events, whatever the number of
    // companies, and words its items alone, not every candidate it sorted.
    const work = inspectorOf(emu.feed).timelineWork;
    const counted = async (companyId: string, query = '') => {
      const before = { ...work };
      const page = await timeline(emu, companyId, query);
      return { page, visited: work.visited - before.visited, worded: work.worded - before.worded };
    };
    const busiest = await counted(busy.companyId);
    const deep = await counted(busy.companyId, `?limit=1000&before=${busiest.page.nextBefore}`);
    const quiet = await counted(companies[500]!.companyId);
    expect(busiest.page.history.entries).toBe(10_000);
    expect(emu.journal.entries({ companyId: busy.companyId })).toHaveLength(5_000);
    expect(emu.journal.entries({ companyId: companies[500]!.companyId })).toHaveLength(5);
    const pages = [busiest, deep, quiet].map(({ page, ...work }) => ({ items: page.items.length, ...work }));
    expect(pages).toEqual([
      { items: 200, visited: 10_000 + 5_000, worded: 200 },
      { items: 1000, visited: 10_000 + 5_000, worded: 1000 },
      { items: 5, visited: 10_000 + 5, worded: 5 },
    ]);
  }, 120_000);
});

describe('the stream', () => {
  it('sends a clock frame, then items live, clock moves and resets; the reader cancelling ends it', async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    const response = await emu.fetch(`/_emulator/inspector/stream?companyId=${acme.companyId}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const stream = frames(response.body!);
    expect(await stream.next()).toEqual({
      event: 'clock',
      data: { now: emu.clock.info().now.toISOString(), ahead: [] },
    });
    const answer = await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${acme.token}` } });
    const frame = (await stream.next()) as { event: string; data: TimelineItem };
    expect(frame).toEqual({
      event: 'item',
      data: {
        id: `req:${answer.headers.get('x-request-id')}`,
        kind: 'request',
        at: emu.clock.info().now.toISOString(),
        title: 'GET /v1/empresa → 200',
        status: 200,
        tone: 'ok',
        tags: [],
        detail: true,
      },
    });
    const moved = await emu.fetch('/_emulator/clock/advance', json({ by: '1h' }));
    expect(moved.status).toBe(200);
    // The move as it happens (the clock tells it), then the advance's own call once it answered.
    expect(await stream.next()).toEqual({
      event: 'clock',
      data: { now: emu.clock.info().now.toISOString(), ahead: [] },
    });
    expect(((await stream.next()) as { data: TimelineItem }).data.title).toBe(
      'POST /_emulator/clock/advance → 200 (now 2026-01-01T01:00:00.000Z, ran 1 task)',
    );
    emu.companies.reset(acme.companyId);
    expect(await stream.next()).toEqual({ event: 'reset', data: {} });
    const inspector = inspectorOf(emu.feed);
    expect(inspector.streams).toBe(1);
    await stream.reader.cancel();
    expect(inspector.streams).toBe(0);
  });

  it('sends a clock frame with the tasks ahead when an item planned one: the page reads nothing of its own', async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    const response = await emu.fetch(`/_emulator/inspector/stream?companyId=${acme.companyId}`);
    const stream = frames(response.body!);
    expect(((await stream.next()) as { data: { ahead: unknown[] } }).data.ahead).toEqual([]);
    const analysis = await emu.fetch('/v1/analises', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${acme.token}`,
        'content-type': 'application/json',
        'idempotency-key': 'analysis-0000000002',
      },
      body: '{}',
    });
    expect(analysis.status).toBe(202);
    expect(((await stream.next()) as { data: TimelineItem }).data.title).toBe('POST /v1/analises → 202');
    const clock = (await stream.next()) as { event: string; data: { now: string; ahead: TimelineItem[] } };
    expect(clock.event).toBe('clock');
    expect(clock.data.ahead).toEqual((await timeline(emu, acme.companyId)).ahead);
    expect(clock.data.ahead.length).toBeGreaterThan(0);
    await stream.reader.cancel();
  });

  it('sends a reset frame when the emulator or its company is restored from a snapshot, and keeps what it recorded', async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    const other = emu.companies.create();
    const response = await emu.fetch(`/_emulator/inspector/stream?companyId=${acme.companyId}`);
    const stream = frames(response.body!);
    expect(((await stream.next()) as { event: string }).event).toBe('clock');
    const renamed = await emu.fetch(`/_emulator/companies/${acme.companyId}`, json({ name: 'Acme 2' }, 'PATCH'));
    expect(renamed.status).toBe(200);
    expect(((await stream.next()) as { data: TimelineItem }).data.title).toBe(
      `PATCH /_emulator/companies/${acme.companyId} → 200`,
    );
    emu.companies.restore(other.companyId, emu.companies.snapshot(other.companyId)); // another company's: not told here
    emu.companies.restore(acme.companyId, emu.companies.snapshot(acme.companyId));
    expect(await stream.next()).toEqual({ event: 'reset', data: {} });
    expect(((await stream.next()) as { event: string }).event).toBe('clock');
    emu.restore(emu.snapshot());
    expect(await stream.next()).toEqual({ event: 'reset', data: {} });
    expect(((await stream.next()) as { event: string }).event).toBe('clock');
    expect((await timeline(emu, acme.companyId)).items.map((i) => i.title)).toEqual([
      `PATCH /_emulator/companies/${acme.companyId} → 200`,
    ]);
    await stream.reader.cancel();
  });

  it('ends when its company is removed', async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    const inspector = new Inspector(emu.feed, { clockPollMs: 10 });
    const stream = frames(inspector.stream(acme.companyId, new Request('http://x/')));
    expect(((await stream.next()) as { event: string }).event).toBe('clock');
    emu.companies.remove(acme.companyId);
    expect(await stream.next()).toEqual({ event: 'reset', data: {} });
    expect(await stream.next()).toEqual({
      event: 'clock',
      data: { now: emu.clock.info().now.toISOString(), ahead: [] },
    });
    expect(await stream.next()).toBeUndefined();
    expect(inspector.streams).toBe(0);
  });

  it('ends when its reader falls STREAM_BUFFER_BYTES behind, dropping the frames it did not take; the timeline has them', async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    const stream = frames((await emu.fetch(`/_emulator/inspector/stream?companyId=${acme.companyId}`)).body!);
    expect(((await stream.next()) as { event: string }).event).toBe('clock');
    const inspector = inspectorOf(emu.feed);
    // The longest path the journal keeps whole (a longer one is cut to it): the largest frame of a request.
    const path = `/v1/produtos/${'a'.repeat(MAX_PATH - '/v1/produtos/'.length)}`;
    const request = () => emu.fetch(path, { headers: { authorization: `Bearer ${acme.token}` } });
    // One frame read, to know the size of each: the same path and status, ids and times of one length.
    const first = await request();
    const frame = (await stream.next()) as { event: string; data: TimelineItem };
    expect(frame.data.id).toBe(`req:${first.headers.get('x-request-id')}`);
    const size = Buffer.byteLength(`event: item\ndata: ${JSON.stringify(frame.data)}\n\n`);
    // Then the reader reads nothing while the requests go on: the frames wait for it up to the bound.
    let sent = 0;
    let last: Response | undefined;
    while (inspector.streams === 1 && sent < 10_000) {
      last = await request();
      sent++;
    }
    expect(inspector.streams).toBe(0);
    expect(sent).toBe(Math.floor(STREAM_BUFFER_BYTES / size) + 1);
    expect(await stream.next()).toBeUndefined();
    // What it missed is on the timeline, which the page reads again when it opens the stream again.
    const read = await timeline(emu, acme.companyId, '?limit=1');
    expect(read.items.map((i) => i.id)).toEqual([`req:${last!.headers.get('x-request-id')}`]);
    const again = frames((await emu.fetch(`/_emulator/inspector/stream?companyId=${acme.companyId}`)).body!);
    expect(((await again.next()) as { event: string }).event).toBe('clock');
    expect(inspector.streams).toBe(1);
    await again.reader.cancel();
  });

  it('sends a keep-alive comment at its interval of real time', async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    const inspector = new Inspector(emu.feed, { keepAliveMs: 20 });
    const stream = frames(inspector.stream(acme.companyId, new Request('http://x/')));
    expect(((await stream.next()) as { event: string }).event).toBe('clock');
    expect(await stream.next()).toEqual({ comment: 'keep-alive' });
    await emu.close();
    expect(await stream.next()).toBeUndefined();
  });

  it('ends when its request aborts, and at once when the emulator closes (in process)', async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    const controller = new AbortController();
    const aborted = await emu.fetch(`/_emulator/inspector/stream?companyId=${acme.companyId}`, {
      signal: controller.signal,
    });
    const first = frames(aborted.body!);
    await first.next();
    controller.abort();
    expect(await first.next()).toBeUndefined();
    const open = frames((await emu.fetch(`/_emulator/inspector/stream?companyId=${acme.companyId}`)).body!);
    await open.next();
    const inspector = inspectorOf(emu.feed);
    expect(inspector.streams).toBe(1);
    // At once, not when the stream ends (it never would) nor at a timer: ended by the time close() resolves, with
    // the timers stopped (CONTRIBUTING.md "Tests": no test measures elapsed time).
    await onFakeTimers(() => emu.close());
    expect(inspector.streams).toBe(0);
    expect(await open.next()).toBeUndefined();
  });

  it('over a socket: a client that goes away is let go, and close() resolves at once with a stream open', async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    const server = await emu.listen({ port: 0 });
    const controller = new AbortController();
    const gone = await fetch(`${server.url}/_emulator/inspector/stream?companyId=${acme.companyId}`, {
      signal: controller.signal,
    });
    expect(gone.status).toBe(200);
    const goneFrames = frames(gone.body!);
    await goneFrames.next();
    const inspector = inspectorOf(emu.feed);
    expect(inspector.streams).toBe(1);
    controller.abort();
    await until(() => inspector.streams === 0);

    // The server closed alone (not the emulator): its connections are cut at its grace (500 ms of the timers, here
    // fake: CONTRIBUTING.md "Tests"), the stream let go. Until then the open stream holds the close.
    const second = await emu.listen({ port: 0 });
    const cut = frames((await fetch(`${second.url}/_emulator/inspector/stream?companyId=${acme.companyId}`)).body!);
    await cut.next();
    expect(inspector.streams).toBe(1);
    await onFakeTimers(async () => {
      const closing = second.close();
      vi.advanceTimersByTime(499);
      expect(await pendingAfter(closing)).toBe(true);
      vi.advanceTimersByTime(1);
      await closing;
    });
    await expect(cut.next()).rejects.toThrow();
    await until(() => inspector.streams === 0);

    // The emulator closed with a stream open: at once, with no timer run (neither the grace nor a keep-alive).
    const open = await fetch(`${server.url}/_emulator/inspector/stream?companyId=${acme.companyId}`);
    const openFrames = frames(open.body!);
    await openFrames.next();
    expect(inspector.streams).toBe(1);
    await onFakeTimers(() => emu.close());
    expect(inspector.streams).toBe(0);
    expect(await openFrames.next()).toBeUndefined();
  });

  it('refuses a missing, repeated or unknown companyId and any other parameter', async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    const refused = async (query: string, status: number, codigo: string, caminho: string) => {
      const response = await emu.fetch(`/_emulator/inspector/stream${query}`);
      expect(response.status, query).toBe(status);
      expect(((await response.json()) as { erro: unknown }).erro).toMatchObject({ codigo, caminho });
    };
    await refused('', 422, 'valor_invalido', 'query.companyId');
    await refused(`?companyId=${acme.companyId}&companyId=${acme.companyId}`, 422, 'valor_invalido', 'query.companyId');
    await refused(`?companyId=${acme.companyId}&x=1`, 422, 'valor_invalido', 'query.x');
    await refused('?companyId=nada', 404, 'empresa_nao_encontrada', 'query.companyId');
  });
});
