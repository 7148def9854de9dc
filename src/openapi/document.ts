/**
 * The OpenAPI 3.1 document of the service API, generated from what the HTTP layer runs: the operation table
 * (src/http/app.ts), each operation's zod schemas of its path, query and body, its If-Match row, its
 * idempotency-key rule, and its `doc` (answers and statuses, src/http/contract). Nothing here is written by hand
 * about an operation: a change of a route or a schema changes the document, and `npm run openapi` writes it to
 * the committed openapi.json (a test fails when the two differ). The examples are no exception: each is a request
 * the emulator was sent and the answer it gave (src/openapi/examples.ts, recorded by scripts/examples.ts).
 */
import { z } from 'zod';
import { operations } from '../http/app.js';
import { ErrorBody, type OperationDoc, type SuccessDoc, type SuccessHeader } from '../http/contract/wire.js';
import { ENTITY_TAGS, type Operation, type OperationContract } from '../http/pipeline.js';
import { VERSION } from '../version.js';
import { EXAMPLES } from './examples.js';

type Json = Record<string, unknown>;

/** A request sent to the emulator and the success it answered: the examples of one operation. */
interface OperationExample {
  readonly request: { readonly path: string; readonly headers?: Readonly<Record<string, string>>; readonly body?: unknown };
  readonly response: { readonly status: number; readonly body?: unknown; readonly csv?: string };
}

/** The examples by `METHOD /path/{template}`. */
export type OperationExamples = Readonly<Record<string, OperationExample>>;

/** What the document says of a status the spec gives no condition for, or of the emulator's own. */
const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Malformed headers or body: a missing or invalid idempotency-key, If-Match and If-None-Match together, JSON that does not parse.',
  401: 'Missing or invalid credential.',
  403: 'Permission or subscription requirement not met.',
  404: 'No such resource for this company (a resource of another company is 404, never 403).',
  405: 'The path exists, but not with this method (Allow lists the methods).',
  408: 'The request took too long to arrive.',
  409: 'The resource is not in a state that allows the operation, or the same idempotency-key is still running.',
  412: 'If-Match no longer matches the resource.',
  413: 'The body is larger than the operation allows.',
  415: 'The body is not application/json.',
  422: 'A field, path or query parameter is invalid (caminho says which), or an idempotency-key was reused for another request.',
  428: 'If-Match is required and missing.',
  429: 'Rate limit (test and resend share 5 per minute per company).',
  503: 'The service is unavailable; retry with the same idempotency-key.',
};

const HEADERS: Readonly<Record<string, Json>> = {
  'x-request-id': { description: 'Identifies the request; equal to erro.request_id on errors.', required: true, schema: { type: 'string' } },
  etag: { description: 'The opaque version of the resource, quotes included: send it as If-Match to change it.', required: true, schema: { type: 'string', pattern: '^"[^"]+"$' } },
  location: { description: 'Where to read the resource (or the accepted work) from now on.', required: true, schema: { type: 'string' } },
  'idempotent-replayed': { description: 'true when this is the stored answer of an earlier request with the same idempotency-key.', schema: { type: 'string', const: 'true' } },
  'retry-after': { description: 'Seconds to wait before retrying.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  ratelimit: { description: 'What is left of the quota (draft-ietf-httpapi-ratelimit-headers).', 'x-emulator-choice': 'The spec states the quota but not how it is reported; the IETF draft headers say it.', schema: { type: 'string' } },
  'ratelimit-policy': { description: 'The quota and its window (draft-ietf-httpapi-ratelimit-headers).', 'x-emulator-choice': 'The spec states the quota but not how it is reported; the IETF draft headers say it.', schema: { type: 'string' } },
  'www-authenticate': { description: 'Bearer (RFC 6750): how to authenticate.', schema: { type: 'string' } },
  'x-emulator-fault': { description: 'The id of the fault (injected through the emulator controls) that chose this answer.', 'x-emulator-choice': 'Only the emulator injects faults; the header tells an injected answer from a real one.', schema: { type: 'string' } },
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const openApiPath = (honoPath: string) => honoPath.replace(/:([A-Za-z_]\w*)/g, '{$1}');
const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);

/** A zod input schema (path, query, body) as the JSON Schema of what a client may send. */
function inputSchema(schema: z.ZodType): Json {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', override: integerParam }) as Json;
  delete json.$schema;
  return json;
}

/**
 * A query or path parameter that zod reads as a string of digits (`limite`, `numero`) is, to a client, an
 * integer: its limits live in the schema's `x-integer` metadata (src/http/schemas.ts), and become the
 * parameter's own.
 */
function integerParam(ctx: { zodSchema: z.core.$ZodType; jsonSchema: Json }): void {
  const meta = z.globalRegistry.get(ctx.zodSchema as z.ZodType) as { 'x-integer'?: { minimum: number; maximum?: number } } | undefined;
  const integer = meta?.['x-integer'];
  if (!integer) return;
  for (const key of Object.keys(ctx.jsonSchema)) if (key !== 'description') delete ctx.jsonSchema[key];
  Object.assign(ctx.jsonSchema, { type: 'integer', minimum: integer.minimum, ...(integer.maximum === undefined ? {} : { maximum: integer.maximum }) });
}

/** The properties of an object schema as OpenAPI parameters `in` the path or the query. */
function parametersOf(schema: z.ZodType, where: 'path' | 'query'): Json[] {
  const json = inputSchema(schema);
  const properties = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return { name, in: where, required: where === 'path' || required.has(name), ...(description === undefined ? {} : { description }), schema: rest };
  });
}

