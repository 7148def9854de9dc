/**
 * Snapshot and restore (emu.snapshot() and emu.restore(), /_emulator/state): the whole service state as JSON-safe
 * data, or one company's (emu.companies.snapshot(id) and restore(id, …), /_emulator/companies/{companyId}/state);
 * snapshot-schema.ts says what a restore checks. And emu.changes: the state's changes as they happen.
 */
import * as z from 'zod';
import type { PersistedTask } from '../../clock/clock.js';
import { companyProblem, exportCompany, swapCompany } from '../../core/company-data.js';
import { exportState, importState, plainCopy } from '../../core/snapshot.js';
import { rearmStartedAttempts } from '../../core/webhooks/events.js';
import type { StateChangeListener } from '../../engine/changes.js';
import type { ControlSettings } from '../../engine/config.js';
import type { World } from '../../engine/world.js';
import type { ControlContext } from '../context.js';
import { control, NO_COMPANY, type Control } from '../row.js';
import { named } from '../schemas.js';
import {
  companySnapshotSchema,
  companyStateError,
  readCompanySnapshot,
  readSnapshot,
  snapshotSchema,
  type CompanySnapshot,
  type Snapshot,
} from '../snapshot-schema.js';
import { emulatorInfo } from './emulator.js';

/** emu.snapshot(). */
export function snapshotOf({ engine }: ControlContext): Snapshot {
  const own = engine.ownWorlds().map((world) => ({ companyId: world.owner!, ...savedWorld(world) }));
  // Built as new data (see savedWorld), which the caller owns: the cast drops the core types' readonly.
  const snapshot = {
    format: 'catalog-emulator/state' as const,
    version: 1 as const,
    seed: engine.config.seed,
    ...savedWorld(engine.world),
    ...(own.length === 0 ? {} : { ownClocks: own }),
  };
  return snapshot as Snapshot;
}

/** emu.restore(snapshot). */
export function restore({ engine }: ControlContext, snapshot: unknown): void {
  // Every check comes first: the current clock has the handlers of every task kind, and answers for a new one.
  // A copy of the snapshot (readSnapshot copies while it checks): the caller may change its own later.
  const data = readSnapshot(snapshot, (task) => engine.world.clock.loadProblem(task));
  const loaded = (world: Pick<Snapshot, 'state' | 'now' | 'tasks' | 'random' | 'requestRandom'>) => ({
    state: importState(world.state),
    now: world.now,
    tasks: world.tasks,
    random: world.random,
    requestRandom: world.requestRandom,
  });
  engine.restore(
    loaded(data),
    (data.ownClocks ?? []).map((world) => ({ companyId: world.companyId, ...loaded(world) })),
  );
}

/** emu.changes: the state's changes, for whoever keeps them. */
export interface ChangeSubscription {
  /** Calls `listener` with every change from now on (the state as it is now is where they start); returns the stop. */
  subscribe(listener: StateChangeListener): () => void;
}

/** The state's controls among emu.companies'. */
export function companyState(context: ControlContext) {
  const { engine } = context;
  return {
    /**
     * One company's records and tasks as JSON-safe data (`catalog-emulator/company`): what restore(companyId, …)
     * puts back. `now` is its clock's now when taken; the regulatory reference is not in it (it is no company's).
     */
    snapshot: (companyId: string): CompanySnapshot => {
      const world = context.worldWith(companyId);
      // Built as new data (the records copied, the tasks' payloads too), which the caller owns: the cast drops
      // the core types' readonly.
      const snapshot = {
        format: 'catalog-emulator/company' as const,
        version: 1 as const,
        companyId,
        now: world.clock.now(),
        tasks: plainCopy(world.clock.tasksOf(companyId)),
        state: exportCompany(world.state, companyId),
      };
      return snapshot as CompanySnapshot;
    },
    /**
     * Puts a company's snapshot in place of its records and tasks, leaving every other company's. On the shared
     * clock its tasks come back at their due times on the clock as it is now (one due already runs at the next
     * advance); a company on a clock of its own gets its clock back at the saved now. Throws a
     * SnapshotError (the path of the field) for one that is not of this company or would not fit beside the
     * others (an id, CNPJ root, token or position another company has), and then nothing has changed.
     */
    restore: (companyId: string, snapshot: unknown): void => {
      const world = context.worldWith(companyId);
      // A copy of the snapshot (readCompanySnapshot copies while it checks): the caller may change its own later.
      const data = readCompanySnapshot(snapshot, companyId, (task) => world.clock.loadProblem(task));
      const elsewhere = engine
        .worlds()
        .filter((other) => other !== world)
        .map((other) => other.state);
      const problem = companyProblem(world.state, data.state, companyId, elsewhere);
      if (problem) throw companyStateError(problem);
      const reason = `restored for company ${companyId}`;
      if (world.owner === companyId) {
        // A company on a clock of its own gets its time back too: its clock at the saved now, with its tasks, and
        // the housekeeping runs of its world in the same rhythm, each at its first occurrence after that now.
        const housekeeping = world.clock
          .tasks()
          .filter((task) => task.owner === null)
          .map((task) => ({ ...task, due: firstAfter(task, data.now) }));
        world.clock.load(data.now, [...housekeeping, ...data.tasks], reason);
      } else {
        world.clock.removeOwner(companyId, reason);
        for (const task of data.tasks) world.clock.schedule(task, task.due);
      }
      world.apply((state, ctx) => {
        // Checked above (companyProblem), and the state has not changed since.
        swapCompany(state, companyId, data.state);
        // Requests in flight did not survive: its attempts still running end by their time-out.
        rearmStartedAttempts(state, ctx, companyId);
      });
      engine.indexTokens(world);
      engine.tell({ kind: 'restored', companyId });
    },
  };
}

