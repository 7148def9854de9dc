/** A refused request, 422: an earlier POST's Idempotency-Key with another request. */
import { COMMON_KEY } from '../../steps.js';
import type { RefusalContext } from '../bad.js';

export async function reuseKey(c: RefusalContext): Promise<void> {
  const { r, pick, variant, refuse } = c;
  const done = r.log.filter(
    (e) => e.sent.key !== null && COMMON_KEY.test(e.sent.key) && e.answer.status < 300 && e.sent.method === 'POST',
  );
  const earlier = done[pick % Math.max(done.length, 1)];
  if (!earlier || earlier.sent.key === null) return;
  await refuse(
    {
      method: 'POST',
      path: '/v1/estabelecimentos',
      body: { cnpj: r.freeCnpj('0000'), nome: `Outra ${variant}` },
      key: earlier.sent.key,
    },
    422,
  );
}
