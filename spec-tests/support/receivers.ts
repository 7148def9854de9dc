/**
 * Small webhook receivers for the tests of the receiver check: a correct one, and one per mistake an integrator makes,
 * each written the way such a receiver is written by hand, with the cases the check must fail it on. Each is a Fetch
 * handler, given in process or served over node:http (serveHandler).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, type ReceiverCaseId } from '../../src/index.js';

export type Handler = (request: Request) => Promise<Response>;

export interface ReceiverSettings {
  readonly secret: string;
  /** The secret before the last configuration change: only the receiver that wrongly keeps accepting it uses it. */
  readonly previousSecret?: string;
  /** The receiver's clock (Unix ms); the wall clock by default. */
  readonly now?: () => number;
}

/** Each receiver, and exactly the cases the check must fail it on. */
export const FAILING: Readonly<Record<ReceiverKind, readonly ReceiverCaseId[]>> = {
  correct: [],
  'no-signature-check': ['wrong-key', 'old-secret', 'body-altered', 'missing-signature', 'missing-event-id', 'unknown-scheme'],
  'no-timestamp-check': ['stale-timestamp', 'future-timestamp'],
  'accepts-old-secret': ['old-secret'],
  'parses-before-verifying': ['exact-bytes'],
  'refuses-duplicates': ['duplicate'],
  redirects: ['valid', 'within-tolerance', 'duplicate', 'exact-bytes'],
};

export type ReceiverKind = 'correct' | 'no-signature-check' | 'no-timestamp-check' | 'accepts-old-secret' | 'parses-before-verifying' | 'refuses-duplicates' | 'redirects';
export const RECEIVER_KINDS = Object.keys(FAILING) as ReceiverKind[];

const hmac = (secret: string, stamp: string, id: string, body: string) => createHmac('sha256', secret).update(`${stamp}.${id}.${body}`).digest('hex');
const sameHex = (given: string, expected: string) => given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
const refused = (why: string) => new Response(JSON.stringify({ erro: why }), { status: 400, headers: { 'content-type': 'application/json' } });

/** A new receiver of `kind`, with its own record of the events it applied. */
export function receiver(kind: ReceiverKind, settings: ReceiverSettings): Handler & { readonly applied: string[] } {
  const now = settings.now ?? Date.now;
  const seen = new Set<string>();
  const applied: string[] = [];
  /** Applies an event once: a second attempt is answered 204 and changes nothing. */
  const apply = (id: string) => {
    if (!seen.has(id)) {
      seen.add(id);
      applied.push(id);
    }
    return new Response(null, { status: 204 });
  };
  const handlers: Record<ReceiverKind, Handler> = {
    // The package's reference: verified over the exact bytes, fresh, constant time, then applied once.
    correct: async (request) => {
      const verified = verifyWebhook({ secret: settings.secret, headers: request.headers, body: await request.text(), now: now() });
      return verified.ok ? apply(verified.event.id) : refused(verified.reason);
    },
    // Checks that the delivery is fresh, then trusts it.
    'no-signature-check': async (request) => {
      const stamp = request.headers.get('service-timestamp');
      if (stamp === null || Math.abs(now() / 1000 - Number(stamp)) > 300) return refused('stale');
      const event = (await request.json()) as { id: string };
      return apply(event.id);
    },
    // Verifies the signature over the exact bytes, whatever the timestamp's age.
    'no-timestamp-check': async (request) => {
      const id = request.headers.get('service-event-id');
      const stamp = request.headers.get('service-timestamp');
      const signature = request.headers.get('service-signature');
      const body = await request.text();
      if (id === null || stamp === null || signature === null || !signature.startsWith('v1=') || !sameHex(signature.slice(3), hmac(settings.secret, stamp, id, body))) return refused('signature');
      return apply(id);
    },
    // Keeps accepting the secret of before the rotation.
    'accepts-old-secret': async (request) => {
      const body = await request.text();
      const secrets = [settings.secret, ...(settings.previousSecret === undefined ? [] : [settings.previousSecret])];
      const verified = secrets.map((secret) => verifyWebhook({ secret, headers: request.headers, body, now: now() })).find((v) => v.ok);
      return verified?.ok ? apply(verified.event.id) : refused('signature');
    },
    // A JSON middleware parsed the body first; the HMAC is then computed over JSON.stringify of the parse.
    'parses-before-verifying': async (request) => {
      const parsed = (await request.json()) as { id: string };
      const verified = verifyWebhook({ secret: settings.secret, headers: request.headers, body: JSON.stringify(parsed), now: now() });
      return verified.ok ? apply(parsed.id) : refused(verified.reason);
    },
    // Verifies well, but answers 409 to an event it has seen.
    'refuses-duplicates': async (request) => {
      const verified = verifyWebhook({ secret: settings.secret, headers: request.headers, body: await request.text(), now: now() });
      if (!verified.ok) return refused(verified.reason);
      if (seen.has(verified.event.id)) return new Response('already processed', { status: 409 });
      return apply(verified.event.id);
    },
    // Verifies well, then sends the delivery on to another path.
    redirects: async (request) => {
      const verified = verifyWebhook({ secret: settings.secret, headers: request.headers, body: await request.text(), now: now() });
      if (!verified.ok) return refused(verified.reason);
      return new Response(null, { status: 302, headers: { location: '/webhooks/v2' } });
    },
  };
  return Object.assign(handlers[kind], { applied });
}

/** Serves a Fetch handler over node:http on 127.0.0.1, on a free port; close() ends it and its connections. */
export async function serveHandler(handler: Handler, path = '/webhooks'): Promise<{ readonly url: string; close(): Promise<void> }> {
  const server = createServer((incoming, outgoing) => {
    void readAll(incoming).then(async (body) => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) if (typeof value === 'string') headers.set(name, value);
      const answer = await handler(new Request(`http://127.0.0.1${incoming.url}`, { method: incoming.method, headers, body }));
      const bytes = Buffer.from(await answer.arrayBuffer());
      outgoing.writeHead(answer.status, { ...Object.fromEntries(answer.headers), 'content-length': String(bytes.length) });
      outgoing.end(bytes);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readAll(incoming: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
  });
}
