/** Where a command that serves (`serve`, `demo NAME --ui`) listens: --port's value, and the exit of a failed listen. */
import { fail } from './exit.js';

/** Exit code of a server that could not bind its port (busy, or not permitted): a script may try another. */
const EXIT_NO_PORT = 3;

/** --port N (or PORT, named by `from`): 4747 when absent. */
export function portOf(flag: string | undefined, from = '--port'): number {
  const port = flag === undefined ? 4747 : Number(flag);
  if (flag === '' || !Number.isInteger(port) || port < 0 || port > 65535)
    fail(`${from} must be an integer from 0 to 65535 (got "${flag}")`);
  return port;
}

/** Why listen() failed, as the exit it calls for: a busy or forbidden port exits 3; undefined for any other error. */
export function listenFailure(error: unknown, port: number): never | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    fail(
      `port ${port} is busy: stop what uses it, choose another with --port N, or use --port 0 for a free one`,
      EXIT_NO_PORT,
    );
  if (code === 'EACCES') fail(`no permission to bind port ${port}: use a port above 1023`, EXIT_NO_PORT);
  return undefined;
}
