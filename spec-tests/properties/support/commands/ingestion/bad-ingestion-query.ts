/**
 * A refused ingestion request, 422: a read with an invalid query.
 * Query validation comes before the 404: an unknown ingestion's path refuses a bad query with 422 too.
 */
import { ingestionPath, UNKNOWN_UUID } from '../../steps.js';
import type { IngestionContext } from '../ingestion.js';

export async function badIngestionQuery(c: IngestionContext): Promise<void> {
  const { r, pick, variant, refuse } = c;
  const unknown = ingestionPath(UNKNOWN_UUID);
  const paths = [
    `${unknown}?limite=0`,
    `${unknown}?limite=1001`,
    `${unknown}?cursor=${'c'.repeat(600)}`,
    `${unknown}?limite=1&limite=2`,
    `${unknown}?apos_id=${UNKNOWN_UUID}`,
  ];
  const ingestion = r.ingestions[pick % Math.max(r.ingestions.length, 1)];
  if (ingestion) {
    paths.push(
      `${ingestionPath(ingestion.id)}?limite=1001`,
      `${ingestionPath(ingestion.id)}?limite=0`,
      `${ingestionPath(ingestion.id)}?x=1`,
    );
    // A cursor is read where there are preview errors to page: once validated.
    if (['validada', 'aplicando', 'aplicada', 'revisao_necessaria', 'rejeitada'].includes(ingestion.estado))
      paths.push(`${ingestionPath(ingestion.id)}?cursor=nao-e-cursor`);
  }
  await refuse({ method: 'GET', path: paths[variant % paths.length]! }, 422);
}
