/**
 * The spec tests' HTTP client where the other end may be anything: a deployment (deployment.ts, and through it the
 * conformance command's preflight) and a request with exact headers (raw-http.ts). Over node:http(s), not fetch:
 * fetch gives one "fetch failed" for every way a connection can go wrong, and on some (a server that accepts and
 * closes at once) it never settles at all, with nothing left to keep the process alive.
 *
 * Every exchange is bounded: one time-out from the connection to the body's last byte, a cap on the body (read as
 * it comes, the connection dropped when it passes the cap), and a signal that stops every request at once (the
 * run's deadline). Each way it can fail is a RequestFailure whose message names the URL and what happened, in one
 * line.
 */
import {
  Agent as HttpAgent,
  request as plainRequest,
  type ClientRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from 'node:http';
import { Agent as HttpsAgent, request as tlsRequest } from 'node:https';

export interface Bounds {
  /** From the request's start to its answer's last byte. */
  readonly timeoutMs: number;
  /** The most bytes an answer's body may have; past them it is refused, unread. */
  readonly maxBodyBytes: number;
  /** Aborting it stops the request; its reason (an Error's message, or a string) says why. */
  readonly signal?: AbortSignal;
}

/** What a request gets unless told otherwise: 10 s, and 16 MiB of body. */
export const DEFAULT_BOUNDS: Bounds = { timeoutMs: 10_000, maxBodyBytes: 16 * 1024 * 1024 };

/** How a request failed: no proper answer, not in time, a body over the cap, or stopped from outside. */
type FailureKind = 'network' | 'timeout' | 'too-large' | 'stopped';

class RequestFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly url: string,
    readonly reason: string,
  ) {
    super(kind === 'network' || kind === 'timeout' ? `cannot reach ${url}: ${reason}` : `${url}: ${reason}`);
    this.name = 'RequestFailure';
  }
}

/** A request as sent: exactly these headers (node:http adds Host, Connection and, for a whole body, Content-Length). */
export interface Sent {
  readonly method: string;
  readonly headers: OutgoingHttpHeaders;
  readonly body?: string | Uint8Array | AsyncIterable<Uint8Array>;
}

export interface RawAnswer {
  readonly status: number;
  /** Name, value, name, value… as they came. */
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
}

/** 16 MiB, 512 KiB, 100 bytes. */
function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

// One keep-alive pool per scheme: hundreds of requests to one deployment should not each pay a TCP (and TLS)
// handshake. Node unrefs an idle pooled socket, so the pool keeps no process alive.
const plainAgent = new HttpAgent({ keepAlive: true });
const tlsAgent = new HttpsAgent({ keepAlive: true });

const TLS_CODES = /^(?:ERR_SSL_|ERR_TLS_|EPROTO$|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_|ERR_OSSL_)/;

/** What went wrong with the connection, in words. */
function networkReason(error: NodeJS.ErrnoException, url: URL): string {
  const { code = '', message } = error;
  if (code === 'ECONNREFUSED') return 'the connection was refused (nothing listens there)';
  if (code === 'ECONNRESET' && message === 'socket hang up') return 'the connection was closed before an answer';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'the connection was reset';
  if (code.startsWith('HPE_')) return `what came back is not HTTP (${message.replace(/^Parse Error: /, '')})`;
  if (TLS_CODES.test(code)) {
    // OpenSSL's own words sit after its library and function names: "…:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:…".
    const openssl = /:error:[0-9A-F]+:[^:]*:[^:]*:([^:]+)/.exec(message)?.[1];
    const plain = openssl === 'wrong version number' ? ': the server does not speak TLS there (an http:// URL?)' : '';
    return `the TLS handshake failed (${code}: ${openssl ?? message.trim()})${plain}`;
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
    return `the host name ${url.hostname} was not found (DNS: ${code})`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ETIMEDOUT')
    return `the host is unreachable (${code})`;
  return code === '' ? message : `${code}: ${message}`;
}

/** The reason an aborted signal gives. */
function stopReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'the request was stopped';
}

/**
 * Sends one request and reads its whole answer, within the bounds. A pooled connection the server closed while it
 * lay idle fails on its first write: such a request is sent once more on a fresh one (never a streamed body, which
 * cannot be read twice).
 */
export async function send(url: URL, sent: Sent, bounds: Bounds): Promise<RawAnswer> {
  try {
    return await sendOnce(url, sent, bounds);
  } catch (error) {
    if (!(error instanceof StaleConnection)) throw error;
    return sendOnce(url, sent, bounds, false);
  }
}

/** A pooled connection found closed before any answer: the request may be sent again. */
class StaleConnection extends Error {}

