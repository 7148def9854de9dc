/** PATCHes an active product (If-Match read first), keeping id_externo unique. */
import fc from 'fast-check';
import type { Runner } from '../runner.js';
import { productChanges, pick, type StepOf } from '../steps.js';

export const arbitrary = fc.record({ t: fc.constant('editProduct' as const), pick, changes: productChanges });

export async function run(r: Runner, step: StepOf<'editProduct'>): Promise<void> {
  const product = await r.someProduct(step.pick);
  if (!product) return;
  const changes = {
    ...step.changes,
    ...(step.changes.id_externo === undefined
      ? {}
      : { id_externo: r.freeProductExternalId(step.changes.id_externo, product.id) }),
  };
  await r.conditional('editProduct', 'product', product.id, 'PATCH', `/v1/produtos/${product.id}`, changes);
}
