/** GETs one known resource. */
import fc from 'fast-check';
import type { Runner } from '../runner.js';
import { pick, kind, type StepOf } from '../steps.js';

export const arbitrary = fc.record({ t: fc.constant('read' as const), kind, pick });

export async function run(r: Runner, step: StepOf<'read'>): Promise<void> {
  const list = r.listOf(step.kind);
  const item = list[step.pick % Math.max(list.length, 1)];
  if (item) await r.read(step.kind, item.id);
}
