/**
 * The shape of a state snapshot (GET/PUT /_emulator/state, emu.snapshot()/restore()) and the whole check a
 * restore makes before it replaces anything (readSnapshot): every field's own rule here, in the schema; what
 * must hold between records in checkIntegrity (src/core/snapshot.ts); what the clock must know in its
 * loadProblem. A snapshot that passes can be imported and served without an error of the emulator's own.
 */
import * as z from 'zod';
import {
  EARLIEST_INSTANT,
  LATEST_INSTANT,
  MAX_ADVANCE_MS,
  MIN_PERIOD_MS,
  withinClockBounds,
  type TaskData,
} from '../clock/clock.js';
import { isValidCnpj } from '../core/cnpj.js';
import { PERMISSIONS } from '../core/companies.js';
import { MAX_BATCHES, MAX_ITEMS_PER_BATCH } from '../core/ingestion/ingestions.js';
import { JOBS } from '../core/jobs.js';
import { ATTRIBUTE_PATTERN, NCM_PATTERN } from '../core/regulatory/snapshot.js';
import { FINDING_TYPES } from '../core/regulatory/rules.js';
import {
  checkIntegrity,
  checkTaskSubjects,
  plainCopy,
  type IntegrityProblem,
  type StateData,
} from '../core/snapshot.js';
import { sharedAcross, type CompanyData } from '../core/company-data.js';
import type { Analysis } from '../core/analyses.js';
import type { Catalog } from '../core/catalogs.js';
import { REJECTION_CODE_VALUES, type CnpjCorrection } from '../core/cnpj-corrections.js';
import type { Company, Credential } from '../core/companies.js';
import type { Establishment } from '../core/establishments.js';
import type { IdempotencyEntry } from '../core/idempotency.js';
import type { Ingestion } from '../core/ingestion/ingestions.js';
import type { Product } from '../core/products.js';
import type { ReferenceData } from '../core/regulatory/reference.js';
import type { Finding } from '../core/regulatory/rules.js';
import type { Evaluation, Execution, WatchedFinding } from '../core/surveillance-executions.js';
import type { SurveillanceData } from '../core/surveillance.js';
import { isoString } from '../core/time.js';
import type { WebhookDestination } from '../core/webhooks/destination.js';
import type { DeliveryAttempt, WebhookEvent } from '../core/webhooks/events.js';
import { SECRET_PREFIX } from '../core/webhooks/destination.js';
import { EVENT_KINDS, TASK_ATTEMPT, TASK_ATTEMPT_TIMEOUT, TASK_RESPONSE } from '../core/webhooks/events.js';
import { webhookUrl } from '../http/schemas.js';
import { fromEarlierFormat } from '../http/stored-answers.js';
import { COUNT_MAX, FAST_LISTS, isHappened } from './snapshot-records.js';
import { ID_PATTERN } from '../core/random.js';

/** Drops `readonly` at every depth: the core's records are readonly, what a schema parses is not. */
type Writable<T> = T extends object ? { -readonly [K in keyof T]: Writable<T[K]> } : T;
/** Whether each of A and B is assignable to the other, readonly aside: no field missing or extra on either side, none typed otherwise. */
export type Same<A, B> = [Writable<A>] extends [Writable<B>]
  ? [Writable<B>] extends [Writable<A>]
    ? true
    : false
  : false;

/**
 * The schema of a core type T: `schemaOf<Product>()(z.strictObject({ … }))` compiles only when what the schema
 * parses is T, both ways: a field T gains that the schema lacks, one the schema has that T lacks, or one typed
 * otherwise (a wider or narrower type, nullable or not, optional or not) leaves the call without its required
 * second argument. The schema is returned as it is, so it can still be extended or piped.
 */
export const schemaOf =
  <T>() =>
  <S extends z.ZodType>(
    schema: S,
    ..._differs: Same<z.output<S>, T> extends true ? [] : [schemaDiffersFromCoreType: never]
  ): S =>
    schema;

/** A whole number of a snapshot: a version, a position, a count (at most COUNT_MAX, room to add to it). */
const int = z.number().int().min(0).max(COUNT_MAX);
/** Every instant is formatted as an ISO date-time and moves the clock: it must be one the clock can hold. */
/** `now`: an instant the clock can be at. */
const clockInstant = z
  .number()
  .refine(
    withinClockBounds,
    `must be an instant the clock can hold: whole Unix milliseconds from ${isoString(EARLIEST_INSTANT)} to ${isoString(LATEST_INSTANT)}`,
  );
/**
 * Any other instant of a snapshot. What is due later (the next daily run, a delivery's deadline, an expiry) may
 * fall past the clock's last instant when the clock is near it, so an emulator's own snapshot holds such instants:
 * they are allowed up to one longest advance past the end, far inside the Date range, so no arithmetic on them
 * leaves it. A task due past the end never runs.
 */
const LATEST_RECORDED_INSTANT = LATEST_INSTANT + MAX_ADVANCE_MS;
const instant = z
  .number()
  .refine(
    (value) => Number.isInteger(value) && value >= EARLIEST_INSTANT && value <= LATEST_RECORDED_INSTANT,
    `must be whole Unix milliseconds from ${isoString(EARLIEST_INSTANT)} to ${isoString(LATEST_RECORDED_INSTANT)}`,
  );
