/**
 * The snapshot figures of docs/performance.md: `emu.snapshot()` and then `emu.restore()` of what it returned, at
 * 10,000 and at 100,000 products (each loaded by one ingestion); medians. 10× the data should cost at most 12× the
 * time.
 *
 * Both sizes are measured the same way, so that their ratio is the algorithm's and not the measurement's:
 * - every measurement is on an emulator built for it, and is the first snapshot (then the first restore) it takes:
 *   timing the same emulator over and over measured the 10,000-product case with its records in the CPU's caches
 *   and the 100,000-product case without;
 * - the sizes alternate (10k, 100k, then 100k, 10k, …) and one unmeasured snapshot and restore first warms the
 *   JIT, so neither size is measured while its code is still being compiled;
 * - each timing ends with a young-generation collection, and includes it: the copies a snapshot makes are all
 *   alive, and V8 copies what survives out of its young generation. At 100,000 products that happens several
 *   times during the call; at 10,000 the whole snapshot fits in the young generation and the collection came
 *   after the timer stopped, so the small case did not pay for its own garbage collection and the large one did.
 */
import { catalogOf } from './ingestion.js';
import { collectGarbage, envNumber, fmt, median, type Emulator, type Row, type Target } from './support.js';

// Five: the 10,000-product timing, a few ms with its collection, moves with the machine's load; the median steadies it.
const REPEATS = envNumber('BENCH_SNAPSHOT_RUNS', 5);
const SMALL = 10_000;
const LARGE = 100_000;

/** A young-generation collection where the bench runs with --expose-gc (npm run bench); else nothing. */
const gc = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc;
const minorCollection = () => gc?.({ type: 'minor' });

/** `op` timed with the collection of what it left in the young generation (ms). */
function timed<T>(op: () => T): { value: T; ms: number } {
  const t0 = performance.now();
  const value = op();
  minorCollection();
  return { value, ms: performance.now() - t0 };
}

/** The first snapshot and the first restore of a freshly built emulator of `count` products. */
async function measureOnce(count: number): Promise<{
  snapshotMs: number;
  restoreMs: number;
  emu: Emulator;
  call: Awaited<ReturnType<typeof catalogOf>>['call'];
  catalogId: string;
}> {
  const { emu, call, catalogId } = await catalogOf(count);
  collectGarbage();
  const snapshot = timed(() => emu.snapshot());
  collectGarbage();
  const restore = timed(() => emu.restore(snapshot.value));
  return { snapshotMs: snapshot.ms, restoreMs: restore.ms, emu, call, catalogId };
}

/** The restored state is the one saved: its catalog still counts every product. */
async function checkRestored(measured: Awaited<ReturnType<typeof measureOnce>>, count: number): Promise<void> {
  const { status, body } = await measured.call('GET', `/v1/catalogos/${measured.catalogId}`);
  if (status !== 200 || body.produtos !== count)
    throw new Error(`after restore the catalog answers ${status} with ${body.produtos} products, not ${count}`);
}

export async function snapshotAtScale(): Promise<{ rows: Row[]; targets: Target[]; notes: string[] }> {
  // The JIT warm-up: compiled code for every size measured below.
  const warm = await measureOnce(SMALL);
  await checkRestored(warm, SMALL);
  const runs: Record<number, { snapshotMs: number; restoreMs: number }[]> = { [SMALL]: [], [LARGE]: [] };
  for (let i = 0; i < REPEATS; i++) {
    for (const count of i % 2 === 0 ? [SMALL, LARGE] : [LARGE, SMALL]) {
      const measured = await measureOnce(count);
      await checkRestored(measured, count);
      runs[count]!.push({ snapshotMs: measured.snapshotMs, restoreMs: measured.restoreMs });
    }
  }
  const rows: Row[] = [];
  const targets: Target[] = [];
  const perRecord = (ms: number, count: number) => `${fmt((1000 * ms) / count, 2)} µs/product`;
  for (const which of ['snapshotMs', 'restoreMs'] as const) {
    const name = which === 'snapshotMs' ? 'snapshot()' : 'restore()';
    const small = median(runs[SMALL]!.map((r) => r[which]));
    const large = median(runs[LARGE]!.map((r) => r[which]));
    const growth = large / small;
    rows.push({
      figure: `${name}, 100,000 products (ms)`,
      value: `${fmt(large)} (${perRecord(large, LARGE)})`,
      reference: `${fmt(small, 1)} at 10,000 products (${perRecord(small, SMALL)})`,
      ratio: `${fmt(growth, 1)}× for 10× the data`,
    });
    targets.push({ bar: `${name} of 100k products < 1 s`, holds: large < 1000, numbers: `${fmt(large)} ms` });
    targets.push({
      bar: `${name}: 10× the data ≤ 12× the time`,
      holds: growth <= 12,
      numbers: `${fmt(growth, 1)}× (${fmt(small, 1)} → ${fmt(large)} ms)`,
    });
  }
  const method = gc
    ? 'each the first snapshot, then the first restore, of an emulator built for it, sizes alternating, after a JIT warm-up; each timing includes the young-generation collection of what the call allocated'
    : 'each the first snapshot, then the first restore, of an emulator built for it, sizes alternating, after a JIT warm-up; without --expose-gc the young-generation collection of what a call allocated is not included, which favours the small size';
  return { rows, targets, notes: [`Snapshot and restore: medians of ${REPEATS} runs, ${method}.`] };
}
