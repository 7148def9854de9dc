/**
 * `catalog-emulator demo NAME --ui` as a user runs it (the built CLI, a real port): the scenario serves its
 * emulator, waits before each step for POST /_emulator/inspector/demo/next, narrates as without --ui, serves on
 * after its last step until a signal, and opens the inspector with the desktop's opener unless --no-open.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demos } from '../src/index.js';
import { spawn } from 'node:child_process';
import { assertBuilt, CLI, killAll, ROOT, runCli, track, type Run } from './cli-run.js';

const SPAWN_TIMEOUT_MS = 20_000;
const TEST_TIMEOUT_MS = 40_000;

interface DemoState {
  name: string;
  summary: string;
  steps: { n: number; title: string; lines: string[] }[];
  waiting: boolean;
  done: boolean;
}

const webhookRetries = demos.find((demo) => demo.name === 'webhook-retries')!;
const folder = mkdtempSync(join(tmpdir(), 'catalog-emulator-demo-ui-'));

beforeAll(assertBuilt);
afterEach(killAll);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Polls `ready` every 20 ms until it holds, failing with `what` and the output after the spawn timeout. */
async function until(run: Run, what: string, ready: () => boolean): Promise<void> {
  const deadline = Date.now() + SPAWN_TIMEOUT_MS;
  while (!ready()) {
    if (Date.now() > deadline)
      throw new Error(`no ${what} within ${SPAWN_TIMEOUT_MS} ms\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
    if (run.child.exitCode !== null)
      throw new Error(`exited (${run.child.exitCode}) before ${what}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts `demo ARGS` and returns the run and its server's URL, read from the banner. */
async function startDemo(args: string[], env: Record<string, string> = {}): Promise<{ run: Run; url: string }> {
  const run = runCli(['demo', ...args], { env, timeoutMs: TEST_TIMEOUT_MS });
  await until(run, 'inspector line', () =>
    /\n {2}inspector: http:\/\/127\.0\.0\.1:\d+\/_emulator\/ui\n/.test(run.stdout),
  );
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(run.stdout)![1]!;
  return { run, url };
}

const state = async (url: string): Promise<DemoState> =>
  (await fetch(`${url}/_emulator/inspector/demo`)).json() as Promise<DemoState>;
const next = (url: string) =>
  fetch(`${url}/_emulator/inspector/demo/next`, { method: 'POST', headers: { 'content-type': 'application/json' } });

/** The narration of webhook-retries without --ui (in process), line by line. */
async function narration(): Promise<string[]> {
  const printed: string[] = [];
  await webhookRetries.run((line) => void printed.push(line));
  return printed.join('\n').split('\n');
}

describe('catalog-emulator demo webhook-retries --ui', { timeout: TEST_TIMEOUT_MS }, () => {
  it('waits before each of its six steps for POST …/demo/next, narrates as without --ui, then serves until SIGTERM (exit 0)', async () => {
    const { run, url } = await startDemo(['webhook-retries', '--ui', '--no-open', '--port', '0']);
    await until(run, 'the first wait', () => run.stdout.includes('-- step 1'));
    expect(run.stdout).toBe(
      `catalog-emulator ${JSON.parse(readFileSync('package.json', 'utf8')).version} demo webhook-retries, listening on ${url}\n` +
        `  inspector: ${url}/_emulator/ui\n` +
        '  Each step waits for "Next step" on the inspector page.\n' +
        '\n-- step 1: waiting for "Next step" --\n',
    );
    expect(await state(url)).toEqual({
      name: 'webhook-retries',
      summary: webhookRetries.summary,
      steps: [
        {
          n: 1,
          title: '1. Acme configures its webhook destination (If-None-Match: * = create, never overwrite).',
          lines: [],
        },
      ],
      waiting: true,
      done: false,
    });

    // The steps as the terminal shows them without --ui: a heading after a blank line, its lines up to the next.
    const told = await narration();
    const headings = told
      .map((line, i) => (/^[1-6]\. /.test(line) && told[i - 1] === '' ? i : -1))
      .filter((i) => i >= 0);
    expect(headings).toHaveLength(6);
    const expected = headings.map((at, i) => ({
      n: i + 1,
      title: told[at]!,
      lines: told
        .slice(at + 1, i + 1 < headings.length ? headings[i + 1]! - 1 : told.length)
        .map((line) => line.replace(/"segredo":"svc_whsec_[^"]+"/, '"segredo":"••••"')),
    }));
    expect(expected[4]!.title).toMatch(/^5\. The attempts: GET \/v1\/webhook\/eventos\/[0-9a-f-]{36}\/tentativas$/);
    expect(expected[3]!.lines).toContain(
      '  2026-01-01 22:35:05 (+22:35:05)  attempt 8: signature ok, the receiver answers 200',
    );

    for (let n = 1; n <= 6; n += 1) {
      const answer = await next(url);
      expect(answer.status).toBe(200);
      const pending = n < 6 ? [{ n: n + 1, title: expected[n]!.title, lines: [] }] : [];
      expect(await answer.json()).toEqual({
        name: 'webhook-retries',
        summary: webhookRetries.summary,
        steps: [...expected.slice(0, n), ...pending],
        waiting: n < 6,
        done: n === 6,
      });
    }
    const refused = await next(url);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { erro: { codigo: string } }).erro.codigo).toBe('demo_nao_aguardando');

    await until(run, 'the end of the demo', () => run.stdout.includes('The demo is over.'));
    const printed = run.stdout.split('\n');
    expect(printed.slice(-3)).toEqual([
      '',
      `The demo is over. The inspector stays at ${url}/_emulator/ui: stop with Ctrl+C (SIGINT) or SIGTERM.`,
      '',
    ]);
    // Between the banner and that line: the narration of today, each step after its wait.
    const body = printed
      .slice(3, -3)
      .filter(
        (line, i, all) =>
          !(
            /^-- step \d: waiting for "Next step" --$/.test(line) ||
            (line === '' && /^-- step/.test(all[i + 1] ?? ''))
          ),
      );
    expect(body).toEqual(told);
    expect(printed.filter((line) => line.startsWith('-- step'))).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => `-- step ${n}: waiting for "Next step" --`),
    );

    // It serves on: the API, the controls and the run's record.
    expect((await fetch(`${url}/_emulator`)).status).toBe(200);
    expect((await state(url)).done).toBe(true);
    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stdout.endsWith('\nSIGTERM: closing\n')).toBe(true);
    expect(run.stderr).toBe('');
  });

  it('a scenario the page broke (a reset between steps) stops with one line on stderr; the server stays', async () => {
    const { run, url } = await startDemo(['webhook-retries', '--ui', '--no-open', '--port', '0']);
    expect((await next(url)).status).toBe(200);
    expect((await next(url)).status).toBe(200);
    // The reset drops Acme, whose token the scenario goes on using: its next requests get 401s it cannot follow.
    expect(
      (await fetch(`${url}/_emulator/reset`, { method: 'POST', headers: { 'content-type': 'application/json' } }))
        .status,
    ).toBe(200);
    let last: DemoState = await state(url);
    while (!last.done) {
      const answer = await next(url);
      expect(answer.status).toBe(200);
      last = (await answer.json()) as DemoState;
    }
    expect(last.waiting).toBe(false);
    await until(run, 'the report', () => run.stderr.includes('\n'));
    const [, why] = /^catalog-emulator: the demo stopped: (.+); the inspector stays at (\S+)\n$/.exec(run.stderr) ?? [];
    expect(run.stderr).toBe(`catalog-emulator: the demo stopped: ${why}; the inspector stays at ${url}/_emulator/ui\n`);
    expect(last.steps.at(-1)!.lines.at(-1)).toBe(`The demo stopped: ${why}`);
    expect(run.stdout).not.toContain('The demo is over.');
    expect((await next(url)).status).toBe(409);
    expect((await fetch(`${url}/_emulator`)).status).toBe(200);
    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
  });

  it('SIGINT while it waits at a step closes the server and exits 0', async () => {
    const { run, url } = await startDemo(['webhook-retries', '--ui', '--no-open', '--port', '0']);
    expect((await state(url)).waiting).toBe(true);
    run.child.kill('SIGINT');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stdout.endsWith('\n-- step 1: waiting for "Next step" --\n\nSIGINT: closing\n')).toBe(true);
    await expect(fetch(`${url}/_emulator`)).rejects.toThrow();
  });
});

