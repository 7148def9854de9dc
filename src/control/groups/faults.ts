/**
 * Injected faults (emu.faults, /_emulator/faults): add one (an API answer, a webhook delivery, a job run), list,
 * remove or clear them, and ask why one has not fired (its near-misses); and one company's faults
 * (emu.companies.scope(id).faults, /_emulator/companies/{companyId}/faults), which match only that company.
 */
import * as z from 'zod';
import {
  faultInputSchema,
  FaultInputError,
  faultViewSchema,
  type FaultInput,
  type FaultView,
} from '../../engine/faults.js';
import type { NearMisses } from '../../engine/near-misses.js';
import type { Controls } from '../api.js';
import { only, shown, type Checked, type CompanyFilter, type ControlContext } from '../context.js';
import { ControlError } from '../control-error.js';
import { BAD_FILTER, COMPANY_FILTER, control, NO_COMPANY, NO_CONTENT, type Control, type Notes } from '../row.js';
import { items, lazy, named, none } from '../schemas.js';

/** emu.faults. */
export function faultsControls(context: ControlContext) {
  const { faults } = context.engine;
  return {
    /**
     * Adds a fault; throws a FaultInputError naming the field and what it accepts when `fault` is not one, or could
     * never fire.
     */
    add: (fault: FaultInput): { id: string } => faults.add(fault),
    /** The faults; with `companyId`, only those whose match.companyId is that company. */
    list: (filter: CompanyFilter = {}): FaultView[] => {
      const companyId = context.filtered(filter);
      return only(faults.list(), companyId === undefined ? undefined : (fault) => faultOf(fault, companyId));
    },
    remove: (id: string): boolean => faults.remove(id),
    /**
     * Why the armed fault `id` has not fired, or not as often as asked: the requests (deliveries, job runs) it was
     * checked against since it was armed, the closest first, each with the conditions it met and those it failed
     * (see NearMisses); with `companyId`, among that company's only. 404 falha_nao_encontrada for no fault armed
     * with this id.
     */
    nearMisses: (id: string, filter: CompanyFilter = {}): NearMisses => {
      const companyId = context.filtered(filter);
      const found = faults.nearMisses(id, companyId);
      if (found === undefined) {
        throw new ControlError(
          404,
          'falha_nao_encontrada',
          `No fault ${shown(id)} is armed (one that fired its times has left the list); GET /_emulator/faults lists ` +
            'them.',
          'path.id',
        );
      }
      return found;
    },
    /** Removes every fault; with `companyId`, only those whose match.companyId is that company. */
    clear: (filter: CompanyFilter = {}): void => {
      const companyId = context.filtered(filter);
      if (companyId === undefined) return faults.clear();
      for (const fault of faults.list()) if (faultOf(fault, companyId)) faults.remove(fault.id);
    },
  };
}

export type FaultsControls = ReturnType<typeof faultsControls>;

/** A fault is of a company when its match names that company: it fires for no other. */
const faultOf = (fault: FaultView, companyId: string) => fault.match.companyId === companyId;

/** One company's faults (emu.companies.scope(id).faults): those whose match.companyId is that company. */
export interface CompanyFaults {
  /**
   * Adds a fault whose match.companyId is this company (a FaultInputError at match.companyId when it names
   * another).
   */
  add(fault: FaultInput): { id: string };
  list(): FaultView[];
  /** False, removing nothing, for a fault that is not this company's. */
  remove(id: string): boolean;
  clear(): void;
  /**
   * emu.faults.nearMisses(id) of one of its faults, among its own requests, deliveries and job runs only (404 for
   * another's).
   */
  nearMisses(id: string): NearMisses;
}

/** The faults of `companyId`, over emu.faults; each call `checked` (the company may be gone). */
export function companyFaults(controls: Controls, companyId: string, checked: Checked): CompanyFaults {
  const only = { companyId };
  return {
    add: checked((fault: FaultInput) => controls.faults.add(scopedFault(fault, companyId))),
    list: checked(() => controls.faults.list(only)),
    remove: checked(
      (id: string) => controls.faults.list(only).some((fault) => fault.id === id) && controls.faults.remove(id),
    ),
    clear: checked(() => controls.faults.clear(only)),
    nearMisses: checked((id: string) => {
      if (!controls.faults.list(only).some((fault) => fault.id === id)) {
        throw new ControlError(
          404,
          'falha_nao_encontrada',
          `Company ${companyId} has no fault ${shown(id)} armed; GET /_emulator/companies/${companyId}/faults lists ` +
            'its faults.',
          'path.id',
        );
      }
      return controls.faults.nearMisses(id, only);
    }),
  };
}