/**
 * When something happened (created, changed, started, ended, decided): at the clock's now then, so within the
 * clock's bounds — and so an ISO date-time of four-digit years, as the API presents it. Only what is due later
 * may lie past the end (`instant`).
 */
const happened = z
  .number()
  .refine(
    isHappened,
    `must be whole Unix milliseconds from ${isoString(EARLIEST_INSTANT)} to ${isoString(LATEST_INSTANT)}: when something happened, the clock could hold it`,
  );
/**
 * A deadline the API shows as a date-time (an ingestion's `expira_em`): within the clock's range too, since a
 * year past 9999 has no ISO 8601 date-time of four digits. (A clock within a day of its end would set one past it:
 * its snapshot is then refused, a known limit at the end of time.)
 */
const shownDeadline = z
  .number()
  .refine(
    (value) => Number.isInteger(value) && withinClockBounds(value),
    `must be whole Unix milliseconds from ${isoString(EARLIEST_INSTANT)} to ${isoString(LATEST_INSTANT)}: the API shows it as a date-time`,
  );
/** Every id the emulator hands out is a lowercase UUID; ids travel in paths, Location headers and delivery headers. */
const id = z.string().regex(ID_PATTERN, 'must be an id of this emulator: a lowercase UUID');
const nullableText = z.string().nullable();
const cnpj = z
  .string()
  .refine(isValidCnpj, 'must be a valid CNPJ: 12 characters of A-Z and 0-9, then its 2 check digits');
/** Positions are handed out one by one from `sequence`: it stays far below the largest exact integer, so every later one is exact too. */
const MAX_SEQUENCE = 2 ** 52;

/** Text that must parse as a JSON object: what a delivery sends, and what a replay (or the event detail) splices in. */
const jsonObjectText = (what: string) =>
  z.string().refine((text) => {
    try {
      const value: unknown = JSON.parse(text);
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    } catch {
      return false;
    }
  }, `must be the JSON text of an object, as ${what} is`);

const attributes = z.array(z.strictObject({ codigo: z.string(), valores: z.array(z.string()) }));

const company = schemaOf<Company>()(
  z.strictObject({
    id,
    cnpjRoot: z.string().regex(/^\d{8}$/),
    name: z.string(),
    subscriptionActive: z.boolean(),
    surveillanceEntitled: z.boolean(),
    surveillanceCapacity: int,
    analysisAllowance: int,
    headOfficeId: id,
    createdAt: happened,
  }),
);
/** A token travels as `Authorization: Bearer <token>`: visible ASCII, no spaces. */
const token = z
  .string()
  .regex(/^[\x21-\x7e]+$/, 'must be a credential token: visible ASCII without spaces, as a Bearer header carries it');
const credential = schemaOf<Credential>()(
  z.strictObject({ token, companyId: id, permissions: z.array(z.enum(PERMISSIONS)), createdAt: happened }),
);
const establishment = schemaOf<Establishment>()(
  z.strictObject({
    id,
    companyId: id,
    cnpj,
    nome: z.string(),
    estado: z.enum(['ativo', 'arquivado']),
    versao: int,
    catalogoId: id.nullable(),
    idExterno: nullableText,
    position: int,
    criadoEm: happened,
    atualizadoEm: happened,
  }),
);
const catalog = schemaOf<Catalog>()(
  z.strictObject({
    id,
    companyId: id,
    establishmentId: id,
    nome: z.string(),
    idExterno: nullableText,
    estado: z.enum(['ativo', 'excluido']),
    versao: int,
    position: int,
    criadoEm: happened,
    atualizadoEm: happened,
    excluidoEm: happened.nullable(),
  }),
);
const product = schemaOf<Product>()(
  z.strictObject({
    id,
    companyId: id,
    idExterno: nullableText,
    origem: z.string(),
    sku: nullableText,
    descricao: nullableText,
    ncm: z.string().regex(NCM_PATTERN),
    atributos: attributes,
    versao: int,
    ativo: z.boolean(),
    catalogos: z.array(id),
    position: int,
    criadoEm: happened,
    atualizadoEm: happened,
  }),
);
/**
 * A stored answer is replayed as it is: `new Response(body, { status, headers })` with its ETag, Location and
 * other headers, then written to the socket. So its status is one the store keeps (2xx) and a Response with a body
 * takes (not 204 or 205), its header values ones Node writes (no CR, LF, NUL or other control character: the
 * store also packs them one a line), its other headers named by HTTP tokens and never the framing headers the
 * server sets for each answer, and its body the JSON object every answer of the service is (the ingestion
 * start's replay reads it).
 */
const STATUS_RULE =
  'must be the status of a stored answer: an integer from 200 to 299 (only successful answers are stored), except 204 and 205, which carry no body';
const storedStatus = z
  .number()
  .int(STATUS_RULE)
  .min(200, STATUS_RULE)
  .max(299, STATUS_RULE)
  .refine((status) => status !== 204 && status !== 205, STATUS_RULE);
