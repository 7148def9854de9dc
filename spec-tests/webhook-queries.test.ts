/**
 * The webhook event queries (spec "GET /v1/webhook/eventos", "GET /v1/webhook/eventos/{id}", "…/tentativas",
 * "Webhook event (list item)", "(detail)", "Delivery attempt", "Delivery semantics" retention; docs/webhooks.md):
 * order, limits and cursors, the exact fields, attempts across cycles, queries while suspended, and the hourly
 * retention cleanup (and a job fault holding it back).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { headOfficeCatalog, newKey, otherCompany, product, world, type Answer, type World } from './support/client.js';
import { needsControls, needsOwnCompany } from './support/deployment.js';
import {
  ATTEMPT_FIELDS as ATTEMPT_TYPES,
  EVENT_DETAIL_FIELDS as DETAIL_TYPES,
  EVENT_ITEM_FIELDS as ITEM_TYPES,
  expectTyped,
  RECEIPT_FIELDS as RECEIPT_TYPES,
} from './support/event-fields.js';
import { expectControlError, expectError } from './support/expect.js';
import { UNKNOWN_ID } from './support/fixtures.js';
import {
  addFault,
  advance,
  advanceTo,
  attemptsPath,
  changeDestination,
  Cleanup,
  createDestination,
  DAY,
  eventDetail,
  eventPath,
  EVENTS,
  HOUR,
  inboxFor,
  iso,
  MINUTE,
  now,
  raiseEvent,
  removeFault,
  resend,
  resendPath,
  revokeDestination,
  SECOND,
  testEvent,
  TESTS,
  uniqueHost,
  WEBHOOK,
  type Destination,
} from './support/webhook-setup.js';

const MIB = 1024 * 1024;

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const ITEM_FIELDS = [
  'criado_em',
  'destino_id',
  'destino_versao',
  'estado',
  'id',
  'ocorrido_em',
  'prazo_em',
  'status_http',
  'tentativas_ciclo',
  'tentativas_totais',
  'tipo',
];
const DETAIL_FIELDS = [...ITEM_FIELDS, 'codigo_falha', 'evento', 'proxima_tentativa_em', 'terminado_em'].sort();
const ATTEMPT_FIELDS = [
  'codigo_falha',
  'destino_versao',
  'estado',
  'iniciada_em',
  'status_http',
  'tentativa',
  'terminada_em',
];

async function configured(): Promise<{ w: World; host: string; destination: Destination }> {
  const w = await world();
  const host = uniqueHost();
  const destination = await createDestination(w, `https://${host}/eventos`);
  return { w, host, destination };
}

/** `w` with a webhook destination: the service records events only for a company that has one (spec: CONV-09). */
async function withDestination(w: World): Promise<World> {
  await createDestination(w, `https://${uniqueHost()}/eventos`);
  return w;
}

/**
 * An event of the company, for a test about reading one (not about how it was made): raised through the controls;
 * on a deployment (no controls) the newest event the company already has, else a test event.
 */
async function anEvent(w: World): Promise<string> {
  if (w.target.kind !== 'deployment') return raiseEvent(w);
  const newest = (await list(w, 'limite=1')).body.itens[0] as { id: string } | undefined;
  if (newest !== undefined) return newest.id;
  const destination = await w.api.get(WEBHOOK);
  expect(destination.status, destination.text).toBe(200);
  return testEvent(w, destination.headers.get('etag')!);
}

async function list(w: World, query = ''): Promise<Answer> {
  const answer = await w.api.get(`${EVENTS}${query === '' ? '' : `?${query}`}`);
  expect(answer.status, answer.text).toBe(200);
  expect(Object.keys(answer.body).sort()).toEqual(['itens', 'proximo_cursor']);
  return answer;
}

const ids = (answer: Answer): string[] => answer.body.itens.map((item: { id: string }) => item.id);

