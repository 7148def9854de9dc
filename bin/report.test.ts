/**
 * The report over real HTTP, through the built CLI: a client making the lost-answer and Retry-After mistakes (the
 * lost answer both ways: a loseResponse fault, and a held request whose connection the client closed) gets exactly
 * those findings from GET /_emulator/report, and the same client doing it right gets none; `serve --report FILE`
 * writes the report when the server stops, as JSON or Markdown, and refuses a file it could not write.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, killAll, runCli, type Run } from './cli-run.js';

const TIMEOUT = { timeout: 30_000 };
const folders: string[] = [];

beforeAll(assertBuilt);
afterEach(async () => {
  await killAll();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const made = mkdtempSync(join(tmpdir(), 'catalog-emulator-report-'));
  folders.push(made);
  return made;
}

/** Resolves once stdout holds a whole line (the start line under --json): its JSON. */
async function startLine(run: Run): Promise<{ url: string; companies: { companyId: string; token: string; headOffice: { id: string } }[] }> {
  for (let spins = 0; !run.stdout.includes('\n'); spins++) {
    if (run.child.exitCode !== null) throw new Error(`exited ${run.child.exitCode}: ${run.stderr}`);
    if (spins > 500) throw new Error(`no start line within 10 s\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return JSON.parse(run.stdout.slice(0, run.stdout.indexOf('\n')));
}

/** A client of one server and company: API calls with the company's token, control calls without. */
function client(url: string, token: string) {
  let n = 0;
  const key = () => `report-key-${String(++n).padStart(8, '0')}`;
  const api = async (method: string, path: string, init: { key?: string; body?: unknown; signal?: AbortSignal } = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    if (method !== 'GET') headers['idempotency-key'] = init.key ?? key();
    const response = await fetch(`${url}${path}`, { method, headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }), ...(init.signal ? { signal: init.signal } : {}) });
    await response.arrayBuffer();
    return { status: response.status, id: response.headers.get('x-request-id')! };
  };
  const control = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}/_emulator${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { api, control, key };
}

describe('the report over HTTP, through the built CLI', TIMEOUT, () => {
  it('finds a write retried under a new key after its answer was lost (a loseResponse, a connection the client closed) and a request repeated before its Retry-After; the same done right finds nothing; --report FILE.json writes it on SIGTERM', async () => {
    const dir = folder();
    const file = join(dir, 'report.json');
    writeFileSync(file, 'left by an earlier run');
    const run = runCli(['--port', '0', '--clock', 'manual', '--seed', '3', '--json', '--log', 'silent', '--report', file]);
    const ready = await startLine(run);
    expect(existsSync(file)).toBe(false);
    const [company] = ready.companies;
    const { api, control, key } = client(ready.url, company!.token);
    const catalog = { estabelecimento_id: company!.headOffice.id, nome: 'Loja' };

    // Right: a lost answer retried with its key (replayed), a 429 waited out on the clock.
    expect((await control('POST', '/faults', { target: 'api', match: { method: 'POST', path: '/v1/catalogos' }, effect: { loseResponse: true } })).status).toBe(201);
    const kept = key();
    expect((await api('POST', '/v1/catalogos', { key: kept, body: catalog })).status).toBe(503);
    const created = await api('POST', '/v1/catalogos', { key: kept, body: catalog });
    expect(created.status).toBe(201);
    expect((await control('POST', '/faults', { target: 'api', match: { path: '/v1/empresa' }, effect: { status: 429, retryAfter: 60 } })).status).toBe(201);
    expect((await api('GET', '/v1/empresa')).status).toBe(429);
    expect((await control('POST', '/clock/advance', { by: '60s' })).status).toBe(200);
    expect((await api('GET', '/v1/empresa')).status).toBe(200);
    expect((await control('GET', `/report?companyId=${company!.companyId}`)).body.findings).toEqual([]);

    // Wrong: a lost answer retried under a new key.
    const catalogs = (await fetch(`${ready.url}/v1/catalogos`, { headers: { authorization: `Bearer ${company!.token}` } }).then((r) => r.json())) as { itens: { id: string }[] };
    const products = `/v1/catalogos/${catalogs.itens[0]!.id}/produtos`;
    const product = { origem: 'erp', ncm: '21069090' };
    expect((await control('POST', '/faults', { target: 'api', match: { method: 'POST', path: '/v1/catalogos/*/produtos' }, effect: { loseResponse: true } })).status).toBe(201);
    const lost = await api('POST', products, { body: product });
    expect(lost.status).toBe(503);
    const again = await api('POST', products, { body: product });
    expect(again.status).toBe(201);

    // Wrong: a held request whose client closed the connection before the answer, sent again under a new key.
    const slow = { ...product, sku: 'held' };
    expect((await control('POST', '/faults', { target: 'api', match: { method: 'POST', path: '/v1/catalogos/*/produtos' }, effect: { delayMs: 60_000 } })).status).toBe(201);
    const gaveUp = new AbortController();
    const held = api('POST', products, { body: slow, signal: gaveUp.signal }).catch((error: unknown) => error);
    for (let spins = 0; ((await control('GET', '/clock')).body.pending as number) === 0; spins++) {
      if (spins > 500) throw new Error('the request was never held');
    }
    gaveUp.abort();
    expect(await held).toMatchObject({ name: 'AbortError' });
    expect((await control('POST', '/clock/advance', { by: '60s' })).status).toBe(200);
    const journal = (await control('GET', `/requests?companyId=${company!.companyId}`)).body.items as { path: string; status: number; requestId: string }[];
    const heldEntry = journal.at(-1)!;
    expect(heldEntry).toMatchObject({ path: products, status: 201 });
    const afterClose = await api('POST', products, { body: slow });
    expect(afterClose.status).toBe(201);

    // Wrong: a request repeated at once after a 429 asking for 60 s.
    expect((await control('POST', '/faults', { target: 'api', match: { path: '/v1/empresa' }, effect: { status: 429, retryAfter: 60 } })).status).toBe(201);
    const limited = await api('GET', '/v1/empresa');
    expect(limited.status).toBe(429);
    const early = await api('GET', '/v1/empresa');
    expect(early.status).toBe(200);

    const report = (await control('GET', `/report?companyId=${company!.companyId}`)).body as { findings: { rule: string; requestIds: string[]; statements: string[] }[] };
    expect(report.findings.map((f) => [f.rule, f.requestIds])).toEqual([
      ['new-key-after-lost-answer', [lost.id, again.id]],
      ['new-key-after-lost-answer', [heldEntry.requestId, afterClose.id]],
      ['retry-before-retry-after', [limited.id, early.id]],
    ]);
    expect(report.findings.map((f) => f.statements)).toEqual([['REQ-02', 'REQ-03'], ['REQ-02', 'REQ-03'], ['ERR-10', 'RFC 9110 Retry-After']]);
    const whole = (await control('GET', '/report')).body;

    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const closing = run.stdout.split('\n').slice(1, -1).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(closing).toEqual([
      { kind: 'closing', signal: 'SIGTERM' },
      { kind: 'report', path: file, findings: 3, exercised: (whole.coverage as { score: { exercised: number } }).score.exercised, listed: (whole.coverage as { score: { listed: number } }).score.listed },
    ]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(whole);
    expect(run.stderr).toBe('');
  });

  it('--report FILE.md writes the Markdown report, and says where on a pretty log', async () => {
    const file = join(folder(), 'report.md');
    const run = runCli(['--port', '0', '--clock', 'manual', '--json', '--log', 'silent', '--report', file]);
    const ready = await startLine(run);
    const { api } = client(ready.url, ready.companies[0]!.token);
    const refused = await fetch(`${ready.url}/v1/catalogos`, { method: 'POST', headers: { authorization: `Bearer ${ready.companies[0]!.token}`, 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(400);
    expect((await api('GET', '/v1/empresa')).status).toBe(200);
    run.child.kill('SIGINT');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const text = readFileSync(file, 'utf8');
    expect(text.split('\n').slice(0, 4)).toEqual(['# catalog-emulator report', '', '## Findings on your client (1)', '']);
    expect(text).toContain(`- **missing-idempotency-key** (REQ-02) at 2026-01-01T00:00:00.000Z, company ${ready.companies[0]!.companyId}: POST /v1/catalogos (request ${refused.headers.get('x-request-id')}) was sent without an idempotency-key`);
    expect(text).toContain('| GET /v1/empresa | 1 | 200×1 |  |');

    const pretty = runCli(['--port', '0', '--clock', 'manual', '--report', file]);
    for (let spins = 0; !pretty.stdout.includes('Try: curl'); spins++) {
      if (spins > 500) throw new Error(`no banner\n${pretty.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    pretty.child.kill('SIGTERM');
    expect(await pretty.exited).toEqual({ code: 0, signal: null });
    expect(pretty.stdout.endsWith(`\nSIGTERM: closing\nreport: ${file} (0 findings; 0 of 20 behaviours exercised)\n`)).toBe(true);
  });

  it('refuses a --report FILE that is neither .json nor .md, or whose folder does not exist, before serving (exit 2)', async () => {
    const dir = folder();
    for (const [file, message] of [
      [join(dir, 'report.txt'), `--report FILE writes JSON to a .json file or Markdown to a .md file (got "${join(dir, 'report.txt')}")`],
      [join(dir, 'nope', 'report.json'), `--report: the folder of ${join(dir, 'nope', 'report.json')} does not exist`],
    ] as const) {
      const run = runCli(['--port', '0', '--report', file], { timeoutMs: 10_000 });
      expect(await run.exited).toEqual({ code: 2, signal: null });
      expect(run.stderr).toBe(`catalog-emulator: ${message}\nRun "catalog-emulator --help" for usage.\n`);
    }
    const demo = runCli(['demo', 'idempotent-retry', '--report', join(dir, 'r.json')], { timeoutMs: 10_000 });
    expect(await demo.exited).toEqual({ code: 2, signal: null });
    expect(demo.stderr).toContain('--report is not an option of the demo command');
  });
});
