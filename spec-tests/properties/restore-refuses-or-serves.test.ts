/**
 * Property: a restore either refuses the snapshot and changes nothing, or accepts it and serves it.
 *
 * A real snapshot of a varied state (two companies; establishments, catalogs, a deleted one, products, links,
 * a surveillance selection, executions, analyses, a CNPJ correction, ingestions applied and open, a webhook
 * destination with delivered and failing events, a published regulatory reference, idempotent answers, and tasks
 * of every kind on the clock) is mutated at nodes picked by their shape, so every field of every kind of record is
 * as likely: replaced with hostile values (instants out of the clock's range, huge, negative and fractional numbers,
 * 0, wrong types, empty strings, CR/LF and NUL, unknown task kinds), with the value the same field has elsewhere,
 * nudged, deleted, duplicated, given an extra key, or an id swapped for another id of the snapshot. The named
 * attacks (now 8640000000000001, an unknown task kind, everyMs 0, a stored answer's status 0 or a CR/LF header,
 * record times out of range) run first. PUT /_emulator/state with it must then either answer 4xx and leave
 * GET /_emulator/state, the faults, the routes and the journal byte-identical, or answer 200, after which a fixed
 * battery (every list and get of the API for each company of the snapshot, every state-changing request of the
 * setup again with its key, the state, the clock, an advance of a day and run-until-idle) answers below 500 every
 * time, and the state it became restores again.
 *
 * 1,000 runs in CI (about 15 s); PROPERTY_RUNS_SCALE raises them.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { Api, type Answer } from '../support/client.js';
import type { Target } from '../support/target.js';
import { cnpjOfNumber } from '../support/cnpj.js';
import { lab, PROPERTY_TIMEOUT, runs, type Lab } from './support/lab.js';

const NCM = '84713012';
const HOOK = 'https://hooks-restore.example.com';
const LATEST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Snapshot = { [key: string]: Json };

/** Answers below 2xx or above 299 fail the setup: it builds a state, it does not test it. */
function must(answer: Answer, what: string): Answer {
  if (answer.status >= 300) throw new Error(`${what} answered ${answer.status}: ${answer.text}`);
  return answer;
}

