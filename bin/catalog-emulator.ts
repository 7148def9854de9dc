#!/usr/bin/env node
/**
 * catalog-emulator [serve] [--port 4747] [--host 127.0.0.1] [--seed N] [--clock real|manual]
 *                  [--start ISO] [--route FROM=TO]... [--log pretty|json|silent] [--max-stored-answers N]
 *                  [--allow-host NAME]... [--control-token TOKEN] [--state FILE [--state-sync]] [--fixtures FILE]
 *                  [--quiet KINDS] [--log-inspector] [--history-entries N] [--history-bytes SIZE] [--json]
 *                  [--ready-file PATH] [--report FILE]
 * catalog-emulator demo [NAME] [--ui [--port N] [--no-open]]
 * catalog-emulator openapi [--controls]
 * catalog-emulator conformance --base-url URL --token T [--token-for PERMISSION=T]... [--other-token T]
 *                              [--files PATTERN]... [--timeout-ms N] [--request-timeout-ms N] [--max-body SIZE]
 *                              [--deadline DURATION] [--json] [--report FILE]
 * catalog-emulator check-receiver --url URL --secret S [--previous-secret S] [--cnpj-root ROOT]
 *                                 [--deadline DURATION] [--json]
 * catalog-emulator clock|fault|events|logs|report …   (a running server's controls: remote-commands.ts)
 * catalog-emulator help [COMMAND]
 *
 * docs/cli.md says what each does. Imports the public entry only.
 */
import { createEmulator, DEFAULT_START, DemoGate, demos, openApiText, PERMISSIONS, VERSION, type Demo, type Fixtures, type RunningServer } from '../src/index.js';
import { FixturesFileError, readFixturesFile } from './fixtures-file.js';
import { openInBrowser } from './open-browser.js';
import { runCheckReceiver } from './check-receiver.js';
import { COMMAND_OPTIONS, CONFORMANCE_OPTIONS, foreignOption, parseCommandLine, unknownCommand } from './arguments.js';
import { commandUsage, COMMANDS } from './help.js';
import { isRemoteCommand, runRemoteCommand } from './remote-run.js';
import { REMOTE_OPTIONS, REMOTE_USAGE_LINES } from './remote-usage.js';
import { formatActivity, isInspectorOwn, LOG_KINDS, quietKinds, wantsColor } from './log-format.js';
import { parseDuration, parseSize } from './quantities.js';
import { withEnvironment } from './serve-env.js';
import { banner, prepareReadyFile, removeReadyFile, startLine, writeReadyFile } from './start.js';
import { FileError, resolveTarget } from './regular-file.js';
import { checkReportFile, reportFormatOf, reportText, SERVE_REPORTS, writeReportFile, type ReportKind } from './report-file.js';
import type { GuardedFile, ReportFormat } from './report-file.js';
import { logPaths, planState, snapshotToRestore, StateFileError, StateStore, type StatePlan } from './state-file.js';
import { onNpxExit, onStop, type StopReason } from './stop.js';

