/**
 * The emulator controls over HTTP under /_emulator (DESIGN §6): JSON, camelCase, the API's bearer tokens not
 * needed (an optional control token instead, see guard.ts). Each route is a thin call of the same in-process
 * control (emu.companies, emu.clock, ...).
 */
import { Hono, type Context } from 'hono';
import * as z from 'zod';
import type { EventData } from '../core/webhooks/events.js';
import { registerDemoGate } from '../inspector/server/demo-gate-routes.js';
import { ClockDisposedError, ClockLimitError, ClockRangeError } from '../clock/clock.js';
import { FaultInputError } from '../engine/faults.js';
import { SnapshotError } from './snapshot-schema.js';
import type { ClockControls, CompanyFilter, CompanyScope, Controls } from './api.js';
import { ControlError } from './control-error.js';
import { apiError, CONTROL_REQUEST_ID, errorResponse, type ApiError } from '../http/errors.js';
import { readJsonBody, requestBody } from '../http/pipeline.js';
import type { BodySource } from '../http/runtime.js';
import { formatPath } from '../http/schemas.js';
import { CONTROL_BODY_LIMIT, controlGuard } from './guard.js';
import { advance, companyFlags, newCompany, newCredential, raisedEvent, route, runUntilIdle, snapshotChange } from './contract.js';
import { docsAsset, docsPage } from './docs.js';
import { inspectorAsset, inspectorPage } from '../inspector/server/ui.js';
import type { ActivityFeed } from '../engine/activity.js';
import type { ControlSettings } from '../engine/config.js';
import { controlActivity } from './activity-log.js';
import { buildInspectorApp } from '../inspector/server/routes.js';
import { inspectorOf } from '../inspector/server/inspector.js';

type ControlEnv = { Bindings: { controls: Controls; control: ControlSettings; runtimes: { readonly activity: ActivityFeed }; body?: BodySource } };

const fail = (error: ApiError) => errorResponse(error, CONTROL_REQUEST_ID);

/**
 * The JSON body, `{}` when absent; an error Response when it is over `limit` (read no further than that), not
 * JSON or not of `schema`. The body is read as the API reads its own (the socket's, or the Request's stream).
 */
async function body<T>(c: Context<ControlEnv>, schema: z.ZodType<T>, limit = CONTROL_BODY_LIMIT, tooLarge?: string): Promise<T | Response> {
  const read = await readJsonBody(c.req.raw, c.env.body ?? requestBody(c.req.raw), limit, true);
  if ('status' in read) return fail(read.status === 413 && tooLarge !== undefined ? { ...read, mensagem: tooLarge } : read);
  const parsed = schema.safeParse(read.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
    const caminho = formatPath('body', path as PropertyKey[]);
    return fail(apiError(422, 'valor_invalido', `${caminho}: ${issue.message}`, caminho));
  }
  return parsed.data;
}

/** Runs a control call; a refused one answers its status with the error body. */
async function call(run: () => unknown): Promise<Response> {
  try {
    const result = await run();
    return result instanceof Response ? result : Response.json(result);
  } catch (error) {
    if (error instanceof ControlError) return fail(apiError(error.status, error.codigo, error.message, error.caminho));
    if (error instanceof ClockLimitError) return fail(apiError(409, 'limite_de_tarefas', error.message));
    if (error instanceof ClockRangeError) return fail(apiError(422, 'valor_invalido', error.message, `body.${error.argument}`));
    // A reset, restore or close replaced the clock a walk was moving: like a request held by a delayMs fault.
    if (error instanceof ClockDisposedError) return fail(apiError(503, 'servico_indisponivel', error.message));
    if (error instanceof FaultInputError) {
      const caminho = error.caminho === '' ? 'body' : `body.${error.caminho}`;
      return fail(apiError(422, 'valor_invalido', error.message, caminho));
    }
    if (error instanceof z.ZodError) {
      const issue = error.issues[0]!;
      const caminho = formatPath('body', issue.path as PropertyKey[]);
      return fail(apiError(422, 'valor_invalido', `${caminho}: ${issue.message}`, caminho));
    }
    if (error instanceof SnapshotError) return fail(apiError(422, 'valor_invalido', error.message, formatPath('body', error.path)));
    if (error instanceof RangeError || error instanceof TypeError) return fail(apiError(422, 'valor_invalido', error.message));
    throw error;
  }
}

