/**
 * Batch ingestion over HTTP: spec "POST /v1/catalogos/ingestoes", "Ingestion receipt", "Limits" (idempotency
 * key 16–200 for the ingestion start, external reference 1–200); docs/batch-ingestion.md for everything the
 * spec leaves unshown: the start (default catalog, one open ingestion per catalog, the 200 `repetida` replay),
 * the batches (per-record errors, a received batch never changes, 4 MiB), the close and the validation on the
 * clock (1 s + 1 ms per record), the preview and its counts for the three operations, the rejections, the
 * application (If-Match, staleness → revisao_necessaria, catalogo.aplicado), job faults, expiry, and that
 * ingestions are not listed (no such operation).
 *
 * Driven only through HTTP (the API and /_emulator), so the file runs the same in process and against the
 * built CLI. Each test has its own company; times are read from the clock at the start of the test (the
 * server's clock is shared). Every fault a test adds matches its own company and is removed after the test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  headOfficeCatalog,
  NCM,
  newKey,
  otherCompany,
  product,
  world,
  type Answer,
  type Controls,
  type World,
} from './support/client.js';
import { ETAG, expectControlError, expectError, REQUEST_ID, UUID } from './support/expect.js';
import { deployment, needsControls, needsOwnCompany } from './support/deployment.js';
import { branchCatalog, productsPath, UNKNOWN_V7_ID } from './support/fixtures.js';
import { createDestination, EVENTS, eventDetail } from './support/webhook-setup.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const MIB = 1024 * 1024;
/** docs/batch-ingestion.md: a batch body may take 4 MiB. */
const BATCH_LIMIT = 4 * MIB;
/** Validation and application: 1 s + 1 ms per record. */
const runMs = (records: number) => SECOND + records;

const INGESTOES = '/v1/catalogos/ingestoes';
const ingestionPath = (id: string) => `${INGESTOES}/${id}`;
const batchPath = (id: string, numero: number | string) => `${ingestionPath(id)}/lotes/${numero}`;
const closePath = (id: string) => `${ingestionPath(id)}/fechamento`;
const applyPath = (id: string) => `${ingestionPath(id)}/aplicacao`;
const catalogPath = (id: string) => `/v1/catalogos/${id}`;
const VIGILANCIA = '/v1/empresa/vigilancia';
const WATCHED = '/v1/empresa/vigilancia/produtos';
const iso = (ms: number) => new Date(ms).toISOString();
const JSON_HEADERS = { 'content-type': 'application/json' };

type Operacao = 'mesclar' | 'substituicao_catalogo' | 'substituicao_integral';

/**
 * The prefix of every id_externo a test writes: none on a company of the test's own; on a deployment, where every
 * test shares one company whose products outlive the run (and an id_externo is unique in the company), a new one
 * for each test, so that no product or record of a test meets another test's.
 */
let idPrefix = '';
beforeEach(() => {
  idPrefix = deployment === undefined ? '' : `${Math.random().toString(36).slice(2, 8)}-`;
});
/** The test's id_externo named `name`. */
const ext = (name: string) => `${idPrefix}${name}`;

/**
 * An idempotency key the test writes out (its length and characters are what it checks): as written on a company
 * of the test's own; on a deployment, which keeps keys across runs, with its first 8 characters made unique.
 */
const fixedKey = (key: string) =>
  deployment === undefined ? key : `${Math.random().toString(36).slice(2, 10).padEnd(8, '0')}${key.slice(8)}`;

/** A product record: origem "erp", the common NCM, and `fields`. */
const rec = (idExterno: string, fields: Record<string, unknown> = {}) => ({
  id_externo: ext(idExterno),
  origem: 'erp',
  ncm: NCM,
  ...fields,
});

/** The faults the current test added, removed after it (a consumed one is already gone: 404). */
const addedFaults: { controls: Controls; id: string }[] = [];
afterEach(async () => {
  for (const { controls, id } of addedFaults.splice(0).reverse()) {
    const answer = await controls.raw('DELETE', `/faults/${id}`);
    if (answer.status !== 204) expectControlError(answer, 404, 'falha_nao_encontrada');
  }
});

/** A job fault on this company's ingestion validations and applications only, once. */
async function ingestionFault(w: World, effect: Record<string, unknown>): Promise<void> {
  const { id } = await w.controls.addFault({
    target: 'job',
    match: { kind: 'ingestao', companyId: w.company.companyId },
    effect,
    times: 1,
  });
  addedFaults.push({ controls: w.controls, id });
}

async function now(w: World): Promise<number> {
  return Date.parse((await w.controls.clock()).now);
}

async function advance(w: World, ms: number): Promise<void> {
  await w.controls.advance(ms);
}

/**
 * The start's body as sent. Without catalogo_id an ingestion goes to the head office's active catalog; on a
 * deployment the world's "head office" is an establishment of its own, not the company's head office, so there
 * the catalog the test means (that establishment's active one, which the test made) is named explicitly.
 */
async function startBody(w: World, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (w.target.kind !== 'deployment' || 'catalogo_id' in body) return body;
  const answer = await w.api.get(`/v1/catalogos?estabelecimento_id=${w.company.headOffice.id}&estado=ativo`);
  expect(answer.status, answer.text).toBe(200);
  const active: { id: string }[] = answer.body.itens;
  if (active.length !== 1) throw new Error(`the world's establishment has ${active.length} active catalogs, not 1`);
  return { ...body, catalogo_id: active[0]!.id };
}

/**
 * Waits, on a deployment's real clock, until the ingestion is no longer `estado` (validando or aplicando: 1 s +
 * 1 ms per record there), asking again every 50 ms for at most 10 s.
 */
async function settle(w: World, id: string, estado: 'validando' | 'aplicando'): Promise<void> {
  for (let waited = 0; waited < 10 * SECOND; waited += 50) {
    if ((await read(w, id)).body.estado !== estado) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`ingestion ${id} still ${estado} after 10 s`);
}

/**
 * Lets the ingestion's job that is running (the validation or the application, `ms` on the virtual clock) end:
 * advances the clock; on a deployment, waits for the job on the real clock. Only for a test that does nothing
 * between the request that starts the job and its end (a real clock would race it).
 */
async function finish(w: World, id: string, ms: number): Promise<void> {
  if (w.target.kind !== 'deployment') return advance(w, ms);
  const { estado } = (await read(w, id)).body;
  if (estado === 'validando' || estado === 'aplicando') await settle(w, id, estado);
}

/** A start that the test expects to be accepted once the catalog is free (201), without checking more. */
async function startStatus(w: World, body: Record<string, unknown> = { operacao: 'mesclar' }): Promise<number> {
  return (await w.api.post(INGESTOES, await startBody(w, body))).status;
}

/** POST /v1/catalogos/ingestoes; fails unless 201. */
async function start(
  w: World,
  body: Record<string, unknown> = { operacao: 'mesclar' },
  key = newKey(),
): Promise<{ id: string; answer: Answer }> {
  const answer = await w.api.post(INGESTOES, await startBody(w, body), { key });
  if (answer.status !== 201) throw new Error(`ingestion start answered ${answer.status}: ${answer.text}`);
  return { id: answer.body.ingestao_id, answer };
}

/** PUT a batch; fails unless 201. */
async function sendBatch(w: World, id: string, numero: number, itens: unknown[]): Promise<Answer> {
  const answer = await w.api.put(batchPath(id, numero), { itens });
  if (answer.status !== 201) throw new Error(`batch ${numero} answered ${answer.status}: ${answer.text}`);
  return answer;
}

/** POST the close; fails unless 202. */
async function close(w: World, id: string, totalLotes: number): Promise<Answer> {
  const answer = await w.api.post(closePath(id), { total_lotes: totalLotes });
  if (answer.status !== 202) throw new Error(`close answered ${answer.status}: ${answer.text}`);
  return answer;
}

/** GET the ingestion: 200 with an ETag and an x-request-id. */
async function read(w: World, id: string, query = ''): Promise<{ body: any; etag: string; answer: Answer }> {
  const answer = await w.api.get(`${ingestionPath(id)}${query}`);
  expect(answer.status, answer.text).toBe(200);
  const etag = answer.headers.get('etag');
  expect(etag).toMatch(ETAG);
  expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
  return { body: answer.body, etag: etag!, answer };
}

/** Sends `batches` (numbered from 1, in `order` when given), closes with their count and runs the validation. */
async function ingest(
  w: World,
  start0: Record<string, unknown>,
  batches: unknown[][],
  order?: number[],
): Promise<{ id: string; read: Awaited<ReturnType<typeof read>> }> {
  const { id } = await start(w, start0);
  for (const index of order ?? batches.map((_, i) => i)) await sendBatch(w, id, index + 1, batches[index]!);
  await close(w, id, batches.length);
  if (w.target.kind === 'deployment') await settle(w, id, 'validando');
  else await advance(w, runMs(batches.reduce((n, b) => n + b.length, 0)));
  return { id, read: await read(w, id) };
}

/** Applies a validada ingestion with its ETag and runs the application; the ingestion read afterwards. */
async function applyNow(w: World, id: string): Promise<any> {
  const current = await read(w, id);
  expect(current.body.estado, current.answer.text).toBe('validada');
  const answer = await w.api.post(applyPath(id), {}, { ifMatch: current.etag });
  if (answer.status !== 202) throw new Error(`apply answered ${answer.status}: ${answer.text}`);
  if (w.target.kind === 'deployment') await settle(w, id, 'aplicando');
  else await advance(w, runMs(current.body.previa.registros));
  return (await read(w, id)).body;
}

async function catalog(w: World, id: string): Promise<any> {
  const answer = await w.api.get(catalogPath(id));
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

async function readProduct(w: World, id: string): Promise<{ body: any; etag: string }> {
  const answer = await w.api.get(`/v1/produtos/${id}`);
  expect(answer.status, answer.text).toBe(200);
  return { body: answer.body, etag: answer.headers.get('etag')! };
}

/** GET /v1/produtos?id_externo=…: the product, or undefined. */
async function byExternalId(w: World, idExterno: string): Promise<any> {
  const answer = await w.api.get(`/v1/produtos?id_externo=${encodeURIComponent(ext(idExterno))}`);
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body.itens.length).toBeLessThanOrEqual(1);
  return answer.body.itens[0];
}

/** The ids of the catalog's products (one page of 200). */
async function catalogProductIds(w: World, catalogId: string): Promise<string[]> {
  const answer = await w.api.get(`${productsPath(catalogId)}?limite=200`);
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body.proximo_cursor).toBeNull();
  return answer.body.itens.map((p: { id: string }) => p.id);
}

async function editProduct(w: World, id: string, fields: Record<string, unknown>): Promise<void> {
  const answer = await w.api.patch(`/v1/produtos/${id}`, fields, { ifMatch: (await readProduct(w, id)).etag });
  if (answer.status !== 200) throw new Error(`product PATCH answered ${answer.status}: ${answer.text}`);
}

async function link(w: World, catalogId: string, productId: string): Promise<void> {
  const answer = await w.api.put(
    `${productsPath(catalogId)}/${productId}`,
    {},
    { ifMatch: (await readProduct(w, productId)).etag },
  );
  if (answer.status !== 200) throw new Error(`link answered ${answer.status}: ${answer.text}`);
}

