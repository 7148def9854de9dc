/** Ingestion: the same key and body again: 200 with the receipt, repetida: true; nothing changes. */
import type { IngestionContext } from '../ingestion.js';

export async function replayStart(c: IngestionContext): Promise<void> {
  const { r, label, startedEarlier } = c;
  const earlier = startedEarlier();
  if (earlier) await r.send(label, earlier.sent);
}
