/** A refused request, 404: another company's credential reading or changing the company's resource. */
import { STALE_FALLBACK, KINDS } from '../../steps.js';
import type { RefusalContext } from '../bad.js';

export async function otherCompany(c: RefusalContext): Promise<void> {
  const { r, pick2, variant, refuse, validPatch, resourceOf } = c;
  const kind = KINDS[variant % 3]!;
  const item = await resourceOf(kind);
  if (!item) return;
  const etag = await r.read(kind, item.id, 'read-etag');
  if (pick2 % 2 === 0) await refuse({ method: 'GET', path: r.pathOf(kind, item.id), as: 'other' }, 404);
  else
    await refuse(
      {
        method: 'PATCH',
        path: r.pathOf(kind, item.id),
        body: validPatch(kind),
        ifMatch: etag ?? STALE_FALLBACK,
        as: 'other',
      },
      404,
    );
}
