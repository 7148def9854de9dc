/**
 * The shell and help examples of the README and docs/, run as written against the built CLI (`npm test` builds first):
 * each script gets a real server on a free port, and the URL and token it printed, through the environment
 * variables the script names. Every spawned process is killed after its test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { demos } from 'catalog-emulator';
import { installedProject } from '../spec-tests/support/installed-project.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = fileURLToPath(new URL('../dist/bin/catalog-emulator.js', import.meta.url));
const TIMEOUT_MS = 60_000;

/** The environment of a spawned process: no colour, and none of this vitest run's own variables. */
function environment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'FORCE_COLOR'),
  );
  return { ...env, NO_COLOR: '1', ...extra };
}

const children = new Set<ChildProcess>();
const folders: string[] = [];
afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A project that installed the package (spec-tests/support/installed-project.ts), removed after the test: where scripts that say `npx catalog-emulator` run. */
function project(): string {
  const folder = installedProject();
  folders.push(folder);
  return folder;
}

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<Finished> {
  // npx catalog-emulator in this repository's folder builds the package again (see installedProject), under the other tests.
  const script = args.find((arg) => arg.endsWith('.sh'));
  if (
    cwd === ROOT &&
    script !== undefined &&
    /^[^#]*\bnpx catalog-emulator\b/m.test(
      readFileSync(join(ROOT, script.startsWith('/') ? script.slice(ROOT.length) : script), 'utf8'),
    )
  ) {
    throw new Error(`${script} runs npx catalog-emulator: run it in project(), not in the repository's folder`);
  }
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: environment(env) });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

interface Server {
  /** What it printed up to its "Try:" line. */
  readonly banner: string;
  readonly url: string;
  readonly port: number;
  readonly companyId: string;
  readonly cnpjRoot: string;
  readonly token: string;
}

/** Starts `catalog-emulator serve ARGS --port 0` and reads its banner. */
async function serve(args: string[], env: Record<string, string> = {}): Promise<Server> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args, '--port', '0', '--log', 'silent'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: environment(env),
  });
  children.add(child);
  let out = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const banner = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (/^Try: /m.test(out)) resolve(out);
    });
    child.once('exit', (code) => reject(new Error(`the emulator exited with ${code}:\n${out}`)));
  });
  const url = /listening on (http:\/\/\S+)/.exec(banner)![1]!;
  const [, cnpjRoot, companyId] = /company: +(\d{8}) \(([0-9a-f-]{36})\)/.exec(banner)!;
  const token = /token: +(\S+)/.exec(banner)![1]!;
  return { banner, url, port: Number(new URL(url).port), companyId: companyId!, cnpjRoot: cnpjRoot!, token };
}

const lines = (text: string) => text.trimEnd().split('\n');
/** `BODY STATUS`, as the scripts print each answer with curl's -w ' %{http_code}\n'. */
function answer(line: string | undefined): { body: unknown; status: number } {
  const match = /^(.*) (\d{3})$/.exec(line ?? '');
  if (!match) throw new Error(`not "BODY STATUS": ${line}`);
  return { body: JSON.parse(match[1]!), status: Number(match[2]) };
}

test(
  'local-server.sh: the API as the ready company, a 503 fault fired once, and one day of time travel',
  async () => {
    const server = await serve([]); // as `npx catalog-emulator` starts: real clock
    const before = Date.now();
    const { code, stdout, stderr } = await run('bash', ['examples/local-server.sh'], {
      URL: server.url,
      TOKEN: server.token,
    });
    const after = Date.now();
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const out = lines(stdout).map(answer);
    expect(out).toHaveLength(5);
    const identity = { id: server.companyId, cnpj_raiz: server.cnpjRoot, nome: `Empresa ${server.cnpjRoot}` };
    expect(out[0]).toEqual({ body: identity, status: 200 });
    expect(out[1]).toEqual({ body: { id: 'flt_1' }, status: 201 });
    expect(out[2]).toEqual({
      body: {
        erro: {
          codigo: 'servico_indisponivel',
          mensagem: 'Injected fault flt_1: answered 503 before the request was processed; nothing was applied.',
          request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        },
      },
      status: 503,
    });
    expect(out[3]).toEqual({ body: identity, status: 200 });
    const moved = out[4]!.body as { now: string; ran: number };
    expect(out[4]!.status).toBe(200);
    // real clock: the virtual now is the wall clock plus the day the script added
    expect(Date.parse(moved.now)).toBeGreaterThanOrEqual(before + 86_400_000);
    expect(Date.parse(moved.now)).toBeLessThanOrEqual(after + 86_400_000);
    expect(moved.ran).toBe(26); // a day of housekeeping: 24 hourly event retentions, the idempotency purge, the surveillance schedule
  },
  TIMEOUT_MS,
);

