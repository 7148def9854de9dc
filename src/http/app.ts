/**
 * The API as one hono app, built once per process and shared by every emulator instance (each request
 * carries its emulator in hono's env). Cross-cutting here: request id, journal, unknown routes and methods,
 * and the guarantee that no input yields a 5xx.
 */
import { Hono, type Context as HonoContext } from 'hono';
import { getPath } from 'hono/utils/url';
import type { JournalRecord } from '../engine/journal.js';
import { keptPath } from '../core/kept-text.js';
import { apiError, CONTROL_REQUEST_ID, errorOf, errorResponse, plainHeadersOf } from './errors.js';
import { answerTexts } from './stored-answers.js';
import { bearerToken, requestBody, type Operation } from './pipeline.js';
import { Router, unroutable } from './router.js';
import { catalogDeletionOperations, catalogOperations } from './routes/catalogs.js';
import { companyOperations } from './routes/company.js';
import { establishmentOperations } from './routes/establishments.js';
import { productOperations } from './routes/products.js';
import { webhookOperations } from './routes/webhooks.js';
import { surveillanceOperations } from './routes/surveillance.js';
import { analysisOperations } from './routes/analyses.js';
import { executionOperations } from './routes/executions.js';
import { ingestionOperations } from './routes/ingestions.js';
import { STILL_ARRIVING, type BodySource, type HttpEnv } from './runtime.js';
import type { Runtime } from '../engine/runtimes.js';

export const operations: readonly Operation[] = [
  ...companyOperations,
  ...establishmentOperations,
  // Before the catalog operations: /v1/catalogos/ingestoes/{id} would otherwise match /v1/catalogos/{id}/produtos.
  ...ingestionOperations,
  ...catalogOperations,
  ...catalogDeletionOperations,
  ...productOperations,
  ...webhookOperations,
  ...surveillanceOperations,
  ...analysisOperations,
  ...executionOperations,
];

