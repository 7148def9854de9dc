/**
 * Fixtures (EmulatorOptions.fixtures, the CLI's --fixtures FILE): the format's check, and its application to a
 * fresh world through the API's own operations (Operation.invoke), so that a fixture meets every rule a client's
 * request would (a product's NCM and attributes, an establishment's CNPJ and root, a webhook URL's rules, the
 * credential's permissions, an active subscription for the webhook). The types are src/engine/fixtures.ts's.
 *
 * Records use the API's own bodies, with the spec's (Portuguese) field names; what ties them together (which
 * company, which establishment, which catalog) is the nesting, in English like the controls' names.
 */
import * as z from 'zod';
import { addCredential, createCompany, PERMISSIONS, type Company, type Credential } from '../core/companies.js';
import { headOfficeCnpj } from '../core/cnpj.js';
import { uuidV4 } from '../core/random.js';
import type { Context, State } from '../core/state.js';
import type { Config } from '../engine/config.js';
import type { Fixtures, SeededCatalog, SeededCompany } from '../engine/fixtures.js';
import type { World } from '../engine/world.js';
import { operations } from './app.js';
import { STATUS_OF, type ApiError } from './errors.js';
import type { Operation, Reply } from './pipeline.js';
import type { Runtime } from '../engine/runtimes.js';
import { catalogCreate, establishmentCreate, formatPath, productCreate, webhookPut } from './schemas.js';

const company = z.strictObject({
  name: z.string().min(1, 'must have 1 to 120 characters').max(120, 'must have 1 to 120 characters').optional(),
  cnpjRoot: z
    .string()
    .regex(/^\d{8}$/, 'must be 8 digits, e.g. "11222333"')
    .optional(),
  subscriptionActive: z.boolean().optional(),
  surveillanceEntitled: z.boolean().optional(),
  surveillanceCapacity: z
    .number()
    .int('must be a whole number, 0 or more')
    .min(0, 'must be a whole number, 0 or more')
    .optional(),
  analysisAllowance: z
    .number()
    .int('must be a whole number, 0 or more')
    .min(0, 'must be a whole number, 0 or more')
    .optional(),
  permissions: z.array(z.enum(PERMISSIONS)).optional(),
  credentials: z.array(z.strictObject({ permissions: z.array(z.enum(PERMISSIONS)).optional() })).optional(),
  establishments: z.array(establishmentCreate).optional(),
  catalogs: z
    .array(
      catalogCreate.omit({ estabelecimento_id: true }).extend({
        establishment: z.string().optional(),
        products: z.array(productCreate).optional(),
      }),
    )
    .optional(),
  webhook: webhookPut.optional(),
});

const fixturesSchema = z.strictObject({
  version: z.literal(1, 'must be 1, the version of this format'),
  companies: z.array(company),
});

/** Fixtures that are not in the format: `message` names the place (`fixtures.companies[0].catalogs[1].nome: required`). */
export class FixturesError extends TypeError {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
    this.name = 'FixturesError';
  }
}

/**
 * The fixtures checked whole against the format: every key known (an unknown one is refused, so a typo is not
 * silently dropped), every record what the API would accept as a body, each catalog's establishment one of the
 * company's. Throws a FixturesError naming the first problem; the caller's object is not kept.
 */
export function readFixtures(input: unknown): Fixtures {
  const parsed = fixturesSchema.safeParse(input, { reportInput: true });
  if (!parsed.success) {
    // A typo shows as a missing key and an unknown one: the unknown one says more.
    const issue = parsed.error.issues.find((i) => i.code === 'unrecognized_keys') ?? parsed.error.issues[0]!;
    throw issueError(issue);
  }
  const fixtures = parsed.data;
  fixtures.companies.forEach((c, i) => {
    const cnpjs = new Set((c.establishments ?? []).map((e) => e.cnpj));
    if (c.cnpjRoot !== undefined) cnpjs.add(headOfficeCnpj(c.cnpjRoot));
    c.catalogs?.forEach((catalog, j) => {
      if (catalog.establishment === undefined || cnpjs.has(catalog.establishment)) return;
      throw new FixturesError(
        `fixtures.companies[${i}].catalogs[${j}].establishment`,
        `names no establishment of this company (${JSON.stringify(catalog.establishment)}): give the CNPJ of one of its establishments${c.cnpjRoot === undefined ? '' : ` or of its head office (${headOfficeCnpj(c.cnpjRoot)})`}, or leave it out for the head office`,
      );
    });
  });
  return fixtures as Fixtures;
}

