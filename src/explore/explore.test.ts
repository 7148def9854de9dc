/**
 * explore() against scripted clients of one small integration (a catalog for the head office, two products, an
 * edit of one): a correct client passes every run; each client with one planted mistake is found, by the oracle
 * its mistake trips, and shrunk to at most two faults; the same seed gives the same result; a failure's plan
 * replays to the same failure.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createEmulator,
  explore,
  formatReport,
  toldVerdict,
  exploreRuns,
  formatExploration,
  isFaultPlan,
  verifyWebhook,
  type ExploreRun,
  type FaultPlan,
} from '../index.js';

const NCM = '84713012';

/** The mistakes a client can be written with, one at a time. */
type Mistake =
  | 'none'
  | 'new-key-on-retry' // a lost create retried under a new idempotency-key
  | 'precondition-taken-as-done' // a 412 taken as if the edit were applied
  | 'no-retry-on-503' // a 503 given up on: the run fails
  | 'retry-without-reading' // a 412 retried with the same stale ETag until it gives up
  | 'event-applied-twice'; // the webhook receiver applies every delivery, a duplicate too

/** A client of the integration with `mistake`; retries what can be retried, as a correct client does. */
function client(mistake: Mistake) {
  let keys = 0;
  const newKey = (what: string) => `${what}-key-${String(++keys).padStart(12, '0')}`;
  return async function integrate({ fetch, token, sleep, emulator }: ExploreRun): Promise<void> {
    /** Sends until an answer that is not a transient failure; the write's key stays the same across retries. */
    const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      let key = method === 'GET' ? undefined : newKey(method.toLowerCase());
      for (let attempt = 1; ; attempt++) {
        let parsed:
          | { status: number; etag: string | null; retryAfter: string | null; body: Record<string, unknown> }
          | undefined;
        try {
          const answer = await fetch(path, {
            method,
            headers: {
              authorization: `Bearer ${token}`,
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
              ...(key === undefined ? {} : { 'idempotency-key': key }),
              ...headers,
            },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
          const text = await answer.text();
          const { status, headers: got } = answer;
          const json = text === '' ? {} : JSON.parse(text);
          parsed = { status, etag: got.get('etag'), retryAfter: got.get('retry-after'), body: json };
        } catch {
          parsed = undefined; // a reset, a truncated or malformed answer: transient
        }
        if (parsed !== undefined && parsed.status !== 503 && parsed.status !== 429) return parsed;
        if (parsed?.status === 503 && mistake === 'no-retry-on-503') throw new Error(`${method} ${path} answered 503`);
        if (attempt >= 5) throw new Error(`${method} ${path} still failing after ${attempt} attempts`);
        if (mistake === 'new-key-on-retry' && key !== undefined) key = newKey(method.toLowerCase());
        // Retry-After is a wait the service asks for: the run's virtual clock moves by it.
        await sleep(Number(parsed?.retryAfter ?? 0) * 1000);
      }
    };
    const establishments = await send('GET', '/v1/estabelecimentos');
    if (establishments.status !== 200) throw new Error(`establishments: ${establishments.status}`);
    const headOffice = (establishments.body.itens as { id: string }[])[0]!.id;
    const catalog = await send('POST', '/v1/catalogos', { estabelecimento_id: headOffice, nome: 'Loja' });
    if (catalog.status !== 201) throw new Error(`catalog: ${catalog.status}`);
    const catalogId = catalog.body.id as string;
    const products: { id: string; etag: string }[] = [];
    for (const sku of ['SKU-1', 'SKU-2']) {
      const created = await send('POST', `/v1/catalogos/${catalogId}/produtos`, { origem: 'erp', ncm: NCM, sku });
      if (created.status !== 201) throw new Error(`product ${sku}: ${created.status}`);
      products.push({ id: created.body.id as string, etag: created.etag! });
    }
    // A guarded write: a 412 means another client saved first; re-read and send again (the mistakes skip this).
    const guarded = async (what: string, method: string, path: string, read: string, body: unknown, etag: string) => {
      for (let attempt = 1; ; attempt++) {
        const written = await send(method, path, body, { 'if-match': etag });
        if (written.status !== 412) return written;
        if (mistake === 'precondition-taken-as-done') return written;
        if (attempt >= 5) throw new Error(`${what}: still 412 after 5 attempts`);
        if (mistake !== 'retry-without-reading') etag = (await send('GET', read)).etag!;
      }
    };
    const product = `/v1/produtos/${products[0]!.id}`;
    const edited = await guarded('edit', 'PATCH', product, product, { descricao: 'Notebook' }, products[0]!.etag);
    if (edited.status !== 200 && edited.status !== 412) throw new Error(`edit: ${edited.status}`);

    // The webhook receiver (in process, where the destination's URL is routed): it verifies each delivery and
    // applies each event once, recording its id as it applies it.
    const applied: string[] = [];
    let secret = '';
    emulator.network.route('https://hooks.example.com', async (request) => {
      const body = await request.text();
      const verified = verifyWebhook({ secret, headers: request.headers, body, now: emulator.clock.now() });
      if (!verified.ok) return new Response(null, { status: 400 });
      if (mistake === 'event-applied-twice' || !applied.includes(verified.event.id)) applied.push(verified.event.id);
      return new Response(null, { status: 200 });
    });
    const destination = await send(
      'PUT',
      '/v1/webhook',
      { url: 'https://hooks.example.com/catalog' },
      { 'if-none-match': '*' },
    );
    if (destination.status !== 201 && destination.status !== 200) throw new Error(`webhook: ${destination.status}`);
    secret = destination.body.segredo as string;
    const test = await guarded('test event', 'POST', '/v1/webhook/testes', '/v1/webhook', {}, destination.etag!);
    if (test.status !== 202) throw new Error(`test event: ${test.status}`);
    // The deliveries, their retries after a failed attempt too, are done within the hour.
    await sleep(60 * 60_000);
    if (applied.length !== 1)
      throw new Error(`the receiver applied ${applied.length} events, not 1: ${applied.join(', ')}`);
  };
}

/**
 * A client that asks for a full-company analysis and waits for it: it polls its state each minute of the run's
 * clock, and asks again for one that failed. Its mistakes: reading the state once, after the two minutes a run
 * usually takes; taking a failed analysis as the end.
 */
function analysisClient(mistake: 'none' | 'analysis-read-once' | 'failed-analysis-not-retried') {
  return async ({ fetch, token, sleep }: ExploreRun): Promise<void> => {
    let keys = 0;
    const call = async (method: string, path: string) => {
      const answer = await fetch(path, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(method === 'GET' ? {} : { 'idempotency-key': `analysis-key-${String(++keys).padStart(8, '0')}` }),
        },
      });
      return { status: answer.status, body: (await answer.json()) as { id: string; estado: string } };
    };
    let analysis = (await call('POST', '/v1/analises')).body;
    if (mistake === 'analysis-read-once') {
      await sleep(2 * 60_000);
      const { estado } = (await call('GET', `/v1/analises/${analysis.id}`)).body;
      if (estado !== 'concluida') throw new Error(`the analysis is ${estado}, not concluida`);
      return;
    }
    for (let minute = 1; minute <= 60; minute++) {
      await sleep(60_000);
      const { estado } = (await call('GET', `/v1/analises/${analysis.id}`)).body;
      if (estado === 'concluida') return;
      if (estado === 'falhou') {
        if (mistake === 'failed-analysis-not-retried') throw new Error('the analysis failed');
        analysis = (await call('POST', '/v1/analises')).body;
      }
    }
    throw new Error('no analysis concluded within the hour');
  };
}

