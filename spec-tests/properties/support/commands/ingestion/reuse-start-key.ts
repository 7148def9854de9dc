/** A refused ingestion request, 422 idempotencia_reutilizada. */
import { INGESTOES } from '../../steps.js';
import type { IngestionContext } from '../ingestion.js';

export async function reuseStartKey(c: IngestionContext): Promise<void> {
  const { variant, refuse, startedEarlier } = c;
  const earlier = startedEarlier();
  if (earlier)
    await refuse(
      {
        method: 'POST',
        path: INGESTOES,
        body: { ...(earlier.sent.body as Record<string, unknown>), referencia_externa: `outra-${variant}` },
        key: earlier.sent.key,
      },
      422,
    );
}
