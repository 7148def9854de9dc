/**
 * Routes of outbound webhook deliveries (DESIGN §6): a public URL prefix mapped to a local URL, so that a
 * destination configured as https://hooks.example.com/... reaches a receiver on loopback. The webhook
 * engine (issue 3) sends through these routes; this module holds and checks the table.
 */
/** An in-process receiver: takes the delivery as a Fetch Request; throwing or never answering simulates a dead peer. */
export type ReceiverHandler = (request: Request) => Response | Promise<Response>;

export interface NetworkRoute {
  readonly from: string;
  /** A local URL, or an in-process handler. */
  readonly to: string | ReceiverHandler;
}

export class RouteTable {
  private readonly routes = new Map<string, NetworkRoute>();

  /** Throws a TypeError saying how to fix a route that is not one. */
  add(from: string, to: string | ReceiverHandler): NetworkRoute {
    const source = parseUrl(from, 'from');
    if (source.protocol !== 'https:') throw new TypeError(`route "from" must be an https:// URL prefix, as a webhook destination is (got ${from})`);
    if (typeof to !== 'function') {
      const target = parseUrl(to, 'to');
      if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new TypeError(`route "to" must be an http:// or https:// URL, or a handler function (got ${to})`);
    }
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
   * Where `url` goes, by its longest matching prefix: a local URL (the rest of `url` appended), a handler, or
   * undefined when no route applies. A prefix matches only up to a boundary: https://hooks.example.com routes
   * https://hooks.example.com/x, never https://hooks.example.com.attacker.test/x or https://hooks.example.com:8443/x.
   */
  resolve(url: string): string | ReceiverHandler | undefined {
    let best: NetworkRoute | undefined;
    for (const route of this.routes.values()) {
      if (matchesPrefix(url, route.from) && (!best || route.from.length > best.from.length)) best = route;
    }
    if (!best) return undefined;
    return typeof best.to === 'function' ? best.to : best.to + url.slice(best.from.length);
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
