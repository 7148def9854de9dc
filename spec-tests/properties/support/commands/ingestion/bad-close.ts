/** A refused ingestion request, 422: a close with an invalid body. */
import { ingestionPath } from '../../steps.js';
import type { IngestionContext } from '../ingestion.js';

export async function badClose(c: IngestionContext): Promise<void> {
  const { r, pick, variant, refuse } = c;
  const ingestion = await r.openIngestion(pick, variant);
  if (!ingestion) return;
  const bodies: unknown[] = [
    {},
    { total_lotes: 0 },
    { total_lotes: 1001 },
    { total_lotes: '1' },
    { total_lotes: 1.5 },
    { total_lotes: null },
    { total_lotes: 1, extra: true },
    [],
  ];
  await refuse(
    { method: 'POST', path: `${ingestionPath(ingestion.id)}/fechamento`, body: bodies[variant % bodies.length] },
    422,
  );
}
