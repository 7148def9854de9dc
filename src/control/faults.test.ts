import { ZodError } from 'zod';
import { describe, expect, it } from 'vitest';
import type { ApiFaultMatch } from '../http/runtime.js';
import { FaultRegistry } from './faults.js';

const request = (overrides: Partial<ApiFaultMatch> = {}): ApiFaultMatch => ({
  method: 'PATCH',
  path: '/v1/produtos/019b76da-a800-7f02-a38a-2ab47ab69367',
  companyId: 'c1',
  hasEditTarget: true,
  ...overrides,
});

const unavailable = { status: 503, retryAfter: 5 };

/** A registry holding one fault that matches `path` forever. */
function pathFault(path: string) {
  const registry = new FaultRegistry();
  registry.add({ target: 'api', match: { path }, effect: unavailable, times: null });
  return (p: string) => registry.takeApi(request({ path: p })) !== undefined;
}

describe('FaultRegistry.add validation', () => {
  it.each([
    ['an unknown target', { target: 'network', effect: unavailable }],
    ['a missing target', { effect: unavailable }],
    ['a missing effect', { target: 'api' }],
    ['an empty effect', { target: 'api', effect: {} }],
    ['a 2xx status', { target: 'api', effect: { status: 200 } }],
    ['a status above 599', { target: 'api', effect: { status: 600 } }],
    ['a non-integer status', { target: 'api', effect: { status: 503.5 } }],
    ['a negative retryAfter', { target: 'api', effect: { status: 429, retryAfter: -1 } }],
    ['loseResponse: false', { target: 'api', effect: { loseResponse: false } }],
    ['two effects at once', { target: 'api', effect: { loseResponse: true, status: 503 } }],
    ['an unknown effect', { target: 'api', effect: { explode: true } }],
    ['a negative delayMs', { target: 'api', effect: { delayMs: -1 } }],
    ['a delayMs over a day', { target: 'api', effect: { delayMs: 86_400_001 } }],
    ['an unknown method', { target: 'api', match: { method: 'OPTIONS' }, effect: unavailable }],
    ['a lowercase method', { target: 'api', match: { method: 'patch' }, effect: unavailable }],
    ['a path without a leading slash', { target: 'api', match: { path: 'v1/produtos' }, effect: unavailable }],
    ['an unknown match field', { target: 'api', match: { url: '/v1' }, effect: unavailable }],
    ['an unknown top-level field', { target: 'api', effect: unavailable, when: 'now' }],
    ['times 0', { target: 'api', effect: unavailable, times: 0 }],
    ['fractional times', { target: 'api', effect: unavailable, times: 1.5 }],
    ['not an object', 'boom'],
  ])('refuses %s with a ZodError and registers nothing', (_, input) => {
    const registry = new FaultRegistry();
    expect(() => registry.add(input)).toThrow(ZodError);
    expect(registry.list()).toEqual([]);
  });

  it('explains a wrong target', () => {
    const registry = new FaultRegistry();
    try {
      registry.add({ target: 'network', effect: unavailable });
      expect.fail('add should have thrown');
    } catch (error) {
      expect(error).toBeInstanceOf(ZodError);
      expect((error as ZodError).issues.map((i) => i.message).join(' ')).toContain('target must be "api", "delivery" or "job"');
    }
  });

  it('accepts each effect, with defaults match {} and times 1, and gives sequential ids', () => {
    const registry = new FaultRegistry();
    expect(registry.add({ target: 'api', effect: { status: 429, retryAfter: 30 } })).toEqual({ id: 'flt_1' });
    expect(registry.add({ target: 'api', effect: { loseResponse: true } })).toEqual({ id: 'flt_2' });
    expect(registry.add({ target: 'api', effect: { concurrentEdit: true } })).toEqual({ id: 'flt_3' });
    expect(registry.add({ target: 'api', effect: { delayMs: 1500 }, times: null })).toEqual({ id: 'flt_4' });
    expect(registry.list()).toEqual([
      { id: 'flt_1', target: 'api', match: {}, effect: { status: 429, retryAfter: 30 }, times: 1, hits: 0 },
      { id: 'flt_2', target: 'api', match: {}, effect: { loseResponse: true }, times: 1, hits: 0 },
      { id: 'flt_3', target: 'api', match: {}, effect: { concurrentEdit: true }, times: 1, hits: 0 },
      { id: 'flt_4', target: 'api', match: {}, effect: { delayMs: 1500 }, times: null, hits: 0 },
    ]);
  });
});

