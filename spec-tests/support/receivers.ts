/**
 * Small webhook receivers for the tests of the receiver check: a correct one, and one per mistake an integrator makes,
 * each written the way such a receiver is written by hand, with the cases the check must fail it on. Each is a Fetch
 * handler, given in process or served over node:http (serveHandler).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RECEIVER_CASES, verifyWebhook, type ReceiverCaseId } from '../../src/index.js';

export type Handler = (request: Request) => Promise<Response>;

export interface ReceiverSettings {
  readonly secret: string;
  /** The secret before the last configuration change: only the receiver that wrongly keeps accepting it uses it. */
  readonly previousSecret?: string;
  /** The receiver's clock (Unix ms); the wall clock by default. */
  readonly now?: () => number;
  /**
   * Real milliseconds `slow-on-forgeries` waits before accepting a forged delivery (default 1200): longer than a
   * check that gave up early would wait, within the attempt time-out the test gives the emulator.
   */
  readonly forgeryDelayMs?: number;
}

/** The cases a correct receiver accepts, and those it refuses, in the check's order. */
const expecting = (expect: 'accept' | 'reject') => RECEIVER_CASES.filter((c) => c.expect === expect).map((c) => c.id);

/** Each receiver, and exactly the cases the check must fail it on, in the check's order. */
export const FAILING = {
  correct: [],
  'no-signature-check': [
    'wrong-key',
    'old-secret',
    'body-altered',
    'truncated-signature',
    'signature-one-digit',
    'missing-signature',
    'missing-event-id',
    'unknown-scheme',
  ],
  'no-timestamp-check': ['stale-timestamp', 'future-timestamp'],
  'accepts-old-secret': ['old-secret'],
  'parses-before-verifying': ['exact-bytes'],
  'refuses-duplicates': ['duplicate'],
  redirects: expecting('accept'),
  // `v1=` with nothing after it is a starting part of every signature.
  'accepts-signature-prefix': ['truncated-signature'],
  // The 32- and 63-digit starts have the right first 16 digits too.
  'compares-16-digits': ['truncated-signature', 'signature-one-digit'],
  'judges-body-time': ['late-retry'],
  'slow-on-forgeries': expecting('reject'),
  'tolerance-330s': ['stale-timestamp', 'future-timestamp'],
} as const satisfies Record<string, readonly ReceiverCaseId[]>;

export type ReceiverKind = keyof typeof FAILING;
export const RECEIVER_KINDS = Object.keys(FAILING) as ReceiverKind[];

const hmac = (secret: string, stamp: string, id: string, body: string) =>
  createHmac('sha256', secret).update(`${stamp}.${id}.${body}`).digest('hex');
/** Whether a Service-Timestamp (or any Unix seconds) is within `tolerance` seconds of `nowMs`. */
const fresh = (seconds: number, nowMs: number, tolerance = 300) => Math.abs(nowMs / 1000 - seconds) <= tolerance;
/** The delivery's headers and raw body, or null when a header is missing or the signature is not of scheme v1. */
async function delivery(request: Request): Promise<{ id: string; stamp: string; hex: string; body: string } | null> {
  const header = (name: string) => request.headers.get(name);
  const [id, stamp, signature] = [header('service-event-id'), header('service-timestamp'), header('service-signature')];
  const body = await request.text();
  return id && stamp && signature?.startsWith('v1=') ? { id, stamp, hex: signature.slice(3), body } : null;
}
const sameHex = (given: string, expected: string) =>
  given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
