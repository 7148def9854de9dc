/**
 * How the commands for a running server (clock, fault, events, logs, report) reach it: its controls over HTTP, at
 * --url (or CATALOG_EMULATOR_URL; http://127.0.0.1:4747 by default), with the control token of --control-token (or
 * CATALOG_EMULATOR_CONTROL_TOKEN), each request bounded in time and in the size of its answer. Whatever goes wrong
 * ends the command with one line and its exit code (CommandExit): 2 when no catalog-emulator could be reached
 * there (nothing listens, the connection broke, the time-out passed, another kind of server answered, a server
 * without controls), 1 when the server refused (its error's `mensagem`).
 */

import type { ParseArgsConfig } from 'node:util';
import { alternatives, closest } from './suggest.js';

/** Where a command writes, and what it reads of its environment. */
export interface Io {
  readonly env: NodeJS.ProcessEnv;
  out(line: string): void;
  err(line: string): void;
  /** Whether stdout gets colour (a terminal, NO_COLOR and FORCE_COLOR: log-format.ts wantsColor). */
  readonly color: boolean;
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
      throw usageError(`unknown option ${unknown}${near.length === 0 ? '' : ` (did you mean ${alternatives(near.map((name) => `--${name}`))}?)`}`);
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
const DEFAULT_TIMEOUT_MS = 30_000;
/** The largest answer read: far above any control's (a report of a busy server included). */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

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
export function remoteOf(flags: { url?: string | undefined; 'control-token'?: string | undefined; 'request-timeout-ms'?: string | undefined }, env: NodeJS.ProcessEnv): Remote {
  const given = flags.url ?? (env.CATALOG_EMULATOR_URL || undefined);
  const from = flags.url !== undefined ? '--url' : 'CATALOG_EMULATOR_URL';
  const raw = given ?? DEFAULT_URL;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw usageError(`${from} must be the server's http or https URL, e.g. ${DEFAULT_URL} (got "${raw}")`);
  }
  const token = flags['control-token'] ?? (env.CATALOG_EMULATOR_CONTROL_TOKEN || undefined);
  if (token !== undefined && !/^[\x21-\x7e]+$/.test(token)) throw usageError(`the control token (${flags['control-token'] === undefined ? 'CATALOG_EMULATOR_CONTROL_TOKEN' : '--control-token'}) must be visible ASCII without spaces`);
  const timeout = flags['request-timeout-ms'];
  if (timeout !== undefined && !(/^\d+$/.test(timeout) && Number(timeout) >= 1 && Number(timeout) <= 3_600_000)) {
    throw usageError(`--request-timeout-ms must be a whole number of milliseconds from 1 to 3600000 (got "${timeout}")`);
  }
  return { url: url.href.replace(/\/+$/, ''), token, timeoutMs: timeout === undefined ? DEFAULT_TIMEOUT_MS : Number(timeout) };
}

/** An answer of the server, read whole. */
export interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  /** The body as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

/** The `erro` of an error answer of the emulator, if this is one. */
function errorOf(answer: Answer): { codigo: string; mensagem: string; caminho?: string } | undefined {
  const erro = (answer.json as { erro?: unknown } | undefined)?.erro as { codigo?: unknown; mensagem?: unknown; caminho?: unknown } | undefined;
  if (typeof erro?.codigo !== 'string' || typeof erro.mensagem !== 'string') return undefined;
  return { codigo: erro.codigo, mensagem: erro.mensagem, ...(typeof erro.caminho === 'string' ? { caminho: erro.caminho } : {}) };
}

