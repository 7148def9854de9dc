import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signatureOf, signWebhook, verifyWebhook, type VerifyFailure } from './signature.js';

interface Vector {
  secret: string;
  headers: { 'Service-Event-Id': string; 'Service-Timestamp': string; 'Service-Signature': string };
  body: string;
}
const vector = JSON.parse(
  readFileSync(new URL('../../spec-tests/vectors/webhook-signature.json', import.meta.url), 'utf8'),
) as Vector;
const SECRET = vector.secret;
const EVENT_ID = vector.headers['Service-Event-Id'];
const TS = Number(vector.headers['Service-Timestamp']);
const NOW = TS * 1000;

function envelopeBody(id: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id,
    versao: 1,
    empresa: '11222333',
    ocorridoEm: '2026-01-01T00:00:00.000Z',
    dados: { tipo: 'webhook.teste', ...extra },
  });
}

function expectFailure(result: ReturnType<typeof verifyWebhook>, reason: VerifyFailure): void {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.reason).toBe(reason);
  expect(result.message.length).toBeGreaterThan(20);
}

/** A signed delivery of `body` at `timestamp`, verified at `now` (Unix ms). */
function verifySigned(body: string | Uint8Array, options: { timestamp?: number; now?: number; eventId?: string } = {}) {
  const headers = signWebhook({
    secret: SECRET,
    eventId: options.eventId ?? EVENT_ID,
    body,
    timestamp: options.timestamp ?? TS,
  });
  return verifyWebhook({ secret: SECRET, headers, body, now: options.now ?? NOW });
}

describe('the shared vector', () => {
  it('signatureOf reproduces its Service-Signature, with the timestamp as text or as a number', () => {
    expect(signatureOf(SECRET, vector.headers['Service-Timestamp'], EVENT_ID, vector.body)).toBe(
      vector.headers['Service-Signature'],
    );
    expect(signatureOf(SECRET, TS, EVENT_ID, vector.body)).toBe(vector.headers['Service-Signature']);
    expect(signatureOf(SECRET, TS, EVENT_ID, new TextEncoder().encode(vector.body))).toBe(
      vector.headers['Service-Signature'],
    );
  });

  it('signWebhook gives exactly its headers', () => {
    expect(signWebhook({ secret: SECRET, eventId: EVENT_ID, body: vector.body, timestamp: TS })).toEqual(
      vector.headers,
    );
  });

  it('verifyWebhook accepts it at its own timestamp and returns the envelope', () => {
    const result = verifyWebhook({ secret: SECRET, headers: vector.headers, body: vector.body, now: NOW });
    expect(result).toEqual({ ok: true, event: JSON.parse(vector.body) });
    expect(verifyWebhook({ secret: SECRET, headers: vector.headers, body: vector.body, now: new Date(NOW) }).ok).toBe(
      true,
    );
    expect(
      verifyWebhook({ secret: SECRET, headers: vector.headers, body: Buffer.from(vector.body), now: NOW }).ok,
    ).toBe(true);
  });

  it('a vector delivery verified against the real clock today is stale', () => {
    // 2026-01-01: once the clock is past it by more than 5 min, the default `now` must refuse it.
    if (Date.now() > NOW + 300_000)
      expectFailure(
        verifyWebhook({ secret: SECRET, headers: vector.headers, body: vector.body }),
        'timestamp_fora_da_tolerancia',
      );
  });
});

