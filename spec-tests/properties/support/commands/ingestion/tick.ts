/**
 * Ingestion: moves the clock across a validation, an application or the 24 h expiry.
 * Sometimes the next validation or application fails (falhou) or is postponed: a job fault of kind ingestao.
 */
import { TICKS } from '../../steps.js';
import type { IngestionContext } from '../ingestion.js';

export async function tick(c: IngestionContext): Promise<void> {
  const { r, variant } = c;
  if (variant % 10 >= 8)
    r.emu.faults.add({
      target: 'job',
      match: { kind: 'ingestao', companyId: r.company.companyId },
      effect: variant % 10 === 9 ? { fail: true } : { delayMs: 30_000 },
      times: 1,
    });
  await r.advance(TICKS[variant % TICKS.length]!);
}
