/** What the benchmark's figures share: the table row, statistics, number formatting, child processes, an HTTP client. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';

/**
 * The emulator as integrators run it: the compiled package (`npm run bench` builds it first), not the sources
 * through tsx, whose transform adds work of its own to every closure created.
 */
export const { createEmulator, DEFAULT_START } = (await import(
  new URL('../dist/src/index.js', import.meta.url).href
)) as typeof import('../src/index.js');
export type Emulator = ReturnType<typeof createEmulator>;

/**
 * One line of the table. `latency` and the CPU columns only where a load generator measured them (the HTTP
 * figures): p50 and p99 of the subject and of the reference, the server's and the generator's CPU use.
 */
export interface Row {
  figure: string;
  value: string;
  reference: string;
  ratio: string;
  latency?: { p50: string; p99: string };
  cpu?: string;
  generatorCpu?: string;
}

/** One of the project's performance targets (docs/performance.md), with the numbers that decide it. */
export interface Target {
  bar: string;
  holds: boolean;
  numbers: string;
}

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
export const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
/** The value at quantile q (0..1) of samples already sorted ascending. */
export const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

/** A positive number from the environment (the knobs that lengthen or shorten the run), else `fallback`. */
export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!(n > 0)) throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return n;
}

/** Whether a program is on PATH (wrk, taskset). */
export function onPath(program: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** `taskset -c <core>` in front of a command where taskset exists and the machine has a second core to pin the other side to. */
export const PINNING = onPath('taskset') && (await import('node:os')).cpus().length >= 2;
export const pinned = (core: number, command: string, args: string[]): [string, string[]] =>
  PINNING ? ['taskset', ['-c', String(core), command, ...args]] : [command, args];

/**
 * Starts a server script (the CLI, or a bare reference) and resolves with its URL once it listens. With `core`,
 * pinned to that core (taskset execs the command, so the child's pid is the server's, for serverCpu()).
 */
export function start(args: string[], core?: number): Promise<{ child: ChildProcess; url: string }> {
  const [command, argv] = core === undefined ? [process.execPath, args] : pinned(core, process.execPath, args);
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve({ child, url: match[1]! });
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

/** Stops a server started by start() and waits until it is gone. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.removeAllListeners('exit');
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await gone;
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU seconds a process has used so far (user + system, all its threads), from /proc/PID/stat; null where there
 * is no /proc. Sampled before and after a round, it tells whether the server was the limit (~100% of its core).
 */
export function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** A core's time counters from /proc/stat (idle and in all, in ticks); null where there is none. */
export function coreTimes(core: number): { idle: number; total: number } | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`cpu${core} `));
    if (line === undefined) return null;
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal …: idle and iowait are the time nothing ran on it.
    return { idle: ticks[3]! + (ticks[4] ?? 0), total: ticks.slice(0, 8).reduce((a, b) => a + b, 0) };
  } catch {
    return null;
  }
}

/** How busy a core was since `before` (0..1), whoever kept it busy. */
export function coreBusySince(core: number, before: { idle: number; total: number } | null): number | null {
  const after = coreTimes(core);
  if (before === null || after === null || after.total === before.total) return null;
  return 1 - (after.idle - before.idle) / (after.total - before.total);
}

/** Keep-alive connections, so the figures measure requests, not TCP handshakes. */
export const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
export function request(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** With --expose-gc (npm run bench), memory figures are measured after a collection; else they include garbage. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** The heap in use after two full collections (bytes). */
export function settledHeap(): number {
  return settledMemory().heap;
}

/**
 * After two full collections: the heap in use, and the bytes of ArrayBuffers, which live outside it (the
 * idempotency store's arenas among them).
 */
export function settledMemory(): { heap: number; outside: number } {
  collectGarbage();
  collectGarbage();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return { heap: heapUsed, outside: arrayBuffers };
}

/**
 * The figure and its reference measured in alternating rounds (subject, reference, subject, …), medians
 * reported: on a shared machine drifts (GC, JIT, other processes) hit both sides alike. Returns every round.
 */
export async function interleaved<T>(
  rounds: number,
  subject: (round: number) => Promise<T>,
  reference: (round: number) => Promise<T>,
  label = '',
): Promise<[T[], T[]]> {
  const a: T[] = [];
  const b: T[] = [];
  for (let i = 0; i < rounds; i++) {
    a.push(await subject(i));
    b.push(await reference(i));
    if (VERBOSE) console.error(`${label} round ${i + 1}: ${brief(a[i])} | reference ${brief(b[i])}`);
  }
  return [a, b];
}

/** BENCH_VERBOSE=1 prints every round of every interleaved figure to stderr (to see what a median hides). */
export const VERBOSE = process.env.BENCH_VERBOSE === '1';
const brief = (x: unknown) =>
  JSON.stringify(x, (_, v: unknown) => (typeof v === 'number' ? Math.round(v * 1000) / 1000 : v));
