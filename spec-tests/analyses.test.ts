/**
 * Full-company analyses over HTTP: spec "POST /v1/analises" (the durable acceptance consumes no allowance;
 * the surveillance selection does not restrict the diagnosis; 200 or 202 with Location), "GET /v1/analises",
 * "Analysis acceptance", the analysis states, the events analise.concluida and analise.falhou; the emulator's
 * choices (docs/api.md "Analyses"): the run 1 minute after acceptance taking one allowance unit (or
 * failing sem_franquia), its 10 s duration for a small company, the detail at each phase, the summary counts
 * by tipo, the findings pages, the CSV export, the job faults of kind analise, the permissions.
 *
 * Driven only through HTTP (the API and /_emulator), so the file runs the same in process and against the
 * built CLI. Each test has its own company; times are read from the clock at the start of the test (the
 * server's clock is shared). Every fault a test adds matches its own company and is removed after the test;
 * every webhook destination is on a host of its own (the inbox is shared on the server).
 *
 * The regulatory reference is global (one per emulator, shared by every company on the server): the tests
 * read it (GET /_emulator/regulatory) to pick their NCM codes, and extinguish only codes picked that way,
 * never the one the other spec files give their products.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  headOfficeCatalog,
  newKey,
  otherCompany,
  world,
  type Answer,
  type Controls,
  type World,
} from './support/client.js';
import { expectControlError, expectError, REQUEST_ID, UUID } from './support/expect.js';
import { branchCatalog, cursorPages, productsPath, UNKNOWN_V7_ID } from './support/fixtures.js';
import { counts, csvLine, findingPages, TIPOS, type Tipo } from './support/jobs.js';
import {
  BAD_VALUE,
  cleanAttributes,
  cleanNcm,
  MISSING_NCM,
  reference,
  unknownAttributes,
  validNcms,
  withBadValue,
  type Reference,
} from './support/regulatory.js';
import { createDestination, inboxFor, uniqueHost } from './support/webhook-setup.js';
import { needsOwnCompany } from './support/deployment.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
/** Acceptance → start, and the run of a small company (decisions). */
const START = MINUTE;
const RUN = 10 * SECOND;

const ANALISES = '/v1/analises';
const analysisPath = (id: string) => `${ANALISES}/${id}`;
const findingsPath = (id: string) => `${analysisPath(id)}/achados`;
const csvPath = (id: string) => `${analysisPath(id)}/resultado.csv`;
const CAPACIDADE = '/v1/empresa/capacidade';
const iso = (ms: number) => new Date(ms).toISOString();

const UNKNOWN_ATTRIBUTES = ['ATT_9998', 'ATT_9999'];

/** The faults the current test added, removed after it (a consumed one is already gone: 404). */
const addedFaults: { controls: Controls; id: string }[] = [];
afterEach(async () => {
  for (const { controls, id } of addedFaults.splice(0).reverse()) {
    const answer = await controls.raw('DELETE', `/faults/${id}`);
    if (answer.status !== 204) expectControlError(answer, 404, 'falha_nao_encontrada');
  }
});

/** A job fault on this company's analyses only. */
async function analysisFault(w: World, effect: Record<string, unknown>): Promise<string> {
  const { id } = await w.controls.addFault({
    target: 'job',
    match: { kind: 'analise', companyId: w.company.companyId },
    effect,
    times: 1,
  });
  addedFaults.push({ controls: w.controls, id });
  return id;
}

async function now(w: World): Promise<number> {
  return Date.parse((await w.controls.clock()).now);
}

async function advance(w: World, ms: number): Promise<void> {
  await w.controls.advance(ms);
}

/** Why a test that asks for a new analysis (202) needs a company of its own. */
const NEW_ANALYSIS =
  'asks for a new analysis of the whole company (202): the shared company may have one open, to which POST answers 200 with its id';

/** An analysis of the company to address: the new one (202) or, where the company is shared, the one open (200). */
async function someAnalysis(w: World): Promise<string> {
  const answer = await w.api.post(ANALISES, {});
  expect([200, 202], answer.text).toContain(answer.status);
  return answer.body.id;
}

/** The ids of the company's analyses on the list's first page (newest first). */
async function listedIds(w: World): Promise<string[]> {
  const list = await w.api.get(ANALISES);
  expect(list.status, list.text).toBe(200);
  return list.body.itens.map((i: { id: string }) => i.id);
}

/** POST /v1/analises; fails unless 202. */
async function accept(w: World): Promise<string> {
  needsOwnCompany(NEW_ANALYSIS);
  const answer = await w.api.post(ANALISES, {});
  if (answer.status !== 202) throw new Error(`analysis request answered ${answer.status}: ${answer.text}`);
  return answer.body.id;
}

async function detail(w: World, id: string): Promise<any> {
  const answer = await w.api.get(analysisPath(id));
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
  return answer.body;
}

/** GET /v1/empresa/capacidade's analises. */
async function allowance(w: World): Promise<{ franquia: number; disponiveis: number }> {
  const answer = await w.api.get(CAPACIDADE);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.analises;
}

/** Accepts an analysis and moves the clock to its end (small company): the analysis id and the end time. */
async function concluded(w: World): Promise<{ id: string; t0: number; end: number }> {
  const t0 = await now(w);
  const id = await accept(w);
  await advance(w, START + RUN);
  const read = await detail(w, id);
  expect(read.estado, JSON.stringify(read)).toBe('concluida');
  return { id, t0, end: t0 + START + RUN };
}

/** Codes to extinguish: valid ones from the end of the table, none of `avoid`. */
function spareNcms(ref: Reference, count: number, avoid: readonly string[] = []): string[] {
  const codes = validNcms(ref).filter((c) => !avoid.includes(c) && c !== cleanNcm(ref));
  const picked = codes.slice(-count);
  expect(picked).toHaveLength(count);
  return picked;
}

/** Publishes a reference change; the new snapshot's id. */
async function publish(w: World, change: Record<string, unknown>): Promise<string> {
  const answer = await w.controls.raw('POST', '/regulatory/snapshots', change);
  expect(answer.status, answer.text).toBe(201);
  return answer.body.id;
}

