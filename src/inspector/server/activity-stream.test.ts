/**
 * GET /_emulator/activity/stream: the emulator's activity entries live, filtered by company and kind, the stream's
 * own call left out, ended with a frame saying why when the emulator closes or its reader falls 1 MiB behind; and
 * refused (404, 422) for a company or a kind that is none. In process, and over a socket.
 */
import { describe, expect, it } from 'vitest';
import { createEmulator, type ActivityEntry, type Emulator } from '../../index.js';
import { MAX_PATH } from '../../core/kept-text.js';
import { STREAM_BUFFER_BYTES } from './event-stream.js';
import { closedAfterEach } from '../../../spec-tests/support/closed-after-each.js';

const closing = closedAfterEach();

const emulator = (): Emulator => closing(createEmulator({ seed: 3, clock: 'manual' }));

type Frame = { event: string; data: unknown } | { comment: string };

/** Reads server-sent frames from a stream: each `event:`/`data:` block, comments kept as `: …`. */
function frames(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    reader,
    async next(): Promise<Frame | undefined> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(':')) return { comment: block.slice(1).trim() };
          return {
            event: /^event: (.*)$/m.exec(block)?.[1] ?? '',
            data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null') as unknown,
          };
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
      }
    },
  };
}

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

describe('the activity stream', () => {
  it('sends every entry as it is made, the same objects emu.activity gives, without the call that opened it', async () => {
    const emu = emulator();
    const acme = emu.companies.create({ cnpjRoot: '11222333' });
    const seen: ActivityEntry[] = [];
    emu.activity.subscribe((entry) => seen.push(entry));
    const response = await emu.fetch('/_emulator/activity/stream');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const stream = frames(response.body!);
    expect(await stream.next()).toEqual({
      event: 'open',
      data: { companyId: null, kinds: ['request', 'control', 'delivery', 'job', 'finding'] },
    });
    // Its own call was told to the other listener, not to the stream.
    expect(seen).toEqual([expect.objectContaining({ kind: 'control', operation: 'streamActivity', status: 200 })]);
    await emu.fetch('/v1/empresa', { headers: auth(acme.token) });
    await emu.fetch('/_emulator/clock/advance', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"by":"1h"}',
    });
    expect(await stream.next()).toEqual({ event: 'activity', data: seen[1] });
    expect(await stream.next()).toEqual({ event: 'activity', data: seen[2] });
    expect(seen.slice(1).map((e) => e.kind)).toEqual(['request', 'control']);
    // Cancelled by its reader: it stops listening (the other listener stays).
    const feed = (emu as unknown as { engine: { activity: { listening: boolean } } }).engine.activity;
    await stream.reader.cancel();
    const after = seen.length;
    await emu.fetch('/v1/empresa', { headers: auth(acme.token) });
    expect(seen).toHaveLength(after + 1);
    expect(feed.listening).toBe(true);
  });

  it("tells a later stream's call to a stream opened while nobody listened (whose own call was never told)", async () => {
    const emu = emulator();
    const first = frames((await emu.fetch('/_emulator/activity/stream?kinds=control')).body!);
    expect((await first.next()) as { event: string }).toMatchObject({ event: 'open' });
    const second = frames((await emu.fetch('/_emulator/activity/stream?kinds=control')).body!);
    expect(await first.next()).toEqual({
      event: 'activity',
      data: expect.objectContaining({
        kind: 'control',
        operation: 'streamActivity',
        path: '/_emulator/activity/stream',
      }),
    });
    await emu.fetch('/_emulator/clock');
    expect((await second.next()) as { event: string }).toMatchObject({ event: 'open' });
    expect(await second.next()).toEqual({
      event: 'activity',
      data: expect.objectContaining({ operation: 'getClock' }),
    });
    await Promise.all([first.reader.cancel(), second.reader.cancel()]);
  });

  it('keeps to one company and to the kinds asked for', async () => {
    const emu = emulator();
    const acme = emu.companies.create({ cnpjRoot: '11222333' });
    const other = emu.companies.create({ cnpjRoot: '44555666' });
    const stream = frames(
      (await emu.fetch(`/_emulator/activity/stream?companyId=${acme.companyId}&kinds=request,%20delivery`)).body!,
    );
    expect(await stream.next()).toEqual({
      event: 'open',
      data: { companyId: acme.companyId, kinds: ['request', 'delivery'] },
    });
    await emu.fetch('/v1/empresa', { headers: auth(other.token) });
    await emu.fetch(`/_emulator/companies/${acme.companyId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: '{"surveillanceCapacity":2}',
    });
    const mine = await emu.fetch('/v1/empresa', { headers: auth(acme.token) });
    expect(await stream.next()).toEqual({
      event: 'activity',
      data: expect.objectContaining({
        kind: 'request',
        companyId: acme.companyId,
        requestId: mine.headers.get('x-request-id'),
      }),
    });
    await stream.reader.cancel();
  });

  it('ends with {"reason": "closed"} when the emulator closes, after what it held', async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    const stream = frames((await emu.fetch('/_emulator/activity/stream?kinds=request')).body!);
    await emu.fetch('/v1/empresa', { headers: auth(acme.token) });
    await emu.close();
    expect((await stream.next()) as { event: string }).toMatchObject({ event: 'open' });
    expect((await stream.next()) as { event: string }).toMatchObject({ event: 'activity' });
    expect(await stream.next()).toEqual({ event: 'end', data: { reason: 'closed' } });
    expect(await stream.next()).toBeUndefined();
  });

  it('drops what a reader fell STREAM_BUFFER_BYTES behind on and ends with {"reason": "behind"}; it stops listening', async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    const feed = (emu as unknown as { engine: { activity: { listening: boolean } } }).engine.activity;
    const stream = frames((await emu.fetch('/_emulator/activity/stream?kinds=request')).body!);
    expect((await stream.next()) as { event: string }).toMatchObject({ event: 'open' });
    // The longest path the journal keeps whole (a longer one is cut to it): the largest frame of a request.
    const path = `/v1/produtos/${'a'.repeat(MAX_PATH - '/v1/produtos/'.length)}`;
    await emu.fetch(path, { headers: auth(acme.token) });
    const frame = (await stream.next()) as { event: string; data: unknown };
    expect(frame).toMatchObject({ event: 'activity', data: { kind: 'request', path } });
    const size = Buffer.byteLength(`event: activity\ndata: ${JSON.stringify(frame.data)}\n\n`);
    let sent = 0;
    while (feed.listening && sent < 10_000) {
      await emu.fetch(path, { headers: auth(acme.token) });
      sent++;
    }
    expect(feed.listening).toBe(false);
    // Each frame holds the path: the bound fills after about STREAM_BUFFER_BYTES / size of them.
    expect(sent).toBeGreaterThan(STREAM_BUFFER_BYTES / (size * 1.1));
    expect(sent).toBeLessThan(STREAM_BUFFER_BYTES / (size * 0.9) + 2);
    expect(await stream.next()).toEqual({ event: 'end', data: { reason: 'behind' } });
    expect(await stream.next()).toBeUndefined();
  });

  it('over a socket: follows as in process, and stops listening when its client goes away', async () => {
    const emu = emulator();
    const acme = emu.companies.create();
    const feed = (emu as unknown as { engine: { activity: { listening: boolean } } }).engine.activity;
    const server = await emu.listen({ port: 0 });
    const aborting = new AbortController();
    const response = await fetch(`${server.url}/_emulator/activity/stream?companyId=${acme.companyId}`, {
      signal: aborting.signal,
    });
    const stream = frames(response.body!);
    expect((await stream.next()) as { event: string }).toMatchObject({ event: 'open' });
    await fetch(`${server.url}/v1/empresa`, { headers: auth(acme.token) });
    expect(await stream.next()).toEqual({
      event: 'activity',
      data: expect.objectContaining({ kind: 'request', path: '/v1/empresa', status: 200 }),
    });
    expect(feed.listening).toBe(true);
    aborting.abort();
    for (let i = 0; feed.listening && i < 500; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(feed.listening).toBe(false);
  });

  it('refuses an unknown company (404), a kind that is none and any other parameter (422)', async () => {
    const emu = emulator();
    const refused = async (query: string) => {
      const answer = await emu.fetch(`/_emulator/activity/stream?${query}`);
      return [answer.status, ((await answer.json()) as { erro: { codigo: string; caminho: string } }).erro] as const;
    };
    expect(await refused('companyId=nope')).toEqual([
      404,
      expect.objectContaining({ codigo: 'empresa_nao_encontrada', caminho: 'query.companyId' }),
    ]);
    expect(await refused('kinds=request,requests')).toEqual([
      422,
      expect.objectContaining({
        codigo: 'valor_invalido',
        caminho: 'query.kinds',
        mensagem: 'query.kinds takes request, control, delivery, job, finding, comma-separated; got "requests".',
      }),
    ]);
    expect(await refused('kinds=')).toEqual([
      422,
      expect.objectContaining({ codigo: 'valor_invalido', caminho: 'query.kinds' }),
    ]);
    expect(await refused('kind=request')).toEqual([
      422,
      expect.objectContaining({ codigo: 'valor_invalido', caminho: 'query.kind' }),
    ]);
  });
});
