/**
 * The virtual clocks: the shared one (emu.clock, /_emulator/clock) and a company's own (emu.companies.clock(id),
 * /_emulator/companies/{companyId}/clock): where it is, move it forward, run the work due.
 */
import * as z from 'zod';
import { ClockRangeError, type ClockMode, type VirtualClock } from '../../clock/clock.js';
import { parseDuration } from '../../core/time.js';
import { toInstant } from '../../engine/config.js';
import type { ControlContext } from '../context.js';
import { ControlError } from '../control-error.js';
import { control, NO_COMPANY, type Control, type ControlCall, type Notes, type SampleWorld } from '../row.js';
import { named } from '../schemas.js';

export interface ClockInfo {
  readonly now: Date;
  readonly mode: ClockMode;
  /** Work pending: what runUntilIdle would run (deliveries, job runs, held requests). */
  readonly pending: number;
  /** Deadline tasks scheduled (expiries, retention, daily schedules): only advance fires them. */
  readonly deadlines: number;
}

/** The controls of one clock (emu.clock, or a company's own). */
export interface ClockControls {
  now(): Date;
  mode(): ClockMode;
  /** Work pending: what runUntilIdle would run. */
  pending(): number;
  info(): ClockInfo;
  /**
   * Runs every task due within `by` ("90s", "15m", "24h", "31d", or ms), each at its own virtual time; at most
   * 3650 days, and never past 9999-12-31T23:59:59.999Z (a ClockRangeError says which bound). `ran` counts
   * every occurrence due, coalesced housekeeping runs included.
   */
  advance(by: number | string): Promise<{ now: Date; ran: number }>;
  /** advance() to an instant: not the past, at most 3650 days ahead, never past 9999-12-31T23:59:59.999Z. */
  advanceTo(instant: string | number | Date): Promise<{ now: Date; ran: number }>;
  /**
   * Runs the service's work (deliveries, job runs, held requests) until none is left, never a deadline; throws
   * ClockLimitError after `limit` tasks of work (default 10,000). A deadline it passes fires at the next advance.
   */
  runUntilIdle(options?: { limit?: number }): Promise<{ now: Date; ran: number }>;
}

/** Clock controls over the clock `clockOf` finds at each call (reset and restore replace clocks). */
export function clockControls(clockOf: () => VirtualClock, modeOf: () => ClockMode): ClockControls {
  return {
    now: () => new Date(clockOf().now()),
    mode: modeOf,
    pending: () => clockOf().pending(),
    info: () => {
      const clock = clockOf();
      return { now: new Date(clock.now()), mode: modeOf(), pending: clock.pending(), deadlines: clock.deadlines() };
    },
    advance: async (by) => {
      const ms = parseDuration(by);
      if (ms === undefined) {
        throw new ClockRangeError(
          'by',
          'by must be whole milliseconds or a duration such as "90s", "15m", "24h", "31d", "1h30m"; got ' +
            JSON.stringify(by),
        );
      }
      return moved(await clockOf().advance(ms));
    },
    advanceTo: async (instant) =>
      moved(await clockOf().advanceTo(toInstant(instant, 'to', (message) => new ClockRangeError('to', message)))),
    runUntilIdle: async (options = {}) => moved(await clockOf().runUntilIdle(options)),
  };
}

const moved = (result: { now: number; ran: number }) => ({ now: new Date(result.now), ran: result.ran });

/** The clock's control among emu.companies'. */
export function companyClock(context: ControlContext) {
  const { config } = context.engine;
  return {
    /**
     * The clock of a company on a clock of its own: the same controls as emu.clock, moving only that company's
     * time. A company on the shared clock has none (404 relogio_proprio_inexistente): emu.clock moves it.
     */
    clock: (companyId: string): ClockControls =>
      clockControls(
        () => ownClockOf(context, companyId),
        () => config.mode,
      ),
  };
}

/** The clock of a company on a clock of its own; a ControlError for another. */
function ownClockOf(context: ControlContext, companyId: string): VirtualClock {
  const world = context.worldWith(companyId);
  if (world.owner === companyId) return world.clock;
  throw new ControlError(
    404,
    'relogio_proprio_inexistente',
    `Company ${companyId} is on the shared clock, which /_emulator/clock (emu.clock) moves; create a company with ` +
      '"clock": "own" to give it a clock of its own.',
    'path.companyId',
  );
}

const advance = z.union(
  [
    z.strictObject({
      by: z
        .union([z.string(), z.number()])
        .meta({ description: '"90s", "15m", "24h", "31d", "1h30m", or milliseconds.' }),
    }),
    z.strictObject({ to: z.string().meta({ description: 'An ISO 8601 date-time, not in the past.' }) }),
  ],
  'send {"by": "90s" | "15m" | "24h" | "31d" | <ms>} or {"to": "<ISO date-time>"}',
);
const runUntilIdle = z.strictObject({
  limit: z
    .number()
    .int()
    .min(1)
    .max(10_000_000)
    .optional()
    .meta({ description: 'Tasks of work to run at most (default 10,000): past it, 409 limite_de_tarefas.' }),
});

