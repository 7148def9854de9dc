/** Moves the clock by at most `maxMs` (what ran on it is read back into the model). */
import fc from 'fast-check';
import type { Runner } from '../runner.js';
import { type StepOf } from '../steps.js';

export const arbitrary = (maxMs: number) =>
  fc.record({ t: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: maxMs }) });

export async function run(r: Runner, step: StepOf<'advance'>): Promise<void> {
  await r.advance(step.ms);
}
