/**
 * The commands for a running server (clock, fault, events, logs tail, report), as a user runs them, against a server
 * the built CLI serves (`serve --port 0 --json`): each command's output and exit code; a refusal (1, the control's
 * message), a server that cannot be reached (2, one line naming the URL), a server that is no catalog-emulator or
 * serves no controls (2), a token-protected server, and `report` against small stub servers (an older emulator
 * without it, and one with it). The commands run in this process as the bin runs them (runHere); the built
 * bin itself, as a child process, runs every command once with each exit code (0, 1, 2), the help and `logs tail`
 * until a signal or the server's stop. Servers that lie: remote-hostile.test.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, killAll, runCli, runHere, type Done, type Run } from './cli-run.js';
import { statusLine } from './remote-run.js';

const WAIT_MS = 20_000;
const stubs: Server[] = [];

beforeAll(assertBuilt);
afterAll(async () => {
  await killAll();
  await Promise.all(stubs.map((stub) => new Promise((resolve) => stub.close(resolve))));
});

/** CATALOG_EMULATOR_URL and the token unset unless given, and `env` on top. */
const only = (env: Record<string, string | undefined>) => ({
  CATALOG_EMULATOR_URL: undefined,
  CATALOG_EMULATOR_CONTROL_TOKEN: undefined,
  ...env,
});

/** `catalog-emulator ARGS` run to its end, in this process as the bin runs it, with `env` (only). */
const cli = (args: string[], env: Record<string, string | undefined> = {}): Promise<Done> => runHere(args, only(env));

/** `catalog-emulator ARGS` run to its end (within WAIT_MS) by the built bin, a child process, with `env` (only). */
async function bin(args: string[], env: Record<string, string | undefined> = {}): Promise<Done> {
  const run = runCli(args, { env: only(env), timeoutMs: WAIT_MS });
  const { code } = await run.exited;
  await run.closed;
  return { code, stdout: run.stdout, stderr: run.stderr };
}

