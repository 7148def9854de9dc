/**
 * How the built CLI's server stops (stop.ts): as npx runs it, killing npx stops the server, however npx runs the
 * bin (npx → sh → node, npm forwarding the signal to the shell alone); SIGHUP closes it as SIGTERM does; and a
 * server not started by npx outlives the process that started it, as `nohup` and background starts expect.
 *
 * npx runs from a temporary project whose node_modules holds this package as a link, as `npm install` of a folder
 * lays it out: npm exec finds the bin there and runs it without the registry.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { installedProject } from '../spec-tests/support/installed-project.js';
import { assertBuilt, CLI, killAll, ROOT, runCli, track } from './cli-run.js';
import { startedByNpx } from './stop.js';

/** Servers a test started whose parent is no longer this process: killed after it if they are still there. */
const strays = new Set<number>();
let project: string;

beforeAll(() => {
  assertBuilt();
  project = installedProject();
});

/** Temporary folders a test made, removed after it. */
const folders: string[] = [];

afterEach(async () => {
  for (const pid of strays) if (alive(pid)) process.kill(pid, 'SIGKILL');
  strays.clear();
  await killAll();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

afterAll(() => {
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
});

/** Whether `pid` is a running process: a zombie (exited, not yet reaped by whoever adopted it) is not. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  // pid (comm) STATE ppid …: comm may hold spaces and parentheses, so read after its last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

/** Resolves once none of `pids` runs; fails naming those that still do 5 s later. */
function allGone(pids: readonly number[]): Promise<void> {
  const deadline = performance.now() + 5000;
  return new Promise((resolve, reject) => {
    const look = () => {
      const running = pids.filter(alive);
      if (running.length === 0) resolve();
      else if (performance.now() > deadline)
        reject(new Error(`still running 5 s after the server closed: ${running.join(', ')}`));
      else setTimeout(look, 10);
    };
    look();
  });
}

/** The parent of `pid`, from /proc. */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Whether something accepts a connection on the port. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

interface Started {
  readonly child: ChildProcess;
  readonly ready: { url: string; pid: number };
  /** Everything its stdout carried, once every process holding it has ended (the server last). */
  readonly output: Promise<string>;
}

/** Spawns `command`, collecting stdout; resolves once it printed the start line (within 15 s). */
function start(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): Promise<Started> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', ...options.env },
  });
  track(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const output = new Promise<string>((resolve) => child.stdout!.once('end', () => resolve(stdout)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${command} ${args.join(' ')} printed no start line within 15 s\n${stdout}\n${stderr}`)),
      15_000,
    );
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const line = stdout.split('\n')[0];
      if (line === undefined || !stdout.includes('\n')) return;
      clearTimeout(timer);
      const ready = JSON.parse(line) as { url: string; pid: number };
      strays.add(ready.pid);
      resolve({ child, ready, output });
    });
  });
}

const portOf = (url: string) => Number(new URL(url).port);

/** `promise`, or a failure saying `what` once `ms` have passed first. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe('stopping the server', { timeout: 30_000 }, () => {
  // SIGTERM npm forwards to its shell alone, which dies of it; SIGKILL ends npm and leaves the shell.
  it.each(['SIGTERM', 'SIGKILL'] as const)(
    'npx catalog-emulator & kill -%s $!: the server stops, though npm signals at most its shell',
    async (signal) => {
      const { child, ready, output } = await start(
        'npx',
        ['catalog-emulator', 'serve', '--port', '0', '--json', '--log', 'silent'],
        { cwd: project, env: { npm_config_update_notifier: 'false' } },
      );
      const port = portOf(ready.url);
      expect(await answers(port)).toBe(true);
      // npx → sh → node: the server's parent is the shell npm spawned, not npx.
      const shell = parentOf(ready.pid);
      expect(shell).not.toBe(child.pid);
      expect(parentOf(shell)).toBe(child.pid);

      child.kill(signal);
      // It looks at its parents every 200 ms (bin/stop.ts); how soon it stops is not timed here (CONTRIBUTING.md
      // "Tests"): the deadline only tells a server that never stops from one that does.
      const late = `the server (pid ${ready.pid}) still held its stdout 20 s after npx got ${signal}`;
      const printed = await within(output, 20_000, late);
      expect(await answers(port)).toBe(false);
      expect(printed.split('\n').slice(1)).toEqual(['{"kind":"closing","reason":"npx-exited"}', '']);
      // A process closes its files before it ends: the stdout's end may come a moment before the last one has.
      await allGone([child.pid!, shell, ready.pid]);
    },
  );

  it('SIGHUP (its terminal closed) closes it as SIGTERM does: exit 0, the ready file removed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalog-emulator-hup-'));
    folders.push(dir);
    const readyFile = join(dir, 'ready.json');
    const run = runCli(['serve', '--port', '0', '--clock', 'manual', '--ready-file', readyFile], { timeoutMs: 15_000 });
    await new Promise<void>((resolve) =>
      run.child.stdout!.on('data', () => run.stdout.includes('Try: curl') && resolve()),
    );
    expect(existsSync(readyFile)).toBe(true);
    run.child.kill('SIGHUP');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    await run.closed;
    expect(run.stdout.endsWith('\nSIGHUP: closing\n')).toBe(true);
    expect(existsSync(readyFile)).toBe(false);
  });

  it('not started by npx, it outlives the process that started it (a shell that started it in the background and ended)', async () => {
    // Two servers, each started in the background by a shell that ends once told (a line on its stdin, which the
    // background server does not read): the one run as npx runs it (npm_lifecycle_event=npx) stops when its parent
    // is gone; by then the other has lost its parent just as long, and serves on.
    const script = `"${process.execPath}" "${CLI}" serve --port 0 --json --log silent & read done`;
    const [underNpx, alone] = await Promise.all([
      start('sh', ['-c', script], { cwd: ROOT, env: { npm_lifecycle_event: 'npx' } }),
      start('sh', ['-c', script], { cwd: ROOT, env: { npm_lifecycle_event: undefined } }),
    ]);
    for (const { child } of [underNpx, alone]) child.stdin!.end('\n');
    await Promise.all([underNpx, alone].map(({ child }) => new Promise((resolve) => child.once('exit', resolve))));
    const stopped = await within(
      underNpx.output,
      20_000,
      'the server started as by npx ran on 20 s after its shell ended',
    );
    expect(stopped.split('\n').slice(1)).toEqual(['{"kind":"closing","reason":"npx-exited"}', '']);
    await allGone([underNpx.ready.pid]);
    expect(alive(alone.ready.pid)).toBe(true);
    expect(await answers(portOf(alone.ready.url))).toBe(true);
    process.kill(alone.ready.pid, 'SIGTERM');
    expect((await alone.output).split('\n').slice(1)).toEqual(['{"kind":"closing","signal":"SIGTERM"}', '']);
  });
});

describe('startedByNpx', () => {
  it('is npm exec (npx) alone: npm runs its bin with npm_lifecycle_event=npx, and a package script with its own name', () => {
    expect(startedByNpx({ npm_lifecycle_event: 'npx', npm_command: 'exec' })).toBe(true);
    expect(startedByNpx({ npm_lifecycle_event: 'start', npm_command: 'run-script' })).toBe(false);
    expect(startedByNpx({})).toBe(false);
  });
});
