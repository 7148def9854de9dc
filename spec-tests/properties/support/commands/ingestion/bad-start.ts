/** A refused ingestion request, 422: a start with an invalid body. */
import { INGESTOES } from '../../steps.js';
import type { IngestionContext } from '../ingestion.js';

export async function badStart(c: IngestionContext): Promise<void> {
  const { r, variant, refuse } = c;
  const bodies: unknown[] = [
    {},
    { operacao: 'substituir' },
    { operacao: 'MESCLAR' },
    { operacao: 'mesclar', referencia_externa: '' },
    { operacao: 'mesclar', referencia_externa: 'r'.repeat(201) },
    { operacao: 'mesclar', catalogo_id: 'nao-e-uuid' },
    { operacao: 'mesclar', catalogo_id: null },
    { operacao: 'mesclar', campo: 1 },
    [],
    null,
  ];
  await refuse(
    { method: 'POST', path: INGESTOES, body: bodies[variant % bodies.length], key: r.startKey(variant) },
    422,
  );
}
