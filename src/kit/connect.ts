/**
 * The test kit for a shared server: `connect(baseUrl)` creates a company on a clock of its own on a running
 * emulator and hands back its credential and its controls over HTTP, so a test file can use a server shared with
 * other suites as it would an in-process emulator — its time, faults, inbox and journal its own.
 *
 * It speaks only HTTP (the server may be another process, started by `npx catalog-emulator`), with the global
 * fetch or the one given.
 */
import { ControlError } from '../control/control-error.js';
import type { ClockInfo } from '../control/groups/clock.js';
import type { CompanyOptions } from '../engine/config.js';
import type { FaultInput, FaultView } from '../engine/faults.js';
import { readJournalFilter, type JournalEntry, type JournalFilter } from '../engine/journal.js';
import type { NearMisses } from '../engine/near-misses.js';
import type { InboxEntry } from '../network/inbox.js';
import type { CreatedCompanyInfo } from '../engine/world.js';

export interface ConnectOptions {
  /** The server's control token (`--control-token`), when it has one. */
  readonly controlToken?: string;
  /** The company's flags, CNPJ root and permissions; it is always on a clock of its own. */
  readonly company?: Omit<CompanyOptions, 'clock'>;
  /** The fetch to use (default: the global one). */
  readonly fetch?: typeof fetch;
}

/** The time a clock control answers with, over HTTP: ISO strings. */
export interface RemoteClockInfo extends Omit<ClockInfo, 'now'> {
  readonly now: string;
}

export interface ConnectedCompany extends CreatedCompanyInfo {
  readonly baseUrl: string;
  /** fetch against the server, the company's credential sent unless the request names another. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  readonly clock: {
    info(): Promise<RemoteClockInfo>;
    now(): Promise<Date>;
    advance(by: string | number): Promise<{ now: string; ran: number }>;
    advanceTo(to: string | Date): Promise<{ now: string; ran: number }>;
    runUntilIdle(options?: { limit?: number }): Promise<{ now: string; ran: number }>;
  };
  readonly faults: {
    /** Adds a fault that matches only this company. */
    add(fault: FaultInput): Promise<{ id: string }>;
    list(): Promise<FaultView[]>;
    remove(id: string): Promise<void>;
    clear(): Promise<void>;
    /** Why one of its faults has not fired: the closest of its requests (deliveries, job runs) since it was armed. */
    nearMisses(id: string): Promise<NearMisses>;
  };
  readonly inbox: { list(): Promise<InboxEntry[]>; clear(): Promise<void> };
  readonly journal: {
    /** Its requests that `filter` keeps (a JournalFilter without companyId); a filter that is not one throws a JournalFilterError before anything is sent. */
    find(filter?: Omit<JournalFilter, 'companyId'>): Promise<JournalEntry[]>;
    count(filter?: Omit<JournalFilter, 'companyId'>): Promise<number>;
    /** find(filter), by its first name. */
    entries(filter?: Omit<JournalFilter, 'companyId'>): Promise<JournalEntry[]>;
    clear(): Promise<void>;
  };
  /** Back as the company was created: same id, root, tokens and head office; no other record, no task. */
  reset(): Promise<void>;
  /** Removes the company and its credentials from the server. */
  remove(): Promise<void>;
}

/**
 * Creates a company on a clock of its own on the server at `baseUrl`; throws a ControlError (status, codigo,
 * caminho from the error body) when the server refuses a control, and a TypeError when it is not an emulator.
 */
export async function connect(baseUrl: string, options: ConnectOptions = {}): Promise<ConnectedCompany> {
  const base = baseUrl.replace(/\/+$/, '');
  const send = options.fetch ?? fetch;
  const control = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = {};
    if (method !== 'GET' && method !== 'DELETE') headers['content-type'] = 'application/json';
    if (options.controlToken !== undefined) headers.authorization = `Bearer ${options.controlToken}`;
    const response = await send(`${base}/_emulator${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new TypeError(
        `${method} ${base}/_emulator${path} answered ${response.status} with a body that is not JSON: is ${base} a catalog-emulator?`,
      );
    }
    if (response.ok) return parsed as T;
    const error = (parsed as { erro?: { codigo?: string; mensagem?: string; caminho?: string } } | undefined)?.erro;
    throw new ControlError(
      response.status,
      error?.codigo ?? 'erro_desconhecido',
      error?.mensagem ?? `${method} /_emulator${path} answered ${response.status}`,
      error?.caminho,
    );
  };

  const created = await control<CreatedCompanyInfo>('POST', '/companies', { ...options.company, clock: 'own' });
  const company = `/companies/${created.companyId}`;
  const items = async <T>(path: string) => (await control<{ items: T[] }>('GET', path)).items;
  return {
    ...created,
    baseUrl: base,
    fetch: (path, init = {}) => {
      const headers = new Headers(init.headers);
      if (!headers.has('authorization')) headers.set('authorization', `Bearer ${created.token}`);
      return send(`${base}${path}`, { ...init, headers });
    },
    clock: {
      info: () => control('GET', `${company}/clock`),
      now: async () => new Date((await control<RemoteClockInfo>('GET', `${company}/clock`)).now),
      advance: (by) => control('POST', `${company}/clock/advance`, { by }),
      advanceTo: (to) =>
        control('POST', `${company}/clock/advance`, { to: to instanceof Date ? to.toISOString() : to }),
      runUntilIdle: (runOptions = {}) => control('POST', `${company}/clock/run-until-idle`, runOptions),
    },
    faults: {
      add: (fault) => control('POST', `${company}/faults`, fault),
      list: () => items<FaultView>(`${company}/faults`),
      remove: async (id) => void (await control('DELETE', `${company}/faults/${encodeURIComponent(id)}`)),
      clear: async () => void (await control('DELETE', `${company}/faults`)),
      nearMisses: (id) => control('GET', `${company}/faults/${encodeURIComponent(id)}/near-misses`),
    },
    inbox: {
      list: () => items<InboxEntry>(`${company}/inbox`),
      clear: async () => void (await control('DELETE', `${company}/inbox`)),
    },
    journal: {
      find: async (filter) => items<JournalEntry>(`${company}/journal${journalQuery(filter)}`),
      count: async (filter) =>
        (await control<{ count: number }>('GET', `${company}/journal/count${journalQuery(filter)}`)).count,
      entries: async (filter) => items<JournalEntry>(`${company}/journal${journalQuery(filter)}`),
      clear: async () => void (await control('DELETE', `${company}/journal`)),
    },
    reset: async () => void (await control('POST', `${company}/reset`)),
    remove: async () => void (await control('DELETE', company)),
  };
}

/** A journal filter as its query string (`?method=PATCH&status=4xx`), checked as the server checks it first. */
function journalQuery(filter: Omit<JournalFilter, 'companyId'> = {}): string {
  readJournalFilter(filter);
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filter)) {
    if (value !== undefined) query.set(name, value instanceof Date ? value.toISOString() : String(value));
  }
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}