describe('catalog-emulator demo NAME --ui on a terminal', { timeout: TEST_TIMEOUT_MS }, () => {
  it('Enter releases a step, and Ctrl+C is still SIGINT (exit 0)', async () => {
    // script(1) (util-linux) runs the CLI on a pseudo-terminal fed by this pipe, and exits with its code (-e). It runs
    // the command with $SHELL -c; `exec` makes the CLI the terminal's foreground process itself, for dash (a CI's
    // /bin/sh) stays as its parent otherwise, and dies of the Ctrl+C's SIGINT (script then answers 130).
    const command = `exec ${process.execPath} ${CLI} demo idempotent-retry --ui --no-open --port 0`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, SHELL: '/bin/sh', NO_COLOR: '1' },
    });
    track(child);
    let seen = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (seen += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const shown = async (text: string) => {
      const deadline = Date.now() + SPAWN_TIMEOUT_MS;
      while (!seen.includes(text)) {
        if (Date.now() > deadline) throw new Error(`no ${JSON.stringify(text)} on the terminal:\n${seen}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    await shown('-- step 1: waiting for "Next step" or Enter --');
    expect(seen).toContain('  Each step waits for "Next step" on the inspector page, or for Enter here.\r\n');
    expect(seen).not.toContain('1. Set the scene');
    child.stdin.write('\n');
    await shown('-- step 2: waiting for "Next step" or Enter --');
    expect(seen).toContain('\r\n1. Set the scene: a catalog for the head office, and a product in it.\r\n');
    expect(seen).not.toContain('2. A fault');
    child.stdin.write('\x03');
    expect(await exited).toBe(0);
    expect(seen.endsWith('\r\nSIGINT: closing\r\n')).toBe(true);
  });
});

describe('catalog-emulator demo NAME --ui opens the inspector', { timeout: TEST_TIMEOUT_MS }, () => {
  /** A new folder holding only an `xdg-open` that runs `script`: the desktop's opener, when it is all of PATH. */
  function opener(name: string, script: string): string {
    const bin = join(folder, name);
    mkdirSync(bin);
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\n${script}\n`);
    chmodSync(join(bin, 'xdg-open'), 0o755);
    return bin;
  }

  it('with xdg-open, which gets the inspector URL', async () => {
    const opened = join(folder, 'opened.txt');
    const { run, url } = await startDemo(['idempotent-retry', '--ui', '--port', '0'], {
      PATH: opener('works', `printf '%s' "$1" > "${opened}"`),
    });
    await until(run, 'the opener to run', () => existsSync(opened) && readFileSync(opened, 'utf8').length > 0);
    expect(readFileSync(opened, 'utf8')).toBe(`${url}/_emulator/ui`);
    expect((await state(url)).name).toBe('idempotent-retry');
    expect(run.stderr).toBe('');
  });

  it('reports in one line an opener that is missing or fails, and runs on', async () => {
    const missing = await startDemo(['webhook-retries', '--ui', '--port', '0'], {
      PATH: opener('none', '') + '-absent',
    });
    await until(missing.run, 'the report', () => missing.run.stderr.includes('\n'));
    expect(missing.run.stderr).toBe(
      `catalog-emulator: could not open a browser (xdg-open: not found); open ${missing.url}/_emulator/ui yourself\n`,
    );
    expect((await state(missing.url)).waiting).toBe(true);

    const failing = await startDemo(['webhook-retries', '--ui', '--port', '0'], { PATH: opener('fails', 'exit 3') });
    await until(failing.run, 'the report', () => failing.run.stderr.includes('\n'));
    expect(failing.run.stderr).toBe(
      `catalog-emulator: could not open a browser (xdg-open exited with code 3); open ${failing.url}/_emulator/ui yourself\n`,
    );
    expect((await next(failing.url)).status).toBe(200);
  });
});

describe('catalog-emulator demo: bad usage exits 2, a busy port 3', { timeout: TEST_TIMEOUT_MS }, () => {
  const DEMOS =
    'demos: idempotent-retry, webhook-retries, signature-check, surveillance-capacity, catalog-deletion, ingestion';
  it.each([
    [['demo', 'nope', '--ui'], `no demo "nope" (${DEMOS})`],
    [['demo', '--ui'], `demo --ui needs the name of a demo (${DEMOS})`],
    [['demo', 'webhook-retries', '--ui', '--port', 'x'], '--port must be an integer from 0 to 65535 (got "x")'],
    [['demo', 'webhook-retries', '--ui', '--port', '65536'], '--port must be an integer from 0 to 65535 (got "65536")'],
    [['demo', 'webhook-retries', '--ui', '--port', ''], '--port must be an integer from 0 to 65535 (got "")'],
    [['demo', 'webhook-retries', '--no-open'], '--no-open is an option of demo NAME --ui'],
    [['demo', 'webhook-retries', '--port', '0'], '--port is an option of demo NAME --ui'],
    [
      ['demo', 'webhook-retries', '--ui', '--seed', '3'],
      '--seed is not an option of the demo command (it takes --ui, --port N, --no-open)',
    ],
    [['--ui'], '--ui is an option of the demo command (demo NAME --ui)'],
    [['serve', '--no-open'], '--no-open is an option of the demo command (demo NAME --ui)'],
  ])('%j', async (args, message) => {
    const run = runCli(args, { timeoutMs: SPAWN_TIMEOUT_MS });
    expect(await run.exited).toEqual({ code: 2, signal: null });
    expect(run.stderr).toBe(`catalog-emulator: ${message}\nRun "catalog-emulator --help" for usage.\n`);
    expect(run.stdout).toBe('');
  });

  it('--port of a busy port', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as AddressInfo;
    try {
      const run = runCli(['demo', 'webhook-retries', '--ui', '--no-open', '--port', String(port)], {
        timeoutMs: SPAWN_TIMEOUT_MS,
      });
      expect(await run.exited).toEqual({ code: 3, signal: null });
      expect(run.stderr).toBe(
        `catalog-emulator: port ${port} is busy: stop what uses it, choose another with --port N, or use --port 0 for a free one\nRun "catalog-emulator --help" for usage.\n`,
      );
      expect(run.stdout).toBe('');
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });
});
