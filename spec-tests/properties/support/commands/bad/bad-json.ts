/** A refused request, 400: a body that is not JSON. */
import type { RefusalContext } from '../bad.js';

export async function badJson(c: RefusalContext): Promise<void> {
  const { variant, refuse } = c;
  const texts = ['{', '{"nome":}', "{'nome':'x'}", '{"nome":"x",}', 'undefined', '\u0000'];
  await refuse(
    {
      method: 'POST',
      path: '/v1/estabelecimentos',
      raw: texts[variant % texts.length]!,
      headers: { 'content-type': 'application/json' },
    },
    400,
  );
}
