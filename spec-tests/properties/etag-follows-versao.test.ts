/**
 * Property: the ETag changes exactly when `versao` changes.
 *
 * Across random sequences of valid and refused operations and clock moves, every answer that represents one
 * resource (GET one, and the 2xx answers of the changes) is collected, then every resource is read once more
 * at the end. For the same resource id: equal ETags ⇔ equal versao. Across different resources: ETags differ.
 * So a GET after a change carries the ETag the change answered with until the next change. And, in the
 * order of the answers, a resource's versao never goes back.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lab, PROPERTY_TIMEOUT, runs } from './support/lab.js';
import { mixedStep, Runner, type Kind, type Step } from './support/scenario.js';

const sequence = fc.array(mixedStep(36 * 3_600_000, { concurrentEdits: true }), {
  minLength: 1,
  maxLength: 40,
  size: 'max',
});

interface Observation {
  readonly kind: Kind;
  readonly id: string;
  readonly versao: number;
  readonly etag: string;
  readonly where: string;
}

describe('ETags and versao', { timeout: PROPERTY_TIMEOUT }, () => {
  // spec: REQ-06
  it('for the same resource, equal ETags ⇔ equal versao; different resources never share an ETag', async () => {
    await fc.assert(
      fc.asyncProperty(sequence, async (steps: Step[]) => {
        const { emu, api, company } = lab();
        const runner = Runner.create(emu, api, company);
        await runner.runAll(steps);
        for (const e of runner.establishments) await runner.read('establishment', e.id, 'final');
        for (const c of runner.catalogs) await runner.read('catalog', c.id, 'final');
        for (const p of runner.products) await runner.read('product', p.id, 'final');

        const observations: Observation[] = [];
        for (const e of runner.log) {
          if (!e.resource || e.answer.status >= 300 || e.answer.headers.get('idempotent-replayed') !== null) continue;
          const etag = e.answer.headers.get('etag');
          expect(etag, `${e.sent.method} ${e.sent.path} answered ${e.answer.status} without an ETag`).not.toBeNull();
          expect(etag).toMatch(/^"[^"]+"$/);
          expect(typeof e.answer.body.versao).toBe('number');
          observations.push({
            kind: e.resource.kind,
            id: e.resource.id,
            versao: e.answer.body.versao,
            etag: etag!,
            where: `#${e.index} ${e.sent.method} ${e.sent.path}`,
          });
        }

        const latest = new Map<string, Observation>();
        for (const o of observations) {
          const previous = latest.get(o.id);
          if (previous)
            expect(
              o.versao,
              `${o.where}: versao went back from ${previous.versao} (${previous.where})`,
            ).toBeGreaterThanOrEqual(previous.versao);
          latest.set(o.id, o);
        }

        // One ETag per (id, versao), and one (id, versao) per ETag.
        const etagOf = new Map<string, Observation>();
        const ownerOf = new Map<string, Observation>();
        for (const o of observations) {
          const key = `${o.id} ${o.versao}`;
          const first = etagOf.get(key);
          if (first)
            expect(o.etag, `${o.where}: ${o.kind} ${o.id} v${o.versao} has two ETags (first at ${first.where})`).toBe(
              first.etag,
            );
          else etagOf.set(key, o);
          const owner = ownerOf.get(o.etag);
          if (owner)
            expect(`${o.id} v${o.versao}`, `${o.where}: ETag ${o.etag} also belongs to ${owner.where}`).toBe(
              `${owner.id} v${owner.versao}`,
            );
          else ownerOf.set(o.etag, o);
        }
        expect(observations.length).toBeGreaterThanOrEqual(
          runner.establishments.length + runner.catalogs.length + runner.products.length,
        );
      }),
      { numRuns: runs(400) },
    );
  });
});
