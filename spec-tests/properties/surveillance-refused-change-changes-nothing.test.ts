/**
 * Property: a refused selection change changes nothing (spec "PATCH /v1/empresa/vigilancia": when the limit or
 * capacity is exceeded the entire change is refused; docs/where-the-spec-is-silent.md: only 2xx answers
 * are stored for idempotency, a refusal changes nothing, the store included).
 *
 * Random sequences interleave product changes and capacity or entitlement changes (so that the same PATCH is
 * sometimes accepted, sometimes refused) with PATCH /v1/empresa/vigilancia of every kind: valid ones, repeated,
 * unknown, another company's or unselected ids, more than 200 ids, a missing or invalid modo, an unknown field,
 * a missing, stale or `*` If-Match, both preconditions, over the capacity in either mode, a missing or invalid
 * idempotency key, a key reused with another body, no credential, a credential without vigilancia:gerenciar,
 * another media type, malformed JSON. Around every PATCH, snapshot() is taken before and after: whenever the
 * answer is 4xx, `state` and `random` must be byte-identical (as in refusals-change-nothing.test.ts). Each
 * refused key is then used again for a valid change, which must be applied (not replayed): the refusal was not
 * stored. An accepted PATCH, for contrast, always changes the state (versao moves).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newKey, type Answer } from '../support/client.js';
import { lab, PROPERTY_TIMEOUT, runs, stateAndRandom, type Lab } from './support/lab.js';

const VIGILANCIA = '/v1/empresa/vigilancia';
const NCM = '84713012';
const UNKNOWN = '0190a000-0000-7000-8000-00000000abcd';

/** The refusals the generator must reach, in the order the checks run (docs/api.md "Rules every request follows"). */
const REFUSALS = [
  'credencial_ausente',
  'permissao_insuficiente',
  'chave_idempotencia_ausente',
  'chave_idempotencia_invalida',
  'precondicoes_conflitantes',
  'cabecalho_invalido',
  'tipo_midia_nao_suportado',
  'json_invalido',
  'idempotencia_reutilizada',
  'valor_invalido',
  'campo_desconhecido',
  'produto_repetido',
  'produto_invalido',
  'produto_nao_selecionado',
  'precondicao_ausente',
  'precondicao_falhou',
  'capacidade_insuficiente',
] as const;

type Pick =
  | { readonly kind: 'product'; readonly i: number }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'other' };
type Shape = 'ok' | 'over200' | 'modoMissing' | 'modoBad' | 'unknownField' | 'notUuid';
type Transport =
  | 'ok'
  | 'noKey'
  | 'badKey'
  | 'reusedKey'
  | 'noAuth'
  | 'readOnly'
  | 'mediaType'
  | 'badJson'
  | 'ifMatchStar'
  | 'bothPreconditions';

type Step =
  | { readonly t: 'create' }
  | { readonly t: 'unlink'; readonly product: number }
  | { readonly t: 'company'; readonly capacity: number; readonly entitled: boolean }
  | {
      readonly t: 'patch';
      readonly modo: 'selecao' | 'todos';
      readonly add: readonly Pick[];
      readonly remove: readonly Pick[];
      readonly ifMatch: 'current' | 'stale' | 'none';
      readonly shape: Shape;
      readonly transport: Transport;
    };

const pick: fc.Arbitrary<Pick> = fc.oneof(
  { weight: 10, arbitrary: fc.nat(12).map((i): Pick => ({ kind: 'product', i })) },
  { weight: 1, arbitrary: fc.constant<Pick>({ kind: 'unknown' }) },
  { weight: 1, arbitrary: fc.constant<Pick>({ kind: 'other' }) },
);

