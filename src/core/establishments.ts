/**
 * Establishments: the head office and branches of a company, each identified by its CNPJ (spec
 * "Establishment"). Lifecycle (spec: "transitions: not shown"; docs/where-the-spec-is-silent.md "Establishments"):
 *
 *   ativo     --editar-->            ativo
 *   ativo     --receber_catalogo-->  ativo      (a catalog is created for it; catalogo_id set)
 *   ativo     --arquivar-->          arquivado  (only while it has no active catalog)
 *   ativo     --corrigir_cnpj-->     ativo      (an approved CNPJ correction: cnpj changes, versao moves)
 *   arquivado  is final and read-only: no edit, no new catalog.
 */
import { cnpjRoot, isValidCnpj } from './cnpj.js';
import { uuidV7 } from './random.js';
import { ok, refuse, type Result } from './refusal.js';
import { indexesOf, nextPosition, ownedBy, positioned, type Context, type KindSlice, type State } from './state.js';
import { at, repeated, repeatedId } from './integrity.js';
import type { Instant } from './time.js';
import { etag, requireMatch, type IfMatch } from './versioning.js';
import type { Lifecycle } from './lifecycle.js';

export type EstablishmentState = 'ativo' | 'arquivado';
type EstablishmentEvent = 'editar' | 'receber_catalogo' | 'arquivar' | 'corrigir_cnpj';

/** spec: EST-02 (the states). */
const LIFECYCLE: Lifecycle<EstablishmentState, EstablishmentEvent> = {
  ativo: { editar: 'ativo', receber_catalogo: 'ativo', arquivar: 'arquivado', corrigir_cnpj: 'ativo' },
  arquivado: {},
};

export interface Establishment {
  readonly id: string;
  readonly companyId: string;
  readonly cnpj: string;
  readonly nome: string;
  readonly estado: EstablishmentState;
  readonly versao: number;
  readonly catalogoId: string | null;
  readonly idExterno: string | null;
  readonly position: number;
  readonly criadoEm: Instant;
  readonly atualizadoEm: Instant;
}

export const establishmentEtag = (e: Establishment): string => etag('estabelecimento', e.id, e.versao);

/** The state an event leads to, or the refusal when the lifecycle does not allow it. */
export function establishmentTransition(e: Establishment, event: EstablishmentEvent): Result<EstablishmentState> {
  const next = LIFECYCLE[e.estado][event];
  if (next !== undefined) return ok(next);
  return refuse(
    'conflict',
    'estabelecimento_arquivado',
    `Establishment ${e.id} is archived: it takes no change and no new catalog.`,
  );
}

export interface NewEstablishment {
  readonly cnpj: string;
  readonly nome: string;
  readonly idExterno?: string | null;
}

export function registerEstablishment(
  state: State,
  companyId: string,
  input: NewEstablishment,
  ctx: Context,
): Result<Establishment> {
  const company = state.companies.get(companyId);
  if (!company)
    return refuse('not_found', 'empresa_nao_encontrada', 'The company of this credential no longer exists.');
  if (!isValidCnpj(input.cnpj)) {
    return refuse(
      'invalid',
      'cnpj_invalido',
      'cnpj must be 12 characters of A-Z and 0-9 followed by 2 check digits (Receita Federal rule), uppercase and without punctuation.',
      'body.cnpj',
    );
  }
  if (cnpjRoot(input.cnpj) !== company.cnpjRoot) {
    return refuse(
      'invalid',
      'cnpj_raiz_divergente',
      `cnpj must start with the company's root ${company.cnpjRoot}.`,
      'body.cnpj',
    );
  }
  const existing = indexesOf(state, companyId).establishmentsByCnpj.get(input.cnpj);
  if (existing !== undefined) {
    return refuse(
      'conflict',
      'cnpj_duplicado',
      `The company already has establishment ${existing} with CNPJ ${input.cnpj} (archived ones count too).`,
      'body.cnpj',
    );
  }
  return ok(insert(state, companyId, input, ctx));
}

/** The head office, made with its company (docs/where-the-spec-is-silent.md); its CNPJ is built, so needs no checks. */
export function registerHeadOffice(
  state: State,
  input: { companyId: string; cnpj: string; nome: string },
  ctx: Context,
): Establishment {
  return insert(state, input.companyId, { cnpj: input.cnpj, nome: input.nome }, ctx);
}

function insert(state: State, companyId: string, input: NewEstablishment, ctx: Context): Establishment {
  const establishment: Establishment = {
    id: uuidV7(ctx.random, ctx.now),
    companyId,
    cnpj: input.cnpj,
    nome: input.nome,
    estado: 'ativo',
    versao: 1,
    catalogoId: null,
    idExterno: input.idExterno ?? null,
    position: nextPosition(state),
    criadoEm: ctx.now,
    atualizadoEm: ctx.now,
  };
  addEstablishment(state, establishment);
  return establishment;
}

/** A new (or restored) establishment, in its company's list and CNPJ index. */
function addEstablishment(state: State, establishment: Establishment): void {
  state.establishments.set(establishment.id, establishment);
  indexesOf(state, establishment.companyId).establishmentsByCnpj.set(establishment.cnpj, establishment.id);
}

