/**
 * CNPJ correction requests (spec "POST /v1/estabelecimentos/{id}/correcoes-cnpj", "CNPJ correction request
 * acceptance"): the CNPJ of an establishment is not edited directly; a correction is accepted durably
 * (`pendente`) and reviewed later on the virtual clock.
 *
 *   pendente --aprovar-->  aprovada   (the establishment takes cnpj_novo; its versao moves)
 *   pendente --rejeitar--> rejeitada  (codigo_rejeicao says why: the establishment changed since versao_esperada,
 *                                      cnpj_novo was taken meanwhile, or the review refused it — a `job` fault)
 *   aprovada, rejeitada are final.
 *
 * At acceptance cnpj_novo must already be a valid CNPJ of the company's root, free in the company, and not the
 * current one; an establishment has at most one pending correction.
 */
import { cnpjRoot, isValidCnpj } from './cnpj.js';
import {
  establishmentEtag,
  establishmentTransition,
  findEstablishment,
  replace as replaceEstablishment,
} from './establishments.js';
import { replaceCatalog } from './catalogs.js';
import { schedule } from './outbox.js';
import { uuidV7 } from './random.js';
import { ok, refuse, type Result } from './refusal.js';
import { indexesOf, nextPosition, ownedBy, positioned, type Context, type KindSlice, type State } from './state.js';
import { at, repeated, repeatedId } from './integrity.js';
import { HOUR, type Instant } from './time.js';
import { requireMatch, type IfMatch } from './versioning.js';
import type { Job } from './jobs.js';
import type { Lifecycle } from './lifecycle.js';

type CorrectionState = 'pendente' | 'aprovada' | 'rejeitada';
type CorrectionEvent = 'aprovar' | 'rejeitar';

/** spec: CNPJ-03 (pendente on acceptance); the spec shows no other state or transition: these are the emulator's. */
const LIFECYCLE: Lifecycle<CorrectionState, CorrectionEvent> = {
  pendente: { aprovar: 'aprovada', rejeitar: 'rejeitada' },
  aprovada: {},
  rejeitada: {},
};

/** docs/api.md "CNPJ corrections": how long the review takes, in virtual time. */
export const REVIEW_DELAY_MS = HOUR;
export const TASK_REVIEW = 'cnpj.revisao';

const REJECTION_CODES = {
  /** The establishment changed (any edit, a catalog, an archive) after the version the request was made against. */
  changed: 'estabelecimento_alterado',
  /** Another establishment of the company took cnpj_novo meanwhile. */
  taken: 'cnpj_em_uso',
  /** The review refused the number (simulated with a `job` fault of kind `revisao_cnpj`). */
  refused: 'cnpj_recusado',
} as const;

/** Every `codigo_rejeicao` a review can decide: what a restored snapshot may hold, and what the document lists. */
export const REJECTION_CODE_VALUES = [REJECTION_CODES.changed, REJECTION_CODES.taken, REJECTION_CODES.refused] as const;
type RejectionCode = (typeof REJECTION_CODE_VALUES)[number];

export interface CnpjCorrection {
  readonly id: string;
  readonly companyId: string;
  readonly establishmentId: string;
  readonly cnpjNovo: string;
  readonly motivo: string;
  readonly versaoEsperada: number;
  readonly estado: CorrectionState;
  readonly codigoRejeicao: RejectionCode | null;
  readonly criadoEm: Instant;
  readonly decididoEm: Instant | null;
  readonly position: number;
}

export interface CorrectionRequest {
  readonly cnpjNovo: string;
  readonly motivo: string;
}

