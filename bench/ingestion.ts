// The bench reads its JSON answers loosely (as `any`): it is scaffolding, not the product.
/**
 * The ingestion figure of docs/performance.md: an ingestion of 100,000 records (100 batches × 1,000). Its validation
 * and application are measured in CPU time beside the reference they must stay well under: the HTTP transfer of the
 * same 100 batches to the CLI server on loopback. Memory is the heap retained after the batches and after the
 * application (after a collection, with --expose-gc). And a page of the resulting 100,000-product catalog, first and
 * last, to show a page costs O(page).
 */
import { collectGarbage, createEmulator, fmt, request, start, stop, type Emulator, type Row } from './support.js';

const BATCHES = 100;
const PER_BATCH = 1000;
const RECORDS = BATCHES * PER_BATCH;

/** A record of an ingestion batch: the b-th batch's i-th, the k-th of all. */
type RecordOf = (b: number, i: number, k: number) => Record<string, unknown>;

/** Realistic records (~185 bytes of JSON each). */
const realistic: RecordOf = (b, i) => ({
  id_externo: `ERP-${b}-${i}`,
  origem: 'erp',
  ncm: ['84713012', '21069090', '85171231'][i % 3],
  sku: `SKU-${b}-${i}`,
  descricao: `Produto ${b}-${i}, embalagem de 500 g`,
  atributos: [{ codigo: 'ATT_0005', valores: [i % 2 ? '220V' : '380V'] }],
});

/** Canonical batches of PER_BATCH records: the same for every side. */
function batchBodies(records = RECORDS, record: RecordOf = realistic): string[] {
  return Array.from({ length: Math.ceil(records / PER_BATCH) }, (_, b) =>
    JSON.stringify({
      itens: Array.from({ length: Math.min(PER_BATCH, records - b * PER_BATCH) }, (_, i) =>
        record(b, i, b * PER_BATCH + i),
      ),
    }),
  );
}

