/** A refused request, 413: a body over 1 MiB. */
import type { RefusalContext } from '../bad.js';

export async function tooLarge(c: RefusalContext): Promise<void> {
  const { r, refuse } = c;
  await refuse(
    {
      method: 'POST',
      path: '/v1/estabelecimentos',
      raw: JSON.stringify({ cnpj: r.freeCnpj('0000'), nome: 'x'.repeat(1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    },
    413,
  );
}