describe('agreement with an independent HMAC', () => {
  const secret = fc.string({ minLength: 1, unit: 'binary' });
  const timestamp = fc.nat({ max: 2 ** 40 });
  const eventId = fc.string({ unit: 'binary' });

  it('string bodies', () => {
    fc.assert(
      fc.property(secret, timestamp, eventId, fc.string({ unit: 'binary' }), (s, ts, id, body) => {
        const independent = 'v1=' + createHmac('sha256', s).update(`${ts}.${id}.${body}`).digest('hex');
        expect(signatureOf(s, ts, id, body)).toBe(independent);
        expect(signWebhook({ secret: s, eventId: id, body, timestamp: ts })['Service-Signature']).toBe(independent);
      }),
    );
  });

  it('byte bodies, including non-UTF-8 bytes', () => {
    fc.assert(
      fc.property(secret, timestamp, eventId, fc.uint8Array({ maxLength: 300 }), (s, ts, id, body) => {
        const independent = createHmac('sha256', Buffer.from(s, 'utf8'))
          .update(
            Buffer.concat([
              Buffer.from(String(ts)),
              Buffer.from('.'),
              Buffer.from(id),
              Buffer.from('.'),
              Buffer.from(body),
            ]),
          )
          .digest('hex');
        expect(signatureOf(s, ts, id, body)).toBe(`v1=${independent}`);
      }),
    );
  });

  it('whatever is signed by signWebhook verifies, at any timestamp', () => {
    fc.assert(
      fc.property(
        fc.uuid(),
        timestamp,
        fc.dictionary(
          fc.string().filter((k) => k !== 'tipo'),
          fc.jsonValue(),
        ),
        (id, ts, extra) => {
          const body = envelopeBody(id, extra);
          const result = verifySigned(body, { eventId: id, timestamp: ts, now: ts * 1000 });
          expect(result.ok).toBe(true);
          if (result.ok) expect(result.event).toEqual(JSON.parse(body));
        },
      ),
    );
  });
});

