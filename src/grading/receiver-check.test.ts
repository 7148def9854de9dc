/**
 * The receiver check in process (emu.webhooks.checkReceiver with a fetch handler): it passes the correct receiver and
 * fails each faulty one on exactly its cases; what each case sends is what the delivery engine sends, changed the one
 * way the case says; every answer is judged within the engine's attempt time-out, and a deadline never turns an
 * answer it cut short into a verdict; the report reads as docs/grading.md shows it.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../emulator.js';
import { signatureOf, verifyWebhook } from '../network/signature.js';
import { lastDigitChanged } from '../network/transport.js';
import { VERSION } from '../version.js';
import { FAILING, receiver, RECEIVER_KINDS, serveHandler } from '../../spec-tests/support/receivers.js';
import { checkReceiver, formatReceiverCheck, RECEIVER_CASES, type ReceiverCheck } from './receiver-check.js';

const SECRET = 'svc_whsec_current-secret-of-the-receiver-under-test';
const PREVIOUS = 'svc_whsec_the-secret-before-the-last-configuration-change';
const failingIds = (check: ReceiverCheck) => check.cases.filter((c) => c.verdict === 'fail').map((c) => c.id);
const ids = (expect: 'accept' | 'reject') => RECEIVER_CASES.filter((c) => c.expect === expect).map((c) => c.id);
/**
 * The attempt time-out the tests give the emulator, and how long `slow-on-forgeries` waits before accepting a
 * forgery: within the time-out, and longer than the check's own give-up was before it judged by the time-out.
 */
const ATTEMPT_TIMEOUT_MS = 2000;
const FORGERY_DELAY_MS = 1200;

