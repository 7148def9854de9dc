/**
 * A control, declared once as a row of its group (src/control/groups/, listed in the controls' table, table.ts): its
 * method and path under /_emulator, what it acts on, the schema of its body, its query, its answers, what it does (a
 * call of the group's in-process control) and a sample call of it. The row is its hono route (routes.ts registers
 * routeOf(row) for each), its entry in openapi.controls.json and so on the docs page (src/openapi/controls.ts reads
 * the rows), its entry in the activity stream (the route tags the request with its row, which activity-log.ts reads;
 * nothing recovers the control from the path), and a test: the table's test makes its sample call and checks the
 * answer against the row.
 */
import type { Context } from 'hono';
import * as z from 'zod';
import { ClockDisposedError, ClockLimitError, ClockRangeError } from '../clock/clock.js';
import type { ActivityFeed, ControlScope } from '../engine/activity.js';
import type { ControlSettings } from '../engine/config.js';
import { FaultInputError } from '../engine/faults.js';
import { JournalFilterError, QueryBudgetError } from '../engine/journal.js';
import { apiError, CONTROL_REQUEST_ID, errorResponse, queryBudgetRefusal, type ApiError } from '../http/errors.js';
import { readJsonBody, requestBody } from '../http/pipeline.js';
import type { BodySource } from '../http/runtime.js';
import { formatPath } from '../http/schemas.js';
import type { Controls } from './api.js';
import { ControlError } from './control-error.js';
import { CONTROL_BODY_LIMIT, guardRefusal } from './guard.js';
import type { Lazy } from './schemas.js';
import { SnapshotError } from './snapshot-schema.js';

type ControlMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type ControlTag =
  | 'Emulator'
  | 'Companies'
  | 'Clock'
  | 'Faults'
  | 'Network'
  | 'Regulatory'
  | 'Inbox'
  | 'Journal'
  | 'Grading'
  | 'State'
  | 'Documents'
  | 'Inspector';

/**
 * The OpenAPI documents as JSON text, each generated on its first call and kept for the process. They are handed
 * in (src/emulator.ts) because src/openapi, which generates them, reads this layer's table.
 */
export interface ControlDocuments {
  /** The document as served to a request at `origin`: naming that origin as its server. */
  text(which: 'api' | 'controls', origin: string): string;
}

/** What a request of the control app carries: the emulator's controls and settings, its activity feed, and the row that answers it. */
export type ControlEnv = {
  Bindings: {
    controls: Controls;
    control: ControlSettings;
    runtimes: { readonly activity: ActivityFeed };
    body?: BodySource;
  };
  Variables: { control: Tagged | undefined };
};

/**
 * The row a route tagged its request with (set before the guard, so a refused call is told as the control it was
 * for), the company its path or query names, and what its answer says (set once it answered, while someone listens).
 */
interface Tagged {
  readonly row: Control;
  readonly companyId: string | null;
  notes: Notes | undefined;
}

/** What a control's answer says of the call, for the activity stream. */
export interface Notes {
  /** What it did, briefly ("now …, ran 3 tasks"); never a token or a secret. */
  readonly detail?: string;
  /** The company it turned out to be about (the fault it added matches only it). */
  readonly companyId?: string | null;
  /** The fault it added or removed. */
  readonly faultId?: string;
}

interface ControlQuery<N extends string = string> {
  readonly name: N;
  readonly description: string;
}

/** A query's values by name, each given at most once (the route refuses any other parameter, or one given twice). */
type QueryOf<Q> = Q extends readonly ControlQuery<infer N>[] ? { readonly [K in N]?: string } : Record<never, never>;

/** The path parameters a hono path names: `/companies/:companyId/faults/:id` → { companyId, id }. */
type ParamsOf<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? { readonly [K in Name]: string } & ParamsOf<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? { readonly [K in Name]: string }
    : Record<never, never>;