/** A product in `catalogId` (a clean one of `ncm` unless `fields` say otherwise); its id. */
async function item(
  w: World,
  catalogId: string,
  ref: Reference,
  fields: Record<string, unknown> = {},
): Promise<string> {
  const ncm = (fields.ncm as string | undefined) ?? cleanNcm(ref);
  const atributos = 'atributos' in fields ? fields.atributos : cleanAttributes(ref, ncm);
  const answer = await w.api.post(productsPath(catalogId), {
    origem: 'erp',
    ncm,
    descricao: 'Produto de teste',
    ...fields,
    atributos,
  });
  if (answer.status !== 201) throw new Error(`product creation answered ${answer.status}: ${answer.text}`);
  return answer.body.id;
}

/** Every finding of a concluded analysis, following proximo_cursor; the pages too (support/jobs.ts). */
const allFindings = (w: World, id: string) => findingPages(w, findingsPath(id));

describe('POST /v1/analises: acceptance', () => {
  // spec: ANA-01, ANA-02, ANA-04, ANA-05, REQ-09, REQ-10
  it('answers 202 {id, estado: pendente} with Location and no ETag; while it is open, 200 with the same id and Location', async () => {
    needsOwnCompany(NEW_ANALYSIS);
    const w = await world();
    const first = await w.api.post(ANALISES, {});
    expect(first.status, first.text).toBe(202);
    expect(first.body).toEqual({ id: expect.stringMatching(UUID), estado: 'pendente' });
    expect(first.headers.get('location')).toBe(`/v1/analises/${first.body.id}`);
    expect(first.headers.get('etag')).toBeNull();
    expect(first.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await w.api.post(ANALISES, {});
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual({ id: first.body.id, estado: 'pendente' });
    expect(again.headers.get('location')).toBe(`/v1/analises/${first.body.id}`);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    // Still the same one once it runs, now executando.
    await advance(w, START);
    const running = await w.api.post(ANALISES, {});
    expect(running.status, running.text).toBe(200);
    expect(running.body).toEqual({ id: first.body.id, estado: 'executando' });
    expect(running.headers.get('location')).toBe(`/v1/analises/${first.body.id}`);
    const list = await w.api.get(ANALISES);
    expect(list.body.itens.map((i: { id: string }) => i.id)).toEqual([first.body.id]);
  });

  it('takes an absent body like {}', async () => {
    needsOwnCompany(NEW_ANALYSIS);
    const w = await world();
    const answer = await w.api.post(ANALISES);
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body.estado).toBe('pendente');
    expect((await w.api.post(ANALISES)).status).toBe(200);
  });

  // spec: ANA-03
  it('refuses a body with fields (422 campo_desconhecido) and a missing idempotency-key (400), creating nothing', async () => {
    const w = await world();
    // The list before: empty in a new company; a deployment's shared company may list earlier analyses.
    const before = await listedIds(w);
    expectError(await w.api.post(ANALISES, { completa: true }), 422, 'campo_desconhecido', 'body.completa');
    expectError(await w.api.post(ANALISES, {}, { key: null }), 400, 'chave_idempotencia_ausente');
    expect(await listedIds(w)).toEqual(before);
  });

  it('creates a new analysis (202, another id) once the first concluded, and again once one failed', async () => {
    const w = await world();
    const { id: first } = await concluded(w);
    const second = await w.api.post(ANALISES, {});
    expect(second.status, second.text).toBe(202);
    expect(second.body).toEqual({ id: expect.stringMatching(UUID), estado: 'pendente' });
    expect(second.body.id).not.toBe(first);
    expect(second.headers.get('location')).toBe(`/v1/analises/${second.body.id}`);
    await analysisFault(w, { fail: true });
    await advance(w, START + RUN);
    expect((await detail(w, second.body.id)).estado).toBe('falhou');
    const third = await w.api.post(ANALISES, {});
    expect(third.status, third.text).toBe(202);
    expect(new Set([first, second.body.id, third.body.id]).size).toBe(3);
  });

  // spec: REQ-02, REQ-03
  it('repeats the stored answer for the same idempotency-key (idempotent-replayed), even after the analysis concluded, and creates nothing', async () => {
    needsOwnCompany(NEW_ANALYSIS);
    const w = await world();
    const k1 = newKey();
    const first = await w.api.post(ANALISES, {}, { key: k1 });
    expect(first.status, first.text).toBe(202);
    const replay = await w.api.post(ANALISES, {}, { key: k1 });
    expect(replay.status, replay.text).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('location')).toBe(first.headers.get('location'));
    // An absent body is the same request as {} (the fingerprint's body of a no-field operation).
    const absent = await w.api.post(ANALISES, undefined, { key: k1 });
    expect(absent.status, absent.text).toBe(202);
    expect(absent.headers.get('idempotent-replayed')).toBe('true');
    expect(absent.text).toBe(first.text);
    // The 200 for the open one is stored under its own key.
    const k2 = newKey();
    const open = await w.api.post(ANALISES, {}, { key: k2 });
    expect(open.status, open.text).toBe(200);
    await advance(w, START + RUN);
    expect((await detail(w, first.body.id)).estado).toBe('concluida');
    const late = await w.api.post(ANALISES, {}, { key: k1 });
    expect(late.status, late.text).toBe(202);
    expect(late.headers.get('idempotent-replayed')).toBe('true');
    expect(late.text).toBe(first.text);
    expect(late.body).toEqual({ id: first.body.id, estado: 'pendente' });
    const lateOpen = await w.api.post(ANALISES, {}, { key: k2 });
    expect(lateOpen.status, lateOpen.text).toBe(200);
    expect(lateOpen.headers.get('idempotent-replayed')).toBe('true');
    expect(lateOpen.text).toBe(open.text);
    const list = await w.api.get(ANALISES);
    expect(list.body.itens.map((i: { id: string }) => i.id)).toEqual([first.body.id]);
    // A new key after the conclusion is a new request: a new analysis.
    const fresh = await w.api.post(ANALISES, {});
    expect(fresh.status, fresh.text).toBe(202);
    expect(fresh.body.id).not.toBe(first.body.id);
  });
});

