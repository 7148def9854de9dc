/**
 * The image of the Containerfile, built and run with podman as a user runs it: on a base made here (no registry is
 * reachable from CI; container/local-base.ts), with the package installed as the Containerfile's package stage
 * installs it. Then the container serves with the default command, prints its start line, answers the API and the
 * controls with the token it printed, runs as a user other than root, reports healthy (a check that fails where
 * nothing listens), stops at once on `podman stop`, and is saved as an OCI archive. The compose file of the docs
 * (docs/container.md) is run as far as one machine can without compose: its emulator service's image, environment
 * and port, called the way its tests service calls it, by the service name.
 *
 * Without podman this fails, saying how to get it: a check that ran nothing must not pass.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCompose } from './compose.js';
import { INSTALL, localBase, packageStage } from './local-base.js';
import { ENV, ok, run } from './run.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const CONTAINERFILE = readFileSync(join(ROOT, 'Containerfile'), 'utf8');
/** What the Containerfile's default command prints first: the start line of `serve --json`. */
interface Ready {
  readonly url: string;
  readonly controlTokenRequired: boolean;
  readonly companies: readonly { readonly cnpjRoot: string; readonly token: string }[];
  readonly clock: { readonly mode: string; readonly now: string };
}

const runId = randomUUID().slice(0, 8);
const IMAGE = `localhost/catalog-emulator:test-${runId}`;
const CONTROL_TOKEN = 'image-test-control-token-0123456789';
const work = mkdtempSync(join(tmpdir(), 'catalog-emulator-image-'));
const containers: string[] = [];
const ARCHIVE = join(work, 'catalog-emulator.oci.tar');
/** `podman save` of the image, started once it is built: its compression runs while the containers are tested. */
let saved: Promise<unknown> | undefined;

beforeAll(async () => {
  const podman = await run('podman', ['--version']).catch(() => undefined);
  if (podman?.code !== 0)
    throw new Error(
      'podman is not installed: run .ci/run (it installs podman and runc from Debian and configures them), or apt-get install podman runc',
    );
  if (!existsBuilt())
    throw new Error('dist/bin/catalog-emulator.js is missing: run "npm run build" first (npm test does)');
  const begun = performance.now();
  const [base, context] = await Promise.all([localBase(), packageStage(ROOT, join(work, 'package'))]);
  const prepared = performance.now();
  // --format docker: the OCI format has no HEALTHCHECK (podman drops it, with a warning).
  await ok(
    'podman',
    [
      'build',
      '--quiet',
      '--format',
      'docker',
      '--build-arg',
      `BASE=${base}`,
      '--build-context',
      `package=${context}`,
      '--tag',
      IMAGE,
      '--file',
      join(ROOT, 'Containerfile'),
      ROOT,
    ],
    { timeoutMs: 120_000 },
  );
  console.info(
    `base and package stage: ${Math.round(prepared - begun)} ms; podman build: ${Math.round(performance.now() - prepared)} ms`,
  );
  saved = ok('podman', ['save', '--format', 'oci-archive', '--output', ARCHIVE, IMAGE], { timeoutMs: 120_000 });
  // Awaited by its test; a failure is that test's, not an unhandled rejection before it.
  saved.catch(() => undefined);
}, 180_000);

afterAll(async () => {
  await saved?.catch(() => undefined);
  if (containers.length > 0) await run('podman', ['rm', '--force', '--time', '0', ...containers]);
  await run('podman', ['rmi', '--force', IMAGE]);
  rmSync(work, { recursive: true, force: true });
}, 60_000);

function existsBuilt(): boolean {
  try {
    return statSync(join(ROOT, 'dist', 'bin', 'catalog-emulator.js')).isFile();
  } catch {
    return false;
  }
}

/** Starts a container of the image, detached, with these podman options; its name. */
async function start(options: readonly string[], command: readonly string[] = []): Promise<string> {
  const name = `catalog-emulator-test-${runId}-${containers.length}`;
  containers.push(name);
  await ok('podman', ['run', '--detach', '--name', name, ...options, IMAGE, ...command]);
  return name;
}

/** The first line the container writes on stdout, once it is there (followed as it comes, not polled). */
function firstLine(name: string): Promise<string> {
  const follow = spawn('podman', ['logs', '--follow', name], { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  follow.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    follow.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const end = stdout.indexOf('\n');
      if (end < 0) return;
      follow.kill();
      resolve(stdout.slice(0, end));
    });
    follow.on('exit', () =>
      reject(new Error(`${name} ended before it printed a line\nstdout:\n${stdout}\nstderr:\n${stderr}`)),
    );
  });
}

