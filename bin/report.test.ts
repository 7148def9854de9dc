/**
 * The report over real HTTP, through the built CLI: a client making the lost-answer and Retry-After mistakes (the
 * lost answer both ways: a loseResponse fault, and a held request whose connection the client closed) gets exactly
 * those findings from GET /_emulator/report, and the same client doing it right gets none; `serve --report FILE`
 * writes the report when the server stops, as JSON or Markdown, and never destroys a file: what it refuses at start
 * (touching nothing), and what it leaves at stop when the report cannot be written.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, formatReport, type Report } from '../src/index.js';
import { assertBuilt, killAll, ROOT, runCli, type Run } from './cli-run.js';

const TIMEOUT = { timeout: 30_000 };
const folders: string[] = [];
const servers: Server[] = [];

beforeAll(assertBuilt);
afterEach(async () => {
  await killAll();
  for (const server of servers.splice(0)) server.close();
  for (const folder of folders.splice(0)) {
    // A folder a test made read-only keeps nothing from being removed.
    chmodSync(folder, 0o700);
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.isDirectory()) chmodSync(join(folder, entry.name), 0o700);
    }
    rmSync(folder, { recursive: true, force: true });
  }
});

/** A new folder for a test, by its real path (the path a refusal names: its symbolic links resolved). */
function folder(): string {
  const made = realpathSync(mkdtempSync(join(tmpdir(), 'catalog-emulator-report-')));
  folders.push(made);
  return made;
}

