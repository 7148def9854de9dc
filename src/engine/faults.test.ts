import { describe, expect, it } from 'vitest';
import { MAX_PATH } from '../core/kept-text.js';
import { IF_MATCH_OPERATIONS } from '../core/versioning.js';
import { faultEffects, FaultInputError, FaultRegistry, JOB_KINDS, MAX_FAULTS } from './faults.js';
import type { ApiFaultMatch, FaultEffect, FaultInput } from './faults.js';
import { Glob, globSteps } from './glob.js';

const request = (overrides: Partial<ApiFaultMatch> = {}): ApiFaultMatch => ({
  method: 'PATCH',
  path: '/v1/produtos/019b76da-a800-7f02-a38a-2ab47ab69367',
  companyId: 'c1',
  ...overrides,
});

const unavailable = { status: 503, retryAfter: 5 };

/** A registry holding one fault that matches `path` forever. */
function pathFault(path: string) {
  const registry = new FaultRegistry();
  registry.add({ target: 'api', match: { path }, effect: unavailable, times: null });
  return (p: string) => registry.takeApi(request({ path: p }), 'arrival') !== undefined;
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
    ['reset: false', { target: 'api', effect: { reset: false } }],
    ['truncate with a length', { target: 'api', effect: { truncate: 10 } }],
    ['malformedJson: "yes"', { target: 'api', effect: { malformedJson: 'yes' } }],
    ['trickleMs 0', { target: 'api', effect: { trickleMs: 0 } }],
    ['trickleMs over a minute', { target: 'api', effect: { trickleMs: 60_001 } }],
    ['a trickle with another effect', { target: 'api', effect: { trickleMs: 100, reset: true } }],
    ['an unknown method', { target: 'api', match: { method: 'OPTIONS' }, effect: unavailable }],
    ['a path without a leading slash', { target: 'api', match: { path: 'v1/produtos' }, effect: unavailable }],
    ['an unknown match field', { target: 'api', match: { url: '/v1' }, effect: unavailable }],
    ['an unknown top-level field', { target: 'api', effect: unavailable, when: 'now' }],
    ['times 0', { target: 'api', effect: unavailable, times: 0 }],
    ['fractional times', { target: 'api', effect: unavailable, times: 1.5 }],
    ['not an object', 'boom'],
    ['an unknown job kind', { target: 'job', match: { kind: 'limpeza' }, effect: { fail: true } }],
    [
      'an unknown event type',
      { target: 'delivery', match: { eventType: 'catalogo.criado' }, effect: { refuse: true } },
    ],
    [
      'concurrentEdit on an operation without If-Match',
      { target: 'api', match: { method: 'POST', path: '/v1/catalogos' }, effect: { concurrentEdit: true } },
    ],
    ['concurrentEdit on a GET', { target: 'api', match: { method: 'GET' }, effect: { concurrentEdit: true } }],
    [
      'concurrentEdit on the ingestion application',
      { target: 'api', match: { path: '/v1/catalogos/ingestoes/*/aplicacao' }, effect: { concurrentEdit: true } },
    ],
  ])('refuses %s with a one-sentence FaultInputError and registers nothing', (_, input) => {
    const registry = new FaultRegistry();
    let thrown: unknown;
    try {
      registry.add(input);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(FaultInputError);
    const message = (thrown as FaultInputError).message;
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toMatch(/\.$/);
    expect(message.length).toBeLessThan(600);
    expect(registry.list()).toEqual([]);
  });

  it.each([
    [{ target: 'network', effect: unavailable }, 'target', 'target must be "api", "delivery" or "job"; got "network".'],
    [{ effect: unavailable }, 'target', 'target must be "api", "delivery" or "job"; it is missing.'],
    [
      { target: 'api', effect: { status: 700 } },
      'effect',
      'effect of an api fault must be one of {"status": 400–599, "retryAfter"?: 0–86400}, {"loseResponse": true}, {"concurrentEdit": true}, {"delayMs": 0–86400000}, {"malformedJson": true}, {"reset": true}, {"truncate": true} or {"trickleMs": 1–60000}; got {"status":700}.',
    ],
    [
      { target: 'api', match: { method: 'FETCH' }, effect: unavailable },
      'match.method',
      'match.method must be one of GET, POST, PATCH, PUT, DELETE (any case); got "FETCH".',
    ],
    [
      { target: 'api', match: { url: '/v1' }, effect: unavailable },
      'match.url',
      "match.url is not a field of an api fault's match (fields: method, path, companyId).",
    ],
    [
      { target: 'job', match: { kind: 'limpeza' }, effect: { fail: true } },
      'match.kind',
      'match.kind must be one of retencao_eventos, vigilancia, analise, revisao_cnpj, ingestao; got "limpeza".',
    ],
    [
      { target: 'api', effect: unavailable, times: 0 },
      'times',
      'times must be a positive integer, or null to keep the fault until it is removed; got 0.',
    ],
    [
      { target: 'api', effect: unavailable, when: 'now' },
      'when',
      '"when" is not a field of a fault (fields: target, match, effect, times, skip, probability).',
    ],
    [
      'boom',
      '',
      'a fault is a JSON object {"target", "match"?, "effect", "times"?, "skip"?, "probability"?}; got "boom".',
    ],
    [
      { target: 'api', effect: unavailable, probability: 0 },
      'probability',
      'probability must be a number above 0 and at most 1, the chance that each matching occurrence fires (0 could never fire); got 0.',
    ],
    [
      { target: 'delivery', effect: { refuse: true }, probability: 1.5 },
      'probability',
      'probability must be a number above 0 and at most 1, the chance that each matching occurrence fires (0 could never fire); got 1.5.',
    ],
    [
      { target: 'job', effect: { fail: true }, probability: '0.5' },
      'probability',
      'probability must be a number above 0 and at most 1, the chance that each matching occurrence fires (0 could never fire); got "0.5".',
    ],
    [
      { target: 'api', effect: unavailable, probability: -0.25 },
      'probability',
      'probability must be a number above 0 and at most 1, the chance that each matching occurrence fires (0 could never fire); got -0.25.',
    ],
    [
      { target: 'api', match: { path: '/v1/catalogos/ingestoes/*/aplicacao' }, effect: { concurrentEdit: true } },
      'effect',
      'effect concurrentEdit can never fire on POST /v1/catalogos/ingestoes/{id}/aplicacao: nothing but its own application changes a validated ingestion, so no concurrent save can make its ETag stale; to see its application refused, edit the catalog or one of the products it read after validation (it ends revisao_necessaria).',
    ],
  ])('says in one sentence which field is wrong and what it accepts: %j', (input, caminho, message) => {
    const registry = new FaultRegistry();
    expect(() => registry.add(input)).toThrow(expect.objectContaining({ name: 'FaultInputError', caminho, message }));
  });

  it('names the operations that take If-Match when a concurrentEdit reaches none of them', () => {
    const registry = new FaultRegistry();
    expect(() =>
      registry.add({
        target: 'api',
        match: { method: 'POST', path: '/v1/catalogos' },
        effect: { concurrentEdit: true },
      }),
    ).toThrow(
      'effect concurrentEdit can never fire on POST /v1/catalogos: it needs an operation that takes If-Match, and the match reaches none (they are PATCH /v1/catalogos/{id}, DELETE /v1/catalogos/{id}, ',
    );
  });

  it('accepts a concurrentEdit whose match reaches any operation of the If-Match table but the ingestion application', () => {
    for (const operation of IF_MATCH_OPERATIONS.filter((o) => o.guards !== 'ingestion')) {
      const registry = new FaultRegistry();
      const path = operation.path.replace(/\{[^}]+\}/g, '0192b2b4-0000-7000-8000-000000000001');
      expect(
        registry.add({
          target: 'api',
          match: { method: operation.method.toLowerCase(), path },
          effect: { concurrentEdit: true },
        }),
      ).toEqual({ id: 'flt_1' });
    }
    // A broad match is accepted when it reaches at least one operation where the fault can fire.
    expect(
      new FaultRegistry().add({ target: 'api', match: { method: 'POST' }, effect: { concurrentEdit: true } }),
    ).toEqual({ id: 'flt_1' });
    expect(
      new FaultRegistry().add({ target: 'api', match: { path: '/v1/**' }, effect: { concurrentEdit: true } }),
    ).toEqual({ id: 'flt_1' });
  });

  it('accepts every job kind and keeps a method given in any case in upper case', () => {
    const registry = new FaultRegistry();
    for (const kind of JOB_KINDS) registry.add({ target: 'job', match: { kind }, effect: { fail: true } });
    registry.add({ target: 'api', match: { method: 'patch' }, effect: unavailable });
    expect(registry.list().map((f) => f.match)).toEqual([...JOB_KINDS.map((kind) => ({ kind })), { method: 'PATCH' }]);
    expect(registry.takeApi(request({ method: 'PATCH' }), 'arrival')).toEqual({ id: 'flt_6', effect: unavailable });
  });

  it('accepts each effect, with defaults match {} and times 1, and gives sequential ids', () => {
    const registry = new FaultRegistry();
    expect(registry.add({ target: 'api', effect: { status: 429, retryAfter: 30 } })).toEqual({ id: 'flt_1' });
    expect(registry.add({ target: 'api', effect: { loseResponse: true } })).toEqual({ id: 'flt_2' });
    expect(registry.add({ target: 'api', effect: { concurrentEdit: true } })).toEqual({ id: 'flt_3' });
    expect(registry.add({ target: 'api', effect: { delayMs: 1500 }, times: null })).toEqual({ id: 'flt_4' });
    for (const effect of [
      { malformedJson: true },
      { reset: true },
      { truncate: true },
      { trickleMs: 1 },
      { trickleMs: 60_000 },
    ] as const)
      registry.add({ target: 'api', effect });
    expect(
      registry
        .list()
        .slice(4)
        .map((f) => f.effect),
    ).toEqual([{ malformedJson: true }, { reset: true }, { truncate: true }, { trickleMs: 1 }, { trickleMs: 60_000 }]);
    for (const id of ['flt_5', 'flt_6', 'flt_7', 'flt_8', 'flt_9']) registry.remove(id);
    expect(registry.list()).toEqual([
      { id: 'flt_1', target: 'api', match: {}, effect: { status: 429, retryAfter: 30 }, times: 1, skip: 0, hits: 0 },
      { id: 'flt_2', target: 'api', match: {}, effect: { loseResponse: true }, times: 1, skip: 0, hits: 0 },
      { id: 'flt_3', target: 'api', match: {}, effect: { concurrentEdit: true }, times: 1, skip: 0, hits: 0 },
      { id: 'flt_4', target: 'api', match: {}, effect: { delayMs: 1500 }, times: null, skip: 0, hits: 0 },
    ]);
  });
});

