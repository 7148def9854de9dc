/**
 * Every request the spec tests send and every answer they get, checked against the OpenAPI document the package
 * ships (openapi.json): an answer whose status, headers or body the document does not allow fails the test that
 * saw it, and so does a request the emulator accepted (2xx) that the document says is invalid. A refused request
 * needs no check: the tests send invalid ones on purpose, and neither does a replay (see checkedFetch).
 *
 * The document is the committed file, not a fresh generation: what users download is what is proven (a unit
 * test keeps the file equal to the generator's output).
 */
import { readFileSync } from 'node:fs';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

type Json = Record<string, unknown>;

interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly required: boolean;
  readonly schema: Json;
}

interface DocumentedOperation {
  readonly method: string;
  readonly template: string;
  readonly pointer: string;
  readonly pattern: RegExp;
  readonly names: readonly string[];
  readonly operation: Json;
}

const DOCUMENT = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as Json;
// CommonJS modules seen from ESM: the class and the function are their `default`.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(DOCUMENT, 'openapi.json');

/** A JSON pointer segment (RFC 6901). */
const segment = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

const OPERATIONS: readonly DocumentedOperation[] = Object.entries(
  DOCUMENT.paths as Record<string, Record<string, Json>>,
).flatMap(([template, item]) =>
  Object.entries(item).map(([method, operation]) => {
    const names: string[] = [];
    const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    return {
      method: method.toUpperCase(),
      template,
      pointer: `openapi.json#/paths/${segment(template)}/${method}`,
      pattern: new RegExp(`^${source}$`),
      names,
      operation,
    };
  }),
);

const compiled = new Map<string, ValidateFunction>();
function validatorAt(pointer: string): ValidateFunction {
  const known = compiled.get(pointer);
  if (known) return known;
  const validate = ajv.compile({ $ref: pointer });
  compiled.set(pointer, validate);
  return validate;
}

/** A parameter's or a header's own (inline) schema, compiled once: an object of the document, so known by identity. */
const inlineCompiled = new WeakMap<Json, ValidateFunction>();
function inlineValidator(schema: Json): ValidateFunction {
  const known = inlineCompiled.get(schema);
  if (known) return known;
  const validate = ajv.compile(schema);
  inlineCompiled.set(schema, validate);
  return validate;
}

function problemsOf(pointer: string, value: unknown): string[] {
  const validate = validatorAt(pointer);
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (e) =>
      `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${e.params && Object.keys(e.params).length > 0 ? ` ${JSON.stringify(e.params)}` : ''}`,
  );
}

