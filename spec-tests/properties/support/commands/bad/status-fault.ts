/** A refused request, the injected status: an api fault answers the next establishment registration with it. */
import type { RefusalContext } from '../bad.js';

export async function statusFault(c: RefusalContext): Promise<void> {
  const { r, variant, refuse } = c;
  const statuses = [400, 401, 403, 404, 408, 409, 422, 429, 503];
  const status = statuses[variant % statuses.length]!;
  r.emu.faults.add({
    target: 'api',
    match: { method: 'POST', path: '/v1/estabelecimentos', companyId: r.company.companyId },
    effect: { status, retryAfter: 1 },
    times: 1,
  });
  await refuse(
    { method: 'POST', path: '/v1/estabelecimentos', body: { cnpj: r.freeCnpj('0000'), nome: 'Com falha' } },
    status,
  );
}
