/**
 * Who may drive the emulator (DESIGN §6: the controls are a developer tool with full power over the state, so
 * only their owner may drive them). Three checks, each answering with the error body:
 *
 * - The Host check (requests over a socket, API and controls): a web page on another site can make a browser
 *   send requests to 127.0.0.1 through DNS rebinding, but the browser then names the attacker's host in `Host`.
 *   Only the bound address, the loopback names and the hosts the owner allowed pass (403 otherwise).
 * - The control token (optional; in process too): every /_emulator request needs `Authorization: Bearer <token>`.
 * - Control writes need `content-type: application/json`: a cross-site page can send a `text/plain` or body-less
 *   POST without a CORS preflight, never a JSON one; and no CORS permission is ever granted (415 otherwise).
 *
 * Control bodies are read with a limit while they arrive (1 MiB; a snapshot its own, larger one).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { apiError, CONTROL_REQUEST_ID, errorResponse, type ApiError } from '../http/errors.js';
import { bearerToken, DEFAULT_BODY_LIMIT, isJson } from '../http/pipeline.js';
import type { ControlSettings } from '../engine/config.js';

/** The body limit of every control but the snapshot restore: far above any control's input. */
export const CONTROL_BODY_LIMIT = DEFAULT_BODY_LIMIT;
const refuse = (error: ApiError) => errorResponse(error, CONTROL_REQUEST_ID);
const WRITES = new Set(['POST', 'PUT', 'PATCH']);
const REALM = 'Bearer realm="catalog-emulator controls"';

/**
 * The first middleware of the control app: the control token (401), then the content type of a write (415).
 * DELETE needs no content type: a browser always preflights it, and the preflight is never granted.
 */
export function controlGuard(): MiddlewareHandler<{ Bindings: { control: ControlSettings } }> {
  return async (c, next) => {
    const expected = c.env.control.token;
    if (expected !== undefined) {
      const sent = bearerToken(c.req.header('authorization') ?? null);
      if (sent === undefined) {
        return refuse(apiError(401, 'token_de_controle_ausente', 'These controls need the control token the emulator was started with: send "Authorization: Bearer <control token>" with every /_emulator request.', 'header.authorization', { 'www-authenticate': REALM }));
      }
      if (!sameSecret(sent, expected)) {
        return refuse(apiError(401, 'token_de_controle_invalido', 'The bearer token is not the control token the emulator was started with (an API credential does not open the controls).', 'header.authorization', { 'www-authenticate': REALM }));
      }
    }
    if (WRITES.has(c.req.method)) {
      const type = c.req.header('content-type') ?? null;
      if (!isJson(type)) {
        return refuse(apiError(415, 'tipo_midia_nao_suportado', `Send "content-type: application/json" with every POST, PUT and PATCH under /_emulator, even one without a body (got ${type === null ? 'no content-type' : JSON.stringify(type)}). Other types are refused so that no web page can drive the controls.`, 'header.content-type'));
      }
    }
    await next();
  };
}

/** Equal strings, in a time that does not depend on where they differ (nor on the expected one's length). */
function sameSecret(sent: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(sent), digest(expected));
}

/** The names every server answers to: a browser names these only for a page served from this machine. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARDS = new Set(['0.0.0.0', '[::]']);

/**
 * The Host check of a server bound to `bound`: a function from the request's Host header to a 403 answer, or
 * undefined when the host is admitted. A wildcard bind (0.0.0.0, ::) admits only the loopback names and
 * `allowHosts`; `*` in allowHosts admits every host. A request without Host passes: only HTTP/1.0 may omit it
 * (Node refuses HTTP/1.1 without one), and no browser does, so it cannot come from a rebinding page.
 * Throws a TypeError naming a bad entry of `allowHosts` (`allowHosts[1]: …`).
 */
export function hostGuard(bound: string, allowHosts: readonly string[] = []): (host: string | undefined) => Response | undefined {
  const allowed = allowHosts.map((name, i) => {
    const normalized = typeof name === 'string' ? hostName(name) : undefined;
    if (normalized === undefined || !(normalized === '*' || /^[a-z0-9._-]+$/.test(normalized) || /^\[[0-9a-f:.]+\]$/.test(normalized))) {
      throw new TypeError(`allowHosts[${i}]: ${JSON.stringify(name)} is not a host name; give a name or address without port or scheme, e.g. "emulator" (or "*" for any host)`);
    }
    return normalized;
  });
  if (allowed.includes('*')) return () => undefined;
  const own = hostName(bound);
  const names = new Set([...LOOPBACK_NAMES, ...(own === undefined || WILDCARDS.has(own) ? [] : [own]), ...allowed]);
  const listed = [...names].join(', ');
  return (header) => {
    if (header === undefined || header === '') return undefined;
    const name = hostName(header, true);
    if (name !== undefined && names.has(name)) return undefined;
    const shown = JSON.stringify(header.length > 200 ? `${header.slice(0, 200)}…` : header);
    return refuse(apiError(403, 'host_nao_permitido', `Host ${shown} is not a name of this emulator (it answers to ${listed}): a web page on another site reaches it under its own host name, through DNS rebinding. To reach the emulator by this name, start it with --allow-host ${name ?? 'NAME'} (listen({ allowHosts }) in process).`, 'header.host'));
  };
}

/**
 * The address a server bound to `bound` is reached at from this machine: a wildcard bind's loopback address
 * (what its Host check admits), else `bound` itself.
 */
export function localAddress(bound: string): string {
  const own = hostName(bound);
  return own === '0.0.0.0' ? '127.0.0.1' : own === '[::]' ? '::1' : bound;
}

/**
 * The host part of a configured name or (`header`) of a Host header, lower case, an IPv6 address in brackets
 * (a Host header must bracket it; a name may omit them); a header's `:port` is dropped. Undefined for what is no
 * host at all.
 */
function hostName(value: string, header = false): string | undefined {
  const text = value.trim().toLowerCase();
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end < 0) return undefined;
    const rest = text.slice(end + 1);
    if (rest !== '' && !(header && /^:\d*$/.test(rest))) return undefined;
    return canonicalIPv6(text.slice(1, end));
  }
  if (!header && isIPv6(text)) return canonicalIPv6(text);
  const name = header ? text.replace(/:\d*$/, '') : text;
  return name === '' || name.includes(':') ? undefined : name;
}

/** An IPv6 address as a Host names it: bracketed, in its shortest form (`[::1]` for `0:0:0:0:0:0:0:1`). */
function canonicalIPv6(address: string): string | undefined {
  if (!isIPv6(address)) return undefined;
  return new URL(`http://[${address}]/`).hostname;
}
