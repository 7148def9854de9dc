/**
 * Property: paging with any limite (1–200) and any page byte budget visits every item exactly once.
 *
 * For the four lists (catalogs, establishments, the company's products, a catalog's products), with random
 * small byte budgets (createEmulator({pageBudgets})), a random limite and random inserts between pages
 * (and unlinks, for a catalog's products), a walk from the first page to proximo_id / proximo_cursor = null:
 *   - sees every item present from the start to the end of the walk exactly once, and no item twice;
 *   - sees items in list order (creation order; link order for a catalog's products);
 *   - never gets an empty page unless the list is empty, or items after the cursor were removed meanwhile;
 *   - gets a null cursor only on the last page: after it, nothing present from the start is left unseen;
 *   - gets pages of at most limite items, within the budget unless the page holds a single item, and cut
 *     short of limite only when the next item would not have fitted the budget.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Answer } from '../support/client.js';
import { cnpjOfNumber } from '../support/cnpj.js';
import { lab, PROPERTY_TIMEOUT, runs, type Lab } from './support/lab.js';

type ListKind = 'catalogs' | 'establishments' | 'products' | 'catalogProducts';

/** Between two pages: insert some items, and for a catalog's products unlink some. */
interface Between {
  readonly inserts: number;
  readonly unlinks: readonly number[];
  readonly linkExisting: boolean;
}

interface Plan {
  readonly initial: number;
  readonly limite: number;
  readonly budget: number;
  /** Sizes of the names/descriptions, so items weigh differently against the budget. */
  readonly sizes: readonly number[];
  readonly between: readonly Between[];
}

const plan: fc.Arbitrary<Plan> = fc.record({
  initial: fc.integer({ min: 0, max: 30 }),
  limite: fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 200 })),
  budget: fc.oneof(fc.integer({ min: 1, max: 600 }), fc.integer({ min: 300, max: 4000 }), fc.constant(256 * 1024)),
  sizes: fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 8 }),
  between: fc.array(
    fc.record({
      inserts: fc.integer({ min: 0, max: 3 }),
      unlinks: fc.array(fc.nat(), { maxLength: 2 }),
      linkExisting: fc.boolean(),
    }),
    { maxLength: 30, size: 'max' },
  ),
});

/** Creates items of one list in one company, and reads its pages. */
class ListUnderTest {
  private counter = 0;
  private order = 2;
  private catalogId: string | undefined;
  /** Products of another catalog, never linked to the catalog under test: linking one is an insert. */
  private spare: string[] = [];
  readonly removed = new Set<string>();

  constructor(
    readonly lab: Lab,
    readonly kind: ListKind,
    readonly sizes: readonly number[],
  ) {}

  private size(): number {
    return this.sizes[this.counter++ % this.sizes.length]!;
  }

  private async ok(answer: Promise<Answer>, status = 201): Promise<Answer> {
    const a = await answer;
    if (a.status !== status) throw new Error(`setup answered ${a.status}: ${a.text}`);
    return a;
  }

  private async establishment(): Promise<string> {
    const cnpj = cnpjOfNumber(this.lab.company.cnpjRoot, this.order++);
    return (
      await this.ok(this.lab.api.post('/v1/estabelecimentos', { cnpj, nome: 'E'.repeat(Math.min(this.size(), 120)) }))
    ).body.id;
  }

  private async catalog(): Promise<string> {
    const establishment = await this.establishment();
    return (
      await this.ok(
        this.lab.api.post('/v1/catalogos', {
          estabelecimento_id: establishment,
          nome: 'C'.repeat(Math.min(this.size(), 120)),
        }),
      )
    ).body.id;
  }

  private async product(catalogId: string): Promise<string> {
    return (
      await this.ok(
        this.lab.api.post(`/v1/catalogos/${catalogId}/produtos`, {
          origem: 'erp',
          ncm: '84713012',
          descricao: 'p'.repeat(this.size()),
        }),
      )
    ).body.id;
  }

  async setup(): Promise<void> {
    if (this.kind === 'products' || this.kind === 'catalogProducts') this.catalogId = await this.catalog();
    if (this.kind === 'catalogProducts') {
      const other = await this.catalog();
      for (let i = 0; i < 3; i++) this.spare.push(await this.product(other));
    }
  }

  /** Adds one item to the list; its id. */
  async insert(linkExisting: boolean): Promise<string> {
    switch (this.kind) {
      case 'establishments':
        return this.establishment();
      case 'catalogs':
        return this.catalog();
      case 'products':
        return this.product(this.catalogId!);
      case 'catalogProducts': {
        const spare = linkExisting ? this.spare.pop() : undefined;
        if (spare === undefined) return this.product(this.catalogId!);
        const etag = (await this.ok(this.lab.api.get(`/v1/produtos/${spare}`), 200)).headers.get('etag')!;
        await this.ok(
          this.lab.api.put(`/v1/catalogos/${this.catalogId}/produtos/${spare}`, undefined, { ifMatch: etag }),
          200,
        );
        return spare;
      }
    }
  }

  /** Unlinks one of `present` from the catalog under test; its id. */
  async unlink(present: readonly string[], pick: number): Promise<string | undefined> {
    if (this.kind !== 'catalogProducts' || present.length === 0) return undefined;
    const id = present[pick % present.length]!;
    const etag = (await this.ok(this.lab.api.get(`/v1/produtos/${id}`), 200)).headers.get('etag')!;
    await this.ok(
      this.lab.api.delete(`/v1/catalogos/${this.catalogId}/produtos/${id}`, undefined, { ifMatch: etag }),
      200,
    );
    this.removed.add(id);
    return id;
  }

