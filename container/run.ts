/**
 * Commands of the image test (podman, npm, apt-get), each run to its end with its output kept
 * (spec-tests/support/command.ts), in the environment of a user's shell.
 */
import { runCommand, succeeded, type Ran } from '../spec-tests/support/command.js';

/** The environment of a user's shell: none of the variables this vitest run set for its own workers. */
export const ENV: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries({ ...process.env, NO_COLOR: '1' }).filter(
    ([name]) => !/^(VITEST|TEST$|NODE_ENV$|NODE_OPTIONS$|FORCE_COLOR$)/.test(name),
  ),
);

interface Options {
  readonly cwd?: string;
  readonly timeoutMs?: number;
  /** Variables on top of ENV. */
  readonly env?: Readonly<Record<string, string>>;
}

export function run(command: string, args: readonly string[], options: Options = {}): Promise<Ran> {
  return runCommand(command, args, {
    cwd: options.cwd,
    env: { ...ENV, ...options.env },
    timeoutMs: options.timeoutMs ?? 60_000,
  });
}

/** `run`, which must exit 0: its output is in the failure message otherwise (with what to do about podman's known failures). */
export async function ok(command: string, args: readonly string[], options: Options = {}): Promise<Ran> {
  const ran = await run(command, args, options);
  return succeeded(ran, `${command} ${args.join(' ')}`, hint(ran.stderr));
}

/** What to do about a failure podman is known to give on these machines. */
function hint(stderr: string): string {
  if (/setrlimit RLIMIT_(NOFILE|NPROC)/.test(stderr))
    return ': podman asks for more open files or processes than this machine allows; .ci/run writes the /etc/containers/containers.conf that fixes it';
  if (/cgroups in hybrid mode/.test(stderr))
    return ": crun does not run on this host; .ci/run installs runc and makes it podman's runtime";
  return '';
}
