/** A refused request, 422: a CNPJ under another company's root. */
import { cnpjOf } from '../../../../support/cnpj.js';
import type { RefusalContext } from '../bad.js';

export async function foreignRoot(c: RefusalContext): Promise<void> {
  const { r, refuse } = c;
  await refuse(
    {
      method: 'POST',
      path: '/v1/estabelecimentos',
      body: { cnpj: cnpjOf(r.others.otherRoot, '0002'), nome: 'Outra raiz' },
    },
    422,
  );
}
