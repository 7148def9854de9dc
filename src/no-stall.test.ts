/**
 * No query and no request can stall the server (docs/journal.md): the attack of a client that fills the journal
 * with requests of long paths (one without a credential is journaled too), then asks the journal, a company's
 * timeline and a fault's near-misses with globs of up to 2,048 characters, while 200 faults of long globs are armed.
 *
 * What each costs is counted in the matcher's steps (globSteps), never timed: a query holds the event loop for its
 * read of the kept entries (each of a bounded length) and for its matching, which stops at QUERY_STEPS; a request
 * holds it for its faults' matching of its path as kept. Every query answers 200, or 422 with the error body having
 * spent no more than its budget and one entry; nothing answers a 5xx.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator, type JournalEntry } from './index.js';
import { CUT, MAX_PATH } from './core/kept-text.js';
import { Glob, globSteps, MAX_GLOB } from './engine/glob.js';
import { pathMatches, QUERY_STEPS } from './engine/journal.js';

/** The requests of the attack: the journal's capacity. */
const REQUESTS = 10_000;
/**
 * Past MAX_PATH a path is kept as the same start whatever its length: a few of 15 KB, the others just past the bound
 * or exactly at it (kept whole), which leaves the test's own cost to the number of requests.
 */
const HUGE = `/v1/produtos/${'a'.repeat(15_000)}`;
const JUST_PAST = `/v1/produtos/${'a'.repeat(300)}`;
const AT_BOUND = `/v1/produtos/${'a'.repeat(MAX_PATH - '/v1/produtos/'.length)}`;
const pathOf = (i: number) => (i < 5 ? `${HUGE}${i}` : i % 2 === 0 ? `${JUST_PAST}${i}` : AT_BOUND);
/**
 * How each request is sent: the first few without a credential (401), three in ten with the company's (its timeline
 * and journal: 422, the id no uuid), the others a POST without one (405: no operation takes POST there), which costs
 * the server, and the test, least.
 */
const initOf = (i: number, token: string): RequestInit => {
  if (i < 5) return {};
  return i % 10 < 3 ? { headers: { authorization: `Bearer ${token}` } } : { method: 'POST' };
};

/** The glob: 2,047 characters of ** and pieces. */
const ATTACK = `/${'**a'.repeat(681)}**b`;
/** A glob that reads every kept path to its end with its states spread over words, none worthless: the costliest. */
const COSTLY = `/v1/**${'a'.repeat(200)}b**`;
/** The most one entry can add past the budget before the query stops: a kept path's characters, a word each. */
const ENTRY_STEPS = (MAX_PATH + 1) * ((MAX_GLOB >>> 5) + 1);

let emu: Emulator;
let companyId: string;
/** The journal's entries once the attack is over. */
let entries: JournalEntry[];
/** A fault armed before the attack with COSTLY: its near-misses are the 10,000 requests. */
let watching: string;

beforeAll(async () => {
  emu = createEmulator();
  const company = emu.companies.create();
  companyId = company.companyId;
  // A DELETE: no request of the attack reaches its glob, which its near-misses match against all of them.
  watching = emu.faults.add({ target: 'api', match: { method: 'DELETE', path: COSTLY }, effect: { status: 503 } }).id;
  for (let i = 0; i < REQUESTS; i++) await emu.fetch(pathOf(i), initOf(i, company.token));
  entries = emu.journal.find({});
}, 120_000);

afterAll(() => emu.close());

/** The answer to `path` and the steps of matching it took. */
async function measured(path: string): Promise<{ status: number; body: Record<string, unknown>; steps: number }> {
  const before = globSteps.total;
  const answer = await emu.fetch(path);
  const steps = globSteps.total - before;
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown>, steps };
}

const timeline = (query: string) => `/_emulator/inspector/companies/${companyId}/timeline?${query}`;
const glob = (pattern: string) => encodeURIComponent(pattern);

