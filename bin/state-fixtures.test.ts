/**
 * `serve --fixtures FILE` and `serve --state FILE` as a user runs them: the built CLI (dist/bin/catalog-emulator.js;
 * `npm test` builds before vitest), real processes, real HTTP.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../dist/bin/catalog-emulator.js', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../examples/fixtures.json', import.meta.url));
const TIMEOUT_MS = 30_000;

const dir = mkdtempSync(join(tmpdir(), 'catalog-emulator-cli-state-'));
const running = new Set<ChildProcess>();
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Server {
  readonly child: ChildProcess;
  readonly url: string;
  readonly stdout: () => string;
  readonly exited: Promise<{ code: number | null; stderr: string }>;
}

function run(args: string[]): {
  child: ChildProcess;
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
  stdout: () => string;
} {
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve({ code, stdout, stderr });
    }),
  );
  return { child, exited, stdout: () => stdout };
}

/** Starts `serve` with `args` and waits for its banner. */
async function serve(args: string[]): Promise<Server> {
  const started = run(['serve', '--port', '0', '--log', 'silent', ...args]);
  const until = Date.now() + 15_000;
  while (!/\nTry: /.test(started.stdout())) {
    if (Date.now() > until || started.child.exitCode !== null)
      throw new Error(
        `no banner\n${started.stdout()}\n${(await Promise.race([started.exited, Promise.resolve({ stderr: '' })])).stderr}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const url = /listening on (\S+)/.exec(started.stdout())![1]!;
  return { child: started.child, url, stdout: started.stdout, exited: started.exited };
}

/** The token the banner printed for the company of CNPJ root `root`. */
const tokenOf = (banner: string, root: string) =>
  new RegExp(`company: +${root} \\(.*\\n +token: +(\\S+)`).exec(banner)![1]!;

async function getJson(url: string, token: string): Promise<{ status: number; body: any }> {
  const answer = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: answer.status, body: await answer.json() };
}

async function post(url: string, headers: Record<string, string>, body: unknown = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('serve --fixtures FILE', { timeout: TIMEOUT_MS }, () => {
  it('creates the fixtures at start, prints their ids and tokens, and creates them again after POST /_emulator/reset', async () => {
    const server = await serve(['--clock', 'manual', '--fixtures', EXAMPLE]);
    const banner = server.stdout();
    const token = tokenOf(banner, '11222333');
    expect(banner).toMatch(/\n {2}company: +11222333 \([0-9a-f-]{36}\), Acme Alimentos: from the fixtures\n/);
    expect(banner).toMatch(/\n {4}establishment +[0-9a-f-]{36} +11222333000262 +Filial Campinas\n/);
    expect(banner).toMatch(/\n {6}product +[0-9a-f-]{36} +ncm 21069090 +sku CAFE-500 +id_externo erp-1001\n/);
    expect(banner).toMatch(/\n {4}webhook +https:\/\/hooks\.example\.com\/catalog +secret svc_whsec_\S+\n/);
    expect(banner).toMatch(/\n {2}company: +44555666 \([0-9a-f-]{36}\), Leitura Ltda: from the fixtures\n/);
    const catalogId = /\n {4}catalog +([0-9a-f-]{36}) +Loja Matriz\n/.exec(banner)![1]!;

    const read = async () =>
      (await getJson(`${server.url}/v1/catalogos/${catalogId}/produtos`, token)).body.itens.map(
        (p: { sku: string | null }) => p.sku,
      );
    expect(await read()).toEqual(['CAFE-500', 'CAFE-1K']);
    const webhook = await getJson(`${server.url}/v1/webhook`, token);
    expect(webhook).toMatchObject({ status: 200, body: { url: 'https://hooks.example.com/catalog', estado: 'ativo' } });
    // The read-only company reads, and may not write.
    const reader = tokenOf(banner, '44555666');
    expect((await getJson(`${server.url}/v1/catalogos`, reader)).status).toBe(200);
    expect(
      (
        await post(
          `${server.url}/v1/catalogos`,
          { authorization: `Bearer ${reader}`, 'idempotency-key': 'reader-catalog-000001' },
          { estabelecimento_id: catalogId, nome: 'x' },
        )
      ).status,
    ).toBe(403);

    const added = await post(
      `${server.url}/v1/catalogos/${catalogId}/produtos`,
      { authorization: `Bearer ${token}`, 'idempotency-key': 'cli-fixtures-000001' },
      { origem: 'erp', ncm: '21069090', sku: 'EXTRA' },
    );
    expect(added.status).toBe(201);
    expect(await read()).toEqual(['CAFE-500', 'CAFE-1K', 'EXTRA']);
    expect((await post(`${server.url}/_emulator/reset`, {})).status).toBe(200);
    // The same ids and token: the fixtures again, and nothing else.
    expect(await read()).toEqual(['CAFE-500', 'CAFE-1K']);
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
  });

  it.each([
    [
      '{"version":1,"companies":[{"catalogs":[{"nome":"a"},{"id_externo":"x"}]}]}',
      'bad.json: companies[0].catalogs[1].nome: required',
    ],
    [
      '{"version":1,"companies":[{"Name":"a"}]}',
      'bad.json: companies[0].Name: is not a key of the fixtures format here (keys are case-sensitive; check the spelling)',
    ],
    [
      '{"version":1,"companies":[{"cnpjRoot":"11222333","catalogs":[{"nome":"a"},{"nome":"b"}]}]}',
      expect.stringMatching(
        /^bad\.json: companies\[0\]\.catalogs\[1\]\.establishment: refused by the service \(409 estabelecimento_com_catalogo_ativo\): Establishment [0-9a-f-]{36} already has active catalog [0-9a-f-]{36}; an establishment has at most one\.$/,
      ),
    ],
    ['{"version":1,', expect.stringMatching(/^--fixtures bad\.json: is not JSON \(.+\)$/)],
  ])('refuses %s with exit code 2 and one line naming the place', async (content, message) => {
    writeFileSync(join(dir, 'bad.json'), content);
    const started = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--fixtures', 'bad.json'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    started.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise((resolve) => started.on('exit', resolve));
    expect(code).toBe(2);
    const [first, second] = stderr.split('\n');
    expect(first).toEqual(expect.stringMatching(/^catalog-emulator: /));
    expect(first!.slice('catalog-emulator: '.length)).toEqual(message);
    expect(second).toBe('Run "catalog-emulator --help" for usage.');
  });

  it('refuses a file that is not there', async () => {
    const { exited } = run(['serve', '--port', '0', '--fixtures', join(dir, 'none.json')]);
    const { code, stderr } = await exited;
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(`catalog-emulator: --fixtures ${join(dir, 'none.json')}: no such file`);
  });
});

describe('the banner escapes what it prints', { timeout: TIMEOUT_MS }, () => {
  // A fixtures file is text from elsewhere: each value below would otherwise break the banner's lines (a forged
  // `token:` line), move the cursor back (CR), colour or clear the terminal (ESC, CSI as C1 \x9b), ring (BEL) or
  // start a line where a terminal or editor reads U+2028/U+2029 as one.
  const hostile = {
    name: 'Acme\n  token:     svc_at_FORGED\r\x1b[31mred\x1b[0m\x07\x85\x9b2J\u2028end',
    nome: 'Filial\r\n  token:     x\x00',
    catalog: 'Loja\x1b]0;title\x07',
    sku: 'SKU\u2029X',
    idExterno: 'id\x1b[2J',
  };
  const fixtures = {
    version: 1,
    companies: [
      {
        name: hostile.name,
        cnpjRoot: '11222333',
        establishments: [{ cnpj: '11222333000262', nome: hostile.nome }],
        catalogs: [
          {
            nome: hostile.catalog,
            products: [{ origem: 'erp', ncm: '21069090', sku: hostile.sku, id_externo: hostile.idExterno }],
          },
        ],
        webhook: { url: 'https://hooks.example.com/catalog' },
      },
    ],
  };

  it('prints a name holding CR, LF, ESC[31m, other C0 and C1 controls or U+2028 as escapes, each line as it should be; --json carries it as JSON', async () => {
    const file = join(dir, 'hostile.json');
    writeFileSync(file, JSON.stringify(fixtures));
    const state = join(dir, 'state\n  token:     svc_at_PATH.json');
    const server = await serve(['--clock', 'manual', '--seed', '7', '--fixtures', file, '--state', state]);
    const banner = server.stdout();
    // Nothing but the line breaks of the banner's own lines reaches the terminal.
    expect(banner).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]/);
    const lines = banner
      .slice(0, banner.indexOf('\nTry: ') + 1)
      .split('\n')
      .map((line) =>
        line
          .replaceAll(server.url, '<url>')
          .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
          .replace(/svc_at_[A-Za-z0-9_-]{43}/g, '<token>')
          .replace(/svc_whsec_[A-Za-z0-9_-]{43}/g, '<secret>'),
      );
    expect(lines).toEqual([
      expect.stringMatching(/^catalog-emulator \S+ listening on <url>$/),
      expect.stringMatching(/^ {2}company: {3}\d{8} \(<id>\), all permissions$/),
      '  token:     <token>',
      '  company:   11222333 (<id>), Acme\\x0a  token:     svc_at_FORGED\\x0d\\x1b[31mred\\x1b[0m\\x07\\x85\\x9b2J\\u2028end: from the fixtures',
      '  token:     <token>',
      '    head office    <id>  11222333000181',
      '    establishment  <id>  11222333000262  Filial\\x0d\\x0a  token:     x\\x00',
      '    catalog        <id>  Loja\\x1b]0;title\\x07',
      '      product      <id>  ncm 21069090  sku SKU\\u2029X  id_externo id\\x1b[2J',
      '    webhook        https://hooks.example.com/catalog  secret <secret>',
      '  inspector: <url>/_emulator/ui',
      '  controls:  <url>/_emulator',
      '  docs:      <url>/_emulator/docs',
      '  clock:     manual, seed 7, now 2026-01-01T00:00:00.000Z',
      `  state:     ${dir}/state\\x0a  token:     svc_at_PATH.json (new)`,
      '',
    ]);
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);

    const json = run([
      'serve',
      '--port',
      '0',
      '--log',
      'silent',
      '--clock',
      'manual',
      '--seed',
      '7',
      '--fixtures',
      file,
      '--json',
    ]);
    while (!json.stdout().includes('\n')) {
      if (json.child.exitCode !== null) throw new Error(`no start line\n${json.stdout()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const line = json.stdout().slice(0, json.stdout().indexOf('\n'));
    expect(line).not.toMatch(/[\x00-\x1f]/);
    const started = JSON.parse(line) as { companies: { cnpjRoot: string; name?: string }[] };
    expect(started.companies.map((company) => company.name)).toEqual([undefined, hostile.name]);
    json.child.kill('SIGTERM');
    expect((await json.exited).code).toBe(0);
  });
});

describe('serve --state FILE', { timeout: TIMEOUT_MS }, () => {
  it('creates the file, saves on SIGTERM, loads it at the next start: records, the manual clock; a reset is saved too', async () => {
    const path = join(dir, 'state-1.json');
    let server = await serve(['--clock', 'manual', '--state', path, '--fixtures', EXAMPLE]);
    expect(server.stdout()).toContain(`  state:     ${path} (new)\n`);
    expect(existsSync(path)).toBe(true);
    const token = tokenOf(server.stdout(), '11222333');
    const catalogId = /\n {4}catalog +([0-9a-f-]{36}) +Loja Matriz\n/.exec(server.stdout())![1]!;
    const added = await post(
      `${server.url}/v1/catalogos/${catalogId}/produtos`,
      { authorization: `Bearer ${token}`, 'idempotency-key': 'cli-state-000001' },
      { origem: 'erp', ncm: '21069090', sku: 'EXTRA' },
    );
    expect(added.status).toBe(201);
    expect((await post(`${server.url}/_emulator/clock/advance`, {}, { by: '1d' })).status).toBe(200);
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);

    // The state wins over the fixtures at start: the product added is there, and the fixtures were not added again.
    server = await serve(['--clock', 'manual', '--state', path, '--fixtures', EXAMPLE]);
    expect(server.stdout()).toContain(`  state:     ${path} (loaded)\n`);
    expect(server.stdout()).toContain('now 2026-01-02T00:00:00.000Z');
    expect(tokenOf(server.stdout(), '11222333')).toBe(token);
    const skus = async () =>
      (await getJson(`${server.url}/v1/catalogos/${catalogId}/produtos`, token)).body.itens.map(
        (p: { sku: string | null }) => p.sku,
      );
    expect(await skus()).toEqual(['CAFE-500', 'CAFE-1K', 'EXTRA']);
    // The replay of the first request comes from the saved idempotency store.
    const replay = await post(
      `${server.url}/v1/catalogos/${catalogId}/produtos`,
      { authorization: `Bearer ${token}`, 'idempotency-key': 'cli-state-000001' },
      { origem: 'erp', ncm: '21069090', sku: 'EXTRA' },
    );
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    // A reset: the fixtures as they were, the clock at its start, saved whole before the reset is answered.
    expect((await post(`${server.url}/_emulator/reset`, {})).status).toBe(200);
    expect(readFileSync(path, 'utf8')).not.toContain('"EXTRA"');
    server.child.kill('SIGKILL');
    await server.exited;
    server = await serve(['--clock', 'manual', '--state', path]);
    expect(server.stdout()).toContain('now 2026-01-01T00:00:00.000Z');
    expect(await skus()).toEqual(['CAFE-500', 'CAFE-1K']);
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
  });

  it('real clock: a restart moves the virtual clock on by the time the server was down', async () => {
    const path = join(dir, 'state-real.json');
    // The clock moves on by the wall time from the file's last save (at start here: nothing changed after) to the
    // restart; the wall clock read around both bounds it exactly, however slowly a loaded machine runs them.
    const starting = Date.now();
    let server = await serve(['--state', path, '--start', '2030-01-01T00:00:00Z']);
    server.child.kill('SIGTERM');
    await server.exited;
    const down = Date.now();
    const saved = JSON.parse(readFileSync(path, 'utf8')) as { savedAt: string; snapshot: { now: number } };
    await new Promise((resolve) => setTimeout(resolve, 500));
    const restarting = Date.now();
    server = await serve(['--state', path]);
    const up = Date.now();
    const now = Date.parse(/now (\S+)\n/.exec(server.stdout())![1]!);
    expect(now - saved.snapshot.now).toBeGreaterThanOrEqual(restarting - down);
    expect(now - saved.snapshot.now).toBeGreaterThanOrEqual(500);
    expect(now - saved.snapshot.now).toBeLessThanOrEqual(up - starting);
    server.child.kill('SIGTERM');
    await server.exited;
  });

  it('refuses a file that is not a state, leaving it as it was, with exit code 2', async () => {
    const path = join(dir, 'not-state.json');
    const content =
      '{"format":"catalog-emulator/state-file","version":1,"savedAt":"2026-01-01T00:00:00Z","clock":"manual","start":0,"snapshot":{"format":"catalog-emulator/state","version":1,"seed":1}}';
    writeFileSync(path, content);
    const { code, stderr } = await run(['serve', '--port', '0', '--state', path]).exited;
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toMatch(
      new RegExp(
        `^catalog-emulator: --state ${path} is not a state this emulator can load \\(Not a snapshot of this emulator: now: .*\\); it was left as it is$`,
      ),
    );
    expect(readFileSync(path, 'utf8')).toBe(content);
  });

  it('after a SIGKILL, the restart has every change acknowledged, and a symbolic link given as FILE stays one', async () => {
    const real = join(dir, 'real');
    mkdirSync(real);
    const link = join(dir, 'state-link.json');
    symlinkSync(join(real, 'state.json'), link);
    let server = await serve(['--clock', 'manual', '--state', link]);
    const token = tokenOf(server.stdout(), /company: +(\d{8})/.exec(server.stdout())![1]!);
    const office = (await getJson(`${server.url}/v1/estabelecimentos`, token)).body.itens[0].id;
    const created = await post(
      `${server.url}/v1/catalogos`,
      { authorization: `Bearer ${token}`, 'idempotency-key': 'cli-state-kill-000001' },
      { estabelecimento_id: office, nome: 'Kept' },
    );
    expect(created.status).toBe(201);
    const catalog = ((await created.json()) as { id: string }).id;
    server.child.kill('SIGKILL');
    await server.exited;
    server = await serve(['--clock', 'manual', '--state', link]);
    expect((await getJson(`${server.url}/v1/catalogos/${catalog}`, token)).body.nome).toBe('Kept');
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readdirSync(real).sort()).toEqual(['state.json', 'state.json.log']);
  });

  it.each([
    [
      'a FIFO',
      (path: string) => execFileSync('mkfifo', [path]),
      'is a FIFO (named pipe), not a regular file: a state file is a regular file',
    ],
    [
      'a link to /dev/zero',
      (path: string) => symlinkSync('/dev/zero', path),
      'is a character device, not a regular file: a state file is a regular file',
    ],
    ['a folder', (path: string) => mkdirSync(path), 'is a folder, not a regular file: a state file is a regular file'],
  ])('refuses %s as FILE at once, with exit code 2 and one line', async (_, make, message) => {
    const path = join(dir, `state-not-regular-${Math.random().toString(36).slice(2)}`);
    make(path);
    const { code, stderr } = await run(['serve', '--port', '0', '--state', path]).exited;
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(`catalog-emulator: --state ${path} ${message}; it was left as it is`);
  });

  it('refuses a FIFO as --fixtures FILE at once, and --state-sync without --state', async () => {
    const fifo = join(dir, 'fixtures-fifo');
    execFileSync('mkfifo', [fifo]);
    const fixtures = await run(['serve', '--port', '0', '--fixtures', fifo]).exited;
    expect(fixtures.code).toBe(2);
    expect(fixtures.stderr.split('\n')[0]).toBe(
      `catalog-emulator: --fixtures ${fifo}: is a FIFO (named pipe), not a regular file: a fixtures file is a regular file`,
    );
    const sync = await run(['serve', '--port', '0', '--state-sync']).exited;
    expect(sync.code).toBe(2);
    expect(sync.stderr.split('\n')[0]).toBe(
      'catalog-emulator: --state-sync flushes the changes of --state FILE to the disk: give --state FILE too',
    );
  });

  it('refuses another --seed than the file was made with', async () => {
    const path = join(dir, 'state-seed.json');
    const server = await serve(['--clock', 'manual', '--state', path, '--seed', '4']);
    server.child.kill('SIGTERM');
    await server.exited;
    const content = readFileSync(path, 'utf8');
    const { code, stderr } = await run(['serve', '--port', '0', '--state', path, '--seed', '5']).exited;
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(
      `catalog-emulator: --state ${path} holds an emulator of seed 4, not 5: leave --seed out to go on with it, or give another --state file; it was left as it is`,
    );
    expect(readFileSync(path, 'utf8')).toBe(content);
  });
});
