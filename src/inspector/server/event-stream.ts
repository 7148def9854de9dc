/**
 * A server-sent events body for a reader that may not keep up: the live streams of the inspector (a company's
 * timeline) and of the whole emulator's activity. A reader that stops reading (a frozen tab, a client that never
 * reads, a terminal paused) would otherwise have every frame kept for it: the frames it has not taken are counted,
 * and past STREAM_BUFFER_BYTES they are dropped and its stream ends, after one last frame saying so when the stream
 * has one.
 */

/**
 * What a live stream may hold that its reader has not taken yet, in bytes (some 2,000 ordinary frames). Past it the
 * frames it has not taken are dropped and its stream ends.
 */
export const STREAM_BUFFER_BYTES = 1024 * 1024;

/** One server-sent event: `event: <event>` and `data: <data as JSON>`. */
interface Frame {
  readonly event: string;
  readonly data: unknown;
}

/** What the producer of a stream writes to it. */
interface EventSink {
  send(event: string, data: unknown): void;
  /** A comment line (`: text`), which readers ignore: a keep-alive. */
  comment(text: string): void;
  /** Ends the stream once the frames held (and `last`, never dropped) are taken; once only, however it ends. */
  end(last?: Frame): void;
}

export interface EventStreamOptions {
  /** Called within the stream's making: write the first frames, start listening (or end at once). */
  start(sink: EventSink): void;
  /** Called once when the stream ends, however it ends (end(), the reader's cancel, falling behind): stop listening. */
  ended(): void;
  /** The last frame of a reader fallen behind; without one its stream just ends. */
  readonly behind?: Frame;
}

const frameText = ({ event, data }: Frame) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export function eventStream(options: EventStreamOptions): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array>;
  // The frames the reader has not taken, held here rather than in the stream's own queue: that queue is emptied
  // only by failing the stream, which the server logs as an error. `asked`: the reader waits for a frame.
  const held: Uint8Array[] = [];
  let heldBytes = 0;
  let asked = false;
  let ended = false;
  const close = () => {
    try {
      controller.close();
    } catch {
      // Already closed or cancelled by the reader.
    }
  };
  /** Hands `bytes` to the reader (at once if it waits); false when that would put it past the bound. */
  const put = (bytes: Uint8Array, bounded: boolean): boolean => {
    if (asked) {
      asked = false;
      controller.enqueue(bytes);
      return true;
    }
    if (bounded && heldBytes + bytes.byteLength > STREAM_BUFFER_BYTES) return false;
    held.push(bytes);
    heldBytes += bytes.byteLength;
    return true;
  };
  const write = (text: string) => {
    if (ended || put(encoder.encode(text), true)) return;
    // Fallen behind: what it has not taken is dropped, and its stream ends.
    held.length = 0;
    heldBytes = 0;
    end(options.behind);
  };
  // The frames held still go out before the end.
  const end = (last?: Frame) => {
    if (ended) return;
    if (last !== undefined) put(encoder.encode(frameText(last)), false);
    ended = true;
    options.ended();
    if (held.length === 0) close();
  };
  const sink: EventSink = {
    send: (event, data) => write(frameText({ event, data })),
    comment: (text) => write(`: ${text}\n\n`),
    end,
  };
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        options.start(sink);
      },
      pull(c) {
        const next = held.shift();
        if (next === undefined) {
          if (ended) close();
          else asked = true;
          return;
        }
        heldBytes -= next.byteLength;
        c.enqueue(next);
        if (ended && held.length === 0) close();
      },
      cancel() {
        held.length = 0;
        end();
      },
    },
    // Nothing queued ahead of the reader's asking: every frame waits in `held`, counted against the bound.
    { highWaterMark: 0 },
  );
}
