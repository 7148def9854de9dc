/**
 * What several spec files build or name the same way: the permission list, ids no emulator hands out,
 * branch establishments and their catalogs, and the walk through a proximo_id list.
 */
import { beforeAll, expect, TestRunner } from 'vitest';
import { cnpjOf } from './cnpj.js';
import { deployment, deploymentFetch } from './deployment.js';
import type { Answer, Api, World } from './client.js';

/** Every permission of the spec's table: what a credential created without a list holds. */
export const ALL_PERMISSIONS: readonly string[] = [
  'catalogo:ler',
  'catalogo:gerenciar',
  'estabelecimento:gerenciar',
  'vigilancia:gerenciar',
  'analise:executar',
  'webhook:gerenciar',
];

/** A well-formed uuid (v4) that no emulator hands out (all zero but the version and variant digits). */
export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
/** A well-formed uuid (v7, the kind the emulator hands out) that no emulator hands out. */
export const UNKNOWN_V7_ID = '0190a000-0000-7000-8000-000000000000';

export const productsPath = (catalogId: string) => `/v1/catalogos/${catalogId}/produtos`;

/**
 * On a deployment, the company keeps the establishments of every earlier run: there the orders start at a random
 * place, with a first letter from C to Y, and skip the orders the company's establishments already hold.
 */
const orderStart =
  deployment === undefined
    ? { letter: 'B', counter: 0 }
    : {
        letter: 'CDEFGHIJKLMNOPQRSTUVWXY'.charAt(Math.floor(Math.random() * 23)),
        counter: Math.floor(Math.random() * 36 ** 3),
      };
let orderCounter = orderStart.counter;

/**
 * On a deployment, the order parts the company's CNPJs hold: read before each test file (each file is a module
 * instance of its own, and the files before it, in this run and in earlier ones, made establishments), and every
 * order handed out since. A random start alone would meet an earlier file's range now and then, and then every
 * establishment a test makes would be refused 409 cnpj_duplicado.
 */
const takenOrders = new Set<string>();
if (deployment !== undefined) {
  const { baseUrl, token } = deployment;
  beforeAll(async () => {
    let after: string | null = null;
    for (let guard = 0; guard < 10_000; guard++) {
      const response = await deploymentFetch(
        `${baseUrl}/v1/estabelecimentos?limite=200${after === null ? '' : `&apos_id=${after}`}`,
        { headers: { authorization: `Bearer ${token}` } },
      );
      const page = (await response.json()) as { itens: { id: string; cnpj: string }[]; proximo_id: string | null };
      if (response.status !== 200)
        throw new Error(`GET /v1/estabelecimentos answered ${response.status}: ${JSON.stringify(page)}`);
      for (const establishment of page.itens) takenOrders.add(establishment.cnpj.slice(8, 12));
      after = page.proximo_id;
      if (after === null) return;
    }
  });
}

/**
 * A fresh order part (B001, B002, ..., base 36 after B999): no two branches a test file creates share a
 * CNPJ, and none collides with the orders the tests write out (digit-only ones, AB12, Z9Y8, 0A0B), nor, on a
 * deployment, with an establishment the company already has.
 */
export function nextOrder(): string {
  for (let guard = 0; guard < 36 ** 3; guard++) {
    orderCounter = (orderCounter + 1) % 36 ** 3;
    const order = `${orderStart.letter}${orderCounter.toString(36).toUpperCase().padStart(3, '0')}`;
    if (!takenOrders.has(order)) {
      if (deployment !== undefined) takenOrders.add(order);
      return order;
    }
  }
  throw new Error(`every order part starting with ${orderStart.letter} is taken`);
}

/** On a deployment, what names this run's values: the company keeps every earlier run's records. */
const runTag = deployment === undefined ? '' : Math.random().toString(36).slice(2, 10);
let uniqueCounter = 0;
/**
 * A value no other record of the company holds (an id_externo, a name a filter looks for): in a company of the
 * test's own, `label` as it is; on a deployment, whose company keeps earlier tests' and runs' records, `label`
 * followed by the run's tag and a counter. Several calls with one label give different values there.
 */
export function unique(label: string): string {
  if (deployment === undefined) return label;
  uniqueCounter += 1;
  return `${label}-${runTag}${uniqueCounter}`;
}

const BASE36 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const randomOf = (chars: string) => chars.charAt(Math.floor(Math.random() * chars.length));
const ordersFor = new Map<string, string>();
/**
 * The order part a test writes out (`fixed`, e.g. '0201' or 'AB12'): as it is in a company of the test's own.
 * On a deployment, whose company keeps the establishments of earlier runs, a fresh one of the same kind, the same
 * for every call with that `fixed` in this test: digits only → a nextOrder(); else its first character of the same
 * class (a letter: A or Z, which nextOrder never starts with; a digit) and three of 0-9 A-Z, one at least a
 * letter, none the company holds.
 */
export function orderFor(fixed: string): string {
  if (deployment === undefined) return fixed;
  // Per test: the CLI runs every file in one process, where this module (and its map) is shared by all files.
  const key = `${TestRunner.getCurrentTest()?.id ?? ''} ${fixed}`;
  let order = ordersFor.get(key);
  if (order === undefined) {
    if (/^[0-9]+$/.test(fixed)) order = nextOrder();
    else {
      do {
        const first = /^[0-9]/.test(fixed) ? randomOf('0123456789') : randomOf('AZ');
        const rest = [randomOf(BASE36.slice(10)), randomOf(BASE36), randomOf(BASE36)]
          .sort(() => Math.random() - 0.5)
          .join('');
        order = `${first}${rest}`;
      } while (takenOrders.has(order));
      takenOrders.add(order);
    }
    ordersFor.set(key, order);
  }
  return order;
}