describe('tampering', () => {
  it('any single changed body byte is assinatura_invalida', () => {
    const bytes = new TextEncoder().encode(vector.body);
    fc.assert(
      fc.property(fc.nat({ max: bytes.length - 1 }), fc.integer({ min: 1, max: 255 }), (index, delta) => {
        const tampered = Uint8Array.from(bytes);
        tampered[index] = (tampered[index]! + delta) % 256;
        expectFailure(
          verifyWebhook({ secret: SECRET, headers: vector.headers, body: tampered, now: NOW }),
          'assinatura_invalida',
        );
      }),
    );
  });

  it('a body that differs only by whitespace or re-serialization is assinatura_invalida', () => {
    expectFailure(
      verifyWebhook({ secret: SECRET, headers: vector.headers, body: vector.body + '\n', now: NOW }),
      'assinatura_invalida',
    );
    expectFailure(
      verifyWebhook({
        secret: SECRET,
        headers: vector.headers,
        body: JSON.stringify(JSON.parse(vector.body), null, 2),
        now: NOW,
      }),
      'assinatura_invalida',
    );
  });

  it('any single changed hex digit of the signature is assinatura_invalida', () => {
    const hex = vector.headers['Service-Signature'].slice(3);
    fc.assert(
      fc.property(fc.nat({ max: hex.length - 1 }), fc.integer({ min: 1, max: 15 }), (index, delta) => {
        const digit = ((parseInt(hex[index]!, 16) + delta) % 16).toString(16);
        const signature = `v1=${hex.slice(0, index)}${digit}${hex.slice(index + 1)}`;
        expectFailure(
          verifyWebhook({
            secret: SECRET,
            headers: { ...vector.headers, 'Service-Signature': signature },
            body: vector.body,
            now: NOW,
          }),
          'assinatura_invalida',
        );
      }),
    );
  });

  it('a signature of another length or another scheme is assinatura_invalida, without throwing', () => {
    const hex = vector.headers['Service-Signature'].slice(3);
    for (const signature of [
      `v1=${hex.slice(0, -1)}`,
      `v1=${hex}0`,
      `v1=${hex}00`,
      'v1=',
      'v1',
      `v2=${hex}`,
      `V1=${hex}`,
      hex,
      `v1=${hex.slice(0, -2)}zz`,
      `v1=${'0'.repeat(64)}`,
      `v1=${hex.slice(0, 32)}`,
    ]) {
      expectFailure(
        verifyWebhook({
          secret: SECRET,
          headers: { ...vector.headers, 'Service-Signature': signature },
          body: vector.body,
          now: NOW,
        }),
        'assinatura_invalida',
      );
    }
  });

  it('the digest is compared as bytes, so uppercase hex is the same signature', () => {
    const signature = 'v1=' + vector.headers['Service-Signature'].slice(3).toUpperCase();
    expect(
      verifyWebhook({
        secret: SECRET,
        headers: { ...vector.headers, 'Service-Signature': signature },
        body: vector.body,
        now: NOW,
      }).ok,
    ).toBe(true);
  });

  it('moving the timestamp header by ±1 s within tolerance breaks the signature', () => {
    for (const ts of [TS - 1, TS + 1]) {
      expectFailure(
        verifyWebhook({
          secret: SECRET,
          headers: { ...vector.headers, 'Service-Timestamp': String(ts) },
          body: vector.body,
          now: NOW,
        }),
        'assinatura_invalida',
      );
    }
  });

  it('a leading zero in the timestamp is the same instant but not the signed text', () => {
    expectFailure(
      verifyWebhook({
        secret: SECRET,
        headers: { ...vector.headers, 'Service-Timestamp': `0${TS}` },
        body: vector.body,
        now: NOW,
      }),
      'assinatura_invalida',
    );
  });

  it('a stale replay is reported as stale before the signature is looked at', () => {
    // The original, correctly signed delivery replayed 10 minutes later.
    expectFailure(
      verifyWebhook({ secret: SECRET, headers: vector.headers, body: vector.body, now: NOW + 600_000 }),
      'timestamp_fora_da_tolerancia',
    );
    // A forged delivery with a stale timestamp is also stale, not a bad signature.
    expectFailure(
      verifyWebhook({
        secret: SECRET,
        headers: { ...vector.headers, 'Service-Timestamp': String(TS - 3600) },
        body: 'forged',
        now: NOW,
      }),
      'timestamp_fora_da_tolerancia',
    );
  });

  it('another event id header breaks the signature', () => {
    const other = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
    expectFailure(
      verifyWebhook({
        secret: SECRET,
        headers: { ...vector.headers, 'Service-Event-Id': other },
        body: vector.body,
        now: NOW,
      }),
      'assinatura_invalida',
    );
  });

  it('a correctly signed delivery whose envelope id differs from Service-Event-Id is evento_divergente', () => {
    const other = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
    expectFailure(verifySigned(vector.body, { eventId: other }), 'evento_divergente');
  });

  it('the wrong secret, including the secret without its svc_whsec_ prefix, is assinatura_invalida', () => {
    const unprefixed = SECRET.slice('svc_whsec_'.length);
    const result = verifyWebhook({ secret: unprefixed, headers: vector.headers, body: vector.body, now: NOW });
    expectFailure(result, 'assinatura_invalida');
    if (!result.ok) expect(result.message).toMatch(/svc_whsec_/);
    expect(signatureOf(unprefixed, TS, EVENT_ID, vector.body)).not.toBe(vector.headers['Service-Signature']);
    expectFailure(
      verifyWebhook({ secret: `${SECRET}x`, headers: vector.headers, body: vector.body, now: NOW }),
      'assinatura_invalida',
    );
  });
});