/** Every event id following proximo_cursor with `limite`; the pages' sizes too. */
async function walk(
  w: World,
  limite: number,
  between?: (page: number) => Promise<void>,
): Promise<{ ids: string[]; sizes: number[] }> {
  const all: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const answer: Answer = await list(
      w,
      `limite=${limite}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
    );
    all.push(...ids(answer));
    sizes.push(answer.body.itens.length);
    cursor = answer.body.proximo_cursor;
    if (cursor === null) return { ids: all, sizes };
    expect(typeof cursor).toBe('string');
    if (between) await between(page);
  }
  throw new Error('the event list did not end within 100 pages');
}

async function attempts(w: World, id: string, query = ''): Promise<Answer> {
  const answer = await w.api.get(`${attemptsPath(id)}${query === '' ? '' : `?${query}`}`);
  expect(answer.status, answer.text).toBe(200);
  expect(Object.keys(answer.body).sort()).toEqual(['itens', 'proxima_tentativa']);
  return answer;
}

const numbers = (answer: Answer): number[] => answer.body.itens.map((a: { tentativa: number }) => a.tentativa);

describe('GET /v1/webhook/eventos', () => {
  // spec: WH-EVT-15
  it('answers an empty list as {itens: [], proximo_cursor: null}', async () => {
    needsOwnCompany('a company without webhook events');
    const w = await world();
    expect((await list(w)).body).toEqual({ itens: [], proximo_cursor: null });
  });

  // spec: WH-EVT-01, WH-EVT-06, WH-EVT-15, WH-EVT-16
  it('lists newest first, each item exactly the list-item fields of its detail', async () => {
    const { w, destination } = await configured();
    const a = await raiseEvent(w);
    await advance(w, MINUTE);
    const b = await testEvent(w, destination.etag);
    const c = await raiseEvent(w, { tipo: 'vigilancia.degradada' });
    await advance(w, 0);
    const answer = await list(w);
    expect(ids(answer)).toEqual([c, b, a]);
    expect(answer.body.proximo_cursor).toBeNull();
    for (const item of answer.body.itens) {
      expect(Object.keys(item).sort()).toEqual(ITEM_FIELDS);
      const detail = await eventDetail(w, item.id);
      expect(item).toEqual(Object.fromEntries(ITEM_FIELDS.map((f) => [f, detail[f]])));
    }
    expect(answer.body.itens.map((i: { tipo: string }) => i.tipo)).toEqual([
      'vigilancia.degradada',
      'webhook.teste',
      'catalogo.aplicado',
    ]);
  });

  // spec: LIM-14
  it('pages with limite and proximo_cursor, visiting every event once in order; a full last page ends with null', async () => {
    const w = await withDestination(await world());
    const raised: string[] = [];
    for (let i = 0; i < 7; i++) raised.push(await raiseEvent(w));
    const newestFirst = [...raised].reverse();
    expect(await walk(w, 3)).toEqual({ ids: newestFirst, sizes: [3, 3, 1] });
    expect(await walk(w, 7)).toEqual({ ids: newestFirst, sizes: [7] });
    expect(await walk(w, 1)).toEqual({ ids: newestFirst, sizes: [1, 1, 1, 1, 1, 1, 1] });
    // Six events in pages of three: the second page is the last.
    const six = await withDestination(await world());
    const sixIds: string[] = [];
    for (let i = 0; i < 6; i++) sixIds.push(await raiseEvent(six));
    expect(await walk(six, 3)).toEqual({ ids: sixIds.reverse(), sizes: [3, 3] });
  });

  it('keeps a walk stable while new events arrive: they are newer than the cursor and do not appear', async () => {
    const w = await withDestination(await world());
    const raised: string[] = [];
    for (let i = 0; i < 5; i++) raised.push(await raiseEvent(w));
    const added: string[] = [];
    const walked = await walk(w, 2, async () => {
      added.push(await raiseEvent(w));
    });
    expect(walked.ids).toEqual([...raised].reverse());
    expect(ids(await list(w, 'limite=100'))).toEqual([...raised, ...added].reverse());
  });

  // spec: LIM-15
  it('answers 50 items by default and at most 100', async () => {
    const w = await withDestination(await world());
    const raised: string[] = [];
    for (let i = 0; i < 101; i++) raised.push(await raiseEvent(w));
    const newestFirst = [...raised].reverse();
    const first = await list(w);
    expect(ids(first)).toEqual(newestFirst.slice(0, 50));
    expect(first.body.proximo_cursor).toEqual(expect.any(String));
    const full = await list(w, 'limite=100');
    expect(ids(full)).toEqual(newestFirst.slice(0, 100));
    const rest = await list(w, `limite=100&cursor=${encodeURIComponent(full.body.proximo_cursor)}`);
    expect(rest.body).toMatchObject({ proximo_cursor: null });
    expect(ids(rest)).toEqual([raised[0]]);
    // spec: LIM-15 — the page holds at most 100 events; a larger limite is allowed and gets that page.
    for (const limite of ['101', '500', '0000150']) {
      const capped = await list(w, `limite=${limite}`);
      expect(ids(capped)).toEqual(newestFirst.slice(0, 100));
      expect(capped.body.proximo_cursor).toBe(full.body.proximo_cursor);
    }
  });

  // spec: LIM-16
  // Thousands of events: over HTTP on a loaded machine this takes more than the default 5 s.
  it('answers at most 1 MiB of body, even for a list whose items add up to more than 1 MiB and a limite that asks for all of them', {
    timeout: 60_000,
  }, async () => {
    const w = await withDestination(await world());
    const first = await raiseEvent(w);
    // One item's bytes (every item of these events has the same length), and enough events to pass 1 MiB.
    const one = (await list(w)).text.length - '{"itens":[],"proximo_cursor":null}'.length;
    const needed = Math.ceil(MIB / (one + 1)) + 1;
    expect(needed).toBeGreaterThan(100);
    // Raised 50 at a time (their order among themselves does not matter here: the newest-first order has its own tests).
    const raised = new Set([first]);
    while (raised.size < needed) {
      const batch = Array.from({ length: Math.min(50, needed - raised.size) }, () => raiseEvent(w));
      for (const id of await Promise.all(batch)) raised.add(id);
    }
    for (const limite of ['100', '1000', String(needed)]) {
      const page = await list(w, `limite=${limite}`);
      expect(Buffer.byteLength(page.text, 'utf8'), `limite=${limite}`).toBeLessThanOrEqual(MIB);
      expect(page.body.proximo_cursor).toEqual(expect.any(String));
      const shown = ids(page);
      expect(new Set(shown).size).toBe(shown.length);
      for (const id of shown) expect(raised.has(id), id).toBe(true);
    }
  });

  // spec: GET /v1/webhook/eventos `limite` ("at most 100 events"): an integer, whatever leading zeros write it.
  it('takes limite with leading zeros as the integer it writes: 0000050 is 50', async () => {
    const w = await withDestination(await world());
    const raised: string[] = [];
    for (let i = 0; i < 51; i++) raised.push(await raiseEvent(w));
    const padded = await list(w, 'limite=0000050');
    expect(ids(padded)).toEqual([...raised].reverse().slice(0, 50));
    expect(padded.body.proximo_cursor).toEqual(expect.any(String));
  });

  it.each(['0', 'abc', '-1', '1.5', ''])(
    'refuses limite=%j, no count of events, with 422 valor_invalido query.limite',
    async (limite) => {
      const w = await world();
      expectError(await w.api.get(`${EVENTS}?limite=${limite}`), 422, 'valor_invalido', 'query.limite');
    },
  );

  it('refuses a repeated limite with 422 parametro_repetido and an unknown parameter with 422 campo_desconhecido', async () => {
    const w = await world();
    expectError(await w.api.get(`${EVENTS}?limite=1&limite=2`), 422, 'parametro_repetido', 'query.limite');
    expectError(await w.api.get(`${EVENTS}?apos_id=${UNKNOWN_ID}`), 422, 'campo_desconhecido', 'query.apos_id');
  });

  // spec: WH-EVT-17
  it('refuses a cursor of another company, or not a cursor, with 422 cursor_invalido query.cursor', async () => {
    const w = await withDestination(await world());
    for (let i = 0; i < 3; i++) await raiseEvent(w);
    const cursor = (await list(w, 'limite=1')).body.proximo_cursor as string;
    const other = await withDestination(await otherCompany(w));
    for (let i = 0; i < 3; i++) await raiseEvent(other);
    expectError(
      await other.api.get(`${EVENTS}?cursor=${encodeURIComponent(cursor)}`),
      422,
      'cursor_invalido',
      'query.cursor',
    );
    expectError(await w.api.get(`${EVENTS}?cursor=nada`), 422, 'cursor_invalido', 'query.cursor');
    expectError(
      await w.api.get(`${EVENTS}?cursor=${encodeURIComponent(cursor.slice(0, -2))}`),
      422,
      'cursor_invalido',
      'query.cursor',
    );
    // A cursor of another list of the same company (its products) is not one of this list.
    const catalog = await headOfficeCatalog(w);
    await product(w, catalog.id);
    await product(w, catalog.id);
    const productCursor = (await w.api.get('/v1/produtos?limite=1')).body.proximo_cursor as string;
    expect(typeof productCursor).toBe('string');
    expectError(
      await w.api.get(`${EVENTS}?cursor=${encodeURIComponent(productCursor)}`),
      422,
      'cursor_invalido',
      'query.cursor',
    );
    // The cursor still works for its own company.
    expect(ids(await list(w, `cursor=${encodeURIComponent(cursor)}`))).toHaveLength(2);
  });

  // spec: AUTH-06
  it("lists only the company's own events", async () => {
    const w = await withDestination(await world());
    const mine = await raiseEvent(w);
    const other = await withDestination(await otherCompany(w));
    const theirs = await raiseEvent(other);
    expect(ids(await list(w))).toEqual([mine]);
    expect(ids(await list(other))).toEqual([theirs]);
  });
});

describe('GET /v1/webhook/eventos/{id}', () => {
  // spec: CONV-07, WH-EVT-02, WH-EVT-03, WH-EVT-05, WH-EVT-09, WH-EVT-18
  it('answers exactly the list-item fields plus terminado_em, proxima_tentativa_em, codigo_falha and evento', async () => {
    const { w, destination } = await configured();
    const t0 = await now(w);
    const id = await testEvent(w, destination.etag);
    const pending = await w.api.get(eventPath(id));
    expect(pending.status).toBe(200);
    expect(Object.keys(pending.body).sort()).toEqual(DETAIL_FIELDS);
    expect(pending.body).toEqual({
      id,
      tipo: 'webhook.teste',
      ocorrido_em: iso(t0),
      destino_id: destination.id,
      destino_versao: 1,
      estado: 'pendente',
      tentativas_ciclo: 0,
      tentativas_totais: 0,
      status_http: null,
      criado_em: iso(t0),
      prazo_em: iso(t0 + DAY),
      terminado_em: null,
      proxima_tentativa_em: iso(t0),
      codigo_falha: null,
      evento: { id, versao: 1, empresa: w.company.cnpjRoot, ocorridoEm: iso(t0), dados: { tipo: 'webhook.teste' } },
    });
    const t1 = await advance(w, 0);
    expect(await eventDetail(w, id)).toEqual({
      ...pending.body,
      estado: 'entregue',
      tentativas_ciclo: 1,
      tentativas_totais: 1,
      status_http: 200,
      terminado_em: iso(t1),
      proxima_tentativa_em: null,
    });
  });

  // spec: CONV-04
  it('accepts the id in upper case', async () => {
    const w = await withDestination(await world());
    const id = await anEvent(w);
    const answer = await w.api.get(eventPath(id.toUpperCase()));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.id).toBe(id);
  });

  // spec: AUTH-04, REQ-13
  it("answers 404 evento_nao_encontrado for another company's event and an unknown id, 422 for a malformed id", async () => {
    const w = await withDestination(await world());
    const id = await raiseEvent(w);
    const other = await withDestination(await otherCompany(w));
    expectError(await other.api.get(eventPath(id)), 404, 'evento_nao_encontrado');
    expectError(await other.api.get(attemptsPath(id)), 404, 'evento_nao_encontrado');
    expectError(await w.api.get(eventPath(UNKNOWN_ID)), 404, 'evento_nao_encontrado');
    expectError(await w.api.get(eventPath('nao-e-uuid')), 422, 'valor_invalido', 'path.id');
  });

  // spec: AUTH-22, AUTH-23, AUTH-24
  it('needs webhook:gerenciar for every query (403 permissao_insuficiente)', async () => {
    const w = await withDestination(await world());
    const id = await anEvent(w);
    const { token } = await w.controls.addCredential(w.company.companyId, ['catalogo:ler', 'catalogo:gerenciar']);
    const reader = w.api.as(token);
    expectError(await reader.get(EVENTS), 403, 'permissao_insuficiente');
    expectError(await reader.get(eventPath(id)), 403, 'permissao_insuficiente');
    expectError(await reader.get(attemptsPath(id)), 403, 'permissao_insuficiente');
  });
});

describe('GET /v1/webhook/eventos/{id}/tentativas', () => {
  // spec: WH-EVT-10, WH-EVT-11, WH-EVT-20, WH-EVT-21, WH-EVT-23, WH-EVT-24
  it('lists attempts in ascending order across two cycles, paging with limite, apos_tentativa and proxima_tentativa', async () => {
    const { w, host, destination } = await configured();
    await addFault(w, cleanup, {
      target: 'delivery',
      match: { url: `https://${host}/**` },
      effect: { status: 500 },
      times: 3,
    });
    const id = await testEvent(w, destination.etag);
    const t0 = await advance(w, 0);
    await advance(w, 5 * SECOND);
    await advance(w, 5 * MINUTE);
    await advance(w, 30 * MINUTE);
    const t2 = t0 + 5 * SECOND;
    const t3 = t2 + 5 * MINUTE;
    const t4 = t3 + 30 * MINUTE;
    expect(await eventDetail(w, id)).toMatchObject({
      estado: 'entregue',
      tentativas_ciclo: 4,
      tentativas_totais: 4,
      terminado_em: iso(t4),
    });
    const t5 = await advance(w, HOUR);
    await resend(w, id, destination.etag);
    await advance(w, 0);
    expect(await eventDetail(w, id)).toMatchObject({ estado: 'entregue', tentativas_ciclo: 1, tentativas_totais: 5 });
    const failed = (at: number, tentativa: number) => ({
      tentativa,
      destino_versao: 1,
      estado: 'falhou',
      iniciada_em: iso(at),
      terminada_em: iso(at),
      codigo_falha: 'status_nao_2xx',
      status_http: 500,
    });
    const delivered = (at: number, tentativa: number) => ({
      tentativa,
      destino_versao: 1,
      estado: 'entregue',
      iniciada_em: iso(at),
      terminada_em: iso(at),
      codigo_falha: null,
      status_http: 200,
    });
    const all = [failed(t0, 1), failed(t2, 2), failed(t3, 3), delivered(t4, 4), delivered(t5, 5)];
    const whole = await attempts(w, id);
    expect(whole.body).toEqual({ itens: all, proxima_tentativa: null });
    for (const item of whole.body.itens) expect(Object.keys(item).sort()).toEqual(ATTEMPT_FIELDS);
    // Pages of two, each sending back proxima_tentativa as apos_tentativa.
    const p1 = await attempts(w, id, 'limite=2');
    expect(p1.body).toEqual({ itens: all.slice(0, 2), proxima_tentativa: 2 });
    const p2 = await attempts(w, id, `limite=2&apos_tentativa=${p1.body.proxima_tentativa}`);
    expect(p2.body).toEqual({ itens: all.slice(2, 4), proxima_tentativa: 4 });
    const p3 = await attempts(w, id, `limite=2&apos_tentativa=${p2.body.proxima_tentativa}`);
    expect(p3.body).toEqual({ itens: all.slice(4), proxima_tentativa: null });
    // A full last page ends with null; after the end, an empty page.
    expect((await attempts(w, id, 'limite=5')).body.proxima_tentativa).toBeNull();
    expect((await attempts(w, id, 'limite=4&apos_tentativa=1')).body).toEqual({
      itens: all.slice(1, 5),
      proxima_tentativa: null,
    });
    expect((await attempts(w, id, 'apos_tentativa=5')).body).toEqual({ itens: [], proxima_tentativa: null });
    expect(
      (await attempts(w, id, 'apos_tentativa=0000000003')).body.itens.map((a: { tentativa: number }) => a.tentativa),
    ).toEqual([4, 5]);
  });

  it('answers an event with no attempt yet with {itens: [], proxima_tentativa: null}', async () => {
    needsControls('the clock held still: on a real clock the first attempt starts at once');
    const { w, destination } = await configured();
    const id = await testEvent(w, destination.etag);
    expect((await attempts(w, id)).body).toEqual({ itens: [], proxima_tentativa: null });
  });

  // spec: LIM-17
  it('answers 50 attempts by default and at most 100 (many cycles of 8 failed attempts)', async () => {
    const { w, host, destination } = await configured();
    await addFault(w, cleanup, {
      target: 'delivery',
      match: { url: `https://${host}/**` },
      effect: { status: 503 },
      times: null,
    });
    const id = await testEvent(w, destination.etag);
    await advance(w, 23 * HOUR);
    for (let cycle = 2; cycle <= 7; cycle++) {
      expect(await eventDetail(w, id)).toMatchObject({
        estado: 'falhou',
        tentativas_ciclo: 8,
        tentativas_totais: 8 * (cycle - 1),
      });
      await resend(w, id, destination.etag);
      await advance(w, 23 * HOUR);
    }
    expect(await eventDetail(w, id)).toMatchObject({
      estado: 'falhou',
      tentativas_ciclo: 8,
      tentativas_totais: 56,
      codigo_falha: 'status_nao_2xx',
      status_http: 503,
    });
    const first = await attempts(w, id);
    expect(numbers(first)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(first.body.proxima_tentativa).toBe(50);
    const rest = await attempts(w, id, 'apos_tentativa=50');
    expect(numbers(rest)).toEqual([51, 52, 53, 54, 55, 56]);
    expect(rest.body.proxima_tentativa).toBeNull();
    const max = await attempts(w, id, 'limite=100');
    expect(numbers(max)).toEqual(Array.from({ length: 56 }, (_, i) => i + 1));
    expect(max.body.proxima_tentativa).toBeNull();
  });

  // spec: LIM-18
  it('answers at most 100 attempts a page: 104 attempts (13 cycles of 8) come as 100 and 4 with limite=100, and as 50, 50 and 4 without it', async () => {
    const { w, host, destination } = await configured();
    await addFault(w, cleanup, {
      target: 'delivery',
      match: { url: `https://${host}/**` },
      effect: { status: 503 },
      times: null,
    });
    const id = await testEvent(w, destination.etag);
    await advance(w, 23 * HOUR);
    for (let cycle = 2; cycle <= 13; cycle++) {
      await resend(w, id, destination.etag);
      await advance(w, 23 * HOUR);
    }
    expect(await eventDetail(w, id)).toMatchObject({ estado: 'falhou', tentativas_ciclo: 8, tentativas_totais: 104 });
    const max = await attempts(w, id, 'limite=100');
    expect(numbers(max)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(max.body.proxima_tentativa).toBe(100);
    const rest = await attempts(w, id, 'limite=100&apos_tentativa=100');
    expect(numbers(rest)).toEqual([101, 102, 103, 104]);
    expect(rest.body.proxima_tentativa).toBeNull();
    const pages: number[][] = [];
    let after: number | null = null;
    do {
      const page: Answer = await attempts(w, id, after === null ? '' : `apos_tentativa=${after}`);
      pages.push(numbers(page));
      after = page.body.proxima_tentativa;
    } while (after !== null && pages.length < 10);
    expect(pages.map((p) => p.length)).toEqual([50, 50, 4]);
    expect(pages.flat()).toEqual(Array.from({ length: 104 }, (_, i) => i + 1));
  });

  // spec: "limite (integer 1 to 100, default 50)": 0000002 is the integer 2.
  // spec: LIM-19
  it('takes limite with leading zeros as the integer it writes: 0000002 pages by 2, 0000101 is above 100', async () => {
    const { w, host, destination } = await configured();
    await addFault(w, cleanup, {
      target: 'delivery',
      match: { url: `https://${host}/**` },
      effect: { status: 500 },
      times: 2,
    });
    const id = await testEvent(w, destination.etag);
    await advance(w, 0);
    await advance(w, 5 * SECOND);
    await advance(w, 5 * MINUTE);
    const first = await attempts(w, id, 'limite=0000002');
    expect(numbers(first)).toEqual([1, 2]);
    expect(first.body.proxima_tentativa).toBe(2);
    const rest = await attempts(w, id, 'limite=0000002&apos_tentativa=2');
    expect(numbers(rest)).toEqual([3]);
    expect(rest.body.proxima_tentativa).toBeNull();
    expect(numbers(await attempts(w, id, 'limite=0000050'))).toEqual([1, 2, 3]);
    expectError(await w.api.get(`${attemptsPath(id)}?limite=0000101`), 422, 'valor_invalido', 'query.limite');
  });

  // spec: WH-EVT-22, LIM-19
  it.each([
    ['limite=0', 'query.limite'],
    ['limite=101', 'query.limite'],
    ['limite=abc', 'query.limite'],
    ['apos_tentativa=abc', 'query.apos_tentativa'],
    ['apos_tentativa=-1', 'query.apos_tentativa'],
    ['apos_tentativa=', 'query.apos_tentativa'],
    ['apos_tentativa=12345678901', 'query.apos_tentativa'],
  ])('refuses %s with 422 valor_invalido %s', async (query, caminho) => {
    const w = await withDestination(await world());
    const id = await anEvent(w);
    expectError(await w.api.get(`${attemptsPath(id)}?${query}`), 422, 'valor_invalido', caminho);
  });

  it('answers 404 evento_nao_encontrado for an unknown event', async () => {
    const w = await world();
    expectError(await w.api.get(attemptsPath(UNKNOWN_ID)), 404, 'evento_nao_encontrado');
  });
});

