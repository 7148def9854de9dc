/**
 * Spec "Errors": each operation answers errors only with the statuses of its documented set (ERR-06 to
 * ERR-09). Two checks. The first drives every operation of the four lists into as many refusals as a client can
 * provoke (no or a bad credential, a missing permission, unknown and malformed ids, a body that is no JSON, of
 * the wrong type or too large, an unknown field, a missing or reused idempotency key, a missing or stale
 * If-Match, unknown or bad query parameters) and asserts every error status it sees is in the spec's set, as
 * written here from the spec (not read from the OpenAPI document). The second checks that the OpenAPI document,
 * which support/contract.ts holds every answer of every spec test to, lists exactly that set for each of these
 * operations (its 4XX and 5XX ranges are the injected faults', which the check allows only with x-emulator-fault).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  headOfficeCatalog,
  newKey,
  otherCompany,
  product,
  readAnswer,
  world,
  type Answer,
  type World,
} from './support/client.js';
import { cnpjOf } from './support/cnpj.js';
import { branch, nextOrder, UNKNOWN_V7_ID } from './support/fixtures.js';
import { createDestination, hookUrl, testEvent } from './support/webhook-setup.js';
import { deployment } from './support/deployment.js';

/** The spec's sets ("Errors"; MUT and READ as the endpoint list names them). */
const MUT = [400, 401, 403, 404, 408, 409, 412, 413, 415, 422, 428, 429, 503];
const READ = [401, 403, 404, 422, 429, 503];
const INGESTION_START = [400, 401, 403, 404, 408, 409, 413, 415, 422, 429, 503];
const FINDINGS = [401, 403, 404, 409, 422, 429, 503];

/** What the battery needs of an operation: its method, its path (with the ids to vary), a valid body. */
interface Operation {
  readonly method: string;
  /** The path, built from the ids (the scene's, or unknown or malformed ones). */
  readonly path: (ids: Ids) => string;
  /** A body the operation would accept (undefined: a GET). */
  readonly body?: (w: World) => unknown;
  /** Whether it takes If-Match. */
  readonly ifMatch?: boolean;
  /** The largest body it reads (bytes); a larger one must be refused. */
  readonly bodyLimit?: number;
  /** Query strings that are not the operation's (unknown parameter, bad limite, bad cursor). */
  readonly badQueries?: readonly string[];
}

interface Ids {
  readonly catalog: string;
  readonly product: string;
  readonly establishment: string;
  readonly event: string;
  readonly execution: string;
}

const MIB = 1024 * 1024;
const LIST_QUERIES = ['limite=0', 'limite=abc', 'cursor=nao-e-um-cursor', 'pagina=2'];

const ERR_06: Readonly<Record<string, Operation>> = {
  'PATCH /v1/catalogos/{id}': {
    method: 'PATCH',
    path: (i) => `/v1/catalogos/${i.catalog}`,
    body: () => ({ nome: 'Outro' }),
    ifMatch: true,
  },
  'DELETE /v1/catalogos/{id}': {
    method: 'DELETE',
    path: (i) => `/v1/catalogos/${i.catalog}`,
    body: () => ({}),
    ifMatch: true,
  },
  'PUT /v1/catalogos/{id}/produtos/{product_id}': {
    method: 'PUT',
    path: (i) => `/v1/catalogos/${i.catalog}/produtos/${i.product}`,
    body: () => ({}),
    ifMatch: true,
  },
  'PATCH /v1/produtos/{id}': {
    method: 'PATCH',
    path: (i) => `/v1/produtos/${i.product}`,
    body: () => ({ sku: 'OUTRO' }),
    ifMatch: true,
  },
  'POST /v1/estabelecimentos': {
    method: 'POST',
    path: () => '/v1/estabelecimentos',
    body: (w) => ({ cnpj: cnpjOf(w.company.cnpjRoot, nextOrder()), nome: 'Filial' }),
  },
  'PATCH /v1/estabelecimentos/{id}': {
    method: 'PATCH',
    path: (i) => `/v1/estabelecimentos/${i.establishment}`,
    body: () => ({ nome: 'Outra' }),
    ifMatch: true,
  },
  'POST /v1/estabelecimentos/{id}/correcoes-cnpj': {
    method: 'POST',
    path: (i) => `/v1/estabelecimentos/${i.establishment}/correcoes-cnpj`,
    body: (w) => ({ cnpj_novo: cnpjOf(w.company.cnpjRoot, nextOrder()), motivo: 'Erro de digitação' }),
    ifMatch: true,
  },
  'PATCH /v1/empresa/vigilancia': {
    method: 'PATCH',
    path: () => '/v1/empresa/vigilancia',
    body: () => ({ modo: 'selecao' }),
    ifMatch: true,
  },
  'POST /v1/analises': { method: 'POST', path: () => '/v1/analises', body: () => ({}) },
  'PUT /v1/webhook': {
    method: 'PUT',
    path: () => '/v1/webhook',
    body: () => ({ url: hookUrl() }),
    ifMatch: true,
    bodyLimit: 4096,
  },
  'DELETE /v1/webhook': {
    method: 'DELETE',
    path: () => '/v1/webhook',
    body: () => ({}),
    ifMatch: true,
    bodyLimit: 4096,
  },
  'POST /v1/webhook/testes': { method: 'POST', path: () => '/v1/webhook/testes', body: () => ({}), ifMatch: true },
  'POST /v1/webhook/eventos/{id}/reenvios': {
    method: 'POST',
    path: (i) => `/v1/webhook/eventos/${i.event}/reenvios`,
    body: () => ({}),
    ifMatch: true,
  },
};