const USAGE = `catalog-emulator ${VERSION}: the Catalog Integration Service, emulated

Usage:
  catalog-emulator [serve] [options]   serve the API and the /_emulator controls over HTTP
  catalog-emulator demo [NAME]         list the teaching scenarios, or run one
                                       (with --ui [--port N] [--no-open]: on a server, each step
                                       waiting for "Next step" on its inspector page, which opens
                                       in your browser, or for Enter on the terminal)
  catalog-emulator openapi [--controls]
                                       print the OpenAPI 3.1 document of the service API
                                       (with --controls, of the /_emulator controls)
  catalog-emulator conformance --base-url URL --token T [options]
                                       run the spec tests against a deployment of the service,
                                       then print per statement of the specification whether
                                       its tests passed, failed or were skipped (and why)
  catalog-emulator check-receiver --url URL --secret S [options]
                                       send your webhook receiver signed deliveries it must
                                       accept or refuse (forged, altered, stale, replayed...)
                                       and judge each answer
${REMOTE_USAGE_LINES}
  catalog-emulator help [COMMAND]      this text, or one command's part of it (also --help)
  catalog-emulator --version

Options of serve:
  --port N            port to listen on (default 4747; 0 picks a free one)
  --host HOST         address to bind (default 127.0.0.1)
  --seed N            seed of every id, token and secret (default 1)
  --clock MODE        real (default: time flows) or manual (moves only through /_emulator/clock)
  --start ISO         virtual start instant (default: now for real, 2026-01-01T00:00:00Z for manual)
  --route FROM=TO     deliver webhooks for URLs under FROM to the local URL TO (repeatable)
  --log FORMAT        pretty (default: one line per request, control call, delivery attempt and
                      job step; coloured on a terminal unless NO_COLOR is set), json (one JSON
                      object per line) or silent
  --quiet KINDS       leave these out of the log: requests, controls, deliveries, jobs,
                      findings
                      (comma-separated or repeated)
  --log-inspector     also log the inspector page's own calls (/_emulator/ui, /_emulator/inspector/…):
                      left out of the log by default
  --history-entries N the inspector's history: entries kept for all companies (default 10000; 0: none)
  --history-bytes SIZE
                      its bound in bytes of bodies and headers (default 16MiB; e.g. 64MiB; 0: none)
  --json              print the start as one JSON line instead of the banner (url, controls, docs,
                      inspector, companies with their tokens, clock, seed, version, pid); stdout
                      then carries JSON lines only: the log follows as json, or on stderr with
                      --log pretty
  --ready-file PATH   once listening, write that JSON line to PATH atomically (removed on exit)
  --max-stored-answers N
                      idempotent answers kept per company before its oldest is
                      dropped (default 100000)
  --allow-host NAME   also answer requests that name the server NAME in their Host header, e.g. the
                      service name under docker compose (repeatable; "*" admits any host: no Host check)
  --control-token T   every /_emulator request needs "Authorization: Bearer T"; also read from
                      CATALOG_EMULATOR_CONTROL_TOKEN (the flag wins)
  --no-controls       serve the API alone, as a deployment of the service does: no /_emulator path
                      (no controls, docs page or inspector); what the conformance command runs against
  --state FILE        keep the state in FILE: loaded at start when it exists (else created); every
                      change is in FILE or its log FILE.log before it is answered, so a killed
                      server loses nothing it acknowledged
  --state-sync        also flush each change to the disk before it is answered (fdatasync): a power
                      loss loses nothing acknowledged either, at a cost per change
  --fixtures FILE     create the companies and records of a JSON fixtures file at start (unless
                      --state FILE already holds a state) and after every reset
  --report FILE       when the server stops, write the report of what it saw the clients do (the
                      findings on their behaviour and what their tests exercised) to FILE: JSON for
                      a .json file, Markdown for .md; it replaces only a report it wrote

Environment of serve (for containers; the flag wins, and an empty variable counts as unset):
  PORT                              --port
  CATALOG_EMULATOR_SEED             --seed
  CATALOG_EMULATOR_CLOCK            --clock
  CATALOG_EMULATOR_FIXTURES         --fixtures
  CATALOG_EMULATOR_STATE            --state
  CATALOG_EMULATOR_ALLOW_HOSTS      --allow-host, the names separated by commas
  CATALOG_EMULATOR_CONTROL_TOKEN    --control-token
  CATALOG_EMULATOR_HISTORY_ENTRIES  --history-entries
  CATALOG_EMULATOR_HISTORY_BYTES    --history-bytes

Control writes (POST, PUT, PATCH under /_emulator) need "content-type: application/json".
A running server renders both documents at /_emulator/docs, shows its timeline at /_emulator/ui
(the inspector), and lists where to go at its root, GET /.

Stopping: SIGINT (Ctrl+C), SIGTERM or SIGHUP; started by npx, also stopping npx (kill on its pid).
Exit codes: 0 stopped (or a command done), 1 unexpected error, 2 bad usage or input (an unknown
option or command names the closest one), 3 the port could not be bound (busy, or not permitted).

Options of conformance:
  --base-url URL      the service's base URL, without /v1 (http or https)
  --token T           a credential of a company kept for testing, holding all six permissions: the
                      tests create establishments, catalogs, products, webhooks... in that company
  --token-for P=T     a credential of that company holding only permission P (several joined by
                      "+", e.g. catalogo:ler+catalogo:gerenciar), for the tests of refusals
                      (repeatable; a test needing one not given is skipped, saying which)
  --other-token T     a credential of a second test company (all six permissions), for the tests of
                      what one company must not see or change of another's (skipped without it)
  --files PATTERN     run only these spec test files: a name such as catalogs, or a pattern with
                      * and ? (repeatable)
  --timeout-ms N      the time each test and hook may take, unless it sets its own (default 30000)
  --request-timeout-ms N
                      the time each request may take, from its start to its answer's last byte
                      (default 10000)
  --max-body SIZE     the largest answer body read, e.g. 512KiB, 16MiB or bytes (default 16MiB);
                      a larger one is refused unread, failing its test
  --deadline DURATION the whole run's time, e.g. 90s, 10m, 1h or milliseconds (default 20m); when
                      it passes, the run stops and reports what ran
  --json              print one JSON object (totals, statements, tests) instead of the matrix;
                      the progress goes to stderr
  --report FILE       also write the matrix as Markdown to FILE (it replaces only a report it wrote)
Tests that need what only the emulator's /_emulator controls give (its clock, faults, the webhook
inbox, a company of their own) are skipped, each saying why.
Exit codes of conformance: 0 a test passed and none failed, 1 a test failed, 2 bad usage, the
deployment could not be reached (refused, reset, closed, not HTTP, TLS, DNS, time-out), the deadline
passed, or no test passed (all skipped): a run that reached nothing never exits 0.

Options of check-receiver:
  --url URL           the receiver's URL (http or https), as the service would POST deliveries to it
  --secret S          the secret it verifies with (svc_whsec_...); also read from
                      CATALOG_EMULATOR_WEBHOOK_SECRET (the flag wins)
  --previous-secret S the secret before its last configuration change: the old-secret case is
                      signed with it (with a fresh secret when absent)
  --cnpj-root ROOT    the envelope's empresa, 8 digits (default 00000000)
  --deadline DURATION the time the whole check may take, e.g. 90s or 2m: at least 30s, twice the
                      15 s each delivery is given to answer, as the service gives an attempt
                      (default 60s)
  --json              print the result as one JSON object (cases, passed, failed...) instead of the table
The timestamps come from this machine's clock, which the receiver compares them with.
Exit codes of check-receiver: 0 every case passed, 1 a case failed, 2 bad usage, a receiver that
answered none of the cases (each refused, unreachable, reset or timed out), or a case the deadline
left unjudged.

${REMOTE_OPTIONS}`;

