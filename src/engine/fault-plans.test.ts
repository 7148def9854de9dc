import { describe, expect, it } from 'vitest';
import {
  armedFault,
  describePlan,
  effectsFor,
  isFaultPlan,
  jobCounts,
  pathGlob,
  PLAN_EFFECT_NAMES,
  slotsOf,
} from './fault-plans.js';

const ID = '019b76da-a800-7520-a337-1f12323dcd57';

describe('fault plans', () => {
  it('a path glob has a * for each id, and nothing else changed', () => {
    expect(pathGlob(`/v1/catalogos/${ID}/produtos/${ID}`)).toBe('/v1/catalogos/*/produtos/*');
    expect(pathGlob('/v1/catalogos/ingestoes')).toBe('/v1/catalogos/ingestoes');
  });

  it('a GET takes only the effects on its answer; a write also a lost answer; an If-Match operation also a concurrent edit', () => {
    expect(effectsFor('GET', '/v1/produtos', PLAN_EFFECT_NAMES)).toEqual([
      'status503',
      'status429',
      'reset',
      'truncate',
      'malformedJson',
    ]);
    expect(effectsFor('POST', '/v1/catalogos', PLAN_EFFECT_NAMES)).not.toContain('concurrentEdit');
    expect(effectsFor('POST', '/v1/catalogos', PLAN_EFFECT_NAMES)).toContain('loseResponse');
    expect(effectsFor('PATCH', '/v1/produtos/*', PLAN_EFFECT_NAMES)).toContain('concurrentEdit');
    // The ingestion's application takes If-Match, but no other client's save can make it stale.
    expect(effectsFor('POST', '/v1/catalogos/ingestoes/*/aplicacao', PLAN_EFFECT_NAMES)).not.toContain(
      'concurrentEdit',
    );
    // Another client's save of the webhook destination makes a secret only that client is shown: no receiver could
    // verify a delivery after it, so a plan never puts one there.
    expect(effectsFor('POST', '/v1/webhook/testes', PLAN_EFFECT_NAMES)).not.toContain('concurrentEdit');
    expect(effectsFor('GET', '/v1/produtos', ['loseResponse'])).toEqual([]);
  });

  it('each request of the run is a slot: the n-th of its method and path glob', () => {
    const slots = slotsOf(
      [
        { method: 'POST', path: `/v1/catalogos/${ID}/produtos` },
        { method: 'GET', path: '/v1/produtos' },
        { method: 'POST', path: '/v1/catalogos/019b76da-a800-7520-a337-1f12323dcd58/produtos' },
      ],
      [],
      ['loseResponse'],
    );
    expect(slots).toEqual([
      { target: 'api', method: 'POST', path: '/v1/catalogos/*/produtos', nth: 1, effects: ['loseResponse'] },
      { target: 'api', method: 'POST', path: '/v1/catalogos/*/produtos', nth: 2, effects: ['loseResponse'] },
    ]);
  });

  it('each delivery attempt of the run is a slot, after the requests: the n-th of its event type', () => {
    const slots = slotsOf(
      [{ method: 'GET', path: '/v1/webhook' }],
      [
        { eventType: 'catalogo.aplicado', attempts: 1 },
        { eventType: 'webhook.teste', attempts: 2 },
      ],
      ['status503', 'duplicate', 'reset'],
    );
    expect(slots).toEqual([
      { target: 'api', method: 'GET', path: '/v1/webhook', nth: 1, effects: ['status503', 'reset'] },
      { target: 'delivery', eventType: 'catalogo.aplicado', nth: 1, effects: ['reset', 'duplicate'] },
      { target: 'delivery', eventType: 'webhook.teste', nth: 1, effects: ['reset', 'duplicate'] },
      { target: 'delivery', eventType: 'webhook.teste', nth: 2, effects: ['reset', 'duplicate'] },
    ]);
    // Without a delivery effect allowed, deliveries are no slots.
    expect(slotsOf([], [{ eventType: 'webhook.teste', attempts: 3 }], ['loseResponse'])).toEqual([]);
  });

  it("a job's runs are counted by the effect that acts on them, and each is a slot of that effect alone", () => {
    // An analysis is postponed at its start and fails at its end; an ingestion's validation and application each
    // take either; a task no job fault reaches is not counted.
    const counts = jobCounts(['analise.inicio', 'analise.fim', 'analise.inicio', 'ingestao.validacao', 'no.such.task']);
    expect(counts).toEqual([
      { kind: 'analise', effect: 'delay', runs: 2 },
      { kind: 'analise', effect: 'fail', runs: 1 },
      { kind: 'ingestao', effect: 'delay', runs: 1 },
      { kind: 'ingestao', effect: 'fail', runs: 1 },
    ]);
    expect(slotsOf([], [], ['fail'], counts)).toEqual([
      { target: 'job', kind: 'analise', nth: 1, effects: ['fail'] },
      { target: 'job', kind: 'ingestao', nth: 1, effects: ['fail'] },
    ]);
    expect(armedFault({ target: 'job', kind: 'analise', nth: 2, effect: 'delay' }, 'c1')).toEqual({
      target: 'job',
      match: { kind: 'analise', companyId: 'c1' },
      effect: { delayMs: 600_000 },
      skip: 1,
      times: 1,
    });
    expect(describePlan([{ target: 'job', kind: 'analise', nth: 1, effect: 'fail' }])).toBe(
      'fail on the 1st run of the analise job',
    );
    expect(isFaultPlan([{ target: 'job', kind: 'analise', nth: 1, effect: 'fail' }])).toBe(true);
    expect(isFaultPlan([{ target: 'job', kind: 'analise', nth: 1, effect: 'timeout' }])).toBe(false);
    expect(isFaultPlan([{ target: 'job', kind: 'limpeza', nth: 1, effect: 'fail' }])).toBe(false);
  });

  it('a planned fault is armed for its company alone, letting nth − 1 matching requests pass, once', () => {
    expect(
      armedFault({ target: 'api', method: 'PATCH', path: '/v1/produtos/*', nth: 3, effect: 'status503' }, 'c1'),
    ).toEqual({
      target: 'api',
      match: { method: 'PATCH', path: '/v1/produtos/*', companyId: 'c1' },
      effect: { status: 503, retryAfter: 1 },
      skip: 2,
      times: 1,
    });
    expect(armedFault({ target: 'delivery', eventType: 'webhook.teste', nth: 2, effect: 'tamper' }, 'c1')).toEqual({
      target: 'delivery',
      match: { eventType: 'webhook.teste', companyId: 'c1' },
      effect: { tamper: 'signature' },
      skip: 1,
      times: 1,
    });
  });

  it('says a plan in one line, and knows a plan from what is not one', () => {
    const plan = [
      { target: 'api', method: 'POST', path: '/v1/catalogos', nth: 1, effect: 'loseResponse' },
      { target: 'api', method: 'GET', path: '/v1/produtos', nth: 12, effect: 'status503' },
      { target: 'delivery', eventType: 'webhook.teste', nth: 2, effect: 'duplicate' },
    ] as const;
    expect(describePlan(plan)).toBe(
      'loseResponse on the 1st POST /v1/catalogos; status503 on the 12th GET /v1/produtos; duplicate on the 2nd delivery of webhook.teste',
    );
    expect(describePlan([])).toBe('no faults');
    expect(isFaultPlan(plan)).toBe(true);
    for (const wrong of [
      {},
      [{ ...plan[0], nth: 0 }],
      [{ ...plan[0], effect: 'explode' }],
      [{ ...plan[0], path: 'x' }],
      // An api effect on a delivery, a delivery effect on a request, an event type the service has not.
      [{ ...plan[2], effect: 'loseResponse' }],
      [{ ...plan[0], effect: 'duplicate' }],
      [{ ...plan[2], eventType: 'produto.criado' }],
    ])
      expect(isFaultPlan(wrong)).toBe(false);
  });
});
