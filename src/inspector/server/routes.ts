/**
 * What the inspector's controls answer: its page and files (/_emulator/ui), its data (/_emulator/inspector/…) and
 * the demo it paces. The inspector's one entry for the controls: their rows (src/control/groups/inspector.ts, and
 * src/control/groups/activity.ts for the activity stream) declare the paths, queries and bodies, and call these.
 * Each is handed the emulator's activity feed, the port the inspector is made with (inspector.ts), or the emulator a
 * demo gate paces. Reads only, but the demo's next step: the page drives the emulator through the other controls.
 * The first call of the page or of any data answer opens the inspector.
 */
import { ACTIVITY_KINDS, type ActivityFeed, type ActivityKind } from '../../engine/activity.js';
import { JournalFilterError, QueryBudgetError, readJournalFilter, type JournalFilter } from '../../engine/journal.js';
import { apiError, CONTROL_REQUEST_ID, errorResponse, queryBudgetRefusal, type ApiError } from '../../http/errors.js';
import { activityStream } from './activity-stream.js';
import { demoGateOf, type DemoGate } from './demo-gate.js';
import { inspectorOf, UnknownCompany, UnknownItem } from './inspector.js';
import { decodeCursor, DEFAULT_LIMIT, MAX_LIMIT, type TimelinePage } from './timeline.js';
import { inspectorAsset, inspectorPage } from './ui.js';

const fail = (error: ApiError) => errorResponse(error, CONTROL_REQUEST_ID);

/** The inspector's page; opening it opens the inspector: from then on it records exchanges, job runs and control calls. */
export function pageAnswer(feed: ActivityFeed): Promise<Response> {
  inspectorOf(feed);
  return inspectorPage();
}

/** A built file of the page (app.js, app.css); 404 for any other name. */
export async function assetAnswer(name: string, version: string | undefined): Promise<Response> {
  return (
    (await inspectorAsset(name, version)) ??
    fail(
      apiError(
        404,
        'rota_nao_encontrada',
        `The inspector page has no file ${name}; its files are app.js and app.css.`,
        'path.name',
      ),
    )
  );
}

/**
 * One page of a company's timeline (`limit`, `before` as the query gave them), its items those `filter` keeps (the
 * journal's filter, read from the same query parameters as GET /_emulator/journal's); 422 for a bad one, 404 for an
 * unknown company.
 */
export function timelineAnswer(
  feed: ActivityFeed,
  companyId: string,
  query: {
    readonly limit?: string | undefined;
    readonly before?: string | undefined;
    readonly touches?: string | undefined;
  },
  filter: JournalFilter = {},
): Promise<Response> {
  const page = timelinePage(query, filter);
  if (page instanceof Response) return Promise.resolve(page);
  return read(() => inspectorOf(feed).timeline(companyId, page));
}

/** A company's records as they are now; 404 for an unknown company. */
export function recordsAnswer(feed: ActivityFeed, companyId: string): Promise<Response> {
  return read(() => inspectorOf(feed).records(companyId));
}

/** One item of a company's timeline with its detail; 404 for an unknown company or item. */
export function itemAnswer(feed: ActivityFeed, companyId: string, itemId: string): Promise<Response> {
  return read(() => inspectorOf(feed).item(companyId, itemId));
}

/** A company's timeline live, as server-sent events, for as long as `request` is open; 422 without a company, 404 for an unknown one. */
export function streamAnswer(feed: ActivityFeed, companyId: string | undefined, request: Request): Promise<Response> {
  if (companyId === undefined)
    return Promise.resolve(
      fail(
        apiError(
          422,
          'valor_invalido',
          'query.companyId is required: the company whose timeline to follow.',
          'query.companyId',
        ),
      ),
    );
  return read(() => {
    const body = inspectorOf(feed).stream(companyId, request);
    return new Response(body, {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      },
    });
  }, 'query.companyId');
}

/**
 * The whole emulator's activity live, as server-sent events, for as long as `request` is open (activity-stream.ts):
 * every entry, or those of `companyId` (404 for an unknown company), of the `kinds` named (comma-separated; 422 for
 * another word).
 */
