/** A refused request, 404: a path no route has. */
import type { RefusalContext } from '../bad.js';

export async function unknownRoute(c: RefusalContext): Promise<void> {
  const { variant, refuse } = c;
  await refuse(
    { method: 'POST', path: variant % 2 === 0 ? '/v1/catalogo' : '/v1/estabelecimentos/x/y', body: {} },
    404,
  );
}
