/**
 * The regulatory reference snapshot: the NCM table and the attribute dictionary in force, with an id and a
 * publication time. Snapshots are values: publishing builds a new one and leaves the current one untouched,
 * so findings can keep pointing at the snapshot they were evaluated against.
 *
 *   (none)      --initialSnapshot-->  snapshot #1   the shipped table (ncm-table.ts)
 *   snapshot #n --publishSnapshot-->  snapshot #n+1 extinguish or add NCMs, replace required attributes,
 *                                                   add or replace attribute definitions
 *
 * A change is checked whole before anything is built, in this order (the first problem is the answer):
 * `atributos`, `extinguir`, `adicionar`, `obrigatorios`. Ids come from the caller (the seeded source);
 * times from the caller's clock.
 */
import { ok, refuse, type Result } from '../refusal.js';
import { isoString, type Instant } from '../time.js';
import { ATTRIBUTES, NCM_TABLE, type AttributeDefinition, type NcmEntry } from './ncm-table.js';

export type { AttributeDefinition };

export interface RegulatorySnapshot {
  readonly id: string;
  readonly publicadoEm: Instant;
  readonly ncms: ReadonlyMap<string, NcmEntry>;
  readonly attributes: ReadonlyMap<string, AttributeDefinition>;
}

interface NewNcm {
  readonly codigo: string;
  readonly descricao: string;
  readonly obrigatorios?: readonly string[];
}

export interface SnapshotChange {
  /** Codes of the current table to mark extinct from the publication date. */
  readonly extinguir?: readonly string[];
  /** New codes (not in the current table, extinct ones included). */
  readonly adicionar?: readonly NewNcm[];
  /** NCM code of the current table → its new required attributes (replaces the list). */
  readonly obrigatorios?: Readonly<Record<string, readonly string[]>>;
  /** Attribute definitions to add, or to replace when the code exists. */
  readonly atributos?: readonly AttributeDefinition[];
}

export interface Publication {
  readonly snapshot: RegulatorySnapshot;
  /** NCMs whose rules changed: exactly the codes whose `rulesFingerprint` differs between the two snapshots. */
  readonly affected: ReadonlySet<string>;
  /**
   * Attribute codes whose definition was added or changed. They matter to products carrying them whatever
   * the NCM (`atributo_valor_invalido`, `atributo_desconhecido`); `rulesFingerprint` with the product's
   * attribute codes catches them.
   */
  readonly atributosAlterados: ReadonlySet<string>;
}

export const NCM_PATTERN = /^\d{8}$/;
export const ATTRIBUTE_PATTERN = /^ATT_\d+$/;

function attributeMap(defs: readonly AttributeDefinition[]): Map<string, AttributeDefinition> {
  return new Map(defs.map((d) => [d.codigo, d]));
}

/** The shipped table as the first snapshot. */
export function initialSnapshot(now: Instant, id: string): RegulatorySnapshot {
  return {
    id,
    publicadoEm: now,
    ncms: new Map(NCM_TABLE.map((e) => [e.codigo, e])),
    attributes: attributeMap(ATTRIBUTES),
  };
}

const blank = (s: string): boolean => s.trim() === '';

function firstDuplicate(values: readonly string[]): number {
  const seen = new Set<string>();
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (seen.has(v)) return i;
    seen.add(v);
  }
  return -1;
}

function checkAttributes(defs: readonly AttributeDefinition[]): Result<null> {
  const seen = new Set<string>();
  for (let i = 0; i < defs.length; i++) {
    const d = defs[i]!;
    const at = `body.atributos[${i}]`;
    if (!ATTRIBUTE_PATTERN.test(d.codigo))
      return refuse(
        'invalid',
        'valor_invalido',
        `Attribute code "${d.codigo}" is not ATT_ followed by digits.`,
        `${at}.codigo`,
      );
    if (seen.has(d.codigo))
      return refuse('invalid', 'valor_duplicado', `Attribute ${d.codigo} appears twice in the change.`, `${at}.codigo`);
    seen.add(d.codigo);
    if (blank(d.nome)) return refuse('invalid', 'valor_invalido', `Attribute ${d.codigo} needs a name.`, `${at}.nome`);
    if (d.dominio !== undefined) {
      if (d.dominio.length === 0)
        return refuse(
          'invalid',
          'valor_invalido',
          `Attribute ${d.codigo}: a domain lists at least one value (omit it for free text).`,
          `${at}.dominio`,
        );
      const empty = d.dominio.findIndex(blank);
      if (empty >= 0)
        return refuse(
          'invalid',
          'valor_invalido',
          `Attribute ${d.codigo}: domain values are not blank.`,
          `${at}.dominio[${empty}]`,
        );
      const dup = firstDuplicate(d.dominio);
      if (dup >= 0)
        return refuse(
          'invalid',
          'valor_duplicado',
          `Attribute ${d.codigo}: value "${d.dominio[dup]}" appears twice in the domain.`,
          `${at}.dominio[${dup}]`,
        );
    }
  }
  return ok(null);
}

