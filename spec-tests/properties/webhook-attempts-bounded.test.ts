/**
 * Property: for any sequence of receiver outcomes and clock moves, a delivery cycle has at most 8 attempts,
 * all of them started by its deadline (prazo_em), in order, each after the schedule's wait counted from the
 * end of the previous attempt (docs/webhooks.md "Delivery").
 *
 * The receiver answers each request by a generated script (2xx, 3xx, 4xx, 5xx, throwing, a non-Response,
 * never answering), delivery faults are injected between clock moves of 0 s .. 30 h, and events are raised,
 * tested and resent. Half of the runs use a generated schedule (waits of 1 s .. 10 h, time-out 1–30 s), so
 * the 24 h deadline, not the attempt count, ends some cycles. After the last step every cycle is let run
 * out; the attempts of each event are then grouped by cycle (each resend's detail tells where its cycle
 * starts) and checked.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DELIVERY_POLICY } from '../../src/index.js';
import { PROPERTY_TIMEOUT, runs } from './support/lab.js';
import {
  behaviours,
  byCycle,
  failingBehaviours,
  hookLab,
  HookRunner,
  hookStep,
  HOUR,
  parseTime,
  SECOND,
  waitAfter,
  type HookStep,
} from './support/webhooks.js';

const MAX_ATTEMPTS = 8;
const CANCEL_CODES = ['destino_inativo', 'destino_alterado', 'destino_revogado'];

const policy = fc.option(
  fc.record({
    waits: fc.array(
      fc.oneof(fc.integer({ min: SECOND, max: 10 * HOUR }), fc.constantFrom(SECOND, 3 * HOUR, 4 * HOUR, 10 * HOUR)),
      { minLength: 1, maxLength: 7 },
    ),
    timeout: fc.integer({ min: SECOND, max: 30 * SECOND }),
  }),
  { nil: undefined, freq: 2 },
);

const steps = fc.array(hookStep({ raise: 4, test: 1, resend: 3, fault: 3, advance: 6, change: 1, revoke: 1 }), {
  minLength: 1,
  maxLength: 30,
  size: 'max',
});

describe('webhook attempts are bounded', { timeout: PROPERTY_TIMEOUT }, () => {
  // spec: WH-EVT-58, WH-EVT-59
  it('per cycle: at most 8 attempts, each started by prazo_em, in order, and each after the wait the schedule gives from the end of the previous one', async () => {
    await fc.assert(
      fc.asyncProperty(
        policy,
        fc.oneof(behaviours(), failingBehaviours),
        steps,
        async (custom, script, list: HookStep[]) => {
          const options =
            custom === undefined ? {} : { webhooks: { retryWaits: custom.waits, attemptTimeout: custom.timeout } };
          const waits = custom?.waits ?? DEFAULT_DELIVERY_POLICY.retryWaitsMs;
          const runner = new HookRunner(hookLab(options), { script });
          await runner.configure();
          await runner.runAll(list);
          await runner.settle();

          for (const model of runner.events.values()) {
            const where = `event ${model.id}`;
            const attempts = await runner.attempts(model.id);
            const detail = (await runner.detail(model.id)).body;
            expect(['entregue', 'falhou', 'cancelado'], `${where} still open after its cycles ran out`).toContain(
              detail.estado,
            );
            expect(detail.tentativas_totais, where).toBe(attempts.length);
            expect(
              attempts.map((a) => a.tentativa),
              where,
            ).toEqual(attempts.map((_, i) => i + 1));
            for (let i = 1; i < attempts.length; i++) {
              expect(
                parseTime(attempts[i]!.iniciada_em),
                `${where}: attempt ${i + 1} started before attempt ${i}`,
              ).toBeGreaterThanOrEqual(parseTime(attempts[i - 1]!.iniciada_em));
            }

            const cycles = byCycle(model, attempts);
            expect(model.cycles[0]!.first, where).toBe(1);
            expect(cycles.flat().length, `${where}: attempts outside every cycle`).toBe(attempts.length);
            cycles.forEach((cycle, c) => {
              const { prazo, start, destinoVersao } = model.cycles[c]!;
              const at = `${where} cycle ${c + 1}`;
              expect(prazo, `${at}: prazo_em is the cycle's start + 24 h`).toBe(start + 24 * HOUR);
              expect(cycle.length, `${at}: ${cycle.length} attempts`).toBeLessThanOrEqual(MAX_ATTEMPTS);
              cycle.forEach((a, k) => {
                const started = parseTime(a.iniciada_em);
                expect(started, `${at} attempt ${a.tentativa} started after prazo_em`).toBeLessThanOrEqual(prazo);
                expect(started, `${at} attempt ${a.tentativa} started before its cycle`).toBeGreaterThanOrEqual(start);
                expect(a.estado, `${at} attempt ${a.tentativa} never ended`).not.toBe('iniciada');
                expect(a.terminada_em, `${at} attempt ${a.tentativa}`).not.toBeNull();
                expect(a.destino_versao, `${at} attempt ${a.tentativa} went to another version than its cycle's`).toBe(
                  destinoVersao,
                );
                const next = cycle[k + 1];
                if (next === undefined) return;
                const wait = waitAfter(waits, k + 1);
                const gap = parseTime(next.iniciada_em) - parseTime(a.terminada_em!);
                expect(
                  gap,
                  `${at}: attempt ${next.tentativa} started ${gap} ms after attempt ${a.tentativa} ended; the schedule says ${wait} ms`,
                ).toBeGreaterThanOrEqual(wait);
                // The virtual clock runs a task at its due time: the wait is exact.
                expect(gap, `${at}: attempt ${next.tentativa} waited longer than the schedule`).toBe(wait);
              });
            });

            const current = cycles[cycles.length - 1]!;
            const last = current[current.length - 1];
            const prazo = model.cycles[model.cycles.length - 1]!.prazo;
            expect(detail.tentativas_ciclo, where).toBe(current.length);
            expect(parseTime(detail.prazo_em), where).toBe(prazo);
            if (detail.estado === 'entregue') {
              expect(last?.estado, `${where} entregue without a delivered attempt in its cycle`).toBe('entregue');
              expect(detail.codigo_falha, where).toBeNull();
              expect(detail.terminado_em, `${where}: closed when its delivered attempt ended`).toBe(last!.terminada_em);
            } else if (detail.estado === 'falhou') {
              expect(last, `${where} falhou without an attempt`).toBeDefined();
              expect(last!.estado, where).not.toBe('entregue');
              // It gives up as soon as its last attempt ends, not when a further attempt would have been due.
              expect(detail.terminado_em, `${where}: closed when its last attempt ended`).toBe(last!.terminada_em);
              expect(detail.codigo_falha, `${where}: codigo_falha is the last attempt's`).toBe(last!.codigo_falha);
              const nextDue = parseTime(last!.terminada_em!) + waitAfter(waits, current.length);
              expect(
                current.length === MAX_ATTEMPTS || nextDue > prazo,
                `${where} gave up after ${current.length} attempts with the next one due ${nextDue - prazo} ms before prazo_em`,
              ).toBe(true);
            } else {
              expect(CANCEL_CODES, where).toContain(detail.codigo_falha);
            }
          }
        },
      ),
      { numRuns: runs(250) },
    );
  });
});
