/**
 * Property: accepting an analysis never consumes allowance; only a run's start does, one unit per run
 * (spec "POST /v1/analises": "The durable acceptance consumes no allowance"; docs/api.md "Analyses").
 *
 * Random sequences of POST /v1/analises, clock moves (around the 1 min start and the 10 s run, and longer),
 * allowance changes through emu.companies.update, and job faults of kind analise ({delayMs} postpones a start,
 * {fail} fails a run at its end). A model of the runs (the start due 1 min after acceptance, postponed by the
 * delay faults in the order added; a unit taken at the start while the allowance lasts; the end 10 s later,
 * failed by the fail faults in the order added) predicts every analysis. After every step:
 *
 *   - a POST leaves GET /v1/empresa/capacidade unchanged, and answers 202 with a new analysis, or 200 with the
 *     open one when there is one;
 *   - analises.disponiveis = max(franquia − runs started, 0), and between two steps with no allowance change it
 *     drops by exactly the number of runs that started in between (never at acceptance, never otherwise);
 *   - at most one analysis is pendente or executando;
 *   - a started run (iniciada_em set) is executando, concluida or falhou falha_execucao, and ends 10 s after it
 *     started; a run that found no allowance is falhou sem_franquia, never started, ended at its start time;
 *   - each analysis shows exactly what the model predicts (estado, fase, times, codigo_falha, resumo).
 *
 * At the end the clock moves a day: every analysis is final, every started run concluida or falhou.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Answer } from '../support/client.js';
import { lab, PROPERTY_TIMEOUT, runs, type Lab } from './support/lab.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;
const START = MINUTE;
const RUN = 10 * SECOND;
const ANALISES = '/v1/analises';
const MISSING_NCM = '99999999';

type FaultEffect = { readonly fail: true } | { readonly delayMs: number };

type Step =
  | { readonly t: 'post' }
  | { readonly t: 'advance'; readonly ms: number }
  | { readonly t: 'allowance'; readonly n: number }
  | { readonly t: 'fault'; readonly effect: FaultEffect };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.constant<Step>({ t: 'post' }) },
  {
    weight: 6,
    arbitrary: fc.record({
      t: fc.constant('advance' as const),
      ms: fc.oneof(
        fc.constantFrom(0, 1, START - 1, START, RUN - 1, RUN, START + RUN, START + RUN - 1),
        fc.integer({ min: 0, max: 3 * MINUTE }),
        fc.integer({ min: 0, max: 30 * MINUTE }),
      ),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('allowance' as const), n: fc.nat(4) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('fault' as const),
      effect: fc.oneof(
        fc.constant<FaultEffect>({ fail: true }),
        fc.integer({ min: 0, max: 5 * MINUTE }).map((delayMs): FaultEffect => ({ delayMs })),
      ),
    }),
  },
);

interface Predicted {
  readonly id: string;
  readonly criada: number;
  estado: 'pendente' | 'executando' | 'concluida' | 'falhou';
  iniciada: number | null;
  terminada: number | null;
  codigo: string | null;
  /** When its next task (start or end) runs; null once final. */
  due: number | null;
}

const PHASE = { pendente: 'na_fila', executando: 'avaliando', concluida: 'publicada', falhou: 'encerrada' } as const;
const iso = (ms: number) => new Date(ms).toISOString();

class Model {
  now: number;
  allowance: number;
  used = 0;
  readonly analyses: Predicted[] = [];
  readonly delays: number[] = [];
  fails = 0;

  constructor(
    now: number,
    allowance: number,
    readonly products: number,
  ) {
    this.now = now;
    this.allowance = allowance;
  }

  get open(): Predicted | undefined {
    return this.analyses.find((a) => a.estado === 'pendente' || a.estado === 'executando');
  }

  get left(): number {
    return Math.max(this.allowance - this.used, 0);
  }