/** A state-changing API request as the setup sent it, to send again (same credential, key and body): a replay. */
interface Sent {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** Two companies with something of every kind, and tasks of every kind still on the clock; returns the requests that stored an answer. */
async function varied(l: Lab): Promise<Sent[]> {
  const { controls, emu } = l;
  const sent: Sent[] = [];
  const recording: Target = {
    ...l.target,
    fetch: async (path, init) => {
      const answer = await l.target.fetch(path, init);
      const method = init?.method ?? 'GET';
      if (method !== 'GET' && answer.status < 300)
        sent.push({
          method,
          path,
          headers: { ...(init?.headers as Record<string, string>) },
          ...(typeof init?.body === 'string' ? { body: init.body } : {}),
        });
      return answer;
    },
  };
  const api = new Api(recording, l.company.token);
  // Failed deliveries stay on the clock as retries; the other host's deliveries reach the built-in receiver.
  emu.network.route(`${HOOK}/falha`, () => new Response('no', { status: 500 }));
  await controls.addFault({ target: 'api', match: { path: '/v1/nada' }, effect: { status: 503 }, times: null });
  must(
    await controls.raw('POST', '/regulatory/snapshots', {
      extinguir: ['02011000'],
      atributos: [{ codigo: 'ATT_9001', nome: 'cor', dominio: ['azul', 'verde'] }],
    }),
    'publication',
  );

  const hook = must(
    await api.put('/v1/webhook', { url: `${HOOK}/falha` }, { headers: { 'if-none-match': '*' } }),
    'webhook destination',
  );
  must(await api.post('/v1/webhook/testes', undefined, { ifMatch: hook.headers.get('etag')! }), 'test event');
  const branch = must(
    await api.post('/v1/estabelecimentos', { cnpj: cnpjOfNumber(l.company.cnpjRoot, 2), nome: 'Filial' }),
    'branch',
  );
  const head = must(
    await api.post('/v1/catalogos', { estabelecimento_id: l.company.headOffice.id, nome: 'Matriz' }),
    'head office catalog',
  ).body.id as string;
  const second = must(
    await api.post('/v1/catalogos', { estabelecimento_id: branch.body.id, nome: 'Filial', id_externo: 'cat-filial' }),
    'branch catalog',
  ).body.id as string;
  const products: string[] = [];
  for (let i = 0; i < 4; i++) {
    const fields = {
      origem: 'erp',
      ncm: i === 3 ? '02011000' : NCM,
      id_externo: `p-${i}`,
      sku: `S${i}`,
      ...(i === 1 ? { atributos: [{ codigo: 'ATT_9001', valores: ['roxo'] }] } : {}),
    };
    products.push(
      must(await api.post(`/v1/catalogos/${i % 2 === 0 ? head : second}/produtos`, fields), `product ${i}`).body
        .id as string,
    );
  }
  const shared = must(await api.get(`/v1/produtos/${products[0]}`), 'product read');
  must(
    await api.put(`/v1/catalogos/${second}/produtos/${products[0]}`, undefined, {
      ifMatch: shared.headers.get('etag')!,
    }),
    'link',
  );
  const selection = must(await api.get('/v1/empresa/vigilancia'), 'selection read');
  must(
    await api.patch(
      '/v1/empresa/vigilancia',
      { modo: 'selecao', adicionar: products.slice(0, 3) },
      { ifMatch: selection.headers.get('etag')! },
    ),
    'selection',
  );

  // A catalog deleted with its exclusive product (inactive afterwards).
  const branch3 = must(
    await api.post('/v1/estabelecimentos', { cnpj: cnpjOfNumber(l.company.cnpjRoot, 3), nome: 'Outra' }),
    'third establishment',
  );
  const doomed = must(
    await api.post('/v1/catalogos', { estabelecimento_id: branch3.body.id, nome: 'Fim' }),
    'doomed catalog',
  ).body.id as string;
  must(
    await api.post(`/v1/catalogos/${doomed}/produtos`, { origem: 'erp', ncm: NCM, id_externo: 'p-fim' }),
    'doomed product',
  );
  const impact = must(await api.get(`/v1/catalogos/${doomed}/impacto-exclusao`), 'deletion preview');
  must(await api.delete(`/v1/catalogos/${doomed}`, undefined, { ifMatch: impact.headers.get('etag')! }), 'deletion');

  // An ingestion applied, then another left open with a batch (its expiry on the clock).
  const applied = must(
    await api.post('/v1/catalogos/ingestoes', { operacao: 'substituicao_catalogo', catalogo_id: second }),
    'ingestion',
  ).body.ingestao_id as string;
  must(
    await api.put(`/v1/catalogos/ingestoes/${applied}/lotes/1`, {
      itens: [
        { id_externo: 'p-1', origem: 'erp', ncm: NCM, sku: 'novo' },
        { id_externo: 'p-9', origem: 'erp', ncm: NCM },
        { id_externo: '' },
      ],
    }),
    'batch',
  );
  must(await api.post(`/v1/catalogos/ingestoes/${applied}/fechamento`, { total_lotes: 1 }), 'closing');
  await controls.advance('1m');
  const validated = must(await api.get(`/v1/catalogos/ingestoes/${applied}`), 'validated ingestion');
  if (validated.body.estado === 'validada')
    must(
      await api.post(`/v1/catalogos/ingestoes/${applied}/aplicacao`, {}, { ifMatch: validated.headers.get('etag')! }),
      'application',
    );
  await controls.advance('1m');
  const open = must(
    await api.post('/v1/catalogos/ingestoes', { operacao: 'mesclar', catalogo_id: head, referencia_externa: 'aberta' }),
    'open ingestion',
  ).body.ingestao_id as string;
  must(
    await api.put(`/v1/catalogos/ingestoes/${open}/lotes/2`, {
      itens: [{ id_externo: 'p-0', origem: 'erp', ncm: NCM }],
    }),
    'open batch',
  );

  // A day passes: the daily execution runs; then an analysis concludes, another waits, and a correction is pending.
  await controls.advance('1d');
  must(await api.post('/v1/analises', {}), 'analysis');
  await controls.advance('10m');
  must(await api.post('/v1/analises', {}), 'waiting analysis');
  const office = must(await api.get(`/v1/estabelecimentos/${branch3.body.id}`), 'establishment read');
  must(
    await api.post(
      `/v1/estabelecimentos/${branch3.body.id}/correcoes-cnpj`,
      { cnpj_novo: cnpjOfNumber(l.company.cnpjRoot, 4), motivo: 'erro' },
      { ifMatch: office.headers.get('etag')! },
    ),
    'correction',
  );
  // A second company with a delivered event and products, for ids to swap across companies.
  const other = await controls.createCompany({ surveillanceCapacity: 1 });
  const otherApi = new Api(recording, other.token);
  const otherHook = must(
    await otherApi.put('/v1/webhook', { url: `${HOOK}/ok` }, { headers: { 'if-none-match': '*' } }),
    'second destination',
  );
  must(
    await otherApi.post('/v1/webhook/testes', undefined, { ifMatch: otherHook.headers.get('etag')! }),
    'second test event',
  );
  const otherCatalog = must(
    await otherApi.post('/v1/catalogos', { estabelecimento_id: other.headOffice.id, nome: 'B' }),
    'second catalog',
  ).body.id as string;
  must(
    await otherApi.post(`/v1/catalogos/${otherCatalog}/produtos`, { origem: 'erp', ncm: NCM, id_externo: 'p-0' }),
    'second product',
  );
  await controls.advance('30s');
  // Work left on the clock: a validation, a delivery retry (and the analysis start and correction review above).
  const closing = must(
    await api.post('/v1/catalogos/ingestoes', { operacao: 'mesclar', catalogo_id: second }),
    'validating ingestion',
  ).body.ingestao_id as string;
  must(
    await api.put(`/v1/catalogos/ingestoes/${closing}/lotes/1`, {
      itens: [{ id_externo: 'p-3', origem: 'erp', ncm: NCM }],
    }),
    'validating batch',
  );
  must(await api.post(`/v1/catalogos/ingestoes/${closing}/fechamento`, { total_lotes: 1 }), 'validating close');
  must(await api.post('/v1/webhook/testes', undefined, { ifMatch: hook.headers.get('etag')! }), 'failing test event');
  await controls.advance(500);
  return sent;
}

/** Values that break what a careless restore would take as is. */
const HOSTILE: readonly Json[] = [
  8640000000000001,
  -8640000000000001,
  LATEST_INSTANT + 1,
  -1,
  0,
  1,
  0.5,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  1e308,
  -1e308,
  59_999,
  100,
  204,
  600,
  null,
  true,
  false,
  '',
  ' ',
  'x',
  'a\r\nb',
  'a\u0000b',
  '\n',
  'NaN',
  '1970-01-01T00:00:00.000Z',
  'nada',
  'sleep',
  '__proto__',
  'content-length',
  {},
  [],
  [null],
  { x: 1 },
  [1, 2],
];

type Action = 'replace' | 'delete' | 'duplicate' | 'swapId' | 'sibling' | 'nudge' | 'otherKind' | 'addKey';

/**
 * One change of the snapshot: at a node picked by its shape (its path with indexes as `*`, so that every field
 * of every kind of record is as likely as any other, whatever the number of records), one instance of it.
 */
interface Mutation {
  readonly shape: number;
  readonly instance: number;
  readonly action: Action;
  readonly pick: number;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  shape: fc.nat(),
  instance: fc.nat(),
  action: fc.constantFrom<Action>(
    'replace',
    'replace',
    'replace',
    'delete',
    'duplicate',
    'swapId',
    'swapId',
    'sibling',
    'sibling',
    'sibling',
    'nudge',
    'nudge',
    'otherKind',
    'addKey',
  ),
  pick: fc.nat(),
});