describe('FaultRegistry capacity', () => {
  it(`refuses the fault past ${MAX_FAULTS} armed at once, and takes one again once another is removed`, () => {
    const registry = new FaultRegistry();
    const ids = Array.from({ length: MAX_FAULTS }, () => registry.add({ target: 'api', effect: unavailable }).id);
    expect(() => registry.add({ target: 'api', effect: unavailable })).toThrow(
      new FaultInputError(
        `At most ${MAX_FAULTS} faults can be armed at once; remove some (DELETE /_emulator/faults/{id}, or DELETE /_emulator/faults for all) before adding more.`,
        '',
      ),
    );
    expect(registry.list()).toHaveLength(MAX_FAULTS);
    expect(registry.remove(ids[0]!)).toBe(true);
    expect(registry.add({ target: 'api', effect: unavailable }).id).toBe(`flt_${MAX_FAULTS + 1}`);
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
    expect(registry.takeApi(request({ method: 'PATCH' }), 'arrival')).toBeUndefined();
    expect(registry.takeApi(request({ method: 'GET' }), 'arrival')).toBeUndefined();
    expect(registry.takeApi(request({ method: 'POST' }), 'arrival')).toEqual({ id: 'flt_1', effect: unavailable });
  });

  it('matches on companyId; a request without a company does not match a company fault', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', match: { companyId: 'c2' }, effect: unavailable, times: null });
    expect(registry.takeApi(request({ companyId: 'c1' }), 'arrival')).toBeUndefined();
    expect(registry.takeApi(request({ companyId: undefined }), 'arrival')).toBeUndefined();
    expect(registry.takeApi(request({ companyId: 'c2' }), 'arrival')).toBeDefined();
  });

  it('needs every given match field to hold', () => {
    const registry = new FaultRegistry();
    registry.add({
      target: 'api',
      match: { method: 'PATCH', path: '/v1/produtos/*', companyId: 'c1' },
      effect: unavailable,
      times: null,
    });
    expect(registry.takeApi(request(), 'arrival')).toBeDefined();
    expect(registry.takeApi(request({ method: 'DELETE' }), 'arrival')).toBeUndefined();
    expect(registry.takeApi(request({ path: '/v1/catalogos/x' }), 'arrival')).toBeUndefined();
    expect(registry.takeApi(request({ companyId: 'c9' }), 'arrival')).toBeUndefined();
  });

  it('an empty match matches every request', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', effect: unavailable, times: null });
    expect(
      registry.takeApi(request({ method: 'GET', path: '/v1/empresa', companyId: undefined }), 'arrival'),
    ).toBeDefined();
  });

  it('fires `times` times, counting down, and then is removed', () => {
    const registry = new FaultRegistry();
    const { id } = registry.add({ target: 'api', effect: unavailable, times: 3 });
    expect(registry.takeApi(request(), 'arrival')).toEqual({ id, effect: unavailable });
    expect(registry.list()).toEqual([expect.objectContaining({ id, times: 2, hits: 1 })]);
    expect(registry.takeApi(request(), 'arrival')).toBeDefined();
    expect(registry.list()).toEqual([expect.objectContaining({ id, times: 1, hits: 2 })]);
    expect(registry.takeApi(request(), 'arrival')).toBeDefined();
    expect(registry.list()).toEqual([]);
    expect(registry.takeApi(request(), 'arrival')).toBeUndefined();
  });

  it('fires once by default', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', effect: { loseResponse: true } });
    expect(registry.takeApi(request(), 'arrival')).toBeDefined();
    expect(registry.takeApi(request(), 'arrival')).toBeUndefined();
  });

  it('with times null fires until removed, counting hits', () => {
    const registry = new FaultRegistry();
    const { id } = registry.add({ target: 'api', effect: unavailable, times: null });
    for (let i = 0; i < 25; i++) expect(registry.takeApi(request(), 'arrival')).toBeDefined();
    expect(registry.list()).toEqual([
      { id, target: 'api', match: {}, effect: unavailable, times: null, skip: 0, hits: 25 },
    ]);
    expect(registry.remove(id)).toBe(true);
    expect(registry.remove(id)).toBe(false);
    expect(registry.takeApi(request(), 'arrival')).toBeUndefined();
  });

  it('a request that does not match leaves the fault untouched', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', match: { method: 'DELETE' }, effect: unavailable, times: 2 });
    registry.takeApi(request({ method: 'GET' }), 'arrival');
    expect(registry.list()).toEqual([expect.objectContaining({ times: 2, hits: 0 })]);
  });

  it('the first matching fault in the order added fires', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', match: { method: 'GET' }, effect: { status: 500 } });
    registry.add({ target: 'api', effect: { status: 502 } });
    registry.add({ target: 'api', effect: { status: 503 } });
    expect(registry.takeApi(request({ method: 'PATCH' }), 'arrival')?.effect).toEqual({ status: 502 });
    expect(registry.takeApi(request({ method: 'GET' }), 'arrival')?.effect).toEqual({ status: 500 });
    expect(registry.takeApi(request({ method: 'GET' }), 'arrival')?.effect).toEqual({ status: 503 });
  });

  it('concurrentEdit is taken only at evaluation, and the other effects only on arrival', () => {
    const registry = new FaultRegistry();
    const edit = registry.add({ target: 'api', effect: { concurrentEdit: true } });
    const lost = registry.add({ target: 'api', effect: { loseResponse: true } });
    expect(registry.takeApi(request(), 'arrival')).toEqual({ id: lost.id, effect: { loseResponse: true } });
    expect(registry.takeApi(request(), 'arrival')).toBeUndefined();
    expect(registry.takeApi(request(), 'evaluation', () => true)).toEqual({
      id: edit.id,
      effect: { concurrentEdit: true },
    });
    expect(registry.list()).toEqual([]);
  });

  it('a concurrentEdit whose save found nothing to save does not fire and stays armed', () => {
    const registry = new FaultRegistry();
    const { id } = registry.add({ target: 'api', effect: { concurrentEdit: true }, times: 2 });
    let saves = 0;
    expect(registry.takeApi(request(), 'evaluation', () => (saves++, false))).toBeUndefined();
    expect(registry.list()).toEqual([expect.objectContaining({ id, times: 2, hits: 0 })]);
    expect(registry.takeApi(request(), 'evaluation', () => (saves++, true))).toEqual({
      id,
      effect: { concurrentEdit: true },
    });
    expect(registry.list()).toEqual([expect.objectContaining({ id, times: 1, hits: 1 })]);
    expect(saves).toBe(2);
  });

  it('an unmatched concurrentEdit never saves anything', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', match: { method: 'DELETE' }, effect: { concurrentEdit: true } });
    expect(
      registry.takeApi(request({ method: 'PATCH' }), 'evaluation', () =>
        expect.fail('no save for an unmatched request'),
      ),
    ).toBeUndefined();
  });

  it('clear removes every fault', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', effect: unavailable, times: null });
    registry.add({ target: 'api', effect: unavailable, times: null });
    registry.clear();
    expect(registry.list()).toEqual([]);
    expect(registry.takeApi(request(), 'arrival')).toBeUndefined();
  });

  it('armsJob says whether a job fault would fire for a job, without firing it', () => {
    const registry = new FaultRegistry();
    const retention = { kind: 'retencao_eventos', companyId: null } as const;
    expect(registry.armsJob(retention)).toBe(false);
    registry.add({ target: 'job', match: { kind: 'vigilancia' }, effect: { fail: true } });
    registry.add({ target: 'job', match: { companyId: 'c1' }, effect: { fail: true } });
    expect(registry.armsJob(retention)).toBe(false);
    const { id } = registry.add({
      target: 'job',
      match: { kind: 'retencao_eventos' },
      effect: { delayMs: 1000 },
      times: 2,
    });
    expect(registry.armsJob(retention)).toBe(true);
    expect(registry.armsJob({ ...retention, effect: 'fail' })).toBe(false);
    expect(registry.list().find((f) => f.id === id)).toMatchObject({ times: 2, hits: 0 });
    registry.takeJob(retention);
    registry.takeJob(retention);
    expect(registry.armsJob(retention)).toBe(false);
    // A fault with no kind matches every job, retention included.
    registry.add({ target: 'job', effect: { fail: true } });
    expect(registry.armsJob(retention)).toBe(true);
  });

  it('list shows the match as given, remaining times and hits', () => {
    const registry = new FaultRegistry();
    registry.add({
      target: 'api',
      match: { method: 'PATCH', path: '/v1/produtos/*', companyId: 'c1' },
      effect: { status: 503, retryAfter: 5 },
      times: 4,
    });
    registry.takeApi(request(), 'arrival');
    expect(registry.list()).toEqual([
      {
        id: 'flt_1',
        target: 'api',
        match: { method: 'PATCH', path: '/v1/produtos/*', companyId: 'c1' },
        effect: { status: 503, retryAfter: 5 },
        times: 3,
        skip: 0,
        hits: 1,
      },
    ]);
  });
});

