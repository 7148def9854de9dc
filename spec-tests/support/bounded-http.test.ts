/**
 * The support's bounded client (bounded-http.ts) against small servers of this process on 127.0.0.1, each doing one
 * thing wrong: every failure is a RequestFailure naming the URL and what happened, and no answer is read past the cap.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { boundedFetch, send, type Bounds } from './bounded-http.js';

const servers: Server[] = [];
/** Every connection the servers took: the client's pool keeps some open, and a server closes only once they are gone. */
const sockets = new Set<Socket>();

/** A raw TCP server on a free port doing `onConnection`; its base URL. */
async function rawServer(onConnection: (socket: Socket, index: number) => void): Promise<string> {
  let count = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    onConnection(socket, count++);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Calls `then` with the request head once it has come whole (the body, if any, follows in `rest`). */
function onHead(socket: Socket, then: (head: string, rest: Buffer) => void): void {
  let data = Buffer.alloc(0);
  const read = (chunk: Buffer) => {
    data = Buffer.concat([data, chunk]);
    const end = data.indexOf('\r\n\r\n');
    if (end < 0) return;
    socket.off('data', read);
    then(data.subarray(0, end).toString('latin1'), data.subarray(end + 4));
  };
  socket.on('data', read);
}

const answer = (status: string, headers: string[], body = '') =>
  `HTTP/1.1 ${status}\r\n${[...headers, `content-length: ${Buffer.byteLength(body)}`].join('\r\n')}\r\n\r\n${body}`;

afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

const BOUNDS: Bounds = { timeoutMs: 5_000, maxBodyBytes: 1024 };
const get = (url: string, bounds: Bounds = BOUNDS) => send(new URL(url), { method: 'GET', headers: {} }, bounds);

describe('the bounded client', () => {
  it('reads an answer whole: status, headers as they came (repeated ones too), a body of exactly the cap', async () => {
    const body = 'x'.repeat(1024);
    const base = await rawServer((socket) =>
      onHead(socket, () => socket.end(answer('200 OK', ['x-one: a', 'X-Two: b', 'x-one: c'], body))),
    );
    const got = await get(`${base}/v1/empresa`);
    expect({ status: got.status, rawHeaders: got.rawHeaders, body: got.body.toString() }).toEqual({
      status: 200,
      rawHeaders: ['x-one', 'a', 'X-Two', 'b', 'x-one', 'c', 'content-length', '1024'],
      body,
    });
  });

  it('refuses a body one byte over the cap, naming the URL and the cap', async () => {
    const base = await rawServer((socket) => onHead(socket, () => socket.end(answer('200 OK', [], 'x'.repeat(1025)))));
    await expect(get(`${base}/v1/x`)).rejects.toMatchObject({
      name: 'RequestFailure',
      kind: 'too-large',
      message: `${base}/v1/x: the answer (200) has a body larger than the cap of 1 KiB; the rest was not read`,
    });
  });

  it('stops reading an endless body at the cap and drops the connection', async () => {
    let written = 0;
    let closed!: () => void;
    const hungUp = new Promise<void>((resolve) => (closed = resolve));
    const base = await rawServer((socket) =>
      onHead(socket, () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n');
        const chunk = Buffer.alloc(64 * 1024, 'a');
        const pump = () => {
          while (!socket.destroyed && socket.write(chunk)) written += chunk.length;
        };
        socket.on('drain', pump);
        socket.on('close', closed);
        pump();
      }),
    );
    await expect(get(`${base}/v1/x`, { timeoutMs: 5_000, maxBodyBytes: 1024 * 1024 })).rejects.toMatchObject({
      kind: 'too-large',
      message: `${base}/v1/x: the answer (200) has a body larger than the cap of 1 MiB; the rest was not read`,
    });
    await hungUp;
    // What the server got out before the client hung up: the cap and what the sockets' buffers hold, no more.
    expect(written).toBeLessThan(1024 * 1024 + 16 * 1024 * 1024);
  });

  it('refuses a declared length over the cap before reading any of it', async () => {
    const base = await rawServer((socket) =>
      onHead(socket, () => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 1000000000\r\n\r\n')),
    );
    await expect(get(`${base}/big`)).rejects.toMatchObject({ kind: 'too-large' });
    // A HEAD answer declares a body it does not have.
    const head = await rawServer((socket) =>
      onHead(socket, () => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 1000000000\r\n\r\n')),
    );
    expect((await send(new URL(`${head}/big`), { method: 'HEAD', headers: {} }, BOUNDS)).status).toBe(200);
  });

  it.each([
    ['accepts and closes', (socket: Socket) => socket.end(), 'the connection was closed before an answer'],
    ['resets at once', (socket: Socket) => socket.resetAndDestroy(), 'the connection was reset'],
    [
      'resets after the request',
      (socket: Socket) => onHead(socket, () => socket.resetAndDestroy()),
      'the connection was reset',
    ],
    [
      'answers what is not HTTP',
      (socket: Socket) => onHead(socket, () => socket.end('SSH-2.0-OpenSSH_9.6\r\n')),
      'what came back is not HTTP (Expected HTTP/, RTSP/ or ICE/)',
    ],
    [
      'closes in the middle of the body',
      (socket: Socket) => onHead(socket, () => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nabc')),
      'the connection was closed in the middle of the answer (200, 3 bytes of its body came)',
    ],
  ])('fails, naming the URL, against a server that %s', async (_name, onConnection, reason) => {
    const base = await rawServer(onConnection);
    await expect(get(`${base}/v1/empresa`)).rejects.toMatchObject({
      name: 'RequestFailure',
      kind: 'network',
      message: `cannot reach ${base}/v1/empresa: ${reason}`,
    });
  });

  it('fails on a refused connection, and on TLS to a server that speaks plain HTTP', async () => {
    // A port that was free a moment ago: nothing listens there now.
    const base = await rawServer((socket) => socket.destroy());
    await new Promise((resolve) => servers.pop()!.close(resolve));
    await expect(get(`${base}/v1/empresa`)).rejects.toMatchObject({
      message: `cannot reach ${base}/v1/empresa: the connection was refused (nothing listens there)`,
    });
    const plain = await rawServer((socket) => socket.once('data', () => socket.end(answer('400 Bad Request', []))));
    const tls = `https://127.0.0.1:${new URL(plain).port}/v1/empresa`;
    await expect(get(tls)).rejects.toMatchObject({
      kind: 'network',
      message: expect.stringMatching(
        new RegExp(`^cannot reach ${tls.replace(/[.]/g, '\\.')}: the TLS handshake failed \\(`),
      ),
    });
  });

  it('times out with no answer, and with an answer that does not end', async () => {
    const silent = await rawServer(() => undefined);
    await expect(get(`${silent}/a`, { timeoutMs: 150, maxBodyBytes: 1024 })).rejects.toMatchObject({
      kind: 'timeout',
      message: `cannot reach ${silent}/a: no answer within 150 ms`,
    });
    const stalled = await rawServer((socket) =>
      onHead(socket, () => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc')),
    );
    await expect(get(`${stalled}/b`, { timeoutMs: 150, maxBodyBytes: 1024 })).rejects.toMatchObject({
      kind: 'timeout',
      message: `cannot reach ${stalled}/b: the answer did not end within 150 ms (3 bytes of its body came)`,
    });
  });

  it('stops a pending request, and any later one, when its signal is aborted, with the reason given', async () => {
    const stop = new AbortController();
    let arrived!: () => void;
    const requested = new Promise<void>((resolve) => (arrived = resolve));
    const base = await rawServer((socket) => onHead(socket, () => arrived()));
    const pending = get(`${base}/a`, { timeoutMs: 60_000, maxBodyBytes: 1024, signal: stop.signal });
    await requested;
    stop.abort(new Error('the deadline of 2 s (--deadline) passed'));
    await expect(pending).rejects.toMatchObject({
      kind: 'stopped',
      message: `${base}/a: the deadline of 2 s (--deadline) passed`,
    });
    await expect(
      get(`${base}/b`, { timeoutMs: 60_000, maxBodyBytes: 1024, signal: stop.signal }),
    ).rejects.toMatchObject({ kind: 'stopped' });
  });

  it('sends a request once more when the pooled connection it took was closed before an answer', async () => {
    const base = await rawServer((socket, index) => {
      let requests = 0;
      const next = () =>
        onHead(socket, () => {
          requests += 1;
          // The first connection answers once and keeps alive, then drops the second request unanswered.
          if (index === 0 && requests === 2) return socket.destroy();
          socket.write(answer('200 OK', [], `connection ${index}`));
          next();
        });
      next();
    });
    expect((await get(`${base}/one`)).body.toString()).toBe('connection 0');
    expect((await get(`${base}/two`)).body.toString()).toBe('connection 1');
  });
});

describe('boundedFetch', () => {
  it('sends what fetch sends: the Accept, a string body with its type and length, a DELETE body framed', async () => {
    const heads: string[] = [];
    const base = await rawServer((socket) => {
      const next = () =>
        onHead(socket, (head, rest) => {
          const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
          heads.push(
            `${head
              .split('\r\n')
              .filter((line) => !/^(host|connection):/i.test(line))
              .join(' | ')} | body ${rest.subarray(0, length).toString()}`,
          );
          socket.write(answer('200 OK', ['content-type: application/json'], '{"ok":true}'));
          next();
        });
      next();
    });
    const response = await boundedFetch(
      `${base}/v1/x`,
      { method: 'delete', headers: { authorization: 'Bearer t' }, body: '{"motivo":"x"}' },
      BOUNDS,
    );
    expect({
      status: response.status,
      type: response.headers.get('content-type'),
      body: await response.json(),
    }).toEqual({ status: 200, type: 'application/json', body: { ok: true } });
    await boundedFetch(`${base}/v1/y`, { method: 'POST', body: 'raw' }, BOUNDS);
    expect(heads).toEqual([
      'DELETE /v1/x HTTP/1.1 | accept: */* | authorization: Bearer t | content-length: 14 | content-type: text/plain;charset=UTF-8 | user-agent: catalog-emulator-conformance | body {"motivo":"x"}',
      'POST /v1/y HTTP/1.1 | accept: */* | content-length: 3 | content-type: text/plain;charset=UTF-8 | user-agent: catalog-emulator-conformance | body raw',
    ]);
  });

  it('gives a 204 and a HEAD answer no body, and refuses a status no Response can hold', async () => {
    const base = await rawServer((socket) =>
      onHead(socket, (head) =>
        socket.end(
          head.startsWith('GET /odd')
            ? 'HTTP/1.1 999 Odd\r\ncontent-length: 0\r\n\r\n'
            : 'HTTP/1.1 204 No Content\r\n\r\n',
        ),
      ),
    );
    expect((await boundedFetch(`${base}/empty`, {}, BOUNDS)).body).toBeNull();
    await expect(boundedFetch(`${base}/odd`, {}, BOUNDS)).rejects.toMatchObject({
      kind: 'network',
      message: `cannot reach ${base}/odd: the answer's status 999 is not a final HTTP status`,
    });
  });
});