describe('timestamp tolerance', () => {
  it('exactly 300 s is accepted and 301 s refused, in the past and in the future', () => {
    expect(verifySigned(vector.body, { now: NOW + 300_000 }).ok).toBe(true);
    expect(verifySigned(vector.body, { now: NOW - 300_000 }).ok).toBe(true);
    expectFailure(verifySigned(vector.body, { now: NOW + 301_000 }), 'timestamp_fora_da_tolerancia');
    expectFailure(verifySigned(vector.body, { now: NOW - 301_000 }), 'timestamp_fora_da_tolerancia');
  });

  it('the boundary is exact to the millisecond', () => {
    expectFailure(verifySigned(vector.body, { now: NOW + 300_001 }), 'timestamp_fora_da_tolerancia');
    expectFailure(verifySigned(vector.body, { now: NOW - 300_001 }), 'timestamp_fora_da_tolerancia');
  });

  it('the message says which direction', () => {
    const past = verifySigned(vector.body, { now: NOW + 301_000 });
    const future = verifySigned(vector.body, { now: NOW - 301_000 });
    expect(!past.ok && past.message).toMatch(/301 s in the past/);
    expect(!future.ok && future.message).toMatch(/301 s in the future/);
  });

  it('toleranceSeconds replaces the default', () => {
    const headers = vector.headers;
    expect(
      verifyWebhook({ secret: SECRET, headers, body: vector.body, now: NOW + 60_000, toleranceSeconds: 60 }).ok,
    ).toBe(true);
    expectFailure(
      verifyWebhook({ secret: SECRET, headers, body: vector.body, now: NOW + 61_000, toleranceSeconds: 60 }),
      'timestamp_fora_da_tolerancia',
    );
    expect(
      verifyWebhook({ secret: SECRET, headers, body: vector.body, now: NOW + 3_600_000, toleranceSeconds: 3600 }).ok,
    ).toBe(true);
    expect(verifyWebhook({ secret: SECRET, headers, body: vector.body, now: NOW, toleranceSeconds: 0 }).ok).toBe(true);
  });

  it('a timestamp that is not all digits is timestamp_invalido', () => {
    for (const stamp of ['-1767225600', '+1767225600', '1767225600.5', '1.7e9', '0x69', 'abc', '1767225600s', '१२३']) {
      expectFailure(
        verifyWebhook({
          secret: SECRET,
          headers: { ...vector.headers, 'Service-Timestamp': stamp },
          body: vector.body,
          now: NOW,
        }),
        'timestamp_invalido',
      );
    }
  });

  it('caller mistakes in now / toleranceSeconds throw a TypeError', () => {
    expect(() =>
      verifyWebhook({ secret: SECRET, headers: vector.headers, body: vector.body, now: Number.NaN }),
    ).toThrow(TypeError);
    expect(() =>
      verifyWebhook({ secret: SECRET, headers: vector.headers, body: vector.body, now: new Date('nope') }),
    ).toThrow(TypeError);
    expect(() =>
      verifyWebhook({ secret: SECRET, headers: vector.headers, body: vector.body, now: NOW, toleranceSeconds: -1 }),
    ).toThrow(TypeError);
    expect(() =>
      verifyWebhook({
        secret: SECRET,
        headers: vector.headers,
        body: vector.body,
        now: NOW,
        toleranceSeconds: Number.POSITIVE_INFINITY,
      }),
    ).toThrow(TypeError);
  });
});

