/**
 * The built CLI (dist/bin/catalog-emulator.js; `npm test` builds before vitest) as a user runs it: real
 * processes, real ports, real fetch. Every spawned process is killed after its test.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { httpRequest } from '../spec-tests/support/raw-http.js';
import { assertBuilt, killAll, runCli, type Run } from './cli-run.js';

const SPAWN_TIMEOUT_MS = 10_000;
const TEST_TIMEOUT_MS = 20_000;

const servers: Server[] = [];

const cli = (args: string[], env: Record<string, string> = {}): Run =>
  runCli(args, { env, timeoutMs: SPAWN_TIMEOUT_MS });

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
      reject(
        new Error(
          `catalog-emulator exited (${code}) before printing ${pattern}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`,
        ),
      );
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new Error(
          `catalog-emulator did not print ${pattern} within ${SPAWN_TIMEOUT_MS} ms\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`,
        ),
      );
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
async function serve(args: string[], env?: Record<string, string>): Promise<{ run: Run; url: string; token: string }> {
  const run = cli(args, env);
  const [, url] = await waitForOutput(run, /listening on (http:\/\/\S+)\n/);
  const [, token] = await waitForOutput(run, /token:\s+(\S+)\n/);
  return { run, url: url!, token: token! };
}

beforeAll(assertBuilt);

afterEach(async () => {
  await killAll();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('catalog-emulator serve', { timeout: TEST_TIMEOUT_MS }, () => {
  it('--port 0 --clock manual prints a URL and a token that GET /v1/empresa accepts', async () => {
    const { run, url, token } = await serve(['--port', '0', '--clock', 'manual', '--log', 'silent']);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toMatch(/:0$/);
    expect(token).toMatch(/^svc_at_[A-Za-z0-9_-]+$/);
    expect(run.stdout).toContain(
      `  inspector: ${url}/_emulator/ui\n  controls:  ${url}/_emulator\n  docs:      ${url}/_emulator/docs\n`,
    );
    const docs = await fetch(`${url}/_emulator/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toBe('text/html; charset=utf-8');
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

  it('a path with a newline and a terminal escape is logged as one line, the characters escaped', async () => {
    const { run, url, token } = await serve(['--port', '0', '--clock', 'manual']);
    const answer = await fetch(`${url}/v1/%0Afake%20line%1B%5B2J`, { headers: { authorization: `Bearer ${token}` } });
    expect(answer.status).toBe(404);
    // A request logged after it: once its line is out, so is the hostile one's.
    await fetch(`${url}/v1/empresa`, { headers: { authorization: `Bearer ${token}` } });
    await waitForOutput(run, /GET\s+\/v1\/empresa → 200\n/);

    const log = run.stdout.slice(run.stdout.indexOf('Try: curl')).split('\n').slice(1, -1);
    expect(log).toEqual([
      expect.stringMatching(
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z request  GET    \/v1\/\\x0afake line\\x1b\[2J → 404 rota_nao_encontrada$/,
      ),
      expect.stringMatching(/^\S+ request  GET    \/v1\/empresa → 200$/),
    ]);
    expect(run.stdout).not.toContain('\x1b');
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
    expect(code).toBe(3);
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
    [['--max-stored-answers', '0'], '--max-stored-answers must be a whole number, 1 or more (got "0")'],
    [['--max-stored-answers', '2.5'], '--max-stored-answers must be a whole number, 1 or more (got "2.5")'],
    [['--max-stored-answers', 'lots'], '--max-stored-answers must be a whole number, 1 or more (got "lots")'],
    [
      ['--start', '1969-12-31T23:59:59Z'],
      '--start must be an instant from 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z, in whole milliseconds; got 1969-12-31T23:59:59Z',
    ],
    [
      ['--start', '+010000-01-01T00:00:00Z'],
      '--start must be an instant from 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z, in whole milliseconds; got +010000-01-01T00:00:00Z',
    ],
    [['--bogus'], 'unknown option --bogus'],
    [
      ['frobnicate'],
      'unknown command "frobnicate" (commands: serve, demo, openapi, conformance, check-receiver, explore, clock, fault, events, logs, report, help)',
    ],
    [['serve', 'extra'], 'unexpected argument "extra"'],
    [
      ['--control-token', ''],
      'the control token (--control-token) must be a non-empty string of visible ASCII characters without spaces',
    ],
    [['--control-token', 'two words'], 'the control token (--control-token) must be a non-empty string'],
    [
      ['--allow-host', 'emulator:4747'],
      '--allow-host: "emulator:4747" is not a host name; give a name or address without port or scheme',
    ],
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

/**
 * A JSON request to the server: a control (no token) or the API (with `token` and a fresh idempotency key). A write
 * carries `content-type: application/json` even without a body, as the controls require.
 */