const headerValue = z
  .string()
  .regex(
    /^[\t\x20-\x7e\x80-\xff]*$/,
    'must be an HTTP header value: no CR, LF, NUL or other control character but tab',
  );
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FRAMING_HEADERS = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'trailer',
  'te',
  'proxy-connection',
]);
const headers = z.record(z.string(), z.string()).superRefine((record, ctx) => {
  for (const [name, value] of Object.entries(record)) {
    if (!HEADER_NAME.test(name))
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: "must be named by an HTTP token (letters, digits and !#$%&'*+-.^_`|~)",
      });
    else if (FRAMING_HEADERS.has(name.toLowerCase()))
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: 'is a framing header, which the server sets for each answer: a stored answer cannot carry it',
      });
    else if (!headerValue.safeParse(value).success)
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: 'must be an HTTP header value: no CR, LF, NUL or other control character but tab',
      });
  }
});
const storedBody = jsonObjectText('every answer of the service');
const storedAnswer = schemaOf<IdempotencyEntry>()(
  z.strictObject({
    companyId: id,
    key: z.string(),
    fingerprint: z
      .string()
      .regex(/^[A-Za-z0-9_-]{22}$/, "a fingerprint is the request's digest: 22 characters of base64url"),
    expiresAt: instant,
    status: storedStatus,
    body: storedBody,
    etag: headerValue.nullable(),
    location: headerValue.nullable(),
    headers: headers.nullable(),
  }),
);
/** A stored answer of a snapshot taken before the store kept a digest of the fingerprint: converted, so it still replays. */
const earlierStoredAnswer = z
  .strictObject({
    companyId: id,
    key: z.string(),
    fingerprint: z.string(),
    response: z.strictObject({ status: storedStatus, headers, body: storedBody }),
    storedAt: happened,
    expiresAt: instant,
  })
  .transform(fromEarlierFormat)
  .pipe(storedAnswer);
/** Either form, told apart by `response` (only the earlier has it), so a refusal names the field that is wrong. */
const idempotency = z.unknown().transform((value, ctx) => {
  const parsed = (
    typeof value === 'object' && value !== null && 'response' in value ? earlierStoredAnswer : storedAnswer
  ).safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues)
    ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path, input: issue.input });
  return z.NEVER;
});

const webhookSecret = z
  .string()
  .startsWith(SECRET_PREFIX, `must be a webhook secret: "${SECRET_PREFIX}" and its random part`)
  .min(SECRET_PREFIX.length + 1, `must be a webhook secret: "${SECRET_PREFIX}" and its random part`);
const destination = schemaOf<WebhookDestination>()(
  z.strictObject({
    id,
    companyId: id,
    versao: int,
    estado: z.enum(['ativo', 'revogado']),
    url: webhookUrl,
    secret: webhookSecret,
    // Absent from the snapshots of earlier versions, which did not keep it.
    previousSecret: webhookSecret.nullable().default(null),
    criadoEm: happened,
    atualizadoEm: happened,
  }),
);
const httpStatus = z.number().int().min(100).max(999);
const attempt = schemaOf<DeliveryAttempt>()(
  z.strictObject({
    tentativa: int.min(1),
    ciclo: int.min(1),
    destinoVersao: int.nullable(),
    estado: z.enum(['iniciada', 'entregue', 'falhou', 'incerta']),
    iniciadaEm: happened,
    terminadaEm: happened.nullable(),
    codigoFalha: z.string().nullable(),
    statusHttp: httpStatus.nullable(),
  }),
);
/** An event is recorded only against its company's destination (spec CONV-09, WH-EVT-01: `destino_id` and `destino_versao` are never null). */
const eventDestination =
  "every webhook event is recorded against its company's destination: destinoId and destinoVersao must be set (null is not allowed)";
