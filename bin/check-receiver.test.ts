/**
 * `catalog-emulator check-receiver` as a user runs it: the built CLI (`npm test` builds before vitest) against
 * receivers served over node:http on 127.0.0.1 by this test, a correct one and one per mistake; its exit codes (0
 * every case passed, 1 a case failed, 2 bad usage, a receiver that answered nothing, or a case its deadline left
 * unjudged), its table and its --json.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RECEIVER_CASES, type ReceiverCheck } from '../src/index.js';
import { FAILING, receiver, RECEIVER_KINDS, serveHandler } from '../spec-tests/support/receivers.js';
import { closedPort } from '../spec-tests/support/webhooks.js';
import { printCheck } from './check-receiver.js';
import { assertBuilt, killAll, runCli } from './cli-run.js';

const SECRET = 'svc_whsec_the-receivers-secret-for-the-cli-test';
const PREVIOUS = 'svc_whsec_the-secret-before-the-rotation';
const RUN_TIMEOUT_MS = 30_000;

beforeAll(() => assertBuilt());

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await killAll();
  for (const close of closers.splice(0)) await close();
});

/** A receiver of `kind` on a free port of 127.0.0.1: its URL. */
async function served(kind: (typeof RECEIVER_KINDS)[number]): Promise<string> {
  const server = await serveHandler(receiver(kind, { secret: SECRET, previousSecret: PREVIOUS }));
  closers.push(() => server.close());
  return server.url;
}

async function checkReceiver(args: string[], env: Record<string, string | undefined> = {}) {
  const run = runCli(['check-receiver', ...args], { timeoutMs: RUN_TIMEOUT_MS, env });
  const { code } = await run.exited;
  return { code, stdout: run.stdout, stderr: run.stderr };
}

/** How many cases there are, and how many a correct receiver accepts. */
const CASES = RECEIVER_CASES.length;
const ACCEPTED = RECEIVER_CASES.filter((c) => c.expect === 'accept').length;

