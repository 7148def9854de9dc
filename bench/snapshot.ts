/**
 * Issue 14's snapshot figures: `emu.snapshot()` and then `emu.restore()` of what it returned, on an emulator
 * holding 10,000 and one holding 100,000 products (each loaded by one ingestion), alternating the two sizes;
 * medians. 10× the data should cost at most 12× the time.
 */
import { catalogOf } from './ingestion.js';
import { collectGarbage, envNumber, fmt, median, type Emulator, type Row, type Target } from './support.js';

const REPEATS = envNumber('BENCH_SNAPSHOT_RUNS', 3);

function timeOnce(emu: Emulator): { snapshotMs: number; restoreMs: number } {
  collectGarbage();
  const t0 = performance.now();
  const saved = emu.snapshot();
  const snapshotMs = performance.now() - t0;
  collectGarbage();
  const t1 = performance.now();
  emu.restore(saved);
  return { snapshotMs, restoreMs: performance.now() - t1 };
}

export async function snapshotAtScale(): Promise<{ rows: Row[]; targets: Target[] }> {
  const small = await catalogOf(10_000);
  const large = await catalogOf(100_000);
  const smallRuns: ReturnType<typeof timeOnce>[] = [];
  const largeRuns: ReturnType<typeof timeOnce>[] = [];
  for (let i = 0; i < REPEATS; i++) {
    smallRuns.push(timeOnce(small.emu));
    largeRuns.push(timeOnce(large.emu));
  }
  // The restored state is the one saved: its catalog still counts every product.
  for (const [{ catalogId, call }, count] of [[small, 10_000], [large, 100_000]] as const) {
    const { status, body } = await call('GET', `/v1/catalogos/${catalogId}`);
    if (status !== 200 || body.produtos !== count) throw new Error(`after restore the catalog answers ${status} with ${body.produtos} products, not ${count}`);
  }
  const rows: Row[] = [];
  const targets: Target[] = [];
  for (const which of ['snapshotMs', 'restoreMs'] as const) {
    const name = which === 'snapshotMs' ? 'snapshot()' : 'restore()';
    const at10k = median(smallRuns.map((r) => r[which]));
    const at100k = median(largeRuns.map((r) => r[which]));
    const growth = at100k / at10k;
    rows.push({ figure: `${name}, 100,000 products (ms)`, value: fmt(at100k), reference: `${fmt(at10k)} at 10,000 products`, ratio: `${fmt(growth, 1)}× for 10× the data` });
    targets.push({ bar: `${name} of 100k products < 1 s`, holds: at100k < 1000, numbers: `${fmt(at100k)} ms` });
    targets.push({ bar: `${name}: 10× the data ≤ 12× the time`, holds: growth <= 12, numbers: `${fmt(growth, 1)}× (${fmt(at10k)} → ${fmt(at100k)} ms)` });
  }
  return { rows, targets };
}
