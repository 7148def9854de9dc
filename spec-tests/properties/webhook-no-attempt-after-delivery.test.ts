/**
 * Property: no attempt after `entregue`. Once an attempt of a cycle is delivered (a completed 2xx), that
 * cycle makes no further attempt; only an accepted resend opens more (a new cycle).
 *
 * The receiver answers mostly 2xx, and the delivery faults that make the outcome arrive late or twice
 * (latency, duplicate, time-out, reset) are frequent, as are rotations and revocations during an attempt
 * in flight and resends. Checked twice: from the attempts the API lists (grouped by cycle with the
 * attempt number each resend's detail gives), and from what the receiver itself got (no request of an
 * event reaches it after a delivered attempt of that event ended, until a resend of it was accepted).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROPERTY_TIMEOUT, runs } from './support/lab.js';
import {
  byCycle,
  deliveryEffect,
  hookLab,
  HookRunner,
  hookStep,
  parseTime,
  SECOND,
  type Behaviour,
  type DeliveryEffect,
  type HookStep,
} from './support/webhooks.js';

const mostlyOk: fc.Arbitrary<Behaviour[]> = fc.array(
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.integer({ min: 200, max: 299 }).map((status): Behaviour => ({ kind: 'status', status })),
    },
    {
      weight: 3,
      arbitrary: fc.integer({ min: 300, max: 599 }).map((status): Behaviour => ({ kind: 'status', status })),
    },
    { weight: 1, arbitrary: fc.constantFrom<Behaviour>({ kind: 'throw' }, { kind: 'garbage' }, { kind: 'silent' }) },
  ),
  { minLength: 1, maxLength: 10 },
);

/** The faults under which an answer comes late, twice, or not at all. */
const lateOrTwice: fc.Arbitrary<DeliveryEffect> = fc.oneof(
  fc.integer({ min: 1, max: 20 * SECOND }).map((latencyMs): DeliveryEffect => ({ latencyMs })),
  fc.constantFrom<DeliveryEffect>({ duplicate: true }, { timeout: true }, { reset: true }),
);

const step: fc.Arbitrary<HookStep> = fc.oneof(
  {
    weight: 10,
    arbitrary: hookStep({ raise: 4, test: 1, resend: 4, advance: 6, change: 1, revoke: 1 }, 26 * 3_600_000),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('fault' as const),
      effect: lateOrTwice,
      times: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('fault' as const),
      effect: deliveryEffect,
      times: fc.integer({ min: 1, max: 2 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ t: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 20 * SECOND }) }),
  },
);
const steps = fc.array(step, { minLength: 1, maxLength: 30, size: 'max' });

describe('no webhook attempt after entregue', { timeout: PROPERTY_TIMEOUT }, () => {
  it('a cycle with a delivered attempt makes no later attempt, and the receiver gets nothing more of that event until a resend', async () => {
    await fc.assert(
      fc.asyncProperty(mostlyOk, steps, async (script, list: HookStep[]) => {
        const runner = new HookRunner(hookLab(), { script });
        await runner.configure();
        await runner.runAll(list);
        await runner.settle();

        for (const model of runner.events.values()) {
          const attempts = await runner.attempts(model.id);
          const cycles = byCycle(model, attempts);
          expect(model.cycles.length, `event ${model.id}: one cycle per accepted resend`).toBe(
            1 + (runner.resends.get(model.id) ?? 0),
          );
          cycles.forEach((cycle, c) => {
            const at = `event ${model.id} cycle ${c + 1}`;
            const delivered = cycle.findIndex((a) => a.estado === 'entregue');
            if (delivered < 0) return;
            const a = cycle[delivered]!;
            expect(
              cycle.slice(delivered + 1).map((b) => b.tentativa),
              `${at}: attempts after attempt ${a.tentativa} was delivered`,
            ).toEqual([]);
            const ended = parseTime(a.terminada_em!);
            const next = model.cycles[c + 1];
            for (const b of attempts.filter((b) => b.tentativa > a.tentativa)) {
              expect(next, `${at}: attempt ${b.tentativa} after a delivery with no resend`).toBeDefined();
              expect(b.tentativa, `${at}: attempt ${b.tentativa} belongs to no resend`).toBeGreaterThanOrEqual(
                next!.first,
              );
              expect(
                parseTime(b.iniciada_em),
                `${at}: attempt ${b.tentativa} started before the resend`,
              ).toBeGreaterThanOrEqual(next!.start);
            }
            // The receiver's own record: nothing of this event after the delivered attempt ended, until the resend.
            for (const r of runner.receiver.received) {
              if (r.headers['service-event-id'] !== model.id || r.at <= ended) continue;
              expect(
                next,
                `${at}: the receiver got the event at ${new Date(r.at).toISOString()}, after its delivery ended at ${a.terminada_em}, with no resend`,
              ).toBeDefined();
              expect(r.at, `${at}: the receiver got the event again before the resend`).toBeGreaterThanOrEqual(
                next!.start,
              );
            }
          });
          const detail = (await runner.detail(model.id)).body;
          const current = cycles[cycles.length - 1]!;
          if (detail.estado === 'entregue') {
            expect(
              current[current.length - 1]?.estado,
              `event ${model.id}: entregue, so its cycle's last attempt is the delivered one`,
            ).toBe('entregue');
            expect(detail.proxima_tentativa_em).toBeNull();
          }
        }
      }),
      { numRuns: runs(200) },
    );
  });
});
