/**
 * The check every spec test runs on its answers (support/contract.ts) can fail: fed answers that break the
 * document, it throws, naming the operation and what is wrong. Without this, a checker that accepted anything
 * would prove nothing.
 */
import { describe, expect, it } from 'vitest';
import { checkedAnswers, checkedFetch } from './support/contract.js';

const CATALOG_ID = '019b76da-a800-7d85-a8e2-143e59a69303';
const CATALOG = {
  id: CATALOG_ID,
  id_externo: null,
  estabelecimento_id: '019b76da-a800-7b0a-9c7c-fa8ec0f96fb1',
  cnpj_estabelecimento: '77243822000128',
  nome: 'Loja',
  estado: 'ativo',
  versao: 1,
  produtos: 0,
  criado_em: '2026-01-01T00:00:00.000Z',
  atualizado_em: '2026-01-01T00:00:00.000Z',
  excluido_em: null,
};
const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

/** A fetch that answers `status`, `body` and `headers` to anything. */
const answering = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  checkedFetch(
    async () =>
      new Response(typeof body === 'string' ? body : JSON.stringify(body), {
        status,
        headers: { 'x-request-id': 'r-1', ...JSON_TYPE, ...headers },
      }),
  );

const get = (fetch: ReturnType<typeof answering>, path = `/v1/catalogos/${CATALOG_ID}`) =>
  fetch(path, { headers: { authorization: 'Bearer t' } });

describe('the OpenAPI check of the spec tests', () => {
  it("checks the answers the spec tests' client reads whole as it checks a fetch (checkedAnswers)", async () => {
    const reading = (status: number, body: unknown) =>
      checkedAnswers(
        async () =>
          new Response(JSON.stringify(body), {
            status,
            headers: { 'x-request-id': 'r-1', etag: '"v1"', ...JSON_TYPE },
          }),
      );
    const read = await reading(200, CATALOG)(`/v1/catalogos/${CATALOG_ID}`, { headers: { authorization: 'Bearer t' } });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(CATALOG);
    expect(read.text).toBe(JSON.stringify(CATALOG));
    await expect(
      reading(200, { ...CATALOG, extra: 1 })(`/v1/catalogos/${CATALOG_ID}`, { headers: { authorization: 'Bearer t' } }),
    ).rejects.toThrow(/getCatalog \(GET \/v1\/catalogos\/\{id\}\)[\s\S]*additionalProperty[\s\S]*extra/);
  });

  it('passes an answer the document allows', async () => {
    expect((await get(answering(200, CATALOG, { etag: '"v1"' }))).status).toBe(200);
  });

  it('fails a field the document does not have, and a field of the wrong type', async () => {
    await expect(get(answering(200, { ...CATALOG, extra: 1 }, { etag: '"v1"' }))).rejects.toThrow(
      /getCatalog \(GET \/v1\/catalogos\/\{id\}\)[\s\S]*additionalProperty[\s\S]*extra/,
    );
    await expect(get(answering(200, { ...CATALOG, versao: -1 }, { etag: '"v1"' }))).rejects.toThrow(/\/versao/);
    await expect(get(answering(200, { ...CATALOG, excluido_em: 'yesterday' }, { etag: '"v1"' }))).rejects.toThrow(
      /\/excluido_em/,
    );
  });

  it('accepts an int as a string of digits, as the spec allows', async () => {
    expect((await get(answering(200, { ...CATALOG, versao: '7' }, { etag: '"v1"' }))).status).toBe(200);
  });

  it('fails a missing required header, and a header the answer may not carry', async () => {
    await expect(get(answering(200, CATALOG))).rejects.toThrow(/header etag is required/);
    await expect(get(answering(200, CATALOG, { etag: '"v1"', location: '/v1/x' }))).rejects.toThrow(
      /header location is not in the document/,
    );
  });

  it('fails a status outside the operation set, unless a fault chose it', async () => {
    const teapot = { erro: { codigo: 'x', mensagem: 'y', request_id: 'r-1' } };
    await expect(get(answering(418, teapot))).rejects.toThrow(/status 418 is outside the operation's set/);
    expect((await get(answering(418, teapot, { 'x-emulator-fault': 'f-1' }))).status).toBe(418);
  });

  it('fails an error status without the error body', async () => {
    await expect(get(answering(404, { error: 'not found' }))).rejects.toThrow(/body .*erro/);
  });

  it('fails an accepted request the document says is invalid', async () => {
    await expect(get(answering(200, { itens: [], proximo_id: null }), '/v1/catalogos?pagina=2')).rejects.toThrow(
      /query parameter pagina is not in the document/,
    );
    await expect(get(answering(200, { itens: [], proximo_id: null }), '/v1/catalogos?limite=500')).rejects.toThrow(
      /query parameter limite/,
    );
  });
});