function headerParameters(op: Operation, contract: OperationContract): Json[] {
  const out: Json[] = [];
  if (op.method !== 'GET') {
    const { pattern, length, description } = contract.idempotencyKey;
    out.push({
      name: 'idempotency-key',
      in: 'header',
      required: true,
      description: `One key per request, reused only to repeat that same request: ${description}. A repeat answers the stored answer with idempotent-replayed: true.`,
      schema: { type: 'string', minLength: length.min, maxLength: length.max, pattern: pattern.source },
    });
  }
  if (op.guard) {
    out.push({
      name: 'if-match',
      in: 'header',
      required: contract.acceptsIfNoneMatch !== true,
      description: `The complete ETag of ${op.guard.purpose.startsWith('delete a catalog') ? 'the deletion impact preview' : 'the resource, as read'}, quotes included. Missing: 428; stale: 412.`,
      schema: { type: 'string', pattern: ENTITY_TAGS.source },
    });
  }
  if (contract.acceptsIfNoneMatch) {
    out.push({ name: 'if-none-match', in: 'header', required: false, description: '"*" to create only if none exists; never with If-Match (400).', schema: { type: 'string', const: '*' } });
  }
  return out;
}

function successResponse(status: number, answer: SuccessDoc, mutates: boolean, bodies: Map<string, z.ZodType>, example: OperationExample['response'] | undefined): Json {
  const headers: Json = { 'x-request-id': headerRef('x-request-id') };
  for (const header of answer.headers ?? []) for (const name of HEADER_NAMES[header]) headers[name] = headerRef(name);
  if (mutates) headers['idempotent-replayed'] = headerRef('idempotent-replayed');
  let content: Json | undefined;
  if (answer.body && 'csv' in answer.body) {
    content = { 'text/csv': { schema: { type: 'string', description: `UTF-8 CSV (RFC 4180) with a header row: ${answer.body.csv.join(',')}` }, ...exampleOf(example?.csv) } };
  } else if (answer.body) {
    const name = componentName(answer.body);
    if (!name) throw new Error(`the answer ${status} of an operation has an unnamed body schema: name it with component()`);
    bodies.set(name, answer.body);
    content = { 'application/json': { schema: ref(name), ...exampleOf(example?.body) } };
  }
  return { description: answer.description, headers, ...(content ? { content } : {}) };
}

const HEADER_NAMES: Readonly<Record<SuccessHeader, readonly string[]>> = {
  etag: ['etag'],
  location: ['location'],
  ratelimit: ['ratelimit-policy', 'ratelimit'],
};

function errorResponse(status: number, choice?: string): Json {
  const headers: Json = { 'x-request-id': headerRef('x-request-id'), 'x-emulator-fault': headerRef('x-emulator-fault') };
  if (status === 429 || status === 503) headers['retry-after'] = headerRef('retry-after');
  if (status === 401) headers['www-authenticate'] = headerRef('www-authenticate');
  if (status === 429) Object.assign(headers, { 'ratelimit-policy': headerRef('ratelimit-policy'), ratelimit: headerRef('ratelimit') });
  return {
    description: STATUS_TEXT[status] ?? `Error ${status}.`,
    ...(choice === undefined ? {} : { 'x-emulator-choice': choice }),
    headers,
    content: { 'application/json': { schema: ref('ErrorBody') } },
  };
}

const exampleOf = (value: unknown) => (value === undefined ? {} : { example: value });

const componentName = (schema: z.ZodType): string | undefined => (z.globalRegistry.get(schema) as { id?: string } | undefined)?.id;

