/**
 * What the webhook spec files (destination, sending, queries) build the same way: the destination and its
 * receipt, test events, raised events, the inbox, the clock, delivery and job faults and network routes that
 * a test must undo, a loopback receiver over real HTTP, and the signature, computed here independently of src.
 * Everything goes through HTTP: the API and the /_emulator controls.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { Answer, World } from './client.js';
import { deployment, notHere } from './deployment.js';

export const WEBHOOK = '/v1/webhook';
export const TESTS = '/v1/webhook/testes';
export const EVENTS = '/v1/webhook/eventos';
export const eventPath = (id: string) => `${EVENTS}/${id}`;
export const resendPath = (id: string) => `${EVENTS}/${id}/reenvios`;
export const attemptsPath = (id: string) => `${EVENTS}/${id}/tentativas`;

/** The decisions' secret: the fixed prefix and 43 base64url characters (32 bytes). */
export const SECRET = /^svc_whsec_[A-Za-z0-9_-]{43}$/;
/** A lowercase uuid (event and webhook ids in responses are lowercase). */
export const LOWER_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** A host no other test uses: the inbox is shared on the server, so each test filters by its own host. */
export function uniqueHost(): string {
  return `hooks-${randomBytes(6).toString('hex')}.example.com`;
}

/** A public https URL on a fresh host. */
export function hookUrl(path = '/catalogo/eventos'): string {
  return `https://${uniqueHost()}${path}`;
}

export interface Destination {
  readonly id: string;
  readonly versao: number;
  readonly estado: string;
  readonly segredo: string;
  readonly etag: string;
  readonly url: string;
  readonly answer: Answer;
}

function destinationOf(answer: Answer, url: string): Destination {
  return {
    id: answer.body.id,
    versao: answer.body.versao,
    estado: answer.body.estado,
    segredo: answer.body.segredo,
    etag: answer.headers.get('etag')!,
    url,
    answer,
  };
}

/**
 * Creates the company's destination (PUT If-None-Match: *); fails unless 201. On a deployment the shared company
 * already has one (from an earlier test or run, active or revoked): there the same starting point, an active
 * destination at `url` with a fresh secret, is reached by changing (or reactivating) it with If-Match (200), and
 * its versao is whatever the destination's history made it: tests compare versions relative to this one.
 */
export async function createDestination(w: World, url = hookUrl(), key?: string): Promise<Destination> {
  if (w.target.kind === 'deployment') {
    const current = await w.api.get(WEBHOOK);
    if (current.status === 200) return changeDestination(w, current.headers.get('etag')!, url, key);
    if (current.status !== 404) throw new Error(`reading the destination answered ${current.status}: ${current.text}`);
  }
  const answer = await w.api.put(
    WEBHOOK,
    { url },
    { headers: { 'if-none-match': '*' }, ...(key === undefined ? {} : { key }) },
  );
  if (answer.status !== 201) throw new Error(`destination creation answered ${answer.status}: ${answer.text}`);
  return destinationOf(answer, url);
}

/**
 * The destination as GET /v1/webhook shows it before a refused request: its status (404 on a new company, 200 on
 * a deployment's), body and ETag; `expectUnchanged` then checks the refusal left exactly that.
 */
export async function destinationBefore(w: World): Promise<Answer> {
  const answer = await w.api.get(WEBHOOK);
  if (answer.status !== 200 && answer.status !== 404)
    throw new Error(`reading the destination answered ${answer.status}: ${answer.text}`);
  return answer;
}

/** GET /v1/webhook answers as `before` did: 404 destino_nao_encontrado still, or the same destination and ETag. */
export async function expectUnchanged(w: World, before: Answer): Promise<void> {
  const after = await w.api.get(WEBHOOK);
  expect(after.status, after.text).toBe(before.status);
  if (before.status === 404) expect(after.body.erro.codigo).toBe('destino_nao_encontrado');
  else {
    expect(after.body).toEqual(before.body);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
  }
}

/** Changes, rotates or reactivates the destination (PUT If-Match); fails unless 200. */
export async function changeDestination(w: World, etag: string, url = hookUrl(), key?: string): Promise<Destination> {
  const answer = await w.api.put(WEBHOOK, { url }, { ifMatch: etag, ...(key === undefined ? {} : { key }) });
  if (answer.status !== 200) throw new Error(`destination change answered ${answer.status}: ${answer.text}`);
  return destinationOf(answer, url);
}

/** Revokes the destination; fails unless 200. Returns the new ETag. */
export async function revokeDestination(w: World, etag: string): Promise<string> {
  const answer = await w.api.delete(WEBHOOK, undefined, { ifMatch: etag });
  if (answer.status !== 200) throw new Error(`destination revocation answered ${answer.status}: ${answer.text}`);
  return answer.headers.get('etag')!;
}

/**
 * On a deployment the company's 5 tests and resends a minute (LIM-09) are real and shared with earlier runs: a
 * test that meets the limit is skipped, saying so, instead of waiting a real minute.
 */
export function skipWhenRateLimited(answer: Answer): void {
  if (deployment !== undefined && answer.status === 429)
    notHere(
      `the company's 5 webhook tests and resends a minute are used up (429, Retry-After ${answer.headers.get('retry-after')} s): run again a minute later`,
    );
}

/** Schedules a test event with If-Match `etag`; fails unless 202. Returns the event id. */
export async function testEvent(w: World, etag: string): Promise<string> {
  const answer = await w.api.post(TESTS, {}, { ifMatch: etag });
  skipWhenRateLimited(answer);
  if (answer.status !== 202) throw new Error(`test event answered ${answer.status}: ${answer.text}`);
  return answer.body.evento_id;
}

