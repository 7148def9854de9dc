/**
 * The inspector's engine object: one per emulator, made on the first use of the inspector (its page or any of its
 * data routes). What it shows comes from the emulator's history (history.ts: every company's activity from the
 * emulator's making on, in a bounded ring, whether or not a page was ever opened) and from what the emulator keeps
 * anyway (the journal's requests, the webhook events and their attempts in the state, the tasks on the clocks).
 *
 * It also feeds the live streams (GET /_emulator/inspector/stream): the new items of a company, its clock's moves and
 * its resets, as the history is told of them; emu.close() ends every open stream at once.
 */
import type { ActivityFeed, ObservedEmulator } from '../../engine/activity.js';
import type { EngineChange } from '../../engine/engine.js';
import type { JournalRecord } from '../../engine/journal.js';
import type { World } from '../../engine/world.js';
import type { CompanyRecords, ItemDetail, StreamFrame, Timeline, TimelineItem } from '../wire.js';
import { itemDetail } from './detail.js';
import { eventStream } from './event-stream.js';
import { History, type HistoryEntry, type HistoryTap, type KeptControl } from './history.js';
import { attemptItem, controlItem, eventItem, findingItem, jobItem, keptAttemptItem, requestItem } from './items.js';
import { aheadOf, companyTimeline, type TimelinePage, type TimelineWork } from './timeline.js';
import { companyRecords } from './records.js';

const KEEP_ALIVE_MS = 15_000;
const CLOCK_POLL_MS = 1_000;

/** A company whose id the inspector was asked about does not exist: the route answers 404. */
export class UnknownCompany extends Error {}
/** No item of the company has this id: 404. */
export class UnknownItem extends Error {}

interface Watcher {
  readonly companyId: string;
  /** Held while the stream is open (see stream()). */
  readonly request: Request;
  lastNow: number;
  /** The tasks ahead as last sent (their JSON): a clock frame goes when they or the instant changed. */
  lastAhead: string;
  /** A clock frame is due at the end of this turn (several items in a row make one). */
  due: boolean;
  /** The list position of the company's newest webhook event the stream told of (events are raised by requests and controls, told at the end of their turn). */
  eventPosition: number | undefined;
  send<F extends StreamFrame>(event: F['event'], data: F['data']): void;
  end(): void;
}

const inspectors = new WeakMap<ActivityFeed, Inspector>();

/** The inspector of the emulator whose activity `feed` tells, made and opened on the first call. */
export function inspectorOf(feed: ActivityFeed): Inspector {
  let inspector = inspectors.get(feed);
  if (inspector === undefined) inspectors.set(feed, (inspector = new Inspector(feed)));
  return inspector;
}

/**
 * Makes the history of the emulator whose activity `feed` tells, kept within `bounds` (EmulatorOptions.inspector),
 * as the feed's recorder: from then on it records. None is made for bounds of 0 (the request path then records
 * nothing), until the inspector is opened: it then makes one that keeps nothing, for its live streams.
 */
export function recordHistory(feed: ActivityFeed, bounds: History['bounds']): void {
  if (bounds.entries > 0 && bounds.bytes > 0) feed.recorder = new History(feed, bounds);
}

export class Inspector implements HistoryTap {
  /** What it reads of the emulator: handed in with the feed, the one way it reaches the emulator. */
  readonly #emulator: ObservedEmulator;
  readonly #history: History;
  readonly #watchers = new Set<Watcher>();
  #closed = false;
  readonly #timings: { readonly keepAliveMs: number; readonly clockPollMs: number };
  /** What its timeline pages did so far, counted (TimelineWork): for tests, which hold a page to its cost. */
  readonly timelineWork: TimelineWork = { visited: 0, worded: 0 };

