/**
 * `catalog-emulator logs tail`: follows a running server's activity (GET /_emulator/activity/stream, server-sent
 * events) and prints each entry as `serve`'s own log does (log-format.ts: pretty, or one JSON object a line with
 * --json), until Ctrl+C or SIGTERM, or stdout's reader closes it (exit 0), or the server ends it (exit 1: it
 * closed, or this reader fell behind, or the connection went away). "following …" goes to stderr once the stream is
 * open, so stdout carries the entries only.
 *
 * Nothing the server sends is believed. The answer must be the control's (200, text/event-stream: readControlAnswer),
 * its first frame `open`, and every frame a keep-alive comment or one of the control's events with data its schema
 * accepts (readControlFrame), of at most MAX_FRAME_BYTES: anything else ends the command with one line, exit 2.
 * It reads no faster than stdout takes its lines: while stdout is full the connection is paused, and the server
 * drops a reader that falls 1 MiB behind (saying so). So whatever the server sends, the process holds at most one
 * frame and what stdout buffers.
 */
import type { IncomingMessage } from 'node:http';
import { readControlAnswer, readControlFrame, type ActivityEntry } from '../src/index.js';
import { formatActivity, LOG_KINDS, shown } from './log-format.js';
import type { CommandHelp } from './help.js';
import { actionOf, namedActions } from './remote-actions.js';
import { CHECK_URL, CommandExit, judge, open, readWhole, remoteOf, usageError } from './remote-client.js';
import type { Io, Remote } from './remote-client.js';
import { read } from './remote-command.js';

const USAGE = 'logs tail [--json] [--company ID] [--kind KINDS]';

/** Its lines of the Usage block, and its options. */
export const LOGS_HELP: CommandHelp = {
  usage: `  catalog-emulator ${USAGE}
                                       follow a running server's activity, as serve logs it`,
  options: `Options of logs:
  tail                follow the server's activity until Ctrl+C, each entry as serve logs it
  --json              one JSON object per line instead
  --company ID        only that company's entries
  --kind KINDS        only these: request, control, delivery, job, finding (comma-separated or
                      repeated)`,
};

const STREAM = { name: 'activity stream', control: 'GET /_emulator/activity/stream' } as const;
/** The server sends a comment every 15 s: three missed, and it is taken for gone. */
const SILENCE_MS = 45_000;
/**
 * The largest frame read: the server's own bound on what a reader may lag behind (1 MiB), far above any entry (a
 * few hundred bytes; a path of the API at most some 16 KB).
 */
const MAX_FRAME_BYTES = 1024 * 1024;

/** --kind's values (comma-separated, repeatable; each singular as the stream names it, or plural as --quiet does) as kinds. */
function kindsOf(values: readonly string[]): string[] {
  const singular = Object.values(LOG_KINDS) as string[];
  const kinds = new Set<string>();
  for (const name of values.flatMap((value) => value.split(',')).map((n) => n.trim())) {
    const kind = singular.includes(name) ? name : (LOG_KINDS as Record<string, string>)[name];
    if (kind === undefined)
      throw usageError(`--kind takes ${singular.join(', ')} (comma-separated or repeated; got "${name}")`);
    kinds.add(kind);
  }
  return [...kinds];
}

