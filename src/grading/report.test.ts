/**
 * The report's Markdown (formatReport), the tables of rules, behaviours and receiver cases of docs/grading.md against the tables in
 * the code, and the grading's bounds: companies tallied one by one past their cap still counted in the whole report.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../emulator.js';
import { BEHAVIOURS } from './coverage.js';
import { RULES } from './findings.js';
import { RECEIVER_CASES } from './receiver-check.js';
import { formatReport, type Report } from './report.js';

const GRADING = readFileSync(new URL('../../docs/grading.md', import.meta.url), 'utf8');
/** The cells of the table row of docs/grading.md whose first cell is `id` in backquotes. */
const rowOf = (id: string) =>
  GRADING.split('\n')
    .find((line) => line.startsWith(`| \`${id}\` |`))
    ?.split(' | ');

describe('the tables of docs/grading.md', () => {
  it('list every rule with its statements, in the order of the table in the code', () => {
    const ids = GRADING.split('\n')
      .filter((line) => RULES.some((r) => line.startsWith(`| \`${r.id}\` |`)))
      .map((line) => line.slice(3, line.indexOf('`', 3)));
    expect(ids).toEqual(RULES.map((r) => r.id));
    for (const row of RULES) expect(rowOf(row.id)![2]!.startsWith(row.statements.join(', ')), row.id).toBe(true);
  });

  it('list every behaviour with its statements, in the order of the table in the code', () => {
    const ids = GRADING.split('\n')
      .filter((line) => BEHAVIOURS.some((b) => line.startsWith(`| \`${b.id}\` |`)))
      .map((line) => line.slice(3, line.indexOf('`', 3)));
    expect(ids).toEqual(BEHAVIOURS.map((b) => b.id));
    for (const row of BEHAVIOURS)
      expect(rowOf(row.id)![2], row.id).toBe(row.statements.length === 0 ? '—' : row.statements.join(', '));
  });
  it('list every case of the receiver check with what it sends, its expectation and its statement, in the order of the rows', () => {
    const ids = GRADING.split('\n')
      .filter((line) => RECEIVER_CASES.some((c) => line.startsWith(`| \`${c.id}\` |`)))
      .map((line) => line.slice(3, line.indexOf('`', 3)));
    expect(ids).toEqual(RECEIVER_CASES.map((c) => c.id));
    for (const row of RECEIVER_CASES)
      expect(rowOf(row.id)?.slice(1), row.id).toEqual([row.sends, row.expect, `${row.statement} |`]);
  });
});

describe('formatReport', () => {
  const report: Report = {
    findings: [
      {
        at: '2026-01-01T00:00:00.000Z',
        rule: 'slow-receiver',
        companyId: 'c1',
        statements: ['WH-EVT-56'],
        message: 'The receiver gave no complete answer.',
        requestIds: [],
        eventIds: ['e1'],
        fix: 'Answer at once.',
      },
    ],
    findingsDropped: 3,
    coverage: {
      score: { exercised: 1, listed: 2 },
      behaviours: [
        {
          id: 'lost-answer',
          area: 'requests',
          what: 'A lost answer',
          statements: [],
          seen: 2,
          control: 'loseResponse',
        },
        {
          id: 'precondition-failed',
          area: 'requests',
          what: 'A 412',
          statements: [],
          seen: 0,
          control: 'concurrentEdit',
        },
      ],
      gaps: ['no precondition-failed: concurrentEdit'],
      operations: [
        {
          id: 'getCompany',
          method: 'GET',
          path: '/v1/empresa',
          calls: 3,
          statuses: [
            { status: 200, count: 2 },
            { status: 503, count: 1 },
          ],
          codes: [{ codigo: 'servico_indisponivel', count: 1 }],
          unreceived: [401, 403],
        },
      ],
      notCalled: ['GET /v1/contexto'],
      unrouted: 1,
      faults: [{ target: 'api', effect: 'loseResponse', fired: 2 }],
      inboxAttempts: 4,
    },
    receiver: { target: 'http://127.0.0.1:9000/hook', passed: 5, failed: 1, failing: ['tampered signature'] },
  };

  it('writes every part as Markdown', () => {
    expect(formatReport(report)).toBe(
      [
        '# catalog-emulator report',
        '',
        '## Findings on your client (4)',
        '',
        '- **slow-receiver** (WH-EVT-56) at 2026-01-01T00:00:00.000Z, company c1: The receiver gave no complete answer.',
        '  Fix: Answer at once.',
        '- … and 3 earlier, no longer kept (the report keeps the last 1000).',
        '',
        '## What your tests exercised: 1 of 2 behaviours',
        '',
        '- [x] lost-answer: A lost answer (2×)',
        '- [ ] precondition-failed: A 412',
        '',
        '### Not exercised, and how to',
        '',
        '- no precondition-failed: concurrentEdit',
        '',
        '### Operations',
        '',
        '| Operation | Calls | Statuses received | Error codes | Documented, never received |',
        '|---|---|---|---|---|',
        '| GET /v1/empresa | 3 | 200×2, 503×1 | servico_indisponivel×1 | 401, 403 |',
        '',
        'Never called (1): GET /v1/contexto.',
        '',
        'Requests to no operation (404, 405): 1.',
        '',
        '### Faults used',
        '',
        'api loseResponse ×2',
        '',
        'Delivery attempts to the built-in inbox, not to a receiver of yours: 4.',
        '',
        '## Your webhook receiver: 5 passed, 1 failed',
        '',
        'Checked: http://127.0.0.1:9000/hook',
        '- failing: tampered signature',
        '',
      ].join('\n'),
    );
  });

  it('says so when there is nothing to report', () => {
    const text = formatReport(createEmulator().report());
    expect(text).toContain('## Findings on your client (0)\n\nNone: no rule was broken.\n');
    expect(text).toContain(`## What your tests exercised: 0 of ${BEHAVIOURS.length} behaviours`);
    expect(text).toContain('### Operations\n\nNone called.\n');
    expect(text).toContain('### Faults used\n\nNone.\n');
  });
});