  /** Made with the activity feed of an emulator: it reads its history (made here if it keeps none) and `feed.emulator`. */
  constructor(feed: ActivityFeed, timings: { keepAliveMs?: number; clockPollMs?: number } = {}) {
    this.#emulator = feed.emulator;
    this.#timings = {
      keepAliveMs: timings.keepAliveMs ?? KEEP_ALIVE_MS,
      clockPollMs: timings.clockPollMs ?? CLOCK_POLL_MS,
    };
    const history = feed.recorder instanceof History ? feed.recorder : new History(feed, { entries: 0, bytes: 0 });
    feed.recorder = history;
    history.tap = this;
    this.#history = history;
    // For good: the streams end with the emulator, and follow its resets.
    this.#emulator.watch((change) => this.#changed(change));
  }

  /** How many live streams are open (tests, and the close). */
  get streams(): number {
    return this.#watchers.size;
  }

  /** One page of a company's timeline, newest first; UnknownCompany for a company of no world. */
  timeline(companyId: string, page: TimelinePage): Timeline {
    const world = this.#worldOf(companyId);
    return companyTimeline(this.#view(world), companyId, page);
  }

  /** The company's records as they are now (records.ts); UnknownCompany. */
  records(companyId: string): CompanyRecords {
    return companyRecords(this.#worldOf(companyId), companyId);
  }

  /**
   * An item of the company's timeline with its sections; UnknownCompany, UnknownItem. A request's answer body is
   * read a moment after the answer left (a copy of its stream): a detail asked for in between waits for it.
   */
  async item(companyId: string, itemId: string): Promise<ItemDetail> {
    const world = this.#worldOf(companyId);
    if (itemId.startsWith('req:')) await this.#history.request(companyId, itemId.slice(4))?.reading;
    const detail = itemDetail(this.#view(world), companyId, itemId);
    if (detail === undefined)
      throw new UnknownItem(
        `Company ${companyId} has no item ${itemId} on its timeline (ids are as the timeline gives them: req:…, evt:…, att:…:n, job:n, ctl:n, task:n).`,
      );
    return detail;
  }

  /**
   * A live stream of the company's timeline as server-sent events: a `clock` frame at once, then `item` frames for
   * what happens, `clock` when its clock moves and `reset` when it (or the emulator) is reset; a comment every 15 s
   * of real time keeps proxies from closing it. It ends when the request's signal aborts, the reader cancels, the
   * emulator closes, or the reader falls STREAM_BUFFER_BYTES behind (event-stream.ts: what it did not take is
   * dropped; the page, which opens it again, reads the timeline again). The request itself is held while the stream is open: a Request's signal follows its
   * caller's only while the Request lives (undici holds it weakly), so a stream holding the signal alone could miss
   * the abort once the Request was collected.
   */
  stream(companyId: string, request: Request): ReadableStream<Uint8Array> {
    const signal = request.signal;
    this.#worldOf(companyId);
    const inspector = this;
    const timers: ReturnType<typeof setInterval>[] = [];
    let self: Watcher;
    return eventStream({
      start(sink) {
        const [newest] = inspector.#emulator.worldOf(companyId).state.webhookEvents.listOf(companyId).before();
        self = {
          companyId,
          request,
          lastNow: Number.NaN,
          lastAhead: '',
          due: false,
          eventPosition: newest?.[1],
          send: (event, data) => sink.send(event, data),
          end: () => sink.end(),
        };
        inspector.#tellClock(self);
        if (inspector.#closed || signal.aborted) return sink.end();
        inspector.#watchers.add(self);
        signal.addEventListener('abort', self.end);
        // Real time, only while this stream is open: the keep-alive comment, and the clock's moves made without
        // any activity (an advance that ran nothing, a clock in real mode).
        const keepAlive = setInterval(() => sink.comment('keep-alive'), inspector.#timings.keepAliveMs);
        const poll = setInterval(() => inspector.#tellClock(self), inspector.#timings.clockPollMs);
        keepAlive.unref?.();
        poll.unref?.();
        timers.push(keepAlive, poll);
      },
      ended() {
        for (const timer of timers) clearInterval(timer);
        inspector.#watchers.delete(self);
        signal.removeEventListener('abort', self.end);
      },
    });
  }

  /** HistoryTap: an entry the history took, as items to the streams of the companies it concerns. */
  taken(entry: HistoryEntry): void {
    if (this.#watchers.size === 0) return;
    switch (entry.kind) {
      case 'request':
        if (entry.companyId !== null && this.#watched(entry.companyId))
          this.#tell(entry.companyId, requestItem(entry.record, entry.error?.codigo ?? entry.record.codigo, true));
        break;
      case 'delivery': {
        if (entry.companyId === null || !this.#watched(entry.companyId)) break;
        const event = this.#emulator.worldOf(entry.companyId).state.webhookEvents.get(entry.eventId);
        const attempt = event?.attempts[entry.attempt - 1];
        if (event && attempt) {
          this.#tell(entry.companyId, attemptItem(event, attempt, entry.attemptsPerCycle));
          this.#tell(entry.companyId, eventItem(event));
        } else this.#tell(entry.companyId, keptAttemptItem(entry));
        break;
      }
      case 'job':
        if (entry.companyId !== null) this.#tell(entry.companyId, jobItem(entry));
        break;
      case 'finding':
        if (entry.companyId !== null) this.#tell(entry.companyId, findingItem(entry));
        break;
      case 'control': {
        const item = controlItem(entry);
        for (const watcher of this.#watchers) if (this.#concerns(entry, watcher.companyId)) watcher.send('item', item);
        // A control may have moved a clock or planned tasks of any company.
        for (const watcher of this.#watchers) this.#clockDue(watcher);
        break;
      }
    }
  }

  /** HistoryTap: the clock of the world `owner` owns (null: the shared one) moved. */
  clockMoved(owner: string | null): void {
    for (const watcher of this.#watchers)
      if (this.#emulator.worldOf(watcher.companyId).owner === owner) this.#clockDue(watcher);
  }

  /** A clock frame for `watcher` at the end of this turn, once however many things asked for one. */
  #clockDue(watcher: Watcher): void {
    if (watcher.due) return;
    watcher.due = true;
    queueMicrotask(() => {
      watcher.due = false;
      if (this.#watchers.has(watcher)) this.#tellClock(watcher);
    });
  }

  /** Whether a stream follows `companyId` (most of the time none does: no item is made). */
  #watched(companyId: string): boolean {
    if (this.#watchers.size === 0) return false;
    for (const watcher of this.#watchers) if (watcher.companyId === companyId) return true;
    return false;
  }

  /** Sends an item to the streams of `companyId` (and then its clock frame: an item may have run or planned a task). */
  #tell(companyId: string, item: TimelineItem): void {
    for (const watcher of this.#watchers) {
      if (watcher.companyId !== companyId) continue;
      watcher.send('item', item);
      this.#clockDue(watcher);
    }
  }

  /**
   * A `clock` frame when the company's clock moved or its tasks ahead changed since the last one (the page then needs
   * no read of its own); the end of the stream when the company is gone.
   */
  #tellClock(watcher: Watcher): void {
    const world = this.#emulator.worldOf(watcher.companyId);
    if (!world.state.companies.has(watcher.companyId)) return watcher.end();
    // The events raised since the last frame (by a request, a control, a job), each once: their attempts follow as items.
    const events = world.state.webhookEvents;
    for (const [eventId, position] of events.listOf(watcher.companyId).after(watcher.eventPosition)) {
      watcher.eventPosition = position;
      const event = events.get(eventId);
      if (event !== undefined) watcher.send('item', eventItem(event));
    }
    const now = world.clock.now();
    const ahead = aheadOf(world, watcher.companyId);
    const aheadText = JSON.stringify(ahead);
    if (now === watcher.lastNow && aheadText === watcher.lastAhead) return;
    watcher.lastNow = now;
    watcher.lastAhead = aheadText;
    watcher.send('clock', { now: new Date(now).toISOString(), ahead });
  }

  #changed(change: EngineChange): void {
    if (change.kind === 'closed') {
      this.#closed = true;
      for (const watcher of [...this.#watchers]) watcher.end();
      return;
    }
    const { companyId } = change;
    for (const watcher of this.#watchers) {
      if (companyId !== null && watcher.companyId !== companyId) continue;
      watcher.send('reset', {});
      watcher.lastNow = Number.NaN;
      watcher.lastAhead = '';
      // After a reset or restore the page reads the timeline again: the stream tells only events newer than now.
      const [newest] = this.#emulator.worldOf(watcher.companyId).state.webhookEvents.listOf(watcher.companyId).before();
      watcher.eventPosition = newest?.[1];
      this.#tellClock(watcher);
    }
  }

  #worldOf(companyId: string): World {
    const world = this.#emulator.worldOf(companyId);
    if (!world.state.companies.has(companyId)) throw new UnknownCompany(`No company ${companyId} in this emulator.`);
    return world;
  }

  /** What the timeline and detail queries read of the emulator and of the history. */
  #view(world: World): InspectorView {
    return {
      world,
      journal: (companyId) => this.#emulator.journal.recordsOf(companyId),
      attemptsPerCycle: this.#emulator.config.core.delivery.maxAttemptsPerCycle,
      history: this.#history,
      concerns: (control, companyId) => this.#concerns(control, companyId),
      work: this.timelineWork,
    };
  }

  /**
   * Whether a control call shows on a company's timeline: it is about that company (its path or query names it, or
   * the fault it added matches only it); or it acts on the shared clock and the company is on it; or it acts on
   * every company (an unscoped fault, a route, a regulatory snapshot, …).
   */
  #concerns(control: KeptControl, companyId: string): boolean {
    if (control.companyId !== null) return control.companyId === companyId;
    if (control.scope === 'shared clock') return this.#emulator.worldOf(companyId).owner !== companyId;
    return true;
  }
}

/** What the timeline and the detail read: the company's world, the journal, and the history. */
export interface InspectorView {
  readonly world: World;
  journal(companyId: string): readonly JournalRecord[];
  readonly attemptsPerCycle: number;
  readonly history: History;
  /** Whether a control call shows on the company's timeline. */
  concerns(control: KeptControl, companyId: string): boolean;
  /** Where a timeline page counts its work. */
  readonly work: TimelineWork;
}
