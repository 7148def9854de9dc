/**
 * The companies (emu.companies, /_emulator/companies): create one with its head office and a credential, change its
 * flags, add credentials, remove it or reset it; and each company's own controls, what a created company carries
 * (CompanyHandle) and its scope (CompanyScope: its faults, inbox and journal). emu.companies also holds the
 * company-level controls of other groups: its own clock (clock.ts) and its state (state.ts).
 */
import * as z from 'zod';
import {
  addCredential,
  createCompany,
  PERMISSIONS,
  updateCompany,
  type Company,
  type CompanyFlags,
  type Permission,
} from '../../core/companies.js';
import { removeCompany, resetCompany } from '../../core/company-data.js';
import type { CompanyOptions } from '../../engine/config.js';
import type { SeededCompany } from '../../engine/fixtures.js';
import { describeCompany, type CreatedCompanyInfo, type World } from '../../engine/world.js';
import { unwrap, type Checked, type ControlContext } from '../context.js';
import { BAD_BODY, control, NO_COMPANY, NO_CONTENT, type Control, type Notes } from '../row.js';
import { items, lazy, named } from '../schemas.js';
import { clockControls, companyClock, type ClockControls } from './clock.js';
import { companyFaults, type CompanyFaults } from './faults.js';
import { companyInbox, type CompanyInbox } from './inbox.js';
import { companyJournal, type CompanyJournal } from './journal.js';
import { companyState } from './state.js';

/** emu.companies. */
export function companiesControls(context: ControlContext) {
  const { engine } = context;
  return {
    /**
     * A company with its head office and a credential holding `permissions` (all six by default); with
     * `clock: 'own'`, on a clock of its own (see CompanyOptions.clock).
     */
    create: (options: CompanyOptions = {}): CompanyHandle => {
      if (options.clock === 'own') return handle(context, unwrap(engine.createOwnClockCompany(options)));
      const shared = engine.world;
      const created = shared.apply((state, ctx) => createCompany(state, options, ctx, engine.rootsOutside(shared)));
      return handle(context, describeCompany(unwrap(created)));
    },
    /**
     * The companies given in EmulatorOptions.companies, with their tokens (the same after every reset); one removed
     * since (companies.remove) is not among them until the next whole reset brings it back.
     */
    initial: (): CreatedCompanyInfo[] => {
      const { initialCompanies, state } = engine.world;
      return initialCompanies.filter((company) => state.companies.has(company.companyId));
    },
    /**
     * What EmulatorOptions.fixtures created at the start or the last reset: each company's ids and token, and
     * the ids of its establishments, catalogs and products, and its webhook destination with its secret, as
     * created (later changes through the API do not show here); a company removed since is not among them.
     */
    fixtures: (): SeededCompany[] => {
      const { seeded, state } = engine.world;
      return seeded.filter((company) => state.companies.has(company.companyId));
    },
    /** Changes a company's flags: suspend its subscription, cut its capacity or allowance. */
    update: (companyId: string, flags: CompanyFlags): Company =>
      unwrap(engine.worldOf(companyId).apply((state, ctx) => updateCompany(state, companyId, flags, ctx))),
    addCredential: (companyId: string, permissions: readonly Permission[] = PERMISSIONS): { token: string } => {
      const world = engine.worldOf(companyId);
      const { token } = unwrap(world.apply((state, ctx) => addCredential(state, companyId, permissions, ctx)));
      engine.indexTokens(world);
      return { token };
    },
    /** Every company: those on the shared clock, then those on clocks of their own. */
    list: (): Company[] => engine.worlds().flatMap((world) => [...world.state.companies.values()]),
    ...companyClock(context),
    /**
     * A company's faults, inbox and journal: the views of emu.faults, emu.inbox and emu.journal kept to that
     * company (see CompanyScope). 404 empresa_nao_encontrada for an unknown company, now and at each call.
     */
    scope: (companyId: string): CompanyScope => {
      context.worldWith(companyId);
      return companyScope(context, companyId, () => void context.worldWith(companyId));
    },
    /**
     * Removes a company: its records, credentials (its tokens then get 401) and tasks, or its whole world if it is
     * on a clock of its own; a request of it held by a delayMs fault answers 503. The faults that match only it,
     * and its inbox and journal entries, go with it. Every other company's records, positions and tasks stay as
     * they were.
     */
    remove: (companyId: string): void => {
      const world = context.worldWith(companyId);
      const reason = `told to remove company ${companyId}`;
      forgetHarness(context, companyId);
      if (engine.removeOwnWorld(companyId, reason)) return;
      world.apply((state) => removeCompany(state, companyId));
      world.clock.removeOwner(companyId, reason);
    },
    /**
     * The company back as it was created: the same id, CNPJ root, flags, head office and first credential (same
     * token and permissions), no other record and no task; answers as its creation did. A request of it held by a
     * delayMs fault answers 503. A company on a clock of its own starts over in a new world, its clock at the
     * emulator's now. The faults that match only it, and its inbox and journal entries, are dropped. 409
     * criacao_desconhecida for a company restored from a snapshot that predates it.
     */
    reset: (companyId: string): CreatedCompanyInfo => {
      const world = context.worldWith(companyId);
      // A company on a clock of its own starts over in a new world, its clock back at the emulator's now.
      const renewed = engine.resetOwnWorld(companyId, `reset for company ${companyId}`);
      const created = renewed ?? describeCompany(unwrap(world.apply((state) => resetCompany(state, companyId))));
      if (!renewed) world.clock.removeOwner(companyId, `reset for company ${companyId}`);
      forgetHarness(context, companyId);
      return created;
    },
    ...companyState(context),
  };
}