test(
  'remote-cli.sh: the clock shown and moved, faults added, listed and removed, a test event raised and delivered, from the command line',
  async () => {
    const server = await serve(['--clock', 'manual']);
    const destination = await fetch(`${server.url}/v1/webhook`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${server.token}`,
        'content-type': 'application/json',
        'idempotency-key': 'remote-cli-example-01',
        'if-none-match': '*',
      },
      body: JSON.stringify({ url: 'https://hooks.acme.example/in' }),
    });
    expect(destination.status).toBe(201);
    const { code, stdout, stderr } = await run(
      'bash',
      [join(ROOT, 'examples/remote-cli.sh')],
      { URL: server.url, COMPANY: server.companyId },
      project(),
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    // What docs/cli.md shows, the event's and the company's ids aside.
    const eventId = /event ([0-9a-f-]{36}) for/.exec(stdout)?.[1];
    expect(
      stdout
        .replace(` event ${eventId} `, ' event <event id> ')
        .replace(`company ${server.companyId}:`, 'company <company id>:'),
    ).toBe(readFileSync(join(ROOT, 'examples/remote-cli-output.txt'), 'utf8'));
    const inbox = (await (await fetch(`${server.url}/_emulator/inbox`)).json()) as { items: { eventId: string }[] };
    expect(inbox.items.map((i) => i.eventId)).toEqual([eventId]);
  },
  // Ten npx runs, some 3 s each on a busy machine.
  3 * TIMEOUT_MS,
);

test(
  'shared-server.sh: a company on its own clock, its API, its fault, its day, its reset and its removal',
  async () => {
    const server = await serve(['--clock', 'manual']);
    const { code, stdout, stderr } = await run('bash', ['examples/shared-server.sh'], { URL: server.url });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const out = lines(stdout);
    expect(out).toHaveLength(6);
    const created = JSON.parse(out[0]!) as { companyId: string; token: string };
    expect(created).toEqual({
      companyId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      cnpjRoot: '11222333',
      token: expect.stringMatching(/^svc_at_/),
      headOffice: { id: expect.stringMatching(/^[0-9a-f-]{36}$/), cnpj: '11222333000181' },
    });
    expect(answer(out[1])).toEqual({
      body: { id: created.companyId, cnpj_raiz: '11222333', nome: 'Empresa 11222333' },
      status: 200,
    });
    expect(answer(out[2])).toEqual({ body: { id: 'flt_1' }, status: 201 });
    expect(answer(out[3])).toEqual({ body: { now: '2026-01-02T00:00:00.000Z', ran: 26 }, status: 200 });
    expect(out.slice(4)).toEqual(['200', '204']);
    // gone: its token is refused, and the shared clock never moved
    expect(
      (await fetch(`${server.url}/v1/empresa`, { headers: { authorization: `Bearer ${created.token}` } })).status,
    ).toBe(401);
    expect(((await (await fetch(`${server.url}/_emulator/clock`)).json()) as { now: string }).now).toBe(
      '2026-01-01T00:00:00.000Z',
    );
  },
  TIMEOUT_MS,
);

test(
  'demo.sh: the list of every demo, then idempotent-retry narrated as the package runs it',
  async () => {
    const { code, stdout, stderr } = await run('bash', [join(ROOT, 'examples/demo.sh')], {}, project());
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const narrated: string[] = [];
    await demos.find((demo) => demo.name === 'idempotent-retry')!.run((line) => void narrated.push(line));
    const list = [
      'Teaching scenarios (run one with: catalog-emulator demo NAME):',
      ...demos.map((demo) =>
        expect.stringMatching(new RegExp(`^  ${demo.name} +${demo.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)),
      ),
    ];
    expect(lines(stdout)).toEqual([...list, ...lines(narrated.join('\n'))]);
  },
  TIMEOUT_MS,
);

