/**
 * Property: random malformed requests always get a 4xx with the error body.
 *
 * Each request starts from a real operation (method and path template of every operation of the API, batch
 * ingestion included) with real or random ids, a random body (valid-looking, random JSON, huge strings, deep
 * nesting, arrays, nulls, unicode, __proto__ and constructor keys) and random extra headers. With real ids,
 * a conditional change carries the resource's current ETag, so that without a defect the valid-looking
 * request would be accepted (the set-up has a catalog free for an ingestion start, an open ingestion for
 * batches and close, a validated one for apply). Then at least one defect is applied last, so nothing else
 * can mend it: a bad credential, a read-only credential on a change, an unknown route, a method the path does
 * not take, a missing/short/long/ill-formed idempotency key (by the operation's own rule: the ingestion start
 * takes 16–200 characters with no whitespace), a malformed If-Match or both preconditions, a non-JSON content
 * type, bad JSON, a body over the operation's limit (1 MiB: up to ~2 MiB; an ingestion batch's 4 MiB: up to
 * ~4.2 MiB), a body of the wrong shape (generic, and per operation: `{itens}` of the wrong type or size, a bad
 * `operacao` or `total_lotes`...), a bad query (unknown, repeated, out of the operation's range), an id that is
 * not a uuid or is nobody's, a batch number outside 1–1,000.
 *
 * Whatever the mix: the status is in [400, 499], never 5xx, fetch never throws, the body is JSON
 * {erro: {codigo, mensagem, request_id}} with request_id equal to the x-request-id header, 401 carries
 * WWW-Authenticate and 405 carries Allow. Nothing is changed by any of it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headOfficeCatalog, product, type Answer } from '../support/client.js';
import { cnpjOf } from '../support/cnpj.js';
import { lab, PROPERTY_TIMEOUT, runs, stateAndRandom, type Lab } from './support/lab.js';

interface Operation {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  readonly template: string;
  /** Query parameters the operation takes. */
  readonly query: readonly string[];
  /** Body fields the operation takes (undefined: no body; [] with optional: body absent or {}). */
  readonly fields?: readonly string[];
  /** The highest `limite` the operation takes (default 200). */
  readonly maxLimite?: number;
  /** A larger `limite` is not refused but capped: the spec bounds the page, not the parameter (LIM-15, LIM-21, LIM-22). */
  readonly capsLimite?: true;
  /** The operation's own idempotency-key rule: the ingestion start's 16–200 characters, none of them whitespace. */
  readonly ingestionKey?: true;
  /** The operation's body limit, when it is not the default 1 MiB (the ingestion batch: 4 MiB). */
  readonly bodyLimit?: number;
  /** The ETag a valid request sends in If-Match: its first id's, its second id's, or that of a singleton. */
  readonly ifMatch?: 'first' | 'second' | 'exclusao' | 'webhook' | 'vigilancia';
  /** Bodies of the wrong shape for this operation in particular (beside the generic ones). */
  readonly badShapes?: readonly string[];
}

