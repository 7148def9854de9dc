/**
 * Products over HTTP: creation in a catalog, reads, partial edits, links between catalogs, the two product
 * lists and their cursors, ownership and permissions (spec "Product", "Endpoints › Products", the PUT link;
 * paths of docs/api.md; limits of spec "Limits").
 */
import { describe, expect, it } from 'vitest';
import { headOfficeCatalog, NCM, otherCompany, product, world, type World } from './support/client.js';
import { ETAG, expectError } from './support/expect.js';
import { branchCatalog, productsPath, unique, UNKNOWN_V7_ID } from './support/fixtures.js';
import { deployment, needsOwnCompany } from './support/deployment.js';

const createIn = (w: World, catalogId: string, body: unknown) => w.api.post(productsPath(catalogId), body);

/** Every page of a product list, following proximo_cursor until null. */
async function allPages(w: World, path: string, limite: number): Promise<{ pages: string[][] }> {
  const pages: string[][] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const query = new URLSearchParams({ limite: String(limite), ...(cursor === null ? {} : { cursor }) });
    const page = await w.api.get(`${path}?${query}`);
    expect(page.status).toBe(200);
    pages.push(page.body.itens.map((p: { id: string }) => p.id));
    cursor = page.body.proximo_cursor;
    if (cursor === null) return { pages };
    expect(typeof cursor).toBe('string');
  }
  throw new Error(`${path} did not end after 100 pages`);
}

