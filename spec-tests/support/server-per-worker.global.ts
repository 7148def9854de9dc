/**
 * Global setup of the `spec-server` project: the built CLI started once per worker the project may run at once
 * (its maxWorkers), so files that run at the same time never share a server, while each server still sees file
 * after file, as one server did when the files ran one at a time: a file may move the shared clock, reset the
 * server or add global faults, so it needs its server to itself. VITEST_POOL_ID (1 to maxWorkers) is unique among
 * the workers running at once: target.ts picks the server by it. With SPEC_BASE_URL, that one server, and the
 * project runs its files one at a time (vitest.config.ts).
 */
import type { TestProject } from 'vitest/node';
import shared, { assertBuilt, startServer } from './server.global.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.SPEC_BASE_URL) return shared(project);
  assertBuilt();
  // Resolved: 1 where fileParallelism is off.
  const workers = project.config.maxWorkers || project.vitest.config.maxWorkers;
  if (!Number.isInteger(workers) || workers < 1)
    throw new Error(`spec-server: no worker count to start servers for (maxWorkers ${String(workers)})`);
  const started = await Promise.allSettled(Array.from({ length: workers }, () => startServer()));
  const servers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(servers.map((server) => server.stop()));
    throw failed.reason;
  }
  project.provide(
    'specWorkerUrls',
    servers.map((server) => server.url),
  );
  project.provide('specServerOwned', true);
  return async () => {
    await Promise.all(servers.map((server) => server.stop()));
  };
}