/** Deletes a catalog with its deletion preview's ETag; fails unless 200. */
async function deleteCatalog(w: World, catalogId: string): Promise<void> {
  const preview = await w.api.get(`${catalogPath(catalogId)}/impacto-exclusao`);
  expect(preview.status, preview.text).toBe(200);
  const answer = await w.api.delete(catalogPath(catalogId), {}, { ifMatch: preview.headers.get('etag')! });
  if (answer.status !== 200) throw new Error(`catalog deletion answered ${answer.status}: ${answer.text}`);
}

/** PATCH the surveillance selection with its current ETag; fails unless 200. */
async function select(w: World, body: Record<string, unknown>): Promise<void> {
  const view = await w.api.get(VIGILANCIA);
  const answer = await w.api.patch(VIGILANCIA, body, { ifMatch: view.headers.get('etag')! });
  if (answer.status !== 200) throw new Error(`PATCH ${VIGILANCIA} answered ${answer.status}: ${answer.text}`);
}

async function watchedIds(w: World): Promise<string[]> {
  const answer = await w.api.get(`${WATCHED}?limite=200`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.itens.map((p: { id: string }) => p.id);
}

/**
 * The ids of the company's ingestions, oldest first, as the state snapshot control (GET /_emulator/state) holds
 * them: the service has no ingestion list (neither the spec nor its unshown operations have one), so this is
 * how a test sees that a request created no ingestion, or exactly one.
 */
async function ingestionIds(w: World): Promise<string[]> {
  const snapshot = await w.controls.snapshot();
  return (snapshot.state.ingestions as { id: string; companyId: string; position: number }[])
    .filter((i) => i.companyId === w.company.companyId)
    .sort((a, b) => a.position - b.position)
    .map((i) => i.id);
}

/** The ids of the company's newest 100 events. */
async function newestEventIds(w: World): Promise<string[]> {
  const list = await w.api.get(`${EVENTS}?limite=100`);
  expect(list.status, list.text).toBe(200);
  return list.body.itens.map((e: { id: string }) => e.id);
}

/** On a deployment, where the company and its event list are shared: the events it had before the test's own. */
const earlierEvents = new WeakMap<World, Set<string>>();

/** A company with a webhook destination: the service records events only for a company that has one (spec: CONV-09). */
async function listening(...args: Parameters<typeof world>): Promise<World> {
  const w = await world(...args);
  await createDestination(w);
  if (w.target.kind === 'deployment') earlierEvents.set(w, new Set(await newestEventIds(w)));
  return w;
}

/**
 * The `dados` of every event of the company, oldest first (through the event list and each detail); on a
 * deployment, of the events about a catalog since `listening` made the world (fewer than 100 are expected): the
 * company's other work on the real clock raises events there too while a test runs (an analysis an earlier test or
 * run requested ends some 70 s later with analise.concluida), and those are not the test's.
 */
async function eventData(w: World): Promise<any[]> {
  const earlier = earlierEvents.get(w);
  const ids = (await newestEventIds(w)).filter((id) => earlier === undefined || !earlier.has(id)).reverse();
  const details = await Promise.all(ids.map((id) => eventDetail(w, id)));
  for (const detail of details) expect(detail.tipo).toBe(detail.evento.dados.tipo);
  const data = details.map((d) => d.evento.dados);
  return earlier === undefined ? data : data.filter((dados) => typeof dados.catalogoId === 'string');
}

/** An error without its mensagem (checked to be a non-empty string). */
function located(erros: any[]): { lote: number; indice: number; caminho: string; codigo: string }[] {
  for (const e of erros) {
    expect(Object.keys(e).sort()).toEqual(['caminho', 'codigo', 'indice', 'lote', 'mensagem']);
    expect(typeof e.mensagem).toBe('string');
    expect(e.mensagem.length).toBeGreaterThan(0);
  }
  return erros.map((e) => ({ lote: e.lote, indice: e.indice, caminho: e.caminho, codigo: e.codigo }));
}

/** The preview's counts and errors, as a whole object for exact comparisons. */
const previa = (fields: Partial<Record<string, unknown>>) => ({
  versao_catalogo: 1,
  registros: 0,
  novos: 0,
  alterados: 0,
  inalterados: 0,
  reativados: 0,
  vinculados: 0,
  desvinculados: 0,
  desativados: 0,
  lotes_faltantes: [],
  total_erros: 0,
  erros: [],
  proximo_cursor: null,
  ...fields,
});

describe('POST /v1/catalogos/ingestoes (start)', () => {
  // spec: ING-05, ING-08, ING-09, ING-10
  it("answers 201 with exactly the receipt and Location, into the head office's active catalog by default", async () => {
    needsOwnCompany(
      "an ingestion without catalogo_id goes to the head office's catalog, which on a deployment is not the test's",
    );
    const w = await world();
    const a = await headOfficeCatalog(w);
    await product(w, a.id, { id_externo: ext('P-1') });
    await product(w, a.id, { id_externo: ext('P-2') });
    const t0 = await now(w);
    const answer = await w.api.post(
      INGESTOES,
      { operacao: 'substituicao_catalogo', referencia_externa: 'erp-export-4471' },
      { key: 'ingest-2026-11-22-run-01' },
    );
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body).toEqual({
      ingestao_id: expect.stringMatching(UUID),
      estado: 'aberta',
      repetida: false,
      catalogo_id: a.id,
      versao_catalogo: 3,
    });
    const id = answer.body.ingestao_id;
    expect(answer.headers.get('location')).toBe(ingestionPath(id));
    expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(answer.headers.get('idempotent-replayed')).toBeNull();

    const detail = await read(w, id);
    expect(detail.body).toEqual({
      id,
      estado: 'aberta',
      operacao: 'substituicao_catalogo',
      catalogo_id: a.id,
      referencia_externa: 'erp-export-4471',
      criada_em: iso(t0),
      atualizada_em: iso(t0),
      versao: 1,
      versao_catalogo: 3,
      expira_em: iso(t0 + DAY),
      lotes_recebidos: [],
      itens_recebidos: 0,
      total_lotes: null,
      codigo_falha: null,
      aplicacao: null,
      previa: null,
    });
  });

  // spec: ING-05
  it('goes to the catalog named by catalogo_id, and referencia_externa is null when absent', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const b = await branchCatalog(w);
    const answer = await w.api.post(INGESTOES, { operacao: 'substituicao_integral', catalogo_id: b.id.toUpperCase() });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body).toEqual({
      ingestao_id: answer.body.ingestao_id,
      estado: 'aberta',
      repetida: false,
      catalogo_id: b.id,
      versao_catalogo: 1,
    });
    const detail = await read(w, answer.body.ingestao_id);
    expect(detail.body).toMatchObject({
      operacao: 'substituicao_integral',
      catalogo_id: b.id,
      referencia_externa: null,
    });
  });

  // spec: ING-09, REQ-03
  it('repeated with the same key and body answers 200, repetida: true, idempotent-replayed, and the current estado', async () => {
    needsControls('the clock, and GET /_emulator/state: the service lists no ingestions');
    const w = await world();
    await headOfficeCatalog(w);
    const key = 'erp-export-2026-11-22T08:00:00Z/acme';
    const body = { operacao: 'mesclar', referencia_externa: 'ref-1' };
    const first = await w.api.post(INGESTOES, body, { key });
    expect(first.status, first.text).toBe(201);
    const id = first.body.ingestao_id;

    const again = await w.api.post(INGESTOES, body, { key });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual({ ...first.body, repetida: true });
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    // The same body up to key order and white space is the same request.
    const reordered = await w.api.post(INGESTOES, undefined, {
      key,
      raw: '{ "referencia_externa" : "ref-1",\n  "operacao": "mesclar" }',
      headers: JSON_HEADERS,
    });
    expect(reordered.status, reordered.text).toBe(200);
    expect(reordered.body).toEqual({ ...first.body, repetida: true });

    await close(w, id, 1);
    const whileValidating = await w.api.post(INGESTOES, body, { key });
    expect(whileValidating.status).toBe(200);
    expect(whileValidating.body).toEqual({ ...first.body, estado: 'validando', repetida: true });
    expect(whileValidating.headers.get('idempotent-replayed')).toBe('true');

    await advance(w, runMs(0));
    const afterEnd = await w.api.post(INGESTOES, body, { key });
    expect(afterEnd.status).toBe(200);
    expect(afterEnd.body).toEqual({ ...first.body, estado: 'rejeitada', repetida: true });

    expect(await ingestionIds(w)).toEqual([id]);
  });

  it('a start whose answer was lost (503) is retried with its key: 200, repetida: true, the one ingestion', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const { id: faultId } = await w.controls.addFault({
      target: 'api',
      match: { method: 'POST', path: INGESTOES, companyId: w.company.companyId },
      effect: { loseResponse: true },
    });
    addedFaults.push({ controls: w.controls, id: faultId });
    const key = 'erp-export-2026-11-22T08:00:00Z/lost';
    expectError(await w.api.post(INGESTOES, { operacao: 'mesclar' }, { key }), 503, 'servico_indisponivel');
    const created = await ingestionIds(w);
    expect(created).toHaveLength(1);
    const retry = await w.api.post(INGESTOES, { operacao: 'mesclar' }, { key });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body).toEqual({
      ingestao_id: created[0],
      estado: 'aberta',
      repetida: true,
      catalogo_id: catalog.id,
      versao_catalogo: 1,
    });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await ingestionIds(w)).toEqual(created);
  });

  it('refuses the same key with another body: 422 idempotencia_reutilizada, no second ingestion', async () => {
    needsControls('GET /_emulator/state: the service lists no ingestions');
    const w = await world();
    await headOfficeCatalog(w);
    const b = await branchCatalog(w);
    const key = newKey();
    const first = await w.api.post(INGESTOES, { operacao: 'mesclar' }, { key });
    expect(first.status).toBe(201);
    expectError(
      await w.api.post(INGESTOES, { operacao: 'mesclar', catalogo_id: b.id }, { key }),
      422,
      'idempotencia_reutilizada',
      'header.idempotency-key',
    );
    expectError(
      await w.api.post(INGESTOES, { operacao: 'substituicao_catalogo' }, { key }),
      422,
      'idempotencia_reutilizada',
      'header.idempotency-key',
    );
    expect(await ingestionIds(w)).toEqual([first.body.ingestao_id]);
  });

  // spec: ING-01, ING-02, LIM-04, LIM-05, LIM-06
  it('takes idempotency keys of 16 to 200 characters, none of them whitespace (any other character allowed)', async () => {
    needsControls('GET /_emulator/state: the service lists no ingestions');
    const w = await world();
    const catalogs = [await branchCatalog(w), await branchCatalog(w), await branchCatalog(w)];
    const slashes = `erp/export+2026-11-22T08:00:00Z/acme=${'/+'.repeat(50)}`.padEnd(150, '~');
    expect(slashes).toHaveLength(150);
    const accepted = ['k'.repeat(16), 'K'.repeat(200), slashes];
    const ids: string[] = [];
    for (const [i, key] of accepted.entries()) {
      const answer = await w.api.post(INGESTOES, { operacao: 'mesclar', catalogo_id: catalogs[i]!.id }, { key });
      expect(answer.status, `${key}: ${answer.text}`).toBe(201);
      ids.push(answer.body.ingestao_id);
      const again = await w.api.post(INGESTOES, { operacao: 'mesclar', catalogo_id: catalogs[i]!.id }, { key });
      expect(again.status).toBe(200);
      expect(again.body.ingestao_id).toBe(answer.body.ingestao_id);
    }
    const c = await branchCatalog(w);
    for (const key of ['k'.repeat(15), 'k'.repeat(201), 'ingest key with a space', 'ingest-key-with\ta-tab']) {
      expectError(
        await w.api.post(INGESTOES, { operacao: 'mesclar', catalogo_id: c.id }, { key }),
        400,
        'chave_idempotencia_invalida',
        'header.idempotency-key',
      );
    }
    expectError(
      await w.api.post(INGESTOES, { operacao: 'mesclar', catalogo_id: c.id }, { key: null }),
      400,
      'chave_idempotencia_ausente',
      'header.idempotency-key',
    );
    expect(await ingestionIds(w)).toEqual(ids);
  });

  // spec: REQ-01, LIM-01, LIM-03
  it('keeps the common key rule on the other ingestion operations (no "/", at most 128)', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    expectError(
      await w.api.put(batchPath(id, 1), { itens: [rec('A')] }, { key: 'erp/export+batch-0001' }),
      400,
      'chave_idempotencia_invalida',
      'header.idempotency-key',
    );
    expectError(
      await w.api.put(batchPath(id, 1), { itens: [rec('A')] }, { key: 'k'.repeat(129) }),
      400,
      'chave_idempotencia_invalida',
      'header.idempotency-key',
    );
    expect((await w.api.put(batchPath(id, 1), { itens: [rec('A')] }, { key: fixedKey('k'.repeat(128)) })).status).toBe(
      201,
    );
  });

  it('answers 422 catalogo_padrao_ausente at body.catalogo_id when the head office has no active catalog', async () => {
    const w = await world();
    expectError(
      await w.api.post(INGESTOES, { operacao: 'mesclar' }),
      422,
      'catalogo_padrao_ausente',
      'body.catalogo_id',
    );
    // A branch catalog is not the default.
    await branchCatalog(w);
    expectError(
      await w.api.post(INGESTOES, { operacao: 'mesclar' }),
      422,
      'catalogo_padrao_ausente',
      'body.catalogo_id',
    );
    // Nor is a deleted head office catalog.
    const a = await headOfficeCatalog(w);
    await deleteCatalog(w, a.id);
    expectError(
      await w.api.post(INGESTOES, { operacao: 'mesclar' }),
      422,
      'catalogo_padrao_ausente',
      'body.catalogo_id',
    );
    expect(await ingestionIds(w)).toEqual([]);
  });

  it("answers 404 catalogo_nao_encontrado for an unknown catalog or another company's, 409 catalogo_excluido for a deleted one", async () => {
    const w = await world();
    await headOfficeCatalog(w);
    expectError(
      await w.api.post(INGESTOES, { operacao: 'mesclar', catalogo_id: UNKNOWN_V7_ID }),
      404,
      'catalogo_nao_encontrado',
    );
    const other = await otherCompany(w);
    const theirs = await headOfficeCatalog(other);
    expectError(
      await w.api.post(INGESTOES, { operacao: 'mesclar', catalogo_id: theirs.id }),
      404,
      'catalogo_nao_encontrado',
    );
    const b = await branchCatalog(w);
    await deleteCatalog(w, b.id);
    expectError(await w.api.post(INGESTOES, { operacao: 'mesclar', catalogo_id: b.id }), 409, 'catalogo_excluido');
    expect(await ingestionIds(w)).toEqual([]);
    expect(await ingestionIds(other)).toEqual([]);
  });

  it('allows one open ingestion per catalog: 409 ingestao_em_andamento naming the open one, until it ends', async () => {
    needsOwnCompany(
      "ingestions without catalogo_id go to the head office's catalog, which on a deployment is not the test's",
    );
    const w = await world();
    const a = await headOfficeCatalog(w);
    const b = await branchCatalog(w);
    const { id } = await start(w);
    const refused = await w.api.post(INGESTOES, { operacao: 'substituicao_catalogo' });
    expectError(refused, 409, 'ingestao_em_andamento');
    expect(refused.body.erro.mensagem).toContain(id);
    expectError(await w.api.post(INGESTOES, { operacao: 'mesclar', catalogo_id: a.id }), 409, 'ingestao_em_andamento');
    // Another catalog is free.
    const other = await start(w, { operacao: 'mesclar', catalogo_id: b.id });
    expect(other.answer.body.catalogo_id).toBe(b.id);

    await close(w, id, 1); // validando
    expectError(await w.api.post(INGESTOES, { operacao: 'mesclar' }), 409, 'ingestao_em_andamento');
    await advance(w, runMs(0)); // rejeitada: batch 1 never arrived
    expect((await read(w, id)).body).toMatchObject({ estado: 'rejeitada', codigo_falha: 'lotes_faltantes' });
    const next = await w.api.post(INGESTOES, { operacao: 'substituicao_catalogo' });
    expect(next.status, next.text).toBe(201);
    expect(next.body.catalogo_id).toBe(a.id);
  });

  // spec: ING-03, ING-04, ING-06, ING-07
  it('refuses a bad body with 422: operacao missing or unknown, unknown field, referencia_externa of 0 or 201 characters, malformed catalogo_id', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    expectError(await w.api.post(INGESTOES, {}), 422, 'campo_obrigatorio', 'body.operacao');
    expectError(await w.api.post(INGESTOES, { operacao: 'substituir' }), 422, 'valor_invalido', 'body.operacao');
    expectError(await w.api.post(INGESTOES, { operacao: 'MESCLAR' }), 422, 'valor_invalido', 'body.operacao');
    expectError(
      await w.api.post(INGESTOES, { operacao: 'mesclar', origem: 'erp' }),
      422,
      'campo_desconhecido',
      'body.origem',
    );
    expectError(
      await w.api.post(INGESTOES, { operacao: 'mesclar', referencia_externa: '' }),
      422,
      'valor_invalido',
      'body.referencia_externa',
    );
    expectError(
      await w.api.post(INGESTOES, { operacao: 'mesclar', referencia_externa: 'r'.repeat(201) }),
      422,
      'valor_invalido',
      'body.referencia_externa',
    );
    expectError(
      await w.api.post(INGESTOES, { operacao: 'mesclar', referencia_externa: 7 }),
      422,
      'valor_invalido',
      'body.referencia_externa',
    );
    expectError(
      await w.api.post(INGESTOES, { operacao: 'mesclar', catalogo_id: 'catalogo-1' }),
      422,
      'valor_invalido',
      'body.catalogo_id',
    );
    expect(await ingestionIds(w)).toEqual([]);
    // The limits themselves are accepted: 200 characters, and 1 (in two catalogs: one open ingestion each).
    expect((await w.api.post(INGESTOES, { operacao: 'mesclar', referencia_externa: 'r'.repeat(200) })).status).toBe(
      201,
    );
    const b = await branchCatalog(w);
    expect(
      (await w.api.post(INGESTOES, { operacao: 'mesclar', catalogo_id: b.id, referencia_externa: 'r' })).status,
    ).toBe(201);
  });

  it('needs catalogo:gerenciar to write (403) and catalogo:ler to read', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    await sendBatch(w, id, 1, [rec('A')]);
    const reader = w.api.as((await w.controls.addCredential(w.company.companyId, ['catalogo:ler'])).token);
    expectError(await reader.post(INGESTOES, { operacao: 'mesclar' }), 403, 'permissao_insuficiente');
    expectError(await reader.put(batchPath(id, 2), { itens: [rec('B')] }), 403, 'permissao_insuficiente');
    expectError(await reader.post(closePath(id), { total_lotes: 1 }), 403, 'permissao_insuficiente');
    const current = await read(w, id);
    expectError(await reader.post(applyPath(id), {}, { ifMatch: current.etag }), 403, 'permissao_insuficiente');
    expect((await reader.get(ingestionPath(id))).status).toBe(200);
    const blind = w.api.as((await w.controls.addCredential(w.company.companyId, ['webhook:gerenciar'])).token);
    expectError(await blind.get(ingestionPath(id)), 403, 'permissao_insuficiente');
    // Nothing changed.
    expect((await read(w, id)).etag).toBe(current.etag);
    expect(current.body).toMatchObject({ estado: 'aberta', lotes_recebidos: [1], versao: 2 });
  });
});

