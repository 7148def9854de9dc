/**
 * explore() in process: 100 fault plans against a scenario of 20 requests (a catalog, then nine products each
 * created and edited, written right: every run passes, so every plan runs). The time of the whole search, the
 * fault-free run included, against the project's bar of 2 s.
 */
import { explore, type ExploreRun } from '../src/index.js';
import { fmt, type Row, type Target } from './support.js';

const RUNS = 100;
const BAR_MS = 2000;

/** The integration: 20 requests, retried with the same key after a transient failure, re-read after a 412. */
async function scenario({ fetch, token, sleep }: ExploreRun): Promise<void> {
  let keys = 0;
  const send = async (method: string, path: string, body?: unknown, ifMatch?: string) => {
    const key = `bench-explore-${String(++keys).padStart(8, '0')}`;
    for (let attempt = 1; attempt <= 5; attempt++) {
      try {
        const answer = await fetch(path, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'idempotency-key': key,
            ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await answer.text();
        if (answer.status !== 503 && answer.status !== 429)
          return { status: answer.status, etag: answer.headers.get('etag'), body: JSON.parse(text) };
        await sleep(Number(answer.headers.get('retry-after') ?? 1) * 1000);
      } catch {
        // a reset, a cut or malformed answer: again
      }
    }
    throw new Error(`${method} ${path}: no answer`);
  };
  const [headOffice] = (await send('GET', '/v1/estabelecimentos')).body.itens;
  const catalog = await send('POST', '/v1/catalogos', { estabelecimento_id: headOffice.id, nome: 'Loja' });
  for (let i = 1; i <= 9; i++) {
    const sku = `SKU-${i}`;
    const created = await send('POST', `/v1/catalogos/${catalog.body.id}/produtos`, {
      origem: 'erp',
      ncm: '84713012',
      sku,
    });
    let etag = created.etag as string;
    for (;;) {
      const edited = await send('PATCH', `/v1/produtos/${created.body.id}`, { descricao: `Produto ${i}` }, etag);
      if (edited.status !== 412) break;
      etag = (await send('GET', `/v1/produtos/${created.body.id}`)).etag!;
    }
  }
}

export async function exploreCost(): Promise<{ rows: Row[]; targets: Target[] }> {
  const t0 = performance.now();
  const result = await explore(scenario, { runs: RUNS, seed: 1 });
  const ms = performance.now() - t0;
  if (result.failure !== null || result.incomplete !== null)
    throw new Error(
      `the bench's scenario should pass every run: ${JSON.stringify(result.failure ?? result.incomplete)}`,
    );
  return {
    rows: [
      {
        figure: `explore(): ${RUNS} fault plans, a 20-request scenario, in process (ms)`,
        value: fmt(ms),
        reference: `bar ${fmt(BAR_MS)} ms`,
        ratio: `${fmt(ms / (RUNS + 1), 1)} ms/run`,
      },
    ],
    targets: [
      {
        bar: `explore(): ${RUNS} runs of a 20-request scenario under ${fmt(BAR_MS)} ms`,
        holds: ms < BAR_MS,
        numbers: `${fmt(ms)} ms`,
      },
    ],
  };
}
