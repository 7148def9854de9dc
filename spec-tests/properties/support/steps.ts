/**
 * The vocabulary of the random call sequences (scenario.ts): the abstract steps, the generators the
 * commands share, and the constants of the wire they use. A step's targets are picks (natural numbers)
 * resolved against what exists when the step runs, so every generated sequence is runnable and shrinks well.
 */
import fc from 'fast-check';

export type Kind = 'establishment' | 'catalog' | 'product';

export interface NameChanges {
  readonly nome?: string;
  readonly id_externo?: string | null;
}

export interface ProductChanges {
  readonly id_externo?: string | null;
  readonly sku?: string | null;
  readonly descricao?: string | null;
  readonly ncm?: string;
  readonly atributos?: readonly { codigo: string; valores: string[] }[];
}

export interface NewProductFields {
  readonly origem: string;
  readonly ncm: string;
  readonly id_externo?: string | null;
  readonly sku?: string | null;
  readonly descricao?: string | null;
  readonly atributos?: readonly { codigo: string; valores: string[] }[];
}

export const BAD_KINDS = [
  'staleEtag',
  'missingIfMatch',
  'missingKey',
  'invalidKey',
  'unknownId',
  'badBody',
  'readOnly',
  'otherCompany',
  'duplicateCnpj',
  'secondCatalog',
  'archiveWithCatalog',
  'duplicateExternalId',
  'invalidCnpj',
  'foreignRoot',
  'reuseKey',
  'statusFault',
  'wrongMethod',
  'unknownRoute',
  'unsupportedMedia',
  'badJson',
  'tooLarge',
  'editArchived',
  'unlinkNotLinked',
  'linkUnknownProduct',
  'ifMatchStar',
  'bothPreconditions',
  'badQuery',
  'badCursor',
  'noCredential',
] as const;
export type BadKind = (typeof BAD_KINDS)[number];

export type Step =
  | { readonly t: 'newEstablishment'; readonly order: string; readonly nome: string; readonly idExterno: string | null }
  | { readonly t: 'newCatalog'; readonly pick: number; readonly nome: string; readonly idExterno: string | null }
  | { readonly t: 'newProduct'; readonly pick: number; readonly fields: NewProductFields }
  | { readonly t: 'editProduct'; readonly pick: number; readonly changes: ProductChanges }
  | { readonly t: 'editCatalog'; readonly pick: number; readonly changes: NameChanges }
  | { readonly t: 'editEstablishment'; readonly pick: number; readonly changes: NameChanges }
  | { readonly t: 'link'; readonly pick: number; readonly pick2: number }
  | { readonly t: 'unlink'; readonly pick: number; readonly pick2: number }
  | { readonly t: 'archive'; readonly pick: number }
  | { readonly t: 'read'; readonly kind: Kind; readonly pick: number }
  | { readonly t: 'list'; readonly kind: Kind; readonly limite: number }
  | { readonly t: 'advance'; readonly ms: number }
  /** A change under a concurrentEdit fault: someone else saves the resource first, so it answers 412. */
  | { readonly t: 'concurrentEdit'; readonly kind: Kind; readonly pick: number }
  | {
      readonly t: 'bad';
      readonly bad: BadKind;
      readonly pick: number;
      readonly pick2: number;
      readonly variant: number;
    }
  /** A batch-ingestion request (docs/batch-ingestion.md), valid or refused; see IngestionAction. */
  | {
      readonly t: 'ingestion';
      readonly action: IngestionAction;
      readonly pick: number;
      readonly pick2: number;
      readonly variant: number;
      readonly records: readonly RecordSpec[];
    };

/** Ingestion steps the contract accepts (each sets up what it needs first: a free catalog, an open ingestion...). */
export const INGESTION_VALID = [
  'start',
  'replayStart',
  'batch',
  'repeatBatch',
  'close',
  'apply',
  'read',
  'tick',
] as const;
/** Ingestion steps the contract refuses, each with the status it must get. */
export const INGESTION_REFUSED = [
  'secondStart', // 409 ingestao_em_andamento
  'noDefaultCatalog', // 422 catalogo_padrao_ausente (only while the head office has no catalog)
  'unknownCatalog', // 404
  'badStart', // 422
  'badStartKey', // 400: the start's own key rule (16–200, no whitespace)
  'reuseStartKey', // 422 idempotencia_reutilizada
  'conflictingBatch', // 409 lote_divergente
  'batchOverLimits', // 422 (numero, itens) or 413 (over 4 MiB)
  'batchAfterClose', // 409 ingestao_fechada
  'inconsistentTotal', // 422 total_lotes_inconsistente
  'badClose', // 422
  'closeClosed', // 409 ingestao_fechada
  'staleApply', // 412
  'applyWithoutIfMatch', // 428
  'applyNotValidated', // 409 ingestao_nao_validada
  'unknownIngestion', // 404
  'foreignIngestion', // 404 (another company's credential)
  'readOnlyIngestion', // 403
  'badIngestionQuery', // 422
] as const;
export type IngestionAction = (typeof INGESTION_VALID)[number] | (typeof INGESTION_REFUSED)[number];

