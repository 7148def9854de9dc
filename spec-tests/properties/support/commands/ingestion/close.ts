/** Ingestion: closes an aberta ingestion; sometimes declaring one batch more than received, so it is then rejected (lotes_faltantes). */
import type { IngestionContext } from '../ingestion.js';

export async function close(c: IngestionContext): Promise<void> {
  const { r, pick, variant, label } = c;
  const ingestion = await r.openIngestion(pick, variant);
  if (ingestion) await r.close(label, ingestion, Math.max(1, r.highest(ingestion)) + (variant % 3 === 0 ? 1 : 0));
}
