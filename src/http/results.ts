/**
 * What the lists of the service's jobs share: newest-first pages (webhook events, analyses, surveillance
 * executions), pages of a published, immutable list of findings, and the findings as CSV.
 */
import type { OrderedIndex } from '../core/ordered-index.js';
import { ok, type Result } from '../core/refusal.js';
import { collectPage, cursorPageBody, readCursor, type Page } from './paging.js';
import type { Reply } from './pipeline.js';

/** Byte budget of a page of findings (spec: up to 200 findings "plus a byte budget"). */

interface PageQuery {
  readonly cursor?: string | undefined;
  readonly limite?: number | undefined;
}

/** A page of the records of `index`, newest first, after the query's cursor. */
export function newestFirstPage<T>(
  index: OrderedIndex,
  records: ReadonlyMap<string, T>,
  where: { readonly companyId: string; readonly list: string },
  query: PageQuery,
  limits: { readonly defaultLimit: number; readonly budgetBytes: number },
  present: (record: T) => unknown,
): Result<Reply> {
  const before = readCursor(query.cursor, where.companyId, where.list);
  if (!before.ok) return before;
  const items = (function* () {
    for (const [id, position] of index.before(before.value)) {
      const record = records.get(id);
      if (record !== undefined) yield { record, position };
    }
  })();
  const page = collectPage(
    items,
    query.limite ?? limits.defaultLimit,
    limits.budgetBytes,
    ({ record }) => present(record),
    ({ position }) => position,
  );
  return ok({ status: 200, body: cursorPageBody(page, where.companyId, where.list) });
}

/**
 * A page of published findings (they never change, so a cursor is an index): `{total_achados, itens,
 * proximo_cursor}`, at most 200 findings and `budgetBytes` (pageBudgets.findings; spec "GET /v1/vigilancias/{id}/resultados":
 * the query has only `cursor`, so the page size is always the service's).
 */
export function findingsPage<F>(
  findings: readonly F[],
  where: { readonly companyId: string; readonly list: string },
  query: { readonly cursor?: string | undefined },
  budgetBytes: number,
  present: (finding: F) => unknown,
): Result<Reply> {
  const page = fixedListPage(findings, where, query, { defaultLimit: 200, budgetBytes }, present);
  if (!page.ok) return page;
  return ok({
    status: 200,
    body: cursorPageBody(page.value, where.companyId, where.list, `"total_achados":${findings.length},`),
  });
}

/** A page of a list that never changes once published (findings, an ingestion's preview errors): a cursor is an index. */
export function fixedListPage<T>(
  list: readonly T[],
  where: { readonly companyId: string; readonly list: string },
  query: PageQuery,
  limits: { readonly defaultLimit: number; readonly budgetBytes: number },
  present: (item: T) => unknown,
): Result<Page<number>> {
  const after = readCursor(query.cursor, where.companyId, where.list);
  if (!after.ok) return after;
  const start = after.value === undefined ? 0 : after.value + 1;
  const entries = (function* () {
    for (let i = start; i < list.length; i++) yield { item: list[i]!, index: i };
  })();
  return ok(
    collectPage(
      entries,
      query.limite ?? limits.defaultLimit,
      limits.budgetBytes,
      ({ item }) => present(item),
      ({ index }) => index,
    ),
  );
}

/** RFC 4180: fields with a comma, quote or line break are quoted, quotes doubled; lines end in CRLF. */
function csv(header: readonly string[], rows: Iterable<readonly (string | number | boolean)[]>): string {
  const field = (value: string | number | boolean) => {
    const text = String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  let out = `${header.map(field).join(',')}\r\n`;
  for (const row of rows) out += `${row.map(field).join(',')}\r\n`;
  return out;
}

/** A CSV download: UTF-8 with a header row, named `filename`. */
export function csvReply(
  header: readonly string[],
  rows: Iterable<readonly (string | number | boolean)[]>,
  filename: string,
): Reply {
  return {
    status: 200,
    body: csv(header, rows),
    headers: {
      'content-type': 'text/csv; charset=utf-8; header=present',
      'content-disposition': `attachment; filename="${filename}"`,
    },
  };
}