describe('GET /v1/analises/{id}: the detail at each phase', () => {
  it('is pendente na_fila until 1 min, executando avaliando from 1 min, concluida publicada at 1 min + 10 s (small company)', async () => {
    const w = await world();
    const ref = await reference(w);
    const catalog = await headOfficeCatalog(w);
    await item(w, catalog.id, ref);
    const blank = await item(w, catalog.id, ref, { descricao: undefined });
    const t0 = await now(w);
    const id = await accept(w);
    const base = { id, criada_em: iso(t0) };
    const pendente = {
      ...base,
      estado: 'pendente',
      fase: 'na_fila',
      resultado_disponivel: false,
      iniciada_em: null,
      terminada_em: null,
      codigo_falha: null,
      resumo: null,
    };
    expect(await detail(w, id)).toEqual(pendente);
    await advance(w, START - 1);
    expect(await detail(w, id)).toEqual(pendente);
    await advance(w, 1);
    const executando = { ...pendente, estado: 'executando', fase: 'avaliando', iniciada_em: iso(t0 + START) };
    expect(await detail(w, id)).toEqual(executando);
    await advance(w, RUN - 1);
    expect(await detail(w, id)).toEqual(executando);
    await advance(w, 1);
    const read = await w.api.get(analysisPath(id));
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual({
      ...base,
      estado: 'concluida',
      fase: 'publicada',
      resultado_disponivel: true,
      iniciada_em: iso(t0 + START),
      terminada_em: iso(t0 + START + RUN),
      codigo_falha: null,
      resumo: {
        produtos_avaliados: 2,
        total_achados: 1,
        achados_por_tipo: counts({ descricao_ausente: 1 }),
        snapshot_id: ref.id,
      },
    });
    expect(read.headers.get('x-request-id')).toMatch(REQUEST_ID);
    const { items } = await allFindings(w, id);
    expect(items).toEqual([
      {
        produto_id: blank,
        ncm: cleanNcm(ref),
        tipo: 'descricao_ausente',
        detalhe: expect.any(String),
        avaliado_em: iso(t0 + START + RUN),
        snapshot_id: ref.id,
        reaproveitado: false,
      },
    ]);
    // The list item shows the same fields as the detail.
    const list = await w.api.get(ANALISES);
    expect(list.body.itens).toEqual([
      { id, estado: 'concluida', fase: 'publicada', criada_em: iso(t0), resultado_disponivel: true },
    ]);
  });

  it('is final once concluida: later clock moves, product changes and publications leave the detail and findings as they were', async () => {
    const w = await world();
    const ref = await reference(w);
    const [code] = spareNcms(ref, 1);
    const catalog = await headOfficeCatalog(w);
    await item(w, catalog.id, ref, { ncm: code, atributos: cleanAttributes(ref, code!), descricao: undefined });
    const { id } = await concluded(w);
    const before = (await w.api.get(analysisPath(id))).text;
    const findingsBefore = (await w.api.get(findingsPath(id))).text;
    const csvBefore = (await w.api.get(csvPath(id))).text;
    await publish(w, { extinguir: [code] });
    await item(w, catalog.id, ref, { ncm: MISSING_NCM });
    await advance(w, 10 * MINUTE);
    expect((await w.api.get(analysisPath(id))).text).toBe(before);
    expect((await w.api.get(findingsPath(id))).text).toBe(findingsBefore);
    expect((await w.api.get(csvPath(id))).text).toBe(csvBefore);
  });
});

