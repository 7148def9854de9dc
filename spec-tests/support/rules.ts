/**
 * The finding rules written from docs/api.md ("Regulatory reference data and rules") alone, independent of
 * src/core/regulatory (never import src/core here), so the surveillance properties compare two readings of
 * the rules: the emulator's findings against these. The reference is read as the emulator shows it
 * (GET /_emulator/regulatory, or `emu.regulatory.current()` in process).
 *
 * Rules, in order (then by attribute code): ncm_inexistente; ncm_extinta (its required attributes are then
 * not checked); atributo_obrigatorio_ausente per required attribute not carried with a value;
 * atributo_valor_invalido per product attribute with a domain and values outside it; atributo_desconhecido
 * per product attribute code missing from the dictionary; descricao_ausente for a null or blank description.
 * Entries of `atributos` with the same code are one attribute holding all their values.
 */

export interface ReferenceView {
  readonly id: string;
  readonly ncms: readonly {
    readonly codigo: string;
    readonly extinta: boolean;
    readonly extintaDesde: string | null;
    readonly obrigatorios: readonly string[];
  }[];
  readonly atributos: readonly {
    readonly codigo: string;
    readonly nome: string;
    readonly dominio: readonly string[] | null;
  }[];
}

export interface RuledProduct {
  readonly id: string;
  readonly ncm: string;
  readonly descricao: string | null;
  readonly atributos: readonly { readonly codigo: string; readonly valores: readonly string[] }[];
}

export interface ExpectedFinding {
  readonly produto_id: string;
  readonly ncm: string;
  readonly tipo: string;
  readonly detalhe: string;
}

type Definition = ReferenceView['atributos'][number];

const ascending = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const unique = (codes: readonly string[]): string[] => [...new Set(codes)].sort(ascending);
const definitionOf = (ref: ReferenceView, codigo: string): Definition | undefined =>
  ref.atributos.find((d) => d.codigo === codigo);
const named = (d: Definition): string => `${d.codigo} (${d.nome})`;

/** The required attributes checked for `ncm`: none when the code is missing or extinct. */
function requiredOf(ref: ReferenceView, ncm: string): string[] {
  const entry = ref.ncms.find((n) => n.codigo === ncm);
  return entry === undefined || entry.extinta ? [] : unique(entry.obrigatorios);
}

/** The findings of `product` under `ref`, in rule order (without avaliado_em, snapshot_id, reaproveitado). */
export function expectedFindings(product: RuledProduct, ref: ReferenceView): ExpectedFinding[] {
  const findings: ExpectedFinding[] = [];
  const add = (tipo: string, detalhe: string) =>
    findings.push({ produto_id: product.id, ncm: product.ncm, tipo, detalhe });
  const entry = ref.ncms.find((n) => n.codigo === product.ncm);
  if (entry === undefined) add('ncm_inexistente', `A NCM ${product.ncm} não existe na tabela NCM de referência`);
  else if (entry.extinta)
    add('ncm_extinta', `A NCM ${product.ncm} foi extinta em ${entry.extintaDesde}; reclassifique o produto`);

  const values = new Map<string, string[]>();
  for (const a of product.atributos) values.set(a.codigo, [...(values.get(a.codigo) ?? []), ...a.valores]);
  for (const codigo of requiredOf(ref, product.ncm)) {
    if ((values.get(codigo) ?? []).length > 0) continue;
    const d = definitionOf(ref, codigo);
    add(
      'atributo_obrigatorio_ausente',
      `Atributo obrigatório ${d === undefined ? codigo : named(d)} ausente para a NCM ${product.ncm}`,
    );
  }
  const codes = [...values.keys()].sort(ascending);
  for (const codigo of codes) {
    const d = definitionOf(ref, codigo);
    if (d === undefined || d.dominio === null) continue;
    const bad = [...new Set(values.get(codigo)!.filter((v) => !d.dominio!.includes(v)))]; // in the product's order
    if (bad.length === 0) continue;
    add(
      'atributo_valor_invalido',
      `${bad.length === 1 ? 'Valor' : 'Valores'} ${bad.map((v) => `"${v}"`).join(', ')} fora do domínio do atributo ${named(d)}; permitidos: ${d.dominio.join(', ')}`,
    );
  }
  for (const codigo of codes)
    if (definitionOf(ref, codigo) === undefined)
      add('atributo_desconhecido', `Atributo ${codigo} não consta do dicionário de atributos`);
  if (product.descricao === null || product.descricao.trim() === '') add('descricao_ausente', 'Produto sem descrição');
  return findings;
}

/**
 * What the rules read for a product with `ncm` and attribute `codes` under `ref`, as a string: equal strings
 * mean equal findings for any such product (so a surveillance run may reuse its earlier findings). It names
 * the NCM's status (missing, extinct since when, or valid with its required attributes' definitions) and the
 * definition of each of the product's codes (unknown, free text, or name and domain).
 */
export function rulesRead(ref: ReferenceView, ncm: string, codes: readonly string[]): string {
  const entry = ref.ncms.find((n) => n.codigo === ncm);
  const describe = (codigo: string) => {
    const d = definitionOf(ref, codigo);
    return [codigo, d === undefined ? 'desconhecido' : d.dominio === null ? 'livre' : [d.nome, d.dominio]];
  };
  const status =
    entry === undefined
      ? 'inexistente'
      : entry.extinta
        ? ['extinta', entry.extintaDesde]
        : [
            'vigente',
            requiredOf(ref, ncm).map((codigo) => [
              codigo,
              definitionOf(ref, codigo)?.nome ?? null,
              definitionOf(ref, codigo)?.dominio ?? null,
            ]),
          ];
  return JSON.stringify([ncm, status, unique(codes).map(describe)]);
}
