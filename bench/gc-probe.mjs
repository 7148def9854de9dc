// Preloaded into a server the bench starts (node --import bench/gc-probe.mjs …): the first SIGUSR2 opens a window
// of V8's own record of every collection (v8.GCProfiler) and prints "gc-probe: started"; the next closes it and
// prints "gc-probe: " and, as JSON, what each collection of the window found before and after it (bench/http.ts
// reads both lines on the server's stdout). Nothing runs per request: the figures are CPU-independent (bytes, counts).
import v8 from 'node:v8';

let profiler;
let before;
process.on('SIGUSR2', () => {
  if (profiler === undefined) {
    before = v8.getHeapStatistics().used_heap_size;
    profiler = new v8.GCProfiler();
    profiler.start();
    process.stdout.write('gc-probe: started\n');
    return;
  }
  const { statistics } = profiler.stop();
  profiler = undefined;
  const used = (stats, name) => stats.heapSpaceStatistics.find((space) => space.spaceName === name)?.spaceUsedSize ?? 0;
  const collections = statistics.map(({ gcType, cost, beforeGC, afterGC }) => ({
    type: gcType,
    // µs, wall-clock: on a busy machine it includes time the process waited for its core.
    cost,
    usedBefore: beforeGC.heapStatistics.usedHeapSize,
    usedAfter: afterGC.heapStatistics.usedHeapSize,
    // What a scavenge kept: left in the young generation, and moved to the old one (objects and large objects).
    survived: used(afterGC, 'new_space'),
    promoted:
      used(afterGC, 'old_space') -
      used(beforeGC, 'old_space') +
      used(afterGC, 'large_object_space') -
      used(beforeGC, 'large_object_space'),
  }));
  process.stdout.write(
    `gc-probe: ${JSON.stringify({ before, after: v8.getHeapStatistics().used_heap_size, collections })}\n`,
  );
});
