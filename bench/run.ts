/* eslint-disable @typescript-eslint/no-explicit-any -- benchmark scaffolding reads JSON loosely */
/**
 * npm run bench: each figure is measured in one run beside a reference, so machine noise cancels in the
 * ratio. Not part of npm test. Prints a table; the README shows the latest one.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { ingestionAtScale } from './ingestion.js';
import { agent, collectGarbage, createEmulator, DEFAULT_START, fmt, request, start, type Row } from './support.js';

const BIN = fileURLToPath(new URL('../dist/bin/catalog-emulator.js', import.meta.url));
const BARE = fileURLToPath(new URL('./bare-server.mjs', import.meta.url));
const DURATION_MS = Number(process.env.BENCH_MS ?? 1500);

const rows: Row[] = [];

/**
 * The figure and its reference measured in alternating rounds, medians reported: on a small machine a server
 * and its load generator share the cores, and drifts (GC, JIT, the other process) hit both sides alike.
 */
async function paired(subject: () => Promise<number>, reference: () => Promise<number>, rounds = 5): Promise<[number, number]> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < rounds; i++) {
    a.push(await subject());
    b.push(await reference());
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  return [median(a), median(b)];
}

/** Runs `op` back to back for DURATION_MS with `concurrency` loops; returns operations per second. */
async function throughput(op: (worker: number) => Promise<void>, concurrency = 1): Promise<number> {
  const end = performance.now() + DURATION_MS;
  let count = 0;
  await Promise.all(Array.from({ length: concurrency }, async (_, worker) => {
    while (performance.now() < end) {
      await op(worker);
      count++;
    }
  }));
  return count / (DURATION_MS / 1000);
}

