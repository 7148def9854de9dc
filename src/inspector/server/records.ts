/**
 * A company's records as they are now (GET /_emulator/inspector/companies/{id}/records): its establishments,
 * catalogs, products, webhook destination and webhook events, each with its state, its version and its links to the
 * others (catalog → establishment, establishment → catalog, product → catalogs, event → destination and attempts),
 * its fields as the API presents them (masked as every inspector answer). The page links each to the timeline items
 * that touched it (the timeline's `touches` query).
 *
 * Each kind lists its first MAX_RECORDS in the order the API lists them, with its total: the page is a view, not an
 * export (GET /_emulator/state/companies/{id} is the whole).
 */
import type { Collection } from '../../core/collection.js';
import {
  presentAttempt,
  presentCatalog,
  presentDestination,
  presentEstablishment,
  presentEventItem,
  presentProduct,
} from '../../http/presenters.js';
import type { World } from '../../engine/world.js';
import type { CompanyRecords, RecordRow } from '../wire.js';
import { maskJson } from './mask.js';

/** Records of each kind listed at most. */
const MAX_RECORDS = 500;

export function companyRecords(world: World, companyId: string): CompanyRecords {
  const { state } = world;
  const establishments = listed(
    state.establishments,
    companyId,
    (e): RecordRow => ({
      kind: 'establishment',
      id: e.id,
      title: `${e.nome} (${e.cnpj})`,
      state: e.estado,
      version: e.versao,
      links: e.catalogoId === null ? [] : [{ kind: 'catalog', id: e.catalogoId }],
      value: maskJson(presentEstablishment(e)),
    }),
  );
  const catalogs = listed(
    state.catalogs,
    companyId,
    (c): RecordRow => ({
      kind: 'catalog',
      id: c.id,
      title: c.nome,
      state: c.estado,
      version: c.versao,
      links: [{ kind: 'establishment', id: c.establishmentId }],
      value: maskJson(presentCatalog(state, c)),
    }),
  );
  const products = listed(
    state.products,
    companyId,
    (p): RecordRow => ({
      kind: 'product',
      id: p.id,
      title: p.descricao ?? p.sku ?? p.idExterno ?? p.id,
      state: p.ativo ? 'ativo' : 'inativo',
      version: p.versao,
      links: p.catalogos.map((id) => ({ kind: 'catalog' as const, id })),
      value: maskJson(presentProduct(p)),
    }),
  );
  const destination = state.webhookDestinations.get(companyId);
  const events = listed(
    state.webhookEvents,
    companyId,
    (e): RecordRow => ({
      kind: 'event',
      id: e.id,
      title: `${e.tipo}: ${e.attempts.length} attempt${e.attempts.length === 1 ? '' : 's'}`,
      state: e.estado,
      version: null,
      links: [
        { kind: 'webhook', id: e.destinoId },
        ...e.attempts.map((a) => ({ kind: 'attempt' as const, id: `${e.id}:${a.tentativa}` })),
      ],
      value: maskJson({ ...presentEventItem(e), tentativas: e.attempts.map(presentAttempt) }),
    }),
  );
  return {
    companyId,
    establishments,
    catalogs,
    products,
    webhook:
      destination === undefined
        ? null
        : {
            kind: 'webhook',
            id: destination.id,
            title: destination.url,
            state: destination.estado,
            version: destination.versao,
            links: [],
            value: maskJson(presentDestination(destination)),
          },
    events,
  };
}

/** The first MAX_RECORDS of a company's records of one kind, in their list's order, and how many it has. */
function listed<V>(
  collection: Collection<V>,
  companyId: string,
  row: (value: V) => RecordRow,
): { items: RecordRow[]; total: number } {
  // The company's list as it is: listOf would make an empty one for a company with none, and a read changes nothing.
  let list;
  for (const [owner, own] of collection.lists()) if (owner === companyId) list = own;
  const items: RecordRow[] = [];
  if (list === undefined) return { items, total: 0 };
  for (const [id] of list.entries()) {
    if (items.length === MAX_RECORDS) break;
    const value = collection.get(id);
    if (value !== undefined) items.push(row(value));
  }
  return { items, total: list.size };
}
