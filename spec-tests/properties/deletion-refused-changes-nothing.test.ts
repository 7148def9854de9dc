/**
 * Property: a refused catalog deletion changes nothing (spec: "412 when anything changed since the preview
 * (no partial deletion)"; docs/where-the-spec-is-silent.md: a refusal changes nothing, the idempotency
 * store included).
 *
 * Random companies (1 to 3 catalogs, exclusive and shared products, a random selection, mode, capacity and
 * entitlement). For a random active catalog, the preview is read; then a DELETE the contract refuses:
 *
 *   - stale: a random change the preview depends on happens in between (a linked product edited, linked to
 *     or unlinked from another catalog, a product created here or elsewhere, the catalog renamed, a selection
 *     PATCH, a capacity or entitlement change), then the old ETag → 412;
 *   - no If-Match → 428;
 *   - the catalog already deleted (with the old preview ETag, the deleted catalog's ETag or a made-up one) → 409;
 *   - a wrong ETag (the catalog's, a product's, the selection's, another catalog's preview, a made-up one) → 412;
 *   - another company's credential → 404; a credential without catalogo:gerenciar → 403.
 *
 * Around the refused DELETE, emu.snapshot().state and .random must be byte-identical. Afterwards, unless the
 * catalog is gone, a fresh preview still deletes it (the refusal left nothing in the way).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Api, type Answer } from '../support/client.js';
import { cnpjOfNumber } from '../support/cnpj.js';
import { lab, PROPERTY_TIMEOUT, runs, stateAndRandom, type Lab } from './support/lab.js';

interface PlannedProduct {
  readonly home: number;
  readonly also: readonly boolean[];
  readonly selected: boolean;
}

interface Plan {
  readonly catalogs: number;
  readonly products: readonly PlannedProduct[];
  readonly modo: 'selecao' | 'todos';
  readonly capacity: number;
  readonly entitled: boolean;
  readonly target: number;
}

const CHANGES = [
  'editLinked',
  'linkElsewhere',
  'unlinkHere',
  'unlinkElsewhere',
  'productHere',
  'productElsewhere',
  'renameCatalog',
  'selection',
  'capacity',
  'entitlement',
] as const;
type Change = (typeof CHANGES)[number];

type Refusal =
  | { readonly kind: 'stale'; readonly change: Change; readonly pick: number }
  | { readonly kind: 'noIfMatch' }
  | { readonly kind: 'deleted'; readonly variant: number }
  | { readonly kind: 'wrongEtag'; readonly variant: number; readonly pick: number }
  | { readonly kind: 'otherCompany' }
  | { readonly kind: 'readOnly' };

const plan: fc.Arbitrary<Plan> = fc.record({
  catalogs: fc.integer({ min: 1, max: 3 }),
  products: fc.array(
    fc.record({
      home: fc.nat(2),
      also: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
      selected: fc.boolean(),
    }),
    { maxLength: 6 },
  ),
  modo: fc.constantFrom('selecao' as const, 'todos' as const),
  capacity: fc.nat(8),
  entitled: fc.boolean(),
  target: fc.nat(2),
});

const refusal: fc.Arbitrary<Refusal> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('stale' as const),
      change: fc.constantFrom(...CHANGES),
      pick: fc.nat(20),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('noIfMatch' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleted' as const), variant: fc.nat(2) }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('wrongEtag' as const), variant: fc.nat(4), pick: fc.nat(20) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('otherCompany' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('readOnly' as const) }) },
);

function ok(answer: Answer, what: string): Answer {
  if (answer.status >= 300) throw new Error(`${what} answered ${answer.status}: ${answer.text}`);
  return answer;
}

interface Built {
  readonly l: Lab;
  readonly catalogs: readonly string[];
  readonly target: string;
  readonly products: readonly string[];
}

async function build(p: Plan): Promise<Built> {
  const l = lab({}, { surveillanceCapacity: 1000 });
  const catalogs: string[] = [];
  for (let i = 0; i < p.catalogs; i++) {
    let establishmentId = l.company.headOffice.id;
    if (i > 0) {
      establishmentId = ok(
        await l.api.post('/v1/estabelecimentos', {
          cnpj: cnpjOfNumber(l.company.cnpjRoot, i + 1),
          nome: `Filial ${i}`,
        }),
        'establishment',
      ).body.id;
    }
    catalogs.push(
      ok(await l.api.post('/v1/catalogos', { estabelecimento_id: establishmentId, nome: `C${i}` }), 'catalog').body.id,
    );
  }
  const products: string[] = [];
  const selected: string[] = [];
  for (const [n, planned] of p.products.entries()) {
    const home = planned.home % p.catalogs;
    const created = ok(
      await l.api.post(`/v1/catalogos/${catalogs[home]}/produtos`, { origem: 'erp', ncm: '84713012', sku: `p${n}` }),
      'product',
    );
    let etag = created.headers.get('etag')!;
    for (let i = 0; i < p.catalogs; i++) {
      if (i === home || !planned.also[i]) continue;
      etag = ok(
        await l.api.put(`/v1/catalogos/${catalogs[i]}/produtos/${created.body.id}`, {}, { ifMatch: etag }),
        'link',
      ).headers.get('etag')!;
    }
    products.push(created.body.id);
    if (planned.selected) selected.push(created.body.id);
  }
  const view = ok(await l.api.get('/v1/empresa/vigilancia'), 'view');
  ok(
    await l.api.patch(
      '/v1/empresa/vigilancia',
      { modo: p.modo, adicionar: selected },
      { ifMatch: view.headers.get('etag')! },
    ),
    'selection',
  );
  l.emu.companies.update(l.company.companyId, { surveillanceCapacity: p.capacity, surveillanceEntitled: p.entitled });
  return { l, catalogs, target: catalogs[p.target % catalogs.length]!, products };
}

const previewEtag = async (l: Lab, catalogId: string): Promise<string> =>
  ok(await l.api.get(`/v1/catalogos/${catalogId}/impacto-exclusao`), 'preview').headers.get('etag')!;
const etagOf = async (l: Lab, path: string): Promise<string> => ok(await l.api.get(path), path).headers.get('etag')!;
const pickOf = <T>(items: readonly T[], pick: number): T | undefined =>
  items.length === 0 ? undefined : items[pick % items.length];

async function productView(l: Lab, id: string): Promise<{ catalogos: string[]; etag: string }> {
  const answer = ok(await l.api.get(`/v1/produtos/${id}`), 'product');
  return { catalogos: answer.body.catalogos, etag: answer.headers.get('etag')! };
}

/** A change the preview of `b.target` depends on. Falls back to a product created here when the pick has nothing to act on. */
async function applyChange(b: Built, change: Change, pick: number): Promise<string> {
  const { l, target } = b;
  const views = await Promise.all(b.products.map(async (id) => ({ id, ...(await productView(l, id)) })));
  const linked = views.filter((v) => v.catalogos.includes(target));
  const others = b.catalogs.filter((c) => c !== target);
  const productHere = async () => {
    ok(await l.api.post(`/v1/catalogos/${target}/produtos`, { origem: 'erp', ncm: '84713012' }), 'product here');
    return 'productHere';
  };
  switch (change) {
    case 'editLinked': {
      const p = pickOf(linked, pick);
      if (!p) return productHere();
      ok(await l.api.patch(`/v1/produtos/${p.id}`, { descricao: `mudou ${pick}` }, { ifMatch: p.etag }), 'edit');
      return change;
    }
    case 'linkElsewhere': {
      const candidates = linked.flatMap((p) => others.filter((c) => !p.catalogos.includes(c)).map((c) => ({ p, c })));
      const chosen = pickOf(candidates, pick);
      if (!chosen) return productHere();
      ok(await l.api.put(`/v1/catalogos/${chosen.c}/produtos/${chosen.p.id}`, {}, { ifMatch: chosen.p.etag }), 'link');
      return change;
    }
    case 'unlinkHere': {
      const p = pickOf(linked, pick);
      if (!p) return productHere();
      ok(await l.api.delete(`/v1/catalogos/${target}/produtos/${p.id}`, {}, { ifMatch: p.etag }), 'unlink here');
      return change;
    }
    case 'unlinkElsewhere': {
      const candidates = linked.flatMap((p) => p.catalogos.filter((c) => c !== target).map((c) => ({ p, c })));
      const chosen = pickOf(candidates, pick);
      if (!chosen) return productHere();
      ok(
        await l.api.delete(`/v1/catalogos/${chosen.c}/produtos/${chosen.p.id}`, {}, { ifMatch: chosen.p.etag }),
        'unlink elsewhere',
      );
      return change;
    }
    case 'productHere':
      return productHere();
    case 'productElsewhere': {
      const c = pickOf(others, pick);
      if (!c) return productHere();
      ok(await l.api.post(`/v1/catalogos/${c}/produtos`, { origem: 'erp', ncm: '84713012' }), 'product elsewhere');
      return change;
    }
    case 'renameCatalog':
      ok(
        await l.api.patch(
          `/v1/catalogos/${target}`,
          { nome: `Renomeado ${pick}` },
          { ifMatch: await etagOf(l, `/v1/catalogos/${target}`) },
        ),
        'rename',
      );
      return change;
    case 'selection': {
      // The same selection under the mode that fits the capacity now; if none fits, the capacity moves instead.
      const view = ok(await l.api.get('/v1/empresa/vigilancia'), 'view');
      for (const modo of [view.body.modo, view.body.modo === 'todos' ? 'selecao' : 'todos']) {
        const answer = await l.api.patch('/v1/empresa/vigilancia', { modo }, { ifMatch: view.headers.get('etag')! });
        if (answer.status === 200) return change;
        expect(answer.status, answer.text).toBe(409);
      }
      l.emu.companies.update(l.company.companyId, { surveillanceCapacity: view.body.capacidade + 1 });
      return 'capacity';
    }
    case 'capacity': {
      const capacidade = ok(await l.api.get('/v1/empresa/vigilancia'), 'view').body.capacidade;
      l.emu.companies.update(l.company.companyId, { surveillanceCapacity: capacidade + 1 + (pick % 3) });
      return change;
    }
    case 'entitlement': {
      const entitled = ok(await l.api.get('/v1/empresa/vigilancia'), 'view').body.direito_ativo;
      l.emu.companies.update(l.company.companyId, { surveillanceEntitled: !entitled });
      return change;
    }
  }
}

