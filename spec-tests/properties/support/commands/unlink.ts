/** Unlinks a linked product from one of its catalogs (DELETE …/produtos/{id}, with `{}` or no body). */
import fc from 'fast-check';
import type { Runner } from '../runner.js';
import { pick, type StepOf } from '../steps.js';

export const arbitrary = fc.record({ t: fc.constant('unlink' as const), pick, pick2: pick });

export async function run(r: Runner, step: StepOf<'unlink'>): Promise<void> {
  const linked = r.products.filter((p) => p.ativo && p.catalogos.length > 0);
  const product = linked[step.pick % Math.max(linked.length, 1)];
  if (!product) return;
  const catalogId = product.catalogos[step.pick2 % product.catalogos.length]!;
  await r.conditional(
    'unlink',
    'product',
    product.id,
    'DELETE',
    `/v1/catalogos/${catalogId}/produtos/${product.id}`,
    step.pick2 % 2 === 0 ? {} : undefined,
  );
}
