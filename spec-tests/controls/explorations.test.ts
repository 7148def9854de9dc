/**
 * Explorations told to the emulator over HTTP (/_emulator/explorations): an explorer begins one, tells it each run
 * and its verdict; GET /_emulator/explorations/last and the report show it as it stands. What is not an exploration's
 * run or verdict is refused at the field it names, and a refusal leaves the exploration as it was.
 */
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { world, type World } from '../support/client.js';
import { deployment } from '../support/deployment.js';
import { expectControlError } from '../support/expect.js';

beforeEach((context) => {
  if (deployment !== undefined)
    context.skip("checks the emulator's account of an exploration, which a deployment of the service does not have");
});

const LOST = { target: 'api', method: 'POST', path: '/v1/catalogos', nth: 1, effect: 'loseResponse' } as const;

async function begin(w: World): Promise<string> {
  const begun = await w.controls.raw('POST', '/explorations', { seed: 7, runs: 50, command: 'python3 sync.py' });
  expect(begun.status, begun.text).toBe(201);
  return begun.body.id as string;
}

async function last(w: World): Promise<string> {
  const answer = await w.controls.raw('GET', '/explorations/last');
  expect(answer.status, answer.text).toBe(200);
  return answer.text;
}

describe('/_emulator/explorations', () => {
  it('begun, told its runs and its verdict: the last exploration and the report show it as it stands', async () => {
    const w = await world();
    const id = await begin(w);
    expect(JSON.parse(await last(w))).toEqual({
      id,
      state: 'running',
      seed: 7,
      runsAsked: 50,
      command: 'python3 sync.py',
      told: 0,
      recent: [],
      verdict: null,
    });
    const first = await w.controls.raw('POST', `/explorations/${id}/runs`, {
      phase: 'fault-free',
      plan: [],
      reasons: [],
    });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toEqual({ n: 1, phase: 'fault-free', plan: [], description: 'no faults', reasons: [] });
    const failing = await w.controls.raw('POST', `/explorations/${id}/runs`, {
      phase: 'search',
      plan: [LOST],
      reasons: [{ kind: 'exit', message: 'python3 exited with code 1' }],
    });
    expect(failing.status, failing.text).toBe(201);
    expect(failing.body.description).toBe('loseResponse on the 1st POST /v1/catalogos');
    const verdict = {
      runs: 1,
      passed: 0,
      failure: {
        plan: [LOST],
        shrunkFrom: [LOST],
        reasons: [{ kind: 'exit', message: 'python3 exited with code 1' }],
        findings: [],
        outcomeDiff: ['produtos "A-1": missing'],
        replay: 'catalog-emulator explore --seed 7 --replay PLAN.json -- python3 sync.py',
        faultFree: false,
      },
      incomplete: null,
    };
    const ended = await w.controls.raw('PUT', `/explorations/${id}/verdict`, verdict);
    expect(ended.status, ended.text).toBe(200);
    expect(ended.body).toMatchObject({ id, state: 'failed', told: 2, verdict });
    expect(JSON.parse(await last(w))).toEqual(ended.body);
    const report = await w.controls.raw('GET', `/report?companyId=${w.company.companyId}`);
    expect(report.status, report.text).toBe(200);
    expect(report.body.exploration).toEqual(ended.body);
  });

  it('refuses what is not a run or a verdict at the field it names, an ended or unknown exploration, and changes nothing', async () => {
    const w = await world();
    const id = await begin(w);
    const before = await last(w);
    const run = (body: unknown) => w.controls.raw('POST', `/explorations/${id}/runs`, body);
    expectControlError(
      await run({ phase: 'search', plan: [{ ...LOST, effect: 'explode' }], reasons: [] }),
      422,
      'valor_invalido',
      'body.plan[0].effect',
    );
    expectControlError(await run({ phase: 'later', plan: [], reasons: [] }), 422, 'valor_invalido', 'body.phase');
    expectControlError(
      await run({ phase: 'search', plan: [{ ...LOST, target: 'delivery' }], reasons: [] }),
      422,
      'valor_invalido',
      'body.plan[0].eventType',
    );
    expectControlError(
      await w.controls.raw('POST', '/explorations/exploracao-0/runs', { phase: 'search', plan: [], reasons: [] }),
      404,
      'exploracao_nao_encontrada',
      'path.id',
    );
    expect(await last(w)).toBe(before);
    const verdict = {
      runs: 0,
      passed: 0,
      failure: null,
      incomplete: 'the time limit passed after 0 of the 50 runs asked',
    };
    expect((await w.controls.raw('PUT', `/explorations/${id}/verdict`, verdict)).status).toBe(200);
    const ended = await last(w);
    expect(JSON.parse(ended).state).toBe('incomplete');
    expectControlError(await run({ phase: 'search', plan: [], reasons: [] }), 409, 'exploracao_encerrada', 'path.id');
    expectControlError(
      await w.controls.raw('PUT', `/explorations/${id}/verdict`, verdict),
      409,
      'exploracao_encerrada',
      'path.id',
    );
    expect(await last(w)).toBe(ended);
  });

  it('keeps the last eight begun: the ninth begun, the first is no longer kept, and the last is the ninth', async () => {
    const w = await world();
    const ids: string[] = [];
    for (let n = 0; n < 9; n++) ids.push(await begin(w));
    expectControlError(
      await w.controls.raw('POST', `/explorations/${ids[0]}/runs`, { phase: 'search', plan: [], reasons: [] }),
      404,
      'exploracao_nao_encontrada',
      'path.id',
    );
    const second = await w.controls.raw('POST', `/explorations/${ids[1]}/runs`, {
      phase: 'search',
      plan: [],
      reasons: [],
    });
    expect(second.status, second.text).toBe(201);
    expect(JSON.parse(await last(w)).id).toBe(ids[8]);
  });

  it('any body told as a run is taken (201) or refused (422), never a 5xx, and a refused one changes nothing', async () => {
    const w = await world();
    const id = await begin(w);
    const valid = { phase: 'search', plan: [LOST], reasons: [{ kind: 'outcome', message: 'x' }] };
    // Bodies near a valid one (a field replaced by any JSON) and bodies that are any JSON at all.
    const body = fc.oneof(
      fc.jsonValue(),
      fc
        .constantFrom('phase', 'plan', 'reasons')
        .chain((field) => fc.jsonValue().map((value) => ({ ...valid, [field]: value }))),
      fc.jsonValue().map((value) => ({ ...valid, plan: [{ ...LOST, nth: value }] })),
    );
    await fc.assert(
      fc.asyncProperty(body, async (sent) => {
        const before = await last(w);
        const answer = await w.controls.raw('POST', `/explorations/${id}/runs`, sent);
        if (answer.status === 201) return;
        expect(answer.status, answer.text).toBe(422);
        expect(await last(w)).toBe(before);
      }),
      { numRuns: 60 },
    );
  });
});
