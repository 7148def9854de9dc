/**
 * The journal's filter (JournalFilter, read by readJournalFilter) field by field and combined, the limit, the count,
 * the refusals, the numbering near-misses read the records since a mark by, and a record's text (packRecord).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keptPath, MAX_PATH } from '../core/kept-text.js';
import { Glob, globSteps } from './glob.js';
import {
  Journal,
  JournalFilterError,
  packRecord,
  readJournalFilter,
  unpackRecord,
  type JournalFilter,
  type JournalRecord,
} from './journal.js';
import { pathMatches, QUERY_STEPS, QueryBudgetError } from './journal.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const A = '019b76da-a800-7520-a337-00000000000a';
const B = '019b76da-a800-7520-a337-00000000000b';

let n = 0;
/** A record as the request path makes it, with the fields a test names. */
function record(fields: Partial<JournalRecord> = {}): JournalRecord {
  n++;
  return {
    at: T0,
    method: 'GET',
    path: '/v1/empresa',
    status: 200,
    codigo: null,
    requestId: `req-${n}`,
    companyId: A,
    idempotencyKey: null,
    replayed: false,
    faultId: null,
    operation: 'getCompany',
    ifMatch: null,
    fingerprint: null,
    retryAfter: null,
    lost: false,
    ...fields,
  };
}

/** A journal holding these records, and the request ids `filter` keeps. */
function journalOf(records: JournalRecord[]) {
  const journal = new Journal();
  for (const r of records) journal.record(r);
  return {
    journal,
    ids: (filter: JournalFilter) => journal.find(readJournalFilter(filter)).map((e) => e.requestId),
    count: (filter: JournalFilter) => journal.count(readJournalFilter(filter)),
  };
}

const RECORDS = [
  record({ requestId: 'get-a', at: T0 }),
  record({
    requestId: 'patch-412',
    method: 'PATCH',
    path: '/v1/produtos/p1',
    status: 412,
    codigo: 'precondicao_falhou',
    at: T0 + 1_000,
  }),
  record({
    requestId: 'patch-200',
    method: 'PATCH',
    path: '/v1/produtos/p2',
    status: 200,
    at: T0 + 2_000,
    companyId: B,
  }),
  record({
    requestId: 'patch-replay',
    method: 'PATCH',
    path: '/v1/produtos/p2',
    status: 200,
    replayed: true,
    at: T0 + 3_000,
    companyId: B,
  }),
  record({
    requestId: 'post-503',
    method: 'POST',
    path: '/v1/catalogos/c1/produtos',
    status: 503,
    codigo: 'servico_indisponivel',
    faultId: 'flt_1',
    at: T0 + 4_000,
  }),
  record({ requestId: 'anonymous-401', status: 401, codigo: 'nao_autenticado', companyId: null, at: T0 + 5_000 }),
  record({
    requestId: 'patch-412-again',
    method: 'PATCH',
    path: '/v1/produtos/p3',
    status: 412,
    codigo: 'precondicao_falhou',
    at: T0 + 6_000,
  }),
];

