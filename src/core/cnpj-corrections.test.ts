/**
 * The pure core of CNPJ corrections (src/core/cnpj-corrections.ts): the refusals of a request in the
 * documented order, the review's approval and its three rejections, the lifecycle's finality, the index of
 * pending corrections, and the review intent left in the outbox.
 */
import { describe, expect, it } from 'vitest';
import { createCatalog } from './catalogs.js';
import {
  findCnpjCorrection,
  REVIEW_DELAY_MS,
  requestCnpjCorrection,
  reviewCnpjCorrection,
  TASK_REVIEW,
  type CnpjCorrection,
} from './cnpj-corrections.js';
import { createCompany } from './companies.js';
import {
  archiveEstablishment,
  editEstablishment,
  establishmentEtag,
  registerEstablishment,
  type Establishment,
} from './establishments.js';
import { createRandom, seedRandom } from './random.js';
import type { Result } from './refusal.js';
import { indexesOf, type Context, type State } from './state.js';
import { createState } from './slices.js';
import { T0, CORE_CONFIG, ROOT, OTHER_ROOT, cnpj, expectRefusal, unwrap } from './testing/support.js';
import { HOUR, MINUTE } from './time.js';

const MOTIVO = 'Digitação errada';

interface World {
  readonly state: State;
  readonly companyId: string;
  readonly headOffice: Establishment;
  readonly branch: Establishment;
  readonly ctx: (now?: number) => Context;
}

function setup(): World {
  const state = createState();
  const random = createRandom(seedRandom(1));
  const ctx = (now = T0): Context => ({ now, random, config: CORE_CONFIG });
  const created = unwrap(createCompany(state, { cnpjRoot: ROOT }, ctx()));
  const branch = unwrap(
    registerEstablishment(state, created.company.id, { cnpj: cnpj(ROOT, '0002'), nome: 'Filial' }, ctx()),
  );
  state.outbox.length = 0;
  return { state, companyId: created.company.id, headOffice: created.headOffice, branch, ctx };
}

const etagOf = (w: World, id: string) => establishmentEtag(w.state.establishments.get(id)!);

/** A request; `ifMatch` 'current' sends the establishment's current ETag, null sends no If-Match. */
function ask(
  w: World,
  establishmentId: string,
  cnpjNovo: string,
  ifMatch: readonly string[] | null | 'current' = 'current',
  now = T0,
): Result<CnpjCorrection> {
  const sent = ifMatch === 'current' ? [etagOf(w, establishmentId)] : ifMatch === null ? undefined : ifMatch;
  return requestCnpjCorrection(w.state, w.companyId, establishmentId, sent, { cnpjNovo, motivo: MOTIVO }, w.ctx(now));
}

/** What a refusal must leave alone: no correction, no pending entry, no intent, no position handed out. */
function fingerprint(w: World) {
  return {
    corrections: [...w.state.cnpjCorrections.values()],
    pending: [...w.state.pendingCnpjCorrections.entries()],
    outbox: [...w.state.outbox],
    sequence: w.state.sequence,
    establishments: [...w.state.establishments.values()],
    byCnpj: [...indexesOf(w.state, w.companyId).establishmentsByCnpj.entries()],
  };
}

