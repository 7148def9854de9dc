/**
 * Catalog deletion and its impact preview (spec "Catalog deletion impact preview", the catalog state table).
 *
 * Deleting a catalog: the catalog becomes `excluido` (kept, readable, listed); its establishment loses its
 * active catalog; every linked product is unlinked; products linked to no other catalog (exclusivos) are
 * deactivated and leave the surveillance selection; shared products stay active in their other catalogs.
 *
 * The preview projects exactly that, with `antes` and `depois` computed by viewSurveillance, the code of the
 * live counters. Its ETag covers everything the preview or the deletion depends on: the catalog's version, every
 * linked product's version (a shared product turns exclusive when unlinked elsewhere), the selection's version,
 * the company's capacity and entitlement, and the figures themselves. DELETE needs that ETag: anything changed
 * since the preview is 412, and nothing is deleted.
 */
import { catalogTransition, findCatalog, replaceCatalog, type Catalog } from './catalogs.js';
import type { Company } from './companies.js';
import { setActiveCatalog } from './establishments.js';
import { dropLink, type Product } from './products.js';
import { hashString } from './random.js';
import { ok, refuse, type Result } from './refusal.js';
import { linksOf, type Context, type State } from './state.js';
import {
  countsOf,
  inBatch,
  surveillanceOf,
  viewSurveillance,
  type SelectionCounts,
  type SurveillanceView,
} from './surveillance.js';
import { requireMatch, type IfMatch } from './versioning.js';

type Counters = Pick<
  SurveillanceView,
  'cadastrados' | 'selecionados' | 'elegiveis' | 'vagas' | 'cobertura' | 'exige_selecao'
>;

export interface DeletionPreview {
  readonly catalogo_id: string;
  readonly versao: number;
  readonly produtos: number;
  readonly exclusivos: number;
  readonly compartilhados: number;
  readonly produtos_desativados: number;
  readonly selecoes_removidas: number;
  readonly selecoes_adicionadas: number;
  readonly vigilancia: {
    readonly modo: SurveillanceView['modo'];
    readonly versao: number;
    readonly capacidade: number;
    readonly direito_ativo: boolean;
    readonly antes: Counters;
    readonly depois: Counters;
  };
}

const counters = (v: SurveillanceView): Counters => ({
  cadastrados: v.cadastrados,
  selecionados: v.selecionados,
  elegiveis: v.elegiveis,
  vagas: v.vagas,
  cobertura: v.cobertura,
  exige_selecao: v.exige_selecao,
});

function linkedProducts(state: State, catalog: Catalog): Product[] {
  const products: Product[] = [];
  for (const [id] of linksOf(state, catalog.companyId, catalog.id).after()) {
    const product = state.products.get(id);
    if (product) products.push(product);
  }
  return products;
}

/** The preview and its ETag, for an active catalog. */
export function previewDeletion(
  state: State,
  companyId: string,
  catalogId: string,
): Result<{ preview: DeletionPreview; etag: string }> {
  const found = findCatalog(state, companyId, catalogId);
  if (!found.ok) return found;
  const catalog = found.value;
  // The preview's errors are the spec's READ set (no 409): a deleted catalog has no deletion to preview.
  if (catalogTransition(catalog, 'excluir').ok === false) {
    return refuse(
      'not_found',
      'catalogo_excluido',
      `Catalog ${catalog.id} is already deleted: there is no deletion to preview.`,
      'path.id',
    );
  }
  const company = state.companies.get(companyId)!;
  const s = surveillanceOf(state, companyId);
  const products = linkedProducts(state, catalog);
  // Every linked product is active and eligible (linked to this active catalog); exclusive ones lose both.
  const exclusive = products.filter((p) => p.catalogos.length === 1);
  const deselected = exclusive.filter((p) => s.selected.has(p.id)).length;
  const live = countsOf(s);
  const projected: SelectionCounts = {
    ...live,
    active: live.active - exclusive.length,
    eligible: live.eligible - exclusive.length,
    selected: live.selected - deselected,
    selectedEligible: live.selectedEligible - deselected,
  };
  const antes = viewSurveillance(live, company);
  const preview: DeletionPreview = {
    catalogo_id: catalog.id,
    versao: catalog.versao,
    produtos: products.length,
    exclusivos: exclusive.length,
    compartilhados: products.length - exclusive.length,
    produtos_desativados: exclusive.length,
    selecoes_removidas: s.modo === 'selecao' ? deselected : 0,
    // Deleting a catalog never adds to the selection here (mode todos follows the eligible products by itself).
    selecoes_adicionadas: 0,
    vigilancia: {
      modo: s.modo,
      versao: s.versao,
      capacidade: company.surveillanceCapacity,
      direito_ativo: company.surveillanceEntitled,
      antes: counters(antes),
      depois: counters(viewSurveillance(projected, company)),
    },
  };
  return ok({ preview, etag: previewEtag(preview, products, company) });
}

function previewEtag(preview: DeletionPreview, products: readonly Product[], company: Company): string {
  let text = `exclusao:${JSON.stringify(preview)}:${company.surveillanceCapacity}:${company.surveillanceEntitled}`;
  for (const p of products) text += `|${p.id}:${p.versao}`;
  const high = hashString(text);
  const low = hashString(`${high}:${text}`);
  return `"x${high.toString(16).padStart(8, '0')}${low.toString(16).padStart(8, '0')}"`;
}

/** DELETE /v1/catalogos/{id} with the preview's ETag: all of the deletion, or nothing. */
export function deleteCatalog(
  state: State,
  companyId: string,
  catalogId: string,
  ifMatch: IfMatch,
  ctx: Context,
): Result<Catalog> {
  const found = findCatalog(state, companyId, catalogId);
  if (!found.ok) return found;
  const catalog = found.value;
  const what = 'catalog deletion preview (read GET /v1/catalogos/{id}/impacto-exclusao)';
  if (ifMatch === undefined) {
    const missing = requireMatch(ifMatch, '', what);
    if (!missing.ok) return missing;
  }
  if (catalog.estado === 'ativo') {
    const current = previewDeletion(state, companyId, catalogId);
    if (!current.ok) return current;
    const matched = requireMatch(ifMatch, current.value.etag, what);
    if (!matched.ok) return matched;
  }
  const allowed = catalogTransition(catalog, 'excluir');
  if (!allowed.ok) return allowed;

  const products = linkedProducts(state, catalog);
  // One operation: the coverage is compared once, after every product has changed.
  inBatch(state, companyId, ctx, () => {
    // productChanged (through dropLink) keeps the counters and drops a deactivated product from the selection.
    for (const product of products) dropLink(state, product, catalogId, product.catalogos.length === 1, ctx);
  });
  const establishment = state.establishments.get(catalog.establishmentId);
  if (establishment && establishment.catalogoId === catalogId) setActiveCatalog(state, establishment, null, ctx);
  return ok(replaceCatalog(state, catalog, { estado: allowed.value, excluidoEm: ctx.now }, ctx));
}
