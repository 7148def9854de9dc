/** A refused request, 422: a list with an unreadable or foreign cursor, or an unknown apos_id. */
import { UNKNOWN_UUID } from '../../steps.js';
import type { RefusalContext } from '../bad.js';

export async function badCursor(c: RefusalContext): Promise<void> {
  const { r, pick, variant, refuse } = c;
  const catalog = await r.someCatalog(pick);
  const paths = [
    '/v1/produtos?cursor=nao-e-cursor',
    `/v1/catalogos?apos_id=${UNKNOWN_UUID}`,
    `/v1/estabelecimentos?apos_id=${UNKNOWN_UUID}`,
  ];
  if (catalog)
    paths.push(
      `/v1/catalogos/${catalog.id}/produtos?cursor=${Buffer.from(JSON.stringify([1, r.company.companyId, 'produtos', 1])).toString('base64url')}`,
    );
  await refuse({ method: 'GET', path: paths[variant % paths.length]! }, 422);
}
