/**
 * Random call sequences for the stateful properties. A sequence is a list of abstract steps whose targets
 * are picks (natural numbers) resolved against what exists when the step runs, so every generated sequence
 * is runnable and shrinks well. A Runner (runner.ts) executes steps over HTTP against one emulator, keeps a
 * small model of the company's resources (taken from the answers), and logs every exchange; each step is a
 * command (commands/, one file each: its arbitrary, its requests, what it reads into the model).
 *
 * Valid steps always send a request the contract accepts (reading the current ETag first when one is
 * needed); bad steps send a request the contract refuses, each with the status it must get.
 *
 * This file is what the properties use: the steps' mixes, with their weights.
 */
import fc from 'fast-check';
import { arbitraries } from './commands/index.js';
import type { Step } from './steps.js';

export { arbitraries };
export { Runner } from './runner.js';
export type { Kind, Step } from './steps.js';

/** Valid mutations only (the idempotent-replay property). */
export const mutationStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: arbitraries.newEstablishment },
  { weight: 3, arbitrary: arbitraries.newCatalog },
  { weight: 5, arbitrary: arbitraries.newProduct },
  { weight: 4, arbitrary: arbitraries.editProduct },
  { weight: 2, arbitrary: arbitraries.editCatalog },
  { weight: 2, arbitrary: arbitraries.editEstablishment },
  { weight: 3, arbitrary: arbitraries.link },
  { weight: 3, arbitrary: arbitraries.unlink },
  { weight: 1, arbitrary: arbitraries.archive },
);

/** Valid steps: mutations, reads and clock moves (at most `maxAdvanceMs` each). */
function validStep(maxAdvanceMs: number): fc.Arbitrary<Step> {
  return fc.oneof(
    { weight: 12, arbitrary: mutationStep },
    { weight: 4, arbitrary: arbitraries.read },
    { weight: 1, arbitrary: arbitraries.list },
    { weight: 1, arbitrary: arbitraries.advance(maxAdvanceMs) },
  );
}

/** Valid and refused steps, mixed; with `concurrentEdits`, also changes that lose to a simulated concurrent edit. */
export function mixedStep(maxAdvanceMs: number, options: { concurrentEdits?: boolean } = {}): fc.Arbitrary<Step> {
  const steps: fc.WeightedArbitrary<Step>[] = [
    { weight: 3, arbitrary: validStep(maxAdvanceMs) },
    { weight: 2, arbitrary: arbitraries.bad },
  ];
  if (options.concurrentEdits) steps.push({ weight: 1, arbitrary: arbitraries.concurrentEdit });
  steps.push({ weight: 2, arbitrary: arbitraries.ingestion });
  return fc.oneof(...steps);
}
