/**
 * Batch ingestion (spec "POST /v1/catalogos/ingestoes", "Ingestion receipt"; docs/api.md for the other paths;
 * docs/batch-ingestion.md for everything the spec leaves unshown).
 */
import type { z } from 'zod';
import type { StoredResponse } from '../../core/idempotency.js';
import {
  closeIngestion,
  findIngestion,
  ingestionEtag,
  MAX_BATCHES,
  MAX_ITEMS_PER_BATCH,
  receiveBatch,
  requestApplication,
  startIngestion,
  type Ingestion,
} from '../../core/ingestion/ingestions.js';
import type { Batch, IngestionRecord, RecordError } from '../../core/ingestion/plan.js';
import { ok, type Result } from '../../core/refusal.js';
import type { State } from '../../core/state.js';
import { isoString } from '../../core/time.js';
import { encodeCursor, type Page } from '../paging.js';
import { operation, type Reply } from '../pipeline.js';
import { fixedListPage } from '../results.js';
import * as answers from '../contract/ingestions.js';
import { MUT_STATUSES, READ_STATUSES } from '../contract/wire.js';
import {
  batchParams,
  cursorQuery,
  describeIssue,
  emptyBody,
  idParams,
  ingestionBatch,
  ingestionClose,
  ingestionRecord,
  ingestionStart,
  noQuery,
  parse,
} from '../schemas.js';

const MANAGE = 'catalogo:gerenciar';
const READ = 'catalogo:ler';
/** docs/batch-ingestion.md: a batch's body may take up to 4 MiB (1,000 records of about 4 KiB each). */
const BATCH_BODY_LIMIT = 4 * 1024 * 1024;

const iso = (instant: number | null) => (instant === null ? null : isoString(instant));
const location = (i: Ingestion) => `/v1/catalogos/ingestoes/${i.id}`;

/** Spec "Ingestion receipt": exactly its five fields. */
function presentReceipt(i: Ingestion, repetida: boolean) {
  return { ingestao_id: i.id, estado: i.estado, repetida, catalogo_id: i.catalogId, versao_catalogo: i.versaoCatalogo };
}

/** The ingestion's own fields, first in GET …/ingestoes/{id}. */
function presentHead(i: Ingestion) {
  return {
    id: i.id,
    estado: i.estado,
    operacao: i.operacao,
    catalogo_id: i.catalogId,
    referencia_externa: i.referenciaExterna,
    criada_em: isoString(i.criadaEm),
    atualizada_em: isoString(i.atualizadaEm),
  };
}

const presentError = (e: RecordError) => ({
  lote: e.lote,
  indice: e.indice,
  caminho: e.caminho,
  codigo: e.codigo,
  mensagem: e.mensagem,
});

/** GET …/ingestoes/{id}: the ingestion, and its preview with one page of its record errors (`previa` last). */
function ingestionBody(i: Ingestion, errors: Page<number> | undefined): string {
  const head = {
    ...presentHead(i),
    versao: i.versao,
    versao_catalogo: i.versaoCatalogo,
    expira_em: iso(i.expiraEm),
    lotes_recebidos: i.lotesRecebidos,
    itens_recebidos: i.itensRecebidos,
    total_lotes: i.totalLotes,
    codigo_falha: i.codigoFalha,
    aplicacao:
      i.aplicacao === null
        ? null
        : { versao_catalogo: i.aplicacao.versaoCatalogo, aplicada_em: isoString(i.aplicacao.aplicadaEm) },
  };
  const p = i.preview;
  if (p === null || errors === undefined) return JSON.stringify({ ...head, previa: null });
  const previa = {
    versao_catalogo: p.versaoCatalogo,
    registros: p.registros,
    novos: p.novos,
    alterados: p.alterados,
    inalterados: p.inalterados,
    reativados: p.reativados,
    vinculados: p.vinculados,
    desvinculados: p.desvinculados,
    desativados: p.desativados,
    lotes_faltantes: p.lotesFaltantes,
    total_erros: p.erros.length,
  };
  const next = errors.next === null ? null : encodeCursor(i.companyId, errorsList(i), errors.next);
  return `${JSON.stringify(head).slice(0, -1)},"previa":${JSON.stringify(previa).slice(0, -1)},"erros":[${errors.itemsJson}],"proximo_cursor":${JSON.stringify(next)}}}`;
}

const errorsList = (i: Ingestion) => `ingestao:${i.id}:erros`;

