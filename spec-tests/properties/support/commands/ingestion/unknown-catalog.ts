/** A refused ingestion request, 404: a start naming a catalog the company does not have. */
import { INGESTOES, UNKNOWN_UUID } from '../../steps.js';
import type { IngestionContext } from '../ingestion.js';

export async function unknownCatalog(c: IngestionContext): Promise<void> {
  const { r, variant, refuse } = c;
  await refuse(
    { method: 'POST', path: INGESTOES, body: r.startBody(UNKNOWN_UUID, variant), key: r.startKey(variant) },
    404,
  );
}
