/**
 * Property: no attempt of a revoked or rotated-away destination version starts after the change
 * (spec "Webhook destination": new deliveries of the previous version are invalidated; no new delivery
 * of the revoked version is authorized; a request already in flight may still arrive).
 *
 * Random interleavings of PUT (rotate, change the URL), DELETE (revoke), reactivation (PUT on a revoked
 * destination), raises, tests, resends, delivery faults (latency keeps attempts in flight across a change)
 * and clock moves. The model keeps the destination's versions over virtual time from the API's answers.
 * No API call happens during a clock move, so after each move the attempts that appeared are fetched and
 * each must have gone to the version current throughout that move, with the destination active. The
 * receiver checks the same from its side: every request it gets arrives while its URL's version is the
 * active one. And right after each change, every event that was open is cancelled with the change's code.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROPERTY_TIMEOUT, runs } from './support/lab.js';
import {
  behaviours,
  hookLab,
  HookRunner,
  hookStep,
  HOUR,
  parseTime,
  SECOND,
  type DeliveryEffect,
  type HookStep,
} from './support/webhooks.js';

const inFlight: fc.Arbitrary<DeliveryEffect> = fc.oneof(
  fc.integer({ min: 1, max: 20 * SECOND }).map((latencyMs): DeliveryEffect => ({ latencyMs })),
  fc.constantFrom<DeliveryEffect>({ timeout: true }, { duplicate: true }),
);

const step: fc.Arbitrary<HookStep> = fc.oneof(
  {
    weight: 12,
    arbitrary: hookStep({ raise: 4, test: 2, resend: 3, change: 3, revoke: 2, fault: 1, advance: 5 }, 30 * HOUR),
  },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('fault' as const), effect: inFlight, times: fc.integer({ min: 1, max: 3 }) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ t: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 20 * SECOND }) }),
  },
);
const steps = fc.array(step, { minLength: 1, maxLength: 30, size: 'max' });

describe('no webhook attempt after a destination change', { timeout: PROPERTY_TIMEOUT }, () => {
  // spec: WH-DEST-32, WH-DEST-33
  it('every attempt goes to the destination version current when it starts; a change cancels the open events of the old version', async () => {
    await fc.assert(
      fc.asyncProperty(
        behaviours(),
        fc.array(fc.constantFrom('a', 'b', 'a/b', 'c?x=1'), { minLength: 1, maxLength: 3 }),
        steps,
        async (script, paths, list: HookStep[]) => {
          const runner = new HookRunner(hookLab(), { script, paths, trackAttempts: true });
          await runner.configure();
          for (const s of list) {
            if (s.t !== 'change' && s.t !== 'revoke') {
              await runner.run(s);
              continue;
            }
            const before = runner.destination!;
            const open = (await runner.listEvents()).filter(
              (e) => e.estado === 'pendente' || e.estado === 'executando',
            );
            const answer = s.t === 'change' ? await runner.change(s.path) : await runner.revoke();
            if (answer?.status !== 200) continue;
            const now = runner.now();
            const code = s.t === 'change' ? 'destino_alterado' : 'destino_revogado';
            for (const e of open) {
              expect(e.destino_versao, `open event ${e.id} was bound to another version than the current one`).toBe(
                before.versao,
              );
              const detail = (await runner.detail(e.id)).body;
              expect(detail.estado, `event ${e.id}, open before the ${s.t}, is not cancelled`).toBe('cancelado');
              expect(detail.codigo_falha, `event ${e.id}`).toBe(code);
              expect(parseTime(detail.terminado_em!), `event ${e.id}`).toBe(now);
              expect(detail.proxima_tentativa_em).toBeNull();
            }
            for (const e of await runner.listEvents()) {
              expect(
                e.estado === 'pendente' || e.estado === 'executando',
                `event ${e.id} is still ${e.estado} after the ${s.t}`,
              ).toBe(false);
            }
          }
          await runner.settle();

          expect(runner.history.length).toBeGreaterThanOrEqual(1);
          for (const o of runner.observed) {
            const where = `attempt ${o.attempt.tentativa} of event ${o.eventId}, started ${o.attempt.iniciada_em} during clock move #${o.epoch}`;
            expect(
              o.destination?.estado,
              `${where}: the destination was revoked throughout that move (version ${o.destination?.versao})`,
            ).toBe('ativo');
            expect(
              o.attempt.destino_versao,
              `${where}: went to version ${o.attempt.destino_versao} while version ${o.destination?.versao} was current`,
            ).toBe(o.destination?.versao);
            const started = parseTime(o.attempt.iniciada_em);
            expect(started, where).toBeGreaterThanOrEqual(o.from);
            expect(started, where).toBeLessThanOrEqual(o.to);
          }
          for (const r of runner.receiver.received) {
            const where = `request #${r.index} (${r.headers['service-event-id']}) received at ${new Date(r.at).toISOString()}`;
            expect(r.destination?.estado, `${where}: version ${r.destination?.versao} was revoked`).toBe('ativo');
            expect(r.url, `${where}: sent to the URL of another version`).toBe(r.destination?.url);
          }
          // Every attempt was observed once (none escaped the tracking).
          const total = (await runner.listEvents()).reduce((n, e) => n + e.tentativas_totais, 0);
          expect(runner.observed.length).toBe(total);
        },
      ),
      { numRuns: runs(150) },
    );
  });
});
