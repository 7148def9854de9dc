/**
 * The commands for a running server as the bin runs them: `catalog-emulator clock|fault|events|logs|report …`,
 * dispatched before the bin reads its own flags (each command reads its own, in its module). Prints a command's
 * help for -h/--help; a CommandExit as one line on stderr (a usage error also says where the usage is); exits with
 * the command's code once its output is out, or at once when the command was stopped (a reader that closed stdout,
 * or `logs tail` told to stop): what stdout still holds is then dropped.
 */
import { clockCommand } from './clock.js';
import { eventsCommand } from './events.js';
import { faultCommand } from './fault.js';
import { wantsColor } from './log-format.js';
import { runLogsTail } from './logs-tail.js';
import { REMOTE_COMMANDS, type RemoteCommand } from './remote-actions.js';
import { CommandExit, type Io } from './remote-client.js';
import { reportCommand } from './report.js';

/** Each command's run: resolves to its exit code (a CommandExit is printed, and exits, by runRemoteCommand). */
const RUN = {
  clock: clockCommand,
  fault: faultCommand,
  events: eventsCommand,
  logs: runLogsTail,
  report: reportCommand,
} satisfies Record<RemoteCommand, (args: string[], io: Io) => Promise<number>>;

export function isRemoteCommand(word: string | undefined): word is RemoteCommand {
  return (REMOTE_COMMANDS as readonly (string | undefined)[]).includes(word);
}

/** Runs `command` and exits the process with its code; `help` gives the command's part of the usage text. */
export function runRemoteCommand(command: RemoteCommand, args: string[], help: () => string): Promise<never> {
  return runInProcess(command, (io) => runRemote(command, args, io), args, help);
}

/** A status line on the terminal `stream`: each line replaces the last, cut to its width; null clears it. */
export function statusLine(stream: Pick<NodeJS.WriteStream, 'columns' | 'write'>): (line: string | null) => void {
  return (line) => {
    const width = Math.max(20, (stream.columns ?? 80) - 1);
    const shown = line === null ? '' : line.length > width ? `${line.slice(0, width - 1)}…` : line;
    stream.write(`\r\x1b[2K${shown}`);
  };
}

/**
 * Runs a command that takes an Io (a command for a running server, or explore) as the bin runs it: its help for
 * -h/--help (before any `--`), a CommandExit told on stderr, and the process's exit with its code once its output is
 * out.
 */
export async function runInProcess(
  name: string,
  run: (io: Io) => Promise<number>,
  args: string[],
  help: () => string,
): Promise<never> {
  const stop = new AbortController();
  // A reader that closes its end (`… | head -1`) ends the output and the command (EPIPE), never with a stack trace.
  process.stdout.on('error', () => stop.abort());
  process.stderr.on('error', () => undefined);
  const io: Io = {
    env: process.env,
    out: (line) => process.stdout.write(`${line}\n`),
    drained: () => drained(process.stdout, stop.signal),
    err: (line) => void process.stderr.write(`${line}\n`),
    color: wantsColor(process.stdout.isTTY === true, process.env),
    stop,
    ...(process.stderr.isTTY ? { status: statusLine(process.stderr) } : {}),
  };
  const own = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  let code: number;
  if (own.includes('-h') || own.includes('--help')) {
    process.stdout.write(help());
    code = 0;
  } else {
    code = await told(name, () => run(io), io);
  }
  // The output is out before the exit, unless the command was stopped: then a reader that reads nothing must not
  // hold it (what stdout still holds is dropped).
  const flushed = (stream: NodeJS.WriteStream) =>
    new Promise<void>((resolve) => {
      stream.write('', () => resolve());
      stop.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  if (!stop.signal.aborted) await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}

/**
 * Runs `command` with `io`, the process left alone: its exit code, a CommandExit told on io.err in one line (a usage
 * error also says where the usage is). The tests run the commands this way, in their own process.
 */
export function runRemote(command: RemoteCommand, args: string[], io: Io): Promise<number> {
  return told(command, () => RUN[command](args, io), io);
}

/** `run`'s exit code; a CommandExit told on io.err in one line (a usage error also says where `name`'s usage is). */
export async function told(name: string, run: () => Promise<number>, io: Io): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof CommandExit)) throw error;
    io.err(
      `catalog-emulator: ${error.message}${error.usage ? `\nRun "catalog-emulator help ${name}" for usage.` : ''}`,
    );
    return error.code;
  }
}

/** Resolves once `stream` holds nothing more than it takes at once, or `stop` aborts. */
function drained(stream: NodeJS.WriteStream, stop: AbortSignal): Promise<void> {
  if (!stream.writableNeedDrain || stop.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stop.removeEventListener('abort', done);
      resolve();
    };
    stream.once('drain', done);
    stop.addEventListener('abort', done, { once: true });
  });
}
