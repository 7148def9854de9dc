/**
 * Spec "Common rules": every success that reads or changes a versioned resource carries an `ETag` header
 * (REQ-08). One row per such operation, each driven to a success over HTTP: its answer must carry a strong
 * ETag, and that ETag must be the resource's current one (a GET of the resource right after answers the same).
 * The rows are checked against the shipped OpenAPI document too: every 2xx answer the document gives an ETag
 * has a row here, so an operation added later without one fails this file.
 *
 * Control-free but for the ingestion application (its validation runs on the clock) and world().
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { headOfficeCatalog, product, world, type Answer, type World } from './support/client.js';
import { ETAG } from './support/expect.js';
import { cnpjOf } from './support/cnpj.js';
import { branch, branchCatalog, freshSelection, nextOrder, productsPath } from './support/fixtures.js';
import { createDestination, hookUrl } from './support/webhook-setup.js';
import { needsOwnCompany } from './support/deployment.js';

interface Success {
  /** The success under test. */
  readonly answer: Answer;
  /** A GET of the resource it read or changed, right after (undefined: the answer is itself that GET). */
  readonly reread?: () => Promise<Answer>;
}

type Row = readonly [operation: string, status: number, run: (w: World) => Promise<Success>];

const get = (w: World, path: string) => () => w.api.get(path);
const etagOf = async (w: World, path: string): Promise<string> => {
  const answer = await w.api.get(path);
  if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}: ${answer.text}`);
  return answer.headers.get('etag')!;
};

const INGESTOES = '/v1/catalogos/ingestoes';
const rec = (idExterno: string) => ({ id_externo: idExterno, origem: 'erp', ncm: '84713012' });

/** An ingestion of the head office's catalog, started (201); its id. */
async function ingestion(w: World): Promise<string> {
  // Named, not left to the default (the company's head office): on a deployment the world's is another establishment.
  const catalog = await headOfficeCatalog(w);
  const answer = await w.api.post(INGESTOES, { operacao: 'mesclar', catalogo_id: catalog.id });
  if (answer.status !== 201) throw new Error(`ingestion start answered ${answer.status}: ${answer.text}`);
  return answer.body.ingestao_id;
}

const ROWS: readonly Row[] = [
  [
    'POST /v1/catalogos',
    201,
    async (w) => {
      const answer = await w.api.post('/v1/catalogos', { estabelecimento_id: w.company.headOffice.id, nome: 'Loja' });
      return { answer, reread: get(w, `/v1/catalogos/${answer.body.id}`) };
    },
  ],
  [
    'GET /v1/catalogos/{id}',
    200,
    async (w) => ({ answer: await w.api.get(`/v1/catalogos/${(await headOfficeCatalog(w)).id}`) }),
  ],
  [
    'PATCH /v1/catalogos/{id}',
    200,
    async (w) => {
      const catalog = await headOfficeCatalog(w);
      return {
        answer: await w.api.patch(`/v1/catalogos/${catalog.id}`, { nome: 'Outro' }, { ifMatch: catalog.etag }),
        reread: get(w, `/v1/catalogos/${catalog.id}`),
      };
    },
  ],
  [
    'GET /v1/catalogos/{id}/impacto-exclusao',
    200,
    async (w) => ({ answer: await w.api.get(`/v1/catalogos/${(await headOfficeCatalog(w)).id}/impacto-exclusao`) }),
  ],
  [
    'DELETE /v1/catalogos/{id}',
    200,
    async (w) => {
      const catalog = await headOfficeCatalog(w);
      const ifMatch = await etagOf(w, `/v1/catalogos/${catalog.id}/impacto-exclusao`);
      return {
        answer: await w.api.delete(`/v1/catalogos/${catalog.id}`, {}, { ifMatch }),
        reread: get(w, `/v1/catalogos/${catalog.id}`),
      };
    },
  ],
  [
    'POST /v1/catalogos/{id}/produtos',
    201,
    async (w) => {
      const answer = await w.api.post(productsPath((await headOfficeCatalog(w)).id), {
        origem: 'erp',
        ncm: '84713012',
      });
      return { answer, reread: get(w, `/v1/produtos/${answer.body.id}`) };
    },
  ],
  [
    'PUT /v1/catalogos/{id}/produtos/{produto_id}',
    200,
    async (w) => {
      const item = await product(w, (await headOfficeCatalog(w)).id);
      const other = await branchCatalog(w);
      return {
        answer: await w.api.put(`${productsPath(other.id)}/${item.id}`, {}, { ifMatch: item.etag }),
        reread: get(w, `/v1/produtos/${item.id}`),
      };
    },
  ],
  [
    'DELETE /v1/catalogos/{id}/produtos/{produto_id}',
    200,
    async (w) => {
      const home = await headOfficeCatalog(w);
      const item = await product(w, home.id);
      return {
        answer: await w.api.delete(`${productsPath(home.id)}/${item.id}`, {}, { ifMatch: item.etag }),
        reread: get(w, `/v1/produtos/${item.id}`),
      };
    },
  ],
  [
    'GET /v1/produtos/{id}',
    200,
    async (w) => ({
      answer: await w.api.get(`/v1/produtos/${(await product(w, (await headOfficeCatalog(w)).id)).id}`),
    }),
  ],
  [
    'PATCH /v1/produtos/{id}',
    200,
    async (w) => {
      const item = await product(w, (await headOfficeCatalog(w)).id);
      return {
        answer: await w.api.patch(`/v1/produtos/${item.id}`, { sku: 'NOVO' }, { ifMatch: item.etag }),
        reread: get(w, `/v1/produtos/${item.id}`),
      };
    },
  ],
  [
    'POST /v1/estabelecimentos',
    201,
    async (w) => {
      const answer = await w.api.post('/v1/estabelecimentos', {
        cnpj: cnpjOf(w.company.cnpjRoot, nextOrder()),
        nome: 'Filial',
      });
      return { answer, reread: get(w, `/v1/estabelecimentos/${answer.body.id}`) };
    },
  ],
  [
    'GET /v1/estabelecimentos/{id}',
    200,
    async (w) => ({ answer: await w.api.get(`/v1/estabelecimentos/${w.company.headOffice.id}`) }),
  ],
  [
    'PATCH /v1/estabelecimentos/{id}',
    200,
    async (w) => {
      const created = await branch(w);
      return {
        answer: await w.api.patch(`/v1/estabelecimentos/${created.id}`, { nome: 'Outra' }, { ifMatch: created.etag }),
        reread: get(w, `/v1/estabelecimentos/${created.id}`),
      };
    },
  ],
  [
    'DELETE /v1/estabelecimentos/{id}',
    200,
    async (w) => {
      const created = await branch(w);
      return {
        answer: await w.api.delete(`/v1/estabelecimentos/${created.id}`, {}, { ifMatch: created.etag }),
        reread: get(w, `/v1/estabelecimentos/${created.id}`),
      };
    },
  ],
  ['GET /v1/empresa/vigilancia', 200, async (w) => ({ answer: await w.api.get('/v1/empresa/vigilancia') })],
  [
    'PATCH /v1/empresa/vigilancia',
    200,
    async (w) => {
      const item = await product(w, (await headOfficeCatalog(w)).id);
      await freshSelection(w.api); // a deployment's selection may be full from earlier tests
      const ifMatch = await etagOf(w, '/v1/empresa/vigilancia');
      return {
        answer: await w.api.patch('/v1/empresa/vigilancia', { modo: 'selecao', adicionar: [item.id] }, { ifMatch }),
        reread: get(w, '/v1/empresa/vigilancia'),
      };
    },
  ],
  [
    'PUT /v1/webhook',
    201,
    async (w) => {
      needsOwnCompany("creates the company's first webhook destination (If-None-Match: *, 201)");
      return {
        answer: await w.api.put('/v1/webhook', { url: hookUrl() }, { headers: { 'if-none-match': '*' } }),
        reread: get(w, '/v1/webhook'),
      };
    },
  ],
  [
    'PUT /v1/webhook',
    200,
    async (w) => {
      const created = await createDestination(w);
      return {
        answer: await w.api.put('/v1/webhook', { url: hookUrl() }, { ifMatch: created.etag }),
        reread: get(w, '/v1/webhook'),
      };
    },
  ],
  [
    'GET /v1/webhook',
    200,
    async (w) => {
      await createDestination(w);
      return { answer: await w.api.get('/v1/webhook') };
    },
  ],
  [
    'DELETE /v1/webhook',
    200,
    async (w) => {
      const created = await createDestination(w);
      return {
        answer: await w.api.delete('/v1/webhook', undefined, { ifMatch: created.etag }),
        reread: get(w, '/v1/webhook'),
      };
    },
  ],
  [
    'PUT /v1/catalogos/ingestoes/{id}/lotes/{numero}',
    201,
    async (w) => {
      const id = await ingestion(w);
      return {
        answer: await w.api.put(`${INGESTOES}/${id}/lotes/1`, { itens: [rec('A-1')] }),
        reread: get(w, `${INGESTOES}/${id}`),
      };
    },
  ],
  [
    'PUT /v1/catalogos/ingestoes/{id}/lotes/{numero}',
    200,
    async (w) => {
      const id = await ingestion(w);
      await w.api.put(`${INGESTOES}/${id}/lotes/1`, { itens: [rec('A-1')] });
      return {
        answer: await w.api.put(`${INGESTOES}/${id}/lotes/1`, { itens: [rec('A-1')] }),
        reread: get(w, `${INGESTOES}/${id}`),
      };
    },
  ],
  [
    'POST /v1/catalogos/ingestoes/{id}/fechamento',
    202,
    async (w) => {
      const id = await ingestion(w);
      await w.api.put(`${INGESTOES}/${id}/lotes/1`, { itens: [rec('A-1')] });
      return {
        answer: await w.api.post(`${INGESTOES}/${id}/fechamento`, { total_lotes: 1 }),
        reread: get(w, `${INGESTOES}/${id}`),
      };
    },
  ],
  [
    'GET /v1/catalogos/ingestoes/{id}',
    200,
    async (w) => ({ answer: await w.api.get(`${INGESTOES}/${await ingestion(w)}`) }),
  ],
  [
    'POST /v1/catalogos/ingestoes/{id}/aplicacao',
    202,
    async (w) => {
      const id = await ingestion(w);
      await w.api.put(`${INGESTOES}/${id}/lotes/1`, { itens: [rec('A-1')] });
      await w.api.post(`${INGESTOES}/${id}/fechamento`, { total_lotes: 1 });
      await w.controls.advance('1m'); // the validation runs on the clock
      const current = await w.api.get(`${INGESTOES}/${id}`);
      expect(current.body.estado, current.text).toBe('validada');
      return {
        answer: await w.api.post(`${INGESTOES}/${id}/aplicacao`, {}, { ifMatch: current.headers.get('etag')! }),
        reread: get(w, `${INGESTOES}/${id}`),
      };
    },
  ],
];

describe('the ETag of every success on a versioned resource', () => {
  // spec: REQ-08
  it.each(ROWS.map(([operation, status, run]) => [`${operation} ${status}`, status, run] as const))(
    "%s carries a strong ETag, the resource's current one",
    async (_, status, run) => {
      const w = await world();
      const { answer, reread } = await run(w);
      expect(answer.status, answer.text).toBe(status);
      const etag = answer.headers.get('etag');
      expect(etag, 'an ETag header').toMatch(ETAG);
      if (reread) {
        const again = await reread();
        expect(again.status, again.text).toBe(200);
        expect(again.headers.get('etag')).toBe(etag);
      }
    },
  );

  // spec: REQ-08
  it('covers every success the OpenAPI document gives an ETag, and the document requires it on each', () => {
    type Json = Record<string, any>;
    const document = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')) as Json;
    const resolve = (value: Json): Json =>
      typeof value.$ref === 'string'
        ? value.$ref
            .replace(/^#\//, '')
            .split('/')
            .reduce((at: Json, key: string) => at[key], document)
        : value;
    const documented: string[] = [];
    for (const [path, item] of Object.entries(document.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) {
        for (const [status, response] of Object.entries((operation as Json).responses as Json)) {
          if (!/^2\d\d$/.test(status)) continue;
          const headers = Object.entries((resolve(response as Json).headers ?? {}) as Json);
          const etag = headers.find(([name]) => name.toLowerCase() === 'etag');
          if (etag === undefined) continue;
          expect(resolve(etag[1] as Json).required, `${method.toUpperCase()} ${path} ${status}`).toBe(true);
          documented.push(`${method.toUpperCase()} ${path} ${status}`);
        }
      }
    }
    expect(ROWS.map(([operation, status]) => `${operation} ${status}`).sort()).toEqual(documented.sort());
  });
});