async function call(
  url: string,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined || (method !== 'GET' && method !== 'DELETE'))
    headers['content-type'] = 'application/json';
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.token !== undefined && method !== 'GET')
    headers['idempotency-key'] = `cli-test-${Math.random().toString(36).slice(2)}-0000`;
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

describe('catalog-emulator serve: a reset keeps what the command line set up', { timeout: TEST_TIMEOUT_MS }, () => {
  it('--route survives POST /_emulator/reset: an event raised after the reset reaches the routed receiver, not the inbox', async () => {
    const received: { path: string; headers: IncomingHttpHeaders }[] = [];
    const receiver = createHttpServer((request, response) => {
      received.push({ path: request.url ?? '', headers: request.headers });
      request.resume();
      request.on('end', () => response.writeHead(200).end());
    });
    servers.push(receiver);
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const to = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const { url } = await serve([
      '--port',
      '0',
      '--clock',
      'manual',
      '--log',
      'silent',
      '--route',
      `https://hooks.x.example=${to}`,
    ]);

    expect(
      (await call(url, 'POST', '/_emulator/network/routes', { body: { from: 'https://hooks.later.example', to } }))
        .status,
    ).toBe(201);
    expect((await call(url, 'POST', '/_emulator/reset')).status).toBe(200);
    expect(await call(url, 'GET', '/_emulator/network/routes')).toEqual({
      status: 200,
      body: { items: [{ from: 'https://hooks.x.example', to }] },
    });

    const company = await call(url, 'POST', '/_emulator/companies', { body: {} });
    expect(company.status).toBe(201);
    const destination = await call(url, 'PUT', '/v1/webhook', {
      token: company.body.token,
      body: { url: 'https://hooks.x.example/recebe' },
      headers: { 'if-none-match': '*' },
    });
    expect(destination.status).toBe(201);
    const raised = await call(url, 'POST', `/_emulator/companies/${company.body.companyId}/events`, {
      body: { dados: { tipo: 'webhook.teste' } },
    });
    expect(raised.status).toBe(201);
    expect((await call(url, 'POST', '/_emulator/clock/advance', { body: { by: 0 } })).body).toMatchObject({ ran: 1 });

    expect(received.map((r) => [r.path, r.headers['service-event-id']])).toEqual([['/recebe', raised.body.eventId]]);
    expect(await call(url, 'GET', '/_emulator/inbox')).toEqual({ status: 200, body: { items: [] } });
  });
  it('--clock real: after a reset the printed company id and token still answer, the company recreated with the same id', async () => {
    const { run, url, token } = await serve(['--port', '0', '--clock', 'real', '--log', 'silent']);
    const [, cnpjRoot, companyId] = await waitForOutput(run, /company:\s+(\d{8}) \(([0-9a-f-]{36})\)/);
    // Real time passes between start-up and the reset: the recreated company must not take its id from it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await call(url, 'POST', '/_emulator/reset')).status).toBe(200);

    expect(await call(url, 'GET', '/v1/empresa', { token })).toEqual({
      status: 200,
      body: { id: companyId, cnpj_raiz: cnpjRoot, nome: `Empresa ${cnpjRoot}` },
    });
    const listed = await call(url, 'GET', '/_emulator/companies');
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((c: { id: string; cnpjRoot: string }) => [c.id, c.cnpjRoot])).toEqual([
      [companyId, cnpjRoot],
    ]);
  });
});