describe('requestCnpjCorrection', () => {
  it("accepts: a pendente correction against the establishment's versao now, changing nothing on the establishment", () => {
    const w = setup();
    const edited = unwrap(
      editEstablishment(w.state, w.companyId, w.branch.id, [establishmentEtag(w.branch)], { nome: 'Outra' }, w.ctx()),
    );
    const novo = cnpj(ROOT, 'AB12');
    const now = T0 + 12_345;
    const correction = unwrap(ask(w, w.branch.id, novo, [establishmentEtag(edited)], now));
    expect(correction).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      companyId: w.companyId,
      establishmentId: w.branch.id,
      cnpjNovo: novo,
      motivo: MOTIVO,
      versaoEsperada: 2,
      estado: 'pendente',
      codigoRejeicao: null,
      criadoEm: now,
      decididoEm: null,
      position: expect.any(Number),
    });
    expect(w.state.cnpjCorrections.get(correction.id)).toBe(correction);
    expect(w.state.establishments.get(w.branch.id)).toBe(edited);
    expect(indexesOf(w.state, w.companyId).establishmentsByCnpj.get(novo)).toBeUndefined();
  });

  it('leaves one review intent in the outbox, due one hour later, owned by the company', () => {
    const w = setup();
    const now = T0 + 7 * MINUTE + 3;
    const correction = unwrap(ask(w, w.branch.id, cnpj(ROOT, '0003'), 'current', now));
    expect(REVIEW_DELAY_MS).toBe(HOUR);
    expect(w.state.outbox).toEqual([
      { kind: TASK_REVIEW, owner: w.companyId, due: now + HOUR, payload: { correctionId: correction.id } },
    ]);
    expect(TASK_REVIEW).toBe('cnpj.revisao');
  });

  it('indexes the pending correction by establishment, one at most', () => {
    const w = setup();
    const correction = unwrap(ask(w, w.branch.id, cnpj(ROOT, '0003')));
    expect([...w.state.pendingCnpjCorrections.entries()]).toEqual([[w.branch.id, correction.id]]);
    const other = unwrap(ask(w, w.headOffice.id, cnpj(ROOT, '0004')));
    expect(w.state.pendingCnpjCorrections.get(w.headOffice.id)).toBe(other.id);
    expect(w.state.pendingCnpjCorrections.size).toBe(2);
  });

  describe('refuses, in the documented order, changing nothing', () => {
    /** A world where every later refusal applies too: a pending correction on the branch, which is then archived. */
    function crowded() {
      const w = setup();
      const pending = unwrap(ask(w, w.headOffice.id, cnpj(ROOT, '0009')));
      const gone = unwrap(
        registerEstablishment(w.state, w.companyId, { cnpj: cnpj(ROOT, '0005'), nome: 'Arquivada' }, w.ctx()),
      );
      const archived = unwrap(archiveEstablishment(w.state, w.companyId, gone.id, [establishmentEtag(gone)], w.ctx()));
      w.state.outbox.length = 0;
      return { w, pending, archived };
    }

    it('empresa_nao_encontrada for a company that does not exist', () => {
      const { w } = crowded();
      const before = fingerprint(w);
      const result = requestCnpjCorrection(
        w.state,
        'no-such-company',
        w.branch.id,
        undefined,
        { cnpjNovo: 'X', motivo: MOTIVO },
        w.ctx(),
      );
      expectRefusal(result, 'not_found', 'empresa_nao_encontrada');
      expect(fingerprint(w)).toEqual(before);
    });

    it('then cnpj_invalido at body.cnpj_novo, before the establishment is looked up or If-Match checked', () => {
      const { w, archived } = crowded();
      const before = fingerprint(w);
      const base = cnpj(ROOT, '0007');
      const wrongDigit = `${base.slice(0, 13)}${(Number(base.charAt(13)) + 1) % 10}`;
      for (const bad of [
        '',
        'X',
        wrongDigit,
        cnpj(ROOT, 'AB12').toLowerCase(),
        `${base.slice(0, 2)}.${base.slice(2)}`,
        `${base}0`,
      ]) {
        expectRefusal(ask(w, 'unknown-establishment', bad, null), 'invalid', 'cnpj_invalido', 'body.cnpj_novo');
        expectRefusal(ask(w, archived.id, bad, ['"stale"']), 'invalid', 'cnpj_invalido', 'body.cnpj_novo');
      }
      expect(fingerprint(w)).toEqual(before);
    });

    it('then cnpj_raiz_divergente at body.cnpj_novo for a valid CNPJ of another root', () => {
      const { w, archived } = crowded();
      const before = fingerprint(w);
      expectRefusal(
        ask(w, 'unknown-establishment', cnpj(OTHER_ROOT, '0002'), null),
        'invalid',
        'cnpj_raiz_divergente',
        'body.cnpj_novo',
      );
      expectRefusal(
        ask(w, archived.id, cnpj(OTHER_ROOT, '0001'), ['"stale"']),
        'invalid',
        'cnpj_raiz_divergente',
        'body.cnpj_novo',
      );
      expect(fingerprint(w)).toEqual(before);
    });

    it("then estabelecimento_nao_encontrado at path.id, for an unknown or another company's establishment", () => {
      const { w } = crowded();
      const other = unwrap(createCompany(w.state, { cnpjRoot: OTHER_ROOT }, w.ctx()));
      w.state.outbox.length = 0;
      const before = fingerprint(w);
      expectRefusal(
        ask(w, 'unknown-establishment', cnpj(ROOT, '0007'), null),
        'not_found',
        'estabelecimento_nao_encontrado',
        'path.id',
      );
      expectRefusal(
        ask(w, other.headOffice.id, cnpj(ROOT, '0007'), [establishmentEtag(other.headOffice)]),
        'not_found',
        'estabelecimento_nao_encontrado',
        'path.id',
      );
      expect(fingerprint(w)).toEqual(before);
    });

    it('then precondicao_ausente (428) and precondicao_falhou (412) at header.if-match, before the 409s', () => {
      const { w, archived } = crowded();
      const before = fingerprint(w);
      expectRefusal(
        ask(w, archived.id, w.headOffice.cnpj, null),
        'precondition_required',
        'precondicao_ausente',
        'header.if-match',
      );
      expectRefusal(
        ask(w, archived.id, w.headOffice.cnpj, ['"stale"']),
        'precondition_failed',
        'precondicao_falhou',
        'header.if-match',
      );
      expectRefusal(
        ask(w, w.headOffice.id, w.headOffice.cnpj, null),
        'precondition_required',
        'precondicao_ausente',
        'header.if-match',
      );
      expectRefusal(
        ask(w, w.branch.id, w.branch.cnpj, [establishmentEtag({ ...w.branch, versao: 2 })]),
        'precondition_failed',
        'precondicao_falhou',
        'header.if-match',
      );
      expect(fingerprint(w)).toEqual(before);
    });

    it('then estabelecimento_arquivado (409) for an archived establishment, before cnpj_duplicado and cnpj_inalterado', () => {
      const { w, archived } = crowded();
      const before = fingerprint(w);
      expectRefusal(ask(w, archived.id, w.headOffice.cnpj), 'conflict', 'estabelecimento_arquivado');
      expectRefusal(ask(w, archived.id, archived.cnpj), 'conflict', 'estabelecimento_arquivado');
      expectRefusal(ask(w, archived.id, cnpj(ROOT, '0007')), 'conflict', 'estabelecimento_arquivado');
      expect(fingerprint(w)).toEqual(before);
    });

    it('then correcao_pendente (409) while one is pending, before cnpj_inalterado and cnpj_duplicado', () => {
      const { w, pending, archived } = crowded();
      const before = fingerprint(w);
      expectRefusal(ask(w, w.headOffice.id, w.headOffice.cnpj), 'conflict', 'correcao_pendente');
      expectRefusal(ask(w, w.headOffice.id, archived.cnpj), 'conflict', 'correcao_pendente');
      expectRefusal(ask(w, w.headOffice.id, pending.cnpjNovo), 'conflict', 'correcao_pendente');
      expectRefusal(ask(w, w.headOffice.id, cnpj(ROOT, '0007')), 'conflict', 'correcao_pendente');
      expect(fingerprint(w)).toEqual(before);
    });

    it('then cnpj_inalterado (409) at body.cnpj_novo for the current CNPJ, before cnpj_duplicado', () => {
      const { w } = crowded();
      const before = fingerprint(w);
      expectRefusal(ask(w, w.branch.id, w.branch.cnpj), 'conflict', 'cnpj_inalterado', 'body.cnpj_novo');
      expect(fingerprint(w)).toEqual(before);
    });

    it('then cnpj_duplicado (409) at body.cnpj_novo for a CNPJ of another establishment, archived included', () => {
      const { w, archived } = crowded();
      const before = fingerprint(w);
      expectRefusal(ask(w, w.branch.id, w.headOffice.cnpj), 'conflict', 'cnpj_duplicado', 'body.cnpj_novo');
      expectRefusal(ask(w, w.branch.id, archived.cnpj), 'conflict', 'cnpj_duplicado', 'body.cnpj_novo');
      expect(fingerprint(w)).toEqual(before);
    });

    it("accepts once none applies (the crowded world's branch, a free CNPJ, even the one another correction asked for)", () => {
      const { w, pending } = crowded();
      const accepted = unwrap(ask(w, w.branch.id, pending.cnpjNovo));
      expect(accepted.estado).toBe('pendente');
    });
  });
});

