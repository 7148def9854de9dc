/**
 * checkIntegrity and checkTaskSubjects: what must hold between the records of a state (and its tasks) for
 * importState and every read path to work on it. An exported state passes; each broken reference is named.
 */
import { describe, expect, it } from 'vitest';
import { requestAnalysis } from './analyses.js';
import { createCatalog } from './catalogs.js';
import { createProduct } from './products.js';
import { SLICES, TRANSIENT } from './slices.js';
import { checkIntegrity, checkTaskSubjects, exportState, importState, type StateData } from './snapshot.js';
import { createState, indexesOf, type State } from './state.js';
import { changeSelection, surveillanceEtag, surveillanceOf } from './surveillance.js';
import { derived, richState } from './testing/rich.js';
import { configureWebhook, raised, seededWorld, T0, unwrap } from './testing/support.js';
import { raiseEvent } from './webhooks/events.js';

/** Two companies; the first with a catalog, two products (both selected), a webhook event and an analysis. */
function exported(): { data: StateData; a: string; b: string } {
  const { state, ctx, company } = seededWorld();
  const a = company();
  const b = company();
  const headOffice = state.companies.get(a)!.headOfficeId;
  const catalog = unwrap(createCatalog(state, a, { establishmentId: headOffice, nome: 'Loja' }, ctx(T0)));
  const products = [0, 1].map(() => unwrap(createProduct(state, a, catalog.id, { origem: 'erp', ncm: '84713012' }, ctx(T0))).id);
  unwrap(changeSelection(state, a, [surveillanceEtag(surveillanceOf(state, a))], { modo: 'selecao', adicionar: products, remover: [] }, ctx(T0)));
  configureWebhook(state, a, ctx(T0));
  raised(raiseEvent(state, a, { tipo: 'webhook.teste' }, ctx(T0)));
  requestAnalysis(state, a, ctx(T0));
  return { data: structuredClone(exportState(state)), a, b };
}

/** `data` changed by `change`: a mutable deep copy, typed loosely as the tests break it on purpose. */
function broken(data: StateData, change: (d: any) => void): StateData { // eslint-disable-line @typescript-eslint/no-explicit-any
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
    expect(checkIntegrity(broken(data, (d) => { d.companies[1].cnpjRoot = d.companies[0].cnpjRoot; }))).toEqual({ path: ['companies', 1, 'cnpjRoot'], problem: `CNPJ root ${data.companies[0]!.cnpjRoot} appears twice` });
    expect(checkIntegrity(broken(data, (d) => { d.credentials[1].token = d.credentials[0].token; }))).toEqual({ path: ['credentials', 1, 'token'], problem: 'a credential token appears twice' });
    expect(checkIntegrity(broken(data, (d) => { d.webhookDestinations.push({ ...d.webhookDestinations[0], id: '0190a000-0000-7000-8000-0000000000dd' }); }))).toEqual({ path: ['webhookDestinations', 1, 'companyId'], problem: `the webhook destination of company ${a} appears twice` });
  });

  it('names a product linked to a catalog of another company, and an inactive product still linked', () => {
    const { data, b } = exported();
    const otherCatalog = { ...data.catalogs[0]!, id: '0190a000-0000-7000-8000-0000000000cc', companyId: b, establishmentId: data.companies[1]!.headOfficeId, estado: 'excluido', excluidoEm: T0, position: data.sequence + 1 };
    const foreign = checkIntegrity(broken(data, (d) => { d.catalogs.push(otherCatalog); d.sequence += 1; d.products[0].catalogos = [otherCatalog.id]; }));
    expect(foreign).toEqual({ path: ['products', 0, 'catalogos', 0], problem: `product ${data.products[0]!.id}: catalog ${otherCatalog.id} is not of its company` });
    const inactive = checkIntegrity(broken(data, (d) => { d.products[0].ativo = false; }));
    expect(inactive).toEqual({ path: ['products', 0, 'catalogos'], problem: `product ${data.products[0]!.id} is inactive, so it is linked to no catalog` });
  });

  it('names a selection out of position order, and one of an inactive product', () => {
    const { data, a } = exported();
    const [first, second] = data.surveillance.find((s) => s.companyId === a)!.selected;
    const index = data.surveillance.findIndex((s) => s.companyId === a);
    expect(checkIntegrity(broken(data, (d) => { d.surveillance[index].selected = [second, first]; }))).toEqual({
      path: ['surveillance', index, 'selected', 1, 1],
      problem: `surveillance of ${a}: the selection is listed in position order, and ${first![1]} comes after ${second![1]}`,
    });
  });

  it('names attempts numbered out of order, and a second open analysis of a company', () => {
    const { data, a } = exported();
    const event = data.webhookEvents[0]!;
    const attempt = { tentativa: 2, ciclo: 1, destinoVersao: 1, estado: 'falhou', iniciadaEm: T0, terminadaEm: T0, codigoFalha: 'status_nao_2xx', statusHttp: 500 };
    expect(checkIntegrity(broken(data, (d) => { d.webhookEvents[0].attempts = [attempt]; }))).toEqual({ path: ['webhookEvents', 0, 'attempts', 0, 'tentativa'], problem: `webhook event ${event.id}: attempt 1 is numbered 2; attempts are numbered 1, 2, … in order` });
    const second = { ...data.analyses[0]!, id: '0190a000-0000-7000-8000-0000000000aa', position: data.sequence + 1 };
    expect(checkIntegrity(broken(data, (d) => { d.analyses.push(second); d.sequence += 1; }))).toEqual({ path: ['analyses', 1, 'estado'], problem: `an open (pendente or executando) analysis of company ${a} appears twice` });
  });

  it('names a regulatory table requiring an attribute it does not define', () => {
    const { data } = exported();
    const table = { id: 'ref-0002', publicadoEm: '2026-01-01T00:00:00.000Z', ncms: [{ codigo: '84713012', descricao: 'x', extinta: false, extintaDesde: null, obrigatorios: ['ATT_0009'] }], atributos: [] };
    expect(checkIntegrity(broken(data, (d) => { d.regulatory = { id: 'ref-0002', publicadoEm: T0, table }; }))).toEqual({ path: ['regulatory', 'table', 'ncms', 0, 'obrigatorios', 0], problem: 'NCM 84713012 requires attribute ATT_0009, which the table does not define' });
  });
});

