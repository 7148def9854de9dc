/** Links an active product to a catalog (PUT …/produtos/{id}, with `{}` or no body). */
import fc from 'fast-check';
import type { Runner } from '../runner.js';
import { pick, type StepOf } from '../steps.js';

export const arbitrary = fc.record({ t: fc.constant('link' as const), pick, pick2: pick });

export async function run(r: Runner, step: StepOf<'link'>): Promise<void> {
  const product = await r.someProduct(step.pick);
  const catalog = await r.someCatalog(step.pick2);
  if (product && catalog)
    await r.conditional(
      'link',
      'product',
      product.id,
      'PUT',
      `/v1/catalogos/${catalog.id}/produtos/${product.id}`,
      step.pick2 % 2 === 0 ? {} : undefined,
    );
}
