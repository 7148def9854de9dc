/**
 * The receiver check of docs/grading.md ("Checking your webhook receiver"): in process, a receiver given by its
 * fetch handler and a company's own destination; then check-receiver.sh, run as written against receivers served on
 * 127.0.0.1, its sample output (receiver-check-output.txt) against what the command prints, and the case table
 * against the cases the check sends.
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { createEmulator, formatReceiverCheck, RECEIVER_CASES, verifyWebhook } from 'catalog-emulator';
import { installedProject } from '../spec-tests/support/installed-project.js';

// #region readme
/** Your receiver (a stand-in for your app's handler): verify the exact bytes first, then apply each event id once. */
function yourReceiver(secret: string, now: () => number | Date = () => Date.now()) {
  const applied = new Set<string>();
  return async (request: Request): Promise<Response> => {
    const verified = verifyWebhook({ secret, headers: request.headers, body: await request.text(), now: now() });
    if (!verified.ok) return new Response(verified.reason, { status: 400 });
    applied.add(verified.event.id); // in your database: in the transaction that applies the event
    return new Response(null, { status: 204 });
  };
}

test('the receiver refuses forged, altered and stale deliveries, and accepts another attempt of an event', async () => {
  const emu = createEmulator();
  const secret = 'svc_whsec_the-secret-your-receiver-verifies-with';
  const check = await emu.webhooks.checkReceiver({ fetch: yourReceiver(secret), secret });
  expect(check.failed, formatReceiverCheck(check)).toBe(0);
});

test("the company's destination, as the emulator delivers to it", async () => {
  const emu = createEmulator();
  const acme = emu.companies.create();
  const headers = { authorization: `Bearer ${acme.token}`, 'content-type': 'application/json' };
  const configure = (key: string, precondition: Record<string, string>) =>
    emu.fetch('/v1/webhook', {
      method: 'PUT',
      headers: { ...headers, 'idempotency-key': key, ...precondition },
      body: JSON.stringify({ url: 'https://hooks.acme.example/catalog' }),
    });
  // Configured, then rotated: the check signs old-secret with the secret before the rotation.
  const created = await configure('configure-webhook-01', { 'if-none-match': '*' });
  const rotated = await configure('rotate-webhook-0001', { 'if-match': created.headers.get('etag')! });
  const { segredo } = (await rotated.json()) as { segredo: string };
  // The receiver compares timestamps with the emulator's clock, which signs the deliveries (and the check's cases).
  emu.network.route(
    'https://hooks.acme.example',
    yourReceiver(segredo, () => emu.clock.now()),
  );

  const check = await emu.webhooks.checkDestination(acme.companyId);
  expect(check.oldSecret).toBe('previous');
  expect(check.failed, formatReceiverCheck(check)).toBe(0);
  expect(emu.webhooks.lastReceiverCheck(acme.companyId)).toBe(check);
});
// #endregion

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECRET = 'svc_whsec_the-secret-your-receiver-verifies-with';
const servers: Server[] = [];
const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/**
 * A receiver on 127.0.0.1 that verifies its deliveries as an Express app with express.json() in front does: over
 * JSON.stringify of the parsed body (the mistake the sample output shows), or, `exact`, over the bytes received.
 */
async function served(exact: boolean): Promise<string> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request
      .on('data', (chunk: Buffer) => chunks.push(chunk))
      .on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const body = exact ? raw : JSON.stringify(JSON.parse(raw));
        const header = (name: string) => request.headers[name] as string | undefined;
        const [id, stamp, signature] = [
          header('service-event-id'),
          header('service-timestamp'),
          header('service-signature'),
        ];
        const expected =
          id !== undefined && stamp !== undefined
            ? `v1=${createHmac('sha256', SECRET).update(`${stamp}.${id}.${body}`).digest('hex')}`
            : undefined;
        const fresh = stamp !== undefined && Math.abs(Date.now() / 1000 - Number(stamp)) <= 300;
        if (id === undefined || signature !== expected || !fresh) {
          response.writeHead(401, { 'content-type': 'text/plain' }).end('invalid signature');
          return;
        }
        response.writeHead(204).end();
      });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
}

/** A project that installed the package (spec-tests/support/installed-project.ts): where the script's `npx catalog-emulator` runs. */
function project(): string {
  const folder = installedProject();
  folders.push(folder);
  return folder;
}

function run(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'FORCE_COLOR'),
  );
  const child = spawn('bash', [join(ROOT, 'examples/check-receiver.sh')], {
    cwd: project(),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...clean, NO_COLOR: '1', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** What varies from run to run: the receiver's port, the clock, the event id and each answer's time. */
const steady = (text: string) =>
  text
    .replace(/http:\/\/127\.0\.0\.1:\d+\//g, 'http://127.0.0.1:PORT/')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, 'NOW')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'EVENT')
    .replace(/ {2}\d+ ms$/gm, '  N ms');

test('check-receiver.sh passes a receiver that verifies the exact bytes (exit 0), and prints the sample output for one that verifies a re-serialized parse (exit 1)', async () => {
  const good = await run({ RECEIVER: await served(true), SECRET });
  expect(good.stderr).toBe('');
  expect(good.code).toBe(0);
  expect(good.stdout).toContain(`\n${RECEIVER_CASES.length} of ${RECEIVER_CASES.length} cases passed, 0 failed.\n`);

  const bad = await run({
    RECEIVER: await served(false),
    SECRET,
    PREVIOUS: 'svc_whsec_the-secret-before-the-rotation',
  });
  expect(bad.stderr).toBe('');
  expect(bad.code).toBe(1);
  expect(steady(bad.stdout)).toBe(steady(readFileSync(new URL('receiver-check-output.txt', import.meta.url), 'utf8')));
}, 60_000);

test('the case table of docs/grading.md is the cases the check sends, in order', () => {
  const grading = readFileSync(new URL('../docs/grading.md', import.meta.url), 'utf8');
  const start = grading.indexOf('| Case | What is sent | Expected | Checks |');
  expect(start).toBeGreaterThan(0);
  const lines = grading.slice(start).split('\n').slice(2);
  const rows = lines.slice(
    0,
    lines.findIndex((line) => !line.startsWith('| ')),
  );
  expect(rows).toEqual(RECEIVER_CASES.map((c) => `| \`${c.id}\` | ${c.sends} | ${c.expect} | ${c.statement} |`));
});
