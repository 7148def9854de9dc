/**
 * `catalog-emulator explore [options] -- COMMAND [ARGS…]`: the search of explore() (docs/explore.md) over HTTP, for
 * an integration written in any language. Each run is a fresh company on a clock of its own, with the run's fault
 * plan armed for it alone, on a server this command starts (or the one --url names); COMMAND runs with
 * CATALOG_EMULATOR_URL, CATALOG_EMULATOR_TOKEN and CATALOG_EMULATOR_COMPANY_ID in its environment, and its exit
 * code, the grading's findings and the company's outcome judge the run. Exit 0 when every run passed, 1 for a
 * failure found, 2 for bad usage, a server that cannot be driven, or a fault-free run that itself fails.
 */
import { spawn } from 'node:child_process';
import {
  createEmulator,
  checkExploreOptions,
  describePlan,
  exploreRuns,
  formatExploration,
  jobCounts,
  readDeliveries,
  runVerdict,
  readOutcome,
  armedFault,
  PLAN_EFFECT_NAMES,
  type ClientFinding,
  type FaultPlan,
  type PlanEffect,
  type ExplorationTeller,
  type PlanRun,
  type RunPhase,
  type RunningServer,
} from '../src/index.js';
import type { CommandHelp } from './help.js';
import { shown } from './log-format.js';
import { parseDuration } from './quantities.js';
import { readRegular } from './regular-file.js';
import { call, CommandExit, remoteOf, send, usageError, type Io, type Remote } from './remote-client.js';
import { read, wholeNumber } from './remote-command.js';

const EXPLORE_USAGE = 'explore [options] -- COMMAND [ARGS…]';

export const EXPLORE_HELP: CommandHelp = {
  usage: `  catalog-emulator ${EXPLORE_USAGE}
                                       search fault plans against a command that runs your integration`,
  options: `Options of explore:
  --runs N            the fault plans tried (default 100)
  --seed S            the plans' seed (default 1): the same seed gives the same plans
  --max-faults N      the most faults in a plan (default 3)
  --faults E,…        the effects plans draw from (default: all):
                      ${effectList()}
  --replay FILE       run exactly the plan in FILE (a failure's plan, or a whole --json output)
  --deadline D        the whole search's time, e.g. 90s, 10m (default 10m); a run is stopped there
  --url URL           a running server to explore on (default: one this command starts)
  --json              print { seed, runs, passed, failure } instead of the text
  COMMAND gets CATALOG_EMULATOR_URL, CATALOG_EMULATOR_TOKEN and CATALOG_EMULATOR_COMPANY_ID: a fresh
  company for each run, its credential holding every permission; a non-zero exit fails the run`,
};

/** The effects of --faults, wrapped under the option's description. */
function effectList(): string {
  const lines: string[] = [];
  for (const name of PLAN_EFFECT_NAMES) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + name.length + 2 <= 76) lines[last] += ` ${name},`;
    else lines.push(`${name},`);
  }
  return lines.join('\n                      ').slice(0, -1);
}

const DEFAULT_DEADLINE_MS = 10 * 60_000;
/** What is kept of a run's output to show: its last bytes. */
const OUTPUT_KEPT = 16 * 1024;
/** A --replay file is a plan or a --json output: small. */
const REPLAY_FILE_LIMIT = 1024 * 1024;

