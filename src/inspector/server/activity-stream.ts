/**
 * The whole emulator's activity live, as server-sent events (GET /_emulator/activity/stream): each entry of the
 * activity stream (src/engine/activity.ts) as it is made, the API requests, control calls, delivery attempts and
 * job steps of every company, or of one company and of some kinds. What `catalog-emulator logs tail` follows.
 *
 * Frames: `open` first (the filters, as understood), then `activity` with each entry (the object `--log json`
 * prints), a `: keep-alive` comment every 15 s of real time, and an `end` frame before the server ends the stream
 * itself: `{"reason": "closed"}` when the emulator closes, `{"reason": "behind"}` when its reader fell
 * STREAM_BUFFER_BYTES behind (the entries it had not taken are dropped, event-stream.ts). The call that opened the
 * stream is not in it (its own control entry is told after the stream began).
 */
import type { ActivityEntry, ActivityFeed, ActivityKind } from '../../engine/activity.js';
import { eventStream } from './event-stream.js';

const KEEP_ALIVE_MS = 15_000;

/** Which entries a stream carries: those of `companyId` (every company's when null) of these kinds. */
export interface ActivityFilter {
  readonly companyId: string | null;
  readonly kinds: readonly ActivityKind[];
}

/** The operation id of the control that opens this stream (its row: src/control/groups/activity.ts). */
const OWN_OPERATION = 'streamActivity';

/**
 * The stream of `feed`'s entries that pass `filter`, for as long as `request` is open. The request itself is held
 * while the stream is open (ended() reads it): a Request's signal follows its caller's only while the Request lives.
 */
export function activityStream(
  feed: ActivityFeed,
  filter: ActivityFilter,
  request: Request,
): ReadableStream<Uint8Array> {
  const signal = request.signal;
  const kinds = new Set(filter.kinds);
  const stops: (() => void)[] = [];
  // The call that opens the stream is told once it answered, after the stream began, and only if an entry was wanted
  // when it arrived (activity-log.ts asks first), which is whether one is wanted now, before this stream listens.
  let ownCallAhead = feed.wanted;
  let end: () => void = () => undefined;
  const keep = (entry: ActivityEntry): boolean => {
    if (ownCallAhead && entry.kind === 'control' && entry.operation === OWN_OPERATION) {
      ownCallAhead = false;
      return false;
    }
    return kinds.has(entry.kind) && (filter.companyId === null || entry.companyId === filter.companyId);
  };
  return eventStream({
    behind: { event: 'end', data: { reason: 'behind' } },
    start(sink) {
      sink.send('open', { companyId: filter.companyId, kinds: [...kinds] });
      end = () => sink.end();
      if (signal.aborted) return sink.end();
      stops.push(feed.subscribe((entry) => void (keep(entry) && sink.send('activity', entry))));
      stops.push(
        feed.emulator.watch(
          (change) => void (change.kind === 'closed' && sink.end({ event: 'end', data: { reason: 'closed' } })),
        ),
      );
      signal.addEventListener('abort', end);
      // Real time, only while this stream is open: proxies keep a connection that says something.
      const keepAlive = setInterval(() => sink.comment('keep-alive'), KEEP_ALIVE_MS);
      keepAlive.unref?.();
      stops.push(() => clearInterval(keepAlive));
    },
    ended() {
      for (const stop of stops.splice(0)) stop();
      request.signal.removeEventListener('abort', end);
    },
  });
}
