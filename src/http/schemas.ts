/**
 * Input shapes and limits of the spec ("Endpoints", "Limits"), as zod schemas. Objects are strict: an
 * unknown field is refused so that an integrator's typo surfaces (docs/api.md "Rules every request follows"). The first
 * issue found becomes the 422 answer, located by `caminho`.
 */
import * as z from 'zod';
import { apiError, type ApiError } from './errors.js';

/** A uuid as the spec defines it (version 1 to 8, variant 8, 9, a or b), either case: what the inputs take, and what the document states. */
export const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;

/** A uuid as the spec defines it; upper or lower case in, lowercase out. */
const uuid = z
  .string()
  .regex(UUID, 'must be a uuid (8-4-4-4-12 hexadecimal digits, version 1-8, variant 8, 9, a or b)')
  .transform((s) => s.toLowerCase());

/**
 * A string of `min` to `max` characters. zod counts characters as Unicode code points, as JSON Schema's
 * maxLength does: an emoji is one character (JavaScript's `length` gives it 2), so a 120-emoji `nome` is 120.
 */
const text = (min: number, max: number) =>
  z
    .string()
    .min(min, `must have at least ${min} character${min === 1 ? '' : 's'}`)
    .max(max, `must have at most ${max} characters`);

/**
 * The input limits of spec "Limits" that GET /v1/contexto reports: the schemas below check these very numbers.
 * `page`: the catalog, establishment and product lists (`limite`'s default and maximum).
 */
export const INPUT_LIMITS = {
  name: { min: 1, max: 120 },
  externalId: { min: 1, max: 256 },
  productDescription: { min: 1, max: 2000 },
  attributes: { max: 128, codeMax: 128, valuesMin: 1, valuesMax: 50 },
  page: { default: 50, max: 200 },
} as const;
const { name, productDescription, attributes: attributeLimits, page } = INPUT_LIMITS;

const externalId = text(INPUT_LIMITS.externalId.min, INPUT_LIMITS.externalId.max);
const nullableExternalId = externalId.nullable();

/**
 * What `limite` does above the list's maximum: `refuse` it where the spec states a refusal (the attempts list and
 * the catalogs: spec LIM-19, LIM-26) and on the lists it does not show; `cap` it where the spec bounds only the
 * page (the events, analyses and surveillance executions "return at most 100 items per page": LIM-15, LIM-21,
 * LIM-22), since a larger `limite` is then a request the spec allows and its page simply holds the maximum.
 */
export type AboveMax = 'refuse' | 'cap';

/**
 * `limite` as a query string: an integer written in decimal digits, at least 1; default applied by the caller.
 * Any number of digits: `0000050` is the integer 50, which the spec allows ("integer 1 to 200"); a string of
 * digits too long for a number is above any max.
 */
function limitParam(max: number, aboveMax: AboveMax = 'refuse') {
  const message =
    aboveMax === 'refuse' ? `must be an integer from 1 to ${max}` : 'must be a whole number of items, 1 or more';
  const count = z.string().regex(/^\d+$/, message).transform(Number);
  // To a client, an integer parameter (the OpenAPI document reads `x-integer`); above the cap, the page holds the cap.
  return aboveMax === 'refuse'
    ? count.pipe(z.number().int().min(1, message).max(max, message)).meta({ 'x-integer': { minimum: 1, maximum: max } })
    : count
        .pipe(
          z
            .number()
            .min(1, message)
            .transform((n) => Math.min(n, max)),
        )
        .meta({ 'x-integer': { minimum: 1 }, description: `Above ${max}, the page holds at most ${max} items.` });
}

export const idParams = z.strictObject({ id: uuid });
export const catalogProductParams = z.strictObject({ id: uuid, produto_id: uuid });
export const noQuery = z.strictObject({});

/** The path parameters that are all uuids, by schema, with their names in the schema's order. */
const UUID_PARAMS = new Map<z.ZodType, readonly string[]>([
  [idParams, ['id']],
  [catalogProductParams, ['id', 'produto_id']],
]);

