/** A refused ingestion request, 409 ingestao_fechada. */
import type { IngestionContext } from '../ingestion.js';

export async function closeClosed(c: IngestionContext): Promise<void> {
  const { r, pick, variant, label } = c;
  const ingestion = await r.closedIngestion(pick, variant);
  if (ingestion) await r.close(label, ingestion, Math.max(1, r.highest(ingestion)), 409);
}
