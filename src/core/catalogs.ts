/**
 * Catalogs: each tied to one establishment, listing linked products (spec "Catalog"). Lifecycle:
 *
 *   ativo    --editar-->          ativo   (nome, id_externo)
 *   ativo    --alterar_produtos-> ativo   (a product created in it, linked or unlinked: `produtos` moves)
 *   ativo    --excluir-->         excluido (DELETE with the impact preview's ETag; comes with surveillance)
 *   excluido  is final: listed and readable, never changed again.
 *
 * `versao` moves on every change of the catalog's representation, including its link count.
 */
import { findEstablishment, establishmentTransition, setActiveCatalog } from './establishments.js';
import { uuidV7 } from './random.js';
import { ok, refuse, type Result } from './refusal.js';
import {
  indexesOf,
  linksOf,
  nextPosition,
  ownedBy,
  positioned,
  type Context,
  type KindSlice,
  type State,
} from './state.js';
import { at, repeatedId } from './integrity.js';
import type { Instant } from './time.js';
import { etag, requireMatch, type IfMatch } from './versioning.js';
import type { Lifecycle } from './lifecycle.js';

export type CatalogState = 'ativo' | 'excluido';
type CatalogEvent = 'editar' | 'alterar_produtos' | 'excluir';

/** spec: CAT-02 (the states), CAT-35 (the deletion). */
const LIFECYCLE: Lifecycle<CatalogState, CatalogEvent> = {
  ativo: { editar: 'ativo', alterar_produtos: 'ativo', excluir: 'excluido' },
  excluido: {},
};

export interface Catalog {
  readonly id: string;
  readonly companyId: string;
  readonly establishmentId: string;
  readonly nome: string;
  readonly idExterno: string | null;
  readonly estado: CatalogState;
  readonly versao: number;
  readonly position: number;
  readonly criadoEm: Instant;
  readonly atualizadoEm: Instant;
  readonly excluidoEm: Instant | null;
}

export const catalogEtag = (c: Catalog): string => etag('catalogo', c.id, c.versao);

export function catalogTransition(c: Catalog, event: CatalogEvent): Result<CatalogState> {
  const next = LIFECYCLE[c.estado][event];
  if (next !== undefined) return ok(next);
  return refuse(
    'conflict',
    'catalogo_excluido',
    `Catalog ${c.id} is deleted: it can be read, but not changed and its products are no longer listed.`,
  );
}

/** Count of registered product links (spec: not coverage, not any regulatory result). */
export function productCount(state: State, c: Catalog): number {
  return indexesOf(state, c.companyId).catalogProducts.get(c.id)?.size ?? 0;
}

export interface NewCatalog {
  readonly establishmentId: string;
  readonly nome: string;
  readonly idExterno?: string | null;
}

export function createCatalog(state: State, companyId: string, input: NewCatalog, ctx: Context): Result<Catalog> {
  const found = findEstablishment(state, companyId, input.establishmentId, 'body.estabelecimento_id');
  if (!found.ok) return found;
  const establishment = found.value;
  const allowed = establishmentTransition(establishment, 'receber_catalogo');
  if (!allowed.ok) return allowed;
  if (establishment.catalogoId !== null) {
    return refuse(
      'conflict',
      'estabelecimento_com_catalogo_ativo',
      `Establishment ${establishment.id} already has active catalog ${establishment.catalogoId}; an establishment has at most one.`,
      'body.estabelecimento_id',
    );
  }
  const catalog: Catalog = {
    id: uuidV7(ctx.random, ctx.now),
    companyId,
    establishmentId: establishment.id,
    nome: input.nome,
    idExterno: input.idExterno ?? null,
    estado: 'ativo',
    versao: 1,
    position: nextPosition(state),
    criadoEm: ctx.now,
    atualizadoEm: ctx.now,
    excluidoEm: null,
  };
  addCatalog(state, catalog);
  setActiveCatalog(state, establishment, catalog.id, ctx);
  return ok(catalog);
}

export function findCatalog(state: State, companyId: string, id: string, caminho = 'path.id'): Result<Catalog> {
  const catalog = ownedBy(state.catalogs, companyId, id);
  if (!catalog) return refuse('not_found', 'catalogo_nao_encontrado', `No catalog ${id} in this company.`, caminho);
  return ok(catalog);
}