const MiB = 1024 * 1024;
const LIST_CATALOGS = ['limite', 'apos_id', 'estabelecimento_id', 'id_externo', 'estado'];
const RECORD = { id_externo: 'malformado-1', origem: 'erp', ncm: '84713012' };
const OPERATIONS: readonly Operation[] = [
  { method: 'GET', template: '/v1/empresa', query: [] },
  { method: 'GET', template: '/v1/contexto', query: [] },
  { method: 'GET', template: '/v1/empresa/capacidade', query: [] },
  { method: 'POST', template: '/v1/estabelecimentos', query: [], fields: ['cnpj', 'nome', 'id_externo'] },
  { method: 'GET', template: '/v1/estabelecimentos', query: ['limite', 'apos_id', 'estado'] },
  { method: 'GET', template: '/v1/estabelecimentos/:id', query: [] },
  {
    method: 'PATCH',
    template: '/v1/estabelecimentos/:id',
    query: [],
    fields: ['nome', 'id_externo'],
    ifMatch: 'first',
  },
  { method: 'DELETE', template: '/v1/estabelecimentos/:id', query: [], fields: [], ifMatch: 'first' },
  {
    method: 'POST',
    template: '/v1/estabelecimentos/:id/correcoes-cnpj',
    query: [],
    fields: ['cnpj_novo', 'motivo'],
    ifMatch: 'first',
  },
  { method: 'GET', template: '/v1/correcoes-cnpj/:id', query: [] },
  { method: 'POST', template: '/v1/catalogos', query: [], fields: ['estabelecimento_id', 'nome', 'id_externo'] },
  { method: 'GET', template: '/v1/catalogos', query: LIST_CATALOGS },
  { method: 'GET', template: '/v1/catalogos/:id', query: [] },
  { method: 'PATCH', template: '/v1/catalogos/:id', query: [], fields: ['nome', 'id_externo'], ifMatch: 'first' },
  { method: 'GET', template: '/v1/catalogos/:id/impacto-exclusao', query: [] },
  { method: 'DELETE', template: '/v1/catalogos/:id', query: [], fields: [], ifMatch: 'exclusao' },
  {
    method: 'POST',
    template: '/v1/catalogos/:id/produtos',
    query: [],
    fields: ['origem', 'ncm', 'id_externo', 'sku', 'descricao', 'atributos'],
  },
  { method: 'GET', template: '/v1/catalogos/:id/produtos', query: ['limite', 'cursor'] },
  { method: 'PUT', template: '/v1/catalogos/:id/produtos/:produto_id', query: [], fields: [], ifMatch: 'second' },
  { method: 'DELETE', template: '/v1/catalogos/:id/produtos/:produto_id', query: [], fields: [], ifMatch: 'second' },
  { method: 'GET', template: '/v1/produtos', query: ['limite', 'cursor', 'id_externo'] },
  { method: 'GET', template: '/v1/produtos/:id', query: [] },
  {
    method: 'PATCH',
    template: '/v1/produtos/:id',
    query: [],
    fields: ['id_externo', 'sku', 'descricao', 'ncm', 'atributos'],
    ifMatch: 'first',
  },
  // Batch ingestion (docs/batch-ingestion.md).
  {
    method: 'POST',
    template: '/v1/catalogos/ingestoes',
    query: [],
    fields: ['operacao', 'catalogo_id', 'referencia_externa'],
    ingestionKey: true,
    badShapes: [
      '{}',
      '{"operacao":"substituir"}',
      '{"operacao":["mesclar"]}',
      '{"operacao":"mesclar","referencia_externa":""}',
      JSON.stringify({ operacao: 'mesclar', referencia_externa: 'r'.repeat(201) }),
      '{"operacao":"mesclar","catalogo_id":"nao-e-uuid"}',
      '{"operacao":"mesclar","catalogo_id":null}',
      '{"Operacao":"mesclar"}',
    ],
  },
  { method: 'GET', template: '/v1/catalogos/ingestoes/:id', query: ['limite', 'cursor'], maxLimite: 1000 },
  {
    method: 'PUT',
    template: '/v1/catalogos/ingestoes/:id/lotes/:numero',
    query: [],
    fields: ['itens'],
    bodyLimit: 4 * MiB,
    badShapes: [
      '{}',
      '{"itens":"x"}',
      '{"itens":{}}',
      '{"itens":null}',
      '{"itens":[]}',
      `{"itens":[${Array(1001).fill('1').join(',')}]}`,
      JSON.stringify({ itens: [RECORD], extra: 1 }),
      JSON.stringify({ ITENS: [RECORD] }),
      JSON.stringify([{ itens: [RECORD] }]),
    ],
  },
  {
    method: 'POST',
    template: '/v1/catalogos/ingestoes/:id/fechamento',
    query: [],
    fields: ['total_lotes'],
    badShapes: [
      '{}',
      '{"total_lotes":0}',
      '{"total_lotes":1001}',
      '{"total_lotes":"1"}',
      '{"total_lotes":1.5}',
      '{"total_lotes":null}',
      '{"total_lotes":-1}',
    ],
  },
  { method: 'POST', template: '/v1/catalogos/ingestoes/:id/aplicacao', query: [], fields: [], ifMatch: 'first' },
  // Surveillance, webhooks, analyses, executions.
  { method: 'GET', template: '/v1/empresa/vigilancia', query: [] },
  {
    method: 'PATCH',
    template: '/v1/empresa/vigilancia',
    query: [],
    fields: ['modo', 'adicionar', 'remover'],
    ifMatch: 'vigilancia',
    badShapes: ['{"modo":"alguns"}', '{"adicionar":[]}', '{"modo":"selecao","adicionar":["nao-e-uuid"]}'],
  },
  { method: 'GET', template: '/v1/empresa/vigilancia/produtos', query: ['limite', 'cursor'] },
  { method: 'GET', template: '/v1/webhook', query: [] },
  {
    method: 'PUT',
    template: '/v1/webhook',
    query: [],
    fields: ['url'],
    bodyLimit: 4 * 1024,
    ifMatch: 'webhook',
    badShapes: ['{"url":"http://exemplo.com/x"}', '{"url":1}', '{}'],
  },
  { method: 'DELETE', template: '/v1/webhook', query: [], fields: [], bodyLimit: 4 * 1024, ifMatch: 'webhook' },
  { method: 'POST', template: '/v1/webhook/testes', query: [], fields: [], ifMatch: 'webhook' },
  { method: 'GET', template: '/v1/webhook/eventos', query: ['limite', 'cursor'], maxLimite: 100, capsLimite: true },
  { method: 'GET', template: '/v1/webhook/eventos/:id', query: [] },
  { method: 'POST', template: '/v1/webhook/eventos/:id/reenvios', query: [], fields: [], ifMatch: 'webhook' },
  {
    method: 'GET',
    template: '/v1/webhook/eventos/:id/tentativas',
    query: ['limite', 'apos_tentativa'],
    maxLimite: 100,
  },
  { method: 'POST', template: '/v1/analises', query: [], fields: [] },
  { method: 'GET', template: '/v1/analises', query: ['limite', 'cursor'], maxLimite: 100, capsLimite: true },
  { method: 'GET', template: '/v1/analises/:id', query: [] },
  // Findings pages take only `cursor` (spec "GET /v1/vigilancias/{id}/resultados"; the analysis's follow it).
  { method: 'GET', template: '/v1/analises/:id/achados', query: ['cursor'] },
  { method: 'GET', template: '/v1/analises/:id/resultado.csv', query: [] },
  { method: 'GET', template: '/v1/vigilancias', query: ['limite', 'cursor'], maxLimite: 100, capsLimite: true },
  { method: 'GET', template: '/v1/vigilancias/:id', query: [] },
  { method: 'GET', template: '/v1/vigilancias/:id/resultados', query: ['cursor'] },
  { method: 'GET', template: '/v1/vigilancias/:id/resultados.csv', query: [] },
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

const deep = (depth: number, open: string, close: string, inner: string) =>
  open.repeat(depth) + inner + close.repeat(depth);
const weirdKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'Nome',
  'nome ',
  'NCM',
  '',
  'ção',
  '😀',
  'a.b',
  '[0]',
);
const anyJson = fc.jsonValue({ maxDepth: 4 });
/** A JSON text of any shape (not necessarily an object). */
const jsonText: fc.Arbitrary<string> = fc.oneof(
  anyJson.map((v) => JSON.stringify(v)),
  fc.dictionary(fc.oneof(weirdKey, fc.string()), anyJson, { maxKeys: 4 }).map((o) => JSON.stringify(o)),
  fc
    .record({ key: weirdKey, value: anyJson })
    .map(({ key, value }) => `{${JSON.stringify(key)}:${JSON.stringify(value)}}`),
  fc.integer({ min: 1, max: 50_000 }).map((d) => deep(d, '[', ']', '')),
  fc.integer({ min: 1, max: 50_000 }).map((d) => deep(d, '{"a":', '}', 'null')),
  fc
    .tuple(
      fc.constantFrom('nome', 'origem', 'descricao', 'cnpj', 'x'),
      fc.integer({ min: 0, max: 1_000_000 }),
      fc.constantFrom('x', 'é', '😀', '\u0000', '"'),
    )
    .map(([field, n, ch]) => JSON.stringify({ [field]: ch.repeat(Math.floor(n / JSON.stringify(ch).length)) })),
  fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => JSON.stringify({ nome: s, origem: s, ncm: s })),
  fc.constantFrom(
    'null',
    '[]',
    '{}',
    '0',
    '"texto"',
    'true',
    '[{}]',
    '{"atributos":[{"codigo":"a","valores":["1"]},{"codigo":"a","valores":["2"]}]}',
  ),
);
const invalidJson: fc.Arbitrary<string> = fc
  .oneof(
    fc.constantFrom(
      '{',
      '}',
      '{"a":}',
      "{'a':1}",
      '{"a":1,}',
      'NaN',
      'undefined',
      '[1,,2]',
      '{"a" 1}',
      '\u0000',
      'nul',
      '{"a":"\u0001"}',
      '01',
      '{"__proto__":}',
    ),
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

const garbageId = fc
  .oneof(
    fc.string({ minLength: 1, maxLength: 40 }),
    fc.string({ minLength: 1, maxLength: 10, unit: 'grapheme' }),
    fc.constantFrom('null', 'undefined', '0', '-1', 'produtos', '%', ' '),
  )
  .filter((s) => s !== '.' && s !== '..');
const headerValue = fc.string({
  unit: fc.constantFrom(...' !"#$%&\'()*+,-./0123456789:;<=>?@ABCXYZabcxyz[\\]^_`{|}~'),
  maxLength: 40,
});
const noise = fc.array(
  fc.oneof(
    fc.tuple(
      fc.constantFrom(
        'accept',
        'x-trace',
        'user-agent',
        'accept-encoding',
        'cache-control',
        'x-forwarded-for',
        'origin',
      ),
      headerValue,
    ),
    fc.tuple(
      fc.constant('content-type'),
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
        'application/xml',
        'APPLICATION/JSON',
      ),
    ),
    fc.tuple(fc.constant('if-match'), fc.constantFrom('"0123456789abcdef"', 'W/"x"', '"a", "b"')),
    fc.tuple(fc.constant('idempotency-key'), fc.stringMatching(/^[A-Za-z0-9._:-]{16,40}$/)),
  ),
  { maxLength: 4 },
);

