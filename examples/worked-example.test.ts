/**
 * The worked example of docs/grading.md ("A worked example"): the small integration of worked-example-mistakes.ts and
 * the same fixed (worked-example-fixed.ts), each run as its author's test runs it, then with the faults that expose the
 * mistakes and the receiver check. The first version's report is worked-example-report.txt (the part docs/grading.md
 * shows); the fixed version's has no finding, and its receiver passes every case.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { createEmulator, formatReport, RECEIVER_CASES, type Report } from 'catalog-emulator';
import * as fixed from './worked-example-fixed.js';
import * as mistakes from './worked-example-mistakes.js';
import type { CatalogService } from './worked-example-service.js';

const SECRET = 'svc_whsec_the-secret-the-receiver-verifies-with';

type Emulator = ReturnType<typeof createEmulator>;

/** An emulator with a company, and the integration's view of it, as the graded test below makes them. */
function arrange() {
  const emu = createEmulator();
  const acme = emu.companies.create({ cnpjRoot: '11222333' });
  let keys = 0;
  const service: CatalogService = {
    baseUrl: 'http://catalog-emulator.local',
    token: acme.token,
    fetch: emu.fetch,
    newKey: () => `idempotency-key-${++keys}`,
  };
  const store = { establishmentId: acme.headOffice.id, name: 'Loja', product: { origem: 'erp', ncm: '21069090' } };
  return { emu, acme, service, store };
}

