/**
 * The inspector's data routes over HTTP (/_emulator/inspector): a company's timeline (a webhook retry cycle at its
 * virtual times, a replayed request, a request a fault fired on), an item's detail with the signature headers of an
 * attempt, the live stream, masking (no token or secret in any answer), and the control token.
 *
 * Each test works on a company with a clock of its own, so that it moves no other test's time on the shared server.
 */
import { connect as connectSocket, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmulator, type ItemDetail, type Timeline, type TimelineItem } from '../../src/index.js';
import { Api, Controls, otherCompany, readAnswer, world, type World } from '../support/client.js';
import { expectControlError } from '../support/expect.js';
import { inProcessTarget } from '../support/target.js';
import { createDestination } from '../support/webhook-setup.js';
import { expectedSignature, HOUR, iso, MINUTE, SECOND } from '../support/webhooks.js';
import { deployment } from '../support/deployment.js';
import { closedAfterEach } from '../support/closed-after-each.js';

// Every test here is about the emulator itself: against a deployment each is skipped, before it sends anything.
beforeEach((context) => {
  if (deployment !== undefined)
    context.skip(
      "checks the emulator's own inspector (/_emulator/inspector), which a deployment of the service does not have",
    );
});

/** Faults the test added, removed after it (the server is shared). */
const faults: { w: World; id: string }[] = [];
const closing = closedAfterEach();
afterEach(async () => {
  for (const { w, id } of faults.splice(0)) await w.controls.raw('DELETE', `/faults/${id}`);
});

/** A company on a clock of its own, on the target. */
async function ownWorld(): Promise<World> {
  const w = await world();
  const info = await w.controls.createCompany({ clock: 'own' });
  return { ...w, company: info, api: new Api(w.target, info.token) };
}

/** Every raw text the inspector answered in a test: checked for tokens and secrets. */
const texts: string[] = [];

async function inspector<T>(w: World, path: string): Promise<T> {
  const answer = await w.controls.raw('GET', `/inspector${path}`);
  expect(answer.status, answer.text.slice(0, 300)).toBe(200);
  texts.push(answer.text);
  return answer.body as T;
}
const timeline = (w: World, query = '') => inspector<Timeline>(w, `/companies/${w.company.companyId}/timeline${query}`);
const detail = (w: World, id: string) =>
  inspector<ItemDetail>(w, `/companies/${w.company.companyId}/items/${encodeURIComponent(id)}`);

async function addFault(w: World, fault: Record<string, unknown>): Promise<string> {
  const answer = await w.controls.raw('POST', '/faults', fault);
  expect(answer.status, answer.text).toBe(201);
  faults.push({ w, id: answer.body.id });
  return answer.body.id as string;
}

async function ownNow(w: World): Promise<number> {
  return Date.parse((await w.controls.raw('GET', `/companies/${w.company.companyId}/clock`)).body.now);
}

/** Every item of the company's timeline and its detail, read whole: their raw texts go to `texts`. */
async function readEverything(w: World): Promise<void> {
  const page = await timeline(w, '?limit=1000');
  for (const item of [...page.items, ...page.ahead]) await detail(w, item.id);
}

function expectNoSecrets(secrets: readonly string[]): void {
  expect(texts.length).toBeGreaterThan(0);
  for (const text of texts.splice(0)) for (const secret of secrets) expect(text).not.toContain(secret);
}

