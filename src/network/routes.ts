/**
 * Routes of outbound webhook deliveries (docs/webhooks.md "Where deliveries go"): a public URL prefix mapped to a
 * local URL, so that a destination configured as https://hooks.example.com/... reaches a receiver on loopback. The
 * webhook engine sends through these routes; this module holds and checks the table.
 *
 * A route's `from` is an https origin with an optional path: no credentials, query or fragment. It is kept
 * normalized as the URL parser reads it (host in lower case, port 443 dropped, dot segments resolved, a
 * trailing "/" dropped), so `https://Hooks.Example.com:443/a/` and `https://hooks.example.com/a` are one route.
 *
 * Matching and rewriting work on parsed URLs, never on strings: the webhook URL's host (with its port) must
 * equal the route's exactly, and its path must be the route's path or continue it after a "/". The delivery
 * then goes to the route's `to` with the rest of the path appended to its path and the webhook URL's query
 * as its query, set through a URL object: whatever the webhook URL's path holds (":44661", "@evil", "//host",
 * "..%2f", backslashes), it stays a path on the route's own host and port.
 */
/** An in-process receiver: takes the delivery as a Fetch Request; throwing or never answering simulates a dead peer. */
export type ReceiverHandler = (request: Request) => Response | Promise<Response>;

export interface NetworkRoute {
  /** Normalized: `https://host[:port]` and the path without a trailing "/". */
  readonly from: string;
  /** A local URL, or an in-process handler. */
  readonly to: string | ReceiverHandler;
}

/** A route's `from` as it is matched: the host (port included when not 443) and the path ("" or "/a/b"). */
interface Prefix {
  readonly host: string;
  readonly path: string;
}

interface Entry {
  readonly route: NetworkRoute;
  readonly prefix: Prefix;
}

/** How many resolved delivery URLs the table remembers; past it, it starts over. */
const RESOLVED_CAPACITY = 1024;

export class RouteTable {
  /** By the normalized `from`. */
  private readonly routes = new Map<string, Entry>();
  /**
   * Where each delivery URL went, while the routes stay as they are: every attempt of an event goes to the same
   * URL, and parsing it again for each attempt is work a long advance over failing deliveries would repeat.
   * Any change of the routes forgets it.
   */
  private readonly resolved = new Map<string, string | ReceiverHandler | undefined>();

  /** Throws a TypeError saying how to fix a route that is not one. */
  add(from: string, to: string | ReceiverHandler): NetworkRoute {
    const prefix = parsePrefix(from);
    if (typeof to !== 'function') {
      if (typeof to !== 'string')
        throw new TypeError(`route "to" must be an http:// or https:// URL, or a handler function (got ${String(to)})`);
      const target = parseUrl(to, 'to');
      if (target.protocol !== 'http:' && target.protocol !== 'https:')
        throw new TypeError(`route "to" must be an http:// or https:// URL, or a handler function (got ${to})`);
      // The delivery's own query takes the place of the target's: a target with one would be ambiguous.
      if (to.includes('?') || to.includes('#'))
        throw new TypeError(
          `route "to" must not have a query (?…) or fragment (#…): the webhook URL's query is appended (got ${to})`,
        );
    }
    const route = { from: prefixText(prefix), to };
    this.routes.set(route.from, { route, prefix });
    this.resolved.clear();
    return route;
  }

  /** Removes the route of `from`, written as it was added or in any form that normalizes to it. */
  remove(from: string): boolean {
    let key: string;
    try {
      key = prefixText(parsePrefix(from));
    } catch {
      return false;
    }
    this.resolved.clear();
    return this.routes.delete(key);
  }

  list(): NetworkRoute[] {
    return [...this.routes.values()].map((entry) => entry.route);
  }

  clear(): void {
    this.routes.clear();
    this.resolved.clear();
  }

  /**
   * Where a delivery to `url` goes: the local URL of the most specific route that covers it (the longest
   * matching path on the same host), the handler of that route, or undefined when no route applies (and for
   * anything that is not an https URL).
   */
  resolve(url: string): string | ReceiverHandler | undefined {
    if (this.resolved.has(url)) return this.resolved.get(url);
    const target = this.lookUp(url);
    if (this.resolved.size >= RESOLVED_CAPACITY) this.resolved.clear();
    this.resolved.set(url, target);
    return target;
  }

  private lookUp(url: string): string | ReceiverHandler | undefined {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return undefined;
    }
    if (target.protocol !== 'https:') return undefined;
    let best: Entry | undefined;
    for (const entry of this.routes.values()) {
      if (covers(entry.prefix, target) && (!best || entry.prefix.path.length > best.prefix.path.length)) best = entry;
    }
    if (!best) return undefined;
    const to = best.route.to;
    return typeof to === 'function' ? to : rewrite(to, target.pathname.slice(best.prefix.path.length), target.search);
  }
}

/** Same host and port, and a path equal to the prefix's or continuing it after a "/" (so /hooks never covers /hooksx). */
function covers(prefix: Prefix, url: URL): boolean {
  if (url.host !== prefix.host) return false;
  return url.pathname === prefix.path || url.pathname.startsWith(`${prefix.path}/`);
}

/**
 * `to` with `rest` (empty, or a path beginning with "/") appended to its path and `search` as its query. Set on
 * a URL object, a path cannot change the host or port: the pathname setter takes the whole string as a path.
 */
function rewrite(to: string, rest: string, search: string): string {
  const out = new URL(to);
  if (rest !== '') out.pathname = out.pathname.replace(/\/$/, '') + rest;
  out.search = search;
  return out.href;
}

function parsePrefix(from: string): Prefix {
  if (typeof from !== 'string')
    throw new TypeError(`route "from" must be an https:// URL prefix (got ${String(from)})`);
  const source = parseUrl(from, 'from');
  if (source.protocol !== 'https:')
    throw new TypeError(`route "from" must be an https:// URL prefix, as a webhook destination is (got ${from})`);
  if (source.username !== '' || source.password !== '')
    throw new TypeError(
      `route "from" must not carry credentials (user:password@): a route matches a host and a path (got ${from})`,
    );
  if (from.includes('?') || from.includes('#'))
    throw new TypeError(
      `route "from" must not have a query (?…) or fragment (#…): a route matches a host and a path (got ${from})`,
    );
  return { host: source.host, path: source.pathname.replace(/\/$/, '') };
}

function prefixText(prefix: Prefix): string {
  return `https://${prefix.host}${prefix.path}`;
}

function parseUrl(text: string, which: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new TypeError(`route "${which}" is not an absolute URL: ${text}`);
  }
}
