/** A refused ingestion request, 428: an application without If-Match. */
import type { IngestionContext } from '../ingestion.js';

export async function applyWithoutIfMatch(c: IngestionContext): Promise<void> {
  const { r, pick, variant, label, anyIngestion } = c;
  const ingestion = variant % 2 === 0 ? await r.validatedIngestion(pick, variant) : await anyIngestion();
  if (ingestion) await r.apply(label, ingestion, undefined, variant, 428);
}