describe('catalog-emulator check-receiver', () => {
  it('passes a correct receiver: exit 0, the table of the cases, then what it cannot check', async () => {
    const url = await served('correct');
    const { code, stdout, stderr } = await checkReceiver([
      '--url',
      url,
      '--secret',
      SECRET,
      '--previous-secret',
      PREVIOUS,
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toBe(`Receiver check of ${url}`);
    expect(lines[1]).toMatch(
      /^Timestamps from the receiver's clock at \d{4}-\d\d-\d\dT[\d:.]+Z; old-secret signed with the previous secret given\.$/,
    );
    expect(lines[3]).toBe('case                 expect  answer  verdict  checks  time');
    const table = lines.slice(4, 4 + CASES);
    const status = (c: (typeof RECEIVER_CASES)[number]) => (c.expect === 'accept' ? '204' : '400');
    const rows = RECEIVER_CASES.map((c) => [c.id, c.expect, status(c), 'pass', c.statement]);
    expect(table.map((line) => line.split(/ +/).slice(0, 5))).toEqual(rows);
    expect(table.every((line) => / \d+ ms$/.test(line))).toBe(true);
    const after = lines.slice(4 + CASES);
    const totals = `${CASES} of ${CASES} cases passed, 0 failed.`;
    expect(after.slice(0, 4)).toEqual(['', totals, '', 'Not checked from outside:']);
    expect(after.slice(4, 7).map((line) => line.slice(0, 10))).toEqual(['  SIG-09: ', '  SIG-10: ', '  SIG-11: ']);
  });

  for (const kind of RECEIVER_KINDS.filter((k) => k !== 'correct')) {
    it(`fails the ${kind} receiver on exactly ${FAILING[kind].join(', ')}: exit 1, --json`, async () => {
      const url = await served(kind);
      const { code, stdout, stderr } = await checkReceiver(['--url', url, '--previous-secret', PREVIOUS, '--json'], {
        CATALOG_EMULATOR_WEBHOOK_SECRET: SECRET,
      });
      expect(stderr).toBe('');
      expect(code).toBe(1);
      const check = JSON.parse(stdout) as {
        cases: { id: string; expect: string; status: number | null; verdict: string; statement: string }[];
        passed: number;
        failed: number;
      };
      expect(check.cases.filter((c) => c.verdict === 'fail').map((c) => c.id)).toEqual(FAILING[kind]);
      expect([check.passed, check.failed]).toEqual([CASES - FAILING[kind].length, FAILING[kind].length]);
      for (const [i, c] of check.cases.entries()) {
        expect(c).toMatchObject({
          id: RECEIVER_CASES[i]!.id,
          expect: RECEIVER_CASES[i]!.expect,
          statement: RECEIVER_CASES[i]!.statement,
          verdict: expect.stringMatching(/^(pass|fail)$/),
        });
        expect(typeof c.status).toBe('number');
      }
    });
  }

  it('exits 2 with one line for a receiver that answers nothing; with --json, the check on stdout and exit 2 too', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/webhooks`;
    const plain = await checkReceiver(['--url', url, '--secret', SECRET]);
    const line = `catalog-emulator: check-receiver: ${url} answered none of the ${CASES} cases: refused (ECONNREFUSED)`;
    expect(plain).toEqual({ code: 2, stdout: '', stderr: `${line}\n` });
    const json = await checkReceiver(['--url', url, '--secret', SECRET, '--json']);
    expect(json.code).toBe(2);
    expect(json.stderr).toBe('');
    const totals = { passed: CASES - ACCEPTED, failed: ACCEPTED };
    expect(JSON.parse(json.stdout)).toMatchObject({ reachable: false, judged: true, ...totals });
  });

  it('gives no verdict on a check its deadline cut short: exit 2 with one line naming the cases, never 0 or 1', () => {
    // What the check answers when its deadline stopped every delivery (src/grading/receiver-check.test.ts makes one),
    // as the command never lets it happen (a deadline under twice the attempt time-out is refused, below): every reject
    // case would pass if a wait cut short counted as a refusal.
    const check: ReceiverCheck = {
      receiver: { url: 'http://127.0.0.1:9/hooks', via: null },
      clock: '2026-01-01T00:00:00.000Z',
      oldSecret: 'fresh',
      timeoutMs: 15_000,
      cases: RECEIVER_CASES.map((c) => ({
        id: c.id,
        expect: c.expect,
        statement: c.statement,
        sent: { headers: {}, bodyBytes: 0, bodySha256: '' },
        status: null,
        failure: c.id === 'duplicate' ? 'not-sent' : 'deadline',
        cause: "the check's deadline passed before its answer",
        answer: '',
        accepted: false,
        ms: 20,
        verdict: 'fail',
        fix: "the check's deadline passed before this case was answered, so it was not judged",
      })),
      passed: 0,
      failed: CASES,
      reachable: false,
      judged: false,
      notChecked: [],
    };
    const printed = { stdout: '', stderr: '' };
    const out = { stdout: (t: string) => (printed.stdout += t), stderr: (t: string) => (printed.stderr += t) };
    const line = (open: readonly string[]) =>
      `catalog-emulator: check-receiver: the deadline passed before ${open.length} of the ${CASES} cases were judged ` +
      `(${open.join(', ')}): run it again with a longer --deadline\n`;
    expect(printCheck(check, false, out)).toBe(2);
    expect(printed).toEqual({ stdout: '', stderr: line(RECEIVER_CASES.map((c) => c.id)) });
    printed.stderr = '';
    expect(printCheck(check, true, out)).toBe(2);
    expect(printed.stderr).toBe('');
    expect(JSON.parse(printed.stdout)).toEqual(check);
    // One case left unjudged among answered ones is enough.
    const answered = (c: ReceiverCheck['cases'][number]) => {
      const accepted = c.expect === 'accept';
      return { ...c, status: accepted ? 204 : 400, failure: null, accepted, verdict: 'pass' as const, fix: null };
    };
    const cases = check.cases.map((c) => (c.id === 'valid' ? c : answered(c)));
    const one: ReceiverCheck = { ...check, reachable: true, passed: CASES - 1, failed: 1, cases };
    printed.stdout = '';
    printed.stderr = '';
    expect(printCheck(one, false, out)).toBe(2);
    expect(printed).toEqual({ stdout: '', stderr: line(['valid']) });
  });

  it('refuses bad usage with exit 2, naming the flag, before sending anything', async () => {
    const usage = (line: string) =>
      `catalog-emulator: check-receiver: ${line}\nRun "catalog-emulator help check-receiver" for usage.\n`;
    expect(await checkReceiver(['--secret', SECRET])).toEqual({
      code: 2,
      stdout: '',
      stderr: usage('needs --url URL: the URL of the receiver to check'),
    });
    expect(await checkReceiver(['--url', 'http://127.0.0.1:9/x'], { CATALOG_EMULATOR_WEBHOOK_SECRET: '' })).toEqual({
      code: 2,
      stdout: '',
      stderr: usage('needs --secret S (or CATALOG_EMULATOR_WEBHOOK_SECRET): the secret the receiver verifies with'),
    });
    expect(await checkReceiver(['--url', 'localhost:3000', '--secret', SECRET])).toEqual({
      code: 2,
      stdout: '',
      stderr: usage('--url must be the receiver\'s http:// or https:// URL (got "localhost:3000")'),
    });
    expect(await checkReceiver(['--url', 'http://127.0.0.1:9/x', '--secret', SECRET, '--deadline', '0'])).toEqual({
      code: 2,
      stdout: '',
      stderr: usage('--deadline takes a duration such as 60s, 2m or 90000 (milliseconds) (got "0")'),
    });
    // Each delivery is given the service's 15 s, and duplicate waits for valid's answer: 30 s at least.
    const target = ['--url', 'http://127.0.0.1:9/x', '--secret', SECRET];
    const deadline = (got: number) =>
      usage(
        `--deadline must be a whole number of milliseconds from 30000 to 600000 (got ${got}): at least twice the ` +
          'attempt time-out of 15000 ms, the time the check needs to judge every case',
      );
    const refused = (got: number) => ({ code: 2, stdout: '', stderr: deadline(got) });
    expect(await checkReceiver([...target, '--deadline', '11m'])).toEqual(refused(660_000));
    expect(await checkReceiver([...target, '--deadline', '5s'])).toEqual(refused(5000));
    expect(await checkReceiver([...target, '--deadline', '29999'])).toEqual(refused(29_999));
    const foreign = (flag: string) =>
      `catalog-emulator: ${flag} is not an option of the check-receiver command (it takes --url, --secret, ` +
      '--previous-secret, --cnpj-root, --deadline, --json)\nRun "catalog-emulator --help" for usage.\n';
    // No time-out of its own: each delivery is given the service's attempt time-out.
    const timeout = await checkReceiver([...target, '--request-timeout-ms', '1000']);
    expect(timeout).toEqual({ code: 2, stdout: '', stderr: foreign('--request-timeout-ms') });
    expect(await checkReceiver(['--url', 'http://127.0.0.1:9/x', '--secret', SECRET, '--cnpj-root', '1'])).toEqual({
      code: 2,
      stdout: '',
      stderr: usage('--cnpj-root must be the 8 digits of a CNPJ root (got 1)'),
    });
    expect(await checkReceiver([...target, '--port', '1'])).toEqual({ code: 2, stdout: '', stderr: foreign('--port') });
    expect(await checkReceiver(['--url', 'http://127.0.0.1:9/x', '--secret', SECRET, '--deadlin', '3s'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'catalog-emulator: unknown option --deadlin (did you mean --deadline?)\nRun "catalog-emulator --help" for usage.\n',
    });
    expect(await checkReceiver(['extra', '--url', 'http://127.0.0.1:9/x', '--secret', SECRET])).toMatchObject({
      code: 2,
      stdout: '',
    });
  });
});