interface ControlAnswer {
  readonly description: string;
  /**
   * JSON by this schema (schemas.ts); a media type for an answer that is not JSON (for server-sent events, the
   * schema of each event's data, by the event's name: answers.ts reads a frame by them); nothing for a 204.
   */
  readonly body?: Lazy | { readonly mediaType: string; readonly frames?: Readonly<Record<string, Lazy>> };
}

interface ControlBody<B> {
  /** What the route parses the body with; absent body reads as `{}`. */
  readonly schema: z.ZodType<B>;
  /** The schema the document shows, when the route takes the body as it is and the control checks it whole (a fault, a snapshot). */
  readonly shown?: Lazy;
  /** The body's byte limit when it is not the 1 MiB of every control. */
  readonly limit?: BodyLimit;
}

interface BodyLimit {
  readonly bytes: (settings: ControlSettings) => number;
  /** As the document says it. */
  readonly shown: string;
  /** The 413's message, when it says more than the limit. */
  readonly tooLarge?: (bytes: number) => string;
}

/** What a control's `run` is given. */
export interface ControlCall<P extends string = string, B = unknown, Q = unknown> {
  readonly emu: Controls;
  readonly params: ParamsOf<P>;
  readonly body: B;
  readonly query: Q;
  readonly request: Request;
  /** The emulator's activity feed: the port the inspector is made with. */
  readonly activity: ActivityFeed;
  readonly documents: ControlDocuments;
}

/** What `run` returns for a 204. */
export const NO_CONTENT: unique symbol = Symbol('no content');

/** The refusals many rows answer, as their `errors` say them. */
export const NO_COMPANY = 'empresa_nao_encontrada: no company has this id.';
export const BAD_FILTER =
  'valor_invalido: an unknown parameter, companyId twice, or not a company id (caminho names it).';
export const BAD_BODY = 'valor_invalido: a field of the body (caminho names it).';
/** The query of a view that can be kept to one company (CompanyFilter). */
export const COMPANY_FILTER = {
  name: 'companyId',
  description: "Only this company's entries (once; any other parameter is refused, 422 at query.<name>).",
} as const;

/** A row as written in its group (src/control/groups/). */
interface ControlSpec<Id extends string, P extends string, B, Q extends readonly ControlQuery[], A> {
  readonly method: ControlMethod;
  /** Under /_emulator, as hono writes it (`:companyId`). */
  readonly path: P;
  /** Its operationId, and its name in the activity stream. */
  readonly id: Id;
  readonly summary: string;
  readonly tag: ControlTag;
  /** What it acts on: a company (its path names it), the shared clock, the whole emulator, or the inspector's own data. */
  readonly scope: ControlScope;
  /** Served without the control token (a GET): the inspector's and the docs page and their files, which hold no data, and which a browser's navigation opens without a header. */
  readonly open?: true;
  readonly body?: ControlBody<B>;
  /** Its query parameters: any other, or one given twice, is refused (422 at query.<name>). Absent: the query is not read. */
  readonly query?: Q;
  /** The success answers by status (one but for DELETE /network/routes). */
  readonly success: Readonly<Record<number, ControlAnswer>>;
  /** The errors of this control beyond those of every one (401 with a control token, the writes' 400/413/415), each with its codes. */
  readonly errors: Readonly<Record<number, string>>;
  /** What it does: the in-process control it calls, its answer as JSON (the success status with a body), a Response, or NO_CONTENT. */
  run(call: ControlCall<P, B, QueryOf<Q>>): A | Promise<A>;
  /** What its answer (JSON, or NO_CONTENT) says of the call, for the activity stream: only while someone listens. */
  describe?(answer: Exclude<A, Response>, call: ControlCall<P, B, QueryOf<Q>>): Notes;
  /** A call of it that succeeds in the table test's world: the test makes it and checks the answer against the row. */
  readonly sample: (world: SampleWorld) => ControlSample;
}

