/** A refused ingestion request, 409 ingestao_fechada. */
import type { IngestionContext } from '../ingestion.js';

export async function batchAfterClose(c: IngestionContext): Promise<void> {
  const { r, step, pick, pick2, variant, label } = c;
  const ingestion = await r.closedIngestion(pick, variant);
  if (ingestion) await r.putBatch(label, ingestion, 1 + (pick2 % 4), r.records(step.records), { expected: 409 });
}