const ERR_07: Readonly<Record<string, Operation>> = {
  'GET /v1/catalogos': {
    method: 'GET',
    path: () => '/v1/catalogos',
    badQueries: ['limite=0', 'limite=201', 'apos_id=abc', 'apos_id=' + UNKNOWN_V7_ID, 'estado=apagado', 'pagina=2'],
  },
  'GET /v1/catalogos/{id}': { method: 'GET', path: (i) => `/v1/catalogos/${i.catalog}`, badQueries: ['x=1'] },
  'GET /v1/catalogos/{id}/impacto-exclusao': {
    method: 'GET',
    path: (i) => `/v1/catalogos/${i.catalog}/impacto-exclusao`,
    badQueries: ['x=1'],
  },
  'GET /v1/produtos/{id}': { method: 'GET', path: (i) => `/v1/produtos/${i.product}`, badQueries: ['x=1'] },
  'GET /v1/estabelecimentos/{id}': {
    method: 'GET',
    path: (i) => `/v1/estabelecimentos/${i.establishment}`,
    badQueries: ['x=1'],
  },
  'GET /v1/empresa/vigilancia': { method: 'GET', path: () => '/v1/empresa/vigilancia', badQueries: ['x=1'] },
  'GET /v1/vigilancias': { method: 'GET', path: () => '/v1/vigilancias', badQueries: LIST_QUERIES },
  'GET /v1/analises': { method: 'GET', path: () => '/v1/analises', badQueries: LIST_QUERIES },
  'GET /v1/webhook': { method: 'GET', path: () => '/v1/webhook', badQueries: ['x=1'] },
  'GET /v1/webhook/eventos': { method: 'GET', path: () => '/v1/webhook/eventos', badQueries: LIST_QUERIES },
  'GET /v1/webhook/eventos/{id}': { method: 'GET', path: (i) => `/v1/webhook/eventos/${i.event}`, badQueries: ['x=1'] },
  'GET /v1/webhook/eventos/{id}/tentativas': {
    method: 'GET',
    path: (i) => `/v1/webhook/eventos/${i.event}/tentativas`,
    badQueries: ['limite=0', 'limite=101', 'apos_tentativa=abc', 'x=1'],
  },
};

const ERR_08: Operation = {
  method: 'POST',
  path: () => '/v1/catalogos/ingestoes',
  body: () => ({ operacao: 'mesclar' }),
};
const ERR_09: Operation = {
  method: 'GET',
  path: (i) => `/v1/vigilancias/${i.execution}/resultados`,
  badQueries: ['limite=10', 'cursor=nao-e-um-cursor', 'x=1'],
};

/**
 * A webhook event of the company: a test event in a new company; on a deployment, whose company keeps its events
 * and allows 5 tests and resends a minute (every test of this file would otherwise spend one), its latest one.
 */
async function anEvent(w: World, etag: string): Promise<string> {
  if (deployment !== undefined) {
    const latest = await w.api.get('/v1/webhook/eventos?limite=1');
    const [item] = latest.body?.itens ?? [];
    if (item !== undefined) return item.id;
  }
  return testEvent(w, etag);
}

