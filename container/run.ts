/**
 * Commands of the image test (podman, npm, apt-get), each run to its end with its output kept; one still running
 * after its time limit is killed and fails the step with what it printed.
 */
import { spawn } from 'node:child_process';

export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment of a user's shell: none of the variables this vitest run set for its own workers. */
export const ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries({ ...process.env, NO_COLOR: '1' }).filter(([name]) => !/^(VITEST|TEST$|NODE_ENV$|NODE_OPTIONS$|FORCE_COLOR$)/.test(name)));

interface Options {
  readonly cwd?: string;
  readonly timeoutMs?: number;
  /** Variables on top of ENV. */
  readonly env?: Readonly<Record<string, string>>;
}

export function run(command: string, args: readonly string[], options: Options = {}): Promise<Ran> {
  const { cwd, timeoutMs = 60_000 } = options;
  const child = spawn(command, args, { cwd, env: { ...ENV, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not end within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `run`, which must exit 0: its output is in the failure message otherwise. */
export async function ok(command: string, args: readonly string[], options: Options = {}): Promise<Ran> {
  const ran = await run(command, args, options);
  if (ran.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${ran.code}${hint(ran.stderr)}\nstdout:\n${ran.stdout}\nstderr:\n${ran.stderr}`);
  return ran;
}

/** What to do about a failure podman is known to give on these machines. */
function hint(stderr: string): string {
  if (/setrlimit RLIMIT_(NOFILE|NPROC)/.test(stderr)) return ': podman asks for more open files or processes than this machine allows; .ci/run writes the /etc/containers/containers.conf that fixes it';
  if (/cgroups in hybrid mode/.test(stderr)) return ': crun does not run on this host; .ci/run installs runc and makes it podman\'s runtime';
  return '';
}
