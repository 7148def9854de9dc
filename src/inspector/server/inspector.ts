/**
 * The inspector's engine object: one per emulator, made on the first use of the inspector (its page or any of its
 * data routes) and on for good from then. Before that nothing of it exists and nothing is recorded: the request path
 * the bench measures pays one property read (ActivityFeed.recorder, undefined) and nothing more.
 *
 * Once open it listens to the activity stream and keeps, in rings of the last 1,000 each: the API exchanges whole
 * (headers and bodies, each body capped at 64 KiB), the error code of each request, the job runs and the control
 * calls that changed something. Requests, events and attempts themselves come from what the emulator keeps anyway
 * (the journal, the webhook events of the state), so they show for traffic from before it was opened too, without
 * headers or bodies. A reset of the emulator empties the rings; a company's reset (or removal) drops its entries,
 * as the journal drops its own.
 *
 * It also feeds the live streams (GET /_emulator/inspector/stream): the new items of a company, its clock's moves and
 * its resets; emu.close() ends every open stream at once.
 */
import type { ActivityEntry, ActivityError, ActivityFeed, Exchange, ExchangeRecorder, ObservedEmulator } from '../../engine/activity.js';
import type { EngineChange } from '../../engine/engine.js';
import type { JournalRecord } from '../../engine/journal.js';
import type { World } from '../../engine/world.js';
import type { ItemDetail, StreamFrame, Timeline, TimelineItem } from '../wire.js';
import { itemDetail, type KeptExchange } from './detail.js';
import { attemptItem, controlItem, eventItem, jobItem, requestItem, type KeptControl, type KeptJob } from './items.js';
import { eventStream } from './event-stream.js';
import { companyTimeline, type TimelinePage } from './timeline.js';

/** How many entries each ring keeps. */
export const RING_SIZE = 1_000;
/** A recorded body's cap, in bytes: what is past it is dropped and the body marked truncated. */
export const BODY_CAP = 64 * 1024;


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

/** Drops the oldest entries of a map kept in insertion order beyond `size`. */
function bound<K, V>(map: Map<K, V>, size: number): void {
  while (map.size > size) map.delete(map.keys().next().value as K);
}

export class Inspector implements ExchangeRecorder {
  /** What it reads of the emulator: handed in with the feed, the one way it reaches the emulator. */
  readonly #emulator: ObservedEmulator;
  /** Request id → the exchange as sent and answered (made after the inspector opened). */
  readonly #exchanges = new Map<string, KeptExchange>();
  /** Request id → its error code, from the activity stream (the journal keeps none). */
  readonly #errors = new Map<string, { readonly companyId: string | null; readonly error: ActivityError }>();
  #jobs: KeptJob[] = [];
  #controls: KeptControl[] = [];
  #seq = 0;
  readonly #watchers = new Set<Watcher>();
  #closed = false;
  readonly #timings: { readonly keepAliveMs: number; readonly clockPollMs: number };

