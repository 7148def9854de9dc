/**
 * One page of a company's timeline: every item of the company, newest first, paged by a cursor. Items are first
 * gathered as light candidates (instant, rank, order, id), sorted, and only the page's are worded, so a company
 * with the whole journal (10,000 requests) still answers in a few milliseconds.
 *
 * Requests come from the history (history.ts), whole, and from the journal for those it no longer holds; events and
 * their attempts from the state, and from the history for attempts whose event the state no longer has; control
 * calls, job runs and findings from the history.
 *
 * Order: by instant, newest first; at the same instant, by what caused what (a control, then a request, a finding on
 * it, the event it raised, the event's attempts, then job runs), and then by the order each source recorded them. The cursor names
 * the last item of a page (its instant and id); the next page starts after that item, or, if it has gone since (the
 * journal dropped it, a reset), after its instant.
 */
import { isoString } from '../../core/time.js';
import type { JournalQuery, JournalRecord } from '../../engine/journal.js';
import type { World } from '../../engine/world.js';
import type { Timeline, TimelineItem } from '../wire.js';
import type { InspectorView } from './inspector.js';
import { bodyText, type KeptBody } from './history.js';

/** Whether a kept body names `id`. */
const keptNames = (body: KeptBody | null, id: string): boolean => body !== null && bodyText(body).text.includes(id);
import {
  attemptItem,
  controlItem,
  eventItem,
  findingItem,
  jobItem,
  keptAttemptItem,
  requestItem,
  taskItem,
} from './items.js';

/** The tasks and deadlines ahead of a company on its clock, soonest first: a timeline's `ahead`, a clock frame's. */
export const aheadOf = (world: World, companyId: string): TimelineItem[] =>
  world.clock.upcoming(companyId, AHEAD_LIMIT).map(taskItem);

/** Items a page holds by default, and at most. */
export const DEFAULT_LIMIT = 200;
export const MAX_LIMIT = 1_000;
/** Tasks `ahead` holds at most. */
const AHEAD_LIMIT = 200;

export interface TimelinePage {
  readonly limit: number;
  /** The cursor of the page before (nextBefore), decoded. */
  readonly before: Cursor | undefined;
  /** The journal's filter (JournalFilter) the page's items pass, read; undefined for none. See TimelineFilter. */
  readonly filter?: TimelineFilter | undefined;
  /**
   * Only the items that touched the record with this id (the records view's link): the requests whose path or kept
   * bodies name it, the control calls whose path does, its events and their attempts, the job runs on it.
   */
  readonly touches?: string | undefined;
}

/**
 * The journal's filter on a timeline: `method`, `path`, `status`, `codigo`, `replayed` and `faultId` judge what is
 * an HTTP call (the API's requests and the control calls, by their method, path, status, error code and fault), so
 * with any of them given nothing else shows; `from` and `to` judge every item by its instant.
 */
interface TimelineFilter {
  readonly query: JournalQuery;
  /** Whether it names a field of a call (anything but from and to). */
  readonly callsOnly: boolean;
}

/** What a filter reads of an item: a journal record's fields (the request facts none of its tests reads). */
type Judged = Pick<
  JournalRecord,
  'companyId' | 'method' | 'path' | 'status' | 'codigo' | 'at' | 'replayed' | 'faultId'
>;
const judge = (filter: TimelineFilter, judged: Judged): boolean => filter.query.keeps(judged as JournalRecord);

/**
 * The work timeline pages did, counted (Inspector.timelineWork) so that a test holds a page to its cost without
 * timing it: the entries looked at (the history's, the company's journal records and events) and the items worded.
 */
export interface TimelineWork {
  visited: number;
  worded: number;
}

export interface Cursor {
  readonly at: number;
  readonly id: string;
}

/** The opaque cursor text of an item: base64url of `<instant>~<id>`. */
export const encodeCursor = (cursor: Cursor): string =>
  Buffer.from(`${cursor.at}~${cursor.id}`, 'utf8').toString('base64url');

/** The cursor a text names, or undefined for one no page gave. */
export function decodeCursor(text: string): Cursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(text)) return undefined;
  const decoded = Buffer.from(text, 'base64url').toString('utf8');
  const match = /^(\d{1,16})~((?:req|evt|att|job|ctl|fnd|task):[\x21-\x7e]{1,200})$/.exec(decoded);
  if (!match) return undefined;
  const at = Number(match[1]);
  return Number.isSafeInteger(at) ? { at, id: match[2]! } : undefined;
}

interface Candidate {
  readonly at: number;
  readonly rank: number;
  readonly order: number;
  readonly id: string;
  readonly make: () => TimelineItem;
}

const RANK = { control: 0, request: 1, finding: 2, event: 3, attempt: 4, job: 5 } as const;

