/**
 * The operations that take If-Match (spec "General rules" 2, "Endpoints") and the versioned resource whose ETag
 * each one checks. This one table is read by:
 *
 * - the pipeline: only these operations see the request's If-Match (everywhere else the header plays no part),
 *   and their core operation answers 428 without it and 412 when it no longer matches;
 * - the `concurrentEdit` fault: it fires on these operations, by saving `guards` behind the request's back;
 * - the fault registry: a `concurrentEdit` whose match can reach none of them is refused when it is added;
 * - the spec test that proves 412 and one hit for each row (it reads the table from the public entry).
 */
import { CONCURRENT_EDIT_IMPOSSIBLE, type GuardedResource } from '../core/concurrent-edit.js';

export type { GuardedResource };

export interface IfMatchOperation {
  readonly method: 'PATCH' | 'PUT' | 'POST' | 'DELETE';
  /** The path as the spec writes it: `{id}` for a parameter. */
  readonly path: string;
  readonly purpose: string;
  readonly guards: GuardedResource;
  /** The path parameter that names the guarded resource (absent for the company's own selection and destination). */
  readonly guardedBy?: string;
}

export const IF_MATCH_OPERATIONS: readonly IfMatchOperation[] = [
  { method: 'PATCH', path: '/v1/catalogos/{id}', purpose: 'edit a catalog', guards: 'catalog', guardedBy: 'id' },
  // spec: CAT-37 — the deletion preview's ETag covers the catalog's versao, so a save of the catalog stales it.
  { method: 'DELETE', path: '/v1/catalogos/{id}', purpose: 'delete a catalog (If-Match: its deletion preview)', guards: 'catalog', guardedBy: 'id' },
  { method: 'PUT', path: '/v1/catalogos/{id}/produtos/{produto_id}', purpose: 'link a product to a catalog', guards: 'product', guardedBy: 'produto_id' },
  { method: 'DELETE', path: '/v1/catalogos/{id}/produtos/{produto_id}', purpose: 'unlink a product from a catalog', guards: 'product', guardedBy: 'produto_id' },
  { method: 'PATCH', path: '/v1/produtos/{id}', purpose: 'edit a product', guards: 'product', guardedBy: 'id' },
  { method: 'PATCH', path: '/v1/estabelecimentos/{id}', purpose: 'edit an establishment', guards: 'establishment', guardedBy: 'id' },
  { method: 'DELETE', path: '/v1/estabelecimentos/{id}', purpose: 'archive an establishment', guards: 'establishment', guardedBy: 'id' },
  { method: 'POST', path: '/v1/estabelecimentos/{id}/correcoes-cnpj', purpose: 'request a CNPJ correction', guards: 'establishment', guardedBy: 'id' },
  { method: 'PATCH', path: '/v1/empresa/vigilancia', purpose: 'change the surveillance selection', guards: 'surveillanceSelection' },
  { method: 'PUT', path: '/v1/webhook', purpose: 'change, rotate or reactivate the webhook destination', guards: 'webhookDestination' },
  { method: 'DELETE', path: '/v1/webhook', purpose: 'revoke the webhook destination', guards: 'webhookDestination' },
  { method: 'POST', path: '/v1/webhook/testes', purpose: 'send a test event', guards: 'webhookDestination' },
  { method: 'POST', path: '/v1/webhook/eventos/{id}/reenvios', purpose: 'resend an event', guards: 'webhookDestination' },
  { method: 'POST', path: '/v1/catalogos/ingestoes/{id}/aplicacao', purpose: 'apply a validated ingestion', guards: 'ingestion', guardedBy: 'id' },
];

/** Why a `concurrentEdit` can never fire on `operation`, or undefined when it can. */
export function concurrentEditImpossible(operation: IfMatchOperation): string | undefined {
  return CONCURRENT_EDIT_IMPOSSIBLE[operation.guards];
}

/** The row of the operation registered as `method` + hono `path` (`/v1/catalogos/:id`), if it takes If-Match. */
export function ifMatchOperation(method: string, honoPath: string): IfMatchOperation | undefined {
  const path = honoPath.replace(/:([A-Za-z_]\w*)/g, '{$1}');
  return IF_MATCH_OPERATIONS.find((o) => o.method === method && o.path === path);
}
