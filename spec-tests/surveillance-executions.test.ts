/**
 * Surveillance executions over HTTP: spec "GET /v1/vigilancias", "GET /v1/vigilancias/{id}/resultados",
 * "Surveillance finding" (reaproveitado: reused findings keep the date and snapshot of the effective evaluation;
 * findings are immutable), "History is kept after suspension", the permissions table, the events divergencias.alteradas
 * and vigilancia.degradada; the emulator's choices (docs/api.md "Surveillance executions"): the daily schedule, the
 * publication trigger, the phases and their timing (pendente at +0, executando at +1 min, concluida at +1 min + 10 s),
 * the impediments and their causes, the job faults of kind vigilancia, the detail and its resumo, the results pages and
 * the CSV export with its reaproveitado column.
 *
 * Driven only through HTTP (the API and /_emulator), so the file runs the same in process and against the
 * built CLI. Each test has its own company; times are read from the clock at the start of the test (the
 * server's clock is shared). Every fault a test adds matches its own company and is removed after the test;
 * every webhook destination is on a host of its own (the inbox is shared on the server).
 *
 * The daily task runs every 24 h from the emulator's start, which is not exposed: the first test that needs
 * a daily boundary observes one (a probe company watching a product, the clock moved a day, the criada_em of
 * its 'agendada' execution) and the later boundaries follow from it. Tests driven by publications first make
 * sure no daily boundary falls within the time they span.
 *
 * The regulatory reference is global (one per emulator, shared by every company on the server). Most tests
 * trigger executions with publications of attribute codes of their own (a product carrying an attribute
 * whose definition changes is affected); the one test that extinguishes an NCM picks a valid code from the end
 * of the table that no other spec file gives its products.
 */
import { randomInt } from 'node:crypto';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { headOfficeCatalog, NCM, otherCompany, world, type Answer, type World } from './support/client.js';
import { expectControlError, expectError, REQUEST_ID, UUID } from './support/expect.js';
import { cursorPages, productsPath, UNKNOWN_V7_ID } from './support/fixtures.js';
import { counts, csvLine, findingPages, TIPOS } from './support/jobs.js';
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

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Opening → start, and the run of a small company (decisions). */
const START = MINUTE;
const RUN = 10 * SECOND;

const VIGILANCIAS = '/v1/vigilancias';
const executionPath = (id: string) => `${VIGILANCIAS}/${id}`;
const resultsPath = (id: string) => `${executionPath(id)}/resultados`;
const csvPath = (id: string) => `${executionPath(id)}/resultados.csv`;
const SELECTION = '/v1/empresa/vigilancia';
const iso = (ms: number) => new Date(ms).toISOString();

// ---------------------------------------------------------------------------------------------------------
// Faults, clock, reference

/** The faults the current test added, removed after it (a consumed one is already gone: 404). */
const addedFaults: { w: World; id: string }[] = [];
afterEach(async () => {
  for (const { w, id } of addedFaults.splice(0).reverse()) {
    const answer = await w.controls.raw('DELETE', `/faults/${id}`);
    if (answer.status !== 204) expectControlError(answer, 404, 'falha_nao_encontrada');
  }
});

/** A job fault on this company's surveillance executions only. */
async function executionFault(w: World, effect: Record<string, unknown>): Promise<string> {
  const { id } = await w.controls.addFault({
    target: 'job',
    match: { kind: 'vigilancia', companyId: w.company.companyId },
    effect,
    times: 1,
  });
  addedFaults.push({ w, id });
  return id;
}

async function now(w: World): Promise<number> {
  return Date.parse((await w.controls.info()).now);
}

async function advance(w: World, ms: number): Promise<number> {
  return Date.parse((await w.controls.advance(ms)).now);
}

async function advanceTo(w: World, instant: number): Promise<number> {
  const answer = await w.controls.raw('POST', '/clock/advance', { to: iso(instant) });
  expect(answer.status, answer.text).toBe(200);
  return Date.parse(answer.body.now);
}

/** The daily boundaries' offset within a day, per target (observed once). */
const dailyPhases = new Map<string, number>();

/**
 * The offset of the daily boundaries (start + k × 24 h) within a day, observed: a probe company watching one
 * product, the clock moved 24 h (exactly one boundary falls in any 24 h), the criada_em of its execution.
 */
async function dailyPhase(w: World): Promise<number> {
  const known = dailyPhases.get(w.target.baseUrl);
  if (known !== undefined) return known;
  const probe = await otherCompany(w);
  const catalog = await headOfficeCatalog(probe);
  const created = await probe.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM, descricao: 'Sonda' });
  expect(created.status, created.text).toBe(201);
  await select(probe, [created.body.id]);
  const t0 = await now(w);
  await advance(w, DAY);
  const items = await listAll(probe);
  expect(items, 'one daily execution within any 24 h').toHaveLength(1);
  const at = Date.parse(items[0]!.criada_em);
  expect(at).toBeGreaterThan(t0);
  expect(at).toBeLessThanOrEqual(t0 + DAY);
  expect((await detail(probe, items[0]!.id)).motivo).toBe('agendada');
  // The probe stops watching: it takes no part in later days.
  await select(probe, [], [created.body.id]);
  const phase = ((at % DAY) + DAY) % DAY;
  dailyPhases.set(w.target.baseUrl, phase);
  return phase;
}

/** The next daily boundary after now (a boundary at now has already run). */
async function nextDaily(w: World): Promise<number> {
  const phase = await dailyPhase(w);
  const t = await now(w);
  const offset = (((t - phase) % DAY) + DAY) % DAY;
  return t + DAY - offset;
}

/** Makes sure no daily boundary falls within the next `span` (call it before the company watches anything). */
async function clearOfDaily(w: World, span = 2 * HOUR): Promise<void> {
  const next = await nextDaily(w);
  if (next - (await now(w)) <= span) await advanceTo(w, next);
}

/** A code to extinguish: the last valid one of the table that no other file uses (not the clean one). */
function spareNcm(ref: Reference): string {
  const codes = validNcms(ref).filter((c) => c !== cleanNcm(ref));
  expect(codes.length).toBeGreaterThan(0);
  return codes[codes.length - 1]!;
}

interface Published {
  readonly id: string;
  readonly afetadas: string[];
  readonly atributosAlterados: string[];
}

