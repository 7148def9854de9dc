/**
 * Property: the same seed and the same calls give byte-identical responses.
 *
 * A generated call sequence (valid and refused requests, injected faults and clock moves) runs against two
 * emulators created with the same seed, one after the other; every answer's status, complete header list
 * and body text must be identical byte for byte, and so must the final snapshot. With another seed, the
 * generated ids (companies, resources, request ids) differ.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headerPairs, lab, PROPERTY_TIMEOUT, runs } from './support/lab.js';
import { mixedStep, Runner, type Step } from './support/scenario.js';

const seed = fc.oneof(fc.integer({ min: 0, max: 0xffff_ffff }), fc.string({ minLength: 1, maxLength: 20 }));
const sequence = fc.array(mixedStep(5 * 24 * 3_600_000, { concurrentEdits: true }), {
  minLength: 1,
  maxLength: 30,
  size: 'max',
});

async function play(seedValue: number | string, steps: readonly Step[]) {
  const { emu, api, company } = lab({ seed: seedValue });
  const runner = Runner.create(emu, api, company);
  await runner.runAll(steps);
  return { emu, company, runner };
}

describe('deterministic replay', { timeout: PROPERTY_TIMEOUT }, () => {
  it('two emulators with the same seed answer the same calls with byte-identical status, headers and bodies', async () => {
    await fc.assert(
      fc.asyncProperty(seed, sequence, async (seedValue, steps: Step[]) => {
        const first = await play(seedValue, steps);
        const second = await play(seedValue, steps);
        expect(second.company).toEqual(first.company);
        expect(second.runner.log.length).toBe(first.runner.log.length);
        first.runner.log.forEach((a, i) => {
          const b = second.runner.log[i]!;
          const where = `#${i} ${a.sent.method} ${a.sent.path}`;
          expect(b.sent, where).toEqual(a.sent);
          expect(b.answer.status, where).toBe(a.answer.status);
          expect(headerPairs(b.answer), where).toEqual(headerPairs(a.answer));
          expect(b.answer.text, where).toBe(a.answer.text);
        });
        expect(JSON.stringify(second.emu.snapshot())).toBe(JSON.stringify(first.emu.snapshot()));
        expect(second.emu.journal.entries()).toEqual(first.emu.journal.entries());
      }),
      { numRuns: runs(200) },
    );
  });

  it('with another seed, the company, resource and request ids differ', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(seed, { minLength: 2, maxLength: 2, selector: (s) => String(s) }),
        sequence,
        async ([seedA, seedB], steps: Step[]) => {
          const a = await play(seedA!, steps);
          const b = await play(seedB!, steps);
          expect(b.company.companyId).not.toBe(a.company.companyId);
          expect(b.company.token).not.toBe(a.company.token);
          expect(b.company.headOffice.id).not.toBe(a.company.headOffice.id);
          // A 201 names what it created by `id`, or by `ingestao_id` (an ingestion's receipt, and its batches).
          const created = (r: typeof a) =>
            r.runner.log
              .filter((e) => e.answer.status === 201)
              .map((e) => (e.answer.body.id ?? e.answer.body.ingestao_id) as unknown);
          for (const id of [...created(a), ...created(b)])
            expect(typeof id, 'a 201 without the id of what it created').toBe('string');
          const idsA = new Set(created(a));
          for (const id of created(b)) expect(idsA.has(id), `id ${id} generated under both seeds`).toBe(false);
          const requestIdsA = new Set(a.runner.log.map((e) => e.answer.headers.get('x-request-id')));
          for (const e of b.runner.log) expect(requestIdsA.has(e.answer.headers.get('x-request-id'))).toBe(false);
        },
      ),
      { numRuns: runs(100) },
    );
  });
});
