/**
 * Webhook retries on the company's own clock, on a server other files move at the same time: a delivery failing
 * 500 seven times is attempted at exactly the schedule's instants (waits 5 s, 5 min, 30 min, 2 h, 5 h, 7 h, 8 h
 * after each failure, instant here), and the 8th attempt is delivered.
 */
import { expect, it } from 'vitest';
import {
  attemptsOf,
  createDestination,
  deliveryFault,
  eventDetail,
  hookHost,
  raiseEvent,
} from '../support/webhooks.js';
import { advance, HOUR, iso, MINUTE, ownCompany, SECOND } from './support.js';

const WAITS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 7 * HOUR, 8 * HOUR];

it('attempts a delivery failing 500 seven times at each instant of the schedule, and delivers the 8th at 22 h 35 min 5 s', async () => {
  const c = await ownCompany('61000100');
  const host = hookHost();
  await createDestination(c, `${host}/eventos`);
  await deliveryFault(c, { url: `${host}/**` }, { status: 500 }, 7);
  // Start somewhere other files are not: 3 h 20 min into the company's own time.
  const t0 = await advance(c, 3 * HOUR + 20 * MINUTE);
  expect(t0).toBe(c.start + 3 * HOUR + 20 * MINUTE);
  const eventId = await raiseEvent(c);
  await advance(c, 0);

  const starts = [t0];
  for (const wait of WAITS) starts.push(starts[starts.length - 1]! + wait);
  const failed = (n: number) => ({
    tentativa: n,
    destino_versao: 1,
    estado: 'falhou',
    iniciada_em: iso(starts[n - 1]!),
    terminada_em: iso(starts[n - 1]!),
    codigo_falha: 'status_nao_2xx',
    status_http: 500,
  });
  expect(await attemptsOf(c, eventId)).toEqual([failed(1)]);

  for (const [i, wait] of WAITS.entries()) {
    const done = i + 1;
    expect(await eventDetail(c, eventId)).toMatchObject({
      estado: 'pendente',
      tentativas_ciclo: done,
      proxima_tentativa_em: iso(starts[done]!),
    });
    await advance(c, wait - 1);
    expect(await attemptsOf(c, eventId), `no attempt ${done + 1} 1 ms early`).toHaveLength(done);
    await advance(c, 1);
    const attempts = await attemptsOf(c, eventId);
    expect(attempts).toHaveLength(done + 1);
    expect(attempts[done]!.iniciada_em).toBe(iso(starts[done]!));
  }

  const attempts = await attemptsOf(c, eventId);
  expect(attempts.slice(0, 7)).toEqual([1, 2, 3, 4, 5, 6, 7].map(failed));
  expect(attempts[7]).toEqual({
    tentativa: 8,
    destino_versao: 1,
    estado: 'entregue',
    iniciada_em: iso(t0 + 22 * HOUR + 35 * MINUTE + 5 * SECOND),
    terminada_em: iso(t0 + 22 * HOUR + 35 * MINUTE + 5 * SECOND),
    codigo_falha: null,
    status_http: 200,
  });
  expect(await eventDetail(c, eventId)).toMatchObject({
    estado: 'entregue',
    tentativas_ciclo: 8,
    tentativas_totais: 8,
    status_http: 200,
    terminado_em: iso(starts[7]!),
    proxima_tentativa_em: null,
    prazo_em: iso(t0 + 24 * HOUR),
  });
});
