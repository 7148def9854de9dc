/**
 * An attempt's time-out on the company's own clock: a receiver whose answer never comes back leaves the attempt
 * `iniciada` until exactly 15 s later, when it ends `incerta` (`tempo_esgotado`); the retry follows 5 s after.
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
import { advance, DAY, HOUR, iso, ownCompany, SECOND } from './support.js';

const TIMEOUT = 15 * SECOND;

it('times an unanswered attempt out at exactly 15 s (incerta, tempo_esgotado) and retries it 5 s later', async () => {
  const c = await ownCompany('61000200');
  const host = hookHost();
  await createDestination(c, `${host}/eventos`);
  await deliveryFault(c, { url: `${host}/**` }, { timeout: true }, 1);
  const t0 = await advance(c, 2 * DAY + 7 * HOUR);
  expect(t0).toBe(c.start + 2 * DAY + 7 * HOUR);
  const eventId = await raiseEvent(c);
  await advance(c, 0);

  const running = {
    tentativa: 1,
    destino_versao: 1,
    estado: 'iniciada',
    iniciada_em: iso(t0),
    terminada_em: null,
    codigo_falha: null,
    status_http: null,
  };
  expect(await attemptsOf(c, eventId)).toEqual([running]);
  expect(await eventDetail(c, eventId)).toMatchObject({
    estado: 'executando',
    tentativas_ciclo: 1,
    proxima_tentativa_em: null,
  });
  await advance(c, TIMEOUT - 1);
  expect(await attemptsOf(c, eventId)).toEqual([running]);

  await advance(c, 1);
  const timedOut = { ...running, estado: 'incerta', terminada_em: iso(t0 + TIMEOUT), codigo_falha: 'tempo_esgotado' };
  expect(await attemptsOf(c, eventId)).toEqual([timedOut]);
  expect(await eventDetail(c, eventId)).toMatchObject({
    estado: 'pendente',
    proxima_tentativa_em: iso(t0 + TIMEOUT + 5 * SECOND),
  });

  await advance(c, 5 * SECOND);
  expect(await attemptsOf(c, eventId)).toEqual([
    timedOut,
    {
      tentativa: 2,
      destino_versao: 1,
      estado: 'entregue',
      iniciada_em: iso(t0 + TIMEOUT + 5 * SECOND),
      terminada_em: iso(t0 + TIMEOUT + 5 * SECOND),
      codigo_falha: null,
      status_http: 200,
    },
  ]);
  expect(await eventDetail(c, eventId)).toMatchObject({
    estado: 'entregue',
    tentativas_ciclo: 2,
    terminado_em: iso(t0 + TIMEOUT + 5 * SECOND),
  });
});
