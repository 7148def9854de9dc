/**
 * Property: retention removes exactly the closed events older than 30 days (spec "Delivery semantics":
 * events closed for more than 30 days become eligible; pending or executing events are kept; after
 * removal the event query answers 404).
 *
 * Events close at random times: delivered or failed by a scripted receiver, cancelled by a rotation or a
 * revocation, raised while the destination is revoked (closed at once, for two companies: the other one's is
 * revoked from the start, as none is recorded for a company without a destination), and resent (a
 * reopened event leaves a stale entry behind in the closing order). The clock moves by hours, days, exactly
 * to 30 days after some event closed (± 1 ms, and to the first retention run after it), and `job` faults
 * skip or postpone retention runs; the emulator sometimes restores a snapshot of itself. A model of the hourly runs (on the hour counted from the emulator's
 * start) and of the faults gives the last run that actually purged; after every step, GET of each event's
 * detail answers 404 exactly for the events whose terminado_em + 30 d ≤ that run, 200 for all others
 * (open ones included), and the list holds exactly the present ones. Resends of removed events answer 404,
 * and a test or resend receipt replayed with its key after the removal still answers the stored 202 and
 * creates nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_START } from '../../src/index.js';
import { Api } from '../support/client.js';
import { PROPERTY_TIMEOUT, runs } from './support/lab.js';
import { behaviours, DAY, hookLab, HookRunner, HOUR, MINUTE, parseTime } from './support/webhooks.js';

const RETENTION = 30 * DAY;

type JobEffect = { fail: true } | { delayMs: number };

type Step =
  | { readonly t: 'raise' }
  | { readonly t: 'raiseOther' }
  | { readonly t: 'test' }
  | { readonly t: 'resend'; readonly pick: number }
  | { readonly t: 'change'; readonly path: number }
  | { readonly t: 'revoke' }
  | { readonly t: 'advance'; readonly ms: number }
  /** To 30 days after the pick-th closed event closed (`run`: to the first retention run from then), plus delta. */
  | { readonly t: 'boundary'; readonly pick: number; readonly run: boolean; readonly delta: number }
  | { readonly t: 'job'; readonly effect: JobEffect }
  /** Repeats the pick-th accepted test or resend with its idempotency key. */
  | { readonly t: 'replay'; readonly pick: number }
  /** The emulator restores a snapshot of itself (its tasks, the retention runs among them, go on as before). */
  | { readonly t: 'restore' };

const pick = fc.nat({ max: 1000 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Step>({ t: 'raise' }) },
  { weight: 1, arbitrary: fc.constant<Step>({ t: 'raiseOther' }) },
  { weight: 1, arbitrary: fc.constant<Step>({ t: 'test' }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('resend' as const), pick }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('change' as const), path: pick }) },
  { weight: 1, arbitrary: fc.constant<Step>({ t: 'revoke' }) },
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('advance' as const),
      ms: fc.oneof(
        fc.integer({ min: 0, max: 48 }).map((h) => h * HOUR),
        fc.integer({ min: 1, max: 35 }).map((d) => d * DAY),
        fc.integer({ min: 0, max: 2 * DAY }),
        fc.constantFrom(0, 1, RETENTION, RETENTION + HOUR),
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('boundary' as const),
      pick,
      run: fc.boolean(),
      delta: fc.constantFrom(-1, 0, 1, -HOUR, HOUR),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('job' as const),
      // Postponements never land on the hour, so an extra run never ties with an hourly one.
      effect: fc.oneof(
        fc.constant<JobEffect>({ fail: true }),
        fc.integer({ min: 0, max: 48 }).map((h): JobEffect => ({ delayMs: h * HOUR + 7 * MINUTE })),
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('replay' as const), pick }) },
  { weight: 1, arbitrary: fc.constant<Step>({ t: 'restore' }) },
);
const steps = fc.array(step, { minLength: 1, maxLength: 25, size: 'max' });

/** The hourly retention runs (first an hour after the start) as the `job` faults leave them. */
class RetentionRuns {
  private nextHourly = DEFAULT_START + HOUR;
  private readonly extras: number[] = [];
  private readonly faults: JobEffect[] = [];
  /** The last run that purged. */
  lastPurge = -Infinity;

  addFault(effect: JobEffect): void {
    this.faults.push(effect);
  }