/** The company's resources the operations act on, a second company, and credentials of every kind. */
async function scene() {
  const w = await world();
  const catalog = await headOfficeCatalog(w);
  const item = await product(w, catalog.id);
  const establishment = await branch(w);
  const destination = await createDestination(w, hookUrl());
  const event = await anEvent(w, destination.etag);
  const ids: Ids = {
    catalog: catalog.id,
    product: item.id,
    establishment: establishment.id,
    event,
    execution: UNKNOWN_V7_ID,
  };
  // Whatever a company the test did not make holds: another company's ids are unknown ids to this one.
  const other = await otherCompany(w);
  const theirs = await headOfficeCatalog(other);
  const theirIds: Ids = {
    catalog: theirs.id,
    product: (await product(other, theirs.id)).id,
    establishment: other.company.headOffice.id,
    event: UNKNOWN_V7_ID,
    execution: UNKNOWN_V7_ID,
  };
  const reader = (await w.controls.addCredential(w.company.companyId, ['catalogo:ler'])).token;
  const analyst = (await w.controls.addCredential(w.company.companyId, ['analise:executar'])).token;
  return { w, ids, theirIds, tokens: { reader, analyst } };
}
type Scene = Awaited<ReturnType<typeof scene>>;

interface Sent {
  readonly token?: string | null;
  readonly headers?: Record<string, string>;
  readonly body?: string | Uint8Array;
  readonly query?: string;
  readonly ids?: Ids;
}

/** One request, with exactly the headers given (the company's token unless `token` says otherwise). */
async function send(sc: Scene, op: Operation, sent: Sent = {}): Promise<Answer> {
  const token = sent.token === undefined ? sc.w.company.token : sent.token;
  const headers: Record<string, string> = {
    ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    ...sent.headers,
  };
  const path = `${op.path(sent.ids ?? sc.ids)}${sent.query === undefined ? '' : `?${sent.query}`}`;
  return readAnswer(
    await sc.w.target.fetch(path, {
      method: op.method,
      headers,
      ...(sent.body === undefined ? {} : { body: sent.body }),
    }),
  );
}

/** The current ETag of what the operation's If-Match guards. */
async function currentEtag(sc: Scene, name: string): Promise<string> {
  const guarded: Record<string, string> = {
    'PATCH /v1/catalogos/{id}': `/v1/catalogos/${sc.ids.catalog}`,
    'DELETE /v1/catalogos/{id}': `/v1/catalogos/${sc.ids.catalog}/impacto-exclusao`,
    'PUT /v1/catalogos/{id}/produtos/{product_id}': `/v1/produtos/${sc.ids.product}`,
    'PATCH /v1/produtos/{id}': `/v1/produtos/${sc.ids.product}`,
    'PATCH /v1/estabelecimentos/{id}': `/v1/estabelecimentos/${sc.ids.establishment}`,
    'POST /v1/estabelecimentos/{id}/correcoes-cnpj': `/v1/estabelecimentos/${sc.ids.establishment}`,
    'PATCH /v1/empresa/vigilancia': '/v1/empresa/vigilancia',
  };
  const answer = await sc.w.api.get(guarded[name] ?? '/v1/webhook');
  return answer.headers.get('etag') ?? '"none"';
}

/**
 * Every refusal the battery provokes for `op`: the statuses of its answers, each request named. Requests that
 * succeed are left out (a valid body with the right credential may go through: that is not an error).
 */
