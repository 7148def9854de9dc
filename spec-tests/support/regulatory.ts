/**
 * The regulatory reference as the job spec files (analyses, surveillance executions) read it: the global
 * reference (GET /_emulator/regulatory, one per emulator, shared by every company on the server) and the
 * codes and attributes they build their products from. Shared so that both files pick their NCM codes the
 * same way and never pick a code the other spec files give their products.
 */
import { expect } from 'vitest';
import { NCM, type World } from './client.js';

/** An NCM code that is not in the table (ncm_inexistente). */
export const MISSING_NCM = '99999999';
/** A value outside any domain, with a comma and quotes (for the CSV). */
export const BAD_VALUE = 'fora, "do" domínio';

export interface Reference {
  readonly id: string;
  readonly ncms: readonly { codigo: string; extinta: boolean; obrigatorios: string[] }[];
  readonly atributos: readonly { codigo: string; nome: string; dominio: string[] | null }[];
}

export async function reference(w: World): Promise<Reference> {
  const answer = await w.controls.raw('GET', '/regulatory');
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

/** Codes the other spec files give their products: never picked here (so never extinguished). */
const USED_ELSEWHERE = [NCM, '22030000', '94016100'];

/** Valid codes of the reference, in table order, without those the other spec files use. */
export const validNcms = (ref: Reference) =>
  ref.ncms.filter((n) => !n.extinta && !USED_ELSEWHERE.includes(n.codigo)).map((n) => n.codigo);

/** A code for products with no finding: the first valid one. */
export const cleanNcm = (ref: Reference) => validNcms(ref)[0]!;

/** Every attribute `ncm` requires, with an allowed value (the first of its domain, or free text); none for a code not in the table. */
export function cleanAttributes(ref: Reference, ncm: string): { codigo: string; valores: string[] }[] {
  const entry = ref.ncms.find((n) => n.codigo === ncm);
  if (entry === undefined) return [];
  return entry.obrigatorios.map((codigo) => {
    const definition = ref.atributos.find((a) => a.codigo === codigo)!;
    return { codigo, valores: [definition.dominio?.[0] ?? 'valor livre'] };
  });
}

/** The clean attributes of `ncm` with one attribute that has a domain carrying `value` (outside it). */
export function withBadValue(ref: Reference, ncm: string, value: string): { codigo: string; valores: string[] }[] {
  const attributes = cleanAttributes(ref, ncm);
  const required = attributes.find((a) => ref.atributos.find((d) => d.codigo === a.codigo)!.dominio !== null);
  if (required)
    return attributes.map((a) => (a.codigo === required.codigo ? { codigo: a.codigo, valores: [value] } : a));
  const extra = ref.atributos.find((d) => d.dominio !== null && !d.dominio.includes(value))!;
  return [...attributes, { codigo: extra.codigo, valores: [value] }];
}

/** `count` attributes whose codes no attribute dictionary has: one atributo_desconhecido finding each. */
export function unknownAttributes(count: number): { codigo: string; valores: string[] }[] {
  return Array.from({ length: count }, (_, i) => ({
    codigo: `FORA_DO_DICIONARIO_${String(i).padStart(3, '0')}`,
    valores: ['x'],
  }));
}