describe('headers', () => {
  const names = ['Service-Event-Id', 'Service-Timestamp', 'Service-Signature'] as const;

  for (const name of names) {
    it(`a missing ${name} is cabecalho_ausente, naming it`, () => {
      const headers: Record<string, string> = { ...vector.headers };
      delete headers[name];
      const result = verifyWebhook({ secret: SECRET, headers, body: vector.body, now: NOW });
      expectFailure(result, 'cabecalho_ausente');
      if (!result.ok) expect(result.message).toContain(name);
      const fetchHeaders = new Headers(headers);
      expectFailure(
        verifyWebhook({ secret: SECRET, headers: fetchHeaders, body: vector.body, now: NOW }),
        'cabecalho_ausente',
      );
      for (const empty of [undefined, '', '   ', []]) {
        expectFailure(
          verifyWebhook({ secret: SECRET, headers: { ...vector.headers, [name]: empty }, body: vector.body, now: NOW }),
          'cabecalho_ausente',
        );
      }
    });
  }

  it('no headers at all names all three', () => {
    const result = verifyWebhook({ secret: SECRET, headers: {}, body: vector.body, now: NOW });
    expectFailure(result, 'cabecalho_ausente');
    if (!result.ok) for (const name of names) expect(result.message).toContain(name);
  });

  it('a missing header is reported before an invalid timestamp', () => {
    expectFailure(
      verifyWebhook({
        secret: SECRET,
        headers: { 'Service-Timestamp': 'x', 'Service-Signature': 'y' },
        body: vector.body,
        now: NOW,
      }),
      'cabecalho_ausente',
    );
  });

  it('a fetch Headers object is read', () => {
    expect(
      verifyWebhook({ secret: SECRET, headers: new Headers(vector.headers), body: vector.body, now: NOW }).ok,
    ).toBe(true);
  });

  it('plain records are read whatever the casing of their keys', () => {
    const lower = Object.fromEntries(Object.entries(vector.headers).map(([k, v]) => [k.toLowerCase(), v]));
    const upper = Object.fromEntries(Object.entries(vector.headers).map(([k, v]) => [k.toUpperCase(), v]));
    const odd = {
      'sErViCe-EvEnT-iD': vector.headers['Service-Event-Id'],
      'SERVICE-timestamp': vector.headers['Service-Timestamp'],
      'service-SIGNATURE': vector.headers['Service-Signature'],
    };
    for (const headers of [lower, upper, odd])
      expect(verifyWebhook({ secret: SECRET, headers, body: vector.body, now: NOW }).ok).toBe(true);
  });

  it('array values take the first element, as node:http gives repeated headers', () => {
    const headers = {
      'service-event-id': [vector.headers['Service-Event-Id'], 'other'],
      'service-timestamp': [vector.headers['Service-Timestamp'], '0'],
      'service-signature': [vector.headers['Service-Signature'], 'v1=00'],
      'content-type': 'application/json',
    };
    expect(verifyWebhook({ secret: SECRET, headers, body: vector.body, now: NOW }).ok).toBe(true);
    expectFailure(
      verifyWebhook({
        secret: SECRET,
        headers: { ...headers, 'service-signature': ['v1=00', vector.headers['Service-Signature']] },
        body: vector.body,
        now: NOW,
      }),
      'assinatura_invalida',
    );
  });

  it('surrounding whitespace in values is ignored, as HTTP parsers strip it', () => {
    const headers = Object.fromEntries(Object.entries(vector.headers).map(([k, v]) => [k, ` ${v}\t`]));
    expect(verifyWebhook({ secret: SECRET, headers, body: vector.body, now: NOW }).ok).toBe(true);
  });
});

describe('several signatures', () => {
  const good = vector.headers['Service-Signature'];
  const other = signatureOf('svc_whsec_other', TS, EVENT_ID, vector.body);

  it('is accepted when any v1 signature matches, in any position', () => {
    for (const signature of [
      `${other} ${good}`,
      `${good} ${other}`,
      `v0=abc ${good}`,
      `${other}  ${good} v2=zz`,
      `${other}, ${good}`,
    ]) {
      expect(
        verifyWebhook({
          secret: SECRET,
          headers: { ...vector.headers, 'Service-Signature': signature },
          body: vector.body,
          now: NOW,
        }).ok,
      ).toBe(true);
    }
  });

  it('repeated header lines joined by a Headers object are accepted', () => {
    const headers = new Headers(vector.headers);
    headers.set('Service-Signature', other);
    headers.append('Service-Signature', good);
    expect(headers.get('Service-Signature')).toBe(`${other}, ${good}`);
    expect(verifyWebhook({ secret: SECRET, headers, body: vector.body, now: NOW }).ok).toBe(true);
  });

  it('is refused when none matches', () => {
    expectFailure(
      verifyWebhook({
        secret: SECRET,
        headers: { ...vector.headers, 'Service-Signature': `${other} v1=abc v2=${good.slice(3)}` },
        body: vector.body,
        now: NOW,
      }),
      'assinatura_invalida',
    );
  });

  it('supports rotation: a delivery signed with the old and the new secret verifies with either', () => {
    const oldSecret = 'svc_whsec_old';
    const newSecret = 'svc_whsec_new';
    const signature = `${signatureOf(oldSecret, TS, EVENT_ID, vector.body)} ${signatureOf(newSecret, TS, EVENT_ID, vector.body)}`;
    for (const secret of [oldSecret, newSecret]) {
      expect(
        verifyWebhook({
          secret,
          headers: { ...vector.headers, 'Service-Signature': signature },
          body: vector.body,
          now: NOW,
        }).ok,
      ).toBe(true);
    }
  });
});