describe('FaultRegistry skip: a fault bound to a position in the run', () => {
  const fires = (registry: FaultRegistry, overrides: Partial<ApiFaultMatch> = {}) =>
    registry.takeApi(request(overrides), 'arrival')?.id ?? null;

  it('skip N lets the first N matching requests pass and fires on the next; what does not match is not counted', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', match: { method: 'PATCH' }, effect: unavailable, skip: 2 });
    expect(fires(registry, { method: 'GET' })).toBeNull();
    expect(registry.list()[0]!.skip).toBe(2);
    expect([fires(registry), fires(registry), fires(registry), fires(registry)]).toEqual([null, null, 'flt_1', null]);
    expect(registry.list()).toEqual([]);
  });

  it('the list shows the matches it still lets pass, counting down', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'api', effect: unavailable, skip: 3, times: 2 });
    fires(registry);
    expect(registry.list()[0]).toMatchObject({ skip: 2, times: 2, hits: 0 });
  });

  it('every skipping fault counts every request it matches, whichever fault fires on it', () => {
    const registry = new FaultRegistry();
    // flt_1 fires on the 2nd PATCH, flt_2 on the 3rd, flt_3 on the 1st: each on its own position.
    registry.add({ target: 'api', match: { method: 'PATCH' }, effect: unavailable, skip: 1 });
    registry.add({ target: 'api', match: { method: 'PATCH' }, effect: { status: 500 }, skip: 2 });
    registry.add({ target: 'api', match: { method: 'PATCH' }, effect: { status: 502 } });
    expect([fires(registry), fires(registry), fires(registry), fires(registry)]).toEqual([
      'flt_3',
      'flt_1',
      'flt_2',
      null,
    ]);
  });

  it('counts before the draw: a probabilistic fault draws only from its position on', () => {
    const skipped = new FaultRegistry(9);
    skipped.add({ target: 'api', effect: unavailable, skip: 5, probability: 0.5, times: null });
    const plain = new FaultRegistry(9);
    plain.add({ target: 'api', effect: unavailable, probability: 0.5, times: null });
    const after = Array.from({ length: 25 }, () => fires(skipped) !== null).slice(5);
    expect(after).toEqual(Array.from({ length: 20 }, () => fires(plain) !== null));
  });

  it('counts delivery attempts and job runs alike', () => {
    const registry = new FaultRegistry();
    registry.add({ target: 'delivery', effect: { refuse: true }, skip: 1 });
    registry.add({ target: 'job', match: { kind: 'analise' }, effect: { fail: true }, skip: 2 });
    const delivery = { url: 'https://hooks.example.com/in', eventType: 'webhook.teste', companyId: 'c1' } as const;
    expect([registry.takeDelivery(delivery)?.id, registry.takeDelivery(delivery)?.id]).toEqual([undefined, 'flt_1']);
    const job = { kind: 'analise', companyId: 'c1' } as const;
    expect([0, 1, 2].map(() => registry.takeJob(job)?.id)).toEqual([undefined, undefined, 'flt_2']);
  });

  it('refuses a skip that is not a whole number from 0 to 1,000,000', () => {
    const registry = new FaultRegistry();
    for (const skip of [-1, 1.5, '2', 1_000_001, null]) {
      expect(() => registry.add({ target: 'api', effect: unavailable, skip })).toThrow(
        new FaultInputError(
          `skip must be a whole number from 0 to 1000000, the matching occurrences the fault lets pass before it may fire; got ${JSON.stringify(skip)}.`,
          'skip',
        ),
      );
    }
    expect(registry.list()).toEqual([]);
  });
});

