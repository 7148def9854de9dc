/**
 * How long a listen() server lives: `await using` closes the emulator or the server at the end of a scope, and a
 * server nobody closed does not keep its process alive (a test runner's worker ends), unless ref() asks it to.
 * The process cases run in a child Node, from the sources, since what is checked is when that process exits.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const INDEX = new URL('../index.ts', import.meta.url).href;
/**
 * A hang guard only: the child loads the sources through tsx, which takes seconds, and several times as long on a
 * machine another run loads (15 s was passed there).
 */
const CHILD_TIMEOUT_MS = 60_000;

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `script` (an ES module with `INDEX` bound to the package's entry) in a child Node; resolves on its exit. */
function runChild(script: string): Promise<Exit> {
  const source = `const INDEX = ${JSON.stringify(INDEX)};\n${script}\nprocess.stdout.write('ended\\n');\n`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the child did not exit within ${CHILD_TIMEOUT_MS} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, CHILD_TIMEOUT_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('a server nobody closes', () => {
  it('lets its process exit, also after a keep-alive request', async () => {
    const exit = await runChild(`
      const { createEmulator } = await import(INDEX);
      const emu = createEmulator();
      const server = await emu.listen({ port: 0 });
      const company = emu.companies.create({ cnpjRoot: '11222333' });
      const answer = await fetch(server.url + '/v1/empresa', { headers: { authorization: 'Bearer ' + company.token } });
      process.stdout.write(answer.status + ' ' + (await answer.json()).id + ' ' + company.companyId + '\\n');
      setImmediate(() => process.stdout.write('holding ' + JSON.stringify(process.getActiveResourcesInfo()) + '\\n'));
    `);
    expect(exit.stderr).toBe('');
    expect(exit.code).toBe(0);
    const [status, id, companyId] = exit.stdout.split('\n')[0]!.split(' ');
    expect(status).toBe('200');
    expect(id).toBe(companyId);
    // Not held by the server, its keep-alive socket (5 s) or a timer: once the script is done, what Node counts as
    // holding the process is its stdout and stderr alone, the pipes to this test (counted, not timed: CONTRIBUTING.md
    // "Tests").
    expect(exit.stdout.split('\n').slice(1)).toEqual(['ended', 'holding ["PipeWrap","PipeWrap"]', '']);
  }, 90_000);

  it('holds its process after ref(), until unref()', async () => {
    // The timer is unref'd: only the server can keep the process alive until it fires.
    const exit = await runChild(`
      const { createEmulator } = await import(INDEX);
      const server = await createEmulator().listen({ port: 0 });
      server.ref();
      setTimeout(() => {
        process.stdout.write('still alive\\n');
        server.unref();
      }, 300).unref();
    `);
    expect(exit.stderr).toBe('');
    expect(exit.code).toBe(0);
    expect(exit.stdout).toBe('ended\nstill alive\n');
  }, 90_000);
});

describe('await using', () => {
  it('closes the emulator, and so its servers, at the end of the scope', async () => {
    let url: string;
    let token: string;
    {
      await using emu = createEmulator();
      const server = await emu.listen({ port: 0 });
      ({ url } = server);
      token = emu.companies.create({ cnpjRoot: '11222333' }).token;
      expect((await fetch(`${url}/v1/empresa`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    }
    await expect(fetch(`${url}/v1/empresa`, { headers: { authorization: `Bearer ${token}` } })).rejects.toThrow(
      'fetch failed',
    );
  });

  it('closes a server at the end of its scope, and the emulator goes on in process', async () => {
    await using emu = createEmulator();
    const token = emu.companies.create({ cnpjRoot: '11222333' }).token;
    let url: string;
    {
      await using server = await emu.listen({ port: 0 });
      ({ url } = server);
      expect((await fetch(`${url}/v1/empresa`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    }
    await expect(fetch(`${url}/v1/empresa`)).rejects.toThrow('fetch failed');
    expect((await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });

  it('is the same close() as calling it', async () => {
    const emu = createEmulator();
    const server = await emu.listen({ port: 0 });
    await server[Symbol.asyncDispose]();
    await expect(fetch(`${server.url}/v1/empresa`)).rejects.toThrow('fetch failed');
    await emu[Symbol.asyncDispose]();
    // Closed already: a second close (by hand or by a scope) is harmless.
    await emu.close();
  });
});
