/**
 * One operation of the API and the checks every request goes through, in the order of
 * docs/api.md "Rules every request follows" (the first failure answers), with the hooks where api faults act
 * (src/http/fault-hooks.ts) in angle brackets:
 *
 *   <arrival> → credential (401) → permission (403) → malformed headers, idempotency key (400)
 *   → media type (415) → body size (413) → JSON syntax (400) → idempotent replay → <held> → input validation (422)
 *   → [<evaluation> → core: resource exists (404) → If-Match present (428) → If-Match matches (412) → state (409)
 *   → apply] → <answered>, and <sent> on whichever answer left the steps after <arrival>
 *
 * The bracketed steps belong to the core operation (`run`), which returns a Result. This file holds no
 * business rule: it reads the request, calls the core and writes the answer.
 */
import { setTimeout as nextLoop } from 'node:timers/promises';
import type { Context as HonoContext } from 'hono';
import type { z } from 'zod';
import { hasPermission, type Company, type Credential, type Permission } from '../core/companies.js';
import { concurrentEditImpossible } from '../core/concurrent-edit.js';
import type { ApiFault } from '../engine/faults.js';
import {
  canonicalJson,
  idempotencyScope,
  lookupIdempotency,
  storeIdempotency,
  type StoredResponse,
} from '../core/idempotency.js';
import type { Result } from '../core/refusal.js';
import type { Context, State } from '../core/state.js';
import { keptTags } from '../core/kept-text.js';
import { ENTITY_TAGS, ifMatchOperation, readIfMatch, type IfMatch, type IfMatchOperation } from '../core/versioning.js';
import { apiError, errorResponse, STATUS_OF, unreadableBody, type ApiError } from './errors.js';
import { actAt, actsAt } from './fault-hooks.js';
import { BodyReadError, readingBody, STILL_ARRIVING, type BodySource, type HttpEnv } from './runtime.js';
import type { Runtime } from '../engine/runtimes.js';
import type { OperationDoc } from './contract/wire.js';
import { formatPath, parse, parseParams, validationError } from './schemas.js';
import { flat, requestDigest, storedResponse, toStored } from './stored-answers.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Default request body limit (docs/where-the-spec-is-silent.md "Limits the emulator adds"). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

interface Call<P, Q, B> {
  readonly runtime: Runtime;
  readonly state: State;
  readonly ctx: Context;
  readonly company: Company;
  readonly credential: Credential;
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  /** The request's If-Match, on an operation that takes it (IF_MATCH_OPERATIONS, src/core/versioning.ts); undefined elsewhere. */
  readonly ifMatch: IfMatch;
  /** `If-None-Match: *` was sent (create only), on operations that take it. */
  readonly createOnly: boolean;
  /** A mutation's body as canonical JSON (keys sorted, no white space): what tells two bodies apart. */
  readonly canonicalBody: string;
}

/** A successful answer. `body` is serialized as JSON unless it is already a string of JSON. */
export interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly etag?: string;
  readonly location?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface OperationSpec<P, Q, B> {
  readonly method: Method;
  /** hono path, e.g. `/v1/catalogos/:id`. */
  readonly path: string;
  /** Undefined: any valid credential of the company may call it. */
  readonly permission?: Permission;
  /** The operation needs an active subscription (spec "Authentication": webhook configuration, test, resend). */
  readonly requiresSubscription?: boolean;
  /** The operation takes `If-None-Match: *` to create (PUT /v1/webhook); elsewhere the header is ignored. */
  readonly acceptsIfNoneMatch?: boolean;
  readonly params: z.ZodType<P>;
  readonly query: z.ZodType<Q>;
  /** The body of a mutation. */
  readonly body?: z.ZodType<B>;
  /** The operation takes no fields: the body may be absent or `{}` (spec "Common rules"). */
  readonly bodyOptional?: boolean;
  readonly bodyLimit?: number;
  /** The operation's own idempotency-key rule, where the spec states one (the ingestion start). */
  readonly idempotencyKey?: KeyRule;
  /** How a replayed answer is told from the first (the ingestion start: 200 with `repetida: true`); default as stored. */
  readonly replay?: (stored: StoredResponse, state: State) => StoredResponse;
  /** What the OpenAPI document says of it beyond its inputs: summary, answers and their statuses. */
  readonly doc: OperationDoc;
  run(call: Call<P, Q, B>): Result<Reply>;
}

