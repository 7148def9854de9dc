/**
 * The state as plain data and back (docs/controls.md "Snapshot and restore"), and what must hold of such data before it
 * is imported: each a loop over the slices (src/core/slices.ts), which say it kind by kind beside their aggregates.
 * Only records are exported; the per-company indexes are derived from them on import, in the same order, so
 * cursors stay valid.
 */
import { at, type Found, type Records } from './integrity.js';
import { createState, SLICES, type StateData } from './slices.js';
import type { Positions, Slice, State } from './state.js';

export type { StateData } from './slices.js';

/**
 * Each slice's records under its key, in the registry's order (the order of a snapshot's keys), as plain data its
 * caller owns: every record a copy (Slice.copy), so a change to it never reaches the state.
 */
export function exportState(state: State): StateData {
  const data: Record<string, unknown> = {};
  for (const slice of SLICES as readonly Slice[]) data[slice.key] = ownCopy(slice, slice.toData(state));
  return data as StateData;
}

/**
 * The same data, holding the state's own records (which are never changed in place) instead of copies: for a
 * check that only reads it (a company's records beside the others'), at no cost per record.
 */
export function viewState(state: State): StateData {
  const data: Record<string, unknown> = {};
  for (const slice of SLICES as readonly Slice[]) data[slice.key] = slice.toData(state);
  return data as StateData;
}

/** A slice's data (from its toData) as a copy that shares nothing with the state: its own copy, or a deep copy. */
export const ownCopy = <D>(slice: Slice<string, D>, data: D): D => (slice.copy ? slice.copy(data) : plainCopy(data));

/**
 * A deep copy of plain data (arrays, objects, strings, numbers, booleans, null), in its key order. An own
 * `__proto__` key stays an own key (as structuredClone keeps it), never the copy's prototype. On a snapshot's
 * records it is several times faster than structuredClone.
 */
export function plainCopy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = plainCopy(value[i]);
    return copy as T;
  }
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = plainCopy((value as Record<string, unknown>)[key]);
    if (key === '__proto__')
      Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy as T;
}

/** A state from its data: each slice imports its key, in the registry's order. */
export function importState(data: StateData): State {
  const state = createState();
  // Each slice reads the key it wrote: the loop cannot say so to the compiler, hence the widening.
  for (const slice of SLICES as readonly Slice[]) slice.fromData(state, data[slice.key as keyof StateData]);
  return state;
}

export type { IntegrityProblem } from './integrity.js';

/**
 * What must hold between records for an imported state to be usable: every reference resolves within its
 * company, what is unique is unique, and the derived indexes can be rebuilt (positions increase). importState
 * and every read path rely on it. Each slice checks its own data (beside its aggregate): first every slice what
 * must be unique in it, then every slice its references, in the registry's order; then the positions, across
 * slices. Returns the first problem found, or undefined.
 */
export function checkIntegrity(data: StateData): Found {
  const byId = <T extends { readonly id: string }>(records: readonly T[]) => new Map(records.map((r) => [r.id, r]));
  const records: Records = {
    companies: byId(data.companies),
    establishments: byId(data.establishments),
    catalogs: byId(data.catalogs),
    products: byId(data.products),
  };
  const slices = SLICES as readonly Slice[];
  for (const slice of slices) {
    const found = slice.unique?.(data[slice.key as keyof StateData], records);
    if (found) return found;
  }
  for (const slice of slices) {
    const found = slice.check?.(data, records);
    if (found) return found;
  }
  return positions(data, slices);
}

/** Positions order every list: each one is unique and at most `sequence`, the last one handed out. */
function positions(data: StateData, slices: readonly Slice[]): Found {
  const lists = slices.flatMap((slice) => slice.positions?.(data[slice.key as keyof StateData]) ?? []);
  const seen = positionSet(
    data.sequence,
    lists.reduce((sum, list) => sum + list.count, 0),
  );
  for (const list of lists) {
    for (let i = 0; i < list.count; i++) {
      const position = list.at(i);
      if (position > data.sequence)
        return at(
          list.path(i),
          `position ${position} is beyond sequence ${data.sequence}, the last position handed out`,
        );
      if (seen.has(position))
        return at(list.path(i), `position ${position} is also that of ${firstAt(lists, position).join('.')}`);
      seen.add(position);
    }
  }
  return undefined;
}