const webhookEvent = schemaOf<WebhookEvent>()(
  z
    .strictObject({
      id,
      companyId: id,
      tipo: z.enum(EVENT_KINDS),
      ocorridoEm: happened,
      criadoEm: happened,
      body: jsonObjectText('the envelope a delivery sends'),
      destinoId: z.string(eventDestination).pipe(id),
      destinoVersao: z.number(eventDestination).int().min(0),
      estado: z.enum(['pendente', 'executando', 'entregue', 'falhou', 'cancelado']),
      ciclo: int.min(1),
      prazoEm: instant,
      terminadoEm: happened.nullable(),
      proximaTentativaEm: instant.nullable(),
      codigoFalha: z.string().nullable(),
      statusHttp: httpStatus.nullable(),
      attempts: z.array(attempt),
      position: int,
    })
    .refine(
      // The detail splices the body in as `evento`, and deliveries send it: it must be this event's envelope (spec
      // "Events › Envelope"), whatever else an edited snapshot changed.
      (e) => isEnvelopeOf(e.body, e.id),
      {
        message:
          "body must be the event's envelope: a JSON object of exactly id (this event's), versao, empresa, ocorridoEm and dados",
        path: ['body'],
      },
    ),
);
const ENVELOPE_FIELDS = ['dados', 'empresa', 'id', 'ocorridoEm', 'versao'].join();
function isEnvelopeOf(body: string, eventId: string): boolean {
  try {
    const envelope = JSON.parse(body) as Record<string, unknown>;
    return Object.keys(envelope).sort().join() === ENVELOPE_FIELDS && envelope.id === eventId;
  } catch {
    return false;
  }
}
const cnpjCorrection = schemaOf<CnpjCorrection>()(
  z.strictObject({
    id,
    companyId: id,
    establishmentId: id,
    cnpjNovo: cnpj,
    motivo: z.string(),
    versaoEsperada: int,
    estado: z.enum(['pendente', 'aprovada', 'rejeitada']),
    codigoRejeicao: z.enum(REJECTION_CODE_VALUES).nullable(),
    criadoEm: happened,
    decididoEm: happened.nullable(),
    position: int,
  }),
);
const finding = schemaOf<Finding>()(
  z.strictObject({
    produto_id: id,
    ncm: z.string().regex(NCM_PATTERN),
    tipo: z.enum(FINDING_TYPES.map((t) => t.tipo)),
    detalhe: z.string(),
    avaliado_em: happened,
    snapshot_id: z.string(),
  }),
);
const analysis = schemaOf<Analysis>()(
  z
    .strictObject({
      id,
      companyId: id,
      estado: z.enum(['pendente', 'executando', 'concluida', 'falhou']),
      criadaEm: happened,
      iniciadaEm: happened.nullable(),
      terminadaEm: happened.nullable(),
      codigoFalha: z.string().nullable(),
      snapshotId: z.string().nullable(),
      produtosAvaliados: int.nullable(),
      findings: z.array(finding).nullable(),
      position: int,
    })
    .refine(
      // The summary (GET /v1/analises/{id} resumo) is built of the three together: a concluded analysis has all of them.
      (a) =>
        (a.findings === null) === (a.snapshotId === null) && (a.findings === null) === (a.produtosAvaliados === null),
      {
        message: 'findings, snapshotId and produtosAvaliados are set together (a concluded analysis) or are all null',
        path: ['findings'],
      },
    ),
);
const watchedFinding = schemaOf<WatchedFinding>()(finding.extend({ reaproveitado: z.boolean() }));
const execution = schemaOf<Execution>()(
  z
    .strictObject({
      id,
      companyId: id,
      motivo: z.enum(['agendada', 'publicacao']),
      estado: z.enum(['pendente', 'executando', 'concluida', 'falhou']),
      criadaEm: happened,
      iniciadaEm: happened.nullable(),
      terminadaEm: happened.nullable(),
      codigoFalha: z.string().nullable(),
      snapshotId: z.string().nullable(),
      produtosAvaliados: int.nullable(),
      reaproveitados: int.nullable(),
      findings: z.array(watchedFinding).nullable(),
      divergente: z.boolean().nullable(),
      position: int,
    })
    .refine(
      // The summary (GET /v1/vigilancias/{id} resumo) is built of the five together, as its conclusion sets them.
      (e) =>
        [e.snapshotId, e.produtosAvaliados, e.reaproveitados, e.divergente].every(
          (field) => (field === null) === (e.findings === null),
        ),
      {
        message:
          'findings, snapshotId, produtosAvaliados, reaproveitados and divergente are set together (a concluded execution) or are all null',
        path: ['findings'],
      },
    ),
);
const evaluation = schemaOf<Evaluation>()(
  z.strictObject({ versao: int, fingerprint: z.string(), findings: z.array(finding) }),
);
const ingestionRecord = z.strictObject({
  idExterno: z.string(),
  origem: z.string(),
  ncm: z.string().regex(NCM_PATTERN),
  sku: nullableText,
  descricao: nullableText,
  atributos: attributes,
});
const recordError = z.strictObject({
  lote: int,
  indice: int,
  caminho: z.string(),
  codigo: z.string(),
  mensagem: z.string(),
});
/** Batch numbers and counts within the ingestion limits: validation walks every number up to total_lotes. */
const batchNumber = z.number().int().min(1).max(MAX_BATCHES);
const ingestion = schemaOf<Ingestion>()(
  z.strictObject({
    id,
    companyId: id,
    catalogId: id,
    operacao: z.enum(['mesclar', 'substituicao_catalogo', 'substituicao_integral']),
    referenciaExterna: nullableText,
    estado: z.enum([
      'aberta',
      'validando',
      'validada',
      'rejeitada',
      'aplicando',
      'aplicada',
      'revisao_necessaria',
      'falhou',
      'expirada',
    ]),
    versao: int,
    versaoCatalogo: int,
    criadaEm: happened,
    atualizadaEm: happened,
    expiraEm: shownDeadline.nullable(),
    totalLotes: batchNumber.nullable(),
    lotesRecebidos: z.array(batchNumber),
    itensRecebidos: int.max(MAX_BATCHES * MAX_ITEMS_PER_BATCH),
    batches: z.array(
      z.strictObject({
        numero: batchNumber,
        content: z.string(),
        records: z.array(ingestionRecord.nullable()),
        errors: z.array(recordError),
      }),
    ),
    preview: z
      .strictObject({
        versaoCatalogo: int,
        registros: int,
        novos: int,
        alterados: int,
        inalterados: int,
        reativados: int,
        vinculados: int,
        desvinculados: int,
        desativados: int,
        lotesFaltantes: z.array(int),
        erros: z.array(recordError),
      })
      .nullable(),
    plan: z
      .strictObject({
        catalogVersao: int,
        records: z.array(
          z.strictObject({
            record: ingestionRecord,
            action: z.enum(['novo', 'alterado', 'inalterado', 'reativado']),
            productId: id.nullable(),
            productVersao: int.nullable(),
            link: z.boolean(),
          }),
        ),
        removals: z.array(z.strictObject({ productId: id, productVersao: int, deactivate: z.boolean() })),
      })
      .nullable(),
    aplicacao: z.strictObject({ versaoCatalogo: int, aplicadaEm: happened }).nullable(),
    codigoFalha: z.string().nullable(),
    position: int,
  }),
);
const surveillance = schemaOf<SurveillanceData>()(
  z.strictObject({
    companyId: id,
    modo: z.enum(['selecao', 'todos']),
    versao: int,
    selected: z.array(z.tuple([id, int])),
    lastCoverage: z.enum(['indisponivel', 'sem_selecao', 'parcial', 'integral', 'capacidade_excedida']),
  }),
);
const reference = schemaOf<ReferenceData>()(
  z.strictObject({
    // The next publication takes the next number: it must stay an exact integer.
    id: z.string().regex(/^ref-\d{4,15}$/, 'must be a reference id: "ref-" and 4 to 15 digits'),
    publicadoEm: happened,
    table: z
      .strictObject({
        id: z.string(),
        publicadoEm: z.string(),
        ncms: z.array(
          z.strictObject({
            codigo: z.string().regex(NCM_PATTERN),
            descricao: z.string(),
            extinta: z.boolean(),
            extintaDesde: z
              .string()
              .regex(/^\d{4}-\d{2}-\d{2}$/)
              .nullable(),
            obrigatorios: z.array(z.string()),
          }),
        ),
        atributos: z.array(
          z.strictObject({
            codigo: z.string().regex(ATTRIBUTE_PATTERN),
            nome: z.string(),
            dominio: z.array(z.string()).nullable(),
          }),
        ),
      })
      .nullable(),
  }),
);
const task = z.strictObject({
  due: instant,
  kind: z.string(),
  owner: id.nullable(),
  payload: z.unknown().optional(),
  everyMs: z
    .number()
    .int()
    .min(MIN_PERIOD_MS, `must be a period of at least ${MIN_PERIOD_MS} ms`)
    .max(LATEST_INSTANT - EARLIEST_INSTANT, "must be a period within the clock's range")
    .optional(),
});
const uint32 = z.number().int().min(0).max(0xffffffff);

