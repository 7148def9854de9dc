/**
 * A request with exactly the headers given, `Host` included: fetch never sends a forged Host, and the Host check is
 * what some tests exercise. Sent by the support's node:http client (bounded-http.ts), within its default bounds.
 */
import { readAnswer, type Answer } from './client.js';
import { DEFAULT_BOUNDS, send, toResponse } from './bounded-http.js';

/** `method` `path` on the server at `baseUrl`; `headers.host` replaces the Host node:http would send. */
export async function httpRequest(baseUrl: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const url = new URL(path, baseUrl);
  return readAnswer(toResponse(url, method, await send(url, { method, headers, ...(body === undefined ? {} : { body }) }, DEFAULT_BOUNDS)));
}
