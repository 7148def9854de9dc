import { describe, expect, it } from 'vitest';
import { RouteTable } from './routes.js';

describe('RouteTable.add', () => {
  it('refuses a non-https "from" with a TypeError that says it must be https', () => {
    const table = new RouteTable();
    expect(() => table.add('http://hooks.example.com', 'http://127.0.0.1:9000')).toThrow(TypeError);
    expect(() => table.add('http://hooks.example.com', 'http://127.0.0.1:9000')).toThrow(/"from" must be an https:\/\/ URL prefix.*got http:\/\/hooks\.example\.com/);
    expect(() => table.add('ftp://hooks.example.com', 'http://127.0.0.1:9000')).toThrow(/https:\/\//);
    expect(table.list()).toEqual([]);
  });

  it('refuses a "from" that is not an absolute URL', () => {
    const table = new RouteTable();
    expect(() => table.add('hooks.example.com', 'http://127.0.0.1:9000')).toThrow(TypeError);
    expect(() => table.add('hooks.example.com', 'http://127.0.0.1:9000')).toThrow(/"from" is not an absolute URL: hooks\.example\.com/);
  });

  it('refuses a "to" that is not http(s) or not a URL, with a TypeError that says so', () => {
    const table = new RouteTable();
    expect(() => table.add('https://hooks.example.com', 'ws://127.0.0.1:9000')).toThrow(TypeError);
    expect(() => table.add('https://hooks.example.com', 'ws://127.0.0.1:9000')).toThrow(/"to" must be an http:\/\/ or https:\/\/ URL, or a handler function \(got ws:\/\/127\.0\.0\.1:9000\)/);
    expect(() => table.add('https://hooks.example.com', 'file:///tmp/x')).toThrow(TypeError);
    expect(() => table.add('https://hooks.example.com', '127.0.0.1:9000/x')).toThrow(TypeError);
    expect(() => table.add('https://hooks.example.com', 'nonsense')).toThrow(/"to" is not an absolute URL: nonsense/);
    expect(table.list()).toEqual([]);
  });

  it('accepts https→http and https→https, returns the route and lists it', () => {
    const table = new RouteTable();
    expect(table.add('https://hooks.example.com', 'http://127.0.0.1:9000')).toEqual({ from: 'https://hooks.example.com', to: 'http://127.0.0.1:9000' });
    table.add('https://other.example.com/x', 'https://localhost:8443/y');
    expect(table.list()).toEqual([
      { from: 'https://hooks.example.com', to: 'http://127.0.0.1:9000' },
      { from: 'https://other.example.com/x', to: 'https://localhost:8443/y' },
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
    expect(table.resolve('https://hooks.example.com/webhooks/catalog?x=1&y=2')).toBe('http://127.0.0.1:9000/webhooks/catalog?x=1&y=2');
    expect(table.resolve('https://hooks.example.com')).toBe('http://127.0.0.1:9000');
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

  it('does not route a URL whose host merely begins with the route host', () => {
    const table = new RouteTable();
    table.add('https://hooks.example.com', 'http://127.0.0.1:9000');
    expect(table.resolve('https://hooks.example.com.attacker.test/x')).toBeUndefined();
    expect(table.resolve('https://hooks.example.community/x')).toBeUndefined();
    expect(table.resolve('https://hooks.example.com:8443/x')).toBeUndefined();
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
});
