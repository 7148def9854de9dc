/** GETs one page of a collection. */
import fc from 'fast-check';
import type { Runner } from '../runner.js';
import { kind, type StepOf } from '../steps.js';

export const arbitrary = fc.record({ t: fc.constant('list' as const), kind, limite: fc.integer({ min: 1, max: 200 }) });

export async function run(r: Runner, step: StepOf<'list'>): Promise<void> {
  const path =
    step.kind === 'establishment' ? '/v1/estabelecimentos' : step.kind === 'catalog' ? '/v1/catalogos' : '/v1/produtos';
  await r.send('list', { method: 'GET', path: `${path}?limite=${step.limite}`, key: null, as: 'company' });
}
