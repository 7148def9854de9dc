/**
 * Property: whatever a real receiver does with a delivery, the attempt records exactly the row of docs/webhooks.md
 * ("Delivery") for it (spec: WH-EVT-55, WH-EVT-56, WH-EVT-12): only a completed 2xx is `entregue`; a complete 3xx is
 * `falhou redirecionamento_nao_seguido` and any other complete status `falhou status_nao_2xx`, with the status; a
 * response cut short, whatever its status, is `incerta resposta_incompleta` with the status that arrived; a connection
 * broken before any answer is `incerta conexao_interrompida`; a refused one `falhou conexao_recusada`; silence, or a
 * body that never ends, is `incerta tempo_esgotado` at the time-out.
 *
 * The receiver is a node:http server on loopback (spec-tests/support/webhooks.ts) that writes each answer as
 * raw bytes: any status, a body of any length framed by Content-Length, chunked encoding or the connection's
 * close, sent whole or cut anywhere after the headers and then closed (FIN) or reset (RST). It is reached
 * through a route added with POST /_emulator/network/routes; a refused connection goes to a closed port.
 * Each run has its own emulator. A silent receiver's has an attempt time-out of 200 ms (virtual, and real for
 * the HTTP exchange), so each costs 200 ms; the others keep the default 15 s, so that no answer of a loaded
 * machine arrives too late to count.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addRoute,
  advance,
  attemptsOf,
  clockNow,
  closedPort,
  createDestination,
  iso,
  rawResponse,
  raiseEvent,
  Receiver,
  type RawReply,
  type Reply,
} from '../support/webhooks.js';
import { lab, PROPERTY_TIMEOUT, runs } from './support/lab.js';

/** The attempt time-out of the runs whose receiver is silent. */
const SILENT_TIMEOUT_MS = 200;
const HOST = 'https://hooks-property.example.com';

/** How a body's end is told: its Content-Length, chunked encoding's last chunk, or the connection's close. */
type Framing = 'length' | 'chunked' | 'close';

type Act =
  /** A whole response; the connection is then closed, or held open (framing by length or chunks needs no close). */
  | {
      readonly kind: 'complete';
      readonly status: number;
      readonly framing: Framing;
      readonly body: string;
      readonly chunk: number;
      readonly then: 'close' | 'hold';
    }
  /** The headers, then `cut` of the body bytes the framing calls for (never all of them), then FIN or RST. */
  | {
      readonly kind: 'cut';
      readonly status: number;
      readonly framing: Framing;
      readonly body: string;
      readonly chunk: number;
      readonly cut: number;
      readonly then: 'close' | 'reset';
    }
  /** The request is read, then the connection is dropped (FIN) or reset (RST) before any answer. */
  | { readonly kind: 'reset'; readonly rst: boolean }
  | { readonly kind: 'refused' }
  /** Nothing at all, or the headers and part of a body that never ends: the connection stays open. */
  | {
      readonly kind: 'silent';
      readonly begun: { readonly status: number; readonly framing: 'length' | 'chunked'; readonly body: string } | null;
    };

/** Statuses whose answers never have a body (RFC 9110: 204 and 304 end at their headers). */
const BODILESS = new Set([204, 304]);

const body = fc.string({ unit: 'grapheme-ascii', maxLength: 3_000 });
const framing = fc.constantFrom<Framing>('length', 'chunked', 'close');
const chunk = fc.integer({ min: 1, max: 1_024 });
const anyStatus = fc.oneof(
  fc.integer({ min: 200, max: 299 }),
  fc.integer({ min: 300, max: 399 }),
  fc.integer({ min: 400, max: 599 }),
);

const complete = (status: fc.Arbitrary<number>) =>
  fc
    .record({
      kind: fc.constant('complete' as const),
      status,
      framing,
      body,
      chunk,
      then: fc.constantFrom<'close' | 'hold'>('close', 'hold'),
    })
    .map((a): Act => {
      if (BODILESS.has(a.status)) return { ...a, framing: 'length', body: '' };
      // A close-delimited body ends only with the close.
      return a.framing === 'close' ? { ...a, then: 'close' } : a;
    });

const cut = (status: fc.Arbitrary<number>) =>
  fc
    .record({
      kind: fc.constant('cut' as const),
      status: status.filter((s) => !BODILESS.has(s)),
      framing,
      body,
      chunk,
      cut: fc.nat(),
      then: fc.constantFrom<'close' | 'reset'>('close', 'reset'),
    })
    // A clean close ends a close-delimited body: only a reset cuts it.
    .map((a): Act => (a.framing === 'close' ? { ...a, then: 'reset' } : a));

const act: fc.Arbitrary<Act> = fc.oneof(
  { weight: 4, arbitrary: complete(fc.integer({ min: 200, max: 299 })) },
  { weight: 3, arbitrary: cut(fc.integer({ min: 200, max: 299 })) },
  { weight: 3, arbitrary: complete(anyStatus.filter((s) => s >= 300)) },
  { weight: 2, arbitrary: cut(anyStatus.filter((s) => s >= 300)) },
  { weight: 1, arbitrary: fc.boolean().map((rst): Act => ({ kind: 'reset', rst })) },
  { weight: 1, arbitrary: fc.constant<Act>({ kind: 'refused' }) },
  {
    weight: 1,
    arbitrary: fc
      .option(
        fc.record({
          status: anyStatus.filter((s) => !BODILESS.has(s)),
          framing: fc.constantFrom<'length' | 'chunked'>('length', 'chunked'),
          body,
        }),
        { nil: null },
      )
      .map((begun): Act => ({ kind: 'silent', begun })),
  },
);

const LAST_CHUNK = '0\r\n\r\n';