/** An operation as the document sees it: everything of its spec but the behaviour. */
export type OperationContract = Omit<OperationSpec<unknown, unknown, unknown>, 'run' | 'replay' | 'idempotencyKey'> & {
  readonly idempotencyKey: KeyRule;
};

export interface Operation {
  readonly method: Method;
  readonly path: string;
  /** Its row of the If-Match table (IF_MATCH_OPERATIONS), when it takes If-Match. */
  readonly guard: IfMatchOperation | undefined;
  readonly contract: OperationContract;
  /** The answer: at once where nothing is awaited (a GET not held by a fault), else a promise of it. */
  handle(c: HonoContext<HttpEnv>, arrival: Arrival): Response | Promise<Response>;
  /**
   * The operation made without a request, by the fixtures (src/http/fixtures.ts): the same permission and
   * subscription checks, the same parsing of its path parameters and body, the same core operation, in one
   * transition of `runtime`. No request id, journal entry, fault or idempotency record: no client sent it.
   */
  invoke(runtime: Runtime, caller: Caller, input: Invocation): Reply | ApiError;
}

/** Who an invoked operation acts for. */
interface Caller {
  readonly company: Company;
  readonly credential: Credential;
}

/** What an invoked operation is given: its path parameters, its body, and `If-None-Match: *` (create only). */
interface Invocation {
  readonly params?: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly createOnly?: boolean;
}

/** What app.ts learned of a request before its operation: its world, its credential, its id and the path's parameters. */
interface Arrival {
  readonly runtime: Runtime;
  readonly token: string | undefined;
  readonly requestId: string;
  /** The path's parameters, decoded, not yet validated. */
  readonly params: Readonly<Record<string, string>>;
  /** The request's journal entry, which the pipeline completes as it learns the company, key, replay and fault. */
  readonly journal: JournalNotes;
}

interface JournalNotes {
  companyId: string | null;
  idempotencyKey: string | null;
  replayed: boolean;
  faultId: string | null;
  ifMatch: readonly string[] | null;
  fingerprint: string | null;
  lost: boolean;
}

export function operation<P, Q, B = undefined>(spec: OperationSpec<P, Q, B>): Operation {
  const guard = guardOf(spec.method, spec.path);
  // Fixed per operation, so decided once: whether another client could save what its If-Match guards.
  const raceable = guard !== undefined && concurrentEditImpossible(guard) === undefined;
  const { run: _run, replay: _replay, ...described } = spec;
  const contract: OperationContract = {
    ...(described as unknown as OperationContract),
    idempotencyKey: spec.idempotencyKey ?? IDEMPOTENCY_KEY,
  };
  const fixed: Fixed<P, Q, B> = {
    spec,
    guard,
    raceable,
    keyRule: spec.idempotencyKey ?? IDEMPOTENCY_KEY,
    mutates: spec.method !== 'GET',
  };
  return {
    method: spec.method,
    path: spec.path,
    guard,
    contract,
    handle: (c, arrival) => handle(fixed, c, arrival),
    invoke: (runtime, caller, input) => invoke(fixed, runtime, caller, input),
  };
}

/** Operation.invoke: the checks of a request that do not concern its transport, then the core operation. */
function invoke<P, Q, B>(
  { spec }: Fixed<P, Q, B>,
  runtime: Runtime,
  { company, credential }: Caller,
  input: Invocation,
): Reply | ApiError {
  const refused = accessRefusal(spec, company, credential);
  if (refused) return refused;
  const params = parseParams(spec.params, input.params ?? {});
  if (!params.success) return validationError('path', params.error);
  const query = parse(spec.query, {});
  if (!query.success) return validationError('query', query.error);
  const body = spec.body ? parse(spec.body, input.body) : undefined;
  if (body && !body.success) return validationError('body', body.error);
  const canonicalBody = canonicalJson(input.body);
  const result = runtime.apply((state, ctx) =>
    spec.run({
      runtime,
      state,
      ctx,
      company,
      credential,
      params: params.data,
      query: query.data,
      body: body?.data as B,
      ifMatch: undefined,
      createOnly: input.createOnly === true,
      canonicalBody,
    }),
  );
  if (!result.ok) {
    const { kind, codigo, mensagem, caminho } = result.refusal;
    return apiError(STATUS_OF[kind], codigo, mensagem, caminho);
  }
  return result.value;
}

