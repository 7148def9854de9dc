/**
 * How the commands for a running server (clock, fault, events, logs, report) reach it: its controls over HTTP, at
 * --url (or CATALOG_EMULATOR_URL; http://127.0.0.1:4747 by default), with the control token of --control-token (or
 * CATALOG_EMULATOR_CONTROL_TOKEN), each request bounded in time and in the size of its answer, and no redirect
 * followed. Nothing the server sends is believed: each answer is read by the control's own declaration
 * (readControlAnswer: its status, media type and answer schema, or the error body), and what is printed of it goes
 * through the log's escaping (log-format.ts shown). Whatever goes wrong ends the command with one line and its exit
 * code (CommandExit): 2 when no catalog-emulator could be reached there (nothing listens, the connection broke, the
 * time-out passed, a redirect, a body over the cap, an answer that is not the control's, a server without
 * controls), 1 when the server refused (its error's `mensagem`).
 */
import { request as plainRequest, type IncomingMessage } from 'node:http';
import { request as tlsRequest } from 'node:https';
import type { ParseArgsConfig } from 'node:util';
import { controlRequest, readControlAnswer, type ControlId } from '../src/index.js';
import { shown } from './log-format.js';
import { alternatives, closest } from './suggest.js';

/** Where a command writes, and what it reads of its environment. */
export interface Io {
  readonly env: NodeJS.ProcessEnv;
  /** Writes a line to stdout; false when stdout holds more than it takes at once: wait for drained() to write more. */
  out(line: string): boolean;
  /** Resolves once stdout took what it held (or the command was stopped). */
  drained(): Promise<void>;
  err(line: string): void;
  /**
   * Shows a line of progress in place of the last one on stderr, or clears it (null): present only when stderr is a
   * terminal, where a line per step would scroll everything else away. Without it, a command tells each step with err.
   */
  readonly status?: (line: string | null) => void;
  /** Whether stdout gets colour (a terminal, NO_COLOR and FORCE_COLOR: log-format.ts wantsColor). */
  readonly color: boolean;
  /**
   * Aborted when the command must end at once: stdout's reader closed it (EPIPE), or `logs tail` was told to stop
   * (SIGINT, SIGTERM). Once it is aborted, what stdout still holds is not waited for.
   */
  readonly stop: AbortController;
}

/** The flags every command for a running server takes, besides its own. */
export const COMMON_FLAGS = {
  url: { type: 'string' },
  'control-token': { type: 'string' },
  'request-timeout-ms': { type: 'string' },
} as const satisfies Options;

export type Options = NonNullable<ParseArgsConfig['options']>;

/** What `read` (a parseArgs of a command's flags) gives; a usage error for an unknown or malformed flag. */
export function readFlags<T>(read: () => T, known: readonly string[]): T {
  try {
    return read();
  } catch (error) {
    const message = (error as Error).message;
    // An unknown option is said as the other commands say it: with the closest of this command's, if one is close.
    const unknown = /^Unknown option '(-{1,2}[^']+)'/.exec(message)?.[1];
    if (unknown !== undefined) {
      const near = closest(unknown.replace(/^--?/, ''), known);
      throw usageError(
        `unknown option ${unknown}${near.length === 0 ? '' : ` (did you mean ${alternatives(near.map((name) => `--${name}`))}?)`}`,
      );
    }
    throw usageError(message.replace(/\. To specify a positional argument.*$/s, ''));
  }
}

/** The server a command talks to. */
export interface Remote {
  /** Its base URL, without a trailing slash. */
  readonly url: string;
  readonly token: string | undefined;
  /** The time each request may take, up to the last byte of its answer. */
  readonly timeoutMs: number;
}

const DEFAULT_URL = 'http://127.0.0.1:4747';
/** What a line about a server that is not the emulator's tells the user to check. */
export const CHECK_URL = 'check --url or CATALOG_EMULATOR_URL';
const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * The largest body read, as the conformance command's client reads a deployment's: far above any control's answer
 * the CLI asks for (a report holds at most 1,000 findings), and past it the answer is not the emulator's.
 */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** Ends a command: `message` (one line) on stderr, then exit `code`; `usage`: a mistake of the command line. */
export class CommandExit extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly usage = false,
  ) {
    super(message);
  }
}

export const usageError = (message: string): CommandExit => new CommandExit(2, message, true);

