/**
 * The commands for a running server against servers that lie: small node:http servers of this test, as the CLI
 * meets them (run in this process as the bin runs them, runHere; the floods, which watch the process's reads
 * and memory, spawn the built bin). Every sample of every action (remote-actions.ts) against each hostile answer: an object of the
 * wrong shape, an HTML page, a redirect to another host (which gets nothing), an endless body (each: exit 2 and one
 * line naming the URL and what came back), and a refusal whose message holds line breaks, escape sequences and
 * 200 KB (exit 1, one escaped line of bounded length). Then `logs tail` against hostile streams: an endless frame
 * and bad frames (exit 2, one line); a flood while nobody reads its stdout, where it stops reading (measured: the
 * bytes it read from the socket and its memory, once it sleeps while the server waits to send it more) and ends on
 * SIGTERM; and the same flood when its reader closes stdout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI, killAll, ROOT, runHere, track, type Done } from './cli-run.js';
import { REMOTE_ACTIONS } from './remote-actions.js';

/** Only a guard against a hang: no assertion is about how long anything took. */
const HANG_GUARD_MS = 90_000;
const servers: Server[] = [];

beforeAll(assertBuilt);
afterAll(async () => {
  await killAll();
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A server on 127.0.0.1 answering every request with `answer`; its URL and the requests it got. */
type Answer = (request: IncomingMessage, response: ServerResponse) => void;

async function hostile(answer: Answer): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    answer(request, response);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

/** `catalog-emulator ARGS` against `url`, run to its end in this process. */
function cli(args: readonly string[], url: string): Promise<Done> {
  return runHere(args, { CATALOG_EMULATOR_URL: url, CATALOG_EMULATOR_CONTROL_TOKEN: undefined });
}

/** `tasks` run at most `width` at a time (each holds a connection to a server that may never end its answer). */
async function pooled<T>(tasks: readonly (() => Promise<T>)[], width = 3): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < tasks.length; i = next++) results[i] = await tasks[i]!();
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

/** Writes `chunk()` to `response` for as long as the client reads, never ending; counts what it wrote. */
function flood(response: ServerResponse, chunk: () => string, written = { bytes: 0, waiting: false }): typeof written {
  const pump = () => {
    written.waiting = false;
    while (!response.destroyed) {
      const text = chunk();
      written.bytes += Buffer.byteLength(text);
      if (!response.write(text)) {
        written.waiting = true;
        response.once('drain', pump);
        return;
      }
    }
  };
  pump();
  return written;
}

/** Every invocation the table holds: each sample of each action of each command. */
const SAMPLES: readonly (readonly string[])[] = Object.values(REMOTE_ACTIONS).flatMap((actions) =>
  Object.values(actions).flat(),
);
/** A control call as the line names it. */
const CALL = '(GET|POST|DELETE) /_emulator/[^ ]+';
const NOT_EMULATOR = "which is not a catalog-emulator's answer";
const HOSTILE_MESSAGE = `line one\ncatalog-emulator: forged\r\x1b]0;pwned\x07\x1b[2J${'x'.repeat(200_000)}`;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The one line of an answer that is no emulator's: the URL, then `middle` (a pattern), then the advice. */
const line = (url: string, middle: string) =>
  new RegExp(`^catalog-emulator: ${escape(url)} ${middle}; check --url or CATALOG_EMULATOR_URL\\n$`);

/** Runs every sample against `url`: each exits `code`, prints nothing on stdout, and `stderr` on stderr. */
async function everySample(url: string, code: number, stderr: RegExp | string): Promise<Done[]> {
  const runs = await pooled(SAMPLES.map((args) => () => cli(args, url)));
  runs.forEach((run, i) => {
    const expected = typeof stderr === 'string' ? stderr : expect.stringMatching(stderr);
    expect(run, SAMPLES[i]!.join(' ')).toEqual({ code, stdout: '', stderr: expected });
  });
  return runs;
}

describe('every command against each hostile answer', { timeout: 600_000 }, () => {
  it('the table holds a sample of every command, and more than one for some', () => {
    expect(new Set(SAMPLES.map((args) => args[0]))).toEqual(new Set(['clock', 'fault', 'events', 'logs', 'report']));
    expect(SAMPLES.length).toBeGreaterThan(Object.keys(REMOTE_ACTIONS).length);
  });

  it("{} for every answer: exit 2, one line naming the URL, what came back, why it is not the control's", async () => {
    const server = await hostile((_, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
    const answered = `answered 200 \\(application/json\\) to ${CALL}, ${NOT_EMULATOR} \\([^\\n]+\\)`;
    const runs = await everySample(server.url, 2, line(server.url, `${answered}: its body begins "\\{\\}"`));
    // Not "now undefined: ran undefined tasks".
    const advance = runs[SAMPLES.findIndex((args) => args.join(' ') === 'clock advance 1d')]!;
    const why = "not advanceClock's 200: body.now: Invalid input: expected string, received undefined";
    expect(advance.stderr).toBe(
      `catalog-emulator: ${server.url} answered 200 (application/json) to POST /_emulator/clock/advance, ` +
        `${NOT_EMULATOR} (${why}): ` +
        'its body begins "{}"; check --url or CATALOG_EMULATOR_URL\n',
    );
  });

  it("an HTML page: exit 2, one line with its content type and the page's first characters, escaped", async () => {
    const page = '<!doctype html>\n<html><body><h1>Welcome</h1></body></html>\n';
    const server = await hostile((_, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(page);
    });
    const begins = escape(page.replaceAll('\n', '\\x0a'));
    const answered = `answered 200 \\(text/html\\) to ${CALL}, ${NOT_EMULATOR} \\([^\\n]+\\)`;
    await everySample(server.url, 2, line(server.url, `${answered}: its body begins "${begins}"`));
  });

  it('a 302 to another host: exit 2, naming its Location, and the other host gets nothing', async () => {
    const elsewhere = await hostile((_, response) => response.end('{}'));
    const target = `${elsewhere.url.replace('127.0.0.1', 'localhost')}/_emulator/clock/advance`;
    const server = await hostile((_, response) => {
      response.writeHead(302, { location: target, 'content-type': 'application/json' });
      response.end('{"now":"2026-01-02T00:00:00.000Z","ran":0}');
    });
    const never = "which is not followed \\(a catalog-emulator's controls never redirect\\)";
    const redirect = `a redirect to "${escape(target)}", ${never}`;
    await everySample(server.url, 2, line(server.url, `answered 302 to ${CALL}, ${redirect}`));
    expect(server.requests).toHaveLength(SAMPLES.length);
    expect(elsewhere.requests).toEqual([]);
  });

  it('an endless JSON body: read no further than 16 MiB, exit 2', async () => {
    const sent: { bytes: number }[] = [];
    const server = await hostile((_, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('[');
      sent.push(flood(response, () => '0,'.repeat(8192)));
    });
    const over = "with a body over 16 MiB, not read further: not a catalog-emulator's answer";
    await everySample(server.url, 2, line(server.url, `answered 200 \\(application/json\\) to ${CALL} ${over}`));
    expect(sent).toHaveLength(SAMPLES.length);
  });

  it('a refusal whose message breaks lines, holds escapes and 200 KB: exit 1, one escaped line, cut', async () => {
    const erro = { codigo: 'valor_invalido\x1b[31m', mensagem: HOSTILE_MESSAGE, request_id: 'r', caminho: 'x\n' };
    const server = await hostile((_, response) => {
      response.writeHead(422, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ erro }));
    });
    const begins = 'line one\\x0acatalog-emulator: forged\\x0d\\x1b]0;pwned\\x07\\x1b[2J';
    const kept = 4096 - begins.length;
    const message = `${begins}${'x'.repeat(kept)}… (${200_000 - kept} more characters)`;
    await everySample(server.url, 1, `catalog-emulator: ${message} (422 valor_invalido\\x1b[31m at x\\x0a)\n`);
  });
});

// ---- logs tail against hostile streams --------------------------------------------------------------------------

const NOT_DATA = "not the activity event's data: data";
const UNDEFINED_STRING = 'Invalid input: expected string, received undefined';
const following = (url: string) => `following the activity of ${url}: Ctrl+C to stop\n`;
const OPEN = 'event: open\ndata: {"companyId":null,"kinds":["request","control","delivery","job","finding"]}\n\n';
const ENTRY = {
  kind: 'request',
  at: '2026-01-01T00:00:00.000Z',
  method: 'GET',
  path: '/v1/empresa',
  status: 200,
  requestId: 'r1',
  companyId: null,
  idempotencyKey: null,
  replayed: false,
  faultId: null,
  error: null,
  durationMs: 0,
};
const ACTIVITY = `event: activity\ndata: ${JSON.stringify(ENTRY)}\n\n`;

/** A server answering the activity stream with `frames` first, then nothing (the connection kept open). */
function stream(frames: string) {
  return hostile((_, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    response.write(frames);
  });
}

describe('logs tail against hostile streams', { timeout: 300_000 }, () => {
  it('prints the entries of a stream of the right shape, each one line', async () => {
    const hostilePath = ACTIVITY.replace('/v1/empresa', '/v1/\\u001b[2J\\n');
    const end = 'event: end\ndata: {"reason":"closed"}\n\n';
    const server = await stream(`${OPEN}: keep-alive\n\n${ACTIVITY}${hostilePath}${end}`);
    const closed = `the server at ${server.url} closed (it was stopped): no more activity to follow`;
    expect(await cli(['logs', 'tail'], server.url)).toEqual({
      code: 1,
      stdout:
        `${ENTRY.at} request  GET    /v1/empresa → 200\n` + `${ENTRY.at} request  GET    /v1/\\x1b[2J\\x0a → 200\n`,
      stderr: `${following(server.url)}catalog-emulator: ${closed}\n`,
    });
  });

  it('a frame that never ends: read no further than 1 MiB of it, exit 2', async () => {
    const server = await hostile((_, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(`${OPEN}event: activity\ndata: "`);
      flood(response, () => 'x'.repeat(65_536));
    });
    const frame = 'sent a frame of more than 1 MiB on GET /_emulator/activity/stream';
    const run = await cli(['logs', 'tail'], server.url);
    expect(run).toEqual({ code: 2, stdout: '', stderr: expect.stringMatching(/\n.*\n$/) });
    const not = "which is not a catalog-emulator's: not read further";
    expect(run.stderr.slice(following(server.url).length)).toMatch(line(server.url, `${frame}, ${not}`));
  });

  it('a bad frame (not JSON, null, HTML, not an entry, an unknown event, out of order): one line, exit 2', async () => {
    const cases: [frames: string, why: string][] = [
      [`${OPEN}event: activity\ndata: {"kind":\n\n`, "the activity event's data is JSON; this one is not"],
      [`${OPEN}event: activity\ndata: null\n\n`, `${NOT_DATA}: Invalid input: expected object, received null`],
      [`${OPEN}<html>\n<body>Gateway</body>\n</html>\n\n`, 'not an "event:" line and a "data:" line'],
      [`${OPEN}event: activity\ndata: {"kind":"request","at":"x"}\n\n`, `${NOT_DATA}.method: ${UNDEFINED_STRING}`],
      [`${OPEN}event: evil\ndata: {}\n\n`, 'streamActivity sends open, activity, end events, not "evil"'],
      [ACTIVITY, 'an event before the open one'],
      [`${OPEN}${OPEN}`, 'a second open event'],
    ];
    const tails = cases.map(([frames]) => async () => {
      const { url } = await stream(frames);
      return { url, run: await cli(['logs', 'tail', '--json'], url) };
    });
    const frame = "sent a frame that is not the activity stream's on GET /_emulator/activity/stream";
    (await pooled(tails)).forEach(({ url, run }, i) => {
      const [, why] = cases[i]!;
      expect([run.code, run.stdout], why).toEqual([2, '']);
      // Its one line, after "following …" when the open frame came first.
      const last = run.stderr.startsWith('following') ? run.stderr.slice(following(url).length) : run.stderr;
      expect(last, why).toMatch(line(url, `${frame} \\(${escape(why)}\\): "[^\\n]*"`));
    });
  });

  it('a flood while nobody reads its stdout: it stops reading, holds little, and ends at once on SIGTERM', async () => {
    let written = { bytes: 0, waiting: false };
    const server = await hostile((_, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(OPEN);
      written = flood(response, () => ACTIVITY.repeat(16));
    });
    const child = tail(server.url);
    const following = await stderrLine(child);
    expect(following).toBe(`following the activity of ${server.url}: Ctrl+C to stop`);
    const before = proc(child.pid!).rchar;
    // Until it sleeps while the flood waits on it, having read nothing since the last look: paused, not starved.
    const { read, rss } = await settled(child.pid!, () => written.waiting, before);
    expect(read).toBeLessThan(4 * 1024 * 1024);
    expect(rss).toBeLessThan(100 * 1024 * 1024);
    expect(written.bytes).toBeGreaterThan(read);
    child.kill('SIGTERM');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
  });

  it('a flood whose reader closes stdout (EPIPE): it ends at once, exit 0', async () => {
    let written = { bytes: 0, waiting: false };
    const server = await hostile((_, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(OPEN);
      written = flood(response, () => ACTIVITY.repeat(16));
    });
    const child = tail(server.url);
    await stderrLine(child);
    await settled(child.pid!, () => written.waiting, proc(child.pid!).rchar);
    child.stdout!.destroy();
    expect(await exited(child)).toEqual({ code: 0, signal: null });
  });
});

/** `logs tail --url URL` with its stdout a pipe this test never reads. */
function tail(url: string): ChildProcess {
  const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined };
  const args = [CLI, 'logs', 'tail', '--url', url];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env });
  track(child);
  child.stdout!.pause();
  return child;
}