/**
 * The path's parameters by `schema`: what parse answers. Parameters that are all uuids (nearly every path) are
 * checked here when valid, with zod's own pattern and result (lowercase), a third of a GET's validation; a
 * refusal is zod's, so its wording stays one.
 */
export function parseParams<T>(
  schema: z.ZodType<T>,
  params: Readonly<Record<string, string>>,
): z.ZodSafeParseResult<T> {
  const names = UUID_PARAMS.get(schema);
  if (names === undefined || Object.keys(params).length !== names.length) return parse(schema, params);
  const data: Record<string, string> = {};
  for (const name of names) {
    const value = params[name];
    if (value === undefined || !UUID.test(value)) return parse(schema, params);
    data[name] = value.toLowerCase();
  }
  return { success: true, data: data as T };
}

const NCM = /^\d{8}$/;

/**
 * spec "PATCH /v1/produtos/{id}": `codigo` a string of 1 to 128 characters, `valores` an array of 1 to 50
 * strings. Nothing more: a value may be any string (empty, or thousands of characters, within the body's
 * size), and a code may appear in several entries (the spec forbids neither; the regulatory rules read a
 * repeated code as one attribute holding all its values).
 */
const attribute = z.strictObject({
  codigo: text(1, attributeLimits.codeMax),
  valores: z
    .array(z.string())
    .min(attributeLimits.valuesMin, `must have ${attributeLimits.valuesMin} to ${attributeLimits.valuesMax} values`)
    .max(attributeLimits.valuesMax, `must have ${attributeLimits.valuesMin} to ${attributeLimits.valuesMax} values`),
});

/** Up to 128 attributes (spec "Limits": product attributes). */
const attributes = z.array(attribute).max(attributeLimits.max, `must have at most ${attributeLimits.max} attributes`);

const ncm = z.string().regex(NCM, 'must be an NCM of 8 digits, e.g. "84713012"');

function atLeastOne<T extends Record<string, unknown>>(schema: z.ZodType<T>, fields: string) {
  return schema.refine((value) => Object.values(value).some((v) => v !== undefined), `send at least one of ${fields}`);
}

export const establishmentCreate = z.strictObject({
  cnpj: z.string().max(64, 'must have 14 characters'),
  nome: text(name.min, name.max),
  id_externo: nullableExternalId.optional(),
});

export const establishmentPatch = atLeastOne(
  z.strictObject({ nome: text(name.min, name.max).optional(), id_externo: nullableExternalId.optional() }),
  'nome, id_externo',
);

export const catalogCreate = z.strictObject({
  estabelecimento_id: uuid,
  nome: text(name.min, name.max),
  id_externo: nullableExternalId.optional(),
});

export const catalogPatch = atLeastOne(
  z.strictObject({ nome: text(name.min, name.max).optional(), id_externo: nullableExternalId.optional() }),
  'nome, id_externo',
);

export const catalogListQuery = z.strictObject({
  limite: limitParam(page.max).optional(),
  apos_id: uuid.optional(),
  estabelecimento_id: uuid.optional(),
  id_externo: externalId.optional(),
  estado: z.enum(['ativo', 'excluido'], 'must be "ativo" or "excluido"').optional(),
});

export const establishmentListQuery = z.strictObject({
  limite: limitParam(page.max).optional(),
  apos_id: uuid.optional(),
  estado: z.enum(['ativo', 'arquivado'], 'must be "ativo" or "arquivado"').optional(),
});

/**
 * An opaque cursor, a `proximo_cursor` the list returned. The emulator's cursors are far shorter than 512
 * characters, so a longer one cannot be one of them: refused before it is decoded.
 */
const cursorParam = z.string().max(512, 'is not a cursor of this list');

/** The query of a list paged by an opaque cursor: `limite` (1 to `maxLimit`, see AboveMax) and `cursor` (a `proximo_cursor`). */
export const cursorQuery = (maxLimit: number, aboveMax: AboveMax = 'refuse') =>
  z.strictObject({
    limite: limitParam(maxLimit, aboveMax).optional(),
    cursor: cursorParam.optional(),
  });

