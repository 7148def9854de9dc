/** PATCHes an active establishment's nome or id_externo (If-Match read first). */
import fc from 'fast-check';
import type { Runner } from '../runner.js';
import { nameChanges, pick, type StepOf } from '../steps.js';

export const arbitrary = fc.record({ t: fc.constant('editEstablishment' as const), pick, changes: nameChanges });

export async function run(r: Runner, step: StepOf<'editEstablishment'>): Promise<void> {
  const active = r.establishments.filter((e) => e.estado === 'ativo');
  const establishment = active[step.pick % Math.max(active.length, 1)];
  if (establishment)
    await r.conditional(
      'editEstablishment',
      'establishment',
      establishment.id,
      'PATCH',
      `/v1/estabelecimentos/${establishment.id}`,
      step.changes,
    );
}
