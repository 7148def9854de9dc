/** Ingestion: batches in any order; a number already received is sent again with the same content (200). */
import type { IngestionContext } from '../ingestion.js';

export async function batch(c: IngestionContext): Promise<void> {
  const { r, step, pick, pick2, variant, label } = c;
  const ingestion = await r.openIngestion(pick, variant);
  if (!ingestion) return;
  const numero = 1 + (pick2 % 4);
  await r.putBatch(label, ingestion, numero, ingestion.batches.get(numero) ?? r.records(step.records));
}
