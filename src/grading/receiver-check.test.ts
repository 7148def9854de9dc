/**
 * The receiver check in process (emu.webhooks.checkReceiver with a fetch handler): it passes the correct receiver and
 * fails each faulty one on exactly its cases; what each case sends is what the delivery engine sends, changed the one
 * way the case says; the report reads as the README shows it.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../emulator.js';
import { verifyWebhook } from '../network/signature.js';
import { VERSION } from '../version.js';
import { FAILING, receiver, RECEIVER_KINDS } from '../../spec-tests/support/receivers.js';
import { formatReceiverCheck, RECEIVER_CASES, type ReceiverCheck } from './receiver-check.js';

const SECRET = 'svc_whsec_current-secret-of-the-receiver-under-test';
const PREVIOUS = 'svc_whsec_the-secret-before-the-last-configuration-change';
const failingIds = (check: ReceiverCheck) => check.cases.filter((c) => c.verdict === 'fail').map((c) => c.id);

describe('the receiver check in process', () => {
  for (const kind of RECEIVER_KINDS) {
    it(`${kind}: fails exactly on ${FAILING[kind].join(', ') || 'nothing'}`, async () => {
      const emu = createEmulator();
      const check = await emu.webhooks.checkReceiver({ fetch: receiver(kind, { secret: SECRET, previousSecret: PREVIOUS }), secret: SECRET, previousSecret: PREVIOUS });
      expect(failingIds(check)).toEqual(FAILING[kind]);
      expect(check.cases.map((c) => c.id)).toEqual(RECEIVER_CASES.map((c) => c.id));
      expect(check.failed).toBe(FAILING[kind].length);
      expect(check.passed).toBe(RECEIVER_CASES.length - FAILING[kind].length);
      expect(check.reachable).toBe(true);
      expect(check.receiver).toEqual({ url: 'https://receiver.test/', via: 'in-process handler' });
      expect(check.oldSecret).toBe('given');
      for (const result of check.cases) expect(result.fix).toBe(result.verdict === 'fail' ? RECEIVER_CASES.find((c) => c.id === result.id)!.fix : null);
    });
  }

  it('sends each case as the delivery engine sends an attempt, changed only the way the case says', async () => {
    const emu = createEmulator();
    const got: { headers: Record<string, string>; body: string }[] = [];
    const now = Date.parse('2026-03-04T05:06:07.000Z');
    const check = await emu.webhooks.checkReceiver({
      fetch: async (request) => {
        got.push({ headers: Object.fromEntries(request.headers), body: await request.text() });
        return new Response('ok', { status: 200 });
      },
      url: 'https://hooks.acme.example/in',
      secret: SECRET,
      previousSecret: PREVIOUS,
      now,
      cnpjRoot: '11222333',
    });
    expect(check.clock).toBe('2026-03-04T05:06:07.000Z');
    expect(got).toHaveLength(RECEIVER_CASES.length);
    const at = (id: string) => got[RECEIVER_CASES.findIndex((c) => c.id === id)]!;
    const stamp = now / 1000;
    const verify = (id: string, secret = SECRET, nowMs = now) => verifyWebhook({ secret, headers: at(id).headers, body: at(id).body, now: nowMs });

    // valid: exactly the headers of an attempt (names in lower case, as the transport sends them) and the envelope's bytes.
    const valid = at('valid');
    const eventId = valid.headers['service-event-id']!;
    expect(eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(valid.body).toBe(JSON.stringify({ id: eventId, versao: 1, empresa: '11222333', ocorridoEm: '2026-03-04T05:06:07.000Z', dados: { tipo: 'webhook.teste' } }));
    expect(valid.headers).toEqual({
      'content-type': 'application/json',
      'user-agent': `catalog-emulator/${VERSION}`,
      'service-event-id': eventId,
      'service-timestamp': String(stamp),
      'service-signature': expect.stringMatching(/^v1=[0-9a-f]{64}$/),
    });
    expect(verify('valid')).toMatchObject({ ok: true });
    // What the report says was sent: the headers (never the secret), the body's length and hash.
    const reported = check.cases[0]!.sent;
    expect(reported).toEqual({ headers: { 'content-type': 'application/json', 'user-agent': `catalog-emulator/${VERSION}`, 'service-event-id': eventId, 'service-timestamp': String(stamp), 'service-signature': valid.headers['service-signature'] }, bodyBytes: Buffer.byteLength(valid.body), bodySha256: createHash('sha256').update(valid.body).digest('hex') });
    expect(JSON.stringify(check)).not.toContain(SECRET);
    expect(JSON.stringify(check)).not.toContain(PREVIOUS);

    // A fresh event id per case, but duplicate's: valid's id and bytes with a new timestamp and signature.
    const ids = got.map((g) => g.headers['service-event-id']).filter((id) => id !== undefined);
    expect(new Set(ids).size).toBe(ids.length - 1);
    expect(at('duplicate').headers['service-event-id']).toBe(eventId);
    expect(at('duplicate').body).toBe(valid.body);
    expect(at('duplicate').headers['service-timestamp']).toBe(String(stamp + 1));
    expect(at('duplicate').headers['service-signature']).not.toBe(valid.headers['service-signature']);
    expect(verify('duplicate')).toMatchObject({ ok: true });

    expect(at('within-tolerance').headers['service-timestamp']).toBe(String(stamp - 240));
    expect(verify('within-tolerance')).toMatchObject({ ok: true });
    // exact-bytes: the same envelope in another layout, signed over those bytes.
    const relaid = at('exact-bytes');
    expect(relaid.body).toContain('\n  "versao": 1,\n');
    expect(relaid.body).toContain('\\u005a"');
    expect(JSON.stringify(JSON.parse(relaid.body))).not.toBe(relaid.body);
    expect(JSON.parse(relaid.body)).toEqual({ ...JSON.parse(valid.body), id: relaid.headers['service-event-id'] });
    expect(verify('exact-bytes')).toMatchObject({ ok: true });

    expect(verify('wrong-key')).toMatchObject({ ok: false, reason: 'assinatura_invalida' });
    expect(verify('old-secret')).toMatchObject({ ok: false, reason: 'assinatura_invalida' });
    expect(verify('old-secret', PREVIOUS)).toMatchObject({ ok: true });
    const altered = at('body-altered');
    expect(altered.body.length).toBe(valid.body.length);
    expect([...altered.body].filter((ch, i) => ch !== valid.body.replace(eventId, altered.headers['service-event-id']!)[i])).toEqual(['1']);
    expect(verify('body-altered')).toMatchObject({ ok: false, reason: 'assinatura_invalida' });
    expect(at('stale-timestamp').headers['service-timestamp']).toBe(String(stamp - 360));
    expect(verify('stale-timestamp', SECRET, now - 360_000)).toMatchObject({ ok: true });
    expect(at('future-timestamp').headers['service-timestamp']).toBe(String(stamp + 360));
    expect(verify('future-timestamp', SECRET, now + 360_000)).toMatchObject({ ok: true });
    for (const [id, header] of [['missing-signature', 'service-signature'], ['missing-timestamp', 'service-timestamp'], ['missing-event-id', 'service-event-id']] as const) {
      expect(Object.keys(at(id).headers)).not.toContain(header);
      expect(Object.keys(at(id).headers)).toHaveLength(4);
    }
    expect(at('unknown-scheme').headers['service-signature']).toMatch(/^v0=[0-9a-f]{64}$/);
    expect(verifyWebhook({ secret: SECRET, headers: { ...at('unknown-scheme').headers, 'service-signature': at('unknown-scheme').headers['service-signature']!.replace('v0=', 'v1=') }, body: at('unknown-scheme').body, now })).toMatchObject({ ok: true });

    // The handler accepted everything: every accept case passes, every reject case fails.
    expect(failingIds(check)).toEqual(RECEIVER_CASES.filter((c) => c.expect === 'reject').map((c) => c.id));
    expect(check.cases.every((c) => c.status === 200 && c.failure === null && c.answer === 'ok' && c.accepted)).toBe(true);
  });

  it('signs old-secret with a fresh secret when no previous one is given, and stamps by the wall clock by default', async () => {
    const emu = createEmulator();
    const before = Date.now();
    const correct = receiver('correct', { secret: SECRET });
    const check = await emu.webhooks.checkReceiver({ fetch: correct, secret: SECRET });
    expect(check.oldSecret).toBe('fresh');
    expect(failingIds(check)).toEqual([]);
    expect(Date.parse(check.clock)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(check.clock)).toBeLessThanOrEqual(Date.now());
    // The effect of the duplicate applied once; the report says what only the receiver's records show.
    expect(correct.applied).toHaveLength(check.cases.filter((c) => c.expect === 'accept').length - 1);
    expect(check.notChecked.map((n) => n.statement)).toEqual(['SIG-09', 'SIG-10', 'SIG-11']);
    expect(check.notChecked[2]!.reason).toContain(check.cases[0]!.sent.headers['service-event-id']);
  });

  it('judges answers as an attempt is judged: a redirect, another status, a throw, a cut body and silence refuse', async () => {
    const emu = createEmulator();
    const answers: (() => Response | Promise<Response>)[] = [
      () => new Response(null, { status: 307, headers: { location: 'https://elsewhere.example/' } }),
      () => new Response('no', { status: 500 }),
      () => {
        throw new Error('boom');
      },
      () => new Response(new ReadableStream({ pull: (controller) => controller.error(new Error('cut')) }), { status: 200 }),
      () => new Promise<Response>(() => undefined),
    ];
    for (const [i, answer] of answers.entries()) {
      const check = await emu.webhooks.checkReceiver({ fetch: answer, secret: SECRET, timeoutMs: 50 });
      const valid = check.cases[0]!;
      expect(valid.accepted, `answer ${i}`).toBe(false);
      expect(valid.verdict).toBe('fail');
      expect(check.cases.filter((c) => c.expect === 'reject').every((c) => c.verdict === 'pass')).toBe(true);
      expect([valid.status, valid.failure]).toEqual([[307, null], [500, null], [null, 'refused'], [200, 'incomplete'], [null, 'timeout']][i]);
      expect(check.reachable).toBe(i < 2 || i === 3);
    }
  });

  it('bounds the whole check by its deadline: cases not sent by then fail, not sent', async () => {
    const emu = createEmulator();
    const check = await emu.webhooks.checkReceiver({ fetch: () => new Promise<Response>(() => undefined), secret: SECRET, timeoutMs: 40, deadlineMs: 100 });
    const notSent = check.cases.filter((c) => c.failure === 'not-sent');
    expect(notSent.length).toBeGreaterThan(0);
    expect(check.cases.slice(-notSent.length)).toEqual(notSent);
    expect(notSent.every((c) => c.verdict === 'fail' && c.status === null && c.cause === 'the deadline of the check passed before it was sent' && c.fix!.startsWith('the check ran out of time'))).toBe(true);
    expect(check.reachable).toBe(false);
  });

  it('refuses options that are not, before sending anything', async () => {
    const emu = createEmulator();
    let sent = 0;
    const fetch = () => {
      sent++;
      return new Response(null, { status: 204 });
    };
    await expect(emu.webhooks.checkReceiver({ secret: SECRET })).rejects.toThrow(new TypeError("checkReceiver needs url (the receiver's http or https URL) or fetch (an in-process receiver)"));
    await expect(emu.webhooks.checkReceiver({ url: 'localhost:3000', secret: SECRET })).rejects.toThrow(new TypeError('url must be the receiver\'s http:// or https:// URL (got "localhost:3000")'));
    await expect(emu.webhooks.checkReceiver({ url: 'ftp://x.example/', secret: SECRET })).rejects.toThrow(/^url must be the receiver's http/);
    await expect(emu.webhooks.checkReceiver({ fetch, secret: '' })).rejects.toThrow(/^secret must be the webhook secret/);
    await expect(emu.webhooks.checkReceiver({ fetch, secret: SECRET, previousSecret: ' ' })).rejects.toThrow(/^previousSecret must be the webhook secret/);
    await expect(emu.webhooks.checkReceiver({ fetch, secret: SECRET, timeoutMs: 0 })).rejects.toThrow('timeoutMs must be a whole number of milliseconds from 1 to 60000 (got 0)');
    await expect(emu.webhooks.checkReceiver({ fetch, secret: SECRET, deadlineMs: 1.5 })).rejects.toThrow('deadlineMs must be a whole number of milliseconds from 1 to 600000 (got 1.5)');
    await expect(emu.webhooks.checkReceiver({ fetch, secret: SECRET, cnpjRoot: '123' })).rejects.toThrow('cnpjRoot must be the 8 digits of a CNPJ root (got 123)');
    await expect(emu.webhooks.checkReceiver({ fetch, secret: SECRET, now: Number.NaN })).rejects.toThrow(/^now must be a Date/);
    await expect(emu.webhooks.checkReceiver({ fetch: 'x' as never, secret: SECRET })).rejects.toThrow(/^fetch must be a function/);
    expect(sent).toBe(0);
  });
});

describe('the report', () => {
  it('reads as a table, then one line per failing case saying how to fix it, then what it cannot check', async () => {
    const emu = createEmulator();
    const now = () => Date.parse('2026-03-04T05:06:07.000Z');
    const check = await emu.webhooks.checkReceiver({ fetch: receiver('redirects', { secret: SECRET, now }), secret: SECRET, now, timeoutMs: 5000 });
    const text = formatReceiverCheck(check).replace(/\d+ ms$/gm, '1 ms');
    expect(text).toContain('Receiver check of https://receiver.test/ (via in-process handler)\n');
    expect(text).toContain("Timestamps from the receiver's clock at 2026-03-04T05:06:07.000Z; old-secret signed with a fresh secret (no previous one given).\n");
    expect(text).toContain('\ncase               expect  answer                      verdict  checks  time\n');
    expect(text).toContain('\nvalid              accept  302 redirect, not followed  FAIL     SIG-03  1 ms\n');
    expect(text).toContain('\nwrong-key          reject  400                         pass     SIG-04  1 ms\n');
    expect(text).toContain('\n9 of 13 cases passed, 4 failed.\n\nTo fix:\n  valid: refused; verify HMAC-SHA256(');
    expect(text.split('\n').filter((line) => line.startsWith('  ') && line.includes(': refused; '))).toHaveLength(4);
    expect(text).toContain('\nNot checked from outside:\n  SIG-09: a constant-time comparison: one that stops at the first differing byte');
  });
});
