/**
 * Routes of outbound webhook deliveries (DESIGN §6): a public URL prefix mapped to a local URL, so that a
 * destination configured as https://hooks.example.com/... reaches a receiver on loopback. The webhook
 * engine (issue 3) sends through these routes; this module holds and checks the table.
 */
export interface NetworkRoute {
  readonly from: string;
  readonly to: string;
}

export class RouteTable {
  private readonly routes = new Map<string, NetworkRoute>();

  /** Throws a TypeError saying how to fix a route that is not one. */
  add(from: string, to: string): NetworkRoute {
    const source = parseUrl(from, 'from');
    if (source.protocol !== 'https:') throw new TypeError(`route "from" must be an https:// URL prefix, as a webhook destination is (got ${from})`);
    const target = parseUrl(to, 'to');
    if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new TypeError(`route "to" must be an http:// or https:// URL (got ${to})`);
    const route = { from, to };
    this.routes.set(from, route);
    return route;
  }

  remove(from: string): boolean {
    return this.routes.delete(from);
  }

  list(): NetworkRoute[] {
    return [...this.routes.values()];
  }

  clear(): void {
    this.routes.clear();
  }

  /**
   * The local URL for `url` by its longest matching prefix, or undefined when no route applies. A prefix
   * matches only up to a boundary: https://hooks.example.com routes https://hooks.example.com/x, never
   * https://hooks.example.com.attacker.test/x or https://hooks.example.com:8443/x.
   */
  resolve(url: string): string | undefined {
    let best: NetworkRoute | undefined;
    for (const route of this.routes.values()) {
      if (matchesPrefix(url, route.from) && (!best || route.from.length > best.from.length)) best = route;
    }
    return best && best.to + url.slice(best.from.length);
  }
}

function matchesPrefix(url: string, prefix: string): boolean {
  if (!url.startsWith(prefix)) return false;
  const next = url[prefix.length];
  return next === undefined || prefix.endsWith('/') || next === '/' || next === '?' || next === '#';
}

function parseUrl(text: string, which: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new TypeError(`route "${which}" is not an absolute URL: ${text}`);
  }
}
