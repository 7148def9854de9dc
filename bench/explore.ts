/**
 * explore() in process: 100 fault plans against a scenario of 20 requests (a catalog, then nine products each
 * created and edited, written right: every run passes, so every plan runs). The time of the whole search, the
 * fault-free run included, against the project's bar of 2 s, after a search of 10 runs that warms the code up (a
 * suite's second search; its first pays for compiling the emulator's paths, some 0.5 s here, whatever it explores).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { explore, type ExploreRun } from '../src/index.js';
import { createEmulator, fmt, type Row, type Target } from './support.js';

const RUNS = 100;
const WARM_UP_RUNS = 10;
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

const CLI = fileURLToPath(new URL('../dist/bin/catalog-emulator.js', import.meta.url));
/** The integration the CLI's tests explore: a catalog, a product and its edit, over HTTP, in a Node process. */
const INTEGRATION = fileURLToPath(new URL('../bin/__fixtures__/integration.mjs', import.meta.url));
const CLI_RUNS = 30;
const CLI_BAR_MS = 100;

/** Runs `args` to its end; its wall time in ms, or an error saying how it ended. */
function timed(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`${args.join(' ')}: exit ${code}\n${stderr}`)),
    );
  });
}

/**
 * The CLI's own cost per run: `catalog-emulator explore --runs 30 --url …` (31 runs, the fault-free one included)
 * against the same command run 31 times by hand on one company of the same server, each measured three times,
 * interleaved, the faster taken. What is left per run is the explorer's: its process's start spread over the runs,
 * each run's company made and removed, its faults armed, the journal, findings and outcome read back.
 */
async function cliCost(): Promise<{ row: Row; target: Target }> {
  const emulator = createEmulator({ clock: 'real' });
  const server = await emulator.listen({ port: 0 });
  try {
    const env = { ...process.env, NODE_OPTIONS: '' };
    const byHand = async () => {
      let ms = 0;
      for (let i = 0; i <= CLI_RUNS; i++) {
        const { companyId, token } = emulator.companies.create({ clock: 'own' });
        const run = {
          CATALOG_EMULATOR_URL: server.url,
          CATALOG_EMULATOR_TOKEN: token,
          CATALOG_EMULATOR_COMPANY_ID: companyId,
        };
        ms += await timed(process.execPath, [INTEGRATION], { ...env, ...run });
        emulator.companies.remove(companyId);
      }
      return ms;
    };
    const explored = () =>
      timed(
        process.execPath,
        [CLI, 'explore', '--runs', String(CLI_RUNS), '--url', server.url, '--', process.execPath, INTEGRATION],
        env,
      );
    const hand: number[] = [];
    const cli: number[] = [];
    for (let round = 0; round < 3; round++) {
      hand.push(await byHand());
      cli.push(await explored());
    }
    const perRun = (Math.min(...cli) - Math.min(...hand)) / (CLI_RUNS + 1);
    return {
      row: {
        figure: `catalog-emulator explore: its own cost per run, beyond the command's (ms)`,
        value: fmt(perRun, 1),
        reference: `bar ${fmt(CLI_BAR_MS)} ms`,
        ratio: `${fmt(Math.min(...cli) / (CLI_RUNS + 1))} ms/run in all`,
      },
      target: {
        bar: `catalog-emulator explore: its own cost per run under ${fmt(CLI_BAR_MS)} ms`,
        holds: perRun < CLI_BAR_MS,
        numbers: `${fmt(perRun, 1)} ms (${fmt(Math.min(...cli))} ms for ${CLI_RUNS + 1} runs, ${fmt(Math.min(...hand))} ms by hand)`,
      },
    };
  } finally {
    await server.close();
    await emulator.close();
  }
}

export async function exploreCost(): Promise<{ rows: Row[]; targets: Target[] }> {
  await explore(scenario, { runs: WARM_UP_RUNS, seed: 2 });
  const t0 = performance.now();
  const result = await explore(scenario, { runs: RUNS, seed: 1 });
  const ms = performance.now() - t0;
  if (result.failure !== null || result.incomplete !== null)
    throw new Error(
      `the bench's scenario should pass every run: ${JSON.stringify(result.failure ?? result.incomplete)}`,
    );
  const cli = await cliCost();
  return {
    rows: [
      {
        figure: `explore(): ${RUNS} fault plans, a 20-request scenario, in process, warmed up (ms)`,
        value: fmt(ms),
        reference: `bar ${fmt(BAR_MS)} ms`,
        ratio: `${fmt(ms / (RUNS + 1), 1)} ms/run`,
      },
      cli.row,
    ],
    targets: [
      {
        bar: `explore(): ${RUNS} runs of a 20-request scenario under ${fmt(BAR_MS)} ms`,
        holds: ms < BAR_MS,
        numbers: `${fmt(ms)} ms`,
      },
      cli.target,
    ],
  };
}
