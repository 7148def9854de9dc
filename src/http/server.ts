/**
 * The emulator over a socket: a Node HTTP server around a fetch handler, the Host check on every request, the
 * request target as the client sent it, the clientError answers, and a close that lets answers in progress finish.
 * It holds no rule of the service.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { answerClientError } from './client-errors.js';
import { damageOf, pieceOf, trickle, type Damage } from './damage.js';
import { apiError, CONTROL_REQUEST_ID, errorResponse } from './errors.js';
import { hostGuard, localAddress } from './host-guard.js';
import { readingBody, STILL_ARRIVING, type BodySource } from './runtime.js';

export interface ListenOptions {
  /** Default 4747; 0 picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /**
   * Host names a request's Host header may give besides localhost, 127.0.0.1, [::1] and `host` itself (not a
   * wildcard such as 0.0.0.0 or ::); another is refused 403. `'*'` admits any host, which turns the check off.
   * The CLI's --allow-host.
   */
  readonly allowHosts?: readonly string[];
  /**
   * false serves the API alone, as a deployment of the service does: no /_emulator path (each answers as any unknown
   * path), so no controls, docs page or inspector. Default true. The CLI's --no-controls.
   */
  readonly controls?: boolean;
}

/**
 * `[Symbol.asyncDispose](): Promise<void>`, the method `await using` calls, where the user's project declares
 * Symbol.asyncDispose (TypeScript's lib `esnext.disposable`, or @types/node), and nothing where it does not: the
 * package's declarations then compile under a default `lib` without @types/node, where a bare `AsyncDisposable` or
 * `Symbol.asyncDispose` is an unknown name. The emulator and its servers have the method at run time all the same.
 */
export type AsyncDisposableWhereDeclared = SymbolConstructor extends { readonly asyncDispose: infer Key extends symbol }
  ? { [K in Key]: () => Promise<void> }
  : {};

/**
 * A server listen() started. It does not keep the process alive on its own (like an unref'd Node server): a test
 * run that forgets close() still ends. A script that only serves calls ref(). `await using server = await
 * emu.listen()`: close() at the end of the scope ([Symbol.asyncDispose], AsyncDisposableWhereDeclared).
 */
export interface RunningServer extends AsyncDisposableWhereDeclared {
  /** Where to reach the server from this machine (after a wildcard bind, 0.0.0.0 or ::, its loopback address). */
  readonly url: string;
  readonly port: number;
  /** The inspector page of this server (`<url>/_emulator/ui`): its timeline, and the controls to drive it; null without controls. */
  readonly inspector: string | null;
  close(): Promise<void>;
  /** Keeps the process alive while the server listens, and for the connections it accepts from now on. */
  ref(): void;
  /** Undoes ref(): the default. Connections accepted while it was ref'd hold the process until they end. */
  unref(): void;
}

/**
 * What the server hands each admitted request to: the request, its body as read from the socket, and its target
 * as the client sent it (the request's URL has its `.` and `..` segments resolved, `%2e` forms included: routing
 * reads the target, so that a path never reaches a route it does not spell).
 */
export type SocketHandler = (request: Request, body: BodySource, target: string) => Response | Promise<Response>;

/** How long a closing server lets answers in progress finish before it cuts the connections, and how often it looks. */
const CLOSE_GRACE_MS = 500;
const CLOSE_SWEEP_MS = 5;

/** What serve() gives: the server without the pages the app mounted on it (the facade adds their URLs). */
export type ServedSocket = Omit<RunningServer, 'inspector'>;

/**
 * Serves `handle` on a socket; resolves once it listens. Throws (a TypeError) for a bad `allowHosts` entry.
 * `damaging`, asked before each request, says whether its answer may carry a damage to do on the connection
 * (damage.ts): only then is the answer looked at.
 */
