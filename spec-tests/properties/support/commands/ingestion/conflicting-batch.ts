/** A refused ingestion request, 409 lote_divergente. */
import type { IngestionContext } from '../ingestion.js';

export async function conflictingBatch(c: IngestionContext): Promise<void> {
  const { r, step, pick, pick2, variant, label } = c;
  const ingestion = await r.openIngestionWithBatch(pick, variant, step.records);
  if (!ingestion) return;
  const numeros = [...ingestion.batches.keys()];
  const numero = numeros[pick2 % numeros.length]!;
  const itens = ingestion.batches.get(numero)!;
  const other =
    variant % 2 === 0
      ? [...itens, { id_externo: 'outro-registro', origem: 'erp', ncm: '84713012' }]
      : itens.map((item, i) => (i === 0 ? { ...(item as Record<string, unknown>), origem: 'outra' } : item));
  await r.putBatch(label, ingestion, numero, other, { expected: 409 });
}