describe('FaultRegistry probability', () => {
  /** Which of `count` matching requests a fault of `probability` (times null) fires on, in a registry of `seed`. */
  const firings = (seed: number | string, probability: number, count = 200) => {
    const registry = new FaultRegistry(seed);
    registry.add({ target: 'api', match: { path: '/v1/empresa' }, effect: unavailable, times: null, probability });
    return Array.from({ length: count }, () =>
      registry.takeApi(request({ path: '/v1/empresa' }), 'arrival') ? 1 : 0,
    ).join('');
  };

  it('fires each matching occurrence with its probability, drawn from the seed: the same seed fires the same occurrences', () => {
    const once = firings(7, 0.3);
    expect(firings(7, 0.3)).toBe(once);
    expect(firings(8, 0.3)).not.toBe(once);
    expect(firings('7', 0.3)).not.toBe(once);
    // About 30% of 200 (the exact count is the seed's: 7 gives this many every run).
    const fired = [...once].filter((c) => c === '1').length;
    expect(fired).toBeGreaterThan(40);
    expect(fired).toBeLessThan(80);
  });

  it('probability 1, given or not, fires at every match and draws nothing', () => {
    expect(firings(7, 1, 50)).toBe('1'.repeat(50));
    // A fault of probability 1 between the draws of a probabilistic one moves none of them.
    const registry = new FaultRegistry(7);
    registry.add({ target: 'api', match: { path: '/v1/empresa' }, effect: unavailable, times: null, probability: 0.3 });
    registry.add({ target: 'api', match: { path: '/v1/contexto' }, effect: unavailable, times: null, probability: 1 });
    registry.add({ target: 'api', match: { path: '/v1/contexto' }, effect: unavailable, times: null });
    const seen = Array.from({ length: 200 }, () => {
      expect(registry.takeApi(request({ path: '/v1/contexto' }), 'arrival')).toBeDefined();
      return registry.takeApi(request({ path: '/v1/empresa' }), 'arrival') ? 1 : 0;
    }).join('');
    expect(seen).toBe(firings(7, 0.3));
  });

  it('counts firings, not matches, in `times` and `hits`', () => {
    const registry = new FaultRegistry(3);
    registry.add({ target: 'api', effect: unavailable, times: 3, probability: 0.5 });
    let matches = 0;
    let fired = 0;
    while (registry.list().length > 0) {
      matches++;
      if (registry.takeApi(request(), 'arrival')) fired++;
      if (fired === 1) expect(registry.list()[0]).toMatchObject({ times: 2, hits: 1, probability: 0.5 });
      expect(matches).toBeLessThan(100);
    }
    expect(fired).toBe(3);
    expect(matches).toBeGreaterThan(3);
  });

  it('leaves an occurrence its draw passed over to the next matching fault', () => {
    const registry = new FaultRegistry(11);
    const rare = registry.add({ target: 'api', effect: unavailable, times: null, probability: 0.2 }).id;
    const always = registry.add({ target: 'api', effect: { loseResponse: true }, times: null }).id;
    const ids = Array.from({ length: 100 }, () => registry.takeApi(request(), 'arrival')?.id);
    expect(new Set(ids)).toEqual(new Set([rare, always]));
    const [first, second] = registry.list();
    expect(first!.hits + second!.hits).toBe(100);
  });

  it('draws for delivery and job faults as well, from the same stream', () => {
    const registry = new FaultRegistry(5);
    registry.add({ target: 'delivery', effect: { refuse: true }, times: null, probability: 0.5 });
    registry.add({ target: 'job', match: { kind: 'analise' }, effect: { fail: true }, times: null, probability: 0.5 });
    const delivery = { url: 'https://hooks.example/x', eventType: 'webhook.teste', companyId: 'c1' } as const;
    const job = { kind: 'analise', companyId: 'c1' } as const;
    const seen = Array.from(
      { length: 100 },
      () => `${registry.takeDelivery(delivery) ? 1 : 0}${registry.takeJob(job) ? 1 : 0}`,
    ).join('');
    expect(seen).toMatch(/^[01]+$/);
    expect(seen).toContain('1');
    expect(seen).toContain('0');
    // A job fault that may fire keeps the runs of its job from being coalesced, as one that always fires does.
    expect(registry.armsJob(job)).toBe(true);
  });

  it('reset() removes every fault and draws from the start again; clear() keeps the stream where it is', () => {
    const registry = new FaultRegistry(7);
    const run = () => {
      registry.add({
        target: 'api',
        match: { path: '/v1/empresa' },
        effect: unavailable,
        times: null,
        probability: 0.3,
      });
      return Array.from({ length: 200 }, () =>
        registry.takeApi(request({ path: '/v1/empresa' }), 'arrival') ? 1 : 0,
      ).join('');
    };
    const first = run();
    expect(first).toBe(firings(7, 0.3));
    registry.clear();
    expect(run()).not.toBe(first);
    registry.reset();
    expect(registry.list()).toEqual([]);
    expect(run()).toBe(first);
  });
});

