// The README's everyday tasks that have no example of their own elsewhere, shown as written (examples/readme.test.ts
// checks them): moving the clock, and finding what a suite's tests never exercised. `catalog-emulator` resolves to
// the built package, as it does in your project.
import { expect, test } from 'vitest';
import { createEmulator } from 'catalog-emulator';

test('a day later at once: the failed delivery of that day is retried at its own time and delivered', async () => {
  const emu = createEmulator();
  const acme = emu.companies.create({ cnpjRoot: '11222333' });
  await emu.fetch('/v1/webhook', {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${acme.token}`,
      'content-type': 'application/json',
      'idempotency-key': 'everyday-webhook-01',
      'if-none-match': '*',
    },
    body: JSON.stringify({ url: 'https://hooks.acme.example/catalog' }),
  });
  emu.faults.add({ target: 'delivery', effect: { status: 503 } }); // the first attempt fails
  const { eventId } = emu.webhooks.raise(acme.companyId, { tipo: 'webhook.teste' });

  // #region clock
  const { now, ran } = await emu.clock.advance('1d'); // every retry, job and deadline of that day ran at its own time
  // #endregion

  expect(now.toISOString()).toBe('2026-01-02T00:00:00.000Z');
  expect(ran).toBe(28); // the emulator's 26 housekeeping runs of a day, and the event's two attempts
  const attempts = emu.inbox
    .list({ companyId: acme.companyId })
    .filter((delivery) => delivery.headers['service-event-id'] === eventId);
  expect(attempts).toHaveLength(1); // the first attempt never reached the inbox: the fault answered it
  const event = (await (
    await emu.fetch(`/v1/webhook/eventos/${eventId}`, { headers: { authorization: `Bearer ${acme.token}` } })
  ).json()) as { estado: string; tentativas_ciclo: number };
  expect(event).toMatchObject({ estado: 'entregue', tentativas_ciclo: 2 });
});

test("the coverage names each behaviour a suite's tests never exercised, with the control that produces it", async () => {
  const emu = createEmulator();
  const acme = emu.companies.create({ cnpjRoot: '11222333' });
  emu.faults.add({ target: 'api', match: { method: 'POST', path: '/v1/catalogos' }, effect: { loseResponse: true } });
  const create = () =>
    emu.fetch('/v1/catalogos', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${acme.token}`,
        'content-type': 'application/json',
        'idempotency-key': 'everyday-catalog-01',
      },
      body: JSON.stringify({ estabelecimento_id: acme.headOffice.id, nome: 'Loja' }),
    });
  expect((await create()).status).toBe(503); // applied, its answer lost
  expect((await create()).headers.get('idempotent-replayed')).toBe('true'); // the retry, answered from the store

  // #region gaps
  const { score, gaps } = emu.report().coverage;
  expect(score).toEqual({ exercised: 3, listed: 20 }); // the behaviours seen at least once, of those listed
  expect(gaps).toContain(
    'no precondition-failed: POST /_emulator/faults {"target":"api","match":{"method":"PATCH"},"effect":{"concurrentEdit":true}}',
  );
  // #endregion
});
