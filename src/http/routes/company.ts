/**
 * Identity, integration context and capacity (paths: docs/api.md). The identity and the context need only a
 * valid credential, so that an integrator can find out why another call answers 403.
 */
import type { State } from '../../core/state.js';
import { countsOf, surveillanceOf, viewSurveillance } from '../../core/surveillance.js';
import { allowanceLeft } from '../../core/analyses.js';
import { ok } from '../../core/refusal.js';
import { DEFAULT_BODY_LIMIT, IDEMPOTENCY_KEY_LENGTH, operation } from '../pipeline.js';
import { presentCompany } from '../presenters.js';
import { INPUT_LIMITS, noQuery } from '../schemas.js';
import type { PageBudgets } from '../../engine/config.js';
import * as answers from '../contract/company.js';
import { READ_STATUSES } from '../contract/wire.js';

function counts(state: State, companyId: string) {
  const establishments = state.establishments.listOf(companyId);
  const catalogs = state.catalogs.listOf(companyId);
  let establishmentsActive = 0;
  for (const [id] of establishments.after())
    if (state.establishments.get(id)?.estado === 'ativo') establishmentsActive++;
  let catalogsActive = 0;
  for (const [id] of catalogs.after()) if (state.catalogs.get(id)?.estado === 'ativo') catalogsActive++;
  return {
    estabelecimentos: { ativos: establishmentsActive, arquivados: establishments.size - establishmentsActive },
    catalogos: { ativos: catalogsActive, excluidos: catalogs.size - catalogsActive },
  };
}

/** The limits that apply to this company's calls (spec "Limits", plus the emulator's documented choices). */
function limits(budgets: PageBudgets) {
  const { name, externalId, productDescription, attributes, page } = INPUT_LIMITS;
  const pageOf = (budget: number) => ({ padrao: page.default, maximo: page.max, orcamento_bytes: budget });
  return {
    chave_idempotencia: { min: IDEMPOTENCY_KEY_LENGTH.min, max: IDEMPOTENCY_KEY_LENGTH.max },
    corpo_bytes: DEFAULT_BODY_LIMIT,
    catalogos_pagina: pageOf(budgets.catalogs),
    estabelecimentos_pagina: pageOf(budgets.establishments),
    produtos_pagina: pageOf(budgets.products),
    nome: { min: name.min, max: name.max },
    id_externo: { min: externalId.min, max: externalId.max },
    descricao_produto: { min: productDescription.min, max: productDescription.max },
    atributos_produto: {
      maximo: attributes.max,
      codigo_max: attributes.codeMax,
      valores_min: attributes.valuesMin,
      valores_max: attributes.valuesMax,
    },
  };
}

export const companyOperations = [
  operation({
    method: 'GET',
    path: '/v1/empresa',
    doc: {
      id: 'getCompany',
      summary: 'Get the identity of the authorized company',
      tag: 'Company',
      choice:
        'The spec lists this operation without its path: the company of the credential, as the singleton its surveillance selection lives under.',
      description: 'Needs only a valid credential, whatever its permissions.',
      success: { 200: { description: 'The company of the credential.', body: answers.Company } },
      errors: READ_STATUSES,
    },
    params: noQuery,
    query: noQuery,
    run: ({ company }) => ok({ status: 200, body: presentCompany(company) }),
  }),
  operation({
    method: 'GET',
    path: '/v1/contexto',
    doc: {
      id: 'getIntegrationContext',
      summary: 'Get the integration context',
      tag: 'Company',
      choice: 'The spec lists this operation without its path: a singleton of the credential, beside the company.',
      description: 'Needs only a valid credential, so that a client can find out why another call answers 403.',
      success: { 200: { description: 'The integration context.', body: answers.IntegrationContext } },
      errors: READ_STATUSES,
    },
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
    doc: {
      id: 'getCapacity',
      summary: 'Get shared capacity and analysis availability',
      tag: 'Company',
      choice:
        'The spec lists this operation without its path: under the company, beside the surveillance selection whose figures it shares.',
      success: { 200: { description: 'The capacity and the analysis allowance.', body: answers.Capacity } },
      errors: READ_STATUSES,
    },
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
