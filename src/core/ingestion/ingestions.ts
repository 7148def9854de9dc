/**
 * Batch ingestion into a catalog (spec "POST /v1/catalogos/ingestoes", "Ingestion receipt"; the rest of the
 * flow is unshown and defined by docs/batch-ingestion.md). Lifecycle:
 *
 *   (none)     --iniciar-->        aberta              POST: one open ingestion per catalog
 *   aberta     --receber_lote-->   aberta              PUT a batch (the same number again: same content is a
 *                                                      no-op, other content 409)
 *   aberta     --fechar-->         validando           POST fechamento {total_lotes}: validation is scheduled
 *   validando  --validar-->        validada            every batch 1..total_lotes arrived, no record error
 *   validando  --rejeitar-->       rejeitada           batches missing, record errors, or the catalog deleted
 *   validada   --aplicar-->        aplicando           POST aplicacao with the ingestion's ETag: scheduled
 *   aplicando  --concluir-->       aplicada            the plan applied whole → catalogo.aplicado
 *   aplicando  --exigir_revisao--> revisao_necessaria  something the preview read changed: nothing applied
 *                                                      → catalogo.revisao_necessaria
 *   validando, aplicando --falhar--> falhou           the run failed (a `job` fault of kind `ingestao`)
 *   aberta, validada --expirar-->  expirada            no change for EXPIRY_MS
 *   rejeitada, aplicada, revisao_necessaria, falhou, expirada are final: the batches are dropped (the preview and
 *   its errors stay) and the catalog is free for a new ingestion.
 *
 * `versao` (and the ETag) moves on every transition except a repeated batch.
 */
import { findCatalog, type Catalog } from '../catalogs.js';
import { schedule } from '../outbox.js';
import { uuidV7 } from '../random.js';
import { ok, refuse, type Result } from '../refusal.js';
import { nextPosition, ownedBy, positioned, type Context, type KindSlice, type State } from '../state.js';
import { at, repeated, repeatedId, type Found, type Records } from '../integrity.js';
import { HOUR, SECOND, type Instant } from '../time.js';
import { etag, requireMatch, type IfMatch } from '../versioning.js';
import { raiseEvent } from '../webhooks/events.js';
import {
  applyPlan,
  planIngestion,
  staleness,
  type Batch,
  type IngestionOperation,
  type Plan,
  type Preview,
} from './plan.js';
import type { Job } from '../jobs.js';
import { isFinal, type Lifecycle } from '../lifecycle.js';

export type IngestionState =
  | 'aberta'
  | 'validando'
  | 'validada'
  | 'rejeitada'
  | 'aplicando'
  | 'aplicada'
  | 'revisao_necessaria'
  | 'falhou'
  | 'expirada';
type IngestionEvent =
  | 'receber_lote'
  | 'fechar'
  | 'validar'
  | 'rejeitar'
  | 'aplicar'
  | 'concluir'
  | 'exigir_revisao'
  | 'falhar'
  | 'expirar';

const LIFECYCLE: Lifecycle<IngestionState, IngestionEvent> = {
  aberta: { receber_lote: 'aberta', fechar: 'validando', expirar: 'expirada' },
  validando: { validar: 'validada', rejeitar: 'rejeitada', falhar: 'falhou' },
  validada: { aplicar: 'aplicando', expirar: 'expirada' },
  aplicando: { concluir: 'aplicada', exigir_revisao: 'revisao_necessaria', falhar: 'falhou' },
  rejeitada: {},
  aplicada: {},
  revisao_necessaria: {},
  falhou: {},
  expirada: {},
};

/** The states that hold the catalog, all but the final ones: a new ingestion of it waits until this one ends. */
export const isOpen = (estado: IngestionState): boolean => !isFinal(LIFECYCLE, estado);

/** docs/batch-ingestion.md: limits and durations, in virtual time. */
export const MAX_BATCHES = 1000;
export const MAX_ITEMS_PER_BATCH = 1000;
export const EXPIRY_MS = 24 * HOUR;
export const BASE_RUN_MS = SECOND;
/** Validation and application each take one second plus one millisecond per record. */
export const RUN_MS_PER_RECORD = 1;
export const TASK_VALIDATION = 'ingestao.validacao';
export const TASK_APPLICATION = 'ingestao.aplicacao';
export const TASK_EXPIRY = 'ingestao.expiracao';

