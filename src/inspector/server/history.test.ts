/**
 * The history's memory under a long run: past its bound of bytes, the heap it retains stops growing. Measured with
 * the collector run (exposed for this test through v8's flags) between phases, on the retained heap itself.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { Emulator } from '../../emulator.js';
import type { EmulatorOptions } from '../../engine/config.js';
import { MAX_HEADER, MAX_PATH } from '../../core/kept-text.js';
import { ENTRY_BYTES, History } from './history.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/** An emulator whose history the test reads (its feed's recorder). */
class Observed extends Emulator {
  get history(): History | undefined {
    const recorder = this.engine.activity.recorder;
    return recorder instanceof History ? recorder : undefined;
  }
}

const made: Emulator[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((emu) => emu.close()));
});
/** An Observed emulator (seed 5), closed after the test. */
function observed(options: EmulatorOptions = {}): Observed {
  const emu = new Observed({ seed: 5, ...options });
  made.push(emu);
  return emu;
}

describe('the history under a long run', () => {
  it('20,000 requests with 4 KiB bodies: its counted bytes stay within the bound, and the heap it retains stops growing at it', {
    timeout: 120_000,
  }, async () => {
    const bound = 4 * 1024 * 1024;
    const emu = observed({ inspector: { historyBytes: bound } });
    const acme = emu.companies.create();
    const history = emu.history;
    expect(history).toBeInstanceOf(History);
    const body = JSON.stringify({ nome: 'x'.repeat(4096) });
    const headers = { authorization: `Bearer ${acme.token}`, 'content-type': 'application/json' };
    let n = 0;
    const send = async (count: number) => {
      for (let i = 0; i < count; i++, n++) {
        const answer = await emu.fetch('/v1/catalogos', {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': `catalog-long-run-${n}` },
          body,
        });
        if (answer.status !== 422) throw new Error(`request ${n}: ${answer.status}`);
      }
    };
    const before = heap();
    // The journal fills at 10,000 and the ring at its bound well before 12,000 requests: both are full from here.
    await send(12_000);
    const full = heap();
    await send(8_000);
    const after = heap();
    const counts = history!.counts();
    expect(counts.bytes).toBeLessThanOrEqual(bound);
    expect(counts.dropped).toBeGreaterThan(15_000);
    // Retained by the full ring and journal: the bound and a few MiB of journal records and bookkeeping.
    expect(full - before).toBeLessThan(bound + 12 * 1024 * 1024);
    // 8,000 requests more (32 MiB of bodies sent, eight times the bound): what is retained has not grown past a small
    // noise.
    expect(after - full).toBeLessThan(2 * 1024 * 1024);
  });
});

describe('the ring', () => {
  it('keeps each request whole, in order, as it grows, wraps around its end and loses one company to a reset', async () => {
    // 1,500 entries: the ring grows past its first 1,024 slots, then wraps around its end many times over.
    const emu = observed({ clock: 'manual', inspector: { historyEntries: 1_500 } });
    const [acme, other] = [emu.companies.create(), emu.companies.create()];
    const sent: { companyId: string; requestId: string; path: string }[] = [];
    for (let i = 0; i < 4_321; i++) {
      const company = i % 3 === 0 ? other : acme;
      // Paths of every length, some with a line break and a non-Latin-1 character: the journal line is kept as sent.
      const path = `/v1/produtos/${'x'.repeat(i % 50)}${i % 7 === 0 ? '%0A%E2%82%AC' : ''}-${i}`;
      const answer = await emu.fetch(path, { headers: { authorization: `Bearer ${company.token}` } });
      sent.push({
        companyId: company.companyId,
        requestId: answer.headers.get('x-request-id')!,
        path: decodeURIComponent(path),
      });
    }
    const kept = () =>
      [...emu.history!.entries()].map((e) =>
        e.kind === 'request' ? { companyId: e.companyId, requestId: e.record.requestId, path: e.record.path } : e.kind,
      );
    expect(kept()).toEqual(sent.slice(-1_500));
    expect(emu.history!.counts()).toMatchObject({ entries: 1_500, dropped: 4_321 - 1_500 });
    const last = sent.at(-1)!;
    expect(emu.history!.request(last.companyId, last.requestId)?.record.path).toBe(last.path);

    emu.companies.reset(other.companyId);
    const acmeOnly = sent.slice(-1_500).filter((r) => r.companyId === acme.companyId);
    expect(kept()).toEqual(acmeOnly);
    // The ring goes on from there, and drops its oldest again once full.
    for (let i = 0; i < 600; i++) {
      const answer = await emu.fetch(`/v1/produtos/after-${i}`, { headers: { authorization: `Bearer ${acme.token}` } });
      acmeOnly.push({
        companyId: acme.companyId,
        requestId: answer.headers.get('x-request-id')!,
        path: `/v1/produtos/after-${i}`,
      });
    }
    expect(kept()).toEqual(acmeOnly.slice(-1_500));
  });
});

