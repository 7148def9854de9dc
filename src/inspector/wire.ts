// The inspector's wire types: what the data routes under /_emulator/inspector answer and what the
// page reads. Shared by the server (src/inspector/server) and the page (src/inspector/page), which
// imports nothing else from src/, so this file holds types only.

/** One thing that happened (or will happen) on a company's virtual timeline. */
export interface TimelineItem {
  /** Stable id: "req:<requestId>", "evt:<eventId>", "att:<eventId>:<n>", "job:<seq>", "ctl:<seq>", "fnd:<seq>", "task:<n>". */
  id: string;
  kind: 'request' | 'event' | 'attempt' | 'job' | 'task' | 'deadline' | 'control' | 'finding';
  /** Virtual time, ISO 8601. */
  at: string;
  /** One line a user reads: "PATCH /v1/produtos/… → 200". */
  title: string;
  status: number | null;
  tone: 'ok' | 'error' | 'warn' | 'pending' | 'info';
  /** Short labels: "replayed", "fault flt_1", "nao_encontrado", "attempt 3/8", "falhou 503". */
  tags: string[];
  /** Whether GET …/items/:id has more than the item itself. */
  detail: boolean;
}

/** GET /_emulator/inspector/companies/:companyId/timeline */
export interface Timeline {
  companyId: string;
  /** The company's virtual now (its own clock when it has one), ISO 8601. */
  now: string;
  clock: 'shared' | 'own';
  /** Newest first. */
  items: TimelineItem[];
  /** Cursor for the next (older) page, or null at the end. */
  nextBefore: string | null;
  /** Pending tasks and deadlines of this company, soonest first. */
  ahead: TimelineItem[];
  history: HistoryInfo;
}

/**
 * The emulator's history (EmulatorOptions.inspector): one ring for every company, its oldest entries dropped past
 * either bound. A request dropped from it stays on the timeline with its journal line (its headers and bodies gone).
 */
interface HistoryInfo {
  /** Entries and bytes it holds now, for every company. */
  entries: number;
  bytes: number;
  /** Its bounds: 0 entries when the emulator keeps no history. */
  maxEntries: number;
  maxBytes: number;
  /** This company's entries dropped at the bounds so far (with those about every company). */
  dropped: number;
}

export interface DetailSection {
  title: string;
  kind: 'json' | 'headers' | 'text' | 'table';
  value: unknown;
}

/** GET /_emulator/inspector/companies/:companyId/items/:itemId */
export interface ItemDetail {
  item: TimelineItem;
  sections: DetailSection[];
}

/** One frame of GET /_emulator/inspector/stream?companyId=ID (server-sent events). */
/**
 * A company's records now (GET /_emulator/inspector/companies/{id}/records): each kind's first 500, in the API's
 * order, and its total.
 */
export interface CompanyRecords {
  companyId: string;
  establishments: RecordList;
  catalogs: RecordList;
  products: RecordList;
  webhook: RecordRow | null;
  events: RecordList;
}

interface RecordList {
  items: RecordRow[];
  total: number;
}

/** One record: what the page lists, its links to the others, and its fields as the API presents them (masked). */
export interface RecordRow {
  kind: 'establishment' | 'catalog' | 'product' | 'webhook' | 'event';
  id: string;
  title: string;
  state: string | null;
  version: number | null;
  links: { kind: RecordRow['kind'] | 'attempt'; id: string }[];
  value: unknown;
}

/** The side panels of a company (GET /_emulator/inspector/companies/{id}/panels), read in one call. */
export interface Panels {
  faults: unknown[];
  inbox: unknown[];
  routes: { from: string; to: string }[];
  report: unknown;
}

export type StreamFrame =
  | { event: 'item'; data: TimelineItem }
  /** The company's clock, and the tasks ahead of it (as a timeline's `ahead`): sent when either may have changed. */
  | { event: 'clock'; data: { now: string; ahead: TimelineItem[] } }
  | { event: 'reset'; data: Record<string, never> };

/** GET /_emulator/inspector/demo and POST /_emulator/inspector/demo/next */
export interface DemoState {
  name: string;
  summary: string;
  steps: { n: number; title: string; lines: string[] }[];
  waiting: boolean;
  done: boolean;
}