describe('the timeline', () => {
  it('shows a webhook retry cycle: the event and its 8 attempts at their virtual times, each after its wait', async () => {
    const w = await ownWorld();
    const destination = await createDestination(w);
    await addFault(w, {
      target: 'delivery',
      match: { companyId: w.company.companyId },
      effect: { status: 503 },
      times: null,
    });
    const t0 = await ownNow(w);
    const raised = await w.controls.raw('POST', `/companies/${w.company.companyId}/events`, {
      dados: { tipo: 'webhook.teste' },
    });
    expect(raised.status).toBe(201);
    const eventId = raised.body.eventId as string;
    const moved = await w.controls.raw('POST', `/companies/${w.company.companyId}/clock/advance`, { by: '1d' });
    expect(moved.status).toBe(200);

    // The items of this event: on a shared server every timeline also shows the calls of other tests that concern
    // every company (a fault or a route for all), which may fill a page.
    const page = await timeline(w, `?touches=${eventId}`);
    expect(page).toMatchObject({
      companyId: w.company.companyId,
      now: iso(t0 + 24 * HOUR),
      clock: 'own',
      nextBefore: null,
    });
    const attempts = page.items.filter((i) => i.kind === 'attempt').reverse();
    const starts = [
      0,
      5 * SECOND,
      5 * MINUTE + 5 * SECOND,
      35 * MINUTE + 5 * SECOND,
      2 * HOUR + 35 * MINUTE + 5 * SECOND,
      7 * HOUR + 35 * MINUTE + 5 * SECOND,
      14 * HOUR + 35 * MINUTE + 5 * SECOND,
      22 * HOUR + 35 * MINUTE + 5 * SECOND,
    ];
    const waits = [
      '',
      ' (+5s after the previous)',
      ' (+5m after the previous)',
      ' (+30m after the previous)',
      ' (+2h after the previous)',
      ' (+5h after the previous)',
      ' (+7h after the previous)',
      ' (+8h after the previous)',
    ];
    expect(attempts).toEqual(
      starts.map(
        (start, i): TimelineItem => ({
          id: `att:${eventId}:${i + 1}`,
          kind: 'attempt',
          at: iso(t0 + start),
          title: `attempt ${i + 1}/8 of webhook.teste → falhou 503${waits[i]}`,
          status: 503,
          tone: 'error',
          tags: [`attempt ${i + 1}/8`, 'falhou 503', 'status_nao_2xx'],
          detail: true,
        }),
      ),
    );
    expect(page.items.find((i) => i.kind === 'event')).toEqual({
      id: `evt:${eventId}`,
      kind: 'event',
      at: iso(t0),
      title: 'event webhook.teste raised → falhou after 8 attempts',
      status: 503,
      tone: 'error',
      tags: ['falhou', 'status_nao_2xx'],
      detail: true,
    });
    // Newest first: the attempts' order on the page is the reverse of their numbers.
    expect(page.items.map((i) => i.at)).toEqual([...page.items.map((i) => i.at)].sort().reverse());

    const event = await detail(w, `evt:${eventId}`);
    expect(event.sections.map((s) => `${s.kind} ${s.title}`)).toEqual([
      'json Event',
      'json Envelope',
      'table Attempts',
      ...starts.map((_, i) => `headers Signature headers of attempt ${i + 1}`),
    ]);
    expect(event.sections[2]!.value).toHaveLength(8);
    const envelope = JSON.stringify(event.sections[1]!.value);
    for (const [i, start] of starts.entries()) {
      const stamp = String(Math.floor((t0 + start) / 1000));
      expect(event.sections[3 + i]!.value).toMatchObject({
        'service-event-id': eventId,
        'service-timestamp': stamp,
        'service-signature': expectedSignature(destination.segredo, stamp, eventId, envelope),
      });
    }
    const third = await detail(w, `att:${eventId}:3`);
    expect(third.sections.map((s) => s.title)).toEqual(['Attempt', 'Signature headers', 'Envelope']);
    expect(third.sections[0]!.value).toEqual({
      tentativa: 3,
      destino_versao: 1,
      estado: 'falhou',
      iniciada_em: iso(t0 + starts[2]!),
      terminada_em: iso(t0 + starts[2]!),
      codigo_falha: 'status_nao_2xx',
      status_http: 503,
      ciclo: 1,
      duracao_ms: 0,
    });
    await readEverything(w);
    expectNoSecrets([w.company.token, destination.segredo]);
  });

  it('tags a replayed request and a request a fault fired on, with the fault and the error code', async () => {
    const w = await ownWorld();
    await timeline(w); // the inspector is open from here on: error codes and bodies are recorded
    const key = `inspector-${Date.now()}-replay`;
    const first = await w.api.put(
      '/v1/webhook',
      { url: 'https://hooks.replay.example/in' },
      { key, headers: { 'if-none-match': '*' } },
    );
    const again = await w.api.put(
      '/v1/webhook',
      { url: 'https://hooks.replay.example/in' },
      { key, headers: { 'if-none-match': '*' } },
    );
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const faultId = await addFault(w, {
      target: 'api',
      match: { companyId: w.company.companyId, method: 'GET', path: '/v1/empresa' },
      effect: { status: 503 },
      times: 1,
    });
    const faulted = await w.api.get('/v1/empresa');
    expect(faulted.status).toBe(503);

    const page = await timeline(w);
    const byId = (answer: { headers: Headers }) =>
      page.items.find((i) => i.id === `req:${answer.headers.get('x-request-id')}`);
    expect(byId(first)).toMatchObject({
      kind: 'request',
      title: 'PUT /v1/webhook → 201',
      status: 201,
      tone: 'ok',
      tags: [],
      detail: true,
    });
    expect(byId(again)).toMatchObject({
      kind: 'request',
      title: 'PUT /v1/webhook → 201 (replayed)',
      status: 201,
      tone: 'ok',
      tags: ['replayed'],
      detail: true,
    });
    expect(byId(faulted)).toMatchObject({
      kind: 'request',
      title: 'GET /v1/empresa → 503',
      status: 503,
      tone: 'error',
      tags: [`fault ${faultId}`, faulted.body.erro.codigo],
      detail: true,
    });

    const replay = await detail(w, byId(again)!.id);
    expect(replay.sections.map((s) => s.title)).toEqual([
      'Request',
      'Request headers',
      'Request body',
      'Answer headers (201)',
      'Answer body',
    ]);
    expect(replay.sections[1]!.value).toMatchObject({ authorization: 'Bearer ••••', 'idempotency-key': key });
    expect(replay.sections[3]!.value).toMatchObject({ 'idempotent-replayed': 'true' });
    expect(replay.sections[4]!.value).toMatchObject({ segredo: '••••', estado: 'ativo' });
    await readEverything(w);
    expectNoSecrets([w.company.token, first.body.segredo]);
  });

  it('answers 404 for an unknown company or item and 422 for a bad page, changing nothing', async () => {
    const w = await ownWorld();
    expectControlError(
      await w.controls.raw('GET', '/inspector/companies/00000000-0000-4000-8000-000000000000/timeline'),
      404,
      'empresa_nao_encontrada',
    );
    expectControlError(
      await w.controls.raw('GET', `/inspector/companies/${w.company.companyId}/items/evt:nada`),
      404,
      'item_nao_encontrado',
    );
    expectControlError(
      await w.controls.raw('GET', `/inspector/companies/${w.company.companyId}/items/nada`),
      404,
      'item_nao_encontrado',
    );
    expectControlError(
      await w.controls.raw('GET', `/inspector/companies/${w.company.companyId}/timeline?limit=-1`),
      422,
      'valor_invalido',
    );
    expectControlError(
      await w.controls.raw('GET', `/inspector/companies/${w.company.companyId}/timeline?before=xyz`),
      422,
      'valor_invalido',
    );
    // No request or event of the company (control calls of the whole emulator, by other tests, may be there).
    expect((await timeline(w)).items.filter((i) => i.kind !== 'control')).toEqual([]);
  });
});

