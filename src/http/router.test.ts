import { describe, expect, it } from 'vitest';
import { operations } from './app.js';
import { Router, unroutable } from './router.js';

const op = (method: string, path: string) => ({ method, path, name: `${method} ${path}` });

describe('Router', () => {
  const router = new Router([
    op('POST', '/v1/catalogos/ingestoes'),
    op('GET', '/v1/catalogos/ingestoes/:id'),
    op('GET', '/v1/catalogos'),
    op('POST', '/v1/catalogos'),
    op('GET', '/v1/catalogos/:id'),
    op('PATCH', '/v1/catalogos/:id'),
    op('GET', '/v1/catalogos/:id/produtos'),
    op('PUT', '/v1/catalogos/:id/produtos/:produto_id'),
  ]);
  const target = (method: string, path: string) => {
    const route = router.find(method, path);
    return route?.kind === 'operation' ? [route.target.name, route.params] : route;
  };

  it('takes the first operation of the method whose template matches, with its parameters', () => {
    expect(target('GET', '/v1/catalogos/abc')).toEqual(['GET /v1/catalogos/:id', { id: 'abc' }]);
    expect(target('PUT', '/v1/catalogos/a/produtos/b')).toEqual([
      'PUT /v1/catalogos/:id/produtos/:produto_id',
      { id: 'a', produto_id: 'b' },
    ]);
    expect(target('GET', '/v1/catalogos')).toEqual(['GET /v1/catalogos', {}]);
    // Listed first, so /v1/catalogos/ingestoes/produtos is an ingestion, not the products of catalog "ingestoes".
    expect(target('GET', '/v1/catalogos/ingestoes/produtos')).toEqual([
      'GET /v1/catalogos/ingestoes/:id',
      { id: 'produtos' },
    ]);
  });

  it('answers 405 at once on a path without parameters that another method has, before a template could take it', () => {
    expect(router.find('GET', '/v1/catalogos/ingestoes')).toEqual({ kind: 'not_allowed', allow: 'POST' });
    expect(router.find('DELETE', '/v1/catalogos')).toEqual({ kind: 'not_allowed', allow: 'GET, POST, HEAD' });
  });

  it('routes HEAD as GET, and allows it wherever GET is', () => {
    expect(target('HEAD', '/v1/catalogos/abc')).toEqual(['GET /v1/catalogos/:id', { id: 'abc' }]);
    expect(target('HEAD', '/v1/catalogos')).toEqual(['GET /v1/catalogos', {}]);
  });

  it('answers 405 with the methods of the first path that matches when no operation of the method does', () => {
    expect(router.find('DELETE', '/v1/catalogos/abc')).toEqual({ kind: 'not_allowed', allow: 'GET, PATCH, HEAD' });
    expect(router.find('patch', '/v1/catalogos/abc')).toEqual({ kind: 'not_allowed', allow: 'GET, PATCH, HEAD' });
    expect(router.find('GET', '/v1/catalogos/a/produtos/b')).toEqual({ kind: 'not_allowed', allow: 'PUT' });
  });

  it('matches segment by segment: no empty parameter, no trailing slash, no extra or missing segment, case counts', () => {
    for (const path of [
      '/v1/catalogos/',
      '/v1/catalogos//produtos',
      '/v1/catalogos/a/',
      '/v1/catalogos/a/produtos/b/c',
      '/v1/catalogo',
      '/v1/catalogosx',
      '/V1/catalogos',
      '/v1',
      '/v1/',
    ]) {
      expect(router.find('GET', path), path).toBeUndefined();
    }
  });

  it('decodes a parameter as hono does: percent-escapes, and those it cannot decode kept as sent', () => {
    expect(target('GET', '/v1/catalogos/a%3Fb')).toEqual(['GET /v1/catalogos/:id', { id: 'a?b' }]);
    expect(target('GET', '/v1/catalogos/%E2%82%AC')).toEqual(['GET /v1/catalogos/:id', { id: '€' }]);
    expect(target('GET', '/v1/catalogos/%zz')).toEqual(['GET /v1/catalogos/:id', { id: '%zz' }]);
  });

  it('routes no path with a "." or ".." segment, an encoded slash or a backslash (hono\'s path: %2e and %5c decoded, %2f not)', () => {
    for (const path of [
      '/v1/catalogos/..',
      '/v1/catalogos/.',
      '/v1/catalogos/./produtos',
      '/v1/x/../catalogos',
      '/v1/./catalogos',
      '/v1/catalogos/a%2fb',
      '/v1/catalogos/a%2Fb',
      '/v1/catalogos/a\\b',
      '/v1/catalogos/%2f',
    ]) {
      expect(router.find('GET', path), path).toBeUndefined();
      expect(unroutable(path), path).toBe(true);
    }
    // Dots inside a segment are a segment like any other; %252f is the text %2f, which hono's path keeps as %252f.
    expect(target('GET', '/v1/catalogos/a..b')).toEqual(['GET /v1/catalogos/:id', { id: 'a..b' }]);
    expect(target('GET', '/v1/catalogos/.a')).toEqual(['GET /v1/catalogos/:id', { id: '.a' }]);
    expect(target('GET', '/v1/catalogos/%252f')).toEqual(['GET /v1/catalogos/:id', { id: '%2f' }]);
    expect(unroutable('/v1/analises/x/resultado.csv')).toBe(false);
  });

  it('routes every operation of the API to itself', () => {
    const api = new Router(operations);
    const sample = (path: string) => path.replace(/:[A-Za-z_]\w*/g, '019b76da-a800-7f02-a38a-2ab47ab69367');
    for (const operation of operations) {
      const route = api.find(operation.method, sample(operation.path));
      expect(route?.kind === 'operation' && route.target, `${operation.method} ${operation.path}`).toBe(operation);
    }
  });
});
