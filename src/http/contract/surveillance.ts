/** The answers of the surveillance selection (spec "Resources › Surveillance selection and capacity"). */
import * as z from 'zod';
import { component, int, oneOf } from './wire.js';

export const SurveillanceSelection = component(
  'SurveillanceSelection',
  z.strictObject({
    cadastrados: int,
    selecionados: int,
    elegiveis: int,
    vagas: int,
    cobertura: oneOf(['indisponivel', 'sem_selecao', 'parcial', 'integral', 'capacidade_excedida']),
    exige_selecao: z.boolean(),
    modo: oneOf(['selecao', 'todos']),
    versao: int,
    capacidade: int,
    direito_ativo: z.boolean(),
  }),
  'The surveillance selection and capacity of the company (spec "Resources › Surveillance selection and capacity"); its ETag protects changes of the selection. A preserved selection does not prove that surveillance ran.',
);