/** Resends an event with If-Match `etag`; fails unless 202. */
export async function resend(w: World, eventId: string, etag: string): Promise<Answer> {
  const answer = await w.api.post(resendPath(eventId), {}, { ifMatch: etag });
  skipWhenRateLimited(answer);
  if (answer.status !== 202) throw new Error(`resend answered ${answer.status}: ${answer.text}`);
  return answer;
}

/** Raises an event for the company through the controls (POST /_emulator/companies/{id}/events). */
export async function raiseEvent(
  w: World,
  dados: Record<string, unknown> = {
    tipo: 'catalogo.aplicado',
    catalogoId: '0190a000-0000-7000-8000-00000000000a',
    versao: 1,
  },
): Promise<string> {
  const answer = await w.controls.raw('POST', `/companies/${w.company.companyId}/events`, { dados });
  if (answer.status !== 201) throw new Error(`raising an event answered ${answer.status}: ${answer.text}`);
  return answer.body.eventId;
}

/** The event detail; fails unless 200. */
export async function eventDetail(w: World, id: string): Promise<any> {
  const answer = await w.api.get(eventPath(id));
  if (answer.status !== 200) throw new Error(`event detail answered ${answer.status}: ${answer.text}`);
  return answer.body;
}

/** The exact bytes of `evento` in an event detail's text (the last field of the object). */
export function eventoBytes(detail: Answer): string {
  const marker = '"evento":';
  const start = detail.text.indexOf(marker);
  expect(start, `an evento field in ${detail.text}`).toBeGreaterThan(0);
  expect(detail.text.endsWith('}')).toBe(true);
  return detail.text.slice(start + marker.length, -1);
}

/** The virtual now, in ms. */
export async function now(w: World): Promise<number> {
  return Date.parse((await w.controls.clock()).now);
}

export async function advance(w: World, by: string | number): Promise<number> {
  return Date.parse((await w.controls.advance(by)).now);
}

/** Moves the clock to `instant` (ms); fails when the control refuses. */
export async function advanceTo(w: World, instant: number): Promise<number> {
  const answer = await w.controls.raw('POST', '/clock/advance', { to: new Date(instant).toISOString() });
  if (answer.status !== 200) throw new Error(`advance to answered ${answer.status}: ${answer.text}`);
  return Date.parse(answer.body.now);
}

export const iso = (ms: number) => new Date(ms).toISOString();

export interface InboxItem {
  readonly at: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly eventId: string;
  readonly tipo: string;
  readonly tentativa: number;
  readonly answer: { readonly status: number };
}

/** The inbox deliveries to URLs on `host` (the inbox is shared on the server). */
export async function inboxFor(w: World, host: string): Promise<InboxItem[]> {
  const answer = await w.controls.raw('GET', '/inbox');
  if (answer.status !== 200) throw new Error(`inbox answered ${answer.status}: ${answer.text}`);
  return (answer.body.items as InboxItem[]).filter((item) => new URL(item.url).host === host);
}

/** The hex HMAC-SHA256 of the spec's "Signature verification": timestamp "." id "." body, keyed by the whole secret. */
export function signature(secret: string, timestamp: string, eventId: string, body: string | Buffer): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestamp}.${eventId}.`);
  hmac.update(body);
  return `v1=${hmac.digest('hex')}`;
}

/** Undo list for what outlives a test on the shared server (faults, routes, receivers): run in afterEach. */
export class Cleanup {
  private tasks: (() => Promise<unknown>)[] = [];
  add(task: () => Promise<unknown>): void {
    this.tasks.push(task);
  }
  async run(): Promise<void> {
    const tasks = this.tasks.reverse();
    this.tasks = [];
    const errors: unknown[] = [];
    for (const task of tasks) {
      try {
        await task();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw errors[0];
  }
}

/** Adds a fault, removed by id at cleanup (a fault already spent is not an error). Returns its id. */
export async function addFault(w: World, cleanup: Cleanup, fault: Record<string, unknown>): Promise<string> {
  const { id } = await w.controls.addFault(fault);
  cleanup.add(() => removeFault(w, id));
  return id;
}

/** Removes a fault by id; true when it was still there. */
export async function removeFault(w: World, id: string): Promise<boolean> {
  const answer = await w.controls.raw('DELETE', `/faults/${id}`);
  if (answer.status !== 204 && answer.status !== 404)
    throw new Error(`removing fault ${id} answered ${answer.status}: ${answer.text}`);
  return answer.status === 204;
}

/** Routes deliveries for `from` (a URL prefix) to `to`; the route is removed at cleanup. */
export async function route(w: World, cleanup: Cleanup, from: string, to: string): Promise<void> {
  const answer = await w.controls.raw('POST', '/network/routes', { from, to });
  if (answer.status !== 201) throw new Error(`route answered ${answer.status}: ${answer.text}`);
  cleanup.add(() => w.controls.raw('DELETE', `/network/routes?from=${encodeURIComponent(from)}`));
}

export interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export interface Receiver {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly received: Received[];
}

/** A loopback HTTP receiver answering `status(request)` (200 by default); closed at cleanup. */
export async function startReceiver(
  cleanup: Cleanup,
  status: (request: Received) => number = () => 200,
): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      received.push(request);
      res.writeHead(status(request), { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received };
}
