/** A refused request, 401: a request without credential. */
import type { RefusalContext } from '../bad.js';

export async function noCredential(c: RefusalContext): Promise<void> {
  const { r, variant, refuse } = c;
  await refuse(
    {
      method: variant % 2 === 0 ? 'GET' : 'POST',
      path: '/v1/estabelecimentos',
      ...(variant % 2 === 0 ? {} : { body: { cnpj: r.freeCnpj('0000'), nome: 'X' } }),
      as: 'none',
    },
    401,
  );
}
