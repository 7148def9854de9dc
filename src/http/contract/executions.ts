/**
 * The answers of the surveillance executions (spec "Resources › Analysis or surveillance execution (list item)",
 * "Surveillance finding"; docs/api.md for the detail's path). The list item, the finding and the findings page are
 * the analyses' too (src/http/contract/analyses.ts): the spec gives them one table each for both.
 */
import * as z from 'zod';
import { FINDING_TYPES } from '../../core/regulatory/rules.js';
import { choice, component, dateTime, int, oneOf, uuid } from './wire.js';

const STATES = ['pendente', 'executando', 'concluida', 'falhou'] as const;
const PHASES = ['na_fila', 'avaliando', 'publicada', 'encerrada'] as const;
const [firstType, ...otherTypes] = FINDING_TYPES.map((t) => t.tipo);
const FINDING_TYPE_VALUES = [firstType!, ...otherTypes] as const;

export const ExecutionItem = component(
  'ExecutionItem',
  z.strictObject({
    id: uuid,
    estado: choice(
      oneOf(STATES),
      "The spec leaves the list items' values unshown; it lists these four for an analysis (States › Analysis), and a surveillance execution goes through the same.",
    ),
    fase: choice(
      oneOf(PHASES),
      "The spec leaves fase's values unshown: one per estado (na_fila, avaliando, publicada, encerrada).",
    ),
    criada_em: z.string(),
    resultado_disponivel: z
      .boolean()
      .meta({ description: 'true once estado is concluida: the findings and the CSV can be read' }),
  }),
  'An analysis or a surveillance execution, as a list shows it (spec "Analysis or surveillance execution (list item)").',
);

const proximoCursor = z
  .string()
  .nullable()
  .meta({ description: 'pass it as cursor for the next page; null on the last page' });

export const ExecutionPage = component(
  'SurveillanceExecutionPage',
  z.strictObject({ itens: z.array(ExecutionItem), proximo_cursor: proximoCursor }),
  'A page of surveillance executions, newest first.',
);

const Finding = component(
  'Finding',
  z.strictObject({
    produto_id: uuid,
    ncm: z.string(),
    tipo: choice(
      oneOf(FINDING_TYPE_VALUES),
      'The spec types tipo as a string and lists no values: these are the emulator\'s rules (docs/api.md "Regulatory reference data and rules").',
    ),
    detalhe: z.string(),
    avaliado_em: z.string(),
    snapshot_id: z.string(),
    reaproveitado: z.boolean().meta({
      description:
        'reused findings keep the date and snapshot of the effective evaluation; always false in an analysis',
    }),
  }),
  'A finding (spec "Surveillance finding"); findings are immutable.',
);

export const FindingPage = component(
  'FindingPage',
  z.strictObject({
    total_achados: int.meta({ description: 'the number of findings of the whole result, not of this page' }),
    itens: z.array(Finding),
    proximo_cursor: proximoCursor.meta({
      description: 'pass it as cursor for the next page, even after an empty page; null on the last page',
    }),
  }),
  'A page of findings: up to 200 and a byte budget.',
);

/** The count of findings of each `tipo` of the emulator's rules, zeros included. */
export const FindingsByType = component(
  'FindingsByType',
  choice(
    z.strictObject(
      Object.fromEntries(FINDING_TYPE_VALUES.map((t) => [t, int])) as Record<
        (typeof FINDING_TYPE_VALUES)[number],
        typeof int
      >,
    ),
    'The spec does not show the summary: every tipo of the rules is counted, zeros too.',
  ),
  'How many findings of each tipo.',
);

/** The fields of a detail the spec does not show, beyond the list item's. */
export const jobTimes = {
  iniciada_em: choice(
    dateTime.nullable(),
    'The spec does not show the detail: when the run started, null while pendente.',
  ),
  terminada_em: choice(
    dateTime.nullable(),
    'The spec does not show the detail: when it concluded or failed, null before.',
  ),
  codigo_falha: choice(z.string().nullable(), 'The spec does not show the detail: why it failed, null unless falhou.'),
};

export const ExecutionDetail = component(
  'SurveillanceExecution',
  z.strictObject({
    ...ExecutionItem.shape,
    motivo: choice(
      oneOf(['agendada', 'publicacao']),
      'The spec does not show the detail: the daily schedule, or a publication of the regulatory reference that touched a watched product.',
    ),
    ...jobTimes,
    resumo: choice(
      z
        .strictObject({
          produtos_avaliados: int,
          produtos_reaproveitados: int,
          total_achados: int,
          achados_por_tipo: FindingsByType,
          snapshot_id: z.string(),
          divergente: z
            .boolean()
            .meta({ description: "whether the findings differ from the previous concluded execution's" }),
        })
        .nullable(),
      'The spec does not show the summary: null until the execution is concluida.',
    ),
  }),
  'A surveillance execution and its summary (the spec does not show it).',
);
