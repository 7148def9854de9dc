import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Result } from '../refusal.js';
import { indexesOf } from '../state.js';
import { raised, seededWorld, T0 } from '../testing/support.js';
import type { IfMatch } from '../versioning.js';
import {
  activeDestination,
  configureDestination,
  destinationEtag,
  findDestination,
  revokeDestination,
  SECRET_PREFIX,
  type WebhookDestination,
} from './destination.js';
import { beginAttempt, finishAttempt, raiseEvent } from './events.js';

const URL_A = 'https://hooks.example.com/a';
const URL_B = 'https://hooks.example.com/b';
const SECRET = /^svc_whsec_[A-Za-z0-9_-]{43}$/;
const STALE: readonly string[] = ['"00000000deadbeef"'];

function setup(seed = 1) {
  const { state, random, ctx, company } = seededWorld(seed);
  const companyId = company();
  const current = (id = companyId): WebhookDestination => state.webhookDestinations.get(id)!;
  const etagOf = (id = companyId): IfMatch => [destinationEtag(current(id))];
  const put = (input: { url?: string; createOnly?: boolean; ifMatch?: IfMatch }, now = T0, id = companyId) =>
    configureDestination(
      state,
      id,
      { url: input.url ?? URL_A, createOnly: input.createOnly ?? false, ifMatch: input.ifMatch },
      ctx(now),
    );
  const create = (now = T0, id = companyId) => value(put({ createOnly: true }, now, id)).destination;
  const change = (url = URL_B, now = T0) => value(put({ url, ifMatch: etagOf() }, now)).destination;
  const revoke = (now = T0, id = companyId) => value(revokeDestination(state, id, etagOf(id), ctx(now)));
  /** What a refusal must leave alone: the destinations, the events and the seeded source. */
  const fingerprint = () => ({
    destinations: new Map(state.webhookDestinations),
    events: new Map(state.webhookEvents),
    random: random.state(),
    outbox: state.outbox.length,
  });
  return { state, random, ctx, company, companyId, current, etagOf, put, create, change, revoke, fingerprint };
}

function value<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`refused: ${result.refusal.codigo}`);
  return result.value;
}

function refusal<T>(result: Result<T>) {
  if (result.ok) throw new Error('expected a refusal, got acceptance');
  return result.refusal;
}