/** The ingestion as GET shows it, with the first page (or the query's page) of its preview's errors. */
function ingestionReply(
  i: Ingestion,
  status: number,
  budgetBytes: number,
  query: { limite?: number | undefined; cursor?: string | undefined } = {},
): Result<Reply> {
  // The cursor is checked in every state, so a bad one is refused before validation as well as after.
  const page = fixedListPage(
    i.preview?.erros ?? [],
    { companyId: i.companyId, list: errorsList(i) },
    query,
    { defaultLimit: 100, budgetBytes },
    presentError,
  );
  if (!page.ok) return page;
  return ok({
    status,
    body: ingestionBody(i, i.preview === null ? undefined : page.value),
    etag: ingestionEtag(i),
    ...(status === 202 ? { location: location(i) } : {}),
  });
}

/**
 * Each item of a batch checked on its own: a valid one becomes a record, an invalid one is reported (every
 * problem, located by `caminho` in the batch body) and does not refuse the batch.
 */
function readBatch(numero: number, body: { itens: readonly unknown[] }, content: string): Batch {
  const records: (IngestionRecord | null)[] = [];
  const errors: RecordError[] = [];
  body.itens.forEach((item, indice) => {
    const parsed = parse(ingestionRecord, item);
    if (parsed.success) {
      const r = parsed.data;
      records.push({
        idExterno: r.id_externo,
        origem: r.origem,
        ncm: r.ncm,
        sku: r.sku ?? null,
        descricao: r.descricao ?? null,
        atributos: r.atributos ?? [],
      });
      return;
    }
    records.push(null);
    for (const issue of expandUnknownKeys(parsed.error)) {
      const { codigo, caminho, mensagem } = describeIssue(`body.itens[${indice}]`, issue);
      errors.push({ lote: numero, indice, caminho, codigo, mensagem });
    }
  });
  return { numero, content, records, errors };
}

/** One issue per unknown field, so each is located exactly. */
function expandUnknownKeys(error: z.ZodError): z.core.$ZodIssue[] {
  return error.issues.flatMap((issue): z.core.$ZodIssue[] =>
    issue.code === 'unrecognized_keys' ? issue.keys.map((key) => ({ ...issue, keys: [key] })) : [issue],
  );
}

/** A replayed start answers 200 with `repetida: true` and the ingestion's current state (docs/batch-ingestion.md). */
function replayStart(stored: StoredResponse, state: State): StoredResponse {
  const receipt = JSON.parse(stored.body) as { ingestao_id: string };
  const ingestion = state.ingestions.get(receipt.ingestao_id);
  const body = ingestion ? presentReceipt(ingestion, true) : { ...receipt, repetida: true };
  return { ...stored, status: 200, body: JSON.stringify(body) };
}