describe('FaultRegistry.damagesAnswers', () => {
  it("says whether an api fault the answer's sender carries out (reset, truncate, trickleMs) is armed", () => {
    const registry = new FaultRegistry();
    expect(registry.damagesAnswers).toBe(false);
    registry.add({ target: 'api', effect: { malformedJson: true } });
    registry.add({ target: 'api', effect: { loseResponse: true } });
    registry.add({ target: 'delivery', effect: { reset: true } });
    expect(registry.damagesAnswers).toBe(false);
    for (const effect of [{ reset: true }, { truncate: true }, { trickleMs: 100 }] as const) {
      const { id } = registry.add({ target: 'api', match: { path: '/v1/empresa' }, effect });
      expect(registry.damagesAnswers).toBe(true);
      registry.remove(id);
      expect(registry.damagesAnswers).toBe(false);
    }
    registry.add({ target: 'api', match: { path: '/v1/empresa' }, effect: { reset: true } });
    expect(registry.takeApi(request({ path: '/v1/contexto' }), 'arrival')?.effect).toEqual({ malformedJson: true });
    expect(registry.damagesAnswers).toBe(true);
    registry.clear();
    registry.add({ target: 'api', match: { path: '/v1/empresa' }, effect: { reset: true } });
    // Spent: no longer armed.
    expect(registry.takeApi(request({ path: '/v1/empresa' }), 'arrival')?.effect).toEqual({ reset: true });
    expect(registry.damagesAnswers).toBe(false);
  });
});