/** The checks late in the order (body, ids) weigh more: early ones (credential, route) would mask the rest. */
const DEFECT_WEIGHTS: Record<Defect, number> = {
  credential: 2,
  readOnly: 2,
  unknownRoute: 1,
  wrongMethod: 2,
  key: 3,
  ifMatch: 3,
  bothPreconditions: 2,
  contentType: 3,
  badJson: 3,
  tooLarge: 2,
  bodyShape: 5,
  query: 3,
  notUuid: 3,
  nobodysId: 5,
};
const defect = fc.oneof(...DEFECTS.map((d) => ({ weight: DEFECT_WEIGHTS[d], arbitrary: fc.constant(d) })));

const requestPlan: fc.Arbitrary<RequestPlan> = fc.record({
  op: fc.constantFrom(...OPERATIONS),
  ids: fc.array(fc.constantFrom<'real' | 'uuid' | 'garbage'>('real', 'real', 'uuid', 'garbage'), {
    minLength: 2,
    maxLength: 2,
  }),
  garbage: garbageId,
  uuid: fc.uuid(),
  pick: fc.nat(),
  body: fc.constantFrom<'none' | 'valid' | 'json'>('none', 'valid', 'valid', 'json', 'json'),
  json: jsonText,
  noise,
  query: fc.oneof(
    { weight: 3, arbitrary: fc.constant([] as [string, string][]) },
    {
      weight: 1,
      arbitrary: fc.array(
        fc.tuple(
          fc.constantFrom('limite', 'cursor', 'apos_id', 'estado', 'x', 'LIMITE', '__proto__'),
          fc.string({ maxLength: 12 }),
        ),
        { minLength: 1, maxLength: 3 },
      ),
    },
  ),
  defects: fc.uniqueArray(defect, { minLength: 1, maxLength: 3 }).chain((all) => fc.subarray(all, { minLength: 1 })),
  variant: fc.nat(),
  text: invalidJson,
  bigSize: fc.integer({ min: 1024 * 1024 + 1, max: 2 * 1024 * 1024 }),
});

