/**
 * A refused ingestion request, 412: an application under an ETag the ingestion had before.
 * (Before its last batch, its close or its validation.)
 */
import { STALE_FALLBACK } from '../../steps.js';
import type { IngestionContext } from '../ingestion.js';

export async function staleApply(c: IngestionContext): Promise<void> {
  const { r, step, pick, pick2, variant, label } = c;
  const ingestion =
    variant % 2 === 0
      ? await r.validatedIngestion(pick, variant)
      : await r.openIngestionWithBatch(pick, variant, step.records);
  if (!ingestion) return;
  const current = (await r.readIngestion(ingestion, 'read-etag')).headers.get('etag');
  const seen = (r.etags.get(ingestion.id) ?? []).filter((e) => e !== current);
  await r.apply(label, ingestion, seen[pick2 % Math.max(seen.length, 1)] ?? STALE_FALLBACK, variant, 412);
}