describe('a journal filter keeps the entries every field it gives holds for', () => {
  const { ids, count } = journalOf(RECORDS);

  it.each<[string, JournalFilter, string[]]>([
    ['no field: every entry', {}, RECORDS.map((r) => r.requestId)],
    ['companyId', { companyId: B }, ['patch-200', 'patch-replay']],
    ['method, any case', { method: 'patch' }, ['patch-412', 'patch-200', 'patch-replay', 'patch-412-again']],
    [
      'path, a glob: * within a segment',
      { path: '/v1/produtos/*' },
      ['patch-412', 'patch-200', 'patch-replay', 'patch-412-again'],
    ],
    ['path: * stops at /', { path: '/v1/catalogos/*' }, []],
    ['path: ** crosses /', { path: '/v1/catalogos/**' }, ['post-503']],
    ['path: case-insensitive', { path: '/V1/EMPRESA' }, ['get-a', 'anonymous-401']],
    ['status, a number', { status: 412 }, ['patch-412', 'patch-412-again']],
    ['status, a class', { status: '4xx' }, ['patch-412', 'anonymous-401', 'patch-412-again']],
    ['status, another class', { status: '5xx' }, ['post-503']],
    ['codigo', { codigo: 'precondicao_falhou' }, ['patch-412', 'patch-412-again']],
    ['from, inclusive', { from: '2026-01-01T00:00:04Z' }, ['post-503', 'anonymous-401', 'patch-412-again']],
    ['to, exclusive', { to: '2026-01-01T00:00:02.000Z' }, ['get-a', 'patch-412']],
    ['from and to, a Date', { from: new Date(T0 + 2_000), to: new Date(T0 + 4_000) }, ['patch-200', 'patch-replay']],
    ['from, a date alone: its midnight UTC', { from: '2026-01-01' }, RECORDS.map((r) => r.requestId)],
    ['from, another zone', { from: '2025-12-31T21:00:05-03:00' }, ['anonymous-401', 'patch-412-again']],
    ['replayed: true', { replayed: true }, ['patch-replay']],
    ['replayed: false', { replayed: false }, RECORDS.filter((r) => !r.replayed).map((r) => r.requestId)],
    ['faultId', { faultId: 'flt_1' }, ['post-503']],
    ['limit: the most recent, oldest first', { limit: 2 }, ['anonymous-401', 'patch-412-again']],
    ['limit beyond the entries: all of them', { limit: 100 }, RECORDS.map((r) => r.requestId)],
    [
      'combined: method, path and status',
      { method: 'PATCH', path: '/v1/produtos/*', status: 412 },
      ['patch-412', 'patch-412-again'],
    ],
    ['combined: company and class', { companyId: A, status: '4xx' }, ['patch-412', 'patch-412-again']],
    [
      'combined, with a limit: the most recent of those kept',
      { method: 'PATCH', limit: 2 },
      ['patch-replay', 'patch-412-again'],
    ],
    ['a field given undefined: as if absent', { method: undefined }, RECORDS.map((r) => r.requestId)],
  ])('%s', (_, filter, expected) => {
    expect(ids(filter)).toEqual(expected);
    expect(count(filter)).toBe(expected.length);
  });
});

