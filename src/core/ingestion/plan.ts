/**
 * What an ingestion would do to its catalog (docs/batch-ingestion.md): the preview an integrator reads, and
 * the plan the application carries out. Both are computed once, when the ingestion is validated, from the
 * received batches in batch-number order (so the order the batches arrived in never matters) and the state
 * at that moment.
 *
 * Each valid record, keyed by `id_externo`, is exactly one of:
 *   novo        no product of the company has this id_externo: one is created in the catalog
 *   alterado    an active product has it and differs in origem, sku, descricao, ncm or atributos: it is updated
 *   inalterado  an active product has it with the same fields: left as is
 *   reativado   an inactive product has it: it becomes active again, with the record's fields
 * and, across those, `vinculados` counts the existing products that get a link to the catalog.
 *
 * The catalog's linked products absent from the ingestion:
 *   mesclar                 keeps them
 *   substituicao_catalogo   unlinks them (desvinculados); a product left with no catalog stays active
 *   substituicao_integral   unlinks them, and deactivates those linked to this catalog only (desativados, also
 *                           counted in desvinculados), which also leaves the surveillance selection
 *
 * The plan records the version of everything it read (the catalog, every product it matched or will unlink,
 * and the absence of the id_externo it will create): the application refuses to act on a plan any of these
 * moved under (`revisao_necessaria`), so it never applies in part.
 */
import { findCatalog, replaceCatalog } from '../catalogs.js';
import {
  addProduct,
  dropLink,
  productByExternalId,
  replaceProduct,
  type Attribute,
  type Product,
} from '../products.js';
import { linksOf, nextPosition, type Context, type State } from '../state.js';
import { inBatch } from '../surveillance.js';

export type IngestionOperation = 'mesclar' | 'substituicao_catalogo' | 'substituicao_integral';

/** One product record of a batch, as validated when the batch arrived (absent optional fields are null / []). */
export interface IngestionRecord {
  readonly idExterno: string;
  readonly origem: string;
  readonly ncm: string;
  readonly sku: string | null;
  readonly descricao: string | null;
  readonly atributos: readonly Attribute[];
}

/** A problem with one record, located by batch number, item index and `caminho` within the batch body. */
export interface RecordError {
  readonly lote: number;
  readonly indice: number;
  readonly caminho: string;
  readonly codigo: string;
  readonly mensagem: string;
}

export interface Batch {
  readonly numero: number;
  /** The batch body as canonical JSON: what "the same content" compares. */
  readonly content: string;
  /** One entry per item: its record, or null when the item has errors (listed in `errors`). */
  readonly records: readonly (IngestionRecord | null)[];
  readonly errors: readonly RecordError[];
}

type RecordAction = 'novo' | 'alterado' | 'inalterado' | 'reativado';

export interface Preview {
  /** The catalog's version the preview was computed against. */
  readonly versaoCatalogo: number;
  /** Valid records, one per id_externo. */
  readonly registros: number;
  readonly novos: number;
  readonly alterados: number;
  readonly inalterados: number;
  readonly reativados: number;
  readonly vinculados: number;
  readonly desvinculados: number;
  readonly desativados: number;
  /** Numbers from 1 to total_lotes that never arrived. */
  readonly lotesFaltantes: readonly number[];
  /** Every record error, in batch-number then item order. */
  readonly erros: readonly RecordError[];
}

interface PlannedRecord {
  readonly record: IngestionRecord;
  readonly action: RecordAction;
  /** The product it matched, and its version then; null for a new product. */
  readonly productId: string | null;
  readonly productVersao: number | null;
  /** The product gets a link to the catalog. */
  readonly link: boolean;
}

interface PlannedRemoval {
  readonly productId: string;
  readonly productVersao: number;
  readonly deactivate: boolean;
}

export interface Plan {
  readonly catalogVersao: number;
  readonly records: readonly PlannedRecord[];
  readonly removals: readonly PlannedRemoval[];
}

