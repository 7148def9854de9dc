/**
 * The built CLI (dist/bin/catalog-emulator.js; `npm test` builds before vitest) as a user runs it: real
 * processes, real ports, real fetch. Every spawned process is killed after its test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = fileURLToPath(new URL('../dist/bin/catalog-emulator.js', import.meta.url));
const SPAWN_TIMEOUT_MS = 10_000;
const TEST_TIMEOUT_MS = 20_000;

interface Run {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  /** Resolves on exit with the code and signal; rejects (and kills) after the timeout. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ChildProcess>();
const servers: Server[] = [];

function cli(args: string[]): Run {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  running.add(child);
  const run = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`catalog-emulator ${args.join(' ')} did not exit within ${SPAWN_TIMEOUT_MS} ms\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`));
      }, SPAWN_TIMEOUT_MS);
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        running.delete(child);
        resolve({ code, signal });
      });
    }),
  };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (run.stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (run.stderr += chunk));
  // A test that expects a live server handles the rejection itself; avoid an unhandled one otherwise.
  run.exited.catch(() => undefined);
  return run;
}

/** Waits until stdout matches `pattern` (within the spawn timeout) and returns the match. */
function waitForOutput(run: Run, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = run.stdout.match(pattern);
      if (match) {
        cleanup();
        resolve(match);
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`catalog-emulator exited (${code}) before printing ${pattern}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`catalog-emulator did not print ${pattern} within ${SPAWN_TIMEOUT_MS} ms\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`));
    }, SPAWN_TIMEOUT_MS);
    const cleanup = () => {
      clearTimeout(timer);
      run.child.stdout!.off('data', check);
      run.child.off('exit', onExit);
    };
    run.child.stdout!.on('data', check);
    run.child.on('exit', onExit);
    check();
  });
}

/** Starts a server and returns its URL and the token it printed. */
async function serve(args: string[]): Promise<{ run: Run; url: string; token: string }> {
  const run = cli(args);
  const [, url] = await waitForOutput(run, /listening on (http:\/\/\S+)\n/);
  const [, token] = await waitForOutput(run, /token:\s+(\S+)\n/);
  return { run, url: url!, token: token! };
}

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
});

afterEach(async () => {
  const children = [...running];
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(children.map((child) => (child.exitCode !== null || child.signalCode !== null ? undefined : new Promise((resolve) => child.once('exit', resolve)))));
  running.clear();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('catalog-emulator serve', { timeout: TEST_TIMEOUT_MS }, () => {
  it('--port 0 --clock manual prints a URL and a token that GET /v1/empresa accepts', async () => {
    const { run, url, token } = await serve(['--port', '0', '--clock', 'manual', '--log', 'silent']);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toMatch(/:0$/);
    expect(token).toMatch(/^svc_at_[A-Za-z0-9_-]+$/);
    expect(run.stdout).toContain(`controls: ${url}/_emulator`);
    expect(run.stdout).toMatch(/clock:\s+manual, seed \d+, now 2026-01-01T00:00:00\.000Z/);

    const response = await fetch(`${url}/v1/empresa`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const body = (await response.json()) as { id: string; cnpj_raiz: string; nome: string };
    expect(body.id).toEqual(expect.any(String));
    expect(body.cnpj_raiz).toMatch(/^[A-Z0-9]{8}$/);
    expect(run.stdout).toContain(body.cnpj_raiz);

    const anonymous = await fetch(`${url}/v1/empresa`);
    expect(anonymous.status).toBe(401);
  });

  it('the same seed prints the same token twice; another seed prints another', async () => {
    const first = await serve(['--port', '0', '--clock', 'manual', '--seed', '42', '--log', 'silent']);
    const second = await serve(['--port', '0', '--clock', 'manual', '--seed', '42', '--log', 'silent']);
    const other = await serve(['--port', '0', '--clock', 'manual', '--seed', '43', '--log', 'silent']);
    expect(second.token).toBe(first.token);
    expect(other.token).not.toBe(first.token);
    expect(first.run.stdout).toContain('seed 42');
  });

  it('logs each request in pretty mode', async () => {
    const { run, url, token } = await serve(['--port', '0', '--clock', 'manual']);
    await fetch(`${url}/v1/empresa`, { headers: { authorization: `Bearer ${token}` } });
    await waitForOutput(run, /GET\s+\/v1\/empresa → 200/);
  });

  it('closes cleanly on SIGTERM with exit code 0, even when signalled the moment the banner appears', async () => {
    const { run } = await serve(['--port', '0', '--clock', 'manual']);
    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stdout).toContain('SIGTERM: closing');
    expect(run.stderr).toBe('');
  });

  it('refuses a busy port with a message saying it is busy and suggesting --port 0', async () => {
    const blocker = createServer();
    servers.push(blocker);
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const run = cli(['--port', String(address.port), '--clock', 'manual']);
    const { code } = await run.exited;
    expect(code).not.toBe(0);
    expect(code).toBe(2);
    expect(run.stderr).toContain(`port ${address.port} is busy`);
    expect(run.stderr).toContain('--port 0');
    expect(run.stdout).not.toContain('listening on');
  });

  it.each([
    [['--clock', 'bogus'], '--clock must be "real" or "manual" (got "bogus")'],
    [['--route', 'nonsense'], '--route takes FROM=TO'],
    [['--route', '=http://127.0.0.1:9000'], '--route takes FROM=TO'],
    [['--route', 'http://hooks.example.com=http://127.0.0.1:9000'], 'must be an https:// URL prefix'],
    [['--route', 'https://hooks.example.com=ftp://x'], 'must be an http:// or https:// URL'],
    [['--port', 'abc'], '--port must be an integer from 0 to 65535 (got "abc")'],
    [['--port', '70000'], '--port must be an integer from 0 to 65535'],
    [['--log', 'loud'], '--log must be "pretty", "json" or "silent" (got "loud")'],
    [['--start', 'yesterday'], '--start must be an ISO 8601 date-time'],
    [['--bogus'], "Unknown option '--bogus'"],
    [['frobnicate'], 'unknown command "frobnicate" (commands: serve, demo)'],
    [['serve', 'extra'], 'unexpected argument "extra"'],
  ])('refuses %j with exit code 2 and a clear message on stderr', async (args, message) => {
    // --port 0 so that a refusal that failed to happen would not take the default port.
    const run = cli(args.includes('--port') ? args : [...args, '--port', '0']);
    const { code } = await run.exited;
    expect(code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain('catalog-emulator --help');
    expect(run.stdout).not.toContain('listening on');
  });
});

describe('catalog-emulator --help and --version', { timeout: TEST_TIMEOUT_MS }, () => {
  it('--help exits 0 with the usage', async () => {
    const run = cli(['--help']);
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stdout).toContain('Usage:');
    for (const flag of ['--port', '--host', '--seed', '--clock', '--start', '--route', '--log', 'demo [NAME]']) expect(run.stdout).toContain(flag);
    expect(run.stderr).toBe('');
  });

  it('--version prints the package version', async () => {
    const { VERSION } = await import('../src/version.js');
    const run = cli(['--version']);
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stdout).toBe(`${VERSION}\n`);
  });
});

describe('catalog-emulator demo', { timeout: TEST_TIMEOUT_MS }, () => {
  it('lists the demos, idempotent-retry among them', async () => {
    const run = cli(['demo']);
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stdout).toMatch(/^\s+idempotent-retry\s+\S.*$/m);
  });

  it('demo idempotent-retry shows the lost 503, the replayed 200 and the 412, and exits 0', async () => {
    const run = cli(['demo', 'idempotent-retry']);
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const out = run.stdout;
    expect(out).toMatch(/← 503\n.*"codigo":"servico_indisponivel"/);
    expect(out).toContain('The client saw 503.');
    expect(out).toMatch(/← 200\n(?:\s+\S+: .*\n)*\s+idempotent-replayed: true\n/);
    expect(out).toContain('200 with idempotent-replayed: true: the stored answer');
    expect(out).toContain('versao is 2: the change was applied exactly once.');
    expect(out).toMatch(/← 412\n.*"codigo":"precondicao_falhou"/);
    expect(out).toContain('412 precondicao_falhou: nothing was changed by this request.');
    expect(out).toMatch(/PATCH\s+\/v1\/produtos\/\S+ → 503 \(fault flt_1\)/);
    expect(out).toMatch(/PATCH\s+\/v1\/produtos\/\S+ → 200 \(replayed\)/);
    expect(out).toMatch(/PATCH\s+\/v1\/produtos\/\S+ → 412 \(fault flt_2\)/);
    expect(run.stderr).toBe('');
  });

  it('demo idempotent-retry prints the same output every run (seeded ids, virtual clock)', async () => {
    const strip = (text: string) => text.replace(/"request_id":"[^"]+"/g, '"request_id":"…"');
    const first = cli(['demo', 'idempotent-retry']);
    const second = cli(['demo', 'idempotent-retry']);
    await Promise.all([first.exited, second.exited]);
    expect(strip(second.stdout)).toBe(strip(first.stdout));
  });

  it('demo nope fails with the list of demos', async () => {
    const run = cli(['demo', 'nope']);
    const { code } = await run.exited;
    expect(code).toBe(2);
    expect(run.stderr).toContain('no demo "nope" (demos: idempotent-retry)');
  });
});
