import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  flat,
  fromEarlierFormat,
  JSON_CONTENT_TYPE,
  requestDigest,
  storedResponse,
  toStored,
} from './stored-answers.js';

/** The first 22 base64url characters of the SHA-256 of `text`. */
const digestOf = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);

describe('requestDigest', () => {
  it('is the first 22 base64url characters (132 bits) of the SHA-256 of method, path and canonical body', () => {
    expect(requestDigest('PATCH', '/v1/produtos/p1', '{"sku":"A"}')).toBe(
      digestOf('PATCH /v1/produtos/p1 {"sku":"A"}'),
    );
    expect(requestDigest('PATCH', '/v1/produtos/p1', '{"sku":"A"}')).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('writes a body over 512 characters as its SHA-256 first, as earlier snapshots wrote the fingerprint', () => {
    const long = JSON.stringify({ descricao: 'x'.repeat(600) });
    const exactly512 = JSON.stringify({ d: 'y'.repeat(504) });
    expect(exactly512).toHaveLength(512);
    expect(requestDigest('POST', '/v1/p', long)).toBe(
      digestOf(`POST /v1/p sha256:${createHash('sha256').update(long).digest('hex')}`),
    );
    expect(requestDigest('POST', '/v1/p', exactly512)).toBe(digestOf(`POST /v1/p ${exactly512}`));
  });

  it('tells apart the method, the path and the body', () => {
    const digests = [
      requestDigest('PATCH', '/v1/produtos/p1', '{"sku":"A"}'),
      requestDigest('PUT', '/v1/produtos/p1', '{"sku":"A"}'),
      requestDigest('PATCH', '/v1/produtos/p2', '{"sku":"A"}'),
      requestDigest('PATCH', '/v1/produtos/p1', '{"sku":"B"}'),
    ];
    expect(new Set(digests).size).toBe(4);
  });
});

describe('toStored and storedResponse', () => {
  it("keep the status, body, ETag, Location and the operation's own headers; the replay adds the JSON content type and the request's headers", async () => {
    const stored = toStored({
      status: 201,
      body: { id: 'p1', descricao: 'Café' },
      etag: '"abc"',
      location: '/v1/produtos/p1',
      headers: { ratelimit: '"t";r=4;t=60' },
    });
    expect(stored).toEqual({
      status: 201,
      body: '{"id":"p1","descricao":"Café"}',
      etag: '"abc"',
      location: '/v1/produtos/p1',
      headers: { ratelimit: '"t";r=4;t=60' },
    });
    const response = storedResponse(stored, 'req-1', { 'idempotent-replayed': 'true' });
    expect(response.status).toBe(201);
    expect([...response.headers]).toEqual([
      ['content-type', JSON_CONTENT_TYPE],
      ['etag', '"abc"'],
      ['idempotent-replayed', 'true'],
      ['location', '/v1/produtos/p1'],
      ['ratelimit', '"t";r=4;t=60'],
      ['x-request-id', 'req-1'],
    ]);
    expect(await response.text()).toBe('{"id":"p1","descricao":"Café"}');
  });

  it('keep a body already serialized as it is, and no header the answer did not have', () => {
    const stored = toStored({ status: 200, body: '{"itens":[]}' });
    expect(stored).toEqual({ status: 200, body: '{"itens":[]}', etag: null, location: null, headers: null });
    expect([...storedResponse(stored, 'req-2').headers]).toEqual([
      ['content-type', JSON_CONTENT_TYPE],
      ['x-request-id', 'req-2'],
    ]);
  });
});

describe('fromEarlierFormat', () => {
  it("turns a stored answer of an earlier snapshot into today's: the fingerprint as its digest, ETag and Location as fields, the JSON content type dropped", () => {
    const fingerprint = 'POST /v1/catalogos {"estabelecimento_id":"e1","nome":"Loja"}';
    expect(
      fromEarlierFormat({
        companyId: 'c1',
        key: 'catalog-key-000001',
        fingerprint,
        response: {
          status: 201,
          headers: { 'content-type': JSON_CONTENT_TYPE, etag: '"abc"', location: '/v1/catalogos/k1' },
          body: '{"id":"k1"}',
        },
        storedAt: 1_000,
        expiresAt: 1_000 + 60 * 86_400_000,
      }),
    ).toEqual({
      companyId: 'c1',
      key: 'catalog-key-000001',
      fingerprint: requestDigest('POST', '/v1/catalogos', '{"estabelecimento_id":"e1","nome":"Loja"}'),
      expiresAt: 1_000 + 60 * 86_400_000,
      status: 201,
      body: '{"id":"k1"}',
      etag: '"abc"',
      location: '/v1/catalogos/k1',
      headers: null,
    });
  });

  it('keeps any other header, and a content type other than JSON', () => {
    const converted = fromEarlierFormat({
      companyId: 'c1',
      key: 'test-key-00000001',
      fingerprint: 'POST /v1/webhook/testes {}',
      response: { status: 202, headers: { 'content-type': 'text/plain', ratelimit: '"t";r=4;t=60' }, body: 'ok' },
      storedAt: 0,
      expiresAt: 60 * 86_400_000,
    });
    expect(converted).toMatchObject({
      etag: null,
      location: null,
      headers: { ratelimit: '"t";r=4;t=60', 'content-type': 'text/plain' },
    });
  });
});

describe('flat', () => {
  it('copies any string exactly, lone surrogates and line breaks included', () => {
    for (const text of [
      '',
      'bench-key-' + String(7).padStart(12, '0'),
      'Café ☕\n\u2028',
      '\ud800x\udc00',
      '"quoted"\\',
    ])
      expect(flat(text)).toBe(text);
  });
});
