/**
 * Event retention on the company's own clock: the hourly cleanup removes an event 30 days after it closed
 * (its detail and attempts then 404) and keeps a younger one.
 */
import { expect, it } from 'vitest';
import { expectError } from '../support/expect.js';
import { attemptsOf, createDestination, eventDetail, hookHost, raiseEvent } from '../support/webhooks.js';
import { advance, advanceToOffset, DAY, HOUR, iso, ok, ownCompany } from './support.js';

it('keeps a delivered event until 30 days after it closed and removes it with the hourly cleanup then, the younger one kept', async () => {
  const c = await ownCompany('61000500');
  await createDestination(c, `${hookHost()}/eventos`);
  // The cleanup runs on the hour of the company's clock (start + k h): close the event on one.
  const t0 = await advanceToOffset(c, 5 * HOUR);
  const old = await raiseEvent(c);
  await advance(c, 0);
  expect(await eventDetail(c, old)).toMatchObject({ estado: 'entregue', terminado_em: iso(t0) });
  await advanceToOffset(c, 3 * DAY);
  const younger = await raiseEvent(c);
  await advance(c, 0);

  await advanceToOffset(c, 5 * HOUR + 30 * DAY - 1);
  expect((await attemptsOf(c, old)).map((a) => a.estado)).toEqual(['entregue']);
  await advance(c, 1);
  expectError(await c.api.get(`/v1/webhook/eventos/${old}`), 404, 'evento_nao_encontrado');
  expectError(await c.api.get(`/v1/webhook/eventos/${old}/tentativas`), 404, 'evento_nao_encontrado');
  expect(ok(await c.api.get('/v1/webhook/eventos'), 200).itens.map((e: { id: string }) => e.id)).toEqual([younger]);
  expect(await eventDetail(c, younger)).toMatchObject({ estado: 'entregue', terminado_em: iso(c.start + 3 * DAY) });
});