/** `codigo_falha` of the ingestions that ended without being applied (docs/batch-ingestion.md). */
const INGESTION_FAILURES = {
  catalogDeleted: 'catalogo_excluido',
  missingBatches: 'lotes_faltantes',
  invalidRecords: 'registros_invalidos',
  stale: 'catalogo_alterado',
  runFailed: 'falha_execucao',
  expired: 'prazo_expirado',
} as const;

export interface Ingestion {
  readonly id: string;
  readonly companyId: string;
  readonly catalogId: string;
  readonly operacao: IngestionOperation;
  readonly referenciaExterna: string | null;
  readonly estado: IngestionState;
  readonly versao: number;
  /** The catalog's version when the ingestion started (the receipt's versao_catalogo). */
  readonly versaoCatalogo: number;
  readonly criadaEm: Instant;
  readonly atualizadaEm: Instant;
  /** When an `aberta` or `validada` ingestion expires unless it changes; null in the other states. */
  readonly expiraEm: Instant | null;
  readonly totalLotes: number | null;
  /** Received batch numbers, ascending (kept when the batches are dropped). */
  readonly lotesRecebidos: readonly number[];
  readonly itensRecebidos: number;
  /** The received batches, by number; dropped once the ingestion ends. */
  readonly batches: readonly Batch[];
  readonly preview: Preview | null;
  /** What the application will do; present while validada or aplicando. */
  readonly plan: Plan | null;
  readonly aplicacao: { readonly versaoCatalogo: number; readonly aplicadaEm: Instant } | null;
  readonly codigoFalha: string | null;
  readonly position: number;
}

export const ingestionEtag = (i: Ingestion): string => etag('ingestao', i.id, i.versao);

function transition(i: Ingestion, event: IngestionEvent): Result<IngestionState> {
  const next = LIFECYCLE[i.estado][event];
  if (next !== undefined) return ok(next);
  return refuse(
    'conflict',
    CONFLICT_CODE[event] ?? 'ingestao_em_estado_invalido',
    `Ingestion ${i.id} is ${i.estado}: ${WHAT_NEXT[i.estado]}`,
  );
}

const CONFLICT_CODE: Partial<Record<IngestionEvent, string>> = {
  receber_lote: 'ingestao_fechada',
  fechar: 'ingestao_fechada',
  aplicar: 'ingestao_nao_validada',
};

/** What an integrator can do from each state: the tail of a 409's message. */
const WHAT_NEXT: Record<IngestionState, string> = {
  aberta: 'it takes batches until it is closed (POST …/fechamento); it has no validated preview to apply yet.',
  validando: 'its batches are closed and its preview is being validated; follow GET /v1/catalogos/ingestoes/{id}.',
  validada: 'its batches are closed; apply its preview (POST …/aplicacao) or start a new ingestion once it ends.',
  aplicando: 'its preview is being applied; follow GET /v1/catalogos/ingestoes/{id}.',
  aplicada: 'it was applied; start a new ingestion for further changes.',
  rejeitada:
    'it was rejected (see codigo_falha and the preview errors); start a new ingestion with the corrected batches.',
  revisao_necessaria: 'the catalog changed after validation, so nothing was applied; start a new ingestion.',
  falhou: 'its run failed and nothing was applied; start a new ingestion.',
  expirada: 'it expired unchanged; start a new ingestion.',
};

export interface NewIngestion {
  readonly operacao: IngestionOperation;
  readonly catalogId?: string;
  readonly referenciaExterna?: string;
}

