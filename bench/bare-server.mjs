// The HTTP reference: a bare @hono/node-server app answering the emulator's requests with the same JSON and the
// same answer headers (content type, ETag, x-request-id), and nothing else: no credential, idempotency-key or
// If-Match check, no store. argv[2]: {"catalog": <the emulator's catalog JSON>, "product": <a product's JSON>}.
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';

const { catalog = {}, product = {} } = JSON.parse(process.argv[2] ?? '{}');
let version = 0;
const app = new Hono();
app.get('/v1/catalogos/:id', (c) => c.json(catalog, 200, { etag: '"0123456789abcdef"', 'x-request-id': randomUUID() }));
// The body read as JSON as the emulator reads it; the answer the product with the path's id, the change applied
// and a new ETag (the PATCH load generator reads the id and ETag back to send the product's next change).
app.patch('/v1/produtos/:id', async (c) => {
  const change = await c.req.json();
  const n = ++version;
  const etag = `"${n.toString(16).padStart(16, '0')}"`;
  return c.json({ ...product, ...change, id: c.req.param('id'), versao: n }, 200, {
    etag,
    'x-request-id': randomUUID(),
  });
});
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`listening on http://127.0.0.1:${info.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
