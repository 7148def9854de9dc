/**
 * The examples of the OpenAPI document, recorded from the emulator itself: one deterministic scenario (fixed seed,
 * manual clock) that calls every operation of the API in the order an integrator would — company, establishments,
 * catalogs, products, surveillance, analyses, ingestion, surveillance executions, webhook, CNPJ correction,
 * catalog deletion — and keeps, per operation, the request it sent and the success it got. `npm run openapi`
 * writes them to src/openapi/examples.ts, which the document reads; a unit test checks that file equals what
 * this records now, so an example is never older than the behaviour it shows.
 *
 * A user of the package: it imports only the public entry, and reaches everything through emu.fetch and the
 * clock, as the examples of the docs do.
 */
import { cnpjCheckDigits, createEmulator, type apiDocument } from '../src/index.js';

export type OperationExamples = NonNullable<Parameters<typeof apiDocument>[0]>;
type OperationExample = OperationExamples[string];

/**
 * Every operation of the API, as `METHOD /path/{template}`: the spec's "Endpoints" and the paths docs/api.md
 * gives the operations it leaves unshown. The recorder fails unless each is recorded; a unit test keeps the list equal
 * to the operation table.
 */
export const OPERATIONS = [
  'GET /v1/empresa',
  'GET /v1/contexto',
  'GET /v1/empresa/capacidade',
  'POST /v1/estabelecimentos',
  'GET /v1/estabelecimentos',
  'GET /v1/estabelecimentos/{id}',
  'PATCH /v1/estabelecimentos/{id}',
  'DELETE /v1/estabelecimentos/{id}',
  'POST /v1/estabelecimentos/{id}/correcoes-cnpj',
  'GET /v1/correcoes-cnpj/{id}',
  'POST /v1/catalogos',
  'GET /v1/catalogos',
  'GET /v1/catalogos/{id}',
  'PATCH /v1/catalogos/{id}',
  'GET /v1/catalogos/{id}/impacto-exclusao',
  'DELETE /v1/catalogos/{id}',
  'POST /v1/catalogos/{id}/produtos',
  'GET /v1/catalogos/{id}/produtos',
  'PUT /v1/catalogos/{id}/produtos/{produto_id}',
  'DELETE /v1/catalogos/{id}/produtos/{produto_id}',
  'GET /v1/produtos',
  'GET /v1/produtos/{id}',
  'PATCH /v1/produtos/{id}',
  'GET /v1/empresa/vigilancia',
  'PATCH /v1/empresa/vigilancia',
  'GET /v1/empresa/vigilancia/produtos',
  'GET /v1/vigilancias',
  'GET /v1/vigilancias/{id}',
  'GET /v1/vigilancias/{id}/resultados',
  'GET /v1/vigilancias/{id}/resultados.csv',
  'POST /v1/analises',
  'GET /v1/analises',
  'GET /v1/analises/{id}',
  'GET /v1/analises/{id}/achados',
  'GET /v1/analises/{id}/resultado.csv',
  'POST /v1/catalogos/ingestoes',
  'GET /v1/catalogos/ingestoes/{id}',
  'PUT /v1/catalogos/ingestoes/{id}/lotes/{numero}',
  'POST /v1/catalogos/ingestoes/{id}/fechamento',
  'POST /v1/catalogos/ingestoes/{id}/aplicacao',
  'PUT /v1/webhook',
  'GET /v1/webhook',
  'DELETE /v1/webhook',
  'POST /v1/webhook/testes',
  'GET /v1/webhook/eventos',
  'GET /v1/webhook/eventos/{id}',
  'GET /v1/webhook/eventos/{id}/tentativas',
  'POST /v1/webhook/eventos/{id}/reenvios',
] as const;

type OperationKey = (typeof OPERATIONS)[number];

interface Call {
  /** The values of the template's `{name}` parameters. */
  readonly params?: Readonly<Record<string, string>>;
  /** The query string, without `?`. */
  readonly query?: string;
  /** The JSON body; a mutation that takes no fields sends `{}` (spec "Common rules"). */
  readonly body?: unknown;
  readonly ifMatch?: string;
  readonly ifNoneMatch?: '*';
}

