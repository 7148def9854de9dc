/** The answers of the catalog operations (spec "Resources › Catalog", "Catalog deletion impact preview"). */
import * as z from 'zod';
import { component, dateTime, int, oneOf, uuid } from './wire.js';

export const Catalog = component(
  'Catalog',
  z.strictObject({
    id: uuid,
    id_externo: z.string().nullable().meta({ description: 'external reference' }),
    estabelecimento_id: uuid.meta({ description: 'establishment the catalog belongs to' }),
    cnpj_estabelecimento: z.string(),
    nome: z.string(),
    estado: oneOf(['ativo', 'excluido']),
    versao: int,
    produtos: int.meta({ description: 'count of registered product links; not coverage, nor any regulatory result' }),
    criado_em: dateTime,
    atualizado_em: dateTime,
    excluido_em: dateTime.nullable(),
  }),
  'A catalog (spec "Resources › Catalog"); answered with its ETag.',
);

export const CatalogPage = component(
  'CatalogPage',
  z.strictObject({
    itens: z.array(Catalog),
    proximo_id: uuid.nullable().meta({ description: 'pass it as apos_id for the next page; null on the last page' }),
  }),
  'A page of catalogs: up to limite items within a byte budget.',
);

/** spec "Catalog deletion impact preview": `antes` and `depois`. */
const SelectionCounters = z.strictObject({
  cadastrados: int,
  selecionados: int,
  elegiveis: int,
  vagas: int,
  cobertura: oneOf(['indisponivel', 'sem_selecao', 'parcial', 'integral', 'capacidade_excedida']),
  exige_selecao: z.boolean(),
});

export const DeletionPreview = component(
  'CatalogDeletionPreview',
  z.strictObject({
    catalogo_id: uuid,
    versao: int,
    produtos: int,
    exclusivos: int,
    compartilhados: int,
    produtos_desativados: int,
    selecoes_removidas: int,
    selecoes_adicionadas: int,
    vigilancia: z.strictObject({
      modo: oneOf(['selecao', 'todos']),
      versao: int,
      capacidade: int,
      direito_ativo: z.boolean(),
      antes: SelectionCounters,
      depois: SelectionCounters,
    }),
  }),
  'What deleting the catalog would do (spec "Catalog deletion impact preview"); its ETag is the If-Match of the DELETE.',
);
