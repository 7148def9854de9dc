/**
 * CNPJ correction requests over HTTP: spec "CNPJ correction request acceptance", "POST
 * /v1/estabelecimentos/{id}/correcoes-cnpj", "Follow a CNPJ correction request"; the emulator's choices
 * (docs/api.md "CNPJ corrections"): the order of the refusals, the review one hour of virtual time after acceptance,
 * its approval and its three rejections, the job faults of kind revisao_cnpj.
 *
 * Driven only through HTTP (the API and /_emulator), so the file runs the same in process and against the
 * built CLI. Each test has its own company; times are read from the clock at the start of the test (the
 * server's clock is shared). Every fault a test adds matches its own company and is removed after the test.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  headOfficeCatalog,
  newKey,
  otherCompany,
  world,
  type Answer,
  type Controls,
  type World,
} from './support/client.js';
import { cnpjOf } from './support/cnpj.js';
import { ETAG, expectControlError, expectError, REQUEST_ID, UUID } from './support/expect.js';
import { branch, nextOrder, UNKNOWN_ID, UNKNOWN_V7_ID } from './support/fixtures.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const MOTIVO = 'Digitação errada no cadastro';

const correctionsOf = (establishmentId: string) => `/v1/estabelecimentos/${establishmentId}/correcoes-cnpj`;
const correctionPath = (id: string) => `/v1/correcoes-cnpj/${id}`;
const iso = (ms: number) => new Date(ms).toISOString();

/** The faults the current test added, removed after it (a consumed one is already gone: 404). */
const addedFaults: { controls: Controls; id: string }[] = [];
afterEach(async () => {
  for (const { controls, id } of addedFaults.splice(0).reverse()) {
    const answer = await controls.raw('DELETE', `/faults/${id}`);
    if (answer.status !== 204) expectControlError(answer, 404, 'falha_nao_encontrada');
  }
});

async function addFault(w: World, fault: Record<string, unknown>): Promise<string> {
  const { id } = await w.controls.addFault(fault);
  addedFaults.push({ controls: w.controls, id });
  return id;
}

/** A job fault on this company's CNPJ reviews only. */
const reviewFault = (w: World, effect: Record<string, unknown>) =>
  addFault(w, { target: 'job', match: { kind: 'revisao_cnpj', companyId: w.company.companyId }, effect, times: 1 });

/** The virtual now (Unix ms). */
async function now(w: World): Promise<number> {
  return Date.parse((await w.controls.clock()).now);
}

async function advance(w: World, ms: number): Promise<void> {
  await w.controls.advance(ms);
}

/** A valid CNPJ of the company's root no establishment has. */
const freshCnpj = (w: World) => cnpjOf(w.company.cnpjRoot, nextOrder());

/** A root other than the company's. */
const otherRoot = (w: World) => (w.company.cnpjRoot === '11222333' ? '44555666' : '11222333');

async function readEstablishment(w: World, id: string): Promise<{ body: any; etag: string }> {
  const answer = await w.api.get(`/v1/estabelecimentos/${id}`);
  expect(answer.status, answer.text).toBe(200);
  return { body: answer.body, etag: answer.headers.get('etag')! };
}

function request(
  w: World,
  establishmentId: string,
  etag: string | undefined,
  cnpjNovo: string,
  options: { key?: string; motivo?: string } = {},
): Promise<Answer> {
  return w.api.post(
    correctionsOf(establishmentId),
    { cnpj_novo: cnpjNovo, motivo: options.motivo ?? MOTIVO },
    {
      ...(etag === undefined ? {} : { ifMatch: etag }),
      ...(options.key === undefined ? {} : { key: options.key }),
    },
  );
}

/** Requests a correction; fails unless 202. Returns the correction id. */
async function accept(w: World, establishmentId: string, etag: string, cnpjNovo: string): Promise<string> {
  const answer = await request(w, establishmentId, etag, cnpjNovo);
  if (answer.status !== 202) throw new Error(`correction answered ${answer.status}: ${answer.text}`);
  return answer.body.id;
}