/** 403: a credential without the operation's permission, or a company whose subscription it needs is suspended. */
function accessRefusal(
  spec: Pick<OperationSpec<unknown, unknown, unknown>, 'permission' | 'requiresSubscription'>,
  company: Company,
  credential: Credential,
): ApiError | undefined {
  if (spec.permission && !hasPermission(credential, spec.permission)) {
    return apiError(
      403,
      'permissao_insuficiente',
      `This operation needs permission ${spec.permission}; the credential has ${credential.permissions.join(', ') || 'none'}.`,
    );
  }
  if (spec.requiresSubscription && !company.subscriptionActive) {
    return apiError(
      403,
      'assinatura_inativa',
      "This operation needs an active subscription; the company's is suspended.",
    );
  }
  return undefined;
}

/**
 * An operation as its document states it: its operationId, method, path as the spec writes it (`{id}`), and every
 * status the document gives it (its successes, the spec's error set and the emulator's own), ascending.
 */
export function documentedOperation(op: Operation): {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly statuses: readonly number[];
} {
  const { doc } = op.contract;
  const statuses = [
    ...Object.keys(doc.success).map(Number),
    ...doc.errors,
    ...(doc.extraErrors ?? []).map((e) => e.status),
  ];
  return {
    id: doc.id,
    method: op.method,
    path: specPath(op.path),
    statuses: [...new Set(statuses)].sort((a, b) => a - b),
  };
}

/** The If-Match row of the operation registered as `method` + hono `path` (`/v1/catalogos/:id`), if it takes If-Match. */
export function guardOf(method: string, honoPath: string): IfMatchOperation | undefined {
  return ifMatchOperation(method, specPath(honoPath));
}

/** A hono path (`/v1/catalogos/:id`) as the spec writes it (`/v1/catalogos/{id}`). */
const specPath = (honoPath: string): string => honoPath.replace(/:([A-Za-z_]\w*)/g, '{$1}');

/** What an idempotency-key must look like, and how to say so. */
interface KeyRule {
  readonly pattern: RegExp;
  readonly description: string;
  /** Its length bounds (the pattern holds them too): the document states them. */
  readonly length: { readonly min: number; readonly max: number };
}

/** Spec "Common rules": the length of an idempotency-key (GET /v1/contexto reports it). */
export const IDEMPOTENCY_KEY_LENGTH = { min: 16, max: 128 } as const;
/** Spec "Common rules": 16 to 128 of A-Z a-z 0-9 . _ : - */
const IDEMPOTENCY_KEY: KeyRule = {
  pattern: new RegExp(`^[A-Za-z0-9._:-]{${IDEMPOTENCY_KEY_LENGTH.min},${IDEMPOTENCY_KEY_LENGTH.max}}$`),
  description: `${IDEMPOTENCY_KEY_LENGTH.min} to ${IDEMPOTENCY_KEY_LENGTH.max} characters from A-Z, a-z, 0-9, ".", "_", ":" and "-"`,
  length: IDEMPOTENCY_KEY_LENGTH,
};
/** The If-Match pattern the document states (read by readIfMatch, beside the check of the tags). */
export { ENTITY_TAGS };

/** What is fixed per operation, decided once. */
interface Fixed<P, Q, B> {
  readonly spec: OperationSpec<P, Q, B>;
  readonly guard: IfMatchOperation | undefined;
  /** Whether another client could save what its If-Match guards (the `concurrentEdit` fault, docs/faults.md). */
  readonly raceable: boolean;
  readonly keyRule: KeyRule;
  readonly mutates: boolean;
  /** The query of a request without one, parsed at the operation's first such request. */
  noQuery?: z.ZodSafeParseResult<Q>;
}

