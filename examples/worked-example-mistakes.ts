/**
 * The worked example of docs/grading.md: a small integration as first written. It publishes a store's catalog (a
 * catalog and its first product), edits a product, and receives the service's webhooks. Its happy-path tests pass; it
 * has three mistakes (marked ✗) that only faults and a receiver check show. worked-example-fixed.ts is the same, fixed.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  call,
  json,
  newKey,
  type CatalogService,
  type NewProduct,
  type Product,
  type WebhookEvent,
} from './worked-example-service.js';

/** Creates the store's catalog and its first product. */
export async function publishCatalog(
  service: CatalogService,
  store: { establishmentId: string; name: string; product: NewProduct },
): Promise<{ catalogId: string; productId: string }> {
  const catalog = await json<{ id: string }>(
    await write(service, 'POST', '/v1/catalogos', { estabelecimento_id: store.establishmentId, nome: store.name }),
  );
  const product = await json<{ id: string }>(
    await write(service, 'POST', `/v1/catalogos/${catalog.id}/produtos`, store.product),
  );
  return { catalogId: catalog.id, productId: product.id };
}

/** The webhook receiver: answers 2xx to a verified delivery, and applies each event once. */
export function webhookReceiver(
  secret: string,
  apply: (event: WebhookEvent) => void,
): (request: Request) => Promise<Response> {
  const applied = new Set<string>(); // in your database: each event id, recorded in the transaction that applies it
  return async (request) => {
    const body = await request.text();
    const [id, timestamp, signature] = ['service-event-id', 'service-timestamp', 'service-signature'].map((name) =>
      request.headers.get(name),
    );
    if (!id || !timestamp || !signature || !verified(secret, id, timestamp, signature, body))
      return new Response('not verified', { status: 401 });
    if (!applied.has(id)) {
      apply(JSON.parse(body) as WebhookEvent);
      applied.add(id);
    }
    return new Response(null, { status: 204 });
  };
}

// #region mistakes
/** A state-changing request, tried again once when the service is unavailable or someone else saved first. */
async function write(
  service: CatalogService,
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    // ✗ A new idempotency-key for each attempt: the retry of a write whose answer was lost is a new write.
    const response = await call(service, method, path, body, { ...headers, 'idempotency-key': newKey(service) });
    // ✗ A 412 tried again as a 503 is: with the same If-Match, the ETag the service has just refused.
    if ((response.status !== 503 && response.status !== 412) || attempt === 2) return response;
  }
}

/** Applies `changes` to a product, guarded by the ETag of a read. */
export async function updateProduct(
  service: CatalogService,
  productId: string,
  changes: Partial<NewProduct>,
): Promise<Product> {
  const read = await call(service, 'GET', `/v1/produtos/${productId}`);
  return json(
    await write(service, 'PATCH', `/v1/produtos/${productId}`, changes, { 'if-match': read.headers.get('etag')! }),
  );
}

/** Whether a delivery is signed with the secret: the HMAC of its exact bytes, compared in constant time. */
function verified(secret: string, id: string, timestamp: string, signature: string, body: string): boolean {
  // ✗ The timestamp is signed, but never compared with the clock: a delivery captured once is accepted forever.
  const expected = Buffer.from(`v1=${createHmac('sha256', secret).update(`${timestamp}.${id}.${body}`).digest('hex')}`);
  return Buffer.byteLength(signature) === expected.length && timingSafeEqual(Buffer.from(signature), expected);
}
// #endregion
