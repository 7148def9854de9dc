/**
 * demo signature-check: one real delivery captured at the receiver, verifyWebhook on it and on tampered,
 * stale and wrongly keyed variants, then the delivery faults `tamper: signature | body | timestamp` against a
 * verifying receiver (spec "Events": Delivery headers, Signature verification; docs/faults.md).
 */
import { verifyWebhook, type VerifyResult } from '../public.js';
import { scene, table, type Demo } from './narrator.js';

const HOOKS = 'https://hooks.acme.example';
const TAMPERS = ['signature', 'body', 'timestamp'] as const;

interface Captured {
  readonly headers: Headers;
  /** The exact bytes, as text: never re-serialized. */
  readonly body: string;
}

export const signatureCheck: Demo = {
  name: 'signature-check',
  summary: 'verifyWebhook on a real delivery, tampered and stale copies, and the tamper delivery faults',
  async run(print, pacer) {
    const { emu, api, quiet, step } = scene(print, pacer, 'demo-assinatura');
    const at = () => emu.clock.now().toISOString().slice(11, 19);

    await step(
      '1. Acme configures its destination, and the network sends it to a receiver that keeps the raw request.',
    );
    const configured = await api('PUT', '/v1/webhook', {
      headers: { 'idempotency-key': 'demo-webhook-0000001', 'if-none-match': '*' },
      body: { url: `${HOOKS}/catalogo` },
    });
    let secret: string = configured.body.segredo;
    let etag = configured.headers.get('etag')!;
    const captured: Captured[] = [];
    /** Until step 4 the receiver only records; from then on it verifies as a real one must. */
    let verifying = false;
    const verdicts: VerifyResult[] = [];
    emu.network.route(HOOKS, async (request) => {
      const body = await request.text();
      captured.push({ headers: new Headers(request.headers), body });
      if (!verifying) return new Response(null, { status: 200 });
      const check = verifyWebhook({ secret, headers: request.headers, body, now: emu.clock.now() });
      verdicts.push(check);
      const status = check.ok ? 200 : 401;
      print(
        `  ${at()}  the receiver: ${check.ok ? `ok (evento ${check.event.id.slice(0, 8)}…)` : check.reason}, answers ${status}`,
      );
      return new Response(null, { status });
    });

    await step('2. A test event, delivered when the clock moves (emu.clock.advance(0)). What the receiver got:');
    await api('POST', '/v1/webhook/testes', {
      headers: { 'idempotency-key': 'demo-test-000000001', 'if-match': etag },
    });
    await emu.clock.advance(0);
    const genuine = captured[0]!;
    for (const name of ['content-type', 'service-event-id', 'service-timestamp', 'service-signature'])
      print(`      ${name}: ${genuine.headers.get(name)}`);
    print(`      ${genuine.body}`);

    await step('3. verifyWebhook({ secret, headers, body, now }) on that delivery and on altered copies:');
    const now = emu.clock.now();
    const signature = genuine.headers.get('service-signature')!;
    const flipped = signature.slice(0, -1) + (signature.endsWith('0') ? '1' : '0');
    const withHeader = (name: string, value: string | null) => {
      const headers = new Headers(genuine.headers);
      if (value === null) headers.delete(name);
      else headers.set(name, value);
      return headers;
    };
    // The old secret goes out of use on the next configuration change: a rotation (PUT with If-Match).
    const rotated = await quiet('PUT', '/v1/webhook', {
      headers: { 'idempotency-key': 'demo-webhook-0000002', 'if-match': etag },
      body: { url: `${HOOKS}/catalogo` },
    });
    const cases: Array<[string, VerifyResult]> = [
      ['the genuine delivery', verifyWebhook({ secret, headers: genuine.headers, body: genuine.body, now })],
      [
        'body edited (tipo changed)',
        verifyWebhook({
          secret,
          headers: genuine.headers,
          body: genuine.body.replace('webhook.teste', 'catalogo.aplicado'),
          now,
        }),
      ],
      [
        'signature, last hex flipped',
        verifyWebhook({ secret, headers: withHeader('service-signature', flipped), body: genuine.body, now }),
      ],
      [
        'replayed 10 minutes later',
        verifyWebhook({ secret, headers: genuine.headers, body: genuine.body, now: now.getTime() + 10 * 60_000 }),
      ],
      [
        'checked with another secret',
        verifyWebhook({ secret: rotated.body.segredo, headers: genuine.headers, body: genuine.body, now }),
      ],
      [
        'signature header stripped',
        verifyWebhook({ secret, headers: withHeader('service-signature', null), body: genuine.body, now }),
      ],
    ];
    const explained = new Set<string>();
    for (const [label, result] of cases) {
      print(
        `  ${label.padEnd(28)} → ${result.ok ? `ok: ${result.event.dados.tipo} ${result.event.id}` : result.reason}`,
      );
      if (result.ok) continue;
      if (explained.has(result.message)) print('      (the same message as above)');
      else for (const line of wrap(result.message, 96)) print(`      ${line}`);
      explained.add(result.message);
    }
    print('  ("another secret": the one issued by a rotation, PUT /v1/webhook with If-Match; every configuration');
    print('   change issues a new secret, and a delivery signed with the old one no longer verifies.)');
    secret = rotated.body.segredo;
    etag = rotated.headers.get('etag')!;

    await step(
      '4. The same checks, done by the service: delivery faults alter the next delivery, and the receiver now',
    );
    print(
      '   verifies each one (401 when verifyWebhook refuses it). A refused attempt is retried 5 s later, signed afresh.',
    );
    verifying = true;
    const outcomes: Array<[string, string, string, string]> = [];
    for (const tamper of TAMPERS) {
      const fault = emu.faults.add({ target: 'delivery', effect: { tamper } });
      const test = await quiet('POST', '/v1/webhook/testes', {
        headers: { 'idempotency-key': `demo-tamper-${tamper.padEnd(9, '0')}`, 'if-match': etag },
      });
      print(
        `  emu.faults.add({ target: 'delivery', effect: { tamper: '${tamper}' } }) → ${fault.id}; POST /v1/webhook/testes → ${test.status}`,
      );
      const eventPath = `/v1/webhook/eventos/${test.body.evento_id}`;
      const seen = verdicts.length;
      await emu.clock.advance(0);
      const pending = (await quiet('GET', eventPath)).body;
      await emu.clock.advanceTo(pending.proxima_tentativa_em);
      const detail = (await quiet('GET', eventPath)).body;
      print(`      → event ${detail.estado} after ${detail.tentativas_ciclo} attempts`);
      const verdict = (check: VerifyResult | undefined) =>
        check === undefined ? 'not delivered' : check.ok ? 'ok' : check.reason;
      outcomes.push([tamper, verdict(verdicts[seen]), verdict(verdicts[seen + 1]), detail.estado]);
    }
    print('');
    table(print, ['tamper', 'attempt 1', 'attempt 2 (retry)', 'event'], outcomes);

    await step('What a receiver must do (spec "Signature verification"):');
    print('  - verify the signature before parsing the JSON: unauthenticated bytes never reach the parser;');
    print('  - HMAC-SHA256 over timestamp + "." + event id + "." + the exact body bytes, keyed by the whole');
    print('    secret (svc_whsec_ included): read the raw body, never a re-serialized object;');
    print('  - refuse a Service-Timestamp more than 5 minutes away from the receiver clock;');
    print('  - compare signatures in constant time (timingSafeEqual), never with ===;');
    print('  - record the event id in the same transaction that applies the event: a retry or a resend brings');
    print('    the same id with a new timestamp and signature, and must not be applied twice.');
  },
};

/** Splits `text` into lines of at most `width` characters, at spaces. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