/** --url and --control-token, else their variables, else the defaults; a usage error for a URL that is none. */
export function remoteOf(
  flags: { url?: string | undefined; 'control-token'?: string | undefined; 'request-timeout-ms'?: string | undefined },
  env: NodeJS.ProcessEnv,
): Remote {
  const given = flags.url ?? (env.CATALOG_EMULATOR_URL || undefined);
  const from = flags.url !== undefined ? '--url' : 'CATALOG_EMULATOR_URL';
  const raw = given ?? DEFAULT_URL;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (
    url === undefined ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== ''
  ) {
    throw usageError(`${from} must be the server's http or https URL, e.g. ${DEFAULT_URL} (got "${raw}")`);
  }
  const token = flags['control-token'] ?? (env.CATALOG_EMULATOR_CONTROL_TOKEN || undefined);
  if (token !== undefined && !/^[\x21-\x7e]+$/.test(token))
    throw usageError(
      `the control token (${flags['control-token'] === undefined ? 'CATALOG_EMULATOR_CONTROL_TOKEN' : '--control-token'}) must be visible ASCII without spaces`,
    );
  const timeout = flags['request-timeout-ms'];
  if (timeout !== undefined && !(/^\d+$/.test(timeout) && Number(timeout) >= 1 && Number(timeout) <= 3_600_000)) {
    throw usageError(
      `--request-timeout-ms must be a whole number of milliseconds from 1 to 3600000 (got "${timeout}")`,
    );
  }
  return {
    url: url.href.replace(/\/+$/, ''),
    token,
    timeoutMs: timeout === undefined ? DEFAULT_TIMEOUT_MS : Number(timeout),
  };
}

/** An answer of the server: its status and content type, and its body read whole. */
export interface Answer {
  readonly status: number;
  readonly contentType: string | null;
  readonly text: string;
}

/** Why `error` (of the request, or the time-out) kept the server from being reached, in a few words. */
function unreachable(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return 'no answer within the time-out';
  const code = (error as { code?: string } | undefined)?.code ?? '';
  const words: Record<string, string> = {
    ECONNREFUSED: 'connection refused: nothing listens there',
    ECONNRESET: 'the connection was reset',
    EPIPE: 'the connection was reset',
    ENOTFOUND: 'no such host',
    EAI_AGAIN: 'the host name could not be resolved',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'host unreachable',
    ETIMEDOUT: 'the connection timed out',
    ERR_SSL_WRONG_VERSION_NUMBER: 'not a TLS server (use http://)',
  };
  if (code.startsWith('HPE_')) return 'what came back is not HTTP';
  return words[code] ?? shown(error instanceof Error ? error.message : String(error), 300);
}

/** The one line of a server that could not be reached at all. */
const cannotReach = (remote: Remote, why: string): CommandExit =>
  new CommandExit(
    2,
    `cannot reach a catalog-emulator at ${remote.url} (${why}); start one with "catalog-emulator serve", or name it with --url or CATALOG_EMULATOR_URL`,
  );

/** The line of an answer that is no catalog-emulator's: what came back, and why it is not the control's answer. */
function notEmulator(remote: Remote, what: string, answer: Answer, why: string): CommandExit {
  const type = answer.contentType === null ? 'no content-type' : shown(answer.contentType.split(';')[0]!.trim(), 100);
  const excerpt = answer.text === '' ? 'an empty body' : `its body begins "${shown(answer.text.slice(0, 120), 200)}"`;
  const answered = `${remote.url} answered ${answer.status} (${type}) to ${what}`;
  const not = `which is not a catalog-emulator's answer (${shown(why, 300)})`;
  return new CommandExit(2, `${answered}, ${not}: ${excerpt}; ${CHECK_URL}`);
}

/** The headers of a control request to `remote`, with a body of `bytes` when it has one. */
function headersOf(remote: Remote, bytes: number | undefined): Record<string, string> {
  return {
    ...(remote.token === undefined ? {} : { authorization: `Bearer ${remote.token}` }),
    ...(bytes === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(bytes) }),
  };
}

/**
 * Sends `method path` (path: under the server's URL, /_emulator included) to `remote` with `body` (JSON text), and
 * resolves with the answer once its head came, its body not read. Until `signal` aborts: then, or when the
 * connection fails, a CommandExit (2, cannotReach). A redirect is never followed: its CommandExit (2) names its
 * Location.
 */
export function open(
  remote: Remote,
  method: string,
  path: string,
  body: string | undefined,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const url = new URL(`${remote.url}${path}`);
  const what = `${method} ${url.pathname}`;
  return new Promise((resolve, reject) => {
    const headers = headersOf(remote, body === undefined ? undefined : Buffer.byteLength(body));
    const request = (url.protocol === 'https:' ? tlsRequest : plainRequest)(url, { method, headers, signal });
    request.on('error', (error) => reject(cannotReach(remote, unreachable(signal.aborted ? signal.reason : error))));
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location !== undefined) {
        response.destroy();
        const never = "which is not followed (a catalog-emulator's controls never redirect)";
        const redirect = `a redirect to "${shown(location, 500)}", ${never}`;
        reject(new CommandExit(2, `${remote.url} answered ${status} to ${what}, ${redirect}; ${CHECK_URL}`));
        return;
      }
      resolve(response);
    });
    request.end(body);
  });
}

/**
 * The rest of `response` read whole, within `signal` and MAX_ANSWER_BYTES (declared or sent): past them, a
 * CommandExit (2), the connection closed.
 */