export async function serve(
  handle: SocketHandler,
  options: ListenOptions = {},
  damaging: () => boolean = () => false,
): Promise<ServedSocket> {
  const { getRequestListener, RequestError } = await import('@hono/node-server');
  const host = options.host ?? '127.0.0.1';
  const refusedHost = hostGuard(host, options.allowHosts);
  // The answers a trickleMs fault is sending: a closing server cuts them at once rather than after its grace.
  const trickling = new Set<ServerResponse>();
  const listener = getRequestListener(
    (request: Request, env: { incoming: NodeIncoming; outgoing: object }) => {
      const refused = refusedHost(env.incoming.headers.host);
      if (refused) return refused;
      // Asked before the request is handled, which takes the fault that damages its answer.
      const damaged = damaging();
      const body = new SocketBody(env.incoming);
      const answer = () => handle(request, body, env.incoming.url ?? '/');
      const answering = body.present ? body.whenComplete(answer) : answer();
      if (!damaged) return answering;
      return Promise.resolve(answering).then((response) => {
        const damage = damageOf(response);
        // node:http's server (below): an HTTP/1 answer.
        return damage === undefined
          ? response
          : sendDamaged(response, damage, env.outgoing as ServerResponse, trickling);
      });
    },
    {
      // The URL's host when a request names none (HTTP/1.0), which hostGuard lets pass.
      hostname: 'localhost',
      // A target or Host no URL can be made of (a backslash in the path, a bad absolute URL): the error body, where
      // @hono/node-server answers a bare 400.
      errorHandler: (error) =>
        error instanceof RequestError
          ? errorResponse(
              apiError(
                400,
                'requisicao_malformada',
                `The request's target or Host header cannot be read as a URL (${error.message}): send a path that begins with "/" and holds no backslash.`,
              ),
              CONTROL_REQUEST_ID,
            )
          : errorResponse(
              apiError(
                500,
                'erro_interno',
                `Emulator bug (please report it): ${error instanceof Error ? error.message : String(error)}`,
              ),
              CONTROL_REQUEST_ID,
            ),
    },
  );
  const server = createServer(listener);
  // Bytes Node's parser refuses are answered with the error body rather than Node's bare 400.
  server.on('clientError', answerClientError);
  // Neither the server nor its connections hold the process (a keep-alive socket would, for the server's 5 s
  // keepAliveTimeout): a test runner's process ends when its tests do, close() or not. A request in progress is
  // held by its client's socket when the client is this process, and by ref() when the client is elsewhere.
  let held = false;
  server.unref();
  server.on('connection', (socket: Socket) => {
    if (!held) socket.unref();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4747, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 4747);
  // A wildcard bind is reached at its loopback address: the URL's host must pass the Host check.
  const reached = localAddress(host);
  return {
    url: `http://${reached.includes(':') ? `[${reached}]` : reached}:${port}`,
    port,
    ref: () => {
      held = true;
      server.ref();
    },
    unref: () => {
      held = false;
      server.unref();
    },
    // `this`: the object it is called on, which for emu.listen() is the emulator's wrapper with its own close().
    [Symbol.asyncDispose](this: ServedSocket) {
      return this.close();
    },
    close: () =>
      new Promise<void>((resolve) => {
        // An answer still being written (a held request emu.close() just released with its 503) may finish:
        // idle keep-alive connections are ended now and as each answer goes out; the rest are cut after a grace.
        const sweep = setInterval(() => {
          if ('closeIdleConnections' in server) server.closeIdleConnections();
        }, CLOSE_SWEEP_MS);
        const cut = setTimeout(() => {
          if ('closeAllConnections' in server) server.closeAllConnections();
        }, CLOSE_GRACE_MS);
        sweep.unref();
        cut.unref();
        for (const answer of trickling) answer.destroy();
        server.close(() => {
          clearInterval(sweep);
          clearTimeout(cut);
          resolve();
        });
        if ('closeIdleConnections' in server) server.closeIdleConnections();
      }),
  };
}

/**
 * Sends `response` with `damage` (damage.ts) on its connection, by hand; answers what tells @hono/node-server the
 * answer is already sent. A reset is a TCP RST (the client reads ECONNRESET, where a plain close reads as a closed
 * connection). A closing server cuts a trickle at once (close()): its timer stops with the connection.
 */
async function sendDamaged(
  response: Response,
  damage: Damage,
  outgoing: ServerResponse,
  trickling: Set<ServerResponse>,
): Promise<Response> {
  const socket = outgoing.socket;
  if (damage.kind === 'reset') {
    socket?.resetAndDestroy();
    return RESPONSE_ALREADY_SENT;
  }
  const body = new Uint8Array(await response.arrayBuffer());
  outgoing.writeHead(response.status, {
    ...Object.fromEntries(response.headers),
    'content-length': String(body.length),
  });
  if (damage.kind === 'truncate') {
    outgoing.write(body.subarray(0, Math.floor(body.length / 2)), () => socket?.destroy());
    return RESPONSE_ALREADY_SENT;
  }
  outgoing.flushHeaders();
  const { pieces, everyMs } = trickle(body.length, damage.ms);
  let sent = 0;
  const timer = setInterval(() => {
    const piece = pieceOf(body, sent, pieces);
    if (++sent < pieces) return void outgoing.write(piece);
    clearInterval(timer);
    outgoing.end(piece);
  }, everyMs);
  // As the connection holds the process (or not: see ref()), so does its trickle.
  timer.unref();
  trickling.add(outgoing);
  outgoing.once('close', () => {
    clearInterval(timer);
    trickling.delete(outgoing);
  });
  return RESPONSE_ALREADY_SENT;
}

/**
 * The body of a request that came over the socket. HTTP/1.1 has a body only with a length or chunked
 * encoding. Both are read from the Node message as it arrives: a declared length over the limit is refused
 * before reading, a chunked one as it passes the limit.
 *
 * A body Node's parser cannot finish (the connection ends short of the length or the last chunk, a chunk size
 * that is no number, a transfer coding other than chunked) fails the read with a BodyReadError: the API journals
 * a 400 corpo_ilegivel. What the client gets is the answer of the server's clientError listener
 * (http/client-errors.ts), written as Node's parser gives up on the connection. Framing errors in the headers (a
 * Content-Length that is no number, both Content-Length and Transfer-Encoding) are answered there before the
 * emulator sees the request at all, so the journal has no entry for them.
 */
class SocketBody implements BodySource {
  readonly present: boolean;
  /** The declared Content-Length (NaN without one). */
  private readonly length: number;
  private readonly chunked: boolean;

  // A class rather than an object of closures: one is made for every request, read or not.
  constructor(private readonly incoming: NodeIncoming) {
    const declared = incoming.headers['content-length'];
    this.length = Number(declared);
    this.chunked = declared === undefined && incoming.headers['transfer-encoding'] !== undefined;
    this.present = this.chunked || (declared !== undefined && declared !== '0');
  }

  get rawHeaders(): readonly string[] {
    return this.incoming.rawHeaders;
  }

  /**
   * Runs `proceed` once the request has arrived whole (or its connection closed first), so that its body is read at
   * once (readArrived) rather than through the stream's events and a chain of promises; at once for a body the
   * stream does not hold whole until read (chunked, or larger than its buffer). Node emits the request as soon as
   * its headers are parsed, and the message's end after what came with them. Answering only then also ends the
   * request's stream before its answer does, which @hono/node-server would otherwise drain on timers.
   */
  whenComplete(proceed: () => Response | Promise<Response>): Response | Promise<Response> {
    const { incoming } = this;
    if (this.chunked || incoming.complete || !(this.length <= incoming.readableHighWaterMark)) return proceed();
    return new Promise((resolve, reject) => {
      const arrived = () => {
        if (!incoming.complete && !incoming.destroyed) return;
        incoming.off('readable', arrived);
        incoming.off('close', arrived);
        try {
          resolve(proceed());
        } catch (error) {
          reject(error);
        }
      };
      incoming.on('readable', arrived);
      incoming.on('close', arrived);
    });
  }

  readArrived(limit: number): Uint8Array | undefined | typeof STILL_ARRIVING {
    if (this.chunked) return STILL_ARRIVING;
    const { incoming, length } = this;
    if (!(length <= limit)) return undefined;
    // Whole, and none of it read: read() hands over every byte the stream holds, in one Buffer, and ends it.
    if (!incoming.complete || incoming.readableDidRead || incoming.readableLength !== length) return STILL_ARRIVING;
    return (incoming.read() as Buffer | null) ?? STILL_ARRIVING;
  }

  read(limit: number): Promise<Uint8Array | undefined> {
    if (this.chunked) return readingBody(() => readStream(this.incoming, limit));
    const { length } = this;
    if (!(length <= limit)) return Promise.resolve(undefined);
    return readingBody(() => readDeclared(this.incoming, length));
  }
}

/**
 * A body of a declared length (Node's parser holds it to that length), as one Buffer. As @hono/node-server's
 * own reading has it, a body that had arrived whole when the client went away is still the body: only one cut
 * short fails. Read here rather than through request.arrayBuffer(), which copies the bytes into a new
 * ArrayBuffer, a visible part of what a PATCH costs the server beyond bare hono's.
 */
function readDeclared(incoming: NodeIncoming, length: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    // Closed before its end came (whenComplete then hands the request over): no event is left to wait for.
    if (incoming.destroyed) return reject(incoming.errored ?? new Error('Client connection prematurely closed.'));
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      total += chunk.length;
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
    };
    const onError = (error?: Error) => {
      if (incoming.complete && total === length) return onEnd();
      stop();
      reject(error ?? new Error('Client connection prematurely closed.'));
    };
    const onClose = () => (incoming.readableEnded ? onEnd() : onError(incoming.errored ?? undefined));
    const stop = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });
}

