/**
 * `catalog-emulator check-receiver` as a user runs it: the built CLI (`npm test` builds before vitest) against
 * receivers served over node:http on 127.0.0.1 by this test, a correct one and one per mistake; its exit codes (0
 * every case passed, 1 a case failed, 2 bad usage or a receiver that answered nothing), its table and its --json.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RECEIVER_CASES } from '../src/index.js';
import { FAILING, receiver, RECEIVER_KINDS, serveHandler } from '../spec-tests/support/receivers.js';
import { closedPort } from '../spec-tests/support/webhooks.js';
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

describe('catalog-emulator check-receiver', () => {
  it('passes a correct receiver: exit 0, the table of the 13 cases, then what it cannot check', async () => {
    const url = await served('correct');
    const { code, stdout, stderr } = await checkReceiver(['--url', url, '--secret', SECRET, '--previous-secret', PREVIOUS]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toBe(`Receiver check of ${url}`);
    expect(lines[1]).toMatch(/^Timestamps from the receiver's clock at \d{4}-\d\d-\d\dT[\d:.]+Z; old-secret signed with the previous secret given\.$/);
    expect(lines[3]).toBe('case               expect  answer  verdict  checks  time');
    expect(lines.slice(4, 17).map((line) => line.split(/ +/).slice(0, 5))).toEqual(RECEIVER_CASES.map((c) => [c.id, c.expect, c.expect === 'accept' ? '204' : '400', 'pass', c.statement]));
    expect(lines.slice(4, 17).every((line) => / \d+ ms$/.test(line))).toBe(true);
    expect(lines.slice(17, 21)).toEqual(['', '13 of 13 cases passed, 0 failed.', '', 'Not checked from outside:']);
    expect(lines.slice(21, 24).map((line) => line.slice(0, 10))).toEqual(['  SIG-09: ', '  SIG-10: ', '  SIG-11: ']);
  });

  for (const kind of RECEIVER_KINDS.filter((k) => k !== 'correct')) {
    it(`fails the ${kind} receiver on exactly ${FAILING[kind].join(', ')}: exit 1, --json`, async () => {
      const url = await served(kind);
      const { code, stdout, stderr } = await checkReceiver(['--url', url, '--previous-secret', PREVIOUS, '--json'], { CATALOG_EMULATOR_WEBHOOK_SECRET: SECRET });
      expect(stderr).toBe('');
      expect(code).toBe(1);
      const check = JSON.parse(stdout) as { cases: { id: string; expect: string; status: number | null; verdict: string; statement: string }[]; passed: number; failed: number };
      expect(check.cases.filter((c) => c.verdict === 'fail').map((c) => c.id)).toEqual(FAILING[kind]);
      expect([check.passed, check.failed]).toEqual([13 - FAILING[kind].length, FAILING[kind].length]);
      for (const [i, c] of check.cases.entries()) {
        expect(c).toMatchObject({ id: RECEIVER_CASES[i]!.id, expect: RECEIVER_CASES[i]!.expect, statement: RECEIVER_CASES[i]!.statement, verdict: expect.stringMatching(/^(pass|fail)$/) });
        expect(typeof c.status).toBe('number');
      }
    });
  }

  it('exits 2 with one line for a receiver that answers nothing; with --json, the check on stdout and exit 2 too', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/webhooks`;
    const plain = await checkReceiver(['--url', url, '--secret', SECRET]);
    expect(plain).toEqual({ code: 2, stdout: '', stderr: `catalog-emulator: check-receiver: ${url} answered none of the 13 cases: refused (ECONNREFUSED)\n` });
    const json = await checkReceiver(['--url', url, '--secret', SECRET, '--json']);
    expect(json.code).toBe(2);
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout)).toMatchObject({ reachable: false, passed: 9, failed: 4 });
  });

  it('refuses bad usage with exit 2, naming the flag, before sending anything', async () => {
    const usage = (line: string) => `catalog-emulator: check-receiver: ${line}\nRun "catalog-emulator help check-receiver" for usage.\n`;
    expect(await checkReceiver(['--secret', SECRET])).toEqual({ code: 2, stdout: '', stderr: usage('needs --url URL: the URL of the receiver to check') });
    expect(await checkReceiver(['--url', 'http://127.0.0.1:9/x'], { CATALOG_EMULATOR_WEBHOOK_SECRET: '' })).toEqual({ code: 2, stdout: '', stderr: usage('needs --secret S (or CATALOG_EMULATOR_WEBHOOK_SECRET): the secret the receiver verifies with') });
    expect(await checkReceiver(['--url', 'localhost:3000', '--secret', SECRET])).toEqual({ code: 2, stdout: '', stderr: usage('--url must be the receiver\'s http:// or https:// URL (got "localhost:3000")') });
    expect(await checkReceiver(['--url', 'http://127.0.0.1:9/x', '--secret', SECRET, '--request-timeout-ms', 'soon'])).toEqual({ code: 2, stdout: '', stderr: usage('--request-timeout-ms must be a whole number of milliseconds (got "soon")') });
    expect(await checkReceiver(['--url', 'http://127.0.0.1:9/x', '--secret', SECRET, '--deadline', '0'])).toEqual({ code: 2, stdout: '', stderr: usage('--deadline takes a duration such as 60s, 2m or 90000 (milliseconds) (got "0")') });
    expect(await checkReceiver(['--url', 'http://127.0.0.1:9/x', '--secret', SECRET, '--deadline', '11m'])).toEqual({ code: 2, stdout: '', stderr: usage('--deadline must be a whole number of milliseconds from 1 to 600000 (got 660000)') });
    expect(await checkReceiver(['--url', 'http://127.0.0.1:9/x', '--secret', SECRET, '--cnpj-root', '1'])).toEqual({ code: 2, stdout: '', stderr: usage('--cnpj-root must be the 8 digits of a CNPJ root (got 1)') });
    expect(await checkReceiver(['--url', 'http://127.0.0.1:9/x', '--secret', SECRET, '--port', '1'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'catalog-emulator: --port is not an option of the check-receiver command (it takes --url, --secret, --previous-secret, --cnpj-root, --request-timeout-ms, --deadline, --json)\nRun "catalog-emulator --help" for usage.\n',
    });
    expect(await checkReceiver(['--url', 'http://127.0.0.1:9/x', '--secret', SECRET, '--deadlin', '3s'])).toEqual({ code: 2, stdout: '', stderr: 'catalog-emulator: unknown option --deadlin (did you mean --deadline?)\nRun "catalog-emulator --help" for usage.\n' });
    expect(await checkReceiver(['extra', '--url', 'http://127.0.0.1:9/x', '--secret', SECRET])).toMatchObject({ code: 2, stdout: '' });
  });
});