/** The products of a catalog, as the service lists them. */
async function products(emu: Emulator, token: string, catalogId: string) {
  const answer = await emu.fetch(`/v1/catalogos/${catalogId}/produtos`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return ((await answer.json()) as { itens: { id: string; sku: string | null; versao: number }[] }).itens;
}

/** The part of the report docs/grading.md shows: the findings, the score, the receiver (not the coverage's detail). */
function excerpt(report: Report): string {
  const lines = formatReport(report).split('\n');
  const score = lines.findIndex((line) => line.startsWith('## What your tests exercised'));
  const receiver = lines.findIndex((line) => line.startsWith('## Your webhook receiver'));
  expect(
    [score, receiver].every((i) => i > 0),
    formatReport(report),
  ).toBe(true);
  return [...lines.slice(0, score + 1), '', '…', '', ...lines.slice(receiver)].join('\n');
}

test.each([
  ['first', mistakes],
  ['fixed', fixed],
])('on the happy path the %s version passes its own test, and no rule is broken', async (_name, integration) => {
  const { emu, acme, service, store } = arrange();
  const { catalogId, productId } = await integration.publishCatalog(service, store);
  const product = await integration.updateProduct(service, productId, { sku: 'CAFE-500' });
  expect(product).toMatchObject({ id: productId, sku: 'CAFE-500', versao: 2 });
  expect(await products(emu, acme.token, catalogId)).toMatchObject([{ id: productId, sku: 'CAFE-500' }]);
  expect(emu.report().findings).toEqual([]);
});

test('the first version, with a lost answer and a concurrent edit, and its receiver checked: two findings and two failing cases', async () => {
  // #region graded
  const emu = createEmulator();
  const acme = emu.companies.create({ cnpjRoot: '11222333' });
  let keys = 0; // idempotency-keys made predictable, for the report's sake (a random UUID by default)
  const service = {
    baseUrl: 'http://catalog-emulator.local',
    token: acme.token,
    fetch: emu.fetch,
    newKey: () => `idempotency-key-${++keys}`,
  };
  const applied: string[] = []; // the events the receiver applied

  // What a happy path never meets: the product's creation applied but its answer lost, and someone else saving the
  // product just before the edit.
  emu.faults.add({
    target: 'api',
    match: { method: 'POST', path: '/v1/catalogos/*/produtos' },
    effect: { loseResponse: true },
  });
  emu.faults.add({
    target: 'api',
    match: { method: 'PATCH', path: '/v1/produtos/*' },
    effect: { concurrentEdit: true },
  });
  const store = { establishmentId: acme.headOffice.id, name: 'Loja', product: { origem: 'erp', ncm: '21069090' } };
  const { catalogId, productId } = await mistakes.publishCatalog(service, store);
  await expect(mistakes.updateProduct(service, productId, { sku: 'CAFE-500' })).rejects.toThrow(
    '412 precondicao_falhou',
  );
  // The receiver, sent the receiver check's cases.
  await emu.webhooks.checkReceiver({
    fetch: mistakes.webhookReceiver(SECRET, (event) => applied.push(event.id)),
    secret: SECRET,
  });

  const report = emu.report(); // formatReport(report) writes it as text, below
  expect(report.findings.map((f) => f.rule)).toEqual(['new-key-after-lost-answer', 'stale-etag-retried']);
  expect(report.receiver?.failing).toEqual(['stale-timestamp', 'future-timestamp']);
  // #endregion

  // What the service saw: the lost creation sent again under a new key, and the refused ETag sent again.
  const requests = emu.journal.entries();
  expect(requests.map((r) => [r.method, r.path, r.status, r.idempotencyKey])).toEqual([
    ['POST', '/v1/catalogos', 201, 'idempotency-key-1'],
    ['POST', `/v1/catalogos/${catalogId}/produtos`, 503, 'idempotency-key-2'],
    ['POST', `/v1/catalogos/${catalogId}/produtos`, 201, 'idempotency-key-3'],
    ['GET', `/v1/produtos/${productId}`, 200, null],
    ['PATCH', `/v1/produtos/${productId}`, 412, 'idempotency-key-4'],
    ['PATCH', `/v1/produtos/${productId}`, 412, 'idempotency-key-5'],
  ]);
  const id = (i: number) => requests[i]!.requestId;
  expect(report.findings.map((f) => [f.rule, f.statements, f.requestIds, f.eventIds])).toEqual([
    ['new-key-after-lost-answer', ['REQ-02', 'REQ-03'], [id(1), id(2)], []],
    ['stale-etag-retried', ['REQ-05'], [id(4), id(5)], []],
  ]);
  expect(report.findingsDropped).toBe(0);
  const failing = ['stale-timestamp', 'future-timestamp'];
  expect(report.receiver).toEqual({
    target: 'https://receiver.test/',
    passed: RECEIVER_CASES.length - 2,
    failed: 2,
    failing,
  });
  expect(excerpt(report)).toBe(readFileSync(new URL('worked-example-report.txt', import.meta.url), 'utf8'));

  // What the mistakes did: the store's catalog holds its product twice, and the receiver applied two replayed
  // deliveries (valid, within-tolerance, exact-bytes and late-retry are the four it should have applied).
  expect((await products(emu, acme.token, catalogId)).map((p) => p.id)).toEqual([expect.any(String), productId]);
  expect(applied).toHaveLength(RECEIVER_CASES.filter((c) => c.expect === 'accept').length - 1 + 2);
});

test('the fixed version, under the same faults and check: no finding, and every case of the receiver check passed', async () => {
  const { emu, acme, service, store } = arrange();
  const applied: string[] = [];
  emu.faults.add({
    target: 'api',
    match: { method: 'POST', path: '/v1/catalogos/*/produtos' },
    effect: { loseResponse: true },
  });
  emu.faults.add({
    target: 'api',
    match: { method: 'PATCH', path: '/v1/produtos/*' },
    effect: { concurrentEdit: true },
  });
  const { catalogId, productId } = await fixed.publishCatalog(service, store);
  const product = await fixed.updateProduct(service, productId, { sku: 'CAFE-500' });
  await emu.webhooks.checkReceiver({
    fetch: fixed.webhookReceiver(SECRET, (event) => applied.push(event.id)),
    secret: SECRET,
  });

  const report = emu.report();
  expect(report.findings, formatReport(report)).toEqual([]);
  expect(report.findingsDropped).toBe(0);
  const passed = RECEIVER_CASES.length;
  expect(report.receiver).toEqual({ target: 'https://receiver.test/', passed, failed: 0, failing: [] });
  expect(formatReport(report)).toContain('## Findings on your client (0)\n\nNone: no rule was broken.\n');

  // The lost creation answered from the store under its key, and the edit applied to the product someone else saved.
  const requests = emu.journal.entries();
  expect(requests.map((r) => [r.method, r.path, r.status, r.idempotencyKey, r.replayed])).toEqual([
    ['POST', '/v1/catalogos', 201, 'idempotency-key-1', false],
    ['POST', `/v1/catalogos/${catalogId}/produtos`, 503, 'idempotency-key-2', false],
    ['POST', `/v1/catalogos/${catalogId}/produtos`, 201, 'idempotency-key-2', true],
    ['GET', `/v1/produtos/${productId}`, 200, null, false],
    ['PATCH', `/v1/produtos/${productId}`, 412, 'idempotency-key-3', false],
    ['GET', `/v1/produtos/${productId}`, 200, null, false],
    ['PATCH', `/v1/produtos/${productId}`, 200, 'idempotency-key-4', false],
  ]);
  expect(product).toMatchObject({ id: productId, sku: 'CAFE-500', versao: 3 });
  expect(await products(emu, acme.token, catalogId)).toMatchObject([{ id: productId, sku: 'CAFE-500', versao: 3 }]);
  // The events of the cases it must accept, each applied once (duplicate's is valid's).
  expect(applied).toHaveLength(RECEIVER_CASES.filter((c) => c.expect === 'accept').length - 1);
});
