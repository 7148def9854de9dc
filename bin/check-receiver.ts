/**
 * `catalog-emulator check-receiver --url URL --secret S [--previous-secret S] [--cnpj-root ROOT]
 * [--deadline DURATION] [--json]`: the receiver check (emu.webhooks.checkReceiver) against a receiver by its URL,
 * stamped by this machine's clock, each delivery given the service's attempt time-out (15 s). Prints the table (or
 * the JSON) and resolves to the exit code: 0 every case passed, 1 a case failed, 2 bad usage, a receiver that
 * answered nothing, or a case the deadline left unjudged. Imports the public entry only.
 */
import { createEmulator, formatReceiverCheck, type ReceiverCheck } from '../src/index.js';
import { foreignOption } from './arguments.js';
import { exitWith, fail } from './exit.js';
import type { CommandHelp } from './help.js';
import { parseDuration } from './quantities.js';

/** Its lines of the Usage block, and its options. */
export const CHECK_RECEIVER_HELP: CommandHelp = {
  usage: `  catalog-emulator check-receiver --url URL --secret S [options]
                                       send your webhook receiver signed deliveries it must
                                       accept or refuse (forged, altered, stale, replayed...)
                                       and judge each answer`,
  options: `Options of check-receiver:
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
left unjudged.`,
};

/** The secret, when --secret is not given (a flag shows in the process list; the environment does not). */
const SECRET_VARIABLE = 'CATALOG_EMULATOR_WEBHOOK_SECRET';

/** The in-process options' names as the command spells them, for the messages of a refused value. */
const FLAG_OF: Readonly<Record<string, string>> = {
  url: '--url',
  secret: '--secret',
  previousSecret: '--previous-secret',
  cnpjRoot: '--cnpj-root',
  deadlineMs: '--deadline',
};

interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** The command's options, as the CLI's one option table (arguments.ts) parsed them. */
export interface CheckReceiverFlags {
  readonly url?: string | undefined;
  readonly secret?: string | undefined;
  readonly 'previous-secret'?: string | undefined;
  readonly 'cnpj-root'?: string | undefined;
  readonly deadline?: string | undefined;
  readonly json?: boolean | undefined;
}

/** The command as the bin runs it: an option of another command refused, then the check, then exit with its code. */
export async function checkReceiverCommand(
  args: readonly string[],
  values: CheckReceiverFlags & Readonly<Record<string, unknown>>,
): Promise<never> {
  const foreign = foreignOption('check-receiver', values);
  if (foreign !== undefined) fail(foreign);
  const out = {
    stdout: (text: string) => process.stdout.write(text),
    stderr: (text: string) => process.stderr.write(text),
  };
  return exitWith(await runCheckReceiver(args, values, out, process.env));
}

/** Runs the command; a usage error is written to stderr and exits 2 like any other refusal of the command. */
async function runCheckReceiver(
  args: readonly string[],
  values: CheckReceiverFlags,
  out: Output,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const usage = (message: string) => {
    out.stderr(`catalog-emulator: check-receiver: ${message}\nRun "catalog-emulator help check-receiver" for usage.\n`);
    return 2;
  };
  if (args.length > 0) return usage(`takes no argument (got "${args[0]}"); name the receiver with --url URL`);
  const url = values.url;
  if (url === undefined) return usage('needs --url URL: the URL of the receiver to check');
  // An empty variable counts as unset, as shells make it easy to leave one so.
  const secret = values.secret ?? (env[SECRET_VARIABLE] || undefined);
  if (secret === undefined)
    return usage(`needs --secret S (or ${SECRET_VARIABLE}): the secret the receiver verifies with`);
  const deadlineMs = values.deadline === undefined ? undefined : parseDuration(values.deadline);
  if (values.deadline !== undefined && deadlineMs === undefined)
    return usage(`--deadline takes a duration such as 60s, 2m or 90000 (milliseconds) (got "${values.deadline}")`);

  const emu = createEmulator();
  let check: ReceiverCheck;
  try {
    check = await emu.webhooks.checkReceiver({
      url,
      secret,
      ...(values['previous-secret'] === undefined ? {} : { previousSecret: values['previous-secret'] }),
      ...(values['cnpj-root'] === undefined ? {} : { cnpjRoot: values['cnpj-root'] }),
      ...(deadlineMs === undefined ? {} : { deadlineMs }),
    });
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    // The option's name as the command spells it: "deadlineMs must be …" → "--deadline must be …".
    return usage(error.message.replace(/^(\w+)/, (name) => FLAG_OF[name] ?? name));
  } finally {
    await emu.close();
  }
  return printCheck(check, values.json === true, out);
}

/**
 * Prints a check (the table, or with `json` the JSON) and gives the command's exit code: 2 with one line on stderr
 * for a check with no verdict to give (a case its deadline left unjudged, or a receiver that answered nothing).
 */
export function printCheck(check: ReceiverCheck, json: boolean, out: Output): number {
  if (json) out.stdout(`${JSON.stringify(check, null, 2)}\n`);
  const fail = (line: string) => {
    if (!json) out.stderr(`catalog-emulator: check-receiver: ${line}\n`);
    return 2;
  };
  const total = check.cases.length;
  if (!check.judged) {
    // Never a verdict on cases the check did not judge: the deadline passed before their answers.
    const open = check.cases.filter((c) => c.failure === 'not-sent' || c.failure === 'deadline').map((c) => c.id);
    const cases = `${open.length} of the ${total} cases were judged (${open.join(', ')})`;
    return fail(`the deadline passed before ${cases}: run it again with a longer --deadline`);
  }
  if (!check.reachable) return fail(`${check.receiver.url} answered none of the ${total} cases: ${silence(check)}`);
  if (!json) out.stdout(formatReceiverCheck(check));
  return check.failed === 0 ? 0 : 1;
}

/** What became of the cases of a receiver that answered none: the failures, each with its cause, most frequent first. */
function silence(check: ReceiverCheck): string {
  const counts = new Map<string, number>();
  for (const c of check.cases) {
    const cause = c.cause === null ? '' : ` (${c.cause})`;
    const what = c.failure === 'timeout' ? `no answer in ${check.timeoutMs} ms` : `${c.failure}${cause}`;
    counts.set(what, (counts.get(what) ?? 0) + 1);
  }
  const sorted = [...counts].sort((a, b) => b[1] - a[1]);
  return sorted.length === 1 ? sorted[0]![0] : sorted.map(([what, n]) => `${what} ×${n}`).join(', ');
}