/** Waits until stderr holds a whole line (the warning is written before the banner, but on another pipe). */
async function stderrLine(run: Run): Promise<string> {
  for (let waited = 0; !run.stderr.includes('\n'); waited += 10) {
    if (waited > SPAWN_TIMEOUT_MS)
      throw new Error(`no line on stderr within ${SPAWN_TIMEOUT_MS} ms\nstdout:\n${run.stdout}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return run.stderr;
}

describe('catalog-emulator serve: only its owner drives it', { timeout: TEST_TIMEOUT_MS }, () => {
  it('--host 0.0.0.0 warns on stderr in one paragraph, prints a loopback URL, and admits another Host only with --allow-host', async () => {
    const { run, url } = await serve(['--port', '0', '--clock', 'manual', '--log', 'silent', '--host', '0.0.0.0']);
    const port = new URL(url).port;
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(await stderrLine(run)).toBe(
      `catalog-emulator: warning: bound to 0.0.0.0 (every network interface), which other machines may reach. ` +
        `Anyone who can reach port ${port} can drive the controls under /_emulator (reset the state, inject faults, move the clock) and read every token and webhook secret (GET /_emulator/state): set a control token with --control-token TOKEN or CATALOG_EMULATOR_CONTROL_TOKEN. ` +
        `Requests must name the server as localhost, 127.0.0.1 or [::1]; to reach it by another name, allow it: another container of a docker compose file reaching it at http://emulator:${port} needs --allow-host emulator.\n`,
    );
    expect((await call(url, 'GET', '/_emulator')).status).toBe(200);
    const refused = await httpRequest(url, 'GET', '/_emulator/state', { host: `emulator:${port}` });
    expect(refused.status).toBe(403);
    expect(refused.body.erro).toMatchObject({ codigo: 'host_nao_permitido', caminho: 'header.host' });
    expect(refused.body.erro.mensagem).toContain('start it with --allow-host emulator');

    const allowed = await serve([
      '--port',
      '0',
      '--clock',
      'manual',
      '--log',
      'silent',
      '--host',
      '0.0.0.0',
      '--allow-host',
      'emulator',
    ]);
    const allowedPort = new URL(allowed.url).port;
    expect((await httpRequest(allowed.url, 'GET', '/_emulator', { host: `emulator:${allowedPort}` })).status).toBe(200);
    expect(await stderrLine(allowed.run)).toContain(
      'Requests must name the server as localhost, 127.0.0.1, [::1] or emulator;',
    );
  });

  it('--allow-host NAME admits Host NAME on the API and the controls; another host is 403 naming --allow-host; a loopback bind warns nothing', async () => {
    const { run, url, token } = await serve([
      '--port',
      '0',
      '--clock',
      'manual',
      '--log',
      'silent',
      '--allow-host',
      'emulator',
      '--allow-host',
      'ci-runner',
    ]);
    expect((await httpRequest(url, 'GET', '/_emulator', { host: 'emulator' })).status).toBe(200);
    expect(
      (await httpRequest(url, 'GET', '/v1/empresa', { host: 'CI-Runner:4747', authorization: `Bearer ${token}` }))
        .status,
    ).toBe(200);
    const refused = await httpRequest(url, 'GET', '/v1/empresa', {
      host: 'rebound.attacker.example',
      authorization: `Bearer ${token}`,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.erro.codigo).toBe('host_nao_permitido');
    expect(refused.body.erro.mensagem).toContain('(it answers to localhost, 127.0.0.1, [::1], emulator, ci-runner)');
    expect(refused.body.erro.mensagem).toContain('--allow-host rebound.attacker.example');
    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stderr).toBe('');
  });

  it('--control-token (or CATALOG_EMULATOR_CONTROL_TOKEN; the flag wins) guards every control, and is never printed', async () => {
    const flagToken = 'ctl-from-the-flag';
    const envToken = 'ctl-from-the-environment';
    const both = await serve(['--port', '0', '--clock', 'manual', '--control-token', flagToken], {
      CATALOG_EMULATOR_CONTROL_TOKEN: envToken,
    });
    expect(both.run.stdout).toContain(
      `  inspector: ${both.url}/_emulator/ui (its data behind the control token too)\n`,
    );
    expect(both.run.stdout).toContain(
      `  controls:  ${both.url}/_emulator (send "Authorization: Bearer <control token>")\n`,
    );
    expect(both.run.stdout).toContain(
      `  docs:      ${both.url}/_emulator/docs (its documents behind the control token too)\n`,
    );
    // The page loads without it (and asks for it); what it renders does not.
    expect((await fetch(`${both.url}/_emulator/docs`)).status).toBe(200);
    expect((await fetch(`${both.url}/_emulator/openapi.json`)).status).toBe(401);
    const missing = await call(both.url, 'GET', '/_emulator/state');
    expect(missing.status).toBe(401);
    expect(missing.body.erro.codigo).toBe('token_de_controle_ausente');
    expect(
      (await call(both.url, 'GET', '/_emulator', { headers: { authorization: `Bearer ${envToken}` } })).status,
    ).toBe(401);
    expect(
      (await call(both.url, 'GET', '/_emulator', { headers: { authorization: `Bearer ${flagToken}` } })).status,
    ).toBe(200);
    const created = await call(both.url, 'POST', '/_emulator/companies', {
      body: {},
      headers: { authorization: `Bearer ${flagToken}` },
    });
    expect(created.status).toBe(201);
    // The API's credentials are untouched by the control token.
    expect((await call(both.url, 'GET', '/v1/empresa', { token: created.body.token })).status).toBe(200);
    await waitForOutput(both.run, /GET\s+\/v1\/empresa → 200/);

    const fromEnv = await serve(['--port', '0', '--clock', 'manual'], { CATALOG_EMULATOR_CONTROL_TOKEN: envToken });
    expect((await call(fromEnv.url, 'GET', '/_emulator')).status).toBe(401);
    expect(
      (await call(fromEnv.url, 'GET', '/_emulator', { headers: { authorization: `Bearer ${envToken}` } })).status,
    ).toBe(200);

    const unset = await serve(['--port', '0', '--clock', 'manual'], { CATALOG_EMULATOR_CONTROL_TOKEN: '' });
    expect((await call(unset.url, 'GET', '/_emulator')).status).toBe(200);
    for (const { run } of [both, fromEnv, unset]) {
      expect(run.stdout + run.stderr).not.toContain(flagToken);
      expect(run.stdout + run.stderr).not.toContain(envToken);
    }
  });
});