/**
 * One record of a batch, resolved when the step runs: `ref` picks the id_externo (an existing product's, so
 * that records update, leave or reactivate products; or one of a small pool, so that they repeat across
 * ingestions); a `bad` record has an invalid NCM (reported, not refused: the ingestion is then rejected).
 */
export interface RecordSpec {
  readonly ref: number;
  readonly ncm: string;
  readonly bad: boolean;
  readonly sku?: string | null;
  readonly descricao?: string | null;
}

export type StepOf<T extends Step['t']> = Extract<Step, { t: T }>;

// ---------------------------------------------------------------------------------------------------------
// Generators shared by the commands

export const nome = fc.oneof(
  { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 10, unit: 'grapheme' }) },
);
export const externalId = fc.option(fc.string({ minLength: 1, maxLength: 24 }), { nil: null, freq: 3 });
const ncm = fc.stringMatching(/^\d{8}$/);
export const shortText = (max: number) => fc.string({ minLength: 1, maxLength: max });
/** Codes may repeat and values may be empty: the spec forbids neither ("valores: array of 1 to 50 strings"). */
const atributos = fc.array(
  fc.record({
    codigo: fc.oneof(shortText(12), fc.constantFrom('cor', 'tamanho')),
    valores: fc.array(fc.string({ maxLength: 16 }), { minLength: 1, maxLength: 3 }),
  }),
  { maxLength: 4 },
);

export const newProductFields: fc.Arbitrary<NewProductFields> = fc.record(
  {
    origem: shortText(16),
    ncm,
    id_externo: externalId,
    sku: fc.option(shortText(16), { nil: null }),
    descricao: fc.option(shortText(60), { nil: null }),
    atributos,
  },
  { requiredKeys: ['origem', 'ncm'] },
);

export const nameChanges: fc.Arbitrary<NameChanges> = fc
  .record({ nome, id_externo: externalId }, { requiredKeys: [] })
  .filter((c) => c.nome !== undefined || c.id_externo !== undefined);

export const productChanges: fc.Arbitrary<ProductChanges> = fc
  .record(
    {
      id_externo: externalId,
      sku: fc.option(shortText(16), { nil: null }),
      descricao: fc.option(shortText(60), { nil: null }),
      ncm,
      atributos,
    },
    { requiredKeys: [] },
  )
  .filter((c) => Object.keys(c).length > 0);

export const pick = fc.nat({ max: 1000 });
export const kind = fc.constantFrom<Kind>('establishment', 'catalog', 'product');

// ---------------------------------------------------------------------------------------------------------
// The wire

export const KINDS: readonly Kind[] = ['establishment', 'catalog', 'product'];
/** The ingestion states that hold the catalog (docs/batch-ingestion.md: one open ingestion per catalog). */
export const OPEN_INGESTION = ['aberta', 'validando', 'validada', 'aplicando'];
export const OPERACOES = ['mesclar', 'substituicao_catalogo', 'substituicao_integral'] as const;
export const INGESTOES = '/v1/catalogos/ingestoes';
export const ingestionPath = (id: string) => `${INGESTOES}/${id}`;
/** Ingestion estados that never change again (docs/batch-ingestion.md). */
export const FINAL_INGESTION: ReadonlySet<string> = new Set([
  'aplicada',
  'rejeitada',
  'revisao_necessaria',
  'falhou',
  'expirada',
]);
/** The common idempotency-key rule (the ingestion start alone takes 16–200 characters without whitespace). */
export const COMMON_KEY = /^[A-Za-z0-9._:-]{16,128}$/;
export const MiB = 1024 * 1024;
/** Clock moves of the ingestion steps: around a validation or application of a few records, and around the 24 h expiry. */
export const TICKS = [1_000, 1_010, 2_000, 60_000, 24 * 3_600_000 - 1, 24 * 3_600_000, 24 * 3_600_000 + 1];

export const STALE_FALLBACK = '"00000000deadbeef"';
export const UNKNOWN_UUID = '0190a000-0000-7000-8000-00000000dead';
