/** A refused request, 400: a POST without Idempotency-Key. */
import type { RefusalContext } from '../bad.js';

export async function missingKey(c: RefusalContext): Promise<void> {
  const { r, refuse } = c;
  await refuse(
    { method: 'POST', path: '/v1/estabelecimentos', body: { cnpj: r.freeCnpj('0000'), nome: 'Sem chave' }, key: null },
    400,
  );
}