/**
 * `fault` with match.companyId set to `companyId`; one whose match names another company is refused. Anything
 * that is not a fault with a match object goes on as it is, for the fault's own check to refuse it.
 */
function scopedFault(fault: FaultInput, companyId: string): FaultInput {
  if (typeof fault !== 'object' || fault === null || Array.isArray(fault)) return fault;
  const given: unknown = (fault as { match?: unknown }).match;
  const match = given === undefined ? {} : given;
  if (typeof match !== 'object' || match === null || Array.isArray(match)) return fault;
  const named = (match as { companyId?: unknown }).companyId;
  if (named !== undefined && named !== companyId) {
    throw new FaultInputError(
      `match.companyId must be this company's id (${companyId}) or left out: a fault added for a company matches ` +
        `only that company; got ${shown(named)}.`,
      'match.companyId',
    );
  }
  return { ...fault, match: { ...match, companyId } } as FaultInput;
}

/** A fault as it is added: the fault registry checks it whole, saying what each field accepts. */
const faultInput = named('FaultInput', faultInputSchema);
/** A fault as the controls answer it (src/engine/faults.ts holds its schema). */
export const faultView = named('Fault', faultViewSchema);
const faultList = lazy(() => items(faultView()));
const faultId = lazy(() => z.strictObject({ id: z.string() }));
/** A fault's near-misses (src/engine/near-misses.ts holds their TypeScript types). */
export const nearMisses = lazy(() => {
  const conditions = {
    failed: z
      .array(z.string())
      .meta({ description: 'The conditions it failed, each a sentence: "method: PATCH ≠ POST".' }),
    matched: z.array(z.string()).meta({ description: 'The conditions it met.' }),
  };
  const nearMiss = z.union([
    z
      .strictObject({
        requestId: z.string(),
        at: z.string(),
        method: z.string(),
        path: z.string(),
        status: z.number().int(),
        companyId: z.string().nullable(),
        ...conditions,
      })
      .meta({ description: 'A request (an api fault).' }),
    z
      .strictObject({
        eventId: z.string().nullable(),
        attempt: z.number().int().nullable(),
        url: z.string(),
        eventType: z.string(),
        companyId: z.string(),
        ...conditions,
      })
      .meta({ description: 'A delivery attempt (a delivery fault).' }),
    z
      .strictObject({
        at: z.string().nullable(),
        kind: z.string(),
        subjectId: z.string().nullable(),
        companyId: z.string().nullable(),
        ...conditions,
      })
      .meta({ description: 'A run of a background job (a job fault).' }),
  ]);
  return z.strictObject({
    fault: faultView(),
    examined: z
      .number()
      .int()
      .min(0)
      .meta({
        description:
          "The occurrences since it was armed that it did not fire on, of those kept (the journal's last 10,000 " +
          'requests; the last 1,000 deliveries or job runs checked while a fault of that target was armed).',
      }),
    passedOver: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'The matching occurrences its probability draw passed over.' }),
    candidates: z
      .array(nearMiss)
      .meta({ description: 'The closest ten: the most conditions met first, then the most recent.' }),
  });
});

/** Near-misses whose fault's path glob would take more steps than a query may: refused, as a journal query. */
const NEAR_MISSES_OVER_BUDGET =
  "consulta_excede_orcamento: matching the fault's glob against the requests (or delivery URLs) since it was armed " +
  'would take more steps than a query may.';

/**
 * A fault just added, as `fault flt_1: api path=/v1/empresa → status=503, once`, and the company its match keeps it
 * to.
 */