describe('body', () => {
  it('a Uint8Array with non-UTF-8 bytes does not throw: unsigned it fails the signature, signed it is corpo_invalido', () => {
    const body = Uint8Array.from([0x7b, 0xff, 0xfe, 0xc3, 0x28, 0x7d]);
    expectFailure(verifyWebhook({ secret: SECRET, headers: vector.headers, body, now: NOW }), 'assinatura_invalida');
    expectFailure(verifySigned(body), 'corpo_invalido');
  });

  it('an envelope with a non-UTF-8 byte inside a string is corpo_invalido rather than silently replaced', () => {
    const text = envelopeBody(EVENT_ID, { nome: 'X' });
    const bytes = Uint8Array.from(Buffer.from(text));
    bytes[text.indexOf('"X"') + 1] = 0xff;
    expectFailure(verifySigned(bytes), 'corpo_invalido');
  });

  it('a Uint8Array view into a larger buffer is hashed over its own bytes only', () => {
    const padded = Buffer.from(`xx${vector.body}yy`);
    const view = new Uint8Array(padded.buffer, padded.byteOffset + 2, padded.length - 4);
    expect(verifyWebhook({ secret: SECRET, headers: vector.headers, body: view, now: NOW }).ok).toBe(true);
  });

  it('a signed body that is not JSON is corpo_invalido', () => {
    for (const body of ['', 'not json', '{"id":', '\uFEFF' + vector.body])
      expectFailure(verifySigned(body), 'corpo_invalido');
  });

  it('a signed body that is valid JSON but not an envelope is corpo_invalido', () => {
    const base = JSON.parse(vector.body) as Record<string, unknown>;
    const variants: unknown[] = [
      null,
      42,
      'text',
      [base],
      {},
      { ...base, id: 7 },
      { ...base, versao: 2 },
      { ...base, versao: '1' },
      { ...base, empresa: 11222333 },
      { ...base, empresa: '1122233' },
      { ...base, empresa: '112223334' },
      { ...base, empresa: '1122233a' },
      { ...base, ocorridoEm: null },
      { ...base, dados: null },
      { ...base, dados: [] },
      { ...base, dados: 'catalogo.aplicado' },
      { ...base, dados: {} },
      { ...base, dados: { tipo: 1 } },
    ];
    for (const [key] of Object.entries(base)) {
      const without = { ...base };
      delete without[key];
      variants.push(without);
    }
    for (const value of variants) {
      const result = verifySigned(JSON.stringify(value));
      expectFailure(result, 'corpo_invalido');
      if (!result.ok) expect(result.message).toMatch(/envelope|JSON/);
    }
  });

  it('extra fields in the envelope and in dados are kept', () => {
    const body = envelopeBody(EVENT_ID, { catalogoId: 'abc', novo: [1, 2] }).replace(/}$/, ',"extra":true}');
    const result = verifySigned(body);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.event.dados).toEqual({ tipo: 'webhook.teste', catalogoId: 'abc', novo: [1, 2] });
      expect((result.event as unknown as Record<string, unknown>).extra).toBe(true);
    }
  });
});

describe('caller mistakes', () => {
  it('an empty secret throws rather than verifying with a public key', () => {
    expect(() => verifyWebhook({ secret: '', headers: vector.headers, body: vector.body, now: NOW })).toThrow(
      /non-empty/,
    );
    expect(() =>
      verifyWebhook({ secret: undefined as unknown as string, headers: vector.headers, body: vector.body, now: NOW }),
    ).toThrow(TypeError);
    expect(() => signatureOf('', TS, EVENT_ID, vector.body)).toThrow(TypeError);
    expect(() => signWebhook({ secret: '', eventId: EVENT_ID, body: vector.body, timestamp: TS })).toThrow(TypeError);
  });

  it('a timestamp that is not whole non-negative seconds throws when signing', () => {
    for (const timestamp of [1.5, -1, Number.NaN, 1e21, NOW * 1e6]) {
      expect(() => signWebhook({ secret: SECRET, eventId: EVENT_ID, body: vector.body, timestamp })).toThrow(TypeError);
      expect(() => signatureOf(SECRET, timestamp, EVENT_ID, vector.body)).toThrow(TypeError);
    }
  });
});
