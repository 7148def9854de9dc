/** A refused request, 404: a read, change, creation or link naming an id the company does not have. */
import { STALE_FALLBACK, UNKNOWN_UUID, KINDS } from '../../steps.js';
import type { RefusalContext } from '../bad.js';

export async function unknownId(c: RefusalContext): Promise<void> {
  const { r, pick, pick2, variant, refuse, validPatch } = c;
  switch (variant % 5) {
    case 0:
      await refuse({ method: 'GET', path: r.pathOf(KINDS[pick2 % 3]!, UNKNOWN_UUID) }, 404);
      return;
    case 1:
      await refuse(
        {
          method: 'PATCH',
          path: r.pathOf(KINDS[pick2 % 3]!, UNKNOWN_UUID),
          body: validPatch(KINDS[pick2 % 3]!),
          ifMatch: STALE_FALLBACK,
        },
        404,
      );
      return;
    case 2:
      await refuse(
        { method: 'POST', path: '/v1/catalogos', body: { estabelecimento_id: UNKNOWN_UUID, nome: 'X' } },
        404,
      );
      return;
    case 3:
      await refuse(
        { method: 'POST', path: `/v1/catalogos/${UNKNOWN_UUID}/produtos`, body: { origem: 'erp', ncm: '12345678' } },
        404,
      );
      return;
    default: {
      const product = await r.someProduct(pick);
      if (product)
        await refuse(
          { method: 'PUT', path: `/v1/catalogos/${UNKNOWN_UUID}/produtos/${product.id}`, ifMatch: STALE_FALLBACK },
          404,
        );
      return;
    }
  }
}
