/** A refused request, 412: a PATCH with an ETag the resource had before (or one it never had). */
import { STALE_FALLBACK, KINDS } from '../../steps.js';
import type { RefusalContext } from '../bad.js';

export async function staleEtag(c: RefusalContext): Promise<void> {
  const { r, pick2, variant, refuse, validPatch, resourceOf } = c;
  const kind = KINDS[variant % 3]!;
  const item = await resourceOf(kind);
  if (!item) return;
  const current = await r.read(kind, item.id, 'read-etag');
  const seen = (r.etags.get(item.id) ?? []).filter((e) => e !== current);
  const stale = seen[pick2 % Math.max(seen.length, 1)] ?? STALE_FALLBACK;
  await refuse({ method: 'PATCH', path: r.pathOf(kind, item.id), body: validPatch(kind), ifMatch: stale }, 412);
}