function checkRequired(codes: readonly string[], known: (code: string) => boolean, at: string): Result<null> {
  for (let j = 0; j < codes.length; j++) {
    const code = codes[j]!;
    if (!known(code))
      return refuse(
        'invalid',
        'atributo_desconhecido',
        `Attribute ${code} is not in the attribute dictionary (define it in atributos).`,
        `${at}[${j}]`,
      );
  }
  const dup = firstDuplicate(codes);
  if (dup >= 0)
    return refuse('invalid', 'valor_duplicado', `Attribute ${codes[dup]} is required twice.`, `${at}[${dup}]`);
  return ok(null);
}

function checkChange(current: RegulatorySnapshot, change: SnapshotChange): Result<null> {
  const atributos = change.atributos ?? [];
  const attributesOk = checkAttributes(atributos);
  if (!attributesOk.ok) return attributesOk;
  const defined = new Set(atributos.map((d) => d.codigo));
  const known = (code: string) => current.attributes.has(code) || defined.has(code);

  const extinguir = change.extinguir ?? [];
  for (let i = 0; i < extinguir.length; i++) {
    const code = extinguir[i]!;
    const at = `body.extinguir[${i}]`;
    const entry = current.ncms.get(code);
    if (entry === undefined)
      return refuse('invalid', 'ncm_desconhecida', `NCM ${code} is not in reference snapshot ${current.id}.`, at);
    if (extinguir.indexOf(code) !== i)
      return refuse('invalid', 'valor_duplicado', `NCM ${code} appears twice in extinguir.`, at);
    if (entry.extinta)
      return refuse('conflict', 'ncm_ja_extinta', `NCM ${code} is already extinct since ${entry.extintaDesde}.`, at);
  }

  const adicionar = change.adicionar ?? [];
  for (let i = 0; i < adicionar.length; i++) {
    const added = adicionar[i]!;
    const at = `body.adicionar[${i}]`;
    if (!NCM_PATTERN.test(added.codigo))
      return refuse('invalid', 'valor_invalido', `NCM "${added.codigo}" is not 8 digits.`, `${at}.codigo`);
    if (current.ncms.has(added.codigo))
      return refuse(
        'conflict',
        'ncm_existente',
        `NCM ${added.codigo} is already in reference snapshot ${current.id}; change its required attributes with obrigatorios.`,
        `${at}.codigo`,
      );
    if (adicionar.findIndex((a) => a.codigo === added.codigo) !== i)
      return refuse('invalid', 'valor_duplicado', `NCM ${added.codigo} appears twice in adicionar.`, `${at}.codigo`);
    if (blank(added.descricao))
      return refuse('invalid', 'valor_invalido', `NCM ${added.codigo} needs a description.`, `${at}.descricao`);
    const requiredOk = checkRequired(added.obrigatorios ?? [], known, `${at}.obrigatorios`);
    if (!requiredOk.ok) return requiredOk;
  }

  const obrigatorios = change.obrigatorios ?? {};
  for (const code of Object.keys(obrigatorios).sort()) {
    const at = `body.obrigatorios.${code}`;
    if (!current.ncms.has(code))
      return refuse(
        'invalid',
        'ncm_desconhecida',
        `NCM ${code} is not in reference snapshot ${current.id} (new codes take their required attributes in adicionar).`,
        at,
      );
    const requiredOk = checkRequired(obrigatorios[code]!, known, at);
    if (!requiredOk.ok) return requiredOk;
  }
  return ok(null);
}

