/**
 * The command line: every option the CLI knows, which command takes which, and what is wrong with a command line
 * that does not parse, said in one line: an unknown option or command with the closest known one ("did you mean
 * --port?"), an option missing its value, a switch given one.
 */
import { parseArgs } from 'node:util';
import { COMMANDS } from './help.js';
import type { RemoteCommand } from './remote-actions.js';
import { alternatives, closest } from './suggest.js';

/** Every option of every command, as parseArgs reads them. */
export const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  seed: { type: 'string' },
  clock: { type: 'string' },
  start: { type: 'string' },
  route: { type: 'string', multiple: true },
  log: { type: 'string' },
  'allow-host': { type: 'string', multiple: true },
  'control-token': { type: 'string' },
  'max-stored-answers': { type: 'string' },
  'history-entries': { type: 'string' },
  'history-bytes': { type: 'string' },
  'log-inspector': { type: 'boolean' },
  state: { type: 'string' },
  'state-sync': { type: 'boolean' },
  fixtures: { type: 'string' },
  quiet: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  'ready-file': { type: 'string' },
  controls: { type: 'boolean' },
  'no-controls': { type: 'boolean' },
  'base-url': { type: 'string' },
  token: { type: 'string' },
  'token-for': { type: 'string', multiple: true },
  'other-token': { type: 'string' },
  'timeout-ms': { type: 'string' },
  'request-timeout-ms': { type: 'string' },
  'max-body': { type: 'string' },
  deadline: { type: 'string' },
  files: { type: 'string', multiple: true },
  report: { type: 'string' },
  url: { type: 'string' },
  secret: { type: 'string' },
  'previous-secret': { type: 'string' },
  'cnpj-root': { type: 'string' },
  ui: { type: 'boolean' },
  'no-open': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

type Option = keyof typeof OPTIONS;
/** The commands whose options this table holds: those for a running server, and explore, read their own. */
type Command = Exclude<(typeof COMMANDS)[number], RemoteCommand | 'explore'>;

/** The options of conformance alone (its --json is serve's too). */
const CONFORMANCE_OPTIONS = [
  'base-url',
  'token',
  'token-for',
  'other-token',
  'timeout-ms',
  'request-timeout-ms',
  'max-body',
  'deadline',
  'files',
  'report',
] as const satisfies readonly Option[];

/** The options each command takes, besides --help and --version, which every command takes. */
export const COMMAND_OPTIONS = {
  serve: [
    'port',
    'host',
    'seed',
    'clock',
    'start',
    'route',
    'log',
    'quiet',
    'json',
    'ready-file',
    'max-stored-answers',
    'history-entries',
    'history-bytes',
    'log-inspector',
    'allow-host',
    'control-token',
    'no-controls',
    'state',
    'state-sync',
    'fixtures',
    'report',
  ],
  demo: ['ui', 'port', 'no-open'],
  openapi: ['controls'],
  conformance: [...CONFORMANCE_OPTIONS, 'json'],
  'check-receiver': ['url', 'secret', 'previous-secret', 'cnpj-root', 'deadline', 'json'],
  help: [],
} as const satisfies Record<Command, readonly Option[]>;

/** The letters of the short options (-h, -v). */
const SHORT = new Set<string>(Object.values(OPTIONS).flatMap((option) => ('short' in option ? [option.short] : [])));

const parse = (args: string[]) => parseArgs({ args, allowPositionals: true, strict: true, options: OPTIONS });
type Parsed = ReturnType<typeof parse>;

/** `argv` parsed; a string saying in one line what is wrong when it does not parse. */
export function parseCommandLine(argv: string[]): Parsed | string {
  try {
    return parse(argv);
  } catch (error) {
    return problemOf(argv) ?? (error as Error).message;
  }
}

