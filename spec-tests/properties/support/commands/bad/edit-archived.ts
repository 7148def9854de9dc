/** A refused request, 409: changing or archiving an archived establishment. */
import { STALE_FALLBACK } from '../../steps.js';
import type { RefusalContext } from '../bad.js';

export async function editArchived(c: RefusalContext): Promise<void> {
  const { r, pick, variant, refuse } = c;
  let archived = r.establishments.find((e) => e.estado === 'arquivado');
  if (!archived) {
    await r.archive(pick);
    archived = r.establishments.find((e) => e.estado === 'arquivado');
  }
  if (!archived) return;
  const etag = await r.read('establishment', archived.id, 'read-etag');
  await refuse(
    {
      method: variant % 2 === 0 ? 'PATCH' : 'DELETE',
      path: `/v1/estabelecimentos/${archived.id}`,
      ...(variant % 2 === 0 ? { body: { nome: 'Arquivado' } } : {}),
      ifMatch: etag ?? STALE_FALLBACK,
    },
    409,
  );
}