/**
 * What the table's test (table.test.ts) makes each row's sample call in: an emulator whose every list has an item to
 * check. `companyId` has a webhook destination (a network route covers it, and its receiver was checked once), a
 * delivery in the inbox and journal entries; `ownId` is a company on a clock of its own with a fault of its own
 * (`ownFaultId`); `faultId` is a fault of every company.
 */
export interface SampleWorld {
  readonly emu: Controls;
  readonly companyId: string;
  readonly ownId: string;
  readonly faultId: string;
  readonly ownFaultId: string;
  /** Starts a demo of one step on the emulator, which waits at that step (POST /_emulator/inspector/demo/next). */
  paceDemo(): void;
}

/**
 * A call of a control: its path under /_emulator (`/` for /_emulator itself) with its query, and for a write, its
 * JSON body (none: an empty one, still sent as application/json).
 */
interface ControlSample {
  readonly path: string;
  readonly body?: unknown;
}

/** A row of the table, as the routes, the document and the activity stream read it. */
export interface Control<Id extends string = string> {
  readonly method: ControlMethod;
  readonly path: string;
  readonly id: Id;
  readonly summary: string;
  readonly tag: ControlTag;
  readonly scope: ControlScope;
  readonly open: boolean;
  readonly body:
    | { readonly schema: z.ZodType; readonly shown: Lazy | undefined; readonly limit: string | undefined }
    | undefined;
  readonly query: readonly ControlQuery[] | undefined;
  readonly success: Readonly<Record<number, ControlAnswer>>;
  readonly errors: Readonly<Record<number, string>>;
  readonly sample: (world: SampleWorld) => ControlSample;
  /** Reads the request's query and body, runs the control and answers. */
  handle(c: Context<ControlEnv>, documents: ControlDocuments): Promise<Response>;
}

/** The row of one control: see ControlSpec. */
export function control<
  const Id extends string,
  const P extends string,
  B = undefined,
  const Q extends readonly ControlQuery[] = readonly [],
  A = unknown,
>(spec: ControlSpec<Id, P, B, Q, A>): Control<Id> {
  const json = Object.entries(spec.success).find(([, answer]) => typeof answer.body === 'function');
  const jsonStatus = Number(json?.[0] ?? 200);
  return {
    method: spec.method,
    path: spec.path,
    id: spec.id,
    summary: spec.summary,
    tag: spec.tag,
    scope: spec.scope,
    open: spec.open === true,
    body: spec.body && { schema: spec.body.schema, shown: spec.body.shown, limit: spec.body.limit?.shown },
    query: spec.query,
    success: spec.success,
    errors: spec.errors,
    sample: spec.sample,
    handle: async (c, documents) => {
      const query = spec.query === undefined ? {} : queryOf(c, spec.query);
      if (query instanceof Response) return query;
      let body: B | undefined;
      if (spec.body !== undefined) {
        const read = await bodyOf(c, spec.body);
        if (read instanceof Response) return read;
        body = read;
      }
      const call = {
        emu: c.env.controls,
        params: c.req.param(),
        body,
        query,
        request: c.req.raw,
        activity: c.env.runtimes.activity,
        documents,
      } as ControlCall<P, B, QueryOf<Q>>;
      let answer: A;
      try {
        answer = await spec.run(call);
      } catch (error) {
        return refusal(error);
      }
      if (answer instanceof Response) return answer;
      const tagged = c.get('control');
      if (spec.describe !== undefined && tagged !== undefined && c.env.runtimes.activity.wanted)
        tagged.notes = spec.describe(answer as Exclude<A, Response>, call);
      return answer === NO_CONTENT
        ? new Response(null, { status: 204 })
        : Response.json(answer, { status: jsonStatus });
    },
  };
}

/**
 * The route of a row under the control app: it tags the request with the row and the company its path or query
 * names, then guards it (guard.ts), then runs the control. The tag comes first so that a call the guard refuses
 * (401, 415) is told as the control it was for. One handler, not three: hono's router compiles on the first request,
 * and three handlers a route made that compiling slower.
 */