async function setup() {
  const emu = createEmulator();
  const company = emu.companies.create();
  const auth = { authorization: `Bearer ${company.token}` };
  let n = 0;
  const key = () => `bench-key-${String(++n).padStart(12, '0')}`;
  const catalog: any = await (await emu.fetch('/v1/catalogos', { method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': key() }, body: JSON.stringify({ estabelecimento_id: company.headOffice.id, nome: 'Bench' }) })).json();
  return { emu, company, auth, key, catalog };
}

async function inProcess(): Promise<void> {
  const { emu, auth, key, catalog } = await setup();
  const bare = new Hono();
  const catalogJson: any = await (await emu.fetch(`/v1/catalogos/${catalog.id}`, { headers: auth })).json();
  bare.get('/v1/catalogos/:id', (c) => c.json(catalogJson, 200, { etag: '"0123456789abcdef"' }));
  bare.patch('/v1/produtos/:id', async (c) => c.json({ ...catalogJson, body: await c.req.json() }, 200, { etag: '"0123456789abcdef"' }));
  const bareFetch = (path: string, init?: RequestInit) => Promise.resolve(bare.fetch(new Request(new URL(path, 'http://bare.local'), init)));

  const emuGetOnce = () => throughput(async () => void (await (await emu.fetch(`/v1/catalogos/${catalog.id}`, { headers: auth })).text()));
  const bareGetOnce = () => throughput(async () => void (await (await bareFetch(`/v1/catalogos/${catalog.id}`)).text()));
  await emuGetOnce();
  await bareGetOnce();
  const [emuGet, bareGet] = await paired(emuGetOnce, bareGetOnce, 3);
  rows.push({ figure: 'in process: GET catalog (req/s)', value: fmt(emuGet), reference: `${fmt(bareGet)} bare hono`, ratio: `${fmt((100 * emuGet) / bareGet)}%` });
  const productRes = await emu.fetch(`/v1/catalogos/${catalog.id}/produtos`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': key() }, body: JSON.stringify({ origem: 'erp', ncm: '84713012' }) });
  const product: any = await productRes.json();
  let etag = productRes.headers.get('etag')!;
  let i = 0;
  const patch = async () => {
    const r = await emu.fetch(`/v1/produtos/${product.id}`, { method: 'PATCH', headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': key(), 'if-match': etag }, body: JSON.stringify({ sku: `SKU-${++i}` }) });
    etag = r.headers.get('etag')!;
    await r.text();
  };
  // The reference is sent the emulator's very request, headers included (it ignores them; see overHttp).
  const barePatch = async () => void (await (await bareFetch(`/v1/produtos/${product.id}`, { method: 'PATCH', headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': key(), 'if-match': etag }, body: JSON.stringify({ sku: `SKU-${++i}` }) })).text());
  await throughput(patch);
  await throughput(barePatch);
  const [emuPatch, refPatch] = await paired(() => throughput(patch), () => throughput(barePatch), 3);
  rows.push({ figure: 'in process: PATCH product (req/s)', value: fmt(emuPatch), reference: `${fmt(refPatch)} bare hono`, ratio: `${fmt((100 * emuPatch) / refPatch)}%` });
}

async function overHttp(): Promise<void> {
  const emulator = await start([BIN, 'serve', '--port', '0', '--clock', 'manual', '--log', 'silent']);
  try {
    const created = JSON.parse((await request(`${emulator.url}/_emulator/companies`, 'POST', { 'content-type': 'application/json' }, '{}')).text);
    const auth = { authorization: `Bearer ${created.token}` };
    let n = 0;
    const key = () => `bench-http-${String(++n).padStart(12, '0')}`;
    const catalog = JSON.parse((await request(`${emulator.url}/v1/catalogos`, 'POST', { ...auth, 'content-type': 'application/json', 'idempotency-key': key() }, JSON.stringify({ estabelecimento_id: created.headOffice.id, nome: 'Bench' }))).text);
    const bare = await start([BARE, JSON.stringify(catalog)]);
    try {
      const concurrency = 32;
      const get = (base: string) => async () => void (await request(`${base}/v1/catalogos/${catalog.id}`, 'GET', auth));
      await throughput(get(emulator.url), concurrency);
      await throughput(get(bare.url), concurrency);
      const [emuGet, bareGet] = await paired(() => throughput(get(emulator.url), concurrency), () => throughput(get(bare.url), concurrency));
      rows.push({ figure: `HTTP loopback: GET catalog (req/s, ${concurrency} conns)`, value: fmt(emuGet), reference: `${fmt(bareGet)} bare node-server`, ratio: `${fmt((100 * emuGet) / bareGet)}%` });

      // One product per connection, each PATCH with the ETag of the previous answer.
      const products = await Promise.all(Array.from({ length: concurrency }, async () => {
        const r = await request(`${emulator.url}/v1/catalogos/${catalog.id}/produtos`, 'POST', { ...auth, 'content-type': 'application/json', 'idempotency-key': key() }, JSON.stringify({ origem: 'erp', ncm: '84713012' }));
        return { id: JSON.parse(r.text).id as string, etag: r.headers.etag as string };
      }));
      let i = 0;
      const patch = async (worker: number) => {
        const p = products[worker]!;
        const r = await request(`${emulator.url}/v1/produtos/${p.id}`, 'PATCH', { ...auth, 'content-type': 'application/json', 'idempotency-key': key(), 'if-match': p.etag }, JSON.stringify({ sku: `SKU-${++i}` }));
        if (r.status !== 200) throw new Error(`PATCH answered ${r.status}: ${r.text}`);
        p.etag = r.headers.etag as string;
      };
      // The reference is sent the emulator's very request, headers included, and ignores them as its GET does
      // the credential: the load generator shares the cores with the servers, and building, sending and
      // parsing three more headers for one side only charged the generator's own work to the emulator.
      const barePatch = async (worker: number) => void (await request(`${bare.url}/v1/produtos/x`, 'PATCH', { ...auth, 'content-type': 'application/json', 'idempotency-key': key(), 'if-match': products[worker]!.etag }, JSON.stringify({ sku: `SKU-${++i}` })));
      await throughput(patch, concurrency);
      await throughput(barePatch, concurrency);
      const [emuPatch, refPatch] = await paired(() => throughput(patch, concurrency), () => throughput(barePatch, concurrency));
      rows.push({ figure: `HTTP loopback: PATCH product (req/s, ${concurrency} conns)`, value: fmt(emuPatch), reference: `${fmt(refPatch)} bare node-server`, ratio: `${fmt((100 * emuPatch) / refPatch)}%` });
    } finally {
      bare.child.kill('SIGTERM');
    }
  } finally {
    emulator.child.kill('SIGTERM');
  }
}

function createCost(): void {
  for (let i = 0; i < 2000; i++) createEmulator();
  const count = 20_000;
  const t0 = performance.now();
  for (let i = 0; i < count; i++) createEmulator();
  const emuMs = (performance.now() - t0) / count;
  const t1 = performance.now();
  for (let i = 0; i < count; i++) new Hono().get('/', (c) => c.text(''));
  const refMs = (performance.now() - t1) / count;
  rows.push({ figure: 'createEmulator() (ms each)', value: fmt(emuMs, 4), reference: `${fmt(refMs, 4)} new Hono() + 1 route`, ratio: `${fmt(emuMs / refMs, 1)}×` });
  const t2 = performance.now();
  const created = [];
  for (let i = 0; i < 1000; i++) {
    const emu = createEmulator();
    created.push(emu.companies.create());
  }
  rows.push({ figure: 'createEmulator() + companies.create() (ms each)', value: fmt((performance.now() - t2) / 1000, 4), reference: '', ratio: '' });
}

/** A company with a destination routed to `handler`, in process. */
async function webhookSetup(handler: (request: Request) => Response) {
  const emu = createEmulator();
  const company = emu.companies.create();
  await emu.fetch('/v1/webhook', {
    method: 'PUT',
    headers: { authorization: `Bearer ${company.token}`, 'content-type': 'application/json', 'idempotency-key': 'bench-webhook-00001', 'if-none-match': '*' },
    body: JSON.stringify({ url: 'https://hooks.bench.example/catalog' }),
  });
  emu.network.route('https://hooks.bench.example', handler);
  return { emu, company };
}

async function webhooks(): Promise<void> {
  // (d) 30 days of virtual time with 10,000 events whose receiver always fails: 8 attempts each.
  const failing = await webhookSetup(() => new Response(null, { status: 500 }));
  for (let i = 0; i < 10_000; i++) failing.emu.webhooks.raise(failing.company.companyId, { tipo: 'catalogo.aplicado', catalogoId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', versao: i });
  collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const { ran } = await failing.emu.clock.advance('30d');
  const ms = performance.now() - t0;
  collectGarbage();
  const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
  rows.push({ figure: 'advance 30 d, 10,000 always-failing deliveries (ms)', value: fmt(ms), reference: `${fmt(ran)} tasks, heap +${fmt(heapMb)} MB`, ratio: `${fmt((ms * 1000) / ran, 1)} µs/task` });

  let received = 0;
  const ok = await webhookSetup(() => {
    received++;
    return new Response(null, { status: 204 });
  });
  for (let i = 0; i < 20_000; i++) ok.emu.webhooks.raise(ok.company.companyId, { tipo: 'catalogo.aplicado', catalogoId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', versao: i });
  const t1 = performance.now();
  await ok.emu.clock.advance(0);
  const perSecond = received / ((performance.now() - t1) / 1000);
  rows.push({ figure: 'deliveries/s to an in-process receiver (signed, 2xx)', value: fmt(perSecond), reference: `${fmt(received)} delivered`, ratio: '' });
}

/** Issue 4's figure: an analysis over 100,000 products (built through the API), its run measured alone. */
/**
 * A company on a clock of its own, advanced 30 days with 10 always-failing deliveries pending, on an emulator
 * holding it alone and on one where 1,000 other companies on clocks of their own hold 10 pending deliveries each:
 * advancing it must cost its own tasks only.
 */
async function ownClocks(): Promise<void> {
  const failing = () => new Response(null, { status: 500 });
  let companies = 0;
  const pendingCompany = async (emu: ReturnType<typeof createEmulator>) => {
    const company = emu.companies.create({ clock: 'own' });
    const host = `https://own-${++companies}.bench.example`;
    emu.network.route(host, failing);
    await emu.fetch('/v1/webhook', {
      method: 'PUT',
      headers: { authorization: `Bearer ${company.token}`, 'content-type': 'application/json', 'idempotency-key': 'bench-webhook-00001', 'if-none-match': '*' },
      body: JSON.stringify({ url: `${host}/recebe` }),
    });
    for (let i = 0; i < 10; i++) emu.webhooks.raise(company.companyId, { tipo: 'catalogo.aplicado', catalogoId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', versao: i });
    return company;
  };
  const busy = createEmulator();
  for (let i = 0; i < 1000; i++) await pendingCompany(busy);
  const advanceOne = async (emu: ReturnType<typeof createEmulator>) => {
    const company = await pendingCompany(emu);
    collectGarbage();
    const t0 = performance.now();
    await emu.companies.clock(company.companyId).advance('30d');
    return performance.now() - t0;
  };
  const [crowded, alone] = await paired(() => advanceOne(busy), () => advanceOne(createEmulator()), 7);
  rows.push({ figure: 'advance one own clock 30 d, 10 failing deliveries (ms)', value: `${fmt(crowded, 1)} among 1,000`, reference: `${fmt(alone, 1)} alone`, ratio: `${fmt(crowded / alone, 2)}×` });
}

async function analysis(): Promise<void> {
  const { emu, company, key, catalog } = await setup();
  emu.companies.update(company.companyId, { analysisAllowance: 10 });
  const auth = { authorization: `Bearer ${company.token}`, 'content-type': 'application/json' };
  const ncms = ['84713012', '21069090', '99999999', '85171231'];
  for (let i = 0; i < 100_000; i++) {
    await emu.fetch(`/v1/catalogos/${catalog.id}/produtos`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': key() },
      body: JSON.stringify({ origem: 'erp', ncm: ncms[i % 4], descricao: i % 7 === 0 ? null : `Produto ${i}`, atributos: [{ codigo: 'ATT_0005', valores: [i % 3 === 0 ? '380V' : '220V'] }] }),
    });
  }
  await emu.fetch('/v1/analises', { method: 'POST', headers: { ...auth, 'idempotency-key': key() } });
  await emu.clock.advance('1m'); // the run starts
  const t0 = performance.now();
  await emu.clock.advance('2m'); // the run ends: every product evaluated
  const ms = performance.now() - t0;
  const list = (await (await emu.fetch('/v1/analises', { headers: auth })).json()) as { itens: { id: string }[] };
  const detail = (await (await emu.fetch(`/v1/analises/${list.itens[0]!.id}`, { headers: auth })).json()) as { resumo: { total_achados: number } };
  rows.push({ figure: 'analysis over 100,000 products (ms)', value: fmt(ms), reference: `${fmt(detail.resumo.total_achados)} findings`, ratio: `${fmt((ms * 1000) / 100_000, 1)} µs/product` });
}

/** Issue 4's figure: a surveillance execution over 10,000 watched products, fresh and then with reuse. */
async function surveillanceExecution(): Promise<void> {
  const { emu, company, key, catalog } = await setup();
  emu.companies.update(company.companyId, { surveillanceCapacity: 10_000 });
  const auth = { authorization: `Bearer ${company.token}`, 'content-type': 'application/json' };
  for (let i = 0; i < 10_000; i++) {
    await emu.fetch(`/v1/catalogos/${catalog.id}/produtos`, { method: 'POST', headers: { ...auth, 'idempotency-key': key() }, body: JSON.stringify({ origem: 'erp', ncm: i % 2 ? '84713012' : '21069090', descricao: `Produto ${i}` }) });
  }
  const read = await emu.fetch('/v1/empresa/vigilancia', { headers: auth });
  await emu.fetch('/v1/empresa/vigilancia', { method: 'PATCH', headers: { ...auth, 'idempotency-key': key(), 'if-match': read.headers.get('etag')! }, body: JSON.stringify({ modo: 'todos' }) });
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
  rows.push({ figure: 'surveillance execution, 10,000 watched products (ms)', value: `${fmt(reused)} reused`, reference: `${fmt(fresh)} first run`, ratio: `${fmt((reused * 1000) / 10_000, 1)} µs/product` });
}

/**
 * Heap retained per stored idempotent answer: 20,000 requests with distinct keys in one emulator, the heap
 * measured after a collection, then again once the 60-day purge has dropped their answers (the journal cleared
 * both times): the difference is the store's alone, whatever else the requests keep (the products created).
 */
async function idempotencyMemory(): Promise<void> {
  const count = 20_000;
  const heap = () => {
    collectGarbage();
    collectGarbage();
    return process.memoryUsage().heapUsed;
  };
  const perAnswer = async (request: (emu: any, auth: Record<string, string>, key: () => string, catalog: any) => Promise<(i: number) => Promise<void>>) => {
    const { emu, auth, key, catalog } = await setup();
    const send = await request(emu, { ...auth, 'content-type': 'application/json' }, key, catalog);
    for (let i = 0; i < 200; i++) await send(i); // warm-up, so the heap holds no first-call code or maps below
    for (let i = 0; i < count; i++) await send(i);
    emu.journal.clear();
    const stored = heap();
    await emu.clock.advance('61d');
    emu.journal.clear();
    const purged = heap();
    // The emulator is used after the collection, which therefore could not free it (and its products) whole.
    const left = emu.snapshot().state.idempotency.length;
    if (left !== 0) throw new Error(`the 60-day purge left ${left} stored answers`);
    return (stored - purged) / count;
  };
  const patch = await perAnswer(async (emu, auth, key, catalog) => {
    const created = await emu.fetch(`/v1/catalogos/${catalog.id}/produtos`, { method: 'POST', headers: { ...auth, 'idempotency-key': key() }, body: JSON.stringify({ origem: 'erp', ncm: '84713012' }) });
    const product: any = await created.json();
    let etag = created.headers.get('etag')!;
    return async (i) => {
      const r = await emu.fetch(`/v1/produtos/${product.id}`, { method: 'PATCH', headers: { ...auth, 'idempotency-key': key(), 'if-match': etag }, body: JSON.stringify({ sku: `SKU-${i}` }) });
      if (r.status !== 200) throw new Error(`PATCH answered ${r.status}: ${await r.text()}`);
      etag = r.headers.get('etag')!;
      await r.text();
    };
  });
  const post = await perAnswer(async (emu, auth, key, catalog) => async (i) => {
    const r = await emu.fetch(`/v1/catalogos/${catalog.id}/produtos`, { method: 'POST', headers: { ...auth, 'idempotency-key': key() }, body: JSON.stringify({ origem: 'erp', ncm: '84713012', sku: `SKU-${i}` }) });
    if (r.status !== 201) throw new Error(`POST answered ${r.status}: ${await r.text()}`);
    await r.text();
  });
  rows.push({ figure: 'idempotency store: heap per stored answer, PATCH product (B)', value: fmt(patch), reference: `${fmt(post)} per POST product (its Location too)`, ratio: `${fmt(count)} answers each` });
}

async function coldStart(): Promise<void> {
  const runs = 5;
  const measure = async (args: string[]) => {
    let total = 0;
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const { child, url } = await start(args);
      await request(`${url}/_emulator`, 'GET', {});
      total += performance.now() - t0;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    return total / runs;
  };
  const emu = await measure([BIN, 'serve', '--port', '0', '--log', 'silent']);
  const bare = await measure([BARE, '{}']);
  rows.push({ figure: 'CLI cold start to first answer (ms)', value: fmt(emu), reference: `${fmt(bare)} bare node-server`, ratio: `${fmt(emu / bare, 2)}×` });
}

// The HTTP figures first, while the load generator's heap is small; the heavy in-process figures after.
createCost();
await overHttp();
collectGarbage();
await inProcess();
await webhooks();
await ownClocks();
collectGarbage();
await analysis();
collectGarbage();
await surveillanceExecution();
collectGarbage();
await idempotencyMemory();
collectGarbage();
await ingestionAtScale(rows, BIN);
await coldStart();
agent.destroy();

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
console.log(`\ncatalog-emulator benchmark — ${os.cpus().length} × ${cpu}, Node ${process.version}, ${DURATION_MS} ms per figure\n`);
const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => Object.values(r)[i]!.length), ['figure', 'value', 'reference', 'ratio'][i]!.length));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log(line(['figure', 'value', 'reference', 'ratio']));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const row of rows) console.log(line(Object.values(row)));
