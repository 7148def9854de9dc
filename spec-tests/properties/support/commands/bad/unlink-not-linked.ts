/** A refused request, 404: unlinking a product from a catalog it is not in. */
import { STALE_FALLBACK } from '../../steps.js';
import type { RefusalContext } from '../bad.js';

export async function unlinkNotLinked(c: RefusalContext): Promise<void> {
  const { r, pick, pick2, refuse } = c;
  const product = await r.someProduct(pick);
  if (!product) return;
  let catalog = r.catalogs.find((c) => !product.catalogos.includes(c.id));
  if (!catalog) {
    await r.newCatalog(pick2, 'Outro', null);
    catalog = r.catalogs.find((c) => !product.catalogos.includes(c.id));
  }
  if (!catalog) return;
  const etag = await r.read('product', product.id, 'read-etag');
  await refuse(
    { method: 'DELETE', path: `/v1/catalogos/${catalog.id}/produtos/${product.id}`, ifMatch: etag ?? STALE_FALLBACK },
    404,
  );
}
