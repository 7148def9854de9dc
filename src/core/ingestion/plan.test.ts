/**
 * The pure core of an ingestion's preview and plan (src/core/ingestion/plan.ts, docs/batch-ingestion.md):
 * how each record is classified (novo, alterado, inalterado, reativado; vinculados) and what each operation
 * does to the catalog's absent products (desvinculados, desativados), the errors in batch then item order
 * with id_externo_repetido, the missing batches, what makes a plan stale (each kind of change, and the
 * changes it does not read), and applyPlan: every change made at once, the catalog's versao moved once, each
 * changed product's versao moved once, the links and the surveillance selection kept in step, and the coverage
 * compared once, at the end.
 */
import { describe, expect, it } from 'vitest';
import { deleteCatalog, previewDeletion } from '../catalog-deletion.js';
import { catalogEtag, createCatalog, editCatalog, type Catalog } from '../catalogs.js';
import { createCompany, updateCompany } from '../companies.js';
import { registerEstablishment } from '../establishments.js';
import {
  createProduct,
  editProduct,
  linkProduct,
  productByExternalId,
  productEtag,
  unlinkProduct,
  type NewProduct,
  type Product,
  type ProductFields,
} from '../products.js';
import { createRandom, seedRandom } from '../random.js';
import { exportState } from '../snapshot.js';
import { indexesOf, linksOf, type Context, type State } from '../state.js';
import { createState } from '../slices.js';
import {
  changeSelection,
  isEligible,
  surveillanceEtag,
  surveillanceOf,
  type SelectionChange,
} from '../surveillance.js';
import { T0, CORE_CONFIG, ROOT, cnpj, configureWebhook, unwrap } from '../testing/support.js';
import {
  applyPlan,
  planIngestion,
  staleness,
  type Batch,
  type IngestionOperation,
  type IngestionRecord,
  type Preview,
  type RecordError,
} from './plan.js';

const NCM = '84713012';

const record = (idExterno: string, fields: Partial<IngestionRecord> = {}): IngestionRecord => ({
  idExterno,
  origem: 'erp',
  ncm: NCM,
  sku: null,
  descricao: null,
  atributos: [],
  ...fields,
});
const batch = (
  numero: number,
  records: readonly (IngestionRecord | null)[],
  errors: readonly RecordError[] = [],
): Batch => ({ numero, content: `${numero}`, records, errors });
const ncmError = (lote: number, indice: number): RecordError => ({
  lote,
  indice,
  caminho: `body.itens[${indice}].ncm`,
  codigo: 'valor_invalido',
  mensagem: 'must be an NCM of 8 digits',
});

const ATTRS = [
  { codigo: 'COR', valores: ['azul'] },
  { codigo: 'TAM', valores: ['P', 'M'] },
];

/**
 * Catalog A (head office), B and C (branches). Products:
 *   a1 "A1" in A (with attributes)       a2 "A2" in A and B        a3 "A3" in A       a4 "A4" in A and B
 *   a5 (no id_externo) in A              b1 "B1" in B              b2 "B2" in B
 *   x1 "X1" inactive (C was deleted)     l1 "L1" active, no catalog (unlinked from A)
 * Selected (mode selecao): a3, a4, a5, l1.
 */
