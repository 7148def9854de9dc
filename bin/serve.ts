/**
 * `catalog-emulator [serve] [options]`: the API and the /_emulator controls over HTTP until a signal (stop.ts), with
 * its log, its start line (start.ts), its state file (state-file.ts) and its report (report-file.ts). Every value it
 * is given is checked before anything is read, written or bound: a refusal is one line and exit 2, touching nothing.
 */
import { createEmulator, DEFAULT_START, VERSION, type Fixtures } from '../src/index.js';
import type { CommandHelp } from './help.js';
import { fail } from './exit.js';
import { FixturesFileError, readFixturesFile } from './fixtures-file.js';
import { listenFailure, portOf } from './listen.js';
import { formatActivity, isInspectorOwn, LOG_KINDS, quietKinds, wantsColor } from './log-format.js';
import { parseSize } from './quantities.js';
import { FileError, resolveTarget } from './regular-file.js';
import { checkReportFile, reportFormatOf, reportText, SERVE_REPORTS, writeReportFile } from './report-file.js';
import type { GuardedFile, ReportFormat } from './report-file.js';
import { withEnvironment } from './serve-env.js';
import { banner, prepareReadyFile, removeReadyFile, startLine, writeReadyFile } from './start.js';
import { logPaths, planState, snapshotToRestore, StateFileError, StateStore, type StatePlan } from './state-file.js';
import { onStop, type StopReason } from './stop.js';

/** Its line of the Usage block, and its options (with the environment a container sets, and its exit codes). */
export const SERVE_HELP: CommandHelp = {
  usage: `  catalog-emulator [serve] [options]   serve the API and the /_emulator controls over HTTP`,
  options: `Options of serve:
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
option or command names the closest one), 3 the port could not be bound (busy, or not permitted).`,
};

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
  /** Options of demo NAME --ui, refused here. */
  ui?: boolean;
  'no-open'?: boolean;
}

