/**
 * The HTTP load generators: wrk when it is on PATH (apt-get install -y wrk), else one in Node. wrk -t1 runs on one
 * core and drives far more requests per second than the servers compared here, so their ratios are theirs; the Node
 * generator needs about as much CPU per request as a bare server, so on a small machine it caps both sides
 * (bench/http.ts measures and prints that ceiling). With taskset, the servers run on core 0 and the generator on
 * core 1; /proc/PID/stat says how busy the server was during the round (~100% when it was the limit).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { coreBusySince, coreTimes, cpuSeconds, onPath, PINNING, pinned, quantile, request } from './support.js';

export const CONNECTIONS = Math.round(Number(process.env.BENCH_CONNECTIONS ?? 50));

/** One round against one server. Latencies in ms; cpu the server's use of its core (1 = 100%), null without /proc. */
export interface LoadResult {
  /** Answers received in the round. */
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  cpu: number | null;
  /** The load generator's use of its core, likewise: near 100% it may have been the limit. */
  generatorCpu: number | null;
  /** How busy the servers' core (0) was in all: near 100% with `cpu` well below, other processes took the rest. */
  coreBusy: number | null;
  /** Answers other than 200, and socket errors and time-outs. */
  errors: number;
}

/** A product the PATCH rounds change: its id and current ETag. */
export interface Product {
  id: string;
  etag: string;
}

export interface LoadGenerator {
  /** e.g. "wrk 4.1.0 (-t1 -c50)". */
  readonly description: string;
  /** Whether it shares a core with nothing but itself and so can be expected to outrun the servers. */
  readonly external: boolean;
  get(
    url: string,
    headers: Record<string, string>,
    seconds: number,
    serverPid: number | undefined,
  ): Promise<LoadResult>;
  /** PATCH /v1/produtos/{id} for each product, one in flight per product, each with a fresh key and its ETag. */
  patch(
    base: string,
    token: string,
    products: readonly Product[],
    keyPrefix: string,
    seconds: number,
    serverPid: number | undefined,
  ): Promise<LoadResult>;
  close(): void;
}

const cpuShare = (pid: number | undefined, before: number | null, seconds: number): number | null => {
  const after = cpuSeconds(pid);
  return before === null || after === null ? null : (after - before) / seconds;
};

/** wrk pinned to core 1, one thread, CONNECTIONS connections; the numbers from a Lua done() as a JSON line. */
class Wrk implements LoadGenerator {
  readonly description: string;
  readonly external = true;
  private readonly dir = mkdtempSync(path.join(os.tmpdir(), 'catalog-bench-'));
  private readonly here = path.dirname(fileURLToPath(import.meta.url));

  constructor() {
    let version = 'wrk';
    try {
      execFileSync('wrk', ['-v'], { encoding: 'utf8' });
    } catch (error) {
      // wrk -v prints its version and exits 1.
      const out = String((error as { stdout?: string }).stdout ?? '');
      version = /^wrk (\S+)/.exec(out)?.[0] ?? 'wrk';
    }
    this.description = `${version} (-t1 -c${CONNECTIONS})`;
  }

  private run(
    url: string,
    script: string,
    headerArgs: string[],
    scriptArgs: string[],
    seconds: number,
    serverPid: number | undefined,
  ): Promise<LoadResult> {
    const args = [
      '-t1',
      `-c${CONNECTIONS}`,
      `-d${seconds}s`,
      '--timeout',
      '10s',
      ...headerArgs,
      '-s',
      path.join(this.here, script),
      url,
      '--',
      ...scriptArgs,
    ];
    const [command, argv] = pinned(1, 'wrk', args);
    const before = cpuSeconds(serverPid);
    const core = coreTimes(0);
    return new Promise((resolve, reject) => {
      const spawned = performance.now();
      const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
      // wrk's own CPU: /proc is gone once it exits, so it is sampled while it runs and the last sample kept.
      let sample: { at: number; cpu: number } | null = null;
      const sampler = setInterval(() => {
        const cpu = cpuSeconds(child.pid);
        if (cpu !== null) sample = { at: performance.now(), cpu };
      }, 100);
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.once('error', reject);
      child.once('exit', (code) => {
        clearInterval(sampler);
        const last = sample as { at: number; cpu: number } | null;
        const line = /^BENCH_JSON (.*)$/m.exec(out)?.[1];
        if (code !== 0 || line === undefined) return reject(new Error(`wrk exited ${code}:\n${out}\n${err}`));
        const r = JSON.parse(line) as {
          requests: number;
          duration_us: number;
          p50_us: number;
          p99_us: number;
          errors: Record<string, number>;
        };
        const duration = r.duration_us / 1e6;
        resolve({
          requests: r.requests,
          rps: r.requests / duration,
          p50: r.p50_us / 1000,
          p99: r.p99_us / 1000,
          cpu: cpuShare(serverPid, before, duration),
          generatorCpu: last === null ? null : last.cpu / ((last.at - spawned) / 1000),
          coreBusy: coreBusySince(0, core),
          errors: Object.values(r.errors).reduce((a, b) => a + b, 0),
        });
      });
    });
  }

