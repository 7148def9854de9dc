/**
 * `catalog-emulator conformance` as a user runs it: the built CLI (dist/bin, dist/conformance; `npm test` builds
 * before vitest) against ONE server of the built CLI serving the API alone (--no-controls), as a deployment does.
 * Its fixtures are the README's (a test company with every restricted credential, and a second company) and two
 * companies more, so that the runs below, at the same time, each work in a company no other run touches (two runs
 * must never share a company at once): the whole suite once, a subset twice in a row on one company, a subset
 * where every test is skipped.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../src/index.js';
import { assertBuilt, killAll, runCli, type Run } from './cli-run.js';

/** The server the tests run against: the API alone, as a deployment serves it; the fixtures give its companies and credentials. */
const SERVER = (fixtures: string) => [
  'serve',
  '--port',
  '0',
  '--json',
  '--log',
  'silent',
  '--no-controls',
  '--fixtures',
  fixtures,
];
/** The README's fixtures: the test company ("Conformidade"), with every restricted credential, and "Outra empresa". */
const README_FIXTURES = JSON.parse(
  readFileSync(fileURLToPath(new URL('../examples/conformance-fixtures.json', import.meta.url)), 'utf8'),
) as { version: number; companies: object[] };
/** A company for the subset runs, with the restricted credentials the tests of refusals use; one for the skipped run. */
const MORE_COMPANIES = [
  {
    name: 'Subconjunto',
    credentials: [
      { permissions: ['catalogo:ler', 'catalogo:gerenciar'] },
      { permissions: ['estabelecimento:gerenciar'] },
    ],
  },
  { name: 'Pulada' },
];
/** Spec test files that pass against a server today, one of them with tests of restricted credentials. */
const FILES = ['--files', 'cnpj-corrections', '--files', 'company', '--files', 'contract-*'];
const RUN_TIMEOUT_MS = 120_000;
/** One run of every spec test file: ~30 s on a quiet machine (20 s of it the ingestions' real clock), several times that under a loaded CI. */
const WHOLE_RUN_TIMEOUT_MS = 240_000;
/** A test of cnpj-corrections.test.ts that needs a credential holding only catalogo:ler and catalogo:gerenciar. */
const RESTRICTED_TEST =
  'permissions of CNPJ corrections › refuses POST with 403 permissao_insuficiente without estabelecimento:gerenciar, before 422 and 428';

let url: string;
let companies: Map<string, StartLine['companies'][number]>;
let work: string;

interface StartLine {
  url: string;
  controls: string | null;
  companies: {
    companyId: string;
    token: string;
    name?: string;
    credentials?: { permissions: string[]; token: string }[];
  }[];
}

/** The company of the fixtures named `name`. */
function company(name: string): StartLine['companies'][number] {
  const found = companies.get(name);
  if (found === undefined) throw new Error(`no company "${name}" in the server's start line`);
  return found;
}

/** The server's first stdout line, the JSON start line, as soon as it is out; a server that exits first fails the set-up. */
function started(run: Run): Promise<StartLine> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!run.stdout.includes('\n')) return;
      run.child.stdout!.off('data', check);
      resolve(JSON.parse(run.stdout.slice(0, run.stdout.indexOf('\n'))) as StartLine);
    };
    run.child.stdout!.on('data', check);
    void run.exited.then(() =>
      reject(new Error(`the server exited before it started\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`)),
    );
    check();
  });
}