type IdKind = 'establishment' | 'catalog' | 'product' | 'ingestion' | 'event' | 'analysis' | 'execution' | 'correction';

interface Ids {
  readonly token: string;
  readonly readOnlyToken: string;
  readonly real: Readonly<Record<IdKind, readonly string[]>>;
  /** The current ETag of each real resource by id, and of the singletons ('webhook', 'vigilancia', 'exclusao:<catalog id>'). */
  readonly etags: ReadonlyMap<string, string>;
  readonly cnpj: string;
  /** A catalog with no open ingestion: a valid ingestion start goes there. */
  readonly freeCatalog: string;
}

/** What the id at `position` of a path template names. */
function kindOf(template: string, position: number): IdKind {
  if (template.startsWith('/v1/catalogos/ingestoes')) return 'ingestion';
  if (template.startsWith('/v1/estabelecimentos')) return 'establishment';
  if (template.startsWith('/v1/produtos')) return 'product';
  if (template.startsWith('/v1/correcoes-cnpj')) return 'correction';
  if (template.startsWith('/v1/webhook/eventos')) return 'event';
  if (template.startsWith('/v1/analises')) return 'analysis';
  if (template.startsWith('/v1/vigilancias')) return 'execution';
  return position === 0 ? 'catalog' : 'product';
}

function realId(ids: Ids, template: string, position: number, pick: number): string {
  const list = ids.real[kindOf(template, position)];
  return list[pick % list.length]!;
}

/** A batch number the path takes (1 to 1,000), and some it does not. */
const validNumero = (pick: number) => String(1 + (pick % 1000));
const BAD_NUMEROS = ['0', '1001', '01', '-1', '1.5', '1e3', 'um', '99999999', ' 1', '١'];

