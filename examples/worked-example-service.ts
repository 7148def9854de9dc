/**
 * The worked example of docs/grading.md ("A worked example"): what both versions of the small
 * integration share, the way they reach the service. worked-example-mistakes.ts is the integration as first
 * written, worked-example-fixed.ts the same fixed, and worked-example.test.ts grades both.
 */
import { randomUUID } from 'node:crypto';

/** Where the service is and how to reach it: in production `fetch` and the service's URL, in a test `emu.fetch`. */
export interface CatalogService {
  readonly baseUrl: string;
  readonly token: string;
  readonly fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** A new idempotency-key: a random UUID unless given (a test that asserts on keys makes them predictable). */
  readonly newKey?: () => string;
}

/** A product as the integration creates it. */
export interface NewProduct {
  readonly origem: string;
  readonly ncm: string;
  readonly sku?: string;
}

/** A product as the service answers it (the fields the integration reads). */
export interface Product {
  readonly id: string;
  readonly versao: number;
  readonly sku: string | null;
}

/** An answer the integration could not use: the status and the service's error code. */
class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly codigo: string | undefined,
  ) {
    super(`the service answered ${status}${codigo === undefined ? '' : ` ${codigo}`}`);
  }
}

export function newKey(service: CatalogService): string {
  return service.newKey?.() ?? randomUUID();
}

/** One request to the service, JSON, with the company's credential. */
export function call(
  service: CatalogService,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return service.fetch(new URL(path, service.baseUrl).href, {
    method,
    headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? null : JSON.stringify(body),
  });
}

/** The body of a 2xx answer; a ServiceError for any other. */
export async function json<T>(response: Response): Promise<T> {
  if (response.ok) return (await response.json()) as T;
  const error = (await response.json().catch(() => undefined)) as { erro?: { codigo?: string } } | undefined;
  throw new ServiceError(response.status, error?.erro?.codigo);
}

/** A webhook event as the service delivers it (its envelope). */
export interface WebhookEvent {
  readonly id: string;
  readonly empresa: string;
  readonly ocorridoEm: string;
  readonly dados: { readonly tipo: string };
}