function issueError(issue: z.core.$ZodIssue): FixturesError {
  const path = issue.path as PropertyKey[];
  if (issue.code === 'unrecognized_keys') {
    return new FixturesError(
      formatPath('fixtures', [...path, issue.keys[0] ?? '']),
      'is not a key of the fixtures format here (keys are case-sensitive; check the spelling)',
    );
  }
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_value') && issue.input === undefined)
    return new FixturesError(formatPath('fixtures', path), 'required');
  if (issue.code === 'invalid_type') {
    const expected =
      issue.expected === 'object' ? 'a JSON object' : issue.expected === 'array' ? 'an array' : `a ${issue.expected}`;
    return new FixturesError(formatPath('fixtures', path), `must be ${expected}`);
  }
  return new FixturesError(formatPath('fixtures', path), issue.message);
}

/** Finds an operation of the API by its method and (hono) path. */
function operationAt(method: Operation['method'], path: string): Operation {
  const found = operations.find((o) => o.method === method && o.path === path);
  if (!found) throw new Error(`no operation ${method} ${path}`);
  return found;
}

let used: { establishment: Operation; catalog: Operation; product: Operation; webhook: Operation } | undefined;
const operationsUsed = () =>
  (used ??= {
    establishment: operationAt('POST', '/v1/estabelecimentos'),
    catalog: operationAt('POST', '/v1/catalogos'),
    product: operationAt('POST', '/v1/catalogos/:id/produtos'),
    webhook: operationAt('PUT', '/v1/webhook'),
  });

/**
 * Creates the fixtures' companies and records in a fresh world, at `at` (its start instant), in the order they
 * are written, so the same seed gives the same ids; each company as the controls create one and each record by
 * its API operation. Throws a FixturesError naming the record the service refused, with its refusal.
 */
export function applyFixtures(world: World, fixtures: Fixtures, at: number, config: Config): SeededCompany[] {
  const runtime = new SeedingRuntime(world, at, config);
  const ops = operationsUsed();
  return fixtures.companies.map((input, i) => {
    const place = `fixtures.companies[${i}]`;
    const { establishments = [], catalogs = [], webhook, credentials = [], ...options } = input;
    const created = runtime.apply((state, ctx) => createCompany(state, options, ctx));
    if (!created.ok) throw refusedError(place, { ...created.refusal, status: STATUS_OF[created.refusal.kind] });
    const { company, credential, headOffice } = created.value;
    const seededCredentials = credentials.map(({ permissions = PERMISSIONS }, j) => {
      const made = runtime.apply((state, ctx) => addCredential(state, company.id, permissions, ctx));
      if (!made.ok)
        throw refusedError(`${place}.credentials[${j}]`, { ...made.refusal, status: STATUS_OF[made.refusal.kind] });
      return { permissions: [...made.value.permissions], token: made.value.token };
    });
    const current = () => runtime.state.companies.get(company.id)!;
    const call = (
      operation: Operation,
      where: string,
      body: unknown,
      params?: Record<string, string>,
      createOnly?: boolean,
    ): Record<string, unknown> => {
      const caller: { company: Company; credential: Credential } = { company: current(), credential };
      const reply = operation.invoke(runtime, caller, {
        body,
        ...(params && { params }),
        ...(createOnly && { createOnly }),
      });
      if ('codigo' in reply) throw refusedError(where, reply);
      return bodyOf(reply);
    };

    const establishmentIds = new Map<string, string>([[headOffice.cnpj, headOffice.id]]);
    const seededEstablishments = establishments.map((body, j) => {
      const made = call(ops.establishment, `${place}.establishments[${j}]`, body);
      establishmentIds.set(String(made.cnpj), String(made.id));
      return { id: String(made.id), cnpj: String(made.cnpj), nome: String(made.nome) };
    });
    const seededCatalogs = catalogs.map(({ establishment, products = [], ...fields }, j): SeededCatalog => {
      const where = `${place}.catalogs[${j}]`;
      const establishmentId = establishment === undefined ? headOffice.id : establishmentIds.get(establishment);
      if (establishmentId === undefined)
        throw new FixturesError(
          `${where}.establishment`,
          `names no establishment of this company (${JSON.stringify(establishment)})`,
        );
      const catalog = call(ops.catalog, where, { ...fields, estabelecimento_id: establishmentId });
      const id = String(catalog.id);
      const seededProducts = products.map((body, k) => {
        const product = call(ops.product, `${where}.products[${k}]`, body, { id });
        return {
          id: String(product.id),
          ncm: String(product.ncm),
          id_externo: (product.id_externo as string | null) ?? null,
          sku: (product.sku as string | null) ?? null,
        };
      });
      return { id, nome: String(catalog.nome), establishmentId, products: seededProducts };
    });
    let seededWebhook: SeededCompany['webhook'] = null;
    if (webhook) {
      const receipt = call(ops.webhook, `${place}.webhook`, webhook, undefined, true);
      seededWebhook = { id: String(receipt.id), url: webhook.url, secret: String(receipt.segredo) };
    }
    return {
      companyId: company.id,
      cnpjRoot: company.cnpjRoot,
      token: credential.token,
      headOffice: { id: headOffice.id, cnpj: headOffice.cnpj },
      name: company.name,
      credentials: seededCredentials,
      establishments: seededEstablishments,
      catalogs: seededCatalogs,
      webhook: seededWebhook,
    };
  });
}

