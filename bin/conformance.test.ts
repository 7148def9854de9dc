/**
 * `catalog-emulator conformance` as a user runs it: the built CLI (dist/bin, dist/conformance; `npm test` builds
 * before vitest) against a server of the built CLI serving the API alone (--no-controls), as a deployment does, with
 * a subset of the spec test files that pass there today.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../src/index.js';
import { assertBuilt, killAll, runCli, type Run } from './cli-run.js';

/** The server the tests run against: the API alone, as a deployment serves it; the fixtures give its company and credentials. */
const SERVER = (fixtures: string) => ['serve', '--port', '0', '--json', '--log', 'silent', '--no-controls', '--fixtures', fixtures];
/** A company kept for testing, with the restricted credentials the tests of refusals use. */
const FIXTURES = { version: 1, companies: [{ name: 'Conformidade', cnpjRoot: '11222333', credentials: [{ permissions: ['catalogo:ler', 'catalogo:gerenciar'] }, { permissions: ['estabelecimento:gerenciar'] }] }] };
/** Spec test files that pass against a server today, one of them with tests of restricted credentials. */
const FILES = ['--files', 'cnpj-corrections', '--files', 'company', '--files', 'contract-*'];
const RUN_TIMEOUT_MS = 120_000;
/** One run of every spec test file: ~30 s on a quiet machine, several times that under a loaded CI. */
const WHOLE_RUN_TIMEOUT_MS = 240_000;
/** A test of cnpj-corrections.test.ts that needs a credential holding only catalogo:ler and catalogo:gerenciar. */
const RESTRICTED_TEST = 'permissions of CNPJ corrections › refuses POST with 403 permissao_insuficiente without estabelecimento:gerenciar, before 422 and 428';

let server: Run;
let url: string;
let token: string;
let restricted: { readerWriter: string; establishments: string };
let work: string;

interface StartLine {
  url: string;
  controls: string | null;
  companies: { companyId: string; token: string; name?: string; credentials?: { permissions: string[]; token: string }[] }[];
}