/** POST /v1/catalogos/ingestoes: a new open ingestion in the catalog (by default, the head office's active one). */
export function startIngestion(state: State, companyId: string, input: NewIngestion, ctx: Context): Result<Ingestion> {
  const catalog = targetCatalog(state, companyId, input.catalogId);
  if (!catalog.ok) return catalog;
  const openId = state.openIngestions.get(catalog.value.id);
  const open = openId === undefined ? undefined : state.ingestions.get(openId);
  if (open) {
    return refuse(
      'conflict',
      'ingestao_em_andamento',
      `Catalog ${catalog.value.id} already has ingestion ${open.id}, ${open.estado}; a catalog takes one ingestion at a time: finish that one (or let it end) first.`,
      input.catalogId === undefined ? undefined : 'body.catalogo_id',
    );
  }
  const ingestion: Ingestion = {
    id: uuidV7(ctx.random, ctx.now),
    companyId,
    catalogId: catalog.value.id,
    operacao: input.operacao,
    referenciaExterna: input.referenciaExterna ?? null,
    estado: 'aberta',
    versao: 1,
    versaoCatalogo: catalog.value.versao,
    criadaEm: ctx.now,
    atualizadaEm: ctx.now,
    expiraEm: ctx.now + EXPIRY_MS,
    totalLotes: null,
    lotesRecebidos: [],
    itensRecebidos: 0,
    batches: [],
    preview: null,
    plan: null,
    aplicacao: null,
    codigoFalha: null,
    position: nextPosition(state),
  };
  addIngestion(state, ingestion);
  scheduleExpiry(state, ingestion);
  return ok(ingestion);
}

function targetCatalog(state: State, companyId: string, catalogId: string | undefined): Result<Catalog> {
  let found: Result<Catalog>;
  if (catalogId !== undefined) {
    found = findCatalog(state, companyId, catalogId, 'body.catalogo_id');
  } else {
    const company = state.companies.get(companyId)!;
    const headOffice = state.establishments.get(company.headOfficeId);
    if (!headOffice || headOffice.catalogoId === null) {
      return refuse(
        'invalid',
        'catalogo_padrao_ausente',
        `Without catalogo_id the ingestion goes to the head office's active catalog, and head office ${company.headOfficeId} has none: send catalogo_id, or create the head office's catalog first (POST /v1/catalogos).`,
        'body.catalogo_id',
      );
    }
    found = findCatalog(state, companyId, headOffice.catalogoId, 'body.catalogo_id');
  }
  if (found.ok && found.value.estado !== 'ativo') {
    return refuse(
      'conflict',
      'catalogo_excluido',
      `Catalog ${found.value.id} is deleted: it takes no ingestion.`,
      'body.catalogo_id',
    );
  }
  return found;
}

export function findIngestion(state: State, companyId: string, id: string): Result<Ingestion> {
  const ingestion = ownedBy(state.ingestions, companyId, id);
  if (!ingestion)
    return refuse('not_found', 'ingestao_nao_encontrada', `No ingestion ${id} in this company.`, 'path.id');
  return ok(ingestion);
}

/**
 * PUT …/lotes/{numero}: records the batch. The same number again is a success without a change when its
 * content is the same, and 409 when it differs: a batch, once received, never changes.
 */
export function receiveBatch(
  state: State,
  companyId: string,
  id: string,
  batch: Batch,
  ctx: Context,
): Result<{ ingestion: Ingestion; batch: Batch; repeated: boolean }> {
  const found = findIngestion(state, companyId, id);
  if (!found.ok) return found;
  const ingestion = found.value;
  const allowed = transition(ingestion, 'receber_lote');
  if (!allowed.ok) return allowed;
  const existing = ingestion.batches.find((b) => b.numero === batch.numero);
  if (existing) {
    if (existing.content === batch.content) return ok({ ingestion, batch: existing, repeated: true });
    return refuse(
      'conflict',
      'lote_divergente',
      `Batch ${batch.numero} of ingestion ${id} was already received with other content; a received batch never changes. Send the same content again, or the changed records in a new ingestion.`,
      'path.numero',
    );
  }
  const at = ingestion.batches.findIndex((b) => b.numero > batch.numero);
  const insert = <T>(list: readonly T[], value: T) =>
    at < 0 ? [...list, value] : [...list.slice(0, at), value, ...list.slice(at)];
  const updated = replace(
    state,
    ingestion,
    {
      batches: insert(ingestion.batches, batch),
      lotesRecebidos: insert(ingestion.lotesRecebidos, batch.numero),
      itensRecebidos: ingestion.itensRecebidos + batch.records.length,
      expiraEm: ctx.now + EXPIRY_MS,
    },
    ctx,
  );
  return ok({ ingestion: updated, batch, repeated: false });
}

