/**
 * What the two job spec files (analyses and surveillance executions) check the same way: the finding tipos
 * and the per-tipo counts of a resumo, the findings pages (a results path walked with its cursor),
 * and the CSV export's lines. The two jobs answer their findings and CSV in the same shape; only the paths
 * differ, so each file passes its own.
 */
import { expect } from 'vitest';
import type { Answer, World } from './client.js';

export const TIPOS = [
  'ncm_inexistente',
  'ncm_extinta',
  'atributo_obrigatorio_ausente',
  'atributo_valor_invalido',
  'atributo_desconhecido',
  'descricao_ausente',
] as const;
export type Tipo = (typeof TIPOS)[number];
/** achados_por_tipo with every tipo listed: those given, the others 0. */
export const counts = (partial: Partial<Record<Tipo, number>>): Record<Tipo, number> =>
  Object.fromEntries(TIPOS.map((t) => [t, partial[t] ?? 0])) as Record<Tipo, number>;

export interface FindingItem {
  produto_id: string;
  ncm: string;
  tipo: Tipo;
  detalhe: string;
  avaliado_em: string;
  snapshot_id: string;
  reaproveitado: boolean;
}

/**
 * Every finding of a concluded job at `path` (its results path), following proximo_cursor (the only query
 * parameter of a findings page); the pages too (each carries total_achados). Each page must answer 200 with
 * exactly {itens, proximo_cursor, total_achados}.
 */
export async function findingPages(w: World, path: string): Promise<{ items: FindingItem[]; pages: Answer[] }> {
  const items: FindingItem[] = [];
  const pages: Answer[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 100; guard++) {
    const answer: Answer = await w.api.get(`${path}${cursor === null ? '' : `?cursor=${encodeURIComponent(cursor)}`}`);
    expect(answer.status, answer.text).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(['itens', 'proximo_cursor', 'total_achados']);
    pages.push(answer);
    items.push(...answer.body.itens);
    cursor = answer.body.proximo_cursor;
    if (cursor === null) return { items, pages };
  }
  throw new Error('the findings did not end within 100 pages');
}

/** RFC 4180, written here independently of the emulator: quote fields with a comma, quote, CR or LF; double the quotes. */
const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
/** One CSV line of `values`, ended by CRLF. */
export const csvLine = (values: readonly string[]) => `${values.map(csvField).join(',')}\r\n`;
