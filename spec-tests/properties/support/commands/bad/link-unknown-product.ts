/** A refused request, 404: linking a product the company does not have. */
import { STALE_FALLBACK, UNKNOWN_UUID } from '../../steps.js';
import type { RefusalContext } from '../bad.js';

export async function linkUnknownProduct(c: RefusalContext): Promise<void> {
  const { r, pick, refuse } = c;
  const catalog = await r.someCatalog(pick);
  if (catalog)
    await refuse(
      { method: 'PUT', path: `/v1/catalogos/${catalog.id}/produtos/${UNKNOWN_UUID}`, ifMatch: STALE_FALLBACK },
      404,
    );
}