describe('the entries other than requests', () => {
  it('keeps a delivery attempt as the emulator told it: a listener gets it frozen, and what it tries on it reaches neither the history nor other listeners', async () => {
    const emu = observed({ clock: 'manual' });
    const acme = emu.companies.create();
    const put = await emu.fetch('/v1/webhook', {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${acme.token}`,
        'content-type': 'application/json',
        'idempotency-key': 'history-frozen-00001',
        'if-none-match': '*',
      },
      body: JSON.stringify({ url: 'https://hooks.acme.example/in' }),
    });
    expect(put.status).toBe(201);
    emu.network.route('https://hooks.acme.example', () => new Response(null, { status: 500 }));
    const refusals: string[] = [];
    const seen: unknown[] = [];
    emu.activity.subscribe((entry) => {
      if (entry.kind !== 'delivery') return;
      try {
        (entry as { url: string }).url = 'https://elsewhere.example/';
      } catch (error) {
        refusals.push((error as Error).name);
      }
    });
    emu.activity.subscribe((entry) => entry.kind === 'delivery' && seen.push(entry));
    emu.webhooks.raise(acme.companyId, {
      tipo: 'catalogo.aplicado',
      catalogoId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      versao: 1,
    });
    await emu.clock.advance(0);

    expect(refusals).toEqual(['TypeError']);
    expect(seen).toEqual([
      expect.objectContaining({
        kind: 'delivery',
        url: 'https://hooks.acme.example/in',
        outcome: 'falhou',
        status: 500,
        attempt: 1,
      }),
    ]);
    expect(Object.isFrozen(seen[0])).toBe(true);
    const kept = [...emu.history!.entries()].filter((entry) => entry.kind === 'delivery');
    expect(kept).toEqual([
      expect.objectContaining({
        kind: 'delivery',
        url: 'https://hooks.acme.example/in',
        outcome: 'falhou',
        companyId: acme.companyId,
        atMs: Date.parse((seen[0] as { at: string }).at),
        bytes: ENTRY_BYTES,
      }),
    ]);
    // Its place: after the PUT's request entry.
    expect(kept[0]!.seq).toBeGreaterThan(1);
  });
});

describe('what a request leaves in the history, whoever sent it', () => {
  it("keeps each header's name and value, a control call's path and If-Match's tags to a bounded length", async () => {
    const emu = observed({ clock: 'manual' });
    const acme = emu.companies.create();
    const long = 'v'.repeat(5_000);
    const tags = Array.from({ length: 300 }, (_, i) => `"${String(i).padStart(16, '0')}"`).join(', ');
    const answer = await emu.fetch(`/v1/produtos/${'a'.repeat(5_000)}`, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${acme.token}`,
        'x-long': long,
        [`x-${'n'.repeat(2_000)}`]: 'short',
        'if-match': tags,
        'idempotency-key': 'history-long-headers-0001',
        'content-type': 'application/json',
      },
      body: '{}',
    });
    const kept = emu.history!.request(acme.companyId, answer.headers.get('x-request-id')!)!;
    const headers = new Map<string, string>();
    const sent = kept.requestHeaders;
    for (let i = 0; i + 1 < sent.length; i += 2) headers.set(sent[i]!, sent[i + 1]!);
    expect(headers.get('x-long')).toBe(`${'v'.repeat(MAX_HEADER)}…`);
    expect(headers.get(`x-${'n'.repeat(MAX_HEADER - 2)}…`)).toBe('short');
    expect(headers.get('idempotency-key')).toBe('history-long-headers-0001');
    expect(kept.record.path).toBe(`/v1/produtos/${'a'.repeat(MAX_PATH - '/v1/produtos/'.length)}…`);
    // The tags that fit in MAX_HEADER characters, then the mark (never an entity tag: it is not quoted).
    expect(kept.record.ifMatch).toHaveLength(Math.floor(MAX_HEADER / 18) + 1);
    expect(kept.record.ifMatch!.at(-1)).toBe('…');
    // A control call refused for its path (no control there) is kept with its path cut too.
    await emu.fetch(`/_emulator/companies/${'c'.repeat(5_000)}/reset`, { method: 'POST' });
    const control = [...emu.history!.entries()].find((e) => e.kind === 'control');
    const start = '/_emulator/companies/';
    expect(control).toMatchObject({ kind: 'control', path: `${start}${'c'.repeat(MAX_PATH - start.length)}…` });
  });
});