describe('PUT /v1/catalogos/ingestoes/{id}/lotes/{numero}', () => {
  it("answers 201 with the batch receipt and the ingestion's new ETag; the same content again is 200 repetido, nothing changes", async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const t0 = await now(w);
    const { id } = await start(w);
    const before = await read(w, id);

    await advance(w, MINUTE);
    const first = await w.api.put(batchPath(id, 1), {
      itens: [rec('SKU-1', { sku: 'S1', descricao: 'Um' }), rec('SKU-2')],
    });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toEqual({ ingestao_id: id, numero: 1, itens: 2, repetido: false, erros: [] });
    const etag1 = first.headers.get('etag');
    expect(etag1).toMatch(ETAG);
    expect(etag1).not.toBe(before.etag);
    const after1 = await read(w, id);
    expect(after1.etag).toBe(etag1);
    expect(after1.body).toMatchObject({
      estado: 'aberta',
      versao: 2,
      lotes_recebidos: [1],
      itens_recebidos: 2,
      atualizada_em: iso(t0 + MINUTE),
      expira_em: iso(t0 + MINUTE + DAY),
    });

    // The same content, keys reordered and other white space, with a new key.
    await advance(w, MINUTE);
    const raw =
      '{\n  "itens": [ {"descricao":"Um","sku":"S1","ncm":"84713012","origem":"erp","id_externo":"SKU-1"},\n {"ncm": "84713012", "id_externo": "SKU-2", "origem": "erp"} ]\n}';
    const repeated = await w.api.put(batchPath(id, 1), undefined, { raw, headers: JSON_HEADERS });
    expect(repeated.status, repeated.text).toBe(200);
    expect(repeated.body).toEqual({ ingestao_id: id, numero: 1, itens: 2, repetido: true, erros: [] });
    expect(repeated.headers.get('etag')).toBe(etag1);
    const after2 = await read(w, id);
    expect(after2.etag).toBe(etag1);
    expect(after2.answer.text).toBe(after1.answer.text);

    // Other content under the same number: 409, nothing changes.
    expectError(
      await w.api.put(batchPath(id, 1), { itens: [rec('SKU-1', { sku: 'S1', descricao: 'Um' })] }),
      409,
      'lote_divergente',
    );
    expectError(
      await w.api.put(batchPath(id, 1), { itens: [rec('SKU-1', { sku: 'S1', descricao: 'Um!' }), rec('SKU-2')] }),
      409,
      'lote_divergente',
    );
    expectError(
      await w.api.put(batchPath(id, 1), { itens: [rec('SKU-2'), rec('SKU-1', { sku: 'S1', descricao: 'Um' })] }),
      409,
      'lote_divergente',
    );
    expect((await read(w, id)).answer.text).toBe(after1.answer.text);

    // Batches in any order: lotes_recebidos ascending, each accepted one moves the ETag.
    const third = await sendBatch(w, id, 3, [rec('SKU-3')]);
    expect(third.headers.get('etag')).not.toBe(etag1);
    const second = await sendBatch(w, id, 2, [rec('SKU-4'), rec('SKU-5'), rec('SKU-6')]);
    const after3 = await read(w, id);
    expect(after3.etag).toBe(second.headers.get('etag'));
    expect(after3.body).toMatchObject({ versao: 4, lotes_recebidos: [1, 2, 3], itens_recebidos: 6 });
  });

  it('reports each problem of each item located {lote, indice, caminho, codigo, mensagem}, and still accepts the batch', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    const itens = [
      rec('OK-1', { sku: 'S', descricao: 'D', atributos: [{ codigo: 'COR', valores: ['azul'] }] }),
      { origem: 'erp', ncm: NCM },
      rec('BAD-NCM', { ncm: '8471.30.12' }),
      rec('EXTRA', { cor: 'azul' }),
      42,
      'texto',
      rec('x'.repeat(257)),
      // A repeated attribute code and values of any length are valid (the spec forbids neither).
      rec('DUP-ATTR', {
        atributos: [
          { codigo: 'A', valores: ['1', ''] },
          { codigo: 'A', valores: ['2'.repeat(5000)] },
        ],
      }),
      rec('NULLS', { sku: null, descricao: null }),
      null,
      rec('NO-ORIGEM', { origem: undefined }),
      rec('LONG-ORIGEM', { origem: 'o'.repeat(65) }),
      rec('OK-2', {
        id_externo: 'i'.repeat(256),
        origem: 'o'.repeat(64),
        descricao: 'd'.repeat(2000),
        sku: 's'.repeat(256),
      }),
      rec('MANY-ATTR', { atributos: Array.from({ length: 129 }, (_, i) => ({ codigo: `A${i}`, valores: ['v'] })) }),
      rec('OK-3', { atributos: Array.from({ length: 128 }, (_, i) => ({ codigo: `A${i}`, valores: ['v'] })) }),
    ];
    const answer = await w.api.put(batchPath(id, 2), { itens });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.ingestao_id).toBe(id);
    expect(answer.body.numero).toBe(2);
    expect(answer.body.itens).toBe(15);
    expect(answer.body.repetido).toBe(false);
    expect(located(answer.body.erros)).toEqual([
      { lote: 2, indice: 1, caminho: 'body.itens[1].id_externo', codigo: 'campo_obrigatorio' },
      { lote: 2, indice: 2, caminho: 'body.itens[2].ncm', codigo: 'valor_invalido' },
      { lote: 2, indice: 3, caminho: 'body.itens[3].cor', codigo: 'campo_desconhecido' },
      { lote: 2, indice: 4, caminho: 'body.itens[4]', codigo: 'valor_invalido' },
      { lote: 2, indice: 5, caminho: 'body.itens[5]', codigo: 'valor_invalido' },
      { lote: 2, indice: 6, caminho: 'body.itens[6].id_externo', codigo: 'valor_invalido' },
      { lote: 2, indice: 9, caminho: 'body.itens[9]', codigo: 'valor_invalido' },
      { lote: 2, indice: 10, caminho: 'body.itens[10].origem', codigo: 'campo_obrigatorio' },
      { lote: 2, indice: 11, caminho: 'body.itens[11].origem', codigo: 'valor_invalido' },
      { lote: 2, indice: 13, caminho: 'body.itens[13].atributos', codigo: 'valor_invalido' },
    ]);
    expect(answer.headers.get('etag')).toBe((await read(w, id)).etag);
    expect((await read(w, id)).body).toMatchObject({ lotes_recebidos: [2], itens_recebidos: 15 });
    // Repeated, it reports the same errors.
    const again = await w.api.put(batchPath(id, 2), { itens });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...answer.body, repetido: true });
  });

  it('reports every problem of one item, each located', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    const answer = await w.api.put(batchPath(id, 1), { itens: [{ ncm: '123', cor: 'azul', sku: '' }] });
    expect(answer.status, answer.text).toBe(201);
    const errors = located(answer.body.erros);
    expect(errors.map((e) => `${e.caminho} ${e.codigo}`).sort()).toEqual(
      [
        'body.itens[0].cor campo_desconhecido',
        'body.itens[0].id_externo campo_obrigatorio',
        'body.itens[0].ncm valor_invalido',
        'body.itens[0].origem campo_obrigatorio',
        'body.itens[0].sku valor_invalido',
      ].sort(),
    );
    expect(errors.every((e) => e.lote === 1 && e.indice === 0)).toBe(true);
  });

  it('refuses a body that is not {itens: [1 to 1000 items]} with 422, and takes 1000 items', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    const before = await read(w, id);
    expectError(await w.api.put(batchPath(id, 1), { itens: [] }), 422, 'valor_invalido', 'body.itens');
    const many = Array.from({ length: 1001 }, (_, i) => rec(`SKU-${i}`));
    expectError(await w.api.put(batchPath(id, 1), { itens: many }), 422, 'valor_invalido', 'body.itens');
    expectError(await w.api.put(batchPath(id, 1), {}), 422, 'campo_obrigatorio', 'body.itens');
    expectError(await w.api.put(batchPath(id, 1), { itens: rec('A') }), 422, 'valor_invalido', 'body.itens');
    expectError(
      await w.api.put(batchPath(id, 1), { itens: [rec('A')], total: 1 }),
      422,
      'campo_desconhecido',
      'body.total',
    );
    expectError(await w.api.put(batchPath(id, 1), [rec('A')]), 422, 'valor_invalido', 'body');
    expect((await read(w, id)).etag).toBe(before.etag);
    const full = await w.api.put(batchPath(id, 1), { itens: many.slice(0, 1000) });
    expect(full.status, full.text).toBe(201);
    expect(full.body).toEqual({ ingestao_id: id, numero: 1, itens: 1000, repetido: false, erros: [] });
  });

  it('refuses numero 0, 1001, "01", "abc", "-1", "1.5" with 422 at path.numero, and takes 1 and 1000', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    for (const numero of ['0', '1001', '01', 'abc', '-1', '1.5', '1e3', '99999999']) {
      expectError(await w.api.put(batchPath(id, numero), { itens: [rec('A')] }), 422, 'valor_invalido', 'path.numero');
    }
    expect((await read(w, id)).body.lotes_recebidos).toEqual([]);
    expect((await w.api.put(batchPath(id, 1000), { itens: [rec('A')] })).status).toBe(201);
    expect((await w.api.put(batchPath(id, 1), { itens: [rec('B')] })).status).toBe(201);
    expect((await read(w, id)).body.lotes_recebidos).toEqual([1, 1000]);
  });

  it('takes a body of exactly 4 MiB and refuses one byte more with 413 corpo_muito_grande, before parsing it', {
    timeout: 30_000,
  }, async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    const head = JSON.stringify({ itens: [rec('BIG')] });
    const raw = head + ' '.repeat(BATCH_LIMIT - head.length);
    expect(Buffer.byteLength(raw)).toBe(BATCH_LIMIT);
    expectError(
      await w.api.put(batchPath(id, 1), undefined, { raw: `${raw} `, headers: JSON_HEADERS }),
      413,
      'corpo_muito_grande',
      'body',
    );
    // Not JSON at all, and over the limit: the size answers first.
    expectError(
      await w.api.put(batchPath(id, 1), undefined, { raw: `{${'x'.repeat(BATCH_LIMIT)}`, headers: JSON_HEADERS }),
      413,
      'corpo_muito_grande',
      'body',
    );
    expect((await read(w, id)).body.lotes_recebidos).toEqual([]);
    const exact = await w.api.put(batchPath(id, 1), undefined, { raw, headers: JSON_HEADERS });
    expect(exact.status, exact.text).toBe(201);
    expect(exact.body).toEqual({ ingestao_id: id, numero: 1, itens: 1, repetido: false, erros: [] });
    // Over the 1 MiB of the other operations, under the batch's own limit: accepted.
    const twoMib = JSON.stringify({ itens: [rec('MID')] }) + ' '.repeat(2 * MIB);
    expect((await w.api.put(batchPath(id, 2), undefined, { raw: twoMib, headers: JSON_HEADERS })).status).toBe(201);
  });

  it('answers 409 ingestao_fechada after the close, for a new number and for a received one', async () => {
    needsControls(
      'the clock held still between the request that starts the job and its end: a real clock would race the test',
    );
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    await sendBatch(w, id, 1, [rec('A')]);
    await close(w, id, 2);
    const before = await read(w, id);
    expectError(await w.api.put(batchPath(id, 2), { itens: [rec('B')] }), 409, 'ingestao_fechada');
    expectError(await w.api.put(batchPath(id, 1), { itens: [rec('A')] }), 409, 'ingestao_fechada');
    expect((await read(w, id)).etag).toBe(before.etag);
    await advance(w, runMs(1));
    expect((await read(w, id)).body.estado).toBe('rejeitada');
    expectError(await w.api.put(batchPath(id, 2), { itens: [rec('B')] }), 409, 'ingestao_fechada');
  });

  it("answers 404 ingestao_nao_encontrada for an unknown ingestion or another company's, on every operation", async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const other = await otherCompany(w);
    await headOfficeCatalog(other);
    const theirs = await start(other);
    const theirEtag = (await read(other, theirs.id)).etag;
    for (const id of [UNKNOWN_V7_ID, theirs.id]) {
      expectError(await w.api.put(batchPath(id, 1), { itens: [rec('A')] }), 404, 'ingestao_nao_encontrada', 'path.id');
      expectError(await w.api.get(ingestionPath(id)), 404, 'ingestao_nao_encontrada', 'path.id');
      expectError(await w.api.post(closePath(id), { total_lotes: 1 }), 404, 'ingestao_nao_encontrada', 'path.id');
      expectError(
        await w.api.post(applyPath(id), {}, { ifMatch: theirEtag }),
        404,
        'ingestao_nao_encontrada',
        'path.id',
      );
    }
    expectError(await w.api.get(ingestionPath('not-a-uuid')), 422, 'valor_invalido', 'path.id');
    expect((await read(other, theirs.id)).etag).toBe(theirEtag);
  });
});

