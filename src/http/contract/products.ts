/** The answers of the product operations (spec "Resources › Product"). */
import * as z from 'zod';
import { choice, component, int, uuid } from './wire.js';

const ProductAttribute = component(
  'ProductAttribute',
  z.strictObject({ codigo: z.string(), valores: z.array(z.string()) }),
  'One attribute of a product: its code and its values.',
);

export const Product = component(
  'Product',
  z.strictObject({
    id: uuid,
    id_externo: z.string().nullable(),
    origem: z.string(),
    sku: z.string().nullable(),
    descricao: z.string().nullable(),
    ncm: z
      .string()
      .regex(/^[0-9]{8}$/)
      .meta({ description: '8 digits' }),
    atributos: z.array(ProductAttribute).meta({ description: 'complete list' }),
    versao: int,
    ativo: z.boolean(),
    catalogos: z.array(uuid).meta({ description: 'catalogs the product is linked to' }),
  }),
  'A product, shared between the catalogs it is linked to (spec "Resources › Product"); answered with its ETag.',
);

export const ProductPage = component(
  'ProductPage',
  choice(
    z.strictObject({
      itens: z.array(Product),
      proximo_cursor: z
        .string()
        .nullable()
        .meta({ description: 'pass it as cursor for the next page; null on the last page' }),
    }),
    "The spec does not show the payload of the product lists: itens and an opaque proximo_cursor, as in the spec's surveillance execution and analysis lists.",
  ),
  'A page of products: up to limite items within a byte budget.',
);
