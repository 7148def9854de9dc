/**
 * When a command that serves (`serve`, `demo NAME --ui`) stops: on SIGINT (Ctrl+C), SIGTERM (`kill`, `docker
 * stop`) and SIGHUP (its terminal closed), and, when npx started it, once npx is gone.
 *
 * Why npx needs more than the signals: `npx catalog-emulator` (npm exec) runs the bin in a shell of its own, npx →
 * sh → node where sh is Debian's dash (a shell that execs its one command, such as bash, makes it npx → node).
 * npm forwards SIGINT and SIGTERM to that shell only: dash dies of SIGTERM without passing it on, so `npx
 * catalog-emulator & kill $!` left the server serving on its port with no parent (measured with npm 11.19); npx
 * killed by a signal it does not forward (SIGKILL, SIGHUP) leaves the shell and the server. (A SIGINT sent to npx
 * alone reaches no one: dash waits for its command to end before it acts on one. Ctrl+C signals every process of
 * the terminal's group, the server included.) A process has no
 * portable way to learn that an ancestor died but to look: under npx (npm sets npm_lifecycle_event=npx), every
 * POLL_MS the bin checks that its parent is the one it started with and, where /proc tells (Linux), that the
 * shell's parent is still npx; the server stops when either has changed. Only under npx: elsewhere a parent may end
 * on purpose and leave the server serving (`nohup`, a script that starts it in the background and returns).
 */

import { readFileSync } from 'node:fs';

/** Why a server stops: a signal's name, or `npx-exited`. */
export type StopReason = 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'npx-exited';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** How often the parent is looked at under npx: the server is gone well within 2 s of `kill` on npx. */
const POLL_MS = 200;

/** Whether npx (npm exec) started this process: npm runs its bin with npm_lifecycle_event=npx. */
export function startedByNpx(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.npm_lifecycle_event === 'npx';
}

/**
 * The links from this process up to npx, each a process and the parent it had when this module was loaded (before
 * anything else could take time and let npx end first): this process's own, and its shell's when npx is the
 * shell's parent. Undefined when not started by npx.
 */
const LINKS: readonly (readonly [pid: number, parent: number])[] | undefined = startedByNpx(process.env)
  ? linksToNpx()
  : undefined;

function linksToNpx(): (readonly [number, number])[] {
  const shell = process.ppid;
  const links: (readonly [number, number])[] = [[process.pid, shell]];
  const npx = parentOf(shell);
  if (npx !== undefined && !isNpx(shell) && isNpx(npx)) links.push([shell, npx]);
  return links;
}

/** The parent of `pid` as /proc gives it (Linux); undefined where it cannot be read (no /proc, or no such process). */
function parentOf(pid: number): number | undefined {
  if (pid === process.pid) return process.ppid;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (name) state ppid …": the name may hold spaces and parentheses, so read after its last ")".
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(parent) ? parent : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `pid` is npx: npm names its process "npm exec …" (/proc, Linux). */
function isNpx(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('npm exec ');
  } catch {
    return false;
  }
}

/** Calls `stop` on SIGINT, SIGTERM and SIGHUP, and under npx once npx or its shell is gone. */
export function onStop(stop: (reason: StopReason) => void): void {
  for (const signal of SIGNALS) process.on(signal, () => stop(signal));
  onNpxExit(() => stop('npx-exited'));
}

/** Under npx, calls `gone` once npx or the shell it ran the bin in has ended; nothing elsewhere. */
export function onNpxExit(gone: () => void): void {
  if (LINKS === undefined) return;
  const links = LINKS;
  const watch = setInterval(() => {
    if (links.every(([pid, parent]) => parentOf(pid) === parent)) return;
    clearInterval(watch);
    gone();
  }, POLL_MS);
  // Looking never keeps the process alive: what it serves does.
  watch.unref();
}
