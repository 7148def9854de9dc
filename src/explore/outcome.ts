/**
 * A company's outcome as an integrator sees it: its establishments, catalogs, products, surveillance selection and
 * webhook destination,
 * read through the API with the company's credential, and written without what differs from one run to the next
 * when nothing went wrong (ids, versions, timestamps): each record under its natural key (an establishment's CNPJ, a
 * catalog's establishment, a product's sku or id_externo), and each id a record names replaced by that key. Two
 * runs whose integrations did the same thing have equal outcomes, whatever faults one of them met.
 */

import type { DeliveryCount } from '../public.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Fetch = (path: string, init?: RequestInit) => Promise<Response>;

/**
 * The outcome: for each resource, its records by natural key; the surveillance selection and the destination, each
 * the company's one record (the destination null when none was configured).
 */
export interface Outcome {
  readonly estabelecimentos: Readonly<Record<string, Json>>;
  readonly catalogos: Readonly<Record<string, Json>>;
  readonly produtos: Readonly<Record<string, Json>>;
  readonly vigilancia: Json;
  readonly webhook: Json;
}

/** The resources an outcome holds, by the names `ignore` takes. */
const OUTCOME_RESOURCES = ['estabelecimentos', 'catalogos', 'produtos', 'vigilancia', 'webhook'] as const;
/** The resources that are one record of the company, not records by key. */
const SINGLE = new Set<string>(['vigilancia', 'webhook']);

/** Fields that differ between runs that did the same: ids, versions and timestamps (`*_em`). */
const VOLATILE = (key: string) => key === 'id' || key === 'versao' || key.endsWith('_em');

/** GET requests with the company's credential, and their lists followed to the end. */
function reader(fetch: Fetch, token: string) {
  const get = async (path: string): Promise<{ status: number; body: Json }> => {
    const answer = await fetch(path, { headers: { authorization: `Bearer ${token}` } });
    const text = await answer.text();
    return { status: answer.status, body: text === '' ? null : (JSON.parse(text) as Json) };
  };
  const all = async (path: string, next: 'proximo_id' | 'proximo_cursor', param: string) => {
    const items: { [key: string]: Json }[] = [];
    for (let after: string | null = null, first = true; first || after !== null; first = false) {
      const query: string = after === null ? '' : `&${param}=${encodeURIComponent(after)}`;
      const page = await get(`${path}?limite=100${query}`);
      if (page.status !== 200) throw new Error(`GET ${path} answered ${page.status}: the run cannot be read`);
      const body = page.body as { itens: { [key: string]: Json }[] } & Record<string, Json>;
      items.push(...body.itens);
      after = typeof body[next] === 'string' ? (body[next] as string) : null;
    }
    return items;
  };
  return { get, all };
}

/**
 * The webhook delivery attempts the company's run made, counted by event type (the events' `tentativas_totais`,
 * read through the API): where a plan's delivery faults can land. None when no destination was ever configured (a
 * revoked one is still read), which the company's `outcome`, when given, already says without a request.
 */
export async function readDeliveries(fetch: Fetch, token: string, outcome?: Outcome): Promise<DeliveryCount[]> {
  const { get, all } = reader(fetch, token);
  const configured = outcome === undefined ? (await get('/v1/webhook')).status === 200 : outcome.webhook !== null;
  if (!configured) return [];
  const counts = new Map<string, number>();
  for (const event of await all('/v1/webhook/eventos', 'proximo_cursor', 'cursor')) {
    const type = typeof event.tipo === 'string' ? event.tipo : '';
    const attempts = typeof event.tentativas_totais === 'number' ? event.tentativas_totais : 0;
    counts.set(type, (counts.get(type) ?? 0) + attempts);
  }
  return [...counts]
    .filter(([, attempts]) => attempts > 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([eventType, attempts]) => ({ eventType, attempts }));
}

