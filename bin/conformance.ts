/**
 * `catalog-emulator conformance --base-url URL --token T [options]`: the spec tests shipped in dist/conformance, run
 * against a deployment of the service, and the matrix of the statements they cover. A run that reached nothing
 * never exits 0.
 */
import { PERMISSIONS } from '../src/index.js';
import { foreignOption } from './arguments.js';
import { exitWith, fail } from './exit.js';
import type { CommandHelp } from './help.js';
import { wantsColor } from './log-format.js';
import { parseDuration, parseSize } from './quantities.js';
import { FileError } from './regular-file.js';
import { checkReportFile, writeReportFile, type ReportKind } from './report-file.js';
import { onNpxExit } from './stop.js';

/** Its lines of the Usage block, and its options. */
export const CONFORMANCE_HELP: CommandHelp = {
  usage: `  catalog-emulator conformance --base-url URL --token T [options]
                                       run the spec tests against a deployment of the service,
                                       then print per statement of the specification whether
                                       its tests passed, failed or were skipped (and why)`,
  options: `Options of conformance:
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
passed, or no test passed (all skipped): a run that reached nothing never exits 0.`,
};

/** Runs the command and exits with its code. */
export async function conformance(args: string[], flags: ConformanceFlags): Promise<never> {
  // Until the run reaches its verdict, ending is a failure: should the work in flight ever leave the event loop
  // empty (a request that never settles, with nothing ref'd), the process says so and exits 2, never 0.
  process.exitCode = 2;
  process.once('beforeExit', () => {
    process.stderr.write(
      'catalog-emulator: the conformance run ended before a verdict: nothing was left to wait for\n',
    );
    process.exit(2);
  });
  // Stopping npx stops the run too, rather than leaving it to test a deployment for no one (see stop.ts).
  onNpxExit(() => {
    process.stderr.write('catalog-emulator: npx exited: the conformance run stops without a verdict\n');
    process.exit(2);
  });
  // A test that failed half-way may have left a server or a socket open: the run is over all the same, once
  // what it printed is out.
  return exitWith(await runConformanceCommand(args, flags));
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
  if (args.length > 0)
    fail(`conformance takes no argument (got "${args[0]}"); name the deployment with --base-url URL`);
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
  if (
    url === undefined ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search !== '' ||
    url.hash !== ''
  )
    fail(
      `--base-url must be an http or https URL without query or fragment, e.g. https://catalog.example.com (got "${baseUrl}")`,
    );
  const token = flags.token;
  if (token === undefined || token.trim() === '')
    fail('conformance needs --token T: a credential of the company to test in, holding all six permissions');
  const tokensFor = (flags['token-for'] ?? []).map((pair) => tokenFor(pair));
  const keys = tokensFor.map(([key]) => key);
  const twice = keys.find((key, i) => keys.indexOf(key) !== i);
  if (twice !== undefined) fail(`--token-for ${twice} is given twice`);
  const otherToken = flags['other-token'];
  if (otherToken !== undefined && otherToken.trim() === '')
    fail('--other-token needs a credential of a second company');
  if (otherToken !== undefined && otherToken === token)
    fail("--other-token must be a credential of another company than --token's");
  const timeout = flags['timeout-ms'];
  const millis = (value: string) => /^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 3_600_000;
  if (timeout !== undefined && !millis(timeout))
    fail(`--timeout-ms must be a whole number of milliseconds from 1 to 3600000 (got "${timeout}")`);
  const requestTimeout = flags['request-timeout-ms'];
  if (requestTimeout !== undefined && !millis(requestTimeout))
    fail(`--request-timeout-ms must be a whole number of milliseconds from 1 to 3600000 (got "${requestTimeout}")`);
  const maxBody = flags['max-body'] === undefined ? undefined : parseSize(flags['max-body']);
  if (flags['max-body'] !== undefined && maxBody === undefined)
    fail(
      `--max-body must be a size from 1 byte to 1GiB: bytes, or a whole number of KiB, MiB or GiB such as 16MiB (got "${flags['max-body']}")`,
    );
  const deadline = parseDuration(flags.deadline ?? DEFAULT_DEADLINE);
  if (deadline === undefined)
    fail(
      `--deadline must be a duration from 1 ms to 24 h: a whole number of ms, s, m or h such as 90s or 10m, or of milliseconds (got "${flags.deadline}")`,
    );
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
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND')
      fail(`the spec tests are not built here (no ${CONFORMANCE_RUNNER.pathname}): run npm run build`, 1);
    throw error;
  }
  // Checked before anything is run, touching nothing; written at the end, whole or not at all (report-file.ts).
  const reportKind: ReportKind = {
    name: 'a conformance report of catalog-emulator',
    recognises: (text) => text.startsWith(runner.REPORT_OPENING),
  };
  const reportTarget = report === undefined ? undefined : checkedReport(report, reportKind);
  let unwritten = false;
  const writeReport = (markdown: string) => {
    try {
      writeReportFile(reportTarget!, reportKind, markdown);
    } catch (error) {
      unwritten = true;
      const why =
        error instanceof FileError
          ? `--report ${report} ${error.message}`
          : ((error as NodeJS.ErrnoException).code ?? (error as Error).message);
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
    credentials: [
      { flag: '--token', token },
      ...(otherToken === undefined ? [] : [{ flag: '--other-token', token: otherToken }]),
    ],
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
  if (at <= 0 || pair.slice(at + 1).trim() === '')
    fail(`${usage} (got "${pair.slice(0, at > 0 ? at : undefined)}${at > 0 ? '=…' : ''}")`);
  const permissions = pair
    .slice(0, at)
    .split('+')
    .map((p) => p.trim());
  const unknown = permissions.find((p) => !(PERMISSIONS as readonly string[]).includes(p));
  if (unknown !== undefined) fail(`${usage} (got "${unknown}")`);
  if (new Set(permissions).size !== permissions.length)
    fail(`--token-for ${pair.slice(0, at)} names a permission twice`);
  const token = pair.slice(at + 1).trim();
  // The tokens travel in CONFORMANCE_TOKEN_FOR, a comma-separated list.
  if (token.includes(',')) fail(`--token-for ${pair.slice(0, at)}: a token with a comma cannot be passed on`);
  return [[...permissions].sort().join('+'), token];
}
