/**
 * What several spec files build or name the same way: the permission list, ids no emulator hands out,
 * branch establishments and their catalogs, and the walk through a proximo_id list.
 */
import { expect } from 'vitest';
import { cnpjOf } from './cnpj.js';
import { deployment } from './deployment.js';
import type { Answer, Api, World } from './client.js';

/** Every permission of the helper context's decisions: what a credential created without a list holds. */
export const ALL_PERMISSIONS: readonly string[] = ['catalogo:ler', 'catalogo:gerenciar', 'estabelecimento:gerenciar', 'vigilancia:gerenciar', 'analise:executar', 'webhook:gerenciar'];

/** A well-formed uuid (v4) that no emulator hands out (all zero but the version and variant digits). */
export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
/** A well-formed uuid (v7, the kind the emulator hands out) that no emulator hands out. */
export const UNKNOWN_V7_ID = '0190a000-0000-7000-8000-000000000000';

export const productsPath = (catalogId: string) => `/v1/catalogos/${catalogId}/produtos`;

/**
 * On a deployment, the company keeps the establishments of every earlier run: there the orders start at a random
 * place, with a first letter from C to Y, so that two runs are unlikely to meet (24 × 36³ orders).
 */
const orderStart = deployment === undefined ? { letter: 'B', counter: 0 } : { letter: 'CDEFGHIJKLMNOPQRSTUVWXY'.charAt(Math.floor(Math.random() * 23)), counter: Math.floor(Math.random() * 36 ** 3) };
let orderCounter = orderStart.counter;
/**
 * A fresh order part (B001, B002, ..., base 36 after B999): no two branches a test file creates share a
 * CNPJ, and none collides with the orders the tests write out (digit-only ones, AB12, Z9Y8, 0A0B).
 */
export function nextOrder(): string {
  orderCounter = (orderCounter + 1) % 36 ** 3;
  return `${orderStart.letter}${orderCounter.toString(36).toUpperCase().padStart(3, '0')}`;
}

/** A branch establishment of the company (a fresh order part each time), with its ETag. */
export async function branch(w: World, fields: Record<string, unknown> = {}): Promise<{ id: string; etag: string; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const answer = await w.api.post('/v1/estabelecimentos', { cnpj: cnpjOf(w.company.cnpjRoot, nextOrder()), nome: 'Filial', ...fields });
  if (answer.status !== 201) throw new Error(`establishment creation answered ${answer.status}: ${answer.text}`);
  return { id: answer.body.id, etag: answer.headers.get('etag')!, body: answer.body };
}

/** A catalog of a new branch (`fields` added to the catalog's body), with its ETag and the branch's id. */
export async function branchCatalog(w: World, fields: Record<string, unknown> = {}): Promise<{ id: string; etag: string; body: any; establishmentId: string }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const establishment = await branch(w);
  const answer = await w.api.post('/v1/catalogos', { estabelecimento_id: establishment.id, nome: 'Catálogo', ...fields });
  if (answer.status !== 201) throw new Error(`catalog creation answered ${answer.status}: ${answer.text}`);
  return { id: answer.body.id, etag: answer.headers.get('etag')!, body: answer.body, establishmentId: establishment.id };
}

/**
 * Every item of the list at `path` with `query` (e.g. 'estado=ativo&limite=2'), following proximo_id;
 * each page must answer 200 and name its last item as proximo_id. The pages' answers and sizes too.
 */
export async function listAll(api: Api, path: string, query: string): Promise<{ ids: string[]; pages: Answer[]; sizes: number[] }> {
  const ids: string[] = [];
  const pages: Answer[] = [];
  let after: string | null = null;
  for (let guard = 0; guard < 200; guard++) {
    const params = [query, after === null ? '' : `apos_id=${after}`].filter((p) => p !== '').join('&');
    const answer: Answer = await api.get(`${path}${params === '' ? '' : `?${params}`}`);
    expect(answer.status, answer.text).toBe(200);
    pages.push(answer);
    const items: { id: string }[] = answer.body.itens;
    ids.push(...items.map((item) => item.id));
    after = answer.body.proximo_id;
    if (after === null) return { ids, pages, sizes: pages.map((page) => page.body.itens.length) };
    expect(after).toBe(items[items.length - 1]?.id);
  }
  throw new Error(`${path} did not end within 200 pages`);
}
