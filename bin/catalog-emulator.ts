#!/usr/bin/env node
/**
 * catalog-emulator [serve] [options]          serve.ts
 * catalog-emulator demo [NAME] [--ui …]       demo.ts
 * catalog-emulator openapi [--controls]       openapi.ts
 * catalog-emulator conformance …              conformance.ts
 * catalog-emulator check-receiver …           check-receiver.ts
 * catalog-emulator explore … -- COMMAND        explore.ts
 * catalog-emulator clock|fault|events|logs|report …   a running server's controls (remote-run.ts: clock.ts, fault.ts,
 *                                             events.ts, logs-tail.ts, report.ts)
 * catalog-emulator help [COMMAND]             help.ts, the text assembled by usage.ts
 *
 * The entry: it reads the command line (arguments.ts: every option and the commands that take it) and hands it to
 * its command, refusing an option given to a command that does not take it. docs/cli.md says what each does.
 * Imports the public entry only.
 */
import { VERSION } from '../src/index.js';
import { parseCommandLine, strayOption, unknownCommand } from './arguments.js';
import { checkReceiverCommand } from './check-receiver.js';
import { conformance } from './conformance.js';
import { runDemo } from './demo.js';
import { fail } from './exit.js';
import { commandUsage, printHelp } from './help.js';
import { printDocument } from './openapi.js';
import { exploreCommand } from './explore.js';
import { isRemoteCommand, runInProcess, runRemoteCommand } from './remote-run.js';
import { serve } from './serve.js';
import { usage } from './usage.js';

async function main(argv: string[]): Promise<void> {
  // The commands for a running server read their own flags.
  const [first] = argv;
  if (isRemoteCommand(first)) return runRemoteCommand(first, argv.slice(1), () => commandUsage(usage(), first)!);
  if (first === 'explore') {
    const args = argv.slice(1);
    return runInProcess(
      'explore',
      (io) => exploreCommand(args, io),
      args,
      () => commandUsage(usage(), 'explore')!,
    );
  }
  const parsed = parseCommandLine(argv);
  if (typeof parsed === 'string') fail(parsed);
  const { values, positionals } = parsed;
  if (values.help) return void process.stdout.write(usage());
  if (values.version) return void process.stdout.write(`${VERSION}\n`);
  const [command = 'serve', ...rest] = positionals;
  if (command === 'help') return printHelp(rest, usage());
  if (command === 'openapi') return printDocument(rest, values);
  if (values.controls) fail('--controls is an option of the openapi command');
  if (command === 'conformance') return conformance(rest, values);
  if (command === 'check-receiver') return checkReceiverCommand(rest, values);
  const stray = strayOption(values);
  if (stray !== undefined) fail(stray);
  if (command === 'demo') return runDemo(rest, values);
  if (command !== 'serve') fail(unknownCommand(command));
  return serve(rest, values);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`catalog-emulator: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