  /** Runs the open analysis' tasks due up to `target`, in time order, then moves to it. */
  advance(ms: number): void {
    const target = this.now + ms;
    for (let a = this.open; a !== undefined && a.due !== null && a.due <= target; a = this.open) {
      const at = a.due;
      if (a.estado === 'pendente') {
        const delay = this.delays.shift();
        if (delay !== undefined) a.due = at + delay;
        else if (this.left > 0) {
          this.used++;
          Object.assign(a, { estado: 'executando', iniciada: at, due: at + RUN });
        } else Object.assign(a, { estado: 'falhou', codigo: 'sem_franquia', terminada: at, due: null });
      } else if (this.fails > 0) {
        this.fails--;
        Object.assign(a, { estado: 'falhou', codigo: 'falha_execucao', terminada: at, due: null });
      } else Object.assign(a, { estado: 'concluida', terminada: at, due: null });
    }
    this.now = target;
  }

  detail(a: Predicted): Record<string, unknown> {
    return {
      id: a.id,
      estado: a.estado,
      fase: PHASE[a.estado],
      criada_em: iso(a.criada),
      resultado_disponivel: a.estado === 'concluida',
      iniciada_em: a.iniciada === null ? null : iso(a.iniciada),
      terminada_em: a.terminada === null ? null : iso(a.terminada),
      codigo_falha: a.codigo,
      resumo:
        a.estado === 'concluida'
          ? {
              produtos_avaliados: this.products,
              total_achados: this.products,
              achados_por_tipo: {
                ncm_inexistente: this.products,
                ncm_extinta: 0,
                atributo_obrigatorio_ausente: 0,
                atributo_valor_invalido: 0,
                atributo_desconhecido: 0,
                descricao_ausente: 0,
              },
              snapshot_id: 'ref-0001',
            }
          : null,
    };
  }
}

function expectStatus(answer: Answer, status: number, what: string): void {
  expect(answer.status, `${what}: ${answer.text}`).toBe(status);
}

async function capacity(l: Lab): Promise<{ franquia: number; disponiveis: number }> {
  const answer = await l.api.get('/v1/empresa/capacidade');
  expectStatus(answer, 200, 'GET /v1/empresa/capacidade');
  return answer.body.analises;
}

