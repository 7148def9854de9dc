/**
 * Explorations told to the emulator (emu.explorations, /_emulator/explorations): an explorer (explore() given
 * `tell`, or `catalog-emulator explore`) begins one, tells it each run and then its verdict, so that the log tells
 * each run in a line, the inspector shows where the search is, and the report holds the last one
 * (src/grading/exploration.ts keeps the record). The emulator keeps the last few; a new one does not wait for
 * another to end, as explorers on one server each tell their own.
 */
import * as z from 'zod';
import { EVENT_KINDS } from '../../core/webhooks/events.js';
import { faultPlanSchema, type FaultPlan } from '../../engine/fault-plans.js';
import {
  beginExploration,
  endExploration,
  explorationLine,
  REASON_KINDS,
  RUN_PHASES,
  runLine,
  tellRun,
  type Exploration,
  type ExplorationReason,
  type ExplorationRun,
  type ExplorationVerdict,
  type RunPhase,
} from '../../grading/exploration.js';
import type { ControlContext } from '../context.js';
import { ControlError } from '../control-error.js';
import { BAD_BODY, bodyIssue, control, type Control } from '../row.js';
import { lazy, named } from '../schemas.js';
import { clientFinding } from '../grading-schemas.js';

/** The explorations kept: the last begun, and a few before it whose explorers may still be telling them. */
const KEPT = 8;
const TEXT = 16 * 1024;
const LIST = 1000;

/** A fault plan (src/engine/fault-plans.ts declares its shape), written once in the controls' document. */
const plan = named('FaultPlan', faultPlanSchema);
const begin = lazy(() =>
  z.strictObject({
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 32),
    runs: z.number().int().min(1).max(1_000_000).meta({ description: 'The plans the search is asked to try.' }),
    command: z.string().max(TEXT).nullable().optional().meta({ description: 'The command explored, if any.' }),
  }),
);
const reason = named('ExplorationReason', () =>
  z.strictObject({ kind: z.enum(REASON_KINDS), message: z.string().max(TEXT) }),
);
const run = lazy(() =>
  z.strictObject({
    phase: z.enum(RUN_PHASES),
    plan: plan(),
    reasons: z.array(reason()).max(LIST).meta({ description: 'Why the run failed; empty when it passed.' }),
  }),
);
const failure = lazy(() =>
  z.strictObject({
    plan: plan(),
    shrunkFrom: plan(),
    reasons: z.array(reason()).max(LIST),
    findings: z.array(clientFinding()).max(LIST),
    outcomeDiff: z.array(z.string().max(TEXT)).max(LIST),
    replay: z.string().max(TEXT),
    faultFree: z.boolean(),
  }),
);
const verdict = lazy(() =>
  z.strictObject({
    runs: z.number().int().min(0),
    passed: z.number().int().min(0),
    failure: failure().nullable(),
    incomplete: z.string().max(TEXT).nullable(),
  }),
);
const explorationRun = named('ExplorationRun', () =>
  z.strictObject({
    n: z.number().int().min(1),
    phase: z.enum(RUN_PHASES),
    plan: plan(),
    description: z.string(),
    reasons: z.array(reason()),
  }),
);
export const exploration = named('Exploration', () =>
  z.strictObject({
    id: z.string(),
    state: z.enum(['running', 'passed', 'failed', 'incomplete']),
    seed: z.number().int(),
    runsAsked: z.number().int(),
    command: z.string().nullable(),
    told: z.number().int().min(0).meta({ description: 'Runs told so far, every phase.' }),
    recent: z.array(explorationRun()).meta({ description: 'The last runs told (at most 20), oldest first.' }),
    verdict: verdict().nullable().meta({ description: 'How the search ended; null while it runs.' }),
  }),
);

/** emu.explorations. */
export function explorationsControls(context: ControlContext) {
  const { explorations } = context;
  const found = (id: string): Exploration => {
    const kept = explorations.get(id);
    if (kept === undefined)
      throw new ControlError(
        404,
        'exploracao_nao_encontrada',
        `No exploration ${JSON.stringify(id)} is kept (the emulator keeps the last ${KEPT}).`,
        'path.id',
      );
    return kept;
  };
  const ended = (id: string) =>
    new ControlError(409, 'exploracao_encerrada', `Exploration ${id} has ended: it is told nothing more.`, 'path.id');
  const keep = (next: Exploration) => {
    explorations.delete(next.id);
    explorations.set(next.id, next);
    for (const old of explorations.keys()) if (explorations.size > KEPT) explorations.delete(old);
    return next;
  };
  return {
    /** Begins an exploration: the last one, which the report shows. */
    begin: (input: { readonly seed: number; readonly runs: number; readonly command?: string | null }): Exploration => {
      const checked = parsed(begin(), input);
      context.explorationsBegun += 1;
      const next = keep(beginExploration(`exploracao-${context.explorationsBegun}`, checked));
      context.lastExplorationId = next.id;
      return next;
    },
    /** Tells exploration `id` one more run; 409 once it has ended. */
    run: (
      id: string,
      input: { readonly phase: RunPhase; readonly plan: FaultPlan; readonly reasons: readonly ExplorationReason[] },
    ): ExplorationRun => {
      const checked = parsed(run(), input);
      const next = tellRun(found(id), checked);
      if (next === null) throw ended(id);
      keep(next);
      return next.recent.at(-1)!;
    },
    /** Ends exploration `id` with its verdict; 409 when it had ended already. */
    end: (id: string, input: ExplorationVerdict): Exploration => {
      const checked = parsed(verdict(), input);
      const next = endExploration(found(id), checked);
      if (next === null) throw ended(id);
      return keep(next);
    },
    /** The last exploration begun, as it stands; undefined before any. */
    last: (): Exploration | undefined =>
      context.lastExplorationId === undefined ? undefined : explorations.get(context.lastExplorationId),
  };
}

