/** Ingestion: applies a validada ingestion under its current ETag. */
import type { IngestionContext } from '../ingestion.js';

export async function apply(c: IngestionContext): Promise<void> {
  const { r, pick, variant, label } = c;
  const ingestion = await r.validatedIngestion(pick, variant);
  if (!ingestion) return;
  const read = await r.readIngestion(ingestion, 'read-etag');
  if (read.status === 200 && ingestion.estado === 'validada')
    await r.apply(label, ingestion, read.headers.get('etag')!, variant);
}
