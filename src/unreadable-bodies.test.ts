/**
 * A request body that cannot be read to its end is the client's doing: a 400, journaled as one, never the 500
 * of an emulator bug. Over a real socket (node:net, bytes no HTTP client would send) against emu.listen(), and
 * in process with a body stream that errors.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator, type JournalEntry, type RunningServer } from './index.js';

const emulators: Emulator[] = [];
afterEach(async () => {
  await Promise.all(emulators.splice(0).map((emu) => emu.close()));
});

interface Served {
  readonly emu: Emulator;
  readonly server: RunningServer;
  readonly token: string;
}

async function served(): Promise<Served> {
  const emu = createEmulator({ companies: [{}] });
  emulators.push(emu);
  const server = await emu.listen({ port: 0 });
  return { emu, server, token: emu.companies.initial()[0]!.token };
}

/** Writes `bytes` on a new connection, ends its side (FIN) and collects everything the server sends until it closes. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`the server neither answered nor closed within 5 s; received so far: ${JSON.stringify(received)}`),
      );
    }, 5000);
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
  });
}

/** The head of a catalog creation that passes every check before the body is read. */
function head(s: Served, framing: string): string {
  return [
    'POST /v1/catalogos HTTP/1.1',
    `Host: 127.0.0.1:${s.server.port}`,
    `Authorization: Bearer ${s.token}`,
    'Idempotency-Key: unreadable-body-000001',
    'Content-Type: application/json',
    framing,
    '',
    '',
  ].join('\r\n');
}