describe('the receiver check in process', () => {
  for (const kind of RECEIVER_KINDS) {
    it(`${kind}: fails exactly on ${FAILING[kind].join(', ') || 'nothing'}`, async () => {
      const emu = createEmulator({ webhooks: { attemptTimeout: ATTEMPT_TIMEOUT_MS } });
      const handler = receiver(kind, { secret: SECRET, previousSecret: PREVIOUS, forgeryDelayMs: FORGERY_DELAY_MS });
      const check = await emu.webhooks.checkReceiver({ fetch: handler, secret: SECRET, previousSecret: PREVIOUS });
      expect(failingIds(check)).toEqual(FAILING[kind]);
      expect(check.cases.map((c) => c.id)).toEqual(RECEIVER_CASES.map((c) => c.id));
      expect(check.failed).toBe(FAILING[kind].length);
      expect(check.passed).toBe(RECEIVER_CASES.length - FAILING[kind].length);
      expect([check.reachable, check.judged, check.timeoutMs]).toEqual([true, true, ATTEMPT_TIMEOUT_MS]);
      expect(check.receiver).toEqual({ url: 'https://receiver.test/', via: 'in-process handler' });
      expect(check.oldSecret).toBe('given');
      for (const result of check.cases) {
        expect(result.fix).toBe(result.verdict === 'fail' ? RECEIVER_CASES.find((c) => c.id === result.id)!.fix : null);
      }
    });
  }

  it('judges an answer within the attempt time-out, whatever the case: a forgery accepted late counts', async () => {
    const emu = createEmulator({ webhooks: { attemptTimeout: ATTEMPT_TIMEOUT_MS } });
    const handler = receiver('slow-on-forgeries', { secret: SECRET, forgeryDelayMs: FORGERY_DELAY_MS });
    const check = await emu.webhooks.checkReceiver({ fetch: handler, secret: SECRET });
    expect(failingIds(check)).toEqual(ids('reject'));
    for (const c of check.cases.filter((r) => r.expect === 'reject')) {
      const answer = { status: c.status, failure: c.failure, accepted: c.accepted };
      expect(answer).toEqual({ status: 200, failure: null, accepted: true });
    }
    // The default is the engine's: 15 s.
    const correct = receiver('correct', { secret: SECRET });
    const byDefault = await createEmulator().webhooks.checkReceiver({ fetch: correct, secret: SECRET });
    expect(byDefault.timeoutMs).toBe(15_000);
  });

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
    // The request each case's result shows it sent (the cases run side by side: not in their order).
    const at = (id: string) => {
      const shown = check.cases.find((c) => c.id === id)!.sent.headers;
      const sorted = (headers: Record<string, string>) => JSON.stringify(Object.entries(headers).sort());
      const matching = got.filter((g) => sorted(g.headers) === sorted(shown));
      expect(matching, id).toHaveLength(1);
      return matching[0]!;
    };
    const stamp = now / 1000;
    const verify = (id: string, secret = SECRET, nowMs = now) =>
      verifyWebhook({ secret, headers: at(id).headers, body: at(id).body, now: nowMs });

    // valid: exactly the headers of an attempt (names in lower case, as the transport sends them) and the envelope's bytes.
    const valid = at('valid');
    const eventId = valid.headers['service-event-id']!;
    expect(eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const envelope = (id: string, ocorridoEm = '2026-03-04T05:06:07.000Z') =>
      JSON.stringify({ id, versao: 1, empresa: '11222333', ocorridoEm, dados: { tipo: 'webhook.teste' } });
    expect(valid.body).toBe(envelope(eventId));
    expect(valid.headers).toEqual({
      'content-type': 'application/json',
      'user-agent': `catalog-emulator/${VERSION}`,
      'service-event-id': eventId,
      'service-timestamp': String(stamp),
      'service-signature': expect.stringMatching(/^v1=[0-9a-f]{64}$/),
    });
    expect(verify('valid')).toMatchObject({ ok: true });
    // What the report says was sent: the headers (never the secret), the body's length and hash.
    const bodySha256 = createHash('sha256').update(valid.body).digest('hex');
    const bodyBytes = Buffer.byteLength(valid.body);
    expect(check.cases[0]!.sent).toEqual({ headers: valid.headers, bodyBytes, bodySha256 });
    expect(JSON.stringify(check)).not.toContain(SECRET);
    expect(JSON.stringify(check)).not.toContain(PREVIOUS);

    // A fresh event id per delivery, but duplicate's: valid's id and bytes with a new timestamp and signature.
    const eventIds = got.map((g) => g.headers['service-event-id']).filter((id) => id !== undefined);
    expect(new Set(eventIds).size).toBe(eventIds.length - 1);
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
    // late-retry: stamped and signed now, for an event that occurred 2 hours before, as a retry of it is.
    const late = at('late-retry');
    expect(late.headers['service-timestamp']).toBe(String(stamp));
    expect(late.body).toBe(envelope(late.headers['service-event-id']!, '2026-03-04T03:06:07.000Z'));
    expect(verify('late-retry')).toMatchObject({ ok: true });

    expect(verify('wrong-key')).toMatchObject({ ok: false, reason: 'assinatura_invalida' });
    expect(verify('old-secret')).toMatchObject({ ok: false, reason: 'assinatura_invalida' });
    expect(verify('old-secret', PREVIOUS)).toMatchObject({ ok: true });
    const altered = at('body-altered');
    expect(altered.body.length).toBe(valid.body.length);
    expect(
      [...altered.body].filter((ch, i) => ch !== valid.body.replace(eventId, altered.headers['service-event-id']!)[i]),
    ).toEqual(['1']);
    expect(verify('body-altered')).toMatchObject({ ok: false, reason: 'assinatura_invalida' });

    // truncated-signature: three deliveries, each signed right, then cut to v1= and 0, 32 and 63 of its hex digits.
    const truncated = got.filter((g) => /^v1=[0-9a-f]{0,63}$/.test(g.headers['service-signature'] ?? ''));
    expect(truncated.map((g) => g.headers['service-signature']!.length - 3).sort((a, b) => a - b)).toEqual([0, 32, 63]);
    for (const g of truncated) {
      const whole = signatureOf(SECRET, g.headers['service-timestamp']!, g.headers['service-event-id']!, g.body);
      expect(whole.startsWith(g.headers['service-signature']!)).toBe(true);
      expect(g.headers['service-timestamp']).toBe(String(stamp));
    }
    // The handler accepted them all: the result shows the first delivery it accepted, the empty signature.
    expect(at('truncated-signature').headers['service-signature']).toBe('v1=');
    // signature-one-digit: the right signature with its last digit changed, as the tamper fault changes it.
    const oneDigit = at('signature-one-digit');
    const { 'service-timestamp': oneStamp, 'service-event-id': oneId } = oneDigit.headers;
    const right = signatureOf(SECRET, oneStamp!, oneId!, oneDigit.body);
    expect(oneDigit.headers['service-signature']).toBe(lastDigitChanged(right));
    expect(oneDigit.headers['service-signature']!.slice(0, -1)).toBe(right.slice(0, -1));
    expect(oneDigit.headers['service-signature']).not.toBe(right);

    expect(at('stale-timestamp').headers['service-timestamp']).toBe(String(stamp - 320));
    expect(verify('stale-timestamp', SECRET, now - 320_000)).toMatchObject({ ok: true });
    expect(verify('stale-timestamp')).toMatchObject({ ok: false, reason: 'timestamp_fora_da_tolerancia' });
    // 20 s past the five minutes: a receiver with 330 s of tolerance accepts it.
    const stale = at('stale-timestamp');
    const { headers, body } = stale;
    const lenient = verifyWebhook({ secret: SECRET, headers, body, now, toleranceSeconds: 330 });
    expect(lenient).toMatchObject({ ok: true });
    expect(at('future-timestamp').headers['service-timestamp']).toBe(String(stamp + 320));
    expect(verify('future-timestamp', SECRET, now + 320_000)).toMatchObject({ ok: true });
    expect(verify('future-timestamp')).toMatchObject({ ok: false, reason: 'timestamp_fora_da_tolerancia' });
    for (const [id, header] of [
      ['missing-signature', 'service-signature'],
      ['missing-timestamp', 'service-timestamp'],
      ['missing-event-id', 'service-event-id'],
    ] as const) {
      expect(Object.keys(at(id).headers)).not.toContain(header);
      expect(Object.keys(at(id).headers)).toHaveLength(4);
    }
    expect(at('unknown-scheme').headers['service-signature']).toMatch(/^v0=[0-9a-f]{64}$/);
    const scheme = at('unknown-scheme');
    const v1 = scheme.headers['service-signature']!.replace('v0=', 'v1=');
    const relabelled = { ...scheme.headers, 'service-signature': v1 };
    expect(verifyWebhook({ secret: SECRET, headers: relabelled, body: scheme.body, now })).toMatchObject({ ok: true });

    // One request per delivery: a case each, and truncated-signature's three.
    expect(got).toHaveLength(RECEIVER_CASES.length + 2);
    // The handler accepted everything: every accept case passes, every reject case fails.
    expect(failingIds(check)).toEqual(ids('reject'));
    expect(check.cases.every((c) => c.status === 200 && c.failure === null && c.answer === 'ok' && c.accepted)).toBe(
      true,
    );
  });

  it('sends the cases side by side, and duplicate only once valid is answered', async () => {
    const emu = createEmulator();
    let inFlight = 0;
    let most = 0;
    const log: string[] = [];
    const check = await emu.webhooks.checkReceiver({
      fetch: async (request) => {
        const id = request.headers.get('service-event-id');
        log.push(`in ${id}`);
        most = Math.max(most, ++inFlight);
        // Answered on a later turn of the event loop: what was sent meanwhile is in flight together.
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        log.push(`out ${id}`);
        return new Response(null, { status: 204 });
      },
      secret: SECRET,
    });
    const valid = check.cases[0]!.sent.headers['service-event-id'];
    // Every delivery but duplicate's was in flight at once; duplicate's came after valid's answer.
    expect(most).toBe(log.length / 2 - 1);
    expect(log.lastIndexOf(`in ${valid}`)).toBeGreaterThan(log.indexOf(`out ${valid}`));
    expect(log.filter((entry) => entry === `in ${valid}`)).toHaveLength(2);
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
    expect(correct.applied).toHaveLength(ids('accept').length - 1);
    expect(check.notChecked.map((n) => n.statement)).toEqual(['SIG-09', 'SIG-10', 'SIG-11']);
    expect(check.notChecked[2]!.reason).toContain(check.cases[0]!.sent.headers['service-event-id']);
  });

  it('judges answers as an attempt is judged: a redirect, another status, a throw, a cut body and silence refuse', async () => {
    const emu = createEmulator({ webhooks: { attemptTimeout: 50 } });
    const answers: (() => Response | Promise<Response>)[] = [
      () => new Response(null, { status: 307, headers: { location: 'https://elsewhere.example/' } }),
      () => new Response('no', { status: 500 }),
      () => {
        throw new Error('boom');
      },
      () =>
        new Response(new ReadableStream({ pull: (controller) => controller.error(new Error('cut')) }), { status: 200 }),
      () => new Promise<Response>(() => undefined),
    ];
    for (const [i, answer] of answers.entries()) {
      const check = await emu.webhooks.checkReceiver({ fetch: answer, secret: SECRET });
      const valid = check.cases[0]!;
      expect(valid.accepted, `answer ${i}`).toBe(false);
      expect(valid.verdict).toBe('fail');
      expect(check.cases.filter((c) => c.expect === 'reject').every((c) => c.verdict === 'pass')).toBe(true);
      expect([valid.status, valid.failure]).toEqual(
        [
          [307, null],
          [500, null],
          [null, 'refused'],
          [200, 'incomplete'],
          [null, 'timeout'],
        ][i],
      );
      expect(check.reachable).toBe(i < 2 || i === 3);
      expect(check.judged).toBe(true);
    }
  });

  it('refuses a deadline shorter than twice the attempt time-out, before sending anything', async () => {
    let sent = 0;
    const fetch = () => {
      sent++;
      return new Response(null, { status: 204 });
    };
    const refusal = (from: number, got: number, timeout: number) =>
      new TypeError(
        `deadlineMs must be a whole number of milliseconds from ${from} to 600000 (got ${got}): ` +
          `at least twice the attempt time-out of ${timeout} ms, the time the check needs to judge every case`,
      );
    const within = (e: Emulator, deadlineMs: number) => e.webhooks.checkReceiver({ fetch, secret: SECRET, deadlineMs });
    await expect(within(createEmulator(), 29_999)).rejects.toThrow(refusal(30_000, 29_999, 15_000));
    const quick = createEmulator({ webhooks: { attemptTimeout: '1s' } });
    await expect(within(quick, 1999)).rejects.toThrow(refusal(2000, 1999, 1000));
    const slow = createEmulator({ webhooks: { attemptTimeout: '6m' } });
    await expect(slow.webhooks.checkReceiver({ fetch, secret: SECRET })).rejects.toThrow(
      'the receiver check needs twice the attempt time-out (webhooks.attemptTimeout, 360000 ms) to judge every case, ' +
        'more than its longest deadline (600000 ms)',
    );
    expect(sent).toBe(0);
    // The default deadline leaves room for twice a longer attempt time-out.
    const patient = createEmulator({ webhooks: { attemptTimeout: '40s' } });
    expect((await patient.webhooks.checkReceiver({ fetch, secret: SECRET })).judged).toBe(true);
    expect(sent).toBe(RECEIVER_CASES.length + 2);
  });

  it('never judges what its deadline cut short: those cases fail as not judged, and the check says so', async () => {
    const oldSecret = { secret: undefined, source: 'given' as const };
    const now = () => Date.now();
    const settings = { secret: SECRET, oldSecret, now, timeoutMs: 10_000, deadlineMs: 30, cnpjRoot: '00000000' };
    // A deadline shorter than an answer's wait, as readCheckOptions never lets one be: in process, and over HTTP.
    const silent = await serveHandler(() => new Promise<Response>(() => undefined));
    try {
      for (const reach of [() => new Promise<Response>(() => undefined), silent.url]) {
        const check = await checkReceiver({ url: 'https://receiver.test/', reach, via: null }, settings);
        expect(check.judged).toBe(false);
        expect(check.reachable).toBe(false);
        expect(check.failed).toBe(RECEIVER_CASES.length);
        // Reject cases too: an answer the deadline cut short is no refusal.
        for (const c of check.cases) {
          const failure = c.id === 'duplicate' ? 'not-sent' : 'deadline';
          const got = { id: c.id, failure: c.failure, status: c.status, accepted: c.accepted, verdict: c.verdict };
          expect(got).toEqual({ id: c.id, failure, status: null, accepted: false, verdict: 'fail' });
          expect(c.fix).toMatch(/^the check's deadline passed before this case was answered, so it was not judged/);
        }
        expect(formatReceiverCheck(check)).toContain("\n  unknown-scheme: not judged; the check's deadline passed");
      }
    } finally {
      await silent.close();
    }
  });

  it('refuses options that are not, before sending anything', async () => {
    const emu = createEmulator();
    let sent = 0;
    const fetch = () => {
      sent++;
      return new Response(null, { status: 204 });
    };
    await expect(emu.webhooks.checkReceiver({ secret: SECRET })).rejects.toThrow(
      new TypeError("checkReceiver needs url (the receiver's http or https URL) or fetch (an in-process receiver)"),
    );
    await expect(emu.webhooks.checkReceiver({ url: 'localhost:3000', secret: SECRET })).rejects.toThrow(
      new TypeError('url must be the receiver\'s http:// or https:// URL (got "localhost:3000")'),
    );
    await expect(emu.webhooks.checkReceiver({ url: 'ftp://x.example/', secret: SECRET })).rejects.toThrow(
      /^url must be the receiver's http/,
    );
    await expect(emu.webhooks.checkReceiver({ fetch, secret: '' })).rejects.toThrow(
      /^secret must be the webhook secret/,
    );
    await expect(emu.webhooks.checkReceiver({ fetch, secret: SECRET, previousSecret: ' ' })).rejects.toThrow(
      /^previousSecret must be the webhook secret/,
    );
    // No time-out of the check's own: each delivery is given the emulator's attempt time-out.
    const timeoutMs = { fetch, secret: SECRET, timeoutMs: 1000 } as never;
    await expect(emu.webhooks.checkReceiver(timeoutMs)).rejects.toThrow(/^timeoutMs is not an option of the receiver/);
    const deadline = (n: string) => `deadlineMs must be a whole number of milliseconds from 30000 to 600000 (got ${n})`;
    const check = (deadlineMs: number) => emu.webhooks.checkReceiver({ fetch, secret: SECRET, deadlineMs });
    await expect(check(45_000.5)).rejects.toThrow(deadline('45000.5'));
    await expect(check(600_001)).rejects.toThrow(deadline('600001'));
    await expect(emu.webhooks.checkReceiver({ fetch, secret: SECRET, cnpjRoot: '123' })).rejects.toThrow(
      'cnpjRoot must be the 8 digits of a CNPJ root (got 123)',
    );
    await expect(emu.webhooks.checkReceiver({ fetch, secret: SECRET, now: Number.NaN })).rejects.toThrow(
      /^now must be a Date/,
    );
    await expect(emu.webhooks.checkReceiver({ fetch: 'x' as never, secret: SECRET })).rejects.toThrow(
      /^fetch must be a function/,
    );
    expect(sent).toBe(0);
  });
});