/**
 * The payload each kind's handler reads, for the kinds that take one (every other kind takes none). The
 * delivery response carries the network outcome the core classifies: an unknown one would break it.
 */
const subject = (key: string) => z.strictObject({ [key]: id });
const TASK_PAYLOADS: ReadonlyMap<string, z.ZodType> = new Map<string, z.ZodType>([
  // A job's task names its record (the registry says which key); the periodic jobs take none.
  ...JOBS.flatMap((job): [string, z.ZodType][] =>
    job.subject === undefined ? [] : [[job.task, subject(job.subject)]],
  ),
  [TASK_ATTEMPT, z.strictObject({ eventId: id, ciclo: int.min(1) })],
  [TASK_ATTEMPT_TIMEOUT, z.strictObject({ eventId: id, tentativa: int.min(1) })],
  [
    TASK_RESPONSE,
    z.union([
      z.strictObject({
        eventId: id,
        tentativa: int.min(1),
        kind: z.enum(['response', 'incomplete']),
        status: httpStatus,
      }),
      z.strictObject({
        eventId: id,
        tentativa: int.min(1),
        kind: z.enum(['refused', 'unreachable', 'reset', 'timeout']),
      }),
    ]),
  ],
]);

const stateSchema = schemaOf<StateData>()(
  z.strictObject({
    sequence: int.max(MAX_SEQUENCE, `must be at most ${MAX_SEQUENCE}`),
    companies: z.array(company),
    credentials: z.array(credential),
    establishments: z.array(establishment),
    catalogs: z.array(catalog),
    products: z.array(product),
    links: z.array(z.tuple([id, id, int])),
    idempotency: z.array(idempotency),
    webhookDestinations: z.array(destination),
    webhookEvents: z.array(webhookEvent),
    cnpjCorrections: z.array(cnpjCorrection),
    analyses: z.array(analysis),
    executions: z.array(execution),
    ingestions: z.array(ingestion),
    evaluations: z.array(z.tuple([id, z.array(z.tuple([id, evaluation]))])),
    analysisUnitsUsed: z.array(z.tuple([id, int])),
    surveillance: z.array(surveillance),
    regulatory: reference,
    webhookSends: z.array(z.tuple([id, z.array(instant)])),
    // Absent from snapshots taken before companies kept their creation: such a company cannot be reset alone.
    origins: z.array(z.strictObject({ company, headOffice: establishment, credential })).default([]),
  }),
);