/** A request past the checks of its headers: who sent it and what they said. */
interface Admitted<P, Q, B> {
  readonly fixed: Fixed<P, Q, B>;
  readonly c: HonoContext<HttpEnv>;
  readonly arrival: Arrival;
  readonly path: string;
  readonly company: Company;
  readonly credential: Credential;
  readonly headers: RequestHeaders;
  readonly fault: ApiFault | undefined;
}

/** The error answer of this request, its x-request-id included. */
const fail = (error: ApiError, requestId: string) => errorResponse(error, requestId, { 'x-request-id': requestId });

/** <arrival>: the api fault taken on arrival, and what it does there; then the request (admit). */
function handle<P, Q, B>(
  fixed: Fixed<P, Q, B>,
  c: HonoContext<HttpEnv>,
  arrival: Arrival,
): Response | Promise<Response> {
  const { spec } = fixed;
  const { runtime, token, requestId, journal } = arrival;
  const path = c.req.path;

  const credential = token === undefined ? undefined : runtime.credential(token);
  journal.companyId = credential?.companyId ?? null;

  const fault = runtime.takeApiFault({ method: spec.method, path, companyId: credential?.companyId }, 'arrival');
  if (fault) {
    journal.faultId = fault.id;
    const refused = actAt(fault, 'arrival', {});
    if (refused) {
      // A write answered here never reached the check of its headers: the journal still names the key it was sent
      // with, when that is one, so that the grading can tell its retry (the same key) from a new request.
      if (fixed.mutates) journal.idempotencyKey = keyOf(c.req.raw.headers, fixed.keyRule);
      return fail(refused, requestId);
    }
    // An effect on the answer as it leaves (<sent>): whatever the request gets from here on, that answer.
    if (actsAt(fault, 'sent')) {
      const answer = admit(fixed, c, arrival, path, credential, fault);
      return answer instanceof Promise
        ? answer.then((response) => actAt(fault, 'sent', { response })!)
        : actAt(fault, 'sent', { response: answer })!;
    }
  }
  return admit(fixed, c, arrival, path, credential, fault);
}

/** From the credential on: credential, permission, headers and body, then the rest (proceed). */
function admit<P, Q, B>(
  fixed: Fixed<P, Q, B>,
  c: HonoContext<HttpEnv>,
  arrival: Arrival,
  path: string,
  credential: Credential | undefined,
  fault: ApiFault | undefined,
): Response | Promise<Response> {
  const { spec, mutates } = fixed;
  const { runtime, token, requestId, journal } = arrival;
  const request = c.req.raw;

  // 401, 403
  if (token === undefined) {
    return fail(
      apiError(
        401,
        'credencial_ausente',
        'Send the credential as "Authorization: Bearer <ACCESS_TOKEN>".',
        'header.authorization',
        { 'www-authenticate': 'Bearer' },
      ),
      requestId,
    );
  }
  const company = credential && runtime.state.companies.get(credential.companyId);
  if (!credential || !company) {
    return fail(
      apiError(401, 'credencial_invalida', 'The bearer token is not a valid credential.', 'header.authorization', {
        'www-authenticate': 'Bearer error="invalid_token"',
      }),
      requestId,
    );
  }
  const forbidden = accessRefusal(spec, company, credential);
  if (forbidden) return fail(forbidden, requestId);

  // 400: headers
  const headers = readHeaders(request.headers, mutates, spec.acceptsIfNoneMatch === true, fixed.keyRule);
  if ('status' in headers) return fail(headers, requestId);
  journal.idempotencyKey = headers.idempotencyKey ?? null;
  if (headers.ifMatch !== undefined) journal.ifMatch = keptTags(headers.ifMatch);

  const admitted: Admitted<P, Q, B> = { fixed, c, arrival, path, company, credential, headers, fault };
  if (!mutates) return proceed(admitted, undefined);

  // 415, 413, 400: the body. Only its reading is awaited; a request without one goes on at once.
  const body = c.env.body ?? requestBody(request);
  const optional = spec.bodyOptional === true;
  const refused = mediaTypeRefusal(request, body, optional);
  if (refused) return fail(refused, requestId);
  const limit = spec.bodyLimit ?? DEFAULT_BODY_LIMIT;
  if (!body.present) return parsed(admitted, jsonOf(EMPTY, limit, optional));
  const arrived = body.readArrived(limit);
  if (arrived !== STILL_ARRIVING) return parsed(admitted, jsonOf(arrived, limit, optional));
  return body.read(limit).then(
    (bytes) => parsed(admitted, jsonOf(bytes, limit, optional)),
    (error: unknown) => fail(unreadable(error), requestId),
  );
}

