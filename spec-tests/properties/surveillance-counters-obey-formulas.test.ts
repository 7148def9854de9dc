/**
 * Property: the surveillance counters and cobertura always obey their formulas (docs/api.md "Surveillance selection").
 *
 * Random sequences of product creation in one or two catalogs, links and unlinks, catalog deletions (a new
 * catalog then takes the establishment's place), selection PATCHes (valid ones and refused ones: repeated,
 * unknown and another company's ids, removals of unselected products, a missing or stale If-Match, a missing
 * or invalid modo, over the capacity), mode switches, and capacity and entitlement changes through
 * emu.companies.update. The model holds only what the API cannot recount: the selection (in order), the mode
 * and versao, each changed by exactly the PATCHes the model predicts to be accepted (it predicts every
 * refusal's status, codigo and caminho too) and by deactivations (a deactivated product leaves the selection).
 * After every step the figures are recomputed from GET /v1/produtos (every page) and the model's selection:
 *
 *   cadastrados = active products; elegiveis = active products with ≥ 1 catalog; selecionados = the selection
 *   (mode todos: elegiveis); vagas = max(capacidade − selecionados, 0); cobertura by its rules in order;
 *   exige_selecao = elegiveis > capacidade
 *
 * and GET /v1/empresa/vigilancia must answer exactly them (with versao and an ETag that moved exactly on the
 * accepted PATCHes), GET /v1/empresa/capacidade the same figures, and GET /v1/empresa/vigilancia/produtos the
 * watched products (mode selecao: the selection in order; mode todos: the eligible products in creation order).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Answer, Api } from '../support/client.js';
import { cnpjOfNumber } from '../support/cnpj.js';
import { lab, PROPERTY_TIMEOUT, runs, type Lab } from './support/lab.js';

const VIGILANCIA = '/v1/empresa/vigilancia';
const NCM = '84713012';
const UNKNOWN = '0190a000-0000-7000-8000-00000000abcd';

type Modo = 'selecao' | 'todos';
type Pick =
  | { readonly kind: 'product'; readonly i: number }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'other' };

type Step =
  | { readonly t: 'create'; readonly catalog: number }
  | { readonly t: 'link'; readonly product: number; readonly catalog: number }
  | { readonly t: 'unlink'; readonly product: number; readonly catalog: number }
  | { readonly t: 'delete'; readonly catalog: number }
  | {
      readonly t: 'patch';
      readonly modo: Modo | 'missing' | 'bad';
      readonly add: readonly Pick[];
      readonly remove: readonly Pick[];
      readonly ifMatch: 'current' | 'stale' | 'none';
    }
  | { readonly t: 'company'; readonly capacity?: number; readonly entitled?: boolean };

const pick: fc.Arbitrary<Pick> = fc.oneof(
  { weight: 12, arbitrary: fc.nat(20).map((i): Pick => ({ kind: 'product', i })) },
  { weight: 1, arbitrary: fc.constant<Pick>({ kind: 'unknown' }) },
  { weight: 1, arbitrary: fc.constant<Pick>({ kind: 'other' }) },
);

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ t: fc.constant('create' as const), catalog: fc.nat(1) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('link' as const), product: fc.nat(20), catalog: fc.nat(1) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('unlink' as const), product: fc.nat(20), catalog: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('delete' as const), catalog: fc.nat(1) }) },
  {
    weight: 6,
    arbitrary: fc.record({
      t: fc.constant('patch' as const),
      modo: fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom<Modo>('selecao', 'todos') },
        { weight: 1, arbitrary: fc.constantFrom('missing' as const, 'bad' as const) },
      ),
      add: fc.array(pick, { maxLength: 4 }),
      remove: fc.array(pick, { maxLength: 3 }),
      ifMatch: fc.oneof(
        { weight: 10, arbitrary: fc.constant('current' as const) },
        { weight: 1, arbitrary: fc.constantFrom('stale' as const, 'none' as const) },
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      { t: fc.constant('company' as const), capacity: fc.nat(6), entitled: fc.boolean() },
      { requiredKeys: ['t'] },
    ),
  },
);

interface Product {
  readonly id: string;
  readonly ativo: boolean;
  readonly catalogos: readonly string[];
}

interface Expected {
  readonly status: number;
  readonly codigo?: string;
  readonly caminho?: string;
}

function ok(answer: Answer, statuses: readonly number[], what: string): void {
  expect(statuses, `${what} answered ${answer.status}: ${answer.text}`).toContain(answer.status);
}

/** Every product of the company, following proximo_cursor (creation order). */
async function allProducts(api: Api): Promise<Product[]> {
  const products: Product[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 100; guard++) {
    const answer: Answer = await api.get(
      `/v1/produtos?limite=7${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
    );
    ok(answer, [200], 'GET /v1/produtos');
    products.push(...(answer.body.itens as Product[]));
    cursor = answer.body.proximo_cursor;
    if (cursor === null) return products;
  }
  throw new Error('GET /v1/produtos did not end');
}

class Model {
  selection: string[] = [];
  modo: Modo = 'selecao';
  versao = 1;
  etags: string[] = [];
  catalogs: string[] = [];
  establishments: string[] = [];
  created: string[] = [];
  capacity: number;
  entitled: boolean;
  otherProduct = '';
  refused = 0;
  accepted = 0;

  constructor(
    readonly lab: Lab,
    capacity: number,
    entitled: boolean,
  ) {
    this.capacity = capacity;
    this.entitled = entitled;
  }

  get api(): Api {
    return this.lab.api;
  }

  async setUp(catalogs: number): Promise<void> {
    const { api, company } = this.lab;
    this.establishments.push(company.headOffice.id);
    if (catalogs > 1) {
      const branch = await api.post('/v1/estabelecimentos', {
        cnpj: cnpjOfNumber(company.cnpjRoot, 2),
        nome: 'Filial',
      });
      ok(branch, [201], 'POST /v1/estabelecimentos');
      this.establishments.push(branch.body.id);
    }
    for (const establishment of this.establishments) this.catalogs.push(await this.newCatalog(establishment));
    // Another company's product: never selectable here.
    const other = this.lab.emu.companies.create();
    const otherApi = api.as(other.token);
    const catalog = await otherApi.post('/v1/catalogos', { estabelecimento_id: other.headOffice.id, nome: 'Outra' });
    const product = await otherApi.post(`/v1/catalogos/${catalog.body.id}/produtos`, { origem: 'erp', ncm: NCM });
    ok(product, [201], 'other company product');
    this.otherProduct = product.body.id;
    this.etags.push((await this.read()).etag);
  }

  async newCatalog(establishmentId: string): Promise<string> {
    const answer = await this.api.post('/v1/catalogos', { estabelecimento_id: establishmentId, nome: 'Catálogo' });
    ok(answer, [201], 'POST /v1/catalogos');
    return answer.body.id;
  }

  async read(): Promise<{ body: Record<string, unknown>; etag: string }> {
    const answer = await this.api.get(VIGILANCIA);
    ok(answer, [200], `GET ${VIGILANCIA}`);
    return { body: answer.body, etag: answer.headers.get('etag')! };
  }

  productId(i: number): string | undefined {
    return this.created.length === 0 ? undefined : this.created[i % this.created.length];
  }

  async productEtag(id: string): Promise<string> {
    const answer = await this.api.get(`/v1/produtos/${id}`);
    ok(answer, [200], 'GET /v1/produtos/{id}');
    return answer.headers.get('etag')!;
  }

  resolve(p: Pick): string {
    if (p.kind === 'unknown') return UNKNOWN;
    if (p.kind === 'other') return this.otherProduct;
    return this.productId(p.i) ?? UNKNOWN;
  }

  /** What the PATCH must answer, by the decisions' order of checks. */
  predict(
    products: readonly Product[],
    s: Extract<Step, { t: 'patch' }>,
    add: readonly string[],
    remove: readonly string[],
  ): Expected {
    if (s.modo === 'missing') return { status: 422, caminho: 'body.modo' };
    if (s.modo === 'bad') return { status: 422, codigo: 'valor_invalido', caminho: 'body.modo' };
    const active = new Set(products.filter((p) => p.ativo).map((p) => p.id));
    const seen = new Set<string>();
    for (const [list, ids] of [
      ['adicionar', add],
      ['remover', remove],
    ] as const) {
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        const caminho = `body.${list}[${i}]`;
        if (seen.has(id)) return { status: 422, codigo: 'produto_repetido', caminho };
        seen.add(id);
        if (!active.has(id)) return { status: 422, codigo: 'produto_invalido', caminho };
        if (list === 'remover' && !this.selection.includes(id))
          return { status: 422, codigo: 'produto_nao_selecionado', caminho };
      }
    }
    if (s.ifMatch === 'none') return { status: 428, codigo: 'precondicao_ausente', caminho: 'header.if-match' };
    if (s.ifMatch === 'stale' && this.etags.length > 1)
      return { status: 412, codigo: 'precondicao_falhou', caminho: 'header.if-match' };
    const eligible = products.filter((p) => p.ativo && p.catalogos.length > 0).length;
    const size = this.selection.length + add.filter((id) => !this.selection.includes(id)).length - remove.length;
    if ((s.modo === 'todos' ? eligible : size) > this.capacity)
      return { status: 409, codigo: 'capacidade_insuficiente' };
    return { status: 200 };
  }

  async run(s: Step): Promise<void> {
    switch (s.t) {
      case 'create': {
        const catalog = this.catalogs[s.catalog % this.catalogs.length]!;
        const answer = await this.api.post(`/v1/catalogos/${catalog}/produtos`, { origem: 'erp', ncm: NCM });
        ok(answer, [201], 'create');
        this.created.push(answer.body.id);
        return;
      }
      case 'link':
      case 'unlink': {
        const id = this.productId(s.product);
        if (id === undefined) return;
        const catalog = this.catalogs[s.catalog % this.catalogs.length]!;
        const path = `/v1/catalogos/${catalog}/produtos/${id}`;
        const etag = await this.productEtag(id);
        const answer =
          s.t === 'link'
            ? await this.api.put(path, undefined, { ifMatch: etag })
            : await this.api.delete(path, undefined, { ifMatch: etag });
        // 404: not linked (unlink); 409: the product is inactive (its catalog was deleted).
        ok(answer, s.t === 'link' ? [200, 409] : [200, 404, 409], s.t);
        return;
      }
      case 'delete': {
        const k = s.catalog % this.catalogs.length;
        const catalog = this.catalogs[k]!;
        const preview = await this.api.get(`/v1/catalogos/${catalog}/impacto-exclusao`);
        ok(preview, [200], 'deletion preview');
        const answer = await this.api.delete(`/v1/catalogos/${catalog}`, undefined, {
          ifMatch: preview.headers.get('etag')!,
        });
        ok(answer, [200], 'DELETE catalog');
        this.catalogs[k] = await this.newCatalog(this.establishments[k]!);
        // Deactivated products leave the selection.
        const active = new Set((await allProducts(this.api)).filter((p) => p.ativo).map((p) => p.id));
        this.selection = this.selection.filter((id) => active.has(id));
        return;
      }
      case 'company': {
        this.lab.emu.companies.update(this.lab.company.companyId, {
          surveillanceCapacity: s.capacity,
          surveillanceEntitled: s.entitled,
        });
        if (s.capacity !== undefined) this.capacity = s.capacity;
        if (s.entitled !== undefined) this.entitled = s.entitled;
        return;
      }
      case 'patch': {
        const products = await allProducts(this.api);
        const add = s.add.map((p) => this.resolve(p));
        const remove = s.remove.map((p) => this.resolve(p));
        const expected = this.predict(products, s, add, remove);
        const body: Record<string, unknown> = s.modo === 'missing' ? {} : { modo: s.modo === 'bad' ? 'ambos' : s.modo };
        if (add.length > 0) body.adicionar = add;
        if (remove.length > 0) body.remover = remove;
        const current = this.etags[this.etags.length - 1]!;
        const ifMatch =
          s.ifMatch === 'none' ? undefined : s.ifMatch === 'stale' && this.etags.length > 1 ? this.etags[0]! : current;
        const answer = await this.api.patch(VIGILANCIA, body, ifMatch === undefined ? {} : { ifMatch });
        expect(answer.status, `PATCH ${JSON.stringify(body)}: ${answer.text}`).toBe(expected.status);
        if (expected.status !== 200) {
          this.refused++;
          if (expected.codigo !== undefined) expect(answer.body.erro.codigo, answer.text).toBe(expected.codigo);
          if (expected.caminho !== undefined) expect(answer.body.erro.caminho, answer.text).toBe(expected.caminho);
          else expect(answer.body.erro, answer.text).not.toHaveProperty('caminho');
          expect(answer.headers.get('etag')).toBeNull();
          return;
        }
        this.accepted++;
        this.selection = this.selection.filter((id) => !remove.includes(id));
        for (const id of add) if (!this.selection.includes(id)) this.selection.push(id);
        this.modo = s.modo as Modo;
        this.versao += 1;
        const etag = answer.headers.get('etag')!;
        expect(this.etags, 'an accepted PATCH gives a new ETag').not.toContain(etag);
        this.etags.push(etag);
        expect(answer.text).toBe((await this.api.get(VIGILANCIA)).text);
        return;
      }
    }
  }

  /** The figures by the formulas, from the product list and the model's selection; the API must agree. */
  async check(label: string): Promise<void> {
    const products = await allProducts(this.api);
    const cadastrados = products.filter((p) => p.ativo).length;
    const eligible = products.filter((p) => p.ativo && p.catalogos.length > 0);
    const elegiveis = eligible.length;
    const selecionados = this.modo === 'todos' ? elegiveis : this.selection.length;
    const eligibleIds = new Set(eligible.map((p) => p.id));
    const everyEligibleSelected = eligible.every((p) => this.selection.includes(p.id));
    const cobertura = !this.entitled
      ? 'indisponivel'
      : selecionados === 0
        ? 'sem_selecao'
        : selecionados > this.capacity
          ? 'capacidade_excedida'
          : this.modo === 'todos' || everyEligibleSelected
            ? 'integral'
            : 'parcial';
    const expected = {
      cadastrados,
      selecionados,
      elegiveis,
      vagas: Math.max(this.capacity - selecionados, 0),
      cobertura,
      exige_selecao: elegiveis > this.capacity,
      modo: this.modo,
      versao: this.versao,
      capacidade: this.capacity,
      direito_ativo: this.entitled,
    };
    const view = await this.read();
    expect(view.body, `${label}: GET ${VIGILANCIA}`).toEqual(expected);
    expect(view.etag, `${label}: the ETag moves only with versao`).toBe(this.etags[this.etags.length - 1]);

    const capacity = await this.api.get('/v1/empresa/capacidade');
    ok(capacity, [200], 'GET /v1/empresa/capacidade');
    expect(capacity.body.vigilancia, `${label}: GET /v1/empresa/capacidade`).toEqual({
      direito_ativo: this.entitled,
      capacidade: this.capacity,
      selecionados,
      vagas: expected.vagas,
    });

    const watched = await this.api.get(`${VIGILANCIA}/produtos?limite=200`);
    ok(watched, [200], 'GET /v1/empresa/vigilancia/produtos');
    expect(watched.body.proximo_cursor).toBeNull();
    const ids = (watched.body.itens as Product[]).map((p) => p.id);
    expect(ids, `${label}: the watched products`).toEqual(
      this.modo === 'todos' ? products.filter((p) => eligibleIds.has(p.id)).map((p) => p.id) : this.selection,
    );
  }
}

const scenario = fc.record({
  catalogs: fc.integer({ min: 1, max: 2 }),
  capacity: fc.nat(6),
  entitled: fc.boolean(),
  steps: fc.array(step, { minLength: 1, maxLength: 30, size: 'max' }),
});

describe('surveillance counters', { timeout: PROPERTY_TIMEOUT }, () => {
  it('the counters and cobertura always obey their formulas', async () => {
    const totals = { accepted: 0, refused: 0, covers: new Set<string>() };
    await fc.assert(
      fc.asyncProperty(scenario, async ({ catalogs, capacity, entitled, steps }) => {
        const model = new Model(
          lab({}, { surveillanceCapacity: capacity, surveillanceEntitled: entitled }),
          capacity,
          entitled,
        );
        await model.setUp(catalogs);
        await model.check('start');
        for (const [n, s] of steps.entries()) {
          await model.run(s);
          await model.check(`step ${n} ${JSON.stringify(s)}`);
          totals.covers.add(String((await model.read()).body.cobertura));
        }
        totals.accepted += model.accepted;
        totals.refused += model.refused;
      }),
      { numRuns: runs(150) },
    );
    // The generator reaches what the property is about.
    expect(totals.accepted).toBeGreaterThan(0);
    expect(totals.refused).toBeGreaterThan(0);
    expect([...totals.covers].sort()).toEqual([
      'capacidade_excedida',
      'indisponivel',
      'integral',
      'parcial',
      'sem_selecao',
    ]);
  });
});