function setup(capacity = 100) {
  const state = createState(T0);
  const random = createRandom(seedRandom(9));
  const ctx = (now = T0): Context => ({ now, random, config: CORE_CONFIG });
  const created = unwrap(createCompany(state, { cnpjRoot: ROOT, surveillanceCapacity: capacity }, ctx()));
  const companyId = created.company.id;
  const catalogOf = (order: string, nome: string) => {
    const establishmentId =
      order === '0001'
        ? created.headOffice.id
        : unwrap(registerEstablishment(state, companyId, { cnpj: cnpj(ROOT, order), nome }, ctx())).id;
    return unwrap(createCatalog(state, companyId, { establishmentId, nome }, ctx())).id;
  };
  const a = catalogOf('0001', 'A');
  const b = catalogOf('0002', 'B');
  const c = catalogOf('0003', 'C');
  const product = (id: string): Product => state.products.get(id)!;
  const make = (catalogId: string, fields: Partial<NewProduct> = {}) =>
    unwrap(createProduct(state, companyId, catalogId, { origem: 'erp', ncm: NCM, ...fields }, ctx())).id;
  const link = (catalogId: string, id: string) =>
    unwrap(linkProduct(state, companyId, catalogId, id, [productEtag(product(id))], ctx()));
  const unlink = (catalogId: string, id: string) =>
    unwrap(unlinkProduct(state, companyId, catalogId, id, [productEtag(product(id))], ctx()));
  const p = {
    a1: make(a, { idExterno: 'A1', sku: 's1', atributos: ATTRS }),
    a2: make(a, { idExterno: 'A2', sku: 's2' }),
    a3: make(a, { idExterno: 'A3' }),
    a4: make(a, { idExterno: 'A4' }),
    a5: make(a),
    b1: make(b, { idExterno: 'B1', descricao: 'Porca' }),
    b2: make(b, { idExterno: 'B2' }),
    x1: make(c, { idExterno: 'X1', sku: 'old' }),
    l1: make(a, { idExterno: 'L1' }),
  };
  link(b, p.a2);
  link(b, p.a4);
  unlink(a, p.l1);
  unwrap(deleteCatalog(state, companyId, c, [unwrap(previewDeletion(state, companyId, c)).etag], ctx()));
  const select = (change: Partial<SelectionChange>) =>
    unwrap(
      changeSelection(
        state,
        companyId,
        [surveillanceEtag(surveillanceOf(state, companyId))],
        { modo: 'selecao', adicionar: [], remover: [], ...change },
        ctx(),
      ),
    );
  select({ adicionar: [p.a3, p.a4, p.a5, p.l1] });
  state.outbox.length = 0;
  return {
    state,
    ctx,
    companyId,
    a,
    b,
    p,
    product,
    link,
    unlink,
    select,
    catalog: (id: string): Catalog => state.catalogs.get(id)!,
    edit: (id: string, changes: ProductFields) =>
      unwrap(editProduct(state, companyId, id, [productEtag(product(id))], changes, ctx())),
    plan: (operacao: IngestionOperation, batches: readonly Batch[], totalLotes = batches.length) =>
      planIngestion(state, companyId, a, operacao, batches, totalLotes),
  };
}
type World = ReturnType<typeof setup>;

/** The standard ingestion: A1 unchanged, A2 changed, B1 unchanged (linked), X1 reactivated, L1 changed (linked), N1 new. */
const STANDARD = [
  batch(1, [
    record('A1', { sku: 's1', atributos: ATTRS }),
    record('A2', { sku: 'mudou' }),
    record('B1', { descricao: 'Porca' }),
  ]),
  batch(2, [record('X1', { sku: 'novo' }), record('L1', { descricao: 'Solta' }), record('N1')]),
];

const fingerprint = (state: State) => JSON.stringify({ data: exportState(state), outbox: state.outbox });
const events = (w: World) =>
  [...w.state.webhookEvents.values()].sort((x, y) => x.position - y.position).map((e) => JSON.parse(e.body).dados);