/** The first line `child` writes to stderr. */
function stderrLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('\n')) resolve(text.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`exited (${code}) before a line on stderr: ${text}`)));
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    const guard = setTimeout(() => reject(new Error(`still running after ${HANG_GUARD_MS} ms`)), HANG_GUARD_MS);
    child.once('exit', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal });
    });
  });
}

/**
 * What /proc says of the process `pid`: the bytes it read (any read(2): its socket's, once it runs), its memory and
 * its main thread's state.
 */
function proc(pid: number): { rchar: number; rss: number; state: string } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return {
    rchar: Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))![1]),
    rss: Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024,
    state: stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3),
  };
}

/**
 * Looks at `pid` (every 50 ms, within the hang guard) until it sleeps (state S) while the server waits for it to
 * read (`blocked`), and it read nothing since the last look: it has stopped reading on purpose (a process that
 * wants to read but has no CPU is runnable, R). Fails as soon as it has read more than 64 MiB since `before`.
 */
async function settled(pid: number, blocked: () => boolean, before: number): Promise<{ read: number; rss: number }> {
  const start = process.hrtime.bigint();
  let last = -1;
  for (;;) {
    const now = proc(pid);
    const read = now.rchar - before;
    if (read > 64 * 1024 * 1024) throw new Error(`it read ${read} bytes of a stream it cannot print`);
    if (blocked() && now.state === 'S' && read === last) return { read, rss: now.rss };
    last = read;
    if (process.hrtime.bigint() - start > BigInt(HANG_GUARD_MS) * 1_000_000n) {
      throw new Error(`it never stopped reading (${read} bytes read)`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
