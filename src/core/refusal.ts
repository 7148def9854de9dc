/**
 * Why the service refuses a request. The core names the kind of refusal; the HTTP layer maps each kind to
 * its status in one table (src/http/errors.ts), so no HTTP status code lives in the core.
 */
export type RefusalKind =
  | 'invalid' // 422: the input breaks a rule of the spec
  | 'not_found' // 404: no such resource for this company
  | 'precondition_required' // 428: If-Match missing where the operation needs it
  | 'precondition_failed' // 412: If-Match no longer matches
  | 'conflict' // 409: the resource's state does not allow the change
  | 'forbidden' // 403: permission or subscription requirement not met
  | 'rate_limited'; // 429: a limit of the spec was reached (`limit` says when to retry)

export interface Refusal {
  readonly kind: RefusalKind;
  /** Stable snake_case code (docs/errors.md). */
  readonly codigo: string;
  readonly mensagem: string;
  /** Where the offending input is: `body.cnpj`, `path.id`, `header.if-match`, `query.limite`. */
  readonly caminho?: string;
  /** For `rate_limited`: the limit's policy, what is left and when a slot frees up. */
  readonly limit?: Quota;
}

/** A limit of the spec as a client sees it: `limit` per `windowSeconds`, `remaining` now, a slot free in `resetSeconds`. */
export interface Quota {
  readonly policy: string;
  readonly limit: number;
  readonly windowSeconds: number;
  readonly remaining: number;
  readonly resetSeconds: number;
}

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly refusal: Refusal };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });

export function refuse(
  kind: RefusalKind,
  codigo: string,
  mensagem: string,
  caminho?: string,
  limit?: Refusal['limit'],
): Result<never> {
  return {
    ok: false,
    refusal: {
      kind,
      codigo,
      mensagem,
      ...(caminho === undefined ? {} : { caminho }),
      ...(limit === undefined ? {} : { limit }),
    },
  };
}
