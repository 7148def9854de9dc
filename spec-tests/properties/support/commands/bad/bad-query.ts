/** A refused request, 422: a list with an invalid query. */
import type { RefusalContext } from '../bad.js';

export async function badQuery(c: RefusalContext): Promise<void> {
  const { variant, refuse } = c;
  const paths = [
    '/v1/catalogos?limite=0',
    '/v1/estabelecimentos?limite=201',
    '/v1/produtos?limite=abc',
    '/v1/catalogos?apos_id=nao-e-uuid',
    '/v1/estabelecimentos?estado=excluido',
    '/v1/catalogos?limite=1&limite=2',
    '/v1/empresa?x=1',
  ];
  await refuse({ method: 'GET', path: paths[variant % paths.length]! }, 422);
}
