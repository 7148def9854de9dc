/**
 * The rules every request follows (docs/api.md "Rules every request follows"; spec "Common rules", "Authentication",
 * "Errors", "Limits"): credentials, permissions, headers, media type, body size, JSON syntax, idempotency,
 * preconditions, routing, request ids and the order in which the checks answer.
 */
import { describe, expect, it } from 'vitest';
import {
  headOfficeCatalog,
  NCM,
  newKey,
  otherCompany,
  product,
  rawRequest,
  readAnswer,
  world,
  type Answer,
  type World,
} from './support/client.js';
import { expectError } from './support/expect.js';
import { productsPath, unique, UNKNOWN_V7_ID } from './support/fixtures.js';

const MIB = 1024 * 1024;

/**
 * The products of the catalog the test's requests name: a product a refused request made anyway would be there
 * (the company's whole list would also count other tests' products, where the company is shared).
 */
async function productCount(w: World, catalogId: string): Promise<number> {
  const list = await w.api.get(`${productsPath(catalogId)}?limite=200`);
  expect(list.status).toBe(200);
  return list.body.itens.length;
}

describe('401: credentials', () => {
  // spec: AUTH-01
  it('refuses a missing Authorization header with credencial_ausente and WWW-Authenticate', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    for (const answer of [
      await w.api.as(undefined).get('/v1/produtos'),
      await w.api.as(undefined).post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }),
    ]) {
      expectError(answer, 401, 'credencial_ausente', 'header.authorization');
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    }
    expect(await productCount(w, catalog.id)).toBe(0);
  });

  // spec: AUTH-02
  it('refuses another scheme with credencial_invalida', async () => {
    const w = await world();
    const answer = await rawRequest(w, 'GET', '/v1/produtos', {
      authorization: `Basic ${Buffer.from('user:pass').toString('base64')}`,
    });
    expectError(answer, 401, 'credencial_invalida', 'header.authorization');
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  });

  // spec: AUTH-02
  it('refuses an unknown token with credencial_invalida', async () => {
    const w = await world();
    const answer = await w.api.as('svc_at_this-token-does-not-exist').get('/v1/empresa');
    expectError(answer, 401, 'credencial_invalida', 'header.authorization');
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  });

  it('reads the scheme case-insensitively', async () => {
    const w = await world();
    const answer = await rawRequest(w, 'GET', '/v1/empresa', { authorization: `bearer ${w.company.token}` });
    expect(answer.status, answer.text).toBe(200);
  });
});

describe('403: permissions', () => {
  it('refuses a write without catalogo:gerenciar with permissao_insuficiente, before the 400 header checks', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const { token } = await w.controls.addCredential(w.company.companyId, ['catalogo:ler']);
    expectError(
      await w.api.as(token).post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key: null }),
      403,
      'permissao_insuficiente',
    );
    expectError(
      await w.api.as(token).post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key: 'short' }),
      403,
      'permissao_insuficiente',
    );
    expect(await productCount(w, catalog.id)).toBe(0);
  });
});