describe('configureDestination (PUT /v1/webhook)', () => {
  it('(none) with If-None-Match: * → ativo, versao 1, a new secret; created', () => {
    const s = setup();
    const result = value(s.put({ createOnly: true, url: URL_A }, T0 + 5));
    expect(result.created).toBe(true);
    expect(result.destination).toMatchObject({
      companyId: s.companyId,
      versao: 1,
      estado: 'ativo',
      url: URL_A,
      criadoEm: T0 + 5,
      atualizadoEm: T0 + 5,
    });
    expect(result.destination.secret).toMatch(SECRET);
    expect(result.destination.secret.startsWith(SECRET_PREFIX)).toBe(true);
    expect(result.destination.secret).toHaveLength('svc_whsec_'.length + 43);
    expect(s.current()).toBe(result.destination);
  });

  it('keeps the secret before the last configuration change: none at creation, the replaced one after each change; a revocation keeps it', () => {
    const s = setup();
    const first = s.create();
    expect(first.previousSecret).toBeNull();
    const second = s.change(URL_B);
    expect(second.previousSecret).toBe(first.secret);
    const third = s.change(URL_A);
    expect(third.previousSecret).toBe(second.secret);
    expect(s.revoke().previousSecret).toBe(second.secret);
    expect(value(s.put({ url: URL_A, ifMatch: s.etagOf() })).destination.previousSecret).toBe(third.secret);
  });

  it('(none) without a precondition → 428 precondicao_ausente on header.if-none-match; with If-Match → 412 on header.if-match', () => {
    const s = setup();
    const before = s.fingerprint();
    expect(refusal(s.put({}))).toMatchObject({
      kind: 'precondition_required',
      codigo: 'precondicao_ausente',
      caminho: 'header.if-none-match',
    });
    expect(refusal(s.put({ ifMatch: STALE }))).toMatchObject({
      kind: 'precondition_failed',
      codigo: 'precondicao_falhou',
      caminho: 'header.if-match',
    });
    expect(s.fingerprint()).toEqual(before);
    expect(refusal(findDestination(s.state, s.companyId))).toMatchObject({
      kind: 'not_found',
      codigo: 'destino_nao_encontrado',
    });
  });

  it.each(['ativo', 'revogado'] as const)(
    '%s with If-None-Match: * → 412 destino_existente on header.if-none-match, even with its ETag',
    (estado) => {
      const s = setup();
      s.create();
      if (estado === 'revogado') s.revoke();
      const before = s.fingerprint();
      expect(refusal(s.put({ createOnly: true }))).toMatchObject({
        kind: 'precondition_failed',
        codigo: 'destino_existente',
        caminho: 'header.if-none-match',
      });
      expect(refusal(s.put({ createOnly: true, ifMatch: s.etagOf() }))).toMatchObject({ codigo: 'destino_existente' });
      expect(s.fingerprint()).toEqual(before);
    },
  );

  it('ativo with the current If-Match → ativo, versao + 1, the new URL and a new secret; id and creation kept', () => {
    const s = setup();
    const first = s.create();
    const result = value(s.put({ url: URL_B, ifMatch: s.etagOf() }, T0 + 9));
    expect(result.created).toBe(false);
    expect(result.destination).toMatchObject({
      id: first.id,
      versao: 2,
      estado: 'ativo',
      url: URL_B,
      criadoEm: first.criadoEm,
      atualizadoEm: T0 + 9,
    });
    expect(result.destination.secret).toMatch(SECRET);
    expect(result.destination.secret).not.toBe(first.secret);
    expect(destinationEtag(result.destination)).not.toBe(destinationEtag(first));
  });

  it('a rotation with the same URL still makes a new version and secret', () => {
    const s = setup();
    const first = s.create();
    const rotated = s.change(URL_A);
    expect(rotated.versao).toBe(first.versao + 1);
    expect(rotated.secret).not.toBe(first.secret);
  });

  it('ativo or revogado without If-Match → 428 on header.if-match; with a stale one → 412; nothing changes', () => {
    const s = setup();
    s.create();
    for (const revoked of [false, true]) {
      if (revoked) s.revoke();
      const before = s.fingerprint();
      expect(refusal(s.put({}))).toMatchObject({
        kind: 'precondition_required',
        codigo: 'precondicao_ausente',
        caminho: 'header.if-match',
      });
      expect(refusal(s.put({ ifMatch: STALE }))).toMatchObject({
        kind: 'precondition_failed',
        codigo: 'precondicao_falhou',
        caminho: 'header.if-match',
      });
      expect(s.fingerprint()).toEqual(before);
    }
  });

  it('an If-Match listing several tags matches when one of them is current', () => {
    const s = setup();
    s.create();
    expect(s.put({ ifMatch: [...STALE, destinationEtag(s.current())] }).ok).toBe(true);
  });

  it('revogado with the current If-Match → reactivation: ativo, versao + 1, a new secret', () => {
    const s = setup();
    const first = s.create();
    const revoked = s.revoke(T0 + 1);
    const result = value(s.put({ url: URL_B, ifMatch: s.etagOf() }, T0 + 2));
    expect(result.created).toBe(false);
    expect(result.destination).toMatchObject({ id: first.id, versao: revoked.versao + 1, estado: 'ativo', url: URL_B });
    expect(result.destination.secret).not.toBe(first.secret);
    expect(value(activeDestination(result.destination))).toBe(result.destination);
  });

  it('every PUT makes a secret never seen before, and the same seed makes the same secrets', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff_ffff }), fc.integer({ min: 1, max: 30 }), (seed, changes) => {
        const run = () => {
          const s = setup(seed);
          const secrets = [s.create().secret];
          for (let i = 0; i < changes; i++) secrets.push(s.change(i % 2 === 0 ? URL_A : URL_B).secret);
          return secrets;
        };
        const secrets = run();
        for (const secret of secrets) expect(secret).toMatch(SECRET);
        expect(new Set(secrets).size).toBe(secrets.length);
        expect(run()).toEqual(secrets);
      }),
      { numRuns: 50 },
    );
  });

  it('one destination per company: another company creates its own', () => {
    const s = setup();
    const mine = s.create();
    const other = s.company();
    const theirs = s.create(T0, other);
    expect(theirs.id).not.toBe(mine.id);
    expect(theirs.secret).not.toBe(mine.secret);
    expect(s.current()).toBe(mine);
  });
});

describe('revokeDestination (DELETE /v1/webhook)', () => {
  it('(none) → 404 destino_nao_encontrado, before the If-Match checks', () => {
    const s = setup();
    expect(refusal(revokeDestination(s.state, s.companyId, undefined, s.ctx(T0)))).toMatchObject({
      kind: 'not_found',
      codigo: 'destino_nao_encontrado',
    });
  });

  it('ativo with the current If-Match → revogado, versao + 1; id, URL and creation kept', () => {
    const s = setup();
    const first = s.create();
    const revoked = s.revoke(T0 + 3);
    expect(revoked).toMatchObject({
      id: first.id,
      versao: 2,
      estado: 'revogado',
      url: URL_A,
      criadoEm: first.criadoEm,
      atualizadoEm: T0 + 3,
    });
    expect(s.current()).toBe(revoked);
    expect(refusal(activeDestination(revoked))).toMatchObject({ kind: 'conflict', codigo: 'destino_revogado' });
  });

  it('without If-Match → 428, stale → 412, then revogado → 409 destino_revogado (the preconditions first)', () => {
    const s = setup();
    s.create();
    let before = s.fingerprint();
    expect(refusal(revokeDestination(s.state, s.companyId, undefined, s.ctx(T0)))).toMatchObject({
      kind: 'precondition_required',
      codigo: 'precondicao_ausente',
      caminho: 'header.if-match',
    });
    expect(refusal(revokeDestination(s.state, s.companyId, STALE, s.ctx(T0)))).toMatchObject({
      kind: 'precondition_failed',
      codigo: 'precondicao_falhou',
    });
    expect(s.fingerprint()).toEqual(before);
    s.revoke();
    before = s.fingerprint();
    expect(refusal(revokeDestination(s.state, s.companyId, STALE, s.ctx(T0)))).toMatchObject({
      kind: 'precondition_failed',
    });
    expect(refusal(revokeDestination(s.state, s.companyId, s.etagOf(), s.ctx(T0)))).toMatchObject({
      kind: 'conflict',
      codigo: 'destino_revogado',
    });
    expect(s.fingerprint()).toEqual(before);
  });
});

