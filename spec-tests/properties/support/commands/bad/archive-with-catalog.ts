/** A refused request, 409: archiving an establishment that has a catalog. */
import { STALE_FALLBACK } from '../../steps.js';
import type { RefusalContext } from '../bad.js';

export async function archiveWithCatalog(c: RefusalContext): Promise<void> {
  const { r, pick, refuse } = c;
  const catalog = await r.someCatalog(pick);
  if (!catalog) return;
  const etag = await r.read('establishment', catalog.establishmentId, 'read-etag');
  await refuse(
    { method: 'DELETE', path: `/v1/estabelecimentos/${catalog.establishmentId}`, ifMatch: etag ?? STALE_FALLBACK },
    409,
  );
}
