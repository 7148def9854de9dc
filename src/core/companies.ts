/**
 * Companies and their API credentials (docs/where-the-spec-is-silent.md). A company is created through the
 * emulator controls (the real service does it in its panel), with its head office establishment and a first credential.
 */
import { cnpjRoot, headOfficeCnpj } from './cnpj.js';
import { registerHeadOffice, type Establishment } from './establishments.js';
import { randomDigits, randomToken, uuidV7, type RandomSource } from './random.js';
import { ok, refuse, type Result } from './refusal.js';
import { byKey, indexesOf, kept, type Context, type KindSlice, type State } from './state.js';
import { at, repeated, repeatedCompany, repeatedId } from './integrity.js';
import { observeCoverage, surveillanceOf } from './surveillance.js';
import type { Instant } from './time.js';

/** The six permissions the spec names (spec "Authentication"). */
export const PERMISSIONS = [
  'catalogo:ler',
  'catalogo:gerenciar',
  'estabelecimento:gerenciar',
  'vigilancia:gerenciar',
  'analise:executar',
  'webhook:gerenciar',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export interface Company {
  readonly id: string;
  readonly cnpjRoot: string;
  readonly name: string;
  readonly subscriptionActive: boolean;
  readonly surveillanceEntitled: boolean;
  readonly surveillanceCapacity: number;
  readonly analysisAllowance: number;
  readonly headOfficeId: string;
  readonly createdAt: Instant;
}

export interface Credential {
  readonly token: string;
  readonly companyId: string;
  readonly permissions: readonly Permission[];
  readonly createdAt: Instant;
}

/** The flags a test may set when it creates or changes a company. */
export interface CompanyFlags {
  readonly name?: string;
  readonly subscriptionActive?: boolean;
  readonly surveillanceEntitled?: boolean;
  readonly surveillanceCapacity?: number;
  readonly analysisAllowance?: number;
}

export interface NewCompany extends CompanyFlags {
  readonly cnpjRoot?: string;
  readonly permissions?: readonly Permission[];
}

export interface CreatedCompany {
  readonly company: Company;
  readonly headOffice: Establishment;
  readonly credential: Credential;
}

/** docs/where-the-spec-is-silent.md: what a company has unless the test says otherwise. */
const COMPANY_DEFAULTS = {
  subscriptionActive: true,
  surveillanceEntitled: true,
  surveillanceCapacity: 100,
  analysisAllowance: 10,
} as const;

const TOKEN_PREFIX = 'svc_at_';

/**
 * A company with its head office and first credential. A CNPJ root names one company on the whole emulator:
 * `rootsElsewhere` are the roots of companies kept outside this state (a company on a clock of its own lives in a
 * state of its own).
 */
export function createCompany(
  state: State,
  input: NewCompany,
  ctx: Context,
  rootsElsewhere: ReadonlySet<string> = NO_ROOTS,
): Result<CreatedCompany> {
  const taken = takenRoots(state, rootsElsewhere);
  let cnpjRoot = input.cnpjRoot;
  if (cnpjRoot === undefined) {
    cnpjRoot = pickCnpjRoot(taken, ctx.random);
  } else if (!/^\d{8}$/.test(cnpjRoot)) {
    return refuse('invalid', 'raiz_cnpj_invalida', 'cnpjRoot must be 8 digits, e.g. "11222333".', 'body.cnpjRoot');
  } else if (taken.has(cnpjRoot)) {
    return refuse(
      'conflict',
      'raiz_cnpj_duplicada',
      `A company with CNPJ root ${cnpjRoot} already exists; pick another root or omit it.`,
      'body.cnpjRoot',
    );
  }
  const flagsRefusal = checkFlags(input);
  if (flagsRefusal) return flagsRefusal;

  const id = uuidV7(ctx.random, ctx.now);
  const headOffice = registerHeadOffice(
    state,
    { companyId: id, cnpj: headOfficeCnpj(cnpjRoot), nome: input.name ?? `Empresa ${cnpjRoot}` },
    ctx,
  );
  const company: Company = {
    id,
    cnpjRoot,
    name: input.name ?? `Empresa ${cnpjRoot}`,
    subscriptionActive: input.subscriptionActive ?? COMPANY_DEFAULTS.subscriptionActive,
    surveillanceEntitled: input.surveillanceEntitled ?? COMPANY_DEFAULTS.surveillanceEntitled,
    surveillanceCapacity: input.surveillanceCapacity ?? COMPANY_DEFAULTS.surveillanceCapacity,
    analysisAllowance: input.analysisAllowance ?? COMPANY_DEFAULTS.analysisAllowance,
    headOfficeId: headOffice.id,
    createdAt: ctx.now,
  };
  addCompany(state, company);
  // Created with the company, so the first coverage change is compared with the coverage it started with.
  surveillanceOf(state, id);
  const credential = issueCredential(state, id, input.permissions ?? PERMISSIONS, ctx);
  const created = { company, headOffice, credential };
  state.origins.set(id, created);
  return ok(created);
}

const NO_ROOTS: ReadonlySet<string> = new Set();

function takenRoots(state: State, rootsElsewhere: ReadonlySet<string>): Set<string> {
  const taken = new Set(rootsElsewhere);
  for (const company of state.companies.values()) taken.add(company.cnpjRoot);
  return taken;
}

/** A seeded random CNPJ root no company has. */
export function pickCnpjRoot(taken: ReadonlySet<string>, random: RandomSource): string {
  let root: string;
  do root = randomDigits(random, 8);
  while (taken.has(root));
  return root;
}

/** Changes a company's flags; a change of entitlement or capacity moves `cobertura` (and may raise its event). */
export function updateCompany(state: State, companyId: string, flags: CompanyFlags, ctx: Context): Result<Company> {
  const company = state.companies.get(companyId);
  if (!company)
    return refuse('not_found', 'empresa_nao_encontrada', `No company ${companyId} in this emulator.`, 'path.companyId');
  const flagsRefusal = checkFlags(flags);
  if (flagsRefusal) return flagsRefusal;
  const updated: Company = {
    ...company,
    ...definedOnly(flags),
  };
  state.companies.set(companyId, updated);
  observeCoverage(state, companyId, ctx);
  return ok(updated);
}

function issueCredential(
  state: State,
  companyId: string,
  permissions: readonly Permission[],
  ctx: Context,
): Credential {
  const credential: Credential = {
    token: randomToken(ctx.random, TOKEN_PREFIX),
    companyId,
    permissions: PERMISSIONS.filter((p) => permissions.includes(p)),
    createdAt: ctx.now,
  };
  state.credentials.set(credential.token, credential);
  return credential;
}

export function addCredential(
  state: State,
  companyId: string,
  permissions: readonly Permission[],
  ctx: Context,
): Result<Credential> {
  if (!state.companies.has(companyId))
    return refuse('not_found', 'empresa_nao_encontrada', `No company ${companyId} in this emulator.`, 'path.companyId');
  return ok(issueCredential(state, companyId, permissions, ctx));
}

export function hasPermission(credential: Credential, permission: Permission): boolean {
  return credential.permissions.includes(permission);
}

function checkFlags(flags: CompanyFlags): Result<never> | undefined {
  for (const field of ['surveillanceCapacity', 'analysisAllowance'] as const) {
    const value = flags[field];
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
      return refuse('invalid', 'valor_invalido', `${field} must be a non-negative integer.`, `body.${field}`);
    }
  }
  if (flags.name !== undefined && (flags.name.length < 1 || flags.name.length > 120)) {
    return refuse('invalid', 'valor_invalido', 'name must have 1 to 120 characters.', 'body.name');
  }
  return undefined;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** A company, and the entry of its per-company indexes (which the other slices fill). */
function addCompany(state: State, company: Company): void {
  state.companies.set(company.id, company);
  indexesOf(state, company.id);
}

export const companiesSlice: KindSlice<'companies', readonly Company[], Company> = {
  key: 'companies',
  holds: ['companies', 'indexes'],
  collection: kept(),
  log: byKey(
    (state) => state.companies,
    (company) => company.id,
  ),
  toData: (state) => [...state.companies.values()],
  fromData: (state, companies) => {
    for (const company of companies) addCompany(state, company);
  },
  ownerOf: (company) => company.id,
  removeCompany: (state, companyId) => {
    state.companies.delete(companyId);
    state.indexes.delete(companyId);
  },
  unique: (companies) =>
    repeatedId('companies', companies, 'company') ??
    repeated(
      'companies',
      companies,
      'cnpjRoot',
      (c) => c.cnpjRoot,
      (c) => `CNPJ root ${c.cnpjRoot}`,
    ),
  check: (data, r) => {
    for (const [i, c] of data.companies.entries()) {
      if (r.establishments.get(c.headOfficeId)?.companyId !== c.id)
        return at(
          ['companies', i, 'headOfficeId'],
          `company ${c.id}: head office ${c.headOfficeId} is not one of its establishments`,
        );
    }
    return undefined;
  },
};

export const credentialsSlice: KindSlice<'credentials', readonly Credential[], Credential> = {
  key: 'credentials',
  holds: ['credentials'],
  collection: kept(),
  log: byKey(
    (state) => state.credentials,
    (credential) => credential.token,
  ),
  toData: (state) => [...state.credentials.values()],
  fromData: (state, credentials) => {
    for (const credential of credentials) state.credentials.set(credential.token, credential);
  },
  ownerOf: (credential) => credential.companyId,
  removeCompany: (state, companyId) => {
    for (const [token, credential] of state.credentials)
      if (credential.companyId === companyId) state.credentials.delete(token);
  },
  // The token itself is not repeated in the message: it is a credential.
  unique: (credentials) =>
    repeated(
      'credentials',
      credentials,
      'token',
      (c) => c.token,
      () => 'a credential token',
    ),
  check: (data, r) => {
    for (const [i, c] of data.credentials.entries())
      if (!r.companies.has(c.companyId))
        return at(['credentials', i, 'companyId'], `a credential belongs to unknown company ${c.companyId}`);
    return undefined;
  },
};

/** Each company as it was created (its record, head office and first credential): what a reset of it puts back. */
export const originsSlice: KindSlice<'origins', readonly CreatedCompany[], CreatedCompany> = {
  key: 'origins',
  holds: ['origins'],
  collection: kept(),
  log: byKey(
    (state) => state.origins,
    (origin) => origin.company.id,
  ),
  toData: (state) => [...state.origins.values()],
  fromData: (state, origins) => {
    for (const origin of origins) state.origins.set(origin.company.id, origin);
  },
  ownerOf: (origin) => origin.company.id,
  removeCompany: (state, companyId) => void state.origins.delete(companyId),
  unique: (origins) => repeatedCompany('origins', origins, 'company', (o) => o.company.id, 'the creation record'),
  // A reset puts these back beside the other companies: the same root and head office (at its position) the
  // company has, and a first token no other company holds.
  check: (data, r) => {
    const tokens = new Map(data.credentials.map((c) => [c.token, c.companyId]));
    for (const [i, { company, headOffice, credential }] of data.origins.entries()) {
      const current = r.companies.get(company.id);
      if (!current) return at(['origins', i, 'company', 'id'], `the creation record of unknown company ${company.id}`);
      if (company.cnpjRoot !== current.cnpjRoot || company.headOfficeId !== current.headOfficeId)
        return at(
          ['origins', i, 'company'],
          `company ${company.id} was created with another CNPJ root or head office than it has`,
        );
      const office = r.establishments.get(headOffice.id);
      if (
        headOffice.id !== current.headOfficeId ||
        headOffice.companyId !== company.id ||
        cnpjRoot(headOffice.cnpj) !== company.cnpjRoot ||
        headOffice.position !== office?.position
      ) {
        return at(
          ['origins', i, 'headOffice'],
          `company ${company.id}: its head office at creation is not its head office (id, company, CNPJ root and position)`,
        );
      }
      if (credential.companyId !== company.id)
        return at(
          ['origins', i, 'credential', 'companyId'],
          `company ${company.id}: its first credential is of company ${credential.companyId}`,
        );
      const holder = tokens.get(credential.token);
      if (holder !== undefined && holder !== company.id)
        return at(
          ['origins', i, 'credential', 'token'],
          `company ${company.id}: its first credential's token is another company's`,
        );
    }
    return undefined;
  },
};