type Path = readonly (string | number)[];
const shapeOf = (path: Path): string => path.map((p) => (typeof p === 'number' ? '*' : p)).join('.');

/** What mutations draw from: every node by shape, every id, every task kind, and the values each shape holds. */
interface Pool {
  readonly shapes: readonly (readonly Path[])[];
  readonly names: readonly string[];
  readonly ids: readonly string[];
  readonly kinds: readonly string[];
  readonly values: ReadonlyMap<string, readonly Json[]>;
}

function pool(snapshot: Snapshot): Pool {
  const nodes = new Map<string, Path[]>();
  const ids = new Set<string>();
  const values = new Map<string, Json[]>();
  const visit = (value: Json, path: (string | number)[]): void => {
    const shape = shapeOf(path);
    if (path.length > 0) nodes.set(shape, [...(nodes.get(shape) ?? []), path]);
    if (value !== null && typeof value === 'object') {
      for (const [k, v] of Array.isArray(value) ? value.entries() : Object.entries(value)) visit(v, [...path, k]);
      return;
    }
    if (typeof value === 'string' && UUID.test(value)) ids.add(value);
    const seen = values.get(shape) ?? [];
    if (!seen.includes(value)) seen.push(value);
    values.set(shape, seen);
  };
  visit(snapshot, []);
  const names = [...nodes.keys()];
  return {
    shapes: names.map((n) => nodes.get(n)!),
    names,
    ids: [...ids],
    kinds: [...new Set((snapshot.tasks as { kind: string }[]).map((t) => t.kind))],
    values,
  };
}

