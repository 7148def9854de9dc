/**
 * What the webhook delivery spec tests share: a real HTTP receiver on loopback (node:http) that records every
 * request it gets and answers what the test chooses, the spec's signature check written independently of the
 * emulator (node:crypto), and thin HTTP calls of the destination, the events and the /_emulator controls the
 * deliveries need (routes, faults, the raise-an-event control, the clock, the inbox).
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { expect } from 'vitest';
import type { World } from './client.js';

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const iso = (ms: number): string => new Date(ms).toISOString();
export const ms = (text: string): number => Date.parse(text);
/** Unix seconds of a virtual instant, as Service-Timestamp carries it. */
export const unixSeconds = (instant: number): number => Math.floor(instant / 1000);

/** A destination host no other test uses: inbox entries and faults are matched by it. */
export function hookHost(): string {
  return `https://hooks-${randomUUID().slice(0, 12)}.example.com`;
}

// ---------------------------------------------------------------------------------------------------------
// The receiver

export interface Received {
  readonly method: string;
  /** Path and query as the request line had them. */
  readonly path: string;
  /** Lowercase names (node's parsing). */
  readonly headers: IncomingHttpHeaders;
  /** The exact bytes received. */
  readonly raw: Buffer;
  /** The bytes as UTF-8 text. */
  readonly body: string;
}

export interface Reply {
  /** Ignored when `destroy` or `raw` is set. */
  readonly status: number;
  /** Drop the connection instead of answering (the request was received). */
  readonly destroy?: boolean;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /**
   * Bytes written straight to the socket instead of an answer node:http would build: a response no correct
   * server sends (cut short, never terminated). `then` is what happens to the connection after them: `close`
   * ends it cleanly (FIN), `reset` aborts it (RST), `hold` keeps it open until the receiver closes.
   */
  readonly raw?: RawReply;
}

export interface RawReply {
  readonly bytes: string;
  readonly then: 'close' | 'reset' | 'hold';
}

/**
 * A raw response: the status line, the headers (CRLF-joined, as given) and the body bytes as given, which
 * may say less than the headers declare.
 */
