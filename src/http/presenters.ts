/** Core records as the spec's wire representations: exactly the spec's fields, Portuguese snake_case. */
import { catalogEtag, productCount, type Catalog } from '../core/catalogs.js';
import type { CnpjCorrection } from '../core/cnpj-corrections.js';
import type { Company } from '../core/companies.js';
import type { Finding } from '../core/regulatory/rules.js';
import type { Establishment } from '../core/establishments.js';
import { productEtag, type Product } from '../core/products.js';
import type { State } from '../core/state.js';
import { isoString } from '../core/time.js';
import type { WebhookDestination } from '../core/webhooks/destination.js';
import { attemptsInCycle, type DeliveryAttempt, type WebhookEvent } from '../core/webhooks/events.js';

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
  return catalogBody(c, cnpjOf(state, c), productCount(state, c));
}

function catalogBody(c: Catalog, cnpj: string, produtos: number) {
  return {
    id: c.id,
    id_externo: c.idExterno,
    estabelecimento_id: c.establishmentId,
    cnpj_estabelecimento: cnpj,
    nome: c.nome,
    estado: c.estado,
    versao: c.versao,
    produtos,
    criado_em: isoString(c.criadoEm),
    atualizado_em: isoString(c.atualizadoEm),
    excluido_em: c.excluidoEm === null ? null : isoString(c.excluidoEm),
  };
}

/** A resource's answer: its representation as JSON text, and its ETag. */
export interface Presented {
  readonly json: string;
  readonly etag: string;
}

/*
 * A record is immutable and replaced whole when it changes (its versao moves), so the record object is its
 * version: a read keeps its answer, and every later read of the same version reuses it (dates formatted, JSON
 * written, ETag hashed once). Weak: an answer lives as long as its record version. Only reads keep one: the
 * answer of a change is of a version nobody has read yet, and a WeakMap.set for each new version costs a PATCH
 * as much as the JSON it keeps.
 */
const productAnswers = new WeakMap<Product, Presented>();
const catalogAnswers = new WeakMap<Catalog, Presented & { readonly cnpj: string; readonly produtos: number }>();

/** A product's answer; `read`: the answer of a read, kept for the next read of this version. */
export function presentedProduct(p: Product, read: boolean): Presented {
  let presented = productAnswers.get(p);
  if (presented === undefined) {
    presented = { json: JSON.stringify(presentProduct(p)), etag: productEtag(p) };
    if (read) productAnswers.set(p, presented);
  }
  return presented;
}

/**
 * A catalog's answer (`read`: kept, as a product's). Two of its fields are not the record's: its
 * establishment's CNPJ (a correction changes it) and its count of products; a kept answer is used only while both
 * are still what it says.
 */
export function presentedCatalog(state: State, c: Catalog, read: boolean): Presented {
  const cnpj = cnpjOf(state, c);
  const produtos = productCount(state, c);
  let presented = catalogAnswers.get(c);
  if (presented === undefined || presented.cnpj !== cnpj || presented.produtos !== produtos) {
    presented = { json: JSON.stringify(catalogBody(c, cnpj, produtos)), etag: catalogEtag(c), cnpj, produtos };
    if (read) catalogAnswers.set(c, presented);
  }
  return presented;
}

const cnpjOf = (state: State, c: Catalog): string => state.establishments.get(c.establishmentId)?.cnpj ?? '';

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

export function presentDestination(d: WebhookDestination) {
  return { id: d.id, versao: d.versao, estado: d.estado, url: d.url };
}

export function presentEventItem(e: WebhookEvent) {
  return {
    id: e.id,
    tipo: e.tipo,
    ocorrido_em: isoString(e.ocorridoEm),
    destino_id: e.destinoId,
    destino_versao: e.destinoVersao,
    estado: e.estado,
    tentativas_ciclo: attemptsInCycle(e),
    tentativas_totais: e.attempts.length,
    status_http: e.statusHttp,
    criado_em: isoString(e.criadoEm),
    prazo_em: isoString(e.prazoEm),
  };
}

/** The detail: the list item, the cycle's timing and failure, and `evento`: the envelope's exact bytes spliced in. */
export function presentEventDetail(e: WebhookEvent): string {
  const detail = {
    ...presentEventItem(e),
    terminado_em: e.terminadoEm === null ? null : isoString(e.terminadoEm),
    proxima_tentativa_em: e.proximaTentativaEm === null ? null : isoString(e.proximaTentativaEm),
    codigo_falha: e.codigoFalha,
  };
  return `${JSON.stringify(detail).slice(0, -1)},"evento":${e.body}}`;
}

export function presentAttempt(a: DeliveryAttempt) {
  return {
    tentativa: a.tentativa,
    destino_versao: a.destinoVersao,
    estado: a.estado,
    iniciada_em: isoString(a.iniciadaEm),
    terminada_em: a.terminadaEm === null ? null : isoString(a.terminadaEm),
    codigo_falha: a.codigoFalha,
    status_http: a.statusHttp,
  };
}

/** The acceptance (spec "CNPJ correction request acceptance"): exactly its five fields. */
export function presentCorrectionAcceptance(c: CnpjCorrection) {
  return {
    id: c.id,
    tipo: 'correcao_cnpj',
    estabelecimento_id: c.establishmentId,
    versao_esperada: c.versaoEsperada,
    estado: c.estado,
  };
}

/** GET /v1/correcoes-cnpj/{id}: the acceptance fields, what was asked, and the decision. */
export function presentCorrection(c: CnpjCorrection) {
  return {
    ...presentCorrectionAcceptance(c),
    cnpj_novo: c.cnpjNovo,
    motivo: c.motivo,
    criado_em: isoString(c.criadoEm),
    decidido_em: c.decididoEm === null ? null : isoString(c.decididoEm),
    codigo_rejeicao: c.codigoRejeicao,
  };
}

/** A finding (spec "Surveillance finding"); an analysis evaluates afresh, so its findings are never reused. */
export function presentFinding(f: Finding & { readonly reaproveitado?: boolean }) {
  return {
    produto_id: f.produto_id,
    ncm: f.ncm,
    tipo: f.tipo,
    detalhe: f.detalhe,
    avaliado_em: isoString(f.avaliado_em),
    snapshot_id: f.snapshot_id,
    reaproveitado: f.reaproveitado ?? false,
  };
}
