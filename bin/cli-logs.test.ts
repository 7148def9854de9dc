/**
 * The built CLI's log, its machine-readable start and its help, as a user runs them: real processes, real ports.
 * The log of one scripted scenario is kept in golden files (bin/__golden__/), pretty and json: manual clock, fixed
 * seed, no colour, so every byte is the same each run. After a deliberate change of the format, rewrite them with
 * `UPDATE_GOLDEN=1 npx vitest run bin/cli-logs.test.ts` and review the diff.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { installedProject } from '../spec-tests/support/installed-project.js';
import { assertBuilt, killAll, runCli, track, type Run } from './cli-run.js';

const GOLDEN = (name: string) => fileURLToPath(new URL(`./__golden__/${name}`, import.meta.url));
const EXAMPLE = (name: string) => fileURLToPath(new URL(`../examples/${name}`, import.meta.url));
const WAIT_MS = 10_000;

const folders: string[] = [];

const cli = (args: string[], env: Record<string, string | undefined> = {}): Run => runCli(args, { env });

/** Resolves once `done()` holds (checked as output arrives and every 20 ms); rejects, saying what was seen, after WAIT_MS. */
async function until(run: Run, what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!done()) {
    if (Date.now() > deadline)
      throw new Error(
        `catalog-emulator: no ${what} within ${WAIT_MS} ms\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`,
      );
    if (run.child.exitCode !== null)
      throw new Error(
        `catalog-emulator exited (${run.child.exitCode}) before ${what}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(assertBuilt);

afterEach(async () => {
  await killAll();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** The start line --json prints (and --ready-file writes). */
interface Ready {
  kind: 'ready';
  url: string;
  controls: string;
  docs: string;
  inspector: string;
  companies: { companyId: string; cnpjRoot: string; token: string; headOffice: { id: string; cnpj: string } }[];
  clock: { mode: string; now: string };
  seed: number | string;
  version: string;
  pid: number;
  controlTokenRequired: boolean;
}

/** A JSON call: an API one with `token` (and `key` as its idempotency-key), a control one without. */
async function call(
  url: string,
  method: string,
  path: string,
  options: { token?: string; key?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  if (method !== 'GET' && method !== 'DELETE') headers['content-type'] = 'application/json';
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.key !== undefined) headers['idempotency-key'] = options.key;
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    etag: response.headers.get('etag'),
    body: (text === '' ? undefined : JSON.parse(text)) as Record<string, unknown> | undefined,
  };
}

/**
 * The scripted scenario: a 422, an idempotent replay, a fault that fires, control calls (one refused), a test event
 * whose first two deliveries a fault answers 503, delivered at the third attempt as the clock advances, and a write
 * without its idempotency-key (a finding).
 */
async function scenario(url: string, token: string): Promise<void> {
  expect(
    (await call(url, 'POST', '/v1/catalogos', { token, key: 'golden-catalog-0001', body: { nome: 'Loja' } })).status,
  ).toBe(422);
  const destination = {
    token,
    key: 'golden-webhook-0001',
    body: { url: 'https://hooks.acme.example/catalogo' },
    headers: { 'if-none-match': '*' },
  };
  const configured = await call(url, 'PUT', '/v1/webhook', destination);
  expect(configured.status).toBe(201);
  expect((await call(url, 'PUT', '/v1/webhook', destination)).status).toBe(201);
  expect(
    (
      await call(url, 'POST', '/_emulator/faults', {
        body: { target: 'api', match: { method: 'GET', path: '/v1/empresa' }, effect: { status: 503 } },
      })
    ).status,
  ).toBe(201);
  expect((await call(url, 'GET', '/v1/empresa', { token })).status).toBe(503);
  expect((await call(url, 'GET', '/v1/empresa', { token })).status).toBe(200);
  expect(
    (await call(url, 'POST', '/_emulator/faults', { body: { target: 'delivery', effect: { status: 503 }, times: 2 } }))
      .status,
  ).toBe(201);
  expect(
    (
      await call(url, 'POST', '/v1/webhook/testes', {
        token,
        key: 'golden-test-0001',
        headers: { 'if-match': configured.etag! },
      })
    ).status,
  ).toBe(202);
  expect((await call(url, 'POST', '/_emulator/clock/advance', { body: { by: '10m' } })).status).toBe(200);
  // A mistake of the client: a write without its idempotency-key, told as a finding after its request.
  expect((await call(url, 'POST', '/v1/catalogos', { token, body: { nome: 'Loja' } })).status).toBe(400);
  expect((await call(url, 'DELETE', '/_emulator/faults/flt_9')).status).toBe(404);
}

/** Compares `text` with the golden file `name`, or writes it there under UPDATE_GOLDEN=1. */
function golden(name: string, text: string): void {
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(GOLDEN(name), text);
  expect(text).toBe(readFileSync(GOLDEN(name), 'utf8'));
}

const SCENARIO_TIMEOUT = { timeout: 30_000 };

describe('catalog-emulator serve: the log', SCENARIO_TIMEOUT, () => {
  it('pretty: each request with its error code and path, the replay, the fault, each control call and each delivery attempt (golden)', async () => {
    const run = cli(['--port', '0', '--clock', 'manual', '--seed', '7']);
    await until(run, 'banner', () => run.stdout.includes('Try: curl'));
    const url = /listening on (\S+)/.exec(run.stdout)![1]!;
    const token = /token:\s+(\S+)/.exec(run.stdout)![1]!;
    await scenario(url, token);
    await until(run, 'the last control line', () => run.stdout.includes('faults/flt_9'));
    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const log = run.stdout.slice(run.stdout.indexOf('\n', run.stdout.indexOf('Try: curl')) + 1);
    const lines = log.split('\n');

    // Each appears with its details (the golden file below keeps the whole format).
    expect(lines).toContain(
      '2026-01-01T00:00:00.000Z request  POST   /v1/catalogos → 422 campo_obrigatorio at body.estabelecimento_id',
    );
    expect(lines).toContain('2026-01-01T00:00:00.000Z request  PUT    /v1/webhook → 201 (replayed)');
    expect(lines).toContain(
      '2026-01-01T00:00:00.000Z control  POST   /_emulator/faults → 201 addFault: fault flt_1: api method=GET path=/v1/empresa → status=503, once',
    );
    expect(lines).toContain(
      '2026-01-01T00:00:00.000Z request  GET    /v1/empresa → 503 servico_indisponivel (fault flt_1)',
    );
    const deliveries = lines.filter((line) => /^\S+ delivery /.test(line));
    expect(deliveries).toEqual([
      expect.stringMatching(
        /^2026-01-01T00:00:00\.000Z delivery webhook\.teste [0-9a-f-]{36} attempt 1\/8 → https:\/\/hooks\.acme\.example\/catalogo: falhou 503 status_nao_2xx \(0ms\), next 2026-01-01T00:00:05\.000Z$/,
      ),
      expect.stringMatching(
        /^2026-01-01T00:00:05\.000Z delivery webhook\.teste [0-9a-f-]{36} attempt 2\/8 → https:\/\/hooks\.acme\.example\/catalogo: falhou 503 status_nao_2xx \(0ms\), next 2026-01-01T00:05:05\.000Z$/,
      ),
      expect.stringMatching(
        /^2026-01-01T00:05:05\.000Z delivery webhook\.teste [0-9a-f-]{36} attempt 3\/8 → https:\/\/hooks\.acme\.example\/catalogo: entregue 200 \(0ms\)$/,
      ),
    ]);
    expect(lines).toContain(
      '2026-01-01T00:00:00.000Z control  POST   /_emulator/clock/advance → 200 advanceClock: now 2026-01-01T00:10:00.000Z, ran 3 tasks',
    );
    expect(lines).toContain(
      '2026-01-01T00:10:00.000Z control  DELETE /_emulator/faults/flt_9 → 404 falha_nao_encontrada at path.id (removeFault)',
    );
    const finding = lines.findIndex((line) => / finding /.test(line));
    expect(lines[finding - 1]).toBe(
      '2026-01-01T00:10:00.000Z request  POST   /v1/catalogos → 400 chave_idempotencia_ausente at header.idempotency-key',
    );
    expect(lines[finding]).toMatch(
      /^2026-01-01T00:10:00\.000Z finding  missing-idempotency-key \(REQ-02\): POST \/v1\/catalogos \(request [0-9a-f-]{36}\) was sent without an idempotency-key: refused 400 chave_idempotencia_ausente\. Fix: Send an idempotency-key on every state-changing request: /,
    );
    expect(log).not.toContain('\x1b');
    golden('pretty.log', log);
    // The README's sample of the log is an excerpt of this very log.
    expect(log).toContain(readFileSync(EXAMPLE('log-pretty.txt'), 'utf8'));
  });

  it('json (--json): the start line drives the server; then one object per line, the same entries (golden)', async () => {
    const run = cli(['--port', '0', '--clock', 'manual', '--seed', '7', '--json']);
    await until(run, 'start line', () => run.stdout.includes('\n'));
    const ready = JSON.parse(run.stdout.slice(0, run.stdout.indexOf('\n'))) as Ready;
    // The README's sample of the start line is this one, but for the port and the process id.
    const sample = JSON.parse(readFileSync(EXAMPLE('ready-line.json'), 'utf8')) as Ready;
    expect({
      ...sample,
      url: ready.url,
      controls: ready.controls,
      docs: ready.docs,
      inspector: ready.inspector,
      pid: ready.pid,
    }).toEqual(ready);
    expect(sample.url).toBe('http://127.0.0.1:4747');
    await scenario(ready.url, ready.companies[0]!.token);
    await until(run, 'the last control line', () => run.stdout.includes('faults/flt_9'));
    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const lines = run.stdout.split('\n').slice(1, -1);
    // stdout is JSON lines only.
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.at(-1)).toEqual({ kind: 'closing', signal: 'SIGTERM' });
    expect(entries[0]).toEqual({
      kind: 'request',
      at: '2026-01-01T00:00:00.000Z',
      method: 'POST',
      path: '/v1/catalogos',
      status: 422,
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      companyId: ready.companies[0]!.companyId,
      idempotencyKey: 'golden-catalog-0001',
      replayed: false,
      faultId: null,
      error: { codigo: 'campo_obrigatorio', caminho: 'body.estabelecimento_id' },
      durationMs: 0,
    });
    expect(
      entries.filter((e) => e.kind === 'delivery').map((e) => [e.attemptInCycle, e.outcome, e.status, e.failure]),
    ).toEqual([
      [1, 'falhou', 503, 'status_nao_2xx'],
      [2, 'falhou', 503, 'status_nao_2xx'],
      [3, 'entregue', 200, null],
    ]);
    expect(entries.filter((e) => e.kind === 'finding')).toEqual([
      {
        kind: 'finding',
        at: '2026-01-01T00:10:00.000Z',
        rule: 'missing-idempotency-key',
        companyId: ready.companies[0]!.companyId,
        statements: ['REQ-02'],
        message: expect.stringMatching(
          /^POST \/v1\/catalogos \(request [0-9a-f-]{36}\) was sent without an idempotency-key: refused 400 chave_idempotencia_ausente\.$/,
        ),
        requestIds: [expect.stringMatching(/^[0-9a-f-]{36}$/)],
        eventIds: [],
        fix: 'Send an idempotency-key on every state-changing request: a new one per request, the same one to repeat it.',
      },
    ]);
    expect(run.stderr).toBe('');
    golden('json.log', `${lines.join('\n')}\n`);
  });
});

describe('catalog-emulator serve --json', SCENARIO_TIMEOUT, () => {
  it('prints one JSON line with every field, then answers an API call with its token and a control call at its controls URL', async () => {
    const run = cli(['--port', '0', '--clock', 'manual', '--seed', '42', '--json', '--log', 'silent']);
    await until(run, 'start line', () => run.stdout.includes('\n'));
    const ready = JSON.parse(run.stdout.slice(0, run.stdout.indexOf('\n'))) as Ready;
    expect(ready).toEqual({
      kind: 'ready',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      controls: `${ready.url}/_emulator`,
      docs: `${ready.url}/_emulator/docs`,
      inspector: `${ready.url}/_emulator/ui`,
      controlTokenRequired: false,
      companies: [
        {
          companyId: expect.stringMatching(/^[0-9a-f-]{36}$/),
          cnpjRoot: expect.stringMatching(/^[A-Z0-9]{8}$/),
          token: expect.stringMatching(/^svc_at_/),
          headOffice: { id: expect.any(String), cnpj: expect.any(String) },
        },
      ],
      clock: { mode: 'manual', now: '2026-01-01T00:00:00.000Z' },
      seed: 42,
      pid: run.child.pid,
    });
    expect(ready.url).not.toMatch(/:0$/);

    const company = await call(ready.url, 'GET', '/v1/empresa', { token: ready.companies[0]!.token });
    expect(company.status).toBe(200);
    expect(company.body).toMatchObject({ id: ready.companies[0]!.companyId, cnpj_raiz: ready.companies[0]!.cnpjRoot });
    const advanced = await call(ready.controls, 'POST', '/clock/advance', { body: { by: '1h' } });
    expect(advanced).toMatchObject({ status: 200, body: { now: '2026-01-01T01:00:00.000Z' } });
    expect((await fetch(ready.docs)).status).toBe(200);

    run.child.kill('SIGINT');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stdout.split('\n').slice(1)).toEqual(['{"kind":"closing","signal":"SIGINT"}', '']);
  });

  it('a reader that closes stdout after the start line (EPIPE) stops the log, not the server: it answers and exits 0', async () => {
    const run = cli(['--port', '0', '--clock', 'manual', '--json']);
    await until(run, 'start line', () => run.stdout.includes('\n'));
    const ready = JSON.parse(run.stdout.slice(0, run.stdout.indexOf('\n'))) as Ready;
    run.child.stdout!.destroy();
    for (let i = 0; i < 20; i++)
      expect((await call(ready.url, 'GET', '/v1/empresa', { token: ready.companies[0]!.token })).status).toBe(200);
    expect((await call(ready.controls, 'GET', '')).status).toBe(200);
    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stderr).toBe('');
  });

  it('with --log pretty, the pretty log goes to stderr and stdout stays JSON; --quiet leaves kinds out', async () => {
    const run = cli(['--port', '0', '--clock', 'manual', '--json', '--log', 'pretty', '--quiet', 'controls']);
    await until(run, 'start line', () => run.stdout.includes('\n'));
    const ready = JSON.parse(run.stdout.slice(0, run.stdout.indexOf('\n'))) as Ready;
    await call(ready.controls, 'GET', '/');
    await call(ready.url, 'GET', '/v1/empresa', { token: ready.companies[0]!.token });
    await until(run, 'the request line', () => run.stderr.includes('/v1/empresa'));
    expect(run.stderr).toMatch(/^2026-01-01T00:00:00\.000Z request  GET    \/v1\/empresa → 200\n$/);
    expect(run.stdout.split('\n')).toHaveLength(2);
  });

  it('--quiet requests,deliveries keeps the control calls; a bad kind is refused with exit code 2', async () => {
    const run = cli([
      '--port',
      '0',
      '--clock',
      'manual',
      '--log',
      'json',
      '--quiet',
      'requests,deliveries',
      '--quiet',
      'jobs',
    ]);
    await until(run, 'banner', () => run.stdout.includes('Try: curl'));
    const url = /listening on (\S+)/.exec(run.stdout)![1]!;
    const token = /token:\s+(\S+)/.exec(run.stdout)![1]!;
    await call(url, 'GET', '/v1/empresa', { token });
    await call(url, 'GET', '/_emulator');
    await call(url, 'GET', '/_emulator/');
    await until(run, 'the control lines', () => run.stdout.includes('"path":"/_emulator/"'));
    const log = run.stdout
      .slice(run.stdout.indexOf('\n', run.stdout.indexOf('Try: curl')) + 1)
      .split('\n')
      .filter(Boolean);
    expect(log.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ kind: 'control', path: '/_emulator', operation: 'getEmulatorInfo', status: 200 }),
      expect.objectContaining({
        kind: 'control',
        path: '/_emulator/',
        operation: null,
        status: 404,
        error: { codigo: 'rota_nao_encontrada', caminho: null },
      }),
    ]);

    const bad = cli(['--port', '0', '--quiet', 'requests,everything']);
    expect(await bad.exited).toEqual({ code: 2, signal: null });
    expect(bad.stderr).toContain('--quiet takes requests, controls, deliveries, jobs, findings (got "everything")');
  });

  it("leaves the inspector page's own calls out of the log; --log-inspector logs them", async () => {
    for (const flag of [[], ['--log-inspector']]) {
      const run = cli(['--port', '0', '--clock', 'manual', '--json', ...flag]);
      await until(run, 'start line', () => run.stdout.includes('\n'));
      const ready = JSON.parse(run.stdout.slice(0, run.stdout.indexOf('\n'))) as Ready;
      const timeline = `/inspector/companies/${ready.companies[0]!.companyId}/timeline`;
      expect((await call(ready.controls, 'GET', timeline)).status).toBe(200);
      // A call the log always shows, after it: once it is logged, the inspector's would have been before it.
      await call(ready.url, 'GET', '/_emulator');
      await until(run, 'the control line', () => run.stdout.includes('"path":"/_emulator"'));
      const paths = run.stdout
        .split('\n')
        .slice(1, -1)
        .map((line) => (JSON.parse(line) as { path?: string }).path);
      expect(paths).toEqual(flag.length === 0 ? ['/_emulator'] : [`/_emulator${timeline}`, '/_emulator']);
      run.child.kill('SIGTERM');
      await run.exited;
    }
  });

  it('colours the pretty log under FORCE_COLOR (and NO_COLOR leaves it plain, as every other test shows)', async () => {
    const run = cli(['--port', '0', '--clock', 'manual'], { NO_COLOR: undefined, FORCE_COLOR: '1' });
    await until(run, 'banner', () => run.stdout.includes('Try: curl'));
    const url = /listening on (\S+)/.exec(run.stdout)![1]!;
    await call(url, 'GET', '/v1/empresa');
    await until(run, 'the request line', () => run.stdout.includes('/v1/empresa →'));
    expect(run.stdout).toContain(
      '\x1b[2m2026-01-01T00:00:00.000Z\x1b[0m \x1b[34mrequest \x1b[0m GET    /v1/empresa → \x1b[33m401 credencial_ausente at header.authorization\x1b[0m',
    );
  });
});

describe('catalog-emulator serve --ready-file', SCENARIO_TIMEOUT, () => {
  it('writes the start line to the file once listening (a stale one removed first), and removes it on exit', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'catalog-emulator-ready-'));
    folders.push(folder);
    const file = join(folder, 'ready.json');
    writeFileSync(file, 'left by an earlier run');
    const run = cli(['--port', '0', '--clock', 'manual', '--ready-file', file, '--log', 'silent']);
    // As a script would: poll for the file until it names this server (the stale one may still be there at first).
    let ready: Ready | undefined;
    const seen = new Set<string>();
    await until(run, 'ready file', () => {
      let text = '';
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        // Not there yet, or the stale one removed between two reads.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      seen.add(text === '' || text === 'left by an earlier run' ? text : 'json');
      if (!text.startsWith('{')) return false;
      ready = JSON.parse(text) as Ready;
      return true;
    });
    // Whole each time it was read: no reader ever saw part of it.
    for (const text of seen) expect(['', 'left by an earlier run', 'json']).toContain(text);
    expect(ready).toMatchObject({ kind: 'ready', clock: { mode: 'manual' }, pid: run.child.pid });
    await until(run, 'banner', () => run.stdout.includes(`listening on ${ready!.url}\n`));
    expect((await call(ready!.url, 'GET', '/v1/empresa', { token: ready!.companies[0]!.token })).status).toBe(200);
    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(file)).toBe(false);
  });

  it('examples/ready-file.sh runs as written in a project: waits for the file, calls the API with its token, stops the server', async () => {
    const project = installedProject();
    folders.push(project);
    copyFileSync(EXAMPLE('ready-file.sh'), join(project, 'ready-file.sh'));
    const child = spawn('sh', ['ready-file.sh'], {
      cwd: project,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    track(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout)).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      cnpj_raiz: expect.stringMatching(/^[A-Z0-9]{8}$/),
    });
    expect(existsSync(join(project, 'emulator.json'))).toBe(false);
  });

  it('refuses a file in a folder that does not exist, with exit code 2 and nothing listening', async () => {
    const run = cli(['--port', '0', '--ready-file', join(tmpdir(), 'no-such-folder-catalog-emulator', 'ready.json')]);
    expect(await run.exited).toEqual({ code: 2, signal: null });
    expect(run.stderr).toContain('--ready-file: the folder of');
    expect(run.stderr).toContain('does not exist');
    expect(run.stdout).toBe('');
  });
});

describe('catalog-emulator exit codes and help', SCENARIO_TIMEOUT, () => {
  it('a busy port exits 3, saying so', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const run = cli(['--port', String(port), '--json']);
      expect(await run.exited).toEqual({ code: 3, signal: null });
      expect(run.stderr).toContain(`port ${port} is busy`);
      expect(run.stdout).toBe('');
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it("help prints the usage as --help does; help COMMAND prints that command's part; an unknown one exits 2", async () => {
    const help = cli(['help']);
    const dashed = cli(['--help']);
    expect(await help.exited).toEqual({ code: 0, signal: null });
    expect(await dashed.exited).toEqual({ code: 0, signal: null });
    expect(help.stdout).toBe(dashed.stdout);
    for (const option of ['--log FORMAT', '--quiet KINDS', '--json', '--ready-file PATH', 'Exit codes: 0'])
      expect(help.stdout).toContain(option);

    const serve = cli(['help', 'serve']);
    expect(await serve.exited).toEqual({ code: 0, signal: null });
    expect(serve.stdout).toMatch(/^Usage:\n {2}catalog-emulator \[serve\] \[options\] {3}serve the API/);
    expect(serve.stdout).toContain('Options of serve:\n  --port N');
    expect(serve.stdout).toContain('--ready-file PATH');
    expect(serve.stdout).not.toContain('demo [NAME]');

    const openapi = cli(['help', 'openapi']);
    expect(await openapi.exited).toEqual({ code: 0, signal: null });
    expect(openapi.stdout).toBe(
      'Usage:\n  catalog-emulator openapi [--controls]\n                                       print the OpenAPI 3.1 document of the service API\n                                       (with --controls, of the /_emulator controls)\n',
    );

    const nope = cli(['help', 'nope']);
    expect(await nope.exited).toEqual({ code: 2, signal: null });
    expect(nope.stderr).toContain(
      'help: no command "nope" (commands: serve, demo, openapi, conformance, check-receiver, explore, clock, fault, events, logs, report, help)',
    );
  });
});