describe('a filter that is not one is refused, naming the field', () => {
  const refusal = (filter: unknown): JournalFilterError => {
    try {
      readJournalFilter(filter);
    } catch (error) {
      expect(error).toBeInstanceOf(JournalFilterError);
      expect(error).toBeInstanceOf(TypeError);
      return error as JournalFilterError;
    }
    throw new Error(`${JSON.stringify(filter)} was read`);
  };

  it.each<[string, unknown, string, string]>([
    [
      'an unknown field',
      { staus: 500 },
      'staus',
      '"staus" is not a filter of the journal; the filters are companyId, method, path, status, codigo, from, to, replayed, faultId, limit.',
    ],
    [
      "a field of Object's prototype",
      { toString: 'x' },
      'toString',
      '"toString" is not a filter of the journal; the filters are companyId, method, path, status, codigo, from, to, replayed, faultId, limit.',
    ],
    [
      'a method that is no word',
      { method: 'GET /' },
      'method',
      'method must be an HTTP method (GET, POST, PUT, PATCH, DELETE, …; any case); got "GET /".',
    ],
    [
      'a path without its /',
      { path: 'v1/produtos' },
      'path',
      'path must be a glob of 1 to 2048 characters starting with "/" ("*" is any run of characters but "/", "**" any run at all); got "v1/produtos".',
    ],
    [
      'a path too long',
      { path: `/${'a'.repeat(2048)}` },
      'path',
      expect.stringMatching(/^path must be a glob of 1 to 2048 characters/) as unknown as string,
    ],
    [
      'a status out of range',
      { status: 700 },
      'status',
      'status must be a status (100 to 599) or a class of them (1xx, 2xx, 3xx, 4xx, 5xx); got 700.',
    ],
    [
      'a status class that is none',
      { status: '6xx' },
      'status',
      'status must be a status (100 to 599) or a class of them (1xx, 2xx, 3xx, 4xx, 5xx); got "6xx".',
    ],
    [
      'a status as text',
      { status: '404' },
      'status',
      'status must be a status (100 to 599) or a class of them (1xx, 2xx, 3xx, 4xx, 5xx); got "404".',
    ],
    ['an empty codigo', { codigo: '' }, 'codigo', 'codigo must be an error code (precondicao_falhou, …); got "".'],
    [
      'from without a zone',
      { from: '2026-01-01T10:00:00' },
      'from',
      'from must be an ISO 8601 instant (2026-01-01T10:00:00Z, or a date: its midnight UTC), inclusive; got "2026-01-01T10:00:00".',
    ],
    [
      'to, not ISO 8601',
      { to: 'Jan 1 2026' },
      'to',
      'to must be an ISO 8601 instant (2026-01-01T10:00:00Z, or a date: its midnight UTC), exclusive, after from; got "Jan 1 2026".',
    ],
    [
      'to, an invalid Date',
      { to: new Date(Number.NaN) },
      'to',
      'to must be an ISO 8601 instant (2026-01-01T10:00:00Z, or a date: its midnight UTC), exclusive, after from; got Invalid Date.',
    ],
    [
      'from, a day its month does not have',
      { from: '2026-02-30' },
      'from',
      'from must be an ISO 8601 instant (2026-01-01T10:00:00Z, or a date: its midnight UTC), inclusive; got "2026-02-30".',
    ],
    [
      'a method that is a Date',
      { method: new Date(T0) },
      'method',
      'method must be an HTTP method (GET, POST, PUT, PATCH, DELETE, …; any case); got "2026-01-01T00:00:00.000Z".',
    ],
    [
      'to not after from',
      { from: '2026-01-02', to: '2026-01-01' },
      'to',
      'to must be after from (from is inclusive, to exclusive): 2026-01-02T00:00:00.000Z to 2026-01-01T00:00:00.000Z keeps nothing.',
    ],
    ['replayed as text', { replayed: 'yes' }, 'replayed', 'replayed must be true or false; got "yes".'],
    ['a faultId that is no text', { faultId: 1 }, 'faultId', "faultId must be a fault's id (flt_1, …); got 1."],
    ['a limit of 0', { limit: 0 }, 'limit', 'limit must be an integer from 1 to 10000; got 0.'],
    ['a limit past the journal', { limit: 10_001 }, 'limit', 'limit must be an integer from 1 to 10000; got 10001.'],
    ['a fractional limit', { limit: 1.5 }, 'limit', 'limit must be an integer from 1 to 10000; got 1.5.'],
    [
      'no object',
      'GET',
      '',
      'A journal filter is an object of companyId, method, path, status, codigo, from, to, replayed, faultId, limit (each optional); got "GET".',
    ],
    [
      'an array',
      [],
      '',
      'A journal filter is an object of companyId, method, path, status, codigo, from, to, replayed, faultId, limit (each optional); got [].',
    ],
  ])('%s', (_, filter, field, message) => {
    const error = refusal(filter);
    expect(error.field).toBe(field);
    expect(error.message).toEqual(message);
  });
});

describe('the records since a mark', () => {
  it('are those recorded after it, whatever was dropped since', () => {
    const journal = new Journal();
    journal.record(record({ requestId: 'before', companyId: A }));
    const mark = journal.mark;
    journal.record(record({ requestId: 'a-after', companyId: A }));
    journal.record(record({ requestId: 'b-after', companyId: B }));
    journal.record(record({ requestId: 'a-later', companyId: A }));
    expect(journal.recordsSince(mark).map((r) => r.requestId)).toEqual(['a-after', 'b-after', 'a-later']);
    // A company's entries dropped (its reset): the others since the mark stay, and none from before comes back.
    journal.clear((entry) => entry.companyId === B);
    expect(journal.recordsSince(mark).map((r) => r.requestId)).toEqual(['a-after', 'a-later']);
    expect(journal.recordsSince(journal.mark)).toEqual([]);
    journal.clear();
    expect(journal.recordsSince(mark)).toEqual([]);
    // The numbering goes on after a clear: a mark taken before it never reaches records from before.
    journal.record(record({ requestId: 'after-clear' }));
    expect(journal.recordsSince(mark).map((r) => r.requestId)).toEqual(['after-clear']);
  });

  it('are within the last 10,000 once the journal rotates', () => {
    const journal = new Journal();
    const mark = journal.mark;
    for (let i = 0; i < 15_001; i++) journal.record(record({ requestId: `r${i}` }));
    const since = journal.recordsSince(mark);
    expect(since).toHaveLength(10_000);
    expect(since[0]!.requestId).toBe('r5001');
    expect(journal.recordsSince(mark + 14_000).map((r) => r.requestId)).toEqual(
      Array.from({ length: 1_001 }, (_, i) => `r${14_000 + i}`),
    );
    expect(journal.find(readJournalFilter({ limit: 1 })).map((e) => e.requestId)).toEqual(['r15000']);
    expect(journal.count(readJournalFilter({}))).toBe(10_000);
  });
});

