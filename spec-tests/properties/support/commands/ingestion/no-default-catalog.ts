/** A refused ingestion request, 422 catalogo_padrao_ausente (only while the head office has no catalog). */
import { INGESTOES } from '../../steps.js';
import type { IngestionContext } from '../ingestion.js';

export async function noDefaultCatalog(c: IngestionContext): Promise<void> {
  const { r, variant, refuse } = c;
  if (r.headOfficeCatalogId() === null)
    await refuse(
      { method: 'POST', path: INGESTOES, body: r.startBody(undefined, variant), key: r.startKey(variant) },
      422,
    );
}
