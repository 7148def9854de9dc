/**
 * The `concurrentEdit` fault (DESIGN §6): someone else changes the resource just before the request is
 * evaluated, so the request's If-Match is stale and it gets 412. The change is a new version with the same
 * fields, as when another client saves the resource unchanged.
 */
import { replaceCatalog } from './catalogs.js';
import { replace as replaceEstablishment } from './establishments.js';
import { replaceProduct } from './products.js';
import { ownedBy, type Context, type State } from './state.js';

export type EditTarget =
  | { readonly kind: 'establishment'; readonly id: string }
  | { readonly kind: 'catalog'; readonly id: string }
  | { readonly kind: 'product'; readonly id: string };

/** Returns whether there was a resource to change. */
export function simulateConcurrentEdit(state: State, companyId: string, target: EditTarget, ctx: Context): boolean {
  switch (target.kind) {
    case 'establishment': {
      const found = ownedBy(state.establishments, companyId, target.id);
      if (found) replaceEstablishment(state, found, {}, ctx);
      return found !== undefined;
    }
    case 'catalog': {
      const found = ownedBy(state.catalogs, companyId, target.id);
      if (found) replaceCatalog(state, found, {}, ctx);
      return found !== undefined;
    }
    case 'product': {
      const found = ownedBy(state.products, companyId, target.id);
      if (found) replaceProduct(state, found, {}, ctx);
      return found !== undefined;
    }
  }
}
