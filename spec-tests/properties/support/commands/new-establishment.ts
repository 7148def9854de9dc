/** Registers an establishment under the company root (a CNPJ no establishment has yet). */
import fc from 'fast-check';
import { order4 } from '../../../support/cnpj.js';
import type { Runner } from '../runner.js';
import { nome, externalId, type StepOf } from '../steps.js';

export const arbitrary = fc.record({
  t: fc.constant('newEstablishment' as const),
  order: order4,
  nome,
  idExterno: externalId,
});

export async function run(r: Runner, step: StepOf<'newEstablishment'>): Promise<void> {
  await r.newEstablishment(step.order, step.nome, step.idExterno);
}
