/**
 * The API as one hono app, built once per process and shared by every emulator instance (each request
 * carries its emulator in hono's env). Cross-cutting here: request id, journal, unknown routes and methods,
 * and the guarantee that no input yields a 5xx.
 */
import { Hono, type Context as HonoContext } from 'hono';
import { apiError, errorResponse } from './errors.js';
import { bearerToken, type Operation } from './pipeline.js';
import { catalogDeletionOperations, catalogOperations } from './routes/catalogs.js';
import { companyOperations } from './routes/company.js';
import { establishmentOperations } from './routes/establishments.js';
import { productOperations } from './routes/products.js';
import { webhookOperations } from './routes/webhooks.js';
import { surveillanceOperations } from './routes/surveillance.js';
import { analysisOperations } from './routes/analyses.js';
import { executionOperations } from './routes/executions.js';
import { ingestionOperations } from './routes/ingestions.js';
import type { HttpEnv } from './runtime.js';

export const operations: readonly Operation[] = [
  ...companyOperations,
  ...establishmentOperations,
  // Before the catalog operations: /v1/catalogos/ingestoes would otherwise match /v1/catalogos/:id.
  ...ingestionOperations,
  ...catalogOperations,
  ...catalogDeletionOperations,
  ...productOperations,
  ...webhookOperations,
  ...surveillanceOperations,
  ...analysisOperations,
  ...executionOperations,
];

export function buildApiApp(): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.use('/v1/*', async (c, next) => {
    // The world is chosen before anything is drawn from it: a company on its own clock gets its own request ids.
    const token = bearerToken(c.req.header('authorization') ?? null);
    const runtime = c.env.runtimes.forToken(token);
    c.set('token', token);
    c.set('runtime', runtime);
    const requestId = runtime.nextRequestId();
    c.set('requestId', requestId);
    const journal = { companyId: null, idempotencyKey: null, replayed: false, faultId: null };
    c.set('journal', journal);
    const at = new Date(runtime.clock.now()).toISOString();
    await next();
    // Every answer is built with its x-request-id (the pipeline's and the handlers' below) rather than given it
    // here: over HTTP, touching c.res.headers turns @hono/node-server's plain header object into a Headers,
    // which it must then copy back out, on every request.
    runtime.record({ at, method: c.req.method, path: c.req.path, status: c.res.status, requestId, ...journal });
  });

  const methodsByPath = new Map<string, string[]>();
  for (const op of operations) methodsByPath.set(op.path, [...(methodsByPath.get(op.path) ?? []), op.method]);
  const notAllowed = (allow: string) => (c: HonoContext<HttpEnv>) => {
    const requestId = c.get('requestId');
    return errorResponse(apiError(405, 'metodo_nao_permitido', `${c.req.method} is not an operation of ${c.req.path}; allowed: ${allow}.`, undefined, { allow }), requestId, { 'x-request-id': requestId });
  };
  const allowOf = (methods: string[]) => [...new Set(methods.includes('GET') ? [...methods, 'HEAD'] : methods)];
  // A path without parameters is exactly that path: another method there is 405 at once, before a path with a
  // parameter could take it (GET /v1/catalogos/ingestoes is not GET /v1/catalogos/{id} with id "ingestoes").
  for (const [path, methods] of methodsByPath) {
    if (path.includes(':')) continue;
    const allowed = allowOf(methods);
    const refuse = notAllowed(allowed.join(', '));
    app.all(path, (c, next) => (allowed.includes(c.req.method) ? next() : refuse(c)));
  }
  for (const op of operations) app.on(op.method, op.path, (c) => op.handle(c));
  // A known path with another method: 405 with Allow, after the operations so they match first.
  for (const [path, methods] of methodsByPath) app.all(path, notAllowed(allowOf(methods).join(', ')));

  app.notFound((c) => {
    const requestId = c.get('requestId') ?? c.env.runtimes.forToken(undefined).nextRequestId();
    return errorResponse(apiError(404, 'rota_nao_encontrada', `No operation at ${c.req.method} ${c.req.path}. Paths begin with /v1 (API) or /_emulator (controls).`), requestId, { 'x-request-id': requestId });
  });

  // A bug must still answer with the error body, and say it is ours, not the integrator's.
  app.onError((error, c) => {
    const requestId = c.get('requestId') ?? 'sem-request-id';
    return errorResponse(apiError(500, 'erro_interno', `Emulator bug (please report it): ${error.message}`), requestId, { 'x-request-id': requestId });
  });

  return app;
}