test(
  'demo-ui.sh: the step a demo run with --ui waits at, then that step run from the shell',
  async () => {
    const child = spawn(process.execPath, [CLI, 'demo', 'webhook-retries', '--ui', '--no-open', '--port', '0'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: environment({}),
    });
    children.add(child);
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        const found = /listening on (\S+)\n[^]*-- step 1: waiting/.exec(out);
        if (found) resolve(found[1]!);
      });
      child.once('exit', (code) => reject(new Error(`demo --ui exited (${code}):\n${out}`)));
    });
    const { code, stdout, stderr } = await run('bash', ['examples/demo-ui.sh'], { URL: url });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const [waiting, ran] = lines(stdout).map(
      (line) =>
        JSON.parse(line) as { steps: { n: number; title: string; lines: string[] }[]; waiting: boolean; done: boolean },
    );
    const first = {
      n: 1,
      title: '1. Acme configures its webhook destination (If-None-Match: * = create, never overwrite).',
    };
    expect(waiting).toEqual({
      name: 'webhook-retries',
      summary: demos.find((demo) => demo.name === 'webhook-retries')!.summary,
      steps: [{ ...first, lines: [] }],
      waiting: true,
      done: false,
    });
    expect(ran!.steps).toEqual([
      { ...first, lines: expect.arrayContaining(['  → PUT /v1/webhook', '  ← 201']) },
      { n: 2, title: expect.stringMatching(/^2\. The network: /), lines: [] },
    ]);
    expect([ran!.waiting, ran!.done]).toEqual([true, false]);
  },
  TIMEOUT_MS,
);

test(
  'conformance.sh: the spec tests and a shared-server suite pass against a server started with --clock manual',
  async () => {
    const server = await serve(['--clock', 'manual']);
    // "analys" names one file of each project: spec-tests/analyses.test.ts and spec-tests/shared-server/analysis.test.ts
    const { code, stdout, stderr } = await run('bash', ['examples/conformance.sh', 'analys'], { URL: server.url });
    expect(code, stdout + stderr).toBe(0);
    expect(stdout).toMatch(/✓ \|spec-server\| spec-tests\/analyses\.test\.ts/);
    expect(stdout).toMatch(/✓ \|shared-server\| spec-tests\/shared-server\/analysis\.test\.ts/);
    expect(stdout).toMatch(/Test Files +2 passed \(2\)/);
  },
  4 * TIMEOUT_MS,
);

/**
 * A server as a deployment serves (--no-controls), with a fixtures company holding the restricted credentials the
 * conformance examples name, and a second company: the environment they read (URL, TOKEN, OTHER, READER, WRITER).
 */
async function deploymentLike(): Promise<Record<string, string>> {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-example-'));
  const fixtures = join(dir, 'fixtures.json');
  writeFileSync(
    fixtures,
    JSON.stringify({
      version: 1,
      companies: [
        {
          name: 'Conformidade',
          credentials: [{ permissions: ['catalogo:ler'] }, { permissions: ['catalogo:ler', 'catalogo:gerenciar'] }],
        },
        { name: 'Outra' },
      ],
    }),
  );
  const server = await serve(['--no-controls', '--fixtures', fixtures]);
  rmSync(dir, { recursive: true, force: true });
  const found =
    /Conformidade: from the fixtures\n +token: +(\S+)\n +token: +(\S+) +\(catalogo:ler\)\n +token: +(\S+) +\(catalogo:ler, catalogo:gerenciar\)\n/.exec(
      server.banner,
    );
  if (!found) throw new Error(`no fixtures company with its credentials in the banner:\n${server.banner}`);
  const other = /Outra: from the fixtures\n +token: +(\S+)\n/.exec(server.banner);
  if (!other) throw new Error(`no second fixtures company in the banner:\n${server.banner}`);
  return { URL: server.url, TOKEN: found[1]!, OTHER: other[1]!, READER: found[2]!, WRITER: found[3]! };
}