/**
 * A set of positions from 0 to `sequence` (whole numbers, as the schema has them), to hold `count` of them: a
 * byte per position when the sequence is not far beyond the count (as in any state the emulator made, whose
 * sequence counts what it ever handed out), far cheaper than a Set of as many numbers; a Set otherwise (a snapshot may claim a sequence up to 2^52).
 */
function positionSet(sequence: number, count: number): { has(position: number): boolean; add(position: number): void } {
  if (sequence > 16 * count + 65_536) return new Set<number>();
  const seen = new Uint8Array(sequence + 1);
  return { has: (position) => seen[position] === 1, add: (position) => void (seen[position] = 1) };
}

/** The path of the first position of `lists` equal to `position` (one is): looked for again only for a problem. */
function firstAt(lists: readonly Positions[], position: number): readonly (string | number)[] {
  for (const list of lists) for (let i = 0; i < list.count; i++) if (list.at(i) === position) return list.path(i);
  throw new Error(`position ${position} is in no list`);
}

/** What a task may name in its payload: the record it works on. */
export interface TaskReference {
  readonly owner: string | null;
  readonly payload?: unknown;
}

/**
 * The record a task's payload names, by payload key. A job's records are never removed, so a task naming one
 * that does not exist cannot come from this emulator; an event may have been removed by retention, and the
 * delivery handlers do nothing for one that is gone, so a task may outlive it.
 */
const TASK_SUBJECTS = [
  { key: 'analysisId', noun: 'analysis', records: (d: Omit<StateData, 'regulatory'>) => d.analyses, mustExist: true },
  {
    key: 'executionId',
    noun: 'surveillance execution',
    records: (d: Omit<StateData, 'regulatory'>) => d.executions,
    mustExist: true,
  },
  {
    key: 'correctionId',
    noun: 'CNPJ correction',
    records: (d: Omit<StateData, 'regulatory'>) => d.cnpjCorrections,
    mustExist: true,
  },
  {
    key: 'ingestionId',
    noun: 'ingestion',
    records: (d: Omit<StateData, 'regulatory'>) => d.ingestions,
    mustExist: true,
  },
  {
    key: 'eventId',
    noun: 'webhook event',
    records: (d: Omit<StateData, 'regulatory'>) => d.webhookEvents,
    mustExist: false,
  },
] as const;

/**
 * Every task belongs to a company of the state (or to none: the emulator's housekeeping), and the record its
 * payload names is of that company, so a job fault aimed at one company never fires on another's work.
 * Paths are from the root of the task list.
 */
export function checkTaskSubjects(data: Omit<StateData, 'regulatory'>, tasks: readonly TaskReference[]): Found {
  const companies = new Set(data.companies.map((c) => c.id));
  const lookups = TASK_SUBJECTS.map((s) => ({
    ...s,
    byId: new Map<string, { readonly companyId: string }>(s.records(data).map((record) => [record.id, record])),
  }));
  for (const [i, task] of tasks.entries()) {
    if (task.owner !== null && !companies.has(task.owner))
      return at([i, 'owner'], `a task of unknown company ${task.owner}`);
    const payload = task.payload;
    if (typeof payload !== 'object' || payload === null) continue;
    for (const subject of lookups) {
      const id = (payload as Record<string, unknown>)[subject.key];
      if (typeof id !== 'string') continue;
      const record = subject.byId.get(id);
      if (!record) {
        if (subject.mustExist) return at([i, 'payload', subject.key], `no ${subject.noun} ${id} in the state`);
      } else if (record.companyId !== task.owner) {
        return at(
          [i, 'owner'],
          `a task of ${subject.noun} ${id} belongs to its company ${record.companyId}, not ${task.owner ?? 'null'}`,
        );
      }
    }
  }
  return undefined;
}