function sendOnce(url: URL, sent: Sent, bounds: Bounds, mayRetry = true): Promise<RawAnswer> {
  const href = url.href;
  const { timeoutMs, maxBodyBytes, signal } = bounds;
  if (signal?.aborted) return Promise.reject(new RequestFailure('stopped', href, stopReason(signal)));
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return Promise.reject(new RequestFailure('network', href, `${url.protocol} is not http: or https:`));
  return new Promise<RawAnswer>((resolve, reject) => {
    let request: ClientRequest;
    try {
      const tls = url.protocol === 'https:';
      request = (tls ? tlsRequest : plainRequest)(url, {
        method: sent.method,
        headers: sent.headers,
        agent: tls ? tlsAgent : plainAgent,
      });
    } catch (error) {
      // A header node:http cannot send (as fetch, it throws at once).
      reject(error as Error);
      return;
    }
    let settled = false;
    let response: IncomingMessage | undefined;
    let received = 0;
    const chunks: Buffer[] = [];
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const failWith = (failure: Error) =>
      settle(() => {
        request.destroy();
        response?.destroy();
        reject(failure);
      });
    // Ref'd on purpose: while a request is pending the process has work to wait for.
    const timer = setTimeout(() => {
      const reason =
        response === undefined
          ? `no answer within ${timeoutMs} ms`
          : `the answer did not end within ${timeoutMs} ms (${received} bytes of its body came)`;
      failWith(new RequestFailure('timeout', href, reason));
    }, timeoutMs);
    const onAbort = () => failWith(new RequestFailure('stopped', href, stopReason(signal!)));
    signal?.addEventListener('abort', onAbort, { once: true });

    request.on('error', (error: NodeJS.ErrnoException) => {
      // Once an answer came, what is left of it decides (its end, or its close before the end).
      if (response !== undefined) return;
      if (mayRetry && request.reusedSocket && error.code === 'ECONNRESET' && !isStream(sent.body))
        return failWith(new StaleConnection());
      failWith(new RequestFailure('network', href, networkReason(error, url)));
    });
    request.on('response', (answer: IncomingMessage) => {
      response = answer;
      const status = answer.statusCode ?? 0;
      const declared = Number(answer.headers['content-length']);
      const tooLarge = () =>
        new RequestFailure(
          'too-large',
          href,
          `the answer (${status}) has a body larger than the cap of ${formatBytes(maxBodyBytes)}; the rest was not read`,
        );
      // A HEAD answer declares the length of the body a GET would get, and has none.
      if (sent.method.toUpperCase() !== 'HEAD' && Number.isFinite(declared) && declared > maxBodyBytes)
        return failWith(tooLarge());
      answer.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBodyBytes) return failWith(tooLarge());
        chunks.push(chunk);
      });
      answer.on('end', () =>
        settle(() => resolve({ status, rawHeaders: answer.rawHeaders, body: Buffer.concat(chunks) })),
      );
      answer.on('error', () => undefined);
      answer.on('close', () => {
        if (!answer.complete)
          failWith(
            new RequestFailure(
              'network',
              href,
              `the connection was closed in the middle of the answer (${status}, ${received} bytes of its body came)`,
            ),
          );
      });
    });
    writeBody(request, sent.body).catch((error: Error) =>
      failWith(new RequestFailure('network', href, `the request's body could not be sent (${error.message})`)),
    );
  });
}

function isStream(body: Sent['body']): body is AsyncIterable<Uint8Array> {
  return body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array);
}

async function writeBody(request: ClientRequest, body: Sent['body']): Promise<void> {
  if (!isStream(body)) {
    request.end(body);
    return;
  }
  for await (const chunk of body)
    if (!request.write(chunk)) await new Promise((resolve) => request.once('drain', resolve));
  request.end();
}

/** Statuses whose answer has no body (a Response refuses one). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * `fetch`, bounded: what fetch would send (its Accept, a string body's text/plain type, a whole body's length; a
 * ReadableStream body goes chunked), and the answer as a Response holding the whole body.
 */
export async function boundedFetch(url: string, init: RequestInit, bounds: Bounds): Promise<Response> {
  const target = new URL(url);
  const headers = new Headers(init.headers);
  if (!headers.has('accept')) headers.set('accept', '*/*');
  if (!headers.has('user-agent')) headers.set('user-agent', 'catalog-emulator-conformance');
  const body = init.body ?? undefined;
  if (typeof body === 'string' && !headers.has('content-type')) headers.set('content-type', 'text/plain;charset=UTF-8');
  let sent: Sent['body'];
  if (body === undefined || typeof body === 'string' || body instanceof Uint8Array) {
    sent = body;
    // Declared as fetch declares it: node:http would send a DELETE's body with no length, so unframed.
    if (body !== undefined)
      headers.set('content-length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength));
  } else if (body instanceof ReadableStream) sent = body as ReadableStream<Uint8Array> & AsyncIterable<Uint8Array>;
  else throw new TypeError('the spec tests send a string, bytes or a ReadableStream as a body');
  const method = (init.method ?? 'GET').toUpperCase();
  return toResponse(
    target,
    method,
    await send(
      target,
      { method, headers: Object.fromEntries(headers), ...(sent === undefined ? {} : { body: sent }) },
      bounds,
    ),
  );
}

/** An answer as a Response (its headers as they came, repeated ones joined as fetch joins them). */
export function toResponse(url: URL, method: string, answer: RawAnswer): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2)
    headers.append(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!);
  if (answer.status < 200 || answer.status > 599)
    throw new RequestFailure('network', url.href, `the answer's status ${answer.status} is not a final HTTP status`);
  const content = NO_BODY.has(answer.status) || method.toUpperCase() === 'HEAD' ? null : answer.body;
  return new Response(content, { status: answer.status, headers });
}