export function activityAnswer(
  feed: ActivityFeed,
  query: { readonly companyId?: string | undefined; readonly kinds?: string | undefined },
  request: Request,
): Response {
  const { companyId } = query;
  if (companyId !== undefined && !feed.emulator.worldOf(companyId).state.companies.has(companyId)) {
    return fail(
      apiError(404, 'empresa_nao_encontrada', `No company ${companyId} in this emulator.`, 'query.companyId'),
    );
  }
  const kinds = query.kinds === undefined ? ACTIVITY_KINDS : query.kinds.split(',').map((kind) => kind.trim());
  const unknown = kinds.find((kind) => !(ACTIVITY_KINDS as readonly string[]).includes(kind));
  if (unknown !== undefined) {
    return fail(
      apiError(
        422,
        'valor_invalido',
        `query.kinds takes ${ACTIVITY_KINDS.join(', ')}, comma-separated; got ${JSON.stringify(unknown)}.`,
        'query.kinds',
      ),
    );
  }
  const body = activityStream(feed, { companyId: companyId ?? null, kinds: kinds as readonly ActivityKind[] }, request);
  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    },
  });
}

/** The demo running on `emulator` as the page shows it; 404 without one. */
export function demoAnswer(emulator: object): Response {
  const gate = gateOf(emulator);
  return gate instanceof Response ? gate : Response.json(gate.state());
}

/** Releases the step the demo waits at and answers once that step has run; 404 without a demo, 409 when it waits at none. */
export async function nextDemoAnswer(emulator: object): Promise<Response> {
  const gate = gateOf(emulator);
  if (gate instanceof Response) return gate;
  if (!gate.next()) {
    const why = gate.done ? 'the demo has ended' : 'a step is still running';
    return fail(
      apiError(
        409,
        'demo_nao_aguardando',
        `The demo waits at no step: ${why} (GET /_emulator/inspector/demo shows it).`,
      ),
    );
  }
  await gate.settled();
  return Response.json(gate.state());
}

function gateOf(emulator: object): DemoGate | Response {
  return (
    demoGateOf(emulator) ??
    fail(
      apiError(404, 'demo_ausente', 'No demo runs on this emulator: start one with "catalog-emulator demo NAME --ui".'),
    )
  );
}

/** The page a timeline query asks for; else its 422. */
function timelinePage(
  values: {
    readonly limit?: string | undefined;
    readonly before?: string | undefined;
    readonly touches?: string | undefined;
  },
  filter: JournalFilter,
): TimelinePage | Response {
  let read: TimelinePage['filter'];
  const given = Object.keys(filter).filter((name) => filter[name as keyof JournalFilter] !== undefined);
  if (given.length > 0) {
    try {
      read = { query: readJournalFilter(filter), callsOnly: given.some((name) => name !== 'from' && name !== 'to') };
    } catch (error) {
      if (error instanceof JournalFilterError)
        return fail(apiError(422, 'valor_invalido', error.message, `query.${error.field}`));
      throw error;
    }
  }
  let limit = DEFAULT_LIMIT;
  if (values.limit !== undefined) {
    if (!/^\d{1,7}$/.test(values.limit) || Number(values.limit) < 1 || Number(values.limit) > MAX_LIMIT) {
      return fail(
        apiError(
          422,
          'valor_invalido',
          `query.limit must be a whole number from 1 to ${MAX_LIMIT}; got ${JSON.stringify(values.limit)}.`,
          'query.limit',
        ),
      );
    }
    limit = Number(values.limit);
  }
  const before = values.before === undefined ? undefined : decodeCursor(values.before);
  if (values.before !== undefined && before === undefined) {
    return fail(
      apiError(
        422,
        'valor_invalido',
        'query.before must be a nextBefore a timeline page gave, as given.',
        'query.before',
      ),
    );
  }
  const { touches } = values;
  if (touches !== undefined && !/^[\x21-\x7e]{1,200}$/.test(touches)) {
    return fail(
      apiError(
        422,
        'valor_invalido',
        `query.touches must be a record's id (1 to 200 printable characters); got ${JSON.stringify(touches.slice(0, 200))}.`,
        'query.touches',
      ),
    );
  }
  return { limit, before, filter: read, touches };
}

/** Runs a read of the inspector; its refusals (an unknown company or item) as 404s, a filter past its budget as 422. */
async function read(run: () => unknown, companyAt = 'path.companyId'): Promise<Response> {
  try {
    const result = await run();
    return result instanceof Response ? result : Response.json(result);
  } catch (error) {
    if (error instanceof UnknownCompany) return fail(apiError(404, 'empresa_nao_encontrada', error.message, companyAt));
    if (error instanceof UnknownItem) return fail(apiError(404, 'item_nao_encontrado', error.message, 'path.itemId'));
    if (error instanceof QueryBudgetError) return fail(queryBudgetRefusal(error));
    throw error;
  }
}