/** A $ref of the document, followed (components are one level deep here). */
function resolve<T extends Json>(value: T | { $ref: string }): T {
  if (!('$ref' in value) || typeof value.$ref !== 'string') return value as T;
  let at: unknown = DOCUMENT;
  for (const part of value.$ref.replace(/^#\//, '').split('/'))
    at = (at as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return at as T;
}

/**
 * The operation `method` `path` is, if any, found as the API routes it: a path without parameters is exactly that
 * path (GET /v1/catalogos/ingestoes is not /v1/catalogos/{id} with id "ingestoes": another method there is 405);
 * otherwise the templates of this method that match, the most literal first (the ingestion paths before the
 * catalog ones).
 */
function findOperation(
  method: string,
  path: string,
): { op: DocumentedOperation; params: Record<string, string> } | undefined {
  const matching = OPERATIONS.filter((o) => o.pattern.test(path));
  const literal = matching.filter((o) => o.names.length === 0);
  const op = (literal.length > 0 ? literal : matching)
    .filter((o) => o.method === method)
    .sort((a, b) => a.names.length - b.names.length)[0];
  const m = op?.pattern.exec(path);
  if (!op || !m) return undefined;
  return { op, params: Object.fromEntries(op.names.map((n, i) => [n, decoded(m[i + 1]!)])) };
}

/** A path segment as the router reads it; a hostile one that does not decode stays as sent. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A parameter's text as the type its schema names (a query integer arrives as digits). */
function typed(text: string, schema: Json): unknown {
  return schema.type === 'integer' && /^\d+$/.test(text) ? Number(text) : text;
}

/** What the document says is wrong with a request the emulator accepted. */
function requestProblems(
  found: { op: DocumentedOperation; params: Record<string, string> },
  url: URL,
  headers: Headers,
  body: string | undefined | null,
): string[] {
  const problems: string[] = [];
  const parameters = ((found.op.operation.parameters ?? []) as Parameter[]).map(
    (p) => resolve(p as unknown as Json) as unknown as Parameter,
  );
  const check = (where: string, value: unknown, schema: Json) => {
    const validate = inlineValidator(schema);
    if (!validate(value)) problems.push(`${where} ${JSON.stringify(value)}: ${ajv.errorsText(validate.errors)}`);
  };
  for (const p of parameters) {
    const text =
      p.in === 'path'
        ? found.params[p.name]
        : p.in === 'query'
          ? (url.searchParams.get(p.name) ?? undefined)
          : (headers.get(p.name) ?? undefined);
    if (text === undefined) {
      if (p.required) problems.push(`${p.in} parameter ${p.name} is required by the document`);
      continue;
    }
    check(`${p.in} parameter ${p.name}`, typed(text, p.schema), p.schema);
  }
  const known = new Set(parameters.filter((p) => p.in === 'query').map((p) => p.name));
  for (const name of url.searchParams.keys())
    if (!known.has(name)) problems.push(`query parameter ${name} is not in the document`);
  const requestBody = found.op.operation.requestBody as Json | undefined;
  if (body === null) return problems;
  if (body !== undefined && body !== '') {
    if (!requestBody) problems.push('a body was sent, and the document takes none');
    else {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        problems.push('the body is not JSON');
      }
      if (parsed !== undefined)
        problems.push(
          ...problemsOf(`${found.op.pointer}/requestBody/content/application~1json/schema`, parsed).map(
            (p) => `body ${p}`,
          ),
        );
    }
  } else if (requestBody?.required === true) problems.push('the document requires a body');
  return problems;
}

/** The headers whose presence the document must allow (others, such as date or content-length, are HTTP's). */
const SIGNIFICANT_HEADERS = [
  'etag',
  'location',
  'retry-after',
  'idempotent-replayed',
  'ratelimit',
  'ratelimit-policy',
  'x-emulator-fault',
  'allow',
  'www-authenticate',
  'content-disposition',
];

/** What the document says is wrong with an answer. */
function responseProblems(
  found: { op: DocumentedOperation } | undefined,
  status: number,
  headers: Headers,
  text: string,
): string[] {
  if (!found) {
    // No operation: the API's own refusal of an unknown path or method.
    if (status !== 404 && status !== 405)
      return [`${status} for a path and method the document does not have (expected 404 or 405)`];
    return errorBodyProblems(text);
  }
  const responses = found.op.operation.responses as Record<string, Json>;
  const range = `${String(status).charAt(0)}XX`;
  const key = String(status) in responses ? String(status) : range in responses ? range : undefined;
  if (key === undefined)
    return [`status ${status} is not among the document's answers (${Object.keys(responses).join(', ')})`];
  const problems: string[] = [];
  if (key === range && headers.get('x-emulator-fault') === null)
    problems.push(`status ${status} is outside the operation's set, and no fault chose it (no x-emulator-fault)`);
  // A shared answer (components.responses) is validated where it is written.
  const written = responses[key]!;
  const at = typeof written.$ref === 'string' ? `openapi.json${written.$ref}` : `${found.op.pointer}/responses/${key}`;
  const response = resolve(written);
  const declared = declaredHeaders(response);
  for (const [name, header] of Object.entries(declared)) {
    const value = headers.get(name);
    if (value === null) {
      if (header.required === true) problems.push(`header ${name} is required by the document`);
      continue;
    }
    const validate = inlineValidator(header.schema as Json);
    if (!validate(value)) problems.push(`header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(validate.errors)}`);
  }
  for (const name of SIGNIFICANT_HEADERS)
    if (headers.get(name) !== null && !(name in declared) && !(name === 'allow' && status === 405))
      problems.push(`header ${name} is not in the document for ${key}`);
  const content = response.content as Record<string, Json> | undefined;
  const type = headers.get('content-type') ?? '';
  if (!content) {
    if (text !== '') problems.push('a body, where the document has none');
    return problems;
  }
  const mediaType = Object.keys(content).find((m) => type.toLowerCase().startsWith(m));
  if (mediaType === undefined)
    return [...problems, `content-type ${JSON.stringify(type)} is not among ${Object.keys(content).join(', ')}`];
  if (mediaType !== 'application/json') return problems;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [...problems, 'the body is not JSON'];
  }
  return [...problems, ...problemsOf(`${at}/content/application~1json/schema`, body).map((p) => `body ${p}`)];
}

/** An answer's headers as the document declares them, by lower-case name: read once per answer of the document. */
const declaredOf = new WeakMap<Json, Record<string, Json>>();
function declaredHeaders(response: Json): Record<string, Json> {
  let declared = declaredOf.get(response);
  if (declared === undefined) {
    declared = Object.fromEntries(
      Object.entries((response.headers ?? {}) as Record<string, Json>).map(([name, h]) => [
        name.toLowerCase(),
        resolve(h),
      ]),
    );
    declaredOf.set(response, declared);
  }
  return declared;
}

function errorBodyProblems(text: string): string[] {
  try {
    return problemsOf('openapi.json#/components/schemas/ErrorBody', JSON.parse(text)).map((p) => `error body ${p}`);
  } catch {
    return ['the error body is not JSON'];
  }
}

/** The statuses whose Response has no body (the Fetch standard's null body statuses that an answer can have). */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/** The request's body as text; `null` for a stream, which was sent as it was read and cannot be read again. */
function bodyText(body: RequestInit['body']): string | undefined | null {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  return null;
}

/** An answer read whole: its text, and its body parsed as JSON (undefined when empty or not JSON). */
export interface ReadAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: unknown;
}