const created = (value: unknown) => Response.json(value, { status: 201 });

/**
 * The filter of a view of the faults, the inbox or the journal from its query: `?companyId=` once, or nothing.
 * Any other parameter, or companyId given twice, is refused (422 at query.<name>) rather than ignored, so that
 * a misspelt filter never shows every company's entries; the control checks the id itself.
 */
function viewFilter(c: Context<ControlEnv>): CompanyFilter | Response {
  const queries = c.req.queries();
  for (const [name, values] of Object.entries(queries)) {
    const caminho = formatPath('query', [name]);
    if (name !== 'companyId') return fail(apiError(422, 'valor_invalido', `${caminho} is not a parameter of this control; the only one is companyId (a company's id).`, caminho));
    if (values.length > 1) return fail(apiError(422, 'valor_invalido', `${caminho} must be given once; got ${values.length} values.`, caminho));
  }
  const companyId = queries.companyId?.[0];
  return companyId === undefined ? {} : { companyId };
}

/** A view's route: the control called with the query's filter, or the refusal of the query. */
const filteredBy = (c: Context<ControlEnv>, run: (filter: CompanyFilter) => unknown): Promise<Response> => {
  const filter = viewFilter(c);
  return filter instanceof Response ? Promise.resolve(filter) : call(() => run(filter));
};

/**
 * The OpenAPI documents as JSON text, each generated on its first call and kept for the process. They are handed
 * in because src/openapi, which generates them, reads this layer's table (src/control/contract.ts).
 */
export interface ControlDocuments {
  text(which: 'api' | 'controls'): string;
}

const jsonText = (text: string) => new Response(text, { headers: { 'content-type': 'application/json' } });

