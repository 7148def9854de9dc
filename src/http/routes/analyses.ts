/** Full-company analyses (spec "Analyses"; docs/api.md for the detail, findings and CSV paths). */
import {
  findAnalysis,
  findingsByType,
  PHASE_OF,
  publishedAnalysis,
  requestAnalysis,
  type Analysis,
} from '../../core/analyses.js';
import { FINDING_TYPES } from '../../core/regulatory/rules.js';
import { ok } from '../../core/refusal.js';
import { isoString } from '../../core/time.js';
import { operation } from '../pipeline.js';
import { presentFinding } from '../presenters.js';
import { csvReply, findingsPage, newestFirstPage } from '../results.js';
import { cursorQuery, emptyBody, findingsQuery, idParams, noQuery } from '../schemas.js';
import * as answers from '../contract/analyses.js';
import { FindingPage } from '../contract/executions.js';
import { MUT_STATUSES, READ_STATUSES } from '../contract/wire.js';

const READ = 'catalogo:ler';
/** Byte budget of a page of the analysis list. */

const iso = (instant: number | null) => (instant === null ? null : isoString(instant));

function presentItem(a: Analysis) {
  return {
    id: a.id,
    estado: a.estado,
    fase: PHASE_OF[a.estado],
    criada_em: isoString(a.criadaEm),
    resultado_disponivel: a.estado === 'concluida',
  };
}

function presentDetail(a: Analysis) {
  return {
    ...presentItem(a),
    iniciada_em: iso(a.iniciadaEm),
    terminada_em: iso(a.terminadaEm),
    codigo_falha: a.codigoFalha,
    resumo:
      a.findings === null
        ? null
        : {
            produtos_avaliados: a.produtosAvaliados,
            total_achados: a.findings.length,
            achados_por_tipo: findingsByType(
              a.findings,
              FINDING_TYPES.map((t) => t.tipo),
            ),
            snapshot_id: a.snapshotId,
          },
  };
}

const location = (a: Analysis) => `/v1/analises/${a.id}`;

/** The columns of the result CSV: a finding's (spec "Surveillance finding"), without reaproveitado (never true in an analysis). */
const CSV_COLUMNS = ['produto_id', 'ncm', 'tipo', 'detalhe', 'avaliado_em', 'snapshot_id'] as const;
const UNPUBLISHED =
  'The result of an analysis that is not concluida does not exist yet: 409 resultado_indisponivel, as the spec answers for the surveillance results.';

export const analysisOperations = [
  operation({
    method: 'POST',
    path: '/v1/analises',
    doc: {
      id: 'requestAnalysis',
      summary: 'Request a full-company analysis',
      tag: 'Analyses',
      description:
        'The durable acceptance consumes no allowance; products selected for surveillance do not restrict the diagnosis. One analysis is open at a time: while one is pendente or executando, the answer is 200 with it.',
      success: {
        200: {
          description: 'The analysis already open (pendente or executando).',
          body: answers.AnalysisAcceptance,
          headers: ['location'],
        },
        202: {
          description: 'The analysis accepted, not run.',
          body: answers.AnalysisAcceptance,
          headers: ['location'],
        },
      },
      errors: MUT_STATUSES,
    },
    permission: 'analise:executar',
    params: noQuery,
    query: noQuery,
    body: emptyBody,
    bodyOptional: true,
    run: ({ state, ctx, company }) => {
      const { analysis, created } = requestAnalysis(state, company.id, ctx);
      // 202: accepted, not run; 200: the analysis already pending or executing (spec "Response 200 or 202").
      return ok({
        status: created ? 202 : 200,
        body: { id: analysis.id, estado: analysis.estado },
        location: location(analysis),
      });
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/analises',
    doc: {
      id: 'listAnalyses',
      summary: 'List the analyses of the company',
      tag: 'Analyses',
      description:
        'Newest first, at most 100 per page and a byte budget. Follow proximo_cursor (as cursor) until null.',
      success: { 200: { description: 'A page of analyses.', body: answers.AnalysisPage } },
      errors: READ_STATUSES,
    },
    permission: READ,
    params: noQuery,
    query: cursorQuery(100, 'cap'),
    run: ({ state, company, query, runtime }) =>
      newestFirstPage(
        state.analyses.listOf(company.id),
        state.analyses,
        { companyId: company.id, list: 'analises' },
        query,
        { defaultLimit: 50, budgetBytes: runtime.pageBudgets.analyses },
        presentItem,
      ),
  }),
  operation({
    method: 'GET',
    path: '/v1/analises/:id',
    doc: {
      id: 'getAnalysis',
      summary: 'Get an analysis execution and summary',
      tag: 'Analyses',
      choice: "The spec lists this operation without its path; this one follows the spec's naming of the resource.",
      success: { 200: { description: 'The analysis.', body: answers.AnalysisDetail } },
      errors: READ_STATUSES,
    },
    permission: READ,
    params: idParams,
    query: noQuery,
    run: ({ state, company, params }) => {
      const found = findAnalysis(state, company.id, params.id);
      return found.ok ? ok({ status: 200, body: presentDetail(found.value) }) : found;
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/analises/:id/achados',
    doc: {
      id: 'listAnalysisFindings',
      summary: 'Get all findings of an analysis',
      tag: 'Analyses',
      choice: "The spec lists this operation without its path; its page is the surveillance results'.",
      description:
        'Up to 200 findings per page and a byte budget. Follow proximo_cursor (as cursor) until null, even through an empty page.',
      success: { 200: { description: 'A page of findings.', body: FindingPage } },
      errors: READ_STATUSES,
      extraErrors: [{ status: 409, choice: UNPUBLISHED }],
    },
    permission: READ,
    params: idParams,
    query: findingsQuery,
    run: ({ state, company, params, query, runtime }) => {
      const found = publishedAnalysis(state, company.id, params.id);
      if (!found.ok) return found;
      return findingsPage(
        found.value.findings ?? [],
        { companyId: company.id, list: `achados:${params.id}` },
        query,
        runtime.pageBudgets.findings,
        presentFinding,
      );
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/analises/:id/resultado.csv',
    doc: {
      id: 'exportAnalysisResult',
      summary: 'Export the complete analysis result as CSV',
      tag: 'Analyses',
      choice: "The spec lists this operation without its path; this one follows the spec's naming of the resource.",
      success: { 200: { description: 'Every finding, one per row.', body: { csv: CSV_COLUMNS } } },
      errors: READ_STATUSES,
      extraErrors: [{ status: 409, choice: UNPUBLISHED }],
    },
    permission: READ,
    params: idParams,
    query: noQuery,
    run: ({ state, company, params }) => {
      const found = publishedAnalysis(state, company.id, params.id);
      if (!found.ok) return found;
      const rows = (found.value.findings ?? []).map((f) => [
        f.produto_id,
        f.ncm,
        f.tipo,
        f.detalhe,
        isoString(f.avaliado_em),
        f.snapshot_id,
      ]);
      return ok(csvReply(CSV_COLUMNS, rows, `analise-${params.id}.csv`));
    },
  }),
];
