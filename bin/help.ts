/**
 * `catalog-emulator help [COMMAND]`: the usage text, or the part of it about one command, cut from the one usage
 * text (usage.ts assembles it from each command's part), so the two can never disagree.
 */
import { fail } from './exit.js';

/** The commands, in the order the usage text lists them. */
export const COMMANDS = [
  'serve',
  'demo',
  'openapi',
  'conformance',
  'check-receiver',
  'explore',
  'clock',
  'fault',
  'events',
  'logs',
  'report',
  'help',
] as const;
export type CommandName = (typeof COMMANDS)[number];

/** A command's part of the usage text: its lines of the Usage block, and its "Options of …" section if it has one. */
export interface CommandHelp {
  readonly usage: string;
  readonly options?: string;
}

export const HELP_HELP: CommandHelp = {
  usage: `  catalog-emulator help [COMMAND]      this text, or one command's part of it (also --help)`,
};

/** `help [COMMAND]`: `usage`, or the part of it about one command. */
export function printHelp(args: readonly string[], usage: string): void {
  const [command, ...extra] = args;
  if (extra.length > 0) fail(`help takes one command (got "${args.join(' ')}")`);
  const text = command === undefined ? usage : commandUsage(usage, command);
  if (text === undefined) fail(`help: no command "${command}" (commands: ${COMMANDS.join(', ')})`);
  process.stdout.write(text);
}

/** The commands an "Options of …:" heading names: "Options of clock, fault and logs (…):" names three. */
const namedBy = (heading: string): string[] =>
  heading
    .slice('Options of '.length, heading.lastIndexOf(':'))
    .replace(/\s*\(.*\)$/, '')
    .split(/, | and /);

/**
 * The part of `usage` about `command`: its line of the Usage block with the lines indented under it, and each
 * options section whose heading names it (from "Options of COMMAND:", or "Options of A, COMMAND and B (…):", to the
 * next "Options of" heading or the end). Undefined for a command `usage` does not have.
 */
export function commandUsage(usage: string, command: string): string | undefined {
  if (!(COMMANDS as readonly string[]).includes(command)) return undefined;
  const lines = usage.split('\n');
  const from = lines.indexOf('Usage:');
  // `serve` is written `[serve]`: the default command.
  const at = lines.findIndex(
    (line, i) =>
      i > from &&
      (line.startsWith(`  catalog-emulator ${command} `) ||
        line === `  catalog-emulator ${command}` ||
        line.startsWith(`  catalog-emulator [${command}] `)),
  );
  if (from < 0 || at < 0) return undefined;
  let end = at + 1;
  while (end < lines.length && /^ {20,}\S/.test(lines[end]!)) end++;
  const own = `Usage:\n${lines.slice(at, end).join('\n')}\n`;
  const sections = lines.flatMap((line, options) => {
    if (!line.startsWith('Options of ') || !namedBy(line).includes(command)) return [];
    const next = lines.findIndex((other, i) => i > options && other.startsWith('Options of '));
    return [
      lines
        .slice(options, next < 0 ? undefined : next)
        .join('\n')
        .replace(/\n+$/, ''),
    ];
  });
  return sections.reduce((text, section) => `${text}\n${section}\n`, own);
}