/** An answer schema as JSON Schema, its named parts (`$defs`) as refs to the document's components. */
function outputJson(schema: z.ZodType): { json: Json; defs: Json } {
  const converted = JSON.parse(JSON.stringify(z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' })).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
  const defs = (converted.$defs ?? {}) as Json;
  delete converted.$defs;
  delete converted.$schema;
  delete converted.$id;
  return { json: converted, defs };
}

function operationObject(op: Operation, doc: OperationDoc, requests: Map<string, Json>, bodies: Map<string, z.ZodType>, example: OperationExample | undefined): Json {
  const contract = op.contract;
  // An example the doc has no answer for is a doc or a recording gone wrong: say so rather than drop it.
  if (example && doc.success[example.response.status] === undefined) throw new Error(`the example of ${op.method} ${openApiPath(op.path)} answered ${example.response.status}, which its doc does not list`);
  const mutates = op.method !== 'GET';
  const parameters = [...parametersOf(contract.params, 'path'), ...parametersOf(contract.query, 'query'), ...headerParameters(op, contract)];
  const responses: Json = {};
  for (const [status, answer] of Object.entries(doc.success)) {
    responses[status] = successResponse(Number(status), answer, mutates, bodies, example?.response.status === Number(status) ? example.response : undefined);
  }
  for (const status of doc.errors) responses[String(status)] = errorResponse(status);
  for (const extra of doc.extraErrors ?? []) responses[String(extra.status)] = errorResponse(extra.status, extra.choice);
  responses['4XX'] = errorResponse(400, FAULT_CHOICE);
  responses['5XX'] = errorResponse(500, `${FAULT_CHOICE} A 500 is an emulator bug (please report it).`);
  let requestBody: Json | undefined;
  if (contract.body) {
    const name = `${pascal(doc.id)}Request`;
    requests.set(name, inputSchema(contract.body));
    const limit = contract.bodyLimit;
    requestBody = {
      required: contract.bodyOptional !== true,
      description: contract.bodyOptional ? 'The operation takes no fields: send {} or no body.' : `JSON${limit === undefined ? ' (at most 1 MiB)' : ` (at most ${limit} bytes)`}.`,
      content: { 'application/json': { schema: ref(name), ...exampleOf(example?.request.body) } },
    };
  }
  return {
    operationId: doc.id,
    summary: doc.summary,
    ...(doc.description === undefined ? {} : { description: doc.description }),
    tags: [doc.tag],
    ...(doc.choice === undefined ? {} : { 'x-emulator-choice': doc.choice }),
    ...(contract.permission === undefined ? {} : { 'x-permission': contract.permission }),
    ...(contract.requiresSubscription ? { 'x-requires-subscription': true } : {}),
    security: [{ bearer: contract.permission === undefined ? [] : [contract.permission] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

const FAULT_CHOICE = 'Outside the spec\'s status set: answered only when a fault injected through the emulator controls chooses the status (the answer then carries x-emulator-fault).';

/**
 * The document of the service API: every operation of the table that has its `doc`, with its examples
 * (`npm run openapi` passes those it has just recorded).
 */
export function apiDocument(examples: OperationExamples = EXAMPLES): Json {
  const paths: Record<string, Json> = {};
  const requests = new Map<string, Json>();
  const bodies = new Map<string, z.ZodType>([['ErrorBody', ErrorBody]]);
  for (const op of operations) {
    const doc = op.contract.doc;
    if (!doc) continue;
    const path = openApiPath(op.path);
    paths[path] = { ...paths[path], [op.method.toLowerCase()]: operationObject(op, doc, requests, bodies, examples[`${op.method} ${path}`]) };
  }
  const schemas: Json = {};
  for (const [name, schema] of [...bodies].sort(([a], [b]) => a.localeCompare(b))) Object.assign(schemas, componentsOf(name, schema));
  for (const [name, schema] of [...requests].sort(([a], [b]) => a.localeCompare(b))) schemas[name] = schema;
  return {
    openapi: '3.1.0',
    info: {
      title: 'Catalog Integration Service',
      version: '1.0.0',
      description:
        'The Catalog Integration Service API (interface version 1.0.0), as the catalog-emulator implements it. Every change takes an idempotency-key and, where the resource is versioned, If-Match with its ETag; 202 means durable acceptance only. `x-emulator-choice` marks what the emulator decided where the specification is silent.',
      // The document is the package's, generated by it, so under its license; the spec states none for itself.
      license: { name: 'MIT', identifier: 'MIT' },
      'x-emulator-version': VERSION,
    },
    servers: [{ url: 'http://127.0.0.1:4747', description: 'A local catalog-emulator (npx catalog-emulator)' }],
    security: [{ bearer: [] }],
    tags: TAGS,
    paths: sortPaths(paths),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <ACCESS_TOKEN>; the scopes listed per operation are the permission it needs.' } },
      headers: HEADERS,
      schemas,
    },
  };
}

/** A named answer schema and the named schemas inside it, each once, refs between them. */
function componentsOf(name: string, schema: z.ZodType): Json {
  const { json, defs } = outputJson(schema);
  // The schema itself comes back as a ref to its own def when it is named.
  return { ...defs, ...(json.$ref === `#/components/schemas/${name}` ? {} : { [name]: json }) };
}

const sortPaths = (paths: Record<string, Json>) => Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));

const TAGS = [
  { name: 'Company', description: 'The company of the credential, its context and capacity.' },
  { name: 'Establishments', description: 'Head office and branches (CNPJ), and CNPJ corrections.' },
  { name: 'Catalogs', description: 'Catalogs of an establishment, and their deletion with its impact preview.' },
  { name: 'Products', description: 'Products shared between the catalogs of a company.' },
  { name: 'Ingestions', description: 'Batch ingestion: start, send batches, close, preview, apply.' },
  { name: 'Surveillance', description: 'The surveillance selection and its executions.' },
  { name: 'Analyses', description: 'Full-company analyses and their findings.' },
  { name: 'Webhook', description: 'The signed webhook destination, its events, attempts, test events and resends.' },
];
