/**
 * Property: every delivered signature verifies with the secret current at its creation, i.e. the secret
 * of the destination version the attempt went to (spec "Signature verification"; a new secret on every
 * configuration change).
 *
 * The destination is rotated among URLs routed to an in-process receiver, a URL left to the built-in inbox,
 * and three URLs under a permanent `tamper` fault (signature, body, timestamp). Every request the receiver
 * and the inbox got is checked against an independent HMAC-SHA256 keyed by the secret of the receipt of
 * its version, and against verifyWebhook from the public entry with `now` = the attempt's virtual time:
 * untampered deliveries verify (and with any other version's secret they do not); tampered ones are
 * refused for the reason their tampering gives. The headers and the exact body bytes are those the spec
 * names, and each request matches an attempt of its event recorded with that destination version.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VERSION, verifyWebhook } from '../../src/index.js';
import { PROPERTY_TIMEOUT, runs } from './support/lab.js';
import {
  behaviours,
  deliveryEffect,
  HOOK_BASE,
  hookLab,
  HookRunner,
  hookStep,
  INBOX_BASE,
  parseTime,
  type HookStep,
  type WireAttempt,
} from './support/webhooks.js';

const TAMPERED = { sig: 'signature', body: 'body', ts: 'timestamp' } as const;
const PATHS = ['ok', 'ok2', `${INBOX_BASE}/x`, 'sig', 'body', 'ts'];

const hmacHex = (secret: string, stamp: string, id: string, body: string) =>
  createHmac('sha256', secret).update(`${stamp}.${id}.${body}`, 'utf8').digest('hex');

const step: fc.Arbitrary<HookStep> = fc.oneof(
  { weight: 10, arbitrary: hookStep({ raise: 4, test: 2, resend: 2, change: 3, revoke: 1, advance: 5 }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('fault' as const),
      effect: deliveryEffect.filter((e) => !('tamper' in e)),
      times: fc.integer({ min: 1, max: 3 }),
    }),
  },
);
const steps = fc.array(step, { minLength: 1, maxLength: 30, size: 'max' });

/** The exact envelope bytes of an event, cut from its detail (spliced in last, as `"evento":<bytes>}`). */
function envelopeBytes(detailText: string): string {
  const at = detailText.indexOf(',"evento":');
  return detailText.slice(at + ',"evento":'.length, -1);
}

describe('webhook signatures verify', { timeout: PROPERTY_TIMEOUT }, () => {
  // spec: SIG-01, SIG-02, SIG-03, SIG-04, SIG-06
  it('every delivery is signed with the secret of the destination version its attempt went to, and only tampered ones fail to verify', async () => {
    await fc.assert(
      fc.asyncProperty(
        behaviours(),
        fc.nat({ max: PATHS.length - 1 }),
        steps,
        async (script, first, list: HookStep[]) => {
          const runner = new HookRunner(hookLab(), { script, paths: PATHS });
          for (const [path, tamper] of Object.entries(TAMPERED)) {
            runner.emu.faults.add({
              target: 'delivery',
              match: { url: `${HOOK_BASE}/${path}` },
              effect: { tamper },
              times: null,
            });
          }
          await runner.configure(first);
          await runner.runAll(list);
          await runner.settle();

          const secretOf = new Map(runner.history.map((h) => [h.destination.versao, h.destination.secret]));
          const envelopes = new Map<string, string>();
          const attemptsOf = new Map<string, WireAttempt[]>();
          for (const id of runner.events.keys()) {
            envelopes.set(id, envelopeBytes((await runner.detail(id)).text));
            attemptsOf.set(id, await runner.attempts(id));
          }

          /** Checks one delivered request; returns the version it was signed for. */
          const check = (
            where: string,
            r: { url: string; headers: Readonly<Record<string, string>>; body: string; at: number },
            versao: number,
          ) => {
            const secret = secretOf.get(versao);
            expect(secret, `${where}: no receipt of version ${versao}`).toBeDefined();
            const id = r.headers['service-event-id']!;
            const envelope = envelopes.get(id);
            expect(envelope, `${where}: unknown event ${id}`).toBeDefined();
            const tamper = Object.entries(TAMPERED).find(([path]) => r.url === `${HOOK_BASE}/${path}`)?.[1];
            expect(r.headers['content-type'], where).toBe('application/json');
            expect(r.headers['user-agent'], where).toBe(`catalog-emulator/${VERSION}`);
            const stamp = Math.floor(r.at / 1000) - (tamper === 'timestamp' ? 600 : 0);
            expect(
              r.headers['service-timestamp'],
              `${where}: Service-Timestamp is not the attempt's Unix seconds`,
            ).toBe(String(stamp));
            expect(r.body, `${where}: the body is not the event's envelope bytes`).toBe(
              tamper === 'body' ? `${envelope} ` : envelope,
            );
            expect(JSON.parse(r.body).id, where).toBe(id);

            const signature = r.headers['service-signature']!;
            const signed = `v1=${hmacHex(secret!, r.headers['service-timestamp']!, id, envelope!)}`;
            if (tamper === 'signature') {
              expect(signature, where).not.toBe(signed);
              expect(signature.slice(0, -1), `${where}: only the last hex digit is flipped`).toBe(signed.slice(0, -1));
            } else {
              expect(signature, `${where}: not the HMAC of the version's secret over timestamp.id.body`).toBe(signed);
            }

            const verified = verifyWebhook({ secret: secret!, headers: r.headers, body: r.body, now: r.at });
            if (tamper === undefined) {
              expect(verified, `${where}: verifyWebhook refused an untampered delivery`).toMatchObject({
                ok: true,
                event: { id },
              });
            } else {
              expect(verified, `${where} (tamper ${tamper})`).toMatchObject({
                ok: false,
                reason: tamper === 'timestamp' ? 'timestamp_fora_da_tolerancia' : 'assinatura_invalida',
              });
            }
            for (const [other, otherSecret] of secretOf) {
              if (otherSecret === secret || tamper !== undefined) continue;
              expect(
                verifyWebhook({ secret: otherSecret, headers: r.headers, body: r.body, now: r.at }),
                `${where}: also verifies with the secret of version ${other}`,
              ).toMatchObject({ ok: false, reason: 'assinatura_invalida' });
            }
          };

          for (const r of runner.receiver.received) {
            const where = `request #${r.index} to ${r.url} at ${new Date(r.at).toISOString()}`;
            expect(r.destination, where).toBeDefined();
            expect(r.method, where).toBe('POST');
            const versao = r.destination!.versao;
            check(where, r, versao);
            const attempt = attemptsOf
              .get(r.headers['service-event-id']!)
              ?.find((a) => parseTime(a.iniciada_em) === r.at && a.destino_versao === versao);
            expect(attempt, `${where}: no attempt of its event started then for version ${versao}`).toBeDefined();
          }
          for (const [i, entry] of runner.emu.inbox.list().entries()) {
            const where = `inbox entry #${i} (${entry.eventId} attempt ${entry.tentativa})`;
            const attempt = attemptsOf.get(entry.eventId)?.find((a) => a.tentativa === entry.tentativa);
            expect(attempt, where).toBeDefined();
            expect(parseTime(attempt!.iniciada_em), where).toBe(Date.parse(entry.at));
            expect(entry.headers['service-event-id'], where).toBe(entry.eventId);
            check(where, { ...entry, at: Date.parse(entry.at) }, attempt!.destino_versao!);
          }
        },
      ),
      { numRuns: runs(150) },
    );
  });
});