function validBody(op: Operation, ids: Ids, pick: number): string {
  switch (`${op.method} ${op.template}`) {
    case 'POST /v1/estabelecimentos':
      return JSON.stringify({ cnpj: ids.cnpj, nome: 'Nova filial' });
    case 'POST /v1/estabelecimentos/:id/correcoes-cnpj':
      return JSON.stringify({ cnpj_novo: ids.cnpj, motivo: 'Digitação errada' });
    case 'POST /v1/catalogos':
      return JSON.stringify({
        estabelecimento_id: ids.real.establishment[pick % ids.real.establishment.length],
        nome: 'Outro',
      });
    case 'POST /v1/catalogos/:id/produtos':
      return JSON.stringify({ origem: 'erp', ncm: '84713012' });
    case 'PATCH /v1/produtos/:id':
      return JSON.stringify({ sku: 'novo' });
    case 'POST /v1/catalogos/ingestoes': {
      // The catalog with no open ingestion (without catalogo_id: the head office's, which has one open: 409).
      const catalog = ids.freeCatalog;
      return JSON.stringify(
        [
          { operacao: 'mesclar' },
          { operacao: 'mesclar', catalogo_id: catalog },
          { operacao: 'substituicao_catalogo', catalogo_id: catalog },
          { operacao: 'substituicao_integral', catalogo_id: catalog, referencia_externa: `erp ${pick}` },
        ][pick % 4],
      );
    }
    case 'PUT /v1/catalogos/ingestoes/:id/lotes/:numero':
      return JSON.stringify({
        itens: [
          { ...RECORD, id_externo: `malformado-${pick % 5}` },
          ...(pick % 2 === 0 ? [] : [{ id_externo: 'x', origem: 'erp', ncm: '1006' }]),
        ],
      });
    case 'POST /v1/catalogos/ingestoes/:id/fechamento':
      return JSON.stringify({ total_lotes: 1 + (pick % 1000) });
    case 'PATCH /v1/empresa/vigilancia':
      return JSON.stringify(
        pick % 2 === 0
          ? { modo: 'todos' }
          : { modo: 'selecao', adicionar: [ids.real.product[pick % ids.real.product.length]] },
      );
    case 'PUT /v1/webhook':
      return JSON.stringify({ url: 'https://hooks-malformados.example.com/eventos' });
    default:
      return op.fields && op.fields.length > 0 ? JSON.stringify({ nome: 'Novo nome' }) : '{}';
  }
}