export function routeOf(row: Control, documents: ControlDocuments): (c: Context<ControlEnv>) => Promise<Response> {
  const namesCompany = row.query?.some((q) => q.name === 'companyId') === true;
  return (c) => {
    const companyId = c.req.param('companyId') ?? (namesCompany ? c.req.query('companyId') : undefined) ?? null;
    c.set('control', { row, companyId, notes: undefined });
    const refused = guardRefusal(c, row.open);
    return refused === undefined ? row.handle(c, documents) : Promise.resolve(refused);
  };
}

const fail = (error: ApiError) => errorResponse(error, CONTROL_REQUEST_ID);

/**
 * The query's parameters, each one of `declared` and given once; else the 422 naming the first that is not, so
 * that a misspelt filter never shows every company's entries.
 */
function queryOf(c: Context<ControlEnv>, declared: readonly ControlQuery[]): Record<string, string> | Response {
  const values: Record<string, string> = {};
  const names = declared.map((q) => q.name);
  for (const [name, given] of Object.entries(c.req.queries())) {
    const caminho = formatPath('query', [name]);
    if (!names.includes(name))
      return fail(
        apiError(
          422,
          'valor_invalido',
          `${caminho} is not a parameter of this control; it takes ${names.length === 0 ? 'none' : names.join(', ')}.`,
          caminho,
        ),
      );
    if (given.length > 1)
      return fail(
        apiError(422, 'valor_invalido', `${caminho} must be given once; got ${given.length} values.`, caminho),
      );
    values[name] = given[0]!;
  }
  return values;
}

/**
 * The JSON body, `{}` when absent; an error Response when it is over its limit (read no further than that), not
 * JSON or not of its schema. The body is read as the API reads its own (the socket's, or the Request's stream).
 */
async function bodyOf<B>(c: Context<ControlEnv>, body: ControlBody<B>): Promise<B | Response> {
  const limit = body.limit?.bytes(c.env.control) ?? CONTROL_BODY_LIMIT;
  const read = await readJsonBody(c.req.raw, c.env.body ?? requestBody(c.req.raw), limit, true);
  if ('status' in read) {
    const tooLarge = body.limit?.tooLarge;
    return fail(read.status === 413 && tooLarge !== undefined ? { ...read, mensagem: tooLarge(limit) } : read);
  }
  const parsed = body.schema.safeParse(read.value);
  if (!parsed.success) {
    const { caminho, mensagem } = bodyIssue(parsed.error);
    return fail(apiError(422, 'valor_invalido', mensagem, caminho));
  }
  return parsed.data;
}

/**
 * Where a control's body fails its schema and why, as its 422 says it (`body.plan[0].effect: …`, an unknown field
 * named): for a route's body, and for a control that checks a body it was handed whole (groups/explorations.ts).
 */
export function bodyIssue(error: z.ZodError): { readonly caminho: string; readonly mensagem: string } {
  const issue = error.issues[0]!;
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
  const caminho = formatPath('body', path as PropertyKey[]);
  return { caminho, mensagem: `${caminho}: ${issue.message}` };
}

/** A refused control call as its answer: the status and error body of what the in-process control threw. */
function refusal(error: unknown): Response {
  if (error instanceof ControlError) return fail(apiError(error.status, error.codigo, error.message, error.caminho));
  if (error instanceof ClockLimitError) return fail(apiError(409, 'limite_de_tarefas', error.message));
  if (error instanceof ClockRangeError)
    return fail(apiError(422, 'valor_invalido', error.message, `body.${error.argument}`));
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
  if (error instanceof JournalFilterError)
    return fail(apiError(422, 'valor_invalido', error.message, error.field === '' ? 'query' : `query.${error.field}`));
  if (error instanceof QueryBudgetError) return fail(queryBudgetRefusal(error));
  if (error instanceof SnapshotError)
    return fail(apiError(422, 'valor_invalido', error.message, formatPath('body', error.path)));
  if (error instanceof RangeError || error instanceof TypeError)
    return fail(apiError(422, 'valor_invalido', error.message));
  throw error;
}