/** Resolves once `done()` holds (checked every 20 ms); rejects after WAIT_MS, saying what the run printed. */
async function until(run: Run, what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!done()) {
    if (Date.now() > deadline)
      throw new Error(`no ${what} within ${WAIT_MS} ms\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
    if (run.child.exitCode !== null)
      throw new Error(`exited (${run.child.exitCode}) before ${what}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Served {
  readonly run: Run;
  readonly url: string;
  readonly companyId: string;
  readonly token: string;
}

/** `catalog-emulator serve --port 0 --json --clock manual ARGS`, once it printed its start line. */
async function serve(args: string[] = []): Promise<Served> {
  const run = runCli(['serve', '--port', '0', '--json', '--clock', 'manual', '--log', 'silent', ...args], {
    env: { CATALOG_EMULATOR_CONTROL_TOKEN: undefined },
  });
  await until(run, 'start line', () => run.stdout.includes('\n'));
  const ready = JSON.parse(run.stdout.split('\n')[0]!) as {
    url: string;
    companies: { companyId: string; token: string }[];
  };
  return { run, url: ready.url, companyId: ready.companies[0]!.companyId, token: ready.companies[0]!.token };
}

/** A stub HTTP server on 127.0.0.1 answering each request with `answer`; its URL. */
async function stub(answer: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  const server = createServer(answer);
  stubs.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
};

/** An API request to the server as `token`. */
async function api(
  url: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe('against a running server', { timeout: 60_000 }, () => {
  let server: Served;
  let env: Record<string, string>;
  /** A company created on the server through its controls. */
  const newCompany = async (body: object = {}) =>
    (await (
      await fetch(`${server.url}/_emulator/companies`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json()) as { companyId: string; token: string };
  beforeAll(async () => {
    server = await serve();
    env = { CATALOG_EMULATOR_URL: server.url };
  }, 60_000);

  it('clock: shows it, advances it by a duration or to an instant, runs it until idle, each in one line (--json: the answer)', async () => {
    expect(await bin(['clock'], env)).toEqual({
      code: 0,
      stdout: '2026-01-01T00:00:00.000Z, manual clock: 0 tasks of work pending, 3 deadlines scheduled\n',
      stderr: '',
    });
    expect(await cli(['clock', 'advance', '1d', '--url', server.url])).toEqual({
      code: 0,
      stdout: 'now 2026-01-02T00:00:00.000Z: ran 26 tasks\n',
      stderr: '',
    });
    expect(await cli(['clock', 'advance', '--to', '2026-01-02T06:00:00Z', '--json'], env)).toEqual({
      code: 0,
      stdout: '{"now":"2026-01-02T06:00:00.000Z","ran":6}\n',
      stderr: '',
    });
    expect(await cli(['clock', 'run-until-idle', '--limit', '50'], env)).toEqual({
      code: 0,
      stdout: 'now 2026-01-02T06:00:00.000Z: ran 0 tasks\n',
      stderr: '',
    });
    expect(JSON.parse((await cli(['clock', '--json'], env)).stdout)).toEqual({
      now: '2026-01-02T06:00:00.000Z',
      mode: 'manual',
      pending: 0,
      deadlines: 3,
    });
  });

  it("clock --company: a company's own clock", async () => {
    const created = await newCompany({ clock: 'own' });
    const own = await cli(['clock', 'advance', '2h', '--company', created.companyId], env);
    expect(own).toEqual({
      code: 0,
      stdout: expect.stringMatching(
        new RegExp(`^now \\S+Z \\(company ${created.companyId}'s own clock\\): ran \\d+ tasks?\\n$`),
      ),
      stderr: '',
    });
    const shared = await cli(['clock', '--company', server.companyId], env);
    expect(shared.code).toBe(1);
    expect(shared.stderr).toMatch(/^catalog-emulator: .*\(404 relogio_proprio_inexistente at path\.companyId\)\n$/);
  });

  it("a refusal exits 1 with the control's message on one line; nothing changed", async () => {
    const before = await cli(['clock', '--json'], env);
    expect(await bin(['clock', 'advance', '1x'], env)).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'catalog-emulator: by must be whole milliseconds or a duration such as "90s", "15m", "24h", "31d", "1h30m"; got "1x" (422 valor_invalido at body.by)\n',
    });
    expect((await cli(['clock', '--json'], env)).stdout).toBe(before.stdout);
  });

  it('fault add (flags or --json), list, remove ID and remove --all; a fault the registry refuses exits 1', async () => {
    const added = await cli(
      [
        'fault',
        'add',
        '--target',
        'api',
        '--method',
        'patch',
        '--path',
        '/v1/produtos/*',
        '--status',
        '503',
        '--retry-after',
        '2',
        '--times',
        '2',
      ],
      env,
    );
    expect(added).toEqual({
      code: 0,
      stdout: expect.stringMatching(
        /^added fault (flt_\d+) api method=PATCH path=\/v1\/produtos\/\* → status=503 retryAfter=2, 2 left\n$/,
      ),
      stderr: '',
    });
    const first = /flt_\d+/.exec(added.stdout)![0];
    const chance = await cli(
      [
        'fault',
        'add',
        '--target',
        'delivery',
        '--refuse',
        '--times',
        'forever',
        '--probability',
        '0.25',
        '--company',
        server.companyId,
      ],
      env,
    );
    expect(chance.stdout).toMatch(
      new RegExp(
        `^added fault flt_\\d+ delivery companyId=${server.companyId} → refuse=true, until removed, probability 0\\.25\\n$`,
      ),
    );
    const whole = await cli(
      ['fault', 'add', '--json', '{"target":"job","match":{"kind":"analise"},"effect":{"fail":true}}'],
      env,
    );
    expect(whole.stdout).toMatch(/^added fault flt_\d+ job kind=analise → fail=true, 1 left\n$/);

    // The api fault fires as the server answers: a PATCH of a product gets its 503 and Retry-After.
    const patched = await api(
      server.url,
      server.token,
      'PATCH',
      '/v1/produtos/00000000-0000-7000-8000-000000000000',
      { sku: 'x' },
      { 'idempotency-key': 'remote-cli-fault-01', 'if-match': '"x"' },
    );
    expect([patched.status, patched.headers.get('retry-after'), patched.headers.get('x-emulator-fault')]).toEqual([
      503,
      '2',
      first,
    ]);

    const listed = await cli(['fault', 'list'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n').filter(Boolean)).toEqual([
      `${first} api method=PATCH path=/v1/produtos/* → status=503 retryAfter=2, 1 left, 1 hit`,
      expect.stringMatching(/ delivery companyId=\S+ → refuse=true, until removed, probability 0\.25, 0 hits$/),
      expect.stringMatching(/ job kind=analise → fail=true, 1 left, 0 hits$/),
      // The faults that have not fired are named, with the command that says why.
      expect.stringMatching(
        /^flt_\d+ and flt_\d+ have not fired: "catalog-emulator fault near-misses ID" shows what came closest, and what each missed$/,
      ),
    ]);
    const asJson = JSON.parse((await cli(['fault', 'list', '--json', '--company', server.companyId], env)).stdout) as {
      items: { target: string }[];
    };
    expect(asJson.items.map((f) => f.target)).toEqual(['delivery']);

    expect(await cli(['fault', 'remove', first], env)).toEqual({
      code: 0,
      stdout: `removed fault ${first}\n`,
      stderr: '',
    });
    expect(await cli(['fault', 'remove', first], env)).toEqual({
      code: 1,
      stdout: '',
      stderr: `catalog-emulator: No fault ${first}; GET /_emulator/faults lists them. (404 falha_nao_encontrada at path.id)\n`,
    });
    expect(await cli(['fault', 'add', '--target', 'delivery', '--method', 'GET', '--status', '500'], env)).toEqual({
      code: 1,
      stdout: '',
      stderr:
        "catalog-emulator: match.method is not a field of a delivery fault's match (fields: url, eventType, companyId). (422 valor_invalido at body.match.method)\n",
    });
    expect(await cli(['fault', 'remove', '--all'], env)).toEqual({
      code: 0,
      stdout: 'removed every fault\n',
      stderr: '',
    });
    expect(await cli(['fault', 'list'], env)).toEqual({ code: 0, stdout: 'no faults\n', stderr: '' });
  });

  it('fault add --skip N: the fault lets N matching requests pass first, and the list says how many are left', async () => {
    const created = await newCompany();
    const company = created.companyId;
    const added = await cli(
      ['fault', 'add', '--path', '/v1/empresa', '--status', '503', '--skip', '2', '--company', company],
      env,
    );
    expect(added).toEqual({
      code: 0,
      stdout: expect.stringMatching(
        new RegExp(
          `^added fault (flt_\\d+) api path=/v1/empresa companyId=${company} → status=503, 1 left, lets 2 more matches pass first\\n$`,
        ),
      ),
      stderr: '',
    });
    const id = /flt_\d+/.exec(added.stdout)![0];
    const statuses = [];
    for (let i = 0; i < 2; i++) statuses.push((await api(server.url, created.token, 'GET', '/v1/empresa')).status);
    const listed = await cli(['fault', 'list', '--company', company], env);
    expect(listed.stdout.split('\n')[0]).toBe(
      `${id} api path=/v1/empresa companyId=${company} → status=503, 1 left, 0 hits`,
    );
    statuses.push((await api(server.url, created.token, 'GET', '/v1/empresa')).status);
    expect(statuses).toEqual([200, 200, 503]);
    expect(await cli(['fault', 'add', '--status', '503', '--skip', 'two'], env)).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'catalog-emulator: --skip must be a whole number (got "two")\nRun "catalog-emulator help fault" for usage.\n',
    });
  });

  it('fault near-misses ID: the closest requests since the fault was armed, what each failed and met (--json: the answer)', async () => {
    const created = await newCompany();
    const company = created.companyId;
    const added = await cli(
      ['fault', 'add', '--method', 'POST', '--path', '/v1/catalogos/*', '--status', '503', '--company', company],
      env,
    );
    const id = /flt_\d+/.exec(added.stdout)![0];
    const header = `${id} api method=POST path=/v1/catalogos/* companyId=${company} → status=503, 1 left, 0 hits`;
    expect(await cli(['fault', 'near-misses', id], env)).toEqual({
      code: 0,
      stdout: `${header}\nno request since it was armed: it has had nothing to fire on\n`,
      stderr: '',
    });

    const get = await api(server.url, created.token, 'GET', '/v1/catalogos');
    const post = await api(
      server.url,
      created.token,
      'POST',
      '/v1/catalogos',
      {},
      { 'idempotency-key': 'remote-cli-near-miss-01' },
    );
    const now = (JSON.parse((await cli(['clock', '--json'], env)).stdout) as { now: string }).now;
    const own = await cli(['fault', 'near-misses', id, '--company', company], env);
    expect(own).toEqual({
      code: 0,
      stdout: [
        header,
        `2 requests of company ${company} since it was armed, none fired it; the closest:`,
        `  ${now} POST /v1/catalogos → 422, company ${company}, request ${post.headers.get('x-request-id')}`,
        '    failed: path: /v1/catalogos does not match /v1/catalogos/*',
        `    met: operation: createCatalog; method: POST; companyId: ${company}`,
        `  ${now} GET /v1/catalogos → 200, company ${company}, request ${get.headers.get('x-request-id')}`,
        '    failed: method: GET ≠ POST; path: /v1/catalogos does not match /v1/catalogos/*',
        `    met: operation: listCatalogs; companyId: ${company}`,
        '',
      ].join('\n'),
      stderr: '',
    });
    // What the client sent reaches the terminal escaped: a request to no operation, whose path holds ESC.
    expect(
      (
        await api(
          server.url,
          created.token,
          'POST',
          '/v1/catalogos/%1B%5B2J',
          {},
          { 'idempotency-key': 'remote-cli-near-miss-02' },
        )
      ).status,
    ).toBe(405);
    const all = await cli(['fault', 'near-misses', id], env);
    expect(all.stdout).toContain('POST /v1/catalogos/\\x1b[2J → 405, no company, request ');
    expect(all.stdout).toContain('    failed: operation: POST /v1/catalogos/\\x1b[2J reached none (answered 405)');
    expect(all.stdout).not.toContain('\x1b');
    const asJson = JSON.parse((await cli(['fault', 'near-misses', id, '--json'], env)).stdout) as {
      fault: { id: string };
      examined: number;
      candidates: unknown[];
    };
    expect([asJson.fault.id, asJson.examined, asJson.candidates.length]).toEqual([id, 3, 3]);
    expect(await cli(['fault', 'near-misses', 'flt_999'], env)).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'catalog-emulator: No fault "flt_999" is armed (one that fired its times has left the list); GET /_emulator/faults lists them. (404 falha_nao_encontrada at path.id)\n',
    });
    expect((await cli(['fault', 'remove', id], env)).code).toBe(0);
  });

  it('events trigger raises an event the destination gets as the clock runs; without a destination it is refused', async () => {
    const created = await newCompany();
    const refused = await cli(['events', 'trigger', '--company', created.companyId, '--type', 'webhook.teste'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^catalog-emulator: Company ${created.companyId} has no webhook destination: .* \\(404 destino_nao_encontrado\\)\\n$`,
      ),
    );
    const destination = await api(
      server.url,
      created.token,
      'PUT',
      '/v1/webhook',
      { url: 'https://hooks.remote.example/in' },
      { 'idempotency-key': 'remote-cli-hook-0001', 'if-none-match': '*' },
    );
    expect(destination.status).toBe(201);
    const raised = await cli(
      [
        'events',
        'trigger',
        '--company',
        created.companyId,
        '--type',
        'catalogo.aplicado',
        '--data',
        '{"catalogoId":"0192b2b4-0000-7000-8000-000000000001","versao":3}',
      ],
      env,
    );
    expect(raised).toEqual({
      code: 0,
      stdout: expect.stringMatching(
        new RegExp(
          `^raised catalogo\\.aplicado event ([0-9a-f-]{36}) for company ${created.companyId}: delivered as the clock runs its attempts\\n$`,
        ),
      ),
      stderr: '',
    });
    const eventId = /event (\S+) for/.exec(raised.stdout)![1];
    const test = JSON.parse(
      (await cli(['events', 'trigger', '--company', created.companyId, '--type', 'webhook.teste', '--json'], env))
        .stdout,
    ) as { eventId: string };
    expect(test.eventId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await cli(['clock', 'run-until-idle'], env)).code).toBe(0);
    const inbox = (await (await fetch(`${server.url}/_emulator/companies/${created.companyId}/inbox`)).json()) as {
      items: { eventId: string; body: string }[];
    };
    expect(inbox.items.map((i) => i.eventId)).toEqual([eventId, test.eventId]);
    expect(JSON.parse(inbox.items[0]!.body)).toMatchObject({
      dados: { catalogoId: '0192b2b4-0000-7000-8000-000000000001', versao: 3 },
    });
    expect(inbox.items[0]!.body).toContain('"catalogo.aplicado"');
  });

  it('logs tail follows the activity as serve logs it (pretty, or --json and --kind), until Ctrl+C: exit 0', async () => {
    const tail = runCli(['logs', 'tail'], { env });
    await until(tail, '"following"', () => tail.stderr.includes('following the activity of'));
    expect(tail.stderr).toBe(`following the activity of ${server.url}: Ctrl+C to stop\n`);
    const json = runCli(['logs', 'tail', '--json', '--kind', 'request', '--company', server.companyId], { env });
    await until(json, '"following"', () => json.stderr.includes('following'));
    await api(server.url, server.token, 'GET', '/v1/empresa');
    await fetch(`${server.url}/_emulator/faults`);
    await until(tail, 'three lines', () => tail.stdout.split('\n').length >= 4);
    await until(json, 'a line', () => json.stdout.includes('\n'));
    // The second tail's call is in the first's (only a stream's own call is left out of it).
    expect(tail.stdout).toMatch(
      /^\S+Z control {2}GET {4}\/_emulator\/activity\/stream → 200 \(streamActivity\)\n\S+Z request {2}GET {4}\/v1\/empresa → 200\n\S+Z control {2}GET {4}\/_emulator\/faults → 200 \(listFaults\)\n$/,
    );
    expect(JSON.parse(json.stdout)).toMatchObject({
      kind: 'request',
      method: 'GET',
      path: '/v1/empresa',
      status: 200,
      companyId: server.companyId,
    });
    for (const run of [tail, json]) run.child.kill('SIGINT');
    expect(await tail.exited).toEqual({ code: 0, signal: null });
    expect(await json.exited).toEqual({ code: 0, signal: null });
  });
});

describe('servers that cannot be driven', { timeout: 60_000 }, () => {
  it('nothing listening: exit 2 with one line naming the URL, for every command', async () => {
    const closed = await stub(() => undefined);
    await new Promise((resolve) => stubs.pop()!.close(resolve));
    const env = { CATALOG_EMULATOR_URL: closed };
    const runs = await Promise.all(
      [
        ['clock'],
        ['fault', 'list'],
        ['events', 'trigger', '--company', 'c', '--type', 'webhook.teste'],
        ['logs', 'tail'],
        ['report'],
      ].map((args) => bin(args, env)),
    );
    for (const run of runs) {
      expect(run).toEqual({
        code: 2,
        stdout: '',
        stderr: `catalog-emulator: cannot reach a catalog-emulator at ${closed} (connection refused: nothing listens there); start one with "catalog-emulator serve", or name it with --url or CATALOG_EMULATOR_URL\n`,
      });
    }
  });

  it('no answer within --request-timeout-ms: exit 2', async () => {
    const silent = await stub(() => undefined);
    expect(await cli(['clock', '--url', silent, '--request-timeout-ms', '300'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `catalog-emulator: cannot reach a catalog-emulator at ${silent} (no answer within the time-out); start one with "catalog-emulator serve", or name it with --url or CATALOG_EMULATOR_URL\n`,
    });
  });

  it('another kind of server, or an emulator serving no controls: exit 2, saying so', async () => {
    const other = await stub((_, response) => {
      response.writeHead(404, { 'content-type': 'text/html' });
      response.end('<h1>Not here</h1>');
    });
    expect(await cli(['fault', 'list', '--url', other])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        `catalog-emulator: ${other} answered 404 (text/html) to GET /_emulator/faults, ` +
        "which is not a catalog-emulator's answer (the error body is application/json; this one is text/html): " +
        'its body begins "<h1>Not here</h1>"; ' +
        'check --url or CATALOG_EMULATOR_URL\n',
    });
    const bare = await serve(['--no-controls']);
    expect(await cli(['clock', '--url', bare.url])).toEqual({
      code: 2,
      stdout: '',
      stderr: `catalog-emulator: ${bare.url} serves no controls (a server started with --no-controls, or not a catalog-emulator): GET /_emulator/clock is not there\n`,
    });
  });

  it('a token-protected server: refused without its token (exit 1, saying what to set), driven with it from the flag or the variable', async () => {
    const guarded = await serve(['--control-token', 'remote-cli-secret']);
    const env = { CATALOG_EMULATOR_URL: guarded.url };
    const without = await cli(['clock'], env);
    expect(without.code).toBe(1);
    expect(without.stderr).toBe(
      'catalog-emulator: These controls need the control token the emulator was started with: send "Authorization: Bearer <control token>" with every /_emulator request. Set CATALOG_EMULATOR_CONTROL_TOKEN, or pass --control-token, to the token the server was started with. (401 token_de_controle_ausente at header.authorization)\n',
    );
    expect((await cli(['clock', '--control-token', 'wrong'], env)).stderr).toMatch(
      /\(401 token_de_controle_invalido at header\.authorization\)\n$/,
    );
    expect(
      (await cli(['fault', 'add', '--status', '503', '--control-token', 'remote-cli-secret'], env)).stdout,
    ).toMatch(/^added fault flt_1 api any → status=503, 1 left\n$/);
    const tail = runCli(['logs', 'tail', '--kind', 'control'], {
      env: { ...env, CATALOG_EMULATOR_CONTROL_TOKEN: 'remote-cli-secret' },
    });
    await until(tail, '"following"', () => tail.stderr.includes('following'));
    expect(await cli(['fault', 'list'], { ...env, CATALOG_EMULATOR_CONTROL_TOKEN: 'remote-cli-secret' })).toMatchObject(
      {
        code: 0,
        stdout:
          'flt_1 api any → status=503, 1 left, 0 hits\nflt_1 has not fired: "catalog-emulator fault near-misses ID" shows what came closest, and what each missed\n',
      },
    );
    await until(tail, 'the list call', () => tail.stdout.includes('listFaults'));
    // The server stops: the tail says so and exits 1.
    guarded.run.child.kill('SIGTERM');
    expect(await tail.exited).toEqual({ code: 1, signal: null });
    expect(tail.stderr).toBe(
      `following the activity of ${guarded.url}: Ctrl+C to stop\ncatalog-emulator: the server at ${guarded.url} closed (it was stopped): no more activity to follow\n`,
    );
  });
});

describe('report', { timeout: 60_000 }, () => {
  it('an emulator older than the report control: exit 1, saying the server has none and its version', async () => {
    const older = await stub((request, response) => {
      if (request.url === '/_emulator')
        return json(response, 200, {
          name: 'catalog-emulator',
          version: '0.1.0',
          now: '2026-01-01T00:00:00.000Z',
          clockMode: 'manual',
          seed: 1,
        });
      json(response, 404, {
        erro: {
          codigo: 'rota_nao_encontrada',
          mensagem: `No control at GET ${request.url}.`,
          request_id: 'sem-request-id',
        },
      });
    });
    expect(await cli(['report', '--url', older])).toEqual({
      code: 1,
      stdout: '',
      stderr: `catalog-emulator: this server has no report (catalog-emulator 0.1.0 at ${older} is older than GET /_emulator/report): upgrade the server\n`,
    });
  });

  it('a server with it: the report as Markdown, as formatReport writes it (--json: the answer, one line)', async () => {
    const served = await serve();
    const markdown = await cli(['report', '--url', served.url]);
    expect(markdown.code).toBe(0);
    expect(markdown.stderr).toBe('');
    expect(markdown.stdout.startsWith('# ')).toBe(true);
    expect(markdown.stdout).toContain('## What your tests exercised: 0 of 20 behaviours');
    const json = await cli(['report', '--url', served.url, '--json']);
    expect(json.code).toBe(0);
    expect(json.stdout.split('\n')).toHaveLength(2);
    expect(JSON.parse(json.stdout)).toMatchObject({
      findings: [],
      findingsDropped: 0,
      coverage: { score: { exercised: 0, listed: 20 } },
    });
    // A report is JSON: a text of another kind is not the emulator's (bin/remote-hostile.test.ts tries the others).
    const withText = await stub((_, response) => {
      response.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8' });
      response.end('# Report\n\n2 companies\n');
    });
    expect(await cli(['report', '--url', withText])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        `catalog-emulator: ${withText} answered 200 (text/markdown) to GET /_emulator/report, ` +
        "which is not a catalog-emulator's answer (getReport's 200 is application/json; this one is text/markdown): " +
        'its body begins ' +
        '"# Report\\x0a\\x0a2 companies\\x0a"; check --url or CATALOG_EMULATOR_URL\n',
    });
  });
});

describe('usage', { timeout: 60_000 }, () => {
  it('bad usage exits 2 with the problem and where the help is, reaching no server', async () => {
    const cases: [string[], string][] = [
      [
        ['clock', 'advance'],
        'clock advance takes a duration (90s, 15m, 24h, 1d, 1h30m, or milliseconds) or --to ISO, one of them (clock [advance DURATION | advance --to ISO | run-until-idle [--limit N]] [--company ID])',
      ],
      [['clock', 'rewind'], 'clock takes advance or run-until-idle, or nothing to show the clock (got "rewind")'],
      [['clock', 'run-until-idle', '--limit', 'many'], '--limit must be a whole number (got "many")'],
      [['clock', '--frob'], 'unknown option --frob'],
      [['clock', 'advance', '1d', '--compnay', 'x'], 'unknown option --compnay (did you mean --company?)'],
      [['fault', 'add', '--status', '503', '--reset'], 'fault add takes one effect (got --status and --reset)'],
      [
        ['fault', 'add', '--method', 'GET'],
        'fault add needs an effect: one of --status, --lose-response, --concurrent-edit, --delay-ms, --malformed-json, --reset, --truncate, --trickle-ms, --redirect, --timeout, --refuse, --latency-ms, --duplicate, --tamper, --fail (or the whole fault as --json)',
      ],
      [
        ['fault', 'add', '--json', '{"target":"api"}', '--status', '503'],
        '--json is the whole fault: give --status inside it, not beside it',
      ],
      [['fault', 'add', '--reset', '--times', 'twice'], '--times must be a whole number or forever (got "twice")'],
      [
        ['fault', 'remove'],
        "fault remove takes a fault's id or --all, one of them (fault add [options] | fault list [--company ID] | fault near-misses ID [--company ID] | fault remove ID | fault remove --all [--company ID])",
      ],
      [
        ['fault'],
        'fault needs add, list, near-misses or remove (fault add [options] | fault list [--company ID] | fault near-misses ID [--company ID] | fault remove ID | fault remove --all [--company ID])',
      ],
      [
        ['fault', 'near-misses'],
        "fault near-misses takes a fault's id (fault add [options] | fault list [--company ID] | fault near-misses ID [--company ID] | fault remove ID | fault remove --all [--company ID])",
      ],
      [
        ['fault', 'near-misses', 'flt_1', 'flt_2'],
        'unexpected argument "flt_2" (fault add [options] | fault list [--company ID] | fault near-misses ID [--company ID] | fault remove ID | fault remove --all [--company ID])',
      ],
      [
        ['events', 'trigger', '--type', 'webhook.teste'],
        'events trigger needs --company ID: the company whose webhook destination gets the event (events trigger --company ID --type TYPE [--data JSON])',
      ],
      [
        ['events', 'trigger', '--company', 'c', '--type', 'webhook.teste', '--data', '[1]'],
        "--data must be a JSON object, the event's fields (got [1])",
      ],
      [['logs'], 'logs needs tail (logs tail [--json] [--company ID] [--kind KINDS])'],
      [
        ['logs', 'tail', '--kind', 'requests,jobs,nope'],
        '--kind takes request, control, delivery, job, finding (comma-separated or repeated; got "nope")',
      ],
      [
        ['report', '--url', 'ftp://x'],
        '--url must be the server\'s http or https URL, e.g. http://127.0.0.1:4747 (got "ftp://x")',
      ],
      [['report', 'extra'], 'unexpected argument "extra" (report [--json])'],
      [
        ['clock', '--request-timeout-ms', '0'],
        '--request-timeout-ms must be a whole number of milliseconds from 1 to 3600000 (got "0")',
      ],
    ];
    const runs = await Promise.all(cases.map(([args]) => cli(args, { CATALOG_EMULATOR_URL: 'http://127.0.0.1:9' })));
    runs.forEach((run, i) => {
      const [args, message] = cases[i]!;
      expect(run, args.join(' ')).toEqual({
        code: 2,
        stdout: '',
        stderr: `catalog-emulator: ${message}\nRun "catalog-emulator help ${args[0]}" for usage.\n`,
      });
    });
    expect(await cli(['clock'], { CATALOG_EMULATOR_URL: 'not a url' })).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'catalog-emulator: CATALOG_EMULATOR_URL must be the server\'s http or https URL, e.g. http://127.0.0.1:4747 (got "not a url")\nRun "catalog-emulator help clock" for usage.\n',
    });
  });

  it('help COMMAND and COMMAND --help print its part of the usage, the shared options included', async () => {
    const [help, flag] = await Promise.all([bin(['help', 'fault']), bin(['fault', '--help'])]);
    expect(help.code).toBe(0);
    expect(flag).toEqual(help);
    expect(help.stdout).toMatch(/^Usage:\n {2}catalog-emulator fault add\|list\|near-misses\|remove \[options\]\n/);
    expect(help.stdout).toContain('\nOptions of fault:\n');
    expect(help.stdout).toContain(
      '\nOptions of clock, fault, events, logs and report (the commands for a running server):\n',
    );
    expect(help.stdout).not.toContain('Options of clock:');
  });
});

describe('the status line of a terminal', () => {
  it('replaces the last line, cut to the width with an ellipsis, and clears it on null', () => {
    const written: string[] = [];
    const show = statusLine({ columns: 30, write: (text: string) => written.push(text) > 0 } as never);
    show('short');
    show('a line longer than the twenty-nine columns there are');
    show(null);
    expect(written).toEqual(['\r\x1b[2Kshort', '\r\x1b[2Ka line longer than the twent…', '\r\x1b[2K']);
  });
});
