/**
 * The emulator's clock over long spans: the bounds at creation, housekeeping that coalesces exactly (one long
 * advance leaves the state an advance of one hour at a time leaves), and a server that keeps answering while
 * a long advance runs.
 */
import { describe, expect, it } from 'vitest';
import { createEmulator, type Emulator, type EmulatorOptions } from './index.js';
import { closedAfterEach } from '../spec-tests/support/closed-after-each.js';

const DAY = 86_400_000;

const closing = closedAfterEach();

const emulator = (options: EmulatorOptions = {}): Emulator => closing(createEmulator(options));

/** An API caller for one company, in process: JSON in and out, a fresh idempotency-key on every write. */
function caller(emu: Emulator, token: string, prefix: string) {
  let keys = 0;
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const write = method !== 'GET';
    const answer = await emu.fetch(path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(write
          ? {
              'content-type': 'application/json',
              'idempotency-key': `${prefix}-idempotency-${String(++keys).padStart(6, '0')}`,
            }
          : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await answer.text();
    expect(answer.status, `${method} ${path}: ${text}`).toBeLessThan(300);
    return { body: text === '' ? undefined : JSON.parse(text), etag: answer.headers.get('etag') };
  };
}

describe("createEmulator({ start }) within the clock's bounds", () => {
  it.each([
    ['before 1970', '1969-12-31T23:59:59.999Z'],
    ['after 9999', '+010000-01-01T00:00:00.000Z'],
    ['a negative number', -1],
    ['a fraction of a millisecond', 1.5],
  ])('refuses a start %s with a RangeError naming the bounds', (_name, start) => {
    expect(() => createEmulator({ start })).toThrow(
      new RangeError(
        `start must be an instant from 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z, in whole milliseconds; got ${String(start)}`,
      ),
    );
  });

  it('accepts both bounds; at the last instant no advance but 0 is possible', async () => {
    expect(emulator({ start: 0 }).clock.now().toISOString()).toBe('1970-01-01T00:00:00.000Z');
    const last = emulator({ start: '9999-12-31T23:59:59.999Z' });
    expect((await last.clock.advance(0)).now.toISOString()).toBe('9999-12-31T23:59:59.999Z');
    await expect(last.clock.advance('1ms')).rejects.toThrow(
      /cannot move the clock past its last instant, 9999-12-31T23:59:59.999Z/,
    );
  });
});

describe('a long advance coalesces housekeeping exactly', () => {
  /**
   * Two companies: A watches three products (a surveillance execution every day) and its receiver always
   * fails; B's receiver accepts, and B leaves idempotency records. Events of both close on the first day and
   * after the intervention; a retention fault fails two runs, then one postpones a run by two hours.
   */
  async function world(emu: Emulator) {
    const received: string[] = [];
    const a = emu.companies.create({ surveillanceCapacity: 10 });
    const b = emu.companies.create();
    const apiA = caller(emu, a.token, 'a');
    const apiB = caller(emu, b.token, 'b');
    emu.network.route('https://hooks.a.example', async (request) => {
      received.push(`a ${emu.clock.now().toISOString()} ${await request.text()}`);
      return new Response(null, { status: 503 });
    });
    emu.network.route('https://hooks.b.example', async (request) => {
      received.push(`b ${emu.clock.now().toISOString()} ${await request.text()}`);
      return new Response(null, { status: 204 });
    });
    await apiA('PUT', '/v1/webhook', { url: 'https://hooks.a.example/events' }, { 'if-none-match': '*' });
    await apiB('PUT', '/v1/webhook', { url: 'https://hooks.b.example/events' }, { 'if-none-match': '*' });
    const catalog = await apiA('POST', '/v1/catalogos', { estabelecimento_id: a.headOffice.id, nome: 'Loja' });
    const products: string[] = [];
    for (const [sku, ncm] of [
      ['CAFE', '09012100'],
      ['ARROZ', '10063021'],
      ['NADA', '99999999'],
    ] as const) {
      products.push(
        (await apiA('POST', `/v1/catalogos/${catalog.body.id}/produtos`, { origem: 'erp', sku, descricao: sku, ncm }))
          .body.id,
      );
    }
    const selection = await apiA('GET', '/v1/empresa/vigilancia');
    await apiA(
      'PATCH',
      '/v1/empresa/vigilancia',
      { modo: 'selecao', adicionar: products },
      { 'if-match': selection.etag! },
    );
    const catalogB = await apiB('POST', '/v1/catalogos', { estabelecimento_id: b.headOffice.id, nome: 'Loja B' });
    for (const sku of ['X', 'Y'])
      await apiB('POST', `/v1/catalogos/${catalogB.body.id}/produtos`, {
        origem: 'erp',
        sku,
        descricao: sku,
        ncm: '09012100',
      });
    for (const company of [a, b])
      for (let i = 0; i < 2; i++) emu.webhooks.raise(company.companyId, { tipo: 'webhook.teste' } as never);
    emu.faults.add({ target: 'job', match: { kind: 'retencao_eventos' }, effect: { fail: true }, times: 2 });
    /** Day 40: A stops watching, new events, a retention run postponed once. */
    const intervene = async () => {
      const current = await apiA('GET', '/v1/empresa/vigilancia');
      await apiA(
        'PATCH',
        '/v1/empresa/vigilancia',
        { modo: 'selecao', remover: products },
        { 'if-match': current.etag! },
      );
      for (const company of [a, b]) emu.webhooks.raise(company.companyId, { tipo: 'webhook.teste' } as never);
      emu.faults.add({ target: 'job', match: { kind: 'retencao_eventos' }, effect: { delayMs: 7_200_000 } });
    };
    return { received, intervene };
  }

  it('one advance of 40 days, then of 25, leaves exactly the state, deliveries, faults and ran of advancing an hour at a time', async () => {
    const [jumping, stepping] = [emulator(), emulator()];
    const [jumper, stepper] = [await world(jumping), await world(stepping)];
    const hourly = async (days: number) => {
      let ran = 0;
      for (let hour = 0; hour < days * 24; hour++) ran += (await stepping.clock.advance('1h')).ran;
      return ran;
    };

    expect((await jumping.clock.advance('40d')).ran).toBe(await hourly(40));
    expect(jumping.snapshot()).toEqual(stepping.snapshot());
    await jumper.intervene();
    await stepper.intervene();
    expect((await jumping.clock.advance('25d')).ran).toBe(await hourly(25));

    const snapshot = jumping.snapshot();
    expect(snapshot).toEqual(stepping.snapshot());
    expect(jumper.received).toEqual(stepper.received);
    expect(jumping.faults.list()).toEqual(stepping.faults.list());
    // The scenario did what it is for: 40 daily executions, then none; both faults used up; the first day's
    // events and idempotency records purged (retention 30 days, idempotency 60), the day-40 ones still kept:
    // the two raised then, and the divergence of day 40's execution, which found nothing watched any more.
    expect(snapshot.state.executions).toHaveLength(40);
    expect(jumping.faults.list()).toEqual([]);
    expect(snapshot.state.webhookEvents.map((event) => event.tipo)).toEqual([
      'webhook.teste',
      'webhook.teste',
      'divergencias.alteradas',
    ]);
    expect(snapshot.state.idempotency.map((record) => record.expiresAt)).toEqual([snapshot.now - 25 * DAY + 60 * DAY]);
    // A's receiver failed all 8 attempts of its 4 events: 2 raised on day 0, 1 on day 40, and the divergence.
    expect(jumper.received.filter((line) => line.startsWith('a '))).toHaveLength(4 * 8);
  });

  it('a fresh emulator advances the full 3650 days, every periodic occurrence counted in ran', async () => {
    const emu = emulator();
    // Hourly retention, daily idempotency purge, daily surveillance schedule: 24 + 1 + 1 a day.
    expect(await emu.clock.advance('3650d')).toEqual({ now: new Date(Date.UTC(2035, 11, 30)), ran: 3650 * 26 });
    expect(emu.clock.info()).toMatchObject({ pending: 0, deadlines: 3 });
  });
});

/**
 * The kinds of the tasks that ran (or were dropped) while `act` ran, in the order told: the change feed tells each
 * persistent task that leaves the queue, so this counts the handlers' runs, where `ran` counts the occurrences they
 * stood for. Counted, not timed (CONTRIBUTING.md "Tests").
 */
function tasksGone(emu: Emulator): { readonly kinds: string[]; stop(): void } {
  const kinds: string[] = [];
  const stop = emu.changes.subscribe((change) => {
    if (change.kind !== 'changed') return;
    for (const world of change.worlds) {
      for (const task of world.tasks ?? []) if (task[0] === '-') kinds.push(task[1].kind);
    }
  });
  return { kinds, stop };
}

describe('real mode far ahead', () => {
  it('a real-clock emulator restored a thousand years ahead catches up in one run of each task', async () => {
    const emu = emulator({ clock: 'real' });
    const far = Date.UTC(3000, 0, 1);
    emu.restore({ ...emu.snapshot(), now: far });
    // The wall-clock timer of the overdue tasks fires at once; its walk is told through the change feed. A walk of
    // the periods one by one (some 8.8 million hours) is stopped at its hundredth run.
    const kinds = ['housekeeping.idempotency', 'vigilancia.diaria', 'webhook.retencao'];
    const caughtUp = () => {
      const tasks = emu.snapshot().tasks;
      return tasks.length === kinds.length && tasks.every((task) => task.due > far);
    };
    const gone = tasksGone(emu);
    await new Promise<void>((resolve) => {
      const look = emu.changes.subscribe(() => {
        if (gone.kinds.length <= 100 && !caughtUp()) return;
        look();
        resolve();
      });
    });
    gone.stop();
    expect(gone.kinds.sort()).toEqual(kinds);
    expect(
      emu
        .snapshot()
        .tasks.map((task) => task.kind)
        .sort(),
    ).toEqual(kinds);
    for (const task of emu.snapshot().tasks) expect(task.due).toBeGreaterThan(far);
  });
});

describe('a long advance over HTTP', () => {
  /** A server whose company has `events` events to deliver to a receiver that always fails: 8 attempts each. */
  async function busyServer(events: number) {
    const emu = emulator();
    const server = await emu.listen({ port: 0 });
    const company = emu.companies.create();
    await caller(emu, company.token, 'busy')(
      'PUT',
      '/v1/webhook',
      { url: 'https://hooks.busy.example/events' },
      { 'if-none-match': '*' },
    );
    emu.network.route('https://hooks.busy.example', () => new Response(null, { status: 500 }));
    for (let i = 0; i < events; i++) emu.webhooks.raise(company.companyId, { tipo: 'webhook.teste' } as never);
    const start = emu.clock.now().toISOString();
    let finished = false;
    const advancing = fetch(`${server.url}/_emulator/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ by: '1d' }),
    }).then(async (answer) => {
      finished = true;
      return { status: answer.status, body: (await answer.json()) as Record<string, any> };
    });
    /** GET /_emulator/clock until it shows the advance under way (a now past the start); undefined if it ended first. */
    const midway = async () => {
      while (!finished) {
        const clock = (await (await fetch(`${server.url}/_emulator/clock`)).json()) as { now: string };
        if (finished) return undefined;
        if (clock.now !== start) return clock.now;
      }
      return undefined;
    };
    return { emu, server, company, start, advancing, midway, finished: () => finished };
  }

  it('lets other requests in while it runs: the clock and the API answer before it ends, the clock midway', async () => {
    const { server, company, start, advancing, midway, finished } = await busyServer(10_000);
    const seen = await midway();
    expect(seen, 'GET /_emulator/clock answered while the advance ran').toBeDefined();
    expect(Date.parse(seen!)).toBeGreaterThan(Date.parse(start));
    expect(Date.parse(seen!)).toBeLessThan(Date.parse(start) + DAY);
    const api = await fetch(`${server.url}/v1/empresa`, { headers: { authorization: `Bearer ${company.token}` } });
    expect(api.status).toBe(200);
    expect(finished(), 'the API answered before the advance ended').toBe(false);
    expect(await advancing).toEqual({
      status: 200,
      body: { now: new Date(Date.parse(start) + DAY).toISOString(), ran: 10_000 * 8 + 24 + 1 + 1 },
    });
  }, 30_000);

  it('a reset while it runs stops it: 503 servico_indisponivel, and the reset emulator is at its start', async () => {
    const { emu, server, start, advancing, midway } = await busyServer(10_000);
    expect(await midway()).toBeDefined();
    expect(
      (
        await fetch(`${server.url}/_emulator/reset`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(200);
    const answer = await advancing;
    expect(answer.status).toBe(503);
    expect(answer.body.erro).toMatchObject({ codigo: 'servico_indisponivel', request_id: '_emulator' });
    expect(answer.body.erro.mensagem).toMatch(
      /^The emulator was reset while the clock was running its tasks: it had run \d+ and stopped there; the rest will not run\.$/,
    );
    expect(emu.clock.now().toISOString()).toBe(start);
    expect(emu.clock.info()).toMatchObject({ pending: 0, deadlines: 3 });
  }, 30_000);
});

describe('a snapshot restored far ahead of its tasks', () => {
  it('catches up at once: a company watching products gets one execution for the instant it caught up at, not one per missed day', async () => {
    const emu = emulator({ companies: [{}] });
    const company = emu.companies.initial()[0]!;
    const call = caller(emu, company.token, 'far-ahead');
    const catalog = await call('POST', '/v1/catalogos', { estabelecimento_id: company.headOffice.id, nome: 'Loja' });
    await call('POST', `/v1/catalogos/${catalog.body.id}/produtos`, { origem: 'erp', ncm: '84713012' });
    const selection = await call('GET', '/v1/empresa/vigilancia');
    await call('PATCH', '/v1/empresa/vigilancia', { modo: 'todos' }, { 'if-match': selection.etag! });
    const snapshot = emu.snapshot();
    // The same tasks, with the clock 3,000 days later: every periodic task is 3,000 days overdue.
    emu.restore({ ...snapshot, now: snapshot.now + 3000 * DAY });

    const gone = tasksGone(emu);
    const { ran } = await emu.clock.advance(0);
    gone.stop();
    // 3,000 missed days of the daily schedule and of the idempotency purge, 72,000 hours of retention.
    expect(ran).toBe(3000 * 26);
    // Counted, not timed: the schedule has something to do each day (the company watches), so it runs alone once a
    // day; between two of its runs, one run of retention stands for its 24 hours, and the purge runs once.
    const runs: Record<string, number> = {};
    for (const kind of gone.kinds) runs[kind] = (runs[kind] ?? 0) + 1;
    expect(runs).toEqual({ 'vigilancia.diaria': 3000, 'housekeeping.idempotency': 3000, 'webhook.retencao': 3001 });
    await emu.clock.runUntilIdle();
    const executions = await call('GET', '/v1/vigilancias');
    expect(executions.body.itens).toHaveLength(1);
    expect(executions.body.itens[0]).toMatchObject({
      estado: 'concluida',
      criada_em: new Date(snapshot.now + 3000 * DAY).toISOString(),
    });
  });
});