export function requestCnpjCorrection(
  state: State,
  companyId: string,
  establishmentId: string,
  ifMatch: IfMatch,
  input: CorrectionRequest,
  ctx: Context,
): Result<CnpjCorrection> {
  const company = state.companies.get(companyId);
  if (!company)
    return refuse('not_found', 'empresa_nao_encontrada', 'The company of this credential no longer exists.');
  // Input validation (422) comes before the resource checks (docs/api.md "Rules every request follows").
  if (!isValidCnpj(input.cnpjNovo)) {
    return refuse(
      'invalid',
      'cnpj_invalido',
      'cnpj_novo must be 12 characters of A-Z and 0-9 followed by 2 check digits (Receita Federal rule), uppercase and without punctuation.',
      'body.cnpj_novo',
    );
  }
  if (cnpjRoot(input.cnpjNovo) !== company.cnpjRoot) {
    return refuse(
      'invalid',
      'cnpj_raiz_divergente',
      `cnpj_novo must start with the company's root ${company.cnpjRoot}: a correction keeps the establishment in its company.`,
      'body.cnpj_novo',
    );
  }
  const found = findEstablishment(state, companyId, establishmentId);
  if (!found.ok) return found;
  const establishment = found.value;
  const matched = requireMatch(ifMatch, establishmentEtag(establishment), 'establishment');
  if (!matched.ok) return matched;
  const allowed = establishmentTransition(establishment, 'corrigir_cnpj');
  if (!allowed.ok) return allowed;
  const pending = state.pendingCnpjCorrections.get(establishmentId);
  if (pending !== undefined) {
    return refuse(
      'conflict',
      'correcao_pendente',
      `Establishment ${establishmentId} already has pending correction ${pending}; follow it at /v1/correcoes-cnpj/${pending}.`,
    );
  }
  if (input.cnpjNovo === establishment.cnpj) {
    return refuse(
      'conflict',
      'cnpj_inalterado',
      `Establishment ${establishmentId} already has CNPJ ${input.cnpjNovo}.`,
      'body.cnpj_novo',
    );
  }
  const holder = indexesOf(state, companyId).establishmentsByCnpj.get(input.cnpjNovo);
  if (holder !== undefined) {
    return refuse(
      'conflict',
      'cnpj_duplicado',
      `Establishment ${holder} of the company already has CNPJ ${input.cnpjNovo} (archived ones count too).`,
      'body.cnpj_novo',
    );
  }
  const correction: CnpjCorrection = {
    id: uuidV7(ctx.random, ctx.now),
    companyId,
    establishmentId,
    cnpjNovo: input.cnpjNovo,
    motivo: input.motivo,
    versaoEsperada: establishment.versao,
    estado: 'pendente',
    codigoRejeicao: null,
    criadoEm: ctx.now,
    decididoEm: null,
    position: nextPosition(state),
  };
  addCorrection(state, correction);
  schedule(state, {
    kind: TASK_REVIEW,
    owner: companyId,
    due: ctx.now + REVIEW_DELAY_MS,
    payload: { correctionId: correction.id },
  });
  return ok(correction);
}

export function findCnpjCorrection(state: State, companyId: string, id: string): Result<CnpjCorrection> {
  const correction = ownedBy(state.cnpjCorrections, companyId, id);
  if (!correction)
    return refuse('not_found', 'correcao_nao_encontrada', `No CNPJ correction ${id} in this company.`, 'path.id');
  return ok(correction);
}

/**
 * The review: approves when the establishment is still at `versao_esperada` and cnpj_novo still free; else
 * rejects with the reason. `refusedByReview` is the outcome of the (simulated) external check.
 */
export function reviewCnpjCorrection(
  state: State,
  correctionId: string,
  refusedByReview: boolean,
  ctx: Context,
): CnpjCorrection | undefined {
  const correction = state.cnpjCorrections.get(correctionId);
  if (!correction) return undefined;
  // Its state takes both only while pendente: a review task that finds it decided (a state restored meanwhile) leaves it.
  const { aprovar, rejeitar } = LIFECYCLE[correction.estado];
  if (aprovar === undefined || rejeitar === undefined) return undefined;
  const establishment = state.establishments.get(correction.establishmentId);
  const holder = indexesOf(state, correction.companyId).establishmentsByCnpj.get(correction.cnpjNovo);
  const rejection = refusedByReview
    ? REJECTION_CODES.refused
    : !establishment ||
        establishment.versao !== correction.versaoEsperada ||
        establishmentTransition(establishment, 'corrigir_cnpj').ok === false
      ? REJECTION_CODES.changed
      : holder !== undefined
        ? REJECTION_CODES.taken
        : null;
  const decided: CnpjCorrection = {
    ...correction,
    estado: rejection === null ? aprovar : rejeitar,
    codigoRejeicao: rejection,
    decididoEm: ctx.now,
  };
  state.cnpjCorrections.set(decided.id, decided);
  state.pendingCnpjCorrections.delete(correction.establishmentId);
  if (rejection === null && establishment) applyCnpj(state, establishment.id, correction.cnpjNovo, ctx);
  return decided;
}