export function buildApiApp(options: { readonly controls?: boolean } = {}): Hono<HttpEnv> {
  // Over a socket the path routed is the one sent (see HttpEnv), which the router refuses if it has dot segments.
  const app = new Hono<HttpEnv>({
    getPath: (request, context) =>
      context?.env?.target === undefined ? getPath(request) : sentPath(context.env.target),
  });
  const paths =
    options.controls === false ? 'Paths begin with /v1.' : 'Paths begin with /v1 (API) or /_emulator (controls).';
  const router = new Router(operations);

  // Ahead of the controls (mounted after this app is built) and of their token check: no control is reached.
  if (options.controls !== false) {
    app.all('/_emulator/*', (c, next) =>
      unroutable(c.req.path)
        ? errorResponse(
            apiError(404, 'rota_nao_encontrada', `No control at ${c.req.method} ${c.req.path} ${STRAY_PATH}. ${paths}`),
            CONTROL_REQUEST_ID,
          )
        : next(),
    );
  }

  // One route for the whole API: hono's one-handler path, no middleware chain (see router.ts). A handler that
  // answers at once keeps @hono/node-server on its fast path: a GET awaits nothing.
  app.all('/v1/*', function api(c): Response | Promise<Response> {
    const request = c.req.raw;
    const { method } = request;
    // The emulator's history (undefined when it keeps none) is handed each exchange once answered (journaled()); a
    // request that may carry a body is read through a Recording, which keeps its bytes (recorded() calls this again).
    if (c.env.runtimes.activity.recorder !== undefined) {
      answerTexts.keep = true;
      if (method !== 'GET' && method !== 'HEAD' && !(c.env.body instanceof Recording)) return recorded(c, api);
    }
    const path = c.req.path;
    // The world is chosen before anything is drawn from it: a company on its own clock gets its own request ids.
    const token = bearerToken(request.headers.get('authorization'));
    const runtime = c.env.runtimes.forToken(token);
    const requestId = runtime.nextRequestId();
    // The pipeline fills in the company, key, replay and fault as it learns them; the status is the answer's.
    const entry: Mutable<JournalRecord> = {
      at: runtime.clock.now(),
      method,
      // Kept to a bounded length whoever sent it (docs/journal.md); the pipeline routes and answers the whole.
      path: keptPath(path),
      status: 0,
      requestId,
      companyId: null,
      idempotencyKey: null,
      replayed: false,
      faultId: null,
      operation: null,
      codigo: null,
      ifMatch: null,
      fingerprint: null,
      retryAfter: null,
      lost: false,
    };
    let answer: Response | Promise<Response>;
    try {
      const route = router.find(method, path);
      if (route === undefined) {
        answer = notFound(c, requestId, paths);
      } else if (route.kind === 'not_allowed') {
        answer = errorResponse(
          apiError(
            405,
            'metodo_nao_permitido',
            `${method} is not an operation of ${path}; allowed: ${route.allow}.`,
            undefined,
            { allow: route.allow },
          ),
          requestId,
          { 'x-request-id': requestId },
        );
      } else {
        entry.operation = route.target.contract.doc.id;
        answer = route.target.handle(c, { runtime, token, requestId, params: route.params, journal: entry });
      }
    } catch (error) {
      answer = bug(error, requestId);
    }
    if (answer instanceof Promise) {
      return answer.then(
        (response) => journaled(c, runtime, entry, response),
        (error: unknown) => journaled(c, runtime, entry, bug(error, requestId)),
      );
    }
    return journaled(c, runtime, entry, answer);
  });

  // Outside /v1 and the controls: no world is chosen, so the id is the shared world's, and nothing is journaled.
  app.notFound((c) => {
    const requestId = c.env.runtimes.forToken(undefined).nextRequestId();
    return notFound(c, requestId, paths);
  });

  // The controls' own bugs (the API's are answered above, with their request's id).
  app.onError((error) => bug(error, 'sem-request-id'));

  return app;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The answer, once its status (and an error's code and Retry-After) is in the request's journal entry, and the
 * exchange handed to the emulator's history when it keeps one.
 */
function journaled(
  c: HonoContext<HttpEnv>,
  runtime: Runtime,
  entry: Mutable<JournalRecord>,
  response: Response,
): Response {
  entry.status = response.status;
  const error = errorOf(response);
  if (error !== undefined) {
    entry.codigo = error.codigo;
    const retryAfter = error.headers?.['retry-after'];
    if (retryAfter !== undefined) entry.retryAfter = Number(retryAfter);
  }
  const line = runtime.record(entry, error);
  const recorder = c.env.runtimes.activity.recorder;
  if (recorder !== undefined) {
    try {
      const { body } = c.env;
      // An error answer's body is rebuilt from its error when it is read: no text is made for it here. Headers are
      // read as sent and as made where they are at hand: a Request's or Response's `headers` builds a Headers, and
      // @hono/node-server then writes the answer off its fast path.
      const sent = body?.rawHeaders ?? c.req.raw.headers;
      const answered = plainHeadersOf(response) ?? response.headers;
      recorder.exchange(
        entry,
        line,
        sent,
        body instanceof Recording ? body.bytes : undefined,
        response,
        answered,
        error === undefined ? answerTexts.of(response) : undefined,
        error,
      );
    } catch {
      // The recorder's failure never changes an answer.
    }
  }
  return response;
}

/** The 404 of a path no operation has, under /v1 or outside it alike. */
const notFound = (c: HonoContext<HttpEnv>, requestId: string, paths: string): Response =>
  errorResponse(
    apiError(
      404,
      'rota_nao_encontrada',
      `No operation at ${c.req.method} ${c.req.path}${unroutable(c.req.path) ? ` ${STRAY_PATH}` : ''}. ${paths}`,
    ),
    requestId,
    { 'x-request-id': requestId },
  );

/** A target hono's getPath returns as it is: no percent-encoding to decode, no query or fragment to cut. */
const PLAIN_PATH = /^[^%?#]*$/;

const STRAY_PATH =
  '(a path with a "." or ".." segment, %2e included, an encoded slash or a backslash names no route: paths are routed as sent, never resolved)';

/**
 * The path of a request target as the client sent it, percent-decoded as hono decodes a URL's path: origin-form
 * (`/path?query`), or absolute-form (`http://host/path?query`, `/` without a path).
 */
function sentPath(target: string): string {
  // Nearly every request: a target with nothing to decode or cut is its own path. The request's journal record
  // keeps the path, and a slice of a URL built around the target would keep that URL alive with it.
  if (target.startsWith('/'))
    return PLAIN_PATH.test(target) ? target : getPath({ url: `http://sent${target}` } as Request);
  return /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*\//i.test(target) ? getPath({ url: target } as Request) : '/';
}

/** A bug must still answer with the error body, and say it is ours, not the integrator's. */
function bug(error: unknown, requestId: string): Response {
  if (!(error instanceof Error)) throw error;
  return errorResponse(apiError(500, 'erro_interno', `Emulator bug (please report it): ${error.message}`), requestId, {
    'x-request-id': requestId,
  });
}

/**
 * A request's body source that keeps the bytes it hands out, for the history: only the requests of an emulator that
 * keeps one (but reads, which have none) read their body through one.
 */
class Recording implements BodySource {
  bytes: Uint8Array | undefined;
  constructor(private readonly source: BodySource) {}
  get present(): boolean {
    return this.source.present;
  }
  get rawHeaders(): readonly string[] | undefined {
    return this.source.rawHeaders;
  }
  read(limit: number): Promise<Uint8Array | undefined> {
    return this.source.read(limit).then((bytes) => (this.bytes = bytes));
  }
  readArrived(limit: number): Uint8Array | undefined | typeof STILL_ARRIVING {
    const bytes = this.source.readArrived(limit);
    if (bytes !== STILL_ARRIVING) this.bytes = bytes;
    return bytes;
  }
}

/** The API's answer to a request, its body read through a Recording (journaled() hands the bytes to the history). */
function recorded(
  c: HonoContext<HttpEnv>,
  api: (c: HonoContext<HttpEnv>) => Response | Promise<Response>,
): Response | Promise<Response> {
  // A copy of the bindings (in process they are the emulator's own object, shared by every request).
  c.env = { ...c.env, body: new Recording(c.env.body ?? requestBody(c.req.raw)) };
  return api(c);
}
