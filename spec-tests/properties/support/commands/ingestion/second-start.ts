/** A refused ingestion request, 409 ingestao_em_andamento. */
import { OPEN_INGESTION, INGESTOES } from '../../steps.js';
import type { IngestionContext } from '../ingestion.js';

export async function secondStart(c: IngestionContext): Promise<void> {
  const { r, pick, variant, refuse } = c;
  const held = r.ingestions.filter((i) => OPEN_INGESTION.includes(i.estado));
  const open = held[pick % Math.max(held.length, 1)] ?? (await r.openIngestion(pick, variant));
  if (!open) return;
  const implicit = variant % 2 === 0 && open.catalogId === r.headOfficeCatalogId();
  await refuse(
    {
      method: 'POST',
      path: INGESTOES,
      body: r.startBody(implicit ? undefined : open.catalogId, variant >> 1),
      key: r.startKey(variant),
    },
    409,
  );
}