/** On from the body as read: its refusal, or the request with it. */
function parsed<P, Q, B>(
  admitted: Admitted<P, Q, B>,
  read: { value: unknown } | ApiError,
): Response | Promise<Response> {
  return 'status' in read ? fail(read, admitted.arrival.requestId) : proceed(admitted, read.value);
}

/** From the idempotent replay on: the replay, <held>, then the operation (evaluate). */
function proceed<P, Q, B>(admitted: Admitted<P, Q, B>, body: unknown): Response | Promise<Response> {
  const {
    fixed: { spec },
    arrival,
    company,
    headers,
    fault,
    path,
  } = admitted;
  const { runtime, requestId, journal } = arrival;

  // Idempotent replay: a repeated key answers from the store, before validation and any ETag check.
  // `key` is present exactly on mutations (readHeaders refused one without).
  const key = headers.idempotencyKey;
  const inFlight = runtime.inFlight;
  const canonicalBody = key === undefined ? '' : canonicalJson(body);
  const fingerprint = key === undefined ? '' : requestDigest(spec.method, path, canonicalBody);
  if (key !== undefined) {
    journal.fingerprint = fingerprint;
    // Only a request held by a fault is ever in flight (below): most of the time none is.
    const running = inFlight.size === 0 ? undefined : inFlight.get(idempotencyScope(company.id, key));
    const found =
      running === undefined
        ? lookupIdempotency(runtime.state, company.id, key, fingerprint, runtime.clock.now())
        : running === fingerprint
          ? ({ kind: 'in_flight' } as const)
          : ({ kind: 'other_request' } as const);
    switch (found.kind) {
      case 'replay':
        journal.replayed = true;
        return storedResponse(
          spec.replay ? spec.replay(found.response, runtime.state) : found.response,
          requestId,
          REPLAYED,
        );
      case 'other_request':
        return fail(
          apiError(
            422,
            'idempotencia_reutilizada',
            'This idempotency-key was already used for a different request (method, path or body); generate a new key for each new request.',
            'header.idempotency-key',
          ),
          requestId,
        );
      case 'in_flight':
        return fail(
          apiError(
            409,
            'idempotencia_em_curso',
            'A request with this idempotency-key is still being processed; retry after it answers.',
            'header.idempotency-key',
          ),
          requestId,
        );
      case 'new':
        break;
    }
  }

  // Without a fault nothing is awaited from here to the answer, so no other request can see this one in flight:
  // it runs on, as it always has, and only a request a fault may hold is recorded in flight under its key.
  if (fault === undefined) return evaluate(admitted, body, key, fingerprint, canonicalBody);
  // The in-flight map is this world's: a reset or restore while the request is held swaps the runtime's for a new
  // one, which this key is not in.
  const scope = key === undefined ? undefined : idempotencyScope(company.id, key);
  if (scope !== undefined) inFlight.set(scope, fingerprint);
  let holding: Promise<ApiError | undefined> | undefined;
  try {
    holding = actAt(fault, 'held', { runtime, companyId: company.id });
    if (holding === undefined) return evaluate(admitted, body, key, fingerprint, canonicalBody);
  } finally {
    if (holding === undefined && scope !== undefined) inFlight.delete(scope);
  }
  const held = holding.then(async (released) => {
    if (released) return fail(released, requestId);
    const answer = evaluate(admitted, body, key, fingerprint, canonicalBody);
    // The client that gave up waiting (it closed the connection, or in process aborted the Request's signal) never
    // gets this answer, though the request ran. Over a socket the close may arrive in the same turn of the event
    // loop as what released the hold (a clock advance on another connection, sent after the client closed), and
    // Node emits a socket's 'close' in the turn's last phase: the answer waits for the next turn. In process an
    // abort is seen at once.
    const { signal } = admitted.c.req.raw;
    if (!signal.aborted && admitted.c.env.target !== undefined) await nextLoop(0);
    if (signal.aborted) journal.lost = true;
    return answer;
  });
  return scope === undefined ? held : held.finally(() => inFlight.delete(scope));
}