/** Prepares the refused DELETE (everything that may change the state happens here) and says what it must answer. */
async function prepare(
  b: Built,
  r: Refusal,
): Promise<{ send: () => Promise<Answer>; status: number; codigo: string; gone: boolean; label: string }> {
  const { l, target } = b;
  const path = `/v1/catalogos/${target}`;
  const preview = await previewEtag(l, target);
  switch (r.kind) {
    case 'stale': {
      const done = await applyChange(b, r.change, r.pick);
      const fresh = await previewEtag(l, target);
      expect(fresh, `the preview's ETag moves after ${done}`).not.toBe(preview);
      return {
        send: () => l.api.delete(path, {}, { ifMatch: preview }),
        status: 412,
        codigo: 'precondicao_falhou',
        gone: false,
        label: `stale after ${done}`,
      };
    }
    case 'noIfMatch':
      return {
        send: () => l.api.delete(path, {}),
        status: 428,
        codigo: 'precondicao_ausente',
        gone: false,
        label: 'no If-Match',
      };
    case 'deleted': {
      const done = ok(await l.api.delete(path, {}, { ifMatch: preview }), 'deletion');
      const ifMatch = [preview, done.headers.get('etag')!, '"x0000000000000000"'][r.variant % 3]!;
      return {
        send: () => l.api.delete(path, {}, { ifMatch }),
        status: 409,
        codigo: 'catalogo_excluido',
        gone: true,
        label: `deleted, If-Match ${r.variant % 3}`,
      };
    }
    case 'wrongEtag': {
      const candidates: (() => Promise<string>)[] = [
        () => etagOf(l, path),
        async () =>
          b.products.length === 0 ? '"x0000000000000000"' : etagOf(l, `/v1/produtos/${pickOf(b.products, r.pick)}`),
        () => etagOf(l, '/v1/empresa/vigilancia'),
        async () => {
          const other = pickOf(
            b.catalogs.filter((c) => c !== target),
            r.pick,
          );
          return other === undefined ? '"x0000000000000001"' : previewEtag(l, other);
        },
        async () => `"x${((r.pick * 2654435761) >>> 0).toString(16).padStart(16, '0')}"`,
      ];
      const ifMatch = await candidates[r.variant % candidates.length]!();
      expect(ifMatch).not.toBe(preview);
      return {
        send: () => l.api.delete(path, {}, { ifMatch }),
        status: 412,
        codigo: 'precondicao_falhou',
        gone: false,
        label: `wrong ETag ${r.variant % candidates.length}`,
      };
    }
    case 'otherCompany': {
      const other = l.emu.companies.create();
      return {
        send: () => new Api(l.target, other.token).delete(path, {}, { ifMatch: preview }),
        status: 404,
        codigo: 'catalogo_nao_encontrado',
        gone: false,
        label: 'another company',
      };
    }
    case 'readOnly': {
      const { token } = l.emu.companies.addCredential(l.company.companyId, [
        'catalogo:ler',
        'vigilancia:gerenciar',
        'estabelecimento:gerenciar',
      ]);
      return {
        send: () => new Api(l.target, token).delete(path, {}, { ifMatch: preview }),
        status: 403,
        codigo: 'permissao_insuficiente',
        gone: false,
        label: 'read-only credential',
      };
    }
  }
}

describe('refused catalog deletion', { timeout: PROPERTY_TIMEOUT }, () => {
  // spec: CAT-38
  it('a refused deletion changes nothing: a DELETE answered 4xx leaves emu.snapshot().state and .random identical', async () => {
    await fc.assert(
      fc.asyncProperty(plan, refusal, async (p, r) => {
        const b = await build(p);
        const { l, target } = b;
        const refused = await prepare(b, r);
        const before = stateAndRandom(l.emu);
        const answer = await refused.send();
        const after = stateAndRandom(l.emu);
        expect(answer.status, `${refused.label}: ${answer.text}`).toBe(refused.status);
        expect(answer.body.erro.codigo, refused.label).toBe(refused.codigo);
        expect(after === before, `${refused.label} answered ${answer.status} and changed the state`).toBe(true);
        if (!refused.gone) {
          // Nothing was left half done: the catalog is active and a fresh preview deletes it.
          const fresh = await previewEtag(l, target);
          const deleted = await l.api.delete(`/v1/catalogos/${target}`, {}, { ifMatch: fresh });
          expect(deleted.status, deleted.text).toBe(200);
        }
      }),
      { numRuns: runs(300) },
    );
  });
});