export const establishmentsSlice: KindSlice<'establishments', readonly Establishment[], Establishment> = {
  ...positioned('establishments', (state) => state.establishments, addEstablishment, true),
  removeCompany: (state, companyId) => state.establishments.dropCompany(companyId),
  holds: ['establishments'],
  indexes: ['establishmentsByCnpj'],
  unique: (establishments) =>
    repeatedId('establishments', establishments, 'establishment') ??
    repeated(
      'establishments',
      establishments,
      'cnpj',
      (e) => `${e.companyId} ${e.cnpj}`,
      (e) => `CNPJ ${e.cnpj} in company ${e.companyId}`,
    ),
  check: (data, r) => {
    for (const [i, e] of data.establishments.entries()) {
      const company = r.companies.get(e.companyId);
      if (!company)
        return at(
          ['establishments', i, 'companyId'],
          `establishment ${e.id} belongs to unknown company ${e.companyId}`,
        );
      if (cnpjRoot(e.cnpj) !== company.cnpjRoot)
        return at(
          ['establishments', i, 'cnpj'],
          `establishment ${e.id}: CNPJ ${e.cnpj} does not start with its company's root ${company.cnpjRoot}`,
        );
      if (e.catalogoId === null) continue;
      const catalog = r.catalogs.get(e.catalogoId);
      if (catalog?.establishmentId !== e.id || catalog.estado !== 'ativo')
        return at(
          ['establishments', i, 'catalogoId'],
          `establishment ${e.id}: catalog ${e.catalogoId} is not an active catalog of it`,
        );
      if (e.estado === 'arquivado')
        return at(
          ['establishments', i, 'catalogoId'],
          `establishment ${e.id} is archived, so it has no active catalog`,
        );
    }
    return undefined;
  },
};

export function findEstablishment(
  state: State,
  companyId: string,
  id: string,
  caminho = 'path.id',
): Result<Establishment> {
  const establishment = ownedBy(state.establishments, companyId, id);
  if (!establishment)
    return refuse('not_found', 'estabelecimento_nao_encontrado', `No establishment ${id} in this company.`, caminho);
  return ok(establishment);
}

export interface EstablishmentChanges {
  readonly nome?: string;
  readonly idExterno?: string | null;
}

export function editEstablishment(
  state: State,
  companyId: string,
  id: string,
  ifMatch: IfMatch,
  changes: EstablishmentChanges,
  ctx: Context,
): Result<Establishment> {
  const found = findEstablishment(state, companyId, id);
  if (!found.ok) return found;
  const current = found.value;
  const matched = requireMatch(ifMatch, establishmentEtag(current), 'establishment');
  if (!matched.ok) return matched;
  const next = establishmentTransition(current, 'editar');
  if (!next.ok) return next;
  return ok(
    replace(
      state,
      current,
      {
        nome: changes.nome ?? current.nome,
        idExterno: changes.idExterno === undefined ? current.idExterno : changes.idExterno,
      },
      ctx,
    ),
  );
}

export function archiveEstablishment(
  state: State,
  companyId: string,
  id: string,
  ifMatch: IfMatch,
  ctx: Context,
): Result<Establishment> {
  const found = findEstablishment(state, companyId, id);
  if (!found.ok) return found;
  const current = found.value;
  const matched = requireMatch(ifMatch, establishmentEtag(current), 'establishment');
  if (!matched.ok) return matched;
  const next = establishmentTransition(current, 'arquivar');
  if (!next.ok) return next;
  if (current.catalogoId !== null) {
    return refuse(
      'conflict',
      'estabelecimento_com_catalogo_ativo',
      `Establishment ${id} has active catalog ${current.catalogoId}; delete that catalog before archiving.`,
    );
  }
  return ok(replace(state, current, { estado: next.value }, ctx));
}

/**
 * The establishment's active catalog changed (created now, or deleted later). Its `catalogo_id` is part of
 * its representation, so its `versao` and ETag move too.
 */
export function setActiveCatalog(
  state: State,
  establishment: Establishment,
  catalogoId: string | null,
  ctx: Context,
): Establishment {
  return replace(state, establishment, { catalogoId }, ctx);
}

/** A new version of the establishment with `changes`: `versao` + 1, `atualizado_em` = now. */
export function replace(
  state: State,
  current: Establishment,
  changes: Partial<Pick<Establishment, 'nome' | 'idExterno' | 'estado' | 'catalogoId' | 'cnpj'>>,
  ctx: Context,
): Establishment {
  const updated: Establishment = { ...current, ...changes, versao: current.versao + 1, atualizadoEm: ctx.now };
  state.establishments.set(updated.id, updated);
  return updated;
}

export function* establishmentsAfter(state: State, companyId: string, position?: number): Generator<Establishment> {
  for (const [id] of state.establishments.listOf(companyId).after(position)) {
    const establishment = state.establishments.get(id);
    if (establishment) yield establishment;
  }
}
