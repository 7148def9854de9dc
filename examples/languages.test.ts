/**
 * The clients in other languages of docs/local-server.md (examples/python, examples/java), run against the built CLI as
 * a user runs them: each starts `catalog-emulator serve --json --port 0 --clock manual` itself (CATALOG_EMULATOR names
 * the built bin here, `npx catalog-emulator` for a user), and must print the transcript docs/local-server.md shows,
 * examples/client-transcript.txt, line for line: the same for both, as the same seed and calls give the same ids.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = fileURLToPath(new URL('../dist/bin/catalog-emulator.js', import.meta.url));
const TRANSCRIPT = readFileSync(new URL('client-transcript.txt', import.meta.url), 'utf8');

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
});

/** Runs a program to its end with the built CLI as its emulator; a missing runtime fails saying how to get it. */
function client(
  command: string,
  args: string[],
  install: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = Object.fromEntries(
    Object.entries({ ...process.env, CATALOG_EMULATOR: `${process.execPath} ${CLI}` }).filter(
      ([name]) => !/^(VITEST|NODE_OPTIONS$|JAVA_TOOL_OPTIONS$|_JAVA_OPTIONS$)/.test(name),
    ),
  );
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new Error(`${command} is not installed: run .ci/run (it installs ${install} from Debian)`)
          : error,
      ),
    );
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

test('examples/python/catalog_client.py (standard library only) prints the transcript', async () => {
  const ran = await client('python3', ['examples/python/catalog_client.py'], 'python3');
  expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
  expect(ran.stdout).toBe(TRANSCRIPT);
}, 60_000);

test('examples/java/CatalogClient.java (the JDK only, run as a single source file) prints the transcript', async () => {
  const ran = await client('java', ['examples/java/CatalogClient.java'], 'default-jdk-headless');
  expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
  expect(ran.stdout).toBe(TRANSCRIPT);
}, 120_000);
