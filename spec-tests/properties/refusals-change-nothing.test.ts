/**
 * Property: a refused request (any 4xx) changes no state.
 *
 * Random sequences mix valid requests with refused ones: bad bodies, stale, missing, malformed or doubled
 * preconditions, missing or invalid idempotency keys, unknown ids, a read-only credential, another
 * company's credential, no credential, conflicts (duplicate CNPJ or id_externo, second catalog, archiving
 * an establishment with a catalog, editing an archived one), a reused key with another body, unknown routes
 * and methods, wrong media types, bad JSON, bodies over 1 MiB, bad queries and cursors, and injected status
 * faults; and batch ingestion, valid (starts with and without catalogo_id, batches in any order, a batch sent
 * again with the same content, closes, applications with the current ETag, replayed starts, reads, clock moves
 * that run validations, applications and expiries, job faults that fail or postpone them) and refused (a second
 * open ingestion in a catalog, no default catalog, an unknown catalog, bad start bodies and keys by the start's
 * own key rule, a start key reused with another body, a batch number received with other content, batches over
 * the limits: number, item count, shape, over 4 MiB; batches or a close after closing, an inconsistent or
 * invalid total_lotes, apply with a stale ETag, without If-Match or when not validada, unknown or another
 * company's ingestions, a read-only credential, bad queries). Around every request, snapshot() is taken before
 * and after; whenever the answer is 4xx (and for
 * an injected status fault whatever its status), `state` and `random` must be byte-identical:
 *
 *   - `state`: every record, link and idempotency record (a refusal is not stored under its key);
 *   - `random`: the seeded source of ids, tokens and secrets — a refused request consumes no id from it.
 *
 * `requestRandom` is deliberately not compared: it gives each request its x-request-id, so it advances for
 * every request, refused or not (and so does the journal, which is not part of snapshot()). Changes sent
 * under a `concurrentEdit` fault are in the mix but exempt: by design that fault changes the resource
 * (someone else's edit) before the request answers 412.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newKey } from '../support/client.js';
import { lab, PROPERTY_TIMEOUT, runs, stateAndRandom } from './support/lab.js';
import { mixedStep, Runner, type Step } from './support/scenario.js';

const sequence = fc.array(mixedStep(48 * 3_600_000, { concurrentEdits: true }), {
  minLength: 1,
  maxLength: 40,
  size: 'max',
});

describe('refusals', { timeout: PROPERTY_TIMEOUT }, () => {
  it('a request answered with any 4xx leaves the state and the seeded id source exactly as they were', async () => {
    await fc.assert(
      fc.asyncProperty(sequence, async (steps: Step[]) => {
        const { emu, api, company } = lab();
        const seen = { refused: 0 };
        const runner = Runner.create(emu, api, company, {
          around: async (sent, send) => {
            const before = stateAndRandom(emu);
            const answer = await send();
            if (answer.status >= 400 && answer.status < 500 && !sent.concurrentEdit) {
              seen.refused += 1;
              const after = stateAndRandom(emu);
              expect(
                after === before,
                `${sent.method} ${sent.path} answered ${answer.status} ${answer.body?.erro?.codigo} and changed the state`,
              ).toBe(true);
            }
            return answer;
          },
        });
        await runner.runAll(steps);

        for (const e of runner.log) {
          if (e.expected === undefined) {
            expect(e.answer.status, `valid ${e.label} ${e.sent.method} ${e.sent.path}: ${e.answer.text}`).toBeLessThan(
              300,
            );
          } else {
            expect(e.answer.status, `${e.label} ${e.sent.method} ${e.sent.path}: ${e.answer.text}`).toBe(e.expected);
            expect(e.answer.body.erro.request_id).toBe(e.answer.headers.get('x-request-id'));
          }
        }
        expect(seen.refused).toBe(
          runner.log.filter((e) => e.answer.status >= 400 && e.answer.status < 500 && !e.sent.concurrentEdit).length,
        );
      }),
      { numRuns: runs(400) },
    );
  });

  it('an injected status fault of any status, 5xx included, changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(mixedStep(3_600_000), { maxLength: 10 }),
        fc.integer({ min: 400, max: 599 }),
        async (steps: Step[], status: number) => {
          const { emu, api, company } = lab();
          const runner = Runner.create(emu, api, company);
          await runner.runAll(steps);
          emu.faults.add({ target: 'api', match: { companyId: company.companyId }, effect: { status }, times: 1 });
          const before = stateAndRandom(emu);
          const answer = await runner.send('faulted', {
            method: 'POST',
            path: '/v1/estabelecimentos',
            body: { cnpj: company.headOffice.cnpj.slice(0, 8) + '000291', nome: 'X' },
            key: runner.nextKey(),
            as: 'company',
          });
          expect(answer.status).toBe(status);
          expect(stateAndRandom(emu)).toBe(before);
        },
      ),
      { numRuns: runs(200) },
    );
  });

  it('a refused request reusing a key stored up to 62 days earlier changes nothing, whether the record is live, expired or purged', async () => {
    // The idempotency record lives 60 days; housekeeping purges expired records once a day, so for up to a
    // day an expired record is still in the state. A refused request must leave it there too.
    const MINUTE = 60_000;
    const DAY = 24 * 60 * MINUTE;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: DAY - 1 }),
        fc.integer({ min: 59 * DAY, max: 62 * DAY }),
        fc.constantFrom('conflict', 'invalid', 'no-if-match'),
        async (offset, later, refusal) => {
          const { emu, api, company } = lab();
          await emu.clock.advance(offset);
          const key = newKey();
          const created = await api.post(
            '/v1/catalogos',
            { estabelecimento_id: company.headOffice.id, nome: 'Loja' },
            { key },
          );
          expect(created.status).toBe(201);
          await emu.clock.advance(later);

          const before = stateAndRandom(emu);
          const answer =
            refusal === 'conflict'
              ? await api.post('/v1/catalogos', { estabelecimento_id: company.headOffice.id, nome: 'Loja' }, { key })
              : refusal === 'invalid'
                ? await api.post('/v1/catalogos', { estabelecimento_id: company.headOffice.id }, { key })
                : await api.patch(`/v1/catalogos/${created.body.id}`, { nome: 'Outro' }, { key });
          const expected =
            later < 60 * DAY
              ? refusal === 'conflict'
                ? [201]
                : [422]
              : [refusal === 'conflict' ? 409 : refusal === 'invalid' ? 422 : 428];
          expect(expected, answer.text).toContain(answer.status);
          if (answer.status >= 400)
            expect(
              stateAndRandom(emu),
              `answered ${answer.status} ${answer.body.erro.codigo} ${later / DAY} days later and changed the state`,
            ).toBe(before);
        },
      ),
      { numRuns: runs(200) },
    );
  });

  it('while a request waits (delayMs fault), another with its key is refused (409 or 422) and changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 600_000 }),
        fc.boolean(),
        fc.string({ minLength: 1, maxLength: 20 }),
        async (delayMs, sameBody, nome) => {
          const { emu, api, company } = lab();
          emu.faults.add({
            target: 'api',
            match: { method: 'POST', path: '/v1/catalogos' },
            effect: { delayMs },
            times: 1,
          });
          const key = newKey();
          const body = { estabelecimento_id: company.headOffice.id, nome };
          const first = api.post('/v1/catalogos', body, { key });
          for (let spins = 0; emu.clock.pending() === 0; spins++) {
            if (spins > 1000) throw new Error('the delayed request never started waiting');
            await new Promise((resolve) => setImmediate(resolve));
          }

          const before = stateAndRandom(emu);
          const second = await api.post('/v1/catalogos', sameBody ? body : { ...body, nome: `${nome}!` }, { key });
          expect(second.status).toBe(sameBody ? 409 : 422);
          expect(second.body.erro).toMatchObject({
            codigo: sameBody ? 'idempotencia_em_curso' : 'idempotencia_reutilizada',
            caminho: 'header.idempotency-key',
          });
          expect(stateAndRandom(emu)).toBe(before);

          await emu.clock.advance(delayMs);
          const answer = await first;
          expect(answer.status).toBe(201);
          const replay = await api.post('/v1/catalogos', body, { key });
          expect(replay.status).toBe(201);
          expect(replay.text).toBe(answer.text);
          expect(replay.headers.get('idempotent-replayed')).toBe('true');
        },
      ),
      { numRuns: runs(200) },
    );
  });
});