export type CompaniesControls = ReturnType<typeof companiesControls>;

/**
 * A reset or removal of one company drops what the harness holds of it, as a whole reset drops everything:
 * the faults that match only it, and its inbox and journal entries. Faults of every company stay.
 */
function forgetHarness({ controls, engine, receiverChecks }: ControlContext, companyId: string): void {
  const only = { companyId };
  controls.faults.clear(only);
  engine.faults.forget(companyId);
  controls.inbox.clear(only);
  controls.journal.clear(only);
  receiverChecks.delete(companyId);
  engine.tell({ kind: 'reset', companyId });
}

/** A company as companies.create answers it, with its own controls. */
export interface CompanyHandle extends CreatedCompanyInfo {
  /**
   * Its clock: its own (created with `clock: 'own'`), or the shared one it lives on, whose moves every company on
   * the shared clock sees.
   */
  readonly clock: ClockControls;
  /** Its faults: one added here matches only this company. */
  readonly faults: CompanyScope['faults'];
  readonly inbox: CompanyScope['inbox'];
  readonly journal: CompanyScope['journal'];
  /** emu.companies.reset(companyId). */
  reset(): CreatedCompanyInfo;
  /** emu.companies.remove(companyId). */
  remove(): void;
}

/** What companies.create answers: the company, and its own controls (see CompanyHandle). */
const handle = (context: ControlContext, info: CreatedCompanyInfo): CompanyHandle =>
  new Handle(info, context, () => context.worldWith(info.companyId));

/**
 * A company with its controls: the four fields are its own enumerable properties, so it prints, compares and
 * serializes as the plain company; the controls are getters and methods of the class, built when first used
 * (creating a company stays cheap).
 */
class Handle implements CompanyHandle {
  readonly companyId: string;
  readonly cnpjRoot: string;
  readonly token: string;
  readonly headOffice: { readonly id: string; readonly cnpj: string };
  readonly #context: ControlContext;
  readonly #worldOf: () => World;
  #scope: CompanyScope | undefined;
  #clock: ClockControls | undefined;

  constructor(info: CreatedCompanyInfo, context: ControlContext, worldOf: () => World) {
    this.companyId = info.companyId;
    this.cnpjRoot = info.cnpjRoot;
    this.token = info.token;
    this.headOffice = info.headOffice;
    this.#context = context;
    this.#worldOf = worldOf;
  }

  get clock(): ClockControls {
    const config = this.#context.engine.config;
    return (this.#clock ??= clockControls(
      () => this.#worldOf().clock,
      () => config.mode,
    ));
  }
  get faults(): CompanyScope['faults'] {
    return this.#scoped().faults;
  }
  get inbox(): CompanyScope['inbox'] {
    return this.#scoped().inbox;
  }
  get journal(): CompanyScope['journal'] {
    return this.#scoped().journal;
  }
  reset(): CreatedCompanyInfo {
    return this.#context.controls.companies.reset(this.companyId);
  }
  remove(): void {
    this.#context.controls.companies.remove(this.companyId);
  }
  #scoped(): CompanyScope {
    return (this.#scope ??= companyScope(this.#context, this.companyId, () => void this.#worldOf()));
  }
}

/**
 * One company's faults, inbox and journal (emu.companies.scope(id)): for a test that shares the emulator with
 * others, each on its own company. A fault added here matches only this company; remove and clear touch only
 * its faults; the inbox and journal show and drop only its entries.
 */
export interface CompanyScope {
  readonly companyId: string;
  readonly faults: CompanyFaults;
  readonly inbox: CompanyInbox;
  readonly journal: CompanyJournal;
}

/**
 * The scope of `companyId` over the controls' filtered views; `check` runs first at each call (the company may be
 * gone).
 */
function companyScope({ controls }: ControlContext, companyId: string, check: () => void): CompanyScope {
  const checked: Checked =
    (run) =>
    (...args) => {
      check();
      return run(...args);
    };
  return {
    companyId,
    faults: companyFaults(controls, companyId, checked),
    inbox: companyInbox(controls, companyId, checked),
    journal: companyJournal(controls, companyId, checked),
  };
}

const permissions = z.array(z.enum(PERMISSIONS));
const companyFlags = z.strictObject({
  name: z.string().min(1).max(120).optional(),
  subscriptionActive: z.boolean().optional(),
  surveillanceEntitled: z.boolean().optional(),
  surveillanceCapacity: z.number().int().min(0).optional(),
  analysisAllowance: z.number().int().min(0).optional(),
});
const newCompany = companyFlags.extend({
  cnpjRoot: z.string().optional().meta({ description: '8 digits; a free one when absent.' }),
  permissions: permissions.optional().meta({ description: 'Of its first credential; all six when absent.' }),
  clock: z
    .enum(['shared', 'own'])
    .optional()
    .meta({ description: '"own": a clock of its own, moved only by /_emulator/companies/{companyId}/clock.' }),
});
const newCredential = z.strictObject({ permissions: permissions.optional() });