const refused = (why: string) =>
  new Response(JSON.stringify({ erro: why }), { status: 400, headers: { 'content-type': 'application/json' } });

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
      const verified = verifyWebhook({
        secret: settings.secret,
        headers: request.headers,
        body: await request.text(),
        now: now(),
      });
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
      if (
        id === null ||
        stamp === null ||
        signature === null ||
        !signature.startsWith('v1=') ||
        !sameHex(signature.slice(3), hmac(settings.secret, stamp, id, body))
      )
        return refused('signature');
      return apply(id);
    },
    // Keeps accepting the secret of before the rotation.
    'accepts-old-secret': async (request) => {
      const body = await request.text();
      const secrets = [settings.secret, ...(settings.previousSecret === undefined ? [] : [settings.previousSecret])];
      const verified = secrets
        .map((secret) => verifyWebhook({ secret, headers: request.headers, body, now: now() }))
        .find((v) => v.ok);
      return verified?.ok ? apply(verified.event.id) : refused('signature');
    },
    // A JSON middleware parsed the body first; the HMAC is then computed over JSON.stringify of the parse.
    'parses-before-verifying': async (request) => {
      const parsed = (await request.json()) as { id: string };
      const verified = verifyWebhook({
        secret: settings.secret,
        headers: request.headers,
        body: JSON.stringify(parsed),
        now: now(),
      });
      return verified.ok ? apply(parsed.id) : refused(verified.reason);
    },
    // Verifies well, but answers 409 to an event it has seen.
    'refuses-duplicates': async (request) => {
      const verified = verifyWebhook({
        secret: settings.secret,
        headers: request.headers,
        body: await request.text(),
        now: now(),
      });
      if (!verified.ok) return refused(verified.reason);
      if (seen.has(verified.event.id)) return new Response('already processed', { status: 409 });
      return apply(verified.event.id);
    },
    // Verifies well, then sends the delivery on to another path.
    redirects: async (request) => {
      const verified = verifyWebhook({
        secret: settings.secret,
        headers: request.headers,
        body: await request.text(),
        now: now(),
      });
      if (!verified.ok) return refused(verified.reason);
      return new Response(null, { status: 302, headers: { location: '/webhooks/v2' } });
    },
    // Fresh, then accepts the v1= value when the expected hex starts with it.
    'accepts-signature-prefix': async (request) => {
      const got = await delivery(request);
      if (got === null || !fresh(Number(got.stamp), now())) return refused('headers or timestamp');
      const expected = hmac(settings.secret, got.stamp, got.id, got.body);
      return expected.startsWith(got.hex) ? apply(got.id) : refused('signature');
    },
    // Fresh, then compares the first 16 hex digits of the signature only.
    'compares-16-digits': async (request) => {
      const got = await delivery(request);
      if (got === null || !fresh(Number(got.stamp), now())) return refused('headers or timestamp');
      const expected = hmac(settings.secret, got.stamp, got.id, got.body);
      return got.hex.slice(0, 16) === expected.slice(0, 16) ? apply(got.id) : refused('signature');
    },
    // Verifies the signature over the exact bytes, then judges freshness by the envelope's ocorridoEm.
    'judges-body-time': async (request) => {
      const got = await delivery(request);
      const signed = got !== null && sameHex(got.hex, hmac(settings.secret, got.stamp, got.id, got.body));
      if (got === null || !signed) return refused('signature');
      const event = JSON.parse(got.body) as { id: string; ocorridoEm: string };
      return fresh(Date.parse(event.ocorridoEm) / 1000, now()) ? apply(event.id) : refused('stale');
    },
    // Refuses at once what verifies; accepts a forged delivery after a while (say, after asking a slow key store).
    'slow-on-forgeries': async (request) => {
      const body = await request.text();
      const verified = verifyWebhook({ secret: settings.secret, headers: request.headers, body, now: now() });
      if (verified.ok) return apply(verified.event.id);
      await new Promise((resolve) => setTimeout(resolve, settings.forgeryDelayMs ?? 1200));
      return new Response(null, { status: 200 });
    },
    // Verifies well, with 330 s of tolerance instead of the spec's 300.
    'tolerance-330s': async (request) => {
      const body = await request.text();
      const { secret } = settings;
      const verified = verifyWebhook({ secret, headers: request.headers, body, now: now(), toleranceSeconds: 330 });
      return verified.ok ? apply(verified.event.id) : refused(verified.reason);
    },
  };
  return Object.assign(handlers[kind], { applied });
}

/** Serves a Fetch handler over node:http on 127.0.0.1, on a free port; close() ends it and its connections. */
export async function serveHandler(
  handler: Handler,
  path = '/webhooks',
): Promise<{ readonly url: string; close(): Promise<void> }> {
  const server = createServer((incoming, outgoing) => {
    void readAll(incoming).then(async (body) => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers))
        if (typeof value === 'string') headers.set(name, value);
      const answer = await handler(
        new Request(`http://127.0.0.1${incoming.url}`, { method: incoming.method, headers, body }),
      );
      const bytes = Buffer.from(await answer.arrayBuffer());
      outgoing.writeHead(answer.status, {
        ...Object.fromEntries(answer.headers),
        'content-length': String(bytes.length),
      });
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
    incoming
      .on('data', (chunk: Buffer) => chunks.push(chunk))
      .on('end', () => resolve(Buffer.concat(chunks)))
      .on('error', reject);
  });
}