/** The query by the operation's schema; one without a query string is parsed once per operation, not per request. */
function parseQuery<Q>(fixed: Fixed<unknown, Q, unknown>, url: string): z.ZodSafeParseResult<Q> | ApiError {
  if (url.includes('?')) {
    const query = readQuery(url);
    return 'status' in query ? query : parse(fixed.spec.query, query.value);
  }
  if (fixed.noQuery === undefined) {
    const parsed = parse(fixed.spec.query, {});
    // Shared by every such request: read-only.
    if (parsed.success) Object.freeze(parsed.data);
    fixed.noQuery = parsed;
  }
  return fixed.noQuery;
}

const REPLAYED: Readonly<Record<string, string>> = { 'idempotent-replayed': 'true' };

/** Input validation (422), then the core operation (404, 428, 412, 409, apply), its answer stored for replays. */
function evaluate<P, Q, B>(
  admitted: Admitted<P, Q, B>,
  body: unknown,
  key: string | undefined,
  fingerprint: string,
  canonicalBody: string,
): Response {
  const {
    fixed: { spec, guard, raceable, mutates },
    c,
    arrival,
    company,
    credential,
    headers,
    path,
  } = admitted;
  const { runtime, requestId, journal } = arrival;

  // 422
  const params = parseParams(spec.params, arrival.params);
  if (!params.success) return fail(validationError('path', params.error), requestId);
  const parsedQuery = parseQuery(admitted.fixed, c.req.raw.url);
  if ('status' in parsedQuery) return fail(parsedQuery, requestId);
  if (!parsedQuery.success) return fail(validationError('query', parsedQuery.error), requestId);
  let parsedBody: B = undefined as B;
  if (mutates && spec.body) {
    const result = parse(spec.body, body);
    if (!result.success) return fail(validationError('body', result.error), requestId);
    parsedBody = result.data;
  }

  // Only the operations of the If-Match table see the header: their core operation checks it (428, 412).
  const ifMatch = guard ? headers.ifMatch : undefined;
  const result = runtime.apply((state, ctx) => {
    if (guard && raceable && ifMatch !== undefined) {
      // Only where another client could save what this If-Match guards (the `concurrentEdit` fault).
      // The fault's scene is built only for a fault that acts: with none armed (nearly always), nothing is.
      const act = (taken: ApiFault) => {
        const guardedId =
          guard.guardedBy === undefined ? undefined : (params.data as Record<string, string>)[guard.guardedBy];
        return actAt(taken, 'evaluation', { state, ctx, companyId: company.id, guard, guardedId }) === true;
      };
      const edit = runtime.takeApiFault({ method: spec.method, path, companyId: company.id }, 'evaluation', act);
      if (edit) journal.faultId = edit.id;
    }
    // 404, 428, 412, 409, apply
    return spec.run({
      runtime,
      state,
      ctx,
      company,
      credential,
      params: params.data,
      query: parsedQuery.data,
      body: parsedBody,
      ifMatch,
      createOnly: headers.createOnly,
      canonicalBody,
    });
  });
  if (!result.ok) {
    const { kind, codigo, mensagem, caminho, limit } = result.refusal;
    return fail(
      apiError(
        STATUS_OF[kind],
        codigo,
        mensagem,
        caminho,
        limit && { 'retry-after': String(limit.resetSeconds), ...rateLimitHeaders(limit) },
      ),
      requestId,
    );
  }
  const stored = toStored(result.value);
  if (key !== undefined && stored.status < 300) {
    // The store keeps the key in one piece (see flat), and the journal that same string. Over a socket it is already
    // one: Node's parser makes each header value a string of its own, and a key that passed the key rule was neither
    // joined from two headers (", ") nor trimmed. In process it is whatever string the caller's Headers gave.
    const kept = c.env.target === undefined ? flat(key) : key;
    journal.idempotencyKey = kept;
    storeIdempotency(
      runtime.state,
      company.id,
      kept,
      fingerprint,
      stored,
      runtime.clock.now(),
      runtime.maxStoredAnswersPerCompany,
    );
  }
  const answered = admitted.fault === undefined ? undefined : actAt(admitted.fault, 'answered', { answer: stored });
  if (answered === undefined) return storedResponse(stored, requestId);
  if (!('error' in answered)) return storedResponse(answered.answer, requestId);
  // The request was processed and its answer replaced (loseResponse): the client never learns it ran.
  journal.lost = true;
  return fail(answered.error, requestId);
}

