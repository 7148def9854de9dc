/**
 * The rule set: what a product is checked for against a reference snapshot. Pure: the same product,
 * snapshot and instant give the same findings, in the same order.
 *
 * Rules, in evaluation order (findings come out in this order, then by attribute code):
 *   ncm_inexistente              the NCM is not in the table
 *   ncm_extinta                  the NCM is in the table but extinct (its required attributes are then not
 *                                checked: the product has to be reclassified first)
 *   atributo_obrigatorio_ausente one per required attribute of a valid NCM the product does not carry
 *                                (an attribute is carried when it is listed with at least one value)
 *   atributo_valor_invalido      one per product attribute with a domain and a value outside it
 *                                (values compare exactly), required or not
 *   atributo_desconhecido        one per product attribute code missing from the attribute dictionary
 *   descricao_ausente            the description is null or blank
 *
 * A product attribute is a code: the spec does not forbid a code listed in several entries of `atributos`,
 * and such entries are read as one attribute holding all their values, in list order.
 *
 * What the findings depend on in the snapshot is exactly what `rulesFingerprint` (snapshot.ts) covers.
 */
import type { Instant } from '../time.js';
import type { AttributeDefinition, RegulatorySnapshot } from './snapshot.js';

export type FindingType =
  | 'ncm_inexistente'
  | 'ncm_extinta'
  | 'atributo_obrigatorio_ausente'
  | 'atributo_valor_invalido'
  | 'atributo_desconhecido'
  | 'descricao_ausente';

/** Every finding type in rule order, with a one-line explanation (docs/api.md "Regulatory reference data and rules").
 */
export const FINDING_TYPES: readonly { readonly tipo: FindingType; readonly explicacao: string }[] = [
  { tipo: 'ncm_inexistente', explicacao: 'The product’s NCM is not in the reference table.' },
  {
    tipo: 'ncm_extinta',
    explicacao: 'The product’s NCM was extinguished; required attributes are not checked until it is reclassified.',
  },
  {
    tipo: 'atributo_obrigatorio_ausente',
    explicacao: 'An attribute the (valid) NCM requires is missing: one finding per attribute.',
  },
  {
    tipo: 'atributo_valor_invalido',
    explicacao: 'An attribute has a value outside its domain: one finding per attribute, listing the bad values.',
  },
  {
    tipo: 'atributo_desconhecido',
    explicacao: 'An attribute code is not in the attribute dictionary: one finding per code.',
  },
  { tipo: 'descricao_ausente', explicacao: 'The product has no description (null or blank).' },
];

export interface ProductToEvaluate {
  readonly id: string;
  readonly ncm: string;
  readonly descricao: string | null | undefined;
  readonly atributos: readonly { readonly codigo: string; readonly valores: readonly string[] }[];
}

/** A finding as the spec's surveillance finding (`avaliado_em` is an Instant here; the wire shows ISO). */
export interface Finding {
  readonly produto_id: string;
  readonly ncm: string;
  readonly tipo: FindingType;
  readonly detalhe: string;
  readonly avaliado_em: Instant;
  readonly snapshot_id: string;
}

const byCode = <T extends { readonly codigo: string }>(a: T, b: T): number =>
  a.codigo < b.codigo ? -1 : a.codigo > b.codigo ? 1 : 0;
const quoted = (values: readonly string[]): string => values.map((v) => `"${v}"`).join(', ');
const label = (d: AttributeDefinition): string => `${d.codigo} (${d.nome})`;

/** One entry per code, holding the values of every entry with that code in list order (first appearance order). */
function valuesByCode(
  atributos: ProductToEvaluate['atributos'],
): { readonly codigo: string; readonly valores: readonly string[] }[] {
  const byCode = new Map<string, string[]>();
  for (const a of atributos) {
    const values = byCode.get(a.codigo);
    if (values === undefined) byCode.set(a.codigo, [...a.valores]);
    // One push per value: a spread passes each as an argument, and ~120k of them overflow the stack.
    else for (const value of a.valores) values.push(value);
  }
  return [...byCode].map(([codigo, valores]) => ({ codigo, valores }));
}

/** Evaluates `product` against `snapshot`; `now` becomes every finding's `avaliado_em`. */
export function evaluateProduct(product: ProductToEvaluate, snapshot: RegulatorySnapshot, now: Instant): Finding[] {
  const findings: Finding[] = [];
  const add = (tipo: FindingType, detalhe: string) =>
    findings.push({
      produto_id: product.id,
      ncm: product.ncm,
      tipo,
      detalhe,
      avaliado_em: now,
      snapshot_id: snapshot.id,
    });

  const entry = snapshot.ncms.get(product.ncm);
  if (entry === undefined) add('ncm_inexistente', `A NCM ${product.ncm} não existe na tabela NCM de referência`);
  else if (entry.extinta)
    add('ncm_extinta', `A NCM ${product.ncm} foi extinta em ${entry.extintaDesde}; reclassifique o produto`);

  const carried = new Set(product.atributos.filter((a) => a.valores.length > 0).map((a) => a.codigo));
  if (entry !== undefined && !entry.extinta) {
    for (const code of [...new Set(entry.obrigatorios)].sort()) {
      if (carried.has(code)) continue;
      const d = snapshot.attributes.get(code);
      add(
        'atributo_obrigatorio_ausente',
        `Atributo obrigatório ${d === undefined ? code : label(d)} ausente para a NCM ${product.ncm}`,
      );
    }
  }

  const attributes = [...valuesByCode(product.atributos)].sort(byCode);
  for (const a of attributes) {
    const d = snapshot.attributes.get(a.codigo);
    if (d?.dominio === undefined) continue;
    const allowed = new Set(d.dominio);
    const bad = [...new Set(a.valores.filter((v) => !allowed.has(v)))];
    if (bad.length === 0) continue;
    add(
      'atributo_valor_invalido',
      `${bad.length === 1 ? 'Valor' : 'Valores'} ${quoted(bad)} fora do domínio do atributo ${label(d)}; permitidos: ${d.dominio.join(', ')}`,
    );
  }
  for (const { codigo } of attributes) {
    if (!snapshot.attributes.has(codigo))
      add('atributo_desconhecido', `Atributo ${codigo} não consta do dicionário de atributos`);
  }

  if (product.descricao === null || product.descricao === undefined || product.descricao.trim() === '')
    add('descricao_ausente', 'Produto sem descrição');
  return findings;
}
