/**
 * The company-independent regulatory reference the service evaluates products against (docs/api.md
 * "Regulatory reference data and rules"): the current snapshot of the NCM table and attribute rules, and its
 * publication. The shipped table is built once and shared by every emulator (it is immutable), so a fresh emulator
 * costs nothing for it; a state only holds a table of its own after a publication changed it.
 */
import { isoString, type Instant } from '../time.js';
import { ok, type Result } from '../refusal.js';
import type { Slice, State } from '../state.js';
import { at, repeated, type Found } from '../integrity.js';
import {
  initialSnapshot,
  publishSnapshot,
  snapshotView,
  type RegulatorySnapshot,
  type SnapshotChange,
  type SnapshotView,
} from './snapshot.js';

let shipped: RegulatorySnapshot | undefined;

/** Snapshot ids are sequential: `ref-0001` is the shipped table, each publication the next number. */
const snapshotId = (n: number): string => `ref-${String(n).padStart(4, '0')}`;

/** The shipped table, published at `at` (the emulator's start). */
export function shippedReference(at: Instant): RegulatorySnapshot {
  shipped ??= initialSnapshot(0, snapshotId(1));
  return { ...shipped, publicadoEm: at };
}

export function currentReference(state: State): RegulatorySnapshot {
  return state.regulatory;
}

export interface Published {
  readonly id: string;
  readonly publicadoEm: string;
  /** NCMs whose rules changed (what the surveillance executions it triggers will look at). */
  readonly afetadas: readonly string[];
  readonly atributosAlterados: readonly string[];
}

/** Publishes a new snapshot; refuses a change that is not one (and changes nothing). */
export function publishReference(state: State, change: SnapshotChange, now: Instant): Result<Published> {
  const current = state.regulatory;
  const next = Number(current.id.slice(4)) + 1;
  const result = publishSnapshot(current, change, now, snapshotId(next));
  if (!result.ok) return result;
  state.regulatory = result.value.snapshot;
  return ok({
    id: result.value.snapshot.id,
    publicadoEm: isoString(now),
    afetadas: [...result.value.affected].sort(),
    atributosAlterados: [...result.value.atributosAlterados].sort(),
  });
}

/** For a state snapshot: the id and time, and the table itself only when it is not the shipped one. */
export interface ReferenceData {
  readonly id: string;
  readonly publicadoEm: Instant;
  readonly table: SnapshotView | null;
}

function exportReference(s: RegulatorySnapshot): ReferenceData {
  shipped ??= initialSnapshot(0, snapshotId(1));
  const unchanged = s.ncms === shipped.ncms && s.attributes === shipped.attributes;
  return { id: s.id, publicadoEm: s.publicadoEm, table: unchanged ? null : snapshotView(s) };
}

function importReference(data: ReferenceData): RegulatorySnapshot {
  if (data.table === null) return { ...shippedReference(data.publicadoEm), id: data.id };
  return {
    id: data.id,
    publicadoEm: data.publicadoEm,
    ncms: new Map(data.table.ncms.map((e) => [e.codigo, { ...e, obrigatorios: [...e.obrigatorios] }])),
    attributes: new Map(
      data.table.atributos.map((a) => [
        a.codigo,
        a.dominio === null
          ? { codigo: a.codigo, nome: a.nome }
          : { codigo: a.codigo, nome: a.nome, dominio: [...a.dominio] },
      ]),
    ),
  };
}

export const regulatorySlice: Slice<'regulatory', ReferenceData> = {
  key: 'regulatory',
  holds: ['regulatory'],
  toData: (state) => exportReference(state.regulatory),
  fromData: (state, data) => {
    state.regulatory = importReference(data);
  },
  check: (data) => referenceProblem(data.regulatory),
};

/** A table of the regulatory reference: each code once, and required attributes that are defined. */
function referenceProblem(regulatory: ReferenceData): Found {
  const table = regulatory.table;
  if (table === null) return undefined;
  const path = ['regulatory', 'table'];
  const ncm = repeated(
    'ncms',
    table.ncms,
    'codigo',
    (n) => n.codigo,
    (n) => `NCM ${n.codigo}`,
  );
  const attribute = repeated(
    'atributos',
    table.atributos,
    'codigo',
    (a) => a.codigo,
    (a) => `attribute ${a.codigo}`,
  );
  const twice = ncm ?? attribute;
  if (twice) return at([...path, ...twice.path], twice.problem);
  const defined = new Set(table.atributos.map((a) => a.codigo));
  for (const [i, n] of table.ncms.entries()) {
    if (n.extinta !== (n.extintaDesde !== null))
      return at(
        [...path, 'ncms', i, 'extintaDesde'],
        `NCM ${n.codigo}: extintaDesde must be set exactly when it is extinta`,
      );
    for (const [j, code] of n.obrigatorios.entries()) {
      if (!defined.has(code))
        return at(
          [...path, 'ncms', i, 'obrigatorios', j],
          `NCM ${n.codigo} requires attribute ${code}, which the table does not define`,
        );
      if (n.obrigatorios.indexOf(code) !== j)
        return at([...path, 'ncms', i, 'obrigatorios', j], `NCM ${n.codigo} requires attribute ${code} twice`);
    }
  }
  return undefined;
}