/** Every analysis detail, newest first, following proximo_cursor in pages of 2. */
async function readAll(l: Lab): Promise<Record<string, any>[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 200; guard++) {
    const answer: Answer = await l.api.get(
      `${ANALISES}?limite=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
    );
    expectStatus(answer, 200, 'GET /v1/analises');
    ids.push(...answer.body.itens.map((i: { id: string }) => i.id));
    cursor = answer.body.proximo_cursor;
    if (cursor === null) break;
  }
  const details = [];
  for (const id of ids) {
    const answer = await l.api.get(`${ANALISES}/${id}`);
    expectStatus(answer, 200, `GET ${ANALISES}/${id}`);
    details.push(answer.body);
  }
  return details;
}

/** The invariants that hold whatever the model says, and the model's prediction. */
function check(
  model: Model,
  details: Record<string, any>[],
  allowance: { franquia: number; disponiveis: number },
): number {
  expect(
    details.filter((d) => d.estado === 'pendente' || d.estado === 'executando').length,
    'at most one open analysis',
  ).toBeLessThanOrEqual(1);
  const started = details.filter((d) => d.iniciada_em !== null);
  for (const d of started) {
    expect(['executando', 'concluida', 'falhou'], JSON.stringify(d)).toContain(d.estado);
    if (d.estado === 'falhou') expect(d.codigo_falha, JSON.stringify(d)).toBe('falha_execucao');
    if (d.terminada_em !== null)
      expect(Date.parse(d.terminada_em) - Date.parse(d.iniciada_em), JSON.stringify(d)).toBe(RUN);
  }
  for (const d of details.filter((x) => x.codigo_falha === 'sem_franquia')) {
    expect(d, 'a run without allowance never starts').toMatchObject({ estado: 'falhou', iniciada_em: null });
    expect(d.terminada_em).not.toBeNull();
  }
  expect(allowance.disponiveis, 'disponiveis = max(franquia − runs started, 0)').toBe(
    Math.max(allowance.franquia - started.length, 0),
  );
  // The model's prediction, newest first.
  expect(details).toEqual([...model.analyses].reverse().map((a) => model.detail(a)));
  expect(allowance).toEqual({ franquia: model.allowance, disponiveis: model.left });
  expect(started.length).toBe(model.used);
  return started.length;
}

describe('property: analysis acceptance never consumes allowance', () => {
  // spec: ANA-06
  it(
    'disponiveis drops only when a run starts, by one per run; one open analysis at most; every run ends concluida or falhou',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.nat(4),
          fc.nat(3),
          fc.array(step, { minLength: 1, maxLength: 30 }),
          async (initial, products, steps) => {
            const l = lab({}, { analysisAllowance: initial });
            const { companyId } = l.company;
            const catalog = await l.api.post('/v1/catalogos', {
              estabelecimento_id: l.company.headOffice.id,
              nome: 'Loja',
            });
            expectStatus(catalog, 201, 'POST /v1/catalogos');
            for (let i = 0; i < products; i++) {
              expectStatus(
                await l.api.post(`/v1/catalogos/${catalog.body.id}/produtos`, {
                  origem: 'erp',
                  ncm: MISSING_NCM,
                  descricao: 'Produto',
                }),
                201,
                'POST produto',
              );
            }
            const model = new Model(l.emu.clock.now().getTime(), initial, products);
            let before = await capacity(l);
            let startedBefore = 0;
            for (const s of steps) {
              let allowanceChanged = false;
              if (s.t === 'post') {
                const open = model.open;
                const answer = await l.api.post(ANALISES, {});
                if (open) {
                  expectStatus(answer, 200, 'POST /v1/analises with one open');
                  expect(answer.body).toEqual({ id: open.id, estado: open.estado });
                } else {
                  expectStatus(answer, 202, 'POST /v1/analises');
                  expect(answer.body.estado).toBe('pendente');
                  model.analyses.push({
                    id: answer.body.id,
                    criada: model.now,
                    estado: 'pendente',
                    iniciada: null,
                    terminada: null,
                    codigo: null,
                    due: model.now + START,
                  });
                }
                expect(answer.headers.get('location')).toBe(`${ANALISES}/${answer.body.id}`);
                // Acceptance consumes nothing.
                expect(await capacity(l), 'capacity right after the POST').toEqual(before);
              } else if (s.t === 'advance') {
                await l.emu.clock.advance(s.ms);
                model.advance(s.ms);
              } else if (s.t === 'allowance') {
                l.emu.companies.update(companyId, { analysisAllowance: s.n });
                model.allowance = s.n;
                allowanceChanged = true;
              } else {
                l.emu.faults.add({ target: 'job', match: { kind: 'analise', companyId }, effect: s.effect, times: 1 });
                if ('fail' in s.effect) model.fails++;
                else model.delays.push(s.effect.delayMs);
              }
              expect(l.emu.clock.now().getTime()).toBe(model.now);
              const after = await capacity(l);
              const startedNow = check(model, await readAll(l), after);
              if (!allowanceChanged) {
                // Only runs that started move disponiveis, by exactly one each.
                expect(before.disponiveis - after.disponiveis, `step ${JSON.stringify(s)}`).toBe(
                  startedNow - startedBefore,
                );
                expect(after.franquia).toBe(before.franquia);
              }
              before = after;
              startedBefore = startedNow;
            }
            // A day later every analysis is final; every started run concluida or falhou.
            await l.emu.clock.advance(DAY);
            model.advance(DAY);
            const details = await readAll(l);
            check(model, details, await capacity(l));
            for (const d of details) {
              expect(['concluida', 'falhou'], JSON.stringify(d)).toContain(d.estado);
              if (d.iniciada_em !== null) expect(d.terminada_em).not.toBeNull();
            }
          },
        ),
        { numRuns: runs(300) },
      );
    },
    PROPERTY_TIMEOUT,
  );
});