/**
 * A company with products a and b, both selected: cutting the capacity to 1 takes the coverage into
 * capacidade_excedida (vigilancia.degradada), restoring it to 10 takes it out (vigilancia.restabelecida).
 * The service's own triggers, so the tests see what it records, not what the raise control makes up.
 */
async function watching(
  company: Record<string, unknown> = {},
): Promise<{ w: World; capacity: (n: number) => Promise<void> }> {
  // Skipped on a deployment before the selection of the shared company is touched: the capacity is a company flag.
  needsControls('the company flags: the surveillance capacity');
  const w = await world({}, company);
  const catalog = await headOfficeCatalog(w);
  const ids = [(await product(w, catalog.id)).id, (await product(w, catalog.id)).id];
  const selection = await w.api.get('/v1/empresa/vigilancia');
  const selected = await w.api.patch(
    '/v1/empresa/vigilancia',
    { modo: 'selecao', adicionar: ids },
    { ifMatch: selection.headers.get('etag')! },
  );
  expect(selected.status, selected.text).toBe(200);
  const capacity = async (n: number) => {
    await w.controls.updateCompany(w.company.companyId, { surveillanceCapacity: n });
  };
  return { w, capacity };
}

const coverage = async (w: World): Promise<string> => (await w.api.get('/v1/empresa/vigilancia')).body.cobertura;