/** The server's first stdout line: the JSON start line. */
async function started(run: Run): Promise<StartLine> {
  const deadline = Date.now() + 15_000;
  while (!run.stdout.includes('\n')) {
    if (Date.now() > deadline || run.child.exitCode !== null) throw new Error(`the server did not start\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return JSON.parse(run.stdout.slice(0, run.stdout.indexOf('\n'))) as StartLine;
}

async function conformance(args: string[], timeoutMs = RUN_TIMEOUT_MS): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = runCli(['conformance', ...args], { timeoutMs });
  const { code } = await run.exited;
  return { code, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(async () => {
  assertBuilt();
  work = mkdtempSync(join(tmpdir(), 'conformance-cli-'));
  const fixtures = join(work, 'fixtures.json');
  writeFileSync(fixtures, JSON.stringify(FIXTURES));
  server = runCli(SERVER(fixtures));
  const start = await started(server);
  url = start.url;
  expect(start.controls).toBeNull();
  const company = start.companies.find((c) => c.name === 'Conformidade');
  token = company!.token;
  const [readerWriter, establishments] = company!.credentials!;
  expect([readerWriter!.permissions, establishments!.permissions]).toEqual([['catalogo:ler', 'catalogo:gerenciar'], ['estabelecimento:gerenciar']]);
  restricted = { readerWriter: readerWriter!.token, establishments: establishments!.token };
}, 30_000);

afterAll(async () => {
  await killAll();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('catalog-emulator conformance', { timeout: RUN_TIMEOUT_MS }, () => {
  let withCredentials: { code: number | null; stdout: string; stderr: string };

  it('runs the chosen spec test files against the server, prints the matrix and the totals, exits 0, and writes --report', async () => {
    const report = join(work, 'matrix.md');
    // The permissions in any order: the runner files them sorted.
    withCredentials = await conformance(['--base-url', url, '--token', token, '--token-for', `catalogo:gerenciar+catalogo:ler=${restricted.readerWriter}`, '--token-for', `estabelecimento:gerenciar=${restricted.establishments}`, ...FILES, '--report', report]);
    const { code, stdout, stderr } = withCredentials;
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const lines = stdout.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      `Running 3 spec test files of catalog-emulator ${VERSION} against ${url}`,
      expect.stringMatching(/^ok {3}spec-tests\/cnpj-corrections\.test\.ts: \d+ passed, 0 failed, \d+ skipped \(\d+\.\d s\)$/),
      expect.stringMatching(/^ok {3}spec-tests\/company\.test\.ts: 1 passed, 0 failed, \d+ skipped \(\d+\.\d s\)$/),
      expect.stringMatching(/^ok {3}spec-tests\/contract-check\.test\.ts: \d+ passed, 0 failed, 0 skipped \(\d+\.\d s\)$/),
    ]);
    expect(lines.slice(4, 7)).toEqual(['', `Conformance of ${url}, per statement of the specification:`, '']);
    // A statement the subset checks and passes, one of a file left out, one no test cites.
    expect(stdout).toMatch(/^CNPJ-01 {5}passed {3}\d+ passed$/m);
    expect(stdout).toMatch(/^CAT-01 {6}not run$/m);
    expect(stdout).toMatch(/^[A-Z]+(?:-[A-Z]+)*-\d+ +no test\b/m);
    const totals = /^Tests: (\d+) passed, 0 failed, (\d+) skipped \(of (\d+)\); runnable share (\d+\.\d)% \(passed \/ all\)$/m.exec(stdout);
    expect(totals).not.toBeNull();
    const [passed, skipped, all] = [Number(totals![1]), Number(totals![2]), Number(totals![3])];
    expect(passed + skipped).toBe(all);
    expect(totals![4]).toBe(((passed * 100) / all).toFixed(1));
    expect(stdout).toMatch(/^Skipped, by reason:\n(?: +\d+ {2}\S.*\n)+$/m);
    expect(stdout).not.toContain('--token-for catalogo:gerenciar+catalogo:ler=TOKEN');
    expect(readFileSync(report, 'utf8')).toMatch(new RegExp(`^# Conformance of ${url.replace(/\./g, '\\.')}\\n[^]*\\n\\| CNPJ-01 \\| [^|]+ \\| passed \\| \\d+ passed \\|\\n`));
  });

  it('--json prints one JSON object; without the restricted credential its test is skipped, saying which to give', async () => {
    const { code, stdout, stderr } = await conformance(['--base-url', url, '--token', token, ...FILES, '--json']);
    expect(code).toBe(0);
    // The progress goes to stderr, so that stdout is the JSON alone.
    expect(stderr).toMatch(/^Running 3 spec test files/);
    expect(stdout.endsWith('}\n') && stdout.indexOf('\n') === stdout.length - 1).toBe(true);
    const report = JSON.parse(stdout) as { target: string; version: string; totals: { passed: number; failed: number; skipped: number; tests: number }; tests: { file: string; name: string; outcome: string; note?: string; ids: string[] }[]; statements: { id: string; status: string }[] };
    expect(report).toMatchObject({ target: url, version: VERSION, errors: [] });
    expect(report.tests.find((t) => t.name === RESTRICTED_TEST)).toEqual({
      file: 'spec-tests/cnpj-corrections.test.ts',
      name: RESTRICTED_TEST,
      outcome: 'skipped',
      note: 'needs a credential holding only catalogo:ler and catalogo:gerenciar (give one: --token-for catalogo:gerenciar+catalogo:ler=TOKEN)',
      ids: expect.arrayContaining(['AUTH-16']),
      durationMs: expect.any(Number),
    });
    // The run with the credentials passed that test (and the one needing only estabelecimento:gerenciar, which
    // still skips here for want of a catalogo:ler one): one passed test more, the rest the same.
    const [, passed, skipped] = /^Tests: (\d+) passed, 0 failed, (\d+) skipped/m.exec(withCredentials.stdout)!;
    expect(report.totals).toMatchObject({ passed: Number(passed) - 1, failed: 0, skipped: Number(skipped) + 1, tests: Number(passed) + Number(skipped) });
    expect(report.statements.find((s) => s.id === 'CNPJ-01')).toEqual({ id: 'CNPJ-01', blackBox: true, status: 'passed', passed: expect.any(Number), failed: 0, skipped: 0, reasons: [] });
  });

  it('refuses bad flags with one line and exit 2, before running anything', async () => {
    const usage = 'the permission one of catalogo:ler, catalogo:gerenciar, estabelecimento:gerenciar, vigilancia:gerenciar, analise:executar, webhook:gerenciar (several joined by "+")';
    const cases: [string[], string | RegExp][] = [
      [['--token', 'T'], 'conformance needs --base-url URL: the base URL of the deployment to test'],
      [['--base-url', 'ftp://x.example', '--token', 'T'], '--base-url must be an http or https URL without query or fragment, e.g. https://catalog.example.com (got "ftp://x.example")'],
      [['--base-url', url], 'conformance needs --token T: a credential of the company to test in, holding all six permissions'],
      [['--base-url', url, '--token', 'T', '--token-for', 'catalogo:ler'], `--token-for takes PERMISSION=TOKEN, ${usage} (got "catalogo:ler")`],
      [['--base-url', url, '--token', 'T', '--token-for', 'catalogo:ler+catalogo:apagar=x'], `--token-for takes PERMISSION=TOKEN, ${usage} (got "catalogo:apagar")`],
      [['--base-url', url, '--token', 'T', '--token-for', 'catalogo:ler=a', '--token-for', 'catalogo:ler=b'], '--token-for catalogo:ler is given twice'],
      [['--base-url', url, '--token', 'T', '--timeout-ms', 'soon'], '--timeout-ms must be a whole number of milliseconds from 1 to 3600000 (got "soon")'],
      [['--base-url', url, '--token', 'T', '--port', '1'], '--port is not an option of the conformance command (it takes --base-url, --token, --token-for, --other-token, --timeout-ms, --request-timeout-ms, --max-body, --deadline, --files, --report, --json)'],
      [['--base-url', url, '--token', token, '--other-token', ''], '--other-token needs a credential of a second company'],
      [['--base-url', url, '--token', token, '--other-token', token], '--other-token must be a credential of another company than --token\'s'],
      [['--base-url', url, '--token', token, '--other-token', 'not-a-token'], `${url}/v1/empresa refuses the --other-token credential (401): give one of a second test company holding all six permissions`],
      [['--base-url', `${url}/v1`, '--token', token], `${url}/v1/v1/empresa answers 404, not 200: is --base-url the service's base URL, without /v1?`],
      [['--base-url', url, '--token', 'not-a-token'], `${url}/v1/empresa refuses the --token credential (401): give one of the test company holding all six permissions`],
      [['--base-url', url, '--token', token, '--files', 'nope'], /^catalog-emulator: --files nope names no spec test file \(they are: analyses, catalog-deletion, catalogs, .*, webhook-sending\)$/],
    ];
    for (const [args, message] of cases) {
      const { code, stdout, stderr } = await conformance(args);
      expect({ args, code, stdout }).toEqual({ args, code: 2, stdout: '' });
      const [first, ...rest] = stderr.split('\n');
      if (typeof message === 'string') expect(first, args.join(' ')).toBe(`catalog-emulator: ${message}`);
      else expect(first, args.join(' ')).toMatch(message);
      expect(rest).toEqual(['Run "catalog-emulator --help" for usage.', '']);
    }
  });
});

