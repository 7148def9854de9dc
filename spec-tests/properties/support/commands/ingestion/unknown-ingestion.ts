/** A refused ingestion request, 404: a read, batch, close or application naming an unknown ingestion. */
import type { Sent } from '../../runner.js';
import { ingestionPath, STALE_FALLBACK, UNKNOWN_UUID } from '../../steps.js';
import type { IngestionContext } from '../ingestion.js';

export async function unknownIngestion(c: IngestionContext): Promise<void> {
  const { r, step, variant, refuse } = c;
  const path = ingestionPath(UNKNOWN_UUID);
  const sends: Omit<Sent, 'key' | 'as'>[] = [
    { method: 'GET', path },
    { method: 'PUT', path: `${path}/lotes/1`, body: { itens: r.records(step.records) } },
    { method: 'POST', path: `${path}/fechamento`, body: { total_lotes: 1 } },
    { method: 'POST', path: `${path}/aplicacao`, body: {}, ifMatch: STALE_FALLBACK },
  ];
  await refuse(sends[variant % sends.length]!, 404);
}
