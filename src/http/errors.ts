/**
 * The error body of every error status (spec "Errors") and the one table that maps a core refusal to its
 * HTTP status. Codes are stable snake_case Portuguese (docs/errors.md).
 */
import * as z from 'zod';
import type { RefusalKind } from '../core/refusal.js';
import type { QueryBudgetError } from '../engine/journal.js';
import type { BodyReadError } from './runtime.js';

/**
 * The request_id of every answer the emulator gives as itself rather than as the emulated service: the control
 * routes' answers, and the refusals of bytes Node's parser could not read (no request, so no request id).
 */
export const CONTROL_REQUEST_ID = '_emulator';

export const STATUS_OF: Record<RefusalKind, number> = {
  invalid: 422,
  not_found: 404,
  precondition_required: 428,
  precondition_failed: 412,
  conflict: 409,
  forbidden: 403,
  rate_limited: 429,
};

/**
 * spec "Errors": the body of every error status, the API's and the controls' (a named schema of both documents; the
 * CLI reads a control's refusal by it, src/control/answers.ts).
 */
export const ErrorBody = z
  .strictObject({
    erro: z.strictObject({
      codigo: z.string().meta({ description: 'A stable snake_case Portuguese code (docs/errors.md lists them).' }),
      mensagem: z.string(),
      request_id: z.string().meta({ description: 'Equal to the x-request-id header of the answer.' }),
      caminho: z.string().optional().meta({
        description: 'Where the offending input is: body.atributos[3].codigo, query.limite, header.if-match, path.id.',
      }),
    }),
  })
  .meta({ id: 'ErrorBody', description: 'The body of every error status (spec "Errors").' });
type ErrorBody = z.output<typeof ErrorBody>;

export interface ApiError {
  readonly status: number;
  readonly codigo: string;
  readonly mensagem: string;
  readonly caminho?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export function apiError(
  status: number,
  codigo: string,
  mensagem: string,
  caminho?: string,
  headers?: Record<string, string>,
): ApiError {
  return {
    status,
    codigo,
    mensagem,
    ...(caminho === undefined ? {} : { caminho }),
    ...(headers === undefined ? {} : { headers }),
  };
}

/** The error answer: the error body, with `headers` after the error's own (an API answer adds its x-request-id). */
export function errorResponse(
  error: ApiError,
  requestId: string,
  headers?: Readonly<Record<string, string>>,
): Response {
  const plain = { 'content-type': 'application/json; charset=utf-8', ...error.headers, ...headers };
  const response = withPlainHeaders(
    new Response(errorBodyText(error, requestId), { status: error.status, headers: plain }),
    plain,
  );
  ERRORS.set(response, error);
  return response;
}

const PLAIN_HEADERS = Symbol('plain headers');
type WithPlainHeaders = Response & { [PLAIN_HEADERS]?: Readonly<Record<string, string>> };

/**
 * Marks an answer with the plain object of headers it was made with, which it sends unchanged: what the history
 * reads of its headers (plainHeadersOf), where the Response's own `headers` would build a Headers object and take
 * @hono/node-server off its fast path. Set by errorResponse and storedResponse, which make nearly every answer.
 */
export function withPlainHeaders(response: Response, headers: Readonly<Record<string, string>>): Response {
  (response as WithPlainHeaders)[PLAIN_HEADERS] = headers;
  return response;
}

/** The plain headers `response` was made with, when withPlainHeaders marked it. */
export function plainHeadersOf(response: Response): Readonly<Record<string, string>> | undefined {
  return (response as WithPlainHeaders)[PLAIN_HEADERS];
}

/** The error body's text, as errorResponse sends it (an inspector rebuilds it from errorOf, not from the stream). */
export function errorBodyText(error: Pick<ApiError, 'codigo' | 'mensagem' | 'caminho'>, requestId: string): string {
  const body: ErrorBody = {
    erro: {
      codigo: error.codigo,
      mensagem: error.mensagem,
      request_id: requestId,
      ...(error.caminho === undefined ? {} : { caminho: error.caminho }),
    },
  };
  return JSON.stringify(body);
}

/**
 * The error each error answer was built from, so the activity stream can name its code without parsing the body
 * (and only an error answer pays this, a WeakMap entry its answer's life).
 */
const ERRORS = new WeakMap<Response, ApiError>();

/** The error `response` was built from by errorResponse; undefined for any other answer. */
export const errorOf = (response: Response): ApiError | undefined => ERRORS.get(response);

/** `response`, made in place of `original` (a fault rewrote its body), as the error answer `original` was, if it was one. */
export function standingFor(response: Response, original: Response): Response {
  const error = ERRORS.get(original);
  if (error !== undefined) ERRORS.set(response, error);
  return response;
}

/** A body that could not be read (runtime.ts BodyReadError): the client's 400, whoever was reading it. */
export function unreadableBody(error: BodyReadError): ApiError {
  return apiError(
    400,
    'corpo_ilegivel',
    `The request body could not be read to its end (${error.message}): send it whole, with a Content-Length that matches it or valid chunked encoding.`,
    'body',
  );
}

/** The code an injected status fault answers with, by status. */
export function codeForStatus(status: number): string {
  switch (status) {
    case 400:
      return 'requisicao_invalida';
    case 401:
      return 'credencial_invalida';
    case 403:
      return 'permissao_insuficiente';
    case 404:
      return 'recurso_nao_encontrado';
    case 408:
      return 'tempo_esgotado';
    case 409:
      return 'conflito';
    case 412:
      return 'precondicao_falhou';
    case 413:
      return 'corpo_muito_grande';
    case 415:
      return 'tipo_midia_nao_suportado';
    case 422:
      return 'valor_invalido';
    case 428:
      return 'precondicao_ausente';
    case 429:
      return 'limite_requisicoes';
    case 503:
      return 'servico_indisponivel';
    default:
      return status >= 500 ? 'erro_interno' : 'requisicao_recusada';
  }
}

/**
 * A query of the kept requests stopped at its budget (QueryBudgetError), as the controls and the inspector answer
 * it: 422, located at the query's field whose glob took the steps (docs/journal.md).
 */
export function queryBudgetRefusal(error: QueryBudgetError): ApiError {
  const caminho = error.field === undefined ? undefined : `query.${error.field}`;
  return apiError(422, 'consulta_excede_orcamento', error.message, caminho);
}
