/**
 * The answers of the company operations: identity, integration context and capacity. The spec lists these
 * operations without their paths or payloads, so every shape here is the emulator's (docs/where-the-spec-is-silent.md
 * "Representations").
 */
import * as z from 'zod';
import { PERMISSIONS } from '../../core/companies.js';
import { choice, component, int, oneOf, uuid } from './wire.js';

export const Company = component(
  'Company',
  choice(
    z.strictObject({
      id: uuid,
      cnpj_raiz: z
        .string()
        .regex(/^[0-9]{8}$/)
        .meta({ description: 'the 8-digit root every CNPJ of the company starts with' }),
      nome: z.string(),
    }),
    'The spec does not show the payload of the identity: the company id, its CNPJ root and its name.',
  ),
  'The company that owns the credential.',
);

const described = (description: string) => int.meta({ description });
const lengths = z.strictObject({ min: described('fewest characters'), max: described('most characters') });
const pageLimits = z.strictObject({
  padrao: described('limite when the query omits it'),
  maximo: described('the largest limite'),
  orcamento_bytes: described('the byte budget of the serialized items of a page (a page holds at least one item)'),
});

export const IntegrationContext = component(
  'IntegrationContext',
  choice(
    z.strictObject({
      empresa: Company,
      credencial: z.strictObject({
        permissoes: z.array(oneOf(PERMISSIONS)).meta({ description: 'the permissions of the credential used' }),
      }),
      assinatura: z.strictObject({
        ativa: z.boolean().meta({ description: 'false while the subscription is suspended' }),
      }),
      estabelecimentos: z.strictObject({ ativos: int, arquivados: int }),
      catalogos: z.strictObject({ ativos: int, excluidos: int }),
      limites: z
        .strictObject({
          chave_idempotencia: lengths,
          corpo_bytes: described('the request body limit where the operation states none'),
          catalogos_pagina: pageLimits,
          estabelecimentos_pagina: pageLimits,
          produtos_pagina: pageLimits,
          nome: lengths,
          id_externo: lengths,
          descricao_produto: lengths,
          atributos_produto: z.strictObject({
            maximo: described('most entries'),
            codigo_max: described('most characters of a codigo'),
            valores_min: described('fewest valores of an entry'),
            valores_max: described('most valores of an entry'),
          }),
        })
        .meta({ description: "the limits that apply to this company's calls (the spec's and the emulator's)" }),
    }),
    'The spec does not show the payload of the integration context: who calls, with what permissions, in what state, within what limits.',
  ),
  'The integration context of the credential: company, permissions, subscription, counts and limits.',
);

export const Capacity = component(
  'Capacity',
  choice(
    z.strictObject({
      vigilancia: z.strictObject({ direito_ativo: z.boolean(), capacidade: int, selecionados: int, vagas: int }).meta({
        description: 'the same figures as GET /v1/empresa/vigilancia',
      }),
      analises: z.strictObject({
        franquia: described('analysis runs the company is allowed'),
        disponiveis: described('runs left of the allowance'),
      }),
    }),
    "The spec does not show this payload: the surveillance capacity and the analysis allowance, in the selection's own field names.",
  ),
  'Shared surveillance capacity and analysis availability.',
);