describe('catalog-emulator serve --no-controls', { timeout: TEST_TIMEOUT_MS }, () => {
  it("serves the API alone: the start line has no controls, docs or inspector, /_emulator answers as an unknown path, the fixtures' credentials are listed", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalog-emulator-'));
    const fixtures = join(dir, 'fixtures.json');
    writeFileSync(
      fixtures,
      JSON.stringify({
        version: 1,
        companies: [{ name: 'Conformidade', cnpjRoot: '11222333', credentials: [{ permissions: ['catalogo:ler'] }] }],
      }),
    );
    const run = cli(['--port', '0', '--no-controls', '--json', '--fixtures', fixtures]);
    const [line] = await waitForOutput(run, /^\{.*\}\n/);
    const ready = JSON.parse(line!) as {
      url: string;
      controls: unknown;
      docs: unknown;
      inspector: unknown;
      companies: {
        companyId: string;
        token: string;
        name?: string;
        credentials?: { permissions: string[]; token: string }[];
      }[];
    };
    expect(ready).toMatchObject({ controls: null, docs: null, inspector: null, controlTokenRequired: false });
    const [, company] = ready.companies;
    expect(ready.companies).toHaveLength(2);
    expect(company).toMatchObject({
      cnpjRoot: '11222333',
      name: 'Conformidade',
      credentials: [{ permissions: ['catalogo:ler'], token: expect.stringMatching(/^svc_at_/) }],
    });
    const reader = company!.credentials![0]!.token;
    expect((await call(ready.url, 'GET', '/v1/empresa', { token: reader })).body).toMatchObject({
      id: company!.companyId,
      cnpj_raiz: '11222333',
    });
    expect((await call(ready.url, 'GET', '/v1/webhook', { token: reader })).status).toBe(403);
    for (const path of ['/_emulator', '/_emulator/ui', '/_emulator/docs', '/_emulator/state']) {
      const answer = await call(ready.url, 'GET', path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.erro).toMatchObject({
        codigo: 'rota_nao_encontrada',
        mensagem: `No operation at GET ${path}. Paths begin with /v1.`,
      });
    }
    // The log under --json: the API requests, and no control line (there is no control to call).
    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const kinds = run.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => (JSON.parse(l) as { kind: string }).kind);
    expect(kinds.filter((k) => k !== 'request')).toEqual(['closing']);
  });

  it('prints a banner without the controls, docs and inspector lines, saying why', async () => {
    const { run } = await serve(['--port', '0', '--no-controls', '--log', 'silent']);
    await waitForOutput(run, /Try: curl/);
    expect(run.stdout).toContain(
      '\n  controls:  none (--no-controls: the API alone, as a deployment serves it; no docs page, no inspector)\n',
    );
    expect(run.stdout).not.toMatch(/inspector:|docs:/);
  });

  it.each([
    [['--no-controls', '--control-token', 'a-control-token-of-32-characters!'], {}, '--control-token'],
    [
      ['--no-controls'],
      { CATALOG_EMULATOR_CONTROL_TOKEN: 'a-control-token-of-32-characters!' },
      'CATALOG_EMULATOR_CONTROL_TOKEN',
    ],
  ])('refuses a control token with no controls to guard (%j): exit 2, one line naming it', async (args, env, named) => {
    const run = cli(['--port', '0', ...args], env);
    expect(await run.exited).toEqual({ code: 2, signal: null });
    expect(run.stderr).toBe(
      `catalog-emulator: --no-controls serves no controls for a control token to guard: drop ${named}\nRun "catalog-emulator --help" for usage.\n`,
    );
    expect(run.stdout).toBe('');
  });
});

