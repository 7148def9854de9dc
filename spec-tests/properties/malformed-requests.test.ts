/**
 * Property: random malformed requests always get a 4xx with the error body.
 *
 * Each request starts from a real operation (method and path template of the API) with real or random ids,
 * a random body (valid-looking, random JSON, huge strings, deep nesting, arrays, nulls, unicode, __proto__
 * and constructor keys) and random extra headers; then at least one defect is applied last, so nothing
 * else can mend it: a bad credential, a read-only credential on a change, an unknown route, a method the
 * path does not take, a missing/short/long/ill-formed idempotency key, a malformed If-Match or both
 * preconditions, a non-JSON content type, bad JSON, a body over 1 MiB (up to ~2 MiB), a body of the wrong
 * shape, a bad query (unknown, repeated, out of range), an id that is not a uuid or is nobody's.
 *
 * Whatever the mix: the status is in [400, 499], never 5xx, fetch never throws, the body is JSON
 * {erro: {codigo, mensagem, request_id}} with request_id equal to the x-request-id header, 401 carries
 * WWW-Authenticate and 405 carries Allow. Nothing is changed by any of it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headOfficeCatalog, product } from '../support/client.js';
import { cnpjOf } from '../support/cnpj.js';
import { lab, PROPERTY_TIMEOUT, runs, stateAndRandom } from './support/lab.js';

interface Operation {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  readonly template: string;
  /** Query parameters the operation takes. */
  readonly query: readonly string[];
  /** Body fields the operation takes (undefined: no body; [] with optional: body absent or {}). */
  readonly fields?: readonly string[];
}

const LIST_CATALOGS = ['limite', 'apos_id', 'estabelecimento_id', 'id_externo', 'estado'];
const OPERATIONS: readonly Operation[] = [
  { method: 'GET', template: '/v1/empresa', query: [] },
  { method: 'GET', template: '/v1/contexto', query: [] },
  { method: 'GET', template: '/v1/empresa/capacidade', query: [] },
  { method: 'POST', template: '/v1/estabelecimentos', query: [], fields: ['cnpj', 'nome', 'id_externo'] },
  { method: 'GET', template: '/v1/estabelecimentos', query: ['limite', 'apos_id', 'estado'] },
  { method: 'GET', template: '/v1/estabelecimentos/:id', query: [] },
  { method: 'PATCH', template: '/v1/estabelecimentos/:id', query: [], fields: ['nome', 'id_externo'] },
  { method: 'DELETE', template: '/v1/estabelecimentos/:id', query: [], fields: [] },
  { method: 'POST', template: '/v1/catalogos', query: [], fields: ['estabelecimento_id', 'nome', 'id_externo'] },
  { method: 'GET', template: '/v1/catalogos', query: LIST_CATALOGS },
  { method: 'GET', template: '/v1/catalogos/:id', query: [] },
  { method: 'PATCH', template: '/v1/catalogos/:id', query: [], fields: ['nome', 'id_externo'] },
  { method: 'POST', template: '/v1/catalogos/:id/produtos', query: [], fields: ['origem', 'ncm', 'id_externo', 'sku', 'descricao', 'atributos'] },
  { method: 'GET', template: '/v1/catalogos/:id/produtos', query: ['limite', 'cursor'] },
  { method: 'PUT', template: '/v1/catalogos/:id/produtos/:produto_id', query: [], fields: [] },
  { method: 'DELETE', template: '/v1/catalogos/:id/produtos/:produto_id', query: [], fields: [] },
  { method: 'GET', template: '/v1/produtos', query: ['limite', 'cursor', 'id_externo'] },
  { method: 'GET', template: '/v1/produtos/:id', query: [] },
  { method: 'PATCH', template: '/v1/produtos/:id', query: [], fields: ['id_externo', 'sku', 'descricao', 'ncm', 'atributos'] },
];
const METHODS_OF = new Map<string, string[]>();
for (const op of OPERATIONS) METHODS_OF.set(op.template, [...(METHODS_OF.get(op.template) ?? []), op.method]);
const ALL_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS', 'FOO'];