interface Answer {
  readonly status: number;
  readonly etag: string;
  /** The JSON body, read loosely: the scenario takes ids from it. */
  readonly body: any;
}

/** The fixed world of the scenario: same seed, same start, same calls, so the same bytes every time. */
const SEED = 1;
const CNPJ_ROOT = '11222333';
const cnpj = (order: string) => `${CNPJ_ROOT}${order}${cnpjCheckDigits(`${CNPJ_ROOT}${order}`)}`;

/** Records the scenario's examples; throws naming the operation that failed and every one left unrecorded. */
export async function recordExamples(): Promise<OperationExamples> {
  const emu = createEmulator({ seed: SEED, clock: 'manual' });
  const company = emu.companies.create({ cnpjRoot: CNPJ_ROOT, name: 'Cafés Acme Ltda' });
  const recorded = new Map<OperationKey, OperationExample>();
  let keys = 0;

  const send = async (key: OperationKey, call: Call, record: boolean): Promise<Answer> => {
    const [method, template] = key.split(' ') as [string, string];
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = call.params?.[name];
      if (value === undefined) throw new Error(`${key}: no value for {${name}}`);
      return value;
    });
    const target = call.query === undefined ? path : `${path}?${call.query}`;
    const headers: Record<string, string> = {};
    // One key per request (spec "Common rules"), readable and deterministic.
    if (method !== 'GET') headers['idempotency-key'] = `examples-request-${String(++keys).padStart(4, '0')}`;
    if (call.ifMatch !== undefined) headers['if-match'] = call.ifMatch;
    if (call.ifNoneMatch !== undefined) headers['if-none-match'] = call.ifNoneMatch;
    const response = await emu.fetch(target, {
      method,
      headers: {
        authorization: `Bearer ${company.token}`,
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
    });
    const text = await response.text();
    if (response.status < 200 || response.status > 299)
      throw new Error(`${key} (${method} ${target}) answered ${response.status}: ${text}`);
    const csv = (response.headers.get('content-type') ?? '').startsWith('text/csv');
    const body: unknown = csv || text === '' ? undefined : JSON.parse(text);
    if (record) {
      if (recorded.has(key)) throw new Error(`${key} is recorded twice: send the other call with send()`);
      recorded.set(key, {
        request: {
          path: target,
          ...(Object.keys(headers).length > 0 ? { headers } : {}),
          ...(call.body === undefined ? {} : { body: call.body }),
        },
        response: { status: response.status, ...(csv ? { csv: text } : body === undefined ? {} : { body }) },
      });
    }
    return { status: response.status, etag: response.headers.get('etag') ?? '', body };
  };
  /** The call whose request and answer are the operation's example (one per operation). */
  const example = (key: OperationKey, call: Call = {}) => send(key, call, true);
  /** A call the scenario needs but does not show (a second catalog, a product to share). */
  const setup = (key: OperationKey, call: Call = {}) => send(key, call, false);

  try {
    // The company: who the credential is, what it may do, what is left of its capacity.
    await example('GET /v1/empresa');
    await example('GET /v1/contexto');
    await example('GET /v1/empresa/capacidade');

    // A branch beside the head office.
    const branch = await example('POST /v1/estabelecimentos', {
      body: { cnpj: cnpj('0002'), nome: 'Filial Centro', id_externo: 'LOJA-02' },
    });
    await example('GET /v1/estabelecimentos');
    await example('GET /v1/estabelecimentos/{id}', { params: { id: branch.body.id } });
    await example('PATCH /v1/estabelecimentos/{id}', {
      params: { id: branch.body.id },
      body: { nome: 'Filial Centro Histórico' },
      ifMatch: branch.etag,
    });

    // A catalog per establishment.
    const store = await example('POST /v1/catalogos', {
      body: { estabelecimento_id: company.headOffice.id, nome: 'Loja virtual', id_externo: 'ERP-CAT-01' },
    });
    const branchCatalog = await setup('POST /v1/catalogos', {
      body: { estabelecimento_id: branch.body.id, nome: 'Filial Centro' },
    });
    await example('GET /v1/catalogos', { query: 'estado=ativo' });
    await example('GET /v1/catalogos/{id}', { params: { id: store.body.id } });
    await example('PATCH /v1/catalogos/{id}', {
      params: { id: store.body.id },
      body: { nome: 'Loja virtual (matriz)' },
      ifMatch: store.etag,
    });

    // Products: the coffee misses a required attribute (a finding later), the rice is complete.
    const coffee = await example('POST /v1/catalogos/{id}/produtos', {
      params: { id: store.body.id },
      body: {
        origem: 'erp',
        id_externo: 'CAFE-500',
        sku: 'CAFE-500G',
        descricao: 'Café torrado em grãos 500 g',
        ncm: '09012100',
        atributos: [
          { codigo: 'ATT_0024', valores: ['média'] },
          { codigo: 'ATT_0025', valores: ['grão'] },
        ],
      },
    });
    const rice = await setup('POST /v1/catalogos/{id}/produtos', {
      params: { id: store.body.id },
      body: {
        origem: 'erp',
        id_externo: 'ARROZ-5K',
        descricao: 'Arroz branco tipo 1, 5 kg',
        ncm: '10063021',
        atributos: [
          { codigo: 'ATT_0001', valores: ['saco'] },
          { codigo: 'ATT_0002', valores: ['5 kg'] },
        ],
      },
    });
    await example('GET /v1/catalogos/{id}/produtos', { params: { id: store.body.id } });
    await example('GET /v1/produtos', { query: 'id_externo=CAFE-500' });
    await example('GET /v1/produtos/{id}', { params: { id: coffee.body.id } });
    const editedCoffee = await example('PATCH /v1/produtos/{id}', {
      params: { id: coffee.body.id },
      body: { descricao: 'Café torrado em grãos, torra média, 500 g' },
      ifMatch: coffee.etag,
    });
    // Both products sold at the branch too; the rice then leaves it.
    await example('PUT /v1/catalogos/{id}/produtos/{produto_id}', {
      params: { id: branchCatalog.body.id, produto_id: coffee.body.id },
      body: {},
      ifMatch: editedCoffee.etag,
    });
    const sharedRice = await setup('PUT /v1/catalogos/{id}/produtos/{produto_id}', {
      params: { id: branchCatalog.body.id, produto_id: rice.body.id },
      body: {},
      ifMatch: rice.etag,
    });
    await example('DELETE /v1/catalogos/{id}/produtos/{produto_id}', {
      params: { id: branchCatalog.body.id, produto_id: rice.body.id },
      body: {},
      ifMatch: sharedRice.etag,
    });

    // Surveillance: watch both products.
    const selection = await example('GET /v1/empresa/vigilancia');
    await example('PATCH /v1/empresa/vigilancia', {
      body: { modo: 'selecao', adicionar: [coffee.body.id, rice.body.id] },
      ifMatch: selection.etag,
    });
    await example('GET /v1/empresa/vigilancia/produtos');

    // A full-company analysis: it starts a minute after acceptance and runs 10 s.
    const analysis = await example('POST /v1/analises', { body: {} });
    await emu.clock.advance('2m');
    await example('GET /v1/analises');
    await example('GET /v1/analises/{id}', { params: { id: analysis.body.id } });
    await example('GET /v1/analises/{id}/achados', { params: { id: analysis.body.id } });
    await example('GET /v1/analises/{id}/resultado.csv', { params: { id: analysis.body.id } });

    // A batch ingestion merged into the store: validation and application each run on the clock.
    const ingestion = await example('POST /v1/catalogos/ingestoes', {
      body: { operacao: 'mesclar', catalogo_id: store.body.id, referencia_externa: 'erp-export-2026-01-01' },
    });
    const ingestionId: string = ingestion.body.ingestao_id;
    await example('PUT /v1/catalogos/ingestoes/{id}/lotes/{numero}', {
      params: { id: ingestionId, numero: '1' },
      body: { itens: [{ id_externo: 'FEIJAO-1K', origem: 'erp', ncm: '07133319', descricao: 'Feijão carioca 1 kg' }] },
    });
    await example('POST /v1/catalogos/ingestoes/{id}/fechamento', {
      params: { id: ingestionId },
      body: { total_lotes: 1 },
    });
    await emu.clock.advance('1m');
    const validated = await example('GET /v1/catalogos/ingestoes/{id}', { params: { id: ingestionId } });
    await example('POST /v1/catalogos/ingestoes/{id}/aplicacao', {
      params: { id: ingestionId },
      body: {},
      ifMatch: validated.etag,
    });
    await emu.clock.advance('1m');

    // The daily surveillance execution (every 24 h from the emulator's start): opened, started a minute later, run.
    await emu.clock.advance('1d');
    const executions = await example('GET /v1/vigilancias');
    const execution: string = executions.body.itens[0].id;
    await example('GET /v1/vigilancias/{id}', { params: { id: execution } });
    await example('GET /v1/vigilancias/{id}/resultados', { params: { id: execution } });
    await example('GET /v1/vigilancias/{id}/resultados.csv', { params: { id: execution } });

    // The webhook: no route covers the host, so deliveries land in the emulator's inbox, which answers 200.
    const destination = await example('PUT /v1/webhook', {
      body: { url: 'https://hooks.acme.example/catalogo/eventos' },
      ifNoneMatch: '*',
    });
    await example('GET /v1/webhook');
    const test = await example('POST /v1/webhook/testes', { body: {}, ifMatch: destination.etag });
    await emu.clock.runUntilIdle();
    await example('GET /v1/webhook/eventos');
    await example('GET /v1/webhook/eventos/{id}', { params: { id: test.body.evento_id } });
    await example('GET /v1/webhook/eventos/{id}/tentativas', { params: { id: test.body.evento_id } });
    await example('POST /v1/webhook/eventos/{id}/reenvios', {
      params: { id: test.body.evento_id },
      body: {},
      ifMatch: destination.etag,
    });
    await emu.clock.runUntilIdle();
    await example('DELETE /v1/webhook', { body: {}, ifMatch: destination.etag });

    // The branch's CNPJ was typed wrong: a review, decided an hour later.
    const current = await setup('GET /v1/estabelecimentos/{id}', { params: { id: branch.body.id } });
    const correction = await example('POST /v1/estabelecimentos/{id}/correcoes-cnpj', {
      params: { id: branch.body.id },
      body: { cnpj_novo: cnpj('0003'), motivo: 'Número da filial digitado errado no cadastro' },
      ifMatch: current.etag,
    });
    await emu.clock.advance('1h');
    await example('GET /v1/correcoes-cnpj/{id}', { params: { id: correction.body.id } });

    // The branch closes: its catalog deleted against the preview's ETag (the coffee stays, shared), then the branch archived.
    const preview = await example('GET /v1/catalogos/{id}/impacto-exclusao', { params: { id: branchCatalog.body.id } });
    await example('DELETE /v1/catalogos/{id}', {
      params: { id: branchCatalog.body.id },
      body: {},
      ifMatch: preview.etag,
    });
    const closing = await setup('GET /v1/estabelecimentos/{id}', { params: { id: branch.body.id } });
    await example('DELETE /v1/estabelecimentos/{id}', {
      params: { id: branch.body.id },
      body: {},
      ifMatch: closing.etag,
    });
  } catch (error) {
    throw new Error(
      `recording the examples failed: ${(error as Error).message}\nnot recorded: ${unrecorded(recorded).join(', ')}`,
    );
  } finally {
    await emu.close();
  }
  const missing = unrecorded(recorded);
  if (missing.length > 0) throw new Error(`the scenario records no example of: ${missing.join(', ')}`);
  return Object.fromEntries(OPERATIONS.map((key) => [key, recorded.get(key)!]));
}

const unrecorded = (recorded: ReadonlyMap<string, unknown>) => OPERATIONS.filter((key) => !recorded.has(key));

/** The module src/openapi/examples.ts holding `examples`. */
export function examplesModule(examples: OperationExamples): string {
  return [
    '// generated by npm run openapi; do not edit',
    '// The request and success answer of each operation, recorded from the emulator (scripts/examples.ts).',
    "import type { OperationExamples } from './document.js';",
    '',
    `export const EXAMPLES: OperationExamples = ${JSON.stringify(examples, null, 2)};`,
    '',
  ].join('\n');
}
