/**
 * The transport judges an attempt as the spec says (spec: WH-EVT-55, WH-EVT-56): only a complete response,
 * status line, headers and the whole body it declared, is an answer. Real HTTP to a loopback receiver that
 * writes raw bytes (answers no correct server would give), and in-process handlers whose body streams fail
 * or never end. The cases that wait for a time-out fire it themselves (no test measures elapsed time): over HTTP
 * the attempt's time-out is held by the test, in process the grace runs on fake timers.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { UnderlyingSource } from 'node:stream/web';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FaultRegistry } from '../engine/faults.js';
import { Inbox } from './inbox.js';
import { RouteTable, type ReceiverHandler } from './routes.js';
import { Transport, type OutboundDelivery, type TransportOutcome } from './transport.js';

/** The time-out and the grace of the cases that wait for them to expire (fired by the test). */
const TIMEOUT_MS = 150;
const GRACE_MS = 50;
/** Those of every other case: generous, so that a loaded machine cannot turn an answer into silence. */
const PATIENT_MS = 10_000;
const HOST = 'https://hooks.example.com';

const delivery: OutboundDelivery = {
  url: `${HOST}/recebe?x=1`,
  companyId: 'company-1',
  eventId: '6f1c7a52-5b8e-4c1e-9d0a-2f3b4c5d6e7f',
  tipo: 'catalogo.aplicado',
  tentativa: 1,
  secret: 'svc_whsec_test',
  body: '{"id":"6f1c7a52-5b8e-4c1e-9d0a-2f3b4c5d6e7f","versao":1,"nome":"café"}',
  now: Date.UTC(2026, 0, 1),
};

/** Sends the delivery through a route to `to`. */
async function send(
  to: string | ReceiverHandler,
  limits: { timeoutMs: number; graceMs: number } = { timeoutMs: PATIENT_MS, graceMs: PATIENT_MS },
): Promise<{ outcome: TransportOutcome }> {
  const routes = new RouteTable();
  routes.add(HOST, to);
  const transport = new Transport(routes, new Inbox(), new FaultRegistry(), () => limits.timeoutMs, limits.graceMs);
  const { outcome } = await transport.send(delivery);
  return { outcome };
}

/** The short limits, for the cases that wait for them. */
const SHORT = { timeoutMs: TIMEOUT_MS, graceMs: GRACE_MS };

/**
 * The attempt's time-out over HTTP, fired when the test says (CONTRIBUTING.md "Tests": no test measures elapsed
 * time): AbortSignal.timeout, what the transport's time-out is, answers a signal the test aborts, and each time-out
 * asked for is noted. `send` is then still waiting, whatever happened on the connection before: `pending()`.
 */