describe('events and the destination they are recorded against (spec: CONV-09, WH-EVT-01)', () => {
  it('records no event for a company without a webhook destination: a coverage change and a failed analysis list nothing; once configured, the next ones carry a string destino_id and an integer destino_versao', async () => {
    const { w, capacity } = await watching({ analysisAllowance: 0 });
    await capacity(1);
    expect(await coverage(w)).toBe('capacidade_excedida');
    const analysis = await w.api.post('/v1/analises', {});
    expect(analysis.status, analysis.text).toBe(202);
    await advance(w, MINUTE);
    expect((await w.api.get(`/v1/analises/${analysis.body.id}`)).body).toMatchObject({
      estado: 'falhou',
      codigo_falha: 'sem_franquia',
    });
    expect((await list(w)).body).toEqual({ itens: [], proximo_cursor: null });

    const destination = await createDestination(w, `https://${uniqueHost()}/eventos`);
    // Nothing is recorded after the fact for what happened before the destination existed.
    expect((await list(w)).body).toEqual({ itens: [], proximo_cursor: null });
    await capacity(10);
    expect(await coverage(w)).not.toBe('capacidade_excedida');
    const again = await w.api.post('/v1/analises', {});
    expect(again.status, again.text).toBe(202);
    await advance(w, MINUTE);
    const items = (await list(w)).body.itens as Record<string, unknown>[];
    expect(items.map((i) => i.tipo)).toEqual(['analise.falhou', 'vigilancia.restabelecida']);
    for (const item of items) {
      expect(item).toMatchObject({ destino_id: destination.id, destino_versao: 1 });
      expect(typeof item.destino_id).toBe('string');
      expect(Number.isInteger(item.destino_versao)).toBe(true);
      expectTyped(item, ITEM_TYPES, `event ${String(item.id)}`);
    }
  });

  it('the raise control refuses a company without a destination (404 destino_nao_encontrado, nothing recorded) and raises once one is configured', async () => {
    const w = await world();
    const dados = { tipo: 'catalogo.aplicado', catalogoId: '0190a000-0000-7000-8000-0000000000c2', versao: 1 };
    const refused = await w.controls.raw('POST', `/companies/${w.company.companyId}/events`, { dados });
    expectControlError(refused, 404, 'destino_nao_encontrado', null);
    expect(refused.body.erro.mensagem).toContain('PUT /v1/webhook');
    expect((await list(w)).body).toEqual({ itens: [], proximo_cursor: null });
    const destination = await createDestination(w, `https://${uniqueHost()}/eventos`);
    const id = await raiseEvent(w, dados);
    expect(await eventDetail(w, id)).toMatchObject({
      id,
      destino_id: destination.id,
      destino_versao: 1,
      estado: 'pendente',
    });
  });

  it('records an event against the destination that exists when it is raised: none → not recorded; revoked → cancelado destino_inativo with the revoked id and version; reactivated → delivered to the new version', async () => {
    const { w, capacity } = await watching();
    const host = uniqueHost();
    await capacity(1);
    expect((await list(w)).body.itens).toEqual([]);

    const created = await createDestination(w, `https://${host}/eventos`);
    const revokedEtag = await revokeDestination(w, created.etag);
    const t0 = await now(w);
    await capacity(10);
    const [whileRevoked] = (await list(w)).body.itens as { id: string }[];
    expect(await eventDetail(w, whileRevoked!.id)).toMatchObject({
      tipo: 'vigilancia.restabelecida',
      destino_id: created.id,
      destino_versao: 2,
      estado: 'cancelado',
      codigo_falha: 'destino_inativo',
      tentativas_totais: 0,
      terminado_em: iso(t0),
      proxima_tentativa_em: null,
    });

    const reactivated = await changeDestination(w, revokedEtag, `https://${host}/eventos`);
    expect(reactivated).toMatchObject({ id: created.id, versao: 3, estado: 'ativo' });
    await capacity(1);
    const [latest] = (await list(w)).body.itens as { id: string; tipo: string }[];
    expect(latest).toMatchObject({
      tipo: 'vigilancia.degradada',
      destino_id: created.id,
      destino_versao: 3,
      estado: 'pendente',
    });
    await advance(w, 0);
    expect(await eventDetail(w, latest!.id)).toMatchObject({ estado: 'entregue', destino_versao: 3 });
    expect(await inboxFor(w, host)).toHaveLength(1);
  });

  it("never gives null to a field the spec does not mark nullable: items, details, attempts and receipts over a destination's whole life", async () => {
    const { w, capacity } = await watching();
    const host = uniqueHost();
    await capacity(1); // before any destination: nothing recorded
    const created = await createDestination(w, `https://${host}/eventos`);
    await addFault(w, cleanup, {
      target: 'delivery',
      match: { url: `https://${host}/**` },
      effect: { status: 500 },
      times: 1,
    });
    const receipts = [await w.api.post(TESTS, {}, { ifMatch: created.etag })];
    await advance(w, 0); // the test event's first attempt fails (500): pendente, next attempt scheduled
    await raiseEvent(w);
    const rotated = await changeDestination(w, created.etag, `https://${host}/rotated`); // open events: cancelado destino_alterado
    const revokedEtag = await revokeDestination(w, rotated.etag);
    await capacity(10); // raised while revoked: cancelado destino_inativo
    const reactivated = await changeDestination(w, revokedEtag, `https://${host}/eventos`);
    const [restored] = (await list(w)).body.itens as { id: string }[];
    receipts.push(await w.api.post(resendPath(restored!.id), {}, { ifMatch: reactivated.etag }));
    await advance(w, 0); // the resend is delivered

    for (const receipt of receipts) {
      expect(receipt.status, receipt.text).toBe(202);
      expectTyped(receipt.body, RECEIPT_TYPES, 'scheduling receipt');
    }
    const items = (await list(w)).body.itens as { id: string; estado: string }[];
    expect(items.map((i) => i.estado).sort()).toEqual(['cancelado', 'cancelado', 'entregue']);
    for (const item of items) {
      expectTyped(item, ITEM_TYPES, `list item ${item.id}`);
      expectTyped(await eventDetail(w, item.id), DETAIL_TYPES, `detail ${item.id}`);
      for (const attempt of (await attempts(w, item.id)).body.itens as { tentativa: number }[])
        expectTyped(attempt, ATTEMPT_TYPES, `event ${item.id} attempt ${attempt.tentativa}`);
    }
  });
});

