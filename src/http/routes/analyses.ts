/** Full-company analyses (spec "Analyses"; DESIGN §3 for the detail, findings and CSV paths). */
import { findAnalysis, findingsByType, PHASE_OF, publishedAnalysis, requestAnalysis, type Analysis } from '../../core/analyses.js';
import { FINDING_TYPES, type Finding } from '../../core/regulatory/rules.js';
import { ok, type Result } from '../../core/refusal.js';
import { indexesOf } from '../../core/state.js';
import { isoString } from '../../core/time.js';
import { collectPage, cursorPageBody, readCursor } from '../paging.js';
import { operation } from '../pipeline.js';
import { analysisListQuery, emptyBody, findingsQuery, idParams, noQuery } from '../schemas.js';

const READ = 'catalogo:ler';
/** Byte budgets of the analysis list and of a findings page. */
const LIST_PAGE_BYTES = 256 * 1024;
const FINDINGS_PAGE_BYTES = 512 * 1024;

const iso = (instant: number | null) => (instant === null ? null : isoString(instant));

function presentItem(a: Analysis) {
  return { id: a.id, estado: a.estado, fase: PHASE_OF[a.estado], criada_em: isoString(a.criadaEm), resultado_disponivel: a.estado === 'concluida' };
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
            achados_por_tipo: findingsByType(a.findings, FINDING_TYPES.map((t) => t.tipo)),
            snapshot_id: a.snapshotId,
          },
  };
}

export function presentFinding(f: Finding) {
  return { produto_id: f.produto_id, ncm: f.ncm, tipo: f.tipo, detalhe: f.detalhe, avaliado_em: isoString(f.avaliado_em), snapshot_id: f.snapshot_id, reaproveitado: false };
}

/** RFC 4180: fields with a comma, quote or line break are quoted, quotes doubled; lines end in CRLF. */
export function csv(header: readonly string[], rows: Iterable<readonly (string | number | boolean)[]>): string {
  const field = (value: string | number | boolean) => {
    const text = String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  let out = `${header.map(field).join(',')}\r\n`;
  for (const row of rows) out += `${row.map(field).join(',')}\r\n`;
  return out;
}

const location = (a: Analysis) => `/v1/analises/${a.id}`;

export const analysisOperations = [
  operation({
    method: 'POST',
    path: '/v1/analises',
    permission: 'analise:executar',
    params: noQuery,
    query: noQuery,
    body: emptyBody,
    bodyOptional: true,
    run: ({ state, ctx, company }) => {
      const { analysis, created } = requestAnalysis(state, company.id, ctx);
      // 202: accepted, not run; 200: the analysis already pending or executing (spec "Response 200 or 202").
      return ok({ status: created ? 202 : 200, body: { id: analysis.id, estado: analysis.estado }, location: location(analysis) });
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/analises',
    permission: READ,
    params: noQuery,
    query: analysisListQuery,
    run: ({ state, company, query }) => {
      const before = readCursor(query.cursor, company.id, 'analises');
      if (!before.ok) return before;
      const items = (function* () {
        for (const [id, position] of indexesOf(state, company.id).analyses.before(before.value)) {
          const analysis = state.analyses.get(id);
          if (analysis) yield { analysis, position };
        }
      })();
      const page = collectPage(items, query.limite ?? 50, LIST_PAGE_BYTES, ({ analysis }) => presentItem(analysis), ({ position }) => position);
      return ok({ status: 200, body: cursorPageBody(page, company.id, 'analises') });
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/analises/:id',
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
    permission: READ,
    params: idParams,
    query: findingsQuery,
    run: ({ state, company, params, query }): Result<{ status: number; body: string }> => {
      const found = publishedAnalysis(state, company.id, params.id);
      if (!found.ok) return found;
      const findings = found.value.findings ?? [];
      const list = `achados:${params.id}`;
      const after = readCursor(query.cursor, company.id, list);
      if (!after.ok) return after;
      const start = after.value === undefined ? 0 : after.value + 1;
      const entries = (function* () {
        for (let i = start; i < findings.length; i++) yield { finding: findings[i]!, index: i };
      })();
      const page = collectPage(entries, query.limite ?? 200, FINDINGS_PAGE_BYTES, ({ finding }) => presentFinding(finding), ({ index }) => index);
      return ok({ status: 200, body: cursorPageBody(page, company.id, list, `"total_achados":${findings.length},`) });
    },
  }),
  operation({
    method: 'GET',
    path: '/v1/analises/:id/resultado.csv',
    permission: READ,
    params: idParams,
    query: noQuery,
    run: ({ state, company, params }) => {
      const found = publishedAnalysis(state, company.id, params.id);
      if (!found.ok) return found;
      const rows = (found.value.findings ?? []).map((f) => [f.produto_id, f.ncm, f.tipo, f.detalhe, isoString(f.avaliado_em), f.snapshot_id]);
      return ok({
        status: 200,
        body: csv(['produto_id', 'ncm', 'tipo', 'detalhe', 'avaliado_em', 'snapshot_id'], rows),
        headers: { 'content-type': 'text/csv; charset=utf-8; header=present', 'content-disposition': `attachment; filename="analise-${params.id}.csv"` },
      });
    },
  }),
];