describe('what the armed api faults cost a request', () => {
  const long = `/v1/produtos/${'a'.repeat(15_000)}b`;
  /** The steps of matching `request` against every armed fault of `registry`. */
  const stepsOf = (registry: FaultRegistry, path: string) => {
    const before = globSteps.total;
    expect(registry.takeApi(request({ path }), 'arrival')).toBeUndefined();
    return globSteps.total - before;
  };
  const armed = (globs: readonly string[]) => {
    const registry = new FaultRegistry();
    for (const path of globs) registry.add({ target: 'api', match: { path }, effect: unavailable, times: null });
    return registry;
  };
  // 200 faults whose globs are long runs of ** and pieces, each reading the path to its end (none matches).
  const traversing = Array.from({ length: 200 }, (_, i) => `/v1/${'**a'.repeat(120)}**b${i}**`);
  /** One or two steps a character of the path as kept, for each fault: the bound a glob of ** and pieces keeps. */
  const bound = 200 * 2 * (MAX_PATH + 1);

  it('200 of 2,047 characters against a 15 KB path: nothing, the path as kept being shorter than their pieces', () => {
    const globs = Array.from({ length: 200 }, (_, i) => `/${'**a'.repeat(681)}**${String.fromCharCode(97 + (i % 26))}`);
    expect(globs.every((g) => g.length === 2047)).toBe(true);
    expect(stepsOf(armed(globs), long)).toBe(0);
  });

  it('200 that read all of a 15 KB path as kept, or a whole path of MAX_PATH characters: within the bound', () => {
    const registry = armed(traversing);
    expect(stepsOf(registry, long)).toBeLessThanOrEqual(bound);
    expect(stepsOf(registry, long.slice(0, MAX_PATH))).toBeLessThanOrEqual(bound);
    expect(stepsOf(registry, long.slice(0, MAX_PATH))).toBeGreaterThan(200 * (MAX_PATH - 20));
  });

  it('the bound catches a registry that matched the whole path sent, as it did before paths were kept cut', () => {
    const before = globSteps.total;
    for (const glob of traversing) new Glob(glob).matches(long);
    expect(globSteps.total - before).toBeGreaterThan(bound * 10);
  });

  it('a fault fires on a long path exactly where a journal filter of its glob keeps the path as kept', () => {
    const registry = armed(['/v1/produtos/**']);
    expect(registry.takeApi(request({ path: long }), 'arrival')).toBeDefined();
    // `/v1/produtos/*` could match the path sent (no `/` after the cut), but not every path that starts so.
    const segment = armed(['/v1/produtos/*']);
    expect(segment.takeApi(request({ path: long }), 'arrival')).toBeUndefined();
    expect(segment.takeApi(request({ path: long.slice(0, MAX_PATH) }), 'arrival')).toBeDefined();
  });
});

