/** A refused request, 409: a second catalog for an establishment that has one. */
import type { RefusalContext } from '../bad.js';

export async function secondCatalog(c: RefusalContext): Promise<void> {
  const { r, pick, refuse } = c;
  const catalog = await r.someCatalog(pick);
  if (catalog)
    await refuse(
      { method: 'POST', path: '/v1/catalogos', body: { estabelecimento_id: catalog.establishmentId, nome: 'Segundo' } },
      409,
    );
}
