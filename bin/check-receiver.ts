/**
 * `catalog-emulator check-receiver --url URL --secret S [--previous-secret S] [--cnpj-root ROOT]
 * [--request-timeout-ms N] [--deadline DURATION] [--json]`: the receiver check (emu.webhooks.checkReceiver) against a receiver by its URL, stamped
 * by this machine's clock. Prints the table (or the JSON) and resolves to the exit code: 0 every case passed, 1 a case
 * failed, 2 bad usage or a receiver that answered nothing. Imports the public entry only.
 */
import { createEmulator, formatReceiverCheck, type ReceiverCheck } from '../src/index.js';
import { parseDuration } from './quantities.js';

/** The secret, when --secret is not given (a flag shows in the process list; the environment does not). */
const SECRET_VARIABLE = 'CATALOG_EMULATOR_WEBHOOK_SECRET';

/** The in-process options' names as the command spells them, for the messages of a refused value. */
const FLAG_OF: Readonly<Record<string, string>> = { url: '--url', secret: '--secret', previousSecret: '--previous-secret', cnpjRoot: '--cnpj-root', timeoutMs: '--request-timeout-ms', deadlineMs: '--deadline' };

interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Runs the command; a usage error is written to stderr and exits 2 like any other refusal of the command. */
/** The command's options, as the CLI's one option table (arguments.ts) parsed them. */
export interface CheckReceiverFlags {
  readonly url?: string | undefined;
  readonly secret?: string | undefined;
  readonly 'previous-secret'?: string | undefined;
  readonly 'cnpj-root'?: string | undefined;
  readonly 'request-timeout-ms'?: string | undefined;
  readonly deadline?: string | undefined;
  readonly json?: boolean | undefined;
}

/** Runs the command; a usage error is written to stderr and exits 2 like any other refusal of the command. */
export async function runCheckReceiver(args: readonly string[], values: CheckReceiverFlags, out: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const usage = (message: string) => {
    out.stderr(`catalog-emulator: check-receiver: ${message}\nRun "catalog-emulator help check-receiver" for usage.\n`);
    return 2;
  };
  if (args.length > 0) return usage(`takes no argument (got "${args[0]}"); name the receiver with --url URL`);
  const url = values.url;
  if (url === undefined) return usage('needs --url URL: the URL of the receiver to check');
  // An empty variable counts as unset, as shells make it easy to leave one so.
  const secret = values.secret ?? (env[SECRET_VARIABLE] || undefined);
  if (secret === undefined) return usage(`needs --secret S (or ${SECRET_VARIABLE}): the secret the receiver verifies with`);
  const timeout = values['request-timeout-ms'];
  if (timeout !== undefined && !/^\d+$/.test(timeout)) return usage(`--request-timeout-ms must be a whole number of milliseconds (got "${timeout}")`);
  const timeoutMs = timeout === undefined ? undefined : Number(timeout);
  const deadlineMs = values.deadline === undefined ? undefined : parseDuration(values.deadline);
  if (values.deadline !== undefined && deadlineMs === undefined) return usage(`--deadline takes a duration such as 60s, 2m or 90000 (milliseconds) (got "${values.deadline}")`);

  const emu = createEmulator();
  let check: ReceiverCheck;
  try {
    check = await emu.webhooks.checkReceiver({
      url,
      secret,
      ...(values['previous-secret'] === undefined ? {} : { previousSecret: values['previous-secret'] }),
      ...(values['cnpj-root'] === undefined ? {} : { cnpjRoot: values['cnpj-root'] }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(deadlineMs === undefined ? {} : { deadlineMs }),
    });
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    // The option's name as the command spells it: "timeoutMs must be …" → "--timeout-ms must be …".
    return usage(error.message.replace(/^(\w+)/, (name) => FLAG_OF[name] ?? name));
  } finally {
    await emu.close();
  }
  if (values.json) out.stdout(`${JSON.stringify(check, null, 2)}\n`);
  if (!check.reachable) {
    if (!values.json) out.stderr(`catalog-emulator: check-receiver: ${url} answered none of the ${check.cases.length} cases: ${silence(check)}\n`);
    return 2;
  }
  if (!values.json) out.stdout(formatReceiverCheck(check));
  return check.failed === 0 ? 0 : 1;
}

/** What became of the cases of a receiver that answered none: the failures, each with its cause, most frequent first. */
function silence(check: ReceiverCheck): string {
  const counts = new Map<string, number>();
  for (const c of check.cases) {
    const what = c.failure === 'timeout' ? `no answer in ${check.timeoutMs} ms` : c.failure === 'not-sent' ? 'not sent (deadline)' : `${c.failure}${c.cause === null ? '' : ` (${c.cause})`}`;
    counts.set(what, (counts.get(what) ?? 0) + 1);
  }
  const sorted = [...counts].sort((a, b) => b[1] - a[1]);
  return sorted.length === 1 ? sorted[0]![0] : sorted.map(([what, n]) => `${what} ×${n}`).join(', ');
}
