/**
 * One scene per operation that takes If-Match (the emulator's IF_MATCH_OPERATIONS, read from the public entry):
 * the resource it guards set up over HTTP, a valid request that would succeed with the ETag just read, and a
 * read of the guarded resource. The concurrentEdit spec test and property run every scene.
 */
import { IF_MATCH_OPERATIONS, type IfMatchOperation } from '../../src/index.js';
import { headOfficeCatalog, product, type Answer, type World } from './client.js';
import { cnpjOf } from './cnpj.js';
import { branch, branchCatalog, nextOrder } from './fixtures.js';
import { advance, createDestination, eventDetail, hookUrl, raiseEvent } from './webhook-setup.js';

export interface GuardedRequest {
  readonly method: string;
  /** The concrete path. */
  readonly path: string;
  readonly body: unknown;
  /** The guarded resource's current ETag, read just before. */
  readonly ifMatch: string;
  /** The guarded resource as GET shows it (the catalog for a catalog deletion). */
  read(): Promise<Answer>;
  /** The If-Match a client reading again now would send (the deletion preview's ETag for a catalog deletion). */
  reread(): Promise<string>;
  /** What the request would change if it went through: must hold after a success, never after a 412. */
  applied(): Promise<boolean>;
}

export type Scene = (w: World) => Promise<GuardedRequest>;

export const sceneKey = (o: Pick<IfMatchOperation, 'method' | 'path'>) => `${o.method} ${o.path}`;