/**
 * A world as a snapshot carries it: new data that shares nothing with the world (the records copied, the tasks'
 * payloads too).
 */
function savedWorld(world: World) {
  return {
    now: world.clock.now(),
    random: [...world.random.state()] as [number, number, number, number],
    requestRandom: [...world.requestRandom.state()] as [number, number, number, number],
    tasks: plainCopy(world.clock.tasks()),
    state: exportState(world.state),
  };
}

/** A periodic task's first occurrence after `now`, in its rhythm (its due as it is, when it is not periodic). */
function firstAfter(task: PersistedTask, now: number): number {
  if (task.everyMs === undefined) return task.due;
  return task.due - Math.floor((task.due - now - 1) / task.everyMs) * task.everyMs;
}

/** A whole snapshot is read up to the emulator's own limit, not the 1 MiB of the other controls. */
const SNAPSHOT_LIMIT = {
  bytes: (settings: ControlSettings) => settings.maxSnapshotBytes,
  shown: 'maxSnapshotBytes (createEmulator option; 256 MiB by default)',
  tooLarge: (bytes: number) =>
    `The snapshot exceeds this emulator's limit of ${bytes} bytes (createEmulator({ maxSnapshotBytes }) sets it).`,
};
const NOT_A_SNAPSHOT = 'valor_invalido: not a snapshot this emulator could serve (caminho names the field).';

const snapshot = named('Snapshot', () => snapshotSchema);
const companySnapshot = named('CompanySnapshot', () => companySnapshotSchema);

export const ROWS = [
  control({
    method: 'GET',
    path: '/companies/:companyId/state',
    id: 'getCompanyState',
    summary: "One company's records and tasks",
    tag: 'State',
    scope: 'company',
    success: { 200: { description: 'A catalog-emulator/company snapshot.', body: companySnapshot } },
    errors: { 404: NO_COMPANY },
    run: ({ emu, params }) => emu.companies.snapshot(params.companyId),
    sample: (w) => ({ path: `/companies/${w.companyId}/state` }),
  }),
  control({
    method: 'PUT',
    path: '/companies/:companyId/state',
    id: 'restoreCompanyState',
    summary: "Put a company's snapshot in place of its records and tasks (checked whole first)",
    tag: 'State',
    scope: 'company',
    body: { schema: z.unknown(), shown: companySnapshot, limit: SNAPSHOT_LIMIT },
    success: { 200: { description: 'The emulator after the restore.', body: emulatorInfo } },
    errors: { 404: NO_COMPANY, 422: NOT_A_SNAPSHOT },
    run: ({ emu, params, body }) => {
      emu.companies.restore(params.companyId, body);
      return emu.info();
    },
    describe: (answer) => ({ detail: `now ${answer.now}` }),
    sample: (w) => ({ path: `/companies/${w.companyId}/state`, body: w.emu.companies.snapshot(w.companyId) }),
  }),
  control({
    method: 'GET',
    path: '/state',
    id: 'getState',
    summary: 'The whole service state: records, idempotency store, clock, tasks, random sources',
    tag: 'State',
    scope: 'emulator',
    success: { 200: { description: 'A catalog-emulator/state snapshot.', body: snapshot } },
    errors: {},
    run: ({ emu }) => emu.snapshot(),
    sample: () => ({ path: '/state' }),
  }),
  control({
    method: 'PUT',
    path: '/state',
    id: 'restoreState',
    summary: 'Put a snapshot in place of the whole state (checked whole first; a refused one changes nothing)',
    tag: 'State',
    scope: 'emulator',
    body: { schema: z.unknown(), shown: snapshot, limit: SNAPSHOT_LIMIT },
    success: { 200: { description: 'The emulator after the restore.', body: emulatorInfo } },
    errors: { 422: NOT_A_SNAPSHOT },
    run: ({ emu, body }) => {
      emu.restore(body);
      return emu.info();
    },
    describe: (answer) => ({ detail: `now ${answer.now}` }),
    sample: (w) => ({ path: '/state', body: w.emu.snapshot() }),
  }),
] as const satisfies readonly Control[];