/** One company's records (emu.companies.snapshot): a state's without the regulatory reference, which is no company's. */
const companyStateSchema = schemaOf<CompanyData>()(stateSchema.omit({ regulatory: true }));

export const companySnapshotSchema = z.strictObject({
  format: z.literal('catalog-emulator/company'),
  version: z.literal(1),
  companyId: id,
  /** The clock's now when it was taken (the company's own clock, for a company on one): informative. */
  now: clockInstant,
  tasks: z.array(task),
  state: companyStateSchema,
});

export type CompanySnapshot = z.infer<typeof companySnapshotSchema>;

/** A company on a clock of its own: its world (state, clock and random sources), beside the shared one. */
const ownClockSchema = z.strictObject({
  companyId: id,
  now: clockInstant,
  random: z.tuple([uint32, uint32, uint32, uint32]),
  requestRandom: z.tuple([uint32, uint32, uint32, uint32]),
  tasks: z.array(task),
  state: stateSchema,
});

export const snapshotSchema = z.strictObject({
  format: z.literal('catalog-emulator/state'),
  version: z.literal(1),
  seed: z.union([z.number(), z.string()]),
  now: clockInstant,
  random: z.tuple([uint32, uint32, uint32, uint32]),
  requestRandom: z.tuple([uint32, uint32, uint32, uint32]),
  tasks: z.array(task),
  state: stateSchema,
  /** Present only when some company is on a clock of its own. */
  ownClocks: z.array(ownClockSchema).optional(),
});

export type Snapshot = z.infer<typeof snapshotSchema>;

/** The schema of one item of each slice's data (a record, a link, a company's allowance taken, …), by slice key. */
const ITEMS: ReadonlyMap<string, z.ZodType> = new Map(
  Object.entries(stateSchema.shape).flatMap(([key, schema]): [string, z.ZodType][] => {
    const list = schema instanceof z.ZodDefault ? schema.unwrap() : schema;
    return list instanceof z.ZodArray ? [[key, list.element as z.ZodType]] : [];
  }),
);

/**
 * One change of a world as emu.changes tells it (WorldChange, src/engine/changes.ts): each field by the rule the
 * snapshot's schema has for it. A record change's items are checked by their slice's schema afterwards
 * (`recordItem`), so that a refusal names the item.
 */
const worldChangeSchema = z.strictObject({
  companyId: id.nullable(),
  now: clockInstant,
  random: z.tuple([uint32, uint32, uint32, uint32]),
  requestRandom: z.tuple([uint32, uint32, uint32, uint32]),
  world: z.strictObject({ tasks: z.array(task), state: stateSchema }).optional(),
  records: z.array(z.tuple([z.string(), z.string(), z.array(z.unknown()), z.boolean()])).optional(),
  sequence: stateSchema.shape.sequence.optional(),
  regulatory: reference.optional(),
  tasks: z.array(z.union([z.tuple([z.enum(['+', '-']), task]), z.tuple([z.literal('0')])])).optional(),
});

/**
 * An entry of a change log: a change as emu.changes tells it (a reset or a restore, told as `replaced`, is a whole
 * snapshot instead), with the wall-clock time it was written at when the log keeps one (`at`, Unix ms).
 */
export const changeEntrySchema = z.strictObject({
  kind: z.literal('changed'),
  at: z.number().int().min(0).optional(),
  worlds: z.array(worldChangeSchema),
  dropped: z.array(id),
});

export type ChangeEntry = z.infer<typeof changeEntrySchema>;

/** What is wrong with a value a schema refused: the first problem, where it is (from the value's root) and what it is. */
export interface Problem {
  readonly path: readonly (string | number)[];
  readonly problem: string;
}

/** The first problem of a failed parse. */
export function problemOf(error: z.ZodError): Problem {
  const issue = error.issues[0];
  if (!issue) return { path: [], problem: 'invalid' };
  return {
    path: [
      ...(issue.path as (string | number)[]),
      ...(issue.code === 'unrecognized_keys' ? issue.keys.slice(0, 1) : []),
    ],
    problem: issue.message,
  };
}

/** An item of slice `slice`'s data checked (and, for an answer stored in the earlier format, converted), or its problem. */
export function recordItem(
  slice: string,
  item: unknown,
): { ok: true; item: unknown } | { ok: false; problem: Problem } {
  const schema = ITEMS.get(slice);
  if (!schema)
    return { ok: false, problem: { path: [], problem: `"${slice}" is not a kind of record of this emulator's state` } };
  const parsed = schema.safeParse(item);
  return parsed.success ? { ok: true, item: parsed.data } : { ok: false, problem: problemOf(parsed.error) };
}

/** A refused snapshot: what is wrong and where (`path` from the snapshot's root). A TypeError, as every refused control input. */
export class SnapshotError extends TypeError {
  constructor(
    message: string,
    readonly path: readonly (string | number)[],
  ) {
    super(message);
    this.name = 'SnapshotError';
  }
}

