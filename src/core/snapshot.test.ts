/**
 * checkIntegrity and checkTaskSubjects: what must hold between the records of a state (and its tasks) for
 * importState and every read path to work on it. An exported state passes; each broken reference is named.
 */
import { describe, expect, it } from 'vitest';
import { requestAnalysis } from './analyses.js';
import { createCatalog } from './catalogs.js';
import { exportCompany, removeCompany, replaceCompany } from './company-data.js';
import { registerEstablishment } from './establishments.js';
import { createProduct, linkProduct, productEtag } from './products.js';
import { SLICES, TRANSIENT } from './slices.js';
import { checkIntegrity, checkTaskSubjects, exportState, importState, type StateData } from './snapshot.js';
import { indexesOf, type State } from './state.js';
import { createState } from './slices.js';
import { changeSelection, surveillanceEtag, surveillanceOf } from './surveillance.js';
import { derived, richState } from './testing/rich.js';
import { cnpj, configureWebhook, raised, seededWorld, T0, unwrap } from './testing/support.js';
import { raiseEvent } from './webhooks/events.js';

/** Two companies; the first with a catalog, two products (both selected), a webhook event and an analysis. */
function exported(): { data: StateData; a: string; b: string } {
  const { state, ctx, company } = seededWorld();
  const a = company();
  const b = company();
  const headOffice = state.companies.get(a)!.headOfficeId;
  const catalog = unwrap(createCatalog(state, a, { establishmentId: headOffice, nome: 'Loja' }, ctx(T0)));
  const products = [0, 1].map(
    () => unwrap(createProduct(state, a, catalog.id, { origem: 'erp', ncm: '84713012' }, ctx(T0))).id,
  );
  unwrap(
    changeSelection(
      state,
      a,
      [surveillanceEtag(surveillanceOf(state, a))],
      { modo: 'selecao', adicionar: products, remover: [] },
      ctx(T0),
    ),
  );
  configureWebhook(state, a, ctx(T0));
  raised(raiseEvent(state, a, { tipo: 'webhook.teste' }, ctx(T0)));
  requestAnalysis(state, a, ctx(T0));
  return { data: structuredClone(exportState(state)), a, b };
}

/** `data` changed by `change`: a mutable deep copy, typed loosely as the tests break it on purpose. */
function broken(data: StateData, change: (d: any) => void): StateData {
  const copy = structuredClone(data);
  change(copy);
  return copy;
}