function heldTimeout() {
  const asked: number[] = [];
  const held = new AbortController();
  const timeout = vi.spyOn(AbortSignal, 'timeout').mockImplementation((ms: number) => {
    asked.push(ms);
    return held.signal;
  });
  return {
    asked,
    fire: () => held.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    [Symbol.dispose]: () => timeout.mockRestore(),
  };
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

// ---------------------------------------------------------------------------------------------------------
// A loopback receiver that answers with raw bytes

interface Got {
  readonly request: IncomingMessage;
  readonly body: Buffer;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A node:http server on loopback; `answer` gets the socket once the whole request is in, and writes what it likes. */
async function receiver(answer: (socket: Socket) => void): Promise<{ origin: string; got: Got[] }> {
  const got: Got[] = [];
  const server = createServer((request) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      got.push({ request, body: Buffer.concat(chunks) });
      answer(request.socket);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got };
}

const head = (status: number, headers: string[]) => [`HTTP/1.1 ${status} Resposta`, ...headers, '', ''].join('\r\n');

describe('Transport over real HTTP: only a complete response is an answer', () => {
  it('a complete 200 (Content-Length) is a response 200; the request carries exactly the delivery headers, in lower case, and the body bytes', async () => {
    const r = await receiver((socket) => socket.end(`${head(200, ['Content-Length: 2'])}ok`));
    expect((await send(r.origin)).outcome).toEqual({ kind: 'response', status: 200 });

    expect(r.got).toHaveLength(1);
    const { request, body } = r.got[0]!;
    expect([request.method, request.url]).toEqual(['POST', '/recebe?x=1']);
    const names = request.rawHeaders.filter((_, i) => i % 2 === 0);
    expect(names).toEqual(names.map((n) => n.toLowerCase()));
    expect(Object.keys(request.headers).sort()).toEqual([
      'connection',
      'content-length',
      'content-type',
      'host',
      'service-event-id',
      'service-signature',
      'service-timestamp',
      'user-agent',
    ]);
    expect(request.headers['content-length']).toBe(String(Buffer.byteLength(delivery.body)));
    expect(request.headers['service-event-id']).toBe(delivery.eventId);
    expect(body.toString('utf8')).toBe(delivery.body);
  });

  it('a chunked 201 terminated by its last chunk, sent in pieces within the time-out, is a response 201', async () => {
    const r = await receiver((socket) => {
      socket.write(`${head(201, ['Transfer-Encoding: chunked'])}3\r\nabc\r\n`);
      setTimeout(() => socket.end('2\r\nde\r\n0\r\n\r\n'), 30);
    });
    expect((await send(r.origin)).outcome).toEqual({ kind: 'response', status: 201 });
  });

  it('bytes after a complete response (a 204 with a body, a body longer than its Content-Length) leave it complete', async () => {
    const r204 = await receiver((socket) => socket.end(`${head(204, ['Content-Length: 5'])}extra`));
    expect((await send(r204.origin)).outcome).toEqual({ kind: 'response', status: 204 });
    const r200 = await receiver((socket) => socket.end(`${head(200, ['Content-Length: 2'])}okextra`));
    expect((await send(r200.origin)).outcome).toEqual({ kind: 'response', status: 200 });
  });

  it('a 200 declaring Content-Length: 1000 that sends 7 bytes and closes is incomplete with status 200', async () => {
    const r = await receiver((socket) => socket.end(`${head(200, ['Content-Length: 1000'])}recebid`));
    expect((await send(r.origin)).outcome).toEqual({ kind: 'incomplete', status: 200 });
  });

  it('a 500 cut short is incomplete with status 500 (no complete answer, whatever the status)', async () => {
    const r = await receiver((socket) => socket.end(`${head(500, ['Content-Length: 50'])}erro`));
    expect((await send(r.origin)).outcome).toEqual({ kind: 'incomplete', status: 500 });
  });

  it('a chunked body that never ends is no answer at the time-out (not a response, not incomplete)', async () => {
    let written!: () => void;
    const answered = new Promise<void>((resolve) => (written = resolve));
    const r = await receiver((socket) => {
      socket.write(`${head(200, ['Transfer-Encoding: chunked'])}7\r\nrecebid\r\n`, () => written());
    });
    using timeout = heldTimeout();
    const sending = send(r.origin, SHORT);
    await answered;
    // Still waiting for the body's end, at no time-out of its own, until the attempt's time-out fires.
    expect(await pendingAfter(sending)).toBe(true);
    timeout.fire();
    expect((await sending).outcome).toEqual({ kind: 'no_answer' });
    expect(timeout.asked).toEqual([TIMEOUT_MS]);
  });

  it('a Content-Length body that stops arriving with the connection open is no answer at the time-out', async () => {
    let written!: () => void;
    const answered = new Promise<void>((resolve) => (written = resolve));
    const r = await receiver((socket) => socket.write(`${head(200, ['Content-Length: 10'])}rece`, () => written()));
    using timeout = heldTimeout();
    const sending = send(r.origin, SHORT);
    await answered;
    expect(await pendingAfter(sending)).toBe(true);
    timeout.fire();
    expect((await sending).outcome).toEqual({ kind: 'no_answer' });
    expect(timeout.asked).toEqual([TIMEOUT_MS]);
  });

  it('a receiver that never answers is no answer at the time-out', async () => {
    let reached!: () => void;
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    const r = await receiver(() => reached());
    using timeout = heldTimeout();
    const sending = send(r.origin, SHORT);
    await arrived;
    expect(r.got).toHaveLength(1);
    expect(await pendingAfter(sending)).toBe(true);
    timeout.fire();
    expect((await sending).outcome).toEqual({ kind: 'no_answer' });
    expect(timeout.asked).toEqual([TIMEOUT_MS]);
  });

  it('a 302 is a response 302 and is not followed: the receiver gets one request', async () => {
    let origin = '';
    const r = await receiver((socket) => socket.end(head(302, [`Location: ${origin}/movido`, 'Content-Length: 0'])));
    origin = r.origin;
    expect((await send(r.origin)).outcome).toEqual({ kind: 'response', status: 302 });
    expect(r.got.map((g) => g.request.url)).toEqual(['/recebe?x=1']);
  });

  it('a connection dropped after the request, before any answer, is a reset', async () => {
    const r = await receiver((socket) => socket.destroy());
    expect((await send(r.origin)).outcome).toEqual({ kind: 'reset' });
  });

  it('a closed port is refused; a host that does not resolve is unreachable', async () => {
    const r = await receiver(() => undefined);
    const port = new URL(r.origin).port;
    const server = servers.pop()!;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect((await send(`http://127.0.0.1:${port}`)).outcome).toEqual({ kind: 'refused' });
    expect((await send('http://destino-inexistente.invalid')).outcome).toEqual({ kind: 'unreachable' });
  });
});

describe('Transport to an in-process handler: the Response body is read to its end within the grace', () => {
  const stream = (source: UnderlyingSource<Uint8Array>) => new ReadableStream<Uint8Array>(source);
  const bytes = (text: string) => new TextEncoder().encode(text);

  it('a body streamed in pieces to its end is a response with the status; the handler got the signed request', async () => {
    let received: Request | undefined;
    const handler: ReceiverHandler = (request) => {
      received = request;
      return new Response(
        stream({
          start(controller) {
            controller.enqueue(bytes('rece'));
            setTimeout(() => {
              controller.enqueue(bytes('bido'));
              controller.close();
            }, 5);
          },
        }),
        { status: 202 },
      );
    };
    expect((await send(handler)).outcome).toEqual({ kind: 'response', status: 202 });
    expect(received?.headers.get('service-event-id')).toBe(delivery.eventId);
    expect(await received?.text()).toBe(delivery.body);
  });

  it('the handler gets what the built-in inbox records of the same attempt: url, headers in order, exact body', async () => {
    const inbox = new Inbox();
    await new Transport(new RouteTable(), inbox, new FaultRegistry(), () => PATIENT_MS, PATIENT_MS).send(delivery);
    const recorded = inbox.list()[0]!;
    let received: Request | undefined;
    expect((await send((request) => ((received = request), new Response(null, { status: 204 })))).outcome).toEqual({
      kind: 'response',
      status: 204,
    });
    expect(received).toBeInstanceOf(Request);
    expect([received!.method, received!.url]).toEqual(['POST', recorded.url]);
    expect([...received!.headers]).toEqual(Object.entries(recorded.headers).sort(([a], [b]) => (a < b ? -1 : 1)));
    expect(await received!.text()).toBe(recorded.body);
  });

  it('a duplicate fault hands the handler the same signed request twice; a tamper fault changes only what it tampers with', async () => {
    const got: { headers: [string, string][]; body: string }[] = [];
    const handler: ReceiverHandler = async (request) => {
      got.push({ headers: [...request.headers], body: await request.text() });
      return new Response(null, { status: 204 });
    };
    const sendWith = async (effect: object) => {
      const routes = new RouteTable();
      routes.add(HOST, handler);
      const faults = new FaultRegistry();
      faults.add({ target: 'delivery', match: {}, effect });
      return (await new Transport(routes, new Inbox(), faults, () => PATIENT_MS, PATIENT_MS).send(delivery)).outcome;
    };
    expect(await sendWith({ duplicate: true })).toEqual({ kind: 'response', status: 204 });
    expect(got).toHaveLength(2);
    expect(got[1]).toEqual(got[0]);
    expect(got[0]!.body).toBe(delivery.body);
    expect(await sendWith({ tamper: 'body' })).toEqual({ kind: 'response', status: 204 });
    expect(got[2]!.body).toBe(`${delivery.body} `);
    expect(got[2]!.headers).toEqual(got[0]!.headers);
  });

  it('a handler that answers at once gets the same answer as one that answers later, bodiless or not', async () => {
    for (const status of [200, 204, 302, 500]) {
      const at = (await send(() => new Response(null, { status }))).outcome;
      const later = (await send(async () => new Response(null, { status }))).outcome;
      const withBody = (await send(() => new Response('corpo', { status: status === 204 ? 200 : status }))).outcome;
      expect(at).toEqual({ kind: 'response', status });
      expect(later).toEqual(at);
      expect(withBody).toEqual({ kind: 'response', status: status === 204 ? 200 : status });
    }
  });

  it('a body stream that errors is incomplete with the status (a 2xx confirms nothing unless complete)', async () => {
    const handler: ReceiverHandler = () =>
      new Response(
        stream({
          start(controller) {
            controller.enqueue(bytes('rece'));
            controller.error(new Error('connection lost'));
          },
        }),
        { status: 200 },
      );
    expect((await send(handler)).outcome).toEqual({ kind: 'incomplete', status: 200 });
  });

  it('a body that never ends is no answer at the grace, and its stream is cancelled', async () => {
    let cancelled = false;
    const handler: ReceiverHandler = () =>
      new Response(
        stream({
          start(controller) {
            controller.enqueue(bytes('rece'));
          },
          cancel() {
            cancelled = true;
          },
        }),
        { status: 200 },
      );
    // The grace on fake timers (CONTRIBUTING.md "Tests"): no answer a millisecond before it, at it no answer.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const sending = send(handler, SHORT);
      await vi.advanceTimersByTimeAsync(GRACE_MS - 1);
      expect(await pendingAfter(sending)).toBe(true);
      await vi.advanceTimersByTimeAsync(1);
      expect((await sending).outcome).toEqual({ kind: 'no_answer' });
    } finally {
      vi.useRealTimers();
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(cancelled).toBe(true);
  });

  it('a bodiless Response is a response; throwing or rejecting is refused; anything but a Response is a reset', async () => {
    expect((await send(() => new Response(null, { status: 204 }))).outcome).toEqual({ kind: 'response', status: 204 });
    expect(
      (
        await send(() => {
          throw new Error('down');
        })
      ).outcome,
    ).toEqual({ kind: 'refused' });
    expect((await send(() => Promise.reject(new Error('down')))).outcome).toEqual({ kind: 'refused' });
    expect((await send((() => 'ok') as unknown as ReceiverHandler)).outcome).toEqual({ kind: 'reset' });
  });
});
