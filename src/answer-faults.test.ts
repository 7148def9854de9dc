/**
 * The api faults that damage an answer on its way (malformedJson, reset, truncate, trickleMs), as a client sees
 * them: in process through emu.fetch, and over a real socket through node:net (the bytes as they arrive) and
 * fetch. Each request is processed first (a retry with its key replays it); the emulator answers the next request
 * and keeps no connection of a damaged answer open.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { createEmulator, type Emulator, type RunningServer } from './index.js';
import { closedAfterEach } from '../spec-tests/support/closed-after-each.js';

const closing = closedAfterEach();

async function setUp(
  listen = false,
): Promise<{ emu: Emulator; token: string; headOffice: string; companyId: string; server: RunningServer | undefined }> {
  const emu = closing(createEmulator({ companies: [{}] }));
  const [company] = emu.companies.initial();
  const server = listen ? await emu.listen({ port: 0 }) : undefined;
  return { emu, token: company!.token, headOffice: company!.headOffice.id, companyId: company!.companyId, server };
}

/** POST /v1/catalogos as `token` with `key`, in process. */
const createCatalog = (emu: Emulator, token: string, headOffice: string, key: string) =>
  emu.fetch('/v1/catalogos', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ estabelecimento_id: headOffice, nome: 'Loja' }),
  });

/** What a raw TCP client got for one request: every byte until the server closed or reset, and how it ended. */
interface Raw {
  readonly head: string;
  readonly body: Buffer;
  /** The code of the socket's error (ECONNRESET), or null when it closed cleanly. */
  readonly error: string | null;
}

/** `GET path` with `Connection: close` over node:net, read to the end. */
function raw(server: RunningServer, path: string, token: string): Promise<Raw> {
  return new Promise((resolve) => {
    const socket = connect(server.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let error: string | null = null;
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      resolve({
        head: end < 0 ? all.toString('latin1') : all.subarray(0, end).toString('latin1'),
        body: end < 0 ? Buffer.alloc(0) : all.subarray(end + 4),
        error,
      });
    });
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
    );
  });
}

/**
 * `GET path` with `Connection: close` over node:net, read as it comes: the head once it is whole, the body so far,
 * the reads the body came in, and `closed` (the socket's error code, or null for a clean close).
 */
function stepped(server: RunningServer, path: string, token: string) {
  const socket = connect(server.port, '127.0.0.1');
  let all = Buffer.alloc(0);
  let reads = 0;
  let error: string | null = null;
  let changed = () => {};
  socket.on('data', (chunk: Buffer) => {
    if (all.includes('\r\n\r\n')) reads++;
    all = Buffer.concat([all, chunk]);
    changed();
  });
  socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
  const closed = new Promise<string | null>((resolve) => socket.on('close', () => resolve(error)));
  const host = `127.0.0.1:${server.port}`;
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
  const end = () => all.indexOf('\r\n\r\n');
  return {
    head: () => (end() < 0 ? undefined : all.subarray(0, end()).toString('latin1')),
    body: () => (end() < 0 ? Buffer.alloc(0) : all.subarray(end() + 4)),
    get reads() {
      return reads;
    },
    closed,
    /** Resolves once `done()` holds after some bytes came; rejects, saying `what`, if the socket closes first. */
    until: (what: string, done: () => boolean) =>
      new Promise<void>((resolve, reject) => {
        const look = () => {
          if (done()) resolve();
        };
        changed = look;
        void closed.then(() => (done() ? resolve() : reject(new Error(`closed before ${what}`))));
        look();
      }),
  };
}

const header = (head: string, name: string) => new RegExp(`^${name}: (.*)$`, 'mi').exec(head)?.[1];

/** The TCP sockets this process holds (the server's and its clients'). */
const tcpSockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;

