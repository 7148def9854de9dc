/** A refused ingestion request, 404 (another company's credential). */
import type { Sent } from '../../runner.js';
import { ingestionPath, STALE_FALLBACK } from '../../steps.js';
import type { IngestionContext } from '../ingestion.js';

export async function foreignIngestion(c: IngestionContext): Promise<void> {
  const { r, step, pick2, variant, refuse, anyIngestion } = c;
  const ingestion = await anyIngestion();
  if (!ingestion) return;
  const path = ingestionPath(ingestion.id);
  const sends: Omit<Sent, 'key' | 'as'>[] = [
    { method: 'GET', path },
    { method: 'PUT', path: `${path}/lotes/${1 + (pick2 % 4)}`, body: { itens: r.records(step.records) } },
    { method: 'POST', path: `${path}/fechamento`, body: { total_lotes: 1 } },
    { method: 'POST', path: `${path}/aplicacao`, ifMatch: (r.etags.get(ingestion.id) ?? []).at(-1) ?? STALE_FALLBACK },
  ];
  await refuse({ ...sends[variant % sends.length]!, as: 'other' }, 404);
}