describe('400: headers', () => {
  it('refuses a mutation without idempotency-key with chave_idempotencia_ausente', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    expectError(
      await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key: null }),
      400,
      'chave_idempotencia_ausente',
      'header.idempotency-key',
    );
    expect(await productCount(w, catalog.id)).toBe(0);
  });

  // spec: REQ-01, LIM-02, LIM-03
  it.each([
    ['15 characters', 'a'.repeat(15)],
    ['129 characters', 'a'.repeat(129)],
    ['a space', 'abcdefgh ijklmnop'],
    ['a slash', 'abcdefgh/ijklmnop'],
    ['a # sign', 'chave#de#requisicao'],
    ['empty', ''],
  ])('refuses an idempotency-key with %s with chave_idempotencia_invalida', async (_name, key) => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const answer = await rawRequest(
      w,
      'POST',
      productsPath(catalog.id),
      { 'content-type': 'application/json', 'idempotency-key': key },
      JSON.stringify({ origem: 'erp', ncm: NCM }),
    );
    expectError(answer, 400, 'chave_idempotencia_invalida', 'header.idempotency-key');
    expect(await productCount(w, catalog.id)).toBe(0);
  });

  // spec: LIM-01
  it('accepts keys of 16 and 128 characters of A-Z a-z 0-9 . _ : -', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    // Random, not newKey()'s counter: a deployment keeps keys for days, across runs that count from 1 again.
    const sixteen = `Az09._:-${Math.random().toString(36).slice(2).padEnd(8, '0').slice(0, 8)}`;
    expect(sixteen).toHaveLength(16);
    expect((await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key: sixteen })).status).toBe(
      201,
    );
    expect(
      (
        await w.api.post(
          productsPath(catalog.id),
          { origem: 'erp', ncm: NCM },
          { key: `${newKey()}.:_-`.padEnd(128, 'Z') },
        )
      ).status,
    ).toBe(201);
    expect(await productCount(w, catalog.id)).toBe(2);
  });

  it('refuses If-Match together with If-None-Match with precondicoes_conflitantes', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    const answer = await w.api.patch(
      `/v1/produtos/${created.id}`,
      { sku: 'x' },
      { ifMatch: created.etag, headers: { 'if-none-match': '*' } },
    );
    expectError(answer, 400, 'precondicoes_conflitantes', 'header.if-none-match');
    expect((await w.api.get(`/v1/produtos/${created.id}`)).body.versao).toBe(1);
  });

  it('refuses If-Match: * with cabecalho_invalido', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    expectError(
      await w.api.patch(`/v1/produtos/${created.id}`, { sku: 'x' }, { ifMatch: '*' }),
      400,
      'cabecalho_invalido',
      'header.if-match',
    );
  });

  // spec: REQ-05
  it.each([
    ['without quotes', (etag: string) => etag.slice(1, -1)],
    ['with one quote missing', (etag: string) => etag.slice(0, -1)],
    ['empty', () => ''],
  ])('refuses an If-Match %s with cabecalho_invalido', async (_name, mangle) => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    expectError(
      await w.api.patch(`/v1/produtos/${created.id}`, { sku: 'x' }, { ifMatch: mangle(created.etag) }),
      400,
      'cabecalho_invalido',
      'header.if-match',
    );
    expect((await w.api.get(`/v1/produtos/${created.id}`)).body.versao).toBe(1);
  });

  // spec: REQ-05
  it('never matches a weak ETag: W/ plus the current tag is 412', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    expectError(
      await w.api.patch(`/v1/produtos/${created.id}`, { sku: 'x' }, { ifMatch: `W/${created.etag}` }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    expect((await w.api.get(`/v1/produtos/${created.id}`)).body.versao).toBe(1);
  });

  it('matches an If-Match list when one of its tags is current', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    const answer = await w.api.patch(
      `/v1/produtos/${created.id}`,
      { sku: 'x' },
      { ifMatch: `"0000000000000000", ${created.etag}` },
    );
    expect(answer.status).toBe(200);
  });
});

describe('415: media type', () => {
  it('refuses a JSON body sent as text/plain', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const answer = await w.api.post(productsPath(catalog.id), undefined, {
      raw: JSON.stringify({ origem: 'erp', ncm: NCM }),
      headers: { 'content-type': 'text/plain' },
    });
    expectError(answer, 415, 'tipo_midia_nao_suportado', 'header.content-type');
    expect(await productCount(w, catalog.id)).toBe(0);
  });

  it('refuses a body without content-type', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const answer = await rawRequest(
      w,
      'POST',
      productsPath(catalog.id),
      { 'idempotency-key': newKey() },
      new TextEncoder().encode(JSON.stringify({ origem: 'erp', ncm: NCM })),
    );
    expectError(answer, 415, 'tipo_midia_nao_suportado', 'header.content-type');
    expect(await productCount(w, catalog.id)).toBe(0);
  });

  it('refuses a charset other than utf-8', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const answer = await w.api.post(
      productsPath(catalog.id),
      { origem: 'erp', ncm: NCM },
      { headers: { 'content-type': 'application/json; charset=iso-8859-1' } },
    );
    expectError(answer, 415, 'tipo_midia_nao_suportado', 'header.content-type');
  });

  // spec: CONV-02
  it('accepts application/json with charset=utf-8 in any case', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    expect(
      (
        await w.api.post(
          productsPath(catalog.id),
          { origem: 'erp', ncm: NCM },
          { headers: { 'content-type': 'application/json; charset=utf-8' } },
        )
      ).status,
    ).toBe(201);
    expect(
      (
        await w.api.post(
          productsPath(catalog.id),
          { origem: 'erp', ncm: NCM },
          { headers: { 'content-type': 'Application/JSON;charset=UTF-8' } },
        )
      ).status,
    ).toBe(201);
  });
});

