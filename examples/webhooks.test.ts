// docs/webhooks.md shows the region below as written (examples/readme.test.ts checks it): it imports the package as
// your project does (here the built one, resolved by name, so `npm test` builds first).
// #region readme
import { expect, test } from 'vitest';
import { createEmulator, verifyWebhook } from 'catalog-emulator';

test('a receiver that fails 7 times gets the event on the 8th attempt, and applies it once', async () => {
  const emu = createEmulator();
  const acme = emu.companies.create();
  const headers = { authorization: `Bearer ${acme.token}`, 'content-type': 'application/json' };

  // Configure the destination: create only, with If-None-Match: *. The receipt is the only place the secret shows.
  const put = await emu.fetch('/v1/webhook', {
    method: 'PUT',
    headers: { ...headers, 'idempotency-key': 'configure-webhook-01', 'if-none-match': '*' },
    body: JSON.stringify({ url: 'https://hooks.acme.example/catalog' }),
  });
  const { segredo } = (await put.json()) as { segredo: string };

  // Your receiver, in process: verify before parsing, apply each event id once.
  const applied = new Set<string>();
  let calls = 0;
  emu.network.route('https://hooks.acme.example', async (request) => {
    calls++;
    const verified = verifyWebhook({
      secret: segredo,
      headers: request.headers,
      body: await request.text(),
      now: emu.clock.now(),
    });
    if (!verified.ok) return new Response(verified.reason, { status: 400 });
    if (calls <= 7) return new Response('busy', { status: 503 });
    applied.add(verified.event.id);
    return new Response(null, { status: 204 });
  });

  const test = await emu.fetch('/v1/webhook/testes', {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': 'send-test-event-01', 'if-match': put.headers.get('etag')! },
  });
  expect(test.status).toBe(202);
  const { evento_id } = (await test.json()) as { evento_id: string };

  await emu.clock.advance('23h'); // every attempt of the schedule runs, each at its own virtual time

  const event = (await (await emu.fetch(`/v1/webhook/eventos/${evento_id}`, { headers })).json()) as {
    estado: string;
    tentativas_ciclo: number;
  };
  expect(event).toMatchObject({ estado: 'entregue', tentativas_ciclo: 8 });
  expect([...applied]).toEqual([evento_id]);
});
// #endregion
