/**
 * Global setup of the `spec-server` project: starts the built CLI on a free port (manual clock, silent log)
 * and hands its URL to the tests, unless SPEC_BASE_URL already names a running server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

const BIN = fileURLToPath(new URL('../../dist/bin/catalog-emulator.js', import.meta.url));

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.SPEC_BASE_URL) {
    project.provide('specBaseUrl', process.env.SPEC_BASE_URL);
    project.provide('specServerOwned', false);
    return async () => undefined;
  }
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first (npm test does).`);
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--clock', 'manual', '--log', 'silent'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the emulator did not print its URL within 10 s:\n${out}`)), 10_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`the emulator exited with ${code}:\n${out}`)));
  });
  project.provide('specBaseUrl', url);
  project.provide('specServerOwned', true);
  return async () => {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  };
}
