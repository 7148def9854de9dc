/**
 * `catalog-emulator conformance` (the built CLI, run as a user runs it) against small servers of this test on
 * 127.0.0.1, each doing one thing wrong: every way a deployment cannot be reached exits 2 with one line naming the
 * URL and what happened; an endless body is read no further than the cap; a run that meets its deadline stops,
 * reports what ran and exits 2. None of them ever exits 0.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, killAll, runCli } from './cli-run.js';

const servers: Server[] = [];
const sockets = new Set<Socket>();
let work: string;

beforeAll(() => {
  assertBuilt();
  work = mkdtempSync(join(tmpdir(), 'conformance-bounds-'));
});

afterAll(async () => {
  await killAll();
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  rmSync(work, { recursive: true, force: true });
});

/** A raw TCP server on a free port of 127.0.0.1 doing `onConnection`; its base URL. */
async function badServer(onConnection: (socket: Socket) => void): Promise<string> {
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Calls `then` with each request's head as it comes on the connection (bodies are not read: GETs only here). */
function onRequest(socket: Socket, then: (head: string) => void): void {
  let data = '';
  socket.on('data', (chunk: Buffer) => {
    data += chunk.toString('latin1');
    for (let end = data.indexOf('\r\n\r\n'); end >= 0; end = data.indexOf('\r\n\r\n')) {
      then(data.slice(0, end));
      data = data.slice(end + 4);
    }
  });
}

/** GET /v1/empresa as the service answers it: the preflight passes. */
const COMPANY = JSON.stringify({
  id: '01a2223c-db3f-7520-a337-1f12323dcd57',
  cnpj_raiz: '11222333',
  nome: 'Conformidade',
});
const companyAnswer = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${COMPANY.length}\r\n\r\n${COMPANY}`;

/** Writes an endless 200 body until the client hangs up; resolves with the bytes written then. */
function endless(socket: Socket): Promise<number> {
  let written = 0;
  socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n');
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const pump = () => {
    while (!socket.destroyed && socket.write(chunk)) written += chunk.length;
  };
  socket.on('drain', pump);
  pump();
  return new Promise((resolve) => socket.on('close', () => resolve(written)));
}

/** Writes `text` one byte a second. */
function trickle(socket: Socket, text: string): void {
  let at = 0;
  const timer = setInterval(() => (at < text.length ? socket.write(text[at++]!) : clearInterval(timer)), 1000);
  socket.on('close', () => clearInterval(timer));
}

async function conformance(
  base: string,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = runCli(['conformance', '--base-url', base, '--token', 'T', ...args], { timeoutMs: 90_000 });
  const { code } = await run.exited;
  await run.closed;
  return { code, stdout: run.stdout, stderr: run.stderr };
}

const MiB = 1024 * 1024;

// Generous limits: each case ends in a few seconds, but a loaded machine may slow a process's start many times over.
describe.concurrent('catalog-emulator conformance against a deployment that cannot be reached', {
  timeout: 120_000,
}, () => {
  it.each([
    [
      'accepts the connection and closes it',
      (socket: Socket) => socket.end(),
      'the connection was closed before an answer',
    ],
    ['resets the connection', (socket: Socket) => socket.resetAndDestroy(), 'the connection was reset'],
    [
      'answers bytes that are not HTTP',
      (socket: Socket) => onRequest(socket, () => socket.end('SSH-2.0-OpenSSH_9.6\r\n')),
      'what came back is not HTTP (Expected HTTP/, RTSP/ or ICE/)',
    ],
  ])('exits 2 with one line when the server %s', async (_what, onConnection, reason) => {
    const base = await badServer(onConnection);
    expect(await conformance(base)).toEqual({
      code: 2,
      stdout: '',
      stderr: `catalog-emulator: cannot reach ${base}/v1/empresa: ${reason}\n`,
    });
  });

  it('exits 2 with one line when nothing listens on the port', async () => {
    // A port that was free a moment ago.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise((resolve) => probe.close(resolve));
    expect(await conformance(base)).toEqual({
      code: 2,
      stdout: '',
      stderr: `catalog-emulator: cannot reach ${base}/v1/empresa: the connection was refused (nothing listens there)\n`,
    });
  });

  it('exits 2 with one line when an https URL names a server speaking plain HTTP', async () => {
    const base = await badServer((socket) =>
      socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n')),
    );
    const https = base.replace(/^http:/, 'https:');
    const { code, stdout, stderr } = await conformance(https);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toMatch(
      new RegExp(
        `^catalog-emulator: cannot reach ${https.replace(/\./g, '\\.')}/v1/empresa: the TLS handshake failed \\([^\\n]+\\)[^\\n]*\\n$`,
      ),
    );
  });

  it('exits 2 when the URL answers 200 with something else than the company: not the service', async () => {
    const base = await badServer((socket) =>
      onRequest(socket, () =>
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 13\r\n\r\n<html></html>'),
      ),
    );
    expect(await conformance(base)).toEqual({
      code: 2,
      stdout: '',
      stderr: `catalog-emulator: ${base}/v1/empresa answers 200 but not with a company (a JSON object with its id): is --base-url the service's base URL, without /v1?\nRun "catalog-emulator --help" for usage.\n`,
    });
  });

  it('reads an endless preflight answer no further than the cap (16 MiB by default), and exits 2 saying so', async () => {
    let hungUp!: Promise<number>;
    const base = await badServer((socket) => onRequest(socket, () => (hungUp = endless(socket))));
    expect(await conformance(base)).toEqual({
      code: 2,
      stdout: '',
      stderr: `catalog-emulator: ${base}/v1/empresa: the answer (200) has a body larger than the cap of 16 MiB; the rest was not read\n`,
    });
    // The client hung up: what got out is the cap and what the sockets' buffers hold, not the 1.5 GB of a reader without one.
    expect(await hungUp).toBeLessThan(32 * MiB);
  });

  it('fails a test whose answer passes --max-body, naming the URL and the cap, and stays within it (exit 1)', async () => {
    let answered = false;
    const written: Promise<number>[] = [];
    const base = await badServer((socket) =>
      onRequest(socket, () => {
        if (answered) return void written.push(endless(socket));
        answered = true;
        socket.write(companyAnswer);
      }),
    );
    const { code, stdout, stderr } = await conformance(base, '--files', 'company', '--max-body', '1MiB');
    expect({ code, stderr }).toEqual({ code: 1, stderr: '' });
    expect(stdout).toMatch(/^FAIL spec-tests\/company\.test\.ts: /m);
    expect(stdout).toContain(
      `RequestFailure: ${base}/v1/estabelecimentos?limite=200: the answer (200) has a body larger than the cap of 1 MiB; the rest was not read`,
    );
    for (const bytes of await Promise.all(written)) expect(bytes).toBeLessThan(17 * MiB);
  });

  it('gives up on a preflight answer trickling a byte a second at --request-timeout-ms, or at the --deadline', async () => {
    const base = await badServer((socket) => onRequest(socket, () => trickle(socket, companyAnswer)));
    const [timedOut, late] = await Promise.all([
      conformance(base, '--request-timeout-ms', '1200'),
      conformance(base, '--deadline', '1500ms'),
    ]);
    expect(timedOut).toEqual({
      code: 2,
      stdout: '',
      stderr: `catalog-emulator: cannot reach ${base}/v1/empresa: no answer within 1200 ms\n`,
    });
    expect(late).toEqual({
      code: 2,
      stdout: '',
      stderr: `catalog-emulator: ${base}/v1/empresa: the deadline of 1500 ms (--deadline) passed\n`,
    });
  });

  it('stops a run the deadline overtakes, reports what ran with the deadline (text, --report, --json), and exits 2', async () => {
    // One server per run: each answers the preflight, and trickles every request after it.
    const server = () => {
      let answered = false;
      return badServer((socket) =>
        onRequest(socket, () => {
          if (answered) return trickle(socket, companyAnswer);
          answered = true;
          socket.write(companyAnswer);
        }),
      );
    };
    const report = join(work, 'stopped.md');
    // Long enough for a loaded machine to start the process and pass the preflight before it.
    const line =
      'the deadline of 5 s (--deadline) passed during spec-tests/company.test.ts: the run stopped there; the report shows what ran before';
    const [text, json] = await Promise.all([
      conformance(await server(), '--files', 'company', '--deadline', '5s', '--report', report),
      conformance(await server(), '--files', 'company', '--deadline', '5s', '--json'),
    ]);
    expect({ code: text.code, stderr: text.stderr }).toEqual({ code: 2, stderr: `catalog-emulator: ${line}\n` });
    expect(text.stdout).toMatch(
      /^Running 1 spec test file of catalog-emulator \S+ against http:\/\/127\.0\.0\.1:\d+\n\nConformance of /,
    );
    expect(text.stdout).toMatch(/^AUTH-01 +not run$/m);
    expect(text.stdout).toContain(
      '\nTests: 0 passed, 0 failed, 0 skipped (of 0); runnable share 0.0% (passed / all)\nDeadline: 5 s (--deadline), passed during spec-tests/company.test.ts: the run stopped there, and what came after did not run\n',
    );
    expect(readFileSync(report, 'utf8')).toContain(
      '\n- Deadline: 5 s (--deadline), passed during spec-tests/company.test.ts: the run stopped there, and what came after did not run\n',
    );
    expect(json.code).toBe(2);
    expect(json.stderr.split('\n').slice(-2)).toEqual([`catalog-emulator: ${line}`, '']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      deadline: { ms: 5000, passed: true, stoppedDuring: 'spec-tests/company.test.ts' },
      totals: { tests: 0 },
    });
  });
});