/**
 * The query of a findings page: `cursor` only (spec "GET /v1/vigilancias/{id}/resultados": "Query `cursor`";
 * the analysis findings follow it). The page size is the service's (200 plus a byte budget), not the client's.
 */
export const findingsQuery = z.strictObject({ cursor: cursorParam.optional() });

export const productListQuery = cursorQuery(page.max);

export const companyProductListQuery = productListQuery.extend({
  id_externo: externalId.optional(),
});

export const productCreate = z.strictObject({
  origem: text(1, 64),
  ncm,
  id_externo: nullableExternalId.optional(),
  sku: text(1, 256).nullable().optional(),
  descricao: text(productDescription.min, productDescription.max).nullable().optional(),
  atributos: attributes.optional(),
});

export const productPatch = atLeastOne(
  z.strictObject({
    id_externo: nullableExternalId.optional(),
    sku: text(1, 256).nullable().optional(),
    descricao: text(productDescription.min, productDescription.max).nullable().optional(),
    ncm: ncm.optional(),
    atributos: attributes.optional(),
  }),
  'id_externo, sku, descricao, ncm, atributos',
);

/** POST /v1/catalogos/ingestoes (spec "Catalogs"). */
export const ingestionStart = z.strictObject({
  operacao: z.enum(
    ['mesclar', 'substituicao_catalogo', 'substituicao_integral'],
    'must be "mesclar", "substituicao_catalogo" or "substituicao_integral"',
  ),
  catalogo_id: uuid.optional(),
  referencia_externa: text(1, 200).optional(),
});

/** A batch number in a path: 1 to `max`, no leading zero. */
export const batchParams = (max: number) =>
  z.strictObject({
    id: uuid,
    numero: z
      .string()
      .regex(/^[1-9]\d{0,5}$/, `must be an integer from 1 to ${max}`)
      .transform(Number)
      .pipe(z.number().max(max, `must be an integer from 1 to ${max}`))
      .meta({ 'x-integer': { minimum: 1, maximum: max } }),
  });

/**
 * A canonical batch. Only its shape is checked here: each item is checked on its own (ingestionRecord), and
 * an invalid item is reported in the preview instead of refusing the batch.
 */
export const ingestionBatch = (maxItems: number) =>
  z.strictObject({
    itens: z
      .array(z.unknown())
      .min(1, `must have 1 to ${maxItems} items`)
      .max(maxItems, `must have 1 to ${maxItems} items`),
  });

/** One product record of a batch: the product's whole canonical state, keyed by id_externo. */
export const ingestionRecord = z.strictObject({
  id_externo: externalId,
  origem: text(1, 64),
  ncm,
  sku: text(1, 256).nullable().optional(),
  descricao: text(productDescription.min, productDescription.max).nullable().optional(),
  atributos: attributes.optional(),
});

export const ingestionClose = (maxBatches: number) =>
  z.strictObject({
    total_lotes: z
      .number()
      .int(`must be an integer from 1 to ${maxBatches}`)
      .min(1, `must be an integer from 1 to ${maxBatches}`)
      .max(maxBatches, `must be an integer from 1 to ${maxBatches}`),
  });

/** `{}` or no body at all, for operations that take no fields (spec "Common rules"). */
export const emptyBody = z.strictObject({});

/**
 * Parses `input`; on failure, input values are kept on issues so a missing field can be told from a wrong one.
 * Only a failure needs them, and passing any parse option makes zod several times slower on every parse,
 * successes included: so a parse runs without options, and one
 * that fails runs again with `reportInput`. Schemas are pure, so the second run reports the same issues.
 */
export function parse<T>(schema: z.ZodType<T>, input: unknown): z.ZodSafeParseResult<T> {
  const result = schema.safeParse(input);
  return result.success ? result : schema.safeParse(input, { reportInput: true });
}

/** The first issue of a failed parse as a 422 located at `where.path`. */
export function validationError(where: 'body' | 'query' | 'path', error: z.ZodError): ApiError {
  // A typo shows as a missing field plus an unknown one: the unknown one says more.
  const issue = error.issues.find((i) => i.code === 'unrecognized_keys') ?? error.issues[0];
  if (!issue) return apiError(422, 'valor_invalido', `The ${where} is invalid.`, where);
  const { codigo, caminho, mensagem } = describeIssue(where, issue);
  return apiError(422, codigo, mensagem, caminho);
}

