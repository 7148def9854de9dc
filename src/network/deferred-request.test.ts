/**
 * The request an in-process receiver gets is built on first read: it must be indistinguishable from
 * the Request built at once from the same parts, wherever a handler may use it, and build (and sign) nothing
 * until it is read.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { deliveryRequest, requestsDeferred, type RequestParts } from './deferred-request.js';

const parts: RequestParts = {
  url: 'https://hooks.example.com/recebe?x=1',
  headers: {
    'content-type': 'application/json',
    'user-agent': 'catalog-emulator/test',
    'service-event-id': 'e-1',
    'service-timestamp': '1767225600',
    'service-signature': 'v1=ab',
  },
  body: '{"id":"e-1","nome":"café"}',
};
const eager = () => new Request(parts.url, { method: 'POST', headers: parts.headers, body: parts.body });

/** A request from `parts`, and how many times its parts were asked for (what signing an attempt costs). */
function counted(): { request: Request; made: () => number } {
  let made = 0;
  const request = deliveryRequest(() => {
    made++;
    return parts;
  });
  return { request, made: () => made };
}

/** What a receiver can read of a request, body included. */
async function reading(request: Request) {
  return {
    url: request.url,
    method: request.method,
    headers: [...request.headers],
    body: await request.text(),
    bodyUsed: request.bodyUsed,
    aborted: request.signal.aborted,
    redirect: request.redirect,
    tag: Object.prototype.toString.call(request),
  };
}

describe('the request of an in-process delivery', () => {
  it('is deferred on this runtime, whose Request keeps its state in slots a stand-in can forward (undici 6)', () => {
    if (Number(process.versions.undici?.split('.')[0]) === 6) expect(requestsDeferred()).toBe(true);
    expect(typeof requestsDeferred()).toBe('boolean');
  });

  it('reads exactly as the Request built at once from the same parts: url, method, headers in order, body, signal', async () => {
    const { request } = counted();
    expect(request).toBeInstanceOf(Request);
    expect(await reading(request)).toEqual(await reading(eager()));
  });

  it('builds and signs nothing until the handler reads it, then once for every read', async () => {
    const { request, made } = counted();
    expect(made()).toBe(requestsDeferred() ? 0 : 1);
    expect(request.headers.get('service-event-id')).toBe('e-1');
    expect(await request.json()).toEqual({ id: 'e-1', nome: 'café' });
    expect(request.url).toBe(parts.url);
    expect(made()).toBe(1);
  });

  it('passes where a Request is expected: copied as fetch copies one, cloned, read through the prototype, sent by fetch, served by a hono app', async () => {
    expect(await reading(new Request(counted().request))).toEqual(await reading(new Request(eager())));
    expect(await reading(counted().request.clone())).toEqual(await reading(eager().clone()));
    expect(await Request.prototype.text.call(counted().request)).toBe(parts.body);

    // fetch(request) sends it as it is: a loopback server echoes what it got.
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () =>
        response.end(
          JSON.stringify({ method: request.method, url: request.url, id: request.headers['service-event-id'], body }),
        ),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const local = { ...parts, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/recebe?x=1` };
      const echoed = await (await fetch(deliveryRequest(() => local))).json();
      expect(echoed).toEqual({ method: 'POST', url: '/recebe?x=1', id: 'e-1', body: parts.body });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }

    const app = new Hono().post('/recebe', async (c) =>
      c.json({ id: c.req.header('service-event-id'), x: c.req.query('x'), body: await c.req.json() }),
    );
    const answer = await app.fetch(counted().request);
    expect(await answer.json()).toEqual({ id: 'e-1', x: '1', body: { id: 'e-1', nome: 'café' } });
  });

  it('has one body, as a Request has: a second read is refused the same way', async () => {
    const { request } = counted();
    await request.text();
    const real = eager();
    await real.text();
    await expect(request.text()).rejects.toThrow(TypeError);
    await expect(real.text()).rejects.toThrow(TypeError);
  });
});
