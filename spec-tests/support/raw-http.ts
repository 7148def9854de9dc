/**
 * A request over node:http with exactly the headers given, `Host` included: fetch never sends a forged Host,
 * and the Host check is what some tests exercise.
 */
import { request } from 'node:http';
import { readAnswer, type Answer } from './client.js';

/** `method` `path` on the server at `baseUrl`; `headers.host` replaces the Host node:http would send. */
export function httpRequest(baseUrl: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = request(new URL(path, baseUrl), { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) answerHeaders.append(name, one);
        }
        const status = response.statusCode ?? 0;
        const content = status === 204 || status === 304 ? null : Buffer.concat(chunks);
        resolve(readAnswer(new Response(content, { status, headers: answerHeaders })));
      });
    });
    sent.on('error', reject);
    sent.end(body);
  });
}