/** The HTTP transfer: the 100 batches PUT one after another to the CLI server, as an uploader would. */
async function httpTransfer(bin: string, bodies: readonly string[]): Promise<number> {
  const server = await start([bin, 'serve', '--port', '0', '--clock', 'manual', '--log', 'silent']);
  try {
    const created = JSON.parse(
      (await request(`${server.url}/_emulator/companies`, 'POST', { 'content-type': 'application/json' }, '{}')).text,
    );
    const headers = (n: number) => ({
      authorization: `Bearer ${created.token}`,
      'content-type': 'application/json',
      'idempotency-key': `bench-ingestion-http-${String(n).padStart(6, '0')}`,
    });
    await request(
      `${server.url}/v1/catalogos`,
      'POST',
      headers(0),
      JSON.stringify({ estabelecimento_id: created.headOffice.id, nome: 'Bench' }),
    );
    const started = JSON.parse(
      (
        await request(
          `${server.url}/v1/catalogos/ingestoes`,
          'POST',
          headers(1),
          JSON.stringify({ operacao: 'mesclar' }),
        )
      ).text,
    );
    const t0 = performance.now();
    for (let b = 0; b < BATCHES; b++) {
      const r = await request(
        `${server.url}/v1/catalogos/ingestoes/${started.ingestao_id}/lotes/${b + 1}`,
        'PUT',
        headers(b + 2),
        bodies[b],
      );
      if (r.status !== 201) throw new Error(`batch ${b + 1} answered ${r.status}: ${r.text.slice(0, 300)}`);
    }
    return performance.now() - t0;
  } finally {
    await stop(server.child);
  }
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const heapMb = () => process.memoryUsage().heapUsed / 1e6;

/** An in-process session of one company: `call` sends a request with its credential and a fresh idempotency-key. */
function session(emu: Emulator) {
  const company = emu.companies.create();
  let n = 0;
  const headers = (extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${company.token}`,
    'content-type': 'application/json',
    'idempotency-key': `bench-ingestion-${String(++n).padStart(8, '0')}`,
    ...extra,
  });
  const call = async (method: string, path: string, body?: string, extra?: Record<string, string>) => {
    const response = await emu.fetch(path, {
      method,
      headers: headers(extra),
      ...(body === undefined ? {} : { body }),
    });
    return { status: response.status, etag: response.headers.get('etag'), body: (await response.json()) as any };
  };
  return { company, headers, call };
}

/**
 * One ingestion of `bodies` into a new catalog, validated and applied: the PUTs timed, the validation and the
 * application in CPU time, and the heap retained with the batches and after the application.
 */
async function ingest(emu: Emulator, bodies: readonly string[]) {
  const records = bodies.reduce((sum, body) => sum + (JSON.parse(body) as { itens: unknown[] }).itens.length, 0);
  const { company, headers, call } = session(emu);
  const catalog = (
    await call('POST', '/v1/catalogos', JSON.stringify({ estabelecimento_id: company.headOffice.id, nome: 'Bench' }))
  ).body;
  const id = (
    await call('POST', '/v1/catalogos/ingestoes', JSON.stringify({ operacao: 'mesclar', catalogo_id: catalog.id }))
  ).body.ingestao_id;
  // Validation and application each take 1 s + 1 ms per record of virtual time.
  const phase = `${Math.ceil((1000 + records) / 60_000) + 1}m`;
  collectGarbage();
  const heapStart = heapMb();
  const t0 = performance.now();
  for (let b = 0; b < bodies.length; b++) await call('PUT', `/v1/catalogos/ingestoes/${id}/lotes/${b + 1}`, bodies[b]);
  const putsMs = performance.now() - t0;
  collectGarbage();
  const heapBatches = heapMb() - heapStart;

  await call('POST', `/v1/catalogos/ingestoes/${id}/fechamento`, JSON.stringify({ total_lotes: bodies.length }));
  let since = process.cpuUsage();
  await emu.clock.advance(phase);
  const validateMs = cpuMs(since);
  const validated = await call('GET', `/v1/catalogos/ingestoes/${id}`);
  if (validated.body.estado !== 'validada' || validated.body.previa.novos !== records)
    throw new Error(`not validated: ${JSON.stringify(validated.body).slice(0, 300)}`);
  await call('POST', `/v1/catalogos/ingestoes/${id}/aplicacao`, '{}', { 'if-match': validated.etag! });
  since = process.cpuUsage();
  await emu.clock.advance(phase);
  const applyMs = cpuMs(since);
  const applied = await call('GET', `/v1/catalogos/ingestoes/${id}`);
  if (applied.body.estado !== 'aplicada') throw new Error(`not applied: ${applied.body.estado}`);
  collectGarbage();
  const heapApplied = heapMb() - heapStart;
  return {
    company,
    catalogId: catalog.id as string,
    headers,
    call,
    putsMs,
    validateMs,
    applyMs,
    heapBatches,
    heapApplied,
  };
}

/**
 * An emulator whose one catalog holds `count` products, loaded by one ingestion: a few seconds for 100,000, where
 * as many POSTs take several times longer.
 */
export async function catalogOf(count: number, record?: RecordOf) {
  const emu = createEmulator();
  const { company, catalogId, call } = await ingest(emu, batchBodies(count, record));
  return { emu, company, catalogId, call };
}

export async function ingestionAtScale(rows: Row[], bin: string): Promise<void> {
  const bodies = batchBodies();
  const bytes = bodies.reduce((sum, body) => sum + Buffer.byteLength(body), 0);
  const transferMs = await httpTransfer(bin, bodies);

  const emu = createEmulator();
  const { catalogId, headers, call, putsMs, validateMs, applyMs, heapBatches, heapApplied } = await ingest(emu, bodies);
  const total = validateMs + applyMs;
  rows.push({
    figure: 'ingestion, 100,000 records: validate + apply (CPU ms)',
    value: `${fmt(total)} (${fmt(validateMs)} + ${fmt(applyMs)})`,
    reference: `${fmt(transferMs)} HTTP transfer of its 100 batches (${fmt(bytes / 1e6, 1)} MB)`,
    ratio: `${fmt((100 * total) / transferMs)}%`,
  });
  rows.push({
    figure: 'ingestion, 100,000 records: the 100 batch PUTs in process (ms)',
    value: fmt(putsMs),
    reference: `${fmt(transferMs)} over HTTP`,
    ratio: `${fmt((100 * putsMs) / transferMs)}%`,
  });
  rows.push({
    figure: 'ingestion, 100,000 records: heap retained (MB)',
    value: `${fmt(heapBatches)} with the batches`,
    reference: `${fmt(heapApplied)} after applying (100,000 products)`,
    ratio: `${fmt((heapApplied * 1e6) / RECORDS)} B/product`,
  });

  // A page of 200 at the start and at the end of the catalog: the cost of a page must not grow with its offset.
  const page = (cursor?: string) =>
    `/v1/catalogos/${catalogId}/produtos?limite=200${cursor ? `&cursor=${cursor}` : ''}`;
  let cursor: string | undefined; // ends as the cursor of the last page
  for (;;) {
    const { body } = await call('GET', page(cursor));
    if (body.proximo_cursor === null) break;
    cursor = body.proximo_cursor;
  }
  const timed = async (path: string) => {
    const samples: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t = performance.now();
      await (await emu.fetch(path, { headers: headers() })).text();
      samples.push(performance.now() - t);
    }
    return samples.sort((a, b) => a - b)[15]!;
  };
  const firstMs = await timed(page());
  const lastMs = await timed(page(cursor));
  rows.push({
    figure: 'GET a page of 200 products, 100,000-product catalog (ms)',
    value: `${fmt(lastMs, 2)} at the end`,
    reference: `${fmt(firstMs, 2)} at the start`,
    ratio: `${fmt(lastMs / firstMs, 2)}×`,
  });
}
