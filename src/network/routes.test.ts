import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RouteTable } from './routes.js';

describe('RouteTable.add', () => {
  it('refuses a non-https "from" with a TypeError that says it must be https', () => {
    const table = new RouteTable();
    expect(() => table.add('http://hooks.example.com', 'http://127.0.0.1:9000')).toThrow(TypeError);
    expect(() => table.add('http://hooks.example.com', 'http://127.0.0.1:9000')).toThrow(
      /"from" must be an https:\/\/ URL prefix.*got http:\/\/hooks\.example\.com/,
    );
    expect(() => table.add('ftp://hooks.example.com', 'http://127.0.0.1:9000')).toThrow(/https:\/\//);
    expect(table.list()).toEqual([]);
  });

  it('refuses a "from" that is not an absolute URL', () => {
    const table = new RouteTable();
    expect(() => table.add('hooks.example.com', 'http://127.0.0.1:9000')).toThrow(TypeError);
    expect(() => table.add('hooks.example.com', 'http://127.0.0.1:9000')).toThrow(
      /"from" is not an absolute URL: hooks\.example\.com/,
    );
  });

  it('refuses a "to" that is not http(s) or not a URL, with a TypeError that says so', () => {
    const table = new RouteTable();
    expect(() => table.add('https://hooks.example.com', 'ws://127.0.0.1:9000')).toThrow(TypeError);
    expect(() => table.add('https://hooks.example.com', 'ws://127.0.0.1:9000')).toThrow(
      /"to" must be an http:\/\/ or https:\/\/ URL, or a handler function \(got ws:\/\/127\.0\.0\.1:9000\)/,
    );
    expect(() => table.add('https://hooks.example.com', 'file:///tmp/x')).toThrow(TypeError);
    expect(() => table.add('https://hooks.example.com', '127.0.0.1:9000/x')).toThrow(TypeError);
    expect(() => table.add('https://hooks.example.com', 'nonsense')).toThrow(/"to" is not an absolute URL: nonsense/);
    expect(table.list()).toEqual([]);
  });

  it('accepts https→http and https→https, returns the route and lists it', () => {
    const table = new RouteTable();
    expect(table.add('https://hooks.example.com', 'http://127.0.0.1:9000')).toEqual({
      from: 'https://hooks.example.com',
      to: 'http://127.0.0.1:9000',
    });
    table.add('https://other.example.com/x', 'https://localhost:8443/y');
    expect(table.list()).toEqual([
      { from: 'https://hooks.example.com', to: 'http://127.0.0.1:9000' },
      { from: 'https://other.example.com/x', to: 'https://localhost:8443/y' },
    ]);
  });

  it('refuses a "from" with credentials, a query or a fragment, saying a route matches a host and a path', () => {
    const table = new RouteTable();
    expect(() => table.add('https://user:pw@hooks.example.com', 'http://127.0.0.1:9000')).toThrow(TypeError);
    expect(() => table.add('https://user:pw@hooks.example.com', 'http://127.0.0.1:9000')).toThrow(
      'route "from" must not carry credentials (user:password@): a route matches a host and a path (got https://user:pw@hooks.example.com)',
    );
    expect(() => table.add('https://user@hooks.example.com/x', 'http://127.0.0.1:9000')).toThrow(
      /must not carry credentials/,
    );
    expect(() => table.add('https://hooks.example.com/x?tenant=1', 'http://127.0.0.1:9000')).toThrow(
      'route "from" must not have a query (?…) or fragment (#…): a route matches a host and a path (got https://hooks.example.com/x?tenant=1)',
    );
    expect(() => table.add('https://hooks.example.com/x?', 'http://127.0.0.1:9000')).toThrow(/must not have a query/);
    expect(() => table.add('https://hooks.example.com/x#frag', 'http://127.0.0.1:9000')).toThrow(
      /must not have a query \(\?…\) or fragment/,
    );
    expect(table.list()).toEqual([]);
  });

  it('refuses a "to" with a query or fragment, and a "to" that is neither a string nor a function', () => {
    const table = new RouteTable();
    expect(() => table.add('https://hooks.example.com', 'http://127.0.0.1:9000/x?a=1')).toThrow(
      'route "to" must not have a query (?…) or fragment (#…): the webhook URL\'s query is appended (got http://127.0.0.1:9000/x?a=1)',
    );
    expect(() => table.add('https://hooks.example.com', 'http://127.0.0.1:9000/#x')).toThrow(TypeError);
    expect(() => table.add('https://hooks.example.com', 42 as unknown as string)).toThrow(
      'route "to" must be an http:// or https:// URL, or a handler function (got 42)',
    );
    expect(() => table.add(undefined as unknown as string, 'http://127.0.0.1:9000')).toThrow(
      'route "from" must be an https:// URL prefix (got undefined)',
    );
    expect(table.list()).toEqual([]);
  });

  it('keeps "from" normalized: host in lower case, port 443 and a trailing slash dropped, dot segments resolved', () => {
    const table = new RouteTable();
    expect(table.add('https://Hooks.Example.COM:443/', 'http://127.0.0.1:1')).toEqual({
      from: 'https://hooks.example.com',
      to: 'http://127.0.0.1:1',
    });
    expect(table.add('https://hooks.example.com/a/./b/../c/', 'http://127.0.0.1:2')).toEqual({
      from: 'https://hooks.example.com/a/c',
      to: 'http://127.0.0.1:2',
    });
    expect(table.add('https://hooks.example.com:8443/x', 'http://127.0.0.1:3')).toEqual({
      from: 'https://hooks.example.com:8443/x',
      to: 'http://127.0.0.1:3',
    });
    expect(table.add('https://[2001:DB8:0::1]/', 'http://127.0.0.1:4')).toEqual({
      from: 'https://[2001:db8::1]',
      to: 'http://127.0.0.1:4',
    });
    // The same route written another way replaces it, and removes it.
    table.add('https://HOOKS.example.com/a/c/', 'http://127.0.0.1:5');
    expect(table.list().map((r) => r.from)).toEqual([
      'https://hooks.example.com',
      'https://hooks.example.com/a/c',
      'https://hooks.example.com:8443/x',
      'https://[2001:db8::1]',
    ]);
    expect(table.resolve('https://hooks.example.com/a/c/z')).toBe('http://127.0.0.1:5/z');
    expect(table.remove('https://hooks.example.com:443/')).toBe(true);
    expect(table.remove('not a url')).toBe(false);
    expect(table.list().map((r) => r.from)).toEqual([
      'https://hooks.example.com/a/c',
      'https://hooks.example.com:8443/x',
      'https://[2001:db8::1]',
    ]);
  });

  it('adding the same "from" again replaces its target', () => {
    const table = new RouteTable();
    table.add('https://hooks.example.com', 'http://127.0.0.1:1');
    table.add('https://hooks.example.com', 'http://127.0.0.1:2');
    expect(table.list()).toEqual([{ from: 'https://hooks.example.com', to: 'http://127.0.0.1:2' }]);
    expect(table.resolve('https://hooks.example.com/a')).toBe('http://127.0.0.1:2/a');
  });
});

describe('RouteTable.resolve', () => {
  it('appends the rest of the URL (path and query) to the route target', () => {
    const table = new RouteTable();
    table.add('https://hooks.example.com', 'http://127.0.0.1:9000');
    expect(table.resolve('https://hooks.example.com/webhooks/catalog?x=1&y=2')).toBe(
      'http://127.0.0.1:9000/webhooks/catalog?x=1&y=2',
    );
    expect(table.resolve('https://hooks.example.com')).toBe('http://127.0.0.1:9000/');
    expect(table.resolve('https://hooks.example.com/x#fragment')).toBe('http://127.0.0.1:9000/x');
  });

  it('a path prefix covers itself and what continues it after a "/", never a longer segment', () => {
    const table = new RouteTable();
    table.add('https://a.example/hooks', 'http://127.0.0.1:9000/base');
    expect(table.resolve('https://a.example/hooks')).toBe('http://127.0.0.1:9000/base');
    expect(table.resolve('https://a.example/hooks/')).toBe('http://127.0.0.1:9000/base/');
    expect(table.resolve('https://a.example/hooks/x/y?z=1')).toBe('http://127.0.0.1:9000/base/x/y?z=1');
    expect(table.resolve('https://a.example/hooksx')).toBeUndefined();
    expect(table.resolve('https://a.example/hooks.x')).toBeUndefined();
    expect(table.resolve('https://a.example/Hooks/x')).toBeUndefined();
    expect(table.resolve('https://a.example/')).toBeUndefined();
    // A target with a trailing slash does not double it.
    table.add('https://a.example/slash', 'http://127.0.0.1:9000/base/');
    expect(table.resolve('https://a.example/slash/x')).toBe('http://127.0.0.1:9000/base/x');
    expect(table.resolve('https://a.example/slash')).toBe('http://127.0.0.1:9000/base/');
  });

  it('matches the host exactly, with its port: never a host that merely begins or ends the same, nor another port', () => {
    const table = new RouteTable();
    table.add('https://a.example', 'http://127.0.0.1:1');
    table.add('https://a.example:8443', 'http://127.0.0.1:2');
    for (const other of [
      'https://a.example.evil/x',
      'https://a.examplex/x',
      'https://evil-a.example/x',
      'https://b.a.example/x',
      'https://a.example:444/x',
    ]) {
      expect(table.resolve(other), other).toBeUndefined();
    }
    expect(table.resolve('https://A.EXAMPLE:443/x')).toBe('http://127.0.0.1:1/x');
    expect(table.resolve('https://a.example:8443/x')).toBe('http://127.0.0.1:2/x');
    // Only https webhook URLs are routed; anything unparsable is not.
    expect(table.resolve('http://a.example/x')).toBeUndefined();
    expect(table.resolve('not a url')).toBeUndefined();
  });

  it('matches IPv6 hosts in their normalized form, with their port', () => {
    const table = new RouteTable();
    table.add('https://[2001:db8::1]:8443/x', 'http://[::1]:9000');
    expect(table.resolve('https://[2001:DB8:0:0::1]:8443/x/y')).toBe('http://[::1]:9000/y');
    expect(table.resolve('https://[2001:db8::1]/x/y')).toBeUndefined();
    expect(table.resolve('https://[2001:db8::2]:8443/x/y')).toBeUndefined();
  });

  it('a webhook path can never move the delivery to another host or port (the route target is http://127.0.0.1)', () => {
    const table = new RouteTable();
    table.add('https://hooks.tenant.example/', 'http://127.0.0.1');
    const cases: [string, string][] = [
      // The reported case: string concatenation made this http://127.0.0.1:44661/hook.
      ['https://hooks.tenant.example/:44661/hook', 'http://127.0.0.1/:44661/hook'],
      ['https://hooks.tenant.example/@evil/', 'http://127.0.0.1/@evil/'],
      ['https://hooks.tenant.example//evil.example/', 'http://127.0.0.1//evil.example/'],
      ['https://hooks.tenant.example/..%2f..%2fx', 'http://127.0.0.1/..%2f..%2fx'],
      ['https://hooks.tenant.example/%2e%2e/%2E./x?q=1', 'http://127.0.0.1/x?q=1'],
      // Backslashes are path separators in an https URL: the host ends before the first one.
      ['https://hooks.tenant.example\\evil.example\\x', 'http://127.0.0.1/evil.example/x'],
      ['https://hooks.tenant.example/a\\..\\..\\b', 'http://127.0.0.1/b'],
      // Credentials in the webhook URL are not carried to the target; the default port is the route's host.
      ['https://user:pw@hooks.tenant.example/x', 'http://127.0.0.1/x'],
      ['https://hooks.tenant.example:443/x', 'http://127.0.0.1/x'],
      ['https://hooks.tenant.example/%0d%0aHost:%20evil', 'http://127.0.0.1/%0d%0aHost:%20evil'],
      ['https://hooks.tenant.example/a b?c d', 'http://127.0.0.1/a%20b?c%20d'],
    ];
    for (const [url, expected] of cases) expect(table.resolve(url), url).toBe(expected);
    expect(table.resolve('https://hooks.tenant.example:44661/hook')).toBeUndefined();
  });

  it('percent-encoded dot segments are resolved before matching: they cannot climb out of a path route into another', () => {
    const table = new RouteTable();
    table.add('https://hooks.example.com/tenant-a', 'http://127.0.0.1:1');
    table.add('https://hooks.example.com/tenant-b', 'http://127.0.0.1:2/b');
    expect(table.resolve('https://hooks.example.com/tenant-a/%2e%2e/tenant-b/x')).toBe('http://127.0.0.1:2/b/x');
    expect(table.resolve('https://hooks.example.com/tenant-a/..%2ftenant-b/x')).toBe(
      'http://127.0.0.1:1/..%2ftenant-b/x',
    );
    expect(table.resolve('https://hooks.example.com/tenant-a/x/%2e%2e/%2e%2e/admin')).toBeUndefined();
  });

  it("the delivered URL always has the target's origin and begins with its path, whatever the webhook URL's path and query", () => {
    const table = new RouteTable();
    table.add('https://hooks.example.com/in', 'http://127.0.0.1:9000/local');
    const piece = fc.oneof(
      fc.string(),
      fc.constantFrom(':', '@', '/', '//', '\\', '..', '%2e', '%2f', '?', '#', ':1', '[::1]', 'evil.example'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const url = `https://hooks.example.com/in/${pieces.join('')}`;
        const resolved = table.resolve(url);
        // Dot segments may climb out of /in: then no route applies, the inbox gets it, and nothing is local.
        if (resolved === undefined) {
          const path = new URL(url).pathname;
          return path !== '/in' && !path.startsWith('/in/');
        }
        const out = new URL(resolved as string);
        return (
          out.origin === 'http://127.0.0.1:9000' &&
          out.pathname.startsWith('/local') &&
          out.username === '' &&
          out.hash === ''
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('uses the longest matching prefix, whatever the order routes were added in', () => {
    const table = new RouteTable();
    table.add('https://hooks.example.com/a/b', 'http://127.0.0.1:3/deep');
    table.add('https://hooks.example.com', 'http://127.0.0.1:1');
    table.add('https://hooks.example.com/a', 'http://127.0.0.1:2/mid');
    expect(table.resolve('https://hooks.example.com/a/b/c')).toBe('http://127.0.0.1:3/deep/c');
    expect(table.resolve('https://hooks.example.com/a/x')).toBe('http://127.0.0.1:2/mid/x');
    expect(table.resolve('https://hooks.example.com/z')).toBe('http://127.0.0.1:1/z');
  });

  it('answers undefined when no route applies', () => {
    const table = new RouteTable();
    expect(table.resolve('https://hooks.example.com/x')).toBeUndefined();
    table.add('https://hooks.example.com/only', 'http://127.0.0.1:1');
    expect(table.resolve('https://hooks.example.com/x')).toBeUndefined();
    expect(table.resolve('https://elsewhere.example.com/only')).toBeUndefined();
  });

  it('remove and clear take routes away', () => {
    const table = new RouteTable();
    table.add('https://a.example.com', 'http://127.0.0.1:1');
    table.add('https://b.example.com', 'http://127.0.0.1:2');
    expect(table.remove('https://a.example.com')).toBe(true);
    expect(table.remove('https://a.example.com')).toBe(false);
    expect(table.resolve('https://a.example.com/x')).toBeUndefined();
    expect(table.resolve('https://b.example.com/x')).toBe('http://127.0.0.1:2/x');
    table.clear();
    expect(table.list()).toEqual([]);
    expect(table.resolve('https://b.example.com/x')).toBeUndefined();
  });

  it('a URL resolved before a route changes resolves by the routes as they are now (add, replace, remove, clear)', () => {
    const table = new RouteTable();
    const url = 'https://hooks.example.com/a/b?x=1';
    const handler = () => new Response(null, { status: 204 });
    expect(table.resolve(url)).toBeUndefined();
    table.add('https://hooks.example.com', 'http://127.0.0.1:1');
    expect(table.resolve(url)).toBe('http://127.0.0.1:1/a/b?x=1');
    table.add('https://hooks.example.com/a', handler);
    expect(table.resolve(url)).toBe(handler);
    table.add('https://hooks.example.com/a', 'http://127.0.0.1:2/in');
    expect(table.resolve(url)).toBe('http://127.0.0.1:2/in/b?x=1');
    table.remove('https://hooks.example.com/a/');
    expect(table.resolve(url)).toBe('http://127.0.0.1:1/a/b?x=1');
    table.clear();
    expect(table.resolve(url)).toBeUndefined();
  });

  it('resolves as many distinct URLs as are sent, past what it remembers, each to its own target', () => {
    const table = new RouteTable();
    table.add('https://hooks.example.com', 'http://127.0.0.1:1');
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 2500; i++)
        expect(table.resolve(`https://hooks.example.com/${i}`)).toBe(`http://127.0.0.1:1/${i}`);
    }
  });
});