/** An active catalog, for the operations that list or change its products. */
export function findActiveCatalog(state: State, companyId: string, id: string, caminho = 'path.id'): Result<Catalog> {
  const found = findCatalog(state, companyId, id, caminho);
  if (!found.ok) return found;
  const allowed = catalogTransition(found.value, 'alterar_produtos');
  return allowed.ok ? found : allowed;
}

export interface CatalogChanges {
  readonly nome?: string;
  readonly idExterno?: string | null;
}

export function editCatalog(
  state: State,
  companyId: string,
  id: string,
  ifMatch: IfMatch,
  changes: CatalogChanges,
  ctx: Context,
): Result<Catalog> {
  const found = findCatalog(state, companyId, id);
  if (!found.ok) return found;
  const current = found.value;
  const matched = requireMatch(ifMatch, catalogEtag(current), 'catalog');
  if (!matched.ok) return matched;
  const allowed = catalogTransition(current, 'editar');
  if (!allowed.ok) return allowed;
  return ok(
    replaceCatalog(
      state,
      current,
      {
        nome: changes.nome ?? current.nome,
        idExterno: changes.idExterno === undefined ? current.idExterno : changes.idExterno,
      },
      ctx,
    ),
  );
}

/** A new version of the catalog: `versao` + 1, `atualizado_em` = now. */
export function replaceCatalog(
  state: State,
  current: Catalog,
  changes: Partial<Pick<Catalog, 'nome' | 'idExterno' | 'estado' | 'excluidoEm'>>,
  ctx: Context,
): Catalog {
  const updated: Catalog = { ...current, ...changes, versao: current.versao + 1, atualizadoEm: ctx.now };
  state.catalogs.set(updated.id, updated);
  return updated;
}

export interface CatalogFilters {
  readonly establishmentId?: string;
  readonly idExterno?: string;
  readonly estado?: CatalogState;
}

function matchesFilters(c: Catalog, filters: CatalogFilters): boolean {
  return (
    (filters.establishmentId === undefined || c.establishmentId === filters.establishmentId) &&
    (filters.idExterno === undefined || c.idExterno === filters.idExterno) &&
    (filters.estado === undefined || c.estado === filters.estado)
  );
}

/** Catalogs after `afterId` (both states unless filtered), in creation order; undefined when the cursor is unknown. */
export function catalogsAfter(
  state: State,
  companyId: string,
  afterId: string | undefined,
  filters: CatalogFilters,
): Iterable<Catalog> | undefined {
  const index = state.catalogs.listOf(companyId);
  let position: number | undefined;
  if (afterId !== undefined) {
    position = index.positionOf(afterId);
    if (position === undefined) return undefined;
  }
  return (function* () {
    for (const [id] of index.after(position)) {
      const catalog = state.catalogs.get(id);
      if (catalog && matchesFilters(catalog, filters)) yield catalog;
    }
  })();
}

/** A new (or restored) catalog, in its company's list, with its (empty) index of linked products. */
function addCatalog(state: State, catalog: Catalog): void {
  state.catalogs.set(catalog.id, catalog);
  linksOf(state, catalog.companyId, catalog.id);
}

export const catalogsSlice: KindSlice<'catalogs', readonly Catalog[], Catalog> = {
  ...positioned('catalogs', (state) => state.catalogs, addCatalog, true),
  removeCompany: (state, companyId) => state.catalogs.dropCompany(companyId),
  holds: ['catalogs'],
  unique: (catalogs) => repeatedId('catalogs', catalogs, 'catalog'),
  check: (data, r) => {
    for (const [i, c] of data.catalogs.entries()) {
      const establishment = r.establishments.get(c.establishmentId);
      if (establishment?.companyId !== c.companyId)
        return at(
          ['catalogs', i, 'establishmentId'],
          `catalog ${c.id}: establishment ${c.establishmentId} is not of its company`,
        );
      if ((c.estado === 'ativo') !== (c.excluidoEm === null))
        return at(['catalogs', i, 'excluidoEm'], `catalog ${c.id}: excluidoEm must be set exactly when it is excluido`);
      if (c.estado === 'ativo' && establishment.catalogoId !== c.id)
        return at(
          ['catalogs', i, 'estado'],
          `catalog ${c.id} is active, yet establishment ${c.establishmentId} names ${establishment.catalogoId ?? 'no catalog'} as its active catalog`,
        );
    }
    return undefined;
  },
};
