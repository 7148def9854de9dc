/**
 * The OpenAPI 3.1 document of the /_emulator controls, generated from their table (src/control/table.ts, the rows
 * of the groups): each control's method, path, body schema (the one its route parses with, or the one its control
 * checks the body with), query parameters, success answers and errors. `npm run openapi` writes it to the committed
 * openapi.controls.json.
 */
import * as z from 'zod';
import type { Control, ControlTag } from '../control/row.js';
import { nameOf, namedSchema } from '../control/schemas.js';
import { CONTROLS } from '../control/table.js';
import { companySnapshotSchema, snapshotSchema } from '../control/snapshot-schema.js';
import { ErrorBody } from '../http/contract/wire.js';
import { CONTROL_REQUEST_ID } from '../http/errors.js';
import { VERSION } from '../version.js';
import { LICENSE } from './document.js';

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * The parts of a snapshot shown by their type only: the emulator's own records and tasks, checked whole by a
 * restore. Written out they would be most of the document (some 300 KB) for what a client only takes from GET and
 * sends back unchanged.
 */
const OPAQUE = new Set(['tasks', 'state', 'ownClocks']);
const OPAQUE_TEXT =
  "The emulator's own records, in its own format: take it from a snapshot and send it back unchanged (a restore checks it whole and names the field it refuses).";

/**
 * A schema as JSON Schema: the named schemas inside it as refs to the document's components (each made once, of
 * the io it is first used in), and a snapshot's records by their type only.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output', components: Map<string, Json>): Json {
  const nested = new Set<string>();
  const json = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      const name = nameOf(ctx.zodSchema);
      if (name === undefined || ctx.zodSchema === (schema as unknown)) return;
      nested.add(name);
      for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
      Object.assign(ctx.jsonSchema, ref(name));
    },
  }) as Json;
  delete json.$schema;
  if (schema === snapshotSchema || schema === companySnapshotSchema) {
    const properties = json.properties as Record<string, Json>;
    for (const key of OPAQUE)
      if (properties[key]) properties[key] = { type: properties[key].type, description: OPAQUE_TEXT };
  }
  for (const name of nested) component(name, io, components);
  return json;
}

function component(name: string, io: 'input' | 'output', components: Map<string, Json>): void {
  if (components.has(name)) return;
  components.set(name, {});
  components.set(name, jsonSchema(namedSchema(name)!, io, components));
}

/** A body: a ref when the schema is named, else in place. */
function bodySchema(schema: z.ZodType, io: 'input' | 'output', components: Map<string, Json>): Json {
  const name = nameOf(schema);
  if (name === undefined) return jsonSchema(schema, io, components);
  component(name, io, components);
  return ref(name);
}

const openApiPath = (path: string) => `/_emulator${path === '/' ? '' : path.replace(/:([A-Za-z_]\w*)/g, '{$1}')}`;
const WRITES = new Set(['POST', 'PUT', 'PATCH']);

/** The errors every control may answer, beside its own. */
function commonErrors(route: Control): Record<number, string> {
  const errors: Record<number, string> = {
    401: 'Only for an emulator started with a control token: token_de_controle_ausente (no Authorization header) or token_de_controle_invalido.',
  };
  // A control that reads its query refuses a parameter it does not take, or one given twice.
  if (route.query !== undefined)
    errors[422] = 'valor_invalido: a query parameter the control does not take, or one given twice (caminho names it).';
  if (WRITES.has(route.method)) {
    Object.assign(errors, {
      400: 'json_invalido: the body is not JSON (an absent body reads as {}).',
      413: `corpo_muito_grande: the body is larger than ${route.body?.limit ?? '1 MiB'}.`,
      415: 'tipo_midia_nao_suportado: every POST, PUT and PATCH under /_emulator needs content-type: application/json, even without a body, so that no web page can drive the controls.',
    });
  }
  return errors;
}

