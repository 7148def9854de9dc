// The bench reads its JSON answers loosely (as `any`): it is scaffolding, not the product.
/**
 * The in-process figures of docs/performance.md: `emu.fetch` against a hono app's `app.request` answering the
 * same request: the same path, the same headers (credential, content type, idempotency-key, If-Match), the body
 * read as JSON, the same JSON back with an ETag and an x-request-id. What is left between them is the emulator's
 * own work: auth, the checks every request goes through, the idempotency store, the journal, the records.
 */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { createEmulator, envNumber, fmt, interleaved, median, type Row, type Target } from './support.js';

const ROUNDS = envNumber('BENCH_ROUNDS', 5);
const ROUND_MS = envNumber('BENCH_MS', 1000);

/** Runs `op` back to back, one at a time, for ROUND_MS; returns operations per second. */
async function throughput(op: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  const end = t0 + ROUND_MS;
  let count = 0;
  while (performance.now() < end) {
    await op();
    count++;
  }
  return count / ((performance.now() - t0) / 1000);
}

/** The reference: the routes a bare hono app needs to answer the emulator's GET and PATCH with the same JSON. */
function referenceApp(catalogJson: unknown, productJson: Record<string, unknown>): Hono {
  let version = 0;
  const app = new Hono();
  app.get('/v1/catalogos/:id', (c) =>
    c.json(catalogJson, 200, { etag: '"0123456789abcdef"', 'x-request-id': randomUUID() }),
  );
  app.patch('/v1/produtos/:id', async (c) => {
    const change = await c.req.json();
    const n = ++version;
    return c.json({ ...productJson, ...change, id: c.req.param('id'), versao: n }, 200, {
      etag: `"${n.toString(16).padStart(16, '0')}"`,
      'x-request-id': randomUUID(),
    });
  });
  return app;
}

export async function inProcess(): Promise<{ rows: Row[]; targets: Target[] }> {
  const emu = createEmulator();
  const company = emu.companies.create();
  const auth = { authorization: `Bearer ${company.token}` };
  let n = 0;
  const key = () => `bench-key-${String(++n).padStart(12, '0')}`;
  const json = { ...auth, 'content-type': 'application/json' };
  const catalog: any = await (
    await emu.fetch('/v1/catalogos', {
      method: 'POST',
      headers: { ...json, 'idempotency-key': key() },
      body: JSON.stringify({ estabelecimento_id: company.headOffice.id, nome: 'Bench' }),
    })
  ).json();
  const created = await emu.fetch(`/v1/catalogos/${catalog.id}/produtos`, {
    method: 'POST',
    headers: { ...json, 'idempotency-key': key() },
    body: JSON.stringify({ origem: 'erp', ncm: '84713012', sku: 'SKU-0' }),
  });
  const product: any = await created.json();
  const catalogJson = await (await emu.fetch(`/v1/catalogos/${catalog.id}`, { headers: auth })).json();
  const reference = referenceApp(catalogJson, product);

  const getPath = `/v1/catalogos/${catalog.id}`;
  const emuGet = async () => {
    const r = await emu.fetch(getPath, { headers: auth });
    if (r.status !== 200) throw new Error(`GET answered ${r.status}: ${await r.text()}`);
    await r.text();
  };
  const refGet = async () => void (await (await reference.request(getPath, { headers: auth })).text());

  const patchPath = `/v1/produtos/${product.id}`;
  let emuEtag = created.headers.get('etag')!;
  let refEtag = '"0000000000000000"';
  let i = 0;
  const emuPatch = async () => {
    const r = await emu.fetch(patchPath, {
      method: 'PATCH',
      headers: { ...json, 'idempotency-key': key(), 'if-match': emuEtag },
      body: `{"sku":"SKU-${++i}"}`,
    });
    if (r.status !== 200) throw new Error(`PATCH answered ${r.status}: ${await r.text()}`);
    emuEtag = r.headers.get('etag')!;
    await r.text();
  };
  const refPatch = async () => {
    const r = await reference.request(patchPath, {
      method: 'PATCH',
      headers: { ...json, 'idempotency-key': key(), 'if-match': refEtag },
      body: `{"sku":"SKU-${++i}"}`,
    });
    refEtag = r.headers.get('etag')!;
    await r.text();
  };

  const rows: Row[] = [];
  const targets: Target[] = [];
  const pair = async (figure: string, subject: () => Promise<void>, ref: () => Promise<void>, bar: number) => {
    await throughput(subject); // warm-up
    await throughput(ref);
    const [a, b] = await interleaved(
      ROUNDS,
      () => throughput(subject),
      () => throughput(ref),
      figure,
    );
    const [value, refValue] = [median(a), median(b)];
    rows.push({
      figure,
      value: fmt(value),
      reference: `${fmt(refValue)} hono app.request`,
      ratio: `${fmt((100 * value) / refValue)}%`,
    });
    targets.push({
      bar: `${figure.replace(' (req/s)', '')} ≥ ${100 * bar}% of a hono route`,
      holds: value / refValue >= bar,
      numbers: `${fmt((100 * value) / refValue)}% (${fmt(value)} vs ${fmt(refValue)} req/s)`,
    });
  };
  await pair('in process: GET catalog (req/s)', emuGet, refGet, 0.75);
  await pair('in process: PATCH product (req/s)', emuPatch, refPatch, 0.65);
  return { rows, targets };
}
