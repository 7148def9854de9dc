/**
 * What `serve --state FILE` costs a request: PATCH a product over loopback (the request the HTTP figures time) on
 * three CLI servers started alike, without --state, with --state FILE (each change written to FILE.log before its
 * answer), and with --state FILE --state-sync (each change also flushed to the disk, fdatasync, before its answer).
 * Rounds alternate between the three (servers on core 0, the generator on core 1, as in bench/http.ts); medians of
 * throughput, p50 and p99. The state files live in a temporary folder on the machine's own disk (os.tmpdir()): what
 * an fdatasync costs is that disk's.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONNECTIONS, loadGenerator, pinSelf, type LoadResult, type Product } from './load.js';
import { envNumber, fmt, median, request, start, stop, type Row, type Target } from './support.js';

const BIN = fileURLToPath(new URL('../dist/bin/catalog-emulator.js', import.meta.url));
const ROUNDS = envNumber('BENCH_ROUNDS', 5);
const SECONDS = envNumber('BENCH_HTTP_S', 5);
const WARM_UP_SECONDS = envNumber('BENCH_WARMUP_S', 2);

interface Side {
  readonly name: string;
  readonly args: readonly string[];
  url: string;
  token: string;
  products: Product[];
  pid: number | undefined;
  readonly results: LoadResult[];
}

const ms = (n: number) => fmt(n, n < 10 ? 2 : 1);
const pct = (share: number | null) => (share === null ? 'n/a' : `${fmt(100 * share)}%`);

/** A GET, tried again once when the server closed the idle keep-alive socket it came on (the other sides' rounds are long). */
async function getAgain(url: string, headers: Record<string, string>): Promise<Awaited<ReturnType<typeof request>>> {
  try {
    return await request(url, 'GET', headers);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') throw error;
    return request(url, 'GET', headers);
  }
}

interface Medians {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  /** The server's share of its core, and so its CPU time per request (ms). */
  readonly cpu: number | null;
  readonly cpuMsPerRequest: number | null;
}

function medians(results: readonly LoadResult[]): Medians {
  const of = (pick: (r: LoadResult) => number) => median(results.map(pick));
  const cpus = results.map((r) => r.cpu).filter((c): c is number => c !== null);
  const perRequest = results.filter((r) => r.cpu !== null && r.rps > 0).map((r) => (1000 * r.cpu!) / r.rps);
  return {
    rps: of((r) => r.rps),
    p50: of((r) => r.p50),
    p99: of((r) => r.p99),
    cpu: cpus.length ? median(cpus) : null,
    cpuMsPerRequest: perRequest.length ? median(perRequest) : null,
  };
}