export async function readWhole(
  remote: Remote,
  what: string,
  response: IncomingMessage,
  signal: AbortSignal,
): Promise<Answer> {
  const status = response.statusCode ?? 0;
  const contentType = response.headers['content-type'] ?? null;
  const tooLarge = () => {
    response.destroy();
    const type = contentType === null ? 'no content-type' : shown(contentType.split(';')[0]!.trim(), 100);
    const body = `a body over ${MAX_ANSWER_BYTES / 1024 / 1024} MiB, not read further`;
    const answered = `${remote.url} answered ${status} (${type}) to ${what}`;
    return new CommandExit(2, `${answered} with ${body}: not a catalog-emulator's answer; ${CHECK_URL}`);
  };
  if (Number(response.headers['content-length']) > MAX_ANSWER_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > MAX_ANSWER_BYTES) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof CommandExit) throw error;
    response.destroy();
    const why = signal.aborted ? unreachable(signal.reason) : 'the connection closed before the answer ended';
    throw cannotReach(remote, why);
  }
  return { status, contentType, text: Buffer.concat(chunks).toString('utf8') };
}

/** `method path` to `remote` with `body` as JSON; the answer read whole, within --request-timeout-ms. */
export async function send(remote: Remote, method: string, path: string, body?: unknown): Promise<Answer> {
  const signal = AbortSignal.timeout(remote.timeoutMs);
  const response = await open(remote, method, path, body === undefined ? undefined : JSON.stringify(body), signal);
  return readWhole(remote, `${method} ${path.split('?')[0]}`, response, signal);
}

/** A control the servers older than it lack: named so that such a server is told apart from a mistake. */
export interface Feature {
  readonly name: string;
  readonly control: string;
}

/**
 * Calls the control `id` of `remote` (`params`: its path's, `query`: a query string without its "?", `body`: its
 * body): the answer's JSON when it is a success the control gives (undefined for one without a body); else the
 * CommandExit of what came back (judge).
 */
export async function call(
  remote: Remote,
  id: ControlId,
  options: { params?: Record<string, string>; query?: string; body?: unknown; feature?: Feature } = {},
): Promise<unknown> {
  const { method, path } = controlRequest(id, options.params);
  const answer = await send(remote, method, `${path}${options.query ? `?${options.query}` : ''}`, options.body);
  return judge(remote, id, `${method} ${path}`, answer, options.feature);
}

/**
 * `answer` (to `what`, a call of the control `id`) read as the control's: its JSON when it is a success; else the
 * CommandExit its refusal calls for: the server's `mensagem` (1), with what to set for a missing control token; or,
 * for an answer that is not the emulator's (none of the control's, or a 404 of a server without controls), one line
 * saying what answered (2).
 */
export async function judge(
  remote: Remote,
  id: ControlId,
  what: string,
  answer: Answer,
  feature?: Feature,
): Promise<unknown> {
  const reading = readControlAnswer(id, { status: answer.status, contentType: answer.contentType, body: answer.text });
  if (reading.kind === 'success') return reading.value;
  if (reading.kind === 'foreign') throw notEmulator(remote, what, answer, reading.why);
  const { codigo, mensagem, caminho } = reading.error;
  if (answer.status === 404 && codigo === 'rota_nao_encontrada') await noSuchControl(remote, what, feature);
  const hint =
    codigo === 'token_de_controle_ausente' || codigo === 'token_de_controle_invalido'
      ? ' Set CATALOG_EMULATOR_CONTROL_TOKEN, or pass --control-token, to the token the server was started with.'
      : '';
  const at = caminho === undefined ? '' : ` at ${shown(caminho, 300)}`;
  throw new CommandExit(1, `${shown(mensagem)}${hint} (${answer.status} ${shown(codigo, 100)}${at})`);
}

/**
 * A control this server does not have: either it serves no controls at all (--no-controls: GET /_emulator is a 404
 * too), or, for a `feature` that came later than some servers, it is a catalog-emulator older than that control.
 * Returns when neither is the case.
 */
async function noSuchControl(remote: Remote, what: string, feature: Feature | undefined): Promise<void> {
  const { method, path } = controlRequest('getEmulatorInfo');
  const answer = await send(remote, method, path);
  const { status, contentType, text: body } = answer;
  const reading = readControlAnswer('getEmulatorInfo', { status, contentType, body });
  if (reading.kind === 'foreign') throw notEmulator(remote, `${method} ${path}`, answer, reading.why);
  if (reading.kind === 'refusal') {
    if (status === 404) {
      const none = 'serves no controls (a server started with --no-controls, or not a catalog-emulator)';
      throw new CommandExit(2, `${remote.url} ${none}: ${what} is not there`);
    }
    return;
  }
  if (feature === undefined) return;
  const { version } = reading.value as { version: string };
  const older = `catalog-emulator ${shown(version, 100)} at ${remote.url} is older than ${feature.control}`;
  throw new CommandExit(1, `this server has no ${feature.name} (${older}): upgrade the server`);
}