async function provoke(sc: Scene, name: string, op: Operation): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  const json = (value: unknown) => JSON.stringify(value);
  const mutation = op.body !== undefined;
  const mutationHeaders = async (extra: Record<string, string> = {}) => ({
    'content-type': 'application/json',
    'idempotency-key': newKey(),
    ...(op.ifMatch ? { 'if-match': '"stale"' } : {}),
    ...extra,
  });
  const record = async (label: string, answer: Promise<Answer>) => {
    const { status } = await answer;
    if (status >= 300) seen.set(label, status);
  };
  const base = async (): Promise<Sent> =>
    mutation ? { headers: await mutationHeaders(), body: json(op.body!(sc.w)) } : {};
  await record('no credential', send(sc, op, { ...(await base()), token: null }));
  await record('an unknown credential', send(sc, op, { ...(await base()), token: 'svc_at_nao-e-um-token' }));
  await record(
    'a malformed authorization',
    send(sc, op, {
      ...(await base()),
      token: null,
      headers: { ...(await base()).headers, authorization: 'Basic abc' },
    }),
  );
  await record('a catalogo:ler credential', send(sc, op, { ...(await base()), token: sc.tokens.reader }));
  await record('an analise:executar credential', send(sc, op, { ...(await base()), token: sc.tokens.analyst }));
  const malformed: Ids = { catalog: 'abc', product: 'abc', establishment: 'abc', event: 'abc', execution: 'abc' };
  await record('unknown ids', send(sc, op, { ...(await base()), ids: UNKNOWN_IDS }));
  await record('malformed ids', send(sc, op, { ...(await base()), ids: malformed }));
  await record("another company's ids", send(sc, op, { ...(await base()), ids: sc.theirIds }));
  for (const query of op.badQueries ?? ['x=1'])
    await record(`query ${query}`, send(sc, op, { ...(await base()), query }));
  if (!mutation) return seen;
  const valid = json(op.body!(sc.w));
  await record('a body that is no JSON', send(sc, op, { headers: await mutationHeaders(), body: '{"nome":' }));
  await record('a JSON array', send(sc, op, { headers: await mutationHeaders(), body: '[]' }));
  await record(
    'an unknown field',
    send(sc, op, { headers: await mutationHeaders(), body: json({ ...(op.body!(sc.w) as object), campo_x: 1 }) }),
  );
  await record(
    'content-type text/plain',
    send(sc, op, { headers: await mutationHeaders({ 'content-type': 'text/plain' }), body: valid }),
  );
  await record(
    'charset latin1',
    send(sc, op, {
      headers: await mutationHeaders({ 'content-type': 'application/json; charset=iso-8859-1' }),
      body: valid,
    }),
  );
  await record(
    'a body past the limit',
    send(sc, op, { headers: await mutationHeaders(), body: `{"x":"${'a'.repeat((op.bodyLimit ?? MIB) + 16)}"}` }),
  );
  const { 'idempotency-key': _, ...noKey } = await mutationHeaders();
  await record('no idempotency-key', send(sc, op, { headers: noKey, body: valid }));
  await record(
    'a short idempotency-key',
    send(sc, op, { headers: await mutationHeaders({ 'idempotency-key': 'curta' }), body: valid }),
  );
  if (op.ifMatch) {
    const { 'if-match': __, ...noIfMatch } = await mutationHeaders();
    await record('no If-Match', send(sc, op, { headers: noIfMatch, body: valid }));
    await record('a stale If-Match', send(sc, op, { headers: await mutationHeaders(), body: valid }));
    await record(
      'a malformed If-Match',
      send(sc, op, { headers: await mutationHeaders({ 'if-match': 'sem-aspas' }), body: valid }),
    );
    // The same key twice with different bodies: the second is another request under a used key.
    const key = newKey();
    const etag = await currentEtag(sc, name);
    await record(
      'a key reused, first',
      send(sc, op, {
        headers: await mutationHeaders({ 'idempotency-key': key, 'if-match': etag }),
        body: json({ campo_x: 1 }),
      }),
    );
    await record(
      'a key reused with another body',
      send(sc, op, {
        headers: await mutationHeaders({ 'idempotency-key': key, 'if-match': etag }),
        body: json({ campo_y: 2 }),
      }),
    );
  } else {
    const key = newKey();
    await record(
      'a key reused, first',
      send(sc, op, { headers: await mutationHeaders({ 'idempotency-key': key }), body: json({ campo_x: 1 }) }),
    );
    await record(
      'a key reused with another body',
      send(sc, op, { headers: await mutationHeaders({ 'idempotency-key': key }), body: json({ campo_y: 2 }) }),
    );
  }
  return seen;
}

const UNKNOWN_IDS: Ids = {
  catalog: UNKNOWN_V7_ID,
  product: UNKNOWN_V7_ID,
  establishment: UNKNOWN_V7_ID,
  event: UNKNOWN_V7_ID,
  execution: UNKNOWN_V7_ID,
};
/** Whether the operation's path names a resource (an unknown one must then be 404). */
const takesIds = (op: Operation): boolean =>
  op.path(UNKNOWN_IDS) !==
  op.path({ ...UNKNOWN_IDS, catalog: 'a', product: 'b', establishment: 'c', event: 'd', execution: 'e' });

/** Every status seen is in `set`; the battery reached at least `reached` of them (it is not vacuous). */
function expectWithin(
  name: string,
  seen: Map<string, number>,
  set: readonly number[],
  reached: readonly number[],
): void {
  const outside = [...seen]
    .filter(([, status]) => !set.includes(status))
    .map(([label, status]) => `${label}: ${status}`);
  expect(outside, `${name} answered statuses outside {${set.join(', ')}}`).toEqual([]);
  const statuses = new Set(seen.values());
  for (const status of reached)
    expect(statuses.has(status), `${name} reached ${status} (saw ${[...statuses].sort().join(', ')})`).toBe(true);
}