describe('FaultRegistry path globs', () => {
  it('* matches any run of characters within one segment', () => {
    const hits = pathFault('/v1/produtos/*');
    expect(hits('/v1/produtos/019b76da-a800-7f02-a38a-2ab47ab69367')).toBe(true);
    expect(hits('/v1/produtos/x')).toBe(true);
    expect(hits('/v1/produtos/x/y')).toBe(false);
    expect(hits('/v1/produtos')).toBe(false);
    expect(hits('/v1/catalogos/x')).toBe(false);
  });

  it('* can stand for part of a segment', () => {
    const hits = pathFault('/v1/catalogos/*/produtos');
    expect(hits('/v1/catalogos/abc/produtos')).toBe(true);
    expect(hits('/v1/catalogos/abc/def/produtos')).toBe(false);
    const prefix = pathFault('/v1/est*');
    expect(prefix('/v1/estabelecimentos')).toBe(true);
    expect(prefix('/v1/estabelecimentos/x')).toBe(false);
  });

  it('** matches across segments', () => {
    const hits = pathFault('/v1/**');
    expect(hits('/v1/catalogos/abc/produtos/def')).toBe(true);
    expect(hits('/v1/empresa')).toBe(true);
    expect(hits('/_emulator/clock')).toBe(false);
    const middle = pathFault('/v1/**/produtos');
    expect(middle('/v1/catalogos/abc/produtos')).toBe(true);
    expect(middle('/v1/catalogos/abc/produtos/def')).toBe(false);
  });

  it('a path without wildcards matches exactly that path, and regex characters are literal', () => {
    const exact = pathFault('/v1/empresa');
    expect(exact('/v1/empresa')).toBe(true);
    expect(exact('/v1/empresa/capacidade')).toBe(false);
    expect(exact('/x/v1/empresa')).toBe(false);
    const dotted = pathFault('/v1/a.b+(c)');
    expect(dotted('/v1/a.b+(c)')).toBe(true);
    expect(dotted('/v1/aXbb(c)')).toBe(false);
  });

  it('matches paths case-insensitively', () => {
    const hits = pathFault('/v1/produtos/*');
    expect(hits('/V1/Produtos/ABC')).toBe(true);
  });
});