describe('413: body size', () => {
  it('refuses a body over 1 MiB with corpo_muito_grande', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const answer = await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM, descricao: 'd'.repeat(MIB) });
    expectError(answer, 413, 'corpo_muito_grande', 'body');
    expect(await productCount(w, catalog.id)).toBe(0);
  });

  it('lets a body of exactly 1 MiB through the size check (then 422 for the long descricao)', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const prefix = `{"origem":"erp","ncm":"${NCM}","descricao":"`;
    const raw = `${prefix}${'d'.repeat(MIB - prefix.length - 2)}"}`;
    expect(Buffer.byteLength(raw)).toBe(MIB);
    const answer = await w.api.post(productsPath(catalog.id), undefined, {
      raw,
      headers: { 'content-type': 'application/json' },
    });
    expectError(answer, 422, 'valor_invalido', 'body.descricao');
    const over = await w.api.post(productsPath(catalog.id), undefined, {
      raw: `${raw} `,
      headers: { 'content-type': 'application/json' },
    });
    expectError(over, 413, 'corpo_muito_grande', 'body');
  });
});

describe('bodies of unknown length (chunked)', () => {
  /** A body sent as a stream of `chunks` (no content-length: chunked over HTTP). */
  async function streamed(w: World, path: string, chunks: string[], headers: Record<string, string>): Promise<Answer> {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
    const init = {
      method: 'POST',
      headers: { authorization: `Bearer ${w.company.token}`, 'idempotency-key': newKey(), ...headers },
      body,
      duplex: 'half',
    } as RequestInit;
    return readAnswer(await w.target.fetch(path, init));
  }

  it('reads a JSON body sent in chunks', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const answer = await streamed(w, productsPath(catalog.id), ['{"origem":', '"erp","ncm"', `:"${NCM}"}`], {
      'content-type': 'application/json',
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ origem: 'erp', ncm: NCM, versao: 1 });
  });

  it('refuses a chunked text/plain body with 415', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const plain = await streamed(w, productsPath(catalog.id), [`{"origem":"erp","ncm":"${NCM}"}`], {
      'content-type': 'text/plain',
    });
    expectError(plain, 415, 'tipo_midia_nao_suportado', 'header.content-type');
    expect(await productCount(w, catalog.id)).toBe(0);
  });

  // Over HTTP the client reuses keep-alive connections: a 413 must leave the connection usable for the next requests.
  it('refuses a chunked body over 1 MiB with 413, and the requests after it still answer', {
    timeout: 30_000,
  }, async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const bigChunks = [
      '{"origem":"erp","descricao":"',
      ...Array.from({ length: 20 }, () => 'd'.repeat(64 * 1024)),
      `","ncm":"${NCM}"}`,
    ];
    for (let round = 0; round < 2; round++) {
      const big = await streamed(w, productsPath(catalog.id), bigChunks, { 'content-type': 'application/json' });
      expectError(big, 413, 'corpo_muito_grande', 'body');
    }
    for (let i = 0; i < 4; i++) {
      const small = await streamed(w, productsPath(catalog.id), [`{"origem":"erp","ncm":"${NCM}"}`], {
        'content-type': 'application/json',
      });
      expect(small.status).toBe(201);
    }
    expect(await productCount(w, catalog.id)).toBe(4);
  });
});