describe('checkIntegrity', () => {
  it('passes an exported state', () => {
    expect(checkIntegrity(exported().data)).toBeUndefined();
  });

  it('names a repeat: a CNPJ root, a credential token (without repeating it), a destination of one company', () => {
    const { data, a } = exported();
    expect(
      checkIntegrity(
        broken(data, (d) => {
          d.companies[1].cnpjRoot = d.companies[0].cnpjRoot;
        }),
      ),
    ).toEqual({
      path: ['companies', 1, 'cnpjRoot'],
      problem: `CNPJ root ${data.companies[0]!.cnpjRoot} appears twice`,
    });
    expect(
      checkIntegrity(
        broken(data, (d) => {
          d.credentials[1].token = d.credentials[0].token;
        }),
      ),
    ).toEqual({ path: ['credentials', 1, 'token'], problem: 'a credential token appears twice' });
    expect(
      checkIntegrity(
        broken(data, (d) => {
          d.webhookDestinations.push({ ...d.webhookDestinations[0], id: '0190a000-0000-7000-8000-0000000000dd' });
        }),
      ),
    ).toEqual({
      path: ['webhookDestinations', 1, 'companyId'],
      problem: `the webhook destination of company ${a} appears twice`,
    });
  });

  it('names a product linked to a catalog of another company, and an inactive product still linked', () => {
    const { data, b } = exported();
    const otherCatalog = {
      ...data.catalogs[0]!,
      id: '0190a000-0000-7000-8000-0000000000cc',
      companyId: b,
      establishmentId: data.companies[1]!.headOfficeId,
      estado: 'excluido',
      excluidoEm: T0,
      position: data.sequence + 1,
    };
    const foreign = checkIntegrity(
      broken(data, (d) => {
        d.catalogs.push(otherCatalog);
        d.sequence += 1;
        d.products[0].catalogos = [otherCatalog.id];
      }),
    );
    expect(foreign).toEqual({
      path: ['products', 0, 'catalogos', 0],
      problem: `product ${data.products[0]!.id}: catalog ${otherCatalog.id} is not of its company`,
    });
    const inactive = checkIntegrity(
      broken(data, (d) => {
        d.products[0].ativo = false;
      }),
    );
    expect(inactive).toEqual({
      path: ['products', 0, 'catalogos'],
      problem: `product ${data.products[0]!.id} is inactive, so it is linked to no catalog`,
    });
  });

  it('names a selection out of position order, and one of an inactive product', () => {
    const { data, a } = exported();
    const [first, second] = data.surveillance.find((s) => s.companyId === a)!.selected;
    const index = data.surveillance.findIndex((s) => s.companyId === a);
    expect(
      checkIntegrity(
        broken(data, (d) => {
          d.surveillance[index].selected = [second, first];
        }),
      ),
    ).toEqual({
      path: ['surveillance', index, 'selected', 1, 1],
      problem: `surveillance of ${a}: the selection is listed in position order, and ${first![1]} comes after ${second![1]}`,
    });
  });

  it('names attempts numbered out of order, and a second open analysis of a company', () => {
    const { data, a } = exported();
    const event = data.webhookEvents[0]!;
    const attempt = {
      tentativa: 2,
      ciclo: 1,
      destinoVersao: 1,
      estado: 'falhou',
      iniciadaEm: T0,
      terminadaEm: T0,
      codigoFalha: 'status_nao_2xx',
      statusHttp: 500,
    };
    expect(
      checkIntegrity(
        broken(data, (d) => {
          d.webhookEvents[0].attempts = [attempt];
        }),
      ),
    ).toEqual({
      path: ['webhookEvents', 0, 'attempts', 0, 'tentativa'],
      problem: `webhook event ${event.id}: attempt 1 is numbered 2; attempts are numbered 1, 2, … in order`,
    });
    const second = { ...data.analyses[0]!, id: '0190a000-0000-7000-8000-0000000000aa', position: data.sequence + 1 };
    expect(
      checkIntegrity(
        broken(data, (d) => {
          d.analyses.push(second);
          d.sequence += 1;
        }),
      ),
    ).toEqual({
      path: ['analyses', 1, 'estado'],
      problem: `an open (pendente or executando) analysis of company ${a} appears twice`,
    });
  });

  it('names a repeated link, and a repeated id_externo within a company (the same one in another company is no repeat)', () => {
    const { data, a, b } = exported();
    const [catalogId, productId] = data.links[0]!;
    expect(
      checkIntegrity(
        broken(data, (d) => {
          d.links.push([catalogId, productId, d.sequence + 1]);
          d.sequence += 1;
        }),
      ),
    ).toEqual({
      path: ['links', 2, 1],
      problem: `the link of product ${productId} to catalog ${catalogId} appears twice`,
    });
    expect(
      checkIntegrity(
        broken(data, (d) => {
          d.products[0].idExterno = 'ext';
          d.products[1].idExterno = 'ext';
        }),
      ),
    ).toEqual({ path: ['products', 1, 'idExterno'], problem: `id_externo "ext" in company ${a} appears twice` });
    const elsewhere = {
      ...data.products[0]!,
      id: '0190a000-0000-7000-8000-0000000000ee',
      companyId: b,
      idExterno: 'ext',
      catalogos: [],
      position: data.sequence + 1,
    };
    expect(
      checkIntegrity(
        broken(data, (d) => {
          d.products[0].idExterno = 'ext';
          d.products.push(elsewhere);
          d.sequence += 1;
        }),
      ),
    ).toBeUndefined();
  });

  it('names a position held twice with the first record holding it, across kinds of record, and one beyond the sequence', () => {
    const { data, a } = exported();
    const product = data.products[1]!;
    expect(
      checkIntegrity(
        broken(data, (d) => {
          d.links[0][2] = product.position;
        }),
      ),
    ).toEqual({ path: ['links', 0, 2], problem: `position ${product.position} is also that of products.1.position` });
    const index = data.surveillance.findIndex((s) => s.companyId === a);
    const catalog = data.catalogs[0]!;
    expect(
      checkIntegrity(
        broken(data, (d) => {
          d.surveillance[index].selected[0][1] = catalog.position;
        }),
      ),
    ).toEqual({
      path: ['surveillance', index, 'selected', 0, 1],
      problem: `position ${catalog.position} is also that of catalogs.0.position`,
    });
    expect(
      checkIntegrity(
        broken(data, (d) => {
          d.links[1][2] = d.sequence + 1;
        }),
      ),
    ).toEqual({
      path: ['links', 1, 2],
      problem: `position ${data.sequence + 1} is beyond sequence ${data.sequence}, the last position handed out`,
    });
    // The same with a sequence far beyond the positions (the check then keeps them in a Set, not a byte per position).
    const far = 2 ** 40;
    expect(
      checkIntegrity(
        broken(data, (d) => {
          d.sequence = far;
          d.links[0][2] = product.position;
        }),
      ),
    ).toEqual({ path: ['links', 0, 2], problem: `position ${product.position} is also that of products.1.position` });
    expect(
      checkIntegrity(
        broken(data, (d) => {
          d.sequence = far;
          d.links[1][2] = far;
          d.links[0][2] = far;
        }),
      ),
    ).toEqual({ path: ['links', 1, 2], problem: `position ${far} is also that of links.0.2` });
    expect(
      checkIntegrity(
        broken(data, (d) => {
          d.sequence = far;
        }),
      ),
    ).toBeUndefined();
  });

  it('names a catalog a product lists twice, among a few catalogs or among many', () => {
    const { state, ctx, company } = seededWorld();
    const a = company();
    const root = state.companies.get(a)!.cnpjRoot;
    // 20 establishments, each with its catalog, and a product linked to all of them.
    const catalogs = Array.from({ length: 20 }, (_, i) => {
      const establishment = unwrap(
        registerEstablishment(
          state,
          a,
          { cnpj: cnpj(root, String(i + 2).padStart(4, '0')), nome: `Loja ${i}` },
          ctx(T0),
        ),
      );
      return unwrap(createCatalog(state, a, { establishmentId: establishment.id, nome: `Loja ${i}` }, ctx(T0))).id;
    });
    let product = unwrap(createProduct(state, a, catalogs[0]!, { origem: 'erp', ncm: '84713012' }, ctx(T0)));
    for (const catalog of catalogs.slice(1))
      product = unwrap(linkProduct(state, a, catalog, product.id, [productEtag(product)], ctx(T0)));
    const data = structuredClone(exportState(state));
    expect(data.products[0]!.catalogos).toHaveLength(20);
    expect(checkIntegrity(data)).toBeUndefined();
    const twice = (catalogos: string[], at: number) => ({
      path: ['products', 0, 'catalogos', at],
      problem: `product ${product.id}: catalog ${catalogos[at]} appears twice`,
    });
    for (const length of [3, 17, 20]) {
      // The last one repeats the second: refused at the last, whether looked for in place (a few) or in a set (many).
      const catalogos = [...catalogs.slice(0, length - 1), catalogs[1]!];
      expect(
        checkIntegrity(
          broken(data, (d) => {
            d.products[0].catalogos = catalogos;
          }),
        ),
        `${length} catalogs`,
      ).toEqual(twice(catalogos, length - 1));
    }
  });

  it('names a regulatory table requiring an attribute it does not define', () => {
    const { data } = exported();
    const table = {
      id: 'ref-0002',
      publicadoEm: '2026-01-01T00:00:00.000Z',
      ncms: [{ codigo: '84713012', descricao: 'x', extinta: false, extintaDesde: null, obrigatorios: ['ATT_0009'] }],
      atributos: [],
    };
    expect(
      checkIntegrity(
        broken(data, (d) => {
          d.regulatory = { id: 'ref-0002', publicadoEm: T0, table };
        }),
      ),
    ).toEqual({
      path: ['regulatory', 'table', 'ncms', 0, 'obrigatorios', 0],
      problem: 'NCM 84713012 requires attribute ATT_0009, which the table does not define',
    });
  });
});