describe('planIngestion: the preview', () => {
  const expected: Record<IngestionOperation, Partial<Preview>> = {
    mesclar: { desvinculados: 0, desativados: 0 },
    // a3, a4, a5 are linked to A and absent; a3 and a5 are in A alone.
    substituicao_catalogo: { desvinculados: 3, desativados: 0 },
    substituicao_integral: { desvinculados: 3, desativados: 2 },
  };
  it.each(Object.keys(expected) as IngestionOperation[])(
    'counts each kind of record and, for %s, the absent products',
    (operacao) => {
      const w = setup();
      const before = fingerprint(w.state);
      const { preview, plan } = w.plan(operacao, STANDARD);
      expect(preview).toEqual<Preview>({
        versaoCatalogo: w.catalog(w.a).versao,
        registros: 6,
        novos: 1,
        alterados: 2,
        inalterados: 2,
        reativados: 1,
        vinculados: 3,
        lotesFaltantes: [],
        erros: [],
        ...(expected[operacao] as { desvinculados: number; desativados: number }),
      });
      expect(plan.catalogVersao).toBe(preview.versaoCatalogo);
      expect(plan.records.map((r) => [r.record.idExterno, r.action, r.link])).toEqual([
        ['A1', 'inalterado', false],
        ['A2', 'alterado', false],
        ['B1', 'inalterado', true],
        ['X1', 'reativado', true],
        ['L1', 'alterado', true],
        ['N1', 'novo', true],
      ]);
      expect(plan.records.map((r) => r.productVersao)).toEqual([
        w.product(w.p.a1).versao,
        w.product(w.p.a2).versao,
        w.product(w.p.b1).versao,
        w.product(w.p.x1).versao,
        w.product(w.p.l1).versao,
        null,
      ]);
      const removals =
        operacao === 'mesclar'
          ? []
          : [
              [w.p.a3, operacao === 'substituicao_integral'],
              [w.p.a4, false],
              [w.p.a5, operacao === 'substituicao_integral'],
            ];
      expect(plan.removals.map((r) => [r.productId, r.deactivate])).toEqual(removals);
      expect(fingerprint(w.state)).toBe(before);
    },
  );

  it('tells alterado from inalterado by origem, sku, descricao, ncm and atributos, order included', () => {
    const w = setup();
    const same = { sku: 's1', atributos: ATTRS };
    const variants: [Partial<IngestionRecord>, string][] = [
      [same, 'inalterado'],
      [{ ...same, origem: 'pdv' }, 'alterado'],
      [{ ...same, sku: null }, 'alterado'],
      [{ ...same, descricao: 'x' }, 'alterado'],
      [{ ...same, ncm: '87081000' }, 'alterado'],
      [{ ...same, atributos: [] }, 'alterado'],
      [{ ...same, atributos: [ATTRS[1]!, ATTRS[0]!] }, 'alterado'],
      [{ ...same, atributos: [ATTRS[0]!, { codigo: 'TAM', valores: ['M', 'P'] }] }, 'alterado'],
      [{ ...same, atributos: [ATTRS[0]!, { codigo: 'TAM', valores: ['P'] }] }, 'alterado'],
      [{ ...same, atributos: [ATTRS[0]!, { codigo: 'TAM', valores: ['P', 'M'] }] }, 'inalterado'],
    ];
    for (const [fields, action] of variants) {
      const { plan, preview } = w.plan('mesclar', [batch(1, [record('A1', fields)])]);
      expect(plan.records[0]!.action, JSON.stringify(fields)).toBe(action);
      expect(preview.vinculados).toBe(0);
    }
  });

  it('reactivates an inactive product even with the same fields', () => {
    const w = setup();
    const x1 = w.product(w.p.x1);
    expect(x1).toMatchObject({ ativo: false, catalogos: [] });
    const { preview } = w.plan('mesclar', [batch(1, [record('X1', { sku: 'old' })])]);
    expect(preview).toMatchObject({ reativados: 1, inalterados: 0, vinculados: 1 });
  });

  it('lists every error in batch then item order, a later repeat of an id_externo as id_externo_repetido, and counts the first only', () => {
    const w = setup();
    const batches = [
      batch(
        1,
        [record('N1'), null, record('N1', { sku: 'x' }), null],
        [
          ncmError(1, 1),
          { ...ncmError(1, 1), caminho: 'body.itens[1].origem', codigo: 'campo_obrigatorio' },
          ncmError(1, 3),
        ],
      ),
      batch(2, [record('A1'), record('N1')]),
      batch(4, [null, record('A1')], [ncmError(4, 0)]),
    ];
    const { preview, plan } = w.plan('mesclar', batches, 4);
    expect(preview.erros.map((e) => [e.lote, e.indice, e.caminho, e.codigo])).toEqual([
      [1, 1, 'body.itens[1].ncm', 'valor_invalido'],
      [1, 1, 'body.itens[1].origem', 'campo_obrigatorio'],
      [1, 2, 'body.itens[2].id_externo', 'id_externo_repetido'],
      [1, 3, 'body.itens[3].ncm', 'valor_invalido'],
      [2, 1, 'body.itens[1].id_externo', 'id_externo_repetido'],
      [4, 0, 'body.itens[0].ncm', 'valor_invalido'],
      [4, 1, 'body.itens[1].id_externo', 'id_externo_repetido'],
    ]);
    expect(preview.erros[2]!.mensagem).toContain('batch 1, item 0');
    expect(preview.erros[6]!.mensagem).toContain('batch 2, item 0');
    expect(preview).toMatchObject({ registros: 2, novos: 1, alterados: 1, lotesFaltantes: [3] });
    expect(plan.records.map((r) => r.record)).toEqual([record('N1'), record('A1')]);
  });

  it('names every number from 1 to total_lotes that never arrived', () => {
    const w = setup();
    expect(w.plan('mesclar', [batch(2, [record('N1')]), batch(5, [record('N2')])], 6).preview.lotesFaltantes).toEqual([
      1, 3, 4, 6,
    ]);
    expect(w.plan('mesclar', [], 3).preview).toMatchObject({ lotesFaltantes: [1, 2, 3], registros: 0 });
  });
});