/** Frames of an event stream, one `event:`/`data:` block at a time. */
function frames(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return async (): Promise<{ event: string; data: unknown }> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        texts.push(block);
        if (block.startsWith(':')) continue;
        return { event: /^event: (.*)$/m.exec(block)![1]!, data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) };
      }
      const { done, value } = await reader.read();
      if (done) throw new Error('the stream ended');
      buffer += decoder.decode(value, { stream: true });
    }
  };
}

describe('the stream', () => {
  it("delivers the company's new items live, and its clock's moves", async () => {
    const w = await ownWorld();
    const other = await otherCompany(w);
    const controller = new AbortController();
    const response = await w.target.fetch(`/_emulator/inspector/stream?companyId=${w.company.companyId}`, {
      signal: controller.signal,
    });
    try {
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const next = frames(response);
      // The clock frame: the company's now and the tasks ahead of it (none yet).
      expect(await next()).toEqual({ event: 'clock', data: { now: iso(await ownNow(w)), ahead: [] } });
      await other.api.get('/v1/empresa'); // another company's: not on this stream
      const answer = await w.api.get('/v1/contexto');
      expect(await next()).toEqual({
        event: 'item',
        data: {
          id: `req:${answer.headers.get('x-request-id')}`,
          kind: 'request',
          at: iso(await ownNow(w)),
          title: 'GET /v1/contexto → 200',
          status: 200,
          tone: 'ok',
          tags: [],
          detail: true,
        },
      });
      const moved = await w.controls.raw('POST', `/companies/${w.company.companyId}/clock/advance`, { by: '1h' });
      // The move as it happens, then the advance's own call once answered.
      expect(await next()).toEqual({ event: 'clock', data: { now: moved.body.now, ahead: [] } });
      expect(((await next()) as { data: TimelineItem }).data).toMatchObject({
        kind: 'control',
        title: `POST /_emulator/companies/${w.company.companyId}/clock/advance → 200 (now ${moved.body.now}, ran ${moved.body.ran} task${moved.body.ran === 1 ? '' : 's'})`,
      });
      expectNoSecrets([w.company.token, other.company.token]);
    } finally {
      controller.abort();
    }
  });
});