describe('FaultRegistry matching and firing', () => {
  it('matches on method', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', match: { method: 'POST' }, effect: unavailable, times: null });
    expect(registry.takeApi(request({ method: 'PATCH' }))).toBeUndefined();
    expect(registry.takeApi(request({ method: 'GET' }))).toBeUndefined();
    expect(registry.takeApi(request({ method: 'POST' }))).toEqual({ id: 'flt_1', effect: unavailable });
  });

  it('matches on companyId; a request without a company does not match a company fault', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', match: { companyId: 'c2' }, effect: unavailable, times: null });
    expect(registry.takeApi(request({ companyId: 'c1' }))).toBeUndefined();
    expect(registry.takeApi(request({ companyId: undefined }))).toBeUndefined();
    expect(registry.takeApi(request({ companyId: 'c2' }))).toBeDefined();
  });

  it('needs every given match field to hold', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', match: { method: 'PATCH', path: '/v1/produtos/*', companyId: 'c1' }, effect: unavailable, times: null });
    expect(registry.takeApi(request())).toBeDefined();
    expect(registry.takeApi(request({ method: 'DELETE' }))).toBeUndefined();
    expect(registry.takeApi(request({ path: '/v1/catalogos/x' }))).toBeUndefined();
    expect(registry.takeApi(request({ companyId: 'c9' }))).toBeUndefined();
  });

  it('an empty match matches every request', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', effect: unavailable, times: null });
    expect(registry.takeApi(request({ method: 'GET', path: '/v1/empresa', companyId: undefined, hasEditTarget: false }))).toBeDefined();
  });

  it('fires `times` times, counting down, and then is removed', () => {
    const registry = new FaultRegistry();
    const { id } = registry.add({ target: 'api', effect: unavailable, times: 3 });
    expect(registry.takeApi(request())).toEqual({ id, effect: unavailable });
    expect(registry.list()).toEqual([expect.objectContaining({ id, times: 2, hits: 1 })]);
    expect(registry.takeApi(request())).toBeDefined();
    expect(registry.list()).toEqual([expect.objectContaining({ id, times: 1, hits: 2 })]);
    expect(registry.takeApi(request())).toBeDefined();
    expect(registry.list()).toEqual([]);
    expect(registry.takeApi(request())).toBeUndefined();
  });

  it('fires once by default', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', effect: { loseResponse: true } });
    expect(registry.takeApi(request())).toBeDefined();
    expect(registry.takeApi(request())).toBeUndefined();
  });

  it('with times null fires until removed, counting hits', () => {
    const registry = new FaultRegistry();
    const { id } = registry.add({ target: 'api', effect: unavailable, times: null });
    for (let i = 0; i < 25; i++) expect(registry.takeApi(request())).toBeDefined();
    expect(registry.list()).toEqual([{ id, target: 'api', match: {}, effect: unavailable, times: null, hits: 25 }]);
    expect(registry.remove(id)).toBe(true);
    expect(registry.remove(id)).toBe(false);
    expect(registry.takeApi(request())).toBeUndefined();
  });

  it('a request that does not match leaves the fault untouched', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', match: { method: 'DELETE' }, effect: unavailable, times: 2 });
    registry.takeApi(request({ method: 'GET' }));
    expect(registry.list()).toEqual([expect.objectContaining({ times: 2, hits: 0 })]);
  });

  it('the first matching fault in the order added fires', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', match: { method: 'GET' }, effect: { status: 500 } });
    registry.add({ target: 'api', effect: { status: 502 } });
    registry.add({ target: 'api', effect: { status: 503 } });
    expect(registry.takeApi(request({ method: 'PATCH' }))?.effect).toEqual({ status: 502 });
    expect(registry.takeApi(request({ method: 'GET' }))?.effect).toEqual({ status: 500 });
    expect(registry.takeApi(request({ method: 'GET' }))?.effect).toEqual({ status: 503 });
  });

  it('concurrentEdit only matches operations with an edit target; the others leave it waiting', () => {
    const registry = new FaultRegistry();
    const { id } = registry.add({ target: 'api', effect: { concurrentEdit: true } });
    expect(registry.takeApi(request({ method: 'POST', path: '/v1/catalogos', hasEditTarget: false }))).toBeUndefined();
    expect(registry.takeApi(request({ method: 'GET', hasEditTarget: false }))).toBeUndefined();
    expect(registry.list()).toEqual([expect.objectContaining({ id, times: 1, hits: 0 })]);
    expect(registry.takeApi(request({ hasEditTarget: true }))).toEqual({ id, effect: { concurrentEdit: true } });
    expect(registry.list()).toEqual([]);
  });

  it('other effects match whether or not the operation has an edit target', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', effect: { loseResponse: true }, times: null });
    expect(registry.takeApi(request({ hasEditTarget: false }))).toBeDefined();
    expect(registry.takeApi(request({ hasEditTarget: true }))).toBeDefined();
  });

  it('a concurrentEdit fault waiting for an edit target does not hide a later fault from other requests', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', effect: { concurrentEdit: true } });
    registry.add({ target: 'api', effect: { status: 429, retryAfter: 1 } });
    expect(registry.takeApi(request({ hasEditTarget: false }))?.effect).toEqual({ status: 429, retryAfter: 1 });
  });

  it('clear removes every fault', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', effect: unavailable, times: null });
    registry.add({ target: 'api', effect: unavailable, times: null });
    registry.clear();
    expect(registry.list()).toEqual([]);
    expect(registry.takeApi(request())).toBeUndefined();
  });

  it('list shows the match as given, remaining times and hits', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', match: { method: 'PATCH', path: '/v1/produtos/*', companyId: 'c1' }, effect: { status: 503, retryAfter: 5 }, times: 4 });
    registry.takeApi(request());
    expect(registry.list()).toEqual([
      { id: 'flt_1', target: 'api', match: { method: 'PATCH', path: '/v1/produtos/*', companyId: 'c1' }, effect: { status: 503, retryAfter: 5 }, times: 3, hits: 1 },
    ]);
  });
});