/** Resolves once stdout holds a whole line (the start line under --json): its JSON. */
async function startLine(
  run: Run,
): Promise<{ url: string; companies: { companyId: string; token: string; headOffice: { id: string } }[] }> {
  for (let spins = 0; !run.stdout.includes('\n'); spins++) {
    if (run.child.exitCode !== null) throw new Error(`exited ${run.child.exitCode}: ${run.stderr}`);
    if (spins > 500) throw new Error(`no start line within 10 s\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return JSON.parse(run.stdout.slice(0, run.stdout.indexOf('\n')));
}

/** A client of one server and company: API calls with the company's token, control calls without. */
function client(url: string, token: string) {
  let n = 0;
  const key = () => `report-key-${String(++n).padStart(8, '0')}`;
  const api = async (
    method: string,
    path: string,
    init: { key?: string; body?: unknown; signal?: AbortSignal } = {},
  ) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    if (method !== 'GET') headers['idempotency-key'] = init.key ?? key();
    const response = await fetch(`${url}${path}`, {
      method,
      headers,
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      ...(init.signal ? { signal: init.signal } : {}),
    });
    await response.arrayBuffer();
    return { status: response.status, id: response.headers.get('x-request-id')! };
  };
  const control = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}/_emulator${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { api, control, key };
}

describe('the report over HTTP, through the built CLI', TIMEOUT, () => {
  it('finds a write retried under a new key after its answer was lost (a loseResponse, a connection the client closed) and a request repeated before its Retry-After; the same done right finds nothing; --report FILE.json writes it on SIGTERM', async () => {
    const dir = folder();
    const file = join(dir, 'report.json');
    const run = runCli([
      '--port',
      '0',
      '--clock',
      'manual',
      '--seed',
      '3',
      '--json',
      '--log',
      'silent',
      '--report',
      file,
    ]);
    const ready = await startLine(run);
    expect(existsSync(file)).toBe(false);
    const [company] = ready.companies;
    const { api, control, key } = client(ready.url, company!.token);
    const catalog = { estabelecimento_id: company!.headOffice.id, nome: 'Loja' };

    // Right: a lost answer retried with its key (replayed), a 429 waited out on the clock.
    expect(
      (
        await control('POST', '/faults', {
          target: 'api',
          match: { method: 'POST', path: '/v1/catalogos' },
          effect: { loseResponse: true },
        })
      ).status,
    ).toBe(201);
    const kept = key();
    expect((await api('POST', '/v1/catalogos', { key: kept, body: catalog })).status).toBe(503);
    const created = await api('POST', '/v1/catalogos', { key: kept, body: catalog });
    expect(created.status).toBe(201);
    expect(
      (
        await control('POST', '/faults', {
          target: 'api',
          match: { path: '/v1/empresa' },
          effect: { status: 429, retryAfter: 60 },
        })
      ).status,
    ).toBe(201);
    expect((await api('GET', '/v1/empresa')).status).toBe(429);
    expect((await control('POST', '/clock/advance', { by: '60s' })).status).toBe(200);
    expect((await api('GET', '/v1/empresa')).status).toBe(200);
    expect((await control('GET', `/report?companyId=${company!.companyId}`)).body.findings).toEqual([]);

    // Wrong: a lost answer retried under a new key.
    const catalogs = (await fetch(`${ready.url}/v1/catalogos`, {
      headers: { authorization: `Bearer ${company!.token}` },
    }).then((r) => r.json())) as { itens: { id: string }[] };
    const products = `/v1/catalogos/${catalogs.itens[0]!.id}/produtos`;
    const product = { origem: 'erp', ncm: '21069090' };
    expect(
      (
        await control('POST', '/faults', {
          target: 'api',
          match: { method: 'POST', path: '/v1/catalogos/*/produtos' },
          effect: { loseResponse: true },
        })
      ).status,
    ).toBe(201);
    const lost = await api('POST', products, { body: product });
    expect(lost.status).toBe(503);
    const again = await api('POST', products, { body: product });
    expect(again.status).toBe(201);

    // Wrong: a held request whose client closed the connection before the answer, sent again under a new key.
    const slow = { ...product, sku: 'held' };
    expect(
      (
        await control('POST', '/faults', {
          target: 'api',
          match: { method: 'POST', path: '/v1/catalogos/*/produtos' },
          effect: { delayMs: 60_000 },
        })
      ).status,
    ).toBe(201);
    const gaveUp = new AbortController();
    const held = api('POST', products, { body: slow, signal: gaveUp.signal }).catch((error: unknown) => error);
    for (let spins = 0; ((await control('GET', '/clock')).body.pending as number) === 0; spins++) {
      if (spins > 500) throw new Error('the request was never held');
    }
    gaveUp.abort();
    expect(await held).toMatchObject({ name: 'AbortError' });
    expect((await control('POST', '/clock/advance', { by: '60s' })).status).toBe(200);
    const journal = (await control('GET', `/requests?companyId=${company!.companyId}`)).body.items as {
      path: string;
      status: number;
      requestId: string;
    }[];
    const heldEntry = journal.at(-1)!;
    expect(heldEntry).toMatchObject({ path: products, status: 201 });
    const afterClose = await api('POST', products, { body: slow });
    expect(afterClose.status).toBe(201);

    // Wrong: a request repeated at once after a 429 asking for 60 s.
    expect(
      (
        await control('POST', '/faults', {
          target: 'api',
          match: { path: '/v1/empresa' },
          effect: { status: 429, retryAfter: 60 },
        })
      ).status,
    ).toBe(201);
    const limited = await api('GET', '/v1/empresa');
    expect(limited.status).toBe(429);
    const early = await api('GET', '/v1/empresa');
    expect(early.status).toBe(200);

    const report = (await control('GET', `/report?companyId=${company!.companyId}`)).body as {
      findings: { rule: string; requestIds: string[]; statements: string[] }[];
    };
    expect(report.findings.map((f) => [f.rule, f.requestIds])).toEqual([
      ['new-key-after-lost-answer', [lost.id, again.id]],
      ['new-key-after-lost-answer', [heldEntry.requestId, afterClose.id]],
      ['retry-before-retry-after', [limited.id, early.id]],
    ]);
    expect(report.findings.map((f) => f.statements)).toEqual([
      ['REQ-02', 'REQ-03'],
      ['REQ-02', 'REQ-03'],
      ['ERR-10', 'RFC 9110 Retry-After'],
    ]);
    const whole = (await control('GET', '/report')).body;

    run.child.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const closing = run.stdout
      .split('\n')
      .slice(1, -1)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(closing).toEqual([
      { kind: 'closing', signal: 'SIGTERM' },
      {
        kind: 'report',
        path: file,
        findings: 3,
        exercised: (whole.coverage as { score: { exercised: number } }).score.exercised,
        listed: (whole.coverage as { score: { listed: number } }).score.listed,
      },
    ]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(whole);
    expect(run.stderr).toBe('');
  });

  it('--report FILE.md writes the Markdown report, and says where on a pretty log', async () => {
    const file = join(folder(), 'report.md');
    const run = runCli(['--port', '0', '--clock', 'manual', '--json', '--log', 'silent', '--report', file]);
    const ready = await startLine(run);
    const { api } = client(ready.url, ready.companies[0]!.token);
    const refused = await fetch(`${ready.url}/v1/catalogos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ready.companies[0]!.token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(400);
    expect((await api('GET', '/v1/empresa')).status).toBe(200);
    run.child.kill('SIGINT');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const text = readFileSync(file, 'utf8');
    expect(text.split('\n').slice(0, 4)).toEqual([
      '# catalog-emulator report',
      '',
      '## Findings on your client (1)',
      '',
    ]);
    expect(text).toContain(
      `- **missing-idempotency-key** (REQ-02) at 2026-01-01T00:00:00.000Z, company ${ready.companies[0]!.companyId}: POST /v1/catalogos (request ${refused.headers.get('x-request-id')}) was sent without an idempotency-key`,
    );
    expect(text).toContain('| GET /v1/empresa | 1 | 200×1 |  |');

    const pretty = runCli(['--port', '0', '--clock', 'manual', '--report', file]);
    for (let spins = 0; !pretty.stdout.includes('Try: curl'); spins++) {
      if (spins > 500) throw new Error(`no banner\n${pretty.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    pretty.child.kill('SIGTERM');
    expect(await pretty.exited).toEqual({ code: 0, signal: null });
    expect(
      pretty.stdout.endsWith(`\nSIGTERM: closing\nreport: ${file} (0 findings; 0 of 20 behaviours exercised)\n`),
    ).toBe(true);
  });

  it('refuses a --report FILE that is neither .json nor .md, or whose folder does not exist, before serving (exit 2)', async () => {
    const dir = folder();
    const nowhere = join(dir, 'nope', 'report.json');
    for (const [file, message] of [
      [
        join(dir, 'report.txt'),
        `--report FILE writes JSON to a .json file or Markdown to a .md file (got "${join(dir, 'report.txt')}")`,
      ],
      [nowhere, `--report ${nowhere} cannot be written: the folder of ${nowhere} does not exist`],
    ] as const) {
      const run = runCli(['--port', '0', '--report', file], { timeoutMs: 10_000 });
      expect(await run.exited).toEqual({ code: 2, signal: null });
      expect(run.stderr).toBe(`catalog-emulator: ${message}\nRun "catalog-emulator --help" for usage.\n`);
    }
    const demo = runCli(['demo', 'idempotent-retry', '--report', join(dir, 'r.json')], { timeoutMs: 10_000 });
    expect(await demo.exited).toEqual({ code: 2, signal: null });
    expect(demo.stderr).toContain('--report is not an option of the demo command');
  });
});

/** Everything under `dir`, each entry as it is: a file's bytes, a link's target, a folder's or a FIFO's kind. */
function entries(dir: string): Record<string, Buffer | string> {
  const all: Record<string, Buffer | string> = {};
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) all[name] = `link to ${readlinkSync(path)}`;
    else if (stats.isFile()) all[name] = readFileSync(path);
    else if (stats.isDirectory()) {
      all[`${name}/`] = 'a folder';
      for (const [inner, entry] of Object.entries(entries(path))) all[`${name}/${inner}`] = entry;
    } else all[name] = stats.isFIFO() ? 'a FIFO' : 'another kind';
  }
  return all;
}

/** How a usage error ends the CLI: its one line, then the pointer to --help. */
const usage = (message: string) => `catalog-emulator: ${message}\nRun "catalog-emulator --help" for usage.\n`;

interface Exit {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `catalog-emulator ARGS` run to its exit: its code and signal, and all it printed. */
async function exitOf(args: readonly string[], options: Parameters<typeof runCli>[1] = {}): Promise<Exit> {
  const run = runCli(args, { timeoutMs: 20_000, ...options });
  const exited = await run.exited;
  await run.closed;
  return { ...exited, stdout: run.stdout, stderr: run.stderr };
}

/** The exit of a refusal at start: exit 2, nothing on stdout, `message` and the pointer to --help on stderr. */
const refusal = (message: string): Exit => ({ code: 2, signal: null, stdout: '', stderr: usage(message) });

/** The report an emulator makes, as `--report` writes it to a .json file and to a .md one (a report of ours). */
function previousReports(): { json: string; markdown: string } {
  const report = createEmulator({ clock: 'manual' }).report();
  return { json: `${JSON.stringify(report, null, 2)}\n`, markdown: formatReport(report) };
}

/** `serve` with the options every test here gives it (a manual clock, the JSON start line, no log), and `args`. */
const serve = (args: readonly string[], options: Parameters<typeof runCli>[1] = {}): Run =>
  runCli(['--port', '0', '--clock', 'manual', '--json', '--log', 'silent', ...args], options);

/** Stops a server with a signal: its code, its signal and what it printed on stderr once all of it is read. */
async function stop(run: Run, signal: 'SIGINT' | 'SIGTERM'): Promise<Omit<Exit, 'stdout'>> {
  run.child.kill(signal);
  const exited = await run.exited;
  await run.closed;
  return { ...exited, stderr: run.stderr };
}

/**
 * How to run the CLI so that file permissions bind it: as it is, or, when the tests run as root (whom they never
 * stop), without the capabilities that override them (setpriv, of util-linux).
 */
const bound: Parameters<typeof runCli>[1] =
  process.getuid?.() === 0 ? { via: ['setpriv', '--bounding-set', '-dac_override,-dac_read_search'] } : {};

describe('--report FILE never destroys anything', { timeout: 60_000 }, () => {
  it('refuses at start, touching nothing, a file not a report of ours: foreign JSON or Markdown, a report of the other format, empty, a folder, a FIFO, a link to a foreign file', async () => {
    const dir = folder();
    const { json, markdown } = previousReports();
    copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
    // A report's fields and one more: no report of ours has it.
    writeFileSync(join(dir, 'near.json'), `${JSON.stringify({ ...JSON.parse(json), name: 'x' }, null, 2)}\n`);
    writeFileSync(join(dir, 'notes.md'), '# catalog-emulator notes\n\nMine.\n');
    writeFileSync(join(dir, 'swapped.md'), json);
    writeFileSync(join(dir, 'swapped.json'), markdown);
    writeFileSync(join(dir, 'empty.json'), '');
    mkdirSync(join(dir, 'folder.json'));
    writeFileSync(join(dir, 'folder.json', 'inside'), 'kept');
    execFileSync('mkfifo', [join(dir, 'fifo.md')]);
    symlinkSync('package.json', join(dir, 'link.json'));
    const before = entries(dir);
    const left = 'it was left as it is';
    const foreign = (format: string) =>
      `holds a file that is not ${format} report of catalog-emulator (the report replaces only its own); ${left}`;
    const irregular = (kind: string) => `is ${kind}, not a regular file: a report file is a regular file; ${left}`;
    const cases = [
      ['package.json', foreign('a JSON')],
      ['near.json', foreign('a JSON')],
      ['notes.md', foreign('a Markdown')],
      ['swapped.md', foreign('a Markdown')],
      ['swapped.json', foreign('a JSON')],
      ['empty.json', foreign('a JSON')],
      ['folder.json', irregular('a folder')],
      ['fifo.md', irregular('a FIFO (named pipe)')],
      ['link.json', foreign('a JSON')],
    ] as const;
    const exits = await Promise.all(cases.map(([name]) => exitOf(['--port', '0', '--report', join(dir, name)])));
    expect(exits).toEqual(cases.map(([name, why]) => refusal(`--report ${join(dir, name)} ${why}`)));
    expect(entries(dir)).toEqual(before);
    // What a check of the name, or of JSON alone, would have taken for a report: JSON objects in .json files.
    for (const name of ['package.json', 'near.json']) {
      expect(JSON.parse(readFileSync(join(dir, name), 'utf8'))).toBeTypeOf('object');
    }
  });

  it('refuses the --state file by any path that names it (./, ../, a symbolic or hard link, a link to its log), and leaves it as it was', async () => {
    const dir = folder();
    const state = join(dir, 's.json');
    const first = serve(['--state', state]);
    await startLine(first);
    expect(await stop(first, 'SIGTERM')).toEqual({ code: 0, signal: null, stderr: '' });
    mkdirSync(join(dir, 'sub'));
    symlinkSync('s.json', join(dir, 'link.json'));
    linkSync(state, join(dir, 'hard.json'));
    symlinkSync('s.json.log', join(dir, 'log.json'));
    // A state not made yet: the report would take the place of the change log it is about to have.
    symlinkSync('t.json.log', join(dir, 'later.md'));
    const before = entries(dir);
    const made = ['hard.json', 'later.md', 'link.json', 'log.json', 's.json', 's.json.log', 'sub/'];
    expect(Object.keys(before)).toEqual(made);
    const same = (report: string, what: string) =>
      refusal(`--report ${report} is the same file as ${what}: the report would replace it; it was left as it is`);
    const [dotted, up, link, hard, log, later, unmade] = [
      `${dir}/./s.json`,
      `${dir}/sub/../s.json`,
      join(dir, 'link.json'),
      join(dir, 'hard.json'),
      join(dir, 'log.json'),
      join(dir, 'later.md'),
      join(dir, 't.json'),
    ];
    const cases = [
      [['--state', state, '--report', dotted], same(dotted, `--state ${state}`)],
      [['--state', state, '--report', up], same(up, `--state ${state}`)],
      [['--state', link, '--report', state], same(state, `--state ${link}`)],
      [['--state', state, '--report', link], same(link, `--state ${state}`)],
      [['--state', state, '--report', hard], same(hard, `--state ${state}`)],
      [['--state', state, '--report', log], same(log, `the change log of --state ${state}`)],
      [['--state', unmade, '--report', later], same(later, `the change log of --state ${unmade}`)],
    ] as const;
    const exits = await Promise.all(cases.map(([args]) => exitOf(['--port', '0', ...args])));
    expect(exits).toEqual(cases.map(([, exit]) => exit));
    const env = { CATALOG_EMULATOR_STATE: state };
    const fromEnvironment = await exitOf(['--port', '0', '--report', state], { env });
    expect(fromEnvironment).toEqual(same(state, `CATALOG_EMULATOR_STATE ${state}`));
    expect(entries(dir)).toEqual(before);
    // A comparison of the paths as given would have let every one of them through.
    for (const [args] of cases) expect(args[1]).not.toBe(args[3]);
  });

  it('refuses the --fixtures file (there or not) and the --ready-file, before touching any file, and leaves them as they were', async () => {
    const dir = folder();
    const fixtures = join(dir, 'fx.json');
    copyFileSync(join(ROOT, 'examples', 'fixtures.json'), fixtures);
    const before = entries(dir);
    const same = (report: string, what: string) =>
      refusal(`--report ${report} is the same file as ${what}: the report would replace it; it was left as it is`);
    const missing = join(dir, 'none.json');
    const ready = join(dir, 'ready.json');
    const cases = [
      [['--fixtures', fixtures, '--report', fixtures], same(fixtures, `--fixtures ${fixtures}`)],
      [['--fixtures', missing, '--report', missing], same(missing, `--fixtures ${missing}`)],
      [['--ready-file', ready, '--report', ready], same(ready, `--ready-file ${ready}`)],
    ] as const;
    const exits = await Promise.all(cases.map(([args]) => exitOf(['--port', '0', ...args])));
    expect(exits).toEqual(cases.map(([, exit]) => exit));
    const env = { CATALOG_EMULATOR_FIXTURES: fixtures };
    const fromEnvironment = await exitOf(['--port', '0', '--report', fixtures], { env });
    expect(fromEnvironment).toEqual(same(fixtures, `CATALOG_EMULATOR_FIXTURES ${fixtures}`));
    expect(entries(dir)).toEqual(before);

    // Refused before any other file is touched: a ready file an earlier run left is not removed, no state is made.
    writeFileSync(ready, '{"kind":"ready"}\n');
    const foreign = join(dir, 'notes.md');
    writeFileSync(foreign, '# Notes\n');
    const untouched = entries(dir);
    const first = await exitOf([
      '--port',
      '0',
      '--ready-file',
      ready,
      '--state',
      join(dir, 'new.json'),
      '--report',
      foreign,
    ]);
    const why = 'holds a file that is not a Markdown report of catalog-emulator (the report replaces only its own)';
    expect(first).toEqual(refusal(`--report ${foreign} ${why}; it was left as it is`));
    expect(entries(dir)).toEqual(untouched);
  });

  it("refuses a folder that is missing, a file, or not writable to the server's user, touching nothing", async () => {
    const dir = folder();
    writeFileSync(join(dir, 'file'), 'kept');
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    writeFileSync(join(locked, 'report.json'), previousReports().json);
    // The server may read the folder, and not write in it.
    chmodSync(locked, 0o555);
    const before = entries(dir);
    const cases = [
      [join(dir, 'nope', 'r.json'), `cannot be written: the folder of ${join(dir, 'nope', 'r.json')} does not exist`],
      [join(dir, 'file', 'r.json'), `cannot be written: ${join(dir, 'file')} is not a folder`],
      [join(locked, 'report.json'), `cannot be written: the folder ${locked} is not writable (EACCES)`],
      [join(locked, 'new.md'), `cannot be written: the folder ${locked} is not writable (EACCES)`],
    ] as const;
    const exits = await Promise.all(cases.map(([path]) => exitOf(['--port', '0', '--report', path], bound)));
    expect(exits).toEqual(cases.map(([path, why]) => refusal(`--report ${path} ${why}`)));
    expect(entries(dir)).toEqual(before);
  });

  it('leaves a previous report as it was when the start fails for another reason: a busy port, bad fixtures or state', async () => {
    const dir = folder();
    const report = join(dir, 'report.json');
    writeFileSync(report, previousReports().json);
    // A state saved by an earlier run, and one not made yet: a busy port leaves the first as it was, and makes no
    // second (the state file is written only once the port is bound).
    const saved = join(dir, 'saved.json');
    const first = serve(['--state', saved]);
    await startLine(first);
    expect(await stop(first, 'SIGTERM')).toEqual({ code: 0, signal: null, stderr: '' });
    const [badFixtures, badState] = [join(dir, 'bad-fixtures.json'), join(dir, 'bad-state.json')];
    writeFileSync(badFixtures, '{ not json');
    writeFileSync(badState, '[]');
    const blocker = createServer();
    servers.push(blocker);
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const before = entries(dir);
    const [busy, busySaved, busyNew, fixtures, state] = await Promise.all([
      exitOf(['--port', String(port), '--report', report]),
      exitOf(['--port', String(port), '--state', saved, '--report', report]),
      exitOf(['--port', String(port), '--state', join(dir, 'new.json'), '--report', report]),
      exitOf(['--port', '0', '--fixtures', badFixtures, '--report', report]),
      exitOf(['--port', '0', '--state', badState, '--report', report]),
    ]);
    const free = 'stop what uses it, choose another with --port N, or use --port 0 for a free one';
    const taken = `port ${port} is busy: ${free}`;
    expect(busy).toEqual({ ...refusal(taken), code: 3 });
    expect(busySaved).toEqual({ ...refusal(taken), code: 3 });
    expect(busyNew).toEqual({ ...refusal(taken), code: 3 });
    const help = '\nRun "catalog-emulator --help" for usage\\.\n$';
    expect(fixtures).toMatchObject({ code: 2, signal: null, stdout: '' });
    const notJson = `^catalog-emulator: --fixtures ${badFixtures}: is not JSON \\(.*\\)${help}`;
    expect(fixtures.stderr).toMatch(new RegExp(notJson));
    expect(state).toMatchObject({ code: 2, signal: null, stdout: '' });
    expect(state.stderr).toMatch(new RegExp(`^catalog-emulator: --state ${badState} .*; it was left as it is${help}`));
    expect(entries(dir)).toEqual(before);
  });

  it('replaces a previous report of its own only at stop, by a new file renamed over it (JSON; Markdown through a link, which stays)', async () => {
    const dir = folder();
    const { json, markdown } = previousReports();
    const [file, real, link] = [join(dir, 'report.json'), join(dir, 'real.md'), join(dir, 'link.md')];
    writeFileSync(file, json);
    writeFileSync(real, markdown);
    symlinkSync('real.md', link);
    const before = entries(dir);
    const inodes = [statSync(file).ino, statSync(real).ino];

    const run = serve(['--report', file]);
    const ready = await startLine(run);
    const { api, control } = client(ready.url, ready.companies[0]!.token);
    expect((await api('GET', '/v1/empresa')).status).toBe(200);
    const whole = (await control('GET', '/report')).body;
    expect(entries(dir)).toEqual(before);
    expect(await stop(run, 'SIGINT')).toEqual({ code: 0, signal: null, stderr: '' });
    expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify(whole, null, 2)}\n`);
    expect(statSync(file).ino).not.toBe(inodes[0]);

    const second = serve(['--report', link]);
    const started = await startLine(second);
    const other = client(started.url, started.companies[0]!.token);
    expect((await other.api('GET', '/v1/empresa')).status).toBe(200);
    const text = formatReport((await other.control('GET', '/report')).body as unknown as Report);
    expect(text).toContain('| GET /v1/empresa | 1 | 200×1 |  |');
    expect(entries(dir)['real.md']).toEqual(before['real.md']);
    expect(await stop(second, 'SIGTERM')).toEqual({ code: 0, signal: null, stderr: '' });
    expect(readFileSync(real, 'utf8')).toBe(text);
    expect(statSync(real).ino).not.toBe(inodes[1]);
    // The link is still the link, and no temporary file is left.
    expect(Object.keys(entries(dir))).toEqual(Object.keys(before));
    expect(entries(dir)['link.md']).toBe('link to real.md');
  });

  it('at stop, leaves as it was a file put at FILE during the run, or a report when the folder turned read-only or the write is cut (exit 1)', async () => {
    const dir = folder();
    const file = join(dir, 'report.json');
    const run = serve(['--report', file]);
    await startLine(run);
    writeFileSync(file, '{"mine": true}\n');
    const why =
      `--report ${file} holds a file that is not a JSON report of catalog-emulator ` +
      '(the report replaces only its own), put there since the start; it was left as it is';
    const stderr = `catalog-emulator: could not write the report to ${file}: ${why}\n`;
    expect(await stop(run, 'SIGTERM')).toEqual({ code: 1, signal: null, stderr });
    expect(entries(dir)).toEqual({ 'report.json': Buffer.from('{"mine": true}\n') });

    // The folder made read-only while the server ran: the report cannot be written, and the previous one stays.
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    const previous = join(locked, 'report.md');
    writeFileSync(previous, previousReports().markdown);
    const before = entries(locked);
    const limited = serve(['--report', previous], bound);
    await startLine(limited);
    chmodSync(locked, 0o555);
    const denied = `catalog-emulator: could not write the report to ${previous}: EACCES\n`;
    expect(await stop(limited, 'SIGTERM')).toEqual({ code: 1, signal: null, stderr: denied });
    expect(entries(locked)).toEqual(before);

    // A write that fails half-way (a file size limit of 4 blocks, 2 or 4 KiB, below the report's size): the
    // temporary file is removed, and the previous report stays whole.
    chmodSync(locked, 0o755);
    const json = join(locked, 'report.json');
    writeFileSync(json, previousReports().json);
    const whole = entries(locked);
    const cut = serve(['--report', json], { via: ['sh', '-c', 'ulimit -f 4 && exec "$0" "$@"'] });
    const ready = await startLine(cut);
    // The company's request tallied: a report longer than the previous one, whatever the limit.
    expect((await client(ready.url, ready.companies[0]!.token).api('GET', '/v1/empresa')).status).toBe(200);
    const cutShort = `catalog-emulator: could not write the report to ${json}: EFBIG\n`;
    expect(await stop(cut, 'SIGTERM')).toEqual({ code: 1, signal: null, stderr: cutShort });
    expect(entries(locked)).toEqual(whole);
  });
});
