/**
 * A fault's `probability`, as a client sees it, in process and over a real socket: each matching request is
 * failed with that chance, drawn from the emulator's seed, so a run repeats exactly; the draws are a stream of their
 * own, so arming a probabilistic fault moves none of the ids the service draws.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from './index.js';

const closing: Emulator[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((emu) => emu.close()));
});

type Send = (path: string, init?: RequestInit) => Promise<Response>;

/** An emulator of `seed` with its first company's token, sent to in process or over a socket. */
async function emulator(
  seed: number,
  over: 'in-process' | 'socket',
): Promise<{ emu: Emulator; send: Send; token: string }> {
  const emu = createEmulator({ seed, companies: [{}] });
  closing.push(emu);
  const [company] = emu.companies.initial();
  if (over === 'in-process') return { emu, send: emu.fetch, token: company!.token };
  const server = await emu.listen({ port: 0 });
  return { emu, send: (path, init) => fetch(`${server.url}${path}`, init), token: company!.token };
}

/**
 * 200 GETs of /v1/empresa with a 503 fault of probability 0.5 armed over the controls (none with `fault` null): which were failed (1) and
 * which answered (0), and the request ids they got.
 */
async function run(
  seed: number,
  over: 'in-process' | 'socket',
  fault: Record<string, unknown> | null = { probability: 0.5 },
) {
  const { send, token } = await emulator(seed, over);
  if (fault !== null) {
    const added = await send('/_emulator/faults', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        target: 'api',
        match: { method: 'GET', path: '/v1/empresa' },
        effect: { status: 503 },
        times: null,
        ...fault,
      }),
    });
    expect(added.status).toBe(201);
  }
  let fired = '';
  const ids: string[] = [];
  for (let i = 0; i < 200; i++) {
    const answer = await send('/v1/empresa', { headers: { authorization: `Bearer ${token}` } });
    await answer.arrayBuffer();
    expect([200, 503]).toContain(answer.status);
    fired += answer.status === 503 ? '1' : '0';
    ids.push(answer.headers.get('x-request-id')!);
  }
  return { fired, ids, send };
}

describe('a fault with a probability', () => {
  it.each(['in-process', 'socket'] as const)(
    'fails the same requests for the same seed, and others for another seed (%s)',
    async (over) => {
      const first = await run(41, over);
      const again = await run(41, over);
      const other = await run(42, over);
      expect(again.fired).toBe(first.fired);
      expect(other.fired).not.toBe(first.fired);
      for (const { fired } of [first, other]) {
        const failed = [...fired].filter((c) => c === '1').length;
        expect(failed).toBeGreaterThan(70);
        expect(failed).toBeLessThan(130);
      }
      // The journal and the fault's count agree with what the client saw: hits are firings, not matches.
      const faults = (await (await first.send('/_emulator/faults')).json()) as {
        items: { hits: number; times: number | null; probability: number }[];
      };
      expect(faults.items).toEqual([
        expect.objectContaining({
          hits: [...first.fired].filter((c) => c === '1').length,
          times: null,
          probability: 0.5,
        }),
      ]);
    },
  );

  it('draws from a stream of its own: the request ids are those of a run without the fault', async () => {
    const faulty = await run(41, 'in-process');
    const clean = await run(41, 'in-process', null);
    expect(clean.fired).toBe('0'.repeat(200));
    expect(faulty.ids).toEqual(clean.ids);
  });

  it('on webhook deliveries too: the same seed refuses the same attempts', async () => {
    const attempts = async (seed: number) => {
      const emu = createEmulator({ seed, companies: [{}] });
      closing.push(emu);
      const [company] = emu.companies.initial();
      const put = await emu.fetch('/v1/webhook', {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${company!.token}`,
          'content-type': 'application/json',
          'idempotency-key': 'probability-hook-01',
          'if-none-match': '*',
        },
        body: JSON.stringify({ url: 'https://hooks.acme.example/in' }),
      });
      expect(put.status).toBe(201);
      emu.faults.add({ target: 'delivery', effect: { refuse: true }, times: null, probability: 0.5 });
      const events = Array.from(
        { length: 30 },
        () => emu.webhooks.raise(company!.companyId, { tipo: 'webhook.teste' } as never).eventId,
      );
      await emu.clock.advance('1s');
      // Each event's first attempt: delivered, or refused by the fault (its retry is due later).
      const delivered = new Set(emu.inbox.list().map((d) => d.eventId));
      return events.map((id) => (delivered.has(id) ? '0' : '1')).join('');
    };
    const first = await attempts(41);
    expect(await attempts(41)).toBe(first);
    expect(await attempts(42)).not.toBe(first);
    expect(first).toMatch(/1/);
    expect(first).toMatch(/0/);
  });

  it('probability 1 fails every matching request, as a fault without one does', async () => {
    expect((await run(41, 'in-process', { probability: 1, times: 5 })).fired).toBe(
      `${'1'.repeat(5)}${'0'.repeat(195)}`,
    );
  });

  it('refuses probability 0 (a fault that could never fire) and any value outside (0, 1], over HTTP, arming nothing', async () => {
    const { send } = await emulator(1, 'socket');
    for (const probability of [0, -0.5, 1.01, '0.5', null]) {
      const answer = await send('/_emulator/faults', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ target: 'delivery', effect: { refuse: true }, probability }),
      });
      expect(answer.status).toBe(422);
      const { erro } = (await answer.json()) as { erro: { codigo: string; caminho: string; mensagem: string } };
      expect(erro).toMatchObject({ codigo: 'valor_invalido', caminho: 'body.probability' });
      expect(erro.mensagem).toBe(
        `probability must be a number above 0 and at most 1, the chance that each matching occurrence fires (0 could never fire); got ${JSON.stringify(probability)}.`,
      );
    }
    expect(await (await send('/_emulator/faults')).json()).toEqual({ items: [] });
  });
});
