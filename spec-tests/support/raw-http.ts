/**
 * Requests over node:http with exactly what the test gives: the headers (`Host` included: fetch never sends a
 * forged Host, and the Host check is what some tests exercise), or the request target itself (a URL resolves
 * `..` and `%2e%2e` segments before fetch sends it, and the tests of routing send them). A request by URL goes
 * through the support's bounded client (bounded-http.ts), within its default bounds.
 */
import { request, type IncomingMessage } from 'node:http';
import { readAnswer, type Answer } from './client.js';
import { DEFAULT_BOUNDS, send, toResponse } from './bounded-http.js';

/** `method` `path` on the server at `baseUrl`; `headers.host` replaces the Host node:http would send. */
export async function httpRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  const url = new URL(path, baseUrl);
  return readAnswer(
    toResponse(
      url,
      method,
      await send(url, { method, headers, ...(body === undefined ? {} : { body }) }, DEFAULT_BOUNDS),
    ),
  );
}

/**
 * `method` with `target` as the request line's target, byte for byte (no URL is made of it: `..`, `%2e%2e`, a
 * backslash all go as written), to the server at `baseUrl`.
 */
export function requestAsSent(
  baseUrl: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const answered = (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
            answerHeaders.append(name, one);
        }
        const status = response.statusCode ?? 0;
        const content = status === 204 || status === 304 ? null : Buffer.concat(chunks);
        resolve(readAnswer(new Response(content, { status, headers: answerHeaders })));
      });
    };
    const sent = request({ hostname, port, path: target, method, headers, agent: false }, answered);
    sent.on('error', reject);
    sent.end(body);
  });
}