/** The establishment takes the new CNPJ; its active catalog shows it too (cnpj_estabelecimento), so both versions move. */
function applyCnpj(state: State, establishmentId: string, cnpj: string, ctx: Context): void {
  const establishment = state.establishments.get(establishmentId)!;
  const byCnpj = indexesOf(state, establishment.companyId).establishmentsByCnpj;
  byCnpj.delete(establishment.cnpj);
  byCnpj.set(cnpj, establishment.id);
  replaceEstablishment(state, establishment, { cnpj }, ctx);
  const catalog = establishment.catalogoId === null ? undefined : state.catalogs.get(establishment.catalogoId);
  if (catalog) replaceCatalog(state, catalog, {}, ctx);
}

/** The review of a CNPJ correction: a `fail` fault makes the review refuse it. */
export const cnpjReviewJob: Job = {
  task: TASK_REVIEW,
  nature: 'work',
  subject: 'correctionId',
  faults: { kind: 'revisao_cnpj', effects: 'both' },
  run: (state, payload, ctx, failed) => void reviewCnpjCorrection(state, payload.correctionId!, failed, ctx),
};

/** A new (or restored) correction; while pendente, its establishment's pending one. */
function addCorrection(state: State, correction: CnpjCorrection): void {
  state.cnpjCorrections.set(correction.id, correction);
  if (correction.estado === 'pendente') state.pendingCnpjCorrections.set(correction.establishmentId, correction.id);
}

export const cnpjCorrectionsSlice: KindSlice<'cnpjCorrections', readonly CnpjCorrection[], CnpjCorrection> = {
  ...positioned('cnpjCorrections', (state) => state.cnpjCorrections, addCorrection, false),
  holds: ['cnpjCorrections', 'pendingCnpjCorrections'],
  removeCompany: (state, companyId) => {
    for (const [id, correction] of state.cnpjCorrections) {
      if (correction.companyId !== companyId) continue;
      state.cnpjCorrections.delete(id);
      if (state.pendingCnpjCorrections.get(correction.establishmentId) === id)
        state.pendingCnpjCorrections.delete(correction.establishmentId);
    }
  },
  unique: (corrections) => repeatedId('cnpjCorrections', corrections, 'CNPJ correction'),
  check: (data, r) => {
    for (const [i, c] of data.cnpjCorrections.entries()) {
      if (r.establishments.get(c.establishmentId)?.companyId !== c.companyId)
        return at(
          ['cnpjCorrections', i, 'establishmentId'],
          `CNPJ correction ${c.id}: establishment ${c.establishmentId} is not of its company`,
        );
      // An approval gives the establishment this CNPJ: it keeps the establishment in its company.
      const root = r.companies.get(c.companyId)!.cnpjRoot;
      if (cnpjRoot(c.cnpjNovo) !== root)
        return at(
          ['cnpjCorrections', i, 'cnpjNovo'],
          `CNPJ correction ${c.id}: ${c.cnpjNovo} does not start with its company's root ${root}`,
        );
    }
    return repeated(
      'cnpjCorrections',
      data.cnpjCorrections,
      'estado',
      (c) => (c.estado === 'pendente' ? c.establishmentId : undefined),
      (c) => `a pending CNPJ correction of establishment ${c.establishmentId}`,
    );
  },
};
