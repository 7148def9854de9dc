/** A refused request, 400: If-Match and If-None-Match together. */
import { STALE_FALLBACK, KINDS } from '../../steps.js';
import type { RefusalContext } from '../bad.js';

export async function bothPreconditions(c: RefusalContext): Promise<void> {
  const { r, variant, refuse, validPatch, resourceOf } = c;
  const kind = KINDS[variant % 3]!;
  const item = await resourceOf(kind);
  if (!item) return;
  const etag = await r.read(kind, item.id, 'read-etag');
  await refuse(
    {
      method: 'PATCH',
      path: r.pathOf(kind, item.id),
      body: validPatch(kind),
      ifMatch: etag ?? STALE_FALLBACK,
      headers: { 'if-none-match': '*' },
    },
    400,
  );
}