export async function runLogsTail(args: string[], io: Io): Promise<number> {
  const options = {
    json: { type: 'boolean' },
    company: { type: 'string' },
    kind: { type: 'string', multiple: true },
  } as const;
  const { values, positionals } = read(args, options);
  const [word, ...rest] = positionals;
  const action = actionOf('logs', word);
  if (action === undefined) {
    const actions = namedActions('logs').join(', ');
    throw usageError(word === undefined ? `logs needs ${actions} (${USAGE})` : `logs takes ${actions} (got "${word}")`);
  }
  action satisfies 'tail';
  if (rest.length > 0) throw usageError(`unexpected argument "${rest[0]}" (${USAGE})`);
  if (values.company !== undefined && values.company.trim() === '') throw usageError('--company needs a company id');
  const kinds = values.kind === undefined ? [] : kindsOf(values.kind);
  const remote = remoteOf(values, io.env);
  const query = new URLSearchParams();
  if (values.company !== undefined) query.set('companyId', values.company);
  if (kinds.length > 0) query.set('kinds', kinds.join(','));
  // Ctrl+C or SIGTERM end it at once, however full stdout is (remote-run.ts drops what it still holds).
  const stop = () => io.stop.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await new Follow(remote, io, values.json === true).run(query.size === 0 ? '' : `?${query}`);
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/** One following of the stream: connected, read frame by frame, ended by a stop, the server, or silence. */
class Follow {
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });
  #opened = false;

  constructor(
    private readonly remote: Remote,
    private readonly io: Io,
    private readonly json: boolean,
  ) {}

  /** Follows the stream with `query`: 0 when stopped; else the CommandExit of how it ended. */
  async run(query: string): Promise<number> {
    const { remote, io } = this;
    const stopped = io.stop.signal;
    const what = 'GET /_emulator/activity/stream';
    // The connection is aborted by a stop, or by the time-out until the answer (its head, or a refusal's body).
    const aborter = new AbortController();
    const abort = () => aborter.abort(stopped.reason);
    stopped.addEventListener('abort', abort, { once: true });
    const timer = setTimeout(() => aborter.abort(new DOMException('no answer', 'TimeoutError')), remote.timeoutMs);
    try {
      if (stopped.aborted) return 0;
      const response = await open(remote, 'GET', `/_emulator/activity/stream${query}`, undefined, aborter.signal);
      const contentType = response.headers['content-type'] ?? null;
      const head = readControlAnswer('streamActivity', { status: response.statusCode ?? 0, contentType, body: '' });
      if (head.kind !== 'success') {
        // A refusal (1), or what the server sent instead (2), read whole within the bounds, to say what it is.
        await judge(remote, 'streamActivity', what, await readWhole(remote, what, response, aborter.signal), STREAM);
      }
      clearTimeout(timer);
      return await this.#read(response);
    } catch (error) {
      if (stopped.aborted) return 0;
      throw error;
    } finally {
      clearTimeout(timer);
      stopped.removeEventListener('abort', abort);
    }
  }

  /** Reads the frames of `response` until a stop (0) or the end of the stream (its CommandExit). */
  #read(response: IncomingMessage): Promise<number> {
    const { remote, io } = this;
    const stopped = io.stop.signal;
    const gone = (why: string) => new CommandExit(1, `the server at ${remote.url} ${why}: no more activity to follow`);
    return new Promise<number>((resolve, reject) => {
      let settled = false;
      let silence: ReturnType<typeof setTimeout> | undefined;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(silence);
        stopped.removeEventListener('abort', onStop);
        response.destroy();
        outcome();
      };
      const fail = (exit: CommandExit) => finish(() => reject(exit));
      const onStop = () => finish(() => resolve(0));
      // Armed again by each arrival; not while paused, when nothing is read.
      const quiet = () => {
        clearTimeout(silence);
        const why = `sent nothing for ${SILENCE_MS / 1000} s (it sends a keep-alive every 15 s)`;
        silence = setTimeout(() => fail(gone(why)), SILENCE_MS);
      };
      stopped.addEventListener('abort', onStop, { once: true });
      quiet();
      // The bytes of the frame not yet whole (at most MAX_FRAME_BYTES).
      let carry = Buffer.alloc(0);
      response.on('data', (chunk: Buffer) => {
        if (settled) return;
        quiet();
        const data = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
        let start = 0;
        let room = true;
        try {
          // Frames end with a blank line; the search starts where the carried bytes end (one back, for "\n" + "\n").
          const from = Math.max(0, carry.length - 1);
          for (let end = data.indexOf('\n\n', from); end >= 0; end = data.indexOf('\n\n', start)) {
            if (end - start > MAX_FRAME_BYTES) throw this.#tooLarge();
            room = this.#frame(data.subarray(start, end)) && room;
            start = end + 2;
          }
        } catch (error) {
          return fail(error as CommandExit);
        }
        if (data.length - start > MAX_FRAME_BYTES) return fail(this.#tooLarge());
        carry = Buffer.from(data.subarray(start));
        if (room) return;
        // stdout is full: read nothing more until it took what it holds.
        response.pause();
        clearTimeout(silence);
        void io.drained().then(() => {
          if (settled) return;
          quiet();
          response.resume();
        });
      });
      response.on('end', () => fail(gone('ended the stream')));
      response.on('error', () => undefined);
      response.on('close', () => fail(gone('went away (the connection broke)')));
      if (stopped.aborted) onStop();
    });
  }

  #tooLarge(): CommandExit {
    const frame = `a frame of more than ${MAX_FRAME_BYTES / 1024 / 1024} MiB on GET /_emulator/activity/stream`;
    const why = "which is not a catalog-emulator's: not read further";
    return new CommandExit(2, `${this.remote.url} sent ${frame}, ${why}; ${CHECK_URL}`);
  }

  /** One frame (its bytes, no blank line) printed, or the CommandExit it calls for; false when stdout is full. */
  #frame(bytes: Uint8Array): boolean {
    const { remote, io } = this;
    let text: string;
    try {
      text = this.#decoder.decode(bytes);
    } catch {
      throw this.#notEmulator('not UTF-8', '');
    }
    const lines = text.split('\n');
    // A comment: the server's keep-alive.
    if (lines.every((line) => line.startsWith(':'))) return true;
    const [event, data] = lines;
    if (lines.length !== 2 || !event!.startsWith('event: ') || !data!.startsWith('data: ')) {
      throw this.#notEmulator('not an "event:" line and a "data:" line', text);
    }
    const reading = readControlFrame('streamActivity', event!.slice('event: '.length), data!.slice('data: '.length));
    if (reading.kind === 'foreign') throw this.#notEmulator(reading.why, text);
    if ((reading.event === 'open') === this.#opened) {
      throw this.#notEmulator(this.#opened ? 'a second open event' : 'an event before the open one', text);
    }
    switch (reading.event) {
      case 'open':
        this.#opened = true;
        io.err(`following the activity of ${remote.url}: Ctrl+C to stop`);
        return true;
      case 'activity':
        return io.out(formatActivity(reading.value as ActivityEntry, this.json ? 'json' : 'pretty', io.color));
      default: {
        const { reason } = reading.value as { reason: 'closed' | 'behind' };
        if (reason === 'behind') {
          const advice = 'which ended the stream: read faster, or follow less with --company or --kind';
          throw new CommandExit(1, `fell more than 1 MiB behind the activity of ${remote.url}, ${advice}`);
        }
        throw new CommandExit(1, `the server at ${remote.url} closed (it was stopped): no more activity to follow`);
      }
    }
  }

  #notEmulator(why: string, frame: string): CommandExit {
    const excerpt = frame === '' ? '' : `: "${shown(frame.slice(0, 120), 200)}"`;
    const what = "a frame that is not the activity stream's on GET /_emulator/activity/stream";
    return new CommandExit(2, `${this.remote.url} sent ${what} (${shown(why, 300)})${excerpt}; ${CHECK_URL}`);
  }
}