describe('POST /v1/catalogos/{id}/produtos', () => {
  // spec: CONV-03, PROD-01, PROD-02, PROD-03
  it('creates the product: 201, Location, ETag and the exact body with defaults', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const answer = await createIn(w, catalog.id, { origem: 'erp', ncm: NCM });
    expect(answer.status).toBe(201);
    const id = answer.body.id;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(answer.body).toEqual({
      id,
      id_externo: null,
      origem: 'erp',
      sku: null,
      descricao: null,
      ncm: NCM,
      atributos: [],
      versao: 1,
      ativo: true,
      catalogos: [catalog.id],
    });
    expect(answer.headers.get('location')).toBe(`/v1/produtos/${id}`);
    expect(answer.headers.get('etag')).toMatch(ETAG);
    expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps every field it was given', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const fields = {
      origem: 'erp',
      ncm: NCM,
      id_externo: unique('SKU-EXT-1'),
      sku: 'sku-1',
      descricao: 'Notebook 14"',
      atributos: [
        { codigo: 'cor', valores: ['preto', 'prata'] },
        { codigo: 'voltagem', valores: ['bivolt'] },
      ],
    };
    const answer = await createIn(w, catalog.id, fields);
    expect(answer.status).toBe(201);
    const { origem, ncm, id_externo, sku, descricao, atributos } = fields;
    expect(answer.body).toEqual({
      id: answer.body.id,
      id_externo,
      origem,
      sku,
      descricao,
      ncm,
      atributos,
      versao: 1,
      ativo: true,
      catalogos: [catalog.id],
    });
  });

  it('moves the catalog: produtos counts the link and versao goes up by one', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const before = await w.api.get(`/v1/catalogos/${catalog.id}`);
    expect(before.body).toMatchObject({ produtos: 0 });
    await product(w, catalog.id);
    const after = await w.api.get(`/v1/catalogos/${catalog.id}`);
    expect(after.body.produtos).toBe(1);
    expect(after.body.versao).toBe(before.body.versao + 1);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    await product(w, catalog.id);
    const third = await w.api.get(`/v1/catalogos/${catalog.id}`);
    expect(third.body).toMatchObject({ produtos: 2, versao: before.body.versao + 2 });
  });

  it('accepts the upper limits: origem 64, descricao 2000, 128 attributes, codigo 128, 50 values (of 1000 characters)', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const atributos = Array.from({ length: 128 }, (_, i) => ({
      codigo: i === 0 ? 'c'.repeat(128) : `a${i}`,
      valores: i === 1 ? Array.from({ length: 50 }, (_, j) => `v${j}`) : ['x'.repeat(1000)],
    }));
    // 256 characters, ending in the run's own suffix where the company is shared.
    const suffix = unique('');
    const idExterno = 'e'.repeat(256 - suffix.length) + suffix;
    const answer = await createIn(w, catalog.id, {
      origem: 'o'.repeat(64),
      ncm: NCM,
      descricao: 'd'.repeat(2000),
      atributos,
      sku: 's'.repeat(256),
      id_externo: idExterno,
    });
    expect(answer.status).toBe(201);
    expect(answer.body.atributos).toEqual(atributos);
  });

  it.each([
    ['ncm of 7 digits', { ncm: '8471301' }, 'valor_invalido', 'body.ncm'],
    ['ncm of 9 digits', { ncm: '847130123' }, 'valor_invalido', 'body.ncm'],
    ['ncm with letters', { ncm: '8471301A' }, 'valor_invalido', 'body.ncm'],
    ['ncm as a number', { ncm: 84713012 }, 'valor_invalido', 'body.ncm'],
    ['ncm missing', { ncm: undefined }, 'campo_obrigatorio', 'body.ncm'],
    ['origem missing', { origem: undefined }, 'campo_obrigatorio', 'body.origem'],
    ['origem of 65 characters', { origem: 'o'.repeat(65) }, 'valor_invalido', 'body.origem'],
    ['origem empty', { origem: '' }, 'valor_invalido', 'body.origem'],
    ['descricao of 2001 characters', { descricao: 'd'.repeat(2001) }, 'valor_invalido', 'body.descricao'],
    ['descricao empty', { descricao: '' }, 'valor_invalido', 'body.descricao'],
    ['sku of 257 characters', { sku: 's'.repeat(257) }, 'valor_invalido', 'body.sku'],
    ['id_externo of 257 characters', { id_externo: 'e'.repeat(257) }, 'valor_invalido', 'body.id_externo'],
    ['id_externo empty', { id_externo: '' }, 'valor_invalido', 'body.id_externo'],
    [
      '129 attributes',
      { atributos: Array.from({ length: 129 }, (_, i) => ({ codigo: `a${i}`, valores: ['x'] })) },
      'valor_invalido',
      'body.atributos',
    ],
    [
      'codigo of 129 characters',
      {
        atributos: [
          { codigo: 'ok', valores: ['x'] },
          { codigo: 'c'.repeat(129), valores: ['x'] },
        ],
      },
      'valor_invalido',
      'body.atributos[1].codigo',
    ],
    ['codigo empty', { atributos: [{ codigo: '', valores: ['x'] }] }, 'valor_invalido', 'body.atributos[0].codigo'],
    ['codigo missing', { atributos: [{ valores: ['x'] }] }, 'campo_obrigatorio', 'body.atributos[0].codigo'],
    [
      'no valores',
      {
        atributos: [
          { codigo: 'a', valores: ['x'] },
          { codigo: 'b', valores: ['x'] },
          { codigo: 'c', valores: [] },
        ],
      },
      'valor_invalido',
      'body.atributos[2].valores',
    ],
    [
      '51 valores',
      {
        atributos: [
          { codigo: 'a', valores: ['x'] },
          { codigo: 'b', valores: Array.from({ length: 51 }, (_, i) => `v${i}`) },
        ],
      },
      'valor_invalido',
      'body.atributos[1].valores',
    ],
    ['valores missing', { atributos: [{ codigo: 'a' }] }, 'campo_obrigatorio', 'body.atributos[0].valores'],
    [
      'a value that is not a string',
      { atributos: [{ codigo: 'a', valores: ['x', 7] }] },
      'valor_invalido',
      'body.atributos[0].valores[1]',
    ],
    ['an unknown field', { preco: 10 }, 'campo_desconhecido', 'body.preco'],
    [
      'an unknown attribute field',
      { atributos: [{ codigo: 'a', valores: ['1'], unidade: 'cm' }] },
      'campo_desconhecido',
      'body.atributos[0].unidade',
    ],
    ['versao sent by the client', { versao: 1 }, 'campo_desconhecido', 'body.versao'],
  ])('refuses %s with 422 at the exact caminho, creating nothing', async (_name, change, codigo, caminho) => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const body: Record<string, unknown> = { origem: 'erp', ncm: NCM, ...change };
    for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
    const answer = await createIn(w, catalog.id, body);
    expectError(answer, 422, codigo, caminho);
    // The catalog is the test's own and the request named it: a product made anyway would be listed there.
    const list = await w.api.get(productsPath(catalog.id));
    expect(list.body).toEqual({ itens: [], proximo_cursor: null });
    const after = await w.api.get(`/v1/catalogos/${catalog.id}`);
    expect(after.body).toMatchObject({ produtos: 0, versao: catalog.body.versao });
  });

  it('refuses an id_externo another product of the company has with 409 id_externo_duplicado', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const idExterno = unique('EXT-1');
    await product(w, catalog.id, { id_externo: idExterno });
    const answer = await createIn(w, catalog.id, { origem: 'erp', ncm: NCM, id_externo: idExterno });
    expectError(answer, 409, 'id_externo_duplicado', 'body.id_externo');
    const list = await w.api.get(`/v1/produtos?id_externo=${idExterno}`);
    expect(list.body.itens).toHaveLength(1);
    expect((await w.api.get(productsPath(catalog.id))).body.itens).toHaveLength(1);
  });

  it('lets two companies use the same id_externo', async () => {
    const a = await world();
    const b = await otherCompany(a);
    const ca = await headOfficeCatalog(a);
    const cb = await headOfficeCatalog(b);
    const shared = unique('SHARED-EXT');
    await product(a, ca.id, { id_externo: shared });
    const answer = await createIn(b, cb.id, { origem: 'erp', ncm: NCM, id_externo: shared });
    expect(answer.status).toBe(201);
  });

  it('answers 404 catalogo_nao_encontrado for an unknown catalog and 422 path.id for a malformed one', async () => {
    const w = await world();
    expectError(
      await createIn(w, UNKNOWN_V7_ID, { origem: 'erp', ncm: NCM }),
      404,
      'catalogo_nao_encontrado',
      'path.id',
    );
    expectError(await createIn(w, 'not-a-uuid', { origem: 'erp', ncm: NCM }), 422, 'valor_invalido', 'path.id');
  });
});