describe('a record as the journal keeps it', () => {
  // Any text at all, line breaks, commas, digits and lone surrogates included: a client's path is percent-decoded.
  const text = fc.string({ unit: 'binary', maxLength: 40 });
  const optional = fc.option(text, { nil: null });
  const records: fc.Arbitrary<JournalRecord> = fc.record({
    // The clock's instants: whole milliseconds.
    at: fc.integer({ min: -8.64e15, max: 8.64e15 }),
    method: text,
    path: text,
    status: fc.integer({ min: 0, max: 999 }),
    codigo: optional,
    requestId: text,
    companyId: optional,
    idempotencyKey: optional,
    replayed: fc.boolean(),
    faultId: optional,
    operation: optional,
    ifMatch: fc.option(fc.array(text, { minLength: 1, maxLength: 4 }), { nil: null }),
    fingerprint: optional,
    retryAfter: fc.option(fc.integer({ min: 0, max: 1e6 }), { nil: null }),
    lost: fc.boolean(),
  });

  it('comes back from its text exactly as it was recorded, whatever its strings hold', () => {
    fc.assert(
      fc.property(records, (r) => {
        expect(unpackRecord(packRecord(r))).toEqual(r);
      }),
      { numRuns: 2_000 },
    );
  });

  it('comes back through the journal exactly, before and after the ring wraps and a company is cleared from it', () => {
    fc.assert(
      fc.property(
        fc.array(records, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 0, max: 10_005 }),
        (some, filler) => {
          const journal = new Journal();
          // Enough records before them that the ring wraps around its end for some runs.
          for (let i = 0; i < filler; i++) journal.record(record({ companyId: B }));
          for (const r of some) journal.record(r);
          const ours = some.filter((r) => r.companyId !== B);
          expect(journal.recordsSince(journal.mark - some.length)).toEqual(some);
          journal.clear((entry) => entry.companyId === B);
          expect(journal.recordsSince(0)).toEqual(ours);
          journal.record(record({ requestId: 'after' }));
          expect(journal.recordsSince(0).map((r) => r.requestId)).toEqual([...ours.map((r) => r.requestId), 'after']);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('a path the journal keeps cut', () => {
  const long = `/v1/produtos/${'a'.repeat(15_000)}`;
  const kept = keptPath(long);

  it('is kept as its start and "…", and read back so', () => {
    const { journal } = journalOf([record({ requestId: 'long', path: kept })]);
    expect(journal.list()[0]!.path).toBe(`/v1/produtos/${'a'.repeat(MAX_PATH - '/v1/produtos/'.length)}…`);
  });

  it.each<[string, boolean]>([
    // Every path that starts so matches these.
    ['/v1/**', true],
    ['/v1/produtos/**', true],
    ['/v1/produtos/aaa**', true],
    // These depend on what was cut off: the journal can't know, and keeps nothing it can't know.
    ['/v1/produtos/*', false],
    ['/v1/produtos/**a', false],
    ['/v1/**/produtos/*', false],
    // The mark is no character of the path.
    ['/v1/produtos/*…', false],
    ['/v1/**…', false],
    ['/**…**', false],
  ])('a filter of %s keeps it: %s', (path, expected) => {
    const { ids } = journalOf([record({ requestId: 'long', path: kept })]);
    expect(ids({ path })).toEqual(expected ? ['long'] : []);
  });

  it('the mark would match a glob read as path text: the check above catches that mistake', () => {
    // The faulty counterpart: the glob run over the kept text as if it were the path.
    expect(new Glob('/v1/produtos/*…').matches(kept)).toBe(true);
    expect(pathMatches(new Glob('/v1/produtos/*…'), kept)).toBe(false);
  });

  it('a path of exactly MAX_PATH characters is whole, and matched as it is', () => {
    const whole = `/v1/produtos/${'a'.repeat(MAX_PATH - '/v1/produtos/'.length - 1)}…`;
    expect(whole).toHaveLength(MAX_PATH);
    const { ids } = journalOf([record({ requestId: 'whole', path: keptPath(whole) })]);
    expect(ids({ path: '/v1/produtos/*…' })).toEqual(['whole']);
    expect(ids({ path: '/v1/produtos/*' })).toEqual(['whole']);
  });
});

describe('a query on a budget of steps', () => {
  // A full journal of the longest whole paths, as any client can leave it (a request without a credential is
  // journaled too): `/v1/produtos/aaaa…` of MAX_PATH characters.
  const path = `/v1/produtos/${'a'.repeat(MAX_PATH - '/v1/produtos/'.length)}`;
  // The first hundred of company B, the others of no company.
  const companyOf = (i: number) => (i < 100 ? B : null);
  const records = Array.from({ length: 10_000 }, (_, i) =>
    record({ requestId: `r${i}`, path, companyId: companyOf(i) }),
  );
  const { journal } = journalOf(records);
  /** The steps of matching `glob` against each of `records`' paths, without a budget: what a query would cost. */
  const unbudgeted = (glob: string) => {
    const g = new Glob(glob);
    for (const r of records) g.matches(r.path);
    return g.steps;
  };
  /**
   * A glob whose states spread over several words on such a path, none of them worthless: after `**`, a long piece
   * that starts again at every character of the run of `a`.
   */
  const costly = `/v1/**${'a'.repeat(200)}b`;

  it('a query whose glob would take more steps is refused, having spent no more than the budget and one entry', () => {
    expect(unbudgeted(costly)).toBeGreaterThan(QUERY_STEPS);
    const before = globSteps.total;
    let refusal: unknown;
    try {
      journal.count(readJournalFilter({ path: costly }));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(QueryBudgetError);
    const said = expect.stringContaining(`more than ${QUERY_STEPS} steps`);
    expect(refusal).toMatchObject({ field: 'path', message: said });
    const oneEntry = MAX_PATH * ((costly.length >>> 5) + 1);
    expect(globSteps.total - before).toBeLessThanOrEqual(QUERY_STEPS + oneEntry);
  });

  it('the same glob answers once other filters leave fewer paths to match: they are tried first', () => {
    let before = globSteps.total;
    expect(journal.count(readJournalFilter({ path: costly, companyId: B }))).toBe(0);
    expect(globSteps.total - before).toBeLessThanOrEqual(QUERY_STEPS);
    before = globSteps.total;
    expect(journal.count(readJournalFilter({ method: 'DELETE', path: costly }))).toBe(0);
    expect(globSteps.total - before).toBe(0);
  });

  it('a glob of fewer than 32 characters is never refused: one step a character at most', () => {
    const globs = ['/v1/produtos/*', '/v1/**', '/v1/**/produtos/*', '/v1/**a**a**a**b', '/*/*/*a*a*a*a*a*a*a*a*a*ab'];
    for (const glob of globs) {
      expect(glob.length).toBeLessThan(32);
      const before = globSteps.total;
      expect(() => journal.count(readJournalFilter({ path: glob }))).not.toThrow();
      expect(globSteps.total - before, glob).toBeLessThanOrEqual(10_000 * MAX_PATH);
    }
  });

  it("the attack's glob, 2,048 characters of ** and pieces, costs nothing on paths shorter than its pieces", () => {
    const before = globSteps.total;
    const attack = `/${'**a'.repeat(681)}**b`;
    expect(attack).toHaveLength(2047);
    expect(journal.count(readJournalFilter({ path: attack }))).toBe(0);
    expect(globSteps.total - before).toBe(0);
  });
});
