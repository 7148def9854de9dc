/**
 * The inspector's data routes, under /_emulator/inspector (mounted by src/control/routes.ts, so the Host check, the
 * control token and the controls' error bodies apply to them as to every control). Reads only: the page drives the
 * emulator through the existing controls. The first call of any of them opens the inspector (inspector.ts).
 */
import { Hono, type Context } from 'hono';
import type { ActivityFeed } from '../../engine/activity.js';
import { apiError, CONTROL_REQUEST_ID, errorResponse, type ApiError } from '../../http/errors.js';
import { inspectorOf, UnknownCompany, UnknownItem } from './inspector.js';
import { decodeCursor, DEFAULT_LIMIT, MAX_LIMIT, type TimelinePage } from './timeline.js';

/** The emulator's activity feed: the port the inspector is made with. */
type InspectorEnv = { Bindings: { runtimes: { readonly activity: ActivityFeed } } };

const fail = (error: ApiError) => errorResponse(error, CONTROL_REQUEST_ID);

/** The query's parameters, each given at most once and each one of `known`; else the 422 naming the first wrong one. */
function query(c: Context<InspectorEnv>, known: readonly string[]): Record<string, string> | Response {
  const values: Record<string, string> = {};
  for (const [name, given] of Object.entries(c.req.queries())) {
    const caminho = `query.${name}`;
    if (!known.includes(name)) return fail(apiError(422, 'valor_invalido', `${caminho} is not a parameter of this route; it takes ${known.join(', ')}.`, caminho));
    if (given.length > 1) return fail(apiError(422, 'valor_invalido', `${caminho} must be given once; got ${given.length} values.`, caminho));
    values[name] = given[0]!;
  }
  return values;
}

/** The page a timeline query asks for; else its 422. */
function timelinePage(values: Record<string, string>): TimelinePage | Response {
  let limit = DEFAULT_LIMIT;
  if (values.limit !== undefined) {
    if (!/^\d{1,7}$/.test(values.limit) || Number(values.limit) < 1 || Number(values.limit) > MAX_LIMIT) {
      return fail(apiError(422, 'valor_invalido', `query.limit must be a whole number from 1 to ${MAX_LIMIT}; got ${JSON.stringify(values.limit)}.`, 'query.limit'));
    }
    limit = Number(values.limit);
  }
  const before = values.before === undefined ? undefined : decodeCursor(values.before);
  if (values.before !== undefined && before === undefined) {
    return fail(apiError(422, 'valor_invalido', 'query.before must be a nextBefore a timeline page gave, as given.', 'query.before'));
  }
  return { limit, before };
}

/** Runs a read of the inspector; its refusals (an unknown company or item) as 404s. */
async function read(run: () => unknown, companyAt = 'path.companyId'): Promise<Response> {
  try {
    const result = await run();
    return result instanceof Response ? result : Response.json(result);
  } catch (error) {
    if (error instanceof UnknownCompany) return fail(apiError(404, 'empresa_nao_encontrada', error.message, companyAt));
    if (error instanceof UnknownItem) return fail(apiError(404, 'item_nao_encontrado', error.message, 'path.itemId'));
    throw error;
  }
}

export function buildInspectorApp(): Hono<InspectorEnv> {
  const app = new Hono<InspectorEnv>();

  app.get('/companies/:companyId/timeline', (c) => {
    const values = query(c, ['limit', 'before']);
    if (values instanceof Response) return values;
    const page = timelinePage(values);
    if (page instanceof Response) return page;
    return read(() => inspectorOf(c.env.runtimes.activity).timeline(c.req.param('companyId'), page));
  });

  app.get('/companies/:companyId/items/:itemId', (c) => {
    const values = query(c, []);
    if (values instanceof Response) return values;
    return read(() => inspectorOf(c.env.runtimes.activity).item(c.req.param('companyId'), c.req.param('itemId')));
  });

  app.get('/stream', (c) => {
    const values = query(c, ['companyId']);
    if (values instanceof Response) return values;
    const { companyId } = values;
    if (companyId === undefined) return fail(apiError(422, 'valor_invalido', 'query.companyId is required: the company whose timeline to follow.', 'query.companyId'));
    return read(() => {
      const body = inspectorOf(c.env.runtimes.activity).stream(companyId, c.req.raw);
      return new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' } });
    }, 'query.companyId');
  });

  return app;
}
