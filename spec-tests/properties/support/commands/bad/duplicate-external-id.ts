/** A refused request, 409: a product with an id_externo another product holds. */
import type { RefusalContext } from '../bad.js';

export async function duplicateExternalId(c: RefusalContext): Promise<void> {
  const { r, pick, pick2, variant, refuse } = c;
  let holder = r.products.find((p) => p.idExterno !== null);
  if (!holder) {
    await r.newProduct(pick, { origem: 'erp', ncm: '84713012', id_externo: `dup-${variant}` });
    holder = r.products.find((p) => p.idExterno !== null);
  }
  const catalog = await r.someCatalog(pick2);
  if (holder && catalog)
    await refuse(
      {
        method: 'POST',
        path: `/v1/catalogos/${catalog.id}/produtos`,
        body: { origem: 'erp', ncm: '84713012', id_externo: holder.idExterno },
      },
      409,
    );
}
