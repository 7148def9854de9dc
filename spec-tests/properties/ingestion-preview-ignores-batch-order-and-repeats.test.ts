/**
 * Property: an ingestion's preview ignores the order batches arrive in and their repeats (docs/batch-ingestion.md
 * "Batches", "Close and validate").
 *
 * Two companies on one emulator get the same random starting catalog. Company A receives a random sequence
 * of batch PUTs: every batch in a random order, some repeated (as sent, or the same JSON with its keys in
 * another order and white space), some re-sent under their number with other content; sometimes a batch
 * never arrives, sometimes total_lotes names one more batch than was generated. Records are mostly valid,
 * sometimes invalid, and their id_externo come from a small pool, so that repeats across batches happen.
 * Each PUT must answer by the contract:
 *
 *   - the first arrival of a number: 201 {ingestao_id, numero, itens, repetido: false, erros} (erros located
 *     at that batch), and the ingestion's ETag moves;
 *   - the same content again: 200 with the first answer's body and repetido: true, the ETag unchanged;
 *   - other content under a received number: 409 lote_divergente (caminho path.numero), and the emulator's
 *     state and seeded id source exactly as they were.
 *
 * After close and validation, A's ingestion (estado, codigo_falha, lotes_recebidos, itens_recebidos,
 * total_lotes) and preview (every count, lotes_faltantes, versao_catalogo, and every error, read through all
 * pages at a random `limite`) equal those of company B, which received only the accepted batches, each once,
 * in ascending order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectError } from '../support/expect.js';
import type { Api } from '../support/client.js';
import { PROPERTY_TIMEOUT, runs, stateAndRandom } from './support/lab.js';
import {
  allProducts,
  build,
  closeAndValidate,
  fullIngestion,
  ingestionLab,
  OPERACOES,
  ok,
  recordItem,
  recordSpecArb,
  secondCompany,
  seedArb,
  startIngestion,
  type Operacao,
  type ProductView,
  type RecordSpec,
  type SeedProduct,
} from './support/ingestion.js';

/** Invalid items: one or more problems each (an id_externo from the pool where it has one). */
const INVALID = [
  (id: string) => ({ id_externo: id, origem: 'erp', ncm: '1234' }),
  (id: string) => ({ id_externo: id, ncm: '84713012' }),
  (id: string) => ({ id_externo: id, origem: 'erp', ncm: '84713012', extra: 1 }),
  (id: string) => ({
    id_externo: id,
    origem: 'erp',
    ncm: '84713012',
    atributos: [
      { codigo: 'A', valores: ['1'] },
      { codigo: 'B', valores: [] },
    ],
  }),
  () => ({ id_externo: '', origem: 'erp', ncm: '84713012' }),
  () => ({ origem: 'erp', ncm: '84713012' }),
  () => 42,
  (id: string) => ({ id_externo: id, origem: '', ncm: 'x', sku: '', descricao: null }),
] as const;

type ItemSpec = { readonly valid: RecordSpec } | { readonly invalid: number; readonly id: number };

const itemSpec: fc.Arbitrary<ItemSpec> = fc.oneof(
  { weight: 12, arbitrary: recordSpecArb(4).map((valid) => ({ valid })) },
  { weight: 1, arbitrary: fc.record({ invalid: fc.nat(INVALID.length - 1), id: fc.nat(9) }) },
);
const itemsArb = fc.array(itemSpec, { minLength: 1, maxLength: 4 });

type Variant = 'original' | 'conflict' | 'reformatted';

interface Case {
  readonly seed: readonly SeedProduct[];
  readonly operacao: Operacao;
  /** Batch i is number i + 1: its content, and other content for the same number. */
  readonly batches: readonly {
    readonly items: readonly ItemSpec[];
    readonly other: readonly ItemSpec[];
    readonly first: Variant;
    readonly sent: boolean;
  }[];
  /** Repeats, after every batch's first send (then everything is shuffled by `order`). */
  readonly extra: readonly { readonly batch: number; readonly variant: Variant }[];
  readonly order: readonly number[];
  readonly moreTotal: boolean;
  readonly limite: number;
}

const variant = fc.constantFrom<Variant>('original', 'original', 'reformatted', 'conflict');

const caseArb: fc.Arbitrary<Case> = fc.record({
  seed: seedArb.map((s) => s.slice(0, 5)),
  operacao: fc.constantFrom(...OPERACOES),
  batches: fc.array(
    fc.record({ items: itemsArb, other: itemsArb, first: variant, sent: fc.nat(9).map((n) => n > 0) }),
    { minLength: 1, maxLength: 4 },
  ),
  extra: fc.array(fc.record({ batch: fc.nat(3), variant }), { maxLength: 6 }),
  order: fc.array(fc.integer(), { minLength: 10, maxLength: 10 }),
  moreTotal: fc.nat(5).map((n) => n === 0),
  limite: fc.integer({ min: 1, max: 4 }),
});

