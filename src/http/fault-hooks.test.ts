import { describe, expect, it } from 'vitest';
import type { StoredResponse } from '../core/idempotency.js';
import { FaultRegistry, type ApiFault } from '../engine/faults.js';
import { damageOf } from './damage.js';
import { actAt, actsAt, API_FAULT_ACTS } from './fault-hooks.js';

const stored: StoredResponse = { status: 200, body: '{}', etag: '"e"', location: null, headers: null };

/** The fault a registry hands the pipeline for `effect` (taken at the moment its effect is taken). */
function fired(effect: object): ApiFault {
  const registry = new FaultRegistry();
  registry.add({ target: 'api', match: { method: 'PATCH', path: '/v1/produtos/*' }, effect });
  const match = { method: 'PATCH', path: '/v1/produtos/p1', companyId: 'c1' } as const;
  const fault = registry.takeApi(match, 'arrival') ?? registry.takeApi(match, 'evaluation', () => true);
  if (fault === undefined) throw new Error(`no fault fired for ${JSON.stringify(effect)}`);
  return fault;
}

describe('the api fault acts', () => {
  it('give every effect an act at one hook', () => {
    expect(Object.fromEntries(Object.entries(API_FAULT_ACTS).map(([name, row]) => [name, Object.keys(row)]))).toEqual({
      status: ['arrival'],
      delayMs: ['held'],
      concurrentEdit: ['evaluation'],
      loseResponse: ['answered'],
      malformedJson: ['sent'],
      reset: ['sent'],
      truncate: ['sent'],
      trickleMs: ['sent'],
    });
    expect(actsAt(fired({ reset: true }), 'sent')).toBe(true);
    expect(actsAt(fired({ loseResponse: true }), 'sent')).toBe(false);
  });

  it('act only at their own hook', () => {
    const fault = fired({ status: 503, retryAfter: 5 });
    expect(actAt(fault, 'arrival', {})).toEqual({
      status: 503,
      codigo: 'servico_indisponivel',
      mensagem: `Injected fault ${fault.id}: answered 503 before the request was processed; nothing was applied.`,
      headers: { 'x-emulator-fault': fault.id, 'retry-after': '5' },
    });
    expect(actAt(fault, 'answered', { answer: stored })).toBeUndefined();
    expect(actAt(undefined, 'arrival', {})).toBeUndefined();
  });

  it('replace the answer after it was stored (loseResponse), or leave it to the pipeline', () => {
    const lost = fired({ loseResponse: true });
    expect(actAt(lost, 'arrival', {})).toBeUndefined();
    expect(actAt(lost, 'answered', { answer: stored })).toEqual({
      error: {
        status: 503,
        codigo: 'servico_indisponivel',
        mensagem: `Injected fault ${lost.id}: the request was processed, then its answer was lost. Retry it with the same idempotency-key.`,
        headers: { 'x-emulator-fault': lost.id },
      },
    });
    expect(actAt(fired({ delayMs: 10 }), 'answered', { answer: stored })).toBeUndefined();
  });

  it('mark the answer as it leaves with the damage its sender does, and the fault that chose it', async () => {
    const answer = () =>
      new Response('{"id":"p1"}', { status: 200, headers: { 'content-type': 'application/json', etag: '"e"' } });
    for (const [effect, damage] of [
      [{ reset: true }, { kind: 'reset' }],
      [{ truncate: true }, { kind: 'truncate' }],
      [{ trickleMs: 250 }, { kind: 'trickle', ms: 250 }],
    ] as const) {
      const fault = fired(effect);
      const sent = await actAt(fault, 'sent', { response: answer() })!;
      expect(damageOf(sent)).toEqual(damage);
      expect(Object.fromEntries(sent.headers)).toEqual({
        'content-type': 'application/json',
        etag: '"e"',
        'x-emulator-fault': fault.id,
      });
      expect(await sent.text()).toBe('{"id":"p1"}');
    }
    const malformed = fired({ malformedJson: true });
    const sent = await actAt(malformed, 'sent', { response: answer() })!;
    expect(damageOf(sent)).toBeUndefined();
    expect(sent.status).toBe(200);
    expect(Object.fromEntries(sent.headers)).toEqual({
      'content-type': 'application/json',
      etag: '"e"',
      'x-emulator-fault': malformed.id,
      'content-length': '6',
    });
    expect(await sent.text()).toBe('{"id":');
  });
});