async function correction(w: World, id: string): Promise<any> {
  const answer = await w.api.get(correctionPath(id));
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

describe('POST /v1/estabelecimentos/{id}/correcoes-cnpj: acceptance', () => {
  // spec: CNPJ-01, CNPJ-02, CNPJ-03, CNPJ-04, CNPJ-05, CNPJ-10, CNPJ-12, REQ-10
  it('answers 202 with exactly the acceptance fields, Location and no ETag, and changes nothing on the establishment', async () => {
    const w = await world();
    const created = await branch(w);
    const edited = await w.api.patch(
      `/v1/estabelecimentos/${created.id}`,
      { nome: 'Filial Norte' },
      { ifMatch: created.etag },
    );
    expect(edited.status, edited.text).toBe(200);
    const etag = edited.headers.get('etag')!;
    const cnpjNovo = freshCnpj(w);
    const answer = await request(w, created.id, etag, cnpjNovo);
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body).toEqual({
      id: expect.stringMatching(UUID),
      tipo: 'correcao_cnpj',
      estabelecimento_id: created.id,
      versao_esperada: 2,
      estado: 'pendente',
    });
    expect(answer.headers.get('location')).toBe(`/v1/correcoes-cnpj/${answer.body.id}`);
    expect(answer.headers.get('etag')).toBeNull();
    expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(answer.headers.get('idempotent-replayed')).toBeNull();
    const after = await readEstablishment(w, created.id);
    expect(after.body).toEqual(edited.body);
    expect(after.body).toMatchObject({ cnpj: created.body.cnpj, versao: 2 });
    expect(after.etag).toBe(etag);
  });

  // spec: CNPJ-09, CNPJ-11, REQ-11
  it('follows the correction at its Location: pendente with what was asked, criado_em the acceptance time and no decision', async () => {
    const w = await world();
    const created = await branch(w);
    const t0 = await now(w);
    const cnpjNovo = freshCnpj(w);
    const answer = await request(w, created.id, created.etag, cnpjNovo, { motivo: 'm'.repeat(500) });
    expect(answer.status, answer.text).toBe(202);
    const read = await w.api.get(answer.headers.get('location')!);
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual({
      id: answer.body.id,
      tipo: 'correcao_cnpj',
      estabelecimento_id: created.id,
      versao_esperada: 1,
      estado: 'pendente',
      cnpj_novo: cnpjNovo,
      motivo: 'm'.repeat(500),
      criado_em: iso(t0),
      decidido_em: null,
      codigo_rejeicao: null,
    });
    expect(read.headers.get('x-request-id')).toMatch(REQUEST_ID);
  });

  // spec: CNPJ-13, REQ-02, REQ-03
  it('repeats the stored 202 for the same idempotency-key and creates nothing, even after the decision and with a stale If-Match', async () => {
    const w = await world();
    const created = await branch(w);
    const cnpjNovo = freshCnpj(w);
    const key = newKey();
    const first = await request(w, created.id, created.etag, cnpjNovo, { key });
    expect(first.status, first.text).toBe(202);
    const again = await request(w, created.id, created.etag, cnpjNovo, { key });
    expect(again.status, again.text).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('etag')).toBeNull();
    // Nothing new: the establishment is untouched and the one correction is still the pending one.
    expect((await readEstablishment(w, created.id)).etag).toBe(created.etag);
    const other = await request(w, created.id, created.etag, freshCnpj(w));
    expectError(other, 409, 'correcao_pendente');
    // The same key with another body is another request.
    expectError(await request(w, created.id, created.etag, freshCnpj(w), { key }), 422, 'idempotencia_reutilizada');
    // After the approval the ETag sent is stale, yet the replay answers the original acceptance.
    await advance(w, HOUR);
    expect((await correction(w, first.body.id)).estado).toBe('aprovada');
    const late = await request(w, created.id, created.etag, cnpjNovo, { key });
    expect(late.status, late.text).toBe(202);
    expect(late.headers.get('idempotent-replayed')).toBe('true');
    expect(late.text).toBe(first.text);
    expect(late.body.estado).toBe('pendente');
    const establishment = await readEstablishment(w, created.id);
    expect(establishment.body).toMatchObject({ cnpj: cnpjNovo, versao: 2 });
  });

  it('takes a new request with the same key after a refusal (refusals are not stored)', async () => {
    const w = await world();
    const created = await branch(w);
    const key = newKey();
    const cnpjNovo = freshCnpj(w);
    expectError(
      await request(w, created.id, undefined, cnpjNovo, { key }),
      428,
      'precondicao_ausente',
      'header.if-match',
    );
    const answer = await request(w, created.id, created.etag, cnpjNovo, { key });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('POST /v1/estabelecimentos/{id}/correcoes-cnpj: refusals, in the documented order', () => {
  it('refuses a body of the wrong shape with 422 at its path', async () => {
    const w = await world();
    const created = await branch(w);
    const path = correctionsOf(created.id);
    const cnpjNovo = freshCnpj(w);
    const post = (body: unknown) => w.api.post(path, body, { ifMatch: created.etag });
    expectError(await post({ motivo: MOTIVO }), 422, 'campo_obrigatorio', 'body.cnpj_novo');
    expectError(await post({ cnpj_novo: cnpjNovo }), 422, 'campo_obrigatorio', 'body.motivo');
    expectError(await post({ cnpj_novo: cnpjNovo, motivo: '' }), 422, 'valor_invalido', 'body.motivo');
    expectError(await post({ cnpj_novo: cnpjNovo, motivo: 'm'.repeat(501) }), 422, 'valor_invalido', 'body.motivo');
    expectError(await post({ cnpj_novo: cnpjNovo, motivo: 5 }), 422, 'valor_invalido', 'body.motivo');
    expectError(await post({ cnpj_novo: 12345678000195, motivo: MOTIVO }), 422, 'valor_invalido', 'body.cnpj_novo');
    expectError(await post({ cnpj_novo: 'A'.repeat(65), motivo: MOTIVO }), 422, 'valor_invalido', 'body.cnpj_novo');
    expectError(
      await post({ cnpj_novo: cnpjNovo, motivo: MOTIVO, cnpj: cnpjNovo }),
      422,
      'campo_desconhecido',
      'body.cnpj',
    );
    // None of them was accepted: the same request, well formed, is.
    expect((await readEstablishment(w, created.id)).etag).toBe(created.etag);
    const answer = await post({ cnpj_novo: cnpjNovo, motivo: 'm' });
    expect(answer.status, answer.text).toBe(202);
  });

  it('refuses a cnpj_novo that is not a valid CNPJ with 422 cnpj_invalido at body.cnpj_novo', async () => {
    const w = await world();
    const created = await branch(w);
    const valid = freshCnpj(w);
    const base = valid.slice(0, 12);
    const d1 = valid.charAt(12);
    const d2 = valid.charAt(13);
    const otherDigit = (digit: string) => String((Number(digit) + 1) % 10);
    const shapes: Record<string, string> = {
      'wrong second check digit': `${base}${d1}${otherDigit(d2)}`,
      'wrong first check digit': `${base}${otherDigit(d1)}${d2}`,
      'lowercase letters': cnpjOf(w.company.cnpjRoot, 'AB12').toLowerCase(),
      '13 characters': valid.slice(0, 13),
      punctuation: `${valid.slice(0, 2)}.${valid.slice(2, 5)}.${valid.slice(5, 8)}/${valid.slice(8, 12)}-${valid.slice(12)}`,
      empty: '',
    };
    for (const [why, cnpj] of Object.entries(shapes)) {
      const answer = await request(w, created.id, created.etag, cnpj);
      expect(answer.status, `${why}: ${JSON.stringify(cnpj)} → ${answer.text}`).toBe(422);
      expectError(answer, 422, 'cnpj_invalido', 'body.cnpj_novo');
    }
    expect((await request(w, created.id, created.etag, valid)).status).toBe(202);
  });

  it('refuses a valid CNPJ of another root with 422 cnpj_raiz_divergente at body.cnpj_novo', async () => {
    const w = await world();
    const created = await branch(w);
    const foreign = cnpjOf(otherRoot(w), created.body.cnpj.slice(8, 12));
    expectError(await request(w, created.id, created.etag, foreign), 422, 'cnpj_raiz_divergente', 'body.cnpj_novo');
    const other = await otherCompany(w);
    expectError(
      await request(w, created.id, created.etag, other.company.headOffice.cnpj),
      422,
      'cnpj_raiz_divergente',
      'body.cnpj_novo',
    );
    expect((await readEstablishment(w, created.id)).etag).toBe(created.etag);
  });

  it('checks 422 before 404 and 428: an invalid cnpj_novo on an unknown establishment without If-Match is 422', async () => {
    const w = await world();
    expectError(await request(w, UNKNOWN_V7_ID, undefined, 'X'), 422, 'cnpj_invalido', 'body.cnpj_novo');
    expectError(
      await request(w, UNKNOWN_V7_ID, undefined, cnpjOf(otherRoot(w), '0002')),
      422,
      'cnpj_raiz_divergente',
      'body.cnpj_novo',
    );
    expectError(
      await request(w, UNKNOWN_V7_ID, undefined, freshCnpj(w), { motivo: '' }),
      422,
      'valor_invalido',
      'body.motivo',
    );
  });

  it("answers 404 estabelecimento_nao_encontrado at path.id before 428, for an unknown or another company's establishment", async () => {
    const w = await world();
    const created = await branch(w);
    expectError(
      await request(w, UNKNOWN_ID, undefined, freshCnpj(w)),
      404,
      'estabelecimento_nao_encontrado',
      'path.id',
    );
    expectError(
      await request(w, UNKNOWN_ID, created.etag, freshCnpj(w)),
      404,
      'estabelecimento_nao_encontrado',
      'path.id',
    );
    const other = await otherCompany(w);
    const theirs = await readEstablishment(other, other.company.headOffice.id);
    expectError(
      await request(w, other.company.headOffice.id, theirs.etag, freshCnpj(w)),
      404,
      'estabelecimento_nao_encontrado',
      'path.id',
    );
    expect((await readEstablishment(other, other.company.headOffice.id)).etag).toBe(theirs.etag);
  });

  // spec: CNPJ-07, CNPJ-08
  it('answers 428 without If-Match and 412 with a stale ETag, before the 409s (cnpj_novo equal to the current one)', async () => {
    const w = await world();
    const created = await branch(w);
    expectError(
      await request(w, created.id, undefined, created.body.cnpj),
      428,
      'precondicao_ausente',
      'header.if-match',
    );
    const edited = await w.api.patch(
      `/v1/estabelecimentos/${created.id}`,
      { nome: 'Outra' },
      { ifMatch: created.etag },
    );
    expect(edited.status).toBe(200);
    expectError(
      await request(w, created.id, created.etag, created.body.cnpj),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    expectError(await request(w, created.id, created.etag, freshCnpj(w)), 412, 'precondicao_falhou', 'header.if-match');
    expectError(
      await request(w, created.id, edited.headers.get('etag')!, created.body.cnpj),
      409,
      'cnpj_inalterado',
      'body.cnpj_novo',
    );
  });

  it('refuses an archived establishment with 409 estabelecimento_arquivado (after 412, before cnpj_duplicado)', async () => {
    const w = await world();
    const created = await branch(w);
    const archived = await w.api.delete(`/v1/estabelecimentos/${created.id}`, {}, { ifMatch: created.etag });
    expect(archived.status, archived.text).toBe(200);
    const etag = archived.headers.get('etag')!;
    expectError(await request(w, created.id, created.etag, freshCnpj(w)), 412, 'precondicao_falhou', 'header.if-match');
    expectError(await request(w, created.id, etag, freshCnpj(w)), 409, 'estabelecimento_arquivado', null);
    expectError(await request(w, created.id, etag, w.company.headOffice.cnpj), 409, 'estabelecimento_arquivado', null);
    expectError(await request(w, created.id, etag, created.body.cnpj), 409, 'estabelecimento_arquivado', null);
    const read = await readEstablishment(w, created.id);
    expect(read.body).toEqual(archived.body);
    expect(read.etag).toBe(etag);
  });

  it('refuses a second correction while one is pending with 409 correcao_pendente (before cnpj_inalterado and cnpj_duplicado)', async () => {
    const w = await world();
    const created = await branch(w);
    const t0 = await now(w);
    const first = await accept(w, created.id, created.etag, freshCnpj(w));
    expectError(await request(w, created.id, created.etag, freshCnpj(w)), 409, 'correcao_pendente');
    expectError(await request(w, created.id, created.etag, created.body.cnpj), 409, 'correcao_pendente');
    expectError(await request(w, created.id, created.etag, w.company.headOffice.cnpj), 409, 'correcao_pendente');
    // Another establishment is not held back by it.
    expect(
      (
        await request(
          w,
          w.company.headOffice.id,
          (
            await readEstablishment(w, w.company.headOffice.id)
          ).etag,
          freshCnpj(w),
        )
      ).status,
    ).toBe(202);
    await advance(w, HOUR);
    const decided = await correction(w, first);
    expect(decided).toMatchObject({ estado: 'aprovada', decidido_em: iso(t0 + HOUR) });
    // Decided: a new one is taken, against the new version.
    const current = await readEstablishment(w, created.id);
    const again = await request(w, created.id, current.etag, created.body.cnpj);
    expect(again.status, again.text).toBe(202);
    expect(again.body).toMatchObject({ estabelecimento_id: created.id, versao_esperada: 2, estado: 'pendente' });
    expect(again.body.id).not.toBe(first);
  });

  it('allows a new correction after a rejection', async () => {
    const w = await world();
    const created = await branch(w);
    await reviewFault(w, { fail: true });
    const first = await accept(w, created.id, created.etag, freshCnpj(w));
    await advance(w, HOUR);
    expect(await correction(w, first)).toMatchObject({ estado: 'rejeitada', codigo_rejeicao: 'cnpj_recusado' });
    const again = await request(w, created.id, created.etag, freshCnpj(w));
    expect(again.status, again.text).toBe(202);
    expect(again.body.versao_esperada).toBe(1);
  });

  it("refuses the establishment's own CNPJ with 409 cnpj_inalterado at body.cnpj_novo", async () => {
    const w = await world();
    const created = await branch(w);
    expectError(
      await request(w, created.id, created.etag, created.body.cnpj),
      409,
      'cnpj_inalterado',
      'body.cnpj_novo',
    );
    const head = await readEstablishment(w, w.company.headOffice.id);
    expectError(
      await request(w, w.company.headOffice.id, head.etag, w.company.headOffice.cnpj),
      409,
      'cnpj_inalterado',
      'body.cnpj_novo',
    );
  });

  it('refuses a CNPJ another establishment of the company has, archived included, with 409 cnpj_duplicado at body.cnpj_novo', async () => {
    const w = await world();
    const created = await branch(w);
    expectError(
      await request(w, created.id, created.etag, w.company.headOffice.cnpj),
      409,
      'cnpj_duplicado',
      'body.cnpj_novo',
    );
    const gone = await branch(w);
    const archived = await w.api.delete(`/v1/estabelecimentos/${gone.id}`, {}, { ifMatch: gone.etag });
    expect(archived.status, archived.text).toBe(200);
    expectError(await request(w, created.id, created.etag, gone.body.cnpj), 409, 'cnpj_duplicado', 'body.cnpj_novo');
    // Nothing was accepted.
    expect((await request(w, created.id, created.etag, freshCnpj(w))).status).toBe(202);
  });

  // spec: CNPJ-08
  it('answers 412 when a concurrentEdit fault changes the establishment right before evaluation, and accepts nothing', async () => {
    const w = await world();
    const created = await branch(w);
    await addFault(w, {
      target: 'api',
      match: { method: 'POST', path: '/v1/estabelecimentos/*/correcoes-cnpj', companyId: w.company.companyId },
      effect: { concurrentEdit: true },
      times: 1,
    });
    const key = newKey();
    const cnpjNovo = freshCnpj(w);
    expectError(
      await request(w, created.id, created.etag, cnpjNovo, { key }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    const after = await readEstablishment(w, created.id);
    expect(after.body).toEqual({ ...created.body, versao: 2 });
    expect(after.etag).not.toBe(created.etag);
    // No correction pending: the same key, with the new ETag, is accepted against version 2.
    const answer = await request(w, created.id, after.etag, cnpjNovo, { key });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body.versao_esperada).toBe(2);
  });
});

describe('the review, one hour of virtual time after acceptance', () => {
  it('approves at 1 h (still pendente at 59 min): the establishment and its catalog take the new CNPJ and move versao', async () => {
    const w = await world();
    const created = await branch(w);
    const catalog = await w.api.post('/v1/catalogos', { estabelecimento_id: created.id, nome: 'Loja' });
    expect(catalog.status, catalog.text).toBe(201);
    const before = await readEstablishment(w, created.id);
    expect(before.body).toMatchObject({ versao: 2, catalogo_id: catalog.body.id });
    const catalogBefore = await w.api.get(`/v1/catalogos/${catalog.body.id}`);
    const t0 = await now(w);
    const cnpjNovo = freshCnpj(w);
    const id = await accept(w, created.id, before.etag, cnpjNovo);

    await advance(w, 59 * MINUTE);
    expect(await correction(w, id)).toMatchObject({ estado: 'pendente', decidido_em: null, codigo_rejeicao: null });
    expect((await readEstablishment(w, created.id)).etag).toBe(before.etag);

    await advance(w, MINUTE);
    expect(await correction(w, id)).toEqual({
      id,
      tipo: 'correcao_cnpj',
      estabelecimento_id: created.id,
      versao_esperada: 2,
      estado: 'aprovada',
      cnpj_novo: cnpjNovo,
      motivo: MOTIVO,
      criado_em: iso(t0),
      decidido_em: iso(t0 + HOUR),
      codigo_rejeicao: null,
    });
    const after = await readEstablishment(w, created.id);
    expect(after.body).toEqual({ ...before.body, cnpj: cnpjNovo, versao: 3 });
    expect(after.etag).toMatch(ETAG);
    expect(after.etag).not.toBe(before.etag);
    const catalogAfter = await w.api.get(`/v1/catalogos/${catalog.body.id}`);
    expect(catalogAfter.status).toBe(200);
    expect(catalogAfter.body).toMatchObject({ cnpj_estabelecimento: cnpjNovo, versao: catalogBefore.body.versao + 1 });
    expect(catalogAfter.headers.get('etag')).not.toBe(catalogBefore.headers.get('etag'));
    // The old ETag is stale now.
    expectError(
      await w.api.patch(`/v1/estabelecimentos/${created.id}`, { nome: 'X' }, { ifMatch: before.etag }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
  });

  it('frees the old CNPJ and takes the new one once approved', async () => {
    const w = await world();
    const created = await branch(w);
    const oldCnpj = created.body.cnpj as string;
    const cnpjNovo = freshCnpj(w);
    await accept(w, created.id, created.etag, cnpjNovo);
    // While pending, the old one is still taken.
    expectError(
      await w.api.post('/v1/estabelecimentos', { cnpj: oldCnpj, nome: 'Nova' }),
      409,
      'cnpj_duplicado',
      'body.cnpj',
    );
    await advance(w, HOUR);
    expectError(
      await w.api.post('/v1/estabelecimentos', { cnpj: cnpjNovo, nome: 'Nova' }),
      409,
      'cnpj_duplicado',
      'body.cnpj',
    );
    const reused = await w.api.post('/v1/estabelecimentos', { cnpj: oldCnpj, nome: 'Nova' });
    expect(reused.status, reused.text).toBe(201);
    expect(reused.body.cnpj).toBe(oldCnpj);
    // Another correction to the new CNPJ is a duplicate too.
    expectError(
      await request(w, reused.body.id, reused.headers.get('etag')!, cnpjNovo),
      409,
      'cnpj_duplicado',
      'body.cnpj_novo',
    );
  });

  it('rejects with estabelecimento_alterado when the establishment changed after acceptance: PATCH, new catalog or archive', async () => {
    const w = await world();
    const patched = await branch(w);
    const cataloged = await branch(w);
    const archived = await branch(w);
    const t0 = await now(w);
    const requests = [patched, cataloged, archived].map((e) => ({ e, cnpjNovo: freshCnpj(w) }));
    const ids: string[] = [];
    for (const { e, cnpjNovo } of requests) ids.push(await accept(w, e.id, e.etag, cnpjNovo));
    expect(
      (await w.api.patch(`/v1/estabelecimentos/${patched.id}`, { nome: 'Mudou' }, { ifMatch: patched.etag })).status,
    ).toBe(200);
    expect((await w.api.post('/v1/catalogos', { estabelecimento_id: cataloged.id, nome: 'Loja' })).status).toBe(201);
    expect((await w.api.delete(`/v1/estabelecimentos/${archived.id}`, {}, { ifMatch: archived.etag })).status).toBe(
      200,
    );
    const snapshots = await Promise.all([patched, cataloged, archived].map((e) => readEstablishment(w, e.id)));
    await advance(w, HOUR);
    for (const [i, id] of ids.entries()) {
      const e = [patched, cataloged, archived][i]!;
      expect(await correction(w, id), e.id).toMatchObject({
        estado: 'rejeitada',
        codigo_rejeicao: 'estabelecimento_alterado',
        decidido_em: iso(t0 + HOUR),
        versao_esperada: 1,
      });
      const after = await readEstablishment(w, e.id);
      expect(after.body).toEqual(snapshots[i]!.body);
      expect(after.body.cnpj).toBe(e.body.cnpj);
      expect(after.etag).toBe(snapshots[i]!.etag);
    }
    // The CNPJs asked for are still free.
    for (const { cnpjNovo } of requests) {
      const answer = await w.api.post('/v1/estabelecimentos', { cnpj: cnpjNovo, nome: 'Livre' });
      expect(answer.status, answer.text).toBe(201);
    }
  });

  it('rejects with cnpj_em_uso when a branch registered cnpj_novo after acceptance', async () => {
    const w = await world();
    const created = await branch(w);
    const t0 = await now(w);
    const cnpjNovo = freshCnpj(w);
    const id = await accept(w, created.id, created.etag, cnpjNovo);
    const taker = await w.api.post('/v1/estabelecimentos', { cnpj: cnpjNovo, nome: 'Rápida' });
    expect(taker.status, taker.text).toBe(201);
    await advance(w, HOUR);
    expect(await correction(w, id)).toMatchObject({
      estado: 'rejeitada',
      codigo_rejeicao: 'cnpj_em_uso',
      decidido_em: iso(t0 + HOUR),
    });
    const after = await readEstablishment(w, created.id);
    expect(after.body).toEqual(created.body);
    expect(after.etag).toBe(created.etag);
    expect((await readEstablishment(w, taker.body.id)).body.cnpj).toBe(cnpjNovo);
  });

  it('rejects with cnpj_em_uso the later of two corrections to the same CNPJ once the earlier is approved', async () => {
    const w = await world();
    const a = await branch(w);
    const b = await branch(w);
    const t0 = await now(w);
    const cnpjNovo = freshCnpj(w);
    const first = await accept(w, a.id, a.etag, cnpjNovo);
    await advance(w, MINUTE);
    const second = await accept(w, b.id, b.etag, cnpjNovo);
    await advance(w, HOUR);
    expect(await correction(w, first)).toMatchObject({ estado: 'aprovada', decidido_em: iso(t0 + HOUR) });
    expect(await correction(w, second)).toMatchObject({
      estado: 'rejeitada',
      codigo_rejeicao: 'cnpj_em_uso',
      decidido_em: iso(t0 + MINUTE + HOUR),
    });
    expect((await readEstablishment(w, a.id)).body.cnpj).toBe(cnpjNovo);
    expect((await readEstablishment(w, b.id)).body).toEqual(b.body);
  });

  it('rejects with cnpj_recusado when a revisao_cnpj job fault fails the review, and changes nothing', async () => {
    const w = await world();
    const created = await headOfficeCatalog(w);
    const head = await readEstablishment(w, w.company.headOffice.id);
    const fault = await reviewFault(w, { fail: true });
    const t0 = await now(w);
    const cnpjNovo = freshCnpj(w);
    const id = await accept(w, head.body.id, head.etag, cnpjNovo);
    await advance(w, HOUR);
    expect(await correction(w, id)).toMatchObject({
      estado: 'rejeitada',
      codigo_rejeicao: 'cnpj_recusado',
      decidido_em: iso(t0 + HOUR),
      cnpj_novo: cnpjNovo,
    });
    const after = await readEstablishment(w, head.body.id);
    expect(after.body).toEqual(head.body);
    expect(after.etag).toBe(head.etag);
    const catalog = await w.api.get(`/v1/catalogos/${created.id}`);
    expect(catalog.body).toMatchObject({
      cnpj_estabelecimento: w.company.headOffice.cnpj,
      versao: created.body.versao,
    });
    // The fault fired once (times 1) and is gone.
    const faults = (await w.controls.faults()) as { items: { id: string }[] };
    expect(faults.items.map((f) => f.id)).not.toContain(fault);
    // cnpj_novo is still free.
    expect((await w.api.post('/v1/estabelecimentos', { cnpj: cnpjNovo, nome: 'Livre' })).status).toBe(201);
  });

  it("postpones the review by a revisao_cnpj job fault's delayMs: still pendente at 1 h, decided at 1 h + delay", async () => {
    const w = await world();
    const created = await branch(w);
    const delay = 30 * MINUTE;
    await reviewFault(w, { delayMs: delay });
    const t0 = await now(w);
    const cnpjNovo = freshCnpj(w);
    const id = await accept(w, created.id, created.etag, cnpjNovo);
    await advance(w, HOUR);
    expect(await correction(w, id)).toMatchObject({ estado: 'pendente', decidido_em: null });
    await advance(w, delay - 1);
    expect(await correction(w, id)).toMatchObject({ estado: 'pendente', decidido_em: null });
    expect((await readEstablishment(w, created.id)).etag).toBe(created.etag);
    await advance(w, 1);
    expect(await correction(w, id)).toMatchObject({
      estado: 'aprovada',
      decidido_em: iso(t0 + HOUR + delay),
      codigo_rejeicao: null,
    });
    expect((await readEstablishment(w, created.id)).body).toEqual({ ...created.body, cnpj: cnpjNovo, versao: 2 });
  });

  it('is final: the decision does not change later, whatever happens to the establishment', async () => {
    const w = await world();
    const created = await branch(w);
    const t0 = await now(w);
    const id = await accept(w, created.id, created.etag, freshCnpj(w));
    await advance(w, HOUR);
    const decided = await correction(w, id);
    expect(decided).toMatchObject({ estado: 'aprovada', decidido_em: iso(t0 + HOUR) });
    const current = await readEstablishment(w, created.id);
    expect(
      (await w.api.patch(`/v1/estabelecimentos/${created.id}`, { nome: 'Depois' }, { ifMatch: current.etag })).status,
    ).toBe(200);
    await advance(w, 2 * HOUR);
    expect(await correction(w, id)).toEqual(decided);
  });
});

describe('GET /v1/correcoes-cnpj/{id}', () => {
  // spec: AUTH-04
  it("answers 404 correcao_nao_encontrada at path.id for another company's correction or an unknown id", async () => {
    const w = await world();
    const created = await branch(w);
    const id = await accept(w, created.id, created.etag, freshCnpj(w));
    const other = await otherCompany(w);
    expectError(await other.api.get(correctionPath(id)), 404, 'correcao_nao_encontrada', 'path.id');
    expectError(await w.api.get(correctionPath(UNKNOWN_V7_ID)), 404, 'correcao_nao_encontrada', 'path.id');
    expect((await w.api.get(correctionPath(id))).status).toBe(200);
  });

  // spec: CONV-04, REQ-13
  it('accepts the id in upper case and refuses a malformed id with 422 valor_invalido at path.id', async () => {
    const w = await world();
    const created = await branch(w);
    const id = await accept(w, created.id, created.etag, freshCnpj(w));
    const upper = await w.api.get(correctionPath(id.toUpperCase()));
    expect(upper.status, upper.text).toBe(200);
    expect(upper.body.id).toBe(id);
    for (const bad of ['abc', `${id}0`, '00000000-0000-0000-0000-000000000000']) {
      expectError(await w.api.get(correctionPath(bad)), 422, 'valor_invalido', 'path.id');
    }
    expectError(
      await w.api.post(correctionsOf('abc'), { cnpj_novo: freshCnpj(w), motivo: MOTIVO }, { ifMatch: created.etag }),
      422,
      'valor_invalido',
      'path.id',
    );
  });

  it('answers 405 metodo_nao_permitido with Allow for other methods on both paths', async () => {
    const w = await world();
    const created = await branch(w);
    const id = await accept(w, created.id, created.etag, freshCnpj(w));
    const onList = await w.api.get(correctionsOf(created.id));
    expectError(onList, 405, 'metodo_nao_permitido');
    expect(onList.headers.get('allow')).toBe('POST');
    const onOne = await w.api.delete(correctionPath(id));
    expectError(onOne, 405, 'metodo_nao_permitido');
    expect(
      (onOne.headers.get('allow') ?? '')
        .split(',')
        .map((m) => m.trim())
        .sort(),
    ).toEqual(['GET', 'HEAD']);
  });
});

describe('permissions of CNPJ corrections', () => {
  // spec: AUTH-16
  it('refuses POST with 403 permissao_insuficiente without estabelecimento:gerenciar, before 422 and 428', async () => {
    const w = await world();
    const created = await branch(w);
    const { token } = await w.controls.addCredential(w.company.companyId, ['catalogo:ler', 'catalogo:gerenciar']);
    const reader = w.api.as(token);
    expectError(
      await reader.post(
        correctionsOf(created.id),
        { cnpj_novo: freshCnpj(w), motivo: MOTIVO },
        { ifMatch: created.etag },
      ),
      403,
      'permissao_insuficiente',
      null,
    );
    expectError(
      await reader.post(correctionsOf(created.id), { cnpj_novo: 'X', motivo: '' }),
      403,
      'permissao_insuficiente',
      null,
    );
    // Nothing accepted.
    expect((await request(w, created.id, created.etag, freshCnpj(w))).status).toBe(202);
  });

  it('needs catalogo:ler for GET: a writer with only estabelecimento:gerenciar requests but cannot follow', async () => {
    const w = await world();
    const created = await branch(w);
    const writer = w.api.as((await w.controls.addCredential(w.company.companyId, ['estabelecimento:gerenciar'])).token);
    const reader = w.api.as((await w.controls.addCredential(w.company.companyId, ['catalogo:ler'])).token);
    const answer = await writer.post(
      correctionsOf(created.id),
      { cnpj_novo: freshCnpj(w), motivo: MOTIVO },
      { ifMatch: created.etag },
    );
    expect(answer.status, answer.text).toBe(202);
    expectError(await writer.get(correctionPath(answer.body.id)), 403, 'permissao_insuficiente', null);
    const read = await reader.get(correctionPath(answer.body.id));
    expect(read.status, read.text).toBe(200);
    expect(read.body.id).toBe(answer.body.id);
    expectError(
      await reader.post(
        correctionsOf(created.id),
        { cnpj_novo: freshCnpj(w), motivo: MOTIVO },
        { ifMatch: created.etag },
      ),
      403,
      'permissao_insuficiente',
      null,
    );
  });

  it('answers 401 before anything else without a valid credential', async () => {
    const w = await world();
    const created = await branch(w);
    const id = await accept(w, created.id, created.etag, freshCnpj(w));
    expectError(
      await w.api.as(undefined).post(correctionsOf(created.id), { cnpj_novo: 'X' }),
      401,
      'credencial_ausente',
      'header.authorization',
    );
    expectError(await w.api.as(undefined).get(correctionPath(id)), 401, 'credencial_ausente', 'header.authorization');
    expectError(
      await w.api.as('svc_at_not-a-token').get(correctionPath(id)),
      401,
      'credencial_invalida',
      'header.authorization',
    );
  });
});