describe('checkTaskSubjects', () => {
  it('refuses a task of an unknown company, and a job naming a record that is not there; an event task may outlive its event', () => {
    const { data, a } = exported();
    const unknown = '0190a000-0000-7000-8000-000000000000';
    expect(checkTaskSubjects(data, [{ owner: unknown }])).toEqual({ path: [0, 'owner'], problem: `a task of unknown company ${unknown}` });
    expect(checkTaskSubjects(data, [{ owner: a, payload: { analysisId: unknown } }])).toEqual({ path: [0, 'payload', 'analysisId'], problem: `no analysis ${unknown} in the state` });
    expect(checkTaskSubjects(data, [{ owner: a, payload: { eventId: unknown, ciclo: 1 } }, { owner: null }])).toBeUndefined();
  });

  it('refuses a task whose record belongs to another company than the task', () => {
    const { data, a, b } = exported();
    const analysis = data.analyses[0]!.id;
    expect(checkTaskSubjects(data, [{ owner: a, payload: { analysisId: analysis } }])).toBeUndefined();
    expect(checkTaskSubjects(data, [{ owner: b, payload: { analysisId: analysis } }])).toEqual({ path: [0, 'owner'], problem: `a task of analysis ${analysis} belongs to its company ${a}, not ${b}` });
  });
});

const rich = (): State => richState(2, 1).state;

/** The fields of a State: its own properties, and the maps its class makes on first use (getters of its prototype). */
const fieldsOf = (state: State): string[] => [
  ...Object.keys(state),
  ...Object.entries(Object.getOwnPropertyDescriptors(Object.getPrototypeOf(state))).filter(([, d]) => d.get !== undefined).map(([key]) => key),
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

  it('write the keys of a snapshot\'s state, each once, in the order of the format', () => {
    expect(SLICES.map((slice) => slice.key)).toEqual([
      'sequence', 'companies', 'credentials', 'establishments', 'catalogs', 'products', 'links', 'idempotency', 'webhookDestinations', 'webhookEvents',
      'cnpjCorrections', 'regulatory', 'analyses', 'executions', 'ingestions', 'evaluations', 'analysisUnitsUsed', 'surveillance', 'webhookSends', 'origins',
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

  it('each slice whose records hold a position gives them to the positions check, and every slice checks what is unique in it or its references', () => {
    const data = exportState(rich());
    for (const slice of SLICES) {
      const value: unknown = data[slice.key];
      const positioned = Array.isArray(value) && value.some((record) => typeof record === 'object' && record !== null && 'position' in record);
      if (positioned) expect('positions' in slice, slice.key).toBe(true);
      if (slice.key !== 'sequence') expect('unique' in slice || 'check' in slice, slice.key).toBe(true);
    }
  });
});