describe('the summary (resumo)', () => {
  it('counts the findings by tipo for products built to trigger each one, every tipo listed', async () => {
    const w = await world();
    const ref = await reference(w);
    for (const code of UNKNOWN_ATTRIBUTES) expect(ref.atributos.map((a) => a.codigo)).not.toContain(code);
    expect(ref.ncms.map((n) => n.codigo)).not.toContain(MISSING_NCM);
    const clean = cleanNcm(ref);
    const required = cleanAttributes(ref, clean);
    expect(required.length).toBeGreaterThan(0);
    const [extinct] = spareNcms(ref, 1);
    const catalog = await headOfficeCatalog(w);
    const expected: [string, Tipo[]][] = [];
    const add = async (fields: Record<string, unknown>, tipos: Tipo[]) =>
      expected.push([await item(w, catalog.id, ref, fields), tipos]);
    await add({ ncm: MISSING_NCM, atributos: [] }, ['ncm_inexistente']);
    // Extinct: the required attributes are then not checked (these carry none).
    await add({ ncm: extinct, atributos: [] }, ['ncm_extinta']);
    await add({ ncm: extinct }, ['ncm_extinta']);
    for (let i = 0; i < 3; i++) await add({ atributos: required.slice(1) }, ['atributo_obrigatorio_ausente']);
    await add({ atributos: withBadValue(ref, clean, BAD_VALUE) }, ['atributo_valor_invalido']);
    await add({ atributos: [...required, ...UNKNOWN_ATTRIBUTES.map((codigo) => ({ codigo, valores: ['x'] }))] }, [
      'atributo_desconhecido',
      'atributo_desconhecido',
    ]);
    await add({ descricao: undefined }, ['descricao_ausente']);
    await add({ descricao: '   ' }, ['descricao_ausente']);
    await add({}, []);
    const published = await publish(w, { extinguir: [extinct] });
    const { id, end } = await concluded(w);
    const read = await detail(w, id);
    expect(read.resumo).toEqual({
      produtos_avaliados: 11,
      total_achados: 11,
      achados_por_tipo: counts({
        ncm_inexistente: 1,
        ncm_extinta: 2,
        atributo_obrigatorio_ausente: 3,
        atributo_valor_invalido: 1,
        atributo_desconhecido: 2,
        descricao_ausente: 2,
      }),
      snapshot_id: published,
    });
    expect(Object.keys(read.resumo.achados_por_tipo).sort()).toEqual([...TIPOS].sort());
    // The findings themselves: per product in creation order, then by rule.
    const { items } = await allFindings(w, id);
    expect(items.map((f) => [f.produto_id, f.tipo])).toEqual(
      expected.flatMap(([product, tipos]) => tipos.map((t) => [product, t])),
    );
    for (const f of items) {
      expect(f).toMatchObject({ avaliado_em: iso(end), snapshot_id: published, reaproveitado: false });
      expect(f.detalhe.length).toBeGreaterThan(0);
    }
    expect(items.find((f) => f.tipo === 'ncm_inexistente')!.ncm).toBe(MISSING_NCM);
    expect(items.filter((f) => f.tipo === 'ncm_extinta').map((f) => f.ncm)).toEqual([extinct, extinct]);
    expect(items.find((f) => f.tipo === 'atributo_valor_invalido')!.detalhe).toContain(BAD_VALUE);
    const unknown = items.filter((f) => f.tipo === 'atributo_desconhecido').map((f) => f.detalhe);
    expect(unknown[0]).toContain('ATT_9998');
    expect(unknown[1]).toContain('ATT_9999');
    expect(items.find((f) => f.tipo === 'atributo_obrigatorio_ausente')!.detalhe).toContain(required[0]!.codigo);
  });

  it('evaluates only active products: the exclusive products of a deleted catalog are not evaluated, shared ones are', async () => {
    const w = await world();
    const ref = await reference(w);
    const head = await headOfficeCatalog(w);
    const other = await branchCatalog(w);
    const exclusive = await item(w, other.id, ref, { descricao: undefined });
    const shared = await item(w, other.id, ref, { descricao: undefined });
    const product = await w.api.get(`/v1/produtos/${shared}`);
    const linked = await w.api.put(`${productsPath(head.id)}/${shared}`, undefined, {
      ifMatch: product.headers.get('etag')!,
    });
    expect(linked.status, linked.text).toBe(200);
    await item(w, head.id, ref);
    const preview = await w.api.get(`/v1/catalogos/${other.id}/impacto-exclusao`);
    expect(preview.status, preview.text).toBe(200);
    const deleted = await w.api.delete(`/v1/catalogos/${other.id}`, undefined, {
      ifMatch: preview.headers.get('etag')!,
    });
    expect(deleted.status, deleted.text).toBe(200);
    expect((await w.api.get(`/v1/produtos/${exclusive}`)).body.ativo).toBe(false);
    const { id } = await concluded(w);
    const read = await detail(w, id);
    expect(read.resumo).toMatchObject({
      produtos_avaliados: 2,
      total_achados: 1,
      achados_por_tipo: counts({ descricao_ausente: 1 }),
    });
    const { items } = await allFindings(w, id);
    expect(items.map((f) => f.produto_id)).toEqual([shared]);
  });

  // spec: ANA-07
  it('ignores the surveillance selection: selected, unselected and unlinked active products are all evaluated', async () => {
    const w = await world({}, { surveillanceCapacity: 5 });
    const ref = await reference(w);
    const catalog = await headOfficeCatalog(w);
    const ids = [
      await item(w, catalog.id, ref, { descricao: undefined }),
      await item(w, catalog.id, ref, { descricao: undefined }),
      await item(w, catalog.id, ref, { descricao: undefined }),
    ];
    const view = await w.api.get('/v1/empresa/vigilancia');
    const selected = await w.api.patch(
      '/v1/empresa/vigilancia',
      { modo: 'selecao', adicionar: [ids[0]] },
      { ifMatch: view.headers.get('etag')! },
    );
    expect(selected.status, selected.text).toBe(200);
    expect(selected.body.selecionados).toBe(1);
    // One of the unselected ones leaves its only catalog (it stays active).
    const product = await w.api.get(`/v1/produtos/${ids[2]}`);
    const unlinked = await w.api.delete(`${productsPath(catalog.id)}/${ids[2]}`, undefined, {
      ifMatch: product.headers.get('etag')!,
    });
    expect(unlinked.status, unlinked.text).toBe(200);
    expect(unlinked.body).toMatchObject({ ativo: true, catalogos: [] });
    const { id } = await concluded(w);
    expect((await detail(w, id)).resumo).toMatchObject({
      produtos_avaliados: 3,
      total_achados: 3,
      achados_por_tipo: counts({ descricao_ausente: 3 }),
    });
    const { items } = await allFindings(w, id);
    expect(items.map((f) => f.produto_id)).toEqual(ids);
  });

  it('uses the reference in force when the run ends: a publication during the run shows as snapshot_id and in the findings', async () => {
    const w = await world();
    const ref = await reference(w);
    const [code] = spareNcms(ref, 1);
    const catalog = await headOfficeCatalog(w);
    const product = await item(w, catalog.id, ref, { ncm: code, atributos: cleanAttributes(ref, code!) });
    const t0 = await now(w);
    const id = await accept(w);
    await advance(w, START);
    expect((await detail(w, id)).estado).toBe('executando');
    const published = await publish(w, { extinguir: [code] });
    expect(published).not.toBe(ref.id);
    await advance(w, RUN);
    const read = await detail(w, id);
    expect(read.resumo).toEqual({
      produtos_avaliados: 1,
      total_achados: 1,
      achados_por_tipo: counts({ ncm_extinta: 1 }),
      snapshot_id: published,
    });
    const { items } = await allFindings(w, id);
    expect(items).toEqual([
      {
        produto_id: product,
        ncm: code,
        tipo: 'ncm_extinta',
        detalhe: expect.stringContaining(code!),
        avaliado_em: iso(t0 + START + RUN),
        snapshot_id: published,
        reaproveitado: false,
      },
    ]);
    const current = await reference(w);
    expect(current.id).toBe(published);
  });
});