/** `serve [options]` (the command when none is named): serves until a signal. */
export async function serve(args: readonly string[], given: ServeFlags): Promise<void> {
  if (args.length > 0) fail(`unexpected argument "${args[0]}"`);
  for (const flag of ['ui', 'no-open'] as const)
    if (given[flag]) fail(`--${flag} is an option of the demo command (demo NAME --ui)`);
  const settled = withEnvironment(given, process.env);
  if (typeof settled === 'string') fail(settled);
  const { flags, origin } = settled;
  const port = portOf(flags.port, origin('port'));
  const clock = flags.clock ?? 'real';
  if (clock !== 'real' && clock !== 'manual') fail(`${origin('clock')} must be "real" or "manual" (got "${clock}")`);
  // Under --json stdout carries JSON lines only: the log is json there unless told pretty, which goes to stderr.
  const log = flags.log ?? (flags.json ? 'json' : 'pretty');
  if (log !== 'pretty' && log !== 'json' && log !== 'silent')
    fail(`--log must be "pretty", "json" or "silent" (got "${log}")`);
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
  if (flags.start !== undefined && !Number.isFinite(Date.parse(flags.start)))
    fail(`--start must be an ISO 8601 date-time such as 2026-01-01T00:00:00Z (got "${flags.start}")`);
  const seed = flags.seed === undefined ? undefined : /^-?\d+$/.test(flags.seed) ? Number(flags.seed) : flags.seed;
  const maxStored = flags['max-stored-answers'];
  if (
    maxStored !== undefined &&
    !(/^\d+$/.test(maxStored) && Number.isSafeInteger(Number(maxStored)) && Number(maxStored) >= 1)
  )
    fail(`--max-stored-answers must be a whole number, 1 or more (got "${maxStored}")`);
  const idempotency = maxStored === undefined ? {} : { idempotency: { maxStoredAnswersPerCompany: Number(maxStored) } };
  const historyEntries = flags['history-entries'];
  if (historyEntries !== undefined && !(/^\d{1,7}$/.test(historyEntries) && Number(historyEntries) <= 1_000_000))
    fail(`${origin('history-entries')} must be a whole number from 0 to 1000000 (got "${historyEntries}")`);
  const historyBytesText = flags['history-bytes'];
  const historyBytes =
    historyBytesText === undefined ? undefined : historyBytesText === '0' ? 0 : parseSize(historyBytesText);
  if (historyBytesText !== undefined && historyBytes === undefined)
    fail(
      `${origin('history-bytes')} must be a size such as 16MiB, 512KiB or 1048576 (up to 1GiB), or 0 (got "${historyBytesText}")`,
    );
  const inspector =
    historyEntries === undefined && historyBytes === undefined
      ? {}
      : {
          inspector: {
            ...(historyEntries === undefined ? {} : { historyEntries: Number(historyEntries) }),
            ...(historyBytes === undefined ? {} : { historyBytes }),
          },
        };

  const routeFlags = flags.route ?? [];
  const routes = routeFlags.map((route) => {
    const at = route.indexOf('=');
    if (at <= 0)
      fail(`--route takes FROM=TO, e.g. --route https://hooks.example.com=http://127.0.0.1:9000 (got "${route}")`);
    return { from: route.slice(0, at), to: route.slice(at + 1) };
  });
  const controlToken = flags['control-token'];
  const withControls = flags['no-controls'] !== true;
  // A guard on nothing would read as protection that is not there: refused, not ignored.
  if (!withControls && controlToken !== undefined)
    fail(`--no-controls serves no controls for a control token to guard: drop ${origin('control-token')}`);
  // Read here, checked by createEmulator (whose message names the place in the file).
  const fixtures = flags.fixtures === undefined ? undefined : fixturesOf(flags.fixtures, origin('fixtures'));
  if (flags['state-sync'] && flags.state === undefined)
    fail('--state-sync flushes the changes of --state FILE to the disk: give --state FILE too');
  // With --state, the seed and start are those the file was made with (fixed now for a new file). A symbolic link
  // is followed once, here: the state is read from and written to the file it names, and the link stays.
  const statePath = flags.state === undefined ? undefined : stateTarget(flags.state, origin('state'));
  const plan =
    flags.state === undefined || statePath === undefined
      ? undefined
      : statePlan(flags.state, origin('state'), statePath, { seed, start: flags.start, clock });
  const start = plan ? { start: plan.start } : flags.start === undefined ? {} : { start: flags.start };
  // Routes given as options, not added afterwards: they are configuration, so POST /_emulator/reset keeps them.
  let emu;
  try {
    emu = createEmulator({
      seed: plan ? plan.seed : seed,
      clock,
      ...start,
      companies: [{}],
      ...(fixtures === undefined ? {} : { fixtures: fixtures as Fixtures }),
      routes,
      ...idempotency,
      ...inspector,
      ...(controlToken === undefined ? {} : { controlToken }),
    });
  } catch (error) {
    const message = (error as Error).message;
    // The file names itself; one named by the environment also names its variable.
    const file = origin('fixtures') === '--fixtures' ? flags.fixtures : `${origin('fixtures')} ${flags.fixtures}`;
    if (flags.fixtures !== undefined && /^fixtures[.:[]/.test(message))
      fail(`${file}: ${message.replace(/^fixtures(?:: |\.)?/, '')}`);
    const bad = /^routes\[(\d+)\]: (.*)$/s.exec(message);
    if (bad) fail(`--route ${routeFlags[Number(bad[1])]}: ${bad[2]}`);
    // Never the token itself in the message: it may be in a log.
    if (message.startsWith('controlToken '))
      fail(`the control token (${origin('control-token')}) ${message.slice('controlToken '.length)}`);
    // An instant outside the clock's bounds (1970 to 9999): createEmulator says which, as "start must be …".
    if (message.startsWith('start ')) fail(`--${message}`);
    throw error;
  }
  // The saved state is restored now, in memory; the file is written only once the port is bound, so a start that
  // fails (a busy port) leaves it, and a new one never made, as they were.
  const stateFile =
    plan && flags.state !== undefined && statePath !== undefined
      ? { path: flags.state, target: statePath, plan }
      : undefined;
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
    if (flags.json)
      process.stdout.write(
        `${JSON.stringify(reason === 'npx-exited' ? { kind: 'closing', reason } : { kind: 'closing', signal: reason })}\n`,
      );
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
    if (flags.json)
      process.stdout.write(
        `${JSON.stringify({ kind: 'report', path, findings, exercised: score.exercised, listed: score.listed })}\n`,
      );
    else if (log !== 'silent')
      process.stdout.write(
        `report: ${path} (${findings} finding${findings === 1 ? '' : 's'}; ${score.exercised} of ${score.listed} behaviours exercised)\n`,
      );
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
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      fail(`cannot bind to host "${flags.host}": not an address of this machine`);
    throw error;
  }
  // No request is read before this runs: the listen() above resolved in this turn of the event loop.
  if (stateFile !== undefined)
    saver = startSaving(
      emu,
      stateFile.path,
      origin('state'),
      stateFile.target,
      stateFile.plan,
      clock,
      flags['state-sync'] === true,
    );
  // A listen() server lets its process end (for test runners); serving is all this process does.
  server.ref();
  if (!isLoopback(host))
    process.stderr.write(exposedWarning(host, server.port, allowHosts, controlToken !== undefined, withControls));

  // The same seed always gives the same company and token, also after POST /_emulator/reset.
  const companies = emu.companies.initial();
  const started = startLine({
    version: VERSION,
    url: server.url,
    controls: withControls,
    controlTokenRequired: controlToken !== undefined,
    companies,
    fixtures: emu.companies.fixtures(),
    clock: { mode: clock, now: emu.clock.now().toISOString() },
    seed: emu.seed,
  });
  if (readyFile !== undefined) writeReadyFile(readyFile, `${JSON.stringify(started)}\n`);
  if (flags.json) process.stdout.write(`${JSON.stringify(started)}\n`);
  else
    process.stdout.write(
      banner(
        started,
        emu.companies.fixtures(),
        flags.state === undefined ? undefined : { path: flags.state, loaded: plan?.saved !== undefined },
      ),
    );
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
function restoreState(
  emu: ReturnType<typeof createEmulator>,
  path: string,
  from: string,
  plan: StatePlan,
  clock: 'real' | 'manual',
): void {
  if (!plan.saved) return;
  try {
    emu.restore(snapshotToRestore(plan.saved, clock, Date.now()));
  } catch (error) {
    if (error instanceof TypeError)
      fail(`${from} ${path} is not a state this emulator can load (${error.message}); it was left as it is`);
    throw error;
  }
}

/** Saves the state to --state FILE (creating it for a fresh start), then after every change. */
function startSaving(
  emu: ReturnType<typeof createEmulator>,
  path: string,
  from: string,
  target: string,
  plan: StatePlan,
  clock: 'real' | 'manual',
  sync: boolean,
): StateStore {
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
  return (
    address === 'localhost' ||
    /^(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address) ||
    /^(?:0{0,4}:){2,7}0{0,3}1$/.test(address)
  );
}

/** The warning of a server other machines may reach: what they could do, and how to stop them. */
function exposedWarning(
  host: string,
  port: number,
  allowHosts: readonly string[],
  guarded: boolean,
  withControls: boolean,
): string {
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
