/**
 * The HTTP figures of docs/performance.md: GET a catalog and PATCH a product over loopback, the emulator's CLI against
 * a bare @hono/node-server script (bench/bare-server.mjs) answering the same request with the same JSON. Both servers
 * run on core 0 and the load generator on core 1 (taskset); subject and reference alternate round by round and the
 * medians of the rounds are reported (throughput, p50, p99 and CPU use, each its own median). After the PATCH
 * rounds, one more of each with V8's record of its collections open (gc-probe.mjs): what a request leaves the
 * collections, in bytes and counts, which the machine's other work does not move.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CONNECTIONS, loadGenerator, pinSelf, type LoadGenerator, type LoadResult, type Product } from './load.js';
import {
  envNumber,
  fmt,
  interleaved,
  median,
  PINNING,
  request,
  start,
  stop,
  type Row,
  type Target,
} from './support.js';

const BIN = fileURLToPath(new URL('../dist/bin/catalog-emulator.js', import.meta.url));
const BARE = fileURLToPath(new URL('./bare-server.mjs', import.meta.url));
const BARE_NODE_HTTP = fileURLToPath(new URL('./bare-node-http.mjs', import.meta.url));
/** Preloaded into both PATCH servers: opens and closes a window of V8's record of its collections (gcWindow). */
const GC_PROBE = fileURLToPath(new URL('./gc-probe.mjs', import.meta.url));

const ROUNDS = envNumber('BENCH_ROUNDS', 5);
const SECONDS = envNumber('BENCH_HTTP_S', 5);
const WARM_UP_SECONDS = envNumber('BENCH_WARMUP_S', 2);

/** The medians of a side's rounds. */
function medians(results: readonly LoadResult[]): LoadResult {
  const of = (pick: (r: LoadResult) => number) => median(results.map(pick));
  const ofKnown = (pick: (r: LoadResult) => number | null) => {
    const known = results.map(pick).filter((c): c is number => c !== null);
    return known.length ? median(known) : null;
  };
  return {
    requests: of((r) => r.requests),
    rps: of((r) => r.rps),
    p50: of((r) => r.p50),
    p99: of((r) => r.p99),
    cpu: ofKnown((r) => r.cpu),
    generatorCpu: ofKnown((r) => r.generatorCpu),
    coreBusy: ofKnown((r) => r.coreBusy),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
  };
}

function checked(what: string, result: LoadResult): LoadResult {
  if (result.errors > 0)
    throw new Error(
      `${what}: ${result.errors} answers were not 200 or failed: the figure would not be the operation's`,
    );
  return result;
}

const pct = (share: number | null) => (share === null ? 'n/a' : `${fmt(100 * share)}%`);
const ms = (n: number) => fmt(n, n < 10 ? 2 : 1);

function row(figure: string, subject: LoadResult, reference: LoadResult, referenceName: string): Row {
  return {
    figure,
    value: fmt(subject.rps),
    reference: `${fmt(reference.rps)} ${referenceName}`,
    ratio: `${fmt((100 * subject.rps) / reference.rps)}%`,
    latency: { p50: `${ms(subject.p50)} vs ${ms(reference.p50)}`, p99: `${ms(subject.p99)} vs ${ms(reference.p99)}` },
    cpu: `${pct(subject.cpu)} vs ${pct(reference.cpu)}`,
    generatorCpu: `${pct(subject.generatorCpu)} vs ${pct(reference.generatorCpu)}`,
  };
}

/**
 * Requests per CPU-second of the server: what a request costs, whichever share of its core the server got. On a
 * machine other work shares, this ratio moves less than the throughputs' (the Done-when bars are on those).
 */
function perCpuRow(figure: string, subject: LoadResult, reference: LoadResult): Row | null {
  if (subject.cpu === null || reference.cpu === null || subject.cpu === 0 || reference.cpu === 0) return null;
  const [a, b] = [subject.rps / subject.cpu, reference.rps / reference.cpu];
  return { figure, value: fmt(a), reference: `${fmt(b)} bare hono`, ratio: `${fmt((100 * a) / b)}%` };
}

/** What V8's collections did in a round, per request (gc-probe.mjs). */
interface GcFigures {
  /** Bytes allocated per request. */
  allocated: number;
  /** Bytes the young-generation collections (scavenges) copied or promoted per request: what makes their pauses long. */
  kept: number;
  scavengesPer10k: number;
  /** Median and slowest scavenge (ms, wall-clock). */
  medianPause: number;
  longestPause: number;
  /** Full collections in the round, and their time (ms). */
  full: number;
  fullMs: number;
}