describe('400 json_invalido and the shape of the body', () => {
  // spec: ERR-01, ERR-02, ERR-03, ERR-05
  it('refuses JSON that does not parse', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const answer = await w.api.post(productsPath(catalog.id), undefined, {
      raw: '{"origem": "erp", "ncm": ',
      headers: { 'content-type': 'application/json' },
    });
    expectError(answer, 400, 'json_invalido', 'body');
  });

  it('refuses an empty body on an operation with fields', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const answer = await w.api.post(productsPath(catalog.id), undefined, {
      raw: '',
      headers: { 'content-type': 'application/json' },
    });
    expectError(answer, 400, 'json_invalido', 'body');
  });

  it('refuses bytes that are not UTF-8', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const prefix = new TextEncoder().encode('{"origem":"');
    const suffix = new TextEncoder().encode(`","ncm":"${NCM}"}`);
    const bytes = new Uint8Array([...prefix, 0xff, 0xfe, 0x80, ...suffix]);
    const answer = await rawRequest(
      w,
      'POST',
      productsPath(catalog.id),
      { 'content-type': 'application/json', 'idempotency-key': newKey() },
      bytes,
    );
    expectError(answer, 400, 'json_invalido', 'body');
    expect(await productCount(w, catalog.id)).toBe(0);
  });

  it.each([
    ['an array', '[{"origem":"erp","ncm":"84713012"}]'],
    ['a string', '"erp"'],
    ['null', 'null'],
    ['a number', '42'],
  ])('refuses a body that is %s with 422 at caminho body', async (_name, raw) => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const answer = await w.api.post(productsPath(catalog.id), undefined, {
      raw,
      headers: { 'content-type': 'application/json' },
    });
    expectError(answer, 422, 'valor_invalido', 'body');
  });
});

