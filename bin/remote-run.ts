/**
 * The commands for a running server as the bin runs them: `catalog-emulator clock|fault|events|logs|report …`,
 * dispatched before the bin reads its own flags (each command reads its own: remote-commands.ts, logs-tail.ts).
 * Prints a command's help for -h/--help; a CommandExit as one line on stderr (a usage error also says where the
 * usage is); exits with the command's code once its output is out.
 */
import { CommandExit, type Io } from './remote-client.js';
import { REMOTE_COMMANDS, runRemote, type RemoteCommand } from './remote-commands.js';
import { wantsColor } from './log-format.js';

export function isRemoteCommand(word: string | undefined): word is RemoteCommand {
  return (REMOTE_COMMANDS as readonly (string | undefined)[]).includes(word);
}

/** Runs `command` and exits the process with its code; `help` is the command's part of the usage text. */
export async function runRemoteCommand(command: RemoteCommand, args: string[], help: string): Promise<never> {
  // A reader that closes its end (`… | head -1`) ends the output, not the command with EPIPE.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  const io: Io = {
    env: process.env,
    out: (line) => void process.stdout.write(`${line}\n`),
    err: (line) => void process.stderr.write(`${line}\n`),
    color: wantsColor(process.stdout.isTTY === true, process.env),
  };
  let code: number;
  if (args.includes('-h') || args.includes('--help')) {
    process.stdout.write(help);
    code = 0;
  } else {
    try {
      code = await runRemote(command, args, io);
    } catch (error) {
      if (!(error instanceof CommandExit)) throw error;
      io.err(`catalog-emulator: ${error.message}${error.usage ? `\nRun "catalog-emulator help ${command}" for usage.` : ''}`);
      code = error.code;
    }
  }
  for (const stream of [process.stdout, process.stderr]) await new Promise<void>((resolve) => stream.write('', () => resolve()));
  process.exit(code);
}