/** Builds the request: the operation with noise, then every defect, applied last. */
function build(plan: RequestPlan, ids: Ids): Draft {
  const { op } = plan;
  let n = 0;
  /** The real ids in the path, by position (undefined where the id is not real). */
  const real: (string | undefined)[] = [];
  const path = op.template.replace(/:[a-z_]+/g, (param) => {
    const position = n++;
    const kind = plan.ids[position] ?? 'real';
    if (param === ':numero')
      return kind === 'real' ? validNumero(plan.pick) : kind === 'uuid' ? plan.uuid : encodeURIComponent(plan.garbage);
    const id = kind === 'real' ? realId(ids, op.template, position, plan.pick) : undefined;
    real.push(id);
    return id ?? (kind === 'uuid' ? plan.uuid : encodeURIComponent(plan.garbage));
  });
  const draft: Draft = {
    method: op.method,
    path,
    query: [...plan.query],
    headers: { authorization: `Bearer ${ids.token}` },
    body: undefined,
  };
  if (op.method !== 'GET') {
    draft.headers['idempotency-key'] = `malformed-${plan.variant}-${plan.pick}-0000000000`.slice(0, 60);
    if (plan.body !== 'none') {
      draft.body = plan.body === 'valid' ? validBody(op, ids, plan.pick) : plan.json;
      draft.headers['content-type'] = 'application/json';
    }
    // The current ETag where the operation takes one: without a defect, a valid body would be accepted.
    const etagKey =
      op.ifMatch === 'first'
        ? real[0]
        : op.ifMatch === 'second'
          ? real[1]
          : op.ifMatch === 'exclusao'
            ? real[0] && `exclusao:${real[0]}`
            : op.ifMatch;
    const etag = etagKey === undefined ? undefined : ids.etags.get(etagKey);
    if (etag !== undefined) draft.headers['if-match'] = etag;
  }
  for (const [name, value] of plan.noise) draft.headers[name] = value;

  const v = plan.variant;
  const mutating = () => draft.method !== 'GET';
  /** A `limite` the operation refuses: above its maximum, or (where it caps a larger one) not a count. */
  const tooHigh = op.capsLimite ? '1e3' : String((op.maxLimite ?? 200) + 1);
  const fill = (value: (param: string) => string) => op.template.replace(/:[a-z_]+/g, value);
  for (const defect of plan.defects) {
    switch (defect) {
      case 'credential': {
        const values = [
          '',
          'Basic dXNlcjpwYXNz',
          'Bearer',
          'Bearer ',
          `Bearer ${ids.token}x`,
          `Bearer ${ids.token} extra`,
          'Token abc',
          `${ids.token}`,
          'Bearer svc_at_nao-existe',
        ];
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
        const routes = [
          '/v1',
          '/v1/',
          '/v2/catalogos',
          '/v1/catalogo',
          '/v1/empresa/nao-existe',
          `${draft.path}/a/b/c`,
          '/V1/catalogos',
          '/v1/produtos/a/b',
        ];
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
          // The ingestion start takes 16–200 characters, none of them whitespace (so "/" and 129 characters are valid there).
          const keys =
            op.ingestionKey && draft.method === op.method
              ? [
                  undefined,
                  '',
                  'curta',
                  'a'.repeat(15),
                  'a'.repeat(201),
                  'chave com espaco aqui',
                  'chave\tcom\ttabulacao',
                  'erp/exportação 2026',
                  'k'.repeat(2000),
                ]
              : [
                  undefined,
                  '',
                  'curta',
                  'a'.repeat(15),
                  'a'.repeat(129),
                  'chave com espaco aqui',
                  'chave/com/barras/aqui',
                  'ção-ção-ção-ção-ção',
                  'k'.repeat(2000),
                ];
          const key = keys[v % keys.length];
          if (key === undefined) delete draft.headers['idempotency-key'];
          else draft.headers['idempotency-key'] = key.replace(/[^\t\x20-\x7e]/g, '?');
        } else draft.query.push(['limite', '0']);
        break;
      case 'ifMatch':
        if (mutating()) {
          const tags = ['*', ' * ', 'abc', '"a', 'a"', '" "', '"a" "b"', ',', '"a",', 'W/', 'W/*'];
          draft.headers['if-match'] = tags[v % tags.length]!;
        } else draft.query.push(['limite', tooHigh]);
        break;
      case 'bothPreconditions':
        if (mutating()) {
          draft.headers['if-match'] = '"0123456789abcdef"';
          draft.headers['if-none-match'] = v % 2 === 0 ? '*' : '"0123456789abcdef"';
        } else draft.query.push(['parametro_desconhecido', '1']);
        break;
      case 'contentType':
        if (mutating()) {
          const types = [
            'text/plain',
            'application/jsonx',
            'application/json; charset=latin1',
            'multipart/form-data; boundary=x',
            'application/x-www-form-urlencoded',
            'json',
            'application/json; q=1',
          ];
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
          const unit = v % 3 === 0 ? 'x' : v % 3 === 1 ? 'é' : '😀';
          if (op.bodyLimit !== undefined && op.bodyLimit > MiB && draft.method === op.method) {
            // A batch of the right shape, just over the operation's 4 MiB (up to ~4.2 MiB).
            const size = op.bodyLimit + 1 + Math.floor((plan.bigSize - MiB) / 5);
            draft.body = JSON.stringify({
              itens: [{ ...RECORD, descricao: unit.repeat(Math.ceil(size / Buffer.byteLength(unit))) }],
            });
          } else {
            draft.body = JSON.stringify({ nome: unit.repeat(Math.ceil(plan.bigSize / Buffer.byteLength(unit))) });
          }
          draft.headers['content-type'] = 'application/json';
        } else draft.query.push(['limite', '1'], ['limite', '2']);
        break;
      case 'bodyShape':
        if (mutating()) {
          const shapes = [
            'null',
            '[]',
            '123',
            '"texto"',
            'true',
            '[{}]',
            JSON.stringify({ campo_desconhecido: plan.json.length }),
            `{"__proto__":${plan.json.length < 1000 ? plan.json : '1'}}`,
            '{"constructor":{"prototype":{}}}',
            deep(1 + (v % 5000), '[', ']', ''),
            ...(draft.method === op.method ? (op.badShapes ?? []) : []),
          ];
          draft.body = shapes[v % shapes.length]!;
          draft.headers['content-type'] = 'application/json';
        } else draft.query.push(['cursor', 'x'.repeat(600)]);
        break;
      case 'query':
        if (op.query.length === 0 || v % 3 === 0) draft.query.push([`desconhecido_${v % 7}`, String(v)]);
        else if (v % 3 === 1)
          draft.query.push(['limite', [String(0), tooHigh, String(-1), op.capsLimite ? '12abc' : String(1e9)][v % 4]!]);
        else draft.query.push([op.query[v % op.query.length]!, 'a'], [op.query[v % op.query.length]!, 'b']);
        if (mutating() && op.query.length === 0) draft.query.push(['x', '1']);
        break;
      case 'notUuid': {
        if (op.template.includes(':id')) {
          const segment = encodeURIComponent(plan.garbage.replace(/^[0-9a-fA-F-]{36}$/, 'x'));
          // A batch path: a bad id with a good number, or a real ingestion with a bad number.
          const badNumero = v % 2 === 1;
          draft.path = fill((param) =>
            param === ':numero'
              ? badNumero
                ? encodeURIComponent(BAD_NUMEROS[(v >> 1) % BAD_NUMEROS.length]!)
                : validNumero(plan.pick)
              : badNumero && op.template.includes(':numero')
                ? realId(ids, op.template, 0, plan.pick)
                : segment,
          );
        } else draft.query.push(['apos_id', 'nao-e-uuid'], ['q', '1']);
        break;
      }
      case 'nobodysId': {
        if (op.template.includes(':id')) {
          const nobody = '0190a000-0000-7000-8000-00000000dead';
          draft.path = fill((param) => (param === ':numero' ? validNumero(plan.pick) : nobody));
        } else draft.path = `${op.template}/0190a000-0000-7000-8000-00000000dead/nada`;
        break;
      }
    }
  }
  return draft;
}