describe('checkTaskSubjects', () => {
  it('refuses a task of an unknown company, and a job naming a record that is not there; an event task may outlive its event', () => {
    const { data, a } = exported();
    const unknown = '0190a000-0000-7000-8000-000000000000';
    expect(checkTaskSubjects(data, [{ owner: unknown }])).toEqual({
      path: [0, 'owner'],
      problem: `a task of unknown company ${unknown}`,
    });
    expect(checkTaskSubjects(data, [{ owner: a, payload: { analysisId: unknown } }])).toEqual({
      path: [0, 'payload', 'analysisId'],
      problem: `no analysis ${unknown} in the state`,
    });
    expect(
      checkTaskSubjects(data, [{ owner: a, payload: { eventId: unknown, ciclo: 1 } }, { owner: null }]),
    ).toBeUndefined();
  });

  it('refuses a task whose record belongs to another company than the task', () => {
    const { data, a, b } = exported();
    const analysis = data.analyses[0]!.id;
    expect(checkTaskSubjects(data, [{ owner: a, payload: { analysisId: analysis } }])).toBeUndefined();
    expect(checkTaskSubjects(data, [{ owner: b, payload: { analysisId: analysis } }])).toEqual({
      path: [0, 'owner'],
      problem: `a task of analysis ${analysis} belongs to its company ${a}, not ${b}`,
    });
  });
});

const rich = (): State => richState(2, 1).state;