function apply(snapshot: Snapshot, m: Mutation, { shapes, ids, kinds, values }: Pool): string {
  const instances = shapes[m.shape % shapes.length]!;
  const path = instances[m.instance % instances.length]!;
  let container = snapshot as Json;
  for (const part of path.slice(0, -1)) {
    // An earlier mutation may have replaced or removed an ancestor.
    if (container === null || typeof container !== 'object') return `(${path.join('.')} gone)`;
    container = (container as Record<string | number, Json>)[part]!;
  }
  if (container === null || typeof container !== 'object') return `(${path.join('.')} gone)`;
  const key = path[path.length - 1]!;
  const parent = container as Record<string | number, Json>;
  const list = Array.isArray(container) ? container : undefined;
  switch (m.action) {
    case 'replace':
      parent[key] = structuredClone(HOSTILE[m.pick % HOSTILE.length]!);
      break;
    case 'delete':
      if (list) list.splice(key as number, 1);
      else delete parent[key];
      break;
    case 'duplicate':
      if (list) list.splice(key as number, 0, structuredClone(list[key as number]!));
      else parent[key] = [structuredClone(parent[key]!)];
      break;
    case 'swapId':
      parent[key] = ids[m.pick % ids.length]!;
      break;
    case 'sibling': {
      // The value the same field has elsewhere: plausible, and wrong here.
      const current = JSON.stringify(parent[key]);
      const others = (values.get(shapeOf(path)) ?? []).filter((v) => JSON.stringify(v) !== current);
      if (others.length > 0) parent[key] = structuredClone(others[m.pick % others.length]!);
      break;
    }
    case 'nudge': {
      const value = parent[key];
      if (typeof value === 'number')
        parent[key] = value + [1, -1, 2, 1000, -1000, 86_400_000, -86_400_000][m.pick % 7]!;
      else if (typeof value === 'boolean') parent[key] = !value;
      else if (typeof value === 'string')
        parent[key] = [`${value}x`, value.slice(1), value.toUpperCase(), `${value}\r\n`][m.pick % 4]!;
      else parent[key] = HOSTILE[m.pick % HOSTILE.length]!;
      break;
    }
    case 'otherKind':
      parent[key] = kinds[m.pick % kinds.length]!;
      break;
    case 'addKey': {
      // A key the record does not have (own, even "__proto__", as JSON.parse makes it), on the node or else beside it.
      const node = parent[key];
      const target =
        node !== null && typeof node === 'object' && !Array.isArray(node) ? node : list ? undefined : parent;
      if (target)
        Object.defineProperty(target, ['payload', 'everyMs', 'extra', '__proto__'][m.pick % 4]!, {
          value: structuredClone(HOSTILE[m.pick % HOSTILE.length]!),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      break;
    }
  }
  return `${m.action} ${path.join('.')}`;
}

/** The named attacks, as mutations that run first: each must be refused. */
function attacks(p: Pool): Mutation[][] {
  const at = (shape: string, instance: number, action: Action, value?: Json): Mutation[] => {
    const index = p.names.indexOf(shape);
    if (index < 0) throw new Error(`no ${shape} in the snapshot`);
    return [{ shape: index, instance, action, pick: value === undefined ? 0 : HOSTILE.indexOf(value) }];
  };
  const periodic = p.shapes[p.names.indexOf('tasks.*.everyMs')]!.length;
  return [
    at('now', 0, 'replace', 8640000000000001),
    at('tasks.*.kind', 0, 'replace', 'nada'),
    ...Array.from({ length: periodic }, (_, i) => at('tasks.*.everyMs', i, 'replace', 0)),
    at('state.idempotency.*.status', 0, 'replace', 0),
    at('state.idempotency.*.etag', 0, 'replace', 'a\r\nb'),
    at('state.idempotency.*.headers.ratelimit', 0, 'replace', 'a\r\nb'),
    at('state.products.*.criadoEm', 0, 'replace', 8640000000000001),
    at('state.webhookEvents.*.attempts.*.iniciadaEm', 0, 'replace', -1),
  ];
}

/** The records of a company in the snapshot, by collection (as far as the mutated snapshot still has them). */
function recordsOf(snapshot: Snapshot, companyId: string, collection: string): string[] {
  const state = snapshot.state as Record<string, Json> | undefined;
  const records = state?.[collection];
  if (!Array.isArray(records)) return [];
  return records.flatMap((r) =>
    r !== null &&
    typeof r === 'object' &&
    !Array.isArray(r) &&
    r.companyId === companyId &&
    typeof r.id === 'string' &&
    UUID.test(r.id)
      ? [r.id]
      : [],
  );
}

interface Call {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** Every read of the API for each company that has a credential, then every state-changing request of the setup again: the replay of its stored answer. */
function battery(snapshot: Snapshot, replays: readonly Sent[]): Call[] {
  const state = (snapshot.state ?? {}) as Record<string, Json>;
  const credentials = Array.isArray(state.credentials) ? state.credentials : [];
  const calls: Call[] = [];
  const seen = new Set<string>();
  for (const credential of credentials) {
    if (credential === null || typeof credential !== 'object' || Array.isArray(credential)) continue;
    const { token, companyId } = credential;
    if (
      typeof token !== 'string' ||
      typeof companyId !== 'string' ||
      seen.has(companyId) ||
      !/^[\x21-\x7e]+$/.test(token)
    )
      continue;
    seen.add(companyId);
    const get = (path: string) => calls.push({ method: 'GET', path, headers: { authorization: `Bearer ${token}` } });
    for (const path of [
      '/v1/empresa',
      '/v1/contexto',
      '/v1/empresa/capacidade',
      '/v1/empresa/vigilancia',
      '/v1/empresa/vigilancia/produtos',
      '/v1/estabelecimentos',
      '/v1/catalogos',
      '/v1/produtos',
      '/v1/analises',
      '/v1/vigilancias',
      '/v1/webhook',
      '/v1/webhook/eventos',
    ])
      get(path);
    for (const id of recordsOf(snapshot, companyId, 'establishments')) get(`/v1/estabelecimentos/${id}`);
    for (const id of recordsOf(snapshot, companyId, 'catalogs'))
      for (const tail of ['', '/produtos', '/impacto-exclusao']) get(`/v1/catalogos/${id}${tail}`);
    for (const id of recordsOf(snapshot, companyId, 'products')) get(`/v1/produtos/${id}`);
    for (const id of recordsOf(snapshot, companyId, 'cnpjCorrections')) get(`/v1/correcoes-cnpj/${id}`);
    for (const id of recordsOf(snapshot, companyId, 'analyses'))
      for (const tail of ['', '/achados', '/resultado.csv']) get(`/v1/analises/${id}${tail}`);
    for (const id of recordsOf(snapshot, companyId, 'executions'))
      for (const tail of ['', '/resultados', '/resultados.csv']) get(`/v1/vigilancias/${id}${tail}`);
    for (const id of recordsOf(snapshot, companyId, 'ingestions')) get(`/v1/catalogos/ingestoes/${id}`);
    for (const id of recordsOf(snapshot, companyId, 'webhookEvents'))
      for (const tail of ['', '/tentativas']) get(`/v1/webhook/eventos/${id}${tail}`);
  }
  return [...calls, ...replays];
}

describe('restore', () => {
  let l: Lab;
  let base: Snapshot;
  let mutable: Pool;
  let replays: Sent[];

  beforeAll(async () => {
    l = lab();
    replays = await varied(l);
    base = l.emu.snapshot() as unknown as Snapshot;
    mutable = pool(base);
  }, PROPERTY_TIMEOUT);

  it('the varied state has something of every kind, and its own snapshot restores', async () => {
    const state = base.state as Record<string, Json[]>;
    for (const collection of [
      'companies',
      'credentials',
      'establishments',
      'catalogs',
      'products',
      'links',
      'idempotency',
      'webhookDestinations',
      'webhookEvents',
      'cnpjCorrections',
      'analyses',
      'executions',
      'ingestions',
      'evaluations',
      'analysisUnitsUsed',
      'surveillance',
      'webhookSends',
    ]) {
      expect(state[collection]!.length, collection).toBeGreaterThan(0);
    }
    expect((state.regulatory as unknown as { table: unknown }).table).not.toBeNull();
    expect([...mutable.kinds].sort()).toEqual([
      'analise.inicio',
      'cnpj.revisao',
      'housekeeping.idempotency',
      'ingestao.expiracao',
      'ingestao.validacao',
      'vigilancia.diaria',
      'webhook.retencao',
      'webhook.tentativa',
    ]);
    const put = await l.controls.raw('PUT', '/state', base);
    expect(put.status, put.text).toBe(200);
    expect((await l.controls.raw('GET', '/state')).body).toEqual(base);
  });

  it('refuses a snapshot (4xx, nothing changed) or serves it (no 5xx afterwards)', {
    timeout: PROPERTY_TIMEOUT,
  }, async () => {
    const controls = async () =>
      Promise.all(
        ['/state', '/faults', '/network/routes', '/requests'].map(
          async (path) => (await l.controls.raw('GET', path)).text,
        ),
      );
    // What the controls read for the base state; only a run that was accepted moves away from it.
    let before: string[] = [];
    let moved = true;
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (mutations) => {
        if (moved) {
          l.emu.restore(base);
          l.emu.journal.clear();
          before = await controls();
          moved = false;
        }
        const snapshot = structuredClone(base);
        const applied = mutations.map((m) => apply(snapshot, m, mutable));
        const put = await l.target.fetch('/_emulator/state', {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(snapshot),
        });
        const text = await put.text();
        moved = true;
        expect(put.status, `${applied.join('; ')} → ${text}`).toBeLessThan(500);
        if (put.status !== 200) {
          expect(put.status, text).toBeGreaterThanOrEqual(400);
          expect(await controls(), `${applied.join('; ')} was refused (${text}) yet changed something`).toEqual(before);
          moved = false;
          return;
        }
        for (const call of battery(snapshot, replays)) {
          const answer = await l.target.fetch(call.path, {
            method: call.method,
            headers: call.headers,
            ...(call.body === undefined ? {} : { body: call.body }),
          });
          // The message is written only for a failure: the battery is long and the property runs it a thousand times.
          if (answer.status >= 500)
            expect.fail(`${applied.join('; ')}: ${call.method} ${call.path} → ${answer.status} ${await answer.text()}`);
        }
        for (const [method, path, body] of [
          ['GET', '/state'],
          ['GET', '/clock'],
          ['GET', '/regulatory'],
          ['GET', '/companies'],
          ['POST', '/clock/advance', { by: '1d' }],
          ['POST', '/clock/run-until-idle', {}],
          ['GET', '/state'],
        ] as const) {
          const answer = await l.controls.raw(method, path, body);
          expect(answer.status, `${applied.join('; ')}: ${method} /_emulator${path} → ${answer.text}`).toBeLessThan(
            500,
          );
        }
        // What the accepted snapshot became is itself a snapshot this emulator restores.
        const again = await l.controls.raw('PUT', '/state', (await l.controls.raw('GET', '/state')).body);
        expect(again.status, `${applied.join('; ')}: the state it became is refused: ${again.text}`).toBe(200);
      }),
      { numRuns: runs(1000), examples: attacks(mutable).map((m) => [m]) },
    );
  });
});