describe('GET /v1/produtos/{id}', () => {
  // spec: PROD-07
  it('answers the product with the same ETag the creation gave', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id, { sku: 'abc' });
    const answer = await w.api.get(`/v1/produtos/${created.id}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(created.body);
    expect(answer.headers.get('etag')).toBe(created.etag);
  });

  // spec: CONV-04
  it('accepts the id in upper case', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    const answer = await w.api.get(`/v1/produtos/${created.id.toUpperCase()}`);
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(created.id);
  });

  // spec: REQ-13
  it('answers 404 produto_nao_encontrado for an unknown id and 422 for a malformed one', async () => {
    const w = await world();
    expectError(await w.api.get(`/v1/produtos/${UNKNOWN_V7_ID}`), 404, 'produto_nao_encontrado', 'path.id');
    expectError(await w.api.get('/v1/produtos/123'), 422, 'valor_invalido', 'path.id');
  });
});

describe('PATCH /v1/produtos/{id}', () => {
  const full = {
    id_externo: 'EXT-P',
    sku: 'sku-p',
    descricao: 'Cadeira',
    atributos: [
      { codigo: 'cor', valores: ['azul'] },
      { codigo: 'material', valores: ['madeira'] },
    ],
  };

  // spec: PROD-21, PROD-25, REQ-06
  it('keeps omitted fields, moves versao by one and answers a new ETag', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id, { ...full, id_externo: unique(full.id_externo) });
    const answer = await w.api.patch(`/v1/produtos/${created.id}`, { ncm: '94016100' }, { ifMatch: created.etag });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...created.body, ncm: '94016100', versao: 2 });
    const etag = answer.headers.get('etag');
    expect(etag).toMatch(ETAG);
    expect(etag).not.toBe(created.etag);
    const read = await w.api.get(`/v1/produtos/${created.id}`);
    expect(read.body).toEqual(answer.body);
    expect(read.headers.get('etag')).toBe(etag);
  });

  // spec: PROD-22
  it('clears sku, descricao and id_externo with null', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const idExterno = unique(full.id_externo);
    const created = await product(w, catalog.id, { ...full, id_externo: idExterno });
    const answer = await w.api.patch(
      `/v1/produtos/${created.id}`,
      { sku: null, descricao: null, id_externo: null },
      { ifMatch: created.etag },
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...created.body, sku: null, descricao: null, id_externo: null, versao: 2 });
    // The cleared id_externo is free again, and no longer finds the product.
    const byOld = await w.api.get(`/v1/produtos?id_externo=${idExterno}`);
    expect(byOld.body).toEqual({ itens: [], proximo_cursor: null });
    const reuse = await w.api.post(`/v1/catalogos/${catalog.id}/produtos`, {
      origem: 'erp',
      ncm: NCM,
      id_externo: idExterno,
    });
    expect(reuse.status).toBe(201);
  });

  // spec: PROD-04, PROD-23, REQ-07
  it('replaces atributos whole', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id, { ...full, id_externo: unique(full.id_externo) });
    const atributos = [{ codigo: 'tamanho', valores: ['P', 'M'] }];
    const answer = await w.api.patch(`/v1/produtos/${created.id}`, { atributos }, { ifMatch: created.etag });
    expect(answer.status).toBe(200);
    expect(answer.body.atributos).toEqual(atributos);
    const emptied = await w.api.patch(
      `/v1/produtos/${created.id}`,
      { atributos: [] },
      { ifMatch: answer.headers.get('etag')! },
    );
    expect(emptied.status).toBe(200);
    expect(emptied.body).toMatchObject({ atributos: [], versao: 3 });
  });

  it('changes id_externo: the filter finds the product by the new one only', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const [oldExt, newExt] = [unique('OLD-EXT'), unique('NEW-EXT')];
    const created = await product(w, catalog.id, { id_externo: oldExt });
    const answer = await w.api.patch(`/v1/produtos/${created.id}`, { id_externo: newExt }, { ifMatch: created.etag });
    expect(answer.status).toBe(200);
    expect((await w.api.get(`/v1/produtos?id_externo=${newExt}`)).body.itens.map((p: { id: string }) => p.id)).toEqual([
      created.id,
    ]);
    expect((await w.api.get(`/v1/produtos?id_externo=${oldExt}`)).body.itens).toEqual([]);
  });

  it('does not move the versao of the catalogs it is linked to', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    const before = await w.api.get(`/v1/catalogos/${catalog.id}`);
    const answer = await w.api.patch(`/v1/produtos/${created.id}`, { descricao: 'nova' }, { ifMatch: created.etag });
    expect(answer.status).toBe(200);
    const after = await w.api.get(`/v1/catalogos/${catalog.id}`);
    expect(after.body.versao).toBe(before.body.versao);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
  });

  /** A PATCH of a fresh product with `body` is refused (422 `codigo` at `caminho`) and leaves it unchanged. */
  async function expectPatchRefused(body: Record<string, unknown>, codigo: string, caminho: string): Promise<void> {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    expectError(await w.api.patch(`/v1/produtos/${created.id}`, body, { ifMatch: created.etag }), 422, codigo, caminho);
    const read = await w.api.get(`/v1/produtos/${created.id}`);
    expect(read.body).toEqual(created.body);
    expect(read.headers.get('etag')).toBe(created.etag);
  }

  // spec: PROD-14, PROD-15
  it.each([
    ['origem (not patchable)', { origem: 'outro' }, 'campo_desconhecido', 'body.origem'],
    ['catalogos', { catalogos: [] }, 'campo_desconhecido', 'body.catalogos'],
    ['ncm of 7 digits', { ncm: '1234567' }, 'valor_invalido', 'body.ncm'],
    ['ncm null (not clearable)', { ncm: null }, 'valor_invalido', 'body.ncm'],
    ['descricao of 2001 characters', { descricao: 'd'.repeat(2001) }, 'valor_invalido', 'body.descricao'],
  ])('refuses %s with 422 and leaves the product unchanged', (_name, body, codigo, caminho) =>
    expectPatchRefused(body, codigo, caminho),
  );

  // spec: PROD-12
  it.each([
    ['an empty id_externo', { id_externo: '' }, 'valor_invalido'],
    ['an id_externo of 257 characters', { id_externo: 'e'.repeat(257) }, 'valor_invalido'],
    ['an id_externo that is a number', { id_externo: 7 }, 'valor_invalido'],
  ])('refuses %s on PATCH, unchanged', (_name, body, codigo) => expectPatchRefused(body, codigo, 'body.id_externo'));

  // spec: PROD-13
  it.each([
    ['an empty sku', { sku: '' }, 'valor_invalido'],
    ['a sku of 257 characters', { sku: 's'.repeat(257) }, 'valor_invalido'],
    ['a sku that is an array', { sku: ['a'] }, 'valor_invalido'],
  ])('refuses %s on PATCH, unchanged', (_name, body, codigo) => expectPatchRefused(body, codigo, 'body.sku'));

  // spec: PROD-16
  it('refuses 129 attributes on PATCH, unchanged', () =>
    expectPatchRefused(
      { atributos: Array.from({ length: 129 }, (_, i) => ({ codigo: `a${i}`, valores: ['x'] })) },
      'valor_invalido',
      'body.atributos',
    ));

  // spec: PROD-17
  it('refuses an attribute without codigo on PATCH, unchanged', () =>
    expectPatchRefused(
      { atributos: [{ codigo: 'a', valores: ['x'] }, { valores: ['x'] }] },
      'campo_obrigatorio',
      'body.atributos[1].codigo',
    ));

  // spec: PROD-18
  it.each([
    ['an empty codigo', { atributos: [{ codigo: '', valores: ['x'] }] }, 'body.atributos[0].codigo'],
    [
      'a codigo of 129 characters',
      {
        atributos: [
          { codigo: 'ok', valores: ['x'] },
          { codigo: 'c'.repeat(129), valores: ['x'] },
        ],
      },
      'body.atributos[1].codigo',
    ],
    ['a codigo that is a number', { atributos: [{ codigo: 12, valores: ['x'] }] }, 'body.atributos[0].codigo'],
  ])('refuses %s on PATCH, unchanged', (_name, body, caminho) => expectPatchRefused(body, 'valor_invalido', caminho));

  // spec: PROD-19
  it('refuses an attribute without valores on PATCH, unchanged', () =>
    expectPatchRefused({ atributos: [{ codigo: 'a' }] }, 'campo_obrigatorio', 'body.atributos[0].valores'));

  // spec: PROD-20 ("valores: array of 1 to 50 strings": any strings), PROD-05/PROD-23 (the list is kept as sent).
  it('accepts attribute values of 0 and of 5,000 characters, and keeps them as sent', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    const atributos = [
      { codigo: 'vazio', valores: [''] },
      { codigo: 'longo', valores: ['l'.repeat(5000), '', 'curto'] },
    ];
    const answer = await w.api.patch(`/v1/produtos/${created.id}`, { atributos }, { ifMatch: created.etag });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ atributos, versao: 2 });
    expect((await w.api.get(`/v1/produtos/${created.id}`)).body.atributos).toEqual(atributos);
  });

  // Statements PROD-16 to PROD-20 name every refusal of an attribute; none is for a code listed twice.
  it('accepts a codigo listed in two entries, and keeps both in their order', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    const atributos = [
      { codigo: 'cor', valores: ['azul'] },
      { codigo: 'tamanho', valores: ['M'] },
      { codigo: 'cor', valores: ['verde', 'azul'] },
    ];
    const answer = await w.api.patch(`/v1/produtos/${created.id}`, { atributos }, { ifMatch: created.etag });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ atributos, versao: 2 });
    expect((await w.api.get(`/v1/produtos/${created.id}`)).body.atributos).toEqual(atributos);
  });

  // spec: PROD-11
  it('refuses an empty object: at least one field is required', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    const answer = await w.api.patch(`/v1/produtos/${created.id}`, {}, { ifMatch: created.etag });
    expectError(answer, 422, 'valor_invalido', 'body');
  });

  // spec: PROD-09, PROD-10, REQ-05
  it('needs If-Match: 428 without it, 412 with a stale one', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    expectError(
      await w.api.patch(`/v1/produtos/${created.id}`, { sku: 'a' }),
      428,
      'precondicao_ausente',
      'header.if-match',
    );
    const first = await w.api.patch(`/v1/produtos/${created.id}`, { sku: 'b' }, { ifMatch: created.etag });
    expect(first.status).toBe(200);
    expectError(
      await w.api.patch(`/v1/produtos/${created.id}`, { sku: 'c' }, { ifMatch: created.etag }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    expect((await w.api.get(`/v1/produtos/${created.id}`)).body).toMatchObject({ sku: 'b', versao: 2 });
  });

  it("refuses another product's id_externo with 409, and accepts its own", async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const [taken, mine] = [unique('TAKEN'), unique('MINE')];
    await product(w, catalog.id, { id_externo: taken });
    const created = await product(w, catalog.id, { id_externo: mine });
    expectError(
      await w.api.patch(`/v1/produtos/${created.id}`, { id_externo: taken }, { ifMatch: created.etag }),
      409,
      'id_externo_duplicado',
      'body.id_externo',
    );
    const own = await w.api.patch(`/v1/produtos/${created.id}`, { id_externo: mine }, { ifMatch: created.etag });
    expect(own.status).toBe(200);
  });
});

describe('PUT /v1/catalogos/{id}/produtos/{produto_id} (link)', () => {
  // spec: CAT-44, CAT-45, CAT-46, PROD-06, REQ-09
  it('links a product to a branch catalog: versao + 1, catalogos appended, catalog counts it', async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    const branch = await branchCatalog(w);
    const created = await product(w, head.id);
    const answer = await w.api.put(`/v1/catalogos/${branch.id}/produtos/${created.id}`, {}, { ifMatch: created.etag });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...created.body, versao: 2, catalogos: [head.id, branch.id] });
    expect(answer.headers.get('etag')).toMatch(ETAG);
    expect(answer.headers.get('etag')).not.toBe(created.etag);
    const read = await w.api.get(`/v1/produtos/${created.id}`);
    expect(read.body).toEqual(answer.body);
    expect(read.headers.get('etag')).toBe(answer.headers.get('etag'));
    const catalog = await w.api.get(`/v1/catalogos/${branch.id}`);
    expect(catalog.body).toMatchObject({ produtos: 1, versao: branch.body.versao + 1 });
  });

  it('accepts an absent body', async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    const branch = await branchCatalog(w);
    const created = await product(w, head.id);
    const answer = await w.api.put(`/v1/catalogos/${branch.id}/produtos/${created.id}`, undefined, {
      ifMatch: created.etag,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.catalogos).toEqual([head.id, branch.id]);
  });

  // spec: PROD-24
  it("shows an edit of a shared product in both catalogs' product lists", async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    const branch = await branchCatalog(w);
    const created = await product(w, head.id);
    const linked = await w.api.put(`/v1/catalogos/${branch.id}/produtos/${created.id}`, {}, { ifMatch: created.etag });
    const edited = await w.api.patch(
      `/v1/produtos/${created.id}`,
      { descricao: 'editada uma vez' },
      { ifMatch: linked.headers.get('etag')! },
    );
    expect(edited.status).toBe(200);
    for (const catalogId of [head.id, branch.id]) {
      const list = await w.api.get(`/v1/catalogos/${catalogId}/produtos`);
      expect(list.status).toBe(200);
      expect(list.body).toEqual({ itens: [edited.body], proximo_cursor: null });
    }
  });

  // spec: CAT-48
  it('answers an existing link with 200 and the product unchanged (same versao and ETag)', async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    const branch = await branchCatalog(w);
    const created = await product(w, head.id);
    const first = await w.api.put(`/v1/catalogos/${branch.id}/produtos/${created.id}`, {}, { ifMatch: created.etag });
    const etag = first.headers.get('etag')!;
    const catalogBefore = await w.api.get(`/v1/catalogos/${branch.id}`);
    const again = await w.api.put(`/v1/catalogos/${branch.id}/produtos/${created.id}`, {}, { ifMatch: etag });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('etag')).toBe(etag);
    // Linking to the catalog it was created in is an existing link too.
    const home = await w.api.put(`/v1/catalogos/${head.id}/produtos/${created.id}`, {}, { ifMatch: etag });
    expect(home.status).toBe(200);
    expect(home.body).toEqual(first.body);
    const catalogAfter = await w.api.get(`/v1/catalogos/${branch.id}`);
    expect(catalogAfter.body).toEqual(catalogBefore.body);
  });

  // spec: CAT-42, CAT-43
  it("needs If-Match with the product ETag: 428 without, 412 with the catalog's", async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    const branch = await branchCatalog(w);
    const created = await product(w, head.id);
    expectError(
      await w.api.put(`/v1/catalogos/${branch.id}/produtos/${created.id}`, {}),
      428,
      'precondicao_ausente',
      'header.if-match',
    );
    expectError(
      await w.api.put(`/v1/catalogos/${branch.id}/produtos/${created.id}`, {}, { ifMatch: branch.etag }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    expect((await w.api.get(`/v1/produtos/${created.id}`)).body.catalogos).toEqual([head.id]);
  });

  // spec: REQ-13
  it('answers 404 for an unknown catalog or product, and 422 for a body with fields', async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    const created = await product(w, head.id);
    const unknown = UNKNOWN_V7_ID;
    expectError(
      await w.api.put(`/v1/catalogos/${unknown}/produtos/${created.id}`, {}, { ifMatch: created.etag }),
      404,
      'catalogo_nao_encontrado',
      'path.id',
    );
    expectError(
      await w.api.put(`/v1/catalogos/${head.id}/produtos/${unknown}`, {}, { ifMatch: created.etag }),
      404,
      'produto_nao_encontrado',
      'path.produto_id',
    );
    expectError(
      await w.api.put(`/v1/catalogos/${head.id}/produtos/${created.id}`, { ativo: true }, { ifMatch: created.etag }),
      422,
      'campo_desconhecido',
      'body.ativo',
    );
    expectError(
      await w.api.put(`/v1/catalogos/${head.id}/produtos/xyz`, {}, { ifMatch: created.etag }),
      422,
      'valor_invalido',
      'path.produto_id',
    );
  });
});

describe('DELETE /v1/catalogos/{id}/produtos/{produto_id} (unlink)', () => {
  it('unlinks: 200, catalogos shrinks, versao + 1, the catalog no longer counts or lists it', async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    const branch = await branchCatalog(w);
    const created = await product(w, head.id);
    const linked = await w.api.put(`/v1/catalogos/${branch.id}/produtos/${created.id}`, {}, { ifMatch: created.etag });
    const branchLinked = await w.api.get(`/v1/catalogos/${branch.id}`);
    const answer = await w.api.delete(
      `/v1/catalogos/${branch.id}/produtos/${created.id}`,
      {},
      { ifMatch: linked.headers.get('etag')! },
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...created.body, versao: 3, catalogos: [head.id] });
    expect(answer.headers.get('etag')).toMatch(ETAG);
    expect(answer.headers.get('etag')).not.toBe(linked.headers.get('etag'));
    const catalog = await w.api.get(`/v1/catalogos/${branch.id}`);
    expect(catalog.body).toMatchObject({ produtos: 0, versao: branchLinked.body.versao + 1 });
    expect((await w.api.get(`/v1/catalogos/${branch.id}/produtos`)).body).toEqual({ itens: [], proximo_cursor: null });
    // The product stays, with its other link.
    expect((await w.api.get(`/v1/catalogos/${head.id}/produtos`)).body.itens.map((p: { id: string }) => p.id)).toEqual([
      created.id,
    ]);
  });

  it('keeps a product unlinked from its only catalog readable and listed by the company', async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    // Found in the company list by an id_externo of its own: the company may hold other products.
    const idExterno = unique('UNLINKED');
    const created = await product(w, head.id, { id_externo: idExterno });
    const answer = await w.api.delete(`/v1/catalogos/${head.id}/produtos/${created.id}`, {}, { ifMatch: created.etag });
    expect(answer.status).toBe(200);
    expect(answer.body.catalogos).toEqual([]);
    expect((await w.api.get(`/v1/produtos/${created.id}`)).body).toEqual(answer.body);
    expect(
      (await w.api.get(`/v1/produtos?id_externo=${idExterno}`)).body.itens.map((p: { id: string }) => p.id),
    ).toEqual([created.id]);
  });

  it('answers 404 vinculo_nao_encontrado when not linked, before the If-Match checks', async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    const branch = await branchCatalog(w);
    const created = await product(w, head.id);
    expectError(
      await w.api.delete(`/v1/catalogos/${branch.id}/produtos/${created.id}`, {}, { ifMatch: created.etag }),
      404,
      'vinculo_nao_encontrado',
      'path.produto_id',
    );
    expectError(
      await w.api.delete(`/v1/catalogos/${branch.id}/produtos/${created.id}`, {}),
      404,
      'vinculo_nao_encontrado',
      'path.produto_id',
    );
    expectError(
      await w.api.delete(`/v1/catalogos/${branch.id}/produtos/${created.id}`, {}, { ifMatch: '"stale"' }),
      404,
      'vinculo_nao_encontrado',
      'path.produto_id',
    );
  });

  it('needs If-Match when linked: 428 without, 412 stale', async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    const created = await product(w, head.id);
    expectError(
      await w.api.delete(`/v1/catalogos/${head.id}/produtos/${created.id}`, {}),
      428,
      'precondicao_ausente',
      'header.if-match',
    );
    expectError(
      await w.api.delete(`/v1/catalogos/${head.id}/produtos/${created.id}`, {}, { ifMatch: '"0000000000000000"' }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    expect((await w.api.get(`/v1/produtos/${created.id}`)).body.catalogos).toEqual([head.id]);
  });
});

describe('GET /v1/produtos and GET /v1/catalogos/{id}/produtos', () => {
  // spec: LIM-14
  it('page with limite and cursor, visiting every product of the catalog exactly once, in order', async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await product(w, head.id, { sku: `s${i}` })).id);
    const { pages } = await allPages(w, `/v1/catalogos/${head.id}/produtos`, 3);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(ids);
  });

  it('page the company list across catalogs, each product once', async () => {
    needsOwnCompany('pages the whole company product list, two at a time, expecting exactly its own five products');
    const w = await world();
    const head = await headOfficeCatalog(w);
    const branch = await branchCatalog(w);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await product(w, i % 2 === 0 ? head.id : branch.id)).id);
    const { pages } = await allPages(w, '/v1/produtos', 2);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual(ids);
    const exact = await allPages(w, '/v1/produtos', 5);
    expect(exact.pages.flat()).toEqual(ids);
  });

  it('answers the full product representation and proximo_cursor null on the last page', async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    // The company list narrowed to this product by its own id_externo: the company may hold others.
    const idExterno = unique('FULL');
    const created = await product(w, head.id, { sku: 'x', id_externo: idExterno });
    const list = await w.api.get(`/v1/produtos?id_externo=${idExterno}`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ itens: [created.body], proximo_cursor: null });
    const catalogList = await w.api.get(`/v1/catalogos/${head.id}/produtos`);
    expect(catalogList.body).toEqual({ itens: [created.body], proximo_cursor: null });
  });

  it('keeps a cursor valid while products are added and removed around it: nothing skipped or repeated', async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    const first = [await product(w, head.id), await product(w, head.id), await product(w, head.id)];
    const page1 = await w.api.get(`/v1/catalogos/${head.id}/produtos?limite=2`);
    expect(page1.body.itens.map((p: { id: string }) => p.id)).toEqual([first[0]!.id, first[1]!.id]);
    // Unlink one already seen, add a new one.
    await w.api.delete(`/v1/catalogos/${head.id}/produtos/${first[0]!.id}`, {}, { ifMatch: first[0]!.etag });
    const added = await product(w, head.id);
    const page2 = await w.api.get(
      `/v1/catalogos/${head.id}/produtos?limite=2&cursor=${encodeURIComponent(page1.body.proximo_cursor)}`,
    );
    expect(page2.status).toBe(200);
    expect(page2.body.itens.map((p: { id: string }) => p.id)).toEqual([first[2]!.id, added.id]);
    expect(page2.body.proximo_cursor).toBeNull();
  });

  it('filters the company list by id_externo', async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    const [a1, b2, c3] = [unique('A-1'), unique('B-2'), unique('C-3')];
    await product(w, head.id, { id_externo: a1 });
    const wanted = await product(w, head.id, { id_externo: b2 });
    const found = await w.api.get(`/v1/produtos?id_externo=${b2}`);
    expect(found.status).toBe(200);
    expect(found.body).toEqual({ itens: [wanted.body], proximo_cursor: null });
    const none = await w.api.get(`/v1/produtos?id_externo=${c3}`);
    expect(none.body).toEqual({ itens: [], proximo_cursor: null });
  });

  it('refuses a cursor of another list with 422 cursor_invalido at query.cursor', async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    const branch = await branchCatalog(w);
    for (let i = 0; i < 2; i++) await product(w, head.id);
    await product(w, branch.id);
    await product(w, branch.id);
    const companyCursor = (await w.api.get('/v1/produtos?limite=1')).body.proximo_cursor as string;
    const headCursor = (await w.api.get(`/v1/catalogos/${head.id}/produtos?limite=1`)).body.proximo_cursor as string;
    expect(typeof companyCursor).toBe('string');
    expect(typeof headCursor).toBe('string');
    expectError(
      await w.api.get(`/v1/catalogos/${head.id}/produtos?cursor=${encodeURIComponent(companyCursor)}`),
      422,
      'cursor_invalido',
      'query.cursor',
    );
    expectError(
      await w.api.get(`/v1/catalogos/${branch.id}/produtos?cursor=${encodeURIComponent(headCursor)}`),
      422,
      'cursor_invalido',
      'query.cursor',
    );
    expectError(
      await w.api.get(`/v1/produtos?cursor=${encodeURIComponent(headCursor)}`),
      422,
      'cursor_invalido',
      'query.cursor',
    );
    expectError(await w.api.get('/v1/produtos?cursor=not-a-cursor'), 422, 'cursor_invalido', 'query.cursor');
    // Its own list accepts it.
    expect((await w.api.get(`/v1/catalogos/${head.id}/produtos?cursor=${encodeURIComponent(headCursor)}`)).status).toBe(
      200,
    );
  });

  it('refuses a cursor of another company with 422 cursor_invalido', async () => {
    const a = await world();
    const b = await otherCompany(a);
    const ca = await headOfficeCatalog(a);
    await product(a, ca.id);
    await product(a, ca.id);
    await product(b, (await headOfficeCatalog(b)).id);
    const cursor = (await a.api.get('/v1/produtos?limite=1')).body.proximo_cursor as string;
    expect(typeof cursor).toBe('string');
    expectError(
      await b.api.get(`/v1/produtos?cursor=${encodeURIComponent(cursor)}`),
      422,
      'cursor_invalido',
      'query.cursor',
    );
  });

  it.each([
    ['limite=0', 'valor_invalido', 'query.limite'],
    ['limite=201', 'valor_invalido', 'query.limite'],
    ['limite=abc', 'valor_invalido', 'query.limite'],
    ['limite=-1', 'valor_invalido', 'query.limite'],
    ['limite=1&limite=2', 'parametro_repetido', 'query.limite'],
    ['pagina=2', 'campo_desconhecido', 'query.pagina'],
  ])('refuses ?%s with 422', async (query, codigo, caminho) => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    expectError(await w.api.get(`/v1/produtos?${query}`), 422, codigo, caminho);
    expectError(await w.api.get(`/v1/catalogos/${head.id}/produtos?${query}`), 422, codigo, caminho);
  });

  it('accepts limite=200 and limite=1', async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    await product(w, head.id);
    await product(w, head.id);
    expect((await w.api.get(`/v1/catalogos/${head.id}/produtos?limite=200`)).body.itens).toHaveLength(2);
    expect((await w.api.get(`/v1/catalogos/${head.id}/produtos?limite=1`)).body.itens).toHaveLength(1);
    // The company list may hold other products than these two: limite=200 gives them all, or 200 and a cursor.
    const all = await w.api.get('/v1/produtos?limite=200');
    expect(all.status).toBe(200);
    expect(all.body.itens.length).toBeGreaterThanOrEqual(2);
    expect(all.body.proximo_cursor === null ? all.body.itens.length : 200).toBe(all.body.itens.length);
    expect((await w.api.get('/v1/produtos?limite=1')).body.itens).toHaveLength(1);
  });

  it('takes limite with leading zeros as the integer it writes (0000001 is 1, 0000201 above 200), on every product list', async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    await product(w, head.id);
    await product(w, head.id);
    for (const path of ['/v1/produtos', `/v1/catalogos/${head.id}/produtos`]) {
      expect((await w.api.get(`${path}?limite=0000001`)).body.itens, path).toHaveLength(1);
      // 2 of the company's products, which may be more than the test's two.
      expect((await w.api.get(`${path}?limite=0000002`)).body.itens, path).toHaveLength(2);
      expectError(await w.api.get(`${path}?limite=0000201`), 422, 'valor_invalido', 'query.limite');
    }
  });

  it('answers 404 for the products of an unknown catalog', async () => {
    const w = await world();
    expectError(await w.api.get(`/v1/catalogos/${UNKNOWN_V7_ID}/produtos`), 404, 'catalogo_nao_encontrado', 'path.id');
  });
});

describe('products of another company', () => {
  // spec: AUTH-04, AUTH-05, AUTH-06
  it('are 404, never 403, for every product operation, and never listed', async () => {
    const mine = await world();
    const other = await otherCompany(mine);
    const myCatalog = await headOfficeCatalog(mine);
    const theirCatalog = await headOfficeCatalog(other);
    const ext = unique('THEIRS');
    const theirs = await product(other, theirCatalog.id, { id_externo: ext });
    const api = mine.api;
    expectError(await api.get(`/v1/produtos/${theirs.id}`), 404, 'produto_nao_encontrado', 'path.id');
    expectError(
      await api.patch(`/v1/produtos/${theirs.id}`, { sku: 'x' }, { ifMatch: theirs.etag }),
      404,
      'produto_nao_encontrado',
      'path.id',
    );
    expectError(
      await api.put(`/v1/catalogos/${myCatalog.id}/produtos/${theirs.id}`, {}, { ifMatch: theirs.etag }),
      404,
      'produto_nao_encontrado',
      'path.produto_id',
    );
    expectError(
      await api.put(`/v1/catalogos/${theirCatalog.id}/produtos/${theirs.id}`, {}, { ifMatch: theirs.etag }),
      404,
      'catalogo_nao_encontrado',
      'path.id',
    );
    expectError(
      await api.delete(`/v1/catalogos/${theirCatalog.id}/produtos/${theirs.id}`, {}, { ifMatch: theirs.etag }),
      404,
      'catalogo_nao_encontrado',
      'path.id',
    );
    expectError(
      await api.post(`/v1/catalogos/${theirCatalog.id}/produtos`, { origem: 'erp', ncm: NCM }),
      404,
      'catalogo_nao_encontrado',
      'path.id',
    );
    expectError(await api.get(`/v1/catalogos/${theirCatalog.id}/produtos`), 404, 'catalogo_nao_encontrado', 'path.id');
    // A deployment's company lists earlier tests' products: there, the filter on their id_externo says it.
    if (deployment === undefined) expect((await api.get('/v1/produtos')).body.itens).toEqual([]);
    expect((await api.get(`/v1/produtos?id_externo=${ext}`)).body.itens).toEqual([]);
    const untouched = await other.api.get(`/v1/produtos/${theirs.id}`);
    expect(untouched.body).toEqual(theirs.body);
  });
});

describe('permissions', () => {
  it('writes need catalogo:gerenciar: 403 permissao_insuficiente, nothing changed', async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    const branch = await branchCatalog(w);
    const created = await product(w, head.id);
    const { token } = await w.controls.addCredential(w.company.companyId, ['catalogo:ler']);
    const reader = w.api.as(token);
    expectError(
      await reader.post(`/v1/catalogos/${head.id}/produtos`, { origem: 'erp', ncm: NCM }),
      403,
      'permissao_insuficiente',
    );
    expectError(
      await reader.patch(`/v1/produtos/${created.id}`, { sku: 'x' }, { ifMatch: created.etag }),
      403,
      'permissao_insuficiente',
    );
    expectError(
      await reader.put(`/v1/catalogos/${branch.id}/produtos/${created.id}`, {}, { ifMatch: created.etag }),
      403,
      'permissao_insuficiente',
    );
    expectError(
      await reader.delete(`/v1/catalogos/${head.id}/produtos/${created.id}`, {}, { ifMatch: created.etag }),
      403,
      'permissao_insuficiente',
    );
    // Reads are allowed, and show nothing changed.
    const read = await reader.get(`/v1/produtos/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    const headList = await reader.get(`/v1/catalogos/${head.id}/produtos`);
    expect(headList.status).toBe(200);
    expect(headList.body.itens.map((p: { id: string }) => p.id)).toEqual([created.id]);
    expect((await reader.get('/v1/produtos?limite=1')).status).toBe(200);
  });

  it('reads need catalogo:ler: a credential with only catalogo:gerenciar gets 403 on reads and may write', async () => {
    const w = await world();
    const head = await headOfficeCatalog(w);
    const created = await product(w, head.id);
    const { token } = await w.controls.addCredential(w.company.companyId, ['catalogo:gerenciar']);
    const writer = w.api.as(token);
    expectError(await writer.get(`/v1/produtos/${created.id}`), 403, 'permissao_insuficiente');
    expectError(await writer.get('/v1/produtos'), 403, 'permissao_insuficiente');
    expectError(await writer.get(`/v1/catalogos/${head.id}/produtos`), 403, 'permissao_insuficiente');
    const patched = await writer.patch(`/v1/produtos/${created.id}`, { sku: 'w' }, { ifMatch: created.etag });
    expect(patched.status).toBe(200);
  });
});
