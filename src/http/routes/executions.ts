/** Surveillance executions (spec "GET /v1/vigilancias", "…/resultados"; DESIGN §3 for the detail and the CSV). */
import { countByType, EXECUTION_PHASE_OF, findExecution, publishedExecution, type Execution, type WatchedFinding } from '../../core/surveillance-executions.js';
import { ok } from '../../core/refusal.js';
import { indexesOf } from '../../core/state.js';
import { isoString } from '../../core/time.js';
import { collectPage, cursorPageBody, readCursor } from '../paging.js';
import { operation } from '../pipeline.js';
import { analysisListQuery, findingsQuery, idParams, noQuery } from '../schemas.js';
import { csv } from './analyses.js';

const READ = 'catalogo:ler';
const LIST_PAGE_BYTES = 256 * 1024;
const RESULTS_PAGE_BYTES = 512 * 1024;
const iso = (instant: number | null) => (instant === null ? null : isoString(instant));

function presentItem(e: Execution) {
  return { id: e.id, estado: e.estado, fase: EXECUTION_PHASE_OF[e.estado], criada_em: isoString(e.criadaEm), resultado_disponivel: e.estado === 'concluida' };
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

function presentFinding(f: WatchedFinding) {
  return { produto_id: f.produto_id, ncm: f.ncm, tipo: f.tipo, detalhe: f.detalhe, avaliado_em: isoString(f.avaliado_em), snapshot_id: f.snapshot_id, reaproveitado: f.reaproveitado };
}

export const executionOperations = [
  operation({
    method: 'GET',
    path: '/v1/vigilancias',
    permission: READ,
    params: noQuery,
    query: analysisListQuery,
    run: ({ state, company, query }) => {
      const before = readCursor(query.cursor, company.id, 'vigilancias');
      if (!before.ok) return before;
      const items = (function* () {
        for (const [id, position] of indexesOf(state, company.id).executions.before(before.value)) {
          const execution = state.executions.get(id);
          if (execution) yield { execution, position };
        }
      })();
      const page = collectPage(items, query.limite ?? 50, LIST_PAGE_BYTES, ({ execution }) => presentItem(execution), ({ position }) => position);
      return ok({ status: 200, body: cursorPageBody(page, company.id, 'vigilancias') });
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/vigilancias/:id',
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
    permission: READ,
    params: idParams,
    query: findingsQuery,
    run: ({ state, company, params, query }) => {
      const found = publishedExecution(state, company.id, params.id);
      if (!found.ok) return found;
      const findings = found.value.findings ?? [];
      const list = `resultados:${params.id}`;
      const after = readCursor(query.cursor, company.id, list);
      if (!after.ok) return after;
      const start = after.value === undefined ? 0 : after.value + 1;
      const entries = (function* () {
        for (let i = start; i < findings.length; i++) yield { finding: findings[i]!, index: i };
      })();
      const page = collectPage(entries, query.limite ?? 200, RESULTS_PAGE_BYTES, ({ finding }) => presentFinding(finding), ({ index }) => index);
      return ok({ status: 200, body: cursorPageBody(page, company.id, list, `"total_achados":${findings.length},`) });
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/vigilancias/:id/resultados.csv',
    permission: READ,
    params: idParams,
    query: noQuery,
    run: ({ state, company, params }) => {
      const found = publishedExecution(state, company.id, params.id);
      if (!found.ok) return found;
      const rows = (found.value.findings ?? []).map((f) => [f.produto_id, f.ncm, f.tipo, f.detalhe, isoString(f.avaliado_em), f.snapshot_id, f.reaproveitado]);
      return ok({
        status: 200,
        body: csv(['produto_id', 'ncm', 'tipo', 'detalhe', 'avaliado_em', 'snapshot_id', 'reaproveitado'], rows),
        headers: { 'content-type': 'text/csv; charset=utf-8; header=present', 'content-disposition': `attachment; filename="vigilancia-${params.id}.csv"` },
      });
    },
  }),
];