/** POST …/fechamento: no more batches; validation runs on the clock, longer for more records. */
export function closeIngestion(
  state: State,
  companyId: string,
  id: string,
  totalLotes: number,
  ctx: Context,
): Result<Ingestion> {
  const found = findIngestion(state, companyId, id);
  if (!found.ok) return found;
  const ingestion = found.value;
  const allowed = transition(ingestion, 'fechar');
  if (!allowed.ok) return allowed;
  const highest = ingestion.lotesRecebidos[ingestion.lotesRecebidos.length - 1];
  if (highest !== undefined && highest > totalLotes) {
    return refuse(
      'invalid',
      'total_lotes_inconsistente',
      `total_lotes is ${totalLotes}, but batch ${highest} was received; total_lotes counts batches 1 to the last one.`,
      'body.total_lotes',
    );
  }
  const updated = replace(state, ingestion, { estado: allowed.value, totalLotes, expiraEm: null }, ctx);
  schedule(state, {
    kind: TASK_VALIDATION,
    owner: companyId,
    due: ctx.now + runDuration(ingestion.itensRecebidos),
    payload: { ingestionId: id },
  });
  return ok(updated);
}

/** POST …/aplicacao with the ingestion's ETag: the validated preview is applied on the clock. */
export function requestApplication(
  state: State,
  companyId: string,
  id: string,
  ifMatch: IfMatch,
  ctx: Context,
): Result<Ingestion> {
  const found = findIngestion(state, companyId, id);
  if (!found.ok) return found;
  const ingestion = found.value;
  const matched = requireMatch(ifMatch, ingestionEtag(ingestion), 'ingestion (read GET /v1/catalogos/ingestoes/{id})');
  if (!matched.ok) return matched;
  const allowed = transition(ingestion, 'aplicar');
  if (!allowed.ok) return allowed;
  const updated = replace(state, ingestion, { estado: allowed.value, expiraEm: null }, ctx);
  schedule(state, {
    kind: TASK_APPLICATION,
    owner: companyId,
    due: ctx.now + runDuration(ingestion.plan?.records.length ?? 0),
    payload: { ingestionId: id },
  });
  return ok(updated);
}

/** The validation task: the preview and plan of the received batches, against the catalog as it is now. */
export function validateIngestion(state: State, id: string, failed: boolean, ctx: Context): void {
  const ingestion = state.ingestions.get(id);
  if (!ingestion || ingestion.estado !== 'validando') return;
  if (failed) {
    end(state, ingestion, 'falhar', INGESTION_FAILURES.runFailed, {}, ctx);
    return;
  }
  const { preview, plan } = planIngestion(
    state,
    ingestion.companyId,
    ingestion.catalogId,
    ingestion.operacao,
    ingestion.batches,
    ingestion.totalLotes ?? 0,
  );
  const catalogActive = state.catalogs.get(ingestion.catalogId)?.estado === 'ativo';
  const failure = !catalogActive
    ? INGESTION_FAILURES.catalogDeleted
    : preview.lotesFaltantes.length > 0
      ? INGESTION_FAILURES.missingBatches
      : preview.erros.length > 0
        ? INGESTION_FAILURES.invalidRecords
        : undefined;
  if (failure !== undefined) {
    end(state, ingestion, 'rejeitar', failure, { preview }, ctx);
    return;
  }
  const updated = replace(
    state,
    ingestion,
    { estado: LIFECYCLE.validando.validar!, preview, plan, batches: [], expiraEm: ctx.now + EXPIRY_MS },
    ctx,
  );
  scheduleExpiry(state, updated);
}

/** The application task: the whole plan, or nothing when anything it read has changed since. */
export function applyIngestion(state: State, id: string, failed: boolean, ctx: Context): void {
  const ingestion = state.ingestions.get(id);
  if (!ingestion || ingestion.estado !== 'aplicando' || !ingestion.plan) return;
  if (failed) {
    end(state, ingestion, 'falhar', INGESTION_FAILURES.runFailed, {}, ctx);
    return;
  }
  const { companyId, catalogId, plan } = ingestion;
  const stale = staleness(state, companyId, catalogId, plan);
  if (stale !== undefined) {
    end(state, ingestion, 'exigir_revisao', INGESTION_FAILURES.stale, {}, ctx);
    const versaoAtual = state.catalogs.get(catalogId)?.versao ?? null;
    raiseEvent(
      state,
      companyId,
      {
        tipo: 'catalogo.revisao_necessaria',
        catalogoId: catalogId,
        ingestaoId: id,
        versaoValidada: plan.catalogVersao,
        versaoAtual,
      },
      ctx,
    );
    return;
  }
  const versao = applyPlan(state, companyId, catalogId, plan, ctx);
  end(state, ingestion, 'concluir', null, { aplicacao: { versaoCatalogo: versao, aplicadaEm: ctx.now } }, ctx);
  raiseEvent(state, companyId, { tipo: 'catalogo.aplicado', catalogoId: catalogId, versao }, ctx);
}

