/**
 * Property: a surveillance execution reuses a watched product's findings exactly when the product's versao
 * and its rules fingerprint are those of its previous evaluation, and findings never change once published
 * (spec "Surveillance finding": reaproveitado, reused findings keep the date and snapshot of the effective
 * evaluation, findings are immutable; docs/api.md "Surveillance executions").
 *
 * Random sequences of product edits (descricao, ncm, atributos), publications of the regulatory reference
 * (extinguir, obrigatorios, atributos definitions), selection changes (additions, removals, mode todos and
 * back) and clock moves (a few seconds or minutes, the 1 min + 10 s of a run, the next daily boundary and its
 * run). Nothing changes products or the reference while the clock moves, so an execution that concludes
 * within a clock move saw the products and the reference as they were just before it. The model keeps, per
 * product, its last fresh evaluation: (versao, the rules it read from the reference then in force, findings).
 * After every clock move, each execution that concluded in it (in conclusion order) must show, for every
 * watched product in watch order:
 *
 *   - when (versao, fingerprint) equal the remembered ones: the remembered findings, reaproveitado true, with
 *     their original avaliado_em and snapshot_id;
 *   - otherwise: exactly the findings of the rules (spec-tests/support/rules.ts, written from docs/api.md),
 *     reaproveitado false, stamped with terminada_em and the reference's id (and the model remembers that
 *     evaluation);
 *
 * and its resumo the counts (produtos_avaliados, produtos_reaproveitados, total_achados, snapshot_id).
 * A publication opens one execution (motivo publicacao) exactly when a watched product's NCM is in afetadas
 * or it carries an attribute in atributosAlterados; a daily boundary opens one (agendada) exactly when the
 * company watches something. At the end every concluded execution's detail and /resultados read as they did
 * when first read.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Answer } from '../support/client.js';
import { expectedFindings, rulesRead, type ReferenceView } from '../support/rules.js';
import { lab, PROPERTY_TIMEOUT, runs, type Lab } from './support/lab.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;
const START = MINUTE;
const RUN = 10 * SECOND;
const VIGILANCIAS = '/v1/vigilancias';
const SELECTION = '/v1/empresa/vigilancia';

/** NCMs of the shipped table (each with required attributes) and one not in it. */
const NCMS = ['87081000', '22030000', '84713012', '99999999'] as const;
/** Attribute codes: domains (embalagem, voltagem), free text (teor alcoólico, número de peça), and one not in the dictionary at first. */
const ATTRIBUTES = ['ATT_0001', 'ATT_0005', 'ATT_0010', 'ATT_0028', 'ATT_0901'] as const;
const VALUES = ['caixa', 'lata', '220V', 'bivolt', 'x'] as const;
const DOMAINS = [null, ['x'], ['x', 'caixa'], ['220V', 'bivolt'], ['caixa', 'lata', 'garrafa']] as const;

type Atributos = { codigo: string; valores: string[] }[];

const atributos: fc.Arbitrary<Atributos> = fc
  .subarray([...ATTRIBUTES], { maxLength: 4 })
  .chain((codes) =>
    fc.tuple(
      ...codes.map((codigo) =>
        fc.subarray([...VALUES], { minLength: 1, maxLength: 2 }).map((valores) => ({ codigo, valores })),
      ),
    ),
  )
  .map((list) => [...list]);

const fields = fc.record(
  { descricao: fc.constantFrom(null, 'Produto', '  '), ncm: fc.constantFrom(...NCMS), atributos },
  { requiredKeys: [] },
);