const DEFECTS = [
  'credential',
  'readOnly',
  'unknownRoute',
  'wrongMethod',
  'key',
  'ifMatch',
  'bothPreconditions',
  'contentType',
  'badJson',
  'tooLarge',
  'bodyShape',
  'query',
  'notUuid',
  'nobodysId',
] as const;
type Defect = (typeof DEFECTS)[number];

// ---------------------------------------------------------------------------------------------------------
// Bodies

const deep = (depth: number, open: string, close: string, inner: string) => open.repeat(depth) + inner + close.repeat(depth);
const weirdKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'Nome', 'nome ', 'NCM', '', 'ção', '😀', 'a.b', '[0]');
const anyJson = fc.jsonValue({ maxDepth: 4 });
/** A JSON text of any shape (not necessarily an object). */
const jsonText: fc.Arbitrary<string> = fc.oneof(
  anyJson.map((v) => JSON.stringify(v)),
  fc.dictionary(fc.oneof(weirdKey, fc.string()), anyJson, { maxKeys: 4 }).map((o) => JSON.stringify(o)),
  fc.record({ key: weirdKey, value: anyJson }).map(({ key, value }) => `{${JSON.stringify(key)}:${JSON.stringify(value)}}`),
  fc.integer({ min: 1, max: 50_000 }).map((d) => deep(d, '[', ']', '')),
  fc.integer({ min: 1, max: 50_000 }).map((d) => deep(d, '{"a":', '}', 'null')),
  fc.tuple(fc.constantFrom('nome', 'origem', 'descricao', 'cnpj', 'x'), fc.integer({ min: 0, max: 1_000_000 }), fc.constantFrom('x', 'é', '😀', '\u0000', '"'))
    .map(([field, n, ch]) => JSON.stringify({ [field]: ch.repeat(Math.floor(n / JSON.stringify(ch).length)) })),
  fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => JSON.stringify({ nome: s, origem: s, ncm: s })),
  fc.constantFrom('null', '[]', '{}', '0', '"texto"', 'true', '[{}]', '{"atributos":[{"codigo":"a","valores":["1"]},{"codigo":"a","valores":["2"]}]}'),
);
const invalidJson: fc.Arbitrary<string> = fc
  .oneof(
    fc.constantFrom('{', '}', '{"a":}', "{'a':1}", '{"a":1,}', 'NaN', 'undefined', '[1,,2]', '{"a" 1}', '\u0000', 'nul', '{"a":"\u0001"}', '01', '{"__proto__":}'),
    fc.string({ minLength: 1, maxLength: 30 }),
    jsonText.map((t) => t.slice(0, Math.max(1, t.length - 1))),
  )
  .filter((t) => {
    if (t.length === 0) return false;
    try {
      JSON.parse(t);
      return false;
    } catch {
      return true;
    }
  });

// ---------------------------------------------------------------------------------------------------------
// Requests

interface Draft {
  method: string;
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body: string | undefined;
}

interface RequestPlan {
  readonly op: Operation;
  readonly ids: readonly ('real' | 'uuid' | 'garbage')[];
  readonly garbage: string;
  readonly uuid: string;
  readonly pick: number;
  readonly body: 'none' | 'valid' | 'json';
  readonly json: string;
  readonly noise: readonly [string, string][];
  readonly query: readonly [string, string][];
  readonly defects: readonly Defect[];
  readonly variant: number;
  readonly text: string;
  readonly bigSize: number;
}