/** Resolves once `done()` holds, checked every 10 ms; rejects, saying `what`, after 5 s. */
async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = performance.now() + 5_000;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`not within 5 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The next GET /v1/empresa over the socket answers 200 with the company, and no socket is left open after it. */
async function healthy(server: RunningServer, token: string, companyId: string, sockets: number): Promise<void> {
  const next = await fetch(`${server.url}/v1/empresa`, {
    headers: { authorization: `Bearer ${token}`, connection: 'close' },
  });
  expect(next.status).toBe(200);
  expect(((await next.json()) as { id: string }).id).toBe(companyId);
  await until('every connection closed', () => tcpSockets() === sockets);
}

describe('malformedJson', () => {
  it('in process: the status, the JSON type and a Content-Length that fits a body that is not JSON; the request was applied', async () => {
    const { emu, token, headOffice } = await setUp();
    const { id } = emu.faults.add({
      target: 'api',
      match: { method: 'POST', path: '/v1/catalogos' },
      effect: { malformedJson: true },
    });
    const answer = await createCatalog(emu, token, headOffice, 'malformed-json-0001');
    expect(answer.status).toBe(201);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.headers.get('x-emulator-fault')).toBe(id);
    const text = await answer.text();
    expect(answer.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    const retry = await createCatalog(emu, token, headOffice, 'malformed-json-0001');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const whole = await retry.text();
    expect(whole.startsWith(text)).toBe(true);
    expect(text.length).toBe(Math.ceil(whole.length / 2));
    expect(emu.journal.entries().map((e) => e.faultId)).toEqual([id, null]);
  });

  it('damages a refusal as any answer: a 401 with a body that is not JSON, told in the activity stream with its code', async () => {
    const { emu } = await setUp();
    const { id } = emu.faults.add({ target: 'api', effect: { malformedJson: true } });
    const entries: unknown[] = [];
    emu.activity.subscribe((entry) => entries.push(entry));
    const answer = await emu.fetch('/v1/empresa');
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    await expect(answer.json()).rejects.toThrow(SyntaxError);
    expect(entries).toEqual([
      expect.objectContaining({
        kind: 'request',
        status: 401,
        faultId: id,
        error: { codigo: 'credencial_ausente', caminho: 'header.authorization' },
      }),
    ]);
  });

  it('over a socket: a complete, well-framed answer whose body is not JSON; the connection is closed as asked', async () => {
    const { emu, token, companyId, server } = await setUp(true);
    const sockets = tcpSockets();
    emu.faults.add({ target: 'api', match: { path: '/v1/empresa' }, effect: { malformedJson: true } });
    const got = await raw(server!, '/v1/empresa', token);
    expect(got.error).toBeNull();
    expect(got.head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(header(got.head, 'content-type')).toBe('application/json; charset=utf-8');
    expect(Number(header(got.head, 'content-length'))).toBe(got.body.length);
    expect(() => JSON.parse(got.body.toString('utf8'))).toThrow(SyntaxError);
    await healthy(server!, token, companyId, sockets);
  });
});

describe('reset', () => {
  it('in process: emu.fetch rejects as fetch does on a reset connection, after the request was applied', async () => {
    const { emu, token, headOffice } = await setUp();
    const { id } = emu.faults.add({ target: 'api', match: { method: 'POST' }, effect: { reset: true } });
    const failed = await createCatalog(emu, token, headOffice, 'reset-connection-0001').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(TypeError);
    expect((failed as TypeError).message).toBe('fetch failed');
    expect((failed as TypeError).cause).toMatchObject({
      message: 'read ECONNRESET',
      code: 'ECONNRESET',
      syscall: 'read',
    });
    const retry = await createCatalog(emu, token, headOffice, 'reset-connection-0001');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(emu.journal.entries().map((e) => [e.status, e.faultId])).toEqual([
      [201, id],
      [201, null],
    ]);
  });

  it('over a socket: the client reads ECONNRESET before any byte of the answer (node:net, node:http and fetch alike)', async () => {
    const { emu, token, companyId, server } = await setUp(true);
    const sockets = tcpSockets();
    emu.faults.add({ target: 'api', match: { path: '/v1/empresa' }, effect: { reset: true }, times: 3 });
    const got = await raw(server!, '/v1/empresa', token);
    expect(got).toMatchObject({ error: 'ECONNRESET', head: '' });
    const viaHttp = await new Promise<NodeJS.ErrnoException>((resolve, reject) => {
      const sent = httpRequest(
        `${server!.url}/v1/empresa`,
        { headers: { authorization: `Bearer ${token}` }, agent: false },
        () => reject(new Error('an answer came')),
      );
      sent.on('error', resolve);
      sent.end();
    });
    expect(viaHttp.code).toBe('ECONNRESET');
    const viaFetch = await fetch(`${server!.url}/v1/empresa`, { headers: { authorization: `Bearer ${token}` } }).then(
      () => undefined,
      (error: unknown) => error as TypeError,
    );
    expect(viaFetch?.message).toBe('fetch failed');
    expect(viaFetch?.cause).toMatchObject({ code: 'ECONNRESET' });
    await healthy(server!, token, companyId, sockets);
  });
});

describe('truncate', () => {
  it('in process: the headers with the whole length, then half the body, then the error fetch gives for a cut connection', async () => {
    const { emu, token, companyId } = await setUp();
    const whole = await (await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${token}` } })).text();
    const { id } = emu.faults.add({ target: 'api', match: { path: '/v1/empresa' }, effect: { truncate: true } });
    const answer = await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${token}` } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-length')).toBe(String(Buffer.byteLength(whole)));
    expect(answer.headers.get('x-emulator-fault')).toBe(id);
    const reader = answer.body!.getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value!).toString('utf8')).toBe(whole.slice(0, Math.floor(whole.length / 2)));
    const cut = await reader.read().then(
      () => undefined,
      (error: unknown) => error as TypeError,
    );
    expect(cut).toBeInstanceOf(TypeError);
    expect(cut?.message).toBe('terminated');
    expect(cut?.cause).toMatchObject({ message: 'other side closed', code: 'UND_ERR_SOCKET' });
    // And through text(), as a client usually reads it.
    emu.faults.add({ target: 'api', match: { path: '/v1/empresa' }, effect: { truncate: true } });
    await expect(
      (await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${token}` } })).text(),
    ).rejects.toThrow('terminated');
    expect(
      (
        (await (await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${token}` } })).json()) as {
          id: string;
        }
      ).id,
    ).toBe(companyId);
  });

  it('over a socket: the whole head, a Content-Length the body never reaches (half of it), then the connection closes', async () => {
    const { emu, token, companyId, server } = await setUp(true);
    const sockets = tcpSockets();
    emu.faults.add({ target: 'api', match: { path: '/v1/empresa' }, effect: { truncate: true }, times: 2 });
    const got = await raw(server!, '/v1/empresa', token);
    expect(got.head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    const length = Number(header(got.head, 'content-length'));
    expect(length).toBeGreaterThan(40);
    expect(got.body.length).toBe(Math.floor(length / 2));
    const viaHttp = await new Promise<string>((resolve) => {
      const sent = httpRequest(
        `${server!.url}/v1/empresa`,
        { headers: { authorization: `Bearer ${token}` }, agent: false },
        (response) => {
          response.on('error', (error: NodeJS.ErrnoException) =>
            resolve(`${response.statusCode} ${error.code ?? error.message}`),
          );
          response.on('end', () => resolve('complete'));
          response.resume();
        },
      );
      sent.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      sent.end();
    });
    expect(viaHttp).toBe('200 ECONNRESET');
    await healthy(server!, token, companyId, sockets);
  });
});

describe('trickleMs', () => {
  it('in process: the answer at once, its body a piece each 100 ms of the timers, the last at trickleMs', async () => {
    const { emu, token } = await setUp();
    emu.faults.add({ target: 'api', match: { path: '/v1/empresa' }, effect: { trickleMs: 400 } });
    const answer = await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${token}` } });
    expect(answer.status).toBe(200);
    // The trickle's waits on fake timers (CONTRIBUTING.md "Tests": no test measures elapsed time): each piece comes
    // when its wait is over, not before, whatever the reader does meanwhile.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const reader = answer.body!.getReader();
      const pieces: Uint8Array[] = [];
      let ended = false;
      const reading = (async () => {
        for (let read = await reader.read(); !read.done; read = await reader.read()) pieces.push(read.value);
        ended = true;
      })();
      const seen: number[] = [];
      for (const ms of [99, 1, 99, 1, 99, 1, 99]) {
        await vi.advanceTimersByTimeAsync(ms);
        seen.push(pieces.length);
      }
      expect(seen).toEqual([0, 1, 1, 2, 2, 3, 3]);
      expect(ended).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await reading;
      expect(pieces.length).toBe(4);
      expect(JSON.parse(Buffer.concat(pieces).toString('utf8'))).toMatchObject({ nome: expect.any(String) });
    } finally {
      vi.useRealTimers();
    }
  });

  const overASocket =
    'over a socket: the head at once, then the body a piece each 100 ms of the timers; a client whose time-out is ' +
    'shorter gives up; close() cuts one at once';
  it(overASocket, async () => {
    const { emu, token, companyId, server } = await setUp(true);
    const sockets = tcpSockets();
    emu.faults.add({ target: 'api', match: { path: '/v1/empresa' }, effect: { trickleMs: 500 } });
    // The trickle's interval on fake timers (CONTRIBUTING.md "Tests": no test measures elapsed time): the head comes
    // with no timer run, then each 100 ms of the timers one fifth of the body, written as one piece, and no more.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const got = stepped(server!, '/v1/empresa', token);
      await got.until('the head', () => got.head() !== undefined);
      const length = Number(header(got.head()!, 'content-length'));
      expect(got.body().length).toBe(0);
      for (let piece = 1; piece <= 5; piece++) {
        vi.advanceTimersByTime(100);
        const expected = Math.floor((length * piece) / 5);
        await got.until(`piece ${piece}`, () => got.body().length >= expected);
        expect(got.body().length).toBe(expected);
      }
      expect(await got.closed).toBeNull();
      expect(got.reads).toBe(5);
      expect(JSON.parse(got.body().toString('utf8'))).toMatchObject({ id: companyId });
    } finally {
      vi.useRealTimers();
    }
    await healthy(server!, token, companyId, sockets);

    emu.faults.add({ target: 'api', match: { path: '/v1/empresa' }, effect: { trickleMs: 60_000 }, times: 2 });
    const timedOut = await fetch(`${server!.url}/v1/empresa`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(300),
    })
      .then((r) => r.text())
      .then(
        () => undefined,
        (error: unknown) => error as Error,
      );
    expect(timedOut?.name).toBe('TimeoutError');

    const slow = await fetch(`${server!.url}/v1/empresa`, { headers: { authorization: `Bearer ${token}` } });
    expect(slow.status).toBe(200);
    const reading = slow.text().then(
      () => 'complete',
      (error: unknown) => (error as Error).message,
    );
    await emu.close();
    // Cut, not finished: a closing server does not wait the minute out.
    expect(await reading).toBe('terminated');
    await until('every connection closed', () => tcpSockets() === sockets);
  });
});
