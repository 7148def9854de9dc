/**
 * One company's data on its own: removed from a state, exported, imported into a state that lacks it, or put back
 * in place of its current records. Each is a loop over the slices (src/core/slices.ts), which say beside their
 * aggregates whose each record is (ownerOf) and how a company's records leave (removeCompany).
 *
 * A company's data has the shape of a state's data without the regulatory reference, which every company
 * shares; its `sequence` is that of the state it was exported from (the last position handed out then), so an
 * import keeps every later position after its records'.
 */
import { at, type Found, type Records } from './integrity.js';
import { SLICES, type StateData } from './slices.js';
import { checkIntegrity, ownCopy, viewState } from './snapshot.js';
import type { Slice, State } from './state.js';
import { companiesSlice, credentialsSlice, originsSlice, type CreatedCompany } from './companies.js';
import { establishmentsSlice } from './establishments.js';
import { ok, refuse, type Result } from './refusal.js';
import { surveillanceOf } from './surveillance.js';

export type CompanyData = Omit<StateData, 'regulatory'>;

/** A slice whose records each belong to one company. */
type CompanySlice = Slice<Exclude<keyof CompanyData, 'sequence'>, readonly unknown[]> &
  Required<Pick<Slice<string, readonly unknown[]>, 'ownerOf' | 'removeCompany'>>;

/** The slices of records that belong to a company, in the registry's order (the sequence and the reference are global). */
const COMPANY_SLICES = (SLICES as readonly Slice[]).filter(
  (slice) => 'ownerOf' in slice,
) as unknown as readonly CompanySlice[];

/** The state's records by id, as the slices' ownerOf looks them up. */
/** A per-company slice's records in `data` (the loop cannot tell the compiler which key holds which kind). */
const listed = (data: Omit<CompanyData, 'sequence'>, slice: CompanySlice): readonly unknown[] => data[slice.key];

const recordsOf = (state: State): Records => ({
  companies: state.companies,
  establishments: state.establishments,
  catalogs: state.catalogs,
  products: state.products,
});

const byId = <T extends { readonly id: string }>(records: readonly T[]) => new Map(records.map((r) => [r.id, r]));
const recordsOfData = (data: CompanyData): Records => ({
  companies: byId(data.companies),
  establishments: byId(data.establishments),
  catalogs: byId(data.catalogs),
  products: byId(data.products),
});

/**
 * Removes every record of `companyId` and every entry derived from them, leaving the other companies' records,
 * positions and derived tables exactly as they were. The sequence and the reference stay: they are no company's.
 */
export function removeCompany(state: State, companyId: string): void {
  for (const slice of [...COMPANY_SLICES].reverse()) slice.removeCompany(state, companyId);
}

/** The records of `companyId`, each slice's in its export order, with the state's `sequence`: copies its caller owns. */
export function exportCompany(state: State, companyId: string): CompanyData {
  const r = recordsOf(state);
  const data: Record<string, unknown> = { sequence: state.sequence };
  for (const slice of COMPANY_SLICES)
    data[slice.key] = ownCopy(
      slice,
      slice.toData(state).filter((record) => slice.ownerOf(record, r) === companyId),
    );
  return data as CompanyData;
}

/**
 * Why `data` cannot be added to `state` (in place of company `replacing`'s records, when given), or undefined.
 * It must hold one company, every record of it and naming only records of it; a company that is not in the state
 * already (or, replacing, the same company); and together with the other companies' records it must pass
 * checkIntegrity: no id, CNPJ root, credential token or position another company has. `elsewhere`: the states of
 * the emulator's other worlds (a company on a clock of its own has one), whose records' ids, roots and tokens it
 * must not have either, refused as in its own world. Paths are within `data`.
 */
export function companyProblem(
  state: State,
  data: CompanyData,
  replacing?: string,
  elsewhere: readonly State[] = [],
): Found {
  const [company, ...more] = data.companies;
  if (company === undefined || more.length > 0)
    return at(['companies'], `one company's data holds exactly one company; this holds ${data.companies.length}`);
  const companyId = company.id;
  if (replacing !== undefined && companyId !== replacing)
    return at(['companies', 0, 'id'], `the data is of company ${companyId}, not of ${replacing}`);
  if (replacing === undefined && state.companies.has(companyId))
    return at(['companies', 0, 'id'], `company ${companyId} is already in the emulator`);
  const own = recordsOfData(data);
  for (const slice of COMPANY_SLICES) {
    for (const [i, record] of listed(data, slice).entries()) {
      const owner = slice.ownerOf(record, own);
      if (owner === companyId) continue;
      return at(
        [slice.key, i],
        owner === undefined
          ? `names a record that is not one of company ${companyId}'s`
          : `belongs to company ${owner}, not to ${companyId}, whose data this is`,
      );
    }
  }
  return (
    problemBeside(state, data, replacing) ??
    elsewhere.reduce<Found>((found, other) => found ?? problemAcross(other, data), undefined)
  );
}