/** A branch establishment of the company (a fresh order part each time), with its ETag. */
export async function branch(
  w: World,
  fields: Record<string, unknown> = {},
): Promise<{ id: string; etag: string; body: any }> {
  const answer = await w.api.post('/v1/estabelecimentos', {
    cnpj: cnpjOf(w.company.cnpjRoot, nextOrder()),
    nome: 'Filial',
    ...fields,
  });
  if (answer.status !== 201) throw new Error(`establishment creation answered ${answer.status}: ${answer.text}`);
  return { id: answer.body.id, etag: answer.headers.get('etag')!, body: answer.body };
}

/** A catalog of a new branch (`fields` added to the catalog's body), with its ETag and the branch's id. */
export async function branchCatalog(
  w: World,
  fields: Record<string, unknown> = {},
): Promise<{ id: string; etag: string; body: any; establishmentId: string }> {
  const establishment = await branch(w);
  const answer = await w.api.post('/v1/catalogos', {
    estabelecimento_id: establishment.id,
    nome: 'Catálogo',
    ...fields,
  });
  if (answer.status !== 201) throw new Error(`catalog creation answered ${answer.status}: ${answer.text}`);
  return {
    id: answer.body.id,
    etag: answer.headers.get('etag')!,
    body: answer.body,
    establishmentId: establishment.id,
  };
}

/**
 * Every item of the list at `path` with `query` (e.g. 'estado=ativo&limite=2'), following proximo_id (from
 * `start`, an apos_id, when given); each page must answer 200 and name its last item as proximo_id. The pages'
 * answers and sizes too.
 */
export async function listAll(
  api: Api,
  path: string,
  query: string,
  start?: string,
): Promise<{ ids: string[]; pages: Answer[]; sizes: number[] }> {
  const ids: string[] = [];
  const pages: Answer[] = [];
  let after: string | null = start ?? null;
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

/**
 * The ids of each page of the cursor list at `path` with `query` (e.g. 'limite=2'), following proximo_cursor, at
 * most `maxPages` pages; each page must answer 200.
 */
export async function cursorPages(api: Api, path: string, query: string, maxPages = 10): Promise<string[][]> {
  const seen: string[][] = [];
  let cursor: string | null = null;
  do {
    const page: Answer = await api.get(
      `${path}?${[query, cursor === null ? '' : `cursor=${encodeURIComponent(cursor)}`].filter((p) => p !== '').join('&')}`,
    );
    expect(page.status, page.text).toBe(200);
    seen.push(page.body.itens.map((i: { id: string }) => i.id));
    cursor = page.body.proximo_cursor;
  } while (cursor !== null && seen.length < maxPages);
  return seen;
}

/**
 * Where the test's own records begin in a proximo_id list (establishments, catalogs): the apos_id that lists
 * them. In a company of the test's own, undefined (from the start; no request is made). On a deployment, the
 * company lists every earlier test's records first: `before` names the test's first record (its list position
 * is looked up: the id listed just before it), else the list's last id now (records the test makes next follow it).
 */
export async function ownListStart(api: Api, path: string, before?: string): Promise<string | undefined> {
  if (deployment === undefined) return undefined;
  let previous: string | undefined;
  let after: string | null = null;
  for (let guard = 0; guard < 1000; guard++) {
    const answer: Answer = await api.get(`${path}?limite=200${after === null ? '' : `&apos_id=${after}`}`);
    if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${answer.text}`);
    for (const item of answer.body.itens as { id: string }[]) {
      if (item.id === before) return previous;
      previous = item.id;
    }
    after = answer.body.proximo_id;
    if (after === null) {
      if (before !== undefined) throw new Error(`${before} is not in ${path}`);
      return previous;
    }
  }
  throw new Error(`${path} did not end within 1000 pages`);
}

/**
 * The surveillance selection as a new company has it: mode selecao, nothing selected. In a company of the test's
 * own it already is (no request is made). On a deployment, the shared company keeps what earlier tests selected,
 * and its capacity fills up: the mode is set back to selecao and every selected product removed (200 a request).
 */
export async function freshSelection(api: Api): Promise<void> {
  if (deployment === undefined) return;
  for (let guard = 0; guard < 100; guard++) {
    const view = await api.get('/v1/empresa/vigilancia');
    if (view.status !== 200) throw new Error(`GET /v1/empresa/vigilancia answered ${view.status}: ${view.text}`);
    // In mode selecao the watched products are the selection, in its order.
    const watched =
      view.body.modo === 'selecao' ? await api.get('/v1/empresa/vigilancia/produtos?limite=200') : undefined;
    if (watched !== undefined && watched.status !== 200)
      throw new Error(`GET /v1/empresa/vigilancia/produtos answered ${watched.status}: ${watched.text}`);
    const selected: string[] = watched === undefined ? [] : watched.body.itens.map((item: { id: string }) => item.id);
    if (watched !== undefined && selected.length === 0) return;
    const answer = await api.patch(
      '/v1/empresa/vigilancia',
      { modo: 'selecao', remover: selected },
      { ifMatch: view.headers.get('etag')! },
    );
    if (answer.status !== 200) throw new Error(`clearing the selection answered ${answer.status}: ${answer.text}`);
  }
  throw new Error('the selection was not cleared within 100 requests');
}
