/**
 * Who may drive the emulator (docs/security.md: the controls are a developer tool with full power
 * over the state, so only their owner may drive them). Two checks, each answering with the error body (the Host check,
 * which guards the API too, is the server's: src/http/host-guard.ts):
 *
 * - The control token (optional; in process too): every /_emulator request needs `Authorization: Bearer <token>`,
 *   but a GET of the controls whose row says `open` (table.ts): the inspector's page and its two files (GET
 *   /_emulator/ui, GET /_emulator/ui/assets/<name>), and the docs page and its files (GET /_emulator/docs, GET
 *   /_emulator/docs/assets/<name>). A browser's navigation cannot send the header, and they hold no data (each page
 *   asks for the token when what it reads answers 401).
 * - Control writes need `content-type: application/json`: a cross-site page can send a `text/plain` or body-less
 *   POST without a CORS preflight, never a JSON one; and no CORS permission is ever granted (415 otherwise).
 *
 * Control bodies are read with a limit while they arrive (1 MiB; a snapshot its own, larger one).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { apiError, CONTROL_REQUEST_ID, errorResponse, type ApiError } from '../http/errors.js';
import { bearerToken, DEFAULT_BODY_LIMIT, isJson } from '../http/pipeline.js';
import type { ControlEnv } from './row.js';

/** The body limit of every control but the snapshot restore: far above any control's input. */
export const CONTROL_BODY_LIMIT = DEFAULT_BODY_LIMIT;
const refuse = (error: ApiError) => errorResponse(error, CONTROL_REQUEST_ID);
const WRITES = new Set(['POST', 'PUT', 'PATCH']);
const REALM = 'Bearer realm="catalog-emulator controls"';

/**
 * What every control (and the 404 of a path that is none) checks first: the control token (401), then the content
 * type of a write (415); undefined when the call may go on. `open`: the row says the control is served without the
 * token, which holds for a GET only. DELETE needs no content type: a browser always preflights it, and the
 * preflight is never granted.
 */
export function guardRefusal(c: Context<ControlEnv>, open: boolean): Response | undefined {
  const expected = c.env.control.token;
  if (expected !== undefined && !(open && c.req.method === 'GET')) {
    const sent = bearerToken(c.req.header('authorization') ?? null);
    if (sent === undefined) {
      return refuse(
        apiError(
          401,
          'token_de_controle_ausente',
          'These controls need the control token the emulator was started with: send "Authorization: Bearer <control token>" with every /_emulator request.',
          'header.authorization',
          { 'www-authenticate': REALM },
        ),
      );
    }
    if (!sameSecret(sent, expected)) {
      return refuse(
        apiError(
          401,
          'token_de_controle_invalido',
          'The bearer token is not the control token the emulator was started with (an API credential does not open the controls).',
          'header.authorization',
          { 'www-authenticate': REALM },
        ),
      );
    }
  }
  if (WRITES.has(c.req.method)) {
    const type = c.req.header('content-type') ?? null;
    if (!isJson(type)) {
      return refuse(
        apiError(
          415,
          'tipo_midia_nao_suportado',
          `Send "content-type: application/json" with every POST, PUT and PATCH under /_emulator, even one without a body (got ${type === null ? 'no content-type' : JSON.stringify(type)}). Other types are refused so that no web page can drive the controls.`,
          'header.content-type',
        ),
      );
    }
  }
  return undefined;
}

/** Equal strings, in a time that does not depend on where they differ (nor on the expected one's length). */
function sameSecret(sent: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(sent), digest(expected));
}
