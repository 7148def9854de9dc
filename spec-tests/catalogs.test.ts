/**
 * Catalogs over HTTP: spec "Catalog" and "Endpoints › Catalogs"; POST /v1/catalogos of docs/api.md; the
 * choices of docs/where-the-spec-is-silent.md (one active catalog per establishment, produtos = link
 * count, lists).
 */
import { describe, expect, it } from 'vitest';
import { headOfficeCatalog, product, world, type Answer, type World } from './support/client.js';
import { ETAG, expectError, REQUEST_ID, UUID } from './support/expect.js';
import { branch, branchCatalog, listAll, ownListStart, unique, UNKNOWN_ID } from './support/fixtures.js';
import { deployment } from './support/deployment.js';

const idsOf = (answer: Answer): string[] => answer.body.itens.map((c: { id: string }) => c.id);

/**
 * Where the test's own catalogs begin in GET /v1/catalogos, read before the test makes any: the list's start in a
 * company of the test's own; on a deployment, after the catalogs earlier tests and runs made.
 */
const ownStart = (w: World) => ownListStart(w.api, '/v1/catalogos');
/** GET /v1/catalogos with `query`, from `start` (an apos_id) when there is one. */
const listFrom = (query: string, start: string | undefined) => {
  const params = [query, start === undefined ? '' : `apos_id=${start}`].filter((p) => p !== '').join('&');
  return `/v1/catalogos${params === '' ? '' : `?${params}`}`;
};