  get(
    url: string,
    headers: Record<string, string>,
    seconds: number,
    serverPid: number | undefined,
  ): Promise<LoadResult> {
    const headerArgs = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
    return this.run(url, 'wrk-report.lua', headerArgs, [], seconds, serverPid);
  }

  patch(
    base: string,
    token: string,
    products: readonly Product[],
    keyPrefix: string,
    seconds: number,
    serverPid: number | undefined,
  ): Promise<LoadResult> {
    const file = path.join(this.dir, 'products.txt');
    writeFileSync(file, products.map((p) => `${p.id} ${p.etag}\n`).join(''));
    return this.run(base, 'wrk-patch.lua', [], [file, token, keyPrefix], seconds, serverPid);
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * The fallback: CONNECTIONS loops of keep-alive requests from this process (pinned to core 1 by the caller while
 * it runs). Its own cost per request is close to a bare server's, which is why its ceiling is measured and shown.
 */
class NodeGenerator implements LoadGenerator {
  readonly description = `Node http client in the bench process (${CONNECTIONS} connections)`;
  readonly external = false;

  private async loops(
    seconds: number,
    serverPid: number | undefined,
    op: (worker: number) => Promise<boolean>,
  ): Promise<LoadResult> {
    const latencies: number[] = [];
    let errors = 0;
    const before = cpuSeconds(serverPid);
    const core = coreTimes(0);
    const ownBefore = process.cpuUsage();
    const t0 = performance.now();
    const end = t0 + seconds * 1000;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, worker) => {
        while (performance.now() < end) {
          const t = performance.now();
          if (!(await op(worker))) errors++;
          latencies.push(performance.now() - t);
        }
      }),
    );
    const duration = (performance.now() - t0) / 1000;
    const own = process.cpuUsage(ownBefore);
    latencies.sort((a, b) => a - b);
    return {
      requests: latencies.length,
      rps: latencies.length / duration,
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      cpu: cpuShare(serverPid, before, duration),
      generatorCpu: (own.user + own.system) / 1e6 / duration,
      coreBusy: coreBusySince(0, core),
      errors,
    };
  }

  get(
    url: string,
    headers: Record<string, string>,
    seconds: number,
    serverPid: number | undefined,
  ): Promise<LoadResult> {
    return this.loops(seconds, serverPid, async () => (await request(url, 'GET', headers)).status === 200);
  }

  patch(
    base: string,
    token: string,
    products: readonly Product[],
    keyPrefix: string,
    seconds: number,
    serverPid: number | undefined,
  ): Promise<LoadResult> {
    const mine = products.map((p) => ({ ...p }));
    let sent = 0;
    return this.loops(seconds, serverPid, async (worker) => {
      const product = mine[worker % mine.length]!;
      const n = ++sent;
      const headers = {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': `${keyPrefix}-${String(n).padStart(12, '0')}`,
        'if-match': product.etag,
      };
      const r = await request(`${base}/v1/produtos/${product.id}`, 'PATCH', headers, `{"sku":"SKU-${keyPrefix}-${n}"}`);
      if (r.status !== 200) return false;
      product.etag = r.headers.etag as string;
      return true;
    });
  }

  close(): void {}
}

/** wrk if it is installed, unless BENCH_GENERATOR=node asks for the Node generator. */
export function loadGenerator(): LoadGenerator {
  const choice = process.env.BENCH_GENERATOR ?? (onPath('wrk') ? 'wrk' : 'node');
  if (choice === 'wrk') return new Wrk();
  if (choice === 'node') return new NodeGenerator();
  throw new Error(`BENCH_GENERATOR must be wrk or node, got ${choice}`);
}

/**
 * Moves this process (all its threads) to `cores` (e.g. "1"), where taskset exists: the Node generator runs in
 * the bench process itself. Returns the function that puts it back on every core.
 */
export function pinSelf(cores: string): () => void {
  if (!PINNING) return () => {};
  const all = `0-${os.cpus().length - 1}`;
  execFileSync('taskset', ['-a', '-p', '-c', cores, String(process.pid)], { stdio: 'ignore' });
  return () => execFileSync('taskset', ['-a', '-p', '-c', all, String(process.pid)], { stdio: 'ignore' });
}
