/**
 * `catalog-emulator logs tail`: follows a running server's activity (GET /_emulator/activity/stream, server-sent
 * events) and prints each entry as `serve`'s own log does (log-format.ts: pretty, or one JSON object a line with
 * --json), until Ctrl+C (exit 0) or the server ends it (exit 1: it closed, or this reader fell behind, or the
 * connection went away). "following …" goes to stderr once the stream is open, so stdout carries the entries only.
 */
import { parseArgs } from 'node:util';
import type { ActivityEntry } from '../src/index.js';
import { formatActivity, LOG_KINDS } from './log-format.js';
import { cannotReach, COMMON_FLAGS, CommandExit, expectSuccess, headersOf, readFlags, remoteOf, unreachable, usageError, type Io, type Remote } from './remote-client.js';

const USAGE = 'logs tail [--json] [--company ID] [--kind KINDS]';
const STREAM = { name: 'activity stream', control: 'GET /_emulator/activity/stream' } as const;
/** The server sends a comment every 15 s: three missed, and it is taken for gone. */
const SILENCE_MS = 45_000;
/** The largest frame read (an entry is a few hundred bytes; a path of the API at most some 16 KB). */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** --kind's values (comma-separated, repeatable; each singular as the stream names it, or plural as --quiet does) as kinds. */
function kindsOf(values: readonly string[]): string[] {
  const singular = Object.values(LOG_KINDS) as string[];
  const kinds = new Set<string>();
  for (const name of values.flatMap((value) => value.split(',')).map((n) => n.trim())) {
    const kind = singular.includes(name) ? name : (LOG_KINDS as Record<string, string>)[name];
    if (kind === undefined) throw usageError(`--kind takes ${singular.join(', ')} (comma-separated or repeated; got "${name}")`);
    kinds.add(kind);
  }
  return [...kinds];
}

export async function runLogsTail(args: string[], io: Io): Promise<number> {
  const options = { ...COMMON_FLAGS, json: { type: 'boolean' }, company: { type: 'string' }, kind: { type: 'string', multiple: true } } as const;
  const { values, positionals } = readFlags(() => parseArgs({ args, options, allowPositionals: true, strict: true }), Object.keys(options));
  const [action, ...rest] = positionals;
  if (action !== 'tail') throw usageError(action === undefined ? `logs needs tail (${USAGE})` : `logs takes tail (got "${action}")`);
  if (rest.length > 0) throw usageError(`unexpected argument "${rest[0]}" (${USAGE})`);
  if (values.company !== undefined && values.company.trim() === '') throw usageError('--company needs a company id');
  const kinds = values.kind === undefined ? [] : kindsOf(values.kind);
  const remote = remoteOf(values, io.env);
  const query = new URLSearchParams();
  if (values.company !== undefined) query.set('companyId', values.company);
  if (kinds.length > 0) query.set('kinds', kinds.join(','));
  const follow = new Follow(remote, `/activity/stream${query.size === 0 ? '' : `?${query}`}`, io, values.json === true);
  const stop = () => follow.interrupt();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await follow.run();
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/** One following of the stream: connected, read frame by frame, ended by a signal, the server, or silence. */
class Follow {
  readonly #aborter = new AbortController();
  #interrupted = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly remote: Remote,
    private readonly path: string,
    private readonly io: Io,
    private readonly json: boolean,
  ) {}

  /** Ctrl+C: the reading stops, and the run ends with 0. */
  interrupt(): void {
    this.#interrupted = true;
    this.#aborter.abort();
  }

  /** Aborts the connection after `ms` unless something arrives before (armed again by each arrival). */
  #arm(ms: number, why: () => void): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      why();
      this.#aborter.abort();
    }, ms);
  }

  async run(): Promise<number> {
    const { remote } = this;
    let silence: CommandExit | undefined;
    this.#arm(remote.timeoutMs, () => (silence = cannotReach(remote, 'no answer within the time-out')));
    try {
      let response: Response;
      try {
        response = await fetch(`${remote.url}/_emulator${this.path}`, { headers: headersOf(remote, false), signal: this.#aborter.signal });
      } catch (error) {
        if (this.#interrupted) return 0;
        throw silence ?? cannotReach(remote, unreachable(error));
      }
      if (response.status !== 200 || !/^text\/event-stream\b/i.test(response.headers.get('content-type') ?? '')) {
        const text = await response.text();
        const contentType = response.headers.get('content-type') ?? '';
        let json: unknown;
        try {
          json = JSON.parse(text) as unknown;
        } catch {
          json = undefined;
        }
        await expectSuccess(remote, 'GET /_emulator/activity/stream', { status: response.status === 200 ? 502 : response.status, contentType, text, json }, STREAM);
      }
      return await this.#read(response.body!, () => silence);
    } catch (error) {
      if (this.#interrupted) return 0;
      throw error;
    } finally {
      clearTimeout(this.#timer);
    }
  }

  async #read(body: ReadableStream<Uint8Array>, timedOut: () => CommandExit | undefined): Promise<number> {
    const { remote, io } = this;
    const gone = (why: string) => new CommandExit(1, `the server at ${remote.url} ${why}: no more activity to follow`);
    let silent: CommandExit | undefined;
    const quiet = () => this.#arm(SILENCE_MS, () => (silent = gone(`sent nothing for ${SILENCE_MS / 1000} s (it sends a keep-alive every 15 s)`)));
    quiet();
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch {
        if (this.#interrupted) return 0;
        throw silent ?? timedOut() ?? gone('went away (the connection broke)');
      }
      if (read.done) throw gone('ended the stream');
      quiet();
      buffer += decoder.decode(read.value, { stream: true });
      if (buffer.length > MAX_FRAME_BYTES) throw new CommandExit(1, `a frame of the stream exceeds ${MAX_FRAME_BYTES / 1024 / 1024} MiB: not read further`);
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block.startsWith(':')) continue;
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event === 'open') {
          io.err(`following the activity of ${remote.url}: Ctrl+C to stop`);
        } else if (event === 'activity' && data !== undefined) {
          io.out(formatActivity(JSON.parse(data) as ActivityEntry, this.json ? 'json' : 'pretty', this.io.color));
        } else if (event === 'end') {
          const reason = (JSON.parse(data ?? '{}') as { reason?: string }).reason;
          if (reason === 'behind') throw new CommandExit(1, `fell more than 1 MiB behind the activity of ${remote.url}, which ended the stream: read faster, or follow less with --company or --kind`);
          throw gone(reason === 'closed' ? 'closed (it was stopped)' : `ended the stream (${reason ?? 'no reason given'})`);
        }
      }
    }
  }
}
