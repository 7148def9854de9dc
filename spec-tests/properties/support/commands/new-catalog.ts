/** Creates the catalog of an active establishment without one (registering an establishment when there is none). */
import fc from 'fast-check';
import type { Runner } from '../runner.js';
import { nome, externalId, pick, type StepOf } from '../steps.js';

export const arbitrary = fc.record({ t: fc.constant('newCatalog' as const), pick, nome, idExterno: externalId });

export async function run(r: Runner, step: StepOf<'newCatalog'>): Promise<void> {
  await r.newCatalog(step.pick, step.nome, step.idExterno);
}
