/**
 * The built-in receiver's inbox (emu.inbox, /_emulator/inbox): the deliveries to URLs no network route covers, as it
 * got them (it answers 200); and one company's (emu.companies.scope(id).inbox, /_emulator/companies/{id}/inbox).
 */
import * as z from 'zod';
import type { InboxEntry } from '../../network/inbox.js';
import type { Controls } from '../api.js';
import { only, type Checked, type CompanyFilter, type ControlContext } from '../context.js';
import { BAD_FILTER, COMPANY_FILTER, control, NO_COMPANY, type Control } from '../row.js';
import { items, lazy, named, none } from '../schemas.js';

/** emu.inbox. */
export function inboxControls(context: ControlContext) {
  const { inbox } = context.engine;
  return {
    /** The deliveries received, oldest first; with `companyId`, only those of that company's events. */
    list: (filter: CompanyFilter = {}): InboxEntry[] => only(inbox.list(), context.ofCompany(filter)),
    /** Drops every delivery; with `companyId`, only those of that company's events. */
    clear: (filter: CompanyFilter = {}): void => inbox.clear(context.ofCompany(filter)),
  };
}

export type InboxControls = ReturnType<typeof inboxControls>;

/** One company's inbox (emu.companies.scope(id).inbox): the deliveries of its events. */
export interface CompanyInbox {
  list(): InboxEntry[];
  clear(): void;
}

/** The inbox of `companyId`, over emu.inbox; each call `checked` (the company may be gone). */
export function companyInbox(controls: Controls, companyId: string, checked: Checked): CompanyInbox {
  const only = { companyId };
  return { list: checked(() => controls.inbox.list(only)), clear: checked(() => controls.inbox.clear(only)) };
}

export const inboxEntry = named('InboxEntry', () =>
  z.strictObject({
    at: z.string(),
    companyId: z.string(),
    url: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.string().meta({ description: 'The exact bytes sent, as text.' }),
    eventId: z.string(),
    tipo: z.string(),
    tentativa: z.number().int(),
    answer: z.strictObject({ status: z.number().int() }),
  }),
);
const inboxList = lazy(() => items(inboxEntry()));

export const ROWS = [
  control({
    method: 'GET',
    path: '/inbox',
    id: 'listInbox',
    summary: 'Deliveries to URLs no route covers, as the built-in receiver got them',
    tag: 'Inbox',
    scope: 'emulator',
    query: [COMPANY_FILTER],
    success: { 200: { description: 'Oldest first.', body: inboxList } },
    errors: { 404: NO_COMPANY, 422: BAD_FILTER },
    run: ({ emu, query }) => ({ items: emu.inbox.list(query) }),
    sample: () => ({ path: '/inbox' }),
  }),
  control({
    method: 'DELETE',
    path: '/inbox',
    id: 'clearInbox',
    summary: 'Drop the deliveries received',
    tag: 'Inbox',
    scope: 'emulator',
    query: [COMPANY_FILTER],
    success: { 200: { description: 'None left.', body: none } },
    errors: { 404: NO_COMPANY, 422: BAD_FILTER },
    run: ({ emu, query }) => {
      emu.inbox.clear(query);
      return { items: [] };
    },
    sample: () => ({ path: '/inbox' }),
  }),
  // One company's inbox (emu.companies.scope(id).inbox): the view above kept to that company.
  control({
    method: 'GET',
    path: '/companies/:companyId/inbox',
    id: 'listCompanyInbox',
    summary: "Deliveries of one company's events",
    tag: 'Inbox',
    scope: 'company',
    success: { 200: { description: 'Oldest first.', body: inboxList } },
    errors: { 404: NO_COMPANY },
    run: ({ emu, params }) => ({ items: emu.companies.scope(params.companyId).inbox.list() }),
    sample: (w) => ({ path: `/companies/${w.companyId}/inbox` }),
  }),
  control({
    method: 'DELETE',
    path: '/companies/:companyId/inbox',
    id: 'clearCompanyInbox',
    summary: "Drop one company's deliveries",
    tag: 'Inbox',
    scope: 'company',
    success: { 200: { description: 'None left.', body: none } },
    errors: { 404: NO_COMPANY },
    run: ({ emu, params }) => {
      emu.companies.scope(params.companyId).inbox.clear();
      return { items: [] };
    },
    sample: (w) => ({ path: `/companies/${w.companyId}/inbox` }),
  }),
] as const satisfies readonly Control[];