/** A refusal at its budget: 422 consulta_excede_orcamento with the error body, located where its glob was given. */
const overBudget = (caminho: string | undefined) => ({
  erro: {
    codigo: 'consulta_excede_orcamento',
    mensagem: expect.stringContaining(`more than ${QUERY_STEPS} steps`),
    request_id: '_emulator',
    ...(caminho === undefined ? {} : { caminho }),
  },
});

describe('the journal after 10,000 requests of long paths', () => {
  it('keeps each path to MAX_PATH characters, a longer one cut and marked "…"', () => {
    expect(entries).toHaveLength(REQUESTS);
    expect(Math.max(...entries.map((e) => e.path.length))).toBe(MAX_PATH + CUT.length);
    expect(entries[0]).toMatchObject({ path: `${HUGE.slice(0, MAX_PATH)}…`, status: 401, companyId: null });
    expect(entries[10]).toMatchObject({ path: `${pathOf(10).slice(0, MAX_PATH)}…`, status: 422, companyId });
    expect(entries[11]).toMatchObject({ path: pathOf(11), status: 422, companyId });
    expect(entries.at(-1)).toMatchObject({ path: pathOf(REQUESTS - 1), status: 405, companyId: null });
  });

  it("answers the issue's query, a 2,047-character glob, at once: no kept path holds its pieces", async () => {
    for (const query of [`/_emulator/requests/count?path=${glob(ATTACK)}`, timeline(`path=${glob(ATTACK)}`)]) {
      const { status, body, steps } = await measured(query);
      expect(status, JSON.stringify(body)).toBe(200);
      expect(steps).toBe(0);
    }
    // The faulty counterpart: the same glob over the paths as sent (what the journal kept before it cut them).
    const sent = new Glob(ATTACK);
    for (let i = 0; i < 5; i++) sent.matches(pathOf(i));
    expect(sent.steps * (REQUESTS / 5)).toBeGreaterThan(QUERY_STEPS * 10);
  });

  it('refuses a query whose matching would take more than its budget, spending at most it and one entry', async () => {
    // What the query would take, run to its end without a budget.
    const unbounded = new Glob(COSTLY);
    for (const entry of entries) pathMatches(unbounded, entry.path);
    expect(unbounded.steps).toBeGreaterThan(QUERY_STEPS);
    const queries = [
      `/_emulator/requests/count?path=${glob(COSTLY)}`,
      `/_emulator/requests?path=${glob(COSTLY)}&limit=10`,
      `/_emulator/companies/${companyId}/journal?path=${glob(COSTLY)}`,
      timeline(`path=${glob(COSTLY)}`),
    ];
    for (const query of queries) {
      const { status, body, steps } = await measured(query);
      expect(status, query).toBe(422);
      expect(body).toEqual(overBudget('query.path'));
      expect(steps).toBeGreaterThan(QUERY_STEPS);
      expect(steps).toBeLessThanOrEqual(QUERY_STEPS + ENTRY_STEPS);
    }
    const { status, body, steps } = await measured(`/_emulator/faults/${watching}/near-misses`);
    expect(status).toBe(422);
    expect(body).toEqual(overBudget(undefined));
    expect(steps).toBeLessThanOrEqual(QUERY_STEPS + ENTRY_STEPS);
  });

  it('answers a glob of fewer than 32 characters over all of it: one step a kept character at most', async () => {
    for (const pattern of ['/v1/produtos/a*a*a*a*a*a*a*', '/**a**a**a**a**a**a**']) {
      const { status, body, steps } = await measured(`/_emulator/requests/count?path=${glob(pattern)}`);
      expect(status, pattern).toBe(200);
      expect(body).toEqual({ count: expect.any(Number) });
      expect(steps).toBeLessThanOrEqual(REQUESTS * (MAX_PATH + 1));
    }
    const all = await measured(`/_emulator/requests/count?path=${glob('/v1/produtos/**')}`);
    expect(all.body).toEqual({ count: REQUESTS });
    // A path kept whole matches as it is; one kept cut only where every path with its start would.
    const whole = entries.filter((e) => e.path.length <= MAX_PATH).length;
    expect(whole).toBe(REQUESTS / 2 - 2);
    expect((await measured(`/_emulator/requests/count?path=${glob('/v1/produtos/*')}`)).body).toEqual({ count: whole });
  });

  it('200 armed faults of long globs cost a request with a 15 KB path two steps a kept character each', async () => {
    // Half the glob, half globs that read the whole path as kept (none matches it).
    const globOf = (i: number) => (i % 2 ? ATTACK : `/v1/${'**a'.repeat(120)}**b${i}**`);
    const add = (i: number) => emu.faults.add({ target: 'api', match: { path: globOf(i) }, effect: { status: 503 } });
    const ids = Array.from({ length: 200 }, (_, i) => add(i).id);
    try {
      const before = globSteps.total;
      const answer = await emu.fetch(`${HUGE}x`);
      // The fault armed before the attack (COSTLY) is checked too: 201 faults.
      expect(globSteps.total - before).toBeLessThanOrEqual(201 * ENTRY_STEPS);
      expect(globSteps.total - before).toBeLessThanOrEqual(200 * 2 * (MAX_PATH + 1) + ENTRY_STEPS);
      expect(answer.status).toBe(401);
    } finally {
      for (const id of ids) emu.faults.remove(id);
    }
  });
});

