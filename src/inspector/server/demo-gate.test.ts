/**
 * The demo gate over HTTP, in process (emu.fetch): a scenario paced by a DemoGate waits before each step until
 * POST /_emulator/inspector/demo/next, which answers once the step has run; GET shows the steps and their lines.
 */
import { describe, expect, it } from 'vitest';
import { createEmulator, demos, DemoGate, type Demo, type Emulator } from '../../index.js';
import type { DemoState } from '../wire.js';

const webhookRetries = demos.find((demo) => demo.name === 'webhook-retries')!;

const json = (body?: string, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  ...(body === undefined ? {} : { body }),
});

/** The narration of a run without a pacer, as the terminal shows it today, split into its lines. */
async function unpaced(demo: Demo): Promise<string[]> {
  const printed: string[] = [];
  await demo.run((line) => void printed.push(line));
  return printed.join('\n').split('\n');
}

/** The steps the unpaced narration holds: each heading (the line after a blank one that starts a step) and what follows it. */
function stepsOf(lines: readonly string[], titles: readonly string[]): DemoState['steps'] {
  const starts = titles.map((title) => lines.indexOf(title));
  expect(starts.every((at) => at > 0 && lines[at - 1] === '')).toBe(true);
  return titles.map((title, i) => ({
    n: i + 1,
    title,
    lines: lines.slice(starts[i]! + 1, i + 1 < starts.length ? starts[i + 1]! - 1 : lines.length),
  }));
}

/** Starts `demo` paced by a gate; resolves its emulator as soon as the scenario made it. */
function paced(demo: Demo) {
  const gate = new DemoGate(demo);
  const printed: string[] = [];
  let found: (emu: Emulator) => void = () => undefined;
  const emulator = new Promise<Emulator>((resolve) => (found = resolve));
  const run = demo.run(
    (line) => {
      printed.push(line);
      gate.line(line);
    },
    {
      begin: (emu) => {
        gate.begin(emu);
        found(emu);
      },
      step: (n, text) => gate.step(n, text),
    },
  );
  run.then(
    () => gate.finish(),
    (error: unknown) => gate.finish((error as Error).message),
  );
  return { gate, printed, emulator, run };
}

const TITLES = [
  '1. Acme configures its webhook destination (If-None-Match: * = create, never overwrite).',
  '2. The network: https://hooks.acme.example goes to an in-process receiver (emu.network.route). It verifies each',
  '3. A test event (POST /v1/webhook/testes, If-Match: the destination ETag). 202 = accepted, not delivered.',
  '4. The clock is manual: nothing is sent until it moves. Advance to each attempt as the service plans it',
  expect.stringMatching(/^5\. The attempts: GET \/v1\/webhook\/eventos\/[0-9a-f-]{36}\/tentativas$/),
  '6. A resend opens a new cycle of the same event (same id, same body): POST …/reenvios with If-Match.',
];