/** JSON with keys sorted and no white space: what "the same content" compares. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The same value with every object's keys in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .reverse()
        .map(([k, v]) => [k, reversedKeys(v)]),
    );
  return value;
}

function itemOfSpec(seed: readonly SeedProduct[], products: readonly ProductView[], spec: ItemSpec): unknown {
  if ('valid' in spec) return recordItem(seed, products, spec.valid);
  const id = spec.id < 5 && seed.length > 0 ? `P${spec.id % seed.length}` : `N${spec.id % 4}`;
  return INVALID[spec.invalid]!(id);
}

const putBatch = (api: Api, id: string, numero: number, body: { itens: unknown[] }, reformatted: boolean) =>
  reformatted
    ? api.put(`/v1/catalogos/ingestoes/${id}/lotes/${numero}`, undefined, {
        raw: ` ${JSON.stringify(reversedKeys(body), null, 2)}\n`,
        headers: { 'content-type': 'application/json' },
      })
    : api.put(`/v1/catalogos/ingestoes/${id}/lotes/${numero}`, body);

describe('ingestion preview', { timeout: PROPERTY_TIMEOUT }, () => {
  it('is the preview of the distinct accepted batches, whatever their arrival order, repeats and refused re-sends', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const l = ingestionLab();
        const b = secondCompany(l);
        const a = await build(l.api, l.company.headOffice.id, l.company.cnpjRoot, c.seed);
        const ref = await build(b.api, b.headOffice, b.cnpjRoot, c.seed);
        const products = await allProducts(a.api);

        const contents = c.batches.map((batch) => {
          const original = { itens: batch.items.map((s) => itemOfSpec(c.seed, products, s)) };
          let other = { itens: batch.other.map((s) => itemOfSpec(c.seed, products, s)) };
          if (canonical(other) === canonical(original))
            other = { itens: [...original.itens, { id_externo: 'OUTRO', origem: 'erp', ncm: '84713012' }] };
          return { original, other };
        });
        const sends = [
          ...c.batches.flatMap((batch, i) => (batch.sent ? [{ batch: i, variant: batch.first }] : [])),
          ...c.extra.map((e) => ({ batch: e.batch % c.batches.length, variant: e.variant })),
        ]
          .map((s, i) => ({ ...s, key: c.order[i % c.order.length]! }))
          .sort((x, y) => x.key - y.key);

        const id = await startIngestion(a.api, a.target, c.operacao);
        let etag = ok(await a.api.get(`/v1/catalogos/ingestoes/${id}`), 'ingestion').headers.get('etag')!;
        const accepted = new Map<number, { body: { itens: unknown[] }; answer: Record<string, unknown> }>();
        for (const send of sends) {
          const numero = send.batch + 1;
          const { original, other } = contents[send.batch]!;
          const body = send.variant === 'conflict' ? other : original;
          const first = accepted.get(numero);
          if (first === undefined) {
            const answer = await putBatch(a.api, id, numero, body, send.variant === 'reformatted');
            expect(answer.status, answer.text).toBe(201);
            expect(answer.body).toMatchObject({ ingestao_id: id, numero, itens: body.itens.length, repetido: false });
            // Every invalid item has errors, located in this batch at its index; the valid ones none.
            const specs = send.variant === 'conflict' ? c.batches[send.batch]!.other : c.batches[send.batch]!.items;
            const invalid = specs.flatMap((spec, i) => ('valid' in spec ? [] : [i]));
            expect(
              answer.body.erros.every(
                (e: { lote: number; caminho: string; indice: number }) =>
                  e.lote === numero && e.caminho.startsWith(`body.itens[${e.indice}]`),
              ),
            ).toBe(true);
            expect([...new Set(answer.body.erros.map((e: { indice: number }) => e.indice))]).toEqual(invalid);
            expect(answer.headers.get('etag')).not.toBe(etag);
            etag = answer.headers.get('etag')!;
            accepted.set(numero, { body, answer: answer.body });
          } else if (canonical(first.body) === canonical(body)) {
            const answer = await putBatch(a.api, id, numero, body, send.variant === 'reformatted');
            expect(answer.status, answer.text).toBe(200);
            expect(answer.body).toEqual({ ...first.answer, repetido: true });
            expect(answer.headers.get('etag')).toBe(etag);
          } else {
            const state = stateAndRandom(l.emu);
            const answer = await putBatch(a.api, id, numero, body, send.variant === 'reformatted');
            expectError(answer, 409, 'lote_divergente', 'path.numero');
            expect(stateAndRandom(l.emu) === state, 'a refused batch changed the state').toBe(true);
          }
        }
        const totalLotes = c.batches.length + (c.moreTotal ? 1 : 0);
        await closeAndValidate(l, a.api, id, totalLotes);
        const got = await fullIngestion(a.api, id, c.limite);

        // The reference: the accepted batches alone, each once, in ascending order.
        const refId = await startIngestion(b.api, ref.target, c.operacao);
        for (const numero of [...accepted.keys()].sort((x, y) => x - y)) {
          const answer = await b.api.put(
            `/v1/catalogos/ingestoes/${refId}/lotes/${numero}`,
            accepted.get(numero)!.body,
          );
          expect(answer.status, answer.text).toBe(201);
          expect(answer.body).toEqual({ ...accepted.get(numero)!.answer, ingestao_id: refId });
        }
        await closeAndValidate(l, b.api, refId, totalLotes);
        const want = await fullIngestion(b.api, refId, 1000);

        const comparable = (i: Record<string, unknown>) => ({
          estado: i.estado,
          codigo_falha: i.codigo_falha,
          lotes_recebidos: i.lotes_recebidos,
          itens_recebidos: i.itens_recebidos,
          total_lotes: i.total_lotes,
        });
        expect(comparable(got.ingestion)).toEqual(comparable(want.ingestion));
        expect(got.ingestion.lotes_recebidos).toEqual([...accepted.keys()].sort((x, y) => x - y));
        expect(got.previa).not.toBeNull();
        expect(got.previa).toEqual(want.previa);
        expect((got.previa!.erros as unknown[]).length).toBe(got.previa!.total_erros);
      }),
      { numRuns: runs(150) },
    );
  });
});