/** Runs `round` with the server's gc-probe window open (SIGUSR2 opens and closes it; the answers come on its stdout). */
async function gcWindow(server: { child: ChildProcess }, round: () => Promise<LoadResult>): Promise<GcFigures> {
  const { child } = server;
  // The next line of the probe's on the server's stdout: "gc-probe: started", then "gc-probe: {…}".
  const probeLine = () =>
    new Promise<string>((resolve) => {
      let out = '';
      const read = (chunk: Buffer) => {
        out += chunk.toString();
        const found = /^gc-probe: (.*)$/m.exec(out);
        if (found === null) return;
        child.stdout!.off('data', read);
        resolve(found[1]!);
      };
      child.stdout!.on('data', read);
    });
  const started = probeLine();
  child.kill('SIGUSR2');
  if ((await started) !== 'started') throw new Error('the gc probe did not start its window');
  const load = await round();
  const reported = probeLine();
  child.kill('SIGUSR2');
  const { before, after, collections } = JSON.parse(await reported) as {
    before: number;
    after: number;
    collections: {
      type: string;
      cost: number;
      usedBefore: number;
      usedAfter: number;
      survived: number;
      promoted: number;
    }[];
  };
  let allocated = 0;
  let used = before;
  for (const c of collections) {
    allocated += c.usedBefore - used;
    used = c.usedAfter;
  }
  allocated += after - used;
  const scavenges = collections.filter((c) => c.type === 'Scavenge');
  const full = collections.filter((c) => c.type === 'MarkSweepCompact');
  const pauses = scavenges.map((c) => c.cost / 1000).sort((a, b) => a - b);
  const n = load.requests;
  return {
    allocated: allocated / n,
    kept: scavenges.reduce((sum, c) => sum + c.survived + c.promoted, 0) / n,
    scavengesPer10k: (scavenges.length * 10_000) / n,
    medianPause: pauses.length ? median(pauses) : 0,
    longestPause: pauses.at(-1) ?? 0,
    full: full.length,
    fullMs: full.reduce((sum, c) => sum + c.cost / 1000, 0),
  };
}

function gcRows(emu: GcFigures, bare: GcFigures): Row[] {
  return [
    {
      figure: 'HTTP PATCH: bytes allocated per request',
      value: fmt(emu.allocated),
      reference: `${fmt(bare.allocated)} bare hono`,
      ratio: `${fmt(emu.allocated / bare.allocated, 2)}×`,
    },
    {
      figure: 'HTTP PATCH: bytes young-generation collections copy per request',
      value: fmt(emu.kept),
      reference: `${fmt(bare.kept)} bare hono`,
      ratio: `${fmt(emu.kept / bare.kept, 1)}×`,
    },
    {
      figure: 'HTTP PATCH: scavenges per 10,000 requests (median, longest pause ms)',
      value: `${fmt(emu.scavengesPer10k, 1)} (${ms(emu.medianPause)}, ${ms(emu.longestPause)})`,
      reference: `${fmt(bare.scavengesPer10k, 1)} (${ms(bare.medianPause)}, ${ms(bare.longestPause)}) bare hono`,
      ratio: `full: ${emu.full} (${ms(emu.fullMs)} ms) vs ${bare.full} (${ms(bare.fullMs)} ms)`,
    },
  ];
}

export interface HttpFigures {
  rows: Row[];
  targets: Target[];
  /** For the machine line: the generator and pinning. */
  generator: string;
  notes: string[];
}

