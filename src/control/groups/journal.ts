/**
 * The journal of API requests (emu.journal, /_emulator/requests): the last 10,000, found and counted by the
 * journal's filters (JournalFilter), and cleared; and one company's (emu.companies.scope(id).journal,
 * /_emulator/companies/{companyId}/journal).
 */
import * as z from 'zod';
import {
  JOURNAL_FILTER_FIELDS,
  JournalFilterError,
  readJournalFilter,
  type JournalEntry,
  type JournalFilter,
  type JournalQuery,
} from '../../engine/journal.js';
import type { Controls } from '../api.js';
import { shown, type Checked, type CompanyFilter, type ControlContext } from '../context.js';
import { BAD_FILTER, COMPANY_FILTER, control, NO_COMPANY, type Control } from '../row.js';
import { items, lazy, named, none } from '../schemas.js';

/** emu.journal. */
export function journalControls(context: ControlContext) {
  const { journal } = context.engine;
  return {
    /**
     * The requests of the last 10,000 that `filter` keeps (every one without it), oldest first: see JournalFilter.
     * Throws a JournalFilterError (a TypeError) naming a field that is not one or a value it does not accept; a
     * ControlError 404 empresa_nao_encontrada for a company of none.
     */
    find: (filter: JournalFilter = {}): JournalEntry[] => journal.find(journalQuery(context, filter)),
    /** How many requests find(filter) answers: "exactly 2 PATCH /v1/produtos/* answered 412". */
    count: (filter: JournalFilter = {}): number => journal.count(journalQuery(context, filter)),
    /** find(filter), by its first name. */
    entries: (filter: JournalFilter = {}): JournalEntry[] => journal.find(journalQuery(context, filter)),
    /** Drops every entry; with `companyId`, only that company's. */
    clear: (filter: CompanyFilter = {}): void => journal.clear(context.ofCompany(filter)),
    subscribe: (listener: (entry: JournalEntry) => void): (() => void) => journal.subscribe(listener),
  };
}

export type JournalControls = ReturnType<typeof journalControls>;

/**
 * `filter` read (a JournalFilterError naming the field: a companyId that is no company id among them), its company
 * one of this emulator's (404 empresa_nao_encontrada, as every view answers).
 */
function journalQuery(context: ControlContext, filter: JournalFilter): JournalQuery {
  const query = readJournalFilter(filter);
  if (query.companyId !== undefined) context.worldWith(query.companyId, 'query.companyId');
  return query;
}

/** One company's journal (emu.companies.scope(id).journal): the requests made with its credentials. */
export interface CompanyJournal {
  /** Its requests that `filter` keeps (see JournalFilter; a companyId there must be this company's). */
  find(filter?: JournalFilter): JournalEntry[];
  count(filter?: JournalFilter): number;
  /** find(filter), by its first name. */
  entries(filter?: JournalFilter): JournalEntry[];
  clear(): void;
}

/** The journal of `companyId`, over emu.journal; each call `checked` (the company may be gone). */
export function companyJournal(controls: Controls, companyId: string, checked: Checked): CompanyJournal {
  return {
    find: checked((filter?: JournalFilter) => controls.journal.find(scopedFilter(filter, companyId))),
    count: checked((filter?: JournalFilter) => controls.journal.count(scopedFilter(filter, companyId))),
    entries: checked((filter?: JournalFilter) => controls.journal.find(scopedFilter(filter, companyId))),
    clear: checked(() => controls.journal.clear({ companyId })),
  };
}

/**
 * `filter` kept to `companyId`; one naming another company is refused. Anything that is not an object goes on as
 * it is, for the filter's own check to refuse it.
 */
function scopedFilter(filter: JournalFilter = {}, companyId: string): JournalFilter {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) return filter;
  if (filter.companyId !== undefined && filter.companyId !== companyId) {
    throw new JournalFilterError(
      'companyId',
      `companyId must be this company's id (${companyId}) or left out: a company's journal holds only its requests; ` +
        `got ${shown(filter.companyId)}.`,
    );
  }
  return { ...filter, companyId };
}

/** The journal's filters (JournalFilter) as query parameters: each once, all of them holding. */
const JOURNAL_QUERY = JOURNAL_FILTER_FIELDS.map((f) => ({
  name: f.name,
  description: `Only ${f.means}: ${f.accepts}.`,
}));
/** The same, of one company's journal: its company is the path's. */
export const COMPANY_JOURNAL_QUERY = JOURNAL_QUERY.filter((q) => q.name !== 'companyId');

/** A query whose path glob would take more steps than its budget (docs/journal.md): refused, never run partly. */
export const OVER_BUDGET =
  'consulta_excede_orcamento: matching the path glob would take more steps than a query may (caminho: query.path).';
const BAD_JOURNAL_FILTER =
  'valor_invalido: an unknown parameter, one given twice, or a value its filter does not accept (caminho names it). ' +
  OVER_BUDGET;

/**
 * A query of the journal's controls as the JournalFilter the in-process control takes: the digits of a field read as
 * a number, and `true` or `false` of one read as a boolean, become that; any other text stays text, which the
 * filter refuses with what the field accepts, as it refuses the same in process.
 */