/** Publishes a reference change (201); what it published. */
async function publish(w: World, change: Record<string, unknown>): Promise<Published> {
  const answer = await w.controls.raw('POST', '/regulatory/snapshots', change);
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

/** Attribute codes of this file only (ATT_ and digits), fresh each call. */
const ATTRIBUTE_BASE = randomInt(100_000, 999_999);
let attributeCounter = 0;
const newAttribute = () => `ATT_${ATTRIBUTE_BASE}${String(++attributeCounter).padStart(4, '0')}`;

/**
 * A trigger: a free-text attribute of this test. Products carrying it make the company affected by each
 * rename of it (pull()), which changes no finding and no rules fingerprint (a free-text attribute's name
 * is not part of any rule), so each pull opens one publicacao execution at once and breaks no reuse.
 */
interface Trigger {
  readonly codigo: string;
  readonly carried: { codigo: string; valores: string[] };
  pull(): Promise<Published>;
}

async function trigger(w: World): Promise<Trigger> {
  const codigo = newAttribute();
  let n = 0;
  await publish(w, { atributos: [{ codigo, nome: 'Gatilho 0' }] });
  return {
    codigo,
    carried: { codigo, valores: ['x'] },
    pull: async () => {
      const published = await publish(w, { atributos: [{ codigo, nome: `Gatilho ${++n}` }] });
      expect(published.atributosAlterados).toEqual([codigo]);
      return published;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Products, selection, executions

/** A product in `catalogId` (a clean one of the clean NCM unless `fields` say otherwise, plus `extra` attributes); its id. */
async function item(
  w: World,
  catalogId: string,
  ref: Reference,
  fields: Record<string, unknown> = {},
  extra: { codigo: string; valores: string[] }[] = [],
): Promise<string> {
  const ncm = (fields.ncm as string | undefined) ?? cleanNcm(ref);
  const atributos = [...((fields.atributos as unknown[] | undefined) ?? cleanAttributes(ref, ncm)), ...extra];
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

/** PATCH /v1/produtos/{id} with its current ETag; fails unless 200. */
async function patchProduct(w: World, id: string, changes: Record<string, unknown>): Promise<void> {
  const current = await w.api.get(`/v1/produtos/${id}`);
  expect(current.status, current.text).toBe(200);
  const answer = await w.api.patch(`/v1/produtos/${id}`, changes, { ifMatch: current.headers.get('etag')! });
  expect(answer.status, answer.text).toBe(200);
}

/** Adds (and removes) products to the selection (mode selecao unless told); fails unless 200. */
async function select(
  w: World,
  adicionar: string[],
  remover: string[] = [],
  modo: 'selecao' | 'todos' = 'selecao',
): Promise<void> {
  const view = await w.api.get(SELECTION);
  expect(view.status, view.text).toBe(200);
  const answer = await w.api.patch(SELECTION, { modo, adicionar, remover }, { ifMatch: view.headers.get('etag')! });
  expect(answer.status, answer.text).toBe(200);
}

const setCompany = (w: World, flags: Record<string, unknown>) => w.controls.updateCompany(w.company.companyId, flags);

interface Item {
  id: string;
  estado: string;
  fase: string;
  criada_em: string;
  resultado_disponivel: boolean;
}

/** Every execution of the company, newest first (pages of 100). */
async function listAll(w: World): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 50; guard++) {
    const answer: Answer = await w.api.get(
      `${VIGILANCIAS}?limite=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
    );
    expect(answer.status, answer.text).toBe(200);
    items.push(...answer.body.itens);
    cursor = answer.body.proximo_cursor;
    if (cursor === null) return items;
  }
  throw new Error('the executions did not end within 50 pages');
}

async function detail(w: World, id: string): Promise<any> {
  const answer = await w.api.get(executionPath(id));
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
  return answer.body;
}

/** The company's newest execution, which must have been opened after `known` executions. */
async function newest(w: World, known: number): Promise<string> {
  const items = await listAll(w);
  expect(items, 'exactly one new execution').toHaveLength(known + 1);
  return items[0]!.id;
}

/** Every finding of a concluded execution, following proximo_cursor; the pages too (support/jobs.ts). */
const allFindings = (w: World, id: string) => findingPages(w, resultsPath(id));

/** A publication pulled now, and its execution run to its end: the execution id, the pull time, the end. */
async function pulled(
  w: World,
  t: Trigger,
  known: number,
): Promise<{ id: string; at: number; end: number; published: Published }> {
  const at = await now(w);
  const published = await t.pull();
  const id = await newest(w, known);
  await advance(w, START + RUN);
  return { id, at, end: at + START + RUN, published };
}

/** The dados of the company's events delivered to `host`, in delivery order. */
async function delivered(w: World, host: string): Promise<Record<string, unknown>[]> {
  await advance(w, 0);
  return (await inboxFor(w, host)).map((i) => JSON.parse(i.body).dados);
}

// ---------------------------------------------------------------------------------------------------------
// A test's opening

/** What a publication-driven test starts from: see scene(). */
interface Scene {
  readonly w: World;
  readonly ref: Reference;
  readonly t: Trigger;
  readonly catalog: Awaited<ReturnType<typeof headOfficeCatalog>>;
}

interface SceneOptions {
  /** A webhook destination on a host of its own (the inbox is shared on the server): the scene's `host`. */
  readonly inbox?: boolean;
  /** The fields of one product carrying the trigger that the company then watches (`{}`: a clean one); none unless given. */
  readonly watching?: Record<string, unknown>;
}

/**
 * The opening most publication-driven tests share, in this order: a company of its own; no daily boundary
 * within the next 2 h; the reference; with `inbox`, a webhook destination; a trigger; the head office's
 * catalog; with `watching`, the one watched product. The order is that of the requests the tests made
 * themselves before: it fixes the ids and times they see, so it must not change (a test needing another
 * step in between writes its own opening).
 */
async function scene(options: SceneOptions & { inbox: true }): Promise<Scene & { host: string }>;
async function scene(options?: SceneOptions): Promise<Scene>;
async function scene(options: SceneOptions = {}): Promise<Scene & { host?: string }> {
  const w = await world();
  await clearOfDaily(w);
  const ref = await reference(w);
  let host: string | undefined;
  if (options.inbox === true) {
    host = uniqueHost();
    await createDestination(w, `https://${host}/vigilancia`);
  }
  const t = await trigger(w);
  const catalog = await headOfficeCatalog(w);
  if (options.watching !== undefined) await select(w, [await item(w, catalog.id, ref, options.watching, [t.carried])]);
  return { w, ref, t, catalog, host };
}

// ---------------------------------------------------------------------------------------------------------

describe('the daily execution', () => {
  // spec: SURV-24
  it('opens one agendada execution at the daily boundary for a company watching products, none for a company watching nothing; pendente na_fila at +0, executando avaliando at +1 min, concluida publicada at +1 min + 10 s', async () => {
    const w = await world();
    const boundary = await nextDaily(w);
    const ref = await reference(w);
    // Another company with a product it does not watch.
    const idle = await otherCompany(w);
    const idleCatalog = await headOfficeCatalog(idle);
    await item(idle, idleCatalog.id, ref, { descricao: undefined });
    const catalog = await headOfficeCatalog(w);
    const clean = await item(w, catalog.id, ref);
    const blank = await item(w, catalog.id, ref, { descricao: undefined });
    const missing = await item(w, catalog.id, ref, { ncm: MISSING_NCM, atributos: [] });
    await item(w, catalog.id, ref, { descricao: undefined }); // not selected: not watched
    await select(w, [missing, clean, blank]);
    await advanceTo(w, boundary - 1);
    expect(await listAll(w)).toEqual([]);
    await advance(w, 1);
    const items = await listAll(w);
    expect(items).toEqual([
      {
        id: expect.stringMatching(UUID),
        estado: 'pendente',
        fase: 'na_fila',
        criada_em: iso(boundary),
        resultado_disponivel: false,
      },
    ]);
    const id = items[0]!.id;
    const pendente = {
      id,
      estado: 'pendente',
      fase: 'na_fila',
      criada_em: iso(boundary),
      resultado_disponivel: false,
      motivo: 'agendada',
      iniciada_em: null,
      terminada_em: null,
      codigo_falha: null,
      resumo: null,
    };
    expect(await detail(w, id)).toEqual(pendente);
    expect(await listAll(idle)).toEqual([]);
    await advance(w, START - 1);
    expect(await detail(w, id)).toEqual(pendente);
    await advance(w, 1);
    const executando = { ...pendente, estado: 'executando', fase: 'avaliando', iniciada_em: iso(boundary + START) };
    expect(await detail(w, id)).toEqual(executando);
    await advance(w, RUN - 1);
    expect(await detail(w, id)).toEqual(executando);
    const snapshot = (await reference(w)).id;
    await advance(w, 1);
    const end = boundary + START + RUN;
    const read = await w.api.get(executionPath(id));
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual({
      ...pendente,
      estado: 'concluida',
      fase: 'publicada',
      resultado_disponivel: true,
      iniciada_em: iso(boundary + START),
      terminada_em: iso(end),
      resumo: {
        produtos_avaliados: 3,
        produtos_reaproveitados: 0,
        total_achados: 2,
        achados_por_tipo: counts({ ncm_inexistente: 1, descricao_ausente: 1 }),
        snapshot_id: snapshot,
        divergente: false,
      },
    });
    expect(Object.keys(read.body.resumo.achados_por_tipo).sort()).toEqual([...TIPOS].sort());
    // The findings: per watched product in selection order, then by rule.
    const { items: findings } = await allFindings(w, id);
    expect(findings).toEqual([
      {
        produto_id: missing,
        ncm: MISSING_NCM,
        tipo: 'ncm_inexistente',
        detalhe: expect.stringContaining(MISSING_NCM),
        avaliado_em: iso(end),
        snapshot_id: snapshot,
        reaproveitado: false,
      },
      {
        produto_id: blank,
        ncm: cleanNcm(ref),
        tipo: 'descricao_ausente',
        detalhe: expect.any(String),
        avaliado_em: iso(end),
        snapshot_id: snapshot,
        reaproveitado: false,
      },
    ]);
    expect(await listAll(w)).toEqual([
      { id, estado: 'concluida', fase: 'publicada', criada_em: iso(boundary), resultado_disponivel: true },
    ]);
    expect(await listAll(idle)).toEqual([]);
  });

  it('in mode todos the daily run watches every eligible product: a product unlinked from its only catalog is not evaluated', async () => {
    const w = await world();
    const boundary = await nextDaily(w);
    const ref = await reference(w);
    const catalog = await headOfficeCatalog(w);
    const a = await item(w, catalog.id, ref, { descricao: undefined });
    const b = await item(w, catalog.id, ref, { descricao: undefined });
    const unlinked = await item(w, catalog.id, ref, { descricao: undefined });
    const current = await w.api.get(`/v1/produtos/${unlinked}`);
    const answer = await w.api.delete(`${productsPath(catalog.id)}/${unlinked}`, undefined, {
      ifMatch: current.headers.get('etag')!,
    });
    expect(answer.status, answer.text).toBe(200);
    await select(w, [], [], 'todos');
    await advanceTo(w, boundary + START + RUN);
    const items = await listAll(w);
    expect(items.map((i) => [i.estado, i.criada_em])).toEqual([['concluida', iso(boundary)]]);
    expect((await detail(w, items[0]!.id)).resumo).toMatchObject({
      produtos_avaliados: 2,
      total_achados: 2,
      achados_por_tipo: counts({ descricao_ausente: 2 }),
    });
    expect((await allFindings(w, items[0]!.id)).items.map((f) => f.produto_id)).toEqual([a, b]);
  });

  // spec: SURV-25, SURV-26
  it("the next day reuses the findings of unchanged products (reaproveitado true, the first run's avaliado_em and snapshot_id); a PATCH of a product breaks its reuse; published findings never change", async () => {
    const w = await world();
    const boundary = await nextDaily(w);
    const ref = await reference(w);
    const catalog = await headOfficeCatalog(w);
    const blank = await item(w, catalog.id, ref, { descricao: undefined });
    const missing = await item(w, catalog.id, ref, { ncm: MISSING_NCM, atributos: [] });
    await select(w, [blank, missing]);
    const snapshot = (await reference(w)).id;
    const end1 = boundary + START + RUN;
    await advanceTo(w, end1);
    const first = await newest(w, 0);
    const { items: findings1 } = await allFindings(w, first);
    expect(findings1.map((f) => [f.produto_id, f.tipo, f.avaliado_em, f.snapshot_id, f.reaproveitado])).toEqual([
      [blank, 'descricao_ausente', iso(end1), snapshot, false],
      [missing, 'ncm_inexistente', iso(end1), snapshot, false],
    ]);
    const firstText = (await w.api.get(resultsPath(first))).text;
    const firstCsv = (await w.api.get(csvPath(first))).text;
    // Day 2: nothing changed, both reused.
    await advanceTo(w, boundary + DAY + START + RUN);
    const second = await newest(w, 1);
    const read2 = await detail(w, second);
    expect(read2).toMatchObject({ estado: 'concluida', motivo: 'agendada', criada_em: iso(boundary + DAY) });
    expect(read2.resumo).toEqual({
      produtos_avaliados: 2,
      produtos_reaproveitados: 2,
      total_achados: 2,
      achados_por_tipo: counts({ descricao_ausente: 1, ncm_inexistente: 1 }),
      snapshot_id: snapshot,
      divergente: false,
    });
    const { items: findings2 } = await allFindings(w, second);
    expect(findings2).toEqual(findings1.map((f) => ({ ...f, reaproveitado: true })));
    const secondText = (await w.api.get(resultsPath(second))).text;
    // A PATCH of one product (its findings come out the same): evaluated afresh on day 3, the other reused.
    await patchProduct(w, missing, { sku: 'SKU-NOVO' });
    const end3 = boundary + 2 * DAY + START + RUN;
    await advanceTo(w, end3);
    const third = await newest(w, 2);
    const read3 = await detail(w, third);
    expect(read3.resumo).toEqual({
      produtos_avaliados: 2,
      produtos_reaproveitados: 1,
      total_achados: 2,
      achados_por_tipo: counts({ descricao_ausente: 1, ncm_inexistente: 1 }),
      snapshot_id: snapshot,
      divergente: false,
    });
    const { items: findings3 } = await allFindings(w, third);
    expect(findings3).toEqual([
      { ...findings1[0]!, reaproveitado: true },
      { ...findings1[1]!, avaliado_em: iso(end3), reaproveitado: false },
    ]);
    // What was published stays as it was.
    expect((await w.api.get(resultsPath(first))).text).toBe(firstText);
    expect((await w.api.get(csvPath(first))).text).toBe(firstCsv);
    expect((await w.api.get(resultsPath(second))).text).toBe(secondText);
    expect((await listAll(w)).map((i) => i.id)).toEqual([third, second, first]);
  });
});

describe('executions opened by a publication', () => {
  it("a publication extinguishing a watched product's NCM opens a publicacao execution at once; its findings show ncm_extinta with the new snapshot_id; companies not watching an affected product get none", async () => {
    const w = await world();
    await clearOfDaily(w);
    const ref = await reference(w);
    const code = spareNcm(ref);
    const catalog = await headOfficeCatalog(w);
    const doomed = await item(w, catalog.id, ref, { ncm: code, atributos: cleanAttributes(ref, code) });
    const clean = await item(w, catalog.id, ref);
    await select(w, [doomed, clean]);
    // Another company watches a product of another code; a third has a product of the code but does not watch it.
    const elsewhere = await otherCompany(w);
    const elsewhereCatalog = await headOfficeCatalog(elsewhere);
    await select(elsewhere, [await item(elsewhere, elsewhereCatalog.id, ref)]);
    const bystander = await otherCompany(w);
    const bystanderCatalog = await headOfficeCatalog(bystander);
    await item(bystander, bystanderCatalog.id, ref, { ncm: code, atributos: cleanAttributes(ref, code) });
    const t0 = await now(w);
    const published = await publish(w, { extinguir: [code] });
    expect(published.afetadas).toEqual([code]);
    expect(published.id).not.toBe(ref.id);
    const items = await listAll(w);
    expect(items).toEqual([
      {
        id: expect.stringMatching(UUID),
        estado: 'pendente',
        fase: 'na_fila',
        criada_em: iso(t0),
        resultado_disponivel: false,
      },
    ]);
    const id = items[0]!.id;
    expect(await detail(w, id)).toEqual({
      ...items[0],
      motivo: 'publicacao',
      iniciada_em: null,
      terminada_em: null,
      codigo_falha: null,
      resumo: null,
    });
    expect(await listAll(elsewhere)).toEqual([]);
    expect(await listAll(bystander)).toEqual([]);
    await advance(w, START);
    expect(await detail(w, id)).toMatchObject({ estado: 'executando', iniciada_em: iso(t0 + START) });
    await advance(w, RUN);
    const end = t0 + START + RUN;
    expect((await detail(w, id)).resumo).toEqual({
      produtos_avaliados: 2,
      produtos_reaproveitados: 0,
      total_achados: 1,
      achados_por_tipo: counts({ ncm_extinta: 1 }),
      snapshot_id: published.id,
      divergente: false,
    });
    const { items: findings } = await allFindings(w, id);
    expect(findings).toEqual([
      {
        produto_id: doomed,
        ncm: code,
        tipo: 'ncm_extinta',
        detalhe: expect.stringContaining(code),
        avaliado_em: iso(end),
        snapshot_id: published.id,
        reaproveitado: false,
      },
    ]);
    expect(await listAll(elsewhere)).toEqual([]);
    expect(await listAll(bystander)).toEqual([]);
  });

  it("a definition change of an attribute a watched product carries opens one and breaks that product's reuse; a rename of a free-text attribute keeps every reuse", async () => {
    const w = await world();
    await clearOfDaily(w);
    const ref = await reference(w);
    const t = await trigger(w);
    const domain = newAttribute();
    await publish(w, { atributos: [{ codigo: domain, nome: 'Acabamento', dominio: ['fosco', 'brilhante'] }] });
    const catalog = await headOfficeCatalog(w);
    const plain = await item(w, catalog.id, ref, {}, [t.carried]);
    const finished = await item(w, catalog.id, ref, {}, [{ codigo: domain, valores: ['fosco'] }]);
    const missing = await item(w, catalog.id, ref, { ncm: MISSING_NCM, atributos: [] }, [t.carried]);
    await select(w, [plain, finished, missing]);
    const first = await pulled(w, t, 0);
    expect((await detail(w, first.id)).resumo).toMatchObject({
      produtos_avaliados: 3,
      produtos_reaproveitados: 0,
      total_achados: 1,
      snapshot_id: first.published.id,
    });
    const findings1 = (await allFindings(w, first.id)).items;
    expect(findings1.map((f) => [f.produto_id, f.tipo, f.avaliado_em, f.snapshot_id, f.reaproveitado])).toEqual([
      [missing, 'ncm_inexistente', iso(first.end), first.published.id, false],
    ]);
    // A rename of the free-text trigger: every product reused, with the first run's date and snapshot.
    const second = await pulled(w, t, 1);
    expect(await detail(w, second.id)).toMatchObject({ motivo: 'publicacao', estado: 'concluida' });
    expect((await detail(w, second.id)).resumo).toEqual({
      produtos_avaliados: 3,
      produtos_reaproveitados: 3,
      total_achados: 1,
      achados_por_tipo: counts({ ncm_inexistente: 1 }),
      snapshot_id: second.published.id,
      divergente: false,
    });
    expect((await allFindings(w, second.id)).items).toEqual(findings1.map((f) => ({ ...f, reaproveitado: true })));
    // The domain no longer allows the value the second product carries: it alone is evaluated afresh.
    const at = await now(w);
    const changed = await publish(w, {
      atributos: [{ codigo: domain, nome: 'Acabamento', dominio: ['brilhante', 'acetinado'] }],
    });
    expect(changed.atributosAlterados).toEqual([domain]);
    const third = await newest(w, 2);
    await advance(w, START + RUN);
    expect((await detail(w, third)).resumo).toEqual({
      produtos_avaliados: 3,
      produtos_reaproveitados: 2,
      total_achados: 2,
      achados_por_tipo: counts({ ncm_inexistente: 1, atributo_valor_invalido: 1 }),
      snapshot_id: changed.id,
      divergente: true,
    });
    expect((await allFindings(w, third)).items).toEqual([
      {
        produto_id: finished,
        ncm: cleanNcm(ref),
        tipo: 'atributo_valor_invalido',
        detalhe: expect.stringContaining('fosco'),
        avaliado_em: iso(at + START + RUN),
        snapshot_id: changed.id,
        reaproveitado: false,
      },
      { ...findings1[0]!, reaproveitado: true },
    ]);
  });
});

describe('event divergencias.alteradas', () => {
  it("is delivered when a concluded execution's findings differ from the previous one's, with dados {tipo, vigilanciaId, anteriorId, novas, resolvidas, totalAchados}; not for the first one, not when they are unchanged", async () => {
    const { w, ref, host, t, catalog } = await scene({ inbox: true });
    const a = await item(w, catalog.id, ref, {}, [t.carried]);
    const b = await item(w, catalog.id, ref, { descricao: undefined }, [t.carried]);
    await select(w, [a, b]);
    const first = await pulled(w, t, 0);
    expect((await detail(w, first.id)).resumo.divergente).toBe(false);
    expect(await delivered(w, host)).toEqual([]);
    // b fixed, a loses its description: one new, one resolved.
    await patchProduct(w, b, { descricao: 'Agora descrito' });
    await patchProduct(w, a, { descricao: null });
    const second = await pulled(w, t, 1);
    expect((await detail(w, second.id)).resumo).toMatchObject({
      divergente: true,
      total_achados: 1,
      produtos_reaproveitados: 0,
    });
    const expected: Record<string, unknown>[] = [
      {
        tipo: 'divergencias.alteradas',
        vigilanciaId: second.id,
        anteriorId: first.id,
        novas: 1,
        resolvidas: 1,
        totalAchados: 1,
      },
    ];
    expect(await delivered(w, host)).toEqual(expected);
    const [envelope] = (await inboxFor(w, host)).map((i) => JSON.parse(i.body));
    expect(Object.keys(envelope)).toEqual(['id', 'versao', 'empresa', 'ocorridoEm', 'dados']);
    expect(envelope).toMatchObject({ versao: 1, empresa: w.company.cnpjRoot, ocorridoEm: iso(second.end) });
    // b gains an attribute no dictionary knows: one new finding, nothing resolved.
    const unknown = newAttribute();
    await patchProduct(w, b, {
      atributos: [...cleanAttributes(ref, cleanNcm(ref)), t.carried, { codigo: unknown, valores: ['?'] }],
    });
    const third = await pulled(w, t, 2);
    expect((await detail(w, third.id)).resumo).toMatchObject({
      divergente: true,
      total_achados: 2,
      produtos_reaproveitados: 1,
    });
    expected.push({
      tipo: 'divergencias.alteradas',
      vigilanciaId: third.id,
      anteriorId: second.id,
      novas: 1,
      resolvidas: 0,
      totalAchados: 2,
    });
    expect(await delivered(w, host)).toEqual(expected);
    // Nothing changed: no event, divergente false.
    const fourth = await pulled(w, t, 3);
    expect((await detail(w, fourth.id)).resumo).toMatchObject({
      divergente: false,
      total_achados: 2,
      produtos_reaproveitados: 2,
    });
    expect(await delivered(w, host)).toEqual(expected);
    // A fresh evaluation giving the same findings (a PATCH that changes none of them): no event either.
    await patchProduct(w, a, { sku: 'SKU-A' });
    const fifth = await pulled(w, t, 4);
    expect((await detail(w, fifth.id)).resumo).toMatchObject({ divergente: false, produtos_reaproveitados: 1 });
    expect(await delivered(w, host)).toEqual(expected);
  });
});

describe('impeded executions', () => {
  it('with the capacity cut below the selection: falhou vigilancia_indisponivel at +1 min, never started, and one vigilancia.degradada {motivo execucao_impedida, causa capacidade_excedida}; a second impeded run raises none; after a concluded run it is raised again', async () => {
    const { w, ref, host, t, catalog } = await scene({ inbox: true });
    await select(w, [await item(w, catalog.id, ref, {}, [t.carried]), await item(w, catalog.id, ref, {}, [t.carried])]);
    await setCompany(w, { surveillanceCapacity: 1 });
    const impedidas = async () => (await delivered(w, host)).filter((d) => d.motivo === 'execucao_impedida');
    const t0 = await now(w);
    await t.pull();
    const first = await newest(w, 0);
    await advance(w, START - 1);
    expect((await detail(w, first)).estado).toBe('pendente');
    await advance(w, 1);
    const failed = await w.api.get(executionPath(first));
    expect(failed.body).toEqual({
      id: first,
      estado: 'falhou',
      fase: 'encerrada',
      criada_em: iso(t0),
      resultado_disponivel: false,
      motivo: 'publicacao',
      iniciada_em: null,
      terminada_em: iso(t0 + START),
      codigo_falha: 'vigilancia_indisponivel',
      resumo: null,
    });
    expectError(await w.api.get(resultsPath(first)), 409, 'resultado_indisponivel');
    expectError(await w.api.get(csvPath(first)), 409, 'resultado_indisponivel');
    expect(await impedidas()).toEqual([
      { tipo: 'vigilancia.degradada', motivo: 'execucao_impedida', vigilanciaId: first, causa: 'capacidade_excedida' },
    ]);
    // The coverage change itself raised its own vigilancia.degradada (cobertura capacidade_excedida), once.
    expect(
      (await delivered(w, host)).filter((d) => d.tipo === 'vigilancia.degradada' && d.motivo === undefined),
    ).toHaveLength(1);
    // A second impeded run: falhou too, no second event.
    await t.pull();
    const second = await newest(w, 1);
    await advance(w, START);
    expect(await detail(w, second)).toMatchObject({
      estado: 'falhou',
      codigo_falha: 'vigilancia_indisponivel',
      iniciada_em: null,
    });
    expect(await impedidas()).toHaveLength(1);
    // Capacity back: the next run concludes; cut again: the next impeded run raises again.
    await setCompany(w, { surveillanceCapacity: 5 });
    const third = await pulled(w, t, 2);
    expect((await detail(w, third.id)).estado).toBe('concluida');
    await setCompany(w, { surveillanceCapacity: 1 });
    await t.pull();
    const fourth = await newest(w, 3);
    await advance(w, START);
    expect((await detail(w, fourth)).codigo_falha).toBe('vigilancia_indisponivel');
    expect(await impedidas()).toEqual([
      { tipo: 'vigilancia.degradada', motivo: 'execucao_impedida', vigilanciaId: first, causa: 'capacidade_excedida' },
      { tipo: 'vigilancia.degradada', motivo: 'execucao_impedida', vigilanciaId: fourth, causa: 'capacidade_excedida' },
    ]);
  });

  // spec: SURV-22
  it('with the subscription suspended: falhou vigilancia_indisponivel with causa assinatura_inativa; the history stays readable while suspended', async () => {
    const { w, host, t } = await scene({ inbox: true, watching: { descricao: undefined } });
    const before = await pulled(w, t, 0);
    const beforeDetail = (await w.api.get(executionPath(before.id))).text;
    const beforeResults = (await w.api.get(resultsPath(before.id))).text;
    const beforeCsv = (await w.api.get(csvPath(before.id))).text;
    await setCompany(w, { subscriptionActive: false });
    const t0 = await now(w);
    await t.pull();
    const impeded = await newest(w, 1);
    await advance(w, START);
    expect(await detail(w, impeded)).toMatchObject({
      estado: 'falhou',
      fase: 'encerrada',
      codigo_falha: 'vigilancia_indisponivel',
      iniciada_em: null,
      terminada_em: iso(t0 + START),
    });
    expect(await delivered(w, host)).toEqual([
      { tipo: 'vigilancia.degradada', motivo: 'execucao_impedida', vigilanciaId: impeded, causa: 'assinatura_inativa' },
    ]);
    // While suspended: the list, the detail, the results and the CSV of the earlier execution as they were.
    expect((await listAll(w)).map((i) => [i.id, i.estado])).toEqual([
      [impeded, 'falhou'],
      [before.id, 'concluida'],
    ]);
    expect((await w.api.get(executionPath(before.id))).text).toBe(beforeDetail);
    expect((await w.api.get(resultsPath(before.id))).text).toBe(beforeResults);
    expect((await w.api.get(csvPath(before.id))).text).toBe(beforeCsv);
  });

  it('without entitlement: falhou vigilancia_indisponivel with causa indisponivel', async () => {
    const { w, host, t } = await scene({ inbox: true, watching: {} });
    await setCompany(w, { surveillanceEntitled: false });
    await t.pull();
    const id = await newest(w, 0);
    await advance(w, START);
    expect(await detail(w, id)).toMatchObject({
      estado: 'falhou',
      codigo_falha: 'vigilancia_indisponivel',
      resumo: null,
    });
    expect((await delivered(w, host)).filter((d) => d.motivo === 'execucao_impedida')).toEqual([
      { tipo: 'vigilancia.degradada', motivo: 'execucao_impedida', vigilanciaId: id, causa: 'indisponivel' },
    ]);
  });
});

describe('job faults of kind vigilancia', () => {
  it('delayMs postpones the start by that long: still pendente until then, and the run lasts 10 s from there', async () => {
    const { w, t } = await scene({ watching: {} });
    const delay = 5 * MINUTE;
    await executionFault(w, { delayMs: delay });
    const t0 = await now(w);
    await t.pull();
    const id = await newest(w, 0);
    await advance(w, START);
    expect(await detail(w, id)).toMatchObject({ estado: 'pendente', fase: 'na_fila', iniciada_em: null });
    await advance(w, delay - 1);
    expect((await detail(w, id)).estado).toBe('pendente');
    await advance(w, 1);
    expect(await detail(w, id)).toMatchObject({
      estado: 'executando',
      fase: 'avaliando',
      iniciada_em: iso(t0 + START + delay),
    });
    await advance(w, RUN);
    expect(await detail(w, id)).toMatchObject({ estado: 'concluida', terminada_em: iso(t0 + START + delay + RUN) });
  });

  it('fail fails the run at its end: falhou falha_execucao, no results, and vigilancia.degradada {motivo execucao_falhou, causa falha_execucao}; the next run concludes', async () => {
    const { w, host, t } = await scene({ inbox: true, watching: { descricao: undefined } });
    await executionFault(w, { fail: true });
    const t0 = await now(w);
    await t.pull();
    const id = await newest(w, 0);
    await advance(w, START);
    expect(await detail(w, id)).toMatchObject({ estado: 'executando', iniciada_em: iso(t0 + START) });
    await advance(w, RUN);
    expect(await detail(w, id)).toEqual({
      id,
      estado: 'falhou',
      fase: 'encerrada',
      criada_em: iso(t0),
      resultado_disponivel: false,
      motivo: 'publicacao',
      iniciada_em: iso(t0 + START),
      terminada_em: iso(t0 + START + RUN),
      codigo_falha: 'falha_execucao',
      resumo: null,
    });
    expectError(await w.api.get(resultsPath(id)), 409, 'resultado_indisponivel');
    expect(await delivered(w, host)).toEqual([
      { tipo: 'vigilancia.degradada', motivo: 'execucao_falhou', vigilanciaId: id, causa: 'falha_execucao' },
    ]);
    // The fault was spent: the next run concludes (the first concluded one: no divergencias.alteradas).
    const next = await pulled(w, t, 1);
    expect((await detail(w, next.id)).resumo).toMatchObject({
      produtos_avaliados: 1,
      produtos_reaproveitados: 0,
      total_achados: 1,
      divergente: false,
    });
    expect(await delivered(w, host)).toHaveLength(1);
  });

  it("matches by company: another company's fault leaves this company's run alone", async () => {
    const { w, t } = await scene({ watching: {} });
    const other = await otherCompany(w);
    await executionFault(other, { fail: true });
    await executionFault(other, { delayMs: HOUR });
    const { id } = await pulled(w, t, 0);
    expect((await detail(w, id)).estado).toBe('concluida');
  });
});

describe('GET /v1/vigilancias/{id}/resultados', () => {
  it('answers 409 resultado_indisponivel while pendente and executando; 200 once concluida', async () => {
    const { w, t } = await scene({ watching: {} });
    await t.pull();
    const id = await newest(w, 0);
    expectError(await w.api.get(resultsPath(id)), 409, 'resultado_indisponivel');
    expectError(await w.api.get(csvPath(id)), 409, 'resultado_indisponivel');
    await advance(w, START);
    expect((await detail(w, id)).estado).toBe('executando');
    expectError(await w.api.get(resultsPath(id)), 409, 'resultado_indisponivel');
    expectError(await w.api.get(csvPath(id)), 409, 'resultado_indisponivel');
    await advance(w, RUN);
    const answer = await w.api.get(resultsPath(id));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ total_achados: 0, itens: [], proximo_cursor: null });
    expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
  });

  /**
   * Two watched products of 128 findings each (an NCM not in the table, 127 attribute codes in no dictionary,
   * and the trigger): 256 findings, more than a page.
   */
  async function manyFindings(sc: Scene): Promise<string[]> {
    const products: string[] = [];
    for (let i = 0; i < 2; i++)
      products.push(
        await item(sc.w, sc.catalog.id, sc.ref, { ncm: MISSING_NCM, atributos: unknownAttributes(127) }, [
          sc.t.carried,
        ]),
      );
    await select(sc.w, products);
    // Against a shared server every later test that moves the clock a day would run another 256-finding
    // execution for this company: it stops watching once the test is over.
    onTestFinished(() => select(sc.w, [], products));
    return products;
  }

  // spec: SURV-27, LIM-23 ("GET /v1/vigilancias/{id}/resultados": Query `cursor`, at most 200 findings per page).
  // spec: SURV-23, SURV-28
  it('pages with cursor only: at most 200 findings a page, total_achados on every page, every finding exactly once, in the order of the whole list', async () => {
    const sc = await scene();
    const products = await manyFindings(sc);
    const { id } = await pulled(sc.w, sc.t, 0);
    const walked = await allFindings(sc.w, id);
    expect(walked.pages.map((p) => p.body.itens.length)).toEqual([200, 56]);
    expect(walked.pages.map((p) => p.body.total_achados)).toEqual([256, 256]);
    expect(new Set(walked.items.map((f) => `${f.produto_id}|${f.tipo}|${f.detalhe}`)).size).toBe(256);
    // The whole list's order: product by product, each one's findings by rule, then by attribute code.
    expect(walked.items.map((f) => f.produto_id)).toEqual([
      ...Array<string>(128).fill(products[0]!),
      ...Array<string>(128).fill(products[1]!),
    ]);
    expect(walked.items.slice(0, 2).map((f) => [f.tipo, f.detalhe])).toEqual([
      ['ncm_inexistente', expect.stringContaining(MISSING_NCM)],
      ['atributo_desconhecido', expect.stringContaining('FORA_DO_DICIONARIO_000')],
    ]);
  });

  // spec: "GET /v1/vigilancias/{id}/resultados": Query `cursor`; any other parameter is refused like an unknown one.
  it("refuses limite, whatever its value (422 campo_desconhecido query.limite: the page size is the service's), and a cursor not of this list (422 cursor_invalido query.cursor)", async () => {
    const sc = await scene();
    const { w, t } = sc;
    await manyFindings(sc);
    const { id } = await pulled(w, t, 0);
    const { id: second } = await pulled(w, t, 1);
    for (const limite of ['1', '50', '200', '0', 'abc'])
      expectError(await w.api.get(`${resultsPath(id)}?limite=${limite}`), 422, 'campo_desconhecido', 'query.limite');
    const page = await w.api.get(resultsPath(second));
    const cursor = page.body.proximo_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    expectError(
      await w.api.get(`${resultsPath(second)}?cursor=${encodeURIComponent(cursor)}&limite=10`),
      422,
      'campo_desconhecido',
      'query.limite',
    );
    expect((await w.api.get(`${resultsPath(second)}?cursor=${encodeURIComponent(cursor)}`)).body.itens).toHaveLength(
      56,
    );
    expectError(await w.api.get(`${resultsPath(id)}?cursor=nao-e-um-cursor`), 422, 'cursor_invalido', 'query.cursor');
    // Another execution's cursor, and the executions list's cursor.
    expectError(
      await w.api.get(`${resultsPath(id)}?cursor=${encodeURIComponent(cursor)}`),
      422,
      'cursor_invalido',
      'query.cursor',
    );
    const list = await w.api.get(`${VIGILANCIAS}?limite=1`);
    expect(list.body.proximo_cursor).toEqual(expect.any(String));
    expectError(
      await w.api.get(`${resultsPath(id)}?cursor=${encodeURIComponent(list.body.proximo_cursor)}`),
      422,
      'cursor_invalido',
      'query.cursor',
    );
    expectError(await w.api.get(`${resultsPath(id)}?cursor=a&cursor=b`), 422, 'parametro_repetido', 'query.cursor');
  });
});

describe('GET /v1/vigilancias/{id}/resultados.csv', () => {
  const HEADER = 'produto_id,ncm,tipo,detalhe,avaliado_em,snapshot_id,reaproveitado\r\n';

  it('exports every finding with the reaproveitado column (true/false): text/csv header=present, CRLF, quoted fields with doubled quotes, UTF-8', async () => {
    const w = await world();
    await clearOfDaily(w);
    const ref = await reference(w);
    const t = await trigger(w);
    const domain = newAttribute();
    await publish(w, { atributos: [{ codigo: domain, nome: 'Acabamento', dominio: ['fosco', 'brilhante'] }] });
    const catalog = await headOfficeCatalog(w);
    const clean = cleanNcm(ref);
    const bad = await item(w, catalog.id, ref, { atributos: withBadValue(ref, clean, BAD_VALUE) }, [t.carried]);
    const finished = await item(w, catalog.id, ref, {}, [{ codigo: domain, valores: ['áspero'] }]);
    await select(w, [bad, finished]);
    const first = await pulled(w, t, 0);
    // The domain changes: the second product evaluated afresh, the first reused.
    const at = await now(w);
    const changed = await publish(w, {
      atributos: [{ codigo: domain, nome: 'Acabamento', dominio: ['fosco', 'brilhante', 'acetinado'] }],
    });
    const second = await newest(w, 1);
    await advance(w, START + RUN);
    const { items } = await allFindings(w, second);
    expect(items.map((f) => [f.produto_id, f.tipo, f.reaproveitado])).toEqual([
      [bad, 'atributo_valor_invalido', true],
      [finished, 'atributo_valor_invalido', false],
    ]);
    const response = await w.target.fetch(csvPath(second), { headers: { authorization: `Bearer ${w.company.token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(response.headers.get('x-request-id')).toMatch(REQUEST_ID);
    const bytes = Buffer.from(await response.arrayBuffer());
    const expected =
      HEADER +
      items
        .map((f) =>
          csvLine([f.produto_id, f.ncm, f.tipo, f.detalhe, f.avaliado_em, f.snapshot_id, String(f.reaproveitado)]),
        )
        .join('');
    expect(bytes.equals(Buffer.from(expected, 'utf8'))).toBe(true);
    const rows = bytes.toString('utf8').split('\r\n');
    expect(rows).toHaveLength(4);
    expect(rows[3]).toBe('');
    // The reused line keeps the first run's date and snapshot; its detalhe quoted, the value's quotes doubled.
    expect(rows[1]!.startsWith(`${bad},${clean},atributo_valor_invalido,"`)).toBe(true);
    expect(rows[1]).toContain('fora, ""do"" domínio');
    expect(rows[1]!.endsWith(`",${iso(first.end)},${first.published.id},true`)).toBe(true);
    expect(rows[2]!.startsWith(`${finished},${clean},atributo_valor_invalido,"`)).toBe(true);
    expect(rows[2]).toContain('áspero');
    expect(rows[2]!.endsWith(`",${iso(at + START + RUN)},${changed.id},false`)).toBe(true);
  });

  it('exports only the header row for an execution without findings; 409 resultado_indisponivel for a failed one', async () => {
    const { w, t } = await scene({ watching: {} });
    const { id } = await pulled(w, t, 0);
    const answer = await w.api.get(csvPath(id));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.text).toBe(HEADER);
    await executionFault(w, { fail: true });
    const { id: failed } = await pulled(w, t, 1);
    expect((await detail(w, failed)).estado).toBe('falhou');
    expectError(await w.api.get(csvPath(failed)), 409, 'resultado_indisponivel');
    expectError(await w.api.get(resultsPath(failed)), 409, 'resultado_indisponivel');
  });
});

describe('GET /v1/vigilancias', () => {
  // spec: SURV-18, SURV-19, SURV-20, SURV-21, LIM-14
  it('lists newest first, limite pages with proximo_cursor until null, items {id, estado, fase, criada_em, resultado_disponivel}', async () => {
    const { w, t } = await scene({ watching: {} });
    const a = await pulled(w, t, 0);
    const b = await pulled(w, t, 1);
    const tc = await now(w);
    await t.pull();
    const c = await newest(w, 2);
    const itemA = {
      id: a.id,
      estado: 'concluida',
      fase: 'publicada',
      criada_em: iso(a.at),
      resultado_disponivel: true,
    };
    const itemB = {
      id: b.id,
      estado: 'concluida',
      fase: 'publicada',
      criada_em: iso(b.at),
      resultado_disponivel: true,
    };
    const itemC = { id: c, estado: 'pendente', fase: 'na_fila', criada_em: iso(tc), resultado_disponivel: false };
    const all = await w.api.get(VIGILANCIAS);
    expect(all.status, all.text).toBe(200);
    expect(all.body).toEqual({ itens: [itemC, itemB, itemA], proximo_cursor: null });
    expect(all.headers.get('x-request-id')).toMatch(REQUEST_ID);
    const first = await w.api.get(`${VIGILANCIAS}?limite=2`);
    expect(first.status, first.text).toBe(200);
    expect(first.body.itens).toEqual([itemC, itemB]);
    expect(first.body.proximo_cursor).toEqual(expect.any(String));
    const second = await w.api.get(`${VIGILANCIAS}?limite=2&cursor=${encodeURIComponent(first.body.proximo_cursor)}`);
    expect(second.status, second.text).toBe(200);
    expect(second.body).toEqual({ itens: [itemA], proximo_cursor: null });
    expect((await w.api.get(`${VIGILANCIAS}?limite=3`)).body.proximo_cursor).toBeNull();
    // A new execution does not disturb a walk in progress: it is newer than the cursor.
    await advance(w, START + RUN);
    await t.pull();
    const again = await w.api.get(`${VIGILANCIAS}?limite=2&cursor=${encodeURIComponent(first.body.proximo_cursor)}`);
    expect(again.body).toEqual({ itens: [itemA], proximo_cursor: null });
  });

  // spec: LIM-22
  it('answers at most 100 items a page: 101 executions or more come in pages of 100 with limite 100 or more, and of 50 by default', async () => {
    const { w, t } = await scene({ watching: {} });
    for (let i = 0; i < 101; i++) {
      await t.pull();
      await advance(w, START + RUN);
    }
    // A daily boundary may have added its own execution: at least the 101 publications' ones.
    const all = await listAll(w);
    expect(all.length).toBeGreaterThanOrEqual(101);
    const newestFirst = all.map((i) => i.id);
    const pages = (query: string) => cursorPages(w.api, VIGILANCIAS, query);
    const sizes = (total: number, size: number) =>
      Array.from({ length: Math.ceil(total / size) }, (_, i) => Math.min(size, total - i * size));
    for (const limite of ['100', '101', '1000']) {
      const bounded = await pages(`limite=${limite}`);
      expect(
        bounded.map((p) => p.length),
        `limite=${limite}`,
      ).toEqual(sizes(all.length, 100));
      expect(bounded.flat()).toEqual(newestFirst);
    }
    const byDefault = await pages('');
    expect(byDefault.map((p) => p.length)).toEqual(sizes(all.length, 50));
    expect(byDefault.flat()).toEqual(newestFirst);
  });

  // spec: AUTH-06
  it("answers an empty list for a company without executions, and lists no other company's", async () => {
    const w = await world();
    await clearOfDaily(w);
    const ref = await reference(w);
    const t = await trigger(w);
    const other = await otherCompany(w);
    const catalog = await headOfficeCatalog(other);
    await select(other, [await item(other, catalog.id, ref, {}, [t.carried])]);
    await t.pull();
    expect(await listAll(other)).toHaveLength(1);
    const answer = await w.api.get(VIGILANCIAS);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ itens: [], proximo_cursor: null });
  });

  // spec: GET /v1/vigilancias `limite` ("at most 100 items"): an integer, whatever leading zeros write it.
  it('takes limite with leading zeros as the integer it writes: 0000002 pages by 2', async () => {
    const { w, t } = await scene({ watching: {} });
    const a = await pulled(w, t, 0);
    const b = await pulled(w, t, 1);
    const c = await pulled(w, t, 2);
    const first = await w.api.get(`${VIGILANCIAS}?limite=0000002`);
    expect(first.status, first.text).toBe(200);
    expect(first.body.itens.map((i: { id: string }) => i.id)).toEqual([c.id, b.id]);
    const rest = await w.api.get(
      `${VIGILANCIAS}?limite=0000002&cursor=${encodeURIComponent(first.body.proximo_cursor)}`,
    );
    expect(rest.body.itens.map((i: { id: string }) => i.id)).toEqual([a.id]);
    expect(rest.body.proximo_cursor).toBeNull();
    expect((await w.api.get(`${VIGILANCIAS}?limite=0000050`)).body.itens).toHaveLength(3);
  });

  // LIM-22 bounds the page at 100 and states no refusal of a larger limite: it is capped, not refused.
  it('refuses a limite that is no count (422 query.limite), caps one above 100, and refuses a cursor not of this list (422 cursor_invalido query.cursor)', async () => {
    const { w, ref, t } = await scene({ watching: {} });
    const other = await otherCompany(w);
    const otherCatalog = await headOfficeCatalog(other);
    await select(other, [await item(other, otherCatalog.id, ref, {}, [t.carried])]);
    await t.pull();
    await t.pull();
    for (const bad of ['0', '-1', '1.5', 'dez'])
      expectError(await w.api.get(`${VIGILANCIAS}?limite=${bad}`), 422, 'valor_invalido', 'query.limite');
    expect((await w.api.get(`${VIGILANCIAS}?limite=100`)).status).toBe(200);
    const capped = await w.api.get(`${VIGILANCIAS}?limite=101`);
    expect(capped.status, capped.text).toBe(200);
    expect(capped.body.itens).toHaveLength(2);
    expectError(await w.api.get(`${VIGILANCIAS}?cursor=nao-e-um-cursor`), 422, 'cursor_invalido', 'query.cursor');
    expectError(await w.api.get(`${VIGILANCIAS}?ordem=asc`), 422, 'campo_desconhecido', 'query.ordem');
    const theirs = await other.api.get(`${VIGILANCIAS}?limite=1`);
    expect(theirs.body.proximo_cursor).toEqual(expect.any(String));
    expectError(
      await w.api.get(`${VIGILANCIAS}?cursor=${encodeURIComponent(theirs.body.proximo_cursor)}`),
      422,
      'cursor_invalido',
      'query.cursor',
    );
    const ours = await w.api.get(`${VIGILANCIAS}?limite=1`);
    expect((await w.api.get(`${VIGILANCIAS}?cursor=${encodeURIComponent(ours.body.proximo_cursor)}`)).status).toBe(200);
  });
});

describe('methods', () => {
  it('answers 405 metodo_nao_permitido with Allow GET, HEAD on the four paths', async () => {
    const w = await world();
    const allow = (answer: Answer) =>
      (answer.headers.get('allow') ?? '')
        .split(',')
        .map((m) => m.trim())
        .sort();
    for (const [method, path] of [
      ['POST', VIGILANCIAS],
      ['DELETE', executionPath(UNKNOWN_V7_ID)],
      ['POST', resultsPath(UNKNOWN_V7_ID)],
      ['PUT', csvPath(UNKNOWN_V7_ID)],
    ] as const) {
      const answer = await w.api.request(method, path, { body: {} });
      expectError(answer, 405, 'metodo_nao_permitido');
      expect(allow(answer), `${method} ${path}`).toEqual(['GET', 'HEAD']);
    }
  });
});

describe('permissions and ownership', () => {
  // spec: AUTH-08, AUTH-09
  it('the four GETs need catalogo:ler: 403 permissao_insuficiente without it, 200 with only it', async () => {
    const { w, t } = await scene({ watching: {} });
    const { id } = await pulled(w, t, 0);
    const others = w.api.as(
      (
        await w.controls.addCredential(w.company.companyId, [
          'catalogo:gerenciar',
          'vigilancia:gerenciar',
          'analise:executar',
          'estabelecimento:gerenciar',
          'webhook:gerenciar',
        ])
      ).token,
    );
    const reader = w.api.as((await w.controls.addCredential(w.company.companyId, ['catalogo:ler'])).token);
    for (const path of [VIGILANCIAS, executionPath(id), resultsPath(id), csvPath(id)]) {
      expectError(await others.get(path), 403, 'permissao_insuficiente', null);
      expect((await reader.get(path)).status, path).toBe(200);
    }
  });

  it('answers 401 without a valid credential', async () => {
    const w = await world();
    expectError(await w.api.as(undefined).get(VIGILANCIAS), 401, 'credencial_ausente', 'header.authorization');
    expectError(
      await w.api.as(undefined).get(executionPath(UNKNOWN_V7_ID)),
      401,
      'credencial_ausente',
      'header.authorization',
    );
    expectError(
      await w.api.as('svc_at_not-a-token').get(resultsPath(UNKNOWN_V7_ID)),
      401,
      'credencial_invalida',
      'header.authorization',
    );
  });

  // spec: AUTH-04, REQ-13
  it("answers 404 vigilancia_nao_encontrada at path.id for another company's execution or an unknown id; 422 for a malformed id", async () => {
    const { w, t } = await scene({ watching: {} });
    const { id } = await pulled(w, t, 0);
    const other = await otherCompany(w);
    for (const path of [executionPath(id), resultsPath(id), csvPath(id)])
      expectError(await other.api.get(path), 404, 'vigilancia_nao_encontrada', 'path.id');
    for (const path of [executionPath(UNKNOWN_V7_ID), resultsPath(UNKNOWN_V7_ID), csvPath(UNKNOWN_V7_ID)])
      expectError(await w.api.get(path), 404, 'vigilancia_nao_encontrada', 'path.id');
    expectError(await w.api.get(executionPath('abc')), 422, 'valor_invalido', 'path.id');
    expectError(await w.api.get(resultsPath('abc')), 422, 'valor_invalido', 'path.id');
    const upper = await w.api.get(executionPath(id.toUpperCase()));
    expect(upper.status, upper.text).toBe(200);
    expect(upper.body.id).toBe(id);
  });
});
