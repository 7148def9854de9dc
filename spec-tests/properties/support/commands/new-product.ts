/** Creates a product in some catalog, with an id_externo no other product holds. */
import fc from 'fast-check';
import type { Runner } from '../runner.js';
import { newProductFields, pick, type StepOf } from '../steps.js';

export const arbitrary = fc.record({ t: fc.constant('newProduct' as const), pick, fields: newProductFields });

export async function run(r: Runner, step: StepOf<'newProduct'>): Promise<void> {
  await r.newProduct(step.pick, step.fields);
}
