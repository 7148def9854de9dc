// The HTTP reference: a bare @hono/node-server route answering the same JSON as the emulator would.
import { Hono } from 'hono';
import { serve } from '@hono/node-server';

const catalog = JSON.parse(process.argv[2] ?? '{}');
const app = new Hono();
app.get('/v1/catalogos/:id', (c) => c.json(catalog, 200, { etag: '"0123456789abcdef"' }));
app.patch('/v1/produtos/:id', async (c) => c.json({ ...catalog, body: await c.req.json() }, 200, { etag: '"0123456789abcdef"' }));
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`listening on http://127.0.0.1:${info.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