const garbageId = fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ minLength: 1, maxLength: 10, unit: 'grapheme' }), fc.constantFrom('null', 'undefined', '0', '-1', 'produtos', '%', ' ')).filter((s) => s !== '.' && s !== '..');
const headerValue = fc.string({ unit: fc.constantFrom(...' !"#$%&\'()*+,-./0123456789:;<=>?@ABCXYZabcxyz[\\]^_`{|}~'), maxLength: 40 });
const noise = fc.array(
  fc.oneof(
    fc.tuple(fc.constantFrom('accept', 'x-trace', 'user-agent', 'accept-encoding', 'cache-control', 'x-forwarded-for', 'origin'), headerValue),
    fc.tuple(fc.constant('content-type'), fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/xml', 'APPLICATION/JSON')),
    fc.tuple(fc.constant('if-match'), fc.constantFrom('"0123456789abcdef"', 'W/"x"', '"a", "b"')),
    fc.tuple(fc.constant('idempotency-key'), fc.stringMatching(/^[A-Za-z0-9._:-]{16,40}$/)),
  ),
  { maxLength: 4 },
);

/** The checks late in the order (body, ids) weigh more: early ones (credential, route) would mask the rest. */
const DEFECT_WEIGHTS: Record<Defect, number> = {
  credential: 2, readOnly: 2, unknownRoute: 1, wrongMethod: 2, key: 3, ifMatch: 3, bothPreconditions: 2,
  contentType: 3, badJson: 3, tooLarge: 2, bodyShape: 5, query: 3, notUuid: 3, nobodysId: 5,
};
const defect = fc.oneof(...DEFECTS.map((d) => ({ weight: DEFECT_WEIGHTS[d], arbitrary: fc.constant(d) })));

const requestPlan: fc.Arbitrary<RequestPlan> = fc.record({
  op: fc.constantFrom(...OPERATIONS),
  ids: fc.array(fc.constantFrom<'real' | 'uuid' | 'garbage'>('real', 'real', 'uuid', 'garbage'), { minLength: 2, maxLength: 2 }),
  garbage: garbageId,
  uuid: fc.uuid(),
  pick: fc.nat(),
  body: fc.constantFrom<'none' | 'valid' | 'json'>('none', 'valid', 'valid', 'json', 'json'),
  json: jsonText,
  noise,
  query: fc.oneof(
    { weight: 3, arbitrary: fc.constant([] as [string, string][]) },
    { weight: 1, arbitrary: fc.array(fc.tuple(fc.constantFrom('limite', 'cursor', 'apos_id', 'estado', 'x', 'LIMITE', '__proto__'), fc.string({ maxLength: 12 })), { minLength: 1, maxLength: 3 }) },
  ),
  defects: fc.uniqueArray(defect, { minLength: 1, maxLength: 3 }).chain((all) => fc.subarray(all, { minLength: 1 })),
  variant: fc.nat(),
  text: invalidJson,
  bigSize: fc.integer({ min: 1024 * 1024 + 1, max: 2 * 1024 * 1024 }),
});

interface Ids {
  readonly token: string;
  readonly readOnlyToken: string;
  readonly establishment: readonly string[];
  readonly catalog: readonly string[];
  readonly product: readonly string[];
  readonly cnpj: string;
}

function realId(ids: Ids, template: string, position: number, pick: number): string {
  if (template.startsWith('/v1/estabelecimentos')) return ids.establishment[pick % ids.establishment.length]!;
  if (template.startsWith('/v1/produtos')) return ids.product[pick % ids.product.length]!;
  return position === 0 ? ids.catalog[pick % ids.catalog.length]! : ids.product[pick % ids.product.length]!;
}

function validBody(op: Operation, ids: Ids, pick: number): string {
  switch (op.template) {
    case '/v1/estabelecimentos':
      return JSON.stringify({ cnpj: ids.cnpj, nome: 'Nova filial' });
    case '/v1/catalogos':
      return JSON.stringify({ estabelecimento_id: ids.establishment[pick % ids.establishment.length], nome: 'Outro' });
    case '/v1/catalogos/:id/produtos':
      return JSON.stringify({ origem: 'erp', ncm: '84713012' });
    case '/v1/produtos/:id':
      return JSON.stringify({ sku: 'novo' });
    default:
      return op.fields && op.fields.length > 0 ? JSON.stringify({ nome: 'Novo nome' }) : '{}';
  }
}

/** Builds the request: the operation with noise, then every defect, applied last. */
function build(plan: RequestPlan, ids: Ids): Draft {
  const { op } = plan;
  let n = 0;
  const path = op.template.replace(/:[a-z_]+/g, () => {
    const position = n++;
    const kind = plan.ids[position] ?? 'real';
    return kind === 'real' ? realId(ids, op.template, position, plan.pick) : kind === 'uuid' ? plan.uuid : encodeURIComponent(plan.garbage);
  });
  const draft: Draft = { method: op.method, path, query: [...plan.query], headers: { authorization: `Bearer ${ids.token}` }, body: undefined };
  if (op.method !== 'GET') {
    draft.headers['idempotency-key'] = `malformed-${plan.variant}-${plan.pick}-0000000000`.slice(0, 60);
    if (plan.body !== 'none') {
      draft.body = plan.body === 'valid' ? validBody(op, ids, plan.pick) : plan.json;
      draft.headers['content-type'] = 'application/json';
    }
  }
  for (const [name, value] of plan.noise) draft.headers[name] = value;

  const v = plan.variant;
  const mutating = () => draft.method !== 'GET';
  for (const defect of plan.defects) {
    switch (defect) {
      case 'credential': {
        const values = ['', 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', `Bearer ${ids.token}x`, `Bearer ${ids.token} extra`, 'Token abc', `${ids.token}`, 'Bearer svc_at_nao-existe'];
        const value = values[v % values.length]!;
        if (v % 10 === 0) delete draft.headers.authorization;
        else draft.headers.authorization = value;
        break;
      }
      case 'readOnly':
        if (mutating()) draft.headers.authorization = `Bearer ${ids.readOnlyToken}`;
        else draft.path += '/nao-existe/mesmo';
        break;
      case 'unknownRoute': {
        const routes = ['/v1', '/v1/', '/v2/catalogos', '/v1/catalogo', '/v1/empresa/nao-existe', `${draft.path}/a/b/c`, '/V1/catalogos', '/v1/produtos/a/b'];
        draft.path = routes[v % routes.length]!;
        break;
      }
      case 'wrongMethod': {
        const allowed = METHODS_OF.get(op.template) ?? [];
        const wrong = ALL_METHODS.filter((m) => !allowed.includes(m));
        draft.method = wrong[v % wrong.length]!;
        if (draft.method === 'GET') draft.body = undefined;
        break;
      }
      case 'key':
        if (mutating()) {
          const keys = [undefined, '', 'curta', 'a'.repeat(15), 'a'.repeat(129), 'chave com espaco aqui', 'chave/com/barras/aqui', 'ção-ção-ção-ção-ção', 'k'.repeat(2000)];
          const key = keys[v % keys.length];
          if (key === undefined) delete draft.headers['idempotency-key'];
          else draft.headers['idempotency-key'] = key.replace(/[^\x20-\x7e]/g, '?');
        } else draft.query.push(['limite', '0']);
        break;
      case 'ifMatch':
        if (mutating()) {
          const tags = ['*', ' * ', 'abc', '"a', 'a"', '" "', '"a" "b"', ',', '"a",', 'W/', 'W/*'];
          draft.headers['if-match'] = tags[v % tags.length]!;
        } else draft.query.push(['limite', '201']);
        break;
      case 'bothPreconditions':
        if (mutating()) {
          draft.headers['if-match'] = '"0123456789abcdef"';
          draft.headers['if-none-match'] = v % 2 === 0 ? '*' : '"0123456789abcdef"';
        } else draft.query.push(['parametro_desconhecido', '1']);
        break;
      case 'contentType':
        if (mutating()) {
          const types = ['text/plain', 'application/jsonx', 'application/json; charset=latin1', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'json', 'application/json; q=1'];
          draft.body = draft.body === undefined || draft.body === '' ? '{}' : draft.body;
          draft.headers['content-type'] = types[v % types.length]!;
        } else draft.query.push(['limite', 'abc']);
        break;
      case 'badJson':
        if (mutating()) {
          draft.body = plan.text;
          draft.headers['content-type'] = 'application/json';
        } else draft.query.push(['x', '1']);
        break;
      case 'tooLarge':
        if (mutating()) {
          const fill = v % 3 === 0 ? 'x' : v % 3 === 1 ? 'é' : '😀';
          const units = Math.ceil(plan.bigSize / Buffer.byteLength(fill));
          draft.body = JSON.stringify({ nome: fill.repeat(units) });
          draft.headers['content-type'] = 'application/json';
        } else draft.query.push(['limite', '1'], ['limite', '2']);
        break;
      case 'bodyShape':
        if (mutating()) {
          const shapes = ['null', '[]', '123', '"texto"', 'true', '[{}]', JSON.stringify({ campo_desconhecido: plan.json.length }), `{"__proto__":${plan.json.length < 1000 ? plan.json : '1'}}`, '{"constructor":{"prototype":{}}}', deep(1 + (v % 5000), '[', ']', '')];
          draft.body = shapes[v % shapes.length]!;
          draft.headers['content-type'] = 'application/json';
        } else draft.query.push(['cursor', 'x'.repeat(600)]);
        break;
      case 'query':
        if (op.query.length === 0 || v % 3 === 0) draft.query.push([`desconhecido_${v % 7}`, String(v)]);
        else if (v % 3 === 1) draft.query.push(['limite', String([0, 201, -1, 1e9][v % 4])]);
        else draft.query.push([op.query[v % op.query.length]!, 'a'], [op.query[v % op.query.length]!, 'b']);
        if (mutating() && op.query.length === 0) draft.query.push(['x', '1']);
        break;
      case 'notUuid': {
        if (op.template.includes(':id')) {
          const segment = encodeURIComponent(plan.garbage.replace(/^[0-9a-fA-F-]{36}$/, 'x'));
          draft.path = op.template.replace(':id', segment).replace(':produto_id', segment);
        } else draft.query.push(['apos_id', 'nao-e-uuid'], ['q', '1']);
        break;
      }
      case 'nobodysId': {
        if (op.template.includes(':id')) {
          const nobody = '0190a000-0000-7000-8000-00000000dead';
          draft.path = op.template.replace(':id', nobody).replace(':produto_id', nobody);
        } else draft.path = `${op.template}/0190a000-0000-7000-8000-00000000dead/nada`;
        break;
      }
    }
  }
  return draft;
}

describe('malformed requests', { timeout: PROPERTY_TIMEOUT }, () => {
  it('always answer a 4xx with the error body whose request_id is the x-request-id header, never a 5xx', async () => {
    const l = lab();
    const { emu, api, company } = l;
    const catalog = await headOfficeCatalog(l);
    const products = [await product(l, catalog.id), await product(l, catalog.id, { id_externo: 'ext-1' })];
    const branch = await api.post('/v1/estabelecimentos', { cnpj: cnpjOf(company.cnpjRoot, '0002'), nome: 'Filial' });
    expect(branch.status).toBe(201);
    const ids: Ids = {
      token: company.token,
      readOnlyToken: emu.companies.addCredential(company.companyId, ['catalogo:ler']).token,
      establishment: [company.headOffice.id, branch.body.id],
      catalog: [catalog.id],
      product: products.map((p) => p.id),
      cnpj: cnpjOf(company.cnpjRoot, '0003'),
    };
    const before = stateAndRandom(emu);

    await fc.assert(
      fc.asyncProperty(requestPlan, async (plan) => {
        const draft = build(plan, ids);
        const search = draft.query.length === 0 ? '' : `?${draft.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`;
        const response = await api.target.fetch(`${draft.path}${search}`, { method: draft.method, headers: draft.headers, ...(draft.body === undefined ? {} : { body: draft.body }) });
        const text = await response.text();
        const where = `${draft.method} ${draft.path}${search.slice(0, 200)} [${plan.defects.join(', ')}] → ${response.status} ${text.slice(0, 300)}`;
        expect(response.status, where).toBeGreaterThanOrEqual(400);
        expect(response.status, where).toBeLessThan(500);
        expect(response.headers.get('content-type'), where).toMatch(/^application\/json/);
        const body = JSON.parse(text) as { erro: { codigo: unknown; mensagem: unknown; request_id: unknown } };
        expect(body.erro.codigo, where).toMatch(/^[a-z][a-z0-9_]*$/);
        expect(typeof body.erro.mensagem === 'string' && body.erro.mensagem.length > 0, where).toBe(true);
        expect(body.erro.request_id, where).toBe(response.headers.get('x-request-id'));
        if (response.status === 401) expect(response.headers.get('www-authenticate'), where).toMatch(/^Bearer/);
        if (response.status === 405) expect(response.headers.get('allow'), where).toBeTruthy();
      }),
      { numRuns: runs(2500) },
    );
    expect(stateAndRandom(emu)).toBe(before);
  });
});
