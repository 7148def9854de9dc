/** The answers of the establishment operations (spec "Resources › Establishment", "CNPJ correction request acceptance"). */
import * as z from 'zod';
import { REJECTION_CODE_VALUES } from '../../core/cnpj-corrections.js';
import { choice, component, dateTime, int, oneOf, uuid } from './wire.js';

export const Establishment = component(
  'Establishment',
  z.strictObject({
    id: uuid,
    cnpj: z
      .string()
      .regex(/^[A-Z0-9]{12}[0-9]{2}$/)
      .meta({ description: '12 characters from A-Z and 0-9, then 2 digits' }),
    nome: z.string(),
    estado: oneOf(['ativo', 'arquivado']),
    versao: int,
    catalogo_id: uuid.nullable().meta({ description: 'the active catalog of the establishment, or null' }),
    id_externo: z.string().nullable(),
  }),
  'A head office or branch (spec "Resources › Establishment"); answered with its ETag.',
);

export const EstablishmentPage = component(
  'EstablishmentPage',
  choice(
    z.strictObject({
      itens: z.array(Establishment),
      proximo_id: uuid.nullable().meta({ description: 'pass it as apos_id for the next page; null on the last page' }),
    }),
    'The spec does not show the payload of this list: it follows the catalog list (itens, proximo_id).',
  ),
  'A page of establishments, in creation order: up to limite items within a byte budget.',
);

/** The five fields of spec "CNPJ correction request acceptance". */
const acceptance = {
  id: uuid,
  tipo: oneOf(['correcao_cnpj']),
  estabelecimento_id: uuid,
  versao_esperada: int.meta({ description: 'establishment version the request was made against' }),
};

export const CnpjCorrectionAcceptance = component(
  'CnpjCorrectionAcceptance',
  z.strictObject({ ...acceptance, estado: oneOf(['pendente']).meta({ description: 'initially pendente' }) }),
  'A CNPJ correction request, accepted durably and not applied (spec "CNPJ correction request acceptance"); Location says where to follow it.',
);

export const CnpjCorrection = component(
  'CnpjCorrection',
  choice(
    z.strictObject({
      ...acceptance,
      estado: choice(
        oneOf(['pendente', 'aprovada', 'rejeitada']),
        'The spec shows only the initial state; the review approves or rejects it.',
      ),
      cnpj_novo: z.string(),
      motivo: z.string(),
      criado_em: dateTime,
      decidido_em: dateTime.nullable().meta({ description: 'when the review decided; null while pendente' }),
      codigo_rejeicao: z.enum(REJECTION_CODE_VALUES).nullable().meta({
        description: 'why it was rejeitada; null otherwise',
      }),
    }),
    'The spec does not show the payload of the follow-up: the acceptance fields, what was asked, and the decision.',
  ),
  'A CNPJ correction request and its review.',
);