describe('catalog-emulator conformance: the whole suite against serve --no-controls', { timeout: 2 * WHOLE_RUN_TIMEOUT_MS + 30_000 }, () => {
  it('passes every spec test a deployment can run, twice in a row on the same server, and runs at least 60% of them', async () => {
    // The fixtures the README gives: a company with every restricted credential the tests ask for, and a second company.
    const whole = runCli(SERVER(fileURLToPath(new URL('../examples/conformance-fixtures.json', import.meta.url))));
    const start = await started(whole);
    const [, company, other] = start.companies;
    const args = ['--base-url', start.url, '--token', company!.token, '--other-token', other!.token, ...company!.credentials!.map((c) => `--token-for=${c.permissions.join('+')}=${c.token}`)];
    for (const run of [1, 2]) {
      const { code, stdout, stderr } = await conformance(args, WHOLE_RUN_TIMEOUT_MS);
      // The failed tests, each with its first message line, so that a failure here says which. A control request
      // would fail its test: the support refuses to send one to a deployment, and this server answers each 404.
      const failed = stdout.split('\n').flatMap((line, i, lines) => (line.startsWith('  × ') ? [`${line.slice(4)}: ${lines[i + 1]?.trim()}`] : []));
      expect({ run, code, stderr, failed }).toEqual({ run, code: 0, stderr: '', failed: [] });
      const [, passed, skipped, all] = /^Tests: (\d+) passed, 0 failed, (\d+) skipped \(of (\d+)\)/m.exec(stdout) ?? [];
      expect(Number(passed) + Number(skipped)).toBe(Number(all));
      expect(Number(passed) / Number(all), `run ${run}: ${passed} of ${all} passed`).toBeGreaterThanOrEqual(0.6);
    }
  });
});
