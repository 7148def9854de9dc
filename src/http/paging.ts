import { ok, refuse, type Result } from '../core/refusal.js';

/**
 * One page of a list (docs/api.md "Rules every request follows › Lists"): at most `limit` items and at most
 * `budgetBytes` of serialized items, but always at least one item. Items are serialized once, here, and the body is
 * assembled from those strings, so a page costs O(page) whatever the size of the list.
 */
export interface Page<C> {
  /** The items' JSON, joined with commas. */
  readonly itemsJson: string;
  readonly count: number;
  /** The cursor of the last item when more items follow, else null. */
  readonly next: C | null;
}

export function collectPage<T, C>(
  items: Iterable<T>,
  limit: number,
  budgetBytes: number,
  present: (item: T) => unknown,
  cursorOf: (item: T) => C,
): Page<C> {
  let json = '';
  let bytes = 2; // the brackets of the array
  let count = 0;
  let last: T | undefined;
  const iterator = items[Symbol.iterator]();
  for (let step = iterator.next(); !step.done; step = iterator.next()) {
    const text = JSON.stringify(present(step.value));
    const size = utf8Length(text) + (count > 0 ? 1 : 0);
    if (count >= limit || (count > 0 && bytes + size > budgetBytes)) {
      return { itemsJson: json, count, next: cursorOf(last as T) };
    }
    json += count > 0 ? `,${text}` : text;
    bytes += size;
    count++;
    last = step.value;
  }
  return { itemsJson: json, count, next: null };
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Opaque cursors for lists whose membership changes (products of a catalog): the position of the last item
 * seen, bound to the company and the list, so a cursor of another company or list is refused.
 */
export function encodeCursor(companyId: string, list: string, position: number): string {
  return Buffer.from(JSON.stringify([1, companyId, list, position])).toString('base64url');
}

/** The position a `cursor` query parameter continues from (undefined: the start), or 422 when it is not this list's. */
export function readCursor(cursor: string | undefined, companyId: string, list: string): Result<number | undefined> {
  if (cursor === undefined) return ok(undefined);
  const position = decodeCursor(cursor, companyId, list);
  if (position === undefined)
    return refuse(
      'invalid',
      'cursor_invalido',
      'cursor is not a cursor of this list; pass the proximo_cursor this list returned, unchanged.',
      'query.cursor',
    );
  return ok(position);
}

/** The body of a list page with an opaque cursor: `{"itens": [...], "proximo_cursor": ...}` plus any leading fields. */
export function cursorPageBody(page: Page<number>, companyId: string, list: string, leading = ''): string {
  const next = page.next === null ? null : encodeCursor(companyId, list, page.next);
  return `{${leading}"itens":[${page.itemsJson}],"proximo_cursor":${JSON.stringify(next)}}`;
}

function decodeCursor(cursor: string, companyId: string, list: string): number | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 4 &&
      value[0] === 1 &&
      value[1] === companyId &&
      value[2] === list &&
      Number.isSafeInteger(value[3]) &&
      value[3] >= 0
    ) {
      return value[3] as number;
    }
  } catch {
    // not a cursor of ours
  }
  return undefined;
}
