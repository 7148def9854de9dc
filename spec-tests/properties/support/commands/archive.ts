/** Archives an active establishment without catalog (registering one when there is none). */
import fc from 'fast-check';
import type { Runner } from '../runner.js';
import { pick, type StepOf } from '../steps.js';

export const arbitrary = fc.record({ t: fc.constant('archive' as const), pick });

export async function run(r: Runner, step: StepOf<'archive'>): Promise<void> {
  await r.archive(step.pick);
}
