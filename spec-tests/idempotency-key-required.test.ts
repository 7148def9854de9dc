/**
 * Every state-changing operation the statements name refuses a request without `idempotency-key` (spec "Common
 * rules": 400 chave_idempotencia_ausente at header.idempotency-key) and changes nothing: each test sends an
 * otherwise valid request (its If-Match current) and reads the target back unchanged (same ETag, same list).
 */
import { describe, expect, it } from 'vitest';
import { cnpjOf } from './support/cnpj.js';
import { headOfficeCatalog, NCM, product, world, type Answer, type World } from './support/client.js';
import { expectError } from './support/expect.js';
import { branch, branchCatalog, nextOrder, productsPath } from './support/fixtures.js';
import {
  changeDestination,
  createDestination,
  destinationBefore,
  EVENTS,
  expectUnchanged,
  resendPath,
  TESTS,
  testEvent,
  WEBHOOK,
} from './support/webhook-setup.js';

const refused = (answer: Answer) => expectError(answer, 400, 'chave_idempotencia_ausente', 'header.idempotency-key');

/** The ETag `path` answers now. */
async function etagOf(w: World, path: string): Promise<string | null> {
  const answer = await w.api.get(path);
  expect(answer.status, answer.text).toBe(200);
  return answer.headers.get('etag');
}