export async function exploreCommand(args: string[], io: Io): Promise<number> {
  const split = args.indexOf('--');
  const [command, ...commandArgs] = split === -1 ? [] : args.slice(split + 1);
  const { values, positionals } = read(split === -1 ? args : args.slice(0, split), {
    url: { type: 'string' },
    'control-token': { type: 'string' },
    'request-timeout-ms': { type: 'string' },
    runs: { type: 'string' },
    seed: { type: 'string' },
    'max-faults': { type: 'string' },
    faults: { type: 'string' },
    replay: { type: 'string' },
    deadline: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length > 0) throw usageError(`unexpected argument "${shown(positionals[0]!)}" (${EXPLORE_USAGE})`);
  if (command === undefined || command === '')
    throw usageError(`explore needs the command that runs your integration after -- (${EXPLORE_USAGE})`);
  const runs = values.runs === undefined ? 100 : wholeNumber(values.runs, '--runs');
  if (runs < 1) throw usageError('--runs must be at least 1');
  const seed = values.seed === undefined ? 1 : wholeNumber(values.seed, '--seed');
  const maxFaults = values['max-faults'] === undefined ? 3 : wholeNumber(values['max-faults'], '--max-faults');
  if (maxFaults < 1) throw usageError('--max-faults must be at least 1');
  const deadline = values.deadline === undefined ? DEFAULT_DEADLINE_MS : parseDuration(values.deadline);
  if (deadline === undefined)
    throw usageError(
      `--deadline must be a duration such as 90s or 10m, from 1 ms to 24 h (got "${shown(values.deadline!)}")`,
    );
  const faults = values.faults?.split(',').map((f) => f.trim()) as PlanEffect[] | undefined;
  const replay = values.replay === undefined ? undefined : replayPlan(values.replay);
  // Refused before a server starts or COMMAND runs.
  try {
    checkExploreOptions({ ...(faults === undefined ? {} : { faults }), ...(replay === undefined ? {} : { replay }) });
  } catch (error) {
    throw usageError((error as Error).message);
  }

  // The server: the one --url names, or one of this process's own, on a real clock so that a client's sleep
  // (a Retry-After) is time that passes.
  let own: RunningServer | undefined;
  const remote =
    values.url === undefined
      ? undefined
      : remoteOf(
          {
            url: values.url,
            'control-token': values['control-token'],
            'request-timeout-ms': values['request-timeout-ms'],
          },
          io.env,
        );
  const emulator = remote === undefined ? createEmulator({ clock: 'real' }) : undefined;
  try {
    if (emulator !== undefined) own = await emulator.listen({ port: 0 });
    const server: Remote = remote ?? { url: own!.url, token: undefined, timeoutMs: 30_000 };
    const outputs = new Map<string, string>();
    const started = performance.now();
    // Every run's company has the fault-free run's CNPJ root, so that its records have the same natural keys.
    let cnpjRoot: string | undefined;
    const runner = async (plan: FaultPlan): Promise<PlanRun> => {
      const left = deadline - (performance.now() - started);
      const run = await runOnce(server, plan, cnpjRoot, command, commandArgs, io, Math.max(1, left));
      cnpjRoot ??= run.cnpjRoot;
      outputs.set(JSON.stringify(plan), run.output);
      return run;
    };
    // Each run told: a line on stderr, or on a terminal one status line that says where the search is.
    let counted = 0;
    const onRun = (plan: FaultPlan, reasons: readonly { kind: string }[], phase: RunPhase) => {
      if (values.json) return;
      const line = `run ${++counted}: ${describePlan(plan)} → ${runVerdict(reasons)}`;
      if (io.status === undefined) return io.err(line);
      const where =
        phase === 'search' ? `${counted - 1} of ${runs}` : phase === 'fault-free' ? 'the fault-free run' : phase;
      io.status(`explore: ${where} · ${line}`);
    };
    // The words of the command as a shell would take them back, for the replay line and the server's account.
    const words = [command, ...commandArgs].map((word) => (/^[\w./:=,@+-]+$/.test(word) ? word : JSON.stringify(word)));
    const replayLine = `catalog-emulator explore --seed ${seed} --replay PLAN.json -- ${words.join(' ')}`;
    const result = await exploreRuns(runner, {
      runs,
      seed,
      maxFaults,
      timeLimitMs: deadline,
      onRun,
      // A server given with --url is told the exploration as it goes: its log, inspector and report show it.
      ...(remote === undefined ? {} : { teller: serverTeller(remote, words.join(' '), replayLine, io) }),
      ...(faults === undefined ? {} : { faults }),
      ...(replay === undefined ? {} : { replay }),
    });
    io.status?.(null);
    // The plan saved to a file (or the whole --json output) replays it.
    const failure = result.failure === null ? null : { ...result.failure, replay: replayLine };
    if (values.json) io.out(JSON.stringify({ ...result, failure }));
    else {
      io.out(formatExploration({ ...result, failure }));
      if (failure !== null) {
        io.out(`plan (PLAN.json): ${JSON.stringify(failure.plan)}`);
        const output = outputs.get(JSON.stringify(failure.plan)) ?? '';
        io.out(`the failing run's output${output.length >= OUTPUT_KEPT ? ' (its end)' : ''}:`);
        io.out(output === '' ? '(none)' : shown(output.trimEnd(), OUTPUT_KEPT + 100).replaceAll('\\x0a', '\n'));
      }
    }
    if (failure?.faultFree) {
      io.err('catalog-emulator: the fault-free run itself fails: nothing was explored');
      return 2;
    }
    // A search cut short is no pass: it says why, and exits 2.
    if (failure === null && result.incomplete !== null) {
      io.err(`catalog-emulator: the search is incomplete: ${result.incomplete}`);
      return 2;
    }
    return failure === null ? 0 : 1;
  } finally {
    await own?.close();
    await emulator?.close();
  }
}

/**
 * The server told the exploration over its controls. A server that cannot be told (an older catalog-emulator
 * without them, one that refuses) leaves the search as it is: it is said once on stderr, and nothing more is told.
 */
function serverTeller(server: Remote, command: string, replay: string, io: Io): ExplorationTeller {
  let id: string | undefined;
  let silent = false;
  const tell = async (what: () => Promise<void>) => {
    if (silent) return;
    try {
      await what();
    } catch (error) {
      silent = true;
      const why = error instanceof CommandExit ? error.message : String(error);
      io.err(`catalog-emulator: the server is not told this exploration (${why.split('\n')[0]}); the search goes on`);
    }
  };
  return {
    begin: (exploration) =>
      tell(async () => {
        id = ((await call(server, 'beginExploration', { body: { ...exploration, command } })) as { id: string }).id;
      }),
    run: (run) => tell(async () => void (await call(server, 'tellExplorationRun', { params: { id: id! }, body: run }))),
    end: (verdict) =>
      tell(async () => {
        const body = verdict.failure === null ? verdict : { ...verdict, failure: { ...verdict.failure, replay } };
        await call(server, 'endExploration', { params: { id: id! }, body });
      }),
  };
}

/** The plan of a --replay FILE: a plan, or a --json output's failure.plan; a usage error otherwise. */
function replayPlan(path: string): FaultPlan {
  let text: string;
  try {
    const bytes = readRegular(path, REPLAY_FILE_LIMIT, '--replay');
    if (bytes === undefined) throw usageError(`--replay ${shown(path)}: no such file`);
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof CommandExit) throw error;
    throw usageError(`--replay ${shown(path)}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usageError(`--replay ${shown(path)} is not JSON: give a failure's plan, or a whole --json output`);
  }
  const plan = Array.isArray(value) ? value : (value as { failure?: { plan?: unknown } } | null)?.failure?.plan;
  if (!Array.isArray(plan))
    throw usageError(`--replay ${shown(path)} holds no plan: give a failure's plan, or a whole --json output`);
  return plan as FaultPlan;
}

/** One run: a fresh company with `plan` armed, COMMAND run for it, then what it did, read; the company removed. */
async function runOnce(
  server: Remote,
  plan: FaultPlan,
  cnpjRoot: string | undefined,
  command: string,
  args: readonly string[],
  io: Io,
  timeLimitMs: number,
): Promise<PlanRun & { readonly output: string; readonly cnpjRoot: string }> {
  const body = cnpjRoot === undefined ? { clock: 'own' } : { clock: 'own', cnpjRoot };
  const company = (await call(server, 'createCompany', { body })) as {
    companyId: string;
    token: string;
    cnpjRoot: string;
  };
  const params = { companyId: company.companyId };
  try {
    for (const fault of plan)
      await call(server, 'addCompanyFault', { params, body: armedFault(fault, company.companyId) });
    const ran = await runCommand(command, args, timeLimitMs, {
      ...io.env,
      CATALOG_EMULATOR_URL: server.url,
      CATALOG_EMULATOR_TOKEN: company.token,
      CATALOG_EMULATOR_COMPANY_ID: company.companyId,
    });
    const journal = (await call(server, 'listCompanyRequests', { params })) as {
      items: { method: string; path: string }[];
    };
    // The fault-free run's job runs are where job faults can land: read from the company's timeline, only for it.
    const jobs = plan.length === 0 ? jobCounts(await jobTasks(server, company.companyId)) : [];
    const report = (await call(server, 'getReport', {
      query: `companyId=${encodeURIComponent(company.companyId)}`,
    })) as {
      findings: ClientFinding[];
    };
    await call(server, 'clearCompanyFaults', { params });
    const api = apiFetch({ ...server, token: company.token });
    const outcome = await readOutcome(api, company.token);
    const deliveries = await readDeliveries(api, company.token, outcome);
    return {
      exit: ran.exit,
      findings: report.findings,
      outcome,
      requests: journal.items.map(({ method, path }) => ({ method, path })),
      deliveries,
      jobs,
      output: ran.output,
      cnpjRoot: company.cnpjRoot,
    };
  } finally {
    await call(server, 'removeCompany', { params });
  }
}

/** The tasks of the job runs on company `companyId`'s timeline (GET …/inspector/companies/{id}/timeline), every page. */
async function jobTasks(server: Remote, companyId: string): Promise<string[]> {
  const tasks: string[] = [];
  for (let before: string | null = null, first = true; first || before !== null; first = false) {
    const query: string = `limit=1000${before === null ? '' : `&before=${encodeURIComponent(before)}`}`;
    const page = (await call(server, 'getInspectorTimeline', { params: { companyId }, query })) as {
      items: { kind: string; tags: string[] }[];
      nextBefore: string | null;
    };
    for (const item of page.items) if (item.kind === 'job' && item.tags[0] !== undefined) tasks.push(item.tags[0]);
    before = page.nextBefore;
  }
  return tasks;
}

/** The API of `remote` as a fetch for readOutcome: its answers bounded and never redirected (remote-client.ts). */
function apiFetch(remote: Remote): (path: string) => Promise<Response> {
  return async (path) => {
    const answer = await send(remote, 'GET', path);
    return new Response(answer.text, { status: answer.status });
  };
}

/** Runs COMMAND to its end (killed at `timeLimitMs`): null when it exited 0, else why not; its output's end. */
function runCommand(
  command: string,
  args: readonly string[],
  timeLimitMs: number,
  env: NodeJS.ProcessEnv,
): Promise<{ exit: string | null; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
    };
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeLimitMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ exit: `${command} could not be started: ${error.message}`, output });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const exit = timedOut
        ? `${command} did not end before the deadline`
        : code === 0
          ? null
          : code === null
            ? `${command} was ended by ${signal}`
            : `${command} exited with code ${code}`;
      resolve({ exit, output });
    });
  });
}
