/** A refused request, 400: a POST whose Idempotency-Key breaks the common key rule. */
import type { RefusalContext } from '../bad.js';

export async function invalidKey(c: RefusalContext): Promise<void> {
  const { r, variant, refuse } = c;
  const keys = ['curta', 'x'.repeat(129), 'chave com espaços e acentos é', 'chave/com/barras/demais'];
  await refuse(
    {
      method: 'POST',
      path: '/v1/estabelecimentos',
      body: { cnpj: r.freeCnpj('0000'), nome: 'Chave' },
      key: keys[variant % keys.length]!,
    },
    400,
  );
}