/** GET /_emulator/requests over HTTP, once it holds `count` entries (the emulator journals right after Node's answer). */
async function journal(s: Served, count: number): Promise<JournalEntry[]> {
  for (let tries = 0; ; tries++) {
    const answer = await fetch(`${s.server.url}/_emulator/requests`);
    expect(answer.status).toBe(200);
    const { items } = (await answer.json()) as { items: JournalEntry[] };
    if (items.length >= count || tries >= 100) return items;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Checks a raw answer of Node's parser refusal: the status line, the error body with `codigo` and Node's parser
 * error code in its message, and the connection closed.
 */
function expectParserRefusal(raw: string, codigo: string, parserCode: string): void {
  const [head, body] = raw.split('\r\n\r\n');
  const lines = head!.split('\r\n');
  expect(lines[0]).toBe('HTTP/1.1 400 Bad Request');
  expect(lines.slice(1)).toEqual([
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body!)}`,
    'Connection: close',
  ]);
  const { erro } = JSON.parse(body!) as { erro: { codigo: string; mensagem: string; request_id: string } };
  expect(erro.codigo).toBe(codigo);
  expect(erro.request_id).toBe('_emulator');
  expect(erro.mensagem).toContain(`(${parserCode}: Parse Error`);
}

describe('a body that cannot be read, over a socket', () => {
  const cases: [string, (s: Served) => string, string][] = [
    [
      'Content-Length: 100, 10 bytes sent, then the connection ends',
      (s) => head(s, 'Content-Length: 100') + '{"nome":1}',
      'HPE_INVALID_EOF_STATE',
    ],
    [
      'a chunk size that is no number',
      (s) => head(s, 'Transfer-Encoding: chunked') + 'zz\r\n{"nome":1}\r\n0\r\n\r\n',
      'HPE_INVALID_CHUNK_SIZE',
    ],
    [
      'a bad chunk size after a good chunk',
      (s) => head(s, 'Transfer-Encoding: chunked') + '3\r\n{"n\r\nzz\r\n',
      'HPE_INVALID_CHUNK_SIZE',
    ],
    [
      'a chunked body whose last chunk never comes before the connection ends',
      (s) => head(s, 'Transfer-Encoding: chunked') + '10\r\n{"nome"',
      'HPE_INVALID_EOF_STATE',
    ],
    [
      'Transfer-Encoding: gzip (a coding other than chunked)',
      (s) => head(s, 'Transfer-Encoding: gzip') + '{"nome":1}',
      'HPE_INVALID_TRANSFER_ENCODING',
    ],
  ];

  for (const [name, request, parserCode] of cases) {
    it(`${name}: 400 corpo_ilegivel with the error body, the connection closed; the emulator journals 400, never 500, and serves on`, async () => {
      const s = await served();
      expectParserRefusal(await exchange(s.server.port, request(s)), 'corpo_ilegivel', parserCode);

      const entries = await journal(s, 1);
      expect(entries.map((e) => [e.method, e.path, e.status, e.companyId])).toEqual([
        ['POST', '/v1/catalogos', 400, s.emu.companies.initial()[0]!.companyId],
      ]);
      const company = await fetch(`${s.server.url}/v1/empresa`, { headers: { authorization: `Bearer ${s.token}` } });
      expect(company.status).toBe(200);
      // Nothing was applied, and the idempotency key is free for the request sent whole.
      const created = await fetch(`${s.server.url}/v1/catalogos`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${s.token}`,
          'idempotency-key': 'unreadable-body-000001',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ estabelecimento_id: s.emu.companies.initial()[0]!.headOffice.id, nome: 'Loja' }),
      });
      expect(created.status).toBe(201);
      expect((await journal(s, 3)).map((e) => e.status)).toEqual([400, 200, 201]);
    });
  }

  it('framing errors in the headers are answered before the emulator sees the request, with the error body and no journal entry: a Content-Length that is no number (requisicao_malformada), Content-Length with Transfer-Encoding (corpo_ilegivel)', async () => {
    const s = await served();
    expectParserRefusal(
      await exchange(s.server.port, head(s, 'Content-Length: abc') + '{}'),
      'requisicao_malformada',
      'HPE_INVALID_CONTENT_LENGTH',
    );
    expectParserRefusal(
      await exchange(s.server.port, head(s, 'Content-Length: 2\r\nTransfer-Encoding: chunked') + '0\r\n\r\n'),
      'corpo_ilegivel',
      'HPE_INVALID_TRANSFER_ENCODING',
    );
    expect(await journal(s, 0)).toEqual([]);
  });

  it('a body that arrived whole is the body, even when its client goes away before the answer: the request is applied and journaled as such', async () => {
    const s = await served();
    const body = JSON.stringify({ estabelecimento_id: s.emu.companies.initial()[0]!.headOffice.id, nome: 'Loja' });
    await new Promise<void>((resolve) => {
      const socket = connect(s.server.port, '127.0.0.1', () =>
        socket.write(head(s, `Content-Length: ${Buffer.byteLength(body)}`) + body, () => socket.destroy()),
      );
      socket.on('error', () => undefined);
      socket.on('close', () => resolve());
    });
    expect((await journal(s, 1)).map((e) => [e.method, e.path, e.status])).toEqual([['POST', '/v1/catalogos', 201]]);
  });

  it('headers larger than Node takes (16 KB) are 431 cabecalhos_grandes_demais with the error body', async () => {
    const s = await served();
    const raw = await exchange(
      s.server.port,
      `GET /v1/empresa HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    const [head, body] = raw.split('\r\n\r\n');
    expect(head!.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(JSON.parse(body!).erro).toMatchObject({ codigo: 'cabecalhos_grandes_demais', request_id: '_emulator' });
    expect(await journal(s, 0)).toEqual([]);
  });
});

describe('a body read over a socket, however it arrives', () => {
  /** Sends `pieces` on one keep-alive connection, each once the last is written and a turn has passed, then reads one answer. */
  async function answerOf(
    port: number,
    pieces: readonly string[],
  ): Promise<{ status: number; body: string; socket: Socket }> {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let received = '';
    const answered = new Promise<{ status: number; body: string }>((resolve) => {
      const onData = (chunk: Buffer) => {
        received += chunk.toString('latin1');
        const end = received.indexOf('\r\n\r\n');
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(received)?.[1]);
        if (end < 0 || !(received.length >= end + 4 + length)) return;
        socket.off('data', onData);
        resolve({ status: Number(received.slice(9, 12)), body: received.slice(end + 4, end + 4 + length) });
      };
      socket.on('data', onData);
    });
    for (const piece of pieces) {
      await new Promise<void>((resolve) => socket.write(piece, () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { ...(await answered), socket };
  }

  const arrivals: [string, (head: string, body: string) => string[]][] = [
    ['with its headers, in one write', (head, body) => [head + body]],
    ['after its headers, in two later writes', (head, body) => [head, body.slice(0, 10), body.slice(10)]],
    ['larger than the stream holds unread (40 KB)', (head, body) => [head + body.padEnd(40_000, ' ')]],
  ];
  for (const [name, pieces] of arrivals) {
    it(`${name}: the request is applied, and the connection serves the next one`, async () => {
      const s = await served();
      const sent = JSON.stringify({
        estabelecimento_id: s.emu.companies.initial()[0]!.headOffice.id,
        nome: 'Loja inteira',
      });
      const length = Buffer.byteLength(pieces('', sent).join(''));
      const { status, body, socket } = await answerOf(
        s.server.port,
        pieces(head(s, `Content-Length: ${length}`), sent),
      );
      expect(status).toBe(201);
      expect(JSON.parse(body)).toMatchObject({ nome: 'Loja inteira', estado: 'ativo' });
      // The same connection: the body was read to its end, nothing of it is taken for the next request.
      const next = await new Promise<string>((resolve) => {
        socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1')));
        socket.write(
          `GET /v1/catalogos HTTP/1.1\r\nHost: 127.0.0.1:${s.server.port}\r\nAuthorization: Bearer ${s.token}\r\n\r\n`,
        );
      });
      socket.destroy();
      expect(next.slice(0, 15)).toBe('HTTP/1.1 200 OK');
      expect((await journal(s, 2)).map((e) => [e.method, e.path, e.status])).toEqual([
        ['POST', '/v1/catalogos', 201],
        ['GET', '/v1/catalogos', 200],
      ]);
    });
  }
});

describe('a body that cannot be read, in process', () => {
  /** A body stream that gives `first` and then fails with `message`. */
  function failingStream(first: string | undefined, message: string): ReadableStream<Uint8Array> {
    let sent = false;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (first !== undefined && !sent) {
          sent = true;
          controller.enqueue(new TextEncoder().encode(first));
          return;
        }
        controller.error(new Error(message));
      },
    });
  }

  for (const [name, first] of [
    ['after some bytes', '{"nome":'],
    ['at once', undefined],
  ] as const) {
    it(`a body stream that errors ${name}: 400 corpo_ilegivel with the error body, journaled as 400; nothing applied`, async () => {
      const emu = createEmulator({ companies: [{}] });
      emulators.push(emu);
      const company = emu.companies.initial()[0]!;
      const answer = await emu.fetch('/v1/catalogos', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${company.token}`,
          'idempotency-key': 'unreadable-body-000002',
          'content-type': 'application/json',
        },
        body: failingStream(first, 'the disk went away'),
        duplex: 'half',
      } as RequestInit);

      expect(answer.status).toBe(400);
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const requestId = answer.headers.get('x-request-id');
      expect(await answer.json()).toEqual({
        erro: {
          codigo: 'corpo_ilegivel',
          mensagem:
            'The request body could not be read to its end (the disk went away): send it whole, with a Content-Length that matches it or valid chunked encoding.',
          request_id: requestId,
          caminho: 'body',
        },
      });
      expect(emu.journal.entries().map((e) => [e.method, e.path, e.status, e.requestId])).toEqual([
        ['POST', '/v1/catalogos', 400, requestId],
      ]);
      const catalogs = await emu.fetch('/v1/catalogos', { headers: { authorization: `Bearer ${company.token}` } });
      expect(((await catalogs.json()) as { itens: unknown[] }).itens).toEqual([]);
    });
  }
});
