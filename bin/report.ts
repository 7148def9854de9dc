/** `catalog-emulator report [--json]`: a running server's report (findings on its clients, coverage). */
import { formatReport, type Report } from '../src/index.js';
import type { CommandHelp } from './help.js';
import { shown } from './log-format.js';
import { actionOf } from './remote-actions.js';
import { call, remoteOf, usageError, type Io } from './remote-client.js';
import { printJson, read } from './remote-command.js';

const REPORT_USAGE = 'report [--json]';

/** Its line of the Usage block (its options are those every command for a running server takes). */
export const REPORT_HELP: CommandHelp = {
  usage: `  catalog-emulator ${REPORT_USAGE}     print a running server's report`,
};

/** The report control (GET /_emulator/report), which servers older than it lack. */
const REPORT = { name: 'report', control: 'GET /_emulator/report' } as const;

export async function reportCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = read(args, { json: { type: 'boolean' } });
  const remote = remoteOf(values, io.env);
  // It takes no word: only the command alone is one of its actions.
  const action = positionals.length === 0 ? actionOf('report', undefined) : undefined;
  if (action === undefined) throw usageError(`unexpected argument "${positionals[0]}" (${REPORT_USAGE})`);
  action satisfies '';
  const report = (await call(remote, 'getReport', { feature: REPORT })) as Report;
  if (values.json) return printJson(io, report);
  // As Markdown, which reads well in a terminal too; each text of the server's in it escaped, one line.
  io.out(formatReport(escapedStrings(report) as Report).replace(/\n$/, ''));
  return 0;
}

/** `value` with each of its strings, at any depth, as the log shows a value (shown). */
function escapedStrings(value: unknown): unknown {
  if (typeof value === 'string') return shown(value);
  if (Array.isArray(value)) return value.map(escapedStrings);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, escapedStrings(item)]));
}
