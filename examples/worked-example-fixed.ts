/**
 * The worked example of docs/grading.md: the integration of worked-example-mistakes.ts, fixed. A write keeps its
 * idempotency-key through its retries, a 412 is answered by reading the product again, and a delivery whose
 * timestamp is more than five minutes from the receiver's clock is refused.
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

// #region fixed
/** A state-changing request, tried again once when the service is unavailable. */
async function write(
  service: CatalogService,
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  // One idempotency-key for every attempt: a retry is the same write, applied once and answered as the first was.
  const key = newKey(service);
  for (let attempt = 1; ; attempt++) {
    const response = await call(service, method, path, body, { ...headers, 'idempotency-key': key });
    if (response.status !== 503 || attempt === 2) return response;
  }
}

/** Applies `changes` to a product, guarded by the ETag of a read. */
export async function updateProduct(
  service: CatalogService,
  productId: string,
  changes: Partial<NewProduct>,
): Promise<Product> {
  for (let attempt = 1; ; attempt++) {
    const read = await call(service, 'GET', `/v1/produtos/${productId}`);
    const saved = await write(service, 'PATCH', `/v1/produtos/${productId}`, changes, {
      'if-match': read.headers.get('etag')!,
    });
    // A 412: someone saved the product since the read. Read it again, and apply the change to what it is now.
    if (saved.status !== 412 || attempt === 3) return json(saved);
  }
}

/** Whether a delivery is fresh and signed with the secret: the HMAC of its exact bytes, compared in constant time. */
function verified(secret: string, id: string, timestamp: string, signature: string, body: string): boolean {
  // Stamped more than 5 minutes from this clock, either way: a replay, however well signed.
  if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = Buffer.from(`v1=${createHmac('sha256', secret).update(`${timestamp}.${id}.${body}`).digest('hex')}`);
  return Buffer.byteLength(signature) === expected.length && timingSafeEqual(Buffer.from(signature), expected);
}
// #endregion