/** The preview and the plan of `batches` (sorted by number) against the catalog as it is now. */
export function planIngestion(
  state: State,
  companyId: string,
  catalogId: string,
  operacao: IngestionOperation,
  batches: readonly Batch[],
  totalLotes: number,
): { preview: Preview; plan: Plan } {
  const catalog = state.catalogs.get(catalogId);
  const received = new Set(batches.map((b) => b.numero));
  const lotesFaltantes: number[] = [];
  for (let n = 1; n <= totalLotes; n++) if (!received.has(n)) lotesFaltantes.push(n);

  const erros: RecordError[] = [];
  const records: PlannedRecord[] = [];
  const counts = { novos: 0, alterados: 0, inalterados: 0, reativados: 0, vinculados: 0 };
  /** id_externo → where it first appeared. */
  const seen = new Map<string, { lote: number; indice: number }>();
  for (const batch of batches) {
    let nextError = 0;
    batch.records.forEach((record, indice) => {
      while (nextError < batch.errors.length && batch.errors[nextError]!.indice === indice)
        erros.push(batch.errors[nextError++]!);
      if (record === null) return;
      const first = seen.get(record.idExterno);
      if (first) {
        erros.push({
          lote: batch.numero,
          indice,
          caminho: `body.itens[${indice}].id_externo`,
          codigo: 'id_externo_repetido',
          mensagem: `id_externo "${record.idExterno}" already appears in batch ${first.lote}, item ${first.indice}; an ingestion holds each product once.`,
        });
        return;
      }
      seen.set(record.idExterno, { lote: batch.numero, indice });
      const planned = planRecord(state, companyId, catalogId, record);
      counts[COUNTER_OF[planned.action]]++;
      if (planned.link && planned.productId !== null) counts.vinculados++;
      records.push(planned);
    });
  }

  const removals: PlannedRemoval[] = [];
  if (operacao !== 'mesclar') {
    for (const [productId] of linksOf(state, companyId, catalogId).after()) {
      const product = state.products.get(productId);
      if (!product || (product.idExterno !== null && seen.has(product.idExterno))) continue;
      const exclusive = product.catalogos.length === 1;
      removals.push({
        productId,
        productVersao: product.versao,
        deactivate: operacao === 'substituicao_integral' && exclusive,
      });
    }
  }
  const preview: Preview = {
    versaoCatalogo: catalog?.versao ?? 0,
    registros: records.length,
    ...counts,
    desvinculados: removals.length,
    desativados: removals.filter((r) => r.deactivate).length,
    lotesFaltantes,
    erros,
  };
  return { preview, plan: { catalogVersao: preview.versaoCatalogo, records, removals } };
}

const COUNTER_OF = {
  novo: 'novos',
  alterado: 'alterados',
  inalterado: 'inalterados',
  reativado: 'reativados',
} as const;

function planRecord(state: State, companyId: string, catalogId: string, record: IngestionRecord): PlannedRecord {
  const product = productByExternalId(state, companyId, record.idExterno);
  if (!product) return { record, action: 'novo', productId: null, productVersao: null, link: true };
  const action: RecordAction = !product.ativo ? 'reativado' : sameFields(product, record) ? 'inalterado' : 'alterado';
  return {
    record,
    action,
    productId: product.id,
    productVersao: product.versao,
    link: !product.catalogos.includes(catalogId),
  };
}

function sameFields(p: Product, r: IngestionRecord): boolean {
  return (
    p.origem === r.origem &&
    p.sku === r.sku &&
    p.descricao === r.descricao &&
    p.ncm === r.ncm &&
    p.atributos.length === r.atributos.length &&
    p.atributos.every((a, i) => {
      const b = r.atributos[i]!;
      return (
        a.codigo === b.codigo && a.valores.length === b.valores.length && a.valores.every((v, j) => v === b.valores[j])
      );
    })
  );
}

/** What moved since the plan was made, or undefined when nothing it read has changed. */
export function staleness(state: State, companyId: string, catalogId: string, plan: Plan): string | undefined {
  const catalog = findCatalog(state, companyId, catalogId);
  if (!catalog.ok || catalog.value.estado !== 'ativo') return `catalog ${catalogId} was deleted`;
  if (catalog.value.versao !== plan.catalogVersao)
    return `catalog ${catalogId} moved from version ${plan.catalogVersao} to ${catalog.value.versao}`;
  for (const { record, productId, productVersao } of plan.records) {
    if (productId === null) {
      const holder = productByExternalId(state, companyId, record.idExterno);
      if (holder) return `product ${holder.id} took id_externo "${record.idExterno}"`;
    } else if (state.products.get(productId)?.versao !== productVersao) return `product ${productId} changed`;
  }
  for (const { productId, productVersao } of plan.removals) {
    if (state.products.get(productId)?.versao !== productVersao) return `product ${productId} changed`;
  }
  return undefined;
}

/**
 * Carries out a fresh plan (the caller checked `staleness`): every product change, then the catalog's version
 * moves once. The coverage is compared once, at the end, so the application raises at most one event of it.
 */
export function applyPlan(state: State, companyId: string, catalogId: string, plan: Plan, ctx: Context): number {
  const links = linksOf(state, companyId, catalogId);
  inBatch(state, companyId, ctx, () => {
    for (const { record, action, productId, link } of plan.records) {
      const fields = {
        origem: record.origem,
        sku: record.sku,
        descricao: record.descricao,
        ncm: record.ncm,
        atributos: record.atributos,
      };
      if (productId === null) {
        addProduct(state, companyId, catalogId, { idExterno: record.idExterno, ...fields }, ctx);
        continue;
      }
      const product = state.products.get(productId)!;
      if (link) links.add(productId, nextPosition(state));
      const catalogos = link ? [...product.catalogos, catalogId] : product.catalogos;
      switch (action) {
        case 'alterado':
          replaceProduct(state, product, { ...fields, catalogos }, ctx);
          break;
        case 'reativado':
          replaceProduct(state, product, { ...fields, catalogos, ativo: true }, ctx);
          break;
        case 'inalterado':
          if (link) replaceProduct(state, product, { catalogos }, ctx);
          break;
        case 'novo':
          break;
      }
    }
    for (const { productId, deactivate } of plan.removals)
      dropLink(state, state.products.get(productId)!, catalogId, deactivate, ctx);
  });
  const catalog = state.catalogs.get(catalogId)!;
  return replaceCatalog(state, catalog, {}, ctx).versao;
}