export const ingestionOperations = [
  operation({
    method: 'POST',
    path: '/v1/catalogos/ingestoes',
    doc: {
      id: 'startIngestion',
      summary: 'Start an ingestion in the selected catalog',
      tag: 'Ingestions',
      description:
        "Without catalogo_id, the head office's active catalog. One open ingestion per catalog (409 otherwise). A repetition with the same idempotency-key answers 200 with repetida: true and the current estado.",
      success: {
        200: {
          description: 'A repetition: the receipt with repetida true and the current estado.',
          body: answers.IngestionReceipt,
          headers: ['location'],
        },
        201: { description: 'The ingestion started (aberta).', body: answers.IngestionReceipt, headers: ['location'] },
      },
      // spec "POST /v1/catalogos/ingestoes": its own set, MUT without 412 and 428 (it takes no If-Match).
      errors: [400, 401, 403, 404, 408, 409, 413, 415, 422, 429, 503],
    },
    permission: MANAGE,
    params: noQuery,
    query: noQuery,
    body: ingestionStart,
    // Spec: this key is 16 to 200 characters, any but whitespace.
    idempotencyKey: {
      pattern: /^\S{16,200}$/,
      description: '16 to 200 characters, none of them whitespace',
      length: { min: 16, max: 200 },
    },
    replay: replayStart,
    run: ({ state, ctx, company, body }) => {
      const started = startIngestion(
        state,
        company.id,
        { operacao: body.operacao, catalogId: body.catalogo_id, referenciaExterna: body.referencia_externa },
        ctx,
      );
      if (!started.ok) return started;
      return ok({ status: 201, body: presentReceipt(started.value, false), location: location(started.value) });
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/catalogos/ingestoes/:id',
    doc: {
      id: 'getIngestion',
      summary: 'Get an ingestion and its preview',
      tag: 'Ingestions',
      choice: "The spec lists this operation without its path; this one follows the spec's naming of the resource.",
      description:
        "The preview's record errors are paged: send previa.proximo_cursor as cursor. Its ETag is the If-Match of the application.",
      success: { 200: { description: 'The ingestion.', body: answers.Ingestion, headers: ['etag'] } },
      errors: READ_STATUSES,
    },
    permission: READ,
    params: idParams,
    query: cursorQuery(1000),
    run: ({ state, company, params, query, runtime }) => {
      const found = findIngestion(state, company.id, params.id);
      return found.ok ? ingestionReply(found.value, 200, runtime.pageBudgets.ingestionErrors, query) : found;
    },
  }),
  operation({
    method: 'PUT',
    path: '/v1/catalogos/ingestoes/:id/lotes/:numero',
    doc: {
      id: 'sendIngestionBatch',
      summary: 'Send a canonical batch to an ingestion',
      tag: 'Ingestions',
      choice: "The spec lists this operation without its path; this one follows the spec's naming of the resource.",
      description:
        "Each item is a product's whole canonical state: id_externo (1 to 256 characters), origem (1 to 64) and ncm (8 digits) required; sku (1 to 256 or null), descricao (1 to 2000 or null) and atributos (as in a product) optional, absent meaning none. Each item is checked on its own: an invalid one is reported in erros and does not refuse the batch. The same number with the same content again is 200 (repetido: true, nothing changes); with other content 409. At most 4 MiB.",
      success: {
        200: {
          description: 'The batch had already been received with this content.',
          body: answers.BatchReceipt,
          headers: ['etag'],
        },
        201: { description: 'The batch received.', body: answers.BatchReceipt, headers: ['etag'] },
      },
      errors: MUT_STATUSES,
    },
    permission: MANAGE,
    params: batchParams(MAX_BATCHES),
    query: noQuery,
    body: ingestionBatch(MAX_ITEMS_PER_BATCH),
    bodyLimit: BATCH_BODY_LIMIT,
    run: ({ state, ctx, company, params, body, canonicalBody }) => {
      const received = receiveBatch(state, company.id, params.id, readBatch(params.numero, body, canonicalBody), ctx);
      if (!received.ok) return received;
      const { ingestion, batch, repeated } = received.value;
      return ok({
        status: repeated ? 200 : 201,
        body: {
          ingestao_id: ingestion.id,
          numero: batch.numero,
          itens: batch.records.length,
          repetido: repeated,
          erros: batch.errors.map(presentError),
        },
        etag: ingestionEtag(ingestion),
      });
    },
  }),
  operation({
    method: 'POST',
    path: '/v1/catalogos/ingestoes/:id/fechamento',
    doc: {
      id: 'closeIngestion',
      summary: 'Close batches and validate the preview',
      tag: 'Ingestions',
      choice: "The spec lists this operation without its path; this one follows the spec's naming of the resource.",
      description:
        'total_lotes says the batches are 1 to total_lotes. The 202 is acceptance only: the validation runs later (follow Location).',
      success: {
        202: { description: 'The ingestion, validando.', body: answers.Ingestion, headers: ['etag', 'location'] },
      },
      errors: MUT_STATUSES,
    },
    permission: MANAGE,
    params: idParams,
    query: noQuery,
    body: ingestionClose(MAX_BATCHES),
    run: ({ state, ctx, company, params, body, runtime }) => {
      const closed = closeIngestion(state, company.id, params.id, body.total_lotes, ctx);
      return closed.ok ? ingestionReply(closed.value, 202, runtime.pageBudgets.ingestionErrors) : closed;
    },
  }),
  operation({
    method: 'POST',
    path: '/v1/catalogos/ingestoes/:id/aplicacao',
    doc: {
      id: 'applyIngestion',
      summary: 'Schedule application of the validated preview',
      tag: 'Ingestions',
      choice: "The spec lists this operation without its path; this one follows the spec's naming of the resource.",
      description:
        "If-Match is the ingestion's ETag; the ingestion must be validada. The 202 is acceptance only: anything the preview read that changed since makes it revisao_necessaria, never a partial application (follow Location).",
      success: {
        202: { description: 'The ingestion, aplicando.', body: answers.Ingestion, headers: ['etag', 'location'] },
      },
      errors: MUT_STATUSES,
    },
    permission: MANAGE,
    params: idParams,
    query: noQuery,
    body: emptyBody,
    bodyOptional: true,
    run: ({ state, ctx, company, params, ifMatch, runtime }) => {
      const accepted = requestApplication(state, company.id, params.id, ifMatch, ctx);
      return accepted.ok ? ingestionReply(accepted.value, 202, runtime.pageBudgets.ingestionErrors) : accepted;
    },
  }),
];
