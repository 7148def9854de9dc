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
  | 'forbidden'; // 403: permission or subscription requirement not met

export interface Refusal {
  readonly kind: RefusalKind;
  /** Stable snake_case code (README "Error codes"). */
  readonly codigo: string;
  readonly mensagem: string;
  /** Where the offending input is: `body.cnpj`, `path.id`, `header.if-match`, `query.limite`. */
  readonly caminho?: string;
}

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly refusal: Refusal };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });

export function refuse(kind: RefusalKind, codigo: string, mensagem: string, caminho?: string): Result<never> {
  return { ok: false, refusal: caminho === undefined ? { kind, codigo, mensagem } : { kind, codigo, mensagem, caminho } };
}
