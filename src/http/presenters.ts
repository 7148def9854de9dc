/** Core records as the spec's wire representations: exactly the spec's fields, Portuguese snake_case. */
import { productCount, type Catalog } from '../core/catalogs.js';
import type { CnpjCorrection } from '../core/cnpj-corrections.js';
import type { Company } from '../core/companies.js';
import type { Finding } from '../core/regulatory/rules.js';
import type { Establishment } from '../core/establishments.js';
import type { Product } from '../core/products.js';
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
  return { id: c.id, tipo: 'correcao_cnpj', estabelecimento_id: c.establishmentId, versao_esperada: c.versaoEsperada, estado: c.estado };
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