describe('a client that stops reading the stream', () => {
  /** A raw socket that asks for `path`, and once its answer has begun (the stream is open) reads nothing more. */
  async function silentReader(url: URL, path: string): Promise<Socket> {
    const socket = connectSocket(Number(url.port), url.hostname);
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
    await new Promise((resolve, reject) => socket.once('data', resolve).once('error', reject));
    socket.pause();
    return socket;
  }

  // What the server holds for a stalled reader is bounded by the stream itself (1 MiB, counted frame by frame in
  // src/inspector/server's tests); here, over a real socket, the cut is seen as the reader sees it: what the sockets
  // took in, then the end of the answer, the frames the stream held dropped. (A memory reading of this process, as
  // this test once made, also counts what other test files of its worker leave.)
  it('is cut once 1 MiB behind: once read again it gets only what the sockets took in, then the end of its answer, and the timeline has what it missed', async () => {
    // Frames of some 0.5 KB (a path is kept to 256 characters, docs/journal.md): some 10 MB a reader, past
    // whatever loopback's kernel buffers take in (a few MB at most), so the stream's own 1 MiB fills.
    const REQUESTS = 20_000;
    const emu = closing(createEmulator());
    const server = await emu.listen({ port: 0 });
    const company = emu.companies.create();
    const url = new URL(server.url);
    // The longest path the journal keeps whole (docs/journal.md: 256 characters), so the largest frames.
    const path = `/v1/produtos/${'a'.repeat(256 - '/v1/produtos/'.length)}`;
    const readers = [
      await silentReader(url, `/_emulator/inspector/stream?companyId=${company.companyId}`),
      await silentReader(url, `/_emulator/inspector/stream?companyId=${company.companyId}`),
    ];
    try {
      let last: Response | undefined;
      // In process: the streams' readers are on the socket, and the server sends them every request however it came.
      for (let i = 0; i < REQUESTS; i++)
        last = await emu.fetch(path, { headers: { authorization: `Bearer ${company.token}` } });
      // Read now, each answer gets what the socket had taken in, then its end (the last chunk of a chunked answer).
      const receivedBytes = await Promise.all(
        readers.map(
          (socket) =>
            new Promise<number>((resolve, reject) => {
              let tail = '';
              let received = 0;
              socket.on('data', (chunk: Buffer) => {
                received += chunk.length;
                tail = (tail + chunk.toString('latin1')).slice(-7);
                if (tail === '\r\n0\r\n\r\n') resolve(received);
              });
              socket.once('error', reject);
              socket.once('end', () => reject(new Error('the connection ended before the answer did')));
              socket.resume();
            }),
        ),
      );
      // What each reader got once it read again: what the sockets' kernel buffers had taken in (some 16 KB here; at
      // most the 4 MiB of Linux's largest send buffer), never the frames the stream held, which were dropped. Not cut,
      // each would get every frame, the 256-character path in each: over 5 MB.
      expect(REQUESTS * path.length).toBeGreaterThan(5_000_000);
      for (const received of receivedBytes) expect(received).toBeLessThan(4 * 1024 * 1024);
      const read = await fetch(`${server.url}/_emulator/inspector/companies/${company.companyId}/timeline?limit=1`);
      expect(((await read.json()) as Timeline).items.map((item) => [item.id, item.status])).toEqual([
        [`req:${last!.headers.get('x-request-id')}`, last!.status],
      ]);
    } finally {
      for (const socket of readers) socket.destroy();
    }
  }, 60_000);
});

describe('the control token', () => {
  it('guards every data route of the inspector: 401 without it, 200 with it, and never echoed', async () => {
    const controlToken = 'inspector-control-token-0001';
    const emu = closing(createEmulator({ controlToken }));
    const target = inProcessTarget(emu);
    const guarded = new Controls(target, controlToken);
    const company = await guarded.createCompany({});
    const bare = new Controls(target);
    const wrong = new Controls(target, 'not-the-control-token');
    for (const path of [
      `/inspector/companies/${company.companyId}/timeline`,
      `/inspector/companies/${company.companyId}/items/req:x`,
      `/inspector/stream?companyId=${company.companyId}`,
    ]) {
      expectControlError(await bare.raw('GET', path), 401, 'token_de_controle_ausente');
      expectControlError(await wrong.raw('GET', path), 401, 'token_de_controle_invalido');
    }
    const w: World = { target, controls: guarded, company, api: new Api(target, company.token) };
    await w.api.get('/v1/empresa');
    const page = await timeline(w);
    // The request, and the company's creation (a control call the history kept from the start).
    expect(page.items.map((i) => i.title)).toEqual([
      'GET /v1/empresa → 200',
      expect.stringMatching(/^POST \/_emulator\/companies → 201/) as unknown as string,
    ]);
    const controller = new AbortController();
    const stream = await target.fetch(`/_emulator/inspector/stream?companyId=${company.companyId}`, {
      headers: { authorization: `Bearer ${controlToken}` },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    controller.abort();
    await readEverything(w);
    expectNoSecrets([controlToken, company.token]);
    expect(
      (await readAnswer(await target.fetch(`/_emulator/inspector/companies/${company.companyId}/timeline`))).status,
    ).toBe(401);
  });
});