describe('the grading holds its bounds', () => {
  it("keeps counting companies past the ones it tallies one by one: the whole report has every company's requests", async () => {
    const emu = createEmulator();
    const first = emu.companies.create();
    const get = (token: string) => emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${token}` } });
    expect((await get(first.token)).status).toBe(200);
    for (let i = 0; i < 1000; i++) expect((await get(emu.companies.create().token)).status).toBe(200);
    // The first company's own part is gone (the oldest of 1,001), its counts kept in the whole report.
    expect(emu.report({ companyId: first.companyId }).coverage.operations).toEqual([]);
    expect(emu.report().coverage.operations.map((o) => [o.id, o.calls])).toEqual([['getCompany', 1001]]);
  });
});

describe("the report's receiver part", () => {
  const SECRET = 'svc_whsec_report-receiver-part';
  /** A receiver that accepts everything: it fails every case it must refuse. */
  const acceptsAll = () => new Response(null, { status: 204 });

  it('is absent before any check, then the last check of any receiver in the whole report', async () => {
    const emu = createEmulator();
    expect(emu.report().receiver).toBeUndefined();
    const check = await emu.webhooks.checkReceiver({ fetch: acceptsAll, secret: SECRET });
    const failing = check.cases.filter((c) => c.verdict === 'fail').map((c) => c.id);
    expect(failing).toContain('wrong-key');
    expect(emu.report().receiver).toEqual({
      target: 'https://receiver.test/',
      passed: check.passed,
      failed: check.failed,
      failing,
    });
    await emu.close();
  });

  it("in a company's report, the last check of that company's destination only", async () => {
    const emu = createEmulator();
    const acme = emu.companies.create();
    const other = emu.companies.create();
    const configured = await emu.fetch('/v1/webhook', {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${acme.token}`,
        'content-type': 'application/json',
        'idempotency-key': 'report-receiver-01',
        'if-none-match': '*',
      },
      body: JSON.stringify({ url: 'https://hooks.acme.example/catalog' }),
    });
    expect(configured.status).toBe(201);
    emu.network.route('https://hooks.acme.example', acceptsAll);
    const check = await emu.webhooks.checkDestination(acme.companyId);
    expect(emu.report({ companyId: acme.companyId }).receiver).toEqual({
      target: 'https://hooks.acme.example/catalog',
      passed: check.passed,
      failed: check.failed,
      failing: check.cases.filter((c) => c.verdict === 'fail').map((c) => c.id),
    });
    expect(emu.report({ companyId: other.companyId }).receiver).toBeUndefined();
    expect(formatReport(emu.report({ companyId: acme.companyId }))).toContain(
      `## Your webhook receiver: ${check.passed} passed, ${check.failed} failed`,
    );
    await emu.close();
  });
});