describe('catalog-emulator serve --max-stored-answers', { timeout: TEST_TIMEOUT_MS }, () => {
  it('keeps that many idempotent answers per company: the third store drops the first; a reset keeps the ceiling', async () => {
    const { url, token } = await serve([
      '--port',
      '0',
      '--clock',
      'manual',
      '--log',
      'silent',
      '--max-stored-answers',
      '2',
    ]);
    const send = async (key: string, path: string, body: unknown) => {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
      });
      return {
        status: response.status,
        replayed: response.headers.get('idempotent-replayed'),
        body: (await response.json()) as { id: string },
      };
    };
    const storedKeys = async () =>
      ((await call(url, 'GET', '/_emulator/state')).body.state.idempotency as { key: string }[]).map((e) => e.key);
    const threeStores = async (prefix: string) => {
      const establishments = await call(url, 'GET', '/v1/estabelecimentos', { token });
      const catalog = await send(`${prefix}-catalog-0001`, '/v1/catalogos', {
        estabelecimento_id: establishments.body.itens[0].id,
        nome: 'Loja',
      });
      expect(catalog).toMatchObject({ status: 201, replayed: null });
      for (const n of [1, 2])
        expect(
          await send(`${prefix}-product-000${n}`, `/v1/catalogos/${catalog.body.id}/produtos`, {
            origem: 'erp',
            ncm: '84713012',
          }),
        ).toMatchObject({ status: 201, replayed: null });
      expect(await storedKeys()).toEqual([`${prefix}-product-0001`, `${prefix}-product-0002`]);
      return catalog.body.id;
    };
    const catalogId = await threeStores('before');
    expect(
      await send('before-product-0001', `/v1/catalogos/${catalogId}/produtos`, { origem: 'erp', ncm: '84713012' }),
    ).toMatchObject({ status: 201, replayed: 'true' });

    expect((await call(url, 'POST', '/_emulator/reset')).status).toBe(200);
    await threeStores('after');
  });
});

describe('catalog-emulator --help and --version', { timeout: TEST_TIMEOUT_MS }, () => {
  it('--help exits 0 with the usage', async () => {
    const run = cli(['--help']);
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stdout).toContain('Usage:');
    for (const flag of [
      '--port',
      '--host',
      '--seed',
      '--clock',
      '--start',
      '--route',
      '--log',
      '--max-stored-answers',
      '--allow-host',
      '--control-token',
      'CATALOG_EMULATOR_CONTROL_TOKEN',
      'demo [NAME]',
      'openapi [--controls]',
      '/_emulator/docs',
    ])
      expect(run.stdout).toContain(flag);
    expect(run.stdout).toContain(
      'Control writes (POST, PUT, PATCH under /_emulator) need "content-type: application/json".',
    );
    expect(run.stderr).toBe('');
  });

  it('--version prints the package version', async () => {
    const { VERSION } = await import('../src/index.js');
    const run = cli(['--version']);
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stdout).toBe(`${VERSION}\n`);
  });
});

describe('catalog-emulator openapi', { timeout: TEST_TIMEOUT_MS }, () => {
  for (const [args, file] of [
    [[], 'openapi.json'],
    [['--controls'], 'openapi.controls.json'],
  ] as const) {
    it(`openapi ${args.join(' ')}prints the shipped ${file}`, async () => {
      const run = cli(['openapi', ...args]);
      expect(await run.exited).toEqual({ code: 0, signal: null });
      expect(run.stdout).toBe(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'));
      expect(run.stderr).toBe('');
    });
  }

  it('refuses an argument, an option of serve, and --controls without openapi', async () => {
    const cases: [string[], string][] = [
      [['openapi', 'extra'], 'openapi takes no argument (got "extra"); --controls prints the controls\' document'],
      [['openapi', '--port', '1'], '--port is not an option of the openapi command (it takes --controls)'],
      [['--controls'], '--controls is an option of the openapi command'],
    ];
    for (const [args, message] of cases) {
      const run = cli(args);
      expect((await run.exited).code, args.join(' ')).toBe(2);
      expect(run.stderr).toBe(`catalog-emulator: ${message}\nRun "catalog-emulator --help" for usage.\n`);
      expect(run.stdout).toBe('');
    }
  });
});
