/** A refused ingestion request, 403: a start or a batch with a read-only credential. */
import { INGESTOES, ingestionPath } from '../../steps.js';
import type { IngestionContext } from '../ingestion.js';

export async function readOnlyIngestion(c: IngestionContext): Promise<void> {
  const { r, step, pick, pick2, variant, refuse } = c;
  if (variant % 2 === 0) {
    await refuse(
      {
        method: 'POST',
        path: INGESTOES,
        body: r.startBody(undefined, variant),
        key: r.startKey(variant),
        as: 'readOnly',
      },
      403,
    );
    return;
  }
  const ingestion = await r.openIngestion(pick, variant);
  if (ingestion)
    await refuse(
      {
        method: 'PUT',
        path: `${ingestionPath(ingestion.id)}/lotes/${1 + (pick2 % 4)}`,
        body: { itens: r.records(step.records) },
        as: 'readOnly',
      },
      403,
    );
}
