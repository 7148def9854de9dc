/**
 * demo webhook-retries: a test event to a receiver that is down for its first 7 deliveries, followed on
 * the virtual clock attempt by attempt through the retry schedule (5 s, 5 min, 30 min, 2 h, 5 h, 7 h, 8 h),
 * the attempt list, and a resend that delivers at once (spec "Endpoints › Webhook", "Delivery semantics").
 */
import { verifyWebhook } from '../public.js';
import { scene, table, type Demo } from './narrator.js';

const HOOKS = 'https://hooks.acme.example';
const FAILURES = 7;

export const webhookRetries: Demo = {
  name: 'webhook-retries',
  summary: 'a receiver down for 7 deliveries, the retry schedule on the virtual clock, and a resend',
  async run(print, pacer) {
    const { emu, api, quiet, step } = scene(print, pacer, 'demo-webhook');
    const start = emu.clock.now().getTime();
    const clock = () => time(emu.clock.now().getTime(), start);

    await step('1. Acme configures its webhook destination (If-None-Match: * = create, never overwrite).');
    const configured = await api('PUT', '/v1/webhook', {
      headers: { 'idempotency-key': 'demo-webhook-0000001', 'if-none-match': '*' },
      body: { url: `${HOOKS}/catalogo` },
    });
    const secret: string = configured.body.segredo;
    const destinationEtag = configured.headers.get('etag')!;
    print('  The secret (segredo) is shown only in this receipt: the receiver keeps it to check signatures.');

    await step(`2. The network: ${HOOKS} goes to an in-process receiver (emu.network.route). It verifies each`);
    print(`   delivery with verifyWebhook, answers 503 to the first ${FAILURES}, then 200.`);
    let deliveries = 0;
    emu.network.route(HOOKS, async (request) => {
      deliveries += 1;
      const body = await request.text();
      const check = verifyWebhook({ secret, headers: request.headers, body, now: emu.clock.now() });
      const status = !check.ok ? 401 : deliveries <= FAILURES ? 503 : 200;
      print(
        `  ${clock()}  attempt ${deliveries}: signature ${check.ok ? 'ok' : check.reason}, the receiver answers ${status}`,
      );
      return new Response(status === 200 ? '' : 'down for maintenance', { status });
    });

    await step(
      '3. A test event (POST /v1/webhook/testes, If-Match: the destination ETag). 202 = accepted, not delivered.',
    );
    const test = await api('POST', '/v1/webhook/testes', {
      headers: { 'idempotency-key': 'demo-test-000000001', 'if-match': destinationEtag },
    });
    const eventPath = `/v1/webhook/eventos/${test.body.evento_id}`;

    await step(
      '4. The clock is manual: nothing is sent until it moves. Advance to each attempt as the service plans it',
    );
    print('   (emu.clock.advanceTo(proxima_tentativa_em of GET /v1/webhook/eventos/{id})). The first is due at once:');
    let detail = (await api('GET', eventPath)).body;
    print(
      `  estado ${detail.estado}, proxima_tentativa_em ${detail.proxima_tentativa_em}: due now, but nothing runs until the clock moves.`,
    );
    print('   virtual time (+ since the first attempt), what the receiver saw, then the event (read again):');
    let first: number | undefined;
    while (detail.proxima_tentativa_em !== null) {
      const due = Date.parse(detail.proxima_tentativa_em);
      first ??= due;
      await emu.clock.advanceTo(due);
      detail = (await quiet('GET', eventPath)).body;
      const next =
        detail.proxima_tentativa_em === null ? '' : `, next at ${time(Date.parse(detail.proxima_tentativa_em), first)}`;
      print(`      → event ${detail.estado}, tentativas_ciclo ${detail.tentativas_ciclo}${next}`);
    }

    await step(`5. The attempts: GET ${eventPath}/tentativas`);
    const attempts = (await quiet('GET', `${eventPath}/tentativas`)).body;
    table(
      print,
      ['tentativa', 'iniciada_em', '+ first', 'estado', 'codigo_falha', 'status_http'],
      attempts.itens.map((a: Attempt) => [
        a.tentativa,
        a.iniciada_em,
        offset(Date.parse(a.iniciada_em) - first!),
        a.estado,
        a.codigo_falha,
        a.status_http,
      ]),
    );
    print(
      `  The event: estado ${detail.estado}, tentativas_totais ${detail.tentativas_totais}, status_http ${detail.status_http}, terminado_em ${detail.terminado_em}.`,
    );
    print('  Each wait counts from the end of the previous attempt; at most 8 attempts, all within prazo_em (24 h).');

    await step('6. A resend opens a new cycle of the same event (same id, same body): POST …/reenvios with If-Match.');
    await api('POST', `${eventPath}/reenvios`, {
      headers: { 'idempotency-key': 'demo-resend-0000001', 'if-match': destinationEtag },
    });
    await emu.clock.advance(0);
    detail = (await quiet('GET', eventPath)).body;
    print(
      `  Delivered at once: event ${detail.estado}, tentativas_ciclo ${detail.tentativas_ciclo}, tentativas_totais ${detail.tentativas_totais}.`,
    );
    print('  The receiver got the same event id again: it must deduplicate on it (the effect applied once).');
  },
};

interface Attempt {
  readonly tentativa: number;
  readonly iniciada_em: string;
  readonly estado: string;
  readonly codigo_falha: string | null;
  readonly status_http: number | null;
}

/** "2026-01-01 00:00:05 (+0:00:05)": a virtual instant and its distance from `from`. */
function time(ms: number, from: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} (${offset(ms - from)})`;
}

/** "+22:35:05": hours may pass 24. */
function offset(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const hh = Math.floor(seconds / 3600);
  const mm = Math.floor((seconds % 3600) / 60);
  const ss = seconds % 60;
  return `+${hh}:${String(mm).padStart(2, '0')}:${String(ss).padStart(2, '0')}`;
}
