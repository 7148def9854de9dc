/**
 * Identity, integration context and capacity (DESIGN §3 paths). The identity and the context need only a
 * valid credential, so that an integrator can find out why another call answers 403.
 */
import { indexesOf, type State } from '../../core/state.js';
import { countsOf, surveillanceOf, viewSurveillance } from '../../core/surveillance.js';
import { allowanceLeft } from '../../core/analyses.js';
import { ok } from '../../core/refusal.js';
import { DEFAULT_BODY_LIMIT, operation } from '../pipeline.js';
import { presentCompany } from '../presenters.js';
import { noQuery } from '../schemas.js';
import type { PageBudgets } from '../runtime.js';


function counts(state: State, companyId: string) {
  const indexes = indexesOf(state, companyId);
  let establishmentsActive = 0;
  for (const [id] of indexes.establishments.after()) if (state.establishments.get(id)?.estado === 'ativo') establishmentsActive++;
  let catalogsActive = 0;
  for (const [id] of indexes.catalogs.after()) if (state.catalogs.get(id)?.estado === 'ativo') catalogsActive++;
  return {
    estabelecimentos: { ativos: establishmentsActive, arquivados: indexes.establishments.size - establishmentsActive },
    catalogos: { ativos: catalogsActive, excluidos: indexes.catalogs.size - catalogsActive },
  };
}

/** The limits that apply to this company's calls (spec "Limits", plus the emulator's documented choices). */
function limits(budgets: PageBudgets) {
  return {
    chave_idempotencia: { min: 16, max: 128 },
    corpo_bytes: DEFAULT_BODY_LIMIT,
    catalogos_pagina: { padrao: 50, maximo: 200, orcamento_bytes: budgets.catalogs },
    estabelecimentos_pagina: { padrao: 50, maximo: 200, orcamento_bytes: budgets.establishments },
    produtos_pagina: { padrao: 50, maximo: 200, orcamento_bytes: budgets.products },
    nome: { min: 1, max: 120 },
    id_externo: { min: 1, max: 256 },
    descricao_produto: { min: 1, max: 2000 },
    atributos_produto: { maximo: 128, codigo_max: 128, valores_min: 1, valores_max: 50 },
  };
}

export const companyOperations = [
  operation({
    method: 'GET',
    path: '/v1/empresa',
    params: noQuery,
    query: noQuery,
    run: ({ company }) => ok({ status: 200, body: presentCompany(company) }),
  }),
  operation({
    method: 'GET',
    path: '/v1/contexto',
    params: noQuery,
    query: noQuery,
    run: ({ state, runtime, company, credential }) =>
      ok({
        status: 200,
        body: {
          empresa: presentCompany(company),
          credencial: { permissoes: credential.permissions },
          assinatura: { ativa: company.subscriptionActive },
          ...counts(state, company.id),
          limites: limits(runtime.pageBudgets),
        },
      }),
  }),
  operation({
    method: 'GET',
    path: '/v1/empresa/capacidade',
    permission: 'catalogo:ler',
    params: noQuery,
    query: noQuery,
    run: ({ state, company }) => {
      const surveillance = viewSurveillance(countsOf(surveillanceOf(state, company.id)), company);
      return ok({
        status: 200,
        body: {
          vigilancia: {
            direito_ativo: surveillance.direito_ativo,
            capacidade: surveillance.capacidade,
            selecionados: surveillance.selecionados,
            vagas: surveillance.vagas,
          },
          analises: {
            franquia: company.analysisAllowance,
            disponiveis: allowanceLeft(state, company.id),
          },
        },
      });
    },
  }),
];