/**
 * A chunked Node request body, or undefined when it exceeds `limit`. Past the limit the rest is read and
 * dropped, so the keep-alive connection stays usable for the next request; a body that goes on past
 * DRAIN_LIMIT ends the connection instead.
 */
async function readStream(incoming: NodeIncoming, limit: number): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of incoming) {
    total += chunk.byteLength;
    if (total <= limit) chunks.push(chunk);
    else if (total > DRAIN_LIMIT) {
      incoming.destroy();
      break;
    }
  }
  return total > limit ? undefined : Buffer.concat(chunks, total);
}

const DRAIN_LIMIT = 64 * 1024 * 1024;

/** What the server reads of Node's request message (HTTP/1 or HTTP/2). */
interface NodeIncoming extends AsyncIterable<Uint8Array> {
  readonly headers: IncomingHttpHeaders;
  /** The headers as sent: name, value, … in their order and case. */
  readonly rawHeaders: string[];
  /** The request target as sent: origin-form (`/path?query`) or absolute-form (`http://host/path`). */
  readonly url?: string;
  /** The whole message, body included, has arrived. */
  readonly complete: boolean;
  readonly readableEnded: boolean;
  readonly readableDidRead: boolean;
  /** Bytes the stream holds, not yet read. */
  readonly readableLength: number;
  read(): unknown;
  readonly readableHighWaterMark: number;
  readonly destroyed: boolean;
  readonly errored: Error | null;
  destroy(): unknown;
  // Node's own listener type
  on(event: 'data' | 'end' | 'error' | 'close' | 'readable', listener: (...args: any[]) => void): unknown;
  // Node's own listener type
  off(event: 'data' | 'end' | 'error' | 'close' | 'readable', listener: (...args: any[]) => void): unknown;
}