describe('faultEffects', () => {
  /** Values at and just past the edges of what `value` says its field takes: the first accepted, the second refused. */
  const edges = (value: FaultEffect['value']): [accepted: unknown[], refused: unknown[]] => {
    switch (value.kind) {
      case 'true':
        return [[true], [false, 'true']];
      case 'integer':
        return [
          [value.min, value.max],
          [value.min - 1, value.max + 1, value.min + 0.5],
        ];
      case 'choice':
        return [[...value.choices], [`${value.choices[0]}x`]];
      case 'url':
        return value.orTrue
          ? [['https://example.com/x', true], ['not a url']]
          : [['https://example.com/x'], ['not a url', true]];
    }
  };

  /** Where the schema disagrees with `effects`, each field tried at its edges (an optional one with its effect). */
  function disagreements(effects: readonly FaultEffect[]): string[] {
    const found: string[] = [];
    const tries = (effect: FaultEffect, field: string, value: unknown, others: Record<string, unknown>) => {
      try {
        new FaultRegistry().add({ target: effect.target, effect: { ...others, [field]: value } } as FaultInput);
        return true;
      } catch (error) {
        if (!(error instanceof FaultInputError)) throw error;
        return false;
      }
    };
    for (const effect of effects) {
      const own = { [effect.field]: edges(effect.value)[0][0] };
      for (const { field, value } of [effect, ...effect.options]) {
        const others = field === effect.field ? {} : own;
        const [accepted, refused] = edges(value);
        const said = (v: unknown, what: string) => found.push(`${effect.target} ${field} ${JSON.stringify(v)} ${what}`);
        for (const v of accepted) if (!tries(effect, field, v, others)) said(v, 'refused');
        for (const v of refused) if (tries(effect, field, v, others)) said(v, 'accepted');
      }
    }
    return found;
  }

  it("describes each effect as the schema takes it: its field, its value's kind and bounds, its options", () => {
    const effects = faultEffects();
    expect(effects.map(({ target, field }) => `${target} ${field}`)).toEqual([
      ...['status', 'loseResponse', 'concurrentEdit', 'delayMs', 'malformedJson', 'reset', 'truncate', 'trickleMs'].map(
        (f) => `api ${f}`,
      ),
      ...['status', 'redirect', 'timeout', 'refuse', 'reset', 'latencyMs', 'duplicate', 'tamper'].map(
        (f) => `delivery ${f}`,
      ),
      ...['fail', 'delayMs'].map((f) => `job ${f}`),
    ]);
    expect(effects[0]).toEqual({
      target: 'api',
      field: 'status',
      value: { kind: 'integer', min: 400, max: 599, unit: null },
      options: [{ field: 'retryAfter', value: { kind: 'integer', min: 0, max: 86_400, unit: 's' } }],
    });
    const inMs = effects.filter((e) => e.value.kind === 'integer' && e.value.unit === 'ms').map((e) => e.field);
    expect(inMs).toEqual(['delayMs', 'trickleMs', 'latencyMs', 'delayMs']);
    expect(disagreements(effects)).toEqual([]);
    expect(faultEffects()).toBe(effects);
  });

  it('the check finds a description that strays from the schema', () => {
    const effects = faultEffects();
    const wrong = effects.map((effect) =>
      effect.field === 'trickleMs' && effect.value.kind === 'integer'
        ? { ...effect, value: { ...effect.value, max: effect.value.max + 1 } }
        : effect,
    );
    expect(disagreements(wrong)).toEqual(['api trickleMs 60001 refused']);
    const notTrue = { kind: 'url', orTrue: false } as const;
    const notUrl = effects.map((effect) => (effect.field === 'redirect' ? { ...effect, value: notTrue } : effect));
    expect(disagreements(notUrl)).toEqual(['delivery redirect true accepted']);
  });
});