/** `text` parsed as JSON; undefined when empty or not JSON. */
export function parsedBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

type Fetch = (path: string, init?: RequestInit) => Promise<Response>;

/** The operation of an answer the check must look at; undefined for those it leaves alone (see checkedFetch). */
function toCheck(path: string, init: RequestInit, response: Response): { url: URL; method: string } | undefined {
  const url = new URL(path, 'http://contract.check');
  const method = (init.method ?? 'GET').toUpperCase();
  if (!url.pathname.startsWith('/v1') || method === 'HEAD') return undefined;
  // A replay repeats a stored answer byte for byte: it was checked when it was first given. (Only a snapshot
  // edited by hand can store one the document does not allow, and the restore property edits them on purpose.)
  if (response.headers.get('idempotent-replayed') === 'true') return undefined;
  return { url, method };
}

/** Throws, naming every problem, when the document does not allow the answer (or the accepted request). */
function assertAllowed(at: { url: URL; method: string }, init: RequestInit, response: Response, text: string): void {
  const found = findOperation(at.method, at.url.pathname);
  const problems = responseProblems(found, response.status, response.headers, text);
  if (found && response.status >= 200 && response.status < 300) {
    problems.push(
      ...requestProblems(found, at.url, new Headers(init.headers), bodyText(init.body)).map((p) => `request: ${p}`),
    );
  }
  if (problems.length > 0) {
    const name = found
      ? `${String(found.op.operation.operationId)} (${at.method} ${found.op.template})`
      : `${at.method} ${at.url.pathname}`;
    throw new Error(
      `The answer ${response.status} of ${name} breaks the OpenAPI document (openapi.json):\n  ${problems.join('\n  ')}\n  body: ${text.slice(0, 600)}`,
    );
  }
}

/**
 * `fetch` checked against the document: on an API path (/v1), the answer must be one the document allows, and an
 * accepted request one it describes; the controls (/_emulator) are left to their own tests.
 */
export function checkedFetch(fetch: Fetch): Fetch {
  return async (path, init = {}) => {
    const response = await fetch(path, init);
    const at = toCheck(path, init, response);
    if (at === undefined) return response;
    // The body read once, for the check and for the caller (a new Response of the same bytes, status and headers):
    // clone() would copy every chunk into a second stream and decode the text twice.
    const bytes = new Uint8Array(await response.arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    assertAllowed(at, init, response, text);
    return new Response(NULL_BODY_STATUSES.has(response.status) ? null : bytes, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * The same check for a caller that reads the answer whole (the spec tests' client): the body is read and decoded
 * once, with no second Response to build and read again, which was a fifth of what a property test's request cost.
 */
export function checkedAnswers(fetch: Fetch): (path: string, init?: RequestInit) => Promise<ReadAnswer> {
  return async (path, init = {}) => {
    const response = await fetch(path, init);
    const text = await response.text();
    const at = toCheck(path, init, response);
    if (at !== undefined) assertAllowed(at, init, response, text);
    return { status: response.status, headers: response.headers, text, body: parsedBody(text) };
  };
}