  /** Plays every run due at or before `t`, in time order (an extra run never ties with an hourly one). */
  runUntil(t: number): void {
    for (;;) {
      const extra = this.extras[0];
      const hourly = extra === undefined || this.nextHourly < extra;
      const at = hourly ? this.nextHourly : extra!;
      if (at > t) return;
      if (hourly) this.nextHourly += HOUR;
      else this.extras.shift();
      const fault = this.faults.shift();
      if (fault === undefined) this.lastPurge = at;
      else if ('delayMs' in fault) {
        this.extras.push(at + fault.delayMs);
        this.extras.sort((a, b) => a - b);
      }
    }
  }

  /** The first hourly run at or after `t`. */
  static hourlyFrom(t: number): number {
    return DEFAULT_START + Math.max(1, Math.ceil((t - DEFAULT_START) / HOUR)) * HOUR;
  }
}

interface Tracked {
  readonly id: string;
  readonly api: Api;
  /** terminado_em when last read; null while open. */
  terminado: number | null;
  removed: boolean;
}

interface Accepted {
  readonly path: string;
  readonly key: string;
  readonly ifMatch: string;
  readonly at: number;
  readonly status: number;
  readonly text: string;
  readonly eventId: string;
}

describe('webhook event retention', { timeout: PROPERTY_TIMEOUT }, () => {
  // spec: WH-EVT-19, WH-EVT-61, WH-EVT-62
  it('removes exactly the events closed at least 30 days before the last retention run, and keeps every other one', async () => {
    await fc.assert(
      fc.asyncProperty(behaviours({ maxLength: 8 }), steps, async (script, list: Step[]) => {
        const l = hookLab();
        const runner = new HookRunner(l, { script });
        const other = l.emu.companies.create();
        const otherApi = new Api(l.target, other.token);
        const retention = new RetentionRuns();
        const tracked: Tracked[] = [];
        const accepted: Accepted[] = [];
        const track = async (id: string, api: Api) => {
          const detail = await api.get(`/v1/webhook/eventos/${id}`);
          expect(detail.status).toBe(200);
          tracked.push({
            id,
            api,
            terminado: detail.body.terminado_em === null ? null : parseTime(detail.body.terminado_em),
            removed: false,
          });
        };

        /** GET of each tracked event and the lists agree with the model of the runs. */
        const verify = async (label: string) => {
          const now = runner.now();
          retention.runUntil(now);
          for (const e of tracked) {
            const expired = e.terminado !== null && e.terminado + RETENTION <= retention.lastPurge;
            const where = `${label} at ${new Date(now).toISOString()}: event ${e.id} (closed ${e.terminado === null ? 'never' : new Date(e.terminado).toISOString()}, last purge ${Number.isFinite(retention.lastPurge) ? new Date(retention.lastPurge).toISOString() : 'none'})`;
            const detail = await e.api.get(`/v1/webhook/eventos/${e.id}`);
            if (e.removed || expired) {
              expect(detail.status, `${where} should be removed`).toBe(404);
              expect(detail.body.erro.codigo, where).toBe('evento_nao_encontrado');
              e.removed = true;
            } else {
              expect(detail.status, `${where} should still be kept`).toBe(200);
              e.terminado = detail.body.terminado_em === null ? null : parseTime(detail.body.terminado_em);
            }
          }
          for (const api of [runner.api, otherApi]) {
            const listed = await api.get('/v1/webhook/eventos?limite=100');
            expect(listed.status).toBe(200);
            const ids = (listed.body.itens as { id: string }[]).map((i) => i.id).sort();
            expect(ids, `${label}: the list`).toEqual(
              tracked
                .filter((e) => e.api === api && !e.removed)
                .map((e) => e.id)
                .sort(),
            );
          }
        };

        /** Moves the clock; the first 25 h alone, so every cycle open before the move has closed and been read before any purge could reach it. */
        const advanceTo = async (target: number) => {
          const now = runner.now();
          if (target < now) return;
          const first = Math.min(target, now + 25 * HOUR);
          await runner.emu.clock.advanceTo(first);
          await verify('after the first 25 h of a move');
          if (target > first) {
            await runner.emu.clock.advanceTo(target);
            await verify('after a move');
          }
        };

        const sendScheduling = async (path: string): Promise<void> => {
          if (!runner.destination) return;
          const key = runner.nextKey();
          const ifMatch = runner.destination.etag;
          const answer = await runner.api.post(path, {}, { key, ifMatch });
          if (answer.status !== 202) return;
          accepted.push({
            path,
            key,
            ifMatch,
            at: runner.now(),
            status: answer.status,
            text: answer.text,
            eventId: answer.body.evento_id,
          });
          const known = tracked.find((e) => e.id === answer.body.evento_id);
          if (!known) await track(answer.body.evento_id, runner.api);
        };

        await runner.configure();
        // The other company's destination is revoked from the start: its events are recorded cancelado at once.
        const created = await otherApi.put(
          '/v1/webhook',
          { url: 'https://hooks-outra.example.com/eventos' },
          { headers: { 'if-none-match': '*' } },
        );
        expect(created.status, created.text).toBe(201);
        expect(
          (await otherApi.delete('/v1/webhook', undefined, { ifMatch: created.headers.get('etag')! })).status,
        ).toBe(200);
        for (const s of list) {
          switch (s.t) {
            case 'raise':
              await track(
                runner.emu.webhooks.raise(l.company.companyId, {
                  tipo: 'catalogo.aplicado',
                  catalogoId: '0190a000-0000-7000-8000-000000000001',
                  versao: 1,
                }).eventId,
                runner.api,
              );
              break;
            case 'raiseOther':
              await track(runner.emu.webhooks.raise(other.companyId, { tipo: 'analise.concluida' }).eventId, otherApi);
              break;
            case 'test':
              await sendScheduling('/v1/webhook/testes');
              break;
            case 'resend': {
              const own = tracked.filter((e) => e.api === runner.api);
              const e = own[s.pick % Math.max(own.length, 1)];
              if (!e || !runner.destination) break;
              if (e.removed) {
                const answer = await runner.api.post(
                  `/v1/webhook/eventos/${e.id}/reenvios`,
                  {},
                  { key: runner.nextKey(), ifMatch: runner.destination.etag },
                );
                expect(answer.status, `resend of removed event ${e.id}`).toBe(404);
                expect(answer.body.erro.codigo).toBe('evento_nao_encontrado');
                break;
              }
              await sendScheduling(`/v1/webhook/eventos/${e.id}/reenvios`);
              break;
            }
            case 'change':
              await runner.change(s.path);
              break;
            case 'revoke':
              await runner.revoke();
              break;
            case 'advance':
              await advanceTo(runner.now() + s.ms);
              break;
            case 'boundary': {
              const closed = tracked.filter((e) => e.terminado !== null && !e.removed);
              const e = closed[s.pick % Math.max(closed.length, 1)];
              if (!e) break;
              const cut = e.terminado! + RETENTION;
              await advanceTo((s.run ? RetentionRuns.hourlyFrom(cut) : cut) + s.delta);
              break;
            }
            case 'job':
              retention.runUntil(runner.now());
              retention.addFault(s.effect);
              runner.emu.faults.add({ target: 'job', match: { kind: 'retencao_eventos' }, effect: s.effect, times: 1 });
              break;
            case 'replay': {
              // Within the 60 days the key is kept (the daily housekeeping may keep it a little longer).
              const fresh = accepted.filter((a) => runner.now() - a.at < 59 * DAY);
              const a = fresh[s.pick % Math.max(fresh.length, 1)];
              if (!a) break;
              const look = async () => {
                const detail = await runner.api.get(`/v1/webhook/eventos/${a.eventId}`);
                return [
                  detail.status,
                  detail.status === 200 ? detail.text : detail.body.erro.codigo,
                  (await runner.api.get('/v1/webhook/eventos?limite=100')).text,
                ];
              };
              const before = await look();
              const answer = await runner.api.post(a.path, {}, { key: a.key, ifMatch: a.ifMatch });
              expect(answer.status, `replay of ${a.path}`).toBe(a.status);
              expect(answer.text).toBe(a.text);
              expect(answer.headers.get('idempotent-replayed')).toBe('true');
              expect(await look(), `replay of ${a.path} changed the events`).toEqual(before);
              break;
            }
            case 'restore':
              runner.emu.restore(runner.emu.snapshot());
              break;
          }
          await verify(`after ${s.t}`);
        }
        // The removed events stay removed, and nothing else went.
        await advanceTo(runner.now() + 61 * DAY);
        for (const e of tracked) expect(e.removed, `event ${e.id} outlived 61 more days`).toBe(true);
      }),
      { numRuns: runs(100) },
    );
  });
});
