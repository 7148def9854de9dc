/**
 * The command line's refusals (arguments.ts, suggest.ts): one line saying what is wrong, an unknown option or
 * command with the closest known one of that command; and the built CLI printing it with the usual hint, exit 2.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_OPTIONS, OPTIONS, parseCommandLine, unknownCommand } from './arguments.js';
import { assertBuilt, killAll, runCli } from './cli-run.js';
import { commandUsage, COMMANDS } from './help.js';
import { alternatives, closest } from './suggest.js';

describe('closest', () => {
  const names = [
    'port',
    'host',
    'seed',
    'clock',
    'start',
    'state',
    'control-token',
    'max-stored-answers',
    'help',
    'version',
  ];

  it('offers a name one or two edits away, a swap of neighbours counting as one, in any letter case', () => {
    expect(closest('prot', names)).toEqual(['port']);
    expect(closest('Port', names)).toEqual(['port']);
    expect(closest('seeds', names)).toEqual(['seed']);
    expect(closest('contrl-tokn', names)).toEqual(['control-token']);
    expect(closest('hlep', names)).toEqual(['help']);
  });

  it('offers every name at the best distance, and only those', () => {
    expect(closest('stat', names)).toEqual(['start', 'state']);
    expect(closest('hort', names)).toEqual(['port', 'host']);
  });

  it('offers the one name a word begins, when no name is close', () => {
    expect(closest('max-stored', names)).toEqual(['max-stored-answers']);
    expect(closest('control', names)).toEqual(['control-token']);
    // Begun by two: no guess.
    expect(closest('sta', ['starting', 'state-file'])).toEqual([]);
  });

  it('offers nothing that is no better than a guess', () => {
    expect(closest('xyz', names)).toEqual([]);
    expect(closest('ui', ['port', 'no-open'])).toEqual([]);
    expect(closest('listen', names)).toEqual([]);
    // Two edits of a short word leave too little of it.
    expect(closest('pt', ['ui'])).toEqual([]);
    expect(closest('pt', ['port'])).toEqual(['port']);
  });

  it('joins alternatives as a sentence does', () => {
    expect(alternatives(['a'])).toBe('a');
    expect(alternatives(['a', 'b'])).toBe('a or b');
    expect(alternatives(['a', 'b', 'c'])).toBe('a, b or c');
  });
});

describe('parseCommandLine', () => {
  it.each([
    [['--prot', '4747'], 'unknown option --prot (did you mean --port?)'],
    [['--prot=4747'], 'unknown option --prot (did you mean --port?)'],
    [['serve', '--contorl-token', 't'], 'unknown option --contorl-token (did you mean --control-token?)'],
    [['-port', '4747'], 'unknown option -port (did you mean --port?)'],
    [['--hlep'], 'unknown option --hlep (did you mean --help?)'],
    [['--bogus'], 'unknown option --bogus'],
    [['-x'], 'unknown option -x'],
    // The closest of the command's own options: --ui is demo's, --base-url conformance's.
    [['demo', 'x', '--uii'], 'unknown option --uii (did you mean --ui?)'],
    [['--uii'], 'unknown option --uii'],
    [['conformance', '--base-ur', 'http://x'], 'unknown option --base-ur (did you mean --base-url?)'],
    [['openapi', '--control'], 'unknown option --control (did you mean --controls?)'],
    [['--control', 'x'], 'unknown option --control (did you mean --control-token?)'],
    // What follows an unknown option is read as a positional, never as the command.
    [['--prot', 'demo'], 'unknown option --prot (did you mean --port?)'],
    [['--port'], '--port needs a value'],
    [
      ['--port', '--json'],
      '--port needs a value, and --json is read as an option (a value that begins with "-" is written --port=--json)',
    ],
    [
      ['--seed', '-5'],
      '--seed needs a value, and -5 is read as an option (a value that begins with "-" is written --seed=-5)',
    ],
    [['--json=yes'], '--json takes no value (got --json=yes)'],
  ])('%j: %s', (argv, message) => {
    expect(parseCommandLine(argv)).toBe(message);
  });

  it('parses what is right, short options grouped too', () => {
    expect(parseCommandLine(['serve', '--port', '0', '--seed=-5', '-hv'])).toMatchObject({
      positionals: ['serve'],
      values: { port: '0', seed: '-5', help: true, version: true },
    });
  });

  it('suggests only options its command takes, each of which its help shows', () => {
    const help = readFileSync(new URL('../examples/cli-help.txt', import.meta.url), 'utf8');
    for (const command of Object.keys(COMMAND_OPTIONS) as (keyof typeof COMMAND_OPTIONS)[]) {
      expect(COMMANDS).toContain(command);
      const text = commandUsage(help, command)!;
      for (const option of COMMAND_OPTIONS[command]) expect(text, `${command} --${option}`).toContain(`--${option}`);
    }
    const taken = new Set<string>(Object.values(COMMAND_OPTIONS).flat());
    expect(Object.keys(OPTIONS).filter((option) => !taken.has(option))).toEqual(['help', 'version']);
  });
});

describe('unknownCommand', () => {
  it('names the closest command, or lists them all', () => {
    expect(unknownCommand('serv')).toBe('unknown command serv (did you mean serve?)');
    expect(unknownCommand('demos')).toBe('unknown command demos (did you mean demo?)');
    expect(unknownCommand('open-api')).toBe('unknown command open-api (did you mean openapi?)');
    expect(unknownCommand('frobnicate')).toBe(
      'unknown command "frobnicate" (commands: serve, demo, openapi, conformance, check-receiver, explore, clock, fault, events, logs, report, help)',
    );
  });
});

describe('the built CLI', () => {
  beforeAll(assertBuilt);
  afterEach(killAll);

  it.each([
    [['--prot', '4747'], 'unknown option --prot (did you mean --port?)'],
    [['serv'], 'unknown command serv (did you mean serve?)'],
  ])('%j prints one line and the hint on stderr, nothing on stdout, and exits 2', async (args, message) => {
    const run = runCli(args, { timeoutMs: 10_000 });
    expect(await run.exited).toEqual({ code: 2, signal: null });
    await run.closed;
    expect(run.stderr).toBe(`catalog-emulator: ${message}\nRun "catalog-emulator --help" for usage.\n`);
    expect(run.stdout).toBe('');
  });
});