describe('a change of the destination cancels its open events', () => {
  /** A pendente, an executando and an entregue event of the company. */
  const events = (s: ReturnType<typeof setup>) => {
    const pending = raised(raiseEvent(s.state, s.companyId, { tipo: 'webhook.teste' }, s.ctx(T0)));
    const running = raised(raiseEvent(s.state, s.companyId, { tipo: 'webhook.teste' }, s.ctx(T0)));
    beginAttempt(s.state, running.id, 1, s.ctx(T0));
    const delivered = raised(raiseEvent(s.state, s.companyId, { tipo: 'webhook.teste' }, s.ctx(T0)));
    beginAttempt(s.state, delivered.id, 1, s.ctx(T0));
    finishAttempt(s.state, delivered.id, 1, { kind: 'response', status: 200 }, s.ctx(T0 + 1));
    return { pending: pending.id, running: running.id, delivered: delivered.id };
  };

  it('a change or rotation cancels pendente and executando events with destino_alterado at that instant; closed ones stay', () => {
    const s = setup();
    s.create();
    const ids = events(s);
    const delivered = s.state.webhookEvents.get(ids.delivered)!;
    s.change(URL_B, T0 + 50);
    for (const id of [ids.pending, ids.running]) {
      expect(s.state.webhookEvents.get(id)).toMatchObject({
        estado: 'cancelado',
        codigoFalha: 'destino_alterado',
        terminadoEm: T0 + 50,
        proximaTentativaEm: null,
      });
    }
    expect(s.state.webhookEvents.get(ids.delivered)).toBe(delivered);
    expect(indexesOf(s.state, s.companyId).openWebhookEvents.size).toBe(0);
  });

  it('a revocation cancels them with destino_revogado', () => {
    const s = setup();
    s.create();
    const ids = events(s);
    s.revoke(T0 + 60);
    for (const id of [ids.pending, ids.running])
      expect(s.state.webhookEvents.get(id)).toMatchObject({
        estado: 'cancelado',
        codigoFalha: 'destino_revogado',
        terminadoEm: T0 + 60,
      });
    expect(s.state.webhookEvents.get(ids.delivered)!.estado).toBe('entregue');
  });

  it('the first configuration finds no event (none is recorded without a destination); a reactivation leaves those raised while revoked destino_inativo', () => {
    const s = setup();
    expect(raiseEvent(s.state, s.companyId, { tipo: 'webhook.teste' }, s.ctx(T0))).toBeUndefined();
    s.create(T0 + 1);
    expect(s.state.webhookEvents.size).toBe(0);
    const revoked = s.revoke(T0 + 2);
    const during = raised(raiseEvent(s.state, s.companyId, { tipo: 'webhook.teste' }, s.ctx(T0 + 3)));
    s.change(URL_B, T0 + 4);
    expect(s.state.webhookEvents.get(during.id)).toMatchObject({
      estado: 'cancelado',
      codigoFalha: 'destino_inativo',
      destinoId: revoked.id,
      destinoVersao: revoked.versao,
      terminadoEm: T0 + 3,
    });
  });

  it("another company's open events are left alone", () => {
    const s = setup();
    const other = s.company();
    s.create();
    s.create(T0, other);
    const theirs = raised(raiseEvent(s.state, other, { tipo: 'webhook.teste' }, s.ctx(T0)));
    s.change(URL_B, T0 + 1);
    s.revoke(T0 + 2);
    expect(s.state.webhookEvents.get(theirs.id)).toBe(theirs);
  });

  it('a refused change cancels nothing', () => {
    const s = setup();
    s.create();
    const ids = events(s);
    const before = s.fingerprint();
    expect(s.put({ ifMatch: STALE }).ok).toBe(false);
    expect(revokeDestination(s.state, s.companyId, STALE, s.ctx(T0)).ok).toBe(false);
    expect(s.fingerprint()).toEqual(before);
    expect(s.state.webhookEvents.get(ids.pending)!.estado).toBe('pendente');
  });
});
