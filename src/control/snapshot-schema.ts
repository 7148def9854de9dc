/** The shape of a state snapshot (GET/PUT /_emulator/state, emu.snapshot()/restore()), checked on restore. */
import { z } from 'zod';
import { PERMISSIONS } from '../core/companies.js';
import { EVENT_KINDS } from '../core/webhooks/events.js';
import { fromEarlierFormat } from '../http/stored-answers.js';

const int = z.number().int().min(0);
const instant = z.number().int();
const id = z.string().min(1).max(64);
const nullableText = z.string().nullable();

const attributes = z.array(z.strictObject({ codigo: z.string(), valores: z.array(z.string()) }));

const company = z.strictObject({
  id, cnpjRoot: z.string().regex(/^\d{8}$/), name: z.string(), subscriptionActive: z.boolean(), surveillanceEntitled: z.boolean(),
  surveillanceCapacity: int, analysisAllowance: int, headOfficeId: id, createdAt: instant,
});
const credential = z.strictObject({ token: z.string().min(1), companyId: id, permissions: z.array(z.enum(PERMISSIONS)), createdAt: instant });
const establishment = z.strictObject({
  id, companyId: id, cnpj: z.string(), nome: z.string(), estado: z.enum(['ativo', 'arquivado']), versao: int, catalogoId: id.nullable(),
  idExterno: nullableText, position: int, criadoEm: instant, atualizadoEm: instant,
});
const catalog = z.strictObject({
  id, companyId: id, establishmentId: id, nome: z.string(), idExterno: nullableText, estado: z.enum(['ativo', 'excluido']), versao: int,
  position: int, criadoEm: instant, atualizadoEm: instant, excluidoEm: instant.nullable(),
});
const product = z.strictObject({
  id, companyId: id, idExterno: nullableText, origem: z.string(), sku: nullableText, descricao: nullableText, ncm: z.string(),
  atributos: attributes, versao: int, ativo: z.boolean(),
  catalogos: z.array(id), position: int, criadoEm: instant, atualizadoEm: instant,
});
/** What a replay sends back must make a valid answer: a 2xx status, header names that are HTTP tokens, values without line breaks. */
const storedStatus = z.number().int().min(200).max(299);
const headerValue = z.string().regex(/^[^\0\r\n]*$/, 'a header value holds no line break or NUL');
const headers = z.record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/), headerValue);
const storedAnswer = z.strictObject({
  companyId: id, key: z.string(), fingerprint: z.string().regex(/^[A-Za-z0-9_-]{22}$/, "a fingerprint is the request's digest: 22 characters of base64url"),
  expiresAt: instant, status: storedStatus, body: z.string(), etag: headerValue.nullable(), location: headerValue.nullable(), headers: headers.nullable(),
});
/** A stored answer of a snapshot taken before the store kept a digest of the fingerprint: converted, so it still replays. */
const earlierStoredAnswer = z
  .strictObject({
    companyId: id, key: z.string(), fingerprint: z.string(),
    response: z.strictObject({ status: storedStatus, headers, body: z.string() }),
    storedAt: instant, expiresAt: instant,
  })
  .transform(fromEarlierFormat)
  .pipe(storedAnswer);