describe('staleness', () => {
  /** A validated plan of the standard ingestion; `change` then runs; staleness is asked. */
  function staleAfter(operacao: IngestionOperation, change: (w: World) => void): string | undefined {
    const w = setup();
    const { plan } = w.plan(operacao, STANDARD);
    expect(staleness(w.state, w.companyId, w.a, plan)).toBeUndefined();
    change(w);
    return staleness(w.state, w.companyId, w.a, plan);
  }

  const STALE: [string, IngestionOperation, (w: World) => void][] = [
    [
      'the catalog was edited',
      'mesclar',
      (w) => unwrap(editCatalog(w.state, w.companyId, w.a, [catalogEtag(w.catalog(w.a))], { nome: 'Outro' }, w.ctx())),
    ],
    [
      'the catalog was deleted',
      'mesclar',
      (w) =>
        unwrap(
          deleteCatalog(w.state, w.companyId, w.a, [unwrap(previewDeletion(w.state, w.companyId, w.a)).etag], w.ctx()),
        ),
    ],
    [
      'a product was created in the catalog',
      'mesclar',
      (w) => unwrap(createProduct(w.state, w.companyId, w.a, { origem: 'erp', ncm: NCM }, w.ctx())),
    ],
    ['a product was linked to the catalog', 'mesclar', (w) => w.link(w.a, w.p.b2)],
    ['a product was unlinked from the catalog', 'mesclar', (w) => w.unlink(w.a, w.p.a3)],
    ['a matched product was edited', 'mesclar', (w) => w.edit(w.p.a1, { descricao: 'x' })],
    ['a matched product of another catalog was linked elsewhere', 'mesclar', (w) => w.unlink(w.b, w.p.b1)],
    ['a product to unlink was edited', 'substituicao_catalogo', (w) => w.edit(w.p.a3, { sku: 'x' })],
    ['a product to deactivate was linked elsewhere', 'substituicao_integral', (w) => w.link(w.b, w.p.a5)],
    [
      'a product took an id_externo the ingestion creates',
      'mesclar',
      (w) => unwrap(createProduct(w.state, w.companyId, w.b, { origem: 'erp', ncm: NCM, idExterno: 'N1' }, w.ctx())),
    ],
    [
      'a product was renamed to an id_externo the ingestion creates',
      'mesclar',
      (w) => w.edit(w.p.b2, { idExterno: 'N1' }),
    ],
  ];
  it.each(STALE)('is stale when %s (%s)', (_what, operacao, change) => {
    expect(staleAfter(operacao, change)).toEqual(expect.any(String));
  });

  const FRESH: [string, IngestionOperation, (w: World) => void][] = [
    ['nothing changed', 'substituicao_integral', () => undefined],
    ['an unread product was edited', 'substituicao_integral', (w) => w.edit(w.p.b2, { sku: 'x' })],
    ['an unread product was unlinked from another catalog', 'substituicao_catalogo', (w) => w.unlink(w.b, w.p.b2)],
    [
      'an absent product of the catalog was edited (mesclar does not read it)',
      'mesclar',
      (w) => w.edit(w.p.a3, { sku: 'x' }),
    ],
    [
      'a product was created elsewhere with another id_externo',
      'mesclar',
      (w) => unwrap(createProduct(w.state, w.companyId, w.b, { origem: 'erp', ncm: NCM, idExterno: 'N2' }, w.ctx())),
    ],
    ['the selection changed', 'substituicao_integral', (w) => w.select({ remover: [w.p.a3] })],
  ];
  it.each(FRESH)('is fresh when %s (%s)', (_what, operacao, change) => {
    expect(staleAfter(operacao, change)).toBeUndefined();
  });
});

