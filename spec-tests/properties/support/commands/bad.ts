/**
 * A request the contract refuses, with the status it must get: one refusal per kind (bad/<kind>.ts), each
 * setting up what it needs first (reading the current ETag when one is needed) and sending one request.
 */
import fc from 'fast-check';
import type { Answer } from '../../../support/client.js';
import type { Runner, Sent } from '../runner.js';
import { BAD_KINDS, pick, type BadKind, type Kind, type StepOf } from '../steps.js';
import { archiveWithCatalog } from './bad/archive-with-catalog.js';
import { badBody } from './bad/bad-body.js';
import { badCursor } from './bad/bad-cursor.js';
import { badJson } from './bad/bad-json.js';
import { badQuery } from './bad/bad-query.js';
import { bothPreconditions } from './bad/both-preconditions.js';
import { duplicateCnpj } from './bad/duplicate-cnpj.js';
import { duplicateExternalId } from './bad/duplicate-external-id.js';
import { editArchived } from './bad/edit-archived.js';
import { foreignRoot } from './bad/foreign-root.js';
import { ifMatchStar } from './bad/if-match-star.js';
import { invalidCnpj } from './bad/invalid-cnpj.js';
import { invalidKey } from './bad/invalid-key.js';
import { linkUnknownProduct } from './bad/link-unknown-product.js';
import { missingIfMatch } from './bad/missing-if-match.js';
import { missingKey } from './bad/missing-key.js';
import { noCredential } from './bad/no-credential.js';
import { otherCompany } from './bad/other-company.js';
import { readOnly } from './bad/read-only.js';
import { reuseKey } from './bad/reuse-key.js';
import { secondCatalog } from './bad/second-catalog.js';
import { staleEtag } from './bad/stale-etag.js';
import { statusFault } from './bad/status-fault.js';
import { tooLarge } from './bad/too-large.js';
import { unknownId } from './bad/unknown-id.js';
import { unknownRoute } from './bad/unknown-route.js';
import { unlinkNotLinked } from './bad/unlink-not-linked.js';
import { unsupportedMedia } from './bad/unsupported-media.js';
import { wrongMethod } from './bad/wrong-method.js';

export const arbitrary = fc.record({
  t: fc.constant('bad' as const),
  bad: fc.constantFrom(...BAD_KINDS),
  pick,
  pick2: pick,
  variant: fc.nat({ max: 1000 }),
});

/** What a refusal works with: the step's picks, and helpers bound to them. */
export interface RefusalContext {
  readonly r: Runner;
  readonly pick: number;
  readonly pick2: number;
  readonly variant: number;
  /** Sends `sent` (a fresh key unless a GET, the company's credential unless told) expecting `expected`. */
  readonly refuse: (
    sent: Omit<Sent, 'key' | 'as'> & { key?: string | null; as?: Sent['as'] },
    expected: number,
  ) => Promise<Answer>;
  /** A change the contract accepts for `kind` (so only the refusal's own fault is wrong). */
  readonly validPatch: (kind: Kind) => unknown;
  /** A product, a catalog (each created when there is none) or an active establishment, by `pick`. */
  readonly resourceOf: (kind: Kind) => Promise<{ id: string } | undefined>;
}

const REFUSALS: Record<BadKind, (c: RefusalContext) => Promise<void>> = {
  staleEtag,
  missingIfMatch,
  missingKey,
  invalidKey,
  unknownId,
  badBody,
  readOnly,
  otherCompany,
  duplicateCnpj,
  secondCatalog,
  archiveWithCatalog,
  duplicateExternalId,
  invalidCnpj,
  foreignRoot,
  reuseKey,
  statusFault,
  wrongMethod,
  unknownRoute,
  unsupportedMedia,
  badJson,
  tooLarge,
  editArchived,
  unlinkNotLinked,
  linkUnknownProduct,
  ifMatchStar,
  bothPreconditions,
  badQuery,
  badCursor,
  noCredential,
};

export async function run(r: Runner, step: StepOf<'bad'>): Promise<void> {
  const { bad, pick, pick2, variant } = step;
  await REFUSALS[bad]({
    r,
    pick,
    pick2,
    variant,
    refuse: (sent, expected) =>
      r.send(`bad:${bad}`, { key: sent.method === 'GET' ? null : r.nextKey(), as: 'company', ...sent }, { expected }),
    validPatch: (kind) => (kind === 'product' ? { sku: `sku-${variant}` } : { nome: `Nome ${variant}` }),
    resourceOf: (kind) => r.resourceOf(kind, pick),
  });
}
