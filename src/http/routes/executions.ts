/** Surveillance executions (spec "GET /v1/vigilancias", "…/resultados"; docs/api.md for the detail and the CSV). */
import {
  countByType,
  EXECUTION_PHASE_OF,
  findExecution,
  publishedExecution,
  type Execution,
} from '../../core/surveillance-executions.js';
import { ok } from '../../core/refusal.js';
import { isoString } from '../../core/time.js';
import { operation } from '../pipeline.js';
import { cursorQuery, findingsQuery, idParams, noQuery } from '../schemas.js';
import { presentFinding } from '../presenters.js';
import { csvReply, findingsPage, newestFirstPage } from '../results.js';
import * as answers from '../contract/executions.js';
import { READ_STATUSES } from '../contract/wire.js';

const READ = 'catalogo:ler';
/** The columns of the result CSV: a finding's (spec "Surveillance finding"). */
const CSV_COLUMNS = ['produto_id', 'ncm', 'tipo', 'detalhe', 'avaliado_em', 'snapshot_id', 'reaproveitado'] as const;
const iso = (instant: number | null) => (instant === null ? null : isoString(instant));

function presentItem(e: Execution) {
  return {
    id: e.id,
    estado: e.estado,
    fase: EXECUTION_PHASE_OF[e.estado],
    criada_em: isoString(e.criadaEm),
    resultado_disponivel: e.estado === 'concluida',
  };
}

function presentDetail(e: Execution) {
  return {
    ...presentItem(e),
    motivo: e.motivo,
    iniciada_em: iso(e.iniciadaEm),
    terminada_em: iso(e.terminadaEm),
    codigo_falha: e.codigoFalha,
    resumo:
      e.findings === null
        ? null
        : {
            produtos_avaliados: e.produtosAvaliados,
            produtos_reaproveitados: e.reaproveitados,
            total_achados: e.findings.length,
            achados_por_tipo: countByType(e.findings),
            snapshot_id: e.snapshotId,
            divergente: e.divergente,
          },
  };
}

export const executionOperations = [
  operation({
    method: 'GET',
    path: '/v1/vigilancias',
    doc: {
      id: 'listSurveillanceExecutions',
      summary: 'List the surveillance executions of the company',
      tag: 'Surveillance',
      description:
        'Newest first, at most 100 per page and a byte budget. Follow proximo_cursor (as cursor) until null. History is kept after subscription suspension.',
      success: { 200: { description: 'A page of executions.', body: answers.ExecutionPage } },
      errors: READ_STATUSES,
    },
    permission: READ,
    params: noQuery,
    query: cursorQuery(100, 'cap'),
    run: ({ state, company, query, runtime }) =>
      newestFirstPage(
        state.executions.listOf(company.id),
        state.executions,
        { companyId: company.id, list: 'vigilancias' },
        query,
        { defaultLimit: 50, budgetBytes: runtime.pageBudgets.executions },
        presentItem,
      ),
  }),
  operation({
    method: 'GET',
    path: '/v1/vigilancias/:id',
    doc: {
      id: 'getSurveillanceExecution',
      summary: 'Get a surveillance execution',
      tag: 'Surveillance',
      choice: "The spec lists this operation without its path; this one follows the spec's naming of the resource.",
      success: { 200: { description: 'The execution.', body: answers.ExecutionDetail } },
      errors: READ_STATUSES,
    },
    permission: READ,
    params: idParams,
    query: noQuery,
    run: ({ state, company, params }) => {
      const found = findExecution(state, company.id, params.id);
      return found.ok ? ok({ status: 200, body: presentDetail(found.value) }) : found;
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/vigilancias/:id/resultados',
    doc: {
      id: 'listSurveillanceFindings',
      summary: 'Get the findings of a surveillance execution',
      tag: 'Surveillance',
      description:
        'Up to 200 findings per page and a byte budget. Follow proximo_cursor (as cursor) until null, even through an empty page. 409 until the execution is concluida.',
      success: { 200: { description: 'A page of findings.', body: answers.FindingPage } },
      // spec "GET /v1/vigilancias/{id}/resultados": its own set, READ with 409.
      errors: [401, 403, 404, 409, 422, 429, 503],
    },
    permission: READ,
    params: idParams,
    query: findingsQuery,
    run: ({ state, company, params, query, runtime }) => {
      const found = publishedExecution(state, company.id, params.id);
      if (!found.ok) return found;
      return findingsPage(
        found.value.findings ?? [],
        { companyId: company.id, list: `resultados:${params.id}` },
        query,
        runtime.pageBudgets.findings,
        presentFinding,
      );
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/vigilancias/:id/resultados.csv',
    doc: {
      id: 'exportSurveillanceResult',
      summary: 'Export the published surveillance result as CSV',
      tag: 'Surveillance',
      choice: "The spec lists this operation without its path; this one follows the spec's naming of the resource.",
      success: { 200: { description: 'Every finding, one per row.', body: { csv: CSV_COLUMNS } } },
      errors: READ_STATUSES,
      extraErrors: [
        {
          status: 409,
          choice:
            'The result of an execution that is not concluida is not published: 409 resultado_indisponivel, as the spec answers for the findings.',
        },
      ],
    },
    permission: READ,
    params: idParams,
    query: noQuery,
    run: ({ state, company, params }) => {
      const found = publishedExecution(state, company.id, params.id);
      if (!found.ok) return found;
      const rows = (found.value.findings ?? []).map((f) => [
        f.produto_id,
        f.ncm,
        f.tipo,
        f.detalhe,
        isoString(f.avaliado_em),
        f.snapshot_id,
        f.reaproveitado,
      ]);
      return ok(csvReply(CSV_COLUMNS, rows, `vigilancia-${params.id}.csv`));
    },
  }),
];