/** A reply's body as an object (operations answer an object, or its JSON text). */
function bodyOf(reply: Reply): Record<string, unknown> {
  return (typeof reply.body === 'string' ? JSON.parse(reply.body) : reply.body) as Record<string, unknown>;
}

/**
 * The service's refusal of a fixture record, placed in the fixtures: `body.ncm` of a product becomes its `ncm`;
 * a catalog's `body.estabelecimento_id` is its `establishment`.
 */
function refusedError(
  where: string,
  refusal: Pick<ApiError, 'codigo' | 'mensagem' | 'caminho'> & { status?: number },
): FixturesError {
  const inBody = refusal.caminho?.startsWith('body')
    ? refusal.caminho.slice('body'.length).replace(/^\.estabelecimento_id$/, '.establishment')
    : '';
  return new FixturesError(
    `${where}${inBody}`,
    `refused by the service (${refusal.status === undefined ? '' : `${refusal.status} `}${refusal.codigo}): ${refusal.mensagem}`,
  );
}

/**
 * The runtime the fixtures' operations run in: the fresh world, every transition at its start instant (as the
 * configured companies are made: in real mode the wall clock moves on meanwhile, and ids carry their instant).
 * No fault acts on a fixture and none is journaled: no client sent it.
 */
class SeedingRuntime implements Runtime {
  readonly #world: World;
  readonly #at: number;
  readonly #config: Config;

  constructor(world: World, at: number, config: Config) {
    this.#world = world;
    this.#at = at;
    this.#config = config;
  }

  get state(): State {
    return this.#world.state;
  }
  get clock(): World['clock'] {
    return this.#world.clock;
  }
  get inFlight(): Map<string, string> {
    return this.#world.inFlight;
  }
  get pageBudgets(): Config['pageBudgets'] {
    return this.#config.pageBudgets;
  }
  get maxStoredAnswersPerCompany(): number {
    return this.#config.maxStoredAnswersPerCompany;
  }
  apply<T>(fn: (state: State, ctx: Context) => T): T {
    return this.#world.apply(fn, this.#at);
  }
  nextRequestId(): string {
    return uuidV4(this.#world.requestRandom);
  }
  credential(token: string): Credential | undefined {
    return this.#world.state.credentials.get(token);
  }
  takeApiFault(): undefined {
    return undefined;
  }
  record(): undefined {
    return undefined;
  }
}