export type ExplorationsControls = ReturnType<typeof explorationsControls>;

/** `value` by `schema`, or the 422 the route answers for it, at the field it names. */
function parsed<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { caminho, mensagem } = bodyIssue(result.error);
  throw new ControlError(422, 'valor_invalido', mensagem, caminho);
}

const NOT_KEPT = 'exploracao_nao_encontrada: no exploration kept has this id (the emulator keeps the last 8).';

export const ROWS = [
  control({
    method: 'POST',
    path: '/explorations',
    id: 'beginExploration',
    summary: 'Begin an exploration: the runs and the verdict an explorer tells it are logged, shown and reported',
    tag: 'Grading',
    scope: 'emulator',
    body: { schema: z.unknown(), shown: begin },
    success: { 201: { description: 'The exploration, running.', body: exploration } },
    errors: { 422: BAD_BODY },
    run: ({ emu, body }) => emu.explorations.begin(body as never),
    describe: (answer) => ({
      detail: `${answer.id} begun: seed ${answer.seed}, ${answer.runsAsked} plans asked${answer.command === null ? '' : `, ${answer.command}`}`,
    }),
    sample: () => ({ path: '/explorations', body: { seed: 1, runs: 100, command: 'python3 sync.py' } }),
  }),
  control({
    method: 'GET',
    path: '/explorations/last',
    id: 'getLastExploration',
    summary: 'The last exploration begun, as it stands: where the search is, its last runs, its verdict',
    tag: 'Grading',
    scope: 'emulator',
    success: { 200: { description: 'The exploration.', body: exploration } },
    errors: { 404: 'exploracao_nao_encontrada: no exploration was begun.' },
    run: ({ emu }) => {
      const last = emu.explorations.last();
      if (last === undefined)
        throw new ControlError(404, 'exploracao_nao_encontrada', 'No exploration was begun on this emulator.');
      return last;
    },
    sample: (w) => {
      w.emu.explorations.begin({ seed: 1, runs: 10 });
      return { path: '/explorations/last' };
    },
  }),
  control({
    method: 'POST',
    path: '/explorations/:id/runs',
    id: 'tellExplorationRun',
    summary: 'Tell an exploration one run: its phase, its plan, and why it failed (nothing when it passed)',
    tag: 'Grading',
    scope: 'emulator',
    body: { schema: z.unknown(), shown: run },
    success: { 201: { description: 'The run, numbered.', body: explorationRun } },
    errors: { 404: NOT_KEPT, 409: 'exploracao_encerrada: the exploration has ended.', 422: BAD_BODY },
    run: ({ emu, params, body }) => emu.explorations.run(params.id, body as never),
    describe: (answer, { params }) => ({ detail: `${params.id} ${runLine(answer)}` }),
    sample: (w) => ({
      path: `/explorations/${w.emu.explorations.begin({ seed: 1, runs: 10 }).id}/runs`,
      body: {
        phase: 'search',
        plan: [{ target: 'delivery', eventType: EVENT_KINDS[0], nth: 1, effect: 'timeout' }],
        reasons: [],
      },
    }),
  }),
  control({
    method: 'PUT',
    path: '/explorations/:id/verdict',
    id: 'endExploration',
    summary:
      'End an exploration with its verdict: every plan passed, the minimal failing plan, or why it was cut short',
    tag: 'Grading',
    scope: 'emulator',
    body: { schema: z.unknown(), shown: verdict },
    success: { 200: { description: 'The exploration, ended.', body: exploration } },
    errors: { 404: NOT_KEPT, 409: 'exploracao_encerrada: the exploration had ended.', 422: BAD_BODY },
    run: ({ emu, params, body }) => emu.explorations.end(params.id, body as ExplorationVerdict),
    describe: (answer) => ({ detail: `${answer.id} ${explorationLine(answer)}` }),
    sample: (w) => ({
      path: `/explorations/${w.emu.explorations.begin({ seed: 1, runs: 10 }).id}/verdict`,
      body: { runs: 10, passed: 10, failure: null, incomplete: null },
    }),
  }),
] as const satisfies readonly Control[];