/** Either form, told apart by `response` (only the earlier has it), so a refusal names the field that is wrong. */
const idempotency = z.unknown().transform((value, ctx) => {
  const parsed = (typeof value === 'object' && value !== null && 'response' in value ? earlierStoredAnswer : storedAnswer).safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path, input: issue.input });
  return z.NEVER;
});
const destination = z.strictObject({
  id, companyId: id, versao: int, estado: z.enum(['ativo', 'revogado']), url: z.string(), secret: z.string(), criadoEm: instant, atualizadoEm: instant,
});
const attempt = z.strictObject({
  tentativa: int, ciclo: int, destinoVersao: int.nullable(), estado: z.enum(['iniciada', 'entregue', 'falhou', 'incerta']),
  iniciadaEm: instant, terminadaEm: instant.nullable(), codigoFalha: z.string().nullable(), statusHttp: int.nullable(),
});
/** An event is recorded only against its company's destination (spec CONV-09, WH-EVT-01: `destino_id` and `destino_versao` are never null). */
const eventDestination = 'every webhook event is recorded against its company\'s destination: destinoId and destinoVersao must be set (null is not allowed)';
const webhookEvent = z.strictObject({
  id, companyId: id, tipo: z.enum(EVENT_KINDS), ocorridoEm: instant, criadoEm: instant, body: z.string(), destinoId: z.string(eventDestination).min(1).max(64),
  destinoVersao: z.number(eventDestination).int().min(0), estado: z.enum(['pendente', 'executando', 'entregue', 'falhou', 'cancelado']), ciclo: int, prazoEm: instant,
  terminadoEm: instant.nullable(), proximaTentativaEm: instant.nullable(), codigoFalha: z.string().nullable(), statusHttp: int.nullable(),
  attempts: z.array(attempt), position: int,
});
const cnpjCorrection = z.strictObject({
  id, companyId: id, establishmentId: id, cnpjNovo: z.string(), motivo: z.string(), versaoEsperada: int,
  estado: z.enum(['pendente', 'aprovada', 'rejeitada']), codigoRejeicao: z.string().nullable(), criadoEm: instant, decididoEm: instant.nullable(), position: int,
});
const finding = z.strictObject({ produto_id: id, ncm: z.string(), tipo: z.string(), detalhe: z.string(), avaliado_em: instant, snapshot_id: z.string() });
const analysis = z.strictObject({
  id, companyId: id, estado: z.enum(['pendente', 'executando', 'concluida', 'falhou']), criadaEm: instant, iniciadaEm: instant.nullable(),
  terminadaEm: instant.nullable(), codigoFalha: z.string().nullable(), snapshotId: z.string().nullable(), produtosAvaliados: int.nullable(),
  findings: z.array(finding).nullable(), position: int,
});
const watchedFinding = finding.extend({ reaproveitado: z.boolean() });
const execution = z.strictObject({
  id, companyId: id, motivo: z.enum(['agendada', 'publicacao']), estado: z.enum(['pendente', 'executando', 'concluida', 'falhou']), criadaEm: instant,
  iniciadaEm: instant.nullable(), terminadaEm: instant.nullable(), codigoFalha: z.string().nullable(), snapshotId: z.string().nullable(),
  produtosAvaliados: int.nullable(), reaproveitados: int.nullable(), findings: z.array(watchedFinding).nullable(), divergente: z.boolean().nullable(), position: int,
});
const evaluation = z.strictObject({ versao: int, fingerprint: z.string(), findings: z.array(finding) });
const ingestionRecord = z.strictObject({ idExterno: z.string(), origem: z.string(), ncm: z.string(), sku: nullableText, descricao: nullableText, atributos: attributes });
const recordError = z.strictObject({ lote: int, indice: int, caminho: z.string(), codigo: z.string(), mensagem: z.string() });
const ingestion = z.strictObject({
  id, companyId: id, catalogId: id, operacao: z.enum(['mesclar', 'substituicao_catalogo', 'substituicao_integral']), referenciaExterna: nullableText,
  estado: z.enum(['aberta', 'validando', 'validada', 'rejeitada', 'aplicando', 'aplicada', 'revisao_necessaria', 'falhou', 'expirada']),
  versao: int, versaoCatalogo: int, criadaEm: instant, atualizadaEm: instant, expiraEm: instant.nullable(), totalLotes: int.nullable(),
  lotesRecebidos: z.array(int), itensRecebidos: int,
  batches: z.array(z.strictObject({ numero: int, content: z.string(), records: z.array(ingestionRecord.nullable()), errors: z.array(recordError) })),
  preview: z
    .strictObject({
      versaoCatalogo: int, registros: int, novos: int, alterados: int, inalterados: int, reativados: int, vinculados: int, desvinculados: int, desativados: int,
      lotesFaltantes: z.array(int), erros: z.array(recordError),
    })
    .nullable(),
  plan: z
    .strictObject({
      catalogVersao: int,
      records: z.array(z.strictObject({ record: ingestionRecord, action: z.enum(['novo', 'alterado', 'inalterado', 'reativado']), productId: id.nullable(), productVersao: int.nullable(), link: z.boolean() })),
      removals: z.array(z.strictObject({ productId: id, productVersao: int, deactivate: z.boolean() })),
    })
    .nullable(),
  aplicacao: z.strictObject({ versaoCatalogo: int, aplicadaEm: instant }).nullable(),
  codigoFalha: z.string().nullable(),
  position: int,
});
const task = z.strictObject({ due: instant, kind: z.string(), owner: id.nullable(), payload: z.unknown().optional(), everyMs: int.optional() });
const uint32 = z.number().int().min(0).max(0xffffffff);

export const snapshotSchema = z.strictObject({
  format: z.literal('catalog-emulator/state'),
  version: z.literal(1),
  seed: z.union([z.number(), z.string()]),
  now: instant,
  random: z.tuple([uint32, uint32, uint32, uint32]),
  requestRandom: z.tuple([uint32, uint32, uint32, uint32]),
  tasks: z.array(task),
  state: z.strictObject({
    sequence: int,
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
    surveillance: z.array(
      z.strictObject({
        companyId: id,
        modo: z.enum(['selecao', 'todos']),
        versao: int,
        selected: z.array(z.tuple([id, int])),
        lastCoverage: z.enum(['indisponivel', 'sem_selecao', 'parcial', 'integral', 'capacidade_excedida']),
      }),
    ),
    regulatory: z.strictObject({
      id: z.string().regex(/^ref-\d{4,}$/),
      publicadoEm: instant,
      table: z
        .strictObject({
          id: z.string(),
          publicadoEm: z.string(),
          ncms: z.array(z.strictObject({ codigo: z.string().regex(/^\d{8}$/), descricao: z.string(), extinta: z.boolean(), extintaDesde: z.string().nullable(), obrigatorios: z.array(z.string()) })),
          atributos: z.array(z.strictObject({ codigo: z.string(), nome: z.string(), dominio: z.array(z.string()).nullable() })),
        })
        .nullable(),
    }),
    webhookSends: z.array(z.tuple([id, z.array(instant)])),
  }),
});

export type Snapshot = z.infer<typeof snapshotSchema>;
