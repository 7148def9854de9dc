/**
 * Property: no webhook event field the spec does not mark nullable is ever null, and an event exists only
 * against a destination (spec: CONV-08, CONV-09, WH-EVT-01, -02, -03, -10, -11, -13).
 *
 * The company starts without a webhook destination. Events are raised through the control and by a real
 * trigger (the surveillance capacity cut below the selection and restored: vigilancia.degradada and
 * vigilancia.restabelecida), before the destination exists, while it is active, after a rotation, while
 * revoked and after a reactivation; test events and resends are scheduled, deliveries fail, succeed or time
 * out under a scripted receiver and delivery faults, and the clock moves. After every step:
 *
 * - the raise control answers 404 destino_nao_encontrado exactly while the company has no destination;
 * - the event list holds exactly the control's, the test's and the coverage events raised while a destination
 *   existed, and nothing created before the destination (the daily surveillance executions raise events of
 *   their own: those are only checked to be later than the destination);
 * - every list item, every detail, every attempt and every scheduling receipt has each field of its table,
 *   null only where the spec says "or null", and of its type otherwise.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ATTEMPT_FIELDS,
  EVENT_DETAIL_FIELDS,
  EVENT_ITEM_FIELDS,
  expectTyped,
  RECEIPT_FIELDS,
} from '../support/event-fields.js';
import { PROPERTY_TIMEOUT, runs } from './support/lab.js';
import { behaviours, clockMove, deliveryEffect, hookLab, HookRunner, type HookStep } from './support/webhooks.js';

type Step =
  | { readonly t: 'configure' }
  | { readonly t: 'raise' }
  /** The capacity below the two selected products (degraded) or above them (restored). */
  | { readonly t: 'capacity'; readonly degraded: boolean }
  | { readonly t: 'test' }
  | { readonly t: 'resend'; readonly pick: number }
  /** Steps the property only runs (change, revoke, fault, advance): the webhook runner's own. */
  | Extract<HookStep, { readonly t: 'change' | 'revoke' | 'fault' | 'advance' }>;

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.constant<Step>({ t: 'configure' }) },
  { weight: 3, arbitrary: fc.constant<Step>({ t: 'raise' }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('capacity' as const), degraded: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant<Step>({ t: 'test' }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('resend' as const), pick: fc.nat({ max: 1000 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('change' as const), path: fc.nat({ max: 1000 }) }) },
  { weight: 1, arbitrary: fc.constant<Step>({ t: 'revoke' }) },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant('fault' as const), effect: deliveryEffect, times: fc.constant(1) }),
  },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('advance' as const), ms: clockMove(26 * 3_600_000) }) },
);

describe('webhook event fields', { timeout: PROPERTY_TIMEOUT }, () => {
  // spec: CONV-08, CONV-09, WH-EVT-01, WH-EVT-02, WH-EVT-03, WH-EVT-10, WH-EVT-11, WH-EVT-13
  it('are never null where the spec gives no "or null", and events exist only while the company has a destination', async () => {
    await fc.assert(
      fc.asyncProperty(
        behaviours({ maxLength: 8 }),
        fc.array(step, { minLength: 1, maxLength: 20, size: 'max' }),
        async (script, list: Step[]) => {
          const l = hookLab();
          const runner = new HookRunner(l, { script });
          const companyId = l.company.companyId;
          // Two products selected: a capacity of 1 degrades the coverage, 10 restores it.
          const catalog = await l.api.post('/v1/catalogos', {
            estabelecimento_id: l.company.headOffice.id,
            nome: 'Loja',
          });
          expect(catalog.status, catalog.text).toBe(201);
          const ids: string[] = [];
          for (const sku of ['a', 'b']) {
            const created = await l.api.post(`/v1/catalogos/${catalog.body.id}/produtos`, {
              origem: 'erp',
              ncm: '84713012',
              sku,
            });
            expect(created.status, created.text).toBe(201);
            ids.push(created.body.id);
          }
          const selection = await l.api.get('/v1/empresa/vigilancia');
          expect(
            (
              await l.api.patch(
                '/v1/empresa/vigilancia',
                { modo: 'selecao', adicionar: ids },
                { ifMatch: selection.headers.get('etag')! },
              )
            ).status,
          ).toBe(200);

          let degraded = false;
          /** The events the model expects listed, by origin: those raised while a destination (active or revoked) existed. */
          const expected = { raised: 0, tests: 0, coverage: 0 };
          let configuredAt = Infinity;

          const checkReceipt = (label: string, answer: { status: number; body: unknown }) => {
            if (answer.status === 202) expectTyped(answer.body, RECEIPT_FIELDS, `${label} receipt`);
          };

          for (const [n, s] of list.entries()) {
            const label = `step ${n} ${JSON.stringify(s)}`;
            switch (s.t) {
              case 'configure':
                if (!runner.destination) {
                  await runner.configure();
                  configuredAt = runner.now();
                }
                break;
              case 'raise':
                if (runner.destination) {
                  await runner.raise('catalogo.aplicado');
                  expected.raised += 1;
                } else {
                  expect(() => l.emu.webhooks.raise(companyId, { tipo: 'catalogo.aplicado' }), label).toThrow(
                    /no webhook destination/,
                  );
                }
                break;
              case 'capacity':
                l.emu.companies.update(companyId, { surveillanceCapacity: s.degraded ? 1 : 10 });
                if (s.degraded !== degraded && runner.destination) expected.coverage += 1;
                degraded = s.degraded;
                break;
              case 'test': {
                const answer = await runner.test();
                if (answer) checkReceipt(label, answer);
                if (answer?.status === 202) expected.tests += 1;
                break;
              }
              case 'resend': {
                const answer = await runner.resend(s.pick);
                if (answer) checkReceipt(label, answer);
                break;
              }
              default:
                await runner.run(s);
            }

            const items = await runner.listEvents(7);
            const seen = { raised: 0, tests: 0, coverage: 0 };
            for (const item of items) {
              expectTyped(item, EVENT_ITEM_FIELDS, `${label}: list item ${item.id}`);
              expect(
                Date.parse(item.criado_em),
                `${label}: event ${item.id} was created before the destination existed`,
              ).toBeGreaterThanOrEqual(configuredAt);
              if (runner.destination) expect(item.destino_id, `${label}: event ${item.id}`).toBe(runner.destination.id);
              const detail = await runner.detail(item.id);
              expect(detail.status, detail.text).toBe(200);
              expectTyped(detail.body, EVENT_DETAIL_FIELDS, `${label}: detail ${item.id}`);
              const dados = (detail.body.evento as { dados: Record<string, unknown> }).dados;
              if (dados.tipo === 'catalogo.aplicado') seen.raised += 1;
              else if (dados.tipo === 'webhook.teste') seen.tests += 1;
              else if ('coberturaAnterior' in dados) seen.coverage += 1;
              for (const attempt of await runner.attempts(item.id))
                expectTyped(attempt, ATTEMPT_FIELDS, `${label}: event ${item.id} attempt ${attempt.tentativa}`);
            }
            expect(seen, `${label}: the events listed are those raised while a destination existed`).toEqual(expected);
          }
        },
      ),
      { numRuns: runs(100) },
    );
  });
});