async function conformance(
  args: string[],
  timeoutMs = RUN_TIMEOUT_MS,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = runCli(['conformance', ...args], { timeoutMs });
  const { code } = await run.exited;
  await run.closed;
  return { code, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(async () => {
  assertBuilt();
  work = mkdtempSync(join(tmpdir(), 'conformance-cli-'));
  const fixtures = join(work, 'fixtures.json');
  writeFileSync(
    fixtures,
    JSON.stringify({ ...README_FIXTURES, companies: [...README_FIXTURES.companies, ...MORE_COMPANIES] }),
  );
  const start = await started(runCli(SERVER(fixtures)));
  url = start.url;
  expect(start.controls).toBeNull();
  companies = new Map(start.companies.flatMap((c) => (c.name === undefined ? [] : [[c.name, c]])));
}, 30_000);

afterAll(async () => {
  await killAll();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The failed tests of a text run, each with its first message line, so that a failure says which. */
const failures = (stdout: string) =>
  stdout
    .split('\n')
    .flatMap((line, i, lines) => (line.startsWith('  × ') ? [`${line.slice(4)}: ${lines[i + 1]?.trim()}`] : []));

// The runs take their own companies, so they run at the same time: the file lasts as long as the whole suite's run.
describe.concurrent('catalog-emulator conformance against serve --no-controls', () => {
  it("passes every spec test a deployment can run, and runs at least 60% of them (the README's fixtures)", {
    timeout: WHOLE_RUN_TIMEOUT_MS + 30_000,
  }, async () => {
    const tested = company('Conformidade');
    const args = [
      '--base-url',
      url,
      '--token',
      tested.token,
      '--other-token',
      company('Outra empresa').token,
      ...tested.credentials!.map((c) => `--token-for=${c.permissions.join('+')}=${c.token}`),
    ];
    const { code, stdout, stderr } = await conformance(args, WHOLE_RUN_TIMEOUT_MS);
    // A control request would fail its test: the support refuses to send one to a deployment, and this server answers each 404.
    expect({ code, stderr, failed: failures(stdout) }).toEqual({ code: 0, stderr: '', failed: [] });
    expect(stdout).toMatch(/^Running 22 spec test files of /);
    const [, passed, skipped, all] = /^Tests: (\d+) passed, 0 failed, (\d+) skipped \(of (\d+)\)/m.exec(stdout) ?? [];
    expect(Number(passed) + Number(skipped)).toBe(Number(all));
    expect(Number(passed) / Number(all), `${passed} of ${all} passed`).toBeGreaterThanOrEqual(0.6);
    expect(stdout).toMatch(/^Deadline: 20 min \(--deadline\), not reached$/m);
  });

  it('runs chosen files twice in a row on one company: the matrix, the totals and --report; then --json, where a test lacking its restricted credential is skipped, saying which to give', {
    timeout: 2 * RUN_TIMEOUT_MS,
  }, async () => {
    const tested = company('Subconjunto');
    const [readerWriter, establishments] = tested.credentials!;
    expect([readerWriter!.permissions, establishments!.permissions]).toEqual([
      ['catalogo:ler', 'catalogo:gerenciar'],
      ['estabelecimento:gerenciar'],
    ]);
    const report = join(work, 'matrix.md');
    // The permissions in any order: the runner files them sorted.
    const first = await conformance([
      '--base-url',
      url,
      '--token',
      tested.token,
      '--token-for',
      `catalogo:gerenciar+catalogo:ler=${readerWriter!.token}`,
      '--token-for',
      `estabelecimento:gerenciar=${establishments!.token}`,
      ...FILES,
      '--report',
      report,
    ]);
    expect({ code: first.code, stderr: first.stderr, failed: failures(first.stdout) }).toEqual({
      code: 0,
      stderr: '',
      failed: [],
    });
    const lines = first.stdout.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      `Running 3 spec test files of catalog-emulator ${VERSION} against ${url}`,
      expect.stringMatching(
        /^ok {3}spec-tests\/cnpj-corrections\.test\.ts: \d+ passed, 0 failed, \d+ skipped \(\d+\.\d s\)$/,
      ),
      expect.stringMatching(/^ok {3}spec-tests\/company\.test\.ts: 1 passed, 0 failed, \d+ skipped \(\d+\.\d s\)$/),
      expect.stringMatching(
        /^ok {3}spec-tests\/contract-check\.test\.ts: \d+ passed, 0 failed, 0 skipped \(\d+\.\d s\)$/,
      ),
    ]);
    expect(lines.slice(4, 7)).toEqual(['', `Conformance of ${url}, per statement of the specification:`, '']);
    // A statement the subset checks and passes, one of a file left out, one no test cites.
    expect(first.stdout).toMatch(/^CNPJ-01 {5}passed {3}\d+ passed$/m);
    expect(first.stdout).toMatch(/^CAT-01 {6}not run$/m);
    expect(first.stdout).toMatch(/^[A-Z]+(?:-[A-Z]+)*-\d+ +no test\b/m);
    const totals =
      /^Tests: (\d+) passed, 0 failed, (\d+) skipped \(of (\d+)\); runnable share (\d+\.\d)% \(passed \/ all\)\nDeadline: 20 min \(--deadline\), not reached$/m.exec(
        first.stdout,
      );
    expect(totals).not.toBeNull();
    const [passed, skipped, all] = [Number(totals![1]), Number(totals![2]), Number(totals![3])];
    expect(passed + skipped).toBe(all);
    expect(totals![4]).toBe(((passed * 100) / all).toFixed(1));
    expect(first.stdout).toMatch(/^Skipped, by reason:\n(?: +\d+ {2}\S.*\n)+$/m);
    expect(first.stdout).not.toContain('--token-for catalogo:gerenciar+catalogo:ler=TOKEN');
    expect(readFileSync(report, 'utf8')).toMatch(
      new RegExp(
        `^# Conformance of ${url.replace(/\./g, '\\.')}\\n[^]*\\n- Deadline: 20 min \\(--deadline\\), not reached\\n[^]*\\n\\| CNPJ-01 \\| [^|]+ \\| passed \\| \\d+ passed \\|\\n`,
      ),
    );

    // Again on the same company, which now holds the first run's records: every run names its own apart.
    const second = await conformance(['--base-url', url, '--token', tested.token, ...FILES, '--json']);
    expect(second.code).toBe(0);
    // The progress goes to stderr, so that stdout is the JSON alone.
    expect(second.stderr).toMatch(/^Running 3 spec test files/);
    expect(second.stdout.endsWith('}\n') && second.stdout.indexOf('\n') === second.stdout.length - 1).toBe(true);
    const json = JSON.parse(second.stdout) as {
      target: string;
      version: string;
      totals: { passed: number; failed: number; skipped: number; tests: number };
      tests: { file: string; name: string; outcome: string; note?: string; ids: string[] }[];
      statements: { id: string; status: string }[];
    };
    expect(json).toMatchObject({
      target: url,
      version: VERSION,
      errors: [],
      deadline: { ms: 1_200_000, passed: false },
    });
    expect(json.tests.find((t) => t.name === RESTRICTED_TEST)).toEqual({
      file: 'spec-tests/cnpj-corrections.test.ts',
      name: RESTRICTED_TEST,
      outcome: 'skipped',
      note: 'needs a credential holding only catalogo:ler and catalogo:gerenciar (give one: --token-for catalogo:gerenciar+catalogo:ler=TOKEN)',
      ids: expect.arrayContaining(['AUTH-16']),
      durationMs: expect.any(Number),
    });
    // The run with the credentials passed that test (and the one needing only estabelecimento:gerenciar, which
    // still skips here for want of a catalogo:ler one): one passed test more, the rest the same.
    expect(json.totals).toMatchObject({ passed: passed - 1, failed: 0, skipped: skipped + 1, tests: all });
    expect(json.statements.find((s) => s.id === 'CNPJ-01')).toEqual({
      id: 'CNPJ-01',
      blackBox: true,
      status: 'passed',
      passed: expect.any(Number),
      failed: 0,
      skipped: 0,
      reasons: [],
    });
  });

  it('exits 2 when every test it ran was skipped, saying that the run shows nothing', {
    timeout: RUN_TIMEOUT_MS,
  }, async () => {
    const { code, stdout, stderr } = await conformance([
      '--base-url',
      url,
      '--token',
      company('Pulada').token,
      '--files',
      'webhook-delivery',
    ]);
    expect(stdout).toMatch(/^ok {3}spec-tests\/webhook-delivery\.test\.ts: 0 passed, 0 failed, (\d+) skipped/m);
    const [, skipped] = /^Tests: 0 passed, 0 failed, (\d+) skipped/m.exec(stdout) ?? [];
    expect({ code, stderr }).toEqual({
      code: 2,
      stderr: `catalog-emulator: no test passed: all ${skipped} tests were skipped (the report gives the reasons), so the run shows nothing of the deployment\n`,
    });
  });

  it('refuses bad flags with one line and exit 2, before running anything', { timeout: RUN_TIMEOUT_MS }, async () => {
    const token = company('Pulada').token;
    // A --report FILE it may not write: refused before the first request, the file left byte for byte as it was.
    const foreign = join(work, 'notes.md');
    const notes = '# My notes\n\nNot a conformance report.\n';
    writeFileSync(foreign, notes);
    const missing = join(work, 'missing', 'matrix.md');
    const usage =
      'the permission one of catalogo:ler, catalogo:gerenciar, estabelecimento:gerenciar, vigilancia:gerenciar, analise:executar, webhook:gerenciar (several joined by "+")';
    const cases: [string[], string | RegExp][] = [
      [['--token', 'T'], 'conformance needs --base-url URL: the base URL of the deployment to test'],
      [
        ['--base-url', 'ftp://x.example', '--token', 'T'],
        '--base-url must be an http or https URL without query or fragment, e.g. https://catalog.example.com (got "ftp://x.example")',
      ],
      [
        ['--base-url', url],
        'conformance needs --token T: a credential of the company to test in, holding all six permissions',
      ],
      [
        ['--base-url', url, '--token', 'T', '--token-for', 'catalogo:ler'],
        `--token-for takes PERMISSION=TOKEN, ${usage} (got "catalogo:ler")`,
      ],
      [
        ['--base-url', url, '--token', 'T', '--token-for', 'catalogo:ler+catalogo:apagar=x'],
        `--token-for takes PERMISSION=TOKEN, ${usage} (got "catalogo:apagar")`,
      ],
      [
        ['--base-url', url, '--token', 'T', '--token-for', 'catalogo:ler=a', '--token-for', 'catalogo:ler=b'],
        '--token-for catalogo:ler is given twice',
      ],
      [
        ['--base-url', url, '--token', 'T', '--timeout-ms', 'soon'],
        '--timeout-ms must be a whole number of milliseconds from 1 to 3600000 (got "soon")',
      ],
      [
        ['--base-url', url, '--token', 'T', '--request-timeout-ms', '0'],
        '--request-timeout-ms must be a whole number of milliseconds from 1 to 3600000 (got "0")',
      ],
      [
        ['--base-url', url, '--token', 'T', '--max-body', '16MB'],
        '--max-body must be a size from 1 byte to 1GiB: bytes, or a whole number of KiB, MiB or GiB such as 16MiB (got "16MB")',
      ],
      [
        ['--base-url', url, '--token', 'T', '--deadline', '1.5m'],
        '--deadline must be a duration from 1 ms to 24 h: a whole number of ms, s, m or h such as 90s or 10m, or of milliseconds (got "1.5m")',
      ],
      [
        ['--base-url', url, '--token', 'T', '--port', '1'],
        '--port is not an option of the conformance command (it takes --base-url, --token, --token-for, --other-token, --timeout-ms, --request-timeout-ms, --max-body, --deadline, --files, --report, --json)',
      ],
      [
        ['--base-url', url, '--token', token, '--other-token', ''],
        '--other-token needs a credential of a second company',
      ],
      [
        ['--base-url', url, '--token', token, '--other-token', token],
        "--other-token must be a credential of another company than --token's",
      ],
      [
        ['--base-url', url, '--token', token, '--other-token', 'not-a-token'],
        `${url}/v1/empresa refuses the --other-token credential (401): give one of a second test company holding all six permissions`,
      ],
      [
        ['--base-url', `${url}/v1`, '--token', token],
        `${url}/v1/v1/empresa answers 404, not 200: is --base-url the service's base URL, without /v1?`,
      ],
      [
        ['--base-url', url, '--token', 'not-a-token'],
        `${url}/v1/empresa refuses the --token credential (401): give one of the test company holding all six permissions`,
      ],
      [
        ['--base-url', url, '--token', token, '--files', 'nope'],
        /^catalog-emulator: --files nope names no spec test file \(they are: analyses, catalog-deletion, catalogs, .*, webhook-sending\)$/,
      ],
      [
        ['--base-url', url, '--token', token, '--report', foreign],
        `--report ${foreign} holds a file that is not a conformance report of catalog-emulator (the report replaces only its own); it was left as it is`,
      ],
      [
        ['--base-url', url, '--token', token, '--report', missing],
        `--report ${missing} cannot be written: the folder of ${missing} does not exist`,
      ],
    ];
    // A few at a time: each is a process of its own.
    for (let at = 0; at < cases.length; at += 4) {
      await Promise.all(
        cases.slice(at, at + 4).map(async ([args, message]) => {
          const { code, stdout, stderr } = await conformance(args);
          expect({ args, code, stdout }).toEqual({ args, code: 2, stdout: '' });
          const [first, ...rest] = stderr.split('\n');
          if (typeof message === 'string') expect(first, args.join(' ')).toBe(`catalog-emulator: ${message}`);
          else expect(first, args.join(' ')).toMatch(message);
          expect(rest).toEqual(['Run "catalog-emulator --help" for usage.', '']);
        }),
      );
    }
    expect(readFileSync(foreign, 'utf8')).toBe(notes);
  });
});