/** The stdout lines the container wrote so far. */
async function logLines(name: string): Promise<string[]> {
  return (await ok('podman', ['logs', name])).stdout.split('\n').filter((line) => line !== '');
}

/** The host port podman published the container's `port` on. */
async function published(name: string, port: number): Promise<number> {
  const { stdout } = await ok('podman', ['port', name, String(port)]);
  return Number(/:(\d+)\s*$/.exec(stdout.trim())![1]);
}

describe('the Containerfile', () => {
  it('builds on any Node.js base (ARG BASE, node:24-slim by default) from the package its package stage packs and installs with runtime dependencies only', () => {
    expect(CONTAINERFILE).toMatch(/^ARG BASE=node:24-slim$/m);
    expect(CONTAINERFILE).toMatch(/^FROM node:24-slim AS package$/m);
    expect(CONTAINERFILE).toMatch(/^FROM \$\{BASE\}$/m);
    // The test's stand-in for the package stage runs this very install.
    expect(CONTAINERFILE).toContain(`npm ${INSTALL.join(' ')} /tmp/catalog-emulator-*.tgz`);
    expect(CONTAINERFILE).toMatch(/^COPY --from=package \/opt\/catalog-emulator \/opt\/catalog-emulator$/m);
  });
});

describe('the image', { timeout: 60_000 }, () => {
  it('serves on PORT 4010 with the default command: the start line, the API with its token, the controls with the control token; runs as node (uid 1000)', async () => {
    const name = await start([
      '--publish',
      '127.0.0.1::4010',
      '--env',
      `CATALOG_EMULATOR_CONTROL_TOKEN=${CONTROL_TOKEN}`,
      '--env',
      'CATALOG_EMULATOR_CLOCK=manual',
    ]);
    const ready = JSON.parse(await firstLine(name)) as Ready;
    // The URL of the server inside the container; the host reaches it through the published port.
    expect(ready).toMatchObject({
      url: 'http://127.0.0.1:4010',
      controlTokenRequired: true,
      clock: { mode: 'manual', now: '2026-01-01T00:00:00.000Z' },
    });
    const url = `http://127.0.0.1:${await published(name, 4010)}`;
    const company = ready.companies[0]!;

    const empresa = await fetch(`${url}/v1/empresa`, { headers: { authorization: `Bearer ${company.token}` } });
    expect(empresa.status).toBe(200);
    expect(((await empresa.json()) as { cnpj_raiz: string }).cnpj_raiz).toBe(company.cnpjRoot);
    const advance = (token?: string) =>
      fetch(`${url}/_emulator/clock/advance`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
        body: '{"by":"1d"}',
      });
    expect((await advance()).status).toBe(401);
    const advanced = await advance(CONTROL_TOKEN);
    expect(advanced.status).toBe(200);
    expect(((await advanced.json()) as { now: string }).now).toBe('2026-01-02T00:00:00.000Z');

    expect(
      (
        await ok('podman', [
          'exec',
          name,
          'node',
          '-p',
          '`${process.getuid()}:${process.getgid()} ${require("node:os").userInfo().username}`',
        ])
      ).stdout.trim(),
    ).toBe('1000:1000 node');
    expect(
      (await ok('podman', ['inspect', '--format', '{{.Config.User}} {{.Config.ExposedPorts}}', IMAGE])).stdout.trim(),
    ).toBe('node map[4010/tcp:{}]');
  });

  it('reports healthy once it listens, without a line in its log; unhealthy where nothing listens on PORT', async () => {
    const name = await start(['--env', `CATALOG_EMULATOR_CONTROL_TOKEN=${CONTROL_TOKEN}`]);
    await firstLine(name);
    const before = await logLines(name);
    const check = await run('podman', ['healthcheck', 'run', name]);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(await logLines(name)).toEqual(before);

    // The same check on a container whose server listens elsewhere than PORT: unhealthy.
    const elsewhere = await start(['--env', 'PORT=4011'], ['serve', '--host', '0.0.0.0', '--port', '4010', '--json']);
    await firstLine(elsewhere);
    const unhealthy = await run('podman', ['healthcheck', 'run', elsewhere]);
    expect(unhealthy.code).toBe(1);
    expect(unhealthy.stdout.trim()).toBe('unhealthy');
  });

  it('stops on podman stop by its SIGTERM, exiting 0 with its closing line (not killed after the wait)', async () => {
    const name = await start([]);
    await firstLine(name);
    const begun = performance.now();
    // podman sends SIGTERM, then SIGKILL after --time: a container that did not close on the signal ends 137.
    // How long it took is printed, not asserted (CONTRIBUTING.md "Tests").
    await ok('podman', ['stop', '--time', '30', name]);
    console.info(`podman stop: ${Math.round(performance.now() - begun)} ms`);
    expect((await ok('podman', ['inspect', '--format', '{{.State.ExitCode}}', name])).stdout.trim()).toBe('0');
    expect((await logLines(name)).at(-1)).toBe('{"kind":"closing","signal":"SIGTERM"}');
  });

  it('is saved as an OCI archive', async () => {
    await saved;
    const archive = ARCHIVE;
    const listing = (await ok('tar', ['-tf', archive])).stdout.split('\n');
    expect(listing).toEqual(expect.arrayContaining(['oci-layout', 'index.json']));
    const size = (await ok('podman', ['image', 'inspect', '--format', '{{.Size}}', IMAGE])).stdout.trim();
    console.info(
      `OCI archive: ${(statSync(archive).size / 1e6).toFixed(1)} MB (image ${(Number(size) / 1e6).toFixed(1)} MB)`,
    );
    rmSync(archive);
  });
});