describe('idempotency', () => {
  // spec: REQ-02, REQ-03
  it('replays a creation: same status, body, ETag and Location, idempotent-replayed: true, a new x-request-id, nothing created again', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const key = newKey();
    const first = await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('x-request-id')).toBeTruthy();
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await productCount(w, catalog.id)).toBe(1);
    expect((await w.api.get(`/v1/catalogos/${catalog.id}`)).body.produtos).toBe(1);
  });

  // spec: REQ-03
  it('replays the original answer even after the resource changed', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const key = newKey();
    const first = await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key });
    const edited = await w.api.patch(
      `/v1/produtos/${first.body.id}`,
      { sku: 'changed' },
      { ifMatch: first.headers.get('etag')! },
    );
    expect(edited.status).toBe(200);
    const again = await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.body.versao).toBe(1);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
  });

  // spec: REQ-03
  it('replays before the ETag check: the repeat with its now stale If-Match still answers the stored 200', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    const key = newKey();
    const first = await w.api.patch(`/v1/produtos/${created.id}`, { sku: 'a' }, { key, ifMatch: created.etag });
    expect(first.status).toBe(200);
    const again = await w.api.patch(`/v1/produtos/${created.id}`, { sku: 'a' }, { key, ifMatch: created.etag });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    // Also without any If-Match: the precondition is not part of the request's identity.
    const bare = await w.api.patch(`/v1/produtos/${created.id}`, { sku: 'a' }, { key });
    expect(bare.status).toBe(200);
    expect(bare.headers.get('idempotent-replayed')).toBe('true');
    expect((await w.api.get(`/v1/produtos/${created.id}`)).body.versao).toBe(2);
  });

  it('replays before the existence checks: a repeated unlink answers the stored 200, not 404', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    const key = newKey();
    const first = await w.api.delete(
      `/v1/catalogos/${catalog.id}/produtos/${created.id}`,
      {},
      { key, ifMatch: created.etag },
    );
    expect(first.status).toBe(200);
    const again = await w.api.delete(
      `/v1/catalogos/${catalog.id}/produtos/${created.id}`,
      {},
      { key, ifMatch: created.etag },
    );
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('replays only after the credential and permission checks', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const key = newKey();
    const first = await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key });
    expect(first.status).toBe(201);
    const reader = await w.controls.addCredential(w.company.companyId, ['catalogo:ler']);
    expectError(
      await w.api.as(reader.token).post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key }),
      403,
      'permissao_insuficiente',
    );
    expectError(
      await w.api.as(undefined).post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key }),
      401,
      'credencial_ausente',
    );
    // Another credential of the same company with the permission shares the company's keys.
    const writer = await w.controls.addCredential(w.company.companyId, ['catalogo:ler', 'catalogo:gerenciar']);
    const again = await w.api.as(writer.token).post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('refuses the same key with another body with 422 idempotencia_reutilizada', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const key = newKey();
    expect((await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key })).status).toBe(201);
    expectError(
      await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: '22030000' }, { key }),
      422,
      'idempotencia_reutilizada',
      'header.idempotency-key',
    );
    expect(await productCount(w, catalog.id)).toBe(1);
  });

  it('refuses the same key on another path with 422 idempotencia_reutilizada', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    const key = newKey();
    expect((await w.api.patch(`/v1/produtos/${created.id}`, { sku: 'a' }, { key, ifMatch: created.etag })).status).toBe(
      200,
    );
    const other = await product(w, catalog.id);
    expectError(
      await w.api.patch(`/v1/produtos/${other.id}`, { sku: 'a' }, { key, ifMatch: other.etag }),
      422,
      'idempotencia_reutilizada',
      'header.idempotency-key',
    );
    expect((await w.api.get(`/v1/produtos/${other.id}`)).body.versao).toBe(1);
  });

  it('ignores key order and white space of the JSON body in the fingerprint', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const key = newKey();
    const json = { 'content-type': 'application/json' };
    const first = await w.api.post(productsPath(catalog.id), undefined, {
      key,
      raw: `{"origem":"erp","ncm":"${NCM}","atributos":[{"codigo":"a","valores":["1"]}]}`,
      headers: json,
    });
    expect(first.status).toBe(201);
    const again = await w.api.post(productsPath(catalog.id), undefined, {
      key,
      raw: `{\n  "atributos" : [ { "valores" : [ "1" ], "codigo" : "a" } ],\n  "ncm" : "${NCM}", "origem": "erp"\n}`,
      headers: json,
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    // Array order is part of the request.
    expectError(
      await w.api.post(
        productsPath(catalog.id),
        {
          origem: 'erp',
          ncm: NCM,
          atributos: [
            { codigo: 'a', valores: ['1'] },
            { codigo: 'b', valores: ['2'] },
          ],
        },
        { key },
      ),
      422,
      'idempotencia_reutilizada',
    );
    expect(await productCount(w, catalog.id)).toBe(1);
  });

  it('stores nothing for a request refused with 422: the same key with the corrected body succeeds', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const key = newKey();
    expectError(
      await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: '123' }, { key }),
      422,
      'valor_invalido',
      'body.ncm',
    );
    const fixed = await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
    expect(await productCount(w, catalog.id)).toBe(1);
  });

  it('stores nothing for a request refused with 412: the same key with the current ETag applies', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    const moved = await w.api.patch(`/v1/produtos/${created.id}`, { sku: 'someone else' }, { ifMatch: created.etag });
    const key = newKey();
    expectError(
      await w.api.patch(`/v1/produtos/${created.id}`, { descricao: 'mine' }, { key, ifMatch: created.etag }),
      412,
      'precondicao_falhou',
    );
    const retried = await w.api.patch(
      `/v1/produtos/${created.id}`,
      { descricao: 'mine' },
      { key, ifMatch: moved.headers.get('etag')! },
    );
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body).toMatchObject({ sku: 'someone else', descricao: 'mine', versao: 3 });
  });

  it('stores nothing for a request refused with 409: the same key works once the conflict is gone', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const idExterno = unique('EXT-9');
    const holder = await product(w, catalog.id, { id_externo: idExterno });
    const key = newKey();
    expectError(
      await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM, id_externo: idExterno }, { key }),
      409,
      'id_externo_duplicado',
    );
    expect(
      (await w.api.patch(`/v1/produtos/${holder.id}`, { id_externo: null }, { ifMatch: holder.etag })).status,
    ).toBe(200);
    const retried = await w.api.post(
      productsPath(catalog.id),
      { origem: 'erp', ncm: NCM, id_externo: idExterno },
      { key },
    );
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('scopes keys per company: the same key in two companies is two requests', async () => {
    const a = await world();
    const b = await otherCompany(a);
    const ca = await headOfficeCatalog(a);
    const cb = await headOfficeCatalog(b);
    const key = newKey();
    const first = await a.api.post(productsPath(ca.id), { origem: 'erp', ncm: NCM }, { key });
    const second = await b.api.post(productsPath(cb.id), { origem: 'erp', ncm: NCM }, { key });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.body.catalogos).toEqual([cb.id]);
    // Even the same path and body: company B's request is its own.
    const bSame = await b.api.post(productsPath(ca.id), { origem: 'erp', ncm: NCM }, { key: newKey() });
    expectError(bSame, 404, 'catalogo_nao_encontrado');
  });

  it('keeps a key 60 days: at 59 days it replays, at 61 days it can be used for another request', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const key = newKey();
    const first = await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key });
    expect(first.status).toBe(201);
    await w.controls.advance('59d');
    const at59 = await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key });
    expect(at59.status).toBe(201);
    expect(at59.headers.get('idempotent-replayed')).toBe('true');
    expect(at59.text).toBe(first.text);
    expectError(
      await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: '22030000' }, { key }),
      422,
      'idempotencia_reutilizada',
    );
    await w.controls.advance('2d');
    const at61 = await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: '22030000' }, { key });
    expect(at61.status).toBe(201);
    expect(at61.headers.get('idempotent-replayed')).toBeNull();
    expect(at61.body.id).not.toBe(first.body.id);
    expect(await productCount(w, catalog.id)).toBe(2);
  });
});

