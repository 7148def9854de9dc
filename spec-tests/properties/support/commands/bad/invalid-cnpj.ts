/** A refused request, 422: a CNPJ with a wrong check digit. */
import type { RefusalContext } from '../bad.js';

export async function invalidCnpj(c: RefusalContext): Promise<void> {
  const { r, variant, refuse } = c;
  const valid = r.freeCnpj('0000');
  const last = Number(valid[13]);
  const invalid = valid.slice(0, 13) + String((last + 1 + (variant % 9)) % 10);
  await refuse({ method: 'POST', path: '/v1/estabelecimentos', body: { cnpj: invalid, nome: 'Inválido' } }, 422);
}
