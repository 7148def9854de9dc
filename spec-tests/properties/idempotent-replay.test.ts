/**
 * Property: for any sequence of valid requests, repeating any one with its idempotency key answers the
 * identical status, body and headers (ETag, Location, content-type), marked `idempotent-replayed: true`,
 * and changes nothing.
 *
 * The repeat is sent exactly as the original (method, path, body, key and the If-Match sent then), after
 * any number of later changes and clock moves shorter than the 60-day retention, so its If-Match is
 * usually stale by then: the replay must answer before any ETag check (docs/api.md "Rules every request follows").
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headerPairs, lab, PROPERTY_TIMEOUT, runs, stateAndRandom } from './support/lab.js';
import { arbitraries, mutationStep, Runner, type Step } from './support/scenario.js';

const HOUR = 3_600_000;
/** Valid mutations with occasional reads and clock moves; at most 40 steps × 24 h stays inside the 60-day retention. */
const sequence = fc.array(
  fc.oneof(
    { weight: 10, arbitrary: mutationStep },
    { weight: 2, arbitrary: arbitraries.read },
    { weight: 1, arbitrary: arbitraries.advance(24 * HOUR) },
  ),
  { minLength: 1, maxLength: 40, size: 'max' },
);

const withoutRequestHeaders = (pairs: [string, string][]) =>
  pairs.filter(([name]) => name !== 'x-request-id' && name !== 'idempotent-replayed');

describe('idempotent replay', { timeout: PROPERTY_TIMEOUT }, () => {
  // spec: REQ-02, REQ-03
  it('repeating any earlier successful request with its key answers the identical status, body and headers, and changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        sequence,
        fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
        async (steps: Step[], picks: number[]) => {
          const { emu, api, company } = lab();
          const runner = Runner.create(emu, api, company);
          await runner.runAll(steps);

          const mutations = runner.log.filter((e) => e.sent.method !== 'GET');
          // Every request of a valid sequence succeeds: otherwise the sequence would not be "valid requests".
          for (const e of runner.log)
            expect(e.answer.status, `${e.label} ${e.sent.method} ${e.sent.path}: ${e.answer.text}`).toBeLessThan(300);
          for (const e of mutations) expect(e.answer.headers.get('idempotent-replayed')).toBeNull();
          if (mutations.length === 0) return;

          for (const pick of picks) {
            const original = mutations[pick % mutations.length]!;
            const before = stateAndRandom(emu);
            const replay = await runner.send('replay', original.sent);
            expect(replay.status).toBe(original.answer.status);
            expect(replay.text).toBe(original.answer.text);
            expect(replay.headers.get('etag')).toBe(original.answer.headers.get('etag'));
            expect(replay.headers.get('location')).toBe(original.answer.headers.get('location'));
            expect(withoutRequestHeaders(headerPairs(replay))).toEqual(
              withoutRequestHeaders(headerPairs(original.answer)),
            );
            expect(replay.headers.get('idempotent-replayed')).toBe('true');
            expect(replay.headers.get('x-request-id')).not.toBe(original.answer.headers.get('x-request-id'));
            expect(stateAndRandom(emu)).toBe(before);
          }
        },
      ),
      { numRuns: runs(400) },
    );
  });

  it('a change whose answer was lost (503) is applied once, and its retry with the key answers the stored result', async () => {
    await fc.assert(
      fc.asyncProperty(
        sequence,
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        async (steps: Step[], lose: boolean[]) => {
          const { emu, api, company } = lab();
          let mutations = 0;
          let lost = 0;
          const runner = Runner.create(emu, api, company, {
            around: async (sent, send) => {
              if (sent.method === 'GET' || !lose[mutations++ % lose.length]) return send();
              emu.faults.add({
                target: 'api',
                match: { method: sent.method as 'POST', path: sent.path, companyId: company.companyId },
                effect: { loseResponse: true },
                times: 1,
              });
              const first = await send();
              expect(first.status, first.text).toBe(503);
              expect(first.body.erro.codigo).toBe('servico_indisponivel');
              lost += 1;
              const retry = await send();
              expect(retry.status, `retry of ${sent.method} ${sent.path}: ${retry.text}`).toBeLessThan(300);
              expect(retry.headers.get('idempotent-replayed')).toBe('true');
              return retry;
            },
          });
          await runner.runAll(steps);
          for (const e of runner.log)
            expect(e.answer.status, `${e.label} ${e.sent.method} ${e.sent.path}: ${e.answer.text}`).toBeLessThan(300);

          // Applied once: the lists hold exactly what the answers created.
          const count = async (path: string) => (await api.get(`${path}?limite=200`)).body.itens.length as number;
          expect(await count('/v1/estabelecimentos')).toBe(runner.establishments.length);
          expect(await count('/v1/catalogos')).toBe(runner.catalogs.length);
          expect(await count('/v1/produtos')).toBe(runner.products.length);
          for (const p of runner.products) {
            const read = await api.get(`/v1/produtos/${p.id}`);
            expect(read.body.catalogos).toEqual(p.catalogos);
          }
          if (lost > 0) expect(emu.journal.entries().filter((j) => j.status === 503).length).toBe(lost);
        },
      ),
      { numRuns: runs(300) },
    );
  });
});
