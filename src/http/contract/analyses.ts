/**
 * The answers of the analyses (spec "Resources › Analysis acceptance", "Analysis or surveillance execution
 * (list item)"; docs/api.md for the paths of the detail and the findings). The list item and the findings are the
 * surveillance executions' (src/http/contract/executions.ts).
 */
import * as z from 'zod';
import { ExecutionItem, FindingsByType, jobTimes } from './executions.js';
import { choice, component, int, oneOf, uuid } from './wire.js';

export const AnalysisAcceptance = component(
  'AnalysisAcceptance',
  z.strictObject({
    id: uuid,
    estado: oneOf(['pendente', 'executando', 'concluida', 'falhou']),
  }),
  'An analysis accepted (spec "Analysis acceptance"): pendente when new, the open one (pendente or executando) when one was already open.',
);

export const AnalysisPage = component(
  'AnalysisPage',
  z.strictObject({
    itens: z.array(ExecutionItem),
    proximo_cursor: z
      .string()
      .nullable()
      .meta({ description: 'pass it as cursor for the next page; null on the last page' }),
  }),
  'A page of analyses, newest first.',
);

export const AnalysisDetail = component(
  'Analysis',
  z.strictObject({
    ...ExecutionItem.shape,
    ...jobTimes,
    resumo: choice(
      z
        .strictObject({
          produtos_avaliados: int,
          total_achados: int,
          achados_por_tipo: FindingsByType,
          snapshot_id: z
            .string()
            .meta({ description: 'the regulatory reference snapshot the products were evaluated against' }),
        })
        .nullable(),
      'The spec does not show the summary: null until the analysis is concluida.',
    ),
  }),
  'An analysis and its summary (the spec does not show it).',
);
