/**
 * The answers of batch ingestion (spec "Resources › Ingestion receipt"; docs/api.md for the paths of the batch,
 * close, read and apply operations, whose payloads the spec does not show: docs/batch-ingestion.md says what they
 * answer).
 */
import * as z from 'zod';
import { choice, component, dateTime, int, oneOf, uuid } from './wire.js';

const INGESTION_STATES = [
  'aberta',
  'validando',
  'validada',
  'rejeitada',
  'aplicando',
  'aplicada',
  'revisao_necessaria',
  'falhou',
  'expirada',
] as const;
const estado = choice(
  oneOf(INGESTION_STATES),
  "The spec does not show the values of an ingestion's estado (States › Ingestion): docs/batch-ingestion.md gives each.",
);

export const IngestionReceipt = component(
  'IngestionReceipt',
  z.strictObject({
    ingestao_id: z.string(),
    estado,
    repetida: z.boolean().meta({
      description:
        'true when this is the answer to a repetition with the same idempotency-key (status 200), with the current estado',
    }),
    catalogo_id: uuid.optional(),
    versao_catalogo: int.optional().meta({ description: "the catalog's versao when the ingestion started" }),
  }),
  'The receipt of an ingestion start (spec "Ingestion receipt").',
);

/** An invalid item of a batch: reported in the batch's answer and in the preview, never refusing the batch. */
const IngestionRecordError = component(
  'IngestionRecordError',
  choice(
    z.strictObject({
      lote: int.meta({ description: 'the batch number' }),
      indice: int.meta({ description: "the item's index in the batch's itens" }),
      caminho: z.string().meta({ description: 'where in the batch body, e.g. body.itens[3].ncm' }),
      codigo: z.string(),
      mensagem: z.string(),
    }),
    'The spec does not show the canonical batch nor how its invalid records are reported.',
  ),
  'A problem of one record of a batch.',
);

export const BatchReceipt = component(
  'IngestionBatchReceipt',
  choice(
    z.strictObject({
      ingestao_id: uuid,
      numero: int,
      itens: int.meta({ description: 'the number of items of the batch, valid or not' }),
      repetido: z.boolean().meta({
        description:
          'true when this batch number had already been received with the same content (status 200): nothing changed',
      }),
      erros: z.array(IngestionRecordError),
    }),
    'The spec does not show the payload of the batch operation.',
  ),
  'A batch received: its items, and the problems of its invalid ones.',
);

const IngestionPreview = component(
  'IngestionPreview',
  choice(
    z.strictObject({
      versao_catalogo: int.meta({ description: "the catalog's versao the preview was computed against" }),
      registros: int.meta({
        description: 'valid records, one per id_externo: novos + alterados + inalterados + reativados',
      }),
      novos: int,
      alterados: int,
      inalterados: int,
      reativados: int,
      vinculados: int,
      desvinculados: int,
      desativados: int,
      lotes_faltantes: z.array(int).meta({ description: 'numbers from 1 to total_lotes that never arrived' }),
      total_erros: int,
      erros: z
        .array(IngestionRecordError)
        .meta({ description: 'one page of the record errors, in batch then item order' }),
      proximo_cursor: z
        .string()
        .nullable()
        .meta({ description: 'pass it as cursor for the next page of erros; null on the last page' }),
    }),
    "The spec does not show the preview's payload (docs/batch-ingestion.md defines each count).",
  ),
  'What the application would do, as validated.',
);

export const Ingestion = component(
  'Ingestion',
  choice(
    z.strictObject({
      id: uuid,
      estado,
      operacao: oneOf(['mesclar', 'substituicao_catalogo', 'substituicao_integral']),
      catalogo_id: uuid,
      referencia_externa: z.string().nullable(),
      criada_em: dateTime,
      atualizada_em: dateTime,
      versao: int,
      versao_catalogo: int.meta({ description: "the catalog's versao when the ingestion started" }),
      expira_em: dateTime.nullable().meta({
        description: 'when an aberta or validada ingestion expires unless it changes; null in the other states',
      }),
      lotes_recebidos: z.array(int).meta({ description: 'the numbers of the batches received, ascending' }),
      itens_recebidos: int,
      total_lotes: int.nullable().meta({ description: 'as the close gave it; null before' }),
      codigo_falha: z.string().nullable(),
      aplicacao: z
        .strictObject({ versao_catalogo: int, aplicada_em: dateTime })
        .nullable()
        .meta({ description: 'the application, once aplicada' }),
      previa: IngestionPreview.nullable().meta({ description: 'null until validated' }),
    }),
    'The spec does not show the payload of an ingestion (docs/batch-ingestion.md describes it).',
  ),
  "An ingestion and its preview, with one page of the preview's record errors; answered with its ETag.",
);