describe('POST /v1/catalogos', () => {
  // spec: CONV-07, CAT-01, CAT-02, CAT-03, CAT-04, REQ-04
  it("creates a catalog: 201 with Location, ETag and every field of the spec's table", async () => {
    const w = await world();
    await w.controls.advance('1h');
    const { now } = await w.controls.clock();
    const answer = await w.api.post('/v1/catalogos', {
      estabelecimento_id: w.company.headOffice.id,
      nome: 'Loja Matriz',
      id_externo: 'erp-cat-1',
    });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body).toEqual({
      id: expect.stringMatching(UUID),
      id_externo: 'erp-cat-1',
      estabelecimento_id: w.company.headOffice.id,
      cnpj_estabelecimento: w.company.headOffice.cnpj,
      nome: 'Loja Matriz',
      estado: 'ativo',
      versao: 1,
      produtos: 0,
      criado_em: now,
      atualizado_em: now,
      excluido_em: null,
    });
    expect(answer.headers.get('location')).toBe(`/v1/catalogos/${answer.body.id}`);
    expect(answer.headers.get('etag')).toMatch(ETAG);
    expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
  });

  // spec: CAT-03
  it('takes id_externo as optional: absent and null both give null', async () => {
    const w = await world();
    const absent = await w.api.post('/v1/catalogos', { estabelecimento_id: w.company.headOffice.id, nome: 'A' });
    expect(absent.status, absent.text).toBe(201);
    expect(absent.body.id_externo).toBeNull();
    const other = await branch(w);
    const nulled = await w.api.post('/v1/catalogos', { estabelecimento_id: other.id, nome: 'B', id_externo: null });
    expect(nulled.status, nulled.text).toBe(201);
    expect(nulled.body.id_externo).toBeNull();
    expect(nulled.body.cnpj_estabelecimento).toBe(other.body.cnpj);
  });

  // spec: REQ-06
  it("sets the establishment's catalogo_id and moves its versao and ETag", async () => {
    const w = await world();
    const before = await w.api.get(`/v1/estabelecimentos/${w.company.headOffice.id}`);
    const catalog = await headOfficeCatalog(w);
    const after = await w.api.get(`/v1/estabelecimentos/${w.company.headOffice.id}`);
    expect(after.body).toEqual({ ...before.body, catalogo_id: catalog.id, versao: before.body.versao + 1 });
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    // The old ETag no longer edits the establishment.
    expectError(
      await w.api.patch(
        `/v1/estabelecimentos/${w.company.headOffice.id}`,
        { nome: 'X' },
        { ifMatch: before.headers.get('etag')! },
      ),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
  });

  it('refuses an unknown establishment with 404 estabelecimento_nao_encontrado at body.estabelecimento_id', async () => {
    const w = await world();
    expectError(
      await w.api.post('/v1/catalogos', { estabelecimento_id: UNKNOWN_ID, nome: 'L' }),
      404,
      'estabelecimento_nao_encontrado',
      'body.estabelecimento_id',
    );
  });

  it("refuses another company's establishment with the same 404", async () => {
    const w = await world();
    const other = await w.controls.createCompany();
    expectError(
      await w.api.post('/v1/catalogos', { estabelecimento_id: other.headOffice.id, nome: 'L' }),
      404,
      'estabelecimento_nao_encontrado',
      'body.estabelecimento_id',
    );
    const theirs = await w.api.as(other.token).get(`/v1/estabelecimentos/${other.headOffice.id}`);
    expect(theirs.body.catalogo_id).toBeNull();
  });

  it('refuses a second catalog for the same establishment with 409 estabelecimento_com_catalogo_ativo', async () => {
    const w = await world();
    const start = await ownStart(w);
    const first = await headOfficeCatalog(w);
    const answer = await w.api.post('/v1/catalogos', { estabelecimento_id: w.company.headOffice.id, nome: 'Outra' });
    expect(answer.status, answer.text).toBe(409);
    expect(answer.body.erro.codigo).toBe('estabelecimento_com_catalogo_ativo');
    expect(answer.body.erro.request_id).toBe(answer.headers.get('x-request-id'));
    const list = await w.api.get(listFrom('', start));
    expect(idsOf(list)).toEqual([first.id]);
  });

  it('refuses an archived establishment with 409 estabelecimento_arquivado', async () => {
    const w = await world();
    const start = await ownStart(w);
    const establishment = await branch(w);
    expect(
      (await w.api.delete(`/v1/estabelecimentos/${establishment.id}`, {}, { ifMatch: establishment.etag })).status,
    ).toBe(200);
    const answer = await w.api.post('/v1/catalogos', { estabelecimento_id: establishment.id, nome: 'L' });
    expect(answer.status, answer.text).toBe(409);
    expect(answer.body.erro.codigo).toBe('estabelecimento_arquivado');
    expect((await w.api.get(listFrom('', start))).body.itens).toEqual([]);
  });

  // spec: CONV-04
  it('validates the body: estabelecimento_id required and a uuid, nome 1 to 120, id_externo 1 to 256, no unknown field', async () => {
    const w = await world();
    const start = await ownStart(w);
    const id = w.company.headOffice.id;
    expectError(await w.api.post('/v1/catalogos', { nome: 'L' }), 422, 'campo_obrigatorio', 'body.estabelecimento_id');
    expectError(
      await w.api.post('/v1/catalogos', { estabelecimento_id: 'abc', nome: 'L' }),
      422,
      'valor_invalido',
      'body.estabelecimento_id',
    );
    expectError(await w.api.post('/v1/catalogos', { estabelecimento_id: id }), 422, 'campo_obrigatorio', 'body.nome');
    expectError(
      await w.api.post('/v1/catalogos', { estabelecimento_id: id, nome: '' }),
      422,
      'valor_invalido',
      'body.nome',
    );
    expectError(
      await w.api.post('/v1/catalogos', { estabelecimento_id: id, nome: 'n'.repeat(121) }),
      422,
      'valor_invalido',
      'body.nome',
    );
    expectError(
      await w.api.post('/v1/catalogos', { estabelecimento_id: id, nome: 'L', id_externo: '' }),
      422,
      'valor_invalido',
      'body.id_externo',
    );
    expectError(
      await w.api.post('/v1/catalogos', { estabelecimento_id: id, nome: 'L', id_externo: 'x'.repeat(257) }),
      422,
      'valor_invalido',
      'body.id_externo',
    );
    expectError(
      await w.api.post('/v1/catalogos', { estabelecimento_id: id, nome: 'L', estado: 'ativo' }),
      422,
      'campo_desconhecido',
      'body.estado',
    );
    expect((await w.api.get(listFrom('', start))).body.itens).toEqual([]);
    const edges = await w.api.post('/v1/catalogos', {
      estabelecimento_id: id.toUpperCase(),
      nome: 'n'.repeat(120),
      id_externo: 'x'.repeat(256),
    });
    expect(edges.status, edges.text).toBe(201);
    expect(edges.body).toMatchObject({ estabelecimento_id: id, nome: 'n'.repeat(120), id_externo: 'x'.repeat(256) });
  });
});