describe('routing', () => {
  it.each([
    ['DELETE', '/v1/produtos', ['GET', 'HEAD']],
    ['POST', `/v1/produtos/${UNKNOWN_V7_ID}`, ['GET', 'HEAD', 'PATCH']],
    ['PATCH', `/v1/catalogos/${UNKNOWN_V7_ID}/produtos`, ['GET', 'HEAD', 'POST']],
    ['GET', `/v1/catalogos/${UNKNOWN_V7_ID}/produtos/${UNKNOWN_V7_ID}`, ['DELETE', 'PUT']],
  ])('answers %s %s with 405 metodo_nao_permitido and Allow', async (method, path, allowed) => {
    const w = await world();
    const answer = await w.api.request(method, path, method === 'GET' ? {} : { body: {} });
    expectError(answer, 405, 'metodo_nao_permitido');
    const allow = (answer.headers.get('allow') ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean)
      .sort();
    expect(allow).toEqual([...allowed].sort());
  });

  it('answers HEAD on a GET path like the GET, without a body', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    await product(w, catalog.id);
    const head = await w.api.request('HEAD', '/v1/produtos');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('x-request-id')).toBeTruthy();
    expect((await w.api.as(undefined).request('HEAD', '/v1/produtos')).status).toBe(401);
  });

  // spec: VER-01
  it.each(['/v1/nada', '/v1/produtos/a/b/c', '/v2/produtos', '/nada'])(
    'answers an unknown path %s with 404 rota_nao_encontrada',
    async (path) => {
      const w = await world();
      expectError(await w.api.get(path), 404, 'rota_nao_encontrada');
    },
  );
});