/** The body as its framing sends it: as is, or in chunks of `size` bytes then the last chunk. */
function encoded(framing: Framing, text: string, size: number): string {
  if (framing !== 'chunked') return text;
  let out = '';
  for (let at = 0; at < text.length; at += size) {
    const piece = text.slice(at, at + size);
    out += `${piece.length.toString(16)}\r\n${piece}\r\n`;
  }
  return `${out}${LAST_CHUNK}`;
}

function headers(framing: Framing, text: string): Record<string, string> {
  if (framing === 'length') return { 'content-length': String(text.length) };
  if (framing === 'chunked') return { 'transfer-encoding': 'chunked' };
  return { connection: 'close' };
}

/** What the receiver writes for `a` (refused never reaches it). */
function reply(a: Act): Reply {
  const raw = (bytes: string, then: RawReply['then']): Reply => ({ status: 0, raw: { bytes, then } });
  switch (a.kind) {
    case 'complete':
      return raw(rawResponse(a.status, headers(a.framing, a.body), encoded(a.framing, a.body, a.chunk)), a.then);
    case 'cut': {
      // Bytes of the body as framed: a cut keeps fewer than all of them (a close-delimited one may keep all: the reset cuts it).
      const whole = encoded(a.framing, a.body, a.chunk);
      const kept = a.framing === 'close' ? a.cut % (whole.length + 1) : a.cut % Math.max(whole.length, 1);
      // A Content-Length body that is empty cannot be cut: it declares one byte more than it has.
      const declared =
        a.framing === 'length' ? { 'content-length': String(Math.max(a.body.length, 1)) } : headers(a.framing, a.body);
      return raw(rawResponse(a.status, declared, whole.slice(0, kept)), a.then);
    }
    case 'reset':
      return a.rst ? raw('', 'reset') : { status: 0, destroy: true };
    case 'silent': {
      if (a.begun === null) return raw('', 'hold');
      const { status, framing: f, body: text } = a.begun;
      // A Content-Length body one byte short, or a chunked body without its last chunk: it never ends.
      if (f === 'length') return raw(rawResponse(status, { 'content-length': String(text.length + 1) }, text), 'hold');
      return raw(rawResponse(status, headers(f, text), encoded(f, text, 512).slice(0, -LAST_CHUNK.length)), 'hold');
    }
    case 'refused':
      throw new Error('a refused connection reaches no receiver');
  }
}

interface Row {
  readonly estado: string;
  readonly codigo_falha: string | null;
  readonly status_http: number | null;
  /** When the attempt ends, after its start: at once, or at the time-out. */
  readonly afterMs: number;
}

/** The docs/webhooks.md's "Delivery" table, written from it alone. */
function row(a: Act): Row {
  switch (a.kind) {
    case 'complete':
      if (a.status < 300) return { estado: 'entregue', codigo_falha: null, status_http: a.status, afterMs: 0 };
      if (a.status < 400)
        return { estado: 'falhou', codigo_falha: 'redirecionamento_nao_seguido', status_http: a.status, afterMs: 0 };
      return { estado: 'falhou', codigo_falha: 'status_nao_2xx', status_http: a.status, afterMs: 0 };
    case 'cut':
      return { estado: 'incerta', codigo_falha: 'resposta_incompleta', status_http: a.status, afterMs: 0 };
    case 'reset':
      return { estado: 'incerta', codigo_falha: 'conexao_interrompida', status_http: null, afterMs: 0 };
    case 'refused':
      return { estado: 'falhou', codigo_falha: 'conexao_recusada', status_http: null, afterMs: 0 };
    case 'silent':
      return { estado: 'incerta', codigo_falha: 'tempo_esgotado', status_http: null, afterMs: SILENT_TIMEOUT_MS };
  }
}

let receiver: Receiver;
let current: Act = { kind: 'refused' };
let refusedOrigin = '';

beforeAll(async () => {
  receiver = await Receiver.start(() => reply(current));
  refusedOrigin = `http://127.0.0.1:${await closedPort()}`;
});
afterAll(async () => {
  await receiver.close();
});

describe('delivery outcome follows the receiver', { timeout: PROPERTY_TIMEOUT }, () => {
  // spec: WH-EVT-12, WH-EVT-55, WH-EVT-56
  it('for any receiver behaviour, the attempt is exactly its row in the docs: estado, codigo_falha, status_http and when it ends', async () => {
    await fc.assert(
      fc.asyncProperty(act, async (a) => {
        current = a;
        const { emu, target, controls, company, api } = lab(
          a.kind === 'silent' ? { webhooks: { attemptTimeout: SILENT_TIMEOUT_MS } } : {},
        );
        const w = { target, controls, company, api };
        const host = `${HOST}/${randomUUID().slice(0, 8)}`;
        await createDestination(w, `${host}/recebe`);
        await addRoute(w, host, a.kind === 'refused' ? refusedOrigin : receiver.origin);
        const before = receiver.requests.length;
        const t0 = await clockNow(w);
        const eventId = await raiseEvent(w);
        await advance(w, 0);
        const expected = row(a);
        if (expected.afterMs > 0) await advance(w, expected.afterMs);

        const [attempt, ...more] = await attemptsOf(w, eventId);
        expect(more, 'one attempt').toEqual([]);
        const { afterMs, ...fields } = expected;
        expect(attempt).toEqual({
          tentativa: 1,
          destino_versao: 1,
          iniciada_em: iso(t0),
          terminada_em: iso(t0 + afterMs),
          ...fields,
        });
        expect(receiver.requests.length - before, 'requests the receiver got').toBe(a.kind === 'refused' ? 0 : 1);
        expect(emu.inbox.list(), 'nothing lands in the inbox').toEqual([]);
      }),
      { numRuns: runs(60) },
    );
  });
});
