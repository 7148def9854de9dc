/**
 * `catalog-emulator demo [NAME] [--ui [--port N] [--no-open]]`: the teaching scenarios (src/demos/): their list, one
 * narrated on the terminal, or one served and paced from its inspector page.
 */
import { demos, DemoGate, VERSION, type createEmulator, type Demo, type RunningServer } from '../src/index.js';
import { COMMAND_OPTIONS } from './arguments.js';
import { fail } from './exit.js';
import type { CommandHelp } from './help.js';
import { listenFailure, portOf } from './listen.js';
import { openInBrowser } from './open-browser.js';
import { onStop, type StopReason } from './stop.js';

/** Its lines of the Usage block. */
export const DEMO_HELP: CommandHelp = {
  usage: `  catalog-emulator demo [NAME]         list the teaching scenarios, or run one
                                       (with --ui [--port N] [--no-open]: on a server, each step
                                       waiting for "Next step" on its inspector page, which opens
                                       in your browser, or for Enter on the terminal)`,
};

interface DemoFlags {
  ui?: boolean;
  port?: string;
  'no-open'?: boolean;
  [flag: string]: unknown;
}

/** `demo [NAME] [--ui [--port N] [--no-open]]`: the list, one scenario narrated, or one paced from the inspector. */
export async function runDemo(args: string[], flags: DemoFlags): Promise<void> {
  const [name, ...extra] = args;
  if (extra.length > 0) fail(`demo takes one name (got "${args.join(' ')}")`);
  const takes: readonly string[] = COMMAND_OPTIONS.demo;
  const other = Object.keys(flags).find((flag) => !takes.includes(flag) && flags[flag] !== undefined);
  if (other !== undefined) fail(`--${other} is not an option of the demo command (it takes --ui, --port N, --no-open)`);
  if (!flags.ui)
    for (const flag of ['port', 'no-open'] as const)
      if (flags[flag] !== undefined) fail(`--${flag} is an option of demo NAME --ui`);
  const known = `demos: ${demos.map((d) => d.name).join(', ')}`;
  if (name === undefined) {
    if (flags.ui) fail(`demo --ui needs the name of a demo (${known})`);
    process.stdout.write('Teaching scenarios (run one with: catalog-emulator demo NAME):\n');
    const width = Math.max(...demos.map((d) => d.name.length)) + 2;
    for (const demo of demos) process.stdout.write(`  ${demo.name.padEnd(width)}${demo.summary}\n`);
    return;
  }
  const demo = demos.find((d) => d.name === name);
  if (!demo) fail(`no demo "${name}" (${known})`);
  if (flags.ui) return runDemoOnUi(demo, portOf(flags.port), !flags['no-open']);
  await demo.run((line) => process.stdout.write(`${line}\n`));
}

/**
 * `demo NAME --ui`: the scenario's emulator serves on 127.0.0.1:PORT while the scenario runs, narrated here as
 * without --ui; before each step it waits for "Next step" on the inspector page (POST
 * /_emulator/inspector/demo/next) or, on a terminal, Enter. After the last step it serves on until SIGINT or SIGTERM.
 */
async function runDemoOnUi(demo: Demo, port: number, open: boolean): Promise<void> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const gate = new DemoGate(demo);
  const tty = process.stdin.isTTY === true;
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);

  let emulator: ReturnType<typeof createEmulator> | undefined;
  let listening: Promise<RunningServer> | undefined;
  let server: RunningServer | undefined;
  let closing = false;
  const shutdown = (reason: StopReason) => {
    if (closing) return;
    closing = true;
    out(`\n${reason === 'npx-exited' ? 'npx exited' : reason}: closing`);
    void (emulator?.close() ?? Promise.resolve()).then(() => process.exit(0));
  };
  onStop(shutdown);

  // Enter on a terminal releases a step too. Not in raw mode: Ctrl+C stays the terminal's SIGINT.
  const keyboard = tty
    ? (await import('node:readline')).createInterface({ input: process.stdin, terminal: false })
    : undefined;
  keyboard?.on('line', () => gate.next());

  const started = async () => {
    server = await listening!;
    // A listen() server lets its process end; this one serves until a signal.
    server.ref();
    out(`catalog-emulator ${VERSION} demo ${demo.name}, listening on ${server.url}`);
    out(`  inspector: ${server.inspector}`);
    out(`  Each step waits for "Next step" on the inspector page${tty ? ', or for Enter here' : ''}.`);
    // The demo's server always has its controls, so its inspector.
    if (open)
      openInBrowser(server.inspector!, (problem) =>
        process.stderr.write(
          `catalog-emulator: could not open a browser (${problem}); open ${server?.inspector} yourself\n`,
        ),
      );
  };
  try {
    await demo.run(
      (line) => {
        out(line);
        gate.line(line);
      },
      {
        begin: (emu) => {
          emulator = emu;
          gate.begin(emu);
          listening = emu.listen({ port, host: '127.0.0.1' });
          // Awaited by the first step; this only keeps an early failure from being reported as unhandled.
          listening.catch(() => undefined);
        },
        step: async (n, text) => {
          if (server === undefined) await started();
          out(`\n-- step ${n}: waiting for "Next step"${tty ? ' or Enter' : ''} --`);
          return gate.step(n, text);
        },
      },
    );
    gate.finish();
    out(`\nThe demo is over. The inspector stays at ${server?.inspector}: stop with Ctrl+C (SIGINT) or SIGTERM.`);
  } catch (error) {
    if (server === undefined) {
      listenFailure(error, port);
      throw error;
    }
    // The page drives the same emulator (a reset, a fault, the clock): a scenario that trips over it stops, the server stays.
    gate.finish((error as Error).message);
    process.stderr.write(
      `catalog-emulator: the demo stopped: ${(error as Error).message}; the inspector stays at ${server.inspector}\n`,
    );
  }
  keyboard?.close();
}
