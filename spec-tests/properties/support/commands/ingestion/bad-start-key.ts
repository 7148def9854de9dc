/** A refused ingestion request, 400: the start's own key rule (16–200, no whitespace). */
import { INGESTOES } from '../../steps.js';
import type { IngestionContext } from '../ingestion.js';

export async function badStartKey(c: IngestionContext): Promise<void> {
  const { r, variant, refuse } = c;
  const keys = [null, '', 'a'.repeat(15), 'a'.repeat(201), 'chave com espaco 0001', 'chave\tcom\ttabulacao'];
  await refuse(
    {
      method: 'POST',
      path: INGESTOES,
      body: r.startBody(undefined, variant),
      key: keys[variant % keys.length] ?? null,
    },
    400,
  );
}