describe('GET /v1/analises/{id}/achados', () => {
  it('answers 409 resultado_indisponivel while pendente and executando, and for a failed analysis', async () => {
    const w = await world();
    const id = await accept(w);
    expectError(await w.api.get(findingsPath(id)), 409, 'resultado_indisponivel');
    await advance(w, START);
    expect((await detail(w, id)).estado).toBe('executando');
    expectError(await w.api.get(findingsPath(id)), 409, 'resultado_indisponivel');
    await advance(w, RUN);
    expect((await w.api.get(findingsPath(id))).status).toBe(200);
    await analysisFault(w, { fail: true });
    const failed = await accept(w);
    await advance(w, START + RUN);
    expect((await detail(w, failed)).estado).toBe('falhou');
    expectError(await w.api.get(findingsPath(failed)), 409, 'resultado_indisponivel');
  });

  /** Two products of 129 findings each (an NCM not in the table, 128 attribute codes in no dictionary): 258 findings, more than a page. */
  async function manyFindings(w: World): Promise<string[]> {
    const ref = await reference(w);
    const catalog = await headOfficeCatalog(w);
    const products: string[] = [];
    for (let i = 0; i < 2; i++)
      products.push(await item(w, catalog.id, ref, { ncm: MISSING_NCM, atributos: unknownAttributes(128) }));
    return products;
  }

  // As SURV-27 and LIM-23 state for GET /v1/vigilancias/{id}/resultados (Query `cursor`, at most 200 findings per page); the analysis findings follow it.
  it('pages with cursor only: at most 200 findings a page, total_achados on every page, every finding exactly once, in the order of the full list', async () => {
    const w = await world();
    const products = await manyFindings(w);
    const { id } = await concluded(w);
    const walked = await allFindings(w, id);
    expect(walked.pages.map((p) => p.body.itens.length)).toEqual([200, 58]);
    expect(walked.pages.map((p) => p.body.total_achados)).toEqual([258, 258]);
    expect(new Set(walked.items.map((f) => `${f.produto_id}|${f.tipo}|${f.detalhe}`)).size).toBe(258);
    // The full list's order: product by product, each one's findings by rule, then by attribute code.
    expect(walked.items.map((f) => f.produto_id)).toEqual([
      ...Array<string>(129).fill(products[0]!),
      ...Array<string>(129).fill(products[1]!),
    ]);
    expect(walked.items.slice(0, 3).map((f) => [f.tipo, f.detalhe])).toEqual([
      ['ncm_inexistente', expect.stringContaining(MISSING_NCM)],
      ['atributo_desconhecido', expect.stringContaining('FORA_DO_DICIONARIO_000')],
      ['atributo_desconhecido', expect.stringContaining('FORA_DO_DICIONARIO_001')],
    ]);
  });

  it('answers an empty page for an analysis without findings', async () => {
    const w = await world();
    const { id } = await concluded(w);
    const answer = await w.api.get(findingsPath(id));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ total_achados: 0, itens: [], proximo_cursor: null });
  });

  // spec: "GET /v1/vigilancias/{id}/resultados" offers only `cursor`; an unknown query parameter is refused like any other.
  it("refuses limite, whatever its value (422 campo_desconhecido query.limite: the page size is the service's), and a cursor not of this list (422 cursor_invalido query.cursor)", async () => {
    const w = await world();
    await manyFindings(w);
    const { id } = await concluded(w);
    const { id: second } = await concluded(w);
    for (const limite of ['1', '50', '200', '0', 'abc'])
      expectError(await w.api.get(`${findingsPath(id)}?limite=${limite}`), 422, 'campo_desconhecido', 'query.limite');
    const page = await w.api.get(findingsPath(second));
    const cursor = page.body.proximo_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    expectError(
      await w.api.get(`${findingsPath(second)}?cursor=${encodeURIComponent(cursor)}&limite=10`),
      422,
      'campo_desconhecido',
      'query.limite',
    );
    expect((await w.api.get(`${findingsPath(second)}?cursor=${encodeURIComponent(cursor)}`)).body.itens).toHaveLength(
      58,
    );
    expectError(await w.api.get(`${findingsPath(id)}?cursor=nao-e-um-cursor`), 422, 'cursor_invalido', 'query.cursor');
    // Another analysis's cursor, and the analysis list's cursor.
    expectError(
      await w.api.get(`${findingsPath(id)}?cursor=${encodeURIComponent(cursor)}`),
      422,
      'cursor_invalido',
      'query.cursor',
    );
    const analyses = await w.api.get(`${ANALISES}?limite=1`);
    expectError(
      await w.api.get(`${findingsPath(id)}?cursor=${encodeURIComponent(analyses.body.proximo_cursor)}`),
      422,
      'cursor_invalido',
      'query.cursor',
    );
  });
});