describe('any query of the journal, a timeline or near-misses', () => {
  it('answers 200, or 422 with the error body within its budget: never a 5xx', async () => {
    const piece = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('a', 'b', '/', 'v1', 'produtos', CUT, 'A') },
      { weight: 3, arbitrary: fc.constantFrom('*', '**') },
    );
    // From a few characters to past the longest a filter takes (refused: 422 valor_invalido).
    const short = fc.array(piece, { maxLength: 20 });
    const long = fc.array(piece, { minLength: 100, maxLength: 1_100 });
    const pattern = fc.oneof(short, long).map((p) => `/${p.join('')}`);
    const where = fc.constantFrom('requests/count', 'requests', 'journal', 'timeline', 'near-misses');
    const also = fc.constantFrom('', '&method=GET', '&status=4xx', '&limit=5', '&replayed=false');
    await fc.assert(
      fc.asyncProperty(pattern, where, also, async (path, at, extra) => {
        let query: string;
        let fault: string | undefined;
        if (at === 'near-misses') {
          const body = JSON.stringify({ target: 'api', match: { path }, effect: { status: 503 } });
          const json = { 'content-type': 'application/json' };
          const added = await emu.fetch('/_emulator/faults', { method: 'POST', headers: json, body });
          if (added.status !== 201) {
            expect(added.status).toBe(422);
            return;
          }
          fault = ((await added.json()) as { id: string }).id;
          query = `/_emulator/faults/${fault}/near-misses`;
        } else if (at === 'timeline') query = timeline(`path=${glob(path)}${extra === '&limit=5' ? '' : extra}`);
        else if (at === 'journal') query = `/_emulator/companies/${companyId}/journal?path=${glob(path)}${extra}`;
        else query = `/_emulator/${at}?path=${glob(path)}${extra}`;
        try {
          const { status, body, steps } = await measured(query);
          expect([200, 422], `${query}: ${JSON.stringify(body).slice(0, 300)}`).toContain(status);
          if (status === 422) {
            const located = 'caminho' in (body.erro as object) ? { caminho: expect.stringMatching(/^query\./) } : {};
            const codigo = expect.stringMatching(/^(valor_invalido|consulta_excede_orcamento)$/);
            const mensagem = expect.any(String);
            expect(body).toEqual({ erro: { codigo, mensagem, request_id: '_emulator', ...located } });
          }
          expect(steps).toBeLessThanOrEqual(QUERY_STEPS + ENTRY_STEPS);
        } finally {
          if (fault !== undefined) emu.faults.remove(fault);
        }
      }),
      { numRuns: 20 },
    );
  }, 120_000);
});
