// TEMPORARY experiment (not committed): PATCH rounds against the CLI with extra args, alternating with bare hono.
import { fileURLToPath } from 'node:url';
import { CONNECTIONS, loadGenerator, type Product } from './load.js';
import { request, start, stop, median } from './support.js';
const BIN = fileURLToPath(new URL('../dist/bin/catalog-emulator.js', import.meta.url));
const BARE = fileURLToPath(new URL('./bare-server.mjs', import.meta.url));
const variants: string[][] = JSON.parse(process.argv[2] ?? '[[]]');
const nodeFlags: string[] = JSON.parse(process.argv[3] ?? '[]');
const rounds = Number(process.env.R ?? 5), seconds = Number(process.env.S ?? 5);
const gen = loadGenerator();
const servers: { label: string; url: string; child: any; token: string; products: Product[] }[] = [];
let bareStarted = false;
for (const extra of variants) {
  const s = await start([...nodeFlags, BIN, 'serve', '--port', '0', '--clock', 'manual', '--log', 'silent', ...extra], 0);
  const created = JSON.parse((await request(`${s.url}/_emulator/companies`, 'POST', { 'content-type': 'application/json' }, '{}')).text);
  const auth = { authorization: `Bearer ${created.token}` };
  let n = 0; const key = () => `setup-key-${String(++n).padStart(10, "0")}`;
  const catalog = JSON.parse((await request(`${s.url}/v1/catalogos`, 'POST', { ...auth, 'content-type': 'application/json', 'idempotency-key': key() }, JSON.stringify({ estabelecimento_id: created.headOffice.id, nome: 'B' }))).text);
  const products: Product[] = []; let pj: unknown;
  for (let i = 0; i < CONNECTIONS; i++) {
    const r = await request(`${s.url}/v1/catalogos/${catalog.id}/produtos`, 'POST', { ...auth, 'content-type': 'application/json', 'idempotency-key': key() }, JSON.stringify({ origem: 'erp', ncm: '84713012', sku: `SKU-${i}` }));
    if (r.status !== 201) throw new Error(r.text); pj = JSON.parse(r.text); products.push({ id: (pj as any).id, etag: r.headers.etag as string });
  }
  servers.push({ label: extra.join(' ') || 'default', ...s, token: created.token, products });
  if (!bareStarted) { bareStarted = true; const b = await start([BARE, JSON.stringify({ catalog: {}, product: pj })], 0); servers.push({ label: 'bare', ...b, token: created.token, products }); }
}
const results = new Map<string, { rps: number[]; p50: number[]; p99: number[] }>();
const current = async (s: typeof servers[0]) => {
  if (s.label === 'bare') return s.products;
  await new Promise((r) => setTimeout(r, 200));
  return Promise.all(s.products.map(async (p) => ({ id: p.id, etag: (await request(`${s.url}/v1/produtos/${p.id}`, 'GET', { authorization: `Bearer ${s.token}` })).headers.etag as string })));
};
for (const s of servers) await gen.patch(s.url, s.token, await current(s), `warm-${s.label.replace(/\W+/g, '-')}`, 2, s.child.pid);
for (let i = 0; i < rounds; i++) for (const s of servers) {
  const r = await gen.patch(s.url, s.token, await current(s), `r${i}-${s.label.replace(/\W+/g, '-')}`, seconds, s.child.pid);
  if (r.errors) throw new Error(`${s.label}: ${r.errors} errors`);
  const e = results.get(s.label) ?? { rps: [], p50: [], p99: [] }; e.rps.push(r.rps); e.p50.push(r.p50); e.p99.push(r.p99); results.set(s.label, e);
}
const bare = results.get('bare')!;
for (const [label, e] of results) console.log(`${label.padEnd(40)} rps ${median(e.rps).toFixed(0).padStart(6)} (${(100 * median(e.rps) / median(bare.rps)).toFixed(0)}%)  p50 ${median(e.p50).toFixed(2)}  p99 ${median(e.p99).toFixed(2)} (${(median(e.p99) / median(bare.p99)).toFixed(2)}×)  p99s ${e.p99.map((x) => x.toFixed(1)).join(' ')}`);
for (const s of servers) await stop(s.child);
gen.close();
