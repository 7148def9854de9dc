/**
 * A command run to its end with its output kept, for the tests that drive programs (the image test's podman and
 * npm, the consumer projects' installs and runners): one still running after its time limit is killed and fails
 * the step with what it printed.
 */
import { spawn } from 'node:child_process';

export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CommandOptions {
  readonly cwd?: string | undefined;
  readonly env: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
}

/** Runs `command` until it ends and its output is all read ('close', not 'exit'); rejects when it cannot start or outlives `timeoutMs`. */
export function runCommand(
  command: string,
  args: readonly string[],
  { cwd, env, timeoutMs }: CommandOptions,
): Promise<Ran> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `${command} ${args.join(' ')}${cwd === undefined ? '' : ` (in ${cwd})`} did not end within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`,
        ),
      );
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `ran`, when it exited 0; otherwise a failure naming `what` ran, with `why` after its exit code, and its output. */
export function succeeded(ran: Ran, what: string, why = ''): Ran {
  if (ran.code !== 0)
    throw new Error(`${what} exited ${ran.code}${why}\nstdout:\n${ran.stdout}\nstderr:\n${ran.stderr}`);
  return ran;
}