/** The fields of a State: its own properties, and the maps its class makes on first use (getters of its prototype). */
const fieldsOf = (state: State): string[] => [
  ...Object.keys(state),
  ...Object.entries(Object.getOwnPropertyDescriptors(Object.getPrototypeOf(state)))
    .filter(([, d]) => d.get !== undefined)
    .map(([key]) => key),
];

describe('the slices (src/core/slices.ts)', () => {
  it('cover every field of the State once (the outbox aside, drained after every change) and every per-company index once', () => {
    const held = SLICES.flatMap((slice) => slice.holds);
    expect(new Set(held).size).toBe(held.length);
    expect([...held, ...TRANSIENT].sort()).toEqual(fieldsOf(createState()).sort());
    const indexes = SLICES.flatMap((slice) => ('indexes' in slice ? slice.indexes : []));
    expect(new Set(indexes).size).toBe(indexes.length);
    expect([...indexes].sort()).toEqual(Object.keys(indexesOf(createState(), 'c')).sort());
  });

  it("write the keys of a snapshot's state, each once, in the order of the format", () => {
    expect(SLICES.map((slice) => slice.key)).toEqual([
      'sequence',
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
      'regulatory',
      'analyses',
      'executions',
      'ingestions',
      'evaluations',
      'analysisUnitsUsed',
      'surveillance',
      'webhookSends',
      'origins',
    ]);
    expect(Object.keys(exportState(rich()))).toEqual(SLICES.map((slice) => slice.key));
  });

  it('export → import → export is the identity on a state with every kind of record, and the import rebuilds every derived table', () => {
    const state = rich();
    const data = exportState(state);
    for (const slice of SLICES) {
      const value: unknown = data[slice.key];
      if (Array.isArray(value)) expect(value.length, slice.key).toBeGreaterThan(0);
    }
    expect(data.regulatory.table).not.toBeNull();
    expect(checkIntegrity(data)).toBeUndefined();
    const imported = importState(structuredClone(data));
    expect(JSON.stringify(exportState(imported))).toBe(JSON.stringify(data));
    expect(derived(imported)).toEqual(derived(state));
  });

  it('export records and links in position order, also once a company put back comes after the others in the maps', () => {
    const { state, ids } = richState(3, 3);
    const saved = structuredClone(exportCompany(state, ids[0]!));
    expect(replaceCompany(state, ids[0]!, saved)).toBeUndefined();
    // The first company's records are now the last ones of each map, their positions the lowest.
    expect([...state.products.values()].at(-1)!.companyId).toBe(ids[0]);
    const data = exportState(state);
    const ascending = (positions: readonly number[]) =>
      positions.every((position, i) => i === 0 || positions[i - 1]! < position);
    for (const key of [
      'establishments',
      'catalogs',
      'products',
      'webhookEvents',
      'analyses',
      'executions',
      'ingestions',
    ] as const)
      expect(ascending(data[key].map((r) => r.position)), key).toBe(true);
    expect(ascending(data.links.map((link) => link[2]))).toBe(true);
    expect(JSON.stringify(exportState(importState(structuredClone(data))))).toBe(JSON.stringify(data));
  });

  it('import, and remove a company with, 200,000 closed webhook events (spread into a call, so many overflow the stack)', {
    timeout: 30_000,
  }, () => {
    const data = exportState(rich());
    const closed = data.webhookEvents.find((e) => e.terminadoEm !== null)!;
    const many = Array.from({ length: 200_000 }, (_, i) => ({
      ...closed,
      id: `0190a000-0000-7000-8000-${String(i).padStart(12, '0')}`,
      position: data.sequence + 1 + i,
    }));
    const state = importState({
      ...data,
      webhookEvents: [...data.webhookEvents, ...many],
      sequence: data.sequence + many.length,
    });
    const before = state.closedWebhookEvents.length;
    expect(before).toBeGreaterThan(many.length);
    removeCompany(state, closed.companyId);
    expect(state.closedWebhookEvents.length).toBe(
      before -
        many.length -
        data.webhookEvents.filter((e) => e.companyId === closed.companyId && e.terminadoEm !== null).length,
    );
  });

  it('each slice whose records hold a position gives them to the positions check, and every slice checks what is unique in it or its references', () => {
    const data = exportState(rich());
    for (const slice of SLICES) {
      const value: unknown = data[slice.key];
      const positioned =
        Array.isArray(value) &&
        value.some((record) => typeof record === 'object' && record !== null && 'position' in record);
      if (positioned) expect('positions' in slice, slice.key).toBe(true);
      if (slice.key !== 'sequence') expect('unique' in slice || 'check' in slice, slice.key).toBe(true);
    }
  });
});