export function bearerToken(header: string | null): string | undefined {
  if (header === null) return undefined;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : '';
}

/**
 * The RateLimit-Policy and RateLimit headers of draft-ietf-httpapi-ratelimit-headers: the policy (quota per
 * window) and what is left of it now.
 */
export function rateLimitHeaders(limit: {
  policy: string;
  limit: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
}): Record<string, string> {
  return {
    'ratelimit-policy': `"${limit.policy}";q=${limit.limit};w=${limit.windowSeconds}`,
    ratelimit: `"${limit.policy}";r=${limit.remaining};t=${limit.resetSeconds}`,
  };
}

interface RequestHeaders {
  readonly idempotencyKey: string | undefined;
  /** The If-Match of a mutation, checked for form; only the operations that take it see it (Call.ifMatch). */
  readonly ifMatch: IfMatch;
  readonly createOnly: boolean;
}

/** A read's headers, for every read but one that takes If-None-Match (none does). */
const READ_HEADERS: RequestHeaders = Object.freeze({
  idempotencyKey: undefined,
  ifMatch: undefined,
  createOnly: false,
});

/** The idempotency-key a request was sent with, when it passes the key rule; null otherwise. */
function keyOf(headers: Headers, keyRule: KeyRule): string | null {
  const key = headers.get('idempotency-key');
  return key !== null && keyRule.pattern.test(key) ? key : null;
}

function readHeaders(
  headers: Headers,
  mutates: boolean,
  acceptsIfNoneMatch: boolean,
  keyRule: KeyRule,
): RequestHeaders | ApiError {
  if (!mutates && !acceptsIfNoneMatch) return READ_HEADERS;
  const ifMatch = headers.get('if-match');
  // Only read where it can matter: beside an If-Match (400 for both), or where it means create-only.
  const ifNoneMatch = ifMatch !== null || acceptsIfNoneMatch ? headers.get('if-none-match') : null;
  if (ifMatch !== null && ifNoneMatch !== null && mutates) {
    return apiError(
      400,
      'precondicoes_conflitantes',
      'Send If-Match or If-None-Match, never both.',
      'header.if-none-match',
    );
  }
  const createOnly = acceptsIfNoneMatch && ifNoneMatch !== null;
  if (createOnly && ifNoneMatch.trim() !== '*') {
    return apiError(
      400,
      'cabecalho_invalido',
      'If-None-Match takes only "*" here: create the resource only if none exists.',
      'header.if-none-match',
    );
  }
  let tags: IfMatch;
  if (ifMatch !== null && mutates) {
    const read = readIfMatch(ifMatch);
    if (read === '*') {
      return apiError(
        400,
        'cabecalho_invalido',
        'If-Match must carry the ETag read from the resource, quotes included; "*" is not accepted.',
        'header.if-match',
      );
    }
    if (read === undefined) {
      return apiError(
        400,
        'cabecalho_invalido',
        'If-Match must be the ETag exactly as read, quotes included, e.g. If-Match: "5f3c9a1b2d4e6f70".',
        'header.if-match',
      );
    }
    tags = read;
  }
  if (!mutates) return READ_HEADERS;
  const key = headers.get('idempotency-key');
  if (key === null) {
    return apiError(
      400,
      'chave_idempotencia_ausente',
      `Every state-changing request needs an idempotency-key header: generate one per request (${keyRule.description}) and reuse it only to repeat that same request.`,
      'header.idempotency-key',
    );
  }
  if (!keyRule.pattern.test(key)) {
    return apiError(
      400,
      'chave_idempotencia_invalida',
      `idempotency-key must have ${keyRule.description}.`,
      'header.idempotency-key',
    );
  }
  return { idempotencyKey: key, ifMatch: tags, createOnly };
}