/** The ids of the company's newest webhook events (a refused request adds none). */
async function newestEvents(w: World): Promise<string[]> {
  const answer = await w.api.get(`${EVENTS}?limite=100`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.itens.map((item: { id: string }) => item.id);
}

async function count(w: World, path: string): Promise<number> {
  const answer = await w.api.get(path);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.itens.length;
}

describe('a state-changing request without idempotency-key is refused and changes nothing', () => {
  // spec: EST-05
  it('POST /v1/estabelecimentos', async () => {
    const w = await world();
    const before = await count(w, '/v1/estabelecimentos');
    refused(
      await w.api.post(
        '/v1/estabelecimentos',
        { cnpj: cnpjOf(w.company.cnpjRoot, nextOrder()), nome: 'Filial' },
        { key: null },
      ),
    );
    expect(await count(w, '/v1/estabelecimentos')).toBe(before);
  });

  // spec: EST-19
  it('PATCH /v1/estabelecimentos/{id}', async () => {
    const w = await world();
    const b = await branch(w);
    refused(await w.api.patch(`/v1/estabelecimentos/${b.id}`, { nome: 'Outro nome' }, { ifMatch: b.etag, key: null }));
    expect(await etagOf(w, `/v1/estabelecimentos/${b.id}`)).toBe(b.etag);
  });

  // spec: CAT-18
  it('PATCH /v1/catalogos/{id}', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    refused(
      await w.api.patch(`/v1/catalogos/${catalog.id}`, { nome: 'Outro nome' }, { ifMatch: catalog.etag, key: null }),
    );
    expect(await etagOf(w, `/v1/catalogos/${catalog.id}`)).toBe(catalog.etag);
  });

  // spec: CAT-33
  it('DELETE /v1/catalogos/{id}', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    refused(await w.api.delete(`/v1/catalogos/${catalog.id}`, undefined, { ifMatch: catalog.etag, key: null }));
    const read = await w.api.get(`/v1/catalogos/${catalog.id}`);
    expect(read.body.estado).toBe('ativo');
    expect(read.headers.get('etag')).toBe(catalog.etag);
  });

  // spec: CAT-41
  it('PUT /v1/catalogos/{id}/produtos/{product_id}', async () => {
    const w = await world();
    const home = await headOfficeCatalog(w);
    const item = await product(w, home.id);
    const other = await branchCatalog(w);
    refused(await w.api.put(`${productsPath(other.id)}/${item.id}`, undefined, { ifMatch: item.etag, key: null }));
    expect(await count(w, `${productsPath(other.id)}`)).toBe(0);
    expect(await etagOf(w, `/v1/catalogos/${other.id}`)).toBe(other.etag);
  });

  // spec: PROD-08
  it('PATCH /v1/produtos/{id}', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const item = await product(w, catalog.id, { ncm: NCM });
    refused(await w.api.patch(`/v1/produtos/${item.id}`, { sku: 'OUTRO' }, { ifMatch: item.etag, key: null }));
    expect(await etagOf(w, `/v1/produtos/${item.id}`)).toBe(item.etag);
  });

  // spec: SURV-05
  it('PATCH /v1/empresa/vigilancia', async () => {
    const w = await world();
    const etag = await etagOf(w, '/v1/empresa/vigilancia');
    refused(await w.api.patch('/v1/empresa/vigilancia', { modo: 'todos' }, { ifMatch: etag!, key: null }));
    expect(await etagOf(w, '/v1/empresa/vigilancia')).toBe(etag);
  });

  // spec: CNPJ-06
  it('POST /v1/estabelecimentos/{id}/correcoes-cnpj', async () => {
    const w = await world();
    const b = await branch(w);
    refused(
      await w.api.post(
        `/v1/estabelecimentos/${b.id}/correcoes-cnpj`,
        { cnpj_novo: cnpjOf(w.company.cnpjRoot, nextOrder()), motivo: 'Digitação errada no cadastro' },
        { ifMatch: b.etag, key: null },
      ),
    );
    expect(await etagOf(w, `/v1/estabelecimentos/${b.id}`)).toBe(b.etag);
  });

  // spec: WH-DEST-07
  it('PUT /v1/webhook', async () => {
    const w = await world();
    // A create on a new company; on a deployment's company, which has its destination already, a change.
    const before = await destinationBefore(w);
    const precondition =
      before.status === 404 ? { headers: { 'if-none-match': '*' } } : { ifMatch: before.headers.get('etag')! };
    refused(await w.api.put(WEBHOOK, { url: 'https://hooks.example.com/catalogo' }, { ...precondition, key: null }));
    await expectUnchanged(w, before);
  });

  // spec: WH-DEST-26
  it('DELETE /v1/webhook', async () => {
    const w = await world();
    const destination = await createDestination(w);
    refused(await w.api.delete(WEBHOOK, undefined, { ifMatch: destination.etag, key: null }));
    const read = await w.api.get(WEBHOOK);
    expect(read.body.estado).toBe('ativo');
    expect(read.headers.get('etag')).toBe(destination.etag);
  });

  // spec: WH-EVT-25
  it('POST /v1/webhook/testes', async () => {
    const w = await world();
    const destination = await createDestination(w);
    const before = await newestEvents(w);
    refused(await w.api.post(TESTS, {}, { ifMatch: destination.etag, key: null }));
    expect(await newestEvents(w)).toEqual(before);
  });

  // spec: WH-EVT-33
  it('POST /v1/webhook/eventos/{id}/reenvios', async () => {
    const w = await world();
    const created = await createDestination(w);
    // An event that cannot change by itself any more, yet may be resent: closed by the rotation (cancelado
    // destino_alterado), or on a real clock perhaps delivered (or failed) before it. A deployment's company has
    // such events from earlier tests: one of them spares a test event (5 a minute).
    const closed = (await w.api.get(`${EVENTS}?limite=100`)).body.itens.find((e: { estado: string }) =>
      ['cancelado', 'entregue', 'falhou'].includes(e.estado),
    );
    const eventId: string =
      w.target.kind === 'deployment' && closed !== undefined ? closed.id : await testEvent(w, created.etag);
    const destination = await changeDestination(w, created.etag, created.url);
    const before = await w.api.get(`${EVENTS}/${eventId}`);
    expect(['cancelado', 'entregue', 'falhou']).toContain(before.body.estado);
    refused(await w.api.post(resendPath(eventId), {}, { ifMatch: destination.etag, key: null }));
    const after = await w.api.get(`${EVENTS}/${eventId}`);
    expect(after.body).toEqual(before.body);
  });
});