function operation(route: Control, components: Map<string, Json>): Json {
  const parameters: Json[] = [];
  for (const [, name] of route.path.matchAll(/:([A-Za-z_]\w*)/g))
    parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  for (const q of route.query ?? [])
    parameters.push({
      name: q.name,
      in: 'query',
      required: false,
      description: q.description,
      schema: { type: 'string' },
    });
  const responses: Json = {};
  for (const [status, answer] of Object.entries(route.success)) {
    const body = answer.body;
    let content: Json | undefined;
    if (typeof body === 'function') {
      content = { 'application/json': { schema: bodySchema(body(), 'output', components) } };
    } else if (body) {
      const json = body.mediaType.startsWith('application/json');
      content = { [body.mediaType]: { schema: json ? { type: 'object' } : { type: 'string' } } };
    }
    responses[status] = { description: answer.description, ...(content ? { content } : {}) };
  }
  const errors = { ...commonErrors(route), ...route.errors };
  for (const status of Object.keys(errors)
    .map(Number)
    .sort((a, b) => a - b)) {
    responses[String(status)] = {
      description: errors[status],
      content: { 'application/json': { schema: ref('ErrorBody') } },
    };
  }
  let requestBody: Json | undefined;
  if (route.body) {
    const shown = route.body.shown === undefined ? route.body.schema : route.body.shown();
    // A control reads an absent body as {}: the body is required only when {} is not one.
    requestBody = {
      required: !shown.safeParse({}).success,
      content: { 'application/json': { schema: bodySchema(shown, 'input', components) } },
    };
  }
  return {
    operationId: route.id,
    summary: route.summary,
    tags: [route.tag],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

/** The document of the /_emulator controls: every route of the control table. */
export function controlsDocument(): Json {
  const components = new Map<string, Json>();
  const paths: Record<string, Json> = {};
  for (const route of CONTROLS) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route, components) };
  }
  // ErrorBody is a named schema of the API's: zod writes it as a ref to its own def.
  const errorBody = jsonSchema(ErrorBody, 'output', components);
  const controlError = ((errorBody.$defs as Json | undefined)?.ErrorBody ?? errorBody) as {
    properties: { erro: { properties: Json } };
  };
  // A control's refusal carries no x-request-id: its request_id is always the same word.
  controlError.properties.erro.properties.request_id = {
    type: 'string',
    const: CONTROL_REQUEST_ID,
    description: 'Always "_emulator" for a control.',
  };
  const schemas: Json = { ErrorBody: controlError };
  for (const name of [...components.keys()].sort()) schemas[name] = components.get(name);
  return {
    openapi: '3.1.0',
    info: {
      title: 'catalog-emulator controls',
      version: VERSION,
      description:
        "The controls of the catalog-emulator under /_emulator: companies, the virtual clock, faults, delivery routes, the inbox, the request journal, snapshots and the documents. JSON in camelCase; not the API's bearer tokens, but an optional control token. Every POST, PUT and PATCH needs content-type: application/json, even without a body. The same controls exist in process (emu.companies, emu.clock, …).",
      license: LICENSE,
    },
    servers: [{ url: 'http://127.0.0.1:4747', description: 'A local catalog-emulator (npx catalog-emulator)' }],
    // No security requirement by default ({}), or the control token the emulator was started with.
    security: [{}, { controlToken: [] }],
    tags: TAGS,
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: {
        controlToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Authorization: Bearer <control token>, only when the emulator was started with one (createEmulator({ controlToken }), --control-token).',
        },
      },
      schemas,
    },
  };
}

/** Every tag a control may have, described: a tag without a text does not compile. */
const TAG_TEXT: Readonly<Record<ControlTag, string>> = {
  Emulator: 'What is running, and a reset to a fresh emulator.',
  Companies: 'Companies, their flags and credentials; one company removed or reset.',
  Clock: "The virtual clock, shared or a company's own: advance it, run the work due.",
  Faults: 'Injected faults: API answers, webhook deliveries, job runs.',
  Network: 'Where webhook deliveries go: routes from public URLs to local ones.',
  Inbox: 'Deliveries the built-in receiver got, and events raised on demand.',
  Journal: 'The API requests the service saw.',
  Regulatory: 'The regulatory reference (NCMs, attributes) and new snapshots of it.',
  State: "Snapshot and restore: the whole state, or one company's.",
  Documents: 'These documents and the page that renders them.',
  Grading:
    "Whether an integration is right: its webhook receiver checked with signed deliveries it must accept or refuse, findings on the client's behaviour, and what its tests exercised of the service.",
  Inspector:
    "The inspector's data: a company's timeline on the virtual clock, an item's detail (tokens and secrets masked), and the timeline live; and a teaching demo run step by step from its page.",
};
const TAGS = Object.entries(TAG_TEXT).map(([name, description]) => ({ name, description }));