describe('explore', () => {
  it('a correct client passes 200 runs: no exit, finding or outcome differs from the fault-free run', async () => {
    const result = await explore(client('none'), { runs: 200, seed: 7 });
    expect(result.failure, formatExploration(result)).toBeNull();
    expect([result.runs, result.passed]).toEqual([200, 200]);
  });

  it('a lost create retried under a new key: the finding and the outcome, shrunk to the one lost answer', async () => {
    const result = await explore(client('new-key-on-retry'), { seed: 7 });
    const failure = result.failure!;
    expect(failure, formatExploration(result)).not.toBeNull();
    expect(failure.faultFree).toBe(false);
    expect(failure.plan).toHaveLength(1);
    expect(failure.plan[0]).toMatchObject({ method: 'POST', effect: 'loseResponse' });
    expect(failure.reasons.map((r) => r.kind)).toEqual(expect.arrayContaining(['finding', 'outcome']));
    expect(failure.findings.map((f) => f.rule)).toContain('new-key-after-lost-answer');
    // The earliest lost create is the catalog's: its retry under a new key is refused (409), and nothing after it ran.
    expect(failure.plan[0]).toMatchObject({ target: 'api', path: '/v1/catalogos' });
    expect(failure.outcomeDiff).toContain('produtos "SKU-1": missing');
    expect(failure.shrunkFrom.length).toBeGreaterThanOrEqual(failure.plan.length);
  });

  it('a 412 taken as done: the outcome differs (the edit is missing), shrunk to the one concurrent edit', async () => {
    const result = await explore(client('precondition-taken-as-done'), { seed: 7 });
    const failure = result.failure!;
    expect(failure, formatExploration(result)).not.toBeNull();
    expect(failure.plan).toEqual([
      { target: 'api', method: 'PATCH', path: '/v1/produtos/*', nth: 1, effect: 'concurrentEdit' },
    ]);
    expect(failure.reasons).toEqual([{ kind: 'outcome', diff: ['produtos "SKU-1": descricao "Notebook" → null'] }]);
  });

  it('a 503 not retried: the scenario throws (exit), shrunk to one 503', async () => {
    const result = await explore(client('no-retry-on-503'), { seed: 7 });
    const failure = result.failure!;
    expect(failure, formatExploration(result)).not.toBeNull();
    expect(failure.plan).toHaveLength(1);
    expect(failure.plan[0]!.effect).toBe('status503');
    expect(failure.reasons[0]).toEqual({ kind: 'exit', message: expect.stringMatching(/answered 503$/) });
  });

  it("a webhook event applied twice: the receiver's own check fails (exit), shrunk to one delivery fault", async () => {
    const result = await explore(client('event-applied-twice'), { seed: 7 });
    const failure = result.failure!;
    expect(failure, formatExploration(result)).not.toBeNull();
    // The simplest delivery fault that makes the receiver see an event twice: a time-out after it applied it.
    expect(failure.plan).toEqual([{ target: 'delivery', eventType: 'webhook.teste', nth: 1, effect: 'timeout' }]);
    expect(failure.reasons).toEqual([
      { kind: 'exit', message: expect.stringMatching(/^the receiver applied 2 events, not 1: /) },
    ]);
    expect(formatExploration(result)).toMatch(
      /^a run fails under the plan: timeout on the 1st delivery of webhook\.teste \(shrunk from /,
    );
  });

  it('tells the emulator given as tell each run and the verdict: its explorations and its report show them', async () => {
    const watched = createEmulator();
    const told: string[] = [];
    const result = await explore(client('no-retry-on-503'), {
      seed: 7,
      tell: watched,
      onRun: (plan, reasons, phase) => told.push(`${phase} ${JSON.stringify(plan)} ${reasons.length}`),
    });
    const shown = watched.explorations.last()!;
    expect(shown).toMatchObject({ state: 'failed', seed: 7, runsAsked: 100, command: null, told: told.length });
    // The runs as told, in order, each with its phase: the fault-free run, the search, then the shrinking.
    expect(shown.recent.map((r) => `${r.phase} ${JSON.stringify(r.plan)} ${r.reasons.length}`)).toEqual(
      told.slice(-shown.recent.length),
    );
    expect(told[0]).toBe('fault-free [] 0');
    expect(shown.verdict).toEqual(toldVerdict(result));
    expect(shown.verdict?.failure?.reasons.map((r) => r.kind)).toEqual(['exit', 'outcome']);
    expect(watched.report().exploration).toEqual(shown);
    expect(formatReport(watched.report())).toContain(
      `## The last exploration: failed (seed 7, ${result.runs} runs): status503 on the 1st GET /v1/estabelecimentos`,
    );
    await watched.close();
  });

  it('job faults: a delayed analysis read once, and a failed one not asked again, are each found and shrunk to the one job fault', async () => {
    const faults = ['delay', 'fail'] as const;
    const correct = await explore(analysisClient('none'), { seed: 5, runs: 40, faults });
    expect(correct.failure, formatExploration(correct)).toBeNull();
    expect(correct.runs).toBe(40);
    const readOnce = await explore(analysisClient('analysis-read-once'), { seed: 5, faults });
    expect(readOnce.failure?.plan).toEqual([{ target: 'job', kind: 'analise', nth: 1, effect: 'delay' }]);
    expect(readOnce.failure?.reasons).toEqual([{ kind: 'exit', message: 'the analysis is pendente, not concluida' }]);
    expect(formatExploration(readOnce)).toMatch(
      /^a run fails under the plan: delay on the 1st run of the analise job /,
    );
    const notRetried = await explore(analysisClient('failed-analysis-not-retried'), { seed: 5, faults });
    expect(notRetried.failure?.plan).toEqual([{ target: 'job', kind: 'analise', nth: 1, effect: 'fail' }]);
    expect(notRetried.failure?.reasons).toEqual([{ kind: 'exit', message: 'the analysis failed' }]);
  });

  it("an invariant of the user's own fails a run whose outcome it rejects", async () => {
    // The correct client; an invariant that wants no more than one product with a description, which a concurrent
    // edit cannot break: it holds, then one that can never hold on this integration's outcome.
    const holds = await explore(client('none'), {
      runs: 20,
      seed: 3,
      invariant: (outcome) => Object.keys(outcome.produtos).length === 2,
    });
    expect(holds.failure, formatExploration(holds)).toBeNull();
    const broken = await explore(client('none'), {
      runs: 20,
      seed: 3,
      invariant: (outcome) => {
        if ('SKU-1' in outcome.produtos) throw new Error('SKU-1 must not exist');
      },
    });
    expect(broken.failure?.faultFree).toBe(true);
    expect(broken.failure?.reasons).toEqual([{ kind: 'invariant', message: 'SKU-1 must not exist' }]);
    expect(formatExploration(broken)).toMatch(/^the fault-free run itself fails: nothing was explored\n/);
    // A planted mistake only the invariant sees (the outcome's own comparison of the field left out): found, and
    // shrunk to the one fault.
    const lost = await explore(client('precondition-taken-as-done'), {
      seed: 7,
      ignore: ['produtos.descricao'],
      invariant: (outcome) =>
        (outcome.produtos['SKU-1'] as { descricao?: unknown }).descricao === 'Notebook' || 'SKU-1 lost its edit',
    });
    expect(lost.failure?.plan).toEqual([
      { target: 'api', method: 'PATCH', path: '/v1/produtos/*', nth: 1, effect: 'concurrentEdit' },
    ]);
    expect(lost.failure?.reasons).toEqual([{ kind: 'invariant', message: 'SKU-1 lost its edit' }]);
  });

  it('the same seed gives the same result, and the plan of a failure replays it exactly', async () => {
    const faults = ['status503', 'concurrentEdit'] as const;
    const [one, two] = [
      await explore(client('retry-without-reading'), { seed: 11, runs: 50, faults }),
      await explore(client('retry-without-reading'), { seed: 11, runs: 50, faults }),
    ];
    expect(JSON.stringify(one)).toBe(JSON.stringify(two));
    const failure = one.failure!;
    expect(failure, formatExploration(one)).not.toBeNull();
    const replayed = await explore(client('retry-without-reading'), { seed: 11, faults, replay: failure.plan });
    expect(replayed.runs).toBe(1);
    expect(replayed.failure?.reasons).toEqual(failure.reasons);
    expect(replayed.failure?.plan).toEqual(failure.plan);
  });

  it('ignore leaves a part of the outcome out of the comparison', async () => {
    const result = await explore(client('precondition-taken-as-done'), {
      seed: 7,
      ignore: ['produtos.descricao'],
    });
    expect(result.failure, formatExploration(result)).toBeNull();
  });

  it('a scenario that makes no request a fault can land on explores nothing, and says so: no pass', async () => {
    const result = await explore(() => undefined, { runs: 5 });
    expect(result).toEqual({
      seed: 1,
      runs: 0,
      passed: 0,
      failure: null,
      incomplete:
        'the fault-free run made no request or delivery a fault of the allowed effects can land on: nothing was explored',
    });
    expect(formatExploration(result)).toMatch(/^the search is incomplete: /);
    // Only loseResponse, which a GET never gets: a scenario of reads alone has nowhere to put one.
    const reads = await explore(
      ({ fetch, token }) => fetch('/v1/empresa', { headers: { authorization: `Bearer ${token}` } }),
      {
        faults: ['loseResponse'],
      },
    );
    expect(reads.incomplete).toMatch(/^the fault-free run made no request/);
  });

  it('refuses an unknown effect and a replay that is not a plan, before running anything', async () => {
    let ran = 0;
    const counting = () => void ran++;
    await expect(explore(counting, { faults: ['explode' as never] })).rejects.toThrow(
      /^faults must name effects among status503, loseResponse, status429, concurrentEdit, reset, truncate, malformedJson, status500, timeout, duplicate, tamper, fail, delay \(got "explode"\)$/,
    );
    expect(ran).toBe(0);
    await expect(explore(counting, { replay: [{ target: 'api' }] as unknown as FaultPlan })).rejects.toThrow(
      'replay must be a fault plan: the plan of a failure',
    );
  });
});

describe('a replay that is not a plan', () => {
  it('is told from a plan, whatever JSON it is, without throwing', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(typeof isFaultPlan(value)).toBe('boolean');
      }),
      { numRuns: 500 },
    );
  });

  it('is refused before anything runs: a TypeError, the runner never called', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        fc.pre(!isFaultPlan(value));
        let ran = 0;
        const runner = async () => {
          ran++;
          throw new Error('never');
        };
        await expect(exploreRuns(runner, { replay: value as never })).rejects.toThrow(
          new TypeError('replay must be a fault plan: the plan of a failure'),
        );
        expect(ran).toBe(0);
      }),
      { numRuns: 200 },
    );
  });
});