const clockInfo = named('ClockInfo', () =>
  z.strictObject({
    now: z.string(),
    mode: z.enum(['manual', 'real']),
    pending: z.number().int(),
    deadlines: z.number().int(),
  }),
);
const clockRun = named('ClockRun', () =>
  z.strictObject({ now: z.string(), ran: z.number().int().meta({ description: 'Tasks run.' }) }),
);

const NO_OWN_CLOCK = 'relogio_proprio_inexistente: the company is on the shared clock (move /_emulator/clock).';
const CLOCK_ERRORS = {
  409: 'limite_de_tarefas: more tasks than the limit.',
  422: 'valor_invalido: a duration or instant the clock cannot take (caminho names it).',
  503: 'servico_indisponivel: a reset, restore or close replaced the clock while it moved.',
};

const ran = (result: { now: Date; ran: number }) => ({ now: result.now.toISOString(), ran: result.ran });
const ranWords = (answer: { now: string; ran: number }): Notes => ({
  detail: `now ${answer.now}, ran ${answer.ran} task${answer.ran === 1 ? '' : 's'}`,
});

/** The company a path names (the routes of a company-scoped row have it). */
const companyOf = (call: ControlCall): string => (call.params as { readonly companyId?: string }).companyId ?? '';

/**
 * The three controls of a clock: the shared one under /clock, a company's own under /companies/:companyId/clock.
 * `sampled`: where the sample calls find it, and the bodies they send.
 */
function clockRows<const Get extends string, const Advance extends string, const Run extends string>(
  prefix: string,
  ids: { readonly get: Get; readonly advance: Advance; readonly runUntilIdle: Run },
  clockOf: (call: ControlCall) => ClockControls,
  sampled: { readonly path: (w: SampleWorld) => string; readonly advance: unknown; readonly runUntilIdle?: unknown },
) {
  const own = prefix !== '/clock';
  const whose = own ? "the company's own clock" : 'the shared clock';
  const scope = own ? 'company' : 'shared clock';
  const missing: Record<number, string> = own ? { 404: `${NO_COMPANY} ${NO_OWN_CLOCK}` } : {};
  return [
    control({
      method: 'GET',
      path: prefix,
      id: ids.get,
      summary: `Now, mode, pending work and deadlines of ${whose}`,
      tag: 'Clock',
      scope,
      success: { 200: { description: 'The clock.', body: clockInfo } },
      errors: missing,
      run: (call) => {
        const info = clockOf(call).info();
        return { now: info.now.toISOString(), mode: info.mode, pending: info.pending, deadlines: info.deadlines };
      },
      sample: (w) => ({ path: sampled.path(w) }),
    }),
    control({
      method: 'POST',
      path: `${prefix}/advance`,
      id: ids.advance,
      summary: `Move ${whose} forward, running every task due, each at its own virtual time`,
      tag: 'Clock',
      scope,
      body: { schema: advance },
      success: { 200: { description: 'Where the clock is now and how many tasks ran.', body: clockRun } },
      errors: { ...missing, ...CLOCK_ERRORS },
      run: async (call) => {
        const clock = clockOf(call);
        return ran('by' in call.body ? await clock.advance(call.body.by) : await clock.advanceTo(call.body.to));
      },
      describe: ranWords,
      sample: (w) => ({ path: `${sampled.path(w)}/advance`, body: sampled.advance }),
    }),
    control({
      method: 'POST',
      path: `${prefix}/run-until-idle`,
      id: ids.runUntilIdle,
      summary: `Run the service's work on ${whose} until none is left (never a deadline)`,
      tag: 'Clock',
      scope,
      body: { schema: runUntilIdle },
      success: { 200: { description: 'Where the clock is now and how many tasks ran.', body: clockRun } },
      errors: { ...missing, ...CLOCK_ERRORS },
      run: async (call) => ran(await clockOf(call).runUntilIdle(call.body)),
      describe: ranWords,
      sample: (w) => ({ path: `${sampled.path(w)}/run-until-idle`, body: sampled.runUntilIdle }),
    }),
  ] as const;
}

export const ROWS = [
  ...clockRows(
    '/clock',
    { get: 'getClock', advance: 'advanceClock', runUntilIdle: 'runUntilIdle' },
    ({ emu }) => emu.clock,
    {
      path: () => '/clock',
      advance: { by: '1h' },
    },
  ),
  ...clockRows(
    '/companies/:companyId/clock',
    { get: 'getOwnClock', advance: 'advanceOwnClock', runUntilIdle: 'runUntilIdleOwnClock' },
    (call) => call.emu.companies.clock(companyOf(call)),
    {
      path: (w) => `/companies/${w.ownId}/clock`,
      advance: { to: '2026-01-02T00:00:00Z' },
      runUntilIdle: { limit: 10 },
    },
  ),
] as const satisfies readonly Control[];