describe('GET /v1/catalogos/{id}', () => {
  // spec: CONV-04, CAT-17
  it('answers 200 with the catalog and the ETag of its creation, also for an upper-case id', async () => {
    const w = await world();
    const created = await headOfficeCatalog(w);
    for (const id of [created.id, created.id.toUpperCase()]) {
      const answer = await w.api.get(`/v1/catalogos/${id}`);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(created.body);
      expect(answer.headers.get('etag')).toBe(created.etag);
    }
  });

  // spec: AUTH-04, REQ-13
  it("answers 404 catalogo_nao_encontrado for an unknown or another company's catalog, 422 for a malformed id", async () => {
    const w = await world();
    expectError(await w.api.get(`/v1/catalogos/${UNKNOWN_ID}`), 404, 'catalogo_nao_encontrado', 'path.id');
    const other = await w.controls.createCompany();
    const theirs = await w.api
      .as(other.token)
      .post('/v1/catalogos', { estabelecimento_id: other.headOffice.id, nome: 'Alheio' });
    expect(theirs.status).toBe(201);
    expectError(await w.api.get(`/v1/catalogos/${theirs.body.id}`), 404, 'catalogo_nao_encontrado', 'path.id');
    expectError(await w.api.get('/v1/catalogos/not-a-uuid'), 422, 'valor_invalido', 'path.id');
  });
});