describe('POST /v1/catalogos/ingestoes/{id}/fechamento and the validation', () => {
  it('answers 202 with the ingestion (validando, previa null), Location and its ETag', async () => {
    const w = await world();
    const a = await headOfficeCatalog(w);
    const t0 = await now(w);
    const { id } = await start(w, { operacao: 'mesclar', referencia_externa: 'ref' });
    await sendBatch(w, id, 1, [rec('A'), rec('B')]);
    await advance(w, SECOND);
    const answer = await w.api.post(closePath(id), { total_lotes: 1 });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.headers.get('location')).toBe(ingestionPath(id));
    expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(answer.body).toEqual({
      id,
      estado: 'validando',
      operacao: 'mesclar',
      catalogo_id: a.id,
      referencia_externa: 'ref',
      criada_em: iso(t0),
      atualizada_em: iso(t0 + SECOND),
      versao: 3,
      versao_catalogo: 1,
      expira_em: answer.body.expira_em,
      lotes_recebidos: [1],
      itens_recebidos: 2,
      total_lotes: 1,
      codigo_falha: null,
      aplicacao: null,
      previa: null,
    });
    const detail = await read(w, id);
    expect(answer.headers.get('etag')).toBe(detail.etag);
    expect(detail.answer.text).toBe(answer.text);
  });

  it('refuses total_lotes below a received batch with 422 total_lotes_inconsistente, changing nothing', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    await sendBatch(w, id, 1, [rec('A')]);
    await sendBatch(w, id, 3, [rec('C')]);
    const before = await read(w, id);
    expectError(
      await w.api.post(closePath(id), { total_lotes: 2 }),
      422,
      'total_lotes_inconsistente',
      'body.total_lotes',
    );
    expectError(
      await w.api.post(closePath(id), { total_lotes: 1 }),
      422,
      'total_lotes_inconsistente',
      'body.total_lotes',
    );
    const after = await read(w, id);
    expect(after.etag).toBe(before.etag);
    expect(after.body).toMatchObject({ estado: 'aberta', total_lotes: null });
    // Still open: more batches, then a consistent close.
    await sendBatch(w, id, 2, [rec('B')]);
    expect((await close(w, id, 3)).body.estado).toBe('validando');
  });

  it('refuses total_lotes 0, 1001, 1.5, "2", absent or with other fields with 422', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    await sendBatch(w, id, 1, [rec('A')]);
    const before = await read(w, id);
    for (const value of [0, 1001, 1.5, '2', null, -1]) {
      expectError(await w.api.post(closePath(id), { total_lotes: value }), 422, 'valor_invalido', 'body.total_lotes');
    }
    expectError(await w.api.post(closePath(id), {}), 422, 'campo_obrigatorio', 'body.total_lotes');
    expectError(
      await w.api.post(closePath(id), { total_lotes: 1, lotes: [1] }),
      422,
      'campo_desconhecido',
      'body.lotes',
    );
    expect((await read(w, id)).etag).toBe(before.etag);
    // 1000 is a valid count (batches 2..1000 missing).
    expect((await w.api.post(closePath(id), { total_lotes: 1000 })).status).toBe(202);
  });

  it('answers a second close with 409 ingestao_fechada', async () => {
    needsControls(
      'the clock held still between the request that starts the job and its end: a real clock would race the test',
    );
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    await sendBatch(w, id, 1, [rec('A')]);
    await close(w, id, 1);
    const before = await read(w, id);
    expectError(await w.api.post(closePath(id), { total_lotes: 1 }), 409, 'ingestao_fechada');
    expect((await read(w, id)).etag).toBe(before.etag);
    await advance(w, runMs(1));
    expect((await read(w, id)).body.estado).toBe('validada');
    expectError(await w.api.post(closePath(id), { total_lotes: 1 }), 409, 'ingestao_fechada');
  });

  it('validates 1 s + 1 ms per record received after the close: validando until then, validada at that instant', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    await sendBatch(w, id, 1, [rec('A'), rec('B'), rec('C')]);
    await sendBatch(w, id, 2, [rec('D'), rec('E')]);
    const t0 = await now(w);
    const closed = await close(w, id, 2);
    await advance(w, runMs(5) - 1);
    const waiting = await read(w, id);
    expect(waiting.body.estado).toBe('validando');
    expect(waiting.body.previa).toBeNull();
    expect(waiting.etag).toBe(closed.headers.get('etag'));
    await advance(w, 1);
    const done = await read(w, id);
    expect(done.body).toMatchObject({
      estado: 'validada',
      versao: 5,
      atualizada_em: iso(t0 + runMs(5)),
      expira_em: iso(t0 + runMs(5) + DAY),
      codigo_falha: null,
      total_lotes: 2,
      lotes_recebidos: [1, 2],
      itens_recebidos: 5,
    });
    expect(done.body.previa).toEqual(previa({ registros: 5, novos: 5 }));
    expect(done.etag).not.toBe(waiting.etag);
  });
});

