/**
 * Spec "Authentication": every resource belongs to the company that owns the credential used (AUTH-03). For each
 * kind of resource, one is made with a second credential of company A: A's first credential reads it (it is the
 * company's, not the credential's), and company B's credential neither reads it nor changes it (404, as for an
 * unknown id) nor lists it. The company's singletons (the surveillance selection, the webhook destination) are
 * A's own: B's are untouched by A's changes.
 */
import { describe, expect, it } from 'vitest';
import { Api, headOfficeCatalog, otherCompany, world, type Answer, type World } from './support/client.js';
import { cnpjOf } from './support/cnpj.js';
import { expectError } from './support/expect.js';
import { freshSelection, nextOrder } from './support/fixtures.js';
import { deployment } from './support/deployment.js';
import { createDestination, hookUrl, skipWhenRateLimited } from './support/webhook-setup.js';

interface Made {
  /** GET of the resource. */
  readonly path: string;
  /** The list that holds it (A's shows it, B's does not), when there is one. */
  readonly list?: string;
  /** A change of it, sent with an ETag A read. */
  readonly change?: (api: Api, etag: string) => Promise<Answer>;
  /** The codigo of the 404. */
  readonly missing: string;
  /** Whether it changes by itself over time (an event's delivery): on a deployment's real clock, between two reads. */
  readonly moves?: boolean;
}

type Kind = readonly [name: string, make: (a: World) => Promise<Made>];

const ok = (answer: Answer, status: number): Answer => {
  if (answer.status !== status) throw new Error(`${status} expected, ${answer.status}: ${answer.text}`);
  return answer;
};

const KINDS: readonly Kind[] = [
  [
    'catalog',
    async (a) => {
      const made = ok(
        await a.api.post('/v1/catalogos', { estabelecimento_id: a.company.headOffice.id, nome: 'Loja' }),
        201,
      );
      const path = `/v1/catalogos/${made.body.id}`;
      return {
        path,
        list: '/v1/catalogos?limite=200',
        change: (api, etag) => api.patch(path, { nome: 'Alheia' }, { ifMatch: etag }),
        missing: 'catalogo_nao_encontrado',
      };
    },
  ],
  [
    'establishment',
    async (a) => {
      const made = ok(
        await a.api.post('/v1/estabelecimentos', { cnpj: cnpjOf(a.company.cnpjRoot, nextOrder()), nome: 'Filial' }),
        201,
      );
      const path = `/v1/estabelecimentos/${made.body.id}`;
      return {
        path,
        list: '/v1/estabelecimentos?limite=200',
        change: (api, etag) => api.patch(path, { nome: 'Alheia' }, { ifMatch: etag }),
        missing: 'estabelecimento_nao_encontrado',
      };
    },
  ],
  [
    'product',
    async (a) => {
      const catalog = await headOfficeCatalog(a);
      const made = ok(
        await a.api.post(`/v1/catalogos/${catalog.id}/produtos`, { origem: 'erp', ncm: '84713012' }),
        201,
      );
      const path = `/v1/produtos/${made.body.id}`;
      return {
        path,
        list: '/v1/produtos?limite=200',
        change: (api, etag) => api.patch(path, { sku: 'ALHEIO' }, { ifMatch: etag }),
        missing: 'produto_nao_encontrado',
      };
    },
  ],
  [
    'ingestion',
    async (a) => {
      // Named, not left to the default (the company's head office): on a deployment the world's is another establishment.
      const catalog = await headOfficeCatalog(a);
      const made = ok(
        await a.api.post('/v1/catalogos/ingestoes', { operacao: 'mesclar', catalogo_id: catalog.id }),
        201,
      );
      const path = `/v1/catalogos/ingestoes/${made.body.ingestao_id}`;
      return {
        path,
        change: (api) => api.put(`${path}/lotes/1`, { itens: [{ id_externo: 'X-1', origem: 'erp', ncm: '84713012' }] }),
        missing: 'ingestao_nao_encontrada',
      };
    },
  ],
  [
    'CNPJ correction',
    async (a) => {
      const branch = ok(
        await a.api.post('/v1/estabelecimentos', { cnpj: cnpjOf(a.company.cnpjRoot, nextOrder()), nome: 'Filial' }),
        201,
      );
      const made = ok(
        await a.api.post(
          `/v1/estabelecimentos/${branch.body.id}/correcoes-cnpj`,
          { cnpj_novo: cnpjOf(a.company.cnpjRoot, nextOrder()), motivo: 'Erro de digitação' },
          { ifMatch: branch.headers.get('etag')! },
        ),
        202,
      );
      return { path: made.headers.get('location')!, missing: 'correcao_nao_encontrada' };
    },
  ],
  [
    'analysis',
    async (a) => {
      // 202 a new one; 200 the one open already (a deployment's company may have one): A's either way.
      const made = await a.api.post('/v1/analises', {});
      if (made.status !== 202 && made.status !== 200) ok(made, 202);
      return {
        path: `/v1/analises/${made.body.id}`,
        list: '/v1/analises?limite=100',
        missing: 'analise_nao_encontrada',
      };
    },
  ],
  [
    'webhook event',
    async (a) => {
      const destination = await createDestination(a);
      const test = await a.api.post('/v1/webhook/testes', {}, { ifMatch: destination.etag });
      skipWhenRateLimited(test);
      const made = ok(test, 202);
      const path = `/v1/webhook/eventos/${made.body.evento_id}`;
      return {
        path,
        list: '/v1/webhook/eventos?limite=100',
        change: (api, etag) => api.post(`${path}/reenvios`, {}, { ifMatch: etag }),
        missing: 'evento_nao_encontrado',
        moves: true,
      };
    },
  ],
];