describe('queries while the subscription is suspended', () => {
  // spec: AUTH-31, AUTH-32, AUTH-33, AUTH-34
  it('answers GET /v1/webhook, the event list, the detail and the attempts', async () => {
    needsControls('the clock and the company flags');
    const { w, destination } = await configured();
    const id = await testEvent(w, destination.etag);
    await advance(w, 0);
    await w.controls.updateCompany(w.company.companyId, { subscriptionActive: false });
    expectError(await w.api.post(TESTS, {}, { ifMatch: destination.etag }), 403, 'assinatura_inativa');
    const read = await w.api.get(WEBHOOK);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ id: destination.id, versao: 1, estado: 'ativo', url: destination.url });
    expect(ids(await list(w))).toEqual([id]);
    expect(await eventDetail(w, id)).toMatchObject({ id, estado: 'entregue' });
    expect(numbers(await attempts(w, id))).toEqual([1]);
  });
});

describe('retention: events closed 30 days ago are removed by the hourly cleanup', () => {
  // spec: WH-EVT-19, WH-EVT-61
  it('keeps an event closed 29 days ago; 30 days and an hour after closing it is gone (404, not listed)', async () => {
    needsControls('the clock');
    const { w, destination } = await configured();
    const old = await testEvent(w, destination.etag);
    const t0 = await advance(w, 0);
    expect(await eventDetail(w, old)).toMatchObject({ estado: 'entregue', terminado_em: iso(t0) });
    await advance(w, 2 * DAY);
    const younger = await raiseEvent(w);
    await advanceTo(w, t0 + 29 * DAY);
    expect(ids(await list(w))).toEqual([younger, old]);
    expect((await w.api.get(eventPath(old))).status).toBe(200);
    await advanceTo(w, t0 + 30 * DAY - SECOND);
    expect((await w.api.get(eventPath(old))).status).toBe(200);
    await advanceTo(w, t0 + 30 * DAY + HOUR);
    expectError(await w.api.get(eventPath(old)), 404, 'evento_nao_encontrado');
    expectError(await w.api.get(attemptsPath(old)), 404, 'evento_nao_encontrado');
    expectError(await w.api.post(resendPath(old), {}, { ifMatch: destination.etag }), 404, 'evento_nao_encontrado');
    expect(ids(await list(w))).toEqual([younger]);
    expect((await w.api.get(eventPath(younger))).status).toBe(200);
  });

  // spec: WH-EVT-61
  it('counts from the latest closing: an event resent on day 29 is kept 30 days after its new closing', async () => {
    needsControls('the clock');
    const { w, destination } = await configured();
    const id = await testEvent(w, destination.etag);
    const t0 = await advance(w, 0);
    await advanceTo(w, t0 + 29 * DAY);
    await resend(w, id, destination.etag);
    const t1 = await advance(w, 0);
    expect(await eventDetail(w, id)).toMatchObject({ estado: 'entregue', terminado_em: iso(t1), tentativas_totais: 2 });
    await advanceTo(w, t0 + 31 * DAY);
    expect((await w.api.get(eventPath(id))).status).toBe(200);
    await advanceTo(w, t1 + 30 * DAY + HOUR);
    expectError(await w.api.get(eventPath(id)), 404, 'evento_nao_encontrado');
  });

  // spec: WH-EVT-62
  it('keeps a pending event, even one first closed more than 30 days ago (resent, waiting for its next attempt)', async () => {
    needsControls('the clock');
    const { w, host, destination } = await configured();
    const id = await testEvent(w, destination.etag);
    const t0 = await advance(w, 0);
    await advanceTo(w, t0 + 29 * DAY + 23 * HOUR);
    await addFault(w, cleanup, {
      target: 'delivery',
      match: { url: `https://${host}/**` },
      effect: { status: 500 },
      times: null,
    });
    const t1 = await now(w);
    await resend(w, id, destination.etag);
    await advanceTo(w, t0 + 30 * DAY + 2 * HOUR);
    // Attempts at +0, +5 s, +5 min 5 s, +35 min 5 s and +2 h 35 min 5 s failed; the sixth is due 5 h later.
    const detail = await eventDetail(w, id);
    expect(detail).toMatchObject({
      estado: 'pendente',
      tentativas_ciclo: 5,
      tentativas_totais: 6,
      terminado_em: null,
      proxima_tentativa_em: iso(t1 + 7 * HOUR + 35 * MINUTE + 5 * SECOND),
    });
    expect(ids(await list(w))).toEqual([id]);
  });

  it('is held back by a job fault on retencao_eventos until the fault is removed', async () => {
    needsControls('the clock');
    const { w, destination } = await configured();
    const id = await testEvent(w, destination.etag);
    const t0 = await advance(w, 0);
    const fault = await addFault(w, cleanup, {
      target: 'job',
      match: { kind: 'retencao_eventos' },
      effect: { fail: true },
      times: null,
    });
    await advanceTo(w, t0 + 30 * DAY + 3 * HOUR);
    expect((await w.api.get(eventPath(id))).status).toBe(200);
    expect(ids(await list(w))).toEqual([id]);
    expect(await removeFault(w, fault)).toBe(true);
    await advance(w, HOUR);
    expectError(await w.api.get(eventPath(id)), 404, 'evento_nao_encontrado');
    expect(ids(await list(w))).toEqual([]);
  });

  // spec: WH-EVT-63
  it('answers a test receipt replayed with its key after removal with the stored 202, and recreates neither event nor delivery', async () => {
    needsControls('the clock');
    const { w, host, destination } = await configured();
    const key = newKey();
    const first = await w.api.post(TESTS, {}, { ifMatch: destination.etag, key });
    expect(first.status, first.text).toBe(202);
    const id = first.body.evento_id as string;
    const t0 = await advance(w, 0);
    expect(await inboxFor(w, host)).toHaveLength(1);
    await advanceTo(w, t0 + 30 * DAY + HOUR);
    expectError(await w.api.get(eventPath(id)), 404, 'evento_nao_encontrado');
    const replay = await w.api.post(TESTS, {}, { ifMatch: destination.etag, key });
    expect(replay.status).toBe(202);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('location')).toBe(`/v1/webhook/eventos/${id}`);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await advance(w, 0);
    await advance(w, MINUTE);
    expectError(await w.api.get(eventPath(id)), 404, 'evento_nao_encontrado');
    expect(ids(await list(w))).toEqual([]);
    expect((await inboxFor(w, host)).map((i) => i.eventId)).toEqual([id]);
  });
});