export async function stateCost(): Promise<{ rows: Row[]; targets: Target[]; notes: string[]; generator: string }> {
  const generator = loadGenerator();
  const unpin = generator.external ? () => {} : pinSelf('1');
  const dir = mkdtempSync(join(os.tmpdir(), 'catalog-bench-state-'));
  const path = (name: string) => join(dir, `${name}.json`);
  const sides: Side[] = [
    { name: 'no --state', args: [], url: '', token: '', products: [], pid: undefined, results: [] },
    { name: '--state', args: ['--state', path('log')], url: '', token: '', products: [], pid: undefined, results: [] },
    {
      name: '--state --state-sync',
      args: ['--state', path('sync'), '--state-sync'],
      url: '',
      token: '',
      products: [],
      pid: undefined,
      results: [],
    },
  ];
  const children: Awaited<ReturnType<typeof start>>['child'][] = [];
  try {
    for (const side of sides) {
      const server = await start(
        [BIN, 'serve', '--port', '0', '--clock', 'manual', '--log', 'silent', ...side.args],
        0,
      );
      children.push(server.child);
      side.url = server.url;
      side.pid = server.child.pid;
      const created = JSON.parse(
        (await request(`${server.url}/_emulator/companies`, 'POST', { 'content-type': 'application/json' }, '{}')).text,
      );
      side.token = created.token;
      const auth = { authorization: `Bearer ${side.token}`, 'content-type': 'application/json' };
      let n = 0;
      const key = () => `bench-state-setup-${String(++n).padStart(8, '0')}`;
      const catalog = JSON.parse(
        (
          await request(
            `${server.url}/v1/catalogos`,
            'POST',
            { ...auth, 'idempotency-key': key() },
            JSON.stringify({ estabelecimento_id: created.headOffice.id, nome: 'Bench' }),
          )
        ).text,
      );
      for (let i = 0; i < CONNECTIONS; i++) {
        const r = await request(
          `${server.url}/v1/catalogos/${catalog.id}/produtos`,
          'POST',
          { ...auth, 'idempotency-key': key() },
          JSON.stringify({ origem: 'erp', ncm: '84713012', sku: `SKU-${i}` }),
        );
        if (r.status !== 201) throw new Error(`${side.name}: POST product answered ${r.status}: ${r.text}`);
        side.products.push({ id: (JSON.parse(r.text) as { id: string }).id, etag: r.headers.etag as string });
      }
    }
    const round = async (side: Side, label: string, seconds: number): Promise<LoadResult> => {
      // A request the last round left in flight when the generator closed its connections may still be answered.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const auth = { authorization: `Bearer ${side.token}` };
      side.products = await Promise.all(
        side.products.map(async (p) => ({
          id: p.id,
          etag: (await getAgain(`${side.url}/v1/produtos/${p.id}`, auth)).headers.etag as string,
        })),
      );
      const result = await generator.patch(
        side.url,
        side.token,
        side.products,
        `bench-state-${label}`,
        seconds,
        side.pid,
      );
      if (result.errors > 0)
        throw new Error(`PATCH ${side.name} ${label}: ${result.errors} answers were not 200 or failed`);
      return result;
    };
    for (const side of sides) await round(side, `${side.name}-warm-up`.replace(/\W+/g, '-'), WARM_UP_SECONDS);
    for (let i = 0; i < ROUNDS; i++) {
      // Each round in another order, so that no side always follows the same one.
      for (let j = 0; j < sides.length; j++) {
        const side = sides[(i + j) % sides.length]!;
        side.results.push(await round(side, `${side.name}-round-${i + 1}`.replace(/\W+/g, '-'), SECONDS));
      }
    }
    const [plain, logged, synced] = sides.map((side) => medians(side.results)) as [Medians, Medians, Medians];
    const rows: Row[] = [logged, synced].map((subject, i) => ({
      figure: `HTTP PATCH product with ${i === 0 ? '--state' : '--state --state-sync'} (req/s)`,
      value: fmt(subject.rps),
      reference: `${fmt(plain.rps)} without --state`,
      ratio: `${fmt((100 * subject.rps) / plain.rps)}%`,
      latency: { p50: `${ms(subject.p50)} vs ${ms(plain.p50)}`, p99: `${ms(subject.p99)} vs ${ms(plain.p99)}` },
      cpu: `${pct(subject.cpu)} vs ${pct(plain.cpu)}`,
    }));
    const cpuMs = (m: Medians) => (m.cpuMsPerRequest === null ? 'n/a' : `${fmt(m.cpuMsPerRequest, 3)} ms`);
    const notes = [
      `--state: each PATCH is answered once its change is in the log (one write(2)), which is folded into the file as it grows; --state-sync: and once an fdatasync (one per turn of the event loop, for every change written in it) has put it on ${os.tmpdir()}'s disk. Server CPU per PATCH: ${cpuMs(plain)} without --state, ${cpuMs(logged)} with it, ${cpuMs(synced)} with --state-sync (the fdatasync's own wait is not CPU). The log held ${fmt(statSync(`${path('log')}.log`).size)} bytes at the end.`,
    ];
    const targets: Target[] = [
      {
        bar: 'HTTP PATCH with --state ≥ 50% of without',
        holds: logged.rps >= 0.5 * plain.rps,
        numbers: `${fmt((100 * logged.rps) / plain.rps)}% (${fmt(logged.rps)} vs ${fmt(plain.rps)} req/s)`,
      },
    ];
    return {
      rows,
      targets,
      notes,
      generator: `${generator.description}, ${ROUNDS} rounds of ${SECONDS} s each side, the three sides in turn`,
    };
  } finally {
    for (const child of children) await stop(child);
    generator.close();
    unpin();
    rmSync(dir, { recursive: true, force: true });
  }
}
