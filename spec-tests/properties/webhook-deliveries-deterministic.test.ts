/**
 * Property: the same seed and the same calls give the same deliveries, byte for byte.
 *
 * A generated script (configuration and rotations, revocation, raised events, tests, resends, delivery
 * faults, a receiver script of failures and successes, clock moves) runs against two emulators created
 * with the same seed, one after the other. The requests the in-process receiver got (virtual time, URL,
 * method, every header, exact body), the built-in inbox, every API answer (status, headers, body: the
 * secrets included) and the final event and attempt JSON must be identical. So must they when one of the
 * two restores a snapshot of itself between some of the calls (a restore is invisible to deliveries). With
 * another seed, the secrets and event ids differ.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROPERTY_TIMEOUT, runs } from './support/lab.js';
import {
  behaviours,
  hookLab,
  HookRunner,
  hookStep,
  INBOX_BASE,
  type Behaviour,
  type HookStep,
} from './support/webhooks.js';

const seed = fc.oneof(fc.integer({ min: 0, max: 0xffff_ffff }), fc.string({ minLength: 1, maxLength: 20 }));
const steps = fc.array(hookStep({ raise: 4, test: 2, resend: 2, change: 2, revoke: 1, fault: 3, advance: 5 }), {
  minLength: 1,
  maxLength: 30,
  size: 'max',
});
const PATHS = ['a', 'b', `${INBOX_BASE}/x`];

/** Plays the script; before each step whose index is in `restoreBefore`, the emulator restores a snapshot of itself. */
async function play(
  seedValue: number | string,
  script: readonly Behaviour[],
  list: readonly HookStep[],
  restoreBefore: ReadonlySet<number> = new Set(),
) {
  const runner = new HookRunner(hookLab({ seed: seedValue }), { script, paths: PATHS });
  await runner.configure();
  for (const [i, step] of list.entries()) {
    if (restoreBefore.has(i)) runner.emu.restore(runner.emu.snapshot());
    await runner.run(step);
  }
  await runner.settle();
  const events: string[] = [];
  for (const id of runner.events.keys()) {
    events.push((await runner.detail(id)).text);
    events.push(JSON.stringify(await runner.attempts(id)));
  }
  events.push(JSON.stringify(await runner.listEvents()));
  const received = runner.receiver.received.map(({ at, url, method, headers, body }) => ({
    at,
    url,
    method,
    headers: Object.entries(headers).sort(),
    body,
  }));
  return { runner, events, received, inbox: runner.emu.inbox.list(), snapshot: JSON.stringify(runner.emu.snapshot()) };
}

describe('deterministic webhook deliveries', { timeout: PROPERTY_TIMEOUT }, () => {
  it('two emulators with the same seed deliver the same requests byte for byte and record the same events and attempts', async () => {
    await fc.assert(
      fc.asyncProperty(seed, behaviours(), steps, async (seedValue, script, list: HookStep[]) => {
        const first = await play(seedValue, script, list);
        const second = await play(seedValue, script, list);
        expect(second.runner.log.length).toBe(first.runner.log.length);
        first.runner.log.forEach((a, i) =>
          expect(second.runner.log[i], `exchange #${i} ${a.label} ${a.method} ${a.path}`).toEqual(a),
        );
        expect(second.received.length, 'requests received').toBe(first.received.length);
        first.received.forEach((r, i) => expect(second.received[i], `request #${i}`).toEqual(r));
        expect(second.inbox).toEqual(first.inbox);
        expect(second.events).toEqual(first.events);
        expect(second.snapshot).toBe(first.snapshot);
      }),
      { numRuns: runs(80) },
    );
  });

  it('a snapshot restored between calls changes no delivery, answer, event or attempt', async () => {
    await fc.assert(
      fc.asyncProperty(
        seed,
        behaviours(),
        steps,
        fc.uniqueArray(fc.nat({ max: 29 }), { minLength: 1, maxLength: 5 }),
        async (seedValue, script, list: HookStep[], restores) => {
          const plain = await play(seedValue, script, list);
          const restored = await play(seedValue, script, list, new Set(restores));
          expect(restored.runner.log.length).toBe(plain.runner.log.length);
          plain.runner.log.forEach((a, i) =>
            expect(restored.runner.log[i], `exchange #${i} ${a.label} ${a.method} ${a.path}`).toEqual(a),
          );
          expect(restored.received.length, 'requests received').toBe(plain.received.length);
          plain.received.forEach((r, i) => expect(restored.received[i], `request #${i}`).toEqual(r));
          expect(restored.inbox).toEqual(plain.inbox);
          expect(restored.events).toEqual(plain.events);
        },
      ),
      { numRuns: runs(40) },
    );
  });

  it('with another seed, the secrets and event ids differ', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(seed, { minLength: 2, maxLength: 2, selector: (s) => String(s) }),
        steps,
        async ([seedA, seedB], list: HookStep[]) => {
          const script: Behaviour[] = [{ kind: 'status', status: 200 }];
          const a = await play(seedA!, script, list);
          const b = await play(seedB!, script, list);
          const secretsA = new Set(a.runner.history.map((h) => h.destination.secret));
          for (const h of b.runner.history)
            expect(
              secretsA.has(h.destination.secret),
              `secret of version ${h.destination.versao} under both seeds`,
            ).toBe(false);
          const idsA = new Set(a.runner.events.keys());
          for (const id of b.runner.events.keys()) expect(idsA.has(id), `event id ${id} under both seeds`).toBe(false);
        },
      ),
      { numRuns: runs(20) },
    );
  });
});
