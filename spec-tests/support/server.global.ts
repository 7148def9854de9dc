/**
 * Global setup of the `shared-server` project: starts the built CLI on a free port (manual clock, silent log), ONE
 * server that every file of the project shares at once, and hands its URL to the tests, unless SPEC_BASE_URL
 * already names a running server. `spec-server` starts one per worker with the same function
 * (server-per-worker.global.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

const BIN = fileURLToPath(new URL('../../dist/bin/catalog-emulator.js', import.meta.url));
/** A bound on a start-up that prints nothing at all (a hung process), not a measure of speed: a loaded machine may take seconds. */
const START_TIMEOUT_MS = 60_000;

interface Server {
  readonly url: string;
  stop(): Promise<void>;
}

export async function startServer(): Promise<Server> {
  const child: ChildProcess = spawn(
    process.execPath,
    [BIN, 'serve', '--port', '0', '--clock', 'manual', '--log', 'silent'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`the emulator did not print its URL within ${START_TIMEOUT_MS / 1000} s:\n${out}`)),
      START_TIMEOUT_MS,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the emulator exited with ${code}:\n${out}`));
    });
  }).catch(async (error: unknown) => {
    child.kill('SIGKILL');
    await exited;
    throw error;
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export function assertBuilt(): void {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first (npm test does).`);
}

/** One server for the whole project: its files share it. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.SPEC_BASE_URL) {
    project.provide('specBaseUrl', process.env.SPEC_BASE_URL);
    project.provide('specServerOwned', false);
    return async () => undefined;
  }
  assertBuilt();
  const server = await startServer();
  project.provide('specBaseUrl', server.url);
  project.provide('specServerOwned', true);
  return server.stop;
}
