/** Ingestion: starts an ingestion in a free catalog. */
import type { IngestionContext } from '../ingestion.js';

export async function start(c: IngestionContext): Promise<void> {
  const { r, pick, variant } = c;
  await r.start(pick, variant);
}