const dotted = (path: readonly PropertyKey[]): string => path.map(String).join('.') || '(root)';

function shapeError(issue: z.core.$ZodIssue | undefined, prefix: readonly (string | number)[] = []): SnapshotError {
  if (!issue) return new SnapshotError('Not a snapshot of this emulator: invalid', [...prefix]);
  const path = [
    ...prefix,
    ...(issue.path as (string | number)[]),
    ...(issue.code === 'unrecognized_keys' ? issue.keys.slice(0, 1) : []),
  ];
  return new SnapshotError(`Not a snapshot of this emulator: ${dotted(path)}: ${issue.message}`, path);
}

const inconsistent = (path: readonly (string | number)[], problem: string): SnapshotError =>
  new SnapshotError(`Not a consistent snapshot: ${dotted(path)}: ${problem}`, path);

/** The lists of a state the fast path checks and copies by hand (snapshot-records.ts), by key. */
type FastLists = Record<keyof typeof FAST_LISTS, unknown>;
const FAST_KEYS = Object.keys(FAST_LISTS) as (keyof typeof FAST_LISTS)[];

/**
 * An object whose enumerable keys are all its own (a plain object's, or one without a prototype): a shallow copy
 * of it (`{ ...value }`) shows the schema what it would find in it.
 */
const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/**
 * A shallow copy of a world (an object with a `state`) whose state has its fast lists set aside into `aside` and
 * left empty for the schema; undefined when it has no such state. Each value is read once, so what the fast path
 * checks is what the schema parses.
 */
function setAside(world: unknown, aside: FastLists[]): Record<string, unknown> | undefined {
  if (!isPlainObject(world)) return undefined;
  const light = { ...world };
  if (!isPlainObject(light.state)) return undefined;
  const state = { ...light.state };
  const lists = {} as FastLists;
  for (const key of FAST_KEYS) {
    if (!Object.hasOwn(state, key)) return undefined;
    lists[key] = state[key];
    state[key] = [];
  }
  aside.push(lists);
  light.state = state;
  return light;
}

/**
 * The snapshot as `schema` would parse it (snapshotSchema, with `ownClocks`, or companySnapshotSchema), the fast
 * way: the schema parses all but each world's fast lists, which the fast path checks and copies. Undefined when
 * either finds anything wrong (or unusual), so that the schema then parses the whole snapshot and names the
 * problem exactly as it always did. Exported for the test that holds it to the schema's parse.
 */
export function parseFast<
  T extends { state: Record<string, unknown>; ownClocks?: { state: Record<string, unknown> }[] },
>(schema: z.ZodType<T>, input: unknown, ownClocks: boolean): T | undefined {
  const aside: FastLists[] = [];
  const light = setAside(input, aside);
  if (!light) return undefined;
  if (ownClocks && light.ownClocks !== undefined) {
    if (!Array.isArray(light.ownClocks)) return undefined;
    const worlds: unknown[] = light.ownClocks;
    const own: unknown[] = [];
    for (let i = 0; i < worlds.length; i++) {
      const lighter = setAside(worlds[i], aside);
      if (!lighter) return undefined;
      own.push(lighter);
    }
    light.ownClocks = own;
  }
  const parsed = schema.safeParse(light);
  if (!parsed.success) return undefined;
  const states = [parsed.data.state, ...(parsed.data.ownClocks ?? []).map((world) => world.state)];
  for (const [i, state] of states.entries()) {
    for (const key of FAST_KEYS) {
      const copies = FAST_LISTS[key](aside[i]![key]);
      if (!copies) return undefined;
      state[key] = copies;
    }
  }
  return parsed.data;
}

/** The snapshot parsed by the schema, or the SnapshotError of its first problem. */
function parseWhole<T>(schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw shapeError(parsed.error.issues[0]);
  return parsed.data;
}

/**
 * The whole check of a snapshot to restore, in order: its shape and every field (the schema); each task against
 * the clock (`loadProblem`: a known kind, repeating only if a deadline) and its payload against its kind's; then
 * what must hold between records and tasks. Throws a SnapshotError naming the first problem; returns the data
 * otherwise, as a copy that shares nothing with `input` (the caller may change it later). Reads nothing but its
 * input, so a refusal changes nothing.
 */
export function readSnapshot(
  input: unknown,
  loadProblem: (task: TaskData) => { readonly field: string; readonly problem: string } | undefined,
): Snapshot {
  const snapshot = parseFast(snapshotSchema, input, true) ?? parseWhole(snapshotSchema, input);
  checkWorld(snapshot, [], loadProblem);
  for (const [i, own] of (snapshot.ownClocks ?? []).entries()) {
    checkWorld(own, ['ownClocks', i], loadProblem);
    const companies = own.state.companies;
    if (companies.length !== 1 || companies[0]!.id !== own.companyId) {
      throw inconsistent(
        ['ownClocks', i, 'state', 'companies'],
        `the world of a company on a clock of its own holds that company (${own.companyId}) and no other`,
      );
    }
  }
  const unique = acrossWorlds(snapshot);
  if (unique) throw inconsistent(unique.path, unique.problem);
  return snapshot;
}