describe('the compose file of docs/container.md (examples/docker-compose.yml)', { timeout: 60_000 }, () => {
  it('its emulator service, called by the service name as its tests service calls it, with the control token', async () => {
    const compose = readCompose(readFileSync(join(ROOT, 'examples', 'docker-compose.yml'), 'utf8'), {
      EMULATOR_CONTROL_TOKEN: CONTROL_TOKEN,
    });
    const { emulator, tests } = compose.services as Record<
      string,
      { image: string; environment: Record<string, string>; ports: string[]; depends_on?: unknown }
    >;
    // The image the docs tell how to build, by this version's tag.
    expect(emulator!.image).toBe(`catalog-emulator:${version}`);
    expect(tests!.depends_on).toEqual({ emulator: { condition: 'service_healthy' } });
    const [, containerPort] = /^127\.0\.0\.1:\d+:(\d+)$/.exec(emulator!.ports[0]!)!;
    const environment = Object.entries(emulator!.environment).flatMap(([key, value]) => ['--env', `${key}=${value}`]);
    // Any free port of the host: only the container's side must be the image's.
    const name = await start([...environment, '--publish', `127.0.0.1::${containerPort}`]);
    await firstLine(name);
    expect((await run('podman', ['healthcheck', 'run', name])).code).toBe(0);

    // The tests service: another container reaching the emulator by its service name (what compose's DNS gives,
    // here a hosts entry), with the URL and control token of its environment. It makes a company of its own.
    const address = (await ok('podman', ['inspect', '--format', '{{.NetworkSettings.IPAddress}}', name])).stdout.trim();
    const script = `
      const { EMULATOR_URL: url, EMULATOR_CONTROL_TOKEN: control } = process.env;
      const json = { 'content-type': 'application/json' };
      const anonymous = await fetch(url + '/_emulator/companies', { method: 'POST', headers: json, body: '{}' });
      const created = await fetch(url + '/_emulator/companies', { method: 'POST', headers: { ...json, authorization: 'Bearer ' + control }, body: '{"clock":"own"}' });
      const { token } = await created.json();
      const empresa = await fetch(url + '/v1/empresa', { headers: { authorization: 'Bearer ' + token } });
      console.log(anonymous.status, created.status, empresa.status);`;
    const testsEnvironment = Object.entries(tests!.environment).flatMap(([key, value]) => ['--env', `${key}=${value}`]);
    const client = await ok('podman', [
      'run',
      '--rm',
      '--add-host',
      `emulator:${address}`,
      ...testsEnvironment,
      '--entrypoint',
      'node',
      IMAGE,
      '--input-type=module',
      '-e',
      script,
    ]);
    expect(client.stdout).toBe('401 201 200\n');
    const host = `http://127.0.0.1:${await published(name, Number(containerPort))}`;
    // From the host, through the published port, loopback names need no allowing.
    expect(
      (await fetch(`${host}/_emulator/clock`, { headers: { authorization: `Bearer ${CONTROL_TOKEN}` } })).status,
    ).toBe(200);
  });
});

/** The lines of `# #region NAME` in a shell example. */
function region(text: string, name: string): string {
  const lines = text.split('\n');
  const open = lines.indexOf(`# #region ${name}`);
  const close = lines.indexOf('# #endregion', open);
  if (open < 0 || close < 0) throw new Error(`no region "${name}"`);
  return lines.slice(open + 1, close).join('\n');
}

