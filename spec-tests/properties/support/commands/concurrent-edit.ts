/** A change under a concurrentEdit fault: someone else saves the resource first, so it answers 412. */
import fc from 'fast-check';
import type { Runner } from '../runner.js';
import { pick, kind, type StepOf } from '../steps.js';

export const arbitrary = fc.record({ t: fc.constant('concurrentEdit' as const), kind, pick });

export async function run(r: Runner, step: StepOf<'concurrentEdit'>): Promise<void> {
  const item = await r.resourceOf(step.kind, step.pick);
  if (!item) return;
  const etag = await r.read(step.kind, item.id, 'read-etag');
  if (etag === undefined) return;
  r.emu.faults.add({
    target: 'api',
    match: { method: 'PATCH', path: r.pathOf(step.kind, item.id), companyId: r.company.companyId },
    effect: { concurrentEdit: true },
    times: 1,
  });
  const body = step.kind === 'product' ? { sku: `sku-${step.pick}` } : { nome: `Nome ${step.pick}` };
  await r.send(
    'concurrentEdit',
    {
      method: 'PATCH',
      path: r.pathOf(step.kind, item.id),
      body,
      key: r.nextKey(),
      ifMatch: etag,
      as: 'company',
      concurrentEdit: true,
    },
    { expected: 412 },
  );
  await r.read(step.kind, item.id, 'read-after-concurrent-edit');
}