  /** One page of the list after `cursor`. */
  async page(
    limite: number,
    cursor: string | null,
  ): Promise<{ ids: string[]; next: string | null; arrayBytes: number; answer: Answer }> {
    const base =
      this.kind === 'establishments'
        ? '/v1/estabelecimentos'
        : this.kind === 'catalogs'
          ? '/v1/catalogos'
          : this.kind === 'products'
            ? '/v1/produtos'
            : `/v1/catalogos/${this.catalogId}/produtos`;
    const cursorParam = this.kind === 'establishments' || this.kind === 'catalogs' ? 'apos_id' : 'cursor';
    const answer = await this.lab.api.get(
      `${base}?limite=${limite}${cursor === null ? '' : `&${cursorParam}=${encodeURIComponent(cursor)}`}`,
    );
    if (answer.status !== 200) throw new Error(`page answered ${answer.status}: ${answer.text}`);
    const next = cursorParam === 'apos_id' ? answer.body.proximo_id : answer.body.proximo_cursor;
    const start = answer.text.indexOf('[');
    const end = answer.text.lastIndexOf(']');
    return {
      ids: (answer.body.itens as { id: string }[]).map((i) => i.id),
      next,
      arrayBytes: Buffer.byteLength(answer.text.slice(start, end + 1)),
      answer,
    };
  }
}

async function walk(kind: ListKind, p: Plan): Promise<void> {
  const l = lab({ pageBudgets: { catalogs: p.budget, establishments: p.budget, products: p.budget } });
  const list = new ListUnderTest(l, kind, p.sizes);
  await list.setup();

  // The list at the start, from what the setup created (the head office is the first establishment).
  const reference: string[] = kind === 'establishments' ? [l.company.headOffice.id] : [];
  for (let i = 0; i < p.initial; i++) reference.push(await list.insert(false));
  const atStart = new Set(reference);

  const order = new Map(reference.map((id, i) => [id, i] as const));
  let nextOrder = reference.length;
  const present = new Set(reference);
  const seen: string[] = [];
  const seenSet = new Set<string>();
  let cursor: string | null = null;
  let removedSinceLastPage = false;
  let previous: { count: number; arrayBytes: number } | undefined;
  for (let pageNumber = 0; ; pageNumber++) {
    const page = await list.page(p.limite, cursor);
    expect(page.ids.length, `page ${pageNumber} exceeds limite ${p.limite}`).toBeLessThanOrEqual(p.limite);
    if (page.ids.length > 1)
      expect(
        page.arrayBytes,
        `page ${pageNumber} of ${page.ids.length} items exceeds the budget ${p.budget}`,
      ).toBeLessThanOrEqual(p.budget);
    // A page that stopped before limite did so because the next item would not fit in the budget.
    if (previous && previous.count < p.limite && !removedSinceLastPage && page.ids.length > 0) {
      const nextBytes = Buffer.byteLength(JSON.stringify(page.answer.body.itens[0]));
      expect(
        previous.arrayBytes + 1 + nextBytes,
        `page ${pageNumber - 1} stopped at ${previous.count} items though the next one fit the budget ${p.budget}`,
      ).toBeGreaterThan(p.budget);
    }
    previous = { count: page.ids.length, arrayBytes: page.arrayBytes };
    if (page.ids.length === 0) {
      expect(
        pageNumber === 0 ? present.size === 0 : removedSinceLastPage,
        `page ${pageNumber} is empty though items remain: ${page.answer.text}`,
      ).toBe(true);
      expect(page.next).toBeNull();
    }
    // Plain checks, not expect(): an expect() call costs far more than the check, and this runs for every item seen.
    for (const id of page.ids) {
      if (seenSet.has(id)) expect.fail(`item ${id} seen twice (page ${pageNumber})`);
      if (!present.has(id)) expect.fail(`page ${pageNumber} lists ${id}, which is not in the list`);
      const last = seen.at(-1);
      if (last !== undefined && !(order.get(id)! > order.get(last)!))
        expect.fail(`item ${id} comes before ${last}, seen earlier`);
      seen.push(id);
      seenSet.add(id);
    }
    cursor = page.next;
    if (cursor === null) break;
    expect(pageNumber, 'the walk does not end').toBeLessThan(2000);

    removedSinceLastPage = false;
    const between = p.between[pageNumber];
    if (between) {
      for (let i = 0; i < between.inserts; i++) {
        const id = await list.insert(between.linkExisting);
        present.add(id);
        order.set(id, nextOrder++);
      }
      for (const pick of between.unlinks) {
        const id = await list.unlink([...present], pick);
        if (id !== undefined) {
          present.delete(id);
          removedSinceLastPage = true;
        }
      }
    }
  }

  for (const id of atStart)
    if (!list.removed.has(id))
      expect(seenSet.has(id), `item ${id}, present from start to end, was never seen`).toBe(true);
}

describe('paging', { timeout: PROPERTY_TIMEOUT }, () => {
  for (const kind of ['catalogs', 'establishments', 'products', 'catalogProducts'] as const) {
    // spec: CAT-13, LIM-14
    it(`${kind}: any limite and page budget, with inserts${kind === 'catalogProducts' ? ' and unlinks' : ''} between pages, visits every lasting item exactly once, in order`, async () => {
      await fc.assert(
        fc.asyncProperty(plan, (p) => walk(kind, p)),
        { numRuns: runs(200) },
      );
    });
  }
});
