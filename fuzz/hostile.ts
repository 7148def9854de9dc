/**
 * Hostile requests to the API and to every control, and the invariants each must keep:
 *
 * - no answer is a 5xx (a fault the run arms itself is removed at once, so no 5xx is ours by design);
 * - no request takes longer than HANG_MS;
 * - a refused control call (any 4xx) leaves the whole state (`GET /_emulator/state`) byte-identical;
 * - a refused API call leaves the records, the clock, the tasks and the id source as they were (the request-id
 *   source moves with every API request by design, so it is left out of that comparison).
 *
 * Requests start from real shapes (every control and API path with real or hostile ids, valid-looking bodies)
 * and are then damaged: a leaf replaced by a hostile value, keys dropped or added, the wrong content type, bad
 * JSON, oversized bodies, hostile headers, a snapshot of the current state with one leaf mutated. The same
 * generator drives the CI-sized property (spec-tests/properties/hostile-requests-change-nothing.test.ts) and the
 * long run (`npm run fuzz`).
 */
import fc from 'fast-check';
import { createEmulator, type Emulator } from '../src/index.js';

export const HANG_MS = 2_000;

export interface HostileRequest {
  readonly plane: 'api' | 'control';
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** What the generator aims at: the ids and tokens of the fuzz world, and a snapshot to mutate. */
export interface FuzzWorld {
  readonly emu: Emulator;
  readonly companyId: string;
  readonly token: string;
  readonly readOnlyToken: string;
  readonly ids: readonly string[];
  /** The state the run returns to every so often, so it never grows without bound. */
  readonly base: ReturnType<Emulator['snapshot']>;
}

/** Sends a request and answers with its status and text; throws when it takes longer than HANG_MS. */
export type Send = (request: HostileRequest) => Promise<{ status: number; text: string }>;

const HOOKS = 'https://hooks.fuzz.example';

/** An emulator with one company holding a bit of everything the API has, on a manual clock, and one on a clock of its own. */
export async function fuzzWorld(): Promise<FuzzWorld> {
  // A short attempt time-out: the receiver check gives each delivery that much, so a check of a receiver that never
  // answers (a hostile url) ends well within HANG_MS.
  const emu = createEmulator({ seed: 'fuzz', clock: 'manual', webhooks: { attemptTimeout: 500 } });
  const company = emu.companies.create({ surveillanceCapacity: 10, analysisAllowance: 5 });
  const readOnly = emu.companies.addCredential(company.companyId, ['catalogo:ler']);
  emu.network.route(HOOKS, () => new Response('ok'));
  let key = 0;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await emu.fetch(path, {
      method,
      headers: {
        authorization: `Bearer ${company.token}`,
        'content-type': 'application/json',
        'idempotency-key': `fuzz-setup-${String(++key).padStart(8, '0')}`,
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await response.json()) as Record<string, unknown>;
    if (response.status >= 300)
      throw new Error(`fuzz set-up: ${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
    return { json, etag: response.headers.get('etag') ?? '' };
  };
  const catalog = await call('POST', '/v1/catalogos', { estabelecimento_id: company.headOffice.id, nome: 'Loja' });
  const catalogId = String(catalog.json.id);
  const product = await call('POST', `/v1/catalogos/${catalogId}/produtos`, {
    origem: 'erp',
    ncm: '84713012',
    id_externo: 'p-1',
    descricao: 'Notebook',
  });
  await call('POST', `/v1/catalogos/${catalogId}/produtos`, { origem: 'erp', ncm: '84713012', id_externo: 'p-2' });
  const webhook = await call('PUT', '/v1/webhook', { url: `${HOOKS}/hook` }, { 'if-none-match': '*' });
  await call('POST', '/v1/webhook/testes', {}, { 'if-match': webhook.etag });
  const selection = await call('GET', '/v1/empresa/vigilancia');
  await call('PATCH', '/v1/empresa/vigilancia', { modo: 'todos' }, { 'if-match': selection.etag });
  const analysis = await call('POST', '/v1/analises', {});
  await emu.clock.runUntilIdle();
  await emu.clock.advance('1d');
  await emu.clock.runUntilIdle();
  // A company on a clock of its own, so that its clock controls and its world in the snapshot are aimed at too.
  const own = emu.companies.create({ clock: 'own', surveillanceCapacity: 2 });
  await emu.companies.clock(own.companyId).advance('1h');
  const ids = [
    company.companyId,
    company.headOffice.id,
    catalogId,
    String(product.json.id),
    String(analysis.json.id),
    String(webhook.json.id),
    own.companyId,
  ];
  return {
    emu,
    companyId: company.companyId,
    token: company.token,
    readOnlyToken: readOnly.token,
    ids,
    base: emu.snapshot(),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Values

const HOSTILE_STRINGS = [
  '',
  ' ',
  '\r\n',
  'a\r\nx-injected: 1',
  '\u0000',
  '\u001b[2J',
  '\u2028',
  '%0A',
  '../../etc/passwd',
  '__proto__',
  'constructor',
  '+275760-09-13T00:00:00.000Z',
  '-271821-04-20T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
  '1969-12-31T23:59:59.999Z',
  'not a date',
  '100000d',
  '9007199254740991',
  '1e308',
  '-5s',
  'Infinity',
  'NaN',
  '0x10',
  '1.5d',
  '999999999999999999999d',
  '3650d',
  '3651d',
  '1d',
  'https://hooks.fuzz.example/:1/x',
  'https://hooks.fuzz.example@evil.example/',
  'http://127.0.0.1:1/',
  'javascript:alert(1)',
  '*',
  '**',
  '/v1/**a**a**a!',
];
const HOSTILE_NUMBERS = [
  0,
  -1,
  1,
  0.5,
  -0.5,
  2 ** 31,
  2 ** 53 - 1,
  -(2 ** 53),
  8_640_000_000_000_001,
  -8_640_000_000_000_001,
  1e308,
  -1e308,
  86_400_001,
  10_000_001,
];

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom<unknown>(...HOSTILE_STRINGS, ...HOSTILE_NUMBERS, null, true, false, [], {}, [null], {
      __proto__: null,
    }),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(5_000), 'é'.repeat(3_000)) },
);

/** A copy of `value` with one change: a leaf replaced, a key dropped, a key added, an array item repeated. */
function mutate(
  value: unknown,
  pick: number,
  replacement: unknown,
  how: 'replace' | 'drop' | 'add' | 'repeat',
): unknown {
  const copy = structuredClone(value) as unknown;
  // Objects and arrays by depth, and a depth picked first: a snapshot's few top-level fields (now, tasks, random)
  // are as likely a target as its thousands of record fields.
  const byDepth: (Record<string, unknown> | unknown[])[][] = [];
  const walk = (node: unknown, depth: number) => {
    if (node === null || typeof node !== 'object') return;
    (byDepth[depth] ??= []).push(node as Record<string, unknown>);
    for (const child of Object.values(node)) walk(child, depth + 1);
  };
  walk(copy, 0);
  if (byDepth.length === 0) return replacement;
  const level = byDepth[pick % byDepth.length]!;
  const holder = level[Math.floor(pick / byDepth.length) % level.length]!;
  const keys = Object.keys(holder);
  if (Array.isArray(holder)) {
    const index = keys.length === 0 ? 0 : pick % keys.length;
    if (how === 'drop') holder.splice(index, 1);
    else if (how === 'repeat' && holder.length > 0) holder.push(structuredClone(holder[index]));
    else if (how === 'add') holder.push(replacement);
    else holder[index] = replacement;
  } else {
    const key = keys.length === 0 ? 'x' : keys[pick % keys.length]!;
    if (how === 'drop') delete holder[key];
    else if (how === 'add') holder[`extra_${pick % 7}`] = replacement;
    else holder[key] = replacement;
  }
  return copy;
}

const hostileNumber = fc.constantFrom(
  ...HOSTILE_NUMBERS,
  Number.MAX_SAFE_INTEGER,
  253_402_300_800_000,
  -8_640_000_000_000_000,
);

/** A snapshot is mostly numbers (instants, counters, versions, random state): they get their own hostile values. */
const snapshotMutation = fc.record({
  pick: fc.nat(),
  replacement: fc.oneof({ weight: 2, arbitrary: hostileNumber }, { weight: 1, arbitrary: hostileValue }),
  how: fc.constantFrom('replace' as const, 'replace' as const, 'drop' as const, 'add' as const, 'repeat' as const),
});

const mutation = fc.record({
  pick: fc.nat(),
  replacement: hostileValue,
  how: fc.constantFrom('replace' as const, 'drop' as const, 'add' as const, 'repeat' as const),
});

/** A body built from `template`: as is, mutated once or twice, or replaced by something that is not it at all. */
function bodyFrom(template: unknown): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(JSON.stringify(template)) },
    { weight: 5, arbitrary: mutation.map((m) => JSON.stringify(mutate(template, m.pick, m.replacement, m.how))) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(mutation, mutation)
        .map(([a, b]) =>
          JSON.stringify(mutate(mutate(template, a.pick, a.replacement, a.how), b.pick, b.replacement, b.how)),
        ),
    },
    { weight: 1, arbitrary: hostileValue.map((v) => JSON.stringify(v) ?? 'null') },
    {
      weight: 1,
      arbitrary: fc.constantFrom<string | undefined>(
        undefined,
        '',
        '{',
        '{"a":',
        'null',
        '[]',
        '"\\ud800"',
        `{"a":${'['.repeat(10_000)}`,
        ' '.repeat(1_100_000),
        JSON.stringify({ pad: 'x'.repeat(1_100_000) }),
      ),
    },
  );
}

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'text/plain',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      '',
      'application/json, text/plain',
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

// ---------------------------------------------------------------------------------------------------------------
// Controls

interface ControlShape {
  readonly method: string;
  /** `:company` and `:id` are replaced by a real id or a hostile one. */
  readonly path: string;
  readonly body?: (world: FuzzWorld) => unknown;
}

const CONTROLS: readonly ControlShape[] = [
  { method: 'GET', path: '/_emulator' },
  { method: 'POST', path: '/_emulator/reset' },
  { method: 'GET', path: '/_emulator/companies' },
  {
    method: 'POST',
    path: '/_emulator/companies',
    body: () => ({
      name: 'Fuzz',
      cnpjRoot: '12345678',
      permissions: ['catalogo:ler'],
      subscriptionActive: true,
      surveillanceEntitled: true,
      surveillanceCapacity: 3,
      analysisAllowance: 1,
    }),
  },
  {
    method: 'POST',
    path: '/_emulator/companies',
    body: () => ({ name: 'Fuzz own', cnpjRoot: '12345679', clock: 'own', surveillanceCapacity: 2 }),
  },
  { method: 'GET', path: '/_emulator/companies/:company/clock' },
  { method: 'POST', path: '/_emulator/companies/:company/clock/advance', body: () => ({ by: '2h' }) },
  { method: 'POST', path: '/_emulator/companies/:company/clock/run-until-idle', body: () => ({ limit: 100 }) },
  {
    method: 'PATCH',
    path: '/_emulator/companies/:company',
    body: () => ({ subscriptionActive: false, surveillanceCapacity: 0, analysisAllowance: 2, name: 'Outra' }),
  },
  {
    method: 'POST',
    path: '/_emulator/companies/:company/credentials',
    body: () => ({ permissions: ['catalogo:ler', 'webhook:gerenciar'] }),
  },
  { method: 'POST', path: '/_emulator/companies/:company/events', body: () => ({ dados: { tipo: 'webhook.teste' } }) },
  // The receiver check: the routed receiver answers at once, so a check takes milliseconds.
  {
    method: 'POST',
    path: '/_emulator/webhooks/receiver-checks',
    body: () => ({
      url: `${HOOKS}/check`,
      secret: 'svc_whsec_fuzz',
      previousSecret: 'svc_whsec_fuzz_old',
      deadlineMs: 1500,
      cnpjRoot: '12345678',
    }),
  },
  {
    method: 'POST',
    path: '/_emulator/companies/:company/receiver-checks',
    body: () => ({ now: '2026-03-01T00:00:00.000Z', deadlineMs: 1500 }),
  },
  { method: 'GET', path: '/_emulator/companies/:company/receiver-checks/last' },
  { method: 'GET', path: '/_emulator/clock' },
  { method: 'POST', path: '/_emulator/clock/advance', body: () => ({ by: '1h' }) },
  { method: 'POST', path: '/_emulator/clock/advance', body: () => ({ to: '2026-03-01T00:00:00.000Z' }) },
  { method: 'POST', path: '/_emulator/clock/run-until-idle', body: () => ({ limit: 100 }) },
  { method: 'GET', path: '/_emulator/faults' },
  {
    method: 'POST',
    path: '/_emulator/faults',
    body: () => ({
      target: 'api',
      match: { method: 'PATCH', path: '/v1/produtos/*' },
      effect: { status: 503, retryAfter: 1 },
      times: 1,
    }),
  },
  {
    method: 'POST',
    path: '/_emulator/faults',
    body: () => ({ target: 'delivery', match: { url: `${HOOKS}/**` }, effect: { status: 500 }, times: 2 }),
  },
  {
    method: 'POST',
    path: '/_emulator/faults',
    body: () => ({ target: 'job', match: { kind: 'retencao_eventos' }, effect: { fail: true }, times: 1 }),
  },
  { method: 'DELETE', path: '/_emulator/faults' },
  { method: 'DELETE', path: '/_emulator/faults/:id' },
  { method: 'GET', path: '/_emulator/network/routes' },
  {
    method: 'POST',
    path: '/_emulator/network/routes',
    body: () => ({ from: 'https://other.fuzz.example/base', to: 'http://127.0.0.1:9/' }),
  },
  { method: 'DELETE', path: '/_emulator/network/routes?from=https%3A%2F%2Fother.fuzz.example%2Fbase' },
  { method: 'GET', path: '/_emulator/regulatory' },
  {
    method: 'POST',
    path: '/_emulator/regulatory/snapshots',
    body: () => ({
      adicionar: [{ codigo: '84713019', descricao: 'Outro' }],
      extinguir: [],
      atributos: [{ codigo: 'COR', nome: 'Cor' }],
    }),
  },
  { method: 'GET', path: '/_emulator/inbox' },
  { method: 'DELETE', path: '/_emulator/inbox' },
  { method: 'GET', path: '/_emulator/requests' },
  { method: 'GET', path: '/_emulator/faults?companyId=:company' },
  { method: 'DELETE', path: '/_emulator/inbox?companyId=:company' },
  { method: 'GET', path: '/_emulator/requests?companyId=:company&companyId=:id' },
  {
    method: 'GET',
    path: '/_emulator/requests?method=patch&path=/v1/**&status=4xx&from=2026-01-01&replayed=false&limit=5',
  },
  { method: 'GET', path: '/_emulator/requests?path=:id&codigo=:company' },
  { method: 'GET', path: '/_emulator/requests/count?status=:id&to=:company' },
  { method: 'GET', path: '/_emulator/companies/:company/journal/count?limit=:id' },
  { method: 'GET', path: '/_emulator/faults/:id/near-misses' },
  { method: 'GET', path: '/_emulator/companies/:company/faults/:id/near-misses' },
  { method: 'GET', path: '/_emulator/companies/:company/faults' },
  {
    method: 'POST',
    path: '/_emulator/companies/:company/faults',
    body: () => ({ target: 'api', match: { method: 'GET', path: '/v1/empresa' }, effect: { status: 503 }, times: 1 }),
  },
  { method: 'DELETE', path: '/_emulator/companies/:company/faults' },
  { method: 'DELETE', path: '/_emulator/companies/:company/faults/:id' },
  { method: 'GET', path: '/_emulator/companies/:company/inbox' },
  { method: 'DELETE', path: '/_emulator/companies/:company/journal' },
  { method: 'GET', path: '/_emulator/state' },
  { method: 'PUT', path: '/_emulator/state', body: (world) => world.emu.snapshot() },
  { method: 'POST', path: '/_emulator/explorations', body: () => ({ seed: 1, runs: 10, command: 'sync' }) },
  { method: 'GET', path: '/_emulator/explorations/last' },
  {
    method: 'POST',
    path: '/_emulator/explorations/:id/runs',
    body: () => ({
      phase: 'search',
      plan: [{ target: 'api', method: 'GET', path: '/v1/empresa', nth: 1, effect: 'status503' }],
      reasons: [{ kind: 'exit', message: 'exit 1' }],
    }),
  },
  {
    method: 'PUT',
    path: '/_emulator/explorations/:id/verdict',
    body: () => ({ runs: 1, passed: 1, failure: null, incomplete: null }),
  },
  { method: 'GET', path: '/_emulator/nothing-here' },
  { method: 'OPTIONS', path: '/_emulator/faults' },
];

function controlRequest(world: FuzzWorld): fc.Arbitrary<HostileRequest> {
  const id = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...world.ids, 'flt_1') },
    { weight: 1, arbitrary: fc.constantFrom('nobody', '%00', '..', 'x'.repeat(300), '%E0%A4%A', '%2F..%2F') },
  );
  return fc.constantFrom(...CONTROLS).chain((shape) =>
    fc
      .record({
        method: fc.oneof(
          { weight: 9, arbitrary: fc.constant(shape.method) },
          { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS') },
        ),
        company: id,
        id,
        body: shape.body
          ? bodyFrom(shape.body(world))
          : fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: bodyFrom({}) }),
        contentType,
        headers: extraHeaders,
      })
      .map(({ method, company, id: other, body, contentType: type, headers }) => ({
        plane: 'control' as const,
        method,
        path: shape.path.replace(':company', company).replace(':id', other),
        headers: { ...(type === undefined ? {} : { 'content-type': type }), ...headers },
        ...(body === undefined || method === 'GET' || method === 'HEAD' ? {} : { body }),
      })),
  );
}

const extraHeaders = fc.oneof(
  { weight: 6, arbitrary: fc.constant({}) },
  {
    weight: 1,
    arbitrary: fc.dictionary(
      fc.constantFrom(
        'origin',
        'x-forwarded-host',
        'authorization',
        'if-match',
        'if-none-match',
        'accept',
        'x-request-id',
        'content-encoding',
      ),
      fc.constantFrom('https://evil.example', 'Bearer x', '*', '"x"', 'W/"1"', 'gzip', 'null', 'a'.repeat(2_000)),
      { maxKeys: 2 },
    ),
  },
);

// ---------------------------------------------------------------------------------------------------------------
// API

const API_PATHS: readonly [string, string, unknown?][] = [
  ['GET', '/v1/empresa'],
  ['GET', '/v1/contexto'],
  ['GET', '/v1/empresa/capacidade'],
  ['POST', '/v1/estabelecimentos', { cnpj: '12345678000195', nome: 'Filial' }],
  ['GET', '/v1/estabelecimentos?limite=2'],
  ['PATCH', '/v1/estabelecimentos/:id', { nome: 'Outro' }],
  ['DELETE', '/v1/estabelecimentos/:id', {}],
  ['POST', '/v1/catalogos', { estabelecimento_id: ':id', nome: 'Novo' }],
  ['GET', '/v1/catalogos?limite=1&estado=ativo'],
  ['GET', '/v1/catalogos/:id'],
  ['PATCH', '/v1/catalogos/:id', { nome: 'Renomeado' }],
  ['GET', '/v1/catalogos/:id/impacto-exclusao'],
  ['DELETE', '/v1/catalogos/:id', {}],
  [
    'POST',
    '/v1/catalogos/:id/produtos',
    { origem: 'erp', ncm: '84713012', id_externo: 'novo', atributos: [{ codigo: 'COR', valores: ['azul'] }] },
  ],
  ['GET', '/v1/catalogos/:id/produtos?limite=1'],
  ['GET', '/v1/produtos?limite=1'],
  ['GET', '/v1/produtos/:id'],
  ['PATCH', '/v1/produtos/:id', { descricao: 'Outra', ncm: '84713012' }],
  ['GET', '/v1/empresa/vigilancia'],
  ['PATCH', '/v1/empresa/vigilancia', { modo: 'selecao', adicionar: [':id'], remover: [] }],
  ['GET', '/v1/vigilancias?limite=1'],
  ['GET', '/v1/vigilancias/:id/resultados'],
  ['POST', '/v1/analises', {}],
  ['GET', '/v1/analises?limite=1'],
  ['GET', '/v1/analises/:id'],
  ['GET', '/v1/webhook'],
  ['PUT', '/v1/webhook', { url: `${HOOKS}/outro` }],
  ['POST', '/v1/webhook/testes', {}],
  ['GET', '/v1/webhook/eventos?limite=1'],
  ['GET', '/v1/webhook/eventos/:id'],
  ['POST', '/v1/webhook/eventos/:id/reenvios', {}],
  ['POST', '/v1/catalogos/ingestoes', { operacao: 'mesclar', catalogo_id: ':id', referencia_externa: 'lote-1' }],
  ['GET', '/v1/nada'],
];

function apiRequest(world: FuzzWorld): fc.Arbitrary<HostileRequest> {
  const id = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...world.ids) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'nao-e-uuid',
        '00000000-0000-7000-8000-000000000000',
        '%00',
        '..%2F..',
        'x'.repeat(500),
        '%0A%1B%5B2J',
      ),
    },
  );
  const token = fc.constantFrom(world.token, world.token, world.readOnlyToken, 'nobody', '', 'x'.repeat(5_000));
  const key = fc.oneof(
    { weight: 4, arbitrary: fc.uuid().map((u) => `fuzz-${u}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', 'short', 'x'.repeat(300), 'with space in it ok?', '\u00e9'.repeat(20)),
    },
  );
  return fc.constantFrom(...API_PATHS).chain(([method, template, body]) =>
    fc
      .record({
        method: fc.oneof(
          { weight: 9, arbitrary: fc.constant(method) },
          {
            weight: 1,
            arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'PROPFIND'),
          },
        ),
        id,
        token,
        key: fc.option(key, { freq: 8 }),
        ifMatch: fc.option(fc.constantFrom('*', '"nope"', 'W/"1"', '"a", "b"', 'garbage'), { freq: 2 }),
        body: body === undefined ? fc.constant(undefined) : bodyFrom(body),
        contentType,
        headers: extraHeaders,
        query: fc.option(
          fc.constantFrom(
            '?limite=0',
            '?limite=abc',
            '?cursor=%FF',
            '?limite=1&limite=2',
            '?x=1',
            '?cursor=' + 'a'.repeat(3_000),
          ),
          { freq: 6 },
        ),
      })
      .map((r) => ({
        plane: 'api' as const,
        method: r.method,
        path: template.replace(':id', r.id) + (r.query ?? ''),
        headers: {
          authorization: `Bearer ${r.token}`,
          ...(r.key === null ? {} : { 'idempotency-key': r.key }),
          ...(r.ifMatch === null ? {} : { 'if-match': r.ifMatch }),
          ...(r.contentType === undefined ? {} : { 'content-type': r.contentType }),
          ...r.headers,
        },
        ...(r.body === undefined || r.method === 'GET' || r.method === 'HEAD'
          ? {}
          : { body: r.body.replaceAll('":id"', JSON.stringify(world.ids[2])) }),
      })),
  );
}

/** A snapshot of the world's current state with one or two hostile changes. */
function mutatedSnapshot(world: FuzzWorld): fc.Arbitrary<HostileRequest> {
  return fc.tuple(snapshotMutation, fc.option(snapshotMutation, { freq: 2 })).map(([first, second]) => {
    let snapshot: unknown = mutate(world.emu.snapshot(), first.pick, first.replacement, first.how);
    if (second) snapshot = mutate(snapshot, second.pick, second.replacement, second.how);
    return {
      plane: 'control' as const,
      method: 'PUT',
      path: '/_emulator/state',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(snapshot),
    };
  });
}

export function hostileRequest(world: FuzzWorld): fc.Arbitrary<HostileRequest> {
  return fc.oneof(
    { weight: 5, arbitrary: apiRequest(world) },
    { weight: 4, arbitrary: controlRequest(world) },
    { weight: 2, arbitrary: mutatedSnapshot(world) },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Invariants

export interface Violation {
  readonly request: HostileRequest;
  readonly problem: string;
}

/** What a refused API request must leave alone: all of the state but the request-id source. */
function apiView(world: FuzzWorld): string {
  const { requestRandom: _ids, ...rest } = world.emu.snapshot();
  return JSON.stringify(rest);
}
const controlView = (world: FuzzWorld): string => JSON.stringify(world.emu.snapshot());

/**
 * Sends one hostile request and checks the invariants; undefined when they hold. An accepted fault or route is
 * removed at once, and an accepted reset or restore is undone, so the next request meets the fuzz world again.
 */
export async function check(world: FuzzWorld, send: Send, request: HostileRequest): Promise<Violation | undefined> {
  const view = request.plane === 'api' ? apiView : controlView;
  const before = view(world);
  let answer: { status: number; text: string };
  try {
    answer = await send(request);
  } catch (error) {
    return { request, problem: (error as Error).message };
  }
  if (answer.status >= 500) return { request, problem: `answered ${answer.status}: ${answer.text.slice(0, 300)}` };
  if (answer.status >= 400) {
    const after = view(world);
    if (after !== before)
      return { request, problem: `refused with ${answer.status} yet changed the state: ${answer.text.slice(0, 300)}` };
  }
  if (answer.status < 300) {
    // An accepted fault, route or company change is the run's own doing: undo it so it can't cause a 5xx later.
    world.emu.faults.clear();
    world.emu.network.clear();
    world.emu.network.route(HOOKS, () => new Response('ok'));
    if (request.plane === 'control' && request.method !== 'GET') world.emu.restore(world.base);
  }
  return undefined;
}

/** A Send over emu.fetch, with the HANG_MS limit. */
export function inProcessSend(world: FuzzWorld): Send {
  return async (request) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const hang = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${HANG_MS} ms`)), HANG_MS);
    });
    try {
      const response = await Promise.race([
        world.emu.fetch(request.path, {
          method: request.method,
          headers: request.headers,
          ...(request.body === undefined ? {} : { body: request.body }),
        }),
        hang,
      ]);
      const text = await Promise.race([response.text(), hang]);
      return { status: response.status, text };
    } finally {
      clearTimeout(timer);
    }
  };
}
