/** PATCHes a catalog's nome or id_externo (If-Match read first). */
import fc from 'fast-check';
import type { Runner } from '../runner.js';
import { nameChanges, pick, type StepOf } from '../steps.js';

export const arbitrary = fc.record({ t: fc.constant('editCatalog' as const), pick, changes: nameChanges });

export async function run(r: Runner, step: StepOf<'editCatalog'>): Promise<void> {
  const catalog = await r.someCatalog(step.pick);
  if (catalog)
    await r.conditional('editCatalog', 'catalog', catalog.id, 'PATCH', `/v1/catalogos/${catalog.id}`, step.changes);
}
