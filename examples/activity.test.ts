// The activity example of docs/controls.md, kept runnable: `import { createEmulator } from 'catalog-emulator'` in your
// project.
import { expect, test } from 'vitest';
import { createEmulator } from 'catalog-emulator';

test('emu.activity tells each request with its error code, and each delivery attempt with its outcome', async () => {
  const emu = createEmulator({ clock: 'manual' });
  const acme = emu.companies.create();
  const headers = { authorization: `Bearer ${acme.token}`, 'content-type': 'application/json' };
  // #region activity
  const seen: string[] = [];
  const stop = emu.activity.subscribe((entry) => {
    if (entry.kind === 'request')
      seen.push(`${entry.method} ${entry.path} ${entry.status} ${entry.error?.codigo ?? ''}`.trim());
    if (entry.kind === 'delivery')
      seen.push(
        `${entry.eventType} attempt ${entry.attemptInCycle}/${entry.attemptsPerCycle}: ${entry.outcome} ${entry.status}`,
      );
  });

  await emu.fetch('/v1/catalogos', {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': 'activity-example-01' },
    body: '{}',
  });
  const put = await emu.fetch('/v1/webhook', {
    method: 'PUT',
    headers: { ...headers, 'idempotency-key': 'activity-example-02', 'if-none-match': '*' },
    body: JSON.stringify({ url: 'https://hooks.acme.example/catalog' }),
  });
  emu.faults.add({ target: 'delivery', effect: { status: 503 } }); // the first attempt fails
  await emu.fetch('/v1/webhook/testes', {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': 'activity-example-03', 'if-match': put.headers.get('etag')! },
  });
  await emu.clock.advance('1m');
  stop();

  expect(seen).toEqual([
    'POST /v1/catalogos 422 campo_obrigatorio',
    'PUT /v1/webhook 201',
    'POST /v1/webhook/testes 202',
    'webhook.teste attempt 1/8: falhou 503',
    'webhook.teste attempt 2/8: entregue 200',
  ]);
  // #endregion
});