/** A port nothing listens on now, on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

describe('the container quick start of docs/container.md (examples/container.sh)', { timeout: 60_000 }, () => {
  it('builds from the Containerfile with the tag of this version; runs, answers with the token of its start line, moves its clock, and stops', async () => {
    const script = readFileSync(join(ROOT, 'examples', 'container.sh'), 'utf8');
    expect(region(script, 'build')).toMatch(
      new RegExp(`^docker build -f Containerfile -t catalog-emulator:${version.replaceAll('.', '\\.')} \\.$`, 'm'),
    );

    // `docker` is podman here; the image, the container's name and the host port are the test's own.
    const shims = join(work, 'shims');
    mkdirSync(shims, { recursive: true });
    writeFileSync(join(shims, 'docker'), '#!/bin/sh\nexec podman "$@"\n');
    chmodSync(join(shims, 'docker'), 0o755);
    const name = `catalog-emulator-test-${runId}-readme`;
    containers.push(name);
    const port = await freePort();
    const steps = region(script, 'run')
      .replaceAll(`catalog-emulator:${version}`, IMAGE)
      .replaceAll('127.0.0.1:4010', `127.0.0.1:${port}`)
      .replace(/(?<=\s)emulator(?=\s|$)/gm, name);
    const ran = await run('bash', ['-c', `set -eu\n${steps}`], { env: { PATH: `${shims}:${process.env.PATH}` } });
    expect(ran.code, ran.stderr).toBe(0);
    const [id, empresa, clock, stopped, ...rest] = ran.stdout.split('\n');
    expect(id).toMatch(/^[0-9a-f]{64}$/); // docker run -d prints the container's id
    expect(empresa).toMatch(/^\{"id":"[0-9a-f-]{36}","cnpj_raiz":"\w{8}","nome":"Empresa \w{8}"\} 200$/);
    expect(clock).toMatch(/^\{"now":"2026-01-02T00:00:00.000Z",.*\} 200$/);
    expect([stopped, ...rest]).toEqual([name, '']);
  });
});

describe('the Testcontainers examples of docs/container.md (examples/java/EmulatorContainerTest.java, examples/python/test_emulator_container.py)', {
  timeout: 60_000,
}, () => {
  it('name the image of this version and its port; their wait patterns match its start line, and the token they read there is accepted', async () => {
    const java = readFileSync(join(ROOT, 'examples', 'java', 'EmulatorContainerTest.java'), 'utf8');
    const python = readFileSync(join(ROOT, 'examples', 'python', 'test_emulator_container.py'), 'utf8');
    expect(java).toContain(`DockerImageName.parse("catalog-emulator:${version}")`);
    expect(python).toContain(`DockerContainer("catalog-emulator:${version}")`);
    expect(java).toContain('.withExposedPorts(4010)');
    expect(python).toContain('.with_exposed_ports(4010)');
    // Without testcontainers here, Python at least compiles it (writing no __pycache__).
    const path = join(ROOT, 'examples', 'python', 'test_emulator_container.py');
    expect(
      (await run('python3', ['-c', 'import sys; compile(open(sys.argv[1]).read(), sys.argv[1], "exec")', path])).code,
    ).toBe(0);

    const name = await start(['--publish', '127.0.0.1::4010', '--env', 'CATALOG_EMULATOR_CLOCK=manual']);
    const line = await firstLine(name);
    // Testcontainers for Java matches each log line, newline included, against the whole pattern.
    const javaPattern = JSON.parse(`"${/Wait\.forLogMessage\("((?:[^"\\]|\\.)*)", 1\)/.exec(java)![1]!}"`) as string;
    expect(new RegExp(`^(?:${javaPattern})$`).test(`${line}\n`)).toBe(true);
    // testcontainers-python searches the log for the pattern.
    const pythonPattern = /wait_for_logs\(emulator, r'([^']+)'\)/.exec(python)![1]!;
    expect(new RegExp(pythonPattern).test(line)).toBe(true);
    const token = new RegExp(
      JSON.parse(`"${/Pattern\.compile\("((?:[^"\\]|\\.)*)"\)/.exec(java)![1]!}"`) as string,
    ).exec(line)![1]!;
    expect(token).toBe((JSON.parse(line) as Ready).companies[0]!.token);
    const url = `http://127.0.0.1:${await published(name, 4010)}`;
    expect((await fetch(`${url}/v1/empresa`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });
});
