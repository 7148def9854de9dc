// The bench reads its JSON answers loosely (as `any`): it is scaffolding, not the product.
/**
 * npm run bench: every figure of docs/performance.md in one run, each beside its reference, then the targets
 * block (does each bar hold, with the numbers). Not part of npm test. The table is also written as Markdown to
 * bench/last-run.md (not committed), which docs/performance.md takes verbatim.
 *
 * The HTTP figures use wrk when it is on PATH (apt-get install -y wrk), pinned with taskset: servers on core 0,
 * wrk -t1 -c50 on core 1. Knobs (environment): BENCH_ROUNDS (5 interleaved rounds), BENCH_HTTP_S (5 s per HTTP
 * round), BENCH_WARMUP_S (2), BENCH_MS (1000 ms per in-process round), BENCH_CONNECTIONS (50),
 * BENCH_COLD_RUNS (9), BENCH_SNAPSHOT_RUNS (5), BENCH_CREATE_COUNT (10,000), BENCH_GENERATOR (wrk or node),
 * BENCH_VERBOSE=1 (every round on stderr), BENCH_ONLY=NAME (that group of figures alone, e.g. BENCH_ONLY=--state,
 * named as BENCH_VERBOSE prints them). The defaults take ~4–6 minutes on 2 cores; BENCH_HTTP_S=10 gives
 * 10 s rounds (~2 minutes more).
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { exploreCost } from './explore.js';
import { overHttp } from './http.js';
import { inProcess } from './in-process.js';
import { catalogOf, ingestionAtScale } from './ingestion.js';
import { snapshotAtScale } from './snapshot.js';
import { stateCost } from './state.js';
import {
  agent,
  collectGarbage,
  createEmulator,
  DEFAULT_START,
  envNumber,
  fmt,
  interleaved,
  median,
  request,
  settledHeap,
  settledMemory,
  start,
  stop,
  VERBOSE,
  type Emulator,
  type Row,
  type Target,
} from './support.js';

const BIN = fileURLToPath(new URL('../dist/bin/catalog-emulator.js', import.meta.url));
const BARE = fileURLToPath(new URL('./bare-server.mjs', import.meta.url));
const MARKDOWN = fileURLToPath(new URL('./last-run.md', import.meta.url));

const rows: Row[] = [];
const targets: Target[] = [];
const notes: string[] = [];

async function setup() {
  const emu = createEmulator();
  const company = emu.companies.create();
  const auth = { authorization: `Bearer ${company.token}` };
  let n = 0;
  const key = () => `bench-key-${String(++n).padStart(12, '0')}`;
  const catalog: any = await (
    await emu.fetch('/v1/catalogos', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': key() },
      body: JSON.stringify({ estabelecimento_id: company.headOffice.id, nome: 'Bench' }),
    })
  ).json();
  return { emu, company, auth, key, catalog };
}

/**
 * createEmulator(): µs each (10,000 created and dropped, interleaved rounds with the reference), and the heap
 * each instance retains (10,000 kept in an array allocated beforehand, the heap after full collections).
 */
async function createCost(): Promise<void> {
  const count = envNumber('BENCH_CREATE_COUNT', 10_000);
  const makeEmulator = () => createEmulator();
  const makeHono = () => new Hono().get('/', (c) => c.text(''));
  const microseconds = async (make: () => unknown) => {
    const t0 = performance.now();
    for (let i = 0; i < count; i++) make();
    return ((performance.now() - t0) * 1000) / count;
  };
  const retained = (make: () => unknown) => {
    const kept: unknown[] = new Array(count).fill(null);
    const before = settledHeap();
    for (let i = 0; i < count; i++) kept[i] = make();
    const after = settledHeap();
    if (kept[count - 1] === null) throw new Error('nothing kept');
    return (after - before) / count;
  };
  for (let i = 0; i < 2000; i++) {
    makeEmulator();
    makeHono();
  }
  const [emuRuns, honoRuns] = await interleaved(
    5,
    () => microseconds(makeEmulator),
    () => microseconds(makeHono),
    'createEmulator() µs',
  );
  const [emuUs, honoUs] = [median(emuRuns), median(honoRuns)];
  const [emuBytes, honoBytes] = [retained(makeEmulator), retained(makeHono)];
  rows.push({
    figure: 'createEmulator() (µs each)',
    value: fmt(emuUs, 1),
    reference: `${fmt(honoUs, 1)} new Hono() + 1 route`,
    ratio: `${fmt(emuUs / honoUs, 1)}×`,
  });
  rows.push({
    figure: 'createEmulator(): heap retained per instance (KB)',
    value: fmt(emuBytes / 1024, 1),
    reference: `${fmt(honoBytes / 1024, 1)} new Hono() + 1 route`,
    ratio: `${fmt(emuBytes / honoBytes, 1)}×`,
  });
  targets.push({ bar: 'createEmulator() ≤ 20 µs', holds: emuUs <= 20, numbers: `${fmt(emuUs, 1)} µs` });
  targets.push({
    bar: 'createEmulator() ≤ 8 KB retained',
    holds: emuBytes <= 8 * 1024,
    numbers: `${fmt(emuBytes / 1024, 1)} KB`,
  });
  const t0 = performance.now();
  for (let i = 0; i < 1000; i++) createEmulator().companies.create();
  rows.push({
    figure: 'createEmulator() + companies.create() (µs each)',
    value: fmt(((performance.now() - t0) * 1000) / 1000, 1),
    reference: '',
    ratio: '',
  });
}