/** Why `error` (from fetch, or the time-out) kept the server from being reached, in a few words. */
export function unreachable(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'no answer within the time-out';
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const code = cause?.code ?? (error as { code?: string } | undefined)?.code;
  const words: Record<string, string> = {
    ECONNREFUSED: 'connection refused: nothing listens there',
    ECONNRESET: 'the connection was reset',
    ENOTFOUND: 'no such host',
    EAI_AGAIN: 'the host name could not be resolved',
    EHOSTUNREACH: 'host unreachable',
    ETIMEDOUT: 'the connection timed out',
    UND_ERR_SOCKET: 'the connection closed before the answer',
    UND_ERR_HEADERS_TIMEOUT: 'no answer within the time-out',
    UND_ERR_BODY_TIMEOUT: 'no answer within the time-out',
    ERR_SSL_WRONG_VERSION_NUMBER: 'not a TLS server (use http://)',
  };
  return (code === undefined ? undefined : words[code]) ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/** The one line of a server that could not be reached at all. */
export const cannotReach = (remote: Remote, why: string): CommandExit =>
  new CommandExit(2, `cannot reach a catalog-emulator at ${remote.url} (${why}); start one with "catalog-emulator serve", or name it with --url or CATALOG_EMULATOR_URL`);

/** The headers of a control request to `remote`. */
export function headersOf(remote: Remote, body: boolean): Record<string, string> {
  return { ...(remote.token === undefined ? {} : { authorization: `Bearer ${remote.token}` }), ...(body ? { 'content-type': 'application/json' } : {}) };
}

/**
 * `method` the control at `path` (under /_emulator) of `remote`, with `body` as JSON; the answer read whole,
 * whatever its status. A CommandExit (2) when nothing answered, or the answer went past the time-out or the size
 * bound.
 */
export async function send(remote: Remote, method: string, path: string, body?: unknown): Promise<Answer> {
  const signal = AbortSignal.timeout(remote.timeoutMs);
  let response: Response;
  try {
    response = await fetch(`${remote.url}/_emulator${path}`, { method, headers: headersOf(remote, body !== undefined), signal, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  } catch (error) {
    throw cannotReach(remote, unreachable(error));
  }
  let text: string;
  try {
    text = await readCapped(response);
  } catch (error) {
    if (error instanceof CommandExit) throw error;
    throw cannotReach(remote, unreachable(error));
  }
  const contentType = response.headers.get('content-type') ?? '';
  let json: unknown;
  if (/^application\/json\b/i.test(contentType)) {
    try {
      json = JSON.parse(text) as unknown;
    } catch {
      json = undefined;
    }
  }
  return { status: response.status, contentType, text, json };
}

async function readCapped(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw new CommandExit(1, `the answer exceeds ${MAX_ANSWER_BYTES / 1024 / 1024} MiB: not read further`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The answer's JSON when `answer` is a success (2xx); else the CommandExit its refusal calls for: the server's
 * `mensagem` (1), with what to set for a missing control token; or, for an answer that is not the emulator's (no
 * error body, or a 404 of a server without controls), one line saying what answered (2).
 */
export async function expectSuccess(remote: Remote, what: string, answer: Answer, feature?: { readonly name: string; readonly control: string }): Promise<unknown> {
  if (answer.status >= 200 && answer.status < 300) return answer.json;
  const erro = errorOf(answer);
  if (erro === undefined) {
    throw new CommandExit(2, `${remote.url} answered ${answer.status}${answer.contentType === '' ? '' : ` (${answer.contentType.split(';')[0]})`} to ${what}, which is not a catalog-emulator's answer: check --url or CATALOG_EMULATOR_URL`);
  }
  if (answer.status === 404 && erro.codigo === 'rota_nao_encontrada') await noSuchControl(remote, what, feature);
  const hint = erro.codigo === 'token_de_controle_ausente' || erro.codigo === 'token_de_controle_invalido' ? ' Set CATALOG_EMULATOR_CONTROL_TOKEN, or pass --control-token, to the token the server was started with.' : '';
  throw new CommandExit(1, `${erro.mensagem}${hint} (${answer.status} ${erro.codigo}${erro.caminho === undefined ? '' : ` at ${erro.caminho}`})`);
}

/**
 * A control this server does not have: either it serves no controls at all (--no-controls: GET /_emulator is a 404
 * too), or, for a `feature` that came later than some servers, it is a catalog-emulator older than that control.
 * Returns when neither is the case.
 */
async function noSuchControl(remote: Remote, what: string, feature: { readonly name: string; readonly control: string } | undefined): Promise<void> {
  const info = await send(remote, 'GET', '');
  if (info.status === 404) throw new CommandExit(2, `${remote.url} serves no controls (a server started with --no-controls, or not a catalog-emulator): ${what} is not there`);
  if (feature === undefined) return;
  const version = (info.json as { version?: unknown } | undefined)?.version;
  throw new CommandExit(1, `this server has no ${feature.name} (catalog-emulator ${typeof version === 'string' ? version : 'of an unknown version'} at ${remote.url} is older than ${feature.control}): upgrade the server`);
}