describe('the report', () => {
  it('reads as a table, then one line per failing case saying how to fix it, then what it cannot check', async () => {
    const emu = createEmulator();
    const now = () => Date.parse('2026-03-04T05:06:07.000Z');
    const redirects = receiver('redirects', { secret: SECRET, now });
    const check = await emu.webhooks.checkReceiver({ fetch: redirects, secret: SECRET, now });
    const text = formatReceiverCheck(check).replace(/\d+ ms$/gm, '1 ms');
    expect(text).toContain('Receiver check of https://receiver.test/ (via in-process handler)\n');
    expect(text).toContain(
      "Timestamps from the receiver's clock at 2026-03-04T05:06:07.000Z; old-secret signed with a fresh secret (no previous one given).\n",
    );
    expect(text).toContain('\ncase                 expect  answer                      verdict  checks  time\n');
    expect(text).toContain('\nvalid                accept  302 redirect, not followed  FAIL     SIG-03  1 ms\n');
    expect(text).toContain('\nwrong-key            reject  400                         pass     SIG-04  1 ms\n');
    const [accepting, all] = [ids('accept').length, RECEIVER_CASES.length];
    const totals = `${all - accepting} of ${all} cases passed, ${accepting} failed.`;
    expect(text).toContain(`\n${totals}\n\nTo fix:\n  valid: refused; verify HMAC-SHA256(`);
    const fixes = text.split('\n').filter((line) => line.startsWith('  ') && line.includes(': refused; '));
    expect(fixes).toHaveLength(accepting);
    expect(text).toContain(
      '\nNot checked from outside:\n  SIG-09: a constant-time comparison: one that stops at the first differing byte',
    );
  });
});