/** What a company's creation (and its reset) answers. */
const createdCompany = named('CreatedCompany', () =>
  z.strictObject({
    companyId: z.string(),
    cnpjRoot: z.string(),
    token: z.string(),
    headOffice: z.strictObject({ id: z.string(), cnpj: z.string() }),
  }),
);
/** A company and its flags (no tokens). */
const company = named('CompanyFlags', () =>
  z.strictObject({
    id: z.string(),
    cnpjRoot: z.string(),
    name: z.string(),
    subscriptionActive: z.boolean(),
    surveillanceEntitled: z.boolean(),
    surveillanceCapacity: z.number().int(),
    analysisAllowance: z.number().int(),
    headOfficeId: z.string(),
    createdAt: z.number().int().meta({ description: 'Virtual time of its creation, in Unix milliseconds.' }),
  }),
);
const companies = lazy(() => items(company()));
const token = lazy(() => z.strictObject({ token: z.string() }));

const companyWords = (answer: { companyId: string; cnpjRoot: string }): Notes => ({
  detail: `company ${answer.companyId} (${answer.cnpjRoot})`,
});

export const ROWS = [
  control({
    method: 'GET',
    path: '/companies',
    id: 'listCompanies',
    summary: 'The companies and their flags (no tokens)',
    tag: 'Companies',
    scope: 'emulator',
    success: {
      200: { description: 'Those on the shared clock, then those on clocks of their own.', body: companies },
    },
    errors: {},
    run: ({ emu }) => ({ items: emu.companies.list() }),
    sample: () => ({ path: '/companies' }),
  }),
  control({
    method: 'POST',
    path: '/companies',
    id: 'createCompany',
    summary: 'Create a company with its head office and a credential',
    tag: 'Companies',
    scope: 'emulator',
    body: { schema: newCompany },
    success: { 201: { description: 'The company, its head office and its first token.', body: createdCompany } },
    errors: {
      409: 'raiz_cnpj_duplicada: another company has this CNPJ root.',
      422: `raiz_cnpj_invalida: cnpjRoot is not 8 digits. ${BAD_BODY}`,
    },
    run: ({ emu, body }) => emu.companies.create(body),
    describe: companyWords,
    sample: () => ({ path: '/companies', body: { name: 'Outra', cnpjRoot: '99888777' } }),
  }),
  control({
    method: 'PATCH',
    path: '/companies/:companyId',
    id: 'updateCompany',
    summary: "Change a company's flags (suspend a subscription, cut capacity)",
    tag: 'Companies',
    scope: 'company',
    body: { schema: companyFlags },
    success: { 200: { description: 'The company.', body: company } },
    errors: { 404: NO_COMPANY, 422: BAD_BODY },
    run: ({ emu, params, body }) => emu.companies.update(params.companyId, body),
    sample: (w) => ({ path: `/companies/${w.companyId}`, body: { surveillanceCapacity: 3 } }),
  }),
  control({
    method: 'POST',
    path: '/companies/:companyId/credentials',
    id: 'addCredential',
    summary: 'Add a credential with these permissions (all six when absent)',
    tag: 'Companies',
    scope: 'company',
    body: { schema: newCredential },
    success: { 201: { description: 'Its bearer token.', body: token } },
    errors: { 404: NO_COMPANY, 422: BAD_BODY },
    run: ({ emu, params, body }) => emu.companies.addCredential(params.companyId, body.permissions),
    sample: (w) => ({ path: `/companies/${w.companyId}/credentials`, body: { permissions: ['catalogo:ler'] } }),
  }),
  control({
    method: 'DELETE',
    path: '/companies/:companyId',
    id: 'removeCompany',
    summary: 'Remove a company: its records, credentials and scheduled tasks',
    tag: 'Companies',
    scope: 'company',
    success: { 204: { description: 'Removed.' } },
    errors: { 404: NO_COMPANY },
    run: ({ emu, params }) => {
      emu.companies.remove(params.companyId);
      return NO_CONTENT;
    },
    sample: (w) => ({ path: `/companies/${w.ownId}` }),
  }),
  control({
    method: 'POST',
    path: '/companies/:companyId/reset',
    id: 'resetCompany',
    summary:
      'The company back as it was created (same id, CNPJ root, flags, head office and first credential), nothing else',
    tag: 'Companies',
    scope: 'company',
    success: { 200: { description: 'What its creation answered.', body: createdCompany } },
    errors: { 404: NO_COMPANY, 409: 'criacao_desconhecida: restored from a snapshot that predates the company.' },
    run: ({ emu, params }) => emu.companies.reset(params.companyId),
    describe: companyWords,
    sample: (w) => ({ path: `/companies/${w.ownId}/reset` }),
  }),
] as const satisfies readonly Control[];