function faultWords(id: string, emu: Controls): Notes {
  const fault = emu.faults.list().find((f) => f.id === id);
  if (fault === undefined) return { detail: `fault ${id}`, faultId: id };
  const pairs = (object: object) =>
    Object.entries(object)
      .map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join(' ');
  const times = fault.times === null ? 'until removed' : fault.times === 1 ? 'once' : `${fault.times} times`;
  const chance = fault.probability === undefined ? '' : `, probability ${fault.probability}`;
  return {
    detail: `fault ${id}: ${fault.target} ${pairs(fault.match) || 'any'} → ${pairs(fault.effect)}, ${times}${chance}`,
    faultId: id,
    companyId: fault.match.companyId ?? null,
  };
}

export const ROWS = [
  control({
    method: 'GET',
    path: '/faults',
    id: 'listFaults',
    summary: 'The faults in force',
    tag: 'Faults',
    scope: 'emulator',
    query: [COMPANY_FILTER],
    success: { 200: { description: 'The faults, each with its hits and the firings left.', body: faultList } },
    errors: { 404: NO_COMPANY, 422: BAD_FILTER },
    run: ({ emu, query }) => ({ items: emu.faults.list(query) }),
    sample: () => ({ path: '/faults' }),
  }),
  control({
    method: 'POST',
    path: '/faults',
    id: 'addFault',
    summary: 'Inject a fault: an API answer, a webhook delivery or a job run',
    tag: 'Faults',
    scope: 'emulator',
    // The fault registry checks the fault whole, saying what each field accepts.
    body: { schema: z.unknown(), shown: faultInput },
    success: { 201: { description: 'Its id (GET lists it whole).', body: faultId } },
    errors: { 422: 'valor_invalido: not a fault, or one that could never fire (caminho names the field).' },
    run: ({ emu, body }) => emu.faults.add(body as FaultInput),
    describe: (answer, { emu }) => faultWords(answer.id, emu),
    sample: () => ({
      path: '/faults',
      body: { target: 'delivery', match: { eventType: 'webhook.teste' }, effect: { tamper: 'body' }, times: null },
    }),
  }),
  control({
    method: 'DELETE',
    path: '/faults',
    id: 'clearFaults',
    summary: 'Remove every fault',
    tag: 'Faults',
    scope: 'emulator',
    query: [COMPANY_FILTER],
    success: { 200: { description: 'None left.', body: none } },
    errors: { 404: NO_COMPANY, 422: BAD_FILTER },
    run: ({ emu, query }) => {
      emu.faults.clear(query);
      return { items: [] };
    },
    sample: () => ({ path: '/faults' }),
  }),
  control({
    method: 'DELETE',
    path: '/faults/:id',
    id: 'removeFault',
    summary: 'Remove one fault',
    tag: 'Faults',
    scope: 'emulator',
    success: { 204: { description: 'Removed.' } },
    errors: { 404: 'falha_nao_encontrada: no fault has this id.' },
    run: ({ emu, params }) => {
      if (!emu.faults.remove(params.id)) {
        throw new ControlError(
          404,
          'falha_nao_encontrada',
          `No fault ${params.id}; GET /_emulator/faults lists them.`,
          'path.id',
        );
      }
      return NO_CONTENT;
    },
    describe: (_, { params }) => ({ faultId: params.id }),
    sample: (w) => ({ path: `/faults/${w.faultId}` }),
  }),
  control({
    method: 'GET',
    path: '/faults/:id/near-misses',
    id: 'getFaultNearMisses',
    summary:
      'Why an armed fault has not fired (or not as often as asked): the closest requests, deliveries or job runs ' +
      'since it was armed, and which of its conditions each failed',
    tag: 'Faults',
    scope: 'emulator',
    query: [
      {
        name: 'companyId',
        description:
          "Only this company's requests, deliveries and job runs (once; any other parameter is refused, 422 at " +
          'query.<name>).',
      },
    ],
    success: {
      200: {
        description:
          'The fault, how many occurrences it was checked against without firing, the draws that passed over, and ' +
          'the closest ten.',
        body: nearMisses,
      },
    },
    errors: {
      404:
        'falha_nao_encontrada: no fault armed has this id (one that fired its times has left the list). ' + NO_COMPANY,
      422: `${BAD_FILTER} ${NEAR_MISSES_OVER_BUDGET}`,
    },
    run: ({ emu, params, query }) => emu.faults.nearMisses(params.id, query),
    sample: (w) => ({ path: `/faults/${w.faultId}/near-misses` }),
  }),
  // One company's faults (emu.companies.scope(id).faults): the views above kept to that company.
  control({
    method: 'GET',
    path: '/companies/:companyId/faults',
    id: 'listCompanyFaults',
    summary: "One company's faults",
    tag: 'Faults',
    scope: 'company',
    success: { 200: { description: 'The faults whose match.companyId is this company.', body: faultList } },
    errors: { 404: NO_COMPANY },
    run: ({ emu, params }) => ({ items: emu.companies.scope(params.companyId).faults.list() }),
    sample: (w) => ({ path: `/companies/${w.ownId}/faults` }),
  }),
  control({
    method: 'POST',
    path: '/companies/:companyId/faults',
    id: 'addCompanyFault',
    summary: 'Inject a fault that matches only this company',
    tag: 'Faults',
    scope: 'company',
    body: { schema: z.unknown(), shown: faultInput },
    success: { 201: { description: 'Its id (GET lists it whole).', body: faultId } },
    errors: {
      404: NO_COMPANY,
      422:
        'valor_invalido: not a fault, one that could never fire, or one naming another company (caminho names the ' +
        'field).',
    },
    run: ({ emu, params, body }) => emu.companies.scope(params.companyId).faults.add(body as FaultInput),
    describe: (answer, { emu }) => faultWords(answer.id, emu),
    sample: (w) => ({
      path: `/companies/${w.ownId}/faults`,
      body: { target: 'api', match: { method: 'get', path: '/v1/empresa' }, effect: { status: 503, retryAfter: 2 } },
    }),
  }),
  control({
    method: 'DELETE',
    path: '/companies/:companyId/faults',
    id: 'clearCompanyFaults',
    summary: "Remove one company's faults",
    tag: 'Faults',
    scope: 'company',
    success: { 200: { description: 'None left.', body: none } },
    errors: { 404: NO_COMPANY },
    run: ({ emu, params }) => {
      emu.companies.scope(params.companyId).faults.clear();
      return { items: [] };
    },
    sample: (w) => ({ path: `/companies/${w.ownId}/faults` }),
  }),
  control({
    method: 'DELETE',
    path: '/companies/:companyId/faults/:id',
    id: 'removeCompanyFault',
    summary: 'Remove one of its faults',
    tag: 'Faults',
    scope: 'company',
    success: { 204: { description: 'Removed.' } },
    errors: { 404: `${NO_COMPANY} falha_nao_encontrada: the company has no fault with this id.` },
    run: ({ emu, params }) => {
      const { companyId, id } = params;
      if (!emu.companies.scope(companyId).faults.remove(id)) {
        throw new ControlError(
          404,
          'falha_nao_encontrada',
          `Company ${companyId} has no fault ${id}; GET /_emulator/companies/${companyId}/faults lists its faults.`,
          'path.id',
        );
      }
      return NO_CONTENT;
    },
    describe: (_, { params }) => ({ faultId: params.id }),
    sample: (w) => ({ path: `/companies/${w.ownId}/faults/${w.ownFaultId}` }),
  }),
  control({
    method: 'GET',
    path: '/companies/:companyId/faults/:id/near-misses',
    id: 'getCompanyFaultNearMisses',
    summary: "Why one of its faults has not fired: the closest of the company's own requests, deliveries or job runs",
    tag: 'Faults',
    scope: 'company',
    success: {
      200: { description: 'As GET /_emulator/faults/{id}/near-misses, among its own occurrences.', body: nearMisses },
    },
    errors: {
      404: `${NO_COMPANY} falha_nao_encontrada: the company has no fault armed with this id.`,
      422: NEAR_MISSES_OVER_BUDGET,
    },
    run: ({ emu, params }) => emu.companies.scope(params.companyId).faults.nearMisses(params.id),
    sample: (w) => ({ path: `/companies/${w.ownId}/faults/${w.ownFaultId}/near-misses` }),
  }),
] as const satisfies readonly Control[];
