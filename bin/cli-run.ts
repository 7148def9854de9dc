/**
 * The built CLI (dist/bin/catalog-emulator.js; `npm test` builds before vitest) started as a user starts it, for
 * the tests that run it: a real process whose output is collected as it comes, and killed after its test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { wantsColor } from './log-format.js';
import { exploreCommand } from './explore.js';
import { isRemoteCommand, runRemote, told } from './remote-run.js';
import type { Io } from './remote-client.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CLI = fileURLToPath(new URL('../dist/bin/catalog-emulator.js', import.meta.url));

export interface Run {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  /** Resolves on exit with the code and signal; with a time limit, rejects (and kills) when it passes first. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Resolves once the process's output is all read: 'exit' may come before the last of it does (on a loaded
   * machine, a line written just before exiting), 'close' after.
   */
  readonly closed: Promise<void>;
}

const running = new Set<ChildProcess>();

/** A child this test started some other way, to be killed with the runs after the test. */
export function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
}

/** How a command ended: its exit code and all it printed. */
export interface Done {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** What it showed in its status line, in order (null: cleared), when run as on a terminal (runHere's `terminal`). */
  readonly status?: readonly (string | null)[];
}

/** The environment of a command the tests run: no colour (the caller's terminal settings never reach an assertion). */
function environment(env: Readonly<Record<string, string | undefined>> = {}): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, ...env };
}

/**
 * `catalog-emulator COMMAND ARGS`, for a command that takes an Io (clock, fault, events, logs, report, explore), run
 * in this process as the bin runs it (remote-run.ts) with the environment runCli gives a process. Each process
 * of the built CLI pays Node's start and the bundle's load, and the tests run these commands hundreds of times:
 * they run them here, and a few tests spawn the bin to prove it wires each command to the process (runCli).
 */
export async function runHere(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
  { terminal = false }: { readonly terminal?: boolean } = {},
): Promise<Done> {
  const [command, ...rest] = args;
  if (command !== 'explore' && !isRemoteCommand(command))
    throw new Error(`${String(command)} is not a command that takes an Io`);
  const lines = { stdout: '', stderr: '' };
  const variables = Object.fromEntries(
    Object.entries(environment(env)).filter(([, value]) => value !== undefined),
  ) as NodeJS.ProcessEnv;
  const io: Io = {
    env: variables,
    out: (line) => {
      lines.stdout += `${line}\n`;
      return true;
    },
    drained: () => Promise.resolve(),
    err: (line) => void (lines.stderr += `${line}\n`),
    color: wantsColor(false, variables),
    stop: new AbortController(),
    ...(terminal ? { status: (line: string | null) => void status.push(line) } : {}),
  };
  const status: (string | null)[] = [];
  const code =
    command === 'explore'
      ? await told('explore', () => exploreCommand(rest, io), io)
      : await runRemote(command, rest, io);
  return { code, ...lines, ...(terminal ? { status } : {}) };
}

interface RunOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs?: number;
  readonly via?: readonly [string, ...string[]];
}

/**
 * Starts `catalog-emulator ARGS` from the project's folder, without colour (NO_COLOR set, FORCE_COLOR unset, so
 * the caller's terminal settings never reach an assertion), with `env` on top; `timeoutMs` bounds its life; `via`
 * is a command that execs it, given node and its arguments after its own (a shell that sets a limit first).
 */
export function runCli(args: readonly string[], options: RunOptions = {}): Run {
  const env = environment(options.env);
  const [command, ...through] = options.via === undefined ? [process.execPath] : [...options.via, process.execPath];
  const child = spawn(command, [...through, CLI, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  track(child);
  const { timeoutMs } = options;
  const run: Run = {
    child,
    stdout: '',
    stderr: '',
    closed: new Promise((resolve) => child.once('close', () => resolve())),
    exited: new Promise((resolve, reject) => {
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              child.kill('SIGKILL');
              reject(
                new Error(
                  `catalog-emulator ${args.join(' ')} did not exit within ${timeoutMs} ms\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`,
                ),
              );
            }, timeoutMs);
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal });
      });
    }),
  };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (run.stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (run.stderr += chunk));
  // A test that expects a live server handles the rejection itself; no unhandled one otherwise.
  run.exited.catch(() => undefined);
  return run;
}

/** Fails at once, saying what to do, when the CLI has not been built. */
export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
}

/** Kills every process a test started and waits until each is gone. */
export async function killAll(): Promise<void> {
  const children = [...running];
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(
    children.map((child) =>
      child.exitCode !== null || child.signalCode !== null
        ? undefined
        : new Promise((resolve) => child.once('exit', resolve)),
    ),
  );
  running.clear();
}