/** The expiry task: an ingestion left unchanged for EXPIRY_MS expires; one that changed since waits longer. */
export function expireIngestion(state: State, id: string, ctx: Context): void {
  const ingestion = state.ingestions.get(id);
  if (!ingestion || ingestion.expiraEm === null || LIFECYCLE[ingestion.estado].expirar === undefined) return;
  if (ingestion.expiraEm > ctx.now) {
    scheduleExpiry(state, ingestion);
    return;
  }
  end(state, ingestion, 'expirar', INGESTION_FAILURES.expired, {}, ctx);
}

function scheduleExpiry(state: State, ingestion: Ingestion): void {
  if (ingestion.expiraEm !== null)
    schedule(state, {
      kind: TASK_EXPIRY,
      owner: ingestion.companyId,
      due: ingestion.expiraEm,
      payload: { ingestionId: ingestion.id },
    });
}

export function runDuration(records: number): number {
  return BASE_RUN_MS + records * RUN_MS_PER_RECORD;
}

/** A final state: the catalog is released and the batches and plan are dropped (the preview stays). */
function end(
  state: State,
  ingestion: Ingestion,
  event: IngestionEvent,
  codigoFalha: string | null,
  changes: Partial<Pick<Ingestion, 'preview' | 'aplicacao'>>,
  ctx: Context,
): void {
  const estado = LIFECYCLE[ingestion.estado][event]!;
  replace(state, ingestion, { ...changes, estado, codigoFalha, expiraEm: null, batches: [], plan: null }, ctx);
  if (state.openIngestions.get(ingestion.catalogId) === ingestion.id) state.openIngestions.delete(ingestion.catalogId);
}

type IngestionChanges = Partial<
  Omit<Ingestion, 'id' | 'companyId' | 'catalogId' | 'operacao' | 'versao' | 'position' | 'criadaEm' | 'atualizadaEm'>
>;

function replace(state: State, current: Ingestion, changes: IngestionChanges, ctx: Context): Ingestion {
  const updated: Ingestion = { ...current, ...changes, versao: current.versao + 1, atualizadaEm: ctx.now };
  state.ingestions.set(updated.id, updated);
  return updated;
}

/** An ingestion's validation and application (work, faults of kind `ingestao`) and its expiry (a deadline). */
export const ingestionJobs: readonly Job[] = [
  {
    task: TASK_VALIDATION,
    nature: 'work',
    subject: 'ingestionId',
    faults: { kind: 'ingestao', effects: 'both' },
    run: (state, payload, ctx, failed) => validateIngestion(state, payload.ingestionId!, failed, ctx),
  },
  {
    task: TASK_APPLICATION,
    nature: 'work',
    subject: 'ingestionId',
    faults: { kind: 'ingestao', effects: 'both' },
    run: (state, payload, ctx, failed) => applyIngestion(state, payload.ingestionId!, failed, ctx),
  },
  {
    task: TASK_EXPIRY,
    nature: 'deadline',
    subject: 'ingestionId',
    run: (state, payload, ctx) => expireIngestion(state, payload.ingestionId!, ctx),
  },
];

/** A new (or restored) ingestion; while open, its catalog's open one. */
function addIngestion(state: State, ingestion: Ingestion): void {
  state.ingestions.set(ingestion.id, ingestion);
  if (isOpen(ingestion.estado)) state.openIngestions.set(ingestion.catalogId, ingestion.id);
}