export async function overHttp(): Promise<HttpFigures> {
  const generator: LoadGenerator = loadGenerator();
  // The Node generator is this process: it moves to core 1 for the HTTP rounds, off the servers' core.
  const unpin = generator.external ? () => {} : pinSelf('1');
  const rows: Row[] = [];
  const targets: Target[] = [];
  const notes: string[] = [];
  const emulator = await start(
    ['--import', GC_PROBE, BIN, 'serve', '--port', '0', '--clock', 'manual', '--log', 'silent'],
    0,
  );
  const servers = [emulator.child];
  try {
    const created = JSON.parse(
      (await request(`${emulator.url}/_emulator/companies`, 'POST', { 'content-type': 'application/json' }, '{}')).text,
    );
    const token: string = created.token;
    const auth = { authorization: `Bearer ${token}` };
    let n = 0;
    const key = () => `bench-http-setup-${String(++n).padStart(8, '0')}`;
    const catalog = JSON.parse(
      (
        await request(
          `${emulator.url}/v1/catalogos`,
          'POST',
          { ...auth, 'content-type': 'application/json', 'idempotency-key': key() },
          JSON.stringify({ estabelecimento_id: created.headOffice.id, nome: 'Bench' }),
        )
      ).text,
    );
    // One product per connection, made through the API: each PATCH round changes them, one request in flight each.
    const products: Product[] = [];
    let productJson: unknown;
    for (let i = 0; i < CONNECTIONS; i++) {
      const r = await request(
        `${emulator.url}/v1/catalogos/${catalog.id}/produtos`,
        'POST',
        { ...auth, 'content-type': 'application/json', 'idempotency-key': key() },
        JSON.stringify({ origem: 'erp', ncm: '84713012', sku: `SKU-${i}` }),
      );
      if (r.status !== 201) throw new Error(`POST product answered ${r.status}: ${r.text}`);
      productJson = JSON.parse(r.text);
      products.push({ id: (productJson as { id: string }).id, etag: r.headers.etag as string });
    }
    const catalogJson = JSON.parse((await request(`${emulator.url}/v1/catalogos/${catalog.id}`, 'GET', auth)).text);
    const bare = await start(
      ['--import', GC_PROBE, BARE, JSON.stringify({ catalog: catalogJson, product: productJson })],
      0,
    );
    servers.push(bare.child);
    const ceilingServer = await start([BARE_NODE_HTTP, JSON.stringify({ catalog: catalogJson })], 0);
    servers.push(ceilingServer.child);

    // GET: the same request, credential included, to both (the bare server ignores it).
    const getPath = `/v1/catalogos/${catalog.id}`;
    const get = (server: { url: string; child: { pid?: number | undefined } }, seconds: number) =>
      generator.get(`${server.url}${getPath}`, auth, seconds, server.child.pid);
    checked('warm-up GET emulator', await get(emulator, WARM_UP_SECONDS));
    checked('warm-up GET bare hono', await get(bare, WARM_UP_SECONDS));
    const [emuGets, bareGets] = await interleaved(
      ROUNDS,
      async (i) => checked(`GET emulator, round ${i + 1}`, await get(emulator, SECONDS)),
      async (i) => checked(`GET bare hono, round ${i + 1}`, await get(bare, SECONDS)),
      'HTTP GET',
    );
    const emuGet = medians(emuGets);
    const bareGet = medians(bareGets);
    rows.push(row('HTTP GET catalog (req/s)', emuGet, bareGet, 'bare hono'));
    const getPerCpu = perCpuRow('HTTP GET catalog (req per server CPU-second)', emuGet, bareGet);

    // PATCH: before each emulator round the products' current ETags are read back (the last round changed them).
    const current = async (): Promise<Product[]> => {
      // A request the last round left in flight when wrk closed its connections may still be answered first.
      await new Promise((resolve) => setTimeout(resolve, 200));
      return Promise.all(
        products.map(async (p) => ({
          id: p.id,
          etag: (await request(`${emulator.url}/v1/produtos/${p.id}`, 'GET', auth)).headers.etag as string,
        })),
      );
    };
    const patch = async (
      server: { url: string; child: { pid?: number | undefined } },
      label: string,
      seconds: number,
    ) => {
      const list = server === emulator ? await current() : products;
      return checked(
        `PATCH ${label}`,
        await generator.patch(
          server.url,
          token,
          list,
          `bench-${label.replace(/\W+/g, '-')}`,
          seconds,
          server.child.pid,
        ),
      );
    };
    await patch(emulator, 'emulator-warm-up', WARM_UP_SECONDS);
    await patch(bare, 'bare-warm-up', WARM_UP_SECONDS);
    const [emuPatches, barePatches] = await interleaved(
      ROUNDS,
      (i) => patch(emulator, `emulator-round-${i + 1}`, SECONDS),
      (i) => patch(bare, `bare-round-${i + 1}`, SECONDS),
      'HTTP PATCH',
    );
    const emuPatch = medians(emuPatches);
    const barePatch = medians(barePatches);
    rows.push(row('HTTP PATCH product (req/s)', emuPatch, barePatch, 'bare hono'));
    const patchPerCpu = perCpuRow('HTTP PATCH product (req per server CPU-second)', emuPatch, barePatch);
    for (const extra of [getPerCpu, patchPerCpu]) if (extra) rows.push(extra);

    // One more PATCH round each, V8's record of its collections open: what a request leaves them, in bytes and counts.
    const emuGc = await gcWindow(emulator, () => patch(emulator, 'emulator-gc', SECONDS));
    const bareGc = await gcWindow(bare, () => patch(bare, 'bare-gc', SECONDS));
    rows.push(...gcRows(emuGc, bareGc));

    // The generator's ceiling: the same GET against a bare node:http server, on the same core as the servers.
    const ceilingRounds = Math.min(3, ROUNDS);
    const ceilings: LoadResult[] = [];
    for (let i = 0; i < ceilingRounds; i++)
      ceilings.push(checked('GET bare node:http', await get(ceilingServer, SECONDS)));
    const ceiling = medians(ceilings);
    rows.push({
      figure: 'load generator ceiling: GET bare node:http (req/s)',
      value: fmt(ceiling.rps),
      reference: `${fmt(bareGet.rps)} bare hono GET`,
      ratio: `hono at ${fmt((100 * bareGet.rps) / ceiling.rps)}%`,
      latency: { p50: ms(ceiling.p50), p99: ms(ceiling.p99) },
      cpu: pct(ceiling.cpu),
      generatorCpu: pct(ceiling.generatorCpu),
    });
    if (!generator.external) {
      notes.push(
        `The Node load generator runs in the bench process and tops out near ${fmt(ceiling.rps)} req/s against a bare node:http server: that ceiling caps the HTTP ratios (bare hono's GET reaches ${fmt((100 * bareGet.rps) / ceiling.rps)}% of it). Install wrk (apt-get install -y wrk) for figures the generator does not cap.`,
      );
    } else if ((bareGet.generatorCpu ?? 0) > 0.9 || (barePatch.generatorCpu ?? 0) > 0.9) {
      notes.push(
        `${generator.description} used ${pct(bareGet.generatorCpu)} (GET) and ${pct(barePatch.generatorCpu)} (PATCH) of its core in the bare hono rounds: it may have capped them, and the ratios with them.`,
      );
    }
    const sides = [emuGet, bareGet, emuPatch, barePatch];
    const starved = sides.some((r) => r.cpu !== null && r.cpu < 0.85);
    if (starved) {
      notes.push(
        `A server used less than 85% of its core in the HTTP rounds (${sides.map((r) => pct(r.cpu)).join(', ')}; emulator GET, bare GET, emulator PATCH, bare PATCH) while core 0 was ${sides.map((r) => pct(r.coreBusy)).join(', ')} busy in all: other processes took the rest, so the throughputs, ratios and p99 say more about the machine's load than about the servers; the rows per server CPU-second discount it.`,
      );
    }
    const getRatio = emuGet.rps / bareGet.rps;
    const patchRatio = emuPatch.rps / barePatch.rps;
    targets.push({
      bar: 'HTTP GET ≥ 75% of bare hono',
      holds: getRatio >= 0.75,
      numbers: `${fmt(100 * getRatio)}% (${fmt(emuGet.rps)} vs ${fmt(bareGet.rps)} req/s)`,
    });
    targets.push({
      bar: 'HTTP PATCH ≥ 60% of bare hono',
      holds: patchRatio >= 0.6,
      numbers: `${fmt(100 * patchRatio)}% (${fmt(emuPatch.rps)} vs ${fmt(barePatch.rps)} req/s)`,
    });
    targets.push({
      bar: 'HTTP GET p99 ≤ 2× bare hono',
      holds: emuGet.p99 <= 2 * bareGet.p99,
      numbers: `${ms(emuGet.p99)} vs ${ms(bareGet.p99)} ms (${fmt(emuGet.p99 / bareGet.p99, 1)}×)`,
    });
    targets.push({
      bar: 'HTTP PATCH p99 ≤ 2× bare hono',
      holds: emuPatch.p99 <= 2 * barePatch.p99,
      numbers: `${ms(emuPatch.p99)} vs ${ms(barePatch.p99)} ms (${fmt(emuPatch.p99 / barePatch.p99, 1)}×)`,
    });
    if (!generator.external)
      for (const target of targets) target.numbers += ' (the Node generator: its ceiling caps this)';
    else if (starved) for (const target of targets) target.numbers += ' (servers short of CPU: see the note)';
    const pinning = PINNING
      ? 'servers taskset to core 0, generator to core 1'
      : 'no pinning (taskset not found or one core)';
    return {
      rows,
      targets,
      generator: `${generator.description}, ${ROUNDS} interleaved rounds of ${SECONDS} s, ${pinning}`,
      notes,
    };
  } finally {
    for (const child of servers) await stop(child);
    generator.close();
    unpin();
  }
}