export function isJson(contentType: string | null): boolean {
  if (contentType === null) return false;
  if (contentType === 'application/json') return true;
  const [type, ...parameters] = contentType.split(';').map((p) => p.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return parameters.every((p) => p === '' || p === 'charset=utf-8' || p === 'charset="utf-8"');
}

/** The body of a request, read and parsed (the control routes'). */
export function readJsonBody(
  request: Request,
  body: BodySource,
  limit: number,
  optional: boolean,
): Promise<{ value: unknown } | ApiError> {
  const refused = mediaTypeRefusal(request, body, optional);
  if (refused) return Promise.resolve(refused);
  if (!body.present) return Promise.resolve(jsonOf(EMPTY, limit, optional));
  return body.read(limit).then((bytes) => jsonOf(bytes, limit, optional), unreadable);
}

/** 415: a body (or a body the operation needs) not sent as JSON. */
function mediaTypeRefusal(request: Request, body: BodySource, optional: boolean): ApiError | undefined {
  if (!body.present && optional) return undefined;
  const contentType = request.headers.get('content-type');
  if (isJson(contentType)) return undefined;
  return apiError(
    415,
    'tipo_midia_nao_suportado',
    `Send the body as JSON with "content-type: application/json" (got ${contentType === null ? 'no content-type' : `"${contentType}"`}).`,
    'header.content-type',
  );
}

const EMPTY = new Uint8Array(0);

/** The body's bytes (undefined: past `limit`) as JSON: 413, or 400 for an empty body, bad UTF-8 or bad JSON. */
function jsonOf(bytes: Uint8Array | undefined, limit: number, optional: boolean): { value: unknown } | ApiError {
  if (bytes === undefined)
    return apiError(413, 'corpo_muito_grande', `The body exceeds this operation's limit of ${limit} bytes.`, 'body');
  if (bytes.length === 0) {
    if (optional) return { value: {} };
    return apiError(400, 'json_invalido', 'The body is empty; send a JSON object.', 'body');
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return apiError(400, 'json_invalido', 'The body is not valid UTF-8.', 'body');
  }
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return apiError(400, 'json_invalido', `The body is not valid JSON: ${(error as Error).message}`, 'body');
  }
}

/** A body that could not be read to its end is the client's 400; anything else is a bug. */
function unreadable(error: unknown): ApiError {
  if (error instanceof BodyReadError) return unreadableBody(error);
  throw error;
}

/**
 * The body of an in-process Request: a declared length over the limit is refused before reading; a stream
 * that errors is a BodyReadError.
 */
export function requestBody(request: Request): BodySource {
  return new StreamBody(request);
}

class StreamBody implements BodySource {
  readonly present: boolean;
  private readonly declared: string | null;

  constructor(private readonly request: Request) {
    this.declared = request.headers.get('content-length');
    this.present = request.body !== null && this.declared !== '0';
  }

  readArrived(): typeof STILL_ARRIVING {
    return STILL_ARRIVING;
  }

  read(limit: number): Promise<Uint8Array | undefined> {
    if (this.declared !== null && !(Number(this.declared) <= limit)) return Promise.resolve(undefined);
    const stream = this.request.body;
    return stream === null ? Promise.resolve(new Uint8Array(0)) : readingBody(() => readLimited(stream, limit));
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

async function readLimited(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | undefined> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Query parameters as an object; a repeated parameter is refused rather than silently picking one. */
function readQuery(url: string): { value: Record<string, string> } | ApiError {
  const start = url.indexOf('?');
  if (start < 0) return { value: {} };
  const value: Record<string, string> = Object.create(null);
  for (const [name, v] of new URLSearchParams(url.slice(start + 1))) {
    if (name in value)
      return apiError(
        422,
        'parametro_repetido',
        `${formatPath('query', [name])} appears more than once.`,
        formatPath('query', [name]),
      );
    value[name] = v;
  }
  return { value: { ...value } };
}