const readOk = async (w: World, path: string): Promise<Answer> => {
  const answer = await w.api.get(path);
  if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}: ${answer.text}`);
  return answer;
};

const etagOf = async (w: World, path: string): Promise<string> => (await readOk(w, path)).headers.get('etag')!;

/** A product linked to the head office's catalog, and a branch catalog to link it to. */
async function productAndCatalogs(w: World) {
  const home = await headOfficeCatalog(w);
  const item = await product(w, home.id, { sku: 'ORIGINAL' });
  return { home, item };
}

/** The company's destination, active, its events delivered to the built-in inbox. */
async function activeDestination(w: World) {
  return createDestination(w, hookUrl());
}

export const SCENES: Readonly<Record<string, Scene>> = {
  'PATCH /v1/catalogos/{id}': async (w) => {
    const catalog = await headOfficeCatalog(w, 'Before');
    const path = `/v1/catalogos/${catalog.id}`;
    return {
      method: 'PATCH',
      path,
      body: { nome: 'After' },
      ifMatch: catalog.etag,
      read: () => readOk(w, path),
      reread: () => etagOf(w, path),
      applied: async () => (await readOk(w, path)).body.nome === 'After',
    };
  },
  'DELETE /v1/catalogos/{id}': async (w) => {
    const catalog = await headOfficeCatalog(w);
    const path = `/v1/catalogos/${catalog.id}`;
    const preview = await readOk(w, `${path}/impacto-exclusao`);
    return {
      method: 'DELETE',
      path,
      body: {},
      ifMatch: preview.headers.get('etag')!,
      read: () => readOk(w, path),
      reread: () => etagOf(w, `${path}/impacto-exclusao`),
      applied: async () => (await readOk(w, path)).body.estado === 'excluido',
    };
  },
  'PUT /v1/catalogos/{id}/produtos/{produto_id}': async (w) => {
    const { item } = await productAndCatalogs(w);
    const other = await branchCatalog(w);
    const productPath = `/v1/produtos/${item.id}`;
    return {
      method: 'PUT',
      path: `/v1/catalogos/${other.id}/produtos/${item.id}`,
      body: {},
      ifMatch: item.etag,
      read: () => readOk(w, productPath),
      reread: () => etagOf(w, productPath),
      applied: async () => (await readOk(w, productPath)).body.catalogos.includes(other.id),
    };
  },
  'DELETE /v1/catalogos/{id}/produtos/{produto_id}': async (w) => {
    const { home, item } = await productAndCatalogs(w);
    const productPath = `/v1/produtos/${item.id}`;
    return {
      method: 'DELETE',
      path: `/v1/catalogos/${home.id}/produtos/${item.id}`,
      body: {},
      ifMatch: item.etag,
      read: () => readOk(w, productPath),
      reread: () => etagOf(w, productPath),
      applied: async () => !(await readOk(w, productPath)).body.catalogos.includes(home.id),
    };
  },
  'PATCH /v1/produtos/{id}': async (w) => {
    const { item } = await productAndCatalogs(w);
    const path = `/v1/produtos/${item.id}`;
    return {
      method: 'PATCH',
      path,
      body: { sku: 'CHANGED' },
      ifMatch: item.etag,
      read: () => readOk(w, path),
      reread: () => etagOf(w, path),
      applied: async () => (await readOk(w, path)).body.sku === 'CHANGED',
    };
  },
  'PATCH /v1/estabelecimentos/{id}': async (w) => {
    const establishment = await branch(w, { nome: 'Before' });
    const path = `/v1/estabelecimentos/${establishment.id}`;
    return {
      method: 'PATCH',
      path,
      body: { nome: 'After' },
      ifMatch: establishment.etag,
      read: () => readOk(w, path),
      reread: () => etagOf(w, path),
      applied: async () => (await readOk(w, path)).body.nome === 'After',
    };
  },
  'DELETE /v1/estabelecimentos/{id}': async (w) => {
    const establishment = await branch(w);
    const path = `/v1/estabelecimentos/${establishment.id}`;
    return {
      method: 'DELETE',
      path,
      body: {},
      ifMatch: establishment.etag,
      read: () => readOk(w, path),
      reread: () => etagOf(w, path),
      applied: async () => (await readOk(w, path)).body.estado === 'arquivado',
    };
  },
  'POST /v1/estabelecimentos/{id}/correcoes-cnpj': async (w) => {
    const establishment = await branch(w);
    const path = `/v1/estabelecimentos/${establishment.id}`;
    // Corrections have no list: the emulator's state (a control) tells whether one was accepted.
    const corrections = async () =>
      ((await w.controls.snapshot()).state.cnpjCorrections as { establishmentId: string }[]).filter(
        (c) => c.establishmentId === establishment.id,
      ).length;
    return {
      method: 'POST',
      path: `${path}/correcoes-cnpj`,
      body: { cnpj_novo: cnpjOf(w.company.cnpjRoot, nextOrder()), motivo: 'Typo in the order part' },
      ifMatch: establishment.etag,
      read: () => readOk(w, path),
      reread: () => etagOf(w, path),
      applied: async () => (await corrections()) > 0,
    };
  },
  'PATCH /v1/empresa/vigilancia': async (w) => {
    const { item } = await productAndCatalogs(w);
    const path = '/v1/empresa/vigilancia';
    const current = await readOk(w, path);
    return {
      method: 'PATCH',
      path,
      body: { modo: 'selecao', adicionar: [item.id] },
      ifMatch: current.headers.get('etag')!,
      read: () => readOk(w, path),
      reread: () => etagOf(w, path),
      applied: async () => (await readOk(w, path)).body.selecionados === 1,
    };
  },
  'PUT /v1/webhook': async (w) => {
    const destination = await activeDestination(w);
    const url = hookUrl('/moved');
    return {
      method: 'PUT',
      path: '/v1/webhook',
      body: { url },
      ifMatch: destination.etag,
      read: () => readOk(w, '/v1/webhook'),
      reread: () => etagOf(w, '/v1/webhook'),
      applied: async () => (await readOk(w, '/v1/webhook')).body.url === url,
    };
  },
  'DELETE /v1/webhook': async (w) => {
    const destination = await activeDestination(w);
    return {
      method: 'DELETE',
      path: '/v1/webhook',
      body: {},
      ifMatch: destination.etag,
      read: () => readOk(w, '/v1/webhook'),
      reread: () => etagOf(w, '/v1/webhook'),
      applied: async () => (await readOk(w, '/v1/webhook')).body.estado === 'revogado',
    };
  },
  'POST /v1/webhook/testes': async (w) => {
    const destination = await activeDestination(w);
    const tests = async () =>
      (await readOk(w, '/v1/webhook/eventos')).body.itens.filter((e: { tipo: string }) => e.tipo === 'webhook.teste')
        .length;
    return {
      method: 'POST',
      path: '/v1/webhook/testes',
      body: {},
      ifMatch: destination.etag,
      read: () => readOk(w, '/v1/webhook'),
      reread: () => etagOf(w, '/v1/webhook'),
      applied: async () => (await tests()) > 0,
    };
  },
  'POST /v1/webhook/eventos/{id}/reenvios': async (w) => {
    const destination = await activeDestination(w);
    const eventId = await raiseEvent(w);
    await advance(w, 0); // delivered to the inbox: entregue, so it can be resent
    const cycles = async () => (await eventDetail(w, eventId)).tentativas_totais as number;
    const before = await cycles();
    return {
      method: 'POST',
      path: `/v1/webhook/eventos/${eventId}/reenvios`,
      body: {},
      ifMatch: destination.etag,
      read: () => readOk(w, '/v1/webhook'),
      reread: () => etagOf(w, '/v1/webhook'),
      // A resend reopens the event (pendente) for a new cycle.
      applied: async () => (await eventDetail(w, eventId)).estado === 'pendente' || (await cycles()) > before,
    };
  },
};

/** The rows of the If-Match table where a concurrentEdit can fire (all but the ingestion application). */
export const RACEABLE = IF_MATCH_OPERATIONS.filter((o) => o.guards !== 'ingestion');

/** Sends the scene's request with `ifMatch` (default: the ETag read when the scene was set up). */
export function send(w: World, request: GuardedRequest, ifMatch = request.ifMatch): Promise<Answer> {
  return w.api.request(request.method, request.path, { body: request.body, ifMatch });
}
