import { describe, expect, it } from 'vitest';
import type { StoredResponse } from '../core/idempotency.js';
import { FaultRegistry, type ApiFault } from '../engine/faults.js';
import { actAt, API_FAULT_ACTS } from './fault-hooks.js';

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
    });
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
      error: { status: 503, codigo: 'servico_indisponivel', mensagem: `Injected fault ${lost.id}: the request was processed, then its answer was lost. Retry it with the same idempotency-key.`, headers: { 'x-emulator-fault': lost.id } },
    });
    expect(actAt(fired({ delayMs: 10 }), 'answered', { answer: stored })).toBeUndefined();
  });
});