/**
 * Every id of the list at `path` (whose query sets limite), following its next-page field (proximo_id with
 * apos_id, or proximo_cursor with cursor): a deployment's company lists earlier tests' records first.
 */
async function allIds(api: Api, path: string): Promise<string[]> {
  const ids: string[] = [];
  let next = '';
  for (let guard = 0; guard < 1000; guard++) {
    const answer = await api.get(`${path}${next}`);
    expect(answer.status, answer.text).toBe(200);
    ids.push(...answer.body.itens.map((item: { id: string }) => item.id));
    if (typeof answer.body.proximo_id === 'string') next = `&apos_id=${answer.body.proximo_id}`;
    else if (typeof answer.body.proximo_cursor === 'string')
      next = `&cursor=${encodeURIComponent(answer.body.proximo_cursor)}`;
    else return ids;
  }
  throw new Error(`${path} did not end within 1000 pages`);
}

describe('every resource belongs to the company of the credential used', () => {
  // spec: AUTH-03
  it.each(KINDS)(
    "a %s made with one credential of A is A's: A's other credential reads it, B's neither reads, changes nor lists it",
    async (_, make) => {
      const a = await world();
      const second = a.api.as((await a.controls.addCredential(a.company.companyId)).token);
      const b = await otherCompany(a);
      const made = await make({ ...a, api: second });
      const read = await a.api.get(made.path);
      expect(read.status, read.text).toBe(200);
      const again = await second.get(made.path);
      if (deployment !== undefined && made.moves) expect(again.body.id).toBe(read.body.id);
      else expect(again.text).toBe(read.text);
      expectError(await b.api.get(made.path), 404, made.missing, 'path.id');
      if (made.change) {
        // A's own ETag (the destination's for a resend) changes nothing for B: the resource is not B's.
        const etag = made.path.startsWith('/v1/webhook/')
          ? (await a.api.get('/v1/webhook')).headers.get('etag')!
          : read.headers.get('etag')!;
        expectError(await made.change(b.api, etag), 404, made.missing, 'path.id');
        const after = await a.api.get(made.path);
        if (deployment !== undefined && made.moves) expect(after.body.id).toBe(read.body.id);
        else expect(after.text).toBe(read.text);
      }
      if (made.list) {
        const id = read.body.id;
        expect(await allIds(a.api, made.list)).toContain(id);
        expect(await allIds(b.api, made.list)).not.toContain(id);
      }
    },
  );

  // spec: AUTH-03
  it("the surveillance selection and the webhook destination are the company's own: A's changes, made with either credential, leave B's as they were", async () => {
    const a = await world();
    const second = a.api.as((await a.controls.addCredential(a.company.companyId)).token);
    const b = await otherCompany(a);
    const bSelection = await b.api.get('/v1/empresa/vigilancia');
    const bWebhook = await b.api.get('/v1/webhook');
    const catalog = await headOfficeCatalog(a);
    const item = ok(await second.post(`/v1/catalogos/${catalog.id}/produtos`, { origem: 'erp', ncm: '84713012' }), 201);
    await freshSelection(a.api); // a deployment's selection may be full from earlier tests; a new company's is empty
    const selection = await a.api.get('/v1/empresa/vigilancia');
    ok(
      await second.patch(
        '/v1/empresa/vigilancia',
        { modo: 'selecao', adicionar: [item.body.id] },
        { ifMatch: selection.headers.get('etag')! },
      ),
      200,
    );
    const url = hookUrl();
    const destination = await createDestination({ ...a, api: second }, url);
    // A's first credential sees what the second one did.
    const aSelection = await a.api.get('/v1/empresa/vigilancia');
    expect(aSelection.body).toMatchObject({ selecionados: 1, versao: selection.body.versao + 1 });
    const aWebhook = await a.api.get('/v1/webhook');
    expect(aWebhook.body).toMatchObject({ id: destination.id, url });
    // B's are untouched; B cannot change A's selection with A's ETag (it changes its own, whose ETag differs).
    expect((await b.api.get('/v1/empresa/vigilancia')).text).toBe(bSelection.text);
    const bAfter = await b.api.get('/v1/webhook');
    expect(bAfter.status).toBe(bWebhook.status);
    expect(bAfter.body?.erro?.codigo).toBe(bWebhook.body?.erro?.codigo);
    expectError(
      await b.api.patch('/v1/empresa/vigilancia', { modo: 'todos' }, { ifMatch: aSelection.headers.get('etag')! }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    expect((await a.api.get('/v1/empresa/vigilancia')).text).toBe(aSelection.text);
  });
});