export function companyTimeline(view: InspectorView, companyId: string, page: TimelinePage): Timeline {
  const { world, history, work } = view;
  const { filter, touches } = page;
  const all: Candidate[] = [];
  // Each candidate with what the filter judges of it (a call's own fields, or, for an item that is no call, its
  // instant) and whether it names the record `touches` asks for.
  const candidates = {
    push(candidate: Candidate, call?: Judged, names?: (id: string) => boolean): void {
      if (touches !== undefined && (names === undefined || !names(touches))) return;
      if (filter !== undefined) {
        if (call === undefined && filter.callsOnly) return;
        if (
          !judge(
            filter,
            call ?? {
              companyId,
              method: '',
              path: '',
              status: 0,
              codigo: null,
              at: candidate.at,
              replayed: false,
              faultId: null,
            },
          )
        )
          return;
      }
      all.push(candidate);
    },
  };

  // The history's entries (oldest first: `order` is their place), the requests it holds noted.
  const recorded = new Set<string>();
  const events = world.state.webhookEvents;
  for (const entry of history.entries()) {
    work.visited++;
    const { seq } = entry;
    switch (entry.kind) {
      case 'request':
        if (entry.companyId !== companyId) break;
        recorded.add(entry.record.requestId);
        candidates.push(
          {
            at: entry.atMs,
            rank: RANK.request,
            order: seq,
            id: `req:${entry.record.requestId}`,
            make: () => requestItem(entry.record, entry.error?.codigo ?? entry.record.codigo, true),
          },
          entry.record,
          (id) =>
            entry.record.path.includes(id) || keptNames(entry.requestBody, id) || keptNames(entry.responseBody, id),
        );
        break;
      case 'control':
        if (view.concerns(entry, companyId)) {
          const call = {
            companyId,
            method: entry.method,
            path: entry.path,
            status: entry.status,
            codigo: entry.error?.codigo ?? null,
            at: entry.atMs,
            replayed: false,
            faultId: entry.faultId,
          };
          candidates.push(
            { at: entry.atMs, rank: RANK.control, order: seq, id: `ctl:${seq}`, make: () => controlItem(entry) },
            call,
            (id) => entry.path.includes(id),
          );
        }
        break;
      case 'job':
        if (entry.companyId === companyId)
          candidates.push(
            { at: entry.atMs, rank: RANK.job, order: seq, id: `job:${seq}`, make: () => jobItem(entry) },
            undefined,
            (id) => entry.subjectId === id,
          );
        break;
      case 'finding':
        if (entry.companyId === companyId)
          candidates.push(
            { at: entry.atMs, rank: RANK.finding, order: seq, id: `fnd:${seq}`, make: () => findingItem(entry) },
            undefined,
            (id) => entry.message.includes(id),
          );
        break;
      case 'delivery':
        // Only an attempt whose event is gone from the state: the state tells the others as they are now.
        if (entry.companyId === companyId && events.get(entry.eventId)?.companyId !== companyId) {
          candidates.push(
            {
              at: entry.atMs,
              rank: RANK.attempt,
              order: seq,
              id: `att:${entry.eventId}:${entry.attempt}`,
              make: () => keptAttemptItem(entry),
            },
            undefined,
            (id) => entry.eventId === id,
          );
        }
        break;
    }
  }
  // The journal's requests the history no longer holds (it dropped them at its bounds), before every recorded one.
  const journal = view.journal(companyId);
  for (let i = 0; i < journal.length; i++) {
    work.visited++;
    const record = journal[i]!;
    if (recorded.has(record.requestId)) continue;
    candidates.push(
      {
        at: record.at,
        rank: RANK.request,
        order: i - journal.length,
        id: `req:${record.requestId}`,
        make: () => requestItem(record, record.codigo, false),
      },
      record,
      (id) => record.path.includes(id),
    );
  }
  const listed = world.state.webhookEvents.listOf(companyId).entries();
  for (const [eventId, position] of listed) {
    work.visited++;
    const event = events.get(eventId);
    if (event === undefined) continue;
    const names = (id: string) => event.id === id || event.destinoId === id || event.body.includes(id);
    candidates.push(
      { at: event.criadoEm, rank: RANK.event, order: position, id: `evt:${event.id}`, make: () => eventItem(event) },
      undefined,
      names,
    );
    for (const attempt of event.attempts) {
      candidates.push(
        {
          at: attempt.iniciadaEm,
          rank: RANK.attempt,
          order: position * 1_000 + attempt.tentativa,
          id: `att:${event.id}:${attempt.tentativa}`,
          make: () => attemptItem(event, attempt, view.attemptsPerCycle),
        },
        undefined,
        names,
      );
    }
  }

  all.sort((a, b) => b.at - a.at || b.rank - a.rank || b.order - a.order);

  let start = 0;
  const { before } = page;
  if (before !== undefined) {
    const index = all.findIndex((c) => c.id === before.id);
    if (index >= 0) start = index + 1;
    else {
      start = all.findIndex((c) => c.at < before.at);
      if (start < 0) start = all.length;
    }
  }
  const chosen = all.slice(start, start + page.limit);
  const last = chosen.at(-1);
  const more = start + chosen.length < all.length;
  const word = (candidate: Candidate): TimelineItem => {
    work.worded++;
    return candidate.make();
  };
  return {
    companyId,
    now: isoString(world.clock.now()),
    clock: world.owner === companyId ? 'own' : 'shared',
    items: chosen.map(word),
    nextBefore: more && last !== undefined ? encodeCursor({ at: last.at, id: last.id }) : null,
    ahead: aheadOf(world, companyId),
    history: history.counts(companyId),
  };
}