export function rawResponse(status: number, headers: Record<string, string>, body = ''): string {
  const lines = [`HTTP/1.1 ${status} Resposta`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * Real milliseconds between the last raw bytes and a reset. A reset that lands with the last bytes, before the
 * client has read them, can look to it like a clean close (libuv reports the end of the stream on a hang-up
 * after a partial read), and a clean close ends a body delimited by the connection. After a pause the client
 * has read the bytes, and sees the reset as the error it is.
 */
const RESET_AFTER_MS = 50;

function writeRaw(socket: Socket, raw: RawReply): void {
  socket.write(raw.bytes, () => {
    if (raw.then === 'close') socket.end();
    else if (raw.then === 'reset') setTimeout(() => socket.resetAndDestroy(), RESET_AFTER_MS);
  });
}

/** What to answer the request number `index` (0-based): a status or a full reply. */
export type Answerer = (request: Received, index: number) => Reply | number;

/** A node:http server on 127.0.0.1 and a free port; it records each request before answering. */
export class Receiver {
  readonly requests: Received[] = [];

  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(answer: Answerer = () => 200): Promise<Receiver> {
    let receiver: Receiver | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const received: Received = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          raw,
          body: raw.toString('utf8'),
        };
        const index = receiver!.requests.length;
        receiver!.requests.push(received);
        const given = answer(received, index);
        const reply: Reply = typeof given === 'number' ? { status: given } : given;
        if (reply.destroy) {
          req.socket.destroy();
          return;
        }
        if (reply.raw) {
          writeRaw(req.socket, reply.raw);
          return;
        }
        res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
        res.end(reply.body ?? '');
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    receiver = new Receiver(server, `http://127.0.0.1:${port}`);
    return receiver;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A loopback port that was open a moment ago and is closed now: a connection to it is refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// ---------------------------------------------------------------------------------------------------------
// The signature (spec "Signature verification"), written from the spec alone

/** `v1=` + hex HMAC-SHA256 keyed with the whole secret over `timestamp.id.body` (the body's exact bytes). */
export function expectedSignature(
  secret: string,
  timestamp: string | number,
  eventId: string,
  body: string | Buffer,
): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${eventId}.`).update(body).digest('hex')}`;
}

export interface Verdict {
  readonly ok: boolean;
  readonly reason: 'ok' | 'cabecalhos_ausentes' | 'assinatura_invalida' | 'timestamp_fora_da_tolerancia';
}

/**
 * A receiver's check: the signature over the exact bytes, compared in constant time, then the timestamp
 * within 5 minutes of the receiver's clock (`nowSeconds`, the virtual clock in these tests).
 */
export function verifyDelivery(
  secret: string,
  request: Pick<Received, 'headers' | 'raw'>,
  nowSeconds: number,
): Verdict {
  const id = request.headers['service-event-id'];
  const timestamp = request.headers['service-timestamp'];
  const signature = request.headers['service-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signature !== 'string')
    return { ok: false, reason: 'cabecalhos_ausentes' };
  const expected = Buffer.from(expectedSignature(secret, timestamp, id, request.raw));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    return { ok: false, reason: 'assinatura_invalida' };
  if (!/^\d+$/.test(timestamp) || Math.abs(Number(timestamp) - nowSeconds) > 300)
    return { ok: false, reason: 'timestamp_fora_da_tolerancia' };
  return { ok: true, reason: 'ok' };
}

// ---------------------------------------------------------------------------------------------------------
// The API and the controls

export interface Destination {
  readonly id: string;
  readonly versao: number;
  readonly etag: string;
  readonly secret: string;
}

/**
 * PUT /v1/webhook with If-None-Match: * (201). On a deployment the shared company already has a destination: there
 * it is changed (or reactivated) to `url` with If-Match (200), with a fresh secret and the next versao.
 */
export async function createDestination(w: World, url: string): Promise<Destination> {
  if (w.target.kind === 'deployment') {
    const current = await w.api.get('/v1/webhook');
    if (current.status === 200) return changeDestination(w, url, current.headers.get('etag')!);
    if (current.status !== 404) throw new Error(`GET /v1/webhook answered ${current.status}: ${current.text}`);
  }
  const answer = await w.api.put('/v1/webhook', { url }, { headers: { 'if-none-match': '*' } });
  if (answer.status !== 201) throw new Error(`PUT /v1/webhook answered ${answer.status}: ${answer.text}`);
  return {
    id: answer.body.id,
    versao: answer.body.versao,
    etag: answer.headers.get('etag')!,
    secret: answer.body.segredo,
  };
}

/** PUT /v1/webhook with If-Match (change, rotate or reactivate: 200). */
export async function changeDestination(w: World, url: string, etag: string): Promise<Destination> {
  const answer = await w.api.put('/v1/webhook', { url }, { ifMatch: etag });
  if (answer.status !== 200) throw new Error(`PUT /v1/webhook (If-Match) answered ${answer.status}: ${answer.text}`);
  return {
    id: answer.body.id,
    versao: answer.body.versao,
    etag: answer.headers.get('etag')!,
    secret: answer.body.segredo,
  };
}

/** The raise-an-event control: POST /_emulator/companies/{companyId}/events → 201 {eventId}. */
export async function raiseEvent(
  w: World,
  dados: Record<string, unknown> = { tipo: 'catalogo.aplicado', catalogoId: randomUUID(), versao: 1 },
): Promise<string> {
  const answer = await w.controls.raw('POST', `/companies/${w.company.companyId}/events`, { dados });
  if (answer.status !== 201) throw new Error(`raising an event answered ${answer.status}: ${answer.text}`);
  return answer.body.eventId;
}

export interface EventDetail {
  id: string;
  tipo: string;
  ocorrido_em: string;
  /** Never null (spec: WH-EVT-01, CONV-09): an event is recorded only against a destination. */
  destino_id: string;
  destino_versao: number;
  estado: string;
  tentativas_ciclo: number;
  tentativas_totais: number;
  status_http: number | null;
  criado_em: string;
  prazo_em: string;
  terminado_em: string | null;
  proxima_tentativa_em: string | null;
  codigo_falha: string | null;
  evento: { id: string; versao: number; empresa: string; ocorridoEm: string; dados: Record<string, unknown> };
}

export interface Attempt {
  tentativa: number;
  destino_versao: number | null;
  estado: string;
  iniciada_em: string;
  terminada_em: string | null;
  codigo_falha: string | null;
  status_http: number | null;
}

export async function eventDetail(w: World, eventId: string): Promise<EventDetail> {
  const answer = await w.api.get(`/v1/webhook/eventos/${eventId}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body as EventDetail;
}

/** Every attempt of the event (one page of 100 is enough for these tests: asserted). */
export async function attemptsOf(w: World, eventId: string): Promise<Attempt[]> {
  const answer = await w.api.get(`/v1/webhook/eventos/${eventId}/tentativas?limite=100`);
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body.proxima_tentativa).toBeNull();
  return answer.body.itens as Attempt[];
}

/** The virtual now of the target (Unix ms). */
export async function clockNow(w: World): Promise<number> {
  return ms((await w.controls.clock()).now);
}

/** POST /_emulator/clock/advance {by}; returns the new now (Unix ms). */
export async function advance(w: World, by: string | number): Promise<number> {
  return ms((await w.controls.advance(by)).now);
}

/** POST /_emulator/network/routes {from, to} (201). */
export async function addRoute(w: World, from: string, to: string): Promise<void> {
  const answer = await w.controls.raw('POST', '/network/routes', { from, to });
  if (answer.status !== 201) throw new Error(`adding a route answered ${answer.status}: ${answer.text}`);
}

/** DELETE /_emulator/network/routes?from=… (a route already gone is fine). */
export async function removeRoute(w: World, from: string): Promise<void> {
  await w.controls.raw('DELETE', `/network/routes?from=${encodeURIComponent(from)}`);
}

/** POST /_emulator/faults {target: 'delivery', match, effect, times} → the fault's id. */
export async function deliveryFault(
  w: World,
  match: Record<string, unknown>,
  effect: Record<string, unknown>,
  times: number | null = 1,
): Promise<string> {
  return (await w.controls.addFault({ target: 'delivery', match, effect, times })).id;
}

export interface FaultItem {
  id: string;
  target: string;
  times: number | null;
  hits: number;
}

/** The fault with this id in GET /_emulator/faults, or undefined once it is used up. */
export async function faultById(w: World, id: string): Promise<FaultItem | undefined> {
  const { items } = (await w.controls.faults()) as { items: FaultItem[] };
  return items.find((f) => f.id === id);
}

export async function removeFault(w: World, id: string): Promise<void> {
  await w.controls.raw('DELETE', `/faults/${id}`);
}

export interface InboxItem {
  at: string;
  companyId: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  eventId: string;
  tipo: string;
  tentativa: number;
  answer: { status: number };
}

/** The built-in receiver's entries whose URL starts with `prefix`. */
export async function inboxFor(w: World, prefix: string): Promise<InboxItem[]> {
  const answer = await w.controls.raw('GET', '/inbox');
  expect(answer.status, answer.text).toBe(200);
  return (answer.body.items as InboxItem[]).filter((item) => item.url.startsWith(prefix));
}