/** One validation issue as an error code, its place (`body.atributos[3].codigo`) and a message that starts with it. */
export function describeIssue(
  root: string,
  issue: z.core.$ZodIssue,
): { codigo: string; caminho: string; mensagem: string } {
  let path = issue.path as PropertyKey[];
  let codigo = 'valor_invalido';
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    path = [...path, issue.keys[0] ?? ''];
    codigo = 'campo_desconhecido';
    message = `is not a field of this operation (fields are case-sensitive; check the spelling)`;
  } else if ((issue.code === 'invalid_type' || issue.code === 'invalid_value') && issue.input === undefined) {
    codigo = 'campo_obrigatorio';
    message = 'is required';
  } else if (issue.code === 'invalid_type') {
    message = `must be ${issue.expected === 'object' ? 'a JSON object' : issue.expected === 'array' ? 'an array' : `a ${issue.expected}`}`;
  }
  const caminho = formatPath(root, path);
  return { codigo, caminho, mensagem: `${caminho} ${message}` };
}

export function formatPath(root: string, path: readonly PropertyKey[]): string {
  let out = root;
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `.${String(part)}`;
  return out;
}

/**
 * A webhook destination URL (spec "PUT /v1/webhook"): public HTTPS on port 443, no credentials, no fragment.
 * Refused: other schemes and ports, userinfo, fragments, localhost, and IP literals of loopback, private,
 * link-local, unspecified or carrier-grade NAT ranges. Names are not resolved (no connectivity test). Its
 * length has no limit of its own: the spec bounds only the whole body (4 KiB, checked before parsing).
 */
export const webhookUrl = z.string().superRefine((text, ctx) => {
  const problem = webhookUrlProblem(text);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

function webhookUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL such as https://hooks.example.com/catalog';
  }
  if (url.protocol !== 'https:') return 'must use https';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials (user:password@)';
  if (text.includes('#')) return 'must not have a fragment (#…)';
  if (url.port !== '' && url.port !== '443') return 'must use port 443';
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'must be a public host, not localhost';
  if (isNonPublicIp(host)) return 'must be a public host, not a loopback, private or link-local address';
  return undefined;
}

function isNonPublicIp(host: string): boolean {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (!host.startsWith('[')) return false;
  const v6 = host.slice(1, -1);
  if (v6 === '::' || v6 === '::1') return true;
  // IPv4 embedded in IPv6: mapped (::ffff:), the deprecated compatible form (::a.b.c.d) and NAT64 (64:ff9b::).
  const mapped =
    /^(?:::ffff:|::|64:ff9b::)(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(v6) ??
    /^(?:::ffff:|::|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
  if (mapped) {
    if (mapped.length === 2) return isNonPublicIp(mapped[1]!);
    const high = parseInt(mapped[1]!, 16);
    const low = parseInt(mapped[2]!, 16);
    return isNonPublicIp(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  const first = parseInt(v6.split(':')[0] || '0', 16);
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80;
}

export const webhookPut = z.strictObject({ url: webhookUrl });

export const attemptListQuery = z.strictObject({
  limite: limitParam(100).optional(),
  apos_tentativa: z
    .string()
    .regex(/^\d{1,10}$/, 'must be 1 to 10 digits: the proxima_tentativa of the previous page')
    .transform(Number)
    .optional(),
});

export const cnpjCorrectionRequest = z.strictObject({
  cnpj_novo: z.string().max(64, 'must have 14 characters'),
  motivo: text(1, 500),
});

const selectionIds = (what: string) => z.array(uuid).max(200, `${what}: at most 200 products per request`);

export const surveillancePatch = z.strictObject({
  modo: z.enum(['selecao', 'todos'], 'must be "selecao" or "todos"'),
  adicionar: selectionIds('adicionar').optional(),
  remover: selectionIds('remover').optional(),
});
