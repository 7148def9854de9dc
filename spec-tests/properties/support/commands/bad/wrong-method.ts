/** A refused request, 405: a method the route does not take. */
import type { RefusalContext } from '../bad.js';

export async function wrongMethod(c: RefusalContext): Promise<void> {
  const { variant, refuse } = c;
  const cases: [string, string][] = [
    ['PATCH', '/v1/catalogos'],
    ['DELETE', '/v1/produtos'],
    ['POST', '/v1/empresa'],
    ['PUT', '/v1/estabelecimentos'],
  ];
  const [method, path] = cases[variant % cases.length]!;
  await refuse({ method, path, body: {} }, 405);
}