describe('PATCH /v1/catalogos/{id}', () => {
  // spec: CAT-25, CAT-26, CAT-27, REQ-06
  it('renames: versao + 1, new ETag, atualizado_em moves with the clock, the rest is kept', async () => {
    const w = await world();
    const created = await headOfficeCatalog(w, 'Antes');
    await w.controls.advance('90s');
    const { now } = await w.controls.clock();
    expect(now).not.toBe(created.body.criado_em);
    const answer = await w.api.patch(`/v1/catalogos/${created.id}`, { nome: 'Depois' }, { ifMatch: created.etag });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ ...created.body, nome: 'Depois', versao: 2, atualizado_em: now });
    expect(Date.parse(answer.body.atualizado_em) - Date.parse(created.body.atualizado_em)).toBe(90_000);
    expect(answer.headers.get('etag')).toMatch(ETAG);
    expect(answer.headers.get('etag')).not.toBe(created.etag);
    const read = await w.api.get(`/v1/catalogos/${created.id}`);
    expect(read.body).toEqual(answer.body);
    expect(read.headers.get('etag')).toBe(answer.headers.get('etag'));
  });

  // spec: CAT-24, CAT-25, CAT-26, REQ-07
  it('sets id_externo keeping nome, and null clears it', async () => {
    const w = await world();
    const created = await headOfficeCatalog(w, 'Fixo');
    const set = await w.api.patch(`/v1/catalogos/${created.id}`, { id_externo: 'ext-9' }, { ifMatch: created.etag });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ nome: 'Fixo', id_externo: 'ext-9', versao: 2 });
    const cleared = await w.api.patch(
      `/v1/catalogos/${created.id}`,
      { id_externo: null },
      { ifMatch: set.headers.get('etag')! },
    );
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body).toMatchObject({ nome: 'Fixo', id_externo: null, versao: 3 });
    const both = await w.api.patch(
      `/v1/catalogos/${created.id}`,
      { nome: 'Novo', id_externo: 'ext-10' },
      { ifMatch: cleared.headers.get('etag')! },
    );
    expect(both.status, both.text).toBe(200);
    expect(both.body).toMatchObject({
      nome: 'Novo',
      id_externo: 'ext-10',
      versao: 4,
      estabelecimento_id: w.company.headOffice.id,
    });
  });

  // spec: CAT-21
  it('needs at least one field: {} is 422 and changes nothing', async () => {
    const w = await world();
    const created = await headOfficeCatalog(w);
    expectError(
      await w.api.patch(`/v1/catalogos/${created.id}`, {}, { ifMatch: created.etag }),
      422,
      'valor_invalido',
      'body',
    );
    expect((await w.api.get(`/v1/catalogos/${created.id}`)).headers.get('etag')).toBe(created.etag);
  });

  // spec: CAT-22, CAT-23, CAT-26
  it('refuses fields it does not edit (no move to another establishment) and out-of-range values', async () => {
    const w = await world();
    const created = await headOfficeCatalog(w);
    const other = await branch(w);
    const path = `/v1/catalogos/${created.id}`;
    expectError(
      await w.api.patch(path, { estabelecimento_id: other.id }, { ifMatch: created.etag }),
      422,
      'campo_desconhecido',
      'body.estabelecimento_id',
    );
    expectError(await w.api.patch(path, { nome: '' }, { ifMatch: created.etag }), 422, 'valor_invalido', 'body.nome');
    expectError(
      await w.api.patch(path, { nome: 'n'.repeat(121) }, { ifMatch: created.etag }),
      422,
      'valor_invalido',
      'body.nome',
    );
    expectError(
      await w.api.patch(path, { id_externo: '' }, { ifMatch: created.etag }),
      422,
      'valor_invalido',
      'body.id_externo',
    );
  });

  // spec: CAT-19, CAT-20, REQ-05
  it('answers 428 precondicao_ausente without If-Match and 412 precondicao_falhou with a stale one', async () => {
    const w = await world();
    const created = await headOfficeCatalog(w, 'Original');
    const path = `/v1/catalogos/${created.id}`;
    expectError(await w.api.patch(path, { nome: 'X' }), 428, 'precondicao_ausente', 'header.if-match');
    expect((await w.api.patch(path, { nome: 'Primeira' }, { ifMatch: created.etag })).status).toBe(200);
    expectError(
      await w.api.patch(path, { nome: 'Segunda' }, { ifMatch: created.etag }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    expect((await w.api.get(path)).body).toMatchObject({ nome: 'Primeira', versao: 2 });
  });

  // spec: REQ-06
  it('answers 412 after a product is created in the catalog, since that moves its versao', async () => {
    const w = await world();
    const created = await headOfficeCatalog(w);
    await product(w, created.id);
    expectError(
      await w.api.patch(`/v1/catalogos/${created.id}`, { nome: 'X' }, { ifMatch: created.etag }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
  });

  it('answers 404 for an unknown catalog', async () => {
    const w = await world();
    const created = await headOfficeCatalog(w);
    expectError(
      await w.api.patch(`/v1/catalogos/${UNKNOWN_ID}`, { nome: 'X' }, { ifMatch: created.etag }),
      404,
      'catalogo_nao_encontrado',
      'path.id',
    );
  });
});

describe('produtos of a catalog', () => {
  // spec: CAT-05
  it('counts the links: products created in it, linked to it and unlinked from it; each change moves versao', async () => {
    const w = await world();
    const start = await ownStart(w);
    const catalog = await headOfficeCatalog(w);
    const other = await branchCatalog(w);
    for (let i = 0; i < 3; i++) await product(w, catalog.id);
    const afterCreate = await w.api.get(`/v1/catalogos/${catalog.id}`);
    expect(afterCreate.body).toMatchObject({ produtos: 3, versao: 4 });
    const foreign = await product(w, other.id);
    const linked = await w.api.put(`/v1/catalogos/${catalog.id}/produtos/${foreign.id}`, {}, { ifMatch: foreign.etag });
    expect(linked.status, linked.text).toBe(200);
    const afterLink = await w.api.get(`/v1/catalogos/${catalog.id}`);
    expect(afterLink.body).toMatchObject({ produtos: 4, versao: 5 });
    expect((await w.api.get(`/v1/catalogos/${other.id}`)).body.produtos).toBe(1);
    const unlinked = await w.api.delete(
      `/v1/catalogos/${catalog.id}/produtos/${foreign.id}`,
      {},
      { ifMatch: linked.headers.get('etag')! },
    );
    expect(unlinked.status, unlinked.text).toBe(200);
    const afterUnlink = await w.api.get(`/v1/catalogos/${catalog.id}`);
    expect(afterUnlink.body).toMatchObject({ produtos: 3, versao: 6 });
    const listed = await w.api.get(listFrom('', start));
    expect(listed.body.itens).toEqual([afterUnlink.body, (await w.api.get(`/v1/catalogos/${other.id}`)).body]);
  });
});

describe('GET /v1/catalogos', () => {
  // spec: CAT-06
  it("lists the company's catalogs in creation order, each as GET one shows it", async () => {
    const w = await world();
    const start = await ownStart(w);
    const a = await headOfficeCatalog(w);
    const b = await branchCatalog(w, { id_externo: 'b' });
    const answer = await w.api.get(listFrom('', start));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ itens: [a.body, b.body], proximo_id: null });
    expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
  });

  // spec: AUTH-06
  it("answers an empty list for a company without catalogs, and never another company's", async () => {
    const w = await world();
    const other = await w.controls.createCompany();
    const theirs = await w.api
      .as(other.token)
      .post('/v1/catalogos', { estabelecimento_id: other.headOffice.id, nome: 'Alheio' });
    expect(theirs.status, theirs.text).toBe(201);
    // A deployment's company has the catalogs of earlier tests: there, only that theirs is not among them.
    if (deployment === undefined)
      expect((await w.api.get('/v1/catalogos')).body).toEqual({ itens: [], proximo_id: null });
    else expect((await listAll(w.api, '/v1/catalogos', 'limite=200')).ids).not.toContain(theirs.body.id);
  });

  // spec: CAT-12, LIM-24
  it('defaults limite to 50, accepts 200, and proximo_id leads to the rest', async () => {
    const w = await world();
    const start = await ownStart(w);
    const created = [(await headOfficeCatalog(w)).id];
    for (let i = 0; i < 50; i++) created.push((await branchCatalog(w)).id);
    const first = await w.api.get(listFrom('', start));
    expect(idsOf(first)).toEqual(created.slice(0, 50));
    expect(first.body.proximo_id).toBe(created[49]);
    const rest = await w.api.get(`/v1/catalogos?apos_id=${first.body.proximo_id}`);
    expect(rest.body).toMatchObject({ proximo_id: null });
    expect(idsOf(rest)).toEqual(created.slice(50));
    const max = await w.api.get(listFrom('limite=200', start));
    expect(max.status).toBe(200);
    expect(idsOf(max)).toEqual(created);
    expect(max.body.proximo_id).toBeNull();
  });

  // spec: LIM-25
  it('answers at most 200 catalogs a page: with 201 catalogs or more, limite=200 gives exactly 200 and proximo_id leads to the rest', async () => {
    const w = await world();
    // The company may hold catalogs of its own on a real deployment: the test counts on its 201 being among them.
    const created = [(await headOfficeCatalog(w)).id];
    for (let i = 0; i < 200; i++) created.push((await branchCatalog(w)).id);
    const { ids: all, pages, sizes } = await listAll(w.api, '/v1/catalogos', 'limite=200');
    expect(sizes[0]).toBe(200);
    expect(pages[0]!.body.proximo_id).toBe(all[199]);
    expect(
      sizes.slice(0, -1).every((size) => size === 200),
      sizes.join(', '),
    ).toBe(true);
    expect(
      sizes.every((size) => size >= 1 && size <= 200),
      sizes.join(', '),
    ).toBe(true);
    expect(new Set(all).size).toBe(all.length);
    for (const id of created) expect(all).toContain(id);
  });

  // spec: "limite (integer 1 to 200)": 0000050 is the integer 50, written with leading zeros.
  // spec: LIM-26
  it('takes limite with leading zeros as the integer it writes: 0000050 is 50, 0000201 is above 200', async () => {
    const w = await world();
    const start = await ownStart(w);
    const created = [(await headOfficeCatalog(w)).id];
    for (let i = 0; i < 50; i++) created.push((await branchCatalog(w)).id);
    const padded = await w.api.get(listFrom('limite=0000050', start));
    expect(padded.status, padded.text).toBe(200);
    expect(idsOf(padded)).toEqual(created.slice(0, 50));
    expect(padded.body.proximo_id).toBe(created[49]);
    expect(idsOf(await w.api.get(listFrom(`limite=${'0'.repeat(20)}1`, start)))).toEqual(created.slice(0, 1));
    expectError(await w.api.get('/v1/catalogos?limite=0000201'), 422, 'valor_invalido', 'query.limite');
    expectError(await w.api.get('/v1/catalogos?limite=0000000'), 422, 'valor_invalido', 'query.limite');
  });

  // spec: CAT-13, LIM-14
  it('pages with limite and apos_id, visiting every catalog exactly once', async () => {
    const w = await world();
    const start = await ownStart(w);
    const created = [(await headOfficeCatalog(w)).id];
    for (let i = 0; i < 4; i++) created.push((await branchCatalog(w)).id);
    const { ids, pages } = await listAll(w.api, '/v1/catalogos', 'limite=2', start);
    expect(ids).toEqual(created);
    expect(pages.map((p) => p.body.itens.length)).toEqual([2, 2, 1]);
  });

  // spec: LIM-26
  it('refuses limite 0, 201 and abc with 422 at query.limite', async () => {
    const w = await world();
    for (const limite of ['0', '201', 'abc', '']) {
      const answer = await w.api.get(`/v1/catalogos?limite=${limite}`);
      expect(answer.status, `limite=${limite}`).toBe(422);
      expectError(answer, 422, 'valor_invalido', 'query.limite');
    }
  });

  // spec: CAT-16
  it('refuses an apos_id that is not a catalog of the company with 422 cursor_invalido', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    expectError(await w.api.get(`/v1/catalogos?apos_id=${UNKNOWN_ID}`), 422, 'cursor_invalido', 'query.apos_id');
    // an establishment id is not a catalog cursor
    expectError(
      await w.api.get(`/v1/catalogos?apos_id=${w.company.headOffice.id}`),
      422,
      'cursor_invalido',
      'query.apos_id',
    );
    const other = await w.controls.createCompany();
    const theirs = await w.api
      .as(other.token)
      .post('/v1/catalogos', { estabelecimento_id: other.headOffice.id, nome: 'Alheio' });
    expectError(await w.api.get(`/v1/catalogos?apos_id=${theirs.body.id}`), 422, 'cursor_invalido', 'query.apos_id');
    expectError(await w.api.get('/v1/catalogos?apos_id=xyz'), 422, 'valor_invalido', 'query.apos_id');
  });

  // spec: CONV-04, CAT-10, CAT-16
  it('filters by estabelecimento_id', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const b = await branchCatalog(w);
    await branchCatalog(w);
    const answer = await w.api.get(`/v1/catalogos?estabelecimento_id=${b.establishmentId}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ itens: [b.body], proximo_id: null });
    expect(idsOf(await w.api.get(`/v1/catalogos?estabelecimento_id=${b.establishmentId.toUpperCase()}`))).toEqual([
      b.id,
    ]);
    const withoutCatalog = await branch(w);
    expect((await w.api.get(`/v1/catalogos?estabelecimento_id=${withoutCatalog.id}`)).body).toEqual({
      itens: [],
      proximo_id: null,
    });
    expect((await w.api.get(`/v1/catalogos?estabelecimento_id=${UNKNOWN_ID}`)).body).toEqual({
      itens: [],
      proximo_id: null,
    });
    expectError(
      await w.api.get('/v1/catalogos?estabelecimento_id=123'),
      422,
      'valor_invalido',
      'query.estabelecimento_id',
    );
  });

  // spec: CAT-11, CAT-15
  it('filters by id_externo, exactly', async () => {
    const w = await world();
    const a = await headOfficeCatalog(w);
    // Values of the run's own (and one that starts with another): the company may keep earlier runs' catalogs.
    const [group1, spaced] = [unique('grupo-1'), unique('grupo-x y')];
    const b = await branchCatalog(w, { id_externo: group1 });
    await branchCatalog(w, { id_externo: `${group1}0` });
    expect(idsOf(await w.api.get(`/v1/catalogos?id_externo=${group1}`))).toEqual([b.id]);
    expect(idsOf(await w.api.get(`/v1/catalogos?id_externo=${group1.toUpperCase()}`))).toEqual([]);
    expect(idsOf(await w.api.get('/v1/catalogos?id_externo=grupo'))).toEqual([]);
    // an id_externo set by PATCH is found; a cleared one no longer
    const patched = await w.api.patch(`/v1/catalogos/${a.id}`, { id_externo: spaced }, { ifMatch: a.etag });
    expect(patched.status).toBe(200);
    expect(idsOf(await w.api.get(`/v1/catalogos?id_externo=${encodeURIComponent(spaced)}`))).toEqual([a.id]);
    expectError(await w.api.get('/v1/catalogos?id_externo='), 422, 'valor_invalido', 'query.id_externo');
    expectError(
      await w.api.get(`/v1/catalogos?id_externo=${'x'.repeat(257)}`),
      422,
      'valor_invalido',
      'query.id_externo',
    );
    expect((await w.api.get(`/v1/catalogos?id_externo=${'x'.repeat(256)}`)).status).toBe(200);
  });

  // spec: CAT-08, CAT-14
  it('filters by estado: ativo lists the active catalogs, excluido none yet; another value is 422', async () => {
    const w = await world();
    const start = await ownStart(w);
    const a = await headOfficeCatalog(w);
    const b = await branchCatalog(w);
    expect(idsOf(await w.api.get(listFrom('estado=ativo', start)))).toEqual([a.id, b.id]);
    expect((await w.api.get(listFrom('estado=excluido', start))).body).toEqual({ itens: [], proximo_id: null });
    expectError(await w.api.get('/v1/catalogos?estado=arquivado'), 422, 'valor_invalido', 'query.estado');
  });

  // spec: CAT-13
  it('combines filters with paging', async () => {
    const w = await world();
    const start = await ownStart(w);
    const ids: string[] = [];
    const keys = [unique('k0'), unique('k1'), unique('k2')];
    for (const key of keys) ids.push((await branchCatalog(w, { id_externo: key })).id);
    const page = await w.api.get(`/v1/catalogos?estado=ativo&id_externo=${keys[1]}&limite=1`);
    expect(page.body).toMatchObject({ proximo_id: null });
    expect(idsOf(page)).toEqual([ids[1]]);
    const { ids: visited } = await listAll(w.api, '/v1/catalogos', 'estado=ativo&limite=1', start);
    expect(visited).toEqual(ids);
  });

  it('refuses an unknown query parameter with 422 campo_desconhecido and a repeated one with parametro_repetido', async () => {
    const w = await world();
    expectError(await w.api.get('/v1/catalogos?cursor=abc'), 422, 'campo_desconhecido', 'query.cursor');
    expectError(
      await w.api.get('/v1/catalogos?estado=ativo&estado=excluido'),
      422,
      'parametro_repetido',
      'query.estado',
    );
  });
});

describe('GET /v1/catalogos byte budget', () => {
  // pageBudgets is an option of an in-process emulator; the shared server keeps the default budget (256 KiB).
  // spec: CAT-13
  it('cuts pages by bytes (at least one item each) when the budget is low, and visits every catalog once', async () => {
    const w = await world({ pageBudgets: { catalogs: 600 } });
    const created = [(await headOfficeCatalog(w)).id];
    for (let i = 0; i < 4; i++) created.push((await branchCatalog(w)).id);
    // One catalog larger than the whole budget on its own.
    created.push((await branchCatalog(w, { nome: 'n'.repeat(120), id_externo: 'x'.repeat(256) })).id);
    created.push((await branchCatalog(w)).id);
    const { ids, pages } = await listAll(w.api, '/v1/catalogos', 'limite=50');
    expect(ids).toEqual(created);
    const sizes = pages.map((p) => p.body.itens.length);
    if (w.target.kind === 'in-process') {
      expect(pages.length).toBeGreaterThan(1);
      for (const page of pages) {
        expect(page.body.itens.length).toBeGreaterThanOrEqual(1);
        if (page.body.itens.length > 1)
          expect(Buffer.byteLength(JSON.stringify(page.body.itens))).toBeLessThanOrEqual(600);
      }
      // Each page holds as many items as fit: adding the next page's first item would exceed the budget.
      for (let i = 0; i + 1 < pages.length; i++) {
        const next = pages[i + 1]!.body.itens[0];
        expect(Buffer.byteLength(JSON.stringify([...pages[i]!.body.itens, next]))).toBeGreaterThan(600);
      }
      const big = pages.find((p) =>
        p.body.itens.some((c: { id_externo: string | null }) => c.id_externo === 'x'.repeat(256)),
      )!;
      expect(big.body.itens).toHaveLength(1);
      expect(Buffer.byteLength(JSON.stringify(big.body.itens))).toBeGreaterThan(600);
    } else {
      expect(sizes).toEqual([created.length]);
    }
  });
});

describe('permissions of catalogs', () => {
  // spec: AUTH-11
  it('needs catalogo:gerenciar to create and edit (403 permissao_insuficiente), catalogo:ler to read', async () => {
    const w = await world();
    const start = await ownStart(w);
    const created = await headOfficeCatalog(w);
    const other = await branch(w);
    const { token: readerToken } = await w.controls.addCredential(w.company.companyId, [
      'catalogo:ler',
      'estabelecimento:gerenciar',
    ]);
    const reader = w.api.as(readerToken);
    expectError(
      await reader.post('/v1/catalogos', { estabelecimento_id: other.id, nome: 'L' }),
      403,
      'permissao_insuficiente',
      null,
    );
    expectError(
      await reader.patch(`/v1/catalogos/${created.id}`, { nome: 'X' }, { ifMatch: created.etag }),
      403,
      'permissao_insuficiente',
      null,
    );
    expect((await reader.get(`/v1/catalogos/${created.id}`)).status).toBe(200);
    expect((await reader.get('/v1/catalogos')).status).toBe(200);
    const { token: managerToken } = await w.controls.addCredential(w.company.companyId, ['catalogo:gerenciar']);
    const manager = w.api.as(managerToken);
    expectError(await manager.get(`/v1/catalogos/${created.id}`), 403, 'permissao_insuficiente', null);
    expectError(await manager.get('/v1/catalogos'), 403, 'permissao_insuficiente', null);
    const made = await manager.post('/v1/catalogos', { estabelecimento_id: other.id, nome: 'L' });
    expect(made.status, made.text).toBe(201);
    expect(idsOf(await w.api.get(listFrom('', start)))).toEqual([created.id, made.body.id]);
  });
});