describe('GET /v1/analises/{id}/resultado.csv', () => {
  it('exports every finding: text/csv header=present, a header row, CRLF line ends, quoted fields with doubled quotes, UTF-8', async () => {
    const w = await world();
    const ref = await reference(w);
    const catalog = await headOfficeCatalog(w);
    const clean = cleanNcm(ref);
    const bad = await item(w, catalog.id, ref, { atributos: withBadValue(ref, clean, BAD_VALUE) });
    await item(w, catalog.id, ref, { ncm: MISSING_NCM, atributos: [], descricao: undefined });
    const { id, end } = await concluded(w);
    const { items } = await allFindings(w, id);
    expect(items.map((f) => f.tipo)).toEqual(['atributo_valor_invalido', 'ncm_inexistente', 'descricao_ausente']);
    const response = await w.target.fetch(csvPath(id), { headers: { authorization: `Bearer ${w.company.token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(response.headers.get('x-request-id')).toMatch(REQUEST_ID);
    const bytes = Buffer.from(await response.arrayBuffer());
    const expected =
      csvLine(['produto_id', 'ncm', 'tipo', 'detalhe', 'avaliado_em', 'snapshot_id']) +
      items.map((f) => csvLine([f.produto_id, f.ncm, f.tipo, f.detalhe, f.avaliado_em, f.snapshot_id])).join('');
    expect(bytes.toString('utf8')).toBe(expected);
    expect(bytes.equals(Buffer.from(expected, 'utf8'))).toBe(true);
    const text = bytes.toString('utf8');
    expect(text.startsWith('produto_id,ncm,tipo,detalhe,avaliado_em,snapshot_id\r\n')).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    // The bad value's line: its detalhe quoted, the value's own quotes doubled.
    const badLine = text.split('\r\n')[1]!;
    expect(badLine.startsWith(`${bad},${clean},atributo_valor_invalido,"`)).toBe(true);
    expect(badLine).toContain('fora, ""do"" domínio');
    expect(badLine.endsWith(`",${iso(end)},${ref.id}`)).toBe(true);
    expect(text.split('\r\n')).toHaveLength(5);
  });

  it('exports only the header row for an analysis without findings', async () => {
    const w = await world();
    const { id } = await concluded(w);
    const answer = await w.api.get(csvPath(id));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.text).toBe('produto_id,ncm,tipo,detalhe,avaliado_em,snapshot_id\r\n');
  });

  it('answers 409 resultado_indisponivel while pendente and executando, and for a failed analysis', async () => {
    const w = await world();
    const id = await accept(w);
    expectError(await w.api.get(csvPath(id)), 409, 'resultado_indisponivel');
    await advance(w, START);
    expectError(await w.api.get(csvPath(id)), 409, 'resultado_indisponivel');
    await advance(w, RUN);
    expect((await w.api.get(csvPath(id))).status).toBe(200);
    await w.controls.updateCompany(w.company.companyId, { analysisAllowance: 1 });
    const failed = await accept(w);
    await advance(w, START);
    expect((await detail(w, failed)).codigo_falha).toBe('sem_franquia');
    expectError(await w.api.get(csvPath(failed)), 409, 'resultado_indisponivel');
  });
});

describe('the analysis allowance', () => {
  // spec: ANA-06
  it('does not move at acceptance; disponiveis drops by one when a run starts; with none left the run fails sem_franquia', async () => {
    const w = await world({}, { analysisAllowance: 2 });
    expect(await allowance(w)).toEqual({ franquia: 2, disponiveis: 2 });
    const t0 = await now(w);
    const first = await accept(w);
    expect(await allowance(w)).toEqual({ franquia: 2, disponiveis: 2 });
    expect((await w.api.post(ANALISES, {})).status).toBe(200);
    expect(await allowance(w)).toEqual({ franquia: 2, disponiveis: 2 });
    await advance(w, START - 1);
    expect(await allowance(w)).toEqual({ franquia: 2, disponiveis: 2 });
    await advance(w, 1);
    expect((await detail(w, first)).estado).toBe('executando');
    expect(await allowance(w)).toEqual({ franquia: 2, disponiveis: 1 });
    await advance(w, RUN);
    expect((await detail(w, first)).estado).toBe('concluida');
    expect(await allowance(w)).toEqual({ franquia: 2, disponiveis: 1 });
    const second = await accept(w);
    expect(await allowance(w)).toEqual({ franquia: 2, disponiveis: 1 });
    await advance(w, START + RUN);
    expect((await detail(w, second)).estado).toBe('concluida');
    expect(await allowance(w)).toEqual({ franquia: 2, disponiveis: 0 });
    const t3 = await now(w);
    expect(t3).toBe(t0 + 2 * (START + RUN));
    const third = await accept(w);
    expect(await allowance(w)).toEqual({ franquia: 2, disponiveis: 0 });
    expect((await detail(w, third)).estado).toBe('pendente');
    await advance(w, START);
    expect(await detail(w, third)).toEqual({
      id: third,
      estado: 'falhou',
      fase: 'encerrada',
      criada_em: iso(t3),
      resultado_disponivel: false,
      iniciada_em: null,
      terminada_em: iso(t3 + START),
      codigo_falha: 'sem_franquia',
      resumo: null,
    });
    expect(await allowance(w)).toEqual({ franquia: 2, disponiveis: 0 });
    // More allowance: the next one runs.
    await w.controls.updateCompany(w.company.companyId, { analysisAllowance: 3 });
    expect(await allowance(w)).toEqual({ franquia: 3, disponiveis: 1 });
    const fourth = await accept(w);
    await advance(w, START);
    expect((await detail(w, fourth)).estado).toBe('executando');
    expect(await allowance(w)).toEqual({ franquia: 3, disponiveis: 0 });
  });

  it('without allowance: the run fails sem_franquia and analise.falhou is delivered with {tipo, analiseId, codigoFalha}', async () => {
    const w = await world({}, { analysisAllowance: 0 });
    const host = uniqueHost();
    await createDestination(w, `https://${host}/analises`);
    const t0 = await now(w);
    const id = await accept(w);
    expect(await allowance(w)).toEqual({ franquia: 0, disponiveis: 0 });
    await advance(w, START);
    await advance(w, 0);
    expect(await detail(w, id)).toMatchObject({
      estado: 'falhou',
      fase: 'encerrada',
      codigo_falha: 'sem_franquia',
      iniciada_em: null,
      terminada_em: iso(t0 + START),
      resumo: null,
    });
    const items = await inboxFor(w, host);
    expect(items).toHaveLength(1);
    const envelope = JSON.parse(items[0]!.body);
    expect(Object.keys(envelope)).toEqual(['id', 'versao', 'empresa', 'ocorridoEm', 'dados']);
    expect(envelope).toMatchObject({ versao: 1, empresa: w.company.cnpjRoot, ocorridoEm: iso(t0 + START) });
    expect(envelope.dados).toEqual({ tipo: 'analise.falhou', analiseId: id, codigoFalha: 'sem_franquia' });
    expect(items[0]!.tipo).toBe('analise.falhou');
    expect(items[0]!.eventId).toBe(envelope.id);
  });
});

describe('event analise.concluida', () => {
  it('is delivered when the analysis concludes, with dados {tipo, analiseId, produtosAvaliados, achados, snapshotId}', async () => {
    const w = await world();
    const ref = await reference(w);
    const host = uniqueHost();
    await createDestination(w, `https://${host}/analises`);
    const catalog = await headOfficeCatalog(w);
    await item(w, catalog.id, ref, { ncm: MISSING_NCM, atributos: [], descricao: undefined });
    await item(w, catalog.id, ref);
    const t0 = await now(w);
    const id = await accept(w);
    await advance(w, START + RUN - 1);
    await advance(w, 0);
    expect(await inboxFor(w, host)).toEqual([]);
    await advance(w, 1);
    await advance(w, 0);
    const items = await inboxFor(w, host);
    expect(items).toHaveLength(1);
    const envelope = JSON.parse(items[0]!.body);
    expect(envelope).toMatchObject({ versao: 1, empresa: w.company.cnpjRoot, ocorridoEm: iso(t0 + START + RUN) });
    expect(envelope.dados).toEqual({
      tipo: 'analise.concluida',
      analiseId: id,
      produtosAvaliados: 2,
      achados: 2,
      snapshotId: ref.id,
    });
    expect(items[0]!.tipo).toBe('analise.concluida');
    // The company's webhook events list it too.
    const events = await w.api.get('/v1/webhook/eventos');
    expect(events.body.itens.map((e: { tipo: string }) => e.tipo)).toEqual(['analise.concluida']);
  });
});

describe('job faults of kind analise', () => {
  it('delayMs postpones the start by that long: still pendente (allowance untouched) until then, and the run lasts 10 s from there', async () => {
    const w = await world({}, { analysisAllowance: 3 });
    const delay = 5 * MINUTE;
    await analysisFault(w, { delayMs: delay });
    const t0 = await now(w);
    const id = await accept(w);
    await advance(w, START);
    expect(await detail(w, id)).toMatchObject({ estado: 'pendente', fase: 'na_fila', iniciada_em: null });
    await advance(w, delay - 1);
    expect((await detail(w, id)).estado).toBe('pendente');
    expect(await allowance(w)).toEqual({ franquia: 3, disponiveis: 3 });
    await advance(w, 1);
    expect(await detail(w, id)).toMatchObject({
      estado: 'executando',
      fase: 'avaliando',
      iniciada_em: iso(t0 + START + delay),
    });
    expect(await allowance(w)).toEqual({ franquia: 3, disponiveis: 2 });
    await advance(w, RUN);
    expect(await detail(w, id)).toMatchObject({ estado: 'concluida', terminada_em: iso(t0 + START + delay + RUN) });
  });

  it('fail fails the run at its end (falhou falha_execucao), keeps the unit taken, and analise.falhou is delivered', async () => {
    const w = await world({}, { analysisAllowance: 3 });
    const host = uniqueHost();
    await createDestination(w, `https://${host}/analises`);
    await analysisFault(w, { fail: true });
    const t0 = await now(w);
    const id = await accept(w);
    await advance(w, START);
    expect(await detail(w, id)).toMatchObject({ estado: 'executando', iniciada_em: iso(t0 + START) });
    expect(await allowance(w)).toEqual({ franquia: 3, disponiveis: 2 });
    await advance(w, RUN);
    await advance(w, 0);
    expect(await detail(w, id)).toEqual({
      id,
      estado: 'falhou',
      fase: 'encerrada',
      criada_em: iso(t0),
      resultado_disponivel: false,
      iniciada_em: iso(t0 + START),
      terminada_em: iso(t0 + START + RUN),
      codigo_falha: 'falha_execucao',
      resumo: null,
    });
    expect(await allowance(w)).toEqual({ franquia: 3, disponiveis: 2 });
    const items = await inboxFor(w, host);
    expect(items.map((i) => JSON.parse(i.body).dados)).toEqual([
      { tipo: 'analise.falhou', analiseId: id, codigoFalha: 'falha_execucao' },
    ]);
    // The fault was spent: the next run concludes.
    const next = await accept(w);
    await advance(w, START + RUN);
    expect((await detail(w, next)).estado).toBe('concluida');
  });

  it("matches by company: another company's fault leaves this company's run alone", async () => {
    const w = await world();
    const other = await otherCompany(w);
    await analysisFault(other, { fail: true });
    const id = await accept(w);
    await advance(w, START + RUN);
    expect((await detail(w, id)).estado).toBe('concluida');
  });
});

describe('GET /v1/analises', () => {
  // spec: ANA-08, ANA-09, ANA-10, ANA-11, LIM-14
  it('lists newest first, limite pages with proximo_cursor until null, items {id, estado, fase, criada_em, resultado_disponivel}', async () => {
    const w = await world();
    const a = await concluded(w);
    const b = await concluded(w);
    const tc = await now(w);
    const c = await accept(w);
    const itemA = {
      id: a.id,
      estado: 'concluida',
      fase: 'publicada',
      criada_em: iso(a.t0),
      resultado_disponivel: true,
    };
    const itemB = {
      id: b.id,
      estado: 'concluida',
      fase: 'publicada',
      criada_em: iso(b.t0),
      resultado_disponivel: true,
    };
    const itemC = { id: c, estado: 'pendente', fase: 'na_fila', criada_em: iso(tc), resultado_disponivel: false };
    const all = await w.api.get(ANALISES);
    expect(all.status, all.text).toBe(200);
    expect(all.body).toEqual({ itens: [itemC, itemB, itemA], proximo_cursor: null });
    expect(all.headers.get('x-request-id')).toMatch(REQUEST_ID);
    const first = await w.api.get(`${ANALISES}?limite=2`);
    expect(first.status, first.text).toBe(200);
    expect(first.body.itens).toEqual([itemC, itemB]);
    expect(first.body.proximo_cursor).toEqual(expect.any(String));
    const second = await w.api.get(`${ANALISES}?limite=2&cursor=${encodeURIComponent(first.body.proximo_cursor)}`);
    expect(second.status, second.text).toBe(200);
    expect(second.body).toEqual({ itens: [itemA], proximo_cursor: null });
    const exact = await w.api.get(`${ANALISES}?limite=3`);
    expect(exact.body.proximo_cursor).toBeNull();
    // A new analysis does not disturb a walk in progress: it is newer than the cursor.
    await advance(w, START + RUN);
    await accept(w);
    const again = await w.api.get(`${ANALISES}?limite=2&cursor=${encodeURIComponent(first.body.proximo_cursor)}`);
    expect(again.body).toEqual({ itens: [itemA], proximo_cursor: null });
  });

  // spec: LIM-20, LIM-21
  it('answers 50 items by default and at most 100: 101 analyses come as 50, 50, 1 without limite and 100, 1 with limite 100 or more', async () => {
    const w = await world();
    const made: string[] = [];
    for (let i = 0; i < 101; i++) {
      made.push(await accept(w));
      await advance(w, START + RUN); // concluded: the next request creates a new analysis
    }
    const newestFirst = [...made].reverse();
    const pages = (query: string) => cursorPages(w.api, ANALISES, query);
    const byDefault = await pages('');
    expect(byDefault.map((p) => p.length)).toEqual([50, 50, 1]);
    expect(byDefault.flat()).toEqual(newestFirst);
    for (const limite of ['100', '101', '1000']) {
      const bounded = await pages(`limite=${limite}`);
      expect(
        bounded.map((p) => p.length),
        `limite=${limite}`,
      ).toEqual([100, 1]);
      expect(bounded.flat()).toEqual(newestFirst);
    }
  });

  // spec: AUTH-06
  it("answers an empty list for a company without analyses, and lists no other company's", async () => {
    const w = await world();
    const other = await otherCompany(w);
    await accept(other);
    const answer = await w.api.get(ANALISES);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ itens: [], proximo_cursor: null });
  });

  // spec: "limite (default 50, maximum 100)": an integer, whatever leading zeros write it.
  it('takes limite with leading zeros as the integer it writes: 0000002 pages by 2', async () => {
    const w = await world();
    const a = await concluded(w);
    const b = await concluded(w);
    const c = await concluded(w);
    const first = await w.api.get(`${ANALISES}?limite=0000002`);
    expect(first.status, first.text).toBe(200);
    expect(first.body.itens.map((i: { id: string }) => i.id)).toEqual([c.id, b.id]);
    const rest = await w.api.get(`${ANALISES}?limite=0000002&cursor=${encodeURIComponent(first.body.proximo_cursor)}`);
    expect(rest.body.itens.map((i: { id: string }) => i.id)).toEqual([a.id]);
    expect(rest.body.proximo_cursor).toBeNull();
    expect((await w.api.get(`${ANALISES}?limite=0000050`)).body.itens).toHaveLength(3);
    expect((await w.api.get(`${ANALISES}?limite=0000100`)).body.itens).toHaveLength(3);
  });

  // LIM-21 bounds the page at 100 and states no refusal of a larger limite: it is capped, not refused.
  it('refuses a limite that is no count (422 query.limite), caps one above 100, and refuses a cursor not of this list (422 cursor_invalido query.cursor)', async () => {
    const w = await world();
    await concluded(w);
    await concluded(w);
    for (const bad of ['0', '-1', '1.5', 'dez'])
      expectError(await w.api.get(`${ANALISES}?limite=${bad}`), 422, 'valor_invalido', 'query.limite');
    expect((await w.api.get(`${ANALISES}?limite=100`)).status).toBe(200);
    const capped = await w.api.get(`${ANALISES}?limite=101`);
    expect(capped.status, capped.text).toBe(200);
    expect(capped.body.itens).toHaveLength(2);
    expectError(await w.api.get(`${ANALISES}?cursor=nao-e-um-cursor`), 422, 'cursor_invalido', 'query.cursor');
    const other = await otherCompany(w);
    await concluded(other);
    await concluded(other);
    const theirs = await other.api.get(`${ANALISES}?limite=1`);
    expect(theirs.body.proximo_cursor).toEqual(expect.any(String));
    expectError(
      await w.api.get(`${ANALISES}?cursor=${encodeURIComponent(theirs.body.proximo_cursor)}`),
      422,
      'cursor_invalido',
      'query.cursor',
    );
  });
});