describe('reviewCnpjCorrection', () => {
  it('approves an unchanged establishment with a free cnpj_novo: the establishment and its catalog move, the indexes follow', () => {
    const w = setup();
    const catalog = unwrap(
      createCatalog(w.state, w.companyId, { establishmentId: w.branch.id, nome: 'Loja' }, w.ctx()),
    );
    const establishment = w.state.establishments.get(w.branch.id)!;
    expect(establishment.versao).toBe(2);
    const novo = cnpj(ROOT, 'Z9Y8');
    const correction = unwrap(ask(w, w.branch.id, novo));
    w.state.outbox.length = 0;
    const at = T0 + HOUR;
    const decided = reviewCnpjCorrection(w.state, correction.id, false, w.ctx(at));
    expect(decided).toEqual({ ...correction, estado: 'aprovada', codigoRejeicao: null, decididoEm: at });
    expect(w.state.cnpjCorrections.get(correction.id)).toEqual(decided);
    expect(w.state.pendingCnpjCorrections.has(w.branch.id)).toBe(false);
    expect(w.state.establishments.get(w.branch.id)).toEqual({
      ...establishment,
      cnpj: novo,
      versao: 3,
      atualizadoEm: at,
    });
    const byCnpj = indexesOf(w.state, w.companyId).establishmentsByCnpj;
    expect(byCnpj.get(novo)).toBe(w.branch.id);
    expect(byCnpj.has(w.branch.cnpj)).toBe(false);
    expect(byCnpj.get(w.headOffice.cnpj)).toBe(w.headOffice.id);
    expect(w.state.catalogs.get(catalog.id)).toEqual({ ...catalog, versao: catalog.versao + 1, atualizadoEm: at });
    expect(w.state.outbox).toEqual([]);
  });

  it('approves an establishment without a catalog, touching no catalog', () => {
    const w = setup();
    const other = unwrap(
      createCatalog(w.state, w.companyId, { establishmentId: w.headOffice.id, nome: 'Matriz' }, w.ctx()),
    );
    const correction = unwrap(ask(w, w.branch.id, cnpj(ROOT, '0003')));
    const decided = reviewCnpjCorrection(w.state, correction.id, false, w.ctx(T0 + HOUR));
    expect(decided?.estado).toBe('aprovada');
    expect(w.state.catalogs.get(other.id)).toBe(other);
    expect(w.state.establishments.get(w.branch.id)?.cnpj).toBe(cnpj(ROOT, '0003'));
  });

  /** Rejected: the establishment and the CNPJ index are as they were, the pending entry is gone. */
  function expectRejected(
    w: World,
    correction: CnpjCorrection,
    codigo: string,
    at: number,
    review: () => CnpjCorrection | undefined,
  ): void {
    const establishment = w.state.establishments.get(correction.establishmentId);
    const byCnpj = [...indexesOf(w.state, w.companyId).establishmentsByCnpj.entries()];
    const catalogs = [...w.state.catalogs.values()];
    const decided = review();
    expect(decided).toEqual({ ...correction, estado: 'rejeitada', codigoRejeicao: codigo, decididoEm: at });
    expect(w.state.cnpjCorrections.get(correction.id)).toEqual(decided);
    expect(w.state.pendingCnpjCorrections.has(correction.establishmentId)).toBe(false);
    expect(w.state.establishments.get(correction.establishmentId)).toBe(establishment);
    expect([...indexesOf(w.state, w.companyId).establishmentsByCnpj.entries()]).toEqual(byCnpj);
    expect([...w.state.catalogs.values()]).toEqual(catalogs);
  }

  it('rejects with estabelecimento_alterado after an edit', () => {
    const w = setup();
    const correction = unwrap(ask(w, w.branch.id, cnpj(ROOT, '0003')));
    unwrap(
      editEstablishment(
        w.state,
        w.companyId,
        w.branch.id,
        [etagOf(w, w.branch.id)],
        { nome: 'Mudou' },
        w.ctx(T0 + MINUTE),
      ),
    );
    const at = T0 + HOUR;
    expectRejected(w, correction, 'estabelecimento_alterado', at, () =>
      reviewCnpjCorrection(w.state, correction.id, false, w.ctx(at)),
    );
  });

  it('rejects with estabelecimento_alterado after a new catalog or an archive', () => {
    const w = setup();
    const cataloged = unwrap(ask(w, w.branch.id, cnpj(ROOT, '0003')));
    unwrap(createCatalog(w.state, w.companyId, { establishmentId: w.branch.id, nome: 'Loja' }, w.ctx()));
    expectRejected(w, cataloged, 'estabelecimento_alterado', T0 + HOUR, () =>
      reviewCnpjCorrection(w.state, cataloged.id, false, w.ctx(T0 + HOUR)),
    );

    const third = unwrap(
      registerEstablishment(w.state, w.companyId, { cnpj: cnpj(ROOT, '0004'), nome: 'Terceira' }, w.ctx()),
    );
    const archivedOne = unwrap(ask(w, third.id, cnpj(ROOT, '0005')));
    unwrap(archiveEstablishment(w.state, w.companyId, third.id, [establishmentEtag(third)], w.ctx()));
    expectRejected(w, archivedOne, 'estabelecimento_alterado', T0 + HOUR, () =>
      reviewCnpjCorrection(w.state, archivedOne.id, false, w.ctx(T0 + HOUR)),
    );
  });

  it('rejects with cnpj_em_uso when another establishment took cnpj_novo meanwhile', () => {
    const w = setup();
    const novo = cnpj(ROOT, '0003');
    const correction = unwrap(ask(w, w.branch.id, novo));
    const taker = unwrap(registerEstablishment(w.state, w.companyId, { cnpj: novo, nome: 'Rápida' }, w.ctx()));
    expectRejected(w, correction, 'cnpj_em_uso', T0 + HOUR, () =>
      reviewCnpjCorrection(w.state, correction.id, false, w.ctx(T0 + HOUR)),
    );
    expect(indexesOf(w.state, w.companyId).establishmentsByCnpj.get(novo)).toBe(taker.id);
  });

  it('rejects with cnpj_em_uso the second of two corrections to the same CNPJ once the first is approved', () => {
    const w = setup();
    const novo = cnpj(ROOT, '0003');
    const first = unwrap(ask(w, w.branch.id, novo));
    const second = unwrap(ask(w, w.headOffice.id, novo));
    expect(reviewCnpjCorrection(w.state, first.id, false, w.ctx(T0 + HOUR))?.estado).toBe('aprovada');
    expectRejected(w, second, 'cnpj_em_uso', T0 + HOUR, () =>
      reviewCnpjCorrection(w.state, second.id, false, w.ctx(T0 + HOUR)),
    );
  });

  it('rejects with cnpj_recusado when the review refused it, whatever else holds', () => {
    const w = setup();
    const clean = unwrap(ask(w, w.branch.id, cnpj(ROOT, '0003')));
    expectRejected(w, clean, 'cnpj_recusado', T0 + HOUR, () =>
      reviewCnpjCorrection(w.state, clean.id, true, w.ctx(T0 + HOUR)),
    );

    // Changed and taken too: the refusal is still the reason given.
    const novo = cnpj(ROOT, '0004');
    const both = unwrap(ask(w, w.headOffice.id, novo));
    unwrap(
      editEstablishment(
        w.state,
        w.companyId,
        w.headOffice.id,
        [etagOf(w, w.headOffice.id)],
        { nome: 'Mudou' },
        w.ctx(),
      ),
    );
    unwrap(registerEstablishment(w.state, w.companyId, { cnpj: novo, nome: 'Rápida' }, w.ctx()));
    expectRejected(w, both, 'cnpj_recusado', T0 + 2 * HOUR, () =>
      reviewCnpjCorrection(w.state, both.id, true, w.ctx(T0 + 2 * HOUR)),
    );
  });

  it('gives estabelecimento_alterado before cnpj_em_uso when both hold', () => {
    const w = setup();
    const novo = cnpj(ROOT, '0003');
    const correction = unwrap(ask(w, w.branch.id, novo));
    unwrap(editEstablishment(w.state, w.companyId, w.branch.id, [etagOf(w, w.branch.id)], { nome: 'Mudou' }, w.ctx()));
    unwrap(registerEstablishment(w.state, w.companyId, { cnpj: novo, nome: 'Rápida' }, w.ctx()));
    expectRejected(w, correction, 'estabelecimento_alterado', T0 + HOUR, () =>
      reviewCnpjCorrection(w.state, correction.id, false, w.ctx(T0 + HOUR)),
    );
  });

  it('is final: a second review of a decided correction is a no-op returning undefined', () => {
    for (const refused of [false, true]) {
      const w = setup();
      const correction = unwrap(ask(w, w.branch.id, cnpj(ROOT, '0003')));
      const decided = reviewCnpjCorrection(w.state, correction.id, refused, w.ctx(T0 + HOUR));
      expect(decided?.estado).toBe(refused ? 'rejeitada' : 'aprovada');
      const before = fingerprint(w);
      const catalogs = [...w.state.catalogs.values()];
      expect(reviewCnpjCorrection(w.state, correction.id, !refused, w.ctx(T0 + 2 * HOUR))).toBeUndefined();
      expect(reviewCnpjCorrection(w.state, correction.id, refused, w.ctx(T0 + 3 * HOUR))).toBeUndefined();
      expect(fingerprint(w)).toEqual(before);
      expect([...w.state.catalogs.values()]).toEqual(catalogs);
      expect(w.state.cnpjCorrections.get(correction.id)).toBe(decided);
    }
  });

  it('ignores an unknown correction id', () => {
    const w = setup();
    const before = fingerprint(w);
    expect(reviewCnpjCorrection(w.state, 'no-such-correction', false, w.ctx(T0 + HOUR))).toBeUndefined();
    expect(fingerprint(w)).toEqual(before);
  });

  it('frees the pending slot: after a decision the establishment takes a new correction against its new versao', () => {
    const w = setup();
    const first = unwrap(ask(w, w.branch.id, cnpj(ROOT, '0003')));
    expectRefusal(ask(w, w.branch.id, cnpj(ROOT, '0004')), 'conflict', 'correcao_pendente');
    reviewCnpjCorrection(w.state, first.id, false, w.ctx(T0 + HOUR));
    // Back to the original CNPJ, which the approval freed.
    const second = unwrap(ask(w, w.branch.id, w.branch.cnpj, 'current', T0 + HOUR));
    expect(second.versaoEsperada).toBe(2);
    expect(w.state.pendingCnpjCorrections.get(w.branch.id)).toBe(second.id);
    const rejected = reviewCnpjCorrection(w.state, second.id, true, w.ctx(T0 + 2 * HOUR));
    expect(rejected?.estado).toBe('rejeitada');
    expect(w.state.pendingCnpjCorrections.size).toBe(0);
    expect(ask(w, w.branch.id, cnpj(ROOT, '0004')).ok).toBe(true);
  });
});

describe('findCnpjCorrection', () => {
  it("finds the company's own correction and answers correcao_nao_encontrada at path.id for another company's or an unknown one", () => {
    const w = setup();
    const correction = unwrap(ask(w, w.branch.id, cnpj(ROOT, '0003')));
    expect(unwrap(findCnpjCorrection(w.state, w.companyId, correction.id))).toBe(correction);
    const other = unwrap(createCompany(w.state, { cnpjRoot: OTHER_ROOT }, w.ctx()));
    expectRefusal(
      findCnpjCorrection(w.state, other.company.id, correction.id),
      'not_found',
      'correcao_nao_encontrada',
      'path.id',
    );
    expectRefusal(
      findCnpjCorrection(w.state, w.companyId, 'no-such-correction'),
      'not_found',
      'correcao_nao_encontrada',
      'path.id',
    );
  });
});