const patchStep = fc.record({
  t: fc.constant('patch' as const),
  modo: fc.constantFrom('selecao' as const, 'todos' as const),
  add: fc.array(pick, { maxLength: 4 }),
  remove: fc.array(pick, { maxLength: 3 }),
  ifMatch: fc.oneof(
    { weight: 6, arbitrary: fc.constant('current' as const) },
    { weight: 1, arbitrary: fc.constantFrom('stale' as const, 'none' as const) },
  ),
  shape: fc.oneof(
    { weight: 12, arbitrary: fc.constant<Shape>('ok') },
    { weight: 1, arbitrary: fc.constantFrom<Shape>('over200', 'modoMissing', 'modoBad', 'unknownField', 'notUuid') },
  ),
  transport: fc.oneof(
    { weight: 14, arbitrary: fc.constant<Transport>('ok') },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Transport>(
        'noKey',
        'badKey',
        'reusedKey',
        'noAuth',
        'readOnly',
        'mediaType',
        'badJson',
        'ifMatchStar',
        'bothPreconditions',
      ),
    },
  ),
});

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Step>({ t: 'create' }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('unlink' as const), product: fc.nat(12) }) },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant('company' as const), capacity: fc.nat(4), entitled: fc.boolean() }),
  },
  { weight: 8, arbitrary: patchStep },
);

class Run {
  readonly products: string[] = [];
  catalog = '';
  otherProduct = '';
  readerToken = '';
  firstEtag = '';
  /** A key of an accepted PATCH and its body: sending it again with another body is idempotencia_reutilizada. */
  acceptedKey: { key: string; body: string } | undefined;
  refused = 0;
  accepted = 0;

  constructor(
    readonly lab: Lab,
    readonly codes: Set<string>,
  ) {}

  async setUp(): Promise<void> {
    const { api, company, emu } = this.lab;
    const catalog = await api.post('/v1/catalogos', { estabelecimento_id: company.headOffice.id, nome: 'Loja' });
    expect(catalog.status).toBe(201);
    this.catalog = catalog.body.id;
    const other = emu.companies.create();
    const otherApi = api.as(other.token);
    const otherCatalog = await otherApi.post('/v1/catalogos', {
      estabelecimento_id: other.headOffice.id,
      nome: 'Outra',
    });
    this.otherProduct = (
      await otherApi.post(`/v1/catalogos/${otherCatalog.body.id}/produtos`, { origem: 'erp', ncm: NCM })
    ).body.id;
    this.readerToken = emu.companies.addCredential(company.companyId, ['catalogo:ler']).token;
    this.firstEtag = await this.etag();
  }

  async etag(): Promise<string> {
    const answer = await this.lab.api.get(VIGILANCIA);
    expect(answer.status).toBe(200);
    return answer.headers.get('etag')!;
  }

  resolve(p: Pick): string {
    if (p.kind === 'unknown') return UNKNOWN;
    if (p.kind === 'other') return this.otherProduct;
    return this.products.length === 0 ? UNKNOWN : this.products[p.i % this.products.length]!;
  }

  async run(s: Step): Promise<void> {
    const { api, emu, company } = this.lab;
    if (s.t === 'create') {
      const answer = await api.post(`/v1/catalogos/${this.catalog}/produtos`, { origem: 'erp', ncm: NCM });
      expect(answer.status).toBe(201);
      this.products.push(answer.body.id);
      return;
    }
    if (s.t === 'unlink') {
      if (this.products.length === 0) return;
      const id = this.products[s.product % this.products.length]!;
      const etag = (await api.get(`/v1/produtos/${id}`)).headers.get('etag')!;
      const answer = await api.delete(`/v1/catalogos/${this.catalog}/produtos/${id}`, undefined, { ifMatch: etag });
      expect([200, 404]).toContain(answer.status);
      return;
    }
    if (s.t === 'company') {
      emu.companies.update(company.companyId, { surveillanceCapacity: s.capacity, surveillanceEntitled: s.entitled });
      return;
    }
    await this.patch(s);
  }