describe('x-request-id', () => {
  // spec: ERR-04
  it('is on every answer, unique, and equal to erro.request_id on errors', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const key = newKey();
    const answers: Answer[] = [
      await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key }),
      await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key }),
      await w.api.get('/v1/produtos'),
      await w.api.get('/v1/empresa'),
      await w.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key: null }),
      await w.api.as(undefined).get('/v1/produtos'),
      await w.api.post(productsPath(catalog.id), { origem: 'erp' }),
      await w.api.get(`/v1/produtos/${UNKNOWN_V7_ID}`),
      await w.api.request('DELETE', '/v1/produtos'),
      await w.api.get('/v1/nada'),
      await w.api.post(productsPath(catalog.id), undefined, { raw: 'x', headers: { 'content-type': 'text/plain' } }),
    ];
    const ids = answers.map((a) => a.headers.get('x-request-id'));
    for (const [i, answer] of answers.entries()) {
      expect(ids[i], `answer ${i} (${answer.status})`).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
      if (answer.status >= 400) expect(answer.body.erro.request_id).toBe(ids[i]);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('order of the checks', () => {
  it('401 beats 400: no credential and no idempotency-key', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    expectError(
      await w.api.as(undefined).post(productsPath(catalog.id), { origem: 'erp', ncm: NCM }, { key: null }),
      401,
      'credencial_ausente',
    );
  });

  it('403 beats 415: no permission and a text/plain body', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const { token } = await w.controls.addCredential(w.company.companyId, ['catalogo:ler']);
    expectError(
      await w.api
        .as(token)
        .post(productsPath(catalog.id), undefined, { raw: 'x', headers: { 'content-type': 'text/plain' } }),
      403,
      'permissao_insuficiente',
    );
  });

  it('400 (headers) beats 415: no idempotency-key and a text/plain body', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    expectError(
      await w.api.post(productsPath(catalog.id), undefined, {
        key: null,
        raw: 'x',
        headers: { 'content-type': 'text/plain' },
      }),
      400,
      'chave_idempotencia_ausente',
    );
  });

  it('415 beats 413: a text/plain body over 1 MiB', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    expectError(
      await w.api.post(productsPath(catalog.id), undefined, {
        raw: 'x'.repeat(MIB + 10),
        headers: { 'content-type': 'text/plain' },
      }),
      415,
      'tipo_midia_nao_suportado',
    );
  });

  it('413 beats 400 json_invalido: a body over 1 MiB that is not JSON', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    expectError(
      await w.api.post(productsPath(catalog.id), undefined, {
        raw: '{'.repeat(MIB + 10),
        headers: { 'content-type': 'application/json' },
      }),
      413,
      'corpo_muito_grande',
    );
  });

  it('400 json_invalido beats 422: bad JSON on a malformed path id', async () => {
    const w = await world();
    expectError(
      await w.api.patch('/v1/produtos/not-a-uuid', undefined, {
        raw: '{',
        headers: { 'content-type': 'application/json' },
        ifMatch: '"x"',
      }),
      400,
      'json_invalido',
      'body',
    );
  });

  it('422 beats 404: an invalid body for an unknown resource', async () => {
    const w = await world();
    expectError(
      await w.api.patch(`/v1/produtos/${UNKNOWN_V7_ID}`, { ncm: '1' }, { ifMatch: '"x"' }),
      422,
      'valor_invalido',
      'body.ncm',
    );
    expectError(await w.api.post(productsPath(UNKNOWN_V7_ID), { origem: 'erp' }), 422, 'campo_obrigatorio', 'body.ncm');
  });

  it('404 beats 428: an unknown resource without If-Match', async () => {
    const w = await world();
    expectError(
      await w.api.patch(`/v1/produtos/${UNKNOWN_V7_ID}`, { sku: 'x' }),
      404,
      'produto_nao_encontrado',
      'path.id',
    );
  });

  it('428 beats 412: a missing If-Match is 428 even when the resource has changed since it was read', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    expect(
      (await w.api.patch(`/v1/produtos/${created.id}`, { descricao: 'another client' }, { ifMatch: created.etag }))
        .status,
    ).toBe(200);
    expectError(
      await w.api.patch(`/v1/produtos/${created.id}`, { sku: 'x' }),
      428,
      'precondicao_ausente',
      'header.if-match',
    );
    expect((await w.api.get(`/v1/produtos/${created.id}`)).body).toMatchObject({
      versao: 2,
      sku: null,
      descricao: 'another client',
    });
  });

  it('428 beats 409: a duplicate id_externo without If-Match', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const taken = unique('TAKEN');
    await product(w, catalog.id, { id_externo: taken });
    const created = await product(w, catalog.id);
    expectError(await w.api.patch(`/v1/produtos/${created.id}`, { id_externo: taken }), 428, 'precondicao_ausente');
  });

  it('412 beats 409: a duplicate id_externo with a stale If-Match', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const taken = unique('TAKEN');
    await product(w, catalog.id, { id_externo: taken });
    const created = await product(w, catalog.id);
    expect((await w.api.patch(`/v1/produtos/${created.id}`, { sku: 'moved' }, { ifMatch: created.etag })).status).toBe(
      200,
    );
    expectError(
      await w.api.patch(`/v1/produtos/${created.id}`, { id_externo: taken }, { ifMatch: created.etag }),
      412,
      'precondicao_falhou',
    );
  });

  // spec: AUTH-04
  it('answers 404, never 403, for a resource of another company', async () => {
    const mine = await world();
    const other = await otherCompany(mine);
    const theirCatalog = await headOfficeCatalog(other);
    const theirs = await product(other, theirCatalog.id);
    expectError(await mine.api.get(`/v1/catalogos/${theirCatalog.id}`), 404, 'catalogo_nao_encontrado', 'path.id');
    expectError(await mine.api.get(`/v1/produtos/${theirs.id}`), 404, 'produto_nao_encontrado', 'path.id');
    expectError(
      await mine.api.patch(`/v1/catalogos/${theirCatalog.id}`, { nome: 'x' }, { ifMatch: theirCatalog.etag }),
      404,
      'catalogo_nao_encontrado',
      'path.id',
    );
    expectError(
      await mine.api.get(`/v1/estabelecimentos/${other.company.headOffice.id}`),
      404,
      'estabelecimento_nao_encontrado',
      'path.id',
    );
  });
});
