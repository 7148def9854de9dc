/**
 * The Host check of every request that comes over a socket, API and controls alike (docs/security.md):
 * a web page on another site can make a browser send requests to 127.0.0.1 through DNS rebinding, but the browser then
 * names the attacker's host in `Host`. Only the bound address, the loopback names and the hosts the owner allowed pass
 * (403 otherwise). In process no socket is open, so no web page can reach emu.fetch through DNS.
 */
import { isIPv6 } from 'node:net';
import { apiError, CONTROL_REQUEST_ID, errorResponse } from './errors.js';

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
export function hostGuard(
  bound: string,
  allowHosts: readonly string[] = [],
): (host: string | undefined) => Response | undefined {
  const allowed = allowHosts.map((name, i) => {
    const normalized = typeof name === 'string' ? hostName(name) : undefined;
    if (
      normalized === undefined ||
      !(normalized === '*' || /^[a-z0-9._-]+$/.test(normalized) || /^\[[0-9a-f:.]+\]$/.test(normalized))
    ) {
      throw new TypeError(
        `allowHosts[${i}]: ${JSON.stringify(name)} is not a host name; give a name or address without port or scheme, e.g. "emulator" (or "*" for any host)`,
      );
    }
    return normalized;
  });
  if (allowed.includes('*')) return () => undefined;
  const own = hostName(bound);
  const names = new Set([...LOOPBACK_NAMES, ...(own === undefined || WILDCARDS.has(own) ? [] : [own]), ...allowed]);
  const listed = [...names].join(', ');
  // A client names the emulator the same way on every request: the last Host admitted passes without parsing.
  let admitted: string | undefined;
  return (header) => {
    if (header === undefined || header === '' || header === admitted) return undefined;
    const name = hostName(header, true);
    if (name !== undefined && names.has(name)) {
      admitted = header;
      return undefined;
    }
    const shown = JSON.stringify(header.length > 200 ? `${header.slice(0, 200)}…` : header);
    return errorResponse(
      apiError(
        403,
        'host_nao_permitido',
        `Host ${shown} is not a name of this emulator (it answers to ${listed}): a web page on another site reaches it under its own host name, through DNS rebinding. To reach the emulator by this name, start it with --allow-host ${name ?? 'NAME'} (listen({ allowHosts }) in process).`,
        'header.host',
      ),
      CONTROL_REQUEST_ID,
    );
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
  // Only a text with a colon can be an IPv6 address. Asking isIPv6 of "127.0.0.1" or "localhost" anyway compiles
  // node:net's IPv6 pattern on its first call, a visible part of the CLI's start.
  if (!header && text.includes(':') && isIPv6(text)) return canonicalIPv6(text);
  const name = header ? text.replace(/:\d*$/, '') : text;
  return name === '' || name.includes(':') ? undefined : name;
}

/** An IPv6 address as a Host names it: bracketed, in its shortest form (`[::1]` for `0:0:0:0:0:0:0:1`). */
function canonicalIPv6(address: string): string | undefined {
  if (!isIPv6(address)) return undefined;
  return new URL(`http://[${address}]/`).hostname;
}
