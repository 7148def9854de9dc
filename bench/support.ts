/** What the benchmark's figures share: the table row, number formatting, the CLI child process and an HTTP client. */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';

/**
 * The emulator as integrators run it: the compiled package (`npm run bench` builds it first), not the sources
 * through tsx, whose transform adds work of its own to every closure created.
 */
export const { createEmulator, DEFAULT_START } = (await import(new URL('../dist/src/index.js', import.meta.url).href)) as typeof import('../src/index.js');

export interface Row { figure: string; value: string; reference: string; ratio: string }
export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Starts a server script (the CLI, or the bare reference) and resolves with its URL once it listens. */
export function start(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve({ child, url: match[1]! });
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

/** Keep-alive connections, so the figures measure requests, not TCP handshakes. */
export const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
export function request(url: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** With --expose-gc (npm run bench), memory figures are measured after a collection; else they include garbage. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