describe('error statuses: each operation answers errors only from its set', () => {
  // spec: ERR-06
  it.each(Object.entries(ERR_06))(
    '%s answers errors only with 400, 401, 403, 404, 408, 409, 412, 413, 415, 422, 428, 429 or 503 (MUT)',
    async (name, op) => {
      const sc = await scene();
      const seen = await provoke(sc, name, op);
      const reached = [400, 401, 403, 413, 415, 422, ...(op.ifMatch ? [412, 428] : []), ...(takesIds(op) ? [404] : [])];
      expectWithin(name, seen, MUT, reached);
    },
  );

  // spec: ERR-07
  it.each(Object.entries(ERR_07))(
    '%s answers errors only with 401, 403, 404, 422, 429 or 503 (READ)',
    async (name, op) => {
      const sc = await scene();
      const seen = await provoke(sc, name, op);
      expectWithin(name, seen, READ, [401, 403, 422, ...(takesIds(op) ? [404] : [])]);
    },
  );

  // spec: ERR-07
  it('GET /v1/webhook and the event queries of a company without a destination answer errors from READ', async () => {
    const sc = await scene();
    const bare = await otherCompany(sc.w);
    const seen = new Map<string, number>();
    for (const path of [
      '/v1/webhook',
      '/v1/webhook/eventos',
      `/v1/webhook/eventos/${sc.ids.event}`,
      `/v1/webhook/eventos/${sc.ids.event}/tentativas`,
    ]) {
      const answer = await bare.api.get(path);
      if (answer.status >= 300) seen.set(path, answer.status);
    }
    expectWithin('the webhook queries without a destination', seen, READ, [404]);
  });

  // spec: ERR-08
  it('POST /v1/catalogos/ingestoes answers errors only with 400, 401, 403, 404, 408, 409, 413, 415, 422, 429 or 503', async () => {
    const sc = await scene();
    const seen = await provoke(sc, 'POST /v1/catalogos/ingestoes', ERR_08);
    const op = ERR_08;
    const start = async (label: string, body: unknown, key = newKey()) => {
      const answer = await send(sc, op, {
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
      });
      if (answer.status >= 300) seen.set(label, answer.status);
    };
    await start('an unknown catalogo_id', { operacao: 'mesclar', catalogo_id: UNKNOWN_V7_ID });
    await start("another company's catalogo_id", { operacao: 'mesclar', catalogo_id: sc.theirIds.catalog });
    await start('a bad operacao', { operacao: 'apagar' });
    await start('a referencia_externa of 201 characters', { operacao: 'mesclar', referencia_externa: 'r'.repeat(201) });
    await start('an idempotency-key of 201 characters', { operacao: 'mesclar' }, 'k'.repeat(201));
    await start('the first start', { operacao: 'mesclar', catalogo_id: sc.ids.catalog });
    await start('a second start while one is open', { operacao: 'mesclar', catalogo_id: sc.ids.catalog });
    expectWithin('POST /v1/catalogos/ingestoes', seen, INGESTION_START, [400, 401, 403, 404, 409, 413, 415, 422]);
  });

  // spec: ERR-09
  it('GET /v1/vigilancias/{id}/resultados answers errors only with 401, 403, 404, 409, 422, 429 or 503', async () => {
    const sc = await scene();
    const seen = await provoke(sc, 'GET /v1/vigilancias/{id}/resultados', ERR_09);
    expectWithin('GET /v1/vigilancias/{id}/resultados', seen, FINDINGS, [401, 403, 404, 422]);
  });

  // spec: ERR-06, ERR-07, ERR-08, ERR-09
  it("the OpenAPI document every spec test's answers are held to lists exactly the spec's set for each of these operations", () => {
    type Json = Record<string, any>;
    const document = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')) as Json;
    const statusesOf = (name: string): number[] => {
      const [method, path] = name.split(' ') as [string, string];
      const operation = document.paths[path.replace('{product_id}', '{produto_id}')]?.[method.toLowerCase()] as
        | Json
        | undefined;
      expect(operation, `${name} in openapi.json`).toBeDefined();
      return Object.keys(operation!.responses)
        .filter((s) => /^[45]\d\d$/.test(s))
        .map(Number)
        .sort((a, b) => a - b);
    };
    for (const name of Object.keys(ERR_06)) expect(statusesOf(name), name).toEqual(MUT);
    for (const name of Object.keys(ERR_07)) expect(statusesOf(name), name).toEqual(READ);
    expect(statusesOf('POST /v1/catalogos/ingestoes')).toEqual(INGESTION_START);
    expect(statusesOf('GET /v1/vigilancias/{id}/resultados')).toEqual(FINDINGS);
  });
});