/** Reads the outcome of the company whose credential is `token`. */
export async function readOutcome(fetch: Fetch, token: string): Promise<Outcome> {
  const { get, all } = reader(fetch, token);
  const establishments = await all('/v1/estabelecimentos', 'proximo_id', 'apos_id');
  const catalogs = await all('/v1/catalogos', 'proximo_id', 'apos_id');
  const products = await all('/v1/produtos', 'proximo_cursor', 'cursor');
  const selection = await get('/v1/empresa/vigilancia');
  if (selection.status !== 200)
    throw new Error(`GET /v1/empresa/vigilancia answered ${selection.status}: the run cannot be read`);
  const destination = await get('/v1/webhook');

  // Each record under its natural key; each id under the key of what it names.
  const names = new Map<string, string>();
  const keyed = (
    records: { [key: string]: Json }[],
    resource: string,
    keyOf: (r: { [key: string]: Json }) => string,
  ) => {
    const byKey: Record<string, { [key: string]: Json }> = {};
    for (const record of records) {
      let key = keyOf(record);
      for (let n = 2; key in byKey; n++) key = `${keyOf(record)} #${n}`;
      byKey[key] = record;
      if (typeof record.id === 'string') names.set(record.id, `${resource} ${key}`);
    }
    return byKey;
  };
  const text = (value: Json | undefined) => (typeof value === 'string' ? value : '');
  const byCnpj = keyed(establishments, 'estabelecimento', (e) => text(e.cnpj));
  const byEstablishment = keyed(catalogs, 'catalogo', (c) =>
    [text(c.cnpj_estabelecimento), text(c.id_externo)].filter(Boolean).join(' '),
  );
  const bySku = keyed(products, 'produto', (p) => text(p.sku) || text(p.id_externo) || JSON.stringify(plain(p, names)));
  return {
    estabelecimentos: plainAll(byCnpj, names),
    catalogos: plainAll(byEstablishment, names),
    produtos: plainAll(bySku, names),
    vigilancia: plain(selection.body, names),
    webhook: destination.status === 200 ? plain(destination.body, names) : null,
  };
}

function plainAll(records: Record<string, Json>, names: ReadonlyMap<string, string>): Record<string, Json> {
  return Object.fromEntries(Object.entries(records).map(([key, record]) => [key, plain(record, names)]));
}

/** `value` without its volatile fields, each id it names replaced by the natural key of what it names. */
function plain(value: Json, names: ReadonlyMap<string, string>): Json {
  if (typeof value === 'string') return names.get(value) ?? value;
  if (Array.isArray(value)) {
    const items = value.map((item) => plain(item, names));
    // A list of names (a product's catalogs) is a set: its order is the ids'.
    return items.every((item) => typeof item === 'string') ? [...(items as string[])].sort() : items;
  }
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !VOLATILE(key) && key !== 'segredo')
      .map(([key, field]) => [key, plain(field, names)]),
  );
}

/**
 * How `got` differs from `expected`, one line per record or field (`produtos "SKU-1": missing`, `produtos "SKU-2":
 * descricao "A" → "B"`), leaving out the resources or fields `ignore` names (`produtos`, `produtos.descricao`).
 */
export function outcomeDiff(expected: Outcome, got: Outcome, ignore: readonly string[] = []): string[] {
  const lines: string[] = [];
  const ignored = (resource: string, field?: string) =>
    ignore.includes(resource) || (field !== undefined && ignore.includes(`${resource}.${field}`));
  for (const resource of OUTCOME_RESOURCES) {
    if (ignored(resource)) continue;
    if (SINGLE.has(resource)) {
      const [a, b] = [expected[resource as 'vigilancia' | 'webhook'], got[resource as 'vigilancia' | 'webhook']];
      if (a === null || b === null) {
        if (a !== b) lines.push(`${resource}: ${a === null ? 'none expected, one configured' : 'missing'}`);
      } else lines.push(...fieldDiff(resource, a, b, (field) => ignored(resource, field)));
      continue;
    }
    const [a, b] = [expected[resource as 'produtos'], got[resource as 'produtos']];
    for (const key of Object.keys(a)) {
      if (!(key in b)) lines.push(`${resource} ${JSON.stringify(key)}: missing`);
      else
        lines.push(...fieldDiff(`${resource} ${JSON.stringify(key)}`, a[key]!, b[key]!, (f) => ignored(resource, f)));
    }
    for (const key of Object.keys(b)) if (!(key in a)) lines.push(`${resource} ${JSON.stringify(key)}: extra`);
  }
  return lines;
}

function fieldDiff(where: string, a: Json, b: Json, ignored: (field: string) => boolean): string[] {
  if (
    a === null ||
    b === null ||
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    Array.isArray(a) ||
    Array.isArray(b)
  )
    return JSON.stringify(a) === JSON.stringify(b) ? [] : [`${where}: ${JSON.stringify(a)} → ${JSON.stringify(b)}`];
  const fields = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((f) => !ignored(f));
  return fields.flatMap((field) =>
    JSON.stringify(a[field]) === JSON.stringify(b[field])
      ? []
      : [`${where}: ${field} ${JSON.stringify(a[field] ?? null)} → ${JSON.stringify(b[field] ?? null)}`],
  );
}