export function buildControlApp(documents: ControlDocuments): Hono<ControlEnv> {
  const app = new Hono<ControlEnv>();
  const emu = (c: Context<ControlEnv>) => c.env.controls;
  app.use('*', controlActivity());
  app.use('*', controlGuard());

  app.get('/', (c) => call(() => emu(c).info()));
  app.post('/reset', (c) => call(() => {
    emu(c).reset();
    return emu(c).info();
  }));

  app.get('/openapi.json', () => jsonText(documents.text('api')));
  app.get('/openapi.controls.json', () => jsonText(documents.text('controls')));
  app.get('/docs', () => docsPage());
  app.get('/docs/assets/:name', async (c) => {
    const name = c.req.param('name');
    return (await docsAsset(name)) ?? fail(apiError(404, 'rota_nao_encontrada', `The docs page has no file ${name}.`, 'path.name'));
  });

  // The inspector's page and files: served without the control token (guard.ts), they hold no data.
  // Opening the page opens the inspector: from then on it records exchanges, job runs and control calls.
  app.get('/ui', (c) => {
    inspectorOf(c.env.runtimes.activity);
    return inspectorPage();
  });
  app.get('/ui/assets/:name', async (c) => {
    const name = c.req.param('name');
    return (await inspectorAsset(name, c.req.query('v'))) ?? fail(apiError(404, 'rota_nao_encontrada', `The inspector page has no file ${name}; its files are app.js and app.css.`, 'path.name'));
  });

  app.get('/companies', (c) => call(() => ({ items: emu(c).companies.list() })));
  app.post('/companies', async (c) => {
    const input = await body(c, newCompany);
    return input instanceof Response ? input : call(() => created(emu(c).companies.create(input)));
  });
  app.patch('/companies/:companyId', async (c) => {
    const input = await body(c, companyFlags);
    return input instanceof Response ? input : call(() => emu(c).companies.update(c.req.param('companyId'), input));
  });
  app.post('/companies/:companyId/credentials', async (c) => {
    const input = await body(c, newCredential);
    return input instanceof Response ? input : call(() => created(emu(c).companies.addCredential(c.req.param('companyId'), input.permissions)));
  });

  app.delete('/companies/:companyId', (c) => call(() => {
    emu(c).companies.remove(c.req.param('companyId'));
    return new Response(null, { status: 204 });
  }));
  app.post('/companies/:companyId/reset', (c) => call(() => emu(c).companies.reset(c.req.param('companyId'))));
  app.get('/companies/:companyId/state', (c) => call(() => emu(c).companies.snapshot(c.req.param('companyId'))));
  app.put('/companies/:companyId/state', async (c) => {
    const limit = c.env.control.maxSnapshotBytes;
    const input = await body(c, z.unknown(), limit, `The snapshot exceeds this emulator's limit of ${limit} bytes (createEmulator({ maxSnapshotBytes }) sets it).`);
    if (input instanceof Response) return input;
    return call(() => {
      emu(c).companies.restore(c.req.param('companyId'), input);
      return emu(c).info();
    });
  });

  // The shared clock under /clock, a company's own under /companies/{id}/clock: the same three controls.
  const clockRoutes = (prefix: string, clockOf: (c: Context<ControlEnv>) => ClockControls) => {
    app.get(prefix, (c) => call(() => {
      const info = clockOf(c).info();
      return { now: info.now.toISOString(), mode: info.mode, pending: info.pending, deadlines: info.deadlines };
    }));
    app.post(`${prefix}/advance`, async (c) => {
      const input = await body(c, advance);
      if (input instanceof Response) return input;
      return call(async () => {
        const clock = clockOf(c);
        const result = 'by' in input ? await clock.advance(input.by) : await clock.advanceTo(input.to);
        return { now: result.now.toISOString(), ran: result.ran };
      });
    });
    app.post(`${prefix}/run-until-idle`, async (c) => {
      const input = await body(c, runUntilIdle);
      if (input instanceof Response) return input;
      return call(async () => {
        const result = await clockOf(c).runUntilIdle(input);
        return { now: result.now.toISOString(), ran: result.ran };
      });
    });
  };
  clockRoutes('/clock', (c) => emu(c).clock);
  clockRoutes('/companies/:companyId/clock', (c) => emu(c).companies.clock(c.req.param('companyId') ?? ''));

  app.get('/faults', (c) => filteredBy(c, (filter) => ({ items: emu(c).faults.list(filter) })));
  app.post('/faults', async (c) => {
    const input = await body(c, z.unknown());
    return input instanceof Response ? input : call(() => created(emu(c).faults.add(input as never)));
  });
  app.delete('/faults', (c) => filteredBy(c, (filter) => {
    emu(c).faults.clear(filter);
    return { items: [] };
  }));
  app.delete('/faults/:id', (c) => call(() => {
    const id = c.req.param('id');
    if (!emu(c).faults.remove(id)) return fail(apiError(404, 'falha_nao_encontrada', `No fault ${id}; GET /_emulator/faults lists them.`, 'path.id'));
    return new Response(null, { status: 204 });
  }));

  // In-process handlers show as "(in-process handler)": only URLs travel over HTTP.
  app.get('/network/routes', (c) => call(() => ({ items: emu(c).network.routes().map((r) => ({ from: r.from, to: typeof r.to === 'function' ? '(in-process handler)' : r.to })) })));
  app.post('/network/routes', async (c) => {
    const input = await body(c, route);
    return input instanceof Response ? input : call(() => created(emu(c).network.route(input.from, input.to)));
  });
  app.delete('/network/routes', async (c) => {
    const from = c.req.query('from');
    return call(() => {
      if (from === undefined) {
        emu(c).network.clear();
        return { items: [] };
      }
      if (!emu(c).network.unroute(from)) return fail(apiError(404, 'rota_nao_encontrada', `No route from ${from}.`, 'query.from'));
      return new Response(null, { status: 204 });
    });
  });

  app.get('/regulatory', (c) => call(() => emu(c).regulatory.current()));
  app.post('/regulatory/snapshots', async (c) => {
    const input = await body(c, snapshotChange);
    return input instanceof Response ? input : call(() => created(emu(c).regulatory.publish(input)));
  });

  app.get('/inbox', (c) => filteredBy(c, (filter) => ({ items: emu(c).inbox.list(filter) })));
  app.delete('/inbox', (c) => filteredBy(c, (filter) => {
    emu(c).inbox.clear(filter);
    return { items: [] };
  }));

  app.post('/companies/:companyId/events', async (c) => {
    const input = await body(c, raisedEvent);
    return input instanceof Response ? input : call(() => created(emu(c).webhooks.raise(c.req.param('companyId'), input.dados as EventData)));
  });

  app.get('/requests', (c) => filteredBy(c, (filter) => ({ items: emu(c).journal.entries(filter) })));
  app.delete('/requests', (c) => filteredBy(c, (filter) => {
    emu(c).journal.clear(filter);
    return { items: [] };
  }));

  // One company's faults, inbox and journal (emu.companies.scope(id)): the views above kept to that company.
  const scope = (c: Context<ControlEnv>): CompanyScope => emu(c).companies.scope(c.req.param('companyId') ?? '');
  app.get('/companies/:companyId/faults', (c) => call(() => ({ items: scope(c).faults.list() })));
  app.post('/companies/:companyId/faults', async (c) => {
    const input = await body(c, z.unknown());
    return input instanceof Response ? input : call(() => created(scope(c).faults.add(input as never)));
  });
  app.delete('/companies/:companyId/faults', (c) => call(() => {
    scope(c).faults.clear();
    return { items: [] };
  }));
  app.delete('/companies/:companyId/faults/:id', (c) => call(() => {
    const id = c.req.param('id');
    if (!scope(c).faults.remove(id)) return fail(apiError(404, 'falha_nao_encontrada', `Company ${c.req.param('companyId')} has no fault ${id}; GET /_emulator/companies/${c.req.param('companyId')}/faults lists its faults.`, 'path.id'));
    return new Response(null, { status: 204 });
  }));
  app.get('/companies/:companyId/inbox', (c) => call(() => ({ items: scope(c).inbox.list() })));
  app.delete('/companies/:companyId/inbox', (c) => call(() => {
    scope(c).inbox.clear();
    return { items: [] };
  }));
  app.get('/companies/:companyId/journal', (c) => call(() => ({ items: scope(c).journal.entries() })));
  app.delete('/companies/:companyId/journal', (c) => call(() => {
    scope(c).journal.clear();
    return { items: [] };
  }));

  // The demo a `catalog-emulator demo NAME --ui` runs on this emulator, paced from the inspector page.
  registerDemoGate(app);

  app.get('/state', (c) => call(() => emu(c).snapshot()));
  app.put('/state', async (c) => {
    const limit = c.env.control.maxSnapshotBytes;
    const input = await body(c, z.unknown(), limit, `The snapshot exceeds this emulator's limit of ${limit} bytes (createEmulator({ maxSnapshotBytes }) sets it).`);
    if (input instanceof Response) return input;
    return call(() => {
      emu(c).restore(input);
      return emu(c).info();
    });
  });

  // The inspector's data (src/inspector/server): reads of what the emulator keeps, behind the same guard.
  app.route('/inspector', buildInspectorApp());

  // A catch-all route, not notFound: hono calls only the root app's notFound, which answers for the API.
  app.all('*', (c) => fail(apiError(404, 'rota_nao_encontrada', `No control at ${c.req.method} ${c.req.path}; GET /_emulator describes the emulator, and the README lists every control.`)));
  return app;
}
