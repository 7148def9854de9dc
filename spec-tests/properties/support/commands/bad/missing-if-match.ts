/** A refused request, 428: a PATCH without If-Match. */
import { KINDS } from '../../steps.js';
import type { RefusalContext } from '../bad.js';

export async function missingIfMatch(c: RefusalContext): Promise<void> {
  const { r, variant, refuse, validPatch, resourceOf } = c;
  const kind = KINDS[variant % 3]!;
  const item = await resourceOf(kind);
  if (item) await refuse({ method: 'PATCH', path: r.pathOf(kind, item.id), body: validPatch(kind) }, 428);
}