const HOUR = 3_600_000;

/**
 * A company with one of everything, each with a real id: establishments, catalogs, products, a CNPJ correction,
 * a webhook destination and its events, an analysis, a surveillance execution, and ingestions applied
 * (head office), validated (head office: the one apply can take) and open with a batch (branch), and a
 * catalog with no open ingestion (where a start goes) and an establishment with no catalog (that DELETE takes).
 */
async function setUp(l: Lab): Promise<Ids> {
  const { emu, api, company } = l;
  const must = async (answer: Promise<Answer>, status: number): Promise<Answer> => {
    const got = await answer;
    if (got.status !== status) throw new Error(`set-up answered ${got.status} (expected ${status}): ${got.text}`);
    return got;
  };
  const catalog = await headOfficeCatalog(l);
  const products = [await product(l, catalog.id), await product(l, catalog.id, { id_externo: 'ext-1' })];
  const branch = await must(
    api.post('/v1/estabelecimentos', { cnpj: cnpjOf(company.cnpjRoot, '0002'), nome: 'Filial' }),
    201,
  );
  const branchCatalog = await must(
    api.post('/v1/catalogos', { estabelecimento_id: branch.body.id, nome: 'Filial' }),
    201,
  );
  await must(
    api.post(`/v1/catalogos/${branchCatalog.body.id}/produtos`, {
      origem: 'erp',
      ncm: '84713012',
      id_externo: 'filial-1',
    }),
    201,
  );
  const second = await must(
    api.post('/v1/estabelecimentos', { cnpj: cnpjOf(company.cnpjRoot, '0005'), nome: 'Filial 2' }),
    201,
  );
  const freeCatalog = await must(
    api.post('/v1/catalogos', { estabelecimento_id: second.body.id, nome: 'Sem ingestão' }),
    201,
  );
  const bare = await must(
    api.post('/v1/estabelecimentos', { cnpj: cnpjOf(company.cnpjRoot, '0006'), nome: 'Sem catálogo' }),
    201,
  );

  const surveillance = await must(api.get('/v1/empresa/vigilancia'), 200);
  await must(
    api.patch(
      '/v1/empresa/vigilancia',
      { modo: 'selecao', adicionar: [products[0]!.id] },
      { ifMatch: surveillance.headers.get('etag')! },
    ),
    200,
  );
  await must(
    api.put(
      '/v1/webhook',
      { url: 'https://hooks-malformados.example.com/eventos' },
      { headers: { 'if-none-match': '*' } },
    ),
    201,
  );
  const analysis = await must(api.post('/v1/analises', {}), 202);
  const correction = await must(
    api.post(
      `/v1/estabelecimentos/${branch.body.id}/correcoes-cnpj`,
      { cnpj_novo: cnpjOf(company.cnpjRoot, '0004'), motivo: 'Digitação' },
      { ifMatch: (await must(api.get(`/v1/estabelecimentos/${branch.body.id}`), 200)).headers.get('etag')! },
    ),
    202,
  );
  await emu.clock.advance(25 * HOUR); // the daily execution, the analysis, the review, the deliveries

  const ingest = async (
    catalogId: string,
    records: readonly unknown[],
    until: 'aberta' | 'validada' | 'aplicada',
  ): Promise<string> => {
    const started = await must(
      api.post('/v1/catalogos/ingestoes', { operacao: 'mesclar', catalogo_id: catalogId }),
      201,
    );
    const path = `/v1/catalogos/ingestoes/${started.body.ingestao_id}`;
    await must(api.put(`${path}/lotes/1`, { itens: records }), 201);
    if (until !== 'aberta') {
      await must(api.post(`${path}/fechamento`, { total_lotes: 1 }), 202);
      await emu.clock.advance(60_000);
      const validated = await must(api.get(path), 200);
      if (validated.body.estado !== 'validada')
        throw new Error(`set-up ingestion is ${validated.body.estado}: ${validated.text}`);
      if (until === 'aplicada') {
        await must(api.post(`${path}/aplicacao`, {}, { ifMatch: validated.headers.get('etag')! }), 202);
        await emu.clock.advance(60_000);
        if ((await must(api.get(path), 200)).body.estado !== 'aplicada')
          throw new Error('set-up ingestion not applied');
      }
    }
    return started.body.ingestao_id;
  };
  const applied = await ingest(
    catalog.id,
    [
      { id_externo: 'ext-1', origem: 'erp', ncm: '09012100' },
      { id_externo: 'novo-1', origem: 'erp', ncm: '10063021' },
    ],
    'aplicada',
  );
  const validated = await ingest(catalog.id, [{ id_externo: 'novo-2', origem: 'erp', ncm: '84713012' }], 'validada');
  const open = await ingest(branchCatalog.body.id, [RECORD], 'aberta');

  const ids = async (path: string): Promise<string[]> =>
    ((await must(api.get(path), 200)).body.itens as { id: string }[]).map((i) => i.id);
  const real: Record<IdKind, string[]> = {
    establishment: [company.headOffice.id, branch.body.id, bare.body.id],
    catalog: [catalog.id, branchCatalog.body.id, freeCatalog.body.id],
    product: await ids('/v1/produtos?limite=200'),
    ingestion: [open, validated, open, applied],
    event: await ids('/v1/webhook/eventos?limite=100'),
    analysis: [analysis.body.id],
    execution: await ids('/v1/vigilancias?limite=100'),
    correction: [correction.body.id],
  };
  for (const [kind, list] of Object.entries(real)) if (list.length === 0) throw new Error(`set-up made no ${kind}`);

  const etags = new Map<string, string>();
  const etagOf = async (key: string, path: string) =>
    etags.set(key, (await must(api.get(path), 200)).headers.get('etag')!);
  for (const id of real.establishment) await etagOf(id, `/v1/estabelecimentos/${id}`);
  for (const id of real.catalog) {
    await etagOf(id, `/v1/catalogos/${id}`);
    await etagOf(`exclusao:${id}`, `/v1/catalogos/${id}/impacto-exclusao`);
  }
  for (const id of real.product) await etagOf(id, `/v1/produtos/${id}`);
  for (const id of real.ingestion) await etagOf(id, `/v1/catalogos/ingestoes/${id}`);
  await etagOf('webhook', '/v1/webhook');
  await etagOf('vigilancia', '/v1/empresa/vigilancia');
  return {
    token: company.token,
    readOnlyToken: emu.companies.addCredential(company.companyId, ['catalogo:ler']).token,
    real,
    etags,
    cnpj: cnpjOf(company.cnpjRoot, '0003'),
    freeCatalog: freeCatalog.body.id,
  };
}

describe('malformed requests', { timeout: PROPERTY_TIMEOUT }, () => {
  // spec: ERR-01, ERR-02, ERR-03, ERR-04
  it('always answer a 4xx with the error body whose request_id is the x-request-id header, never a 5xx', async () => {
    const l = lab();
    const { emu, api } = l;
    const ids = await setUp(l);
    const before = stateAndRandom(emu);
    await fc.assert(
      fc.asyncProperty(requestPlan, async (plan) => {
        const draft = build(plan, ids);
        const search =
          draft.query.length === 0
            ? ''
            : `?${draft.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`;
        const response = await api.target.fetch(`${draft.path}${search}`, {
          method: draft.method,
          headers: draft.headers,
          ...(draft.body === undefined ? {} : { body: draft.body }),
        });
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
      { numRuns: runs(5000) },
    );
    expect(stateAndRandom(emu)).toBe(before);
  });
});