type Step =
  | {
      readonly t: 'edit';
      readonly product: number;
      readonly sku: string;
      readonly changes: { descricao?: string | null; ncm?: string; atributos?: Atributos };
    }
  | { readonly t: 'extinguir'; readonly ncm: number }
  | { readonly t: 'obrigatorios'; readonly ncm: number; readonly required: readonly string[] }
  | { readonly t: 'atributo'; readonly attribute: number; readonly nome: string; readonly dominio: number }
  | { readonly t: 'select'; readonly add: readonly number[]; readonly remove: readonly number[] }
  | { readonly t: 'mode'; readonly modo: 'selecao' | 'todos' }
  | { readonly t: 'clock'; readonly ms: number }
  | { readonly t: 'day' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant('edit' as const),
      product: fc.nat(5),
      sku: fc.constantFrom('A', 'B', 'C'),
      changes: fields,
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('extinguir' as const), ncm: fc.nat(NCMS.length - 2) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('obrigatorios' as const),
      ncm: fc.nat(NCMS.length - 2),
      required: fc.subarray([...ATTRIBUTES], { maxLength: 3 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('atributo' as const),
      attribute: fc.nat(ATTRIBUTES.length - 1),
      nome: fc.constantFrom('Nome A', 'Nome B'),
      dominio: fc.nat(DOMAINS.length - 1),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('select' as const),
      add: fc.array(fc.nat(5), { maxLength: 3 }),
      remove: fc.array(fc.nat(5), { maxLength: 2 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('mode' as const),
      modo: fc.constantFrom('selecao' as const, 'todos' as const),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant('clock' as const),
      ms: fc.oneof(
        fc.constantFrom(0, START, START + RUN, START + RUN - 1, RUN),
        fc.integer({ min: 0, max: 3 * MINUTE }),
      ),
    }),
  },
  { weight: 2, arbitrary: fc.constant<Step>({ t: 'day' }) },
);

interface WireProduct {
  id: string;
  versao: number;
  ncm: string;
  descricao: string | null;
  atributos: Atributos;
}

interface WireFinding {
  produto_id: string;
  ncm: string;
  tipo: string;
  detalhe: string;
  avaliado_em: string;
  snapshot_id: string;
  reaproveitado: boolean;
}

interface Remembered {
  readonly versao: number;
  readonly fingerprint: string;
  readonly findings: readonly WireFinding[];
}

/** What an execution concluding during the next clock move sees: the watched products and the reference. */
interface Before {
  readonly watched: readonly WireProduct[];
  readonly reference: ReferenceView;
}

const iso = (ms: number) => new Date(ms).toISOString();

function expectStatus(answer: Answer, status: number, what: string): void {
  expect(answer.status, `${what}: ${answer.text}`).toBe(status);
}

async function watchedProducts(l: Lab): Promise<WireProduct[]> {
  const answer = await l.api.get(`${SELECTION}/produtos?limite=200`);
  expectStatus(answer, 200, 'GET watched products');
  expect(answer.body.proximo_cursor).toBeNull();
  return answer.body.itens;
}

async function before(l: Lab): Promise<Before> {
  return { watched: await watchedProducts(l), reference: l.emu.regulatory.current() };
}

interface ListItem {
  id: string;
  estado: string;
  criada_em: string;
}

/** Every execution, oldest first. */
async function executions(l: Lab): Promise<ListItem[]> {
  const answer = await l.api.get(`${VIGILANCIAS}?limite=100`);
  expectStatus(answer, 200, 'GET /v1/vigilancias');
  expect(answer.body.proximo_cursor).toBeNull();
  return [...answer.body.itens].reverse();
}

async function selectionChange(l: Lab, body: Record<string, unknown>): Promise<void> {
  const view = await l.api.get(SELECTION);
  expectStatus(view, 200, 'GET selection');
  expectStatus(
    await l.api.patch(SELECTION, body, { ifMatch: view.headers.get('etag')! }),
    200,
    `PATCH selection ${JSON.stringify(body)}`,
  );
}

describe('property: surveillance findings are reused exactly when the product and its rules are unchanged', () => {
  // spec: SURV-25
  it(
    "reaproveitado exactly when (versao, rules fingerprint) equal the previous evaluation's; fresh findings are the rules'; published findings never change",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fields, { minLength: 1, maxLength: 6 }),
          fc.array(fc.nat(5), { maxLength: 6 }),
          fc.array(step, { minLength: 1, maxLength: 25 }),
          async (initial, selected, steps) => {
            const l = lab();
            const start = l.emu.clock.now().getTime();
            const catalog = await l.api.post('/v1/catalogos', {
              estabelecimento_id: l.company.headOffice.id,
              nome: 'Loja',
            });
            expectStatus(catalog, 201, 'POST /v1/catalogos');
            const ids: string[] = [];
            for (const f of initial) {
              const created = await l.api.post(`/v1/catalogos/${catalog.body.id}/produtos`, {
                origem: 'erp',
                ncm: NCMS[0],
                ...f,
              });
              expectStatus(created, 201, 'POST produto');
              ids.push(created.body.id);
            }
            const pick = (i: number) => ids[i % ids.length]!;
            if (selected.length > 0)
              await selectionChange(l, { modo: 'selecao', adicionar: [...new Set(selected.map(pick))] });

            const remembered = new Map<string, Remembered>();
            const checked = new Set<string>();
            /** The detail and /resultados texts of each concluded execution as first read. */
            const firstRead = new Map<string, { detail: string; results: string }>();

            /** Checks every execution that concluded since the last check against the model; `seen` is the state before the move. */
            const checkConcluded = async (seen: Before) => {
              const concluded: { id: string; order: number; detail: Record<string, any> }[] = [];
              const list = await executions(l);
              for (const [order, e] of list.entries()) {
                if (e.estado !== 'concluida' || checked.has(e.id)) continue;
                const answer = await l.api.get(`${VIGILANCIAS}/${e.id}`);
                expectStatus(answer, 200, 'GET execution');
                concluded.push({ id: e.id, order, detail: answer.body });
              }
              concluded.sort(
                (a, b) => Date.parse(a.detail.terminada_em) - Date.parse(b.detail.terminada_em) || a.order - b.order,
              );
              for (const { id, detail } of concluded) {
                checked.add(id);
                const results = await l.api.get(`${VIGILANCIAS}/${id}/resultados`);
                expectStatus(results, 200, 'GET resultados');
                expect(results.body.proximo_cursor).toBeNull();
                firstRead.set(id, { detail: JSON.stringify(detail), results: results.text });
                const findings: WireFinding[] = results.body.itens;
                const end = detail.terminada_em as string;
                const expected: WireFinding[] = [];
                let reusedCount = 0;
                for (const p of seen.watched) {
                  const fingerprint = rulesRead(
                    seen.reference,
                    p.ncm,
                    p.atributos.map((a) => a.codigo),
                  );
                  const last = remembered.get(p.id);
                  if (last && last.versao === p.versao && last.fingerprint === fingerprint) {
                    reusedCount++;
                    expected.push(...last.findings.map((f) => ({ ...f, reaproveitado: true })));
                    continue;
                  }
                  const fresh = expectedFindings(p, seen.reference).map((f) => ({
                    ...f,
                    avaliado_em: end,
                    snapshot_id: seen.reference.id,
                    reaproveitado: false,
                  }));
                  remembered.set(p.id, { versao: p.versao, fingerprint, findings: fresh });
                  expected.push(...fresh);
                }
                expect(findings, `execution ${id} (${detail.motivo}) ending ${end}`).toEqual(expected);
                expect(results.body.total_achados).toBe(expected.length);
                expect(detail.resumo).toMatchObject({
                  produtos_avaliados: seen.watched.length,
                  produtos_reaproveitados: reusedCount,
                  total_achados: expected.length,
                  snapshot_id: seen.reference.id,
                });
              }
            };

            /** Publishes and checks the executions it opens: one exactly when a watched product is affected. */
            const publish = async (change: Record<string, unknown>) => {
              const watched = await watchedProducts(l);
              const count = (await executions(l)).length;
              const published = l.emu.regulatory.publish(change as never);
              const affected = watched.some(
                (p) =>
                  published.afetadas.includes(p.ncm) ||
                  p.atributos.some((a) => published.atributosAlterados.includes(a.codigo)),
              );
              const list = await executions(l);
              expect(list.length - count, `publication ${JSON.stringify(change)} → ${JSON.stringify(published)}`).toBe(
                affected ? 1 : 0,
              );
              if (affected) {
                const opened = await l.api.get(`${VIGILANCIAS}/${list[list.length - 1]!.id}`);
                expect(opened.body).toMatchObject({
                  motivo: 'publicacao',
                  estado: 'pendente',
                  criada_em: iso(l.emu.clock.now().getTime()),
                });
              }
            };

            const move = async (to: number) => {
              const seen = await before(l);
              const count = (await executions(l)).length;
              const from = l.emu.clock.now().getTime();
              await l.emu.clock.advanceTo(to);
              // Daily boundaries crossed (start + k × 24 h in (from, to]): one agendada execution each while something is watched.
              const boundaries = Math.floor((to - start) / DAY) - Math.floor((from - start) / DAY);
              const list = await executions(l);
              expect(list.length - count).toBe(seen.watched.length > 0 ? boundaries : 0);
              await checkConcluded(seen);
            };

            for (const s of steps) {
              const nowMs = l.emu.clock.now().getTime();
              if (s.t === 'edit') {
                const id = pick(s.product);
                const current = await l.api.get(`/v1/produtos/${id}`);
                expectStatus(current, 200, 'GET produto');
                expectStatus(
                  await l.api.patch(
                    `/v1/produtos/${id}`,
                    { sku: s.sku, ...s.changes },
                    { ifMatch: current.headers.get('etag')! },
                  ),
                  200,
                  'PATCH produto',
                );
              } else if (s.t === 'extinguir') {
                const code = NCMS[s.ncm]!;
                if (l.emu.regulatory.current().ncms.find((n) => n.codigo === code)!.extinta) continue;
                await publish({ extinguir: [code] });
              } else if (s.t === 'obrigatorios') {
                const known = new Set(l.emu.regulatory.current().atributos.map((a) => a.codigo));
                await publish({ obrigatorios: { [NCMS[s.ncm]!]: s.required.filter((c) => known.has(c)) } });
              } else if (s.t === 'atributo') {
                const domain = DOMAINS[s.dominio]!;
                await publish({
                  atributos: [
                    {
                      codigo: ATTRIBUTES[s.attribute]!,
                      nome: s.nome,
                      ...(domain === null ? {} : { dominio: [...domain] }),
                    },
                  ],
                });
              } else if (s.t === 'select') {
                const view = await l.api.get(SELECTION);
                const modo = view.body.modo as 'selecao' | 'todos';
                const selection = modo === 'selecao' ? new Set((await watchedProducts(l)).map((p) => p.id)) : undefined;
                const adicionar = [...new Set(s.add.map(pick))];
                const remover =
                  selection === undefined
                    ? []
                    : [...new Set(s.remove.map(pick))].filter((id) => selection.has(id) && !adicionar.includes(id));
                await selectionChange(l, { modo, adicionar, remover });
              } else if (s.t === 'mode') {
                await selectionChange(l, { modo: s.modo });
              } else if (s.t === 'clock') {
                await move(nowMs + s.ms);
              } else {
                const next = start + (Math.floor((nowMs - start) / DAY) + 1) * DAY;
                await move(next + START + RUN);
              }
            }
            // Everything open concludes; then nothing published has changed.
            await move(l.emu.clock.now().getTime() + START + RUN + 5 * MINUTE);
            for (const [id, first] of firstRead) {
              const detail = await l.api.get(`${VIGILANCIAS}/${id}`);
              expect(JSON.stringify(detail.body), `detail of ${id}`).toBe(first.detail);
              expect((await l.api.get(`${VIGILANCIAS}/${id}/resultados`)).text, `results of ${id}`).toBe(first.results);
            }
            await l.emu.close();
          },
        ),
        { numRuns: runs(150) },
      );
    },
    PROPERTY_TIMEOUT,
  );
});
