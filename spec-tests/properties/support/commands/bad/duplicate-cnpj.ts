/** A refused request, 409: registering a CNPJ an establishment already has. */
import type { RefusalContext } from '../bad.js';

export async function duplicateCnpj(c: RefusalContext): Promise<void> {
  const { r, pick, refuse } = c;
  const establishment = r.establishments[pick % r.establishments.length]!;
  await refuse(
    { method: 'POST', path: '/v1/estabelecimentos', body: { cnpj: establishment.cnpj, nome: 'Duplicado' } },
    409,
  );
}
