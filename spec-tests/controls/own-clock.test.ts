/**
 * A company on a clock of its own (`"clock": "own"` in POST /_emulator/companies): its time moves only through
 * /_emulator/companies/{id}/clock, and everything it owns — its records' times, its deliveries and their retries —
 * runs on that clock; the shared clock's controls never move it, and its own never move the others.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { Api, world, type World } from '../support/client.js';
import {
  attemptsOf,
  createDestination,
  deliveryFault,
  hookHost,
  ms,
  raiseEvent,
  SECOND,
  MINUTE,
  HOUR,
  DAY,
} from '../support/webhooks.js';
import { deployment } from '../support/deployment.js';

// Every test here is about the emulator itself: against a deployment each is skipped, before it sends anything.
beforeEach((context) => {
  if (deployment !== undefined)
    context.skip(
      "checks companies on a clock of their own, made and moved through the emulator's /_emulator controls, which a deployment of the service does not have",
    );
});

/** A company on a clock of its own, on the same target as `w`. */
async function ownClockCompany(w: World, options: Record<string, unknown> = {}): Promise<World> {
  const company = await w.controls.createCompany({ clock: 'own', ...options });
  return { ...w, company, api: new Api(w.target, company.token) };
}

const companyClock = async (w: World) => {
  const answer = await w.controls.raw('GET', `/companies/${w.company.companyId}/clock`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body as { now: string; mode: string; pending: number; deadlines: number };
};
const advanceCompany = async (w: World, by: string | number) => {
  const answer = await w.controls.raw('POST', `/companies/${w.company.companyId}/clock/advance`, { by });
  expect(answer.status, answer.text).toBe(200);
  return answer.body as { now: string; ran: number };
};

describe('a company on a clock of its own', () => {
  it('starts at the shared now; its clock and the shared one move apart, each only through its own controls', async () => {
    const shared = await world();
    const own = await ownClockCompany(shared);
    const start = ms((await shared.controls.clock()).now);
    expect(await companyClock(own)).toEqual({
      now: new Date(start).toISOString(),
      mode: 'manual',
      pending: 0,
      deadlines: expect.any(Number),
    });

    expect(await advanceCompany(own, '1d')).toEqual({
      now: new Date(start + DAY).toISOString(),
      ran: expect.any(Number),
    });
    expect((await shared.controls.clock()).now).toBe(new Date(start).toISOString());

    await shared.controls.advance('1h');
    expect((await shared.controls.clock()).now).toBe(new Date(start + HOUR).toISOString());
    expect((await companyClock(own)).now).toBe(new Date(start + DAY).toISOString());
  });

  it('stamps its records with its own time', async () => {
    const shared = await world();
    const own = await ownClockCompany(shared);
    const { now } = await advanceCompany(own, '36h');
    const answer = await own.api.post('/v1/catalogos', { estabelecimento_id: own.company.headOffice.id, nome: 'Loja' });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.criado_em).toBe(now);
    const sharedCatalog = await shared.api.post('/v1/catalogos', {
      estabelecimento_id: shared.company.headOffice.id,
      nome: 'Loja',
    });
    expect(sharedCatalog.body.criado_em).toBe((await shared.controls.clock()).now);
  });

  it('retries its deliveries on its own clock: the shared clock moving a day delivers nothing of it', async () => {
    const shared = await world();
    const own = await ownClockCompany(shared);
    const host = hookHost();
    await createDestination(own, `${host}/recebe`);
    await deliveryFault(own, { url: `${host}/**` }, { status: 500 }, 2);
    const start = ms((await companyClock(own)).now);
    const eventId = await raiseEvent(own);

    await shared.controls.advance('1d');
    const run = await shared.controls.raw('POST', '/clock/run-until-idle', {});
    expect(run.status).toBe(200);
    expect(await attemptsOf(own, eventId)).toEqual([]);

    await advanceCompany(own, 0);
    await advanceCompany(own, 5 * SECOND);
    await advanceCompany(own, 5 * MINUTE);
    const attempts = await attemptsOf(own, eventId);
    expect(attempts.map((a) => [a.tentativa, a.estado, a.status_http, a.iniciada_em])).toEqual([
      [1, 'falhou', 500, new Date(start).toISOString()],
      [2, 'falhou', 500, new Date(start + 5 * SECOND).toISOString()],
      [3, 'entregue', 200, new Date(start + 5 * SECOND + 5 * MINUTE).toISOString()],
    ]);
  });

  it('has controls only for a company on a clock of its own: 404 for a shared-clock company and for an unknown one', async () => {
    const shared = await world();
    const onShared = await shared.controls.raw('POST', `/companies/${shared.company.companyId}/clock/advance`, {
      by: '1h',
    });
    expect(onShared.status).toBe(404);
    expect(onShared.body.erro).toMatchObject({ codigo: 'relogio_proprio_inexistente', caminho: 'path.companyId' });
    const unknown = await shared.controls.raw('GET', '/companies/00000000-0000-7000-8000-000000000000/clock');
    expect(unknown.status).toBe(404);
    expect(unknown.body.erro).toMatchObject({ codigo: 'empresa_nao_encontrada', caminho: 'path.companyId' });
    const bad = await shared.controls.raw('POST', '/companies', { clock: 'mine' });
    expect(bad.status).toBe(422);
    expect(bad.body.erro).toMatchObject({ codigo: 'valor_invalido', caminho: 'body.clock' });
  });

  it('keeps a CNPJ root unique across clocks: 409 raiz_cnpj_duplicada either way', async () => {
    const shared = await world();
    const own = await ownClockCompany(shared);
    const again = await shared.controls.raw('POST', '/companies', { cnpjRoot: own.company.cnpjRoot });
    expect(again.status).toBe(409);
    expect(again.body.erro).toMatchObject({ codigo: 'raiz_cnpj_duplicada', caminho: 'body.cnpjRoot' });
    const ownAgain = await shared.controls.raw('POST', '/companies', {
      cnpjRoot: shared.company.cnpjRoot,
      clock: 'own',
    });
    expect(ownAgain.status).toBe(409);
    expect(ownAgain.body.erro).toMatchObject({ codigo: 'raiz_cnpj_duplicada', caminho: 'body.cnpjRoot' });
  });
});