describe('applyPlan', () => {
  it.each(['mesclar', 'substituicao_catalogo', 'substituicao_integral'] as const)(
    'makes every change of the %s plan at once: catalog versao +1, each changed product versao +1',
    (operacao) => {
      const w = setup();
      const before = new Map([...w.state.products.values()].map((p) => [p.id, p]));
      const catalogVersao = w.catalog(w.a).versao;
      const { plan } = w.plan(operacao, STANDARD);
      const at = T0 + 60_000;
      const versao = applyPlan(w.state, w.companyId, w.a, plan, w.ctx(at));
      expect(versao).toBe(catalogVersao + 1);
      expect(w.catalog(w.a)).toMatchObject({ versao, atualizadoEm: at });

      const after = (id: string) => w.product(id);
      const was = (id: string) => before.get(id)!;
      // Unchanged and already linked: the same record.
      expect(after(w.p.a1)).toBe(was(w.p.a1));
      expect(after(w.p.a2)).toEqual({ ...was(w.p.a2), sku: 'mudou', versao: was(w.p.a2).versao + 1, atualizadoEm: at });
      expect(after(w.p.b1)).toEqual({
        ...was(w.p.b1),
        catalogos: [w.b, w.a],
        versao: was(w.p.b1).versao + 1,
        atualizadoEm: at,
      });
      expect(after(w.p.x1)).toEqual({
        ...was(w.p.x1),
        sku: 'novo',
        ativo: true,
        catalogos: [w.a],
        versao: was(w.p.x1).versao + 1,
        atualizadoEm: at,
      });
      expect(after(w.p.l1)).toEqual({
        ...was(w.p.l1),
        descricao: 'Solta',
        catalogos: [w.a],
        versao: was(w.p.l1).versao + 1,
        atualizadoEm: at,
      });
      expect(after(w.p.b2)).toBe(was(w.p.b2));
      const created = productByExternalId(w.state, w.companyId, 'N1')!;
      expect(created).toMatchObject({
        idExterno: 'N1',
        origem: 'erp',
        ncm: NCM,
        sku: null,
        descricao: null,
        atributos: [],
        versao: 1,
        ativo: true,
        catalogos: [w.a],
        criadoEm: at,
      });

      const integral = operacao === 'substituicao_integral';
      if (operacao === 'mesclar') {
        for (const id of [w.p.a3, w.p.a4, w.p.a5]) expect(after(id)).toBe(was(id));
      } else {
        expect(after(w.p.a3)).toEqual({
          ...was(w.p.a3),
          catalogos: [],
          ativo: !integral,
          versao: was(w.p.a3).versao + 1,
          atualizadoEm: at,
        });
        expect(after(w.p.a4)).toEqual({
          ...was(w.p.a4),
          catalogos: [w.b],
          versao: was(w.p.a4).versao + 1,
          atualizadoEm: at,
        });
        expect(after(w.p.a5)).toEqual({
          ...was(w.p.a5),
          catalogos: [],
          ativo: !integral,
          versao: was(w.p.a5).versao + 1,
          atualizadoEm: at,
        });
      }

      // The catalog's links: exactly the products naming it, in both directions.
      const linked = new Set([...linksOf(w.state, w.companyId, w.a).after()].map(([id]) => id));
      expect(linked).toEqual(
        new Set([...w.state.products.values()].filter((p) => p.catalogos.includes(w.a)).map((p) => p.id)),
      );
      expect(linked).toEqual(
        new Set([
          w.p.a1,
          w.p.a2,
          w.p.b1,
          w.p.x1,
          w.p.l1,
          created.id,
          ...(operacao === 'mesclar' ? [w.p.a3, w.p.a4, w.p.a5] : []),
        ]),
      );
      expect(new Set([...linksOf(w.state, w.companyId, w.b).after()].map(([id]) => id))).toEqual(
        new Set([w.p.a2, w.p.a4, w.p.b1, w.p.b2]),
      );

      // The selection lost the deactivated products only; the counters agree with the products.
      const s = surveillanceOf(w.state, w.companyId);
      expect(s.selected.entries().map(([id]) => id)).toEqual(
        integral ? [w.p.a4, w.p.l1] : [w.p.a3, w.p.a4, w.p.a5, w.p.l1],
      );
      const products = [...w.state.products.values()];
      expect({ active: s.active, eligible: s.eligible, selectedEligible: s.selectedEligible }).toEqual({
        active: products.filter((p) => p.ativo).length,
        eligible: products.filter(isEligible).length,
        selectedEligible: s.selected.entries().filter(([id]) => isEligible(w.product(id))).length,
      });
      expect(indexesOf(w.state, w.companyId).productsByExternalId.get('N1')).toBe(created.id);
    },
  );

  it('compares the coverage once, after the whole application: no event when it ends where it started', () => {
    // Mode todos with capacity = the eligible count: two new products (above capacity) then two deactivations.
    const w = setup();
    const eligible = [...w.state.products.values()].filter(isEligible).length;
    unwrap(updateCompany(w.state, w.companyId, { surveillanceCapacity: eligible }, w.ctx()));
    w.select({ modo: 'todos' });
    const eventsBefore = events(w).length;
    const { plan, preview } = w.plan('substituicao_integral', [
      batch(1, [
        record('A1', { sku: 's1', atributos: ATTRS }),
        record('A2', { sku: 's2' }),
        record('A4'),
        record('N1'),
        record('N2'),
      ]),
    ]);
    expect(preview).toMatchObject({ novos: 2, desativados: 2 });
    applyPlan(w.state, w.companyId, w.a, plan, w.ctx());
    expect([...w.state.products.values()].filter(isEligible).length).toBe(eligible);
    expect(events(w).slice(eventsBefore)).toEqual([]);
  });

  it('raises one coverage event with the final figures when the application ends degraded', () => {
    const w = setup();
    configureWebhook(w.state, w.companyId, w.ctx()); // events are recorded only against a destination
    const eligible = [...w.state.products.values()].filter(isEligible).length;
    unwrap(updateCompany(w.state, w.companyId, { surveillanceCapacity: eligible }, w.ctx()));
    w.select({ modo: 'todos' });
    const eventsBefore = events(w).length;
    const { plan } = w.plan('mesclar', [batch(1, [record('N1'), record('N2'), record('N3')])]);
    applyPlan(w.state, w.companyId, w.a, plan, w.ctx());
    expect(events(w).slice(eventsBefore)).toEqual([
      {
        tipo: 'vigilancia.degradada',
        cobertura: 'capacidade_excedida',
        coberturaAnterior: 'integral',
        selecionados: eligible + 3,
        capacidade: eligible,
      },
    ]);
  });

  it('moves the catalog versao once however many records, and a product linked and reactivated at once moves once', () => {
    const w = setup();
    const many = Array.from({ length: 50 }, (_, i) => record(`M${i}`));
    const versao = w.catalog(w.a).versao;
    const x1 = w.product(w.p.x1).versao;
    const { plan } = w.plan('mesclar', [batch(1, many), batch(2, [record('X1')])]);
    expect(applyPlan(w.state, w.companyId, w.a, plan, w.ctx())).toBe(versao + 1);
    expect(w.product(w.p.x1)).toMatchObject({ versao: x1 + 1, ativo: true, catalogos: [w.a] });
    expect(linksOf(w.state, w.companyId, w.a).size).toBe(5 + 51);
  });
});
