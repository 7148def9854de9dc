/** Ingestion: the same content up to key order and white space: 200, repetido. */
import { ingestionPath } from '../../steps.js';
import type { IngestionContext } from '../ingestion.js';

export async function repeatBatch(c: IngestionContext): Promise<void> {
  const { r, step, pick, pick2, variant, label } = c;
  const ingestion = await r.openIngestionWithBatch(pick, variant, step.records);
  if (!ingestion) return;
  const numeros = [...ingestion.batches.keys()];
  const numero = numeros[pick2 % numeros.length]!;
  const reordered = ingestion.batches
    .get(numero)!
    .map((item) => Object.fromEntries(Object.entries(item as Record<string, unknown>).reverse()));
  const raw = JSON.stringify({ itens: reordered }, null, variant % 2 === 0 ? 2 : undefined);
  await r.send(label, {
    method: 'PUT',
    path: `${ingestionPath(ingestion.id)}/lotes/${numero}`,
    raw,
    headers: { 'content-type': 'application/json' },
    key: r.nextKey(),
    as: 'company',
  });
}