/** Exit code of a server that could not bind its port (busy, or not permitted): a script may try another. */
const EXIT_NO_PORT = 3;

/** --port N of serve (or PORT, named by `from`) and demo --ui: 4747 when absent. */
function portOf(flag: string | undefined, from = '--port'): number {
  const port = flag === undefined ? 4747 : Number(flag);
  if (flag === '' || !Number.isInteger(port) || port < 0 || port > 65535) fail(`${from} must be an integer from 0 to 65535 (got "${flag}")`);
  return port;
}

/** Why listen() failed, as the exit it calls for: a busy or forbidden port exits 3; undefined for any other error. */
function listenFailure(error: unknown, port: number): never | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') fail(`port ${port} is busy: stop what uses it, choose another with --port N, or use --port 0 for a free one`, EXIT_NO_PORT);
  if (code === 'EACCES') fail(`no permission to bind port ${port}: use a port above 1023`, EXIT_NO_PORT);
  return undefined;
}

function fail(message: string, code = 2): never {
  process.stderr.write(`catalog-emulator: ${message}\nRun "catalog-emulator --help" for usage.\n`);
  process.exit(code);
}

/** Exits with `code` once what was printed is out (a pipe reader gets all of it). */
async function exitWith(code: number): Promise<never> {
  for (const stream of [process.stdout, process.stderr]) await new Promise<void>((resolve) => stream.write('', () => resolve()));
  process.exit(code);
}

/** `help [COMMAND]`: the usage, or the part of it about one command. */
function printHelp(args: string[]): void {
  const [command, ...extra] = args;
  if (extra.length > 0) fail(`help takes one command (got "${args.join(' ')}")`);
  const text = command === undefined ? USAGE : commandUsage(USAGE, command);
  if (text === undefined) fail(`help: no command "${command}" (commands: ${COMMANDS.join(', ')})`);
  process.stdout.write(text);
}

async function main(argv: string[]): Promise<void> {
  // The commands for a running server read their own flags.
  if (isRemoteCommand(argv[0])) return runRemoteCommand(argv[0], argv.slice(1), commandUsage(USAGE, argv[0])!);
  const parsed = parseCommandLine(argv);
  if (typeof parsed === 'string') fail(parsed);
  const { values, positionals } = parsed;
  if (values.help) return void process.stdout.write(USAGE);
  if (values.version) return void process.stdout.write(`${VERSION}\n`);
  const [command = 'serve', ...rest] = positionals;
  if (command === 'help') return printHelp(rest);
  if (command === 'openapi') return printDocument(rest, values);
  if (values.controls) fail('--controls is an option of the openapi command');
  if (command === 'conformance') {
    // Until the run reaches its verdict, ending is a failure: should the work in flight ever leave the event loop
    // empty (a request that never settles, with nothing ref'd), the process says so and exits 2, never 0.
    process.exitCode = 2;
    process.once('beforeExit', () => {
      process.stderr.write('catalog-emulator: the conformance run ended before a verdict: nothing was left to wait for\n');
      process.exit(2);
    });
    // Stopping npx stops the run too, rather than leaving it to test a deployment for no one (see stop.ts).
    onNpxExit(() => {
      process.stderr.write('catalog-emulator: npx exited: the conformance run stops without a verdict\n');
      process.exit(2);
    });
    const code = await runConformanceCommand(rest, values);
    // A test that failed half-way may have left a server or a socket open: the run is over all the same, once
    // what it printed is out.
    for (const stream of [process.stdout, process.stderr]) await new Promise<void>((resolve) => stream.write('', () => resolve()));
    process.exit(code);
  }
  if (command === 'check-receiver') {
    const foreign = foreignOption(command, values);
    if (foreign !== undefined) fail(foreign);
    return exitWith(await runCheckReceiver(rest, values, { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) }, process.env));
  }
  for (const flag of COMMAND_OPTIONS['check-receiver']) if (flag !== 'json' && !(CONFORMANCE_OPTIONS as readonly string[]).includes(flag) && values[flag] !== undefined) fail(`--${flag} is an option of the check-receiver command`);
  // --report is serve's too (the report of what the server saw), written as the server stops.
  for (const flag of CONFORMANCE_OPTIONS) if (flag !== 'report' && values[flag] !== undefined) fail(`--${flag} is an option of the conformance command`);
  if (command === 'demo') return runDemo(rest, values);
  if (command !== 'serve') fail(unknownCommand(command));
  if (rest.length > 0) fail(`unexpected argument "${rest[0]}"`);
  for (const flag of ['ui', 'no-open'] as const) if (values[flag]) fail(`--${flag} is an option of the demo command (demo NAME --ui)`);
  await serve(values);
}

interface ServeFlags {
  port?: string;
  host?: string;
  seed?: string;
  clock?: string;
  start?: string;
  route?: string[];
  log?: string;
  'allow-host'?: string[];
  'control-token'?: string;
  'max-stored-answers'?: string;
  'history-entries'?: string;
  'history-bytes'?: string;
  'log-inspector'?: boolean;
  state?: string;
  'state-sync'?: boolean;
  fixtures?: string;
  quiet?: string[];
  json?: boolean;
  'ready-file'?: string;
  'no-controls'?: boolean;
  report?: string;
}