/**
 * What a company's snapshot (PUT /_emulator/companies/{id}/state) must be on its own, before the emulator checks
 * its records beside the other companies' (companyProblem, src/core/company-data.ts): the shape, the company it is
 * of (`companyId`), each task against the clock and its payload, every task of that company and naming its
 * records. Throws a SnapshotError naming the first problem; reads nothing but its input.
 */
export function readCompanySnapshot(
  input: unknown,
  companyId: string,
  loadProblem: (task: TaskData) => { readonly field: string; readonly problem: string } | undefined,
): CompanySnapshot {
  const snapshot = parseFast(companySnapshotSchema, input, false) ?? parseWhole(companySnapshotSchema, input);
  if (snapshot.companyId !== companyId)
    throw inconsistent(['companyId'], `this is a snapshot of company ${snapshot.companyId}, not of ${companyId}`);
  checkTasks(snapshot.tasks, [], loadProblem);
  for (const [i, t] of snapshot.tasks.entries())
    if (t.owner !== companyId)
      throw inconsistent(['tasks', i, 'owner'], `a company's snapshot holds only its own tasks (of ${companyId})`);
  const taskProblem = checkTaskSubjects(snapshot.state, snapshot.tasks);
  if (taskProblem) throw inconsistent(['tasks', ...taskProblem.path], taskProblem.problem);
  return snapshot;
}

/** A company's records refused beside the others' (companyProblem): the SnapshotError of its path in the snapshot. */
export const companyStateError = (problem: IntegrityProblem): SnapshotError =>
  inconsistent(['state', ...problem.path], problem.problem);

/** Each task against the clock (a known kind, repeating only if a deadline) and its payload against its kind's. */
function checkTasks(
  tasks: Snapshot['tasks'],
  at: readonly (string | number)[],
  loadProblem: (task: TaskData) => { readonly field: string; readonly problem: string } | undefined,
): void {
  for (const [i, t] of tasks.entries()) {
    const clock = loadProblem(t);
    if (clock)
      throw new SnapshotError(
        `Not a snapshot of this emulator: ${dotted([...at, 'tasks', i, clock.field])}: ${clock.problem}`,
        [...at, 'tasks', i, clock.field],
      );
    const payload = (TASK_PAYLOADS.get(t.kind) ?? z.undefined(`a "${t.kind}" task takes no payload`)).safeParse(
      t.payload,
    );
    if (!payload.success) throw shapeError(payload.error.issues[0], [...at, 'tasks', i, 'payload']);
    // The schema leaves a payload as it found it (the caller's): a copy, in its own order of keys.
    if (t.payload !== undefined) t.payload = plainCopy(t.payload);
  }
}

/** One world's checks: its tasks against the clock and their payloads, then its records and tasks together. */
function checkWorld(
  world: Pick<Snapshot, 'tasks' | 'state'>,
  at: readonly (string | number)[],
  loadProblem: (task: TaskData) => { readonly field: string; readonly problem: string } | undefined,
): void {
  checkTasks(world.tasks, at, loadProblem);
  const problem = checkIntegrity(world.state);
  if (problem) throw inconsistent([...at, 'state', ...problem.path], problem.problem);
  const taskProblem = checkTaskSubjects(world.state, world.tasks);
  if (taskProblem) throw inconsistent([...at, 'tasks', ...taskProblem.path], taskProblem.problem);
}

/** A company id, a CNPJ root, a credential token and every record's id each name one thing on the whole emulator, whatever its clock. */
function acrossWorlds(snapshot: Snapshot): IntegrityProblem | undefined {
  const seen = { id: new Set<string>(), root: new Set<string>(), token: new Set<string>() };
  for (const [i, own] of [snapshot, ...(snapshot.ownClocks ?? [])].entries()) {
    const at = i === 0 ? ['state'] : ['ownClocks', i - 1, 'state'];
    for (const [j, company] of own.state.companies.entries()) {
      if (seen.id.has(company.id))
        return { path: [...at, 'companies', j, 'id'], problem: `company ${company.id} appears in two worlds` };
      if (seen.root.has(company.cnpjRoot))
        return {
          path: [...at, 'companies', j, 'cnpjRoot'],
          problem: `CNPJ root ${company.cnpjRoot} names two companies`,
        };
      seen.id.add(company.id);
      seen.root.add(company.cnpjRoot);
    }
    for (const [j, credential] of own.state.credentials.entries()) {
      // The token itself is not repeated in the message: it is a credential.
      if (seen.token.has(credential.token))
        return { path: [...at, 'credentials', j, 'token'], problem: 'a credential token appears in two worlds' };
      seen.token.add(credential.token);
    }
  }
  // Every other id too (a catalog's, an event's, …): as within one world.
  const shared = sharedAcross([snapshot.state, ...(snapshot.ownClocks ?? []).map((own) => own.state)]);
  if (shared === undefined) return undefined;
  return {
    path: [...(shared.world === 0 ? ['state'] : ['ownClocks', shared.world - 1, 'state']), ...shared.found.path],
    problem: shared.found.problem,
  };
}
