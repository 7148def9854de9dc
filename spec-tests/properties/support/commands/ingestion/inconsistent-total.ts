/** A refused ingestion request, 422 total_lotes_inconsistente. */
import type { IngestionContext } from '../ingestion.js';

export async function inconsistentTotal(c: IngestionContext): Promise<void> {
  const { r, step, pick, variant, label } = c;
  const ingestion = await r.openIngestion(pick, variant);
  if (!ingestion) return;
  if (r.highest(ingestion) < 2)
    await r.putBatch('ingestion:batch', ingestion, 2 + (variant % 3), r.records(step.records));
  const highest = r.highest(ingestion);
  if (highest >= 2) await r.close(label, ingestion, highest - 1 - (variant % (highest - 1)), 422);
}