  body(s: Extract<Step, { t: 'patch' }>): Record<string, unknown> {
    const body: Record<string, unknown> = { modo: s.modo };
    const add = s.add.map((p) => this.resolve(p));
    const remove = s.remove.map((p) => this.resolve(p));
    if (add.length > 0) body.adicionar = add;
    if (remove.length > 0) body.remover = remove;
    switch (s.shape) {
      case 'over200':
        body[remove.length > 0 ? 'remover' : 'adicionar'] = Array.from(
          { length: 201 },
          (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        );
        break;
      case 'modoMissing':
        delete body.modo;
        break;
      case 'modoBad':
        body.modo = 'tudo';
        break;
      case 'unknownField':
        body.selecao = [];
        break;
      case 'notUuid':
        body.adicionar = [...add, 'produto-1'];
        break;
      case 'ok':
        break;
    }
    return body;
  }

  async patch(s: Extract<Step, { t: 'patch' }>): Promise<void> {
    const { api, emu } = this.lab;
    const current = await this.etag();
    const ifMatch = s.ifMatch === 'none' ? undefined : s.ifMatch === 'stale' ? this.firstEtag : current;
    const body = this.body(s);
    const text = JSON.stringify(body);
    let key: string | null = newKey();
    const headers: Record<string, string> = {};
    let raw: string | undefined = text;
    let as = api;
    switch (s.transport) {
      case 'noKey':
        key = null;
        break;
      case 'badKey':
        key = 'curta';
        break;
      case 'reusedKey':
        if (this.acceptedKey !== undefined && this.acceptedKey.body !== text) key = this.acceptedKey.key;
        break;
      case 'noAuth':
        as = api.as(undefined);
        break;
      case 'readOnly':
        as = api.as(this.readerToken);
        break;
      case 'mediaType':
        headers['content-type'] = 'text/plain';
        break;
      case 'badJson':
        raw = text.slice(0, -1);
        break;
      case 'ifMatchStar':
        headers['if-match'] = '*';
        break;
      case 'bothPreconditions':
        headers['if-none-match'] = '*';
        break;
      case 'ok':
        break;
    }
    if (headers['content-type'] === undefined) headers['content-type'] = 'application/json';

    const before = stateAndRandom(emu);
    const answer: Answer = await as.patch(VIGILANCIA, undefined, {
      raw,
      key,
      headers,
      ...(ifMatch === undefined || headers['if-match'] !== undefined ? {} : { ifMatch }),
    });
    const after = stateAndRandom(emu);
    const label = `PATCH (${s.transport}, ${s.shape}, If-Match ${s.ifMatch}) ${text.slice(0, 200)} → ${answer.status} ${answer.text.slice(0, 300)}`;
    expect(answer.status, label).not.toBeGreaterThanOrEqual(500);
    if (answer.status >= 400) {
      this.refused++;
      this.codes.add(answer.body?.erro?.codigo);
      expect(after === before, `${label}: a refused change changed the state`).toBe(true);
      expect(answer.headers.get('etag'), label).toBeNull();
      expect(await this.etag(), label).toBe(current);
      // The refusal was not stored under its key: a valid change with it is applied, not replayed.
      if (key !== null && key !== 'curta' && key !== this.acceptedKey?.key) {
        const retry = await api.patch(VIGILANCIA, { modo: 'selecao' }, { key, ifMatch: current });
        if (retry.status === 200) {
          expect(retry.headers.get('idempotent-replayed'), label).toBeNull();
          this.acceptedKey = { key, body: JSON.stringify({ modo: 'selecao' }) };
        } else {
          // Mode selecao over the capacity (the selection outgrew a cut): refused for that reason only.
          expect(retry.status, `${label}; retry: ${retry.text}`).toBe(409);
        }
      }
      return;
    }
    expect(answer.status, label).toBe(200);
    expect(s.transport === 'ok' || s.transport === 'reusedKey', label).toBe(true);
    this.accepted++;
    expect(after === before, `${label}: an accepted change left the state as it was`).toBe(false);
    expect(answer.headers.get('etag'), label).not.toBe(current);
    if (key !== null) this.acceptedKey = { key, body: text };
  }
}

describe('surveillance selection refusals', { timeout: PROPERTY_TIMEOUT }, () => {
  // spec: SURV-14
  it('a refused selection change changes nothing', async () => {
    const totals = { accepted: 0, refused: 0, codes: new Set<string>() };
    await fc.assert(
      fc.asyncProperty(
        fc.nat(4),
        fc.boolean(),
        fc.array(step, { minLength: 1, maxLength: 30, size: 'max' }),
        async (capacity, entitled, steps) => {
          const run = new Run(
            lab({}, { surveillanceCapacity: capacity, surveillanceEntitled: entitled }),
            totals.codes,
          );
          await run.setUp();
          for (const s of steps) await run.run(s);
          totals.accepted += run.accepted;
          totals.refused += run.refused;
        },
      ),
      { numRuns: runs(150) },
    );
    expect(totals.accepted).toBeGreaterThan(0);
    // Every kind of refusal was in the mix.
    expect([...totals.codes].sort()).toEqual(expect.arrayContaining([...REFUSALS].sort()));
  });
});
