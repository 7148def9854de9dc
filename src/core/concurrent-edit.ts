/**
 * The `concurrentEdit` fault (docs/faults.md): another client saves the resource a request's If-Match guards just
 * before the request is evaluated, so the request's ETag is stale and it gets 412 (spec "Errors": 412 when
 * If-Match no longer matches).
 *
 * The other client's save changes no field, only what any save changes: `versao` + 1 (so the ETag) and
 * `atualizado_em`. A webhook destination is saved only by PUT /v1/webhook, which always makes a new secret,
 * invalidates the deliveries of the version before and reactivates a revoked destination (spec "Webhook
 * destination" state table): its concurrent save is that PUT with the same URL.
 *
 * | resource              | guarded by the If-Match of                                    | the other client's save      |
 * |-----------------------|---------------------------------------------------------------|------------------------------|
 * | catalog               | its edit and deletion (the deletion preview covers its versao) | versao + 1                   |
 * | product               | its edit, link and unlink                                     | versao + 1                   |
 * | establishment         | its edit, archiving and CNPJ correction                       | versao + 1                   |
 * | surveillance selection| its change                                                    | versao + 1, same selection   |
 * | webhook destination   | its change, revocation, test events and resends               | PUT, same URL: new version and secret, open events cancelled, a revoked one reactivated |
 * | ingestion             | its application                                               | none: see below              |
 *
 * Nothing but its own application changes a validated ingestion, so no other client's save can make its
 * ETag stale: the fault is refused for that operation when it is added (make the preview stale instead).
 */
import { replaceCatalog } from './catalogs.js';
import { replace as replaceEstablishment } from './establishments.js';
import { replaceProduct } from './products.js';
import { ownedBy, type Context, type State } from './state.js';
import { resaveSelection } from './surveillance.js';
import type { GuardedResource, IfMatchOperation } from './versioning.js';
import { configureDestination, destinationEtag } from './webhooks/destination.js';

/** Why the fault can never fire on an operation that guards `resource`, or undefined when it can. */
const CONCURRENT_EDIT_IMPOSSIBLE: Readonly<Partial<Record<GuardedResource, string>>> = {
  ingestion:
    'nothing but its own application changes a validated ingestion, so no concurrent save can make its ETag stale; ' +
    'to see its application refused, edit the catalog or one of the products it read after validation (it ends revisao_necessaria)',
};

/** Why a `concurrentEdit` can never fire on `operation`, or undefined when it can. */
export function concurrentEditImpossible(operation: IfMatchOperation): string | undefined {
  return CONCURRENT_EDIT_IMPOSSIBLE[operation.guards];
}

/**
 * Another client saves `resource` (`id` for the per-id ones) of `companyId`. Returns whether there was such a
 * resource to save: nothing happens, and the fault is kept for a later request, when there was none.
 */
export function saveConcurrently(
  state: State,
  companyId: string,
  resource: GuardedResource,
  id: string | undefined,
  ctx: Context,
): boolean {
  switch (resource) {
    case 'catalog': {
      const found = id === undefined ? undefined : ownedBy(state.catalogs, companyId, id);
      if (found) replaceCatalog(state, found, {}, ctx);
      return found !== undefined;
    }
    case 'product': {
      const found = id === undefined ? undefined : ownedBy(state.products, companyId, id);
      if (found) replaceProduct(state, found, {}, ctx);
      return found !== undefined;
    }
    case 'establishment': {
      const found = id === undefined ? undefined : ownedBy(state.establishments, companyId, id);
      if (found) replaceEstablishment(state, found, {}, ctx);
      return found !== undefined;
    }
    case 'surveillanceSelection': {
      if (!state.companies.has(companyId)) return false;
      // The same selection saved again: counters and coverage are unchanged, so no event.
      resaveSelection(state, companyId);
      return true;
    }
    case 'webhookDestination': {
      const current = state.webhookDestinations.get(companyId);
      if (current)
        configureDestination(
          state,
          companyId,
          { url: current.url, createOnly: false, ifMatch: [destinationEtag(current)] },
          ctx,
        );
      return current !== undefined;
    }
    case 'ingestion':
      return false;
  }
}
