/** A refused ingestion request, 409 ingestao_nao_validada. */
import type { IngestionContext } from '../ingestion.js';

export async function applyNotValidated(c: IngestionContext): Promise<void> {
  const { r, pick, variant, label } = c;
  const others = r.ingestions.filter((i) => i.estado !== 'validada');
  const ingestion = others[pick % Math.max(others.length, 1)] ?? (await r.openIngestion(pick, variant));
  if (!ingestion) return;
  const etag = (await r.readIngestion(ingestion, 'read-etag')).headers.get('etag');
  if (etag !== null && ingestion.estado !== 'validada') await r.apply(label, ingestion, etag, variant, 409);
}