async function serve(given: ServeFlags): Promise<void> {
  const settled = withEnvironment(given, process.env);
  if (typeof settled === 'string') fail(settled);
  const { flags, origin } = settled;
  const port = portOf(flags.port, origin('port'));
  const clock = flags.clock ?? 'real';
  if (clock !== 'real' && clock !== 'manual') fail(`${origin('clock')} must be "real" or "manual" (got "${clock}")`);
  // Under --json stdout carries JSON lines only: the log is json there unless told pretty, which goes to stderr.
  const log = flags.log ?? (flags.json ? 'json' : 'pretty');
  if (log !== 'pretty' && log !== 'json' && log !== 'silent') fail(`--log must be "pretty", "json" or "silent" (got "${log}")`);
  const quiet = quietKinds(flags.quiet ?? []);
  if (typeof quiet === 'string') fail(quiet);
  const readyFile = flags['ready-file'];
  if (readyFile === '') fail('--ready-file: it needs a path');
  // Checked before any other file is read or written, and the port bound: a refusal, or a start that fails later,
  // leaves every file as it was (the report is only written at stop).
  const report = flags.report === undefined ? undefined : reportTargetOf(flags.report, flags, origin);
  if (readyFile !== undefined) {
    const unusable = prepareReadyFile(readyFile);
    if (unusable !== undefined) fail(`--ready-file: ${unusable}`);
  }
  if (flags.start !== undefined && !Number.isFinite(Date.parse(flags.start))) fail(`--start must be an ISO 8601 date-time such as 2026-01-01T00:00:00Z (got "${flags.start}")`);
  const seed = flags.seed === undefined ? undefined : /^-?\d+$/.test(flags.seed) ? Number(flags.seed) : flags.seed;
  const maxStored = flags['max-stored-answers'];
  if (maxStored !== undefined && !(/^\d+$/.test(maxStored) && Number.isSafeInteger(Number(maxStored)) && Number(maxStored) >= 1)) fail(`--max-stored-answers must be a whole number, 1 or more (got "${maxStored}")`);
  const idempotency = maxStored === undefined ? {} : { idempotency: { maxStoredAnswersPerCompany: Number(maxStored) } };
  const historyEntries = flags['history-entries'];
  if (historyEntries !== undefined && !(/^\d{1,7}$/.test(historyEntries) && Number(historyEntries) <= 1_000_000)) fail(`${origin('history-entries')} must be a whole number from 0 to 1000000 (got "${historyEntries}")`);
  const historyBytesText = flags['history-bytes'];
  const historyBytes = historyBytesText === undefined ? undefined : historyBytesText === '0' ? 0 : parseSize(historyBytesText);
  if (historyBytesText !== undefined && historyBytes === undefined) fail(`${origin('history-bytes')} must be a size such as 16MiB, 512KiB or 1048576 (up to 1GiB), or 0 (got "${historyBytesText}")`);
  const inspector = historyEntries === undefined && historyBytes === undefined ? {} : { inspector: { ...(historyEntries === undefined ? {} : { historyEntries: Number(historyEntries) }), ...(historyBytes === undefined ? {} : { historyBytes }) } };

  const routeFlags = flags.route ?? [];
  const routes = routeFlags.map((route) => {
    const at = route.indexOf('=');
    if (at <= 0) fail(`--route takes FROM=TO, e.g. --route https://hooks.example.com=http://127.0.0.1:9000 (got "${route}")`);
    return { from: route.slice(0, at), to: route.slice(at + 1) };
  });
  const controlToken = flags['control-token'];
  const withControls = flags['no-controls'] !== true;
  // A guard on nothing would read as protection that is not there: refused, not ignored.
  if (!withControls && controlToken !== undefined) fail(`--no-controls serves no controls for a control token to guard: drop ${origin('control-token')}`);
  // Read here, checked by createEmulator (whose message names the place in the file).
  const fixtures = flags.fixtures === undefined ? undefined : fixturesOf(flags.fixtures, origin('fixtures'));
  if (flags['state-sync'] && flags.state === undefined) fail('--state-sync flushes the changes of --state FILE to the disk: give --state FILE too');
  // With --state, the seed and start are those the file was made with (fixed now for a new file). A symbolic link
  // is followed once, here: the state is read from and written to the file it names, and the link stays.
  const statePath = flags.state === undefined ? undefined : stateTarget(flags.state, origin('state'));
  const plan = flags.state === undefined || statePath === undefined ? undefined : statePlan(flags.state, origin('state'), statePath, { seed, start: flags.start, clock });
  const start = plan ? { start: plan.start } : flags.start === undefined ? {} : { start: flags.start };
  // Routes given as options, not added afterwards: they are configuration, so POST /_emulator/reset keeps them.
  let emu;
  try {
    emu = createEmulator({ seed: plan ? plan.seed : seed, clock, ...start, companies: [{}], ...(fixtures === undefined ? {} : { fixtures: fixtures as Fixtures }), routes, ...idempotency, ...inspector, ...(controlToken === undefined ? {} : { controlToken }) });
  } catch (error) {
    const message = (error as Error).message;
    // The file names itself; one named by the environment also names its variable.
    const file = origin('fixtures') === '--fixtures' ? flags.fixtures : `${origin('fixtures')} ${flags.fixtures}`;
    if (flags.fixtures !== undefined && /^fixtures[.:[]/.test(message)) fail(`${file}: ${message.replace(/^fixtures(?:: |\.)?/, '')}`);
    const bad = /^routes\[(\d+)\]: (.*)$/s.exec(message);
    if (bad) fail(`--route ${routeFlags[Number(bad[1])]}: ${bad[2]}`);
    // Never the token itself in the message: it may be in a log.
    if (message.startsWith('controlToken ')) fail(`the control token (${origin('control-token')}) ${message.slice('controlToken '.length)}`);
    // An instant outside the clock's bounds (1970 to 9999): createEmulator says which, as "start must be …".
    if (message.startsWith('start ')) fail(`--${message}`);
    throw error;
  }
  // The saved state is restored now, in memory; the file is written only once the port is bound, so a start that
  // fails (a busy port) leaves it, and a new one never made, as they were.
  const stateFile = plan && flags.state !== undefined && statePath !== undefined ? { path: flags.state, target: statePath, plan } : undefined;
  if (stateFile !== undefined) restoreState(emu, stateFile.path, origin('state'), stateFile.plan, clock);
  let saver: StateStore | undefined;

  // A reader of stdout or stderr that closes its end (`… --json | head -1`) must not crash the server with EPIPE:
  // what it no longer reads is dropped.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);

  // Before listening: whoever reads the banner may signal at once, and must get a clean exit.
  let closing = false;
  const shutdown = (reason: StopReason) => {
    if (closing) return;
    closing = true;
    if (flags.json) process.stdout.write(`${JSON.stringify(reason === 'npx-exited' ? { kind: 'closing', reason } : { kind: 'closing', signal: reason })}\n`);
    else if (log !== 'silent') process.stdout.write(`\n${reason === 'npx-exited' ? 'npx exited' : reason}: closing\n`);
    if (readyFile !== undefined) removeReadyFile(readyFile);
    void emu
      .close()
      .then(() => saver?.close())
      .then(
        () => {
          if (report !== undefined) writeReport(report);
          process.exit(0);
        },
        (error: unknown) => {
          process.stderr.write(`catalog-emulator: could not save the state on exit: ${(error as Error).message}\n`);
          process.exit(1);
        },
      );
  };
  /** --report FILE, written once every answer is out (exit 1, saying why, when it cannot be). */
  const writeReport = ({ path, target, format }: ReportTarget) => {
    const report = emu.report();
    try {
      writeReportFile(target, SERVE_REPORTS[format], reportText(report, format));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      const why = error instanceof FileError ? `--report ${path} ${error.message}` : code;
      process.stderr.write(`catalog-emulator: could not write the report to ${path}: ${why}\n`);
      process.exit(1);
    }
    const { score } = report.coverage;
    const findings = report.findings.length + report.findingsDropped;
    if (flags.json) process.stdout.write(`${JSON.stringify({ kind: 'report', path, findings, exercised: score.exercised, listed: score.listed })}\n`);
    else if (log !== 'silent') process.stdout.write(`report: ${path} (${findings} finding${findings === 1 ? '' : 's'}; ${score.exercised} of ${score.listed} behaviours exercised)\n`);
  };
  onStop(shutdown);

  const host = flags.host ?? '127.0.0.1';
  const allowHosts = flags['allow-host'] ?? [];
  let server;
  try {
    server = await emu.listen({ port, host, allowHosts, controls: withControls });
  } catch (error) {
    const bad = /^allowHosts\[(\d+)\]: (.*)$/s.exec((error as Error).message);
    if (bad) fail(`${origin('allow-host')}: ${bad[2]}`);
    listenFailure(error, port);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') fail(`cannot bind to host "${flags.host}": not an address of this machine`);
    throw error;
  }
  // No request is read before this runs: the listen() above resolved in this turn of the event loop.
  if (stateFile !== undefined) saver = startSaving(emu, stateFile.path, origin('state'), stateFile.target, stateFile.plan, clock, flags['state-sync'] === true);
  // A listen() server lets its process end (for test runners); serving is all this process does.
  server.ref();
  if (!isLoopback(host)) process.stderr.write(exposedWarning(host, server.port, allowHosts, controlToken !== undefined, withControls));

  // The same seed always gives the same company and token, also after POST /_emulator/reset.
  const companies = emu.companies.initial();
  const started = startLine({ version: VERSION, url: server.url, controls: withControls, controlTokenRequired: controlToken !== undefined, companies, fixtures: emu.companies.fixtures(), clock: { mode: clock, now: emu.clock.now().toISOString() }, seed: emu.seed });
  if (readyFile !== undefined) writeReadyFile(readyFile, `${JSON.stringify(started)}\n`);
  if (flags.json) process.stdout.write(`${JSON.stringify(started)}\n`);
  else process.stdout.write(banner(started, emu.companies.fixtures(), flags.state === undefined ? undefined : { path: flags.state, loaded: plan?.saved !== undefined }));
  if (log !== 'silent' && quiet.size < Object.keys(LOG_KINDS).length) {
    const out = flags.json && log === 'pretty' ? process.stderr : process.stdout;
    const color = log === 'pretty' && wantsColor(out.isTTY === true, process.env);
    // The inspector page's own reads (its page, files, data and stream) stay out of the log unless asked for.
    const logInspector = flags['log-inspector'] === true;
    const stop = emu.activity.subscribe((entry) => {
      if (quiet.has(entry.kind) || (!logInspector && isInspectorOwn(entry))) return;
      out.write(`${formatActivity(entry, log, color)}\n`);
    });
    // Whoever read the log went away (a closed pipe): the log stops, the server goes on.
    out.once('error', stop);
  }

}

/**
 * The fixtures file's content (createEmulator checks its format); a usage error for one that cannot be read or
 * parsed, naming where the path came from (`from`: --fixtures or its variable).
 */
function fixturesOf(path: string, from: string): unknown {
  try {
    return readFixturesFile(path);
  } catch (error) {
    if (error instanceof FixturesFileError) fail(`${from} ${path}: ${error.message}`);
    throw error;
  }
}

/** The report of `serve --report FILE`: the path as given, the file it names (links followed) and its format. */
interface ReportTarget {
  readonly path: string;
  readonly target: string;
  readonly format: ReportFormat;
}

/** Where an option's value came from, for a message (withEnvironment's `origin`). */
type Origin = (option: 'state' | 'fixtures') => string;

/**
 * --report FILE checked at start (report-file.ts): a usage error, touching nothing, for a name that is neither .json
 * nor .md, a folder missing or not writable, a file the server reads or writes besides, or a file already there
 * that is not a report of ours.
 */
function reportTargetOf(path: string, flags: ServeFlags, origin: Origin): ReportTarget {
  const format = reportFormatOf(path);
  if (format === undefined) fail(`--report FILE writes JSON to a .json file or Markdown to a .md file (got "${path}")`);
  const guarded: GuardedFile[] = [];
  const { state, fixtures, 'ready-file': ready } = flags;
  if (state !== undefined) {
    const name = `${origin('state')} ${state}`;
    guarded.push({ path: state, name });
    for (const log of stateLogs(state)) guarded.push({ path: log, name: `the change log of ${name}` });
  }
  if (fixtures !== undefined) guarded.push({ path: fixtures, name: `${origin('fixtures')} ${fixtures}` });
  if (ready !== undefined) guarded.push({ path: ready, name: `--ready-file ${ready}` });
  try {
    return { path, target: checkReportFile(path, SERVE_REPORTS[format], guarded), format };
  } catch (error) {
    if (error instanceof FileError) fail(`--report ${path} ${error.message}`);
    throw error;
  }
}

/**
 * The change log's files of --state `path`: beside the file it names (its links followed). None when it cannot be
 * resolved: the state's own check refuses it.
 */
function stateLogs(path: string): string[] {
  try {
    return Object.values(logPaths(resolveTarget(path)));
  } catch {
    return [];
  }
}

/** The file --state FILE (or its variable, `from`) names, its symbolic links followed; a usage error when its folder is not there. */
function stateTarget(path: string, from: string): string {
  try {
    return resolveTarget(path);
  } catch (error) {
    if (error instanceof FileError) fail(`${from} ${path} ${error.message}`);
    throw error;
  }
}

/** --state FILE (or its variable, `from`) read with its log, and checked against --seed and --start; a usage error for one that cannot be used. */
function statePlan(path: string, from: string, target: string, settings: Parameters<typeof planState>[1]): StatePlan {
  try {
    return planState(target, settings, DEFAULT_START, Date.now());
  } catch (error) {
    if (error instanceof StateFileError) fail(`${from} ${path} ${error.message}; it was left as it is`);
    throw error;
  }
}

/** Restores the state of --state FILE in memory (a usage error, the file untouched, for one this emulator cannot load). */
function restoreState(emu: ReturnType<typeof createEmulator>, path: string, from: string, plan: StatePlan, clock: 'real' | 'manual'): void {
  if (!plan.saved) return;
  try {
    emu.restore(snapshotToRestore(plan.saved, clock, Date.now()));
  } catch (error) {
    if (error instanceof TypeError) fail(`${from} ${path} is not a state this emulator can load (${error.message}); it was left as it is`);
    throw error;
  }
}

/** Saves the state to --state FILE (creating it for a fresh start), then after every change. */
function startSaving(emu: ReturnType<typeof createEmulator>, path: string, from: string, target: string, plan: StatePlan, clock: 'real' | 'manual', sync: boolean): StateStore {
  const saver = new StateStore(emu, {
    path: target,
    clock,
    start: plan.start,
    sync,
    onError: (message) => process.stderr.write(`catalog-emulator: ${message}\n`),
    // A change that cannot be made durable must not be answered: the process stops before its answer leaves.
    onFatal: (message) => {
      process.stderr.write(`catalog-emulator: ${message}\n`);
      process.exit(1);
    },
  });
  try {
    saver.saveNow();
  } catch (error) {
    fail(`${from} ${path}: cannot write it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  saver.start();
  return saver;
}

/** 127.0.0.0/8, ::1 and localhost: only this machine reaches them. */
function isLoopback(host: string): boolean {
  const address = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return address === 'localhost' || /^(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address) || /^(?:0{0,4}:){2,7}0{0,3}1$/.test(address);
}

/** The warning of a server other machines may reach: what they could do, and how to stop them. */
function exposedWarning(host: string, port: number, allowHosts: readonly string[], guarded: boolean, withControls: boolean): string {
  const wildcard = /^\[?(?:0\.0\.0\.0|(?:0{0,4}:){2,7}0{0,4})\]?$/.test(host);
  const names = ['localhost', '127.0.0.1', '[::1]', ...(wildcard ? [] : [host]), ...allowHosts];
  const listed = `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
  return (
    `catalog-emulator: warning: bound to ${host}${wildcard ? ' (every network interface)' : ''}, which other machines may reach. ` +
    (!withControls
      ? 'It serves no controls (--no-controls), but the API answers whoever holds a token the banner prints. '
      : guarded
      ? 'The controls under /_emulator need the control token; it travels unencrypted over plain HTTP, so bind only to a network you trust. '
      : `Anyone who can reach port ${port} can drive the controls under /_emulator (reset the state, inject faults, move the clock) and read every token and webhook secret (GET /_emulator/state): set a control token with --control-token TOKEN or CATALOG_EMULATOR_CONTROL_TOKEN. `) +
    (allowHosts.includes('*')
      ? 'The Host check is off (--allow-host *): a web page on any site can reach the server through DNS rebinding.\n'
      : `Requests must name the server as ${listed}; to reach it by another name, allow it: another container of a docker compose file reaching it at http://emulator:${port} needs --allow-host emulator.\n`)
  );
}

/** `openapi [--controls]`: the document the package ships as openapi.json (openapi.controls.json), to stdout. */
function printDocument(args: string[], flags: { controls?: boolean; [flag: string]: unknown }): void {
  if (args.length > 0) fail(`openapi takes no argument (got "${args[0]}"); --controls prints the controls' document`);
  const other = Object.keys(flags).find((flag) => flag !== 'controls' && flags[flag] !== undefined);
  if (other !== undefined) fail(`--${other} is not an option of the openapi command (it takes --controls)`);
  process.stdout.write(openApiText(flags.controls ? 'controls' : 'api'));
}

interface DemoFlags {
  ui?: boolean;
  port?: string;
  'no-open'?: boolean;
  [flag: string]: unknown;
}

/** `demo [NAME] [--ui [--port N] [--no-open]]`: the list, one scenario narrated, or one paced from the inspector. */
async function runDemo(args: string[], flags: DemoFlags): Promise<void> {
  const [name, ...extra] = args;
  if (extra.length > 0) fail(`demo takes one name (got "${args.join(' ')}")`);
  const takes: readonly string[] = COMMAND_OPTIONS.demo;
  const other = Object.keys(flags).find((flag) => !takes.includes(flag) && flags[flag] !== undefined);
  if (other !== undefined) fail(`--${other} is not an option of the demo command (it takes --ui, --port N, --no-open)`);
  if (!flags.ui) for (const flag of ['port', 'no-open'] as const) if (flags[flag] !== undefined) fail(`--${flag} is an option of demo NAME --ui`);
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
  const keyboard = tty ? (await import('node:readline')).createInterface({ input: process.stdin, terminal: false }) : undefined;
  keyboard?.on('line', () => gate.next());

  const started = async () => {
    server = await listening!;
    // A listen() server lets its process end; this one serves until a signal.
    server.ref();
    out(`catalog-emulator ${VERSION} demo ${demo.name}, listening on ${server.url}`);
    out(`  inspector: ${server.inspector}`);
    out(`  Each step waits for "Next step" on the inspector page${tty ? ', or for Enter here' : ''}.`);
    // The demo's server always has its controls, so its inspector.
    if (open) openInBrowser(server.inspector!, (problem) => process.stderr.write(`catalog-emulator: could not open a browser (${problem}); open ${server?.inspector} yourself\n`));
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
    process.stderr.write(`catalog-emulator: the demo stopped: ${(error as Error).message}; the inspector stays at ${server.inspector}\n`);
  }
  keyboard?.close();
}

/** The whole run's default time: a run against a local server takes about 30 s; a remote one, with some 6,000 requests, minutes. */
const DEFAULT_DEADLINE = '20m';

interface ConformanceFlags {
  'base-url'?: string;
  token?: string;
  'token-for'?: string[];
  'other-token'?: string;
  'timeout-ms'?: string;
  'request-timeout-ms'?: string;
  'max-body'?: string;
  deadline?: string;
  files?: string[];
  json?: boolean;
  report?: string;
  [flag: string]: unknown;
}

/** The runner the build bundles beside the spec tests (scripts/build-conformance.ts), next to this bundle's directory. */
const CONFORMANCE_RUNNER = new URL('../conformance/run.js', import.meta.url);

/**
 * `conformance`: the spec tests shipped in dist/conformance, run against a deployment named by its base URL and
 * credentials (what spec-tests/support/deployment.ts reads from CONFORMANCE_BASE_URL, CONFORMANCE_TOKEN and
 * CONFORMANCE_TOKEN_FOR); resolves to the exit code.
 */
async function runConformanceCommand(args: string[], flags: ConformanceFlags): Promise<number> {
  if (args.length > 0) fail(`conformance takes no argument (got "${args[0]}"); name the deployment with --base-url URL`);
  const foreign = foreignOption('conformance', flags);
  if (foreign !== undefined) fail(foreign);
  const baseUrl = flags['base-url'];
  if (baseUrl === undefined) fail('conformance needs --base-url URL: the base URL of the deployment to test');
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') fail(`--base-url must be an http or https URL without query or fragment, e.g. https://catalog.example.com (got "${baseUrl}")`);
  const token = flags.token;
  if (token === undefined || token.trim() === '') fail('conformance needs --token T: a credential of the company to test in, holding all six permissions');
  const tokensFor = (flags['token-for'] ?? []).map((pair) => tokenFor(pair));
  const keys = tokensFor.map(([key]) => key);
  const twice = keys.find((key, i) => keys.indexOf(key) !== i);
  if (twice !== undefined) fail(`--token-for ${twice} is given twice`);
  const otherToken = flags['other-token'];
  if (otherToken !== undefined && otherToken.trim() === '') fail('--other-token needs a credential of a second company');
  if (otherToken !== undefined && otherToken === token) fail('--other-token must be a credential of another company than --token\'s');
  const timeout = flags['timeout-ms'];
  const millis = (value: string) => /^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 3_600_000;
  if (timeout !== undefined && !millis(timeout)) fail(`--timeout-ms must be a whole number of milliseconds from 1 to 3600000 (got "${timeout}")`);
  const requestTimeout = flags['request-timeout-ms'];
  if (requestTimeout !== undefined && !millis(requestTimeout)) fail(`--request-timeout-ms must be a whole number of milliseconds from 1 to 3600000 (got "${requestTimeout}")`);
  const maxBody = flags['max-body'] === undefined ? undefined : parseSize(flags['max-body']);
  if (flags['max-body'] !== undefined && maxBody === undefined) fail(`--max-body must be a size from 1 byte to 1GiB: bytes, or a whole number of KiB, MiB or GiB such as 16MiB (got "${flags['max-body']}")`);
  const deadline = parseDuration(flags.deadline ?? DEFAULT_DEADLINE);
  if (deadline === undefined) fail(`--deadline must be a duration from 1 ms to 24 h: a whole number of ms, s, m or h such as 90s or 10m, or of milliseconds (got "${flags.deadline}")`);
  const files = flags.files ?? [];
  const bad = files.find((pattern) => pattern.trim() === '');
  if (bad !== undefined) fail('--files needs a file name or pattern, e.g. --files catalogs');
  const report = flags.report;
  if (report === '') fail('--report needs a file path');

  const base = url.href.replace(/\/$/, '');
  let runner: typeof import('../src/conformance/run.js');
  try {
    runner = (await import(CONFORMANCE_RUNNER.href)) as typeof import('../src/conformance/run.js');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') fail(`the spec tests are not built here (no ${CONFORMANCE_RUNNER.pathname}): run npm run build`, 1);
    throw error;
  }
  // Checked before anything is run, touching nothing; written at the end, whole or not at all (report-file.ts).
  const reportKind: ReportKind = { name: 'a conformance report of catalog-emulator', recognises: (text) => text.startsWith(runner.REPORT_OPENING) };
  const reportTarget = report === undefined ? undefined : checkedReport(report, reportKind);
  let unwritten = false;
  const writeReport = (markdown: string) => {
    try {
      writeReportFile(reportTarget!, reportKind, markdown);
    } catch (error) {
      unwritten = true;
      const why = error instanceof FileError ? `--report ${report} ${error.message}` : (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      process.stderr.write(`catalog-emulator: could not write the report to ${report}: ${why}\n`);
    }
  };
  // Read by the bundled support when the runner loads it. A server named by SPEC_BASE_URL is the emulator tests'
  // business, not this run's; bounds left unset take the support's defaults.
  const env: Record<string, string | undefined> = {
    CONFORMANCE_BASE_URL: base,
    CONFORMANCE_TOKEN: token,
    CONFORMANCE_TOKEN_FOR: tokensFor.map(([key, value]) => `${key}=${value}`).join(','),
    CONFORMANCE_OTHER_TOKEN: otherToken,
    CONFORMANCE_REQUEST_TIMEOUT_MS: requestTimeout,
    CONFORMANCE_MAX_BODY_BYTES: maxBody === undefined ? undefined : String(maxBody),
    SPEC_BASE_URL: undefined,
  };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  const code = await runner.runConformance({
    target: base,
    credentials: [{ flag: '--token', token }, ...(otherToken === undefined ? [] : [{ flag: '--other-token', token: otherToken }])],
    deadlineMs: deadline,
    timeoutMs: timeout === undefined ? 30_000 : Number(timeout),
    files,
    json: flags.json === true,
    color: wantsColor(process.stdout.isTTY === true, process.env),
    ...(reportTarget === undefined ? {} : { writeReport }),
    usageError: (message) => fail(message),
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
  // A run whose report was asked for and is not there did not do what it was told: never exit 0.
  return unwritten && code === 0 ? 1 : code;
}

/** --report FILE of a command checked at start (report-file.ts): a usage error, touching nothing, for one it may not write. */
function checkedReport(path: string, kind: ReportKind): string {
  try {
    return checkReportFile(path, kind, []);
  } catch (error) {
    if (error instanceof FileError) fail(`--report ${path} ${error.message}`);
    throw error;
  }
}

/** One --token-for PERMISSION=T: its permissions sorted and joined by "+" (how the tests look it up), and the token. */
function tokenFor(pair: string): [string, string] {
  const at = pair.indexOf('=');
  const usage = `--token-for takes PERMISSION=TOKEN, the permission one of ${PERMISSIONS.join(', ')} (several joined by "+")`;
  if (at <= 0 || pair.slice(at + 1).trim() === '') fail(`${usage} (got "${pair.slice(0, at > 0 ? at : undefined)}${at > 0 ? '=…' : ''}")`);
  const permissions = pair.slice(0, at).split('+').map((p) => p.trim());
  const unknown = permissions.find((p) => !(PERMISSIONS as readonly string[]).includes(p));
  if (unknown !== undefined) fail(`${usage} (got "${unknown}")`);
  if (new Set(permissions).size !== permissions.length) fail(`--token-for ${pair.slice(0, at)} names a permission twice`);
  const token = pair.slice(at + 1).trim();
  // The tokens travel in CONFORMANCE_TOKEN_FOR, a comma-separated list.
  if (token.includes(',')) fail(`--token-for ${pair.slice(0, at)}: a token with a comma cannot be passed on`);
  return [[...permissions].sort().join('+'), token];
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`catalog-emulator: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
