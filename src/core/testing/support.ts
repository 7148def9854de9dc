/**
 * Helpers shared by the unit tests of src/core. Test support, never shipped: tsconfig.build.json and
 * tsconfig.core.json exclude this folder, and src/core/purity.test.ts skips it (it imports vitest).
 * Only *.test.ts files may import it.
 */
import { expect } from 'vitest';
import { cnpjCheckDigits } from '../cnpj.js';
import { createCompany } from '../companies.js';
import { createRandom, seedRandom } from '../random.js';
import type { Result } from '../refusal.js';
import { type Context, type CoreConfig, type State } from '../state.js';
import { createState } from '../slices.js';
import { configureDestination, destinationEtag, type WebhookDestination } from '../webhooks/destination.js';
import { DEFAULT_DELIVERY_POLICY, type DeliveryPolicy, type WebhookEvent } from '../webhooks/events.js';

/** The instant the core tests start their worlds at: 2026-01-01T00:00:00.000Z. */
export const T0 = Date.parse('2026-01-01T00:00:00.000Z');
/** The CNPJ root of the company under test. */
export const ROOT = '11222333';
/** The CNPJ root of another company (a tenant the one under test must not see). */
export const OTHER_ROOT = '44555666';

/** A valid CNPJ of `root` with the order part `order`. */
export const cnpj = (root: string, order: string) => `${root}${order}${cnpjCheckDigits(`${root}${order}`)}`;

/** The value of an accepted result; throws, naming the refusal, on a refused one. */
export function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`refused: ${result.refusal.codigo} ${result.refusal.mensagem}`);
  return result.value;
}

/**
 * Asserts `result` is a refusal of `kind` and `codigo` with a message; with `caminho`, that it points
 * there, and without, that it has no caminho at all.
 */
export function expectRefusal(result: Result<unknown>, kind: string, codigo: string, caminho?: string): void {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.refusal.kind).toBe(kind);
  expect(result.refusal.codigo).toBe(codigo);
  expect(result.refusal.mensagem.length).toBeGreaterThan(0);
  if (caminho === undefined) expect(result.refusal).not.toHaveProperty('caminho');
  else expect(result.refusal.caminho).toBe(caminho);
}

/** The configuration the core tests run with: the default delivery policy. */
export const CORE_CONFIG: CoreConfig = { delivery: DEFAULT_DELIVERY_POLICY };

/**
 * A state (empty unless given) with a seeded source: `ctx(now)` for transitions (`ctx(now, policy)` with another
 * delivery policy), `company()` a new company's id.
 */
export function seededWorld(seed = 1, state: State = createState()) {
  const random = createRandom(seedRandom(seed));
  const ctx = (now: number, delivery: DeliveryPolicy = DEFAULT_DELIVERY_POLICY): Context => ({
    now,
    random,
    config: { delivery },
  });
  const company = (now = T0): string => unwrap(createCompany(state, {}, ctx(now))).company.id;
  return { state, random, ctx, company };
}

/** Creates the company's webhook destination, or changes it (with its current ETag), to `url`. */
export function configureWebhook(
  state: State,
  companyId: string,
  ctx: Context,
  url = 'https://hooks.example.com/a',
): WebhookDestination {
  const current = state.webhookDestinations.get(companyId);
  return unwrap(
    configureDestination(
      state,
      companyId,
      { url, createOnly: current === undefined, ifMatch: current ? [destinationEtag(current)] : undefined },
      ctx,
    ),
  ).destination;
}

/** The event raiseEvent recorded; throws when it recorded none (the company has no webhook destination). */
export function raised(event: WebhookEvent | undefined): WebhookEvent {
  if (event === undefined) throw new Error('raiseEvent recorded no event: the company has no webhook destination');
  return event;
}