/** What a command line that parseArgs refused does wrong, found option by option; undefined if none is found. */
function problemOf(argv: string[]): string | undefined {
  const { tokens } = parseArgs({ args: argv, allowPositionals: true, strict: false, tokens: true, options: OPTIONS });
  // The command, when named before the option at `index` (what follows an unknown option may be its value).
  const commandBefore = (index: number): string => {
    const named = tokens.find((token) => token.kind === 'positional' && token.index < index);
    return named?.kind === 'positional' ? named.value : 'serve';
  };
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const raw = argv[token.index] ?? token.rawName;
    const written = token.rawName;
    // `-port` reads as the letters -p -o -r -t: named as typed, a long option's name missing a dash.
    const group = !raw.startsWith('--') && raw.length > 2 ? raw.split('=')[0]! : undefined;
    if (group !== undefined && [...group.slice(1)].some((letter) => !SHORT.has(letter)))
      return unknownOption(group, commandBefore(token.index));
    if (!Object.hasOwn(OPTIONS, token.name)) return unknownOption(written, commandBefore(token.index));
    const option = OPTIONS[token.name as Option];
    if (option.type === 'string' && token.value === undefined) return `${written} needs a value`;
    // parseArgs refuses `--seed -5` as ambiguous: the value may be a forgotten one's next option.
    if (option.type === 'string' && token.inlineValue === false && token.value?.startsWith('-') === true)
      return `${written} needs a value, and ${token.value} is read as an option (a value that begins with "-" is written ${written}=${token.value})`;
    if (option.type === 'boolean' && token.inlineValue === true) return `${written} takes no value (got ${raw})`;
  }
  return undefined;
}

/** The first option of `values` that `command` does not take, said as its refusal; undefined when it takes them all. */
export function foreignOption(command: Command, values: Readonly<Record<string, unknown>>): string | undefined {
  const takes: readonly string[] = COMMAND_OPTIONS[command];
  const other = Object.keys(values).find(
    (flag) => flag !== 'help' && flag !== 'version' && !takes.includes(flag) && values[flag] !== undefined,
  );
  return other === undefined
    ? undefined
    : `--${other} is not an option of the ${command} command (it takes ${takes.map((f) => `--${f}`).join(', ')})`;
}

/**
 * An option of conformance or check-receiver given to another command (demo, serve, or one unknown), said as the
 * command it belongs to; undefined when there is none. (--report is serve's too, and --json everyone's.)
 */
export function strayOption(values: Readonly<Record<string, unknown>>): string | undefined {
  const conformance: readonly string[] = CONFORMANCE_OPTIONS;
  const receiver = COMMAND_OPTIONS['check-receiver'].find(
    (flag) => flag !== 'json' && !conformance.includes(flag) && values[flag] !== undefined,
  );
  if (receiver !== undefined) return `--${receiver} is an option of the check-receiver command`;
  const tester = CONFORMANCE_OPTIONS.find((flag) => flag !== 'report' && values[flag] !== undefined);
  return tester === undefined ? undefined : `--${tester} is an option of the conformance command`;
}

/** An unknown option, with the closest of those `command` takes (every command's, for an unknown command). */
function unknownOption(written: string, command: string): string {
  const known: readonly Option[] = Object.hasOwn(COMMAND_OPTIONS, command)
    ? COMMAND_OPTIONS[command as Command]
    : (Object.keys(OPTIONS) as Option[]);
  const names = [...known, 'help', 'version'];
  const near = closest(written.replace(/^--?/, ''), names);
  return `unknown option ${written}${near.length === 0 ? '' : ` (did you mean ${alternatives(near.map((name) => `--${name}`))}?)`}`;
}

/** An unknown command, with the closest known one, or the list of them when none is close. */
export function unknownCommand(command: string): string {
  const near = closest(command, COMMANDS);
  return near.length === 0
    ? `unknown command "${command}" (commands: ${COMMANDS.join(', ')})`
    : `unknown command ${command} (did you mean ${alternatives(near)}?)`;
}
