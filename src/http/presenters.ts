/** Core records as the spec's wire representations: exactly the spec's fields, Portuguese snake_case. */
import { productCount, type Catalog } from '../core/catalogs.js';
import type { Company } from '../core/companies.js';
import type { Establishment } from '../core/establishments.js';
import type { Product } from '../core/products.js';
import type { State } from '../core/state.js';
import { isoString } from '../core/time.js';

export function presentEstablishment(e: Establishment) {
  return {
    id: e.id,
    cnpj: e.cnpj,
    nome: e.nome,
    estado: e.estado,
    versao: e.versao,
    catalogo_id: e.catalogoId,
    id_externo: e.idExterno,
  };
}

export function presentCatalog(state: State, c: Catalog) {
  return {
    id: c.id,
    id_externo: c.idExterno,
    estabelecimento_id: c.establishmentId,
    cnpj_estabelecimento: state.establishments.get(c.establishmentId)?.cnpj ?? '',
    nome: c.nome,
    estado: c.estado,
    versao: c.versao,
    produtos: productCount(state, c),
    criado_em: isoString(c.criadoEm),
    atualizado_em: isoString(c.atualizadoEm),
    excluido_em: c.excluidoEm === null ? null : isoString(c.excluidoEm),
  };
}

export function presentProduct(p: Product) {
  return {
    id: p.id,
    id_externo: p.idExterno,
    origem: p.origem,
    sku: p.sku,
    descricao: p.descricao,
    ncm: p.ncm,
    atributos: p.atributos,
    versao: p.versao,
    ativo: p.ativo,
    catalogos: p.catalogos,
  };
}

export function presentCompany(c: Company) {
  return { id: c.id, cnpj_raiz: c.cnpjRoot, nome: c.name };
}
