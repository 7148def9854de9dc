/** A refused request, 415: a body that is not application/json. */
import type { RefusalContext } from '../bad.js';

export async function unsupportedMedia(c: RefusalContext): Promise<void> {
  const { r, variant, refuse } = c;
  await refuse(
    {
      method: 'POST',
      path: '/v1/estabelecimentos',
      raw: JSON.stringify({ cnpj: r.freeCnpj('0000'), nome: 'Texto' }),
      headers: { 'content-type': variant % 2 === 0 ? 'text/plain' : 'application/x-www-form-urlencoded' },
    },
    415,
  );
}