/** checkIntegrity of the other companies' records with `data`'s after them; a problem's path within `data`. */
function problemBeside(state: State, data: CompanyData, replacing: string | undefined): Found {
  const current = viewState(state);
  const r = recordsOf(state);
  const merged: Record<string, unknown> = { ...current, sequence: Math.max(current.sequence, data.sequence) };
  const before = new Map<string, number>();
  for (const slice of COMPANY_SLICES) {
    const others =
      replacing === undefined
        ? listed(current, slice)
        : listed(current, slice).filter((record: unknown) => slice.ownerOf(record, r) !== replacing);
    before.set(slice.key, others.length);
    merged[slice.key] = [...others, ...listed(data, slice)];
  }
  return withinData(checkIntegrity(merged as StateData), before);
}

/**
 * What must be unique (each slice's `unique`) over the records of another world, which `data` will not join, and
 * `data`'s; a problem's path within `data`.
 */
function problemAcross(other: State, data: CompanyData): Found {
  return sharedAcross([viewState(other), data])?.found;
}

/**
 * The first id, CNPJ root or token that two worlds' records share (each slice's `unique` over their records
 * together, so a clash reads as it does within one world): the index of the later world, and the path within its
 * data. An id names one thing on the whole emulator, whatever its clock; positions and references are each
 * world's own, and each world is taken to hold together on its own.
 */
export function sharedAcross(
  worlds: readonly Omit<CompanyData, 'sequence'>[],
): { readonly world: number; readonly found: NonNullable<Found> } | undefined {
  // One world alone is checked by checkIntegrity (and a restore without own clocks pays nothing more here).
  if (worlds.length < 2) return undefined;
  const merged: Record<string, readonly unknown[]> = {};
  // Per key, where each world's records start in the merged list.
  const starts = new Map<string, number[]>();
  for (const slice of COMPANY_SLICES) {
    const lists = worlds.map((world) => listed(world, slice));
    const offsets: number[] = [];
    let at = 0;
    for (const list of lists) {
      offsets.push(at);
      at += list.length;
    }
    starts.set(slice.key, offsets);
    merged[slice.key] = lists.flat();
  }
  const records = recordsOfData(merged as unknown as CompanyData);
  for (const slice of COMPANY_SLICES) {
    const found = slice.unique?.(merged[slice.key]!, records);
    if (!found) continue;
    const [key, index, ...rest] = found.path;
    const offsets = starts.get(String(key));
    if (offsets === undefined || typeof index !== 'number') return { world: worlds.length - 1, found };
    const world = offsets.findLastIndex((start) => start <= index);
    return { world, found: at([key!, index - offsets[world]!, ...rest], found.problem) };
  }
  return undefined;
}

/**
 * A problem found in records listed after `before` of them (per key) as a path within the data that added them. A
 * problem the checks place on a record already there is one the data makes with it.
 */
function withinData(found: Found, before: ReadonlyMap<string, number>): Found {
  if (!found) return undefined;
  const [key, index, ...rest] = found.path;
  const offset = before.get(String(key));
  if (offset === undefined || typeof index !== 'number') return found;
  return index >= offset
    ? at([key!, index - offset, ...rest], found.problem)
    : at([key!], `with the records already in the emulator: ${found.problem}`);
}

/** Adds a company's records (see companyProblem) to `state`; the refusal found, and then nothing has changed. */
export function importCompany(state: State, data: CompanyData): Found {
  const found = companyProblem(state, data);
  if (found) return found;
  addCompanyData(state, data);
  return undefined;
}

/** Puts `data` in place of company `companyId`'s records; the refusal found, and then nothing has changed. */
export function replaceCompany(state: State, companyId: string, data: CompanyData): Found {
  const found = companyProblem(state, data, companyId);
  if (found) return found;
  swapCompany(state, companyId, data);
  return undefined;
}

/**
 * Puts `data` in place of company `companyId`'s records, for a caller that has had companyProblem(state, data,
 * companyId) pass on this state already (a company's restore, which checks before it touches the clock): the check
 * reads every record of the state, which it need not do twice.
 */
export function swapCompany(state: State, companyId: string, data: CompanyData): void {
  removeCompany(state, companyId);
  addCompanyData(state, data);
}

/** Each slice imports its records, in the registry's order, beside what the state holds. */
function addCompanyData(state: State, data: CompanyData): void {
  for (const slice of COMPANY_SLICES) slice.fromData(state, listed(data, slice));
  state.sequence = Math.max(state.sequence, data.sequence);
}

/**
 * The company back as it was created: the same id, CNPJ root, flags, head office and first credential (the same
 * token and permissions), and no other record. Refused for a company the state has no creation record of (one
 * restored from a snapshot taken before companies kept it).
 */
export function resetCompany(state: State, companyId: string): Result<CreatedCompany> {
  if (!state.companies.has(companyId))
    return refuse('not_found', 'empresa_nao_encontrada', `No company ${companyId} in this emulator.`, 'path.companyId');
  const origin = state.origins.get(companyId);
  if (!origin)
    return refuse(
      'conflict',
      'criacao_desconhecida',
      `Company ${companyId} came from a snapshot that does not say how it was created, so it cannot be reset alone; remove it and create a new one instead.`,
      'path.companyId',
    );
  removeCompany(state, companyId);
  // Its creation records, through the slices that hold them, in the registry's order.
  companiesSlice.fromData(state, [origin.company]);
  credentialsSlice.fromData(state, [origin.credential]);
  establishmentsSlice.fromData(state, [origin.headOffice]);
  originsSlice.fromData(state, [origin]);
  // Created with the company, as createCompany does: the first coverage change compares with it.
  surveillanceOf(state, companyId);
  return ok(origin);
}