describe('methods', () => {
  it('answers 405 metodo_nao_permitido with Allow for other methods on the four paths', async () => {
    const w = await world();
    const id = await someAnalysis(w);
    const allow = (answer: Answer) =>
      (answer.headers.get('allow') ?? '')
        .split(',')
        .map((m) => m.trim())
        .sort();
    const onList = await w.api.delete(ANALISES);
    expectError(onList, 405, 'metodo_nao_permitido');
    expect(allow(onList)).toEqual(['GET', 'HEAD', 'POST']);
    for (const [method, path] of [
      ['PUT', analysisPath(id)],
      ['POST', findingsPath(id)],
      ['PATCH', csvPath(id)],
    ] as const) {
      const answer = await w.api.request(method, path);
      expectError(answer, 405, 'metodo_nao_permitido');
      expect(allow(answer), `${method} ${path}`).toEqual(['GET', 'HEAD']);
    }
  });
});

describe('permissions and ownership', () => {
  // spec: AUTH-18
  it('POST needs analise:executar: 403 permissao_insuficiente otherwise, creating nothing', async () => {
    const w = await world();
    const { token } = await w.controls.addCredential(w.company.companyId, ['catalogo:ler', 'catalogo:gerenciar']);
    // The list before: empty in a new company; a deployment's shared company may list earlier analyses.
    const before = await listedIds(w);
    expectError(await w.api.as(token).post(ANALISES, {}), 403, 'permissao_insuficiente', null);
    expectError(await w.api.as(token).post(ANALISES, { x: 1 }), 403, 'permissao_insuficiente', null);
    expect(await listedIds(w)).toEqual(before);
  });

  // spec: AUTH-10
  it('the GETs need catalogo:ler: a credential with only analise:executar requests but cannot read', async () => {
    needsOwnCompany(NEW_ANALYSIS);
    const w = await world();
    const runner = w.api.as((await w.controls.addCredential(w.company.companyId, ['analise:executar'])).token);
    const reader = w.api.as((await w.controls.addCredential(w.company.companyId, ['catalogo:ler'])).token);
    const answer = await runner.post(ANALISES, {});
    expect(answer.status, answer.text).toBe(202);
    await advance(w, START + RUN);
    const id = answer.body.id;
    for (const path of [ANALISES, analysisPath(id), findingsPath(id), csvPath(id)]) {
      expectError(await runner.get(path), 403, 'permissao_insuficiente', null);
      expect((await reader.get(path)).status, path).toBe(200);
    }
    expectError(await reader.post(ANALISES, {}), 403, 'permissao_insuficiente', null);
  });

  it('answers 401 without a valid credential', async () => {
    const w = await world();
    const id = await someAnalysis(w);
    expectError(await w.api.as(undefined).post(ANALISES, {}), 401, 'credencial_ausente', 'header.authorization');
    expectError(await w.api.as(undefined).get(analysisPath(id)), 401, 'credencial_ausente', 'header.authorization');
    expectError(await w.api.as('svc_at_not-a-token').get(ANALISES), 401, 'credencial_invalida', 'header.authorization');
  });

  // spec: AUTH-04, REQ-13
  it("answers 404 analise_nao_encontrada at path.id for another company's analysis or an unknown id; 422 for a malformed id", async () => {
    const w = await world();
    const { id } = await concluded(w);
    const other = await otherCompany(w);
    for (const path of [analysisPath(id), findingsPath(id), csvPath(id)])
      expectError(await other.api.get(path), 404, 'analise_nao_encontrada', 'path.id');
    for (const path of [analysisPath(UNKNOWN_V7_ID), findingsPath(UNKNOWN_V7_ID), csvPath(UNKNOWN_V7_ID)])
      expectError(await w.api.get(path), 404, 'analise_nao_encontrada', 'path.id');
    expectError(await w.api.get(analysisPath('abc')), 422, 'valor_invalido', 'path.id');
    const upper = await w.api.get(analysisPath(id.toUpperCase()));
    expect(upper.status, upper.text).toBe(200);
    expect(upper.body.id).toBe(id);
    // The other company's POST gets its own analysis, not this one.
    const theirs = await other.api.post(ANALISES, {});
    expect(theirs.status, theirs.text).toBe(202);
    expect(theirs.body.id).not.toBe(id);
  });
});