  /** Made with the activity feed of an emulator: it listens to it, records its exchanges, reads `feed.emulator`. */
  constructor(feed: ActivityFeed, timings: { keepAliveMs?: number; clockPollMs?: number } = {}) {
    this.#emulator = feed.emulator;
    this.#timings = { keepAliveMs: timings.keepAliveMs ?? KEEP_ALIVE_MS, clockPollMs: timings.clockPollMs ?? CLOCK_POLL_MS };
    // For good: the listener and the recorder stay for the emulator's life (the inspector is on once opened).
    feed.subscribe((entry) => this.#take(entry));
    feed.recorder = this;
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

  /**
   * An item of the company's timeline with its sections; UnknownCompany, UnknownItem. A request's answer body is
   * read a moment after the answer left (a copy of its stream): a detail asked for in between waits for it.
   */
  async item(companyId: string, itemId: string): Promise<ItemDetail> {
    const world = this.#worldOf(companyId);
    if (itemId.startsWith('req:')) await this.#exchanges.get(itemId.slice(4))?.reading;
    const detail = itemDetail(this.#view(world), companyId, itemId);
    if (detail === undefined) throw new UnknownItem(`Company ${companyId} has no item ${itemId} on its timeline (ids are as the timeline gives them: req:…, evt:…, att:…:n, job:n, ctl:n, task:n).`);
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
    const world = this.#worldOf(companyId);
    const inspector = this;
    const timers: ReturnType<typeof setInterval>[] = [];
    let self: Watcher;
    return eventStream({
      start(sink) {
        self = { companyId, request, lastNow: world.clock.now(), send: (event, data) => sink.send(event, data), end: () => sink.end() };
        self.send('clock', { now: new Date(self.lastNow).toISOString() });
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

  /** ExchangeRecorder: an API request answered after the inspector opened. */
  exchange({ request, requestBody, response, responseBody }: Exchange): void {
    const requestId = response.headers.get('x-request-id');
    if (requestId === null) return;
    // The Headers objects themselves (no copy): neither changes once the answer is made.
    const kept: KeptExchange = {
      requestHeaders: request.headers,
      requestBody: requestBody === undefined ? null : capped(requestBody),
      status: response.status,
      responseHeaders: response.headers,
      responseBody: responseBody === undefined ? null : cappedText(responseBody),
      reading: undefined,
    };
    this.#exchanges.set(requestId, kept);
    bound(this.#exchanges, RING_SIZE);
    // An answer the API did not write from text (none today): its body read from a copy of its stream.
    if (responseBody === undefined && response.body !== null) {
      kept.reading = response
        .clone()
        .arrayBuffer()
        .then((buffer) => void (kept.responseBody = capped(new Uint8Array(buffer))))
        .catch(() => undefined)
        .finally(() => (kept.reading = undefined));
    }
  }

  #take(entry: ActivityEntry): void {
    switch (entry.kind) {
      case 'request': {
        if (entry.error !== null) {
          this.#errors.set(entry.requestId, { companyId: entry.companyId, error: entry.error });
          bound(this.#errors, RING_SIZE);
        }
        if (entry.companyId !== null && this.#watched(entry.companyId)) {
          this.#tell(entry.companyId, requestItem({ ...entry, at: Date.parse(entry.at) }, entry.error ?? undefined, true));
        }
        break;
      }
      case 'delivery': {
        const world = this.#emulator.worldOf(entry.companyId);
        const event = world.state.webhookEvents.get(entry.eventId);
        const attempt = event?.attempts[entry.attempt - 1];
        if (event && attempt && this.#watched(entry.companyId)) {
          this.#tell(entry.companyId, attemptItem(event, attempt, entry.attemptsPerCycle));
          this.#tell(entry.companyId, eventItem(event));
        }
        break;
      }
      case 'job': {
        if (entry.companyId === null) break;
        const job: KeptJob = { ...entry, seq: ++this.#seq, atMs: Date.parse(entry.at) };
        this.#jobs.push(job);
        if (this.#jobs.length > RING_SIZE) this.#jobs = this.#jobs.slice(-RING_SIZE);
        this.#tell(entry.companyId, jobItem(job));
        break;
      }
      case 'control': {
        // Only what changed something, and not the inspector's own calls: its page polls nothing but reads.
        if (entry.method === 'GET' || entry.scope === 'inspector') break;
        // A call about a company on a clock of its own happened at that clock's now.
        const world = entry.companyId === null ? undefined : this.#emulator.worldOf(entry.companyId);
        const atMs = world !== undefined && world.owner === entry.companyId ? world.clock.now() : Date.parse(entry.at);
        const control: KeptControl = { ...entry, seq: ++this.#seq, atMs };
        this.#controls.push(control);
        if (this.#controls.length > RING_SIZE) this.#controls = this.#controls.slice(-RING_SIZE);
        const item = controlItem(control);
        for (const watcher of this.#watchers) if (this.#concerns(control, watcher.companyId)) watcher.send('item', item);
        for (const watcher of this.#watchers) this.#tellClock(watcher);
        break;
      }
    }
  }

  /** Whether a stream follows `companyId` (most of the time none does: no item is made). */
  #watched(companyId: string): boolean {
    if (this.#watchers.size === 0) return false;
    for (const watcher of this.#watchers) if (watcher.companyId === companyId) return true;
    return false;
  }

  /** Sends an item to the streams of `companyId`. */
  #tell(companyId: string, item: TimelineItem): void {
    for (const watcher of this.#watchers) if (watcher.companyId === companyId) watcher.send('item', item);
  }

  /** A `clock` frame when the company's clock moved since the last one; the end of the stream when the company is gone. */
  #tellClock(watcher: Watcher): void {
    const world = this.#emulator.worldOf(watcher.companyId);
    if (!world.state.companies.has(watcher.companyId)) return watcher.end();
    const now = world.clock.now();
    if (now === watcher.lastNow) return;
    watcher.lastNow = now;
    watcher.send('clock', { now: new Date(now).toISOString() });
  }

  #changed(change: EngineChange): void {
    if (change.kind === 'closed') {
      this.#closed = true;
      for (const watcher of [...this.#watchers]) watcher.end();
      return;
    }
    const { companyId } = change;
    if (change.kind === 'restored') {
      // Its records replaced: what was recorded stays (as the journal does), the streams read the timeline again.
    } else if (companyId === null) {
      this.#exchanges.clear();
      this.#errors.clear();
      this.#jobs = [];
      this.#controls = [];
    } else {
      for (const [id, kept] of this.#errors) if (kept.companyId === companyId) this.#errors.delete(id);
      // An exchange's company is its journal entry's, gone with it: the exchange cannot be reached any more.
      this.#jobs = this.#jobs.filter((job) => job.companyId !== companyId);
      this.#controls = this.#controls.filter((control) => control.companyId !== companyId);
    }
    for (const watcher of this.#watchers) {
      if (companyId !== null && watcher.companyId !== companyId) continue;
      watcher.send('reset', {});
      watcher.lastNow = Number.NaN;
      this.#tellClock(watcher);
    }
  }

  #worldOf(companyId: string): World {
    const world = this.#emulator.worldOf(companyId);
    if (!world.state.companies.has(companyId)) throw new UnknownCompany(`No company ${companyId} in this emulator.`);
    return world;
  }

  /** What the timeline and detail queries read of the emulator and of the rings. */
  #view(world: World): InspectorView {
    return {
      world,
      journal: (companyId) => this.#emulator.journal.recordsOf(companyId),
      attemptsPerCycle: this.#emulator.config.core.delivery.maxAttemptsPerCycle,
      exchange: (requestId) => this.#exchanges.get(requestId),
      error: (requestId) => this.#errors.get(requestId)?.error,
      jobs: (companyId) => this.#jobs.filter((job) => job.companyId === companyId),
      controls: (companyId) => this.#controls.filter((control) => this.#concerns(control, companyId)),
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

/** What the timeline and the detail read: the company's world, the journal, and the inspector's rings. */
export interface InspectorView {
  readonly world: World;
  journal(companyId: string): readonly JournalRecord[];
  readonly attemptsPerCycle: number;
  exchange(requestId: string): KeptExchange | undefined;
  error(requestId: string): ActivityError | undefined;
  jobs(companyId: string): readonly KeptJob[];
  controls(companyId: string): readonly KeptControl[];
}

const UTF8 = new TextDecoder('utf-8');

/** A body as kept: its text up to BODY_CAP bytes. */
function capped(bytes: Uint8Array): { text: string; bytes: number; truncated: boolean } {
  const truncated = bytes.length > BODY_CAP;
  return { text: UTF8.decode(truncated ? bytes.subarray(0, BODY_CAP) : bytes), bytes: bytes.length, truncated };
}

/** A body the API wrote as text, kept the same way (its bytes counted, not copied, when it is under the cap). */
function cappedText(text: string): { text: string; bytes: number; truncated: boolean } {
  const bytes = Buffer.byteLength(text);
  return bytes <= BODY_CAP ? { text, bytes, truncated: false } : capped(Buffer.from(text));
}