/** Publishes a new snapshot from `current` and `change`; `current` is left as it was. */
export function publishSnapshot(
  current: RegulatorySnapshot,
  change: SnapshotChange,
  now: Instant,
  id: string,
): Result<Publication> {
  const checked = checkChange(current, change);
  if (!checked.ok) return checked;

  const attributes = new Map(current.attributes);
  const atributosAlterados = new Set<string>();
  for (const d of change.atributos ?? []) {
    const next: AttributeDefinition = {
      codigo: d.codigo,
      nome: d.nome,
      ...(d.dominio === undefined ? {} : { dominio: [...d.dominio] }),
    };
    const before = attributes.get(d.codigo);
    if (before === undefined || definitionKey(before) !== definitionKey(next)) atributosAlterados.add(d.codigo);
    attributes.set(d.codigo, next);
  }

  const ncms = new Map(current.ncms);
  const since = isoString(now).slice(0, 10);
  for (const code of change.extinguir ?? []) ncms.set(code, { ...ncms.get(code)!, extinta: true, extintaDesde: since });
  for (const added of change.adicionar ?? []) {
    ncms.set(added.codigo, {
      codigo: added.codigo,
      descricao: added.descricao.trim(),
      extinta: false,
      extintaDesde: null,
      obrigatorios: [...(added.obrigatorios ?? [])],
    });
  }
  const obrigatorios = change.obrigatorios ?? {};
  for (const code of Object.keys(obrigatorios))
    ncms.set(code, { ...ncms.get(code)!, obrigatorios: [...obrigatorios[code]!] });

  const snapshot: RegulatorySnapshot = { id, publicadoEm: now, ncms, attributes };
  const affected = new Set<string>();
  for (const code of ncms.keys())
    if (rulesFingerprint(current, code) !== rulesFingerprint(snapshot, code)) affected.add(code);
  return ok({ snapshot, affected, atributosAlterados });
}

const definitionKey = (d: AttributeDefinition): string => JSON.stringify([d.nome, d.dominio ?? null]);

/**
 * A stable string naming the rules that apply to a product with NCM `ncm` under `snapshot`: equal strings
 * mean `evaluateProduct` (rules.ts) gives the same findings (tipo and detalhe) for any product with that NCM.
 * It covers exactly what the rules read: whether the code exists, whether (and since when) it is extinct,
 * and, for a valid code, its required attributes with their names and domains. An extinct code is not
 * checked for required attributes, so its list does not count.
 *
 * The dictionary also judges the product's own attributes (`atributo_valor_invalido`,
 * `atributo_desconhecido`): pass the product's attribute codes as `atributosDoProduto` to cover their
 * definitions too (a code that is unknown, free text, or has a domain with its name).
 */
export function rulesFingerprint(
  snapshot: RegulatorySnapshot,
  ncm: string,
  atributosDoProduto: readonly string[] = [],
): string {
  const entry = snapshot.ncms.get(ncm);
  const required = entry === undefined || entry.extinta ? [] : [...new Set(entry.obrigatorios)].sort();
  const ncmPart =
    entry === undefined
      ? ['inexistente']
      : entry.extinta
        ? ['extinta', entry.extintaDesde]
        : [
            'vigente',
            required.map((code) => {
              const d = snapshot.attributes.get(code);
              return [code, d === undefined ? null : [d.nome, d.dominio ?? null]];
            }),
          ];
  const requiredSet = new Set(required);
  const extras = [...new Set(atributosDoProduto)]
    .filter((code) => !requiredSet.has(code))
    .sort()
    .map((code) => {
      const d = snapshot.attributes.get(code);
      return [code, d === undefined ? 'desconhecido' : d.dominio === undefined ? 'livre' : [d.nome, d.dominio]];
    });
  return JSON.stringify([ncm, ncmPart, extras]);
}

export interface SnapshotView {
  readonly id: string;
  readonly publicadoEm: string;
  readonly ncms: readonly {
    codigo: string;
    descricao: string;
    extinta: boolean;
    extintaDesde: string | null;
    obrigatorios: string[];
  }[];
  readonly atributos: readonly { codigo: string; nome: string; dominio: string[] | null }[];
}

/** The snapshot as JSON-safe data for the controls (GET /_emulator/regulatory), codes in ascending order. */
export function snapshotView(s: RegulatorySnapshot): SnapshotView {
  const byCode = <T extends { codigo: string }>(a: T, b: T) => (a.codigo < b.codigo ? -1 : a.codigo > b.codigo ? 1 : 0);
  return {
    id: s.id,
    publicadoEm: isoString(s.publicadoEm),
    ncms: [...s.ncms.values()]
      .map((e) => ({
        codigo: e.codigo,
        descricao: e.descricao,
        extinta: e.extinta,
        extintaDesde: e.extintaDesde,
        obrigatorios: [...e.obrigatorios],
      }))
      .sort(byCode),
    atributos: [...s.attributes.values()]
      .map((d) => ({ codigo: d.codigo, nome: d.nome, dominio: d.dominio === undefined ? null : [...d.dominio] }))
      .sort(byCode),
  };
}