export const ingestionsSlice: KindSlice<'ingestions', readonly Ingestion[], Ingestion> = {
  ...positioned('ingestions', (state) => state.ingestions, addIngestion, false),
  holds: ['ingestions', 'openIngestions'],
  removeCompany: (state, companyId) => {
    for (const [id, ingestion] of state.ingestions) {
      if (ingestion.companyId !== companyId) continue;
      state.ingestions.delete(id);
      if (state.openIngestions.get(ingestion.catalogId) === id) state.openIngestions.delete(ingestion.catalogId);
    }
  },
  unique: (ingestions) => repeatedId('ingestions', ingestions, 'ingestion'),
  check: (data, r) => {
    const openCatalogs = new Set<string>();
    for (const [i, g] of data.ingestions.entries()) {
      const path = ['ingestions', i];
      if (r.catalogs.get(g.catalogId)?.companyId !== g.companyId)
        return at([...path, 'catalogId'], `ingestion ${g.id}: catalog ${g.catalogId} is not of its company`);
      if (isOpen(g.estado) && openCatalogs.has(g.catalogId))
        return at([...path, 'estado'], `catalog ${g.catalogId} has two open ingestions`);
      if (isOpen(g.estado)) openCatalogs.add(g.catalogId);
      if ((g.estado === 'validada' || g.estado === 'aplicando') !== (g.plan !== null))
        return at([...path, 'plan'], `ingestion ${g.id}: a plan exists exactly while validada or aplicando`);
      const batch = repeated(
        'batches',
        g.batches,
        'numero',
        (b) => String(b.numero),
        (b) => `ingestion ${g.id}: batch ${b.numero}`,
      );
      if (batch) return at([...path, ...batch.path], batch.problem);
      const planned = planProblem(g, r);
      if (planned) return at([...path, 'plan', ...planned.path], planned.problem);
    }
    return undefined;
  },
};

/**
 * An ingestion's plan names products of its company. The application acts on a product only while it is at the
 * version the plan read (else the plan is stale and nothing is applied), so for such a product the plan must say
 * what is true of it: whether it is linked to the catalog, whether it is inactive, and (to deactivate it) that
 * this catalog is its only one. Otherwise the application would leave the products inconsistent.
 */
function planProblem(g: Ingestion, r: Records): Found {
  const current = (productId: string, versao: number | null) => {
    const product = r.products.get(productId);
    return product?.versao === versao ? product : undefined;
  };
  for (const [j, planned] of (g.plan?.records ?? []).entries()) {
    const where = ['records', j];
    if (
      (planned.action === 'novo') !== (planned.productId === null) ||
      (planned.productId === null) !== (planned.productVersao === null)
    ) {
      return at(
        [...where, 'productId'],
        `ingestion ${g.id}: a novo record names no product (productId and productVersao null); any other names the product it matched and its version`,
      );
    }
    if (planned.productId === null) continue;
    if (r.products.get(planned.productId)?.companyId !== g.companyId)
      return at([...where, 'productId'], `ingestion ${g.id}: ${planned.productId} is not a product of its company`);
    const product = current(planned.productId, planned.productVersao);
    if (product && planned.link === product.catalogos.includes(g.catalogId))
      return at(
        [...where, 'link'],
        `ingestion ${g.id}: link must say whether product ${product.id} is still to be linked to catalog ${g.catalogId}`,
      );
    if (product && (planned.action === 'reativado') === product.ativo)
      return at(
        [...where, 'action'],
        `ingestion ${g.id}: a record is reativado exactly when its product (${product.id}) is inactive`,
      );
  }
  const named = new Set(
    (g.plan?.records ?? []).flatMap((planned) => (planned.productId === null ? [] : [planned.productId])),
  );
  if (named.size !== (g.plan?.records ?? []).filter((planned) => planned.productId !== null).length)
    return at(['records'], `ingestion ${g.id}: a product is named by two records`);
  for (const [j, removal] of (g.plan?.removals ?? []).entries()) {
    const where = ['removals', j];
    if (named.has(removal.productId))
      return at(
        [...where, 'productId'],
        `ingestion ${g.id}: product ${removal.productId} is both in the records and among the removals`,
      );
    named.add(removal.productId);
    if (r.products.get(removal.productId)?.companyId !== g.companyId)
      return at([...where, 'productId'], `ingestion ${g.id}: ${removal.productId} is not a product of its company`);
    const product = current(removal.productId, removal.productVersao);
    if (product && !product.catalogos.includes(g.catalogId))
      return at(
        [...where, 'productId'],
        `ingestion ${g.id}: product ${product.id} is not linked to catalog ${g.catalogId}, so it cannot be unlinked`,
      );
    if (product && removal.deactivate && product.catalogos.length !== 1)
      return at(
        [...where, 'deactivate'],
        `ingestion ${g.id}: product ${product.id} is linked to other catalogs too, so it is not deactivated`,
      );
  }
  return undefined;
}