describe('the preview', () => {
  /**
   * The head office catalog A holds U (unchanged by the ingestion), CH (changed), O (attributes reordered) and
   * X (absent); the branch catalog B holds V (identical record: linked); R was in catalog C, deleted (inactive).
   */
  async function mixedScene() {
    const w = await listening();
    const a = await headOfficeCatalog(w);
    const b = await branchCatalog(w);
    const c = await branchCatalog(w);
    const u = await product(w, a.id, { id_externo: ext('SKU-U'), sku: 'U', descricao: 'Inalterado' });
    const ch = await product(w, a.id, { id_externo: ext('SKU-A'), sku: 'A', descricao: 'antes' });
    const o = await product(w, a.id, {
      id_externo: ext('SKU-O'),
      atributos: [
        { codigo: 'COR', valores: ['G', 'M'] },
        { codigo: 'TAM', valores: ['G', 'M'] },
      ],
    });
    const x = await product(w, a.id, { id_externo: ext('SKU-X') });
    const v = await product(w, b.id, { id_externo: ext('SKU-V') });
    const r = await product(w, c.id, { id_externo: ext('SKU-R'), descricao: 'velho' });
    await deleteCatalog(w, c.id);
    expect((await readProduct(w, r.id)).body).toMatchObject({ ativo: false, catalogos: [] });
    const batch1 = [
      rec('SKU-U', { sku: 'U', descricao: 'Inalterado' }),
      rec('SKU-A', { sku: 'A', descricao: 'depois' }),
      rec('SKU-O', {
        atributos: [
          { codigo: 'TAM', valores: ['G', 'M'] },
          { codigo: 'COR', valores: ['G', 'M'] },
        ],
      }),
      rec('SKU-V'),
      rec('SKU-N1', { sku: 'N1', descricao: 'Novo 1', atributos: [{ codigo: 'COR', valores: ['verde'] }] }),
    ];
    const batch2 = [rec('SKU-N2'), rec('SKU-R', { sku: 'R2', descricao: 'novo', ncm: '22030000' })];
    return { w, a, b, c, u, ch, o, x, v, r, batch1, batch2 };
  }

  it('mesclar: counts novos, alterados (attribute order included), inalterados, reativados and vinculados; batches in any order', async () => {
    const sc = await mixedScene();
    const { w, a } = sc;
    expect((await catalog(w, a.id)).versao).toBe(5);
    const { read: validated } = await ingest(w, { operacao: 'mesclar' }, [sc.batch1, sc.batch2], [1, 0]);
    expect(validated.body.estado).toBe('validada');
    expect(validated.body.previa).toEqual(
      previa({
        versao_catalogo: 5,
        registros: 7,
        novos: 2,
        alterados: 2,
        inalterados: 2,
        reativados: 1,
        vinculados: 2,
      }),
    );
  });

  it('mesclar applied: products created, updated, reactivated and linked; absent ones kept; the catalog versao moves exactly once', async () => {
    const sc = await mixedScene();
    const { w, a, b } = sc;
    const versions = Object.fromEntries(
      await Promise.all(
        (['u', 'ch', 'o', 'x', 'v', 'r'] as const).map(async (k) => [k, (await readProduct(w, sc[k].id)).body.versao]),
      ),
    );
    const { id } = await ingest(w, { operacao: 'mesclar' }, [sc.batch1, sc.batch2]);
    const t1 = await now(w);
    const applied = await applyNow(w, id);
    expect(applied).toMatchObject({
      estado: 'aplicada',
      codigo_falha: null,
      aplicacao: { versao_catalogo: 6, aplicada_em: iso(t1 + runMs(7)) },
    });
    const after = await catalog(w, a.id);
    expect(after.versao).toBe(6);
    expect(after.produtos).toBe(8);

    expect((await readProduct(w, sc.u.id)).body.versao).toBe(versions.u);
    expect((await readProduct(w, sc.x.id)).body).toMatchObject({ versao: versions.x, ativo: true, catalogos: [a.id] });
    expect((await readProduct(w, sc.ch.id)).body).toMatchObject({
      versao: versions.ch + 1,
      descricao: 'depois',
      sku: 'A',
      catalogos: [a.id],
    });
    expect((await readProduct(w, sc.o.id)).body).toMatchObject({
      versao: versions.o + 1,
      atributos: [
        { codigo: 'TAM', valores: ['G', 'M'] },
        { codigo: 'COR', valores: ['G', 'M'] },
      ],
    });
    expect((await readProduct(w, sc.v.id)).body).toMatchObject({
      versao: versions.v + 1,
      ativo: true,
      catalogos: [b.id, a.id],
    });
    expect((await readProduct(w, sc.r.id)).body).toEqual({
      id: sc.r.id,
      id_externo: ext('SKU-R'),
      origem: 'erp',
      sku: 'R2',
      descricao: 'novo',
      ncm: '22030000',
      atributos: [],
      versao: versions.r + 1,
      ativo: true,
      catalogos: [a.id],
    });
    const n1 = await byExternalId(w, 'SKU-N1');
    expect(n1).toEqual({
      id: expect.stringMatching(UUID),
      id_externo: ext('SKU-N1'),
      origem: 'erp',
      sku: 'N1',
      descricao: 'Novo 1',
      ncm: NCM,
      atributos: [{ codigo: 'COR', valores: ['verde'] }],
      versao: 1,
      ativo: true,
      catalogos: [a.id],
    });
    const n2 = await byExternalId(w, 'SKU-N2');
    expect(n2).toMatchObject({
      id_externo: ext('SKU-N2'),
      sku: null,
      descricao: null,
      atributos: [],
      versao: 1,
      ativo: true,
      catalogos: [a.id],
    });
    expect((await catalogProductIds(w, a.id)).sort()).toEqual(
      [sc.u.id, sc.ch.id, sc.o.id, sc.x.id, sc.v.id, sc.r.id, n1.id, n2.id].sort(),
    );

    expect(await eventData(w)).toEqual([{ tipo: 'catalogo.aplicado', catalogoId: a.id, versao: 6 }]);
    // The catalog is free again.
    expect((await w.api.post(INGESTOES, { operacao: 'mesclar' })).status).toBe(201);
  });

  /** Catalog A: K (in the ingestion, unchanged), X1 (A only), X2 (shared with B), Z (A only, no id_externo). */
  async function replacementScene() {
    const w = await listening();
    const a = await headOfficeCatalog(w);
    const b = await branchCatalog(w);
    const k = await product(w, a.id, { id_externo: ext('K') });
    const x1 = await product(w, a.id, { id_externo: ext('X1') });
    const x2 = await product(w, a.id, { id_externo: ext('X2') });
    const z = await product(w, a.id, {});
    await link(w, b.id, x2.id);
    return { w, a, b, k, x1, x2, z, batches: [[rec('K'), rec('N')]] };
  }

  it('substituicao_catalogo: unlinks the products absent from the ingestion, which stay active', async () => {
    const sc = await replacementScene();
    const { w, a, b } = sc;
    const v0 = (await catalog(w, a.id)).versao;
    const { id, read: validated } = await ingest(w, { operacao: 'substituicao_catalogo' }, sc.batches);
    expect(validated.body.previa).toEqual(
      previa({ versao_catalogo: v0, registros: 2, novos: 1, inalterados: 1, desvinculados: 3 }),
    );
    const kVersao = (await readProduct(w, sc.k.id)).body.versao;
    const applied = await applyNow(w, id);
    expect(applied.estado).toBe('aplicada');
    expect(applied.aplicacao.versao_catalogo).toBe(v0 + 1);
    expect(await catalog(w, a.id)).toMatchObject({ versao: v0 + 1, produtos: 2 });
    expect((await readProduct(w, sc.x1.id)).body).toMatchObject({ ativo: true, catalogos: [], versao: 2 });
    expect((await readProduct(w, sc.z.id)).body).toMatchObject({ ativo: true, catalogos: [], versao: 2 });
    expect((await readProduct(w, sc.x2.id)).body).toMatchObject({ ativo: true, catalogos: [b.id] });
    expect((await readProduct(w, sc.k.id)).body.versao).toBe(kVersao);
    const n = await byExternalId(w, 'N');
    expect((await catalogProductIds(w, a.id)).sort()).toEqual([sc.k.id, n.id].sort());
    expect(await eventData(w)).toEqual([{ tipo: 'catalogo.aplicado', catalogoId: a.id, versao: v0 + 1 }]);
  });

  it('substituicao_integral: also deactivates those in this catalog only, which leave the surveillance selection; a later ingestion reactivates one', async () => {
    needsOwnCompany("it sets the company's surveillance selection and counts what it holds");
    const sc = await replacementScene();
    const { w, a, b } = sc;
    await select(w, { modo: 'selecao', adicionar: [sc.x1.id, sc.x2.id, sc.k.id, sc.z.id] });
    const v0 = (await catalog(w, a.id)).versao;
    const { id, read: validated } = await ingest(w, { operacao: 'substituicao_integral' }, sc.batches);
    expect(validated.body.previa).toEqual(
      previa({ versao_catalogo: v0, registros: 2, novos: 1, inalterados: 1, desvinculados: 3, desativados: 2 }),
    );
    const applied = await applyNow(w, id);
    expect(applied).toMatchObject({ estado: 'aplicada', aplicacao: { versao_catalogo: v0 + 1 } });
    expect(await catalog(w, a.id)).toMatchObject({ versao: v0 + 1, produtos: 2 });
    expect((await readProduct(w, sc.x1.id)).body).toMatchObject({ ativo: false, catalogos: [], versao: 2 });
    expect((await readProduct(w, sc.z.id)).body).toMatchObject({ ativo: false, catalogos: [], versao: 2 });
    expect((await readProduct(w, sc.x2.id)).body).toMatchObject({ ativo: true, catalogos: [b.id] });
    expect((await watchedIds(w)).sort()).toEqual([sc.k.id, sc.x2.id].sort());
    const view = await w.api.get(VIGILANCIA);
    expect(view.body).toMatchObject({ selecionados: 2, cadastrados: 3 });

    // X1, deactivated by the replacement, comes back with a merge.
    const again = await ingest(w, { operacao: 'mesclar' }, [[rec('X1', { descricao: 'de volta' })]]);
    expect(again.read.body.previa).toEqual(
      previa({ versao_catalogo: v0 + 1, registros: 1, reativados: 1, vinculados: 1 }),
    );
    expect((await applyNow(w, again.id)).estado).toBe('aplicada');
    expect((await readProduct(w, sc.x1.id)).body).toMatchObject({
      ativo: true,
      catalogos: [a.id],
      descricao: 'de volta',
      versao: 3,
    });
  });

  it('an absent optional field means null (or no attributes): a product with sku, descricao and atributos is alterado by a bare record; origem counts too', async () => {
    const w = await world();
    const a = await headOfficeCatalog(w);
    const full = await product(w, a.id, {
      id_externo: ext('FULL'),
      sku: 'S',
      descricao: 'D',
      atributos: [{ codigo: 'COR', valores: ['azul'] }],
    });
    const bare = await product(w, a.id, { id_externo: ext('BARE') });
    const origem = await product(w, a.id, { id_externo: ext('ORIGEM') });
    const { id, read: validated } = await ingest(w, { operacao: 'mesclar' }, [
      [rec('FULL'), rec('BARE', { sku: null, descricao: null, atributos: [] }), rec('ORIGEM', { origem: 'manual' })],
    ]);
    expect(validated.body.previa).toEqual(previa({ versao_catalogo: 4, registros: 3, alterados: 2, inalterados: 1 }));
    expect((await applyNow(w, id)).estado).toBe('aplicada');
    expect((await readProduct(w, full.id)).body).toMatchObject({
      sku: null,
      descricao: null,
      atributos: [],
      origem: 'erp',
      versao: 2,
    });
    expect((await readProduct(w, bare.id)).body.versao).toBe(1);
    expect((await readProduct(w, origem.id)).body).toMatchObject({ origem: 'manual', versao: 2 });
  });

  it("reads the catalog as it is when the validation runs: previa.versao_catalogo, not the receipt's", async () => {
    needsControls(
      'the clock held still between the request that starts the job and its end: a real clock would race the test',
    );
    const w = await world();
    const a = await headOfficeCatalog(w);
    const { id, answer } = await start(w, { operacao: 'substituicao_catalogo' });
    expect(answer.body.versao_catalogo).toBe(1);
    await sendBatch(w, id, 1, [rec('A')]);
    await close(w, id, 1);
    const late = await product(w, a.id, { id_externo: ext('LATE') });
    await advance(w, runMs(1));
    const validated = await read(w, id);
    expect(validated.body).toMatchObject({ estado: 'validada', versao_catalogo: 1 });
    expect(validated.body.previa).toEqual(previa({ versao_catalogo: 2, registros: 1, novos: 1, desvinculados: 1 }));
    expect((await applyNow(w, id)).aplicacao.versao_catalogo).toBe(3);
    expect((await readProduct(w, late.id)).body).toMatchObject({ catalogos: [], ativo: true });
  });

  it('compares the surveillance coverage once, after the whole application', async () => {
    const w = await listening({}, { surveillanceCapacity: 3 });
    const a = await headOfficeCatalog(w);
    for (const idExterno of ['X1', 'X2', 'X3']) await product(w, a.id, { id_externo: ext(idExterno) });
    await select(w, { modo: 'todos' });
    expect((await w.api.get(VIGILANCIA)).body).toMatchObject({ cobertura: 'integral', selecionados: 3 });
    // Three created, then three deactivated: above the capacity only in the middle of the application.
    const swap = await ingest(w, { operacao: 'substituicao_integral' }, [[rec('N1'), rec('N2'), rec('N3')]]);
    expect(swap.read.body.previa).toEqual(
      previa({ versao_catalogo: 4, registros: 3, novos: 3, desvinculados: 3, desativados: 3 }),
    );
    expect((await applyNow(w, swap.id)).estado).toBe('aplicada');
    expect((await w.api.get(VIGILANCIA)).body).toMatchObject({
      cobertura: 'integral',
      selecionados: 3,
      cadastrados: 3,
    });
    expect(await eventData(w)).toEqual([{ tipo: 'catalogo.aplicado', catalogoId: a.id, versao: 5 }]);
    // Two more: above the capacity at the end, one vigilancia.degradada.
    const grow = await ingest(w, { operacao: 'mesclar' }, [[rec('N4'), rec('N5')]]);
    expect((await applyNow(w, grow.id)).estado).toBe('aplicada');
    const data = await eventData(w);
    expect(data).toHaveLength(3);
    expect(data.slice(1)).toEqual(
      expect.arrayContaining([
        { tipo: 'catalogo.aplicado', catalogoId: a.id, versao: 6 },
        {
          tipo: 'vigilancia.degradada',
          cobertura: 'capacidade_excedida',
          coberturaAnterior: 'integral',
          selecionados: 5,
          capacidade: 3,
        },
      ]),
    );
  });

  it('rejeitada lotes_faltantes: the numbers that never arrived, the preview still counted, the catalog free', async () => {
    const w = await world();
    const a = await headOfficeCatalog(w);
    await product(w, a.id, { id_externo: ext('A') });
    const { id } = await start(w);
    await sendBatch(w, id, 3, [rec('C')]);
    await sendBatch(w, id, 1, [rec('A')]);
    await close(w, id, 5);
    await finish(w, id, runMs(2));
    const rejected = await read(w, id);
    expect(rejected.body).toMatchObject({
      estado: 'rejeitada',
      codigo_falha: 'lotes_faltantes',
      lotes_recebidos: [1, 3],
      itens_recebidos: 2,
      total_lotes: 5,
      aplicacao: null,
    });
    expect(rejected.body.previa).toEqual(
      previa({ versao_catalogo: 2, registros: 2, novos: 1, inalterados: 1, lotes_faltantes: [2, 4, 5] }),
    );
    expectError(await w.api.post(applyPath(id), {}, { ifMatch: rejected.etag }), 409, 'ingestao_nao_validada');
    expect(await startStatus(w)).toBe(201);
  });

  it('rejeitada registros_invalidos: every error in batch then item order, a repeated id_externo across or within batches', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    // Batch 2 arrives first: the preview still lists batch 1's errors first.
    const second = await sendBatch(w, id, 2, [rec('C2'), rec('D', { sku: 'outro' }), rec('C2', { sku: 'x' }), 7]);
    expect(located(second.body.erros)).toEqual([
      { lote: 2, indice: 3, caminho: 'body.itens[3]', codigo: 'valor_invalido' },
    ]);
    await sendBatch(w, id, 1, [rec('D'), rec('B1', { ncm: '123' }), rec('C1')]);
    await close(w, id, 2);
    await finish(w, id, runMs(7));
    const rejected = await read(w, id);
    expect(rejected.body).toMatchObject({ estado: 'rejeitada', codigo_falha: 'registros_invalidos' });
    const { erros, ...counts } = rejected.body.previa;
    expect({ ...counts, erros: [] }).toEqual(previa({ registros: 3, novos: 3, total_erros: 4 }));
    expect(located(erros)).toEqual([
      { lote: 1, indice: 1, caminho: 'body.itens[1].ncm', codigo: 'valor_invalido' },
      { lote: 2, indice: 1, caminho: 'body.itens[1].id_externo', codigo: 'id_externo_repetido' },
      { lote: 2, indice: 2, caminho: 'body.itens[2].id_externo', codigo: 'id_externo_repetido' },
      { lote: 2, indice: 3, caminho: 'body.itens[3]', codigo: 'valor_invalido' },
    ]);
    // Nothing was created, and the catalog is free.
    expect(await byExternalId(w, 'D')).toBeUndefined();
    expect(await startStatus(w)).toBe(201);
  });

  it('rejeitada catalogo_excluido: the catalog was deleted before the validation ran', async () => {
    needsControls(
      'the clock held still between the request that starts the job and its end: a real clock would race the test',
    );
    const w = await world();
    await headOfficeCatalog(w);
    const b = await branchCatalog(w);
    const { id } = await start(w, { operacao: 'mesclar', catalogo_id: b.id });
    await sendBatch(w, id, 1, [rec('A')]);
    await close(w, id, 1);
    await deleteCatalog(w, b.id);
    await advance(w, runMs(1));
    const rejected = await read(w, id);
    expect(rejected.body).toMatchObject({ estado: 'rejeitada', codigo_falha: 'catalogo_excluido' });
    expect(rejected.body.previa).not.toBeNull();
    expect(await byExternalId(w, 'A')).toBeUndefined();
    expectError(await w.api.post(INGESTOES, { operacao: 'mesclar', catalogo_id: b.id }), 409, 'catalogo_excluido');
  });

  it('pages the errors: limite 1–1000 (default 100), cursor → proximo_cursor, total_erros; a foreign or invalid cursor is 422', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const missingNcm = Array.from({ length: 101 }, (_, i) => ({ id_externo: `SKU-${i}`, origem: 'erp' }));
    const { id } = await start(w);
    await sendBatch(w, id, 1, missingNcm);
    await close(w, id, 1);
    await finish(w, id, runMs(101));
    const expected = missingNcm.map((_, i) => ({
      lote: 1,
      indice: i,
      caminho: `body.itens[${i}].ncm`,
      codigo: 'campo_obrigatorio',
    }));

    const first = await read(w, id);
    expect(first.body.estado).toBe('rejeitada');
    expect(first.body.previa.total_erros).toBe(101);
    expect(located(first.body.previa.erros)).toEqual(expected.slice(0, 100));
    expect(typeof first.body.previa.proximo_cursor).toBe('string');
    const rest = await read(w, id, `?cursor=${encodeURIComponent(first.body.previa.proximo_cursor)}`);
    expect(located(rest.body.previa.erros)).toEqual(expected.slice(100));
    expect(rest.body.previa.proximo_cursor).toBeNull();
    expect(rest.body.previa.total_erros).toBe(101);
    expect(rest.etag).toBe(first.etag);

    const seen: unknown[] = [];
    let cursor: string | null = null;
    for (let guard = 0; guard < 10; guard++) {
      const page: Awaited<ReturnType<typeof read>> = await read(
        w,
        id,
        `?limite=40${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      );
      expect(page.body.previa.erros.length).toBeLessThanOrEqual(40);
      seen.push(...located(page.body.previa.erros));
      cursor = page.body.previa.proximo_cursor;
      if (cursor === null) break;
    }
    expect(seen).toEqual(expected);
    expect((await read(w, id, '?limite=1000')).body.previa.erros).toHaveLength(101);

    expectError(await w.api.get(`${ingestionPath(id)}?limite=0`), 422, 'valor_invalido', 'query.limite');
    expectError(await w.api.get(`${ingestionPath(id)}?limite=1001`), 422, 'valor_invalido', 'query.limite');
    expectError(await w.api.get(`${ingestionPath(id)}?cursor=abc`), 422, 'cursor_invalido', 'query.cursor');
    expectError(await w.api.get(`${ingestionPath(id)}?pagina=2`), 422, 'campo_desconhecido', 'query.pagina');
    // A cursor of another ingestion's errors is not a cursor of this list.
    const { id: other } = await ingest(w, { operacao: 'mesclar' }, [[{ origem: 'erp' }, { origem: 'erp' }]]);
    const otherPage = await read(w, other, '?limite=1');
    expect(typeof otherPage.body.previa.proximo_cursor).toBe('string');
    expectError(
      await w.api.get(`${ingestionPath(id)}?cursor=${encodeURIComponent(otherPage.body.previa.proximo_cursor)}`),
      422,
      'cursor_invalido',
      'query.cursor',
    );
  });

  it('refuses a bad cursor before validation too (no preview yet): 422 cursor_invalido', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    expectError(await w.api.get(`${ingestionPath(id)}?cursor=abc`), 422, 'cursor_invalido', 'query.cursor');
    expect((await w.api.get(`${ingestionPath(id)}?limite=5`)).body.previa).toBeNull();
  });
});

describe('POST /v1/catalogos/ingestoes/{id}/aplicacao', () => {
  it('needs If-Match (428), the current ETag (412) and a validada ingestion (409 ingestao_nao_validada)', async () => {
    needsControls(
      'the clock held still between the request that starts the job and its end: a real clock would race the test',
    );
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    await sendBatch(w, id, 1, [rec('A')]);
    const open = await read(w, id);
    expectError(await w.api.post(applyPath(id), {}), 428, 'precondicao_ausente', 'header.if-match');
    expectError(await w.api.post(applyPath(id), {}, { ifMatch: open.etag }), 409, 'ingestao_nao_validada');
    const closed = await close(w, id, 1);
    expectError(
      await w.api.post(applyPath(id), {}, { ifMatch: closed.headers.get('etag')! }),
      409,
      'ingestao_nao_validada',
    );
    expectError(
      await w.api.post(applyPath(id), {}, { ifMatch: open.etag }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    await advance(w, runMs(1));
    const validated = await read(w, id);
    expect(validated.body.estado).toBe('validada');
    expectError(await w.api.post(applyPath(id), {}), 428, 'precondicao_ausente', 'header.if-match');
    expectError(
      await w.api.post(applyPath(id), {}, { ifMatch: closed.headers.get('etag')! }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    expectError(
      await w.api.post(applyPath(id), { agora: true }, { ifMatch: validated.etag }),
      422,
      'campo_desconhecido',
      'body.agora',
    );
    const after = await read(w, id);
    expect(after.etag).toBe(validated.etag);
    expect(after.body.estado).toBe('validada');
    // A validada ingestion still holds its catalog.
    expectError(await w.api.post(INGESTOES, { operacao: 'mesclar' }), 409, 'ingestao_em_andamento');
  });

  it('refuses a rejected ingestion with 409 ingestao_nao_validada', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const { id, read: rejected } = await ingest(w, { operacao: 'mesclar' }, [[rec('A', { ncm: '1' })]]);
    expect(rejected.body.estado).toBe('rejeitada');
    expectError(await w.api.post(applyPath(id), {}, { ifMatch: rejected.etag }), 409, 'ingestao_nao_validada');
    expect((await read(w, id)).etag).toBe(rejected.etag);
  });

  // spec: WH-EVT-53, REQ-10
  it('answers 202 (aplicando) with Location and ETag; applies 1 s + 1 ms per record later; the catalog is held until then', async () => {
    needsControls('the clock');
    const w = await listening();
    const a = await headOfficeCatalog(w);
    await product(w, a.id, { id_externo: ext('A'), descricao: 'antes' });
    const { id, read: validated } = await ingest(w, { operacao: 'mesclar', referencia_externa: 'r-1' }, [
      [rec('A', { descricao: 'depois' }), rec('B'), rec('C')],
    ]);
    expect(validated.body.previa).toEqual(previa({ versao_catalogo: 2, registros: 3, novos: 2, alterados: 1 }));
    expectError(await w.api.post(INGESTOES, { operacao: 'mesclar' }), 409, 'ingestao_em_andamento');
    const t1 = await now(w);
    const answer = await w.api.post(applyPath(id), {}, { ifMatch: validated.etag });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.headers.get('location')).toBe(ingestionPath(id));
    expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(answer.body).toEqual({
      ...validated.body,
      estado: 'aplicando',
      versao: validated.body.versao + 1,
      atualizada_em: iso(t1),
      expira_em: answer.body.expira_em,
    });
    const applying = await read(w, id);
    expect(answer.headers.get('etag')).toBe(applying.etag);
    expect(applying.etag).not.toBe(validated.etag);
    expectError(await w.api.post(INGESTOES, { operacao: 'mesclar' }), 409, 'ingestao_em_andamento');
    expectError(await w.api.post(applyPath(id), {}, { ifMatch: applying.etag }), 409, 'ingestao_nao_validada');

    await advance(w, runMs(3) - 1);
    expect((await read(w, id)).body.estado).toBe('aplicando');
    expect(await byExternalId(w, 'B')).toBeUndefined();
    expect((await catalog(w, a.id)).versao).toBe(2);
    await advance(w, 1);
    const applied = await read(w, id);
    expect(applied.body).toMatchObject({
      estado: 'aplicada',
      codigo_falha: null,
      atualizada_em: iso(t1 + runMs(3)),
      aplicacao: { versao_catalogo: 3, aplicada_em: iso(t1 + runMs(3)) },
    });
    expect(applied.body.previa).toEqual(validated.body.previa);
    expect((await catalog(w, a.id)).versao).toBe(3);
    expect(await byExternalId(w, 'A')).toMatchObject({ descricao: 'depois', versao: 2 });
    expect(await byExternalId(w, 'B')).toMatchObject({ catalogos: [a.id], ativo: true, versao: 1 });
    expectError(await w.api.post(applyPath(id), {}, { ifMatch: applied.etag }), 409, 'ingestao_nao_validada');

    // catalogo.aplicado with exactly the spec's dados.
    const list = await w.api.get(`${EVENTS}?limite=100`);
    expect(list.body.itens.map((e: { tipo: string }) => e.tipo)).toEqual(['catalogo.aplicado']);
    const detail = await eventDetail(w, list.body.itens[0].id);
    expect(detail.evento.dados).toEqual({ tipo: 'catalogo.aplicado', catalogoId: a.id, versao: 3 });
    expect(Object.keys(detail.evento.dados)).toHaveLength(3);

    expect((await w.api.post(INGESTOES, { operacao: 'mesclar' })).status).toBe(201);
  });

  async function staleScene(operacao: Operacao = 'mesclar') {
    const w = await listening();
    const a = await headOfficeCatalog(w);
    const b = await branchCatalog(w);
    const m = await product(w, a.id, { id_externo: ext('M'), descricao: 'antes' });
    const gone = await product(w, a.id, { id_externo: ext('GONE') });
    const { id, read: validated } = await ingest(w, { operacao }, [[rec('M', { descricao: 'depois' }), rec('NEW')]]);
    expect(validated.body.estado).toBe('validada');
    return { w, a, b, m, gone, id, validated };
  }

  /** Asserts the ingestion ended revisao_necessaria with nothing applied and the event raised. */
  async function expectReview(sc: Awaited<ReturnType<typeof staleScene>>, versaoAtual: number): Promise<void> {
    const { w, a, id, validated } = sc;
    const ended = await read(w, id);
    expect(ended.body).toMatchObject({
      estado: 'revisao_necessaria',
      codigo_falha: 'catalogo_alterado',
      aplicacao: null,
    });
    expect((await catalog(w, a.id)).versao).toBe(versaoAtual);
    expect(await byExternalId(w, 'NEW')).toBeUndefined();
    expect((await byExternalId(w, 'M')).descricao).not.toBe('depois');
    const data = await eventData(w);
    expect(data).toEqual([
      {
        tipo: 'catalogo.revisao_necessaria',
        catalogoId: a.id,
        ingestaoId: id,
        versaoValidada: validated.body.previa.versao_catalogo,
        versaoAtual,
      },
    ]);
    // Final: the catalog is free.
    expect(await startStatus(w)).toBe(201);
  }

  it('ends revisao_necessaria when the catalog changed after validation (a product added): nothing applied', async () => {
    needsControls(
      'the clock held still between the request that starts the job and its end: a real clock would race the test',
    );
    const sc = await staleScene();
    const { w, a, id, validated } = sc;
    const v0 = validated.body.previa.versao_catalogo;
    const answer = await w.api.post(applyPath(id), {}, { ifMatch: validated.etag });
    expect(answer.status, answer.text).toBe(202);
    await product(w, a.id, { id_externo: ext('OUTRO') });
    await advance(w, runMs(2));
    await expectReview(sc, v0 + 1);
  });

  it('ends revisao_necessaria when the catalog changed before the apply request (a link)', async () => {
    const sc = await staleScene();
    const { w, a, b, id, validated } = sc;
    const v0 = validated.body.previa.versao_catalogo;
    const elsewhere = await product(w, b.id, { id_externo: ext('ELSEWHERE') });
    await link(w, a.id, elsewhere.id);
    const answer = await w.api.post(applyPath(id), {}, { ifMatch: validated.etag });
    expect(answer.status, answer.text).toBe(202);
    await finish(w, id, runMs(2));
    await expectReview(sc, v0 + 1);
  });

  it("ends revisao_necessaria when a matched product changed (the catalog's versao did not)", async () => {
    const sc = await staleScene();
    const { w, m, id, validated } = sc;
    const v0 = validated.body.previa.versao_catalogo;
    await editProduct(w, m.id, { sku: 'mudou' });
    expect((await w.api.post(applyPath(id), {}, { ifMatch: validated.etag })).status).toBe(202);
    await finish(w, id, runMs(2));
    await expectReview(sc, v0);
    expect((await readProduct(w, m.id)).body).toMatchObject({ sku: 'mudou', descricao: 'antes' });
  });

  it('ends revisao_necessaria when a product it would unlink changed', async () => {
    const sc = await staleScene('substituicao_catalogo');
    const { w, gone, id, validated } = sc;
    expect(validated.body.previa.desvinculados).toBe(1);
    const v0 = validated.body.previa.versao_catalogo;
    await editProduct(w, gone.id, { descricao: 'editado' });
    expect((await w.api.post(applyPath(id), {}, { ifMatch: validated.etag })).status).toBe(202);
    await finish(w, id, runMs(2));
    await expectReview(sc, v0);
    expect((await readProduct(w, gone.id)).body.catalogos).toEqual([sc.a.id]);
  });

  it('ends revisao_necessaria when the catalog was deleted while aplicando', async () => {
    needsControls(
      'the clock held still between the request that starts the job and its end: a real clock would race the test',
    );
    const sc = await staleScene();
    const { w, a, id, validated } = sc;
    expect((await w.api.post(applyPath(id), {}, { ifMatch: validated.etag })).status).toBe(202);
    await deleteCatalog(w, a.id);
    const deleted = await catalog(w, a.id);
    expect(deleted.estado).toBe('excluido');
    await advance(w, runMs(2));
    expect((await read(w, id)).body).toMatchObject({
      estado: 'revisao_necessaria',
      codigo_falha: 'catalogo_alterado',
      aplicacao: null,
    });
    expect(await byExternalId(w, 'NEW')).toBeUndefined();
    expect((await catalog(w, a.id)).versao).toBe(deleted.versao);
    expect(await eventData(w)).toEqual([
      {
        tipo: 'catalogo.revisao_necessaria',
        catalogoId: a.id,
        ingestaoId: id,
        versaoValidada: validated.body.previa.versao_catalogo,
        versaoAtual: deleted.versao,
      },
    ]);
  });

  it('ends revisao_necessaria when a new product took an id_externo the ingestion would create', async () => {
    needsControls(
      'the clock held still between the request that starts the job and its end: a real clock would race the test',
    );
    const sc = await staleScene();
    const { w, b, id, validated } = sc;
    const v0 = validated.body.previa.versao_catalogo;
    expect((await w.api.post(applyPath(id), {}, { ifMatch: validated.etag })).status).toBe(202);
    const taken = await product(w, b.id, { id_externo: ext('NEW'), descricao: 'outra' });
    await advance(w, runMs(2));
    const ended = await read(w, id);
    expect(ended.body).toMatchObject({ estado: 'revisao_necessaria', codigo_falha: 'catalogo_alterado' });
    expect((await catalog(w, sc.a.id)).versao).toBe(v0);
    expect(await byExternalId(w, 'NEW')).toMatchObject({ id: taken.id, descricao: 'outra', catalogos: [b.id] });
    expect((await byExternalId(w, 'M')).descricao).toBe('antes');
    expect(await eventData(w)).toEqual([
      { tipo: 'catalogo.revisao_necessaria', catalogoId: sc.a.id, ingestaoId: id, versaoValidada: v0, versaoAtual: v0 },
    ]);
  });
});

describe('job faults of kind ingestao', () => {
  it('a failing validation ends falhou (falha_execucao) with no preview, and frees the catalog', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    await sendBatch(w, id, 1, [rec('A')]);
    await ingestionFault(w, { fail: true });
    await close(w, id, 1);
    await advance(w, runMs(1));
    const failed = await read(w, id);
    expect(failed.body).toMatchObject({
      estado: 'falhou',
      codigo_falha: 'falha_execucao',
      previa: null,
      aplicacao: null,
    });
    expectError(await w.api.post(applyPath(id), {}, { ifMatch: failed.etag }), 409, 'ingestao_nao_validada');
    expect((await w.api.post(INGESTOES, { operacao: 'mesclar' })).status).toBe(201);
  });

  it('a failing application ends falhou with nothing applied and no event', async () => {
    const w = await listening();
    const a = await headOfficeCatalog(w);
    const { id, read: validated } = await ingest(w, { operacao: 'mesclar' }, [[rec('A'), rec('B')]]);
    await ingestionFault(w, { fail: true });
    expect((await w.api.post(applyPath(id), {}, { ifMatch: validated.etag })).status).toBe(202);
    await advance(w, runMs(2));
    const failed = await read(w, id);
    expect(failed.body).toMatchObject({ estado: 'falhou', codigo_falha: 'falha_execucao', aplicacao: null });
    expect(failed.body.previa).toEqual(validated.body.previa);
    expect(await byExternalId(w, 'A')).toBeUndefined();
    expect((await catalog(w, a.id)).versao).toBe(1);
    expect(await eventData(w)).toEqual([]);
    expect((await w.api.post(INGESTOES, { operacao: 'mesclar' })).status).toBe(201);
  });

  it('delayMs postpones the validation by that long', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    await sendBatch(w, id, 1, [rec('A'), rec('B')]);
    await ingestionFault(w, { delayMs: 5 * SECOND });
    await close(w, id, 1);
    await advance(w, runMs(2));
    expect((await read(w, id)).body.estado).toBe('validando');
    await advance(w, 5 * SECOND - 1);
    expect((await read(w, id)).body.estado).toBe('validando');
    await advance(w, 1);
    expect((await read(w, id)).body.estado).toBe('validada');
  });

  it('delayMs postpones the application by that long', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const { id, read: validated } = await ingest(w, { operacao: 'mesclar' }, [[rec('A')]]);
    await ingestionFault(w, { delayMs: MINUTE });
    expect((await w.api.post(applyPath(id), {}, { ifMatch: validated.etag })).status).toBe(202);
    await advance(w, runMs(1) + MINUTE - 1);
    expect((await read(w, id)).body.estado).toBe('aplicando');
    expect(await byExternalId(w, 'A')).toBeUndefined();
    await advance(w, 1);
    expect((await read(w, id)).body.estado).toBe('aplicada');
    expect(await byExternalId(w, 'A')).toMatchObject({ ativo: true });
  });
});

describe('expiry', () => {
  it('an aberta ingestion unchanged for 24 h expires (prazo_expirado), and the catalog is free again', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const t0 = await now(w);
    const { id } = await start(w);
    expect((await read(w, id)).body.expira_em).toBe(iso(t0 + DAY));
    await advance(w, DAY - 1);
    expect((await read(w, id)).body.estado).toBe('aberta');
    await advance(w, 1);
    const expired = await read(w, id);
    expect(expired.body).toMatchObject({
      estado: 'expirada',
      codigo_falha: 'prazo_expirado',
      atualizada_em: iso(t0 + DAY),
      previa: null,
    });
    expectError(await w.api.put(batchPath(id, 1), { itens: [rec('A')] }), 409, 'ingestao_fechada');
    expectError(await w.api.post(closePath(id), { total_lotes: 1 }), 409, 'ingestao_fechada');
    expect((await w.api.post(INGESTOES, { operacao: 'mesclar' })).status).toBe(201);
  });

  it('each accepted batch restarts the 24 h; a repeated batch does not', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const t0 = await now(w);
    const { id } = await start(w);
    await advance(w, 10 * HOUR);
    await sendBatch(w, id, 1, [rec('A')]);
    expect((await read(w, id)).body.expira_em).toBe(iso(t0 + 34 * HOUR));
    await advance(w, 10 * HOUR);
    const repeated = await w.api.put(batchPath(id, 1), { itens: [rec('A')] });
    expect(repeated.status).toBe(200);
    expect((await read(w, id)).body.expira_em).toBe(iso(t0 + 34 * HOUR));
    await advance(w, 14 * HOUR - 1); // t0 + 34 h - 1 ms
    expect((await read(w, id)).body.estado).toBe('aberta');
    await advance(w, 1);
    expect((await read(w, id)).body).toMatchObject({ estado: 'expirada', codigo_falha: 'prazo_expirado' });
  });

  it('a validada ingestion not applied within 24 h of its validation expires', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    await sendBatch(w, id, 1, [rec('A')]);
    await close(w, id, 1);
    const t0 = await now(w);
    await advance(w, runMs(1));
    const validated = await read(w, id);
    expect(validated.body).toMatchObject({ estado: 'validada', expira_em: iso(t0 + runMs(1) + DAY) });
    await advance(w, DAY - 1);
    expect((await read(w, id)).body.estado).toBe('validada');
    await advance(w, 1);
    const expired = await read(w, id);
    expect(expired.body).toMatchObject({ estado: 'expirada', codigo_falha: 'prazo_expirado' });
    expect(expired.body.previa).toEqual(validated.body.previa);
    expectError(await w.api.post(applyPath(id), {}, { ifMatch: validated.etag }), 412, 'precondicao_falhou');
    expectError(await w.api.post(applyPath(id), {}, { ifMatch: expired.etag }), 409, 'ingestao_nao_validada');
    expect(await byExternalId(w, 'A')).toBeUndefined();
    expect((await w.api.post(INGESTOES, { operacao: 'mesclar' })).status).toBe(201);
  });

  it('a validation that ends more than 24 h after the start still gives the validada ingestion its own 24 h', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const t0 = await now(w);
    const { id } = await start(w);
    await sendBatch(w, id, 1, [rec('A')]);
    await ingestionFault(w, { delayMs: DAY });
    await close(w, id, 1);
    await advance(w, runMs(1) + DAY);
    const validated = await read(w, id);
    expect(validated.body).toMatchObject({
      estado: 'validada',
      atualizada_em: iso(t0 + runMs(1) + DAY),
      expira_em: iso(t0 + runMs(1) + 2 * DAY),
    });
    await advance(w, DAY - 1);
    expect((await read(w, id)).body.estado).toBe('validada');
    await advance(w, 1);
    expect((await read(w, id)).body).toMatchObject({ estado: 'expirada', codigo_falha: 'prazo_expirado' });
  });

  it('a validando or aplicando ingestion does not expire', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const { id } = await start(w);
    await sendBatch(w, id, 1, [rec('A')]);
    await ingestionFault(w, { delayMs: 2 * DAY });
    await close(w, id, 1);
    await advance(w, DAY + HOUR);
    expect((await read(w, id)).body.estado).toBe('validando');
    await advance(w, DAY);
    const validated = await read(w, id);
    expect(validated.body.estado).toBe('validada');
    await ingestionFault(w, { delayMs: 2 * DAY });
    expect((await w.api.post(applyPath(id), {}, { ifMatch: validated.etag })).status).toBe(202);
    await advance(w, DAY + HOUR);
    expect((await read(w, id)).body.estado).toBe('aplicando');
    await advance(w, DAY);
    expect((await read(w, id)).body).toMatchObject({ estado: 'aplicada', codigo_falha: null });
    expect(await byExternalId(w, 'A')).toMatchObject({ ativo: true });
  });
});

describe('GET /v1/catalogos/ingestoes', () => {
  // Neither the spec nor its unshown operations list ingestions: the path takes only the start (POST).
  it('is not an operation: 405 metodo_nao_permitido with Allow: POST, whatever the query', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    await start(w);
    for (const query of ['', '?limite=2', '?cursor=abc']) {
      const answer = await w.api.get(`${INGESTOES}${query}`);
      expectError(answer, 405, 'metodo_nao_permitido');
      expect(answer.headers.get('allow')).toBe('POST');
    }
  });
});