test(
  'conformance-cli.sh: the shipped spec tests run against a server without controls, exit 0 and print the totals',
  async () => {
    const env = await deploymentLike();
    const { code, stdout, stderr } = await run(
      'bash',
      [join(ROOT, 'examples/conformance-cli.sh'), '--files', 'cnpj-corrections', '--files', 'company'],
      env,
      project(),
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/^ok {3}spec-tests\/cnpj-corrections\.test\.ts: \d+ passed, 0 failed, \d+ skipped/m);
    expect(stdout).toMatch(
      /^Tests: \d+ passed, 0 failed, \d+ skipped \(of \d+\); runnable share \d+\.\d% \(passed \/ all\)$/m,
    );
    // Both credentials were given: no test is skipped for want of one of them.
    expect(stdout).not.toMatch(/--token-for catalogo:(ler|gerenciar\+catalogo:ler)=TOKEN/);
  },
  2 * TIMEOUT_MS,
);

test(
  'conformance-try.sh: its command line serves the API alone with the shipped fixtures: both companies and every restricted credential in the banner',
  async () => {
    const script = readFileSync(join(ROOT, 'examples/conformance-try.sh'), 'utf8');
    const [command] = /^npx catalog-emulator (.+)$/m.exec(script)!.slice(1);
    // The package's path in a project that installed it is this repository's in a clone.
    const args = command!.replace('node_modules/catalog-emulator/', '').split(' ');
    expect(args).toEqual(['serve', '--no-controls', '--fixtures', 'dist/conformance/fixtures.json']);
    const server = await serve(args.slice(1));
    const fixtures = JSON.parse(readFileSync(join(ROOT, 'examples/conformance-fixtures.json'), 'utf8')) as {
      companies: { name: string; credentials?: { permissions: string[] }[] }[];
    };
    for (const company of fixtures.companies)
      expect(server.banner).toMatch(new RegExp(`, ${company.name}: from the fixtures\\n +token: +svc_at_\\S+\\n`));
    const listed = [...server.banner.matchAll(/^ +token: +svc_at_\S+ +\((.+)\)$/gm)].map((m) => m[1]);
    expect(listed).toEqual(fixtures.companies[0]!.credentials!.map((c) => c.permissions.join(', ')));
    expect(server.banner).toContain('controls:  none (--no-controls');
    expect((await fetch(`${server.url}/_emulator`)).status).toBe(404);
  },
  2 * TIMEOUT_MS,
);

test(
  'conformance-vitest.sh: the same spec tests under vitest, against the same kind of server',
  async () => {
    const env = await deploymentLike();
    const { code, stdout, stderr } = await run(
      'bash',
      ['examples/conformance-vitest.sh', 'spec-tests/company.test.ts'],
      env,
    );
    expect(code, stdout + stderr).toBe(0);
    expect(stdout).toMatch(/✓ \|conformance\| spec-tests\/company\.test\.ts/);
    expect(stdout).toMatch(/Test Files +1 passed \(1\)/);
  },
  4 * TIMEOUT_MS,
);

test(
  'cli-help.txt is what catalog-emulator --help prints',
  async () => {
    const { code, stdout } = await run(process.execPath, [CLI, '--help']);
    expect(code).toBe(0);
    expect(stdout).toBe(readFileSync(new URL('cli-help.txt', import.meta.url), 'utf8'));
  },
  TIMEOUT_MS,
);
