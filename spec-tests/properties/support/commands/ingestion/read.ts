/** Ingestion: reads an ingestion (with a limite for its preview errors). */
import type { IngestionContext } from '../ingestion.js';

export async function read(c: IngestionContext): Promise<void> {
  const { r, pick, variant, label } = c;
  const ingestion = r.ingestions[pick % Math.max(r.ingestions.length, 1)];
  if (ingestion) await r.readIngestion(ingestion, label, `?limite=${1 + (variant % 1000)}`);
}