describe('GET /_emulator/inspector/demo and POST …/demo/next', () => {
  it('answer 404 demo_ausente on an emulator no demo runs on', async () => {
    const emu = createEmulator();
    for (const [path, init] of [
      ['/_emulator/inspector/demo', undefined],
      ['/_emulator/inspector/demo/next', json()],
    ] as const) {
      const response = await emu.fetch(path, init);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        erro: {
          codigo: 'demo_ausente',
          mensagem: 'No demo runs on this emulator: start one with "catalog-emulator demo NAME --ui".',
          request_id: '_emulator',
        },
      });
    }
  });

  it('step webhook-retries through its six steps: each waits, then runs with the narration the terminal prints', async () => {
    const { gate, printed, emulator, run } = paced(webhookRetries);
    const emu = await emulator;
    // Another emulator knows nothing of this demo.
    expect((await createEmulator().fetch('/_emulator/inspector/demo')).status).toBe(404);

    const first = (await (await emu.fetch('/_emulator/inspector/demo')).json()) as DemoState;
    expect(first).toEqual({
      name: 'webhook-retries',
      summary: webhookRetries.summary,
      steps: [{ n: 1, title: TITLES[0], lines: [] }],
      waiting: true,
      done: false,
    });
    expect(printed).toEqual([]);

    const expected = stepsOf(
      await unpaced(webhookRetries),
      (await unpaced(webhookRetries)).filter((line) => /^[1-6]\. /.test(line)),
    );
    expect(expected.map((step) => step.title)).toEqual(TITLES);
    for (let n = 1; n <= 6; n += 1) {
      const response = await emu.fetch('/_emulator/inspector/demo/next', json());
      expect(response.status).toBe(200);
      const state = (await response.json()) as DemoState;
      // The released step has run: its lines are those the terminal shows under it, a secret masked.
      const ran = expected.slice(0, n).map((step) => ({
        ...step,
        lines: step.lines.map((line) => line.replace(/"segredo":"svc_whsec_[^"]+"/, '"segredo":"••••"')),
      }));
      const pending = n < 6 ? [{ n: n + 1, title: expected[n]!.title, lines: [] }] : [];
      expect(state).toEqual({
        name: 'webhook-retries',
        summary: webhookRetries.summary,
        steps: [...ran, ...pending],
        waiting: n < 6,
        done: n === 6,
      });
      expect(await (await emu.fetch('/_emulator/inspector/demo')).json()).toEqual(state);
    }
    await run;
    // The terminal's narration is today's, word for word (the secret shown there, as the demo means to).
    expect(printed.join('\n').split('\n')).toEqual(await unpaced(webhookRetries));
    expect(JSON.stringify(gate.state())).not.toMatch(/svc_whsec_[A-Za-z0-9]/);
    expect(gate.state().steps[0]!.lines).toContain(
      '      {"id":"da69ac82-994d-4ce8-bef4-ad6be662c7c5","versao":1,"estado":"ativo","segredo":"••••"}',
    );
    expect(gate.state().steps[3]!.lines).toContain(
      '  2026-01-01 22:35:05 (+22:35:05)  attempt 8: signature ok, the receiver answers 200',
    );

    const late = await emu.fetch('/_emulator/inspector/demo/next', json());
    expect(late.status).toBe(409);
    expect(await late.json()).toEqual({
      erro: {
        codigo: 'demo_nao_aguardando',
        mensagem: 'The demo waits at no step: the demo has ended (GET /_emulator/inspector/demo shows it).',
        request_id: '_emulator',
      },
    });
  });

  it('refuses next while a step runs (409), and answers the first next once that step is done', async () => {
    let finishStep: () => void = () => undefined;
    const slow: Demo = {
      name: 'slow',
      summary: 'one step that waits for the test',
      async run(print, pacer) {
        pacer!.begin(emu);
        await pacer!.step(1, '1. Wait.\n   (for the test)');
        print('\n1. Wait.\n   (for the test)');
        print('  started');
        await new Promise<void>((resolve) => (finishStep = resolve));
        print('  finished, token: svc_at_abcdefghijklmnop and {"password": "hunter2"}');
        print('  authorization: Bearer abc.def');
      },
    };
    const emu = createEmulator();
    const gate = new DemoGate(slow);
    void slow.run((line) => gate.line(line), gate).then(() => gate.finish());
    const answer = emu.fetch('/_emulator/inspector/demo/next', json('{}'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await (await emu.fetch('/_emulator/inspector/demo')).json()).toEqual({
      name: 'slow',
      summary: 'one step that waits for the test',
      steps: [{ n: 1, title: '1. Wait.', lines: ['   (for the test)', '  started'] }],
      waiting: false,
      done: false,
    });
    const busy = await emu.fetch('/_emulator/inspector/demo/next', json());
    expect(busy.status).toBe(409);
    expect(((await busy.json()) as { erro: { mensagem: string } }).erro.mensagem).toBe(
      'The demo waits at no step: a step is still running (GET /_emulator/inspector/demo shows it).',
    );
    finishStep();
    const done = await answer;
    expect(done.status).toBe(200);
    expect(await done.json()).toEqual({
      name: 'slow',
      summary: 'one step that waits for the test',
      steps: [
        {
          n: 1,
          title: '1. Wait.',
          lines: [
            '   (for the test)',
            '  started',
            '  finished, token: svc_•••• and {"password": "••••"}',
            '  authorization: Bearer ••••',
          ],
        },
      ],
      waiting: false,
      done: true,
    });
  });

  it('a scenario that fails ends the run with why, in the step it stopped in', async () => {
    const broken: Demo = {
      name: 'broken',
      summary: 'fails in its step',
      async run(_print, pacer) {
        pacer!.begin(createEmulator());
        await pacer!.step(1, '1. Fail.');
        throw new Error('the receiver vanished');
      },
    };
    const gate = new DemoGate(broken);
    const run = broken
      .run((line) => gate.line(line), gate)
      .catch((error: unknown) => gate.finish((error as Error).message));
    expect(gate.next()).toBe(true);
    await run;
    expect(gate.state()).toEqual({
      name: 'broken',
      summary: 'fails in its step',
      steps: [{ n: 1, title: '1. Fail.', lines: ['The demo stopped: the receiver vanished'] }],
      waiting: false,
      done: true,
    });
    expect(gate.next()).toBe(false);
  });

  it('paces one run only', () => {
    const gate = new DemoGate(webhookRetries);
    gate.begin(createEmulator());
    expect(() => gate.begin(createEmulator())).toThrow('the gate of demo webhook-retries paces one run');
  });

  it('next takes no input, as JSON; the control token guards both routes', async () => {
    const { emulator } = paced(webhookRetries);
    const emu = await emulator;
    const bad = async (init: RequestInit, status: number, codigo: string, caminho?: string) => {
      const response = await emu.fetch('/_emulator/inspector/demo/next', init);
      expect(response.status).toBe(status);
      const body = (await response.json()) as { erro: { codigo: string; caminho?: string } };
      expect([body.erro.codigo, body.erro.caminho]).toEqual([codigo, caminho]);
    };
    await bad(json('{"step": 2}'), 422, 'valor_invalido', 'body.step');
    await bad(json('[]'), 422, 'valor_invalido', 'body');
    await bad(json('{'), 400, 'json_invalido', 'body');
    await bad(
      { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' },
      415,
      'tipo_midia_nao_suportado',
      'header.content-type',
    );
    await bad(json(`{"a":"${'x'.repeat(2000)}"}`), 413, 'corpo_muito_grande', 'body');
    // Nothing was released by the refused calls.
    expect(((await (await emu.fetch('/_emulator/inspector/demo')).json()) as DemoState).steps).toHaveLength(1);

    const guarded = createEmulator({ controlToken: 'demo-control-token-0001' });
    const gate = new DemoGate(webhookRetries);
    gate.begin(guarded);
    void gate.step(1, '1. One.');
    expect((await guarded.fetch('/_emulator/inspector/demo')).status).toBe(401);
    expect((await guarded.fetch('/_emulator/inspector/demo/next', json())).status).toBe(401);
    const auth = { authorization: 'Bearer demo-control-token-0001' };
    expect((await guarded.fetch('/_emulator/inspector/demo', { headers: auth })).status).toBe(200);
    expect(gate.waiting).toBe(true);
  });
});