export function journalFilterOf(query: Readonly<Record<string, string | undefined>>): JournalFilter {
  const filter: Record<string, unknown> = {};
  for (const { name, text } of JOURNAL_FILTER_FIELDS) {
    const given = query[name];
    if (given === undefined) continue;
    const number = text === 'number' && /^\d{1,15}$/.test(given);
    const boolean = text === 'boolean' && (given === 'true' || given === 'false');
    filter[name] = number ? Number(given) : boolean ? given === 'true' : given;
  }
  return filter as JournalFilter;
}

export const journalEntry = named('JournalEntry', () =>
  z.strictObject({
    at: z.string(),
    method: z.string(),
    path: z.string(),
    status: z.number().int(),
    codigo: z.string().nullable().meta({ description: "The error answer's code; null for a success." }),
    companyId: z.string().nullable(),
    idempotencyKey: z.string().nullable(),
    replayed: z.boolean(),
    requestId: z.string(),
    faultId: z.string().nullable(),
  }),
);
const journalList = lazy(() => items(journalEntry()));
const journalCount = lazy(() => z.strictObject({ count: z.number().int().min(0) }));

export const ROWS = [
  control({
    method: 'GET',
    path: '/requests',
    id: 'listRequests',
    summary: 'The last 10,000 API requests (never a token), or those the filters keep',
    tag: 'Journal',
    scope: 'emulator',
    query: JOURNAL_QUERY,
    success: { 200: { description: 'Oldest first.', body: journalList } },
    errors: { 404: NO_COMPANY, 422: BAD_JOURNAL_FILTER },
    run: ({ emu, query }) => ({ items: emu.journal.find(journalFilterOf(query)) }),
    sample: (w) => ({
      path: `/requests?companyId=${w.companyId}&method=put&path=/v1/*&status=2xx&replayed=false&limit=5`,
    }),
  }),
  control({
    method: 'GET',
    path: '/requests/count',
    id: 'countRequests',
    summary: 'How many of the last 10,000 API requests the filters keep: "exactly 2 PATCH /v1/produtos/* answered 412"',
    tag: 'Journal',
    scope: 'emulator',
    query: JOURNAL_QUERY,
    success: { 200: { description: 'The count.', body: journalCount } },
    errors: { 404: NO_COMPANY, 422: BAD_JOURNAL_FILTER },
    run: ({ emu, query }) => ({ count: emu.journal.count(journalFilterOf(query)) }),
    sample: () => ({ path: '/requests/count?status=201' }),
  }),
  control({
    method: 'DELETE',
    path: '/requests',
    id: 'clearRequests',
    summary: 'Drop the journal',
    tag: 'Journal',
    scope: 'emulator',
    query: [COMPANY_FILTER],
    success: { 200: { description: 'None left.', body: none } },
    errors: { 404: NO_COMPANY, 422: BAD_FILTER },
    run: ({ emu, query }) => {
      emu.journal.clear(query);
      return { items: [] };
    },
    sample: () => ({ path: '/requests' }),
  }),
  // One company's journal (emu.companies.scope(id).journal): the views above kept to that company.
  control({
    method: 'GET',
    path: '/companies/:companyId/journal',
    id: 'listCompanyRequests',
    summary: "The requests made with one company's credentials, or those the filters keep",
    tag: 'Journal',
    scope: 'company',
    query: COMPANY_JOURNAL_QUERY,
    success: { 200: { description: 'Oldest first.', body: journalList } },
    errors: { 404: NO_COMPANY, 422: BAD_JOURNAL_FILTER },
    run: ({ emu, params, query }) => ({
      items: emu.companies.scope(params.companyId).journal.find(journalFilterOf(query)),
    }),
    sample: (w) => ({ path: `/companies/${w.companyId}/journal?method=PUT` }),
  }),
  control({
    method: 'GET',
    path: '/companies/:companyId/journal/count',
    id: 'countCompanyRequests',
    summary: "How many of one company's requests the filters keep",
    tag: 'Journal',
    scope: 'company',
    query: COMPANY_JOURNAL_QUERY,
    success: { 200: { description: 'The count.', body: journalCount } },
    errors: { 404: NO_COMPANY, 422: BAD_JOURNAL_FILTER },
    run: ({ emu, params, query }) => ({
      count: emu.companies.scope(params.companyId).journal.count(journalFilterOf(query)),
    }),
    sample: (w) => ({ path: `/companies/${w.companyId}/journal/count?from=2026-01-01&to=2026-01-02T00:00:00Z` }),
  }),
  control({
    method: 'DELETE',
    path: '/companies/:companyId/journal',
    id: 'clearCompanyRequests',
    summary: "Drop one company's journal entries",
    tag: 'Journal',
    scope: 'company',
    success: { 200: { description: 'None left.', body: none } },
    errors: { 404: NO_COMPANY },
    run: ({ emu, params }) => {
      emu.companies.scope(params.companyId).journal.clear();
      return { items: [] };
    },
    sample: (w) => ({ path: `/companies/${w.companyId}/journal` }),
  }),
] as const satisfies readonly Control[];