/** A company with a destination routed to `handler`, in process. */
async function webhookSetup(handler: (request: Request) => Response) {
  const emu = createEmulator();
  const company = emu.companies.create();
  await emu.fetch('/v1/webhook', {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${company.token}`,
      'content-type': 'application/json',
      'idempotency-key': 'bench-webhook-00001',
      'if-none-match': '*',
    },
    body: JSON.stringify({ url: 'https://hooks.bench.example/catalog' }),
  });
  emu.network.route('https://hooks.bench.example', handler);
  return { emu, company };
}

async function webhooks(): Promise<void> {
  // (d) 30 days of virtual time with 10,000 events whose receiver always fails: 8 attempts each.
  const failing = await webhookSetup(() => new Response(null, { status: 500 }));
  for (let i = 0; i < 10_000; i++)
    failing.emu.webhooks.raise(failing.company.companyId, {
      tipo: 'catalogo.aplicado',
      catalogoId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      versao: i,
    });
  collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const { ran } = await failing.emu.clock.advance('30d');
  const ms = performance.now() - t0;
  collectGarbage();
  const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
  rows.push({
    figure: 'advance 30 d, 10,000 always-failing deliveries (ms)',
    value: fmt(ms),
    reference: `${fmt(ran)} tasks, heap +${fmt(heapMb)} MB`,
    ratio: `${fmt((ms * 1000) / ran, 1)} µs/task`,
  });
  targets.push({
    bar: "advance('30d'), 10,000 always-failing deliveries < 1.5 s",
    holds: ms < 1500,
    numbers: `${fmt(ms)} ms (${fmt((ms * 1000) / ran, 1)} µs per task)`,
  });

  let received = 0;
  const ok = await webhookSetup(() => {
    received++;
    return new Response(null, { status: 204 });
  });
  for (let i = 0; i < 20_000; i++)
    ok.emu.webhooks.raise(ok.company.companyId, {
      tipo: 'catalogo.aplicado',
      catalogoId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      versao: i,
    });
  const t1 = performance.now();
  await ok.emu.clock.advance(0);
  const perSecond = received / ((performance.now() - t1) / 1000);
  rows.push({
    figure: 'deliveries/s to an in-process receiver (signed, 2xx)',
    value: fmt(perSecond),
    reference: `${fmt(received)} delivered`,
    ratio: '',
  });
}

/**
 * A company on a clock of its own, advanced 30 days with 10 always-failing deliveries pending, on an emulator
 * holding it alone and on one where 1,000 other companies on clocks of their own hold 10 pending deliveries each:
 * advancing it must cost its own tasks only.
 */
async function ownClocks(): Promise<void> {
  const failing = () => new Response(null, { status: 500 });
  let companies = 0;
  const pendingCompany = async (emu: Emulator) => {
    const company = emu.companies.create({ clock: 'own' });
    const host = `https://own-${++companies}.bench.example`;
    emu.network.route(host, failing);
    await emu.fetch('/v1/webhook', {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${company.token}`,
        'content-type': 'application/json',
        'idempotency-key': 'bench-webhook-00001',
        'if-none-match': '*',
      },
      body: JSON.stringify({ url: `${host}/recebe` }),
    });
    for (let i = 0; i < 10; i++)
      emu.webhooks.raise(company.companyId, {
        tipo: 'catalogo.aplicado',
        catalogoId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
        versao: i,
      });
    return company;
  };
  const busy = createEmulator();
  for (let i = 0; i < 1000; i++) await pendingCompany(busy);
  const advanceOne = async (emu: Emulator) => {
    const company = await pendingCompany(emu);
    collectGarbage();
    const t0 = performance.now();
    await emu.companies.clock(company.companyId).advance('30d');
    return performance.now() - t0;
  };
  const [crowdedRuns, aloneRuns] = await interleaved(
    7,
    () => advanceOne(busy),
    () => advanceOne(createEmulator()),
    'own clock',
  );
  const [crowded, alone] = [median(crowdedRuns), median(aloneRuns)];
  rows.push({
    figure: 'advance one own clock 30 d, 10 failing deliveries (ms)',
    value: `${fmt(crowded, 1)} among 1,000`,
    reference: `${fmt(alone, 1)} alone`,
    ratio: `${fmt(crowded / alone, 2)}×`,
  });
}

/**
 * An analysis over 100,000 products, its run measured alone. The products are loaded by one
 * ingestion (the same fields as 100,000 POSTs would give them, and the same findings, in a fraction of the time).
 */
async function analysis(): Promise<void> {
  const ncms = ['84713012', '21069090', '99999999', '85171231'];
  const { emu, company } = await catalogOf(100_000, (_b, _i, k) => ({
    id_externo: `ERP-${k}`,
    origem: 'erp',
    ncm: ncms[k % 4],
    descricao: k % 7 === 0 ? null : `Produto ${k}`,
    atributos: [{ codigo: 'ATT_0005', valores: [k % 3 === 0 ? '380V' : '220V'] }],
  }));
  emu.companies.update(company.companyId, { analysisAllowance: 10 });
  const auth = { authorization: `Bearer ${company.token}`, 'content-type': 'application/json' };
  await emu.fetch('/v1/analises', {
    method: 'POST',
    headers: { ...auth, 'idempotency-key': 'bench-analysis-00000001' },
  });
  await emu.clock.advance('1m'); // the run starts
  const t0 = performance.now();
  await emu.clock.advance('2m'); // the run ends: every product evaluated
  const ms = performance.now() - t0;
  const list = (await (await emu.fetch('/v1/analises', { headers: auth })).json()) as { itens: { id: string }[] };
  const detail = (await (await emu.fetch(`/v1/analises/${list.itens[0]!.id}`, { headers: auth })).json()) as {
    resumo: { total_achados: number };
  };
  rows.push({
    figure: 'analysis over 100,000 products (ms)',
    value: fmt(ms),
    reference: `${fmt(detail.resumo.total_achados)} findings`,
    ratio: `${fmt((ms * 1000) / 100_000, 1)} µs/product`,
  });
}

/** A surveillance execution over 10,000 watched products, fresh and then with reuse. */
async function surveillanceExecution(): Promise<void> {
  const { emu, company, key, catalog } = await setup();
  emu.companies.update(company.companyId, { surveillanceCapacity: 10_000 });
  const auth = { authorization: `Bearer ${company.token}`, 'content-type': 'application/json' };
  for (let i = 0; i < 10_000; i++) {
    await emu.fetch(`/v1/catalogos/${catalog.id}/produtos`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': key() },
      body: JSON.stringify({ origem: 'erp', ncm: i % 2 ? '84713012' : '21069090', descricao: `Produto ${i}` }),
    });
  }
  const read = await emu.fetch('/v1/empresa/vigilancia', { headers: auth });
  await emu.fetch('/v1/empresa/vigilancia', {
    method: 'PATCH',
    headers: { ...auth, 'idempotency-key': key(), 'if-match': read.headers.get('etag')! },
    body: JSON.stringify({ modo: 'todos' }),
  });
  // Daily executions open every 24 h from the emulator's start (DEFAULT_START in manual mode).
  const run = async (day: number) => {
    await emu.clock.advanceTo(DEFAULT_START + day * 86_400_000); // the daily execution opens
    await emu.clock.advance('1m'); // it starts
    const t0 = performance.now();
    await emu.clock.advance('1m'); // it ends: every watched product evaluated or reused
    return performance.now() - t0;
  };
  const fresh = await run(1);
  const reused = await run(2);
  rows.push({
    figure: 'surveillance execution, 10,000 watched products (ms)',
    value: `${fmt(reused)} reused`,
    reference: `${fmt(fresh)} first run`,
    ratio: `${fmt((reused * 1000) / 10_000, 1)} µs/product`,
  });
}

/**
 * Memory retained per stored idempotent answer: 20,000 requests with distinct keys in one emulator, the heap and
 * the ArrayBuffers outside it (where the store's arenas keep the answers' texts) measured after a collection, then
 * again once the 60-day purge has dropped their answers (the journal cleared both times): the difference is the
 * store's alone, whatever else the requests keep (the products created).
 */
async function idempotencyMemory(): Promise<void> {
  const count = 20_000;
  const perAnswer = async (
    request: (
      emu: any,
      auth: Record<string, string>,
      key: () => string,
      catalog: any,
    ) => Promise<(i: number) => Promise<void>>,
  ) => {
    const { emu, auth, key, catalog } = await setup();
    const send = await request(emu, { ...auth, 'content-type': 'application/json' }, key, catalog);
    for (let i = 0; i < 200; i++) await send(i); // warm-up, so the heap holds no first-call code or maps below
    for (let i = 0; i < count; i++) await send(i);
    emu.journal.clear();
    const stored = settledMemory();
    await emu.clock.advance('61d');
    emu.journal.clear();
    const purged = settledMemory();
    // The emulator is used after the collection, which therefore could not free it (and its products) whole.
    const left = emu.snapshot().state.idempotency.length;
    if (left !== 0) throw new Error(`the 60-day purge left ${left} stored answers`);
    return { heap: (stored.heap - purged.heap) / count, outside: (stored.outside - purged.outside) / count };
  };
  const patch = await perAnswer(async (emu, auth, key, catalog) => {
    const created = await emu.fetch(`/v1/catalogos/${catalog.id}/produtos`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': key() },
      body: JSON.stringify({ origem: 'erp', ncm: '84713012' }),
    });
    const product: any = await created.json();
    let etag = created.headers.get('etag')!;
    return async (i) => {
      const r = await emu.fetch(`/v1/produtos/${product.id}`, {
        method: 'PATCH',
        headers: { ...auth, 'idempotency-key': key(), 'if-match': etag },
        body: JSON.stringify({ sku: `SKU-${i}` }),
      });
      if (r.status !== 200) throw new Error(`PATCH answered ${r.status}: ${await r.text()}`);
      etag = r.headers.get('etag')!;
      await r.text();
    };
  });
  const post = await perAnswer(async (emu, auth, key, catalog) => async (i) => {
    const r = await emu.fetch(`/v1/catalogos/${catalog.id}/produtos`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': key() },
      body: JSON.stringify({ origem: 'erp', ncm: '84713012', sku: `SKU-${i}` }),
    });
    if (r.status !== 201) throw new Error(`POST answered ${r.status}: ${await r.text()}`);
    await r.text();
  });
  const total = (m: { heap: number; outside: number }) => m.heap + m.outside;
  rows.push({
    figure: 'idempotency store: memory per stored answer, PATCH product (B)',
    value: `${fmt(total(patch))} (${fmt(patch.heap)} on the heap)`,
    reference: `${fmt(total(post))} per POST product (its Location too; ${fmt(post.heap)} on the heap)`,
    ratio: `${fmt(count)} answers each`,
  });
}

/** The CLI from spawn to its first answer, beside the bare hono script; interleaved runs, medians. */
async function coldStart(): Promise<void> {
  const runs = envNumber('BENCH_COLD_RUNS', 9);
  const measure = async (args: string[], path: string) => {
    const t0 = performance.now();
    const { child, url } = await start(args);
    const { status } = await request(`${url}${path}`, 'GET', {});
    const ms = performance.now() - t0;
    await stop(child);
    if (status !== 200) throw new Error(`the first answer was ${status}`);
    return ms;
  };
  const [emuRuns, bareRuns] = await interleaved(
    runs,
    () => measure([BIN, 'serve', '--port', '0', '--log', 'silent'], '/_emulator'),
    () => measure([BARE], '/v1/catalogos/first'),
    'cold start',
  );
  const [emu, bare] = [median(emuRuns), median(bareRuns)];
  rows.push({
    figure: 'CLI cold start to first answer (ms)',
    value: fmt(emu),
    reference: `${fmt(bare)} bare hono script`,
    ratio: `${fmt(emu / bare, 2)}×`,
  });
  targets.push({
    bar: 'CLI cold start ≤ 1.5× a bare hono script',
    holds: emu <= 1.5 * bare,
    numbers: `${fmt(emu / bare, 2)}× (${fmt(emu)} vs ${fmt(bare)} ms)`,
  });
}

const started = performance.now();
const ONLY = process.env.BENCH_ONLY || undefined;
const loadAtStart = os.loadavg()[0]!;
/** Runs one group of figures after a collection; with BENCH_VERBOSE=1, says on stderr how long it took. */
async function section(
  name: string,
  figures: () => Promise<{ rows: Row[]; targets: Target[]; notes?: string[] } | void>,
): Promise<void> {
  if (ONLY !== undefined && ONLY !== name) return;
  collectGarbage();
  const t0 = performance.now();
  const found = await figures();
  if (found) {
    rows.push(...found.rows);
    targets.push(...found.targets);
    notes.push(...(found.notes ?? []));
  }
  if (VERBOSE) console.error(`${name}: ${fmt((performance.now() - t0) / 1000, 1)} s`);
}
// The HTTP figures first, while this process is small; the heavy in-process figures after.
let generator = 'none';
await section('HTTP', async () => {
  const figures = await overHttp();
  generator = figures.generator;
  return figures;
});
await section('--state', async () => {
  const figures = await stateCost();
  if (generator === 'none') generator = figures.generator;
  return figures;
});
await section('in process', inProcess);
await section('createEmulator()', createCost);
await section('deliveries', webhooks);
await section('own clocks', ownClocks);
await section('snapshot and restore', snapshotAtScale);
await section('analysis', analysis);
await section('surveillance', surveillanceExecution);
await section('idempotency memory', idempotencyMemory);
await section('ingestion', () => ingestionAtScale(rows, BIN));
await section('explore', exploreCost);
await section('cold start', coldStart);
agent.destroy();

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const machine = `${os.cpus().length} × ${cpu}, Node ${process.version}; HTTP load generator: ${generator}; load average ${fmt(loadAtStart, 2)} at the start; ${fmt((performance.now() - started) / 1000)} s in all`;

const headers = [
  'figure',
  'value',
  'reference',
  'ratio',
  'p50 ms (vs ref)',
  'p99 ms (vs ref)',
  'server CPU (vs ref)',
  'generator CPU',
];
const cells = rows.map((r) => [
  r.figure,
  r.value,
  r.reference,
  r.ratio,
  r.latency?.p50 ?? '',
  r.latency?.p99 ?? '',
  r.cpu ?? '',
  r.generatorCpu ?? '',
]);
const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
const line = (c: string[]) => `| ${c.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
const mark = (t: Target) => (t.holds ? '✓' : '✗');

console.log(`\ncatalog-emulator benchmark — ${machine}\n`);
console.log(line(headers));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const c of cells) console.log(line(c));
for (const note of notes) console.log(`\nNote: ${note}`);
console.log(`\nTargets (the project's bars): ${targets.filter((t) => t.holds).length} of ${targets.length} hold`);
const barWidth = Math.max(...targets.map((t) => t.bar.length));
for (const t of targets) console.log(`  ${mark(t)} ${t.bar.padEnd(barWidth)}  ${t.numbers}`);

const markdownRow = (c: string[]) => `| ${c.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
writeFileSync(
  MARKDOWN,
  [
    `Latest run: ${machine}.`,
    '',
    markdownRow(headers),
    `|${headers.map(() => '---').join('|')}|`,
    ...cells.map(markdownRow),
    '',
    ...notes.map((note) => `${note}\n`),
    `Targets (the project's bars): ${targets.filter((t) => t.holds).length} of ${targets.length} hold.`,
    '',
    ...targets.map((t) => `- ${mark(t)} ${t.bar}: ${t.numbers}`),
    '',
  ].join('\n'),
);
console.log(`\nThe table as Markdown: ${MARKDOWN}`);
