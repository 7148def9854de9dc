/** A refused request, 400: If-Match `*` or an unquoted ETag. */
import { KINDS } from '../../steps.js';
import type { RefusalContext } from '../bad.js';

export async function ifMatchStar(c: RefusalContext): Promise<void> {
  const { r, variant, refuse, validPatch, resourceOf } = c;
  const kind = KINDS[variant % 3]!;
  const item = await resourceOf(kind);
  if (item)
    await refuse(
      {
        method: 'PATCH',
        path: r.pathOf(kind, item.id),
        body: validPatch(kind),
        ifMatch: variant % 2 === 0 ? '*' : 'sem-aspas',
      },
      400,
    );
}
