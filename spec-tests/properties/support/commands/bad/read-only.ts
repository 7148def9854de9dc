/** A refused request, 403: a creation with a read-only credential. */
import type { RefusalContext } from '../bad.js';

export async function readOnly(c: RefusalContext): Promise<void> {
  const { r, pick, variant, refuse } = c;
  const establishment = r.establishments[pick % r.establishments.length]!;
  if (variant % 2 === 0)
    await refuse(
      {
        method: 'POST',
        path: '/v1/catalogos',
        body: { estabelecimento_id: establishment.id, nome: 'X' },
        as: 'readOnly',
      },
      403,
    );
  else
    await refuse(
      { method: 'POST', path: '/v1/estabelecimentos', body: { cnpj: r.freeCnpj('0000'), nome: 'X' }, as: 'readOnly' },
      403,
    );
}
