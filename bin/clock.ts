/** `catalog-emulator clock [advance DURATION | advance --to ISO | run-until-idle]`: a running server's clock. */
import type { CommandHelp } from './help.js';
import { shown } from './log-format.js';
import { actionOf, namedActions } from './remote-actions.js';
import { call, remoteOf, usageError, type Io } from './remote-client.js';
import { noMore, plural, printJson, nonEmpty, read, wholeNumber } from './remote-command.js';
import { alternatives } from './suggest.js';

/** Its lines of the Usage block, and its options. */
export const CLOCK_HELP: CommandHelp = {
  usage: `  catalog-emulator clock [advance DURATION | run-until-idle] [options]
                                       show, move or run the clock of a running server`,
  options: `Options of clock:
  (no action)         show the clock: now, mode, work pending and deadlines scheduled
  advance DURATION    move it forward, running each task due at its own time: 90s, 15m, 24h, 1d,
                      1h30m, or milliseconds
  advance --to ISO    move it to that instant
  run-until-idle [--limit N]
                      run the service's work (deliveries, job runs, held requests) until none is
                      left, at most N tasks (default 10000)
  --company ID        the clock of that company, one on a clock of its own
  --json              print the server's answer (JSON) instead of the line`,
};

const CLOCK_USAGE = 'clock [advance DURATION | advance --to ISO | run-until-idle [--limit N]] [--company ID]';

export async function clockCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = read(args, {
    to: { type: 'string' },
    company: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
  });
  const remote = remoteOf(values, io.env);
  const [word, ...rest] = positionals;
  const action = actionOf('clock', word);
  if (action === undefined) {
    const actions = alternatives(namedActions('clock'));
    throw usageError(`clock takes ${actions}, or nothing to show the clock (got "${word}")`);
  }
  // The shared clock, or a company's own: the same three controls under its path.
  const own = values.company === undefined ? undefined : { companyId: nonEmpty(values.company, '--company') };
  const ids =
    own === undefined
      ? ({ get: 'getClock', advance: 'advanceClock', run: 'runUntilIdle' } as const)
      : ({ get: 'getOwnClock', advance: 'advanceOwnClock', run: 'runUntilIdleOwnClock' } as const);
  const whose = own === undefined ? '' : ` (company ${own.companyId}'s own clock)`;
  if (action !== 'advance' && values.to !== undefined)
    throw usageError(`--to is an option of clock advance (${CLOCK_USAGE})`);
  if (action !== 'run-until-idle' && values.limit !== undefined)
    throw usageError(`--limit is an option of clock run-until-idle (${CLOCK_USAGE})`);
  let run: { now: string; ran: number };
  switch (action) {
    case '': {
      type Info = { now: string; mode: string; pending: number; deadlines: number };
      const info = (await call(remote, ids.get, { params: own })) as Info;
      if (values.json) return printJson(io, info);
      const work = `${plural(info.pending, 'task')} of work pending, ${plural(info.deadlines, 'deadline')} scheduled`;
      io.out(`${shown(info.now)}, ${info.mode} clock${whose}: ${work}`);
      return 0;
    }
    case 'advance': {
      const [by, ...extra] = rest;
      noMore(extra, CLOCK_USAGE);
      if ((by === undefined) === (values.to === undefined))
        throw usageError(
          `clock advance takes a duration (90s, 15m, 24h, 1d, 1h30m, or milliseconds) or --to ISO, one of them (${CLOCK_USAGE})`,
        );
      const body = by === undefined ? { to: values.to } : { by: /^\d+$/.test(by) ? Number(by) : by };
      run = (await call(remote, ids.advance, { params: own, body })) as typeof run;
      break;
    }
    case 'run-until-idle':
      noMore(rest, CLOCK_USAGE);
      const body = values.limit === undefined ? {} : { limit: wholeNumber(values.limit, '--limit') };
      run = (await call(remote, ids.run, { params: own, body })) as typeof run;
      break;
    default:
      return action satisfies never;
  }
  if (values.json) return printJson(io, run);
  io.out(`now ${shown(run.now)}${whose}: ran ${plural(run.ran, 'task')}`);
  return 0;
}
