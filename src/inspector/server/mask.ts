/**
 * What the inspector never hands out: a credential or a secret. Every header and JSON value its data routes answer
 * passes through here on the server, so neither the page nor anyone scripting against the routes ever receives one.
 *
 * - `authorization`: `Bearer ••••` (the scheme stays, so a reader still sees how the request authenticated);
 * - any header or JSON field whose name contains token, secret, segredo, senha, password or credential: `••••`.
 */
export const MASK = '••••';

const SECRET_WORDS = 'token|secret|segredo|senha|password|credential';
const SECRET_NAME = new RegExp(SECRET_WORDS, 'i');

/** Whether a field or header of this name holds a secret. */
const isSecretName = (name: string): boolean => SECRET_NAME.test(name);

/** One header's value as the inspector shows it. */
function maskedHeader(name: string, value: string): string {
  const lower = name.toLowerCase();
  if (lower === 'authorization' || lower === 'proxy-authorization')
    return /^\s*bearer\b/i.test(value) ? `Bearer ${MASK}` : MASK;
  return isSecretName(lower) ? MASK : value;
}

/** Headers (names lowercased, in their order) with their secrets masked. */
export function maskHeaders(headers: Iterable<readonly [string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    out[lower] = maskedHeader(lower, value);
  }
  return out;
}

/** A copy of a JSON value with every field whose name says secret masked, at any depth. */
export function maskJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskJson);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value))
    out[name] = isSecretName(name) && field !== null ? MASK : maskJson(field);
  return out;
}

/** A name that holds a credential, as part of a pattern over text. */
const SECRET_NAME_IN_TEXT = String.raw`[\w-]*(?:${SECRET_WORDS})[\w-]*`;
const SECRET_JSON_FIELD = new RegExp(String.raw`"(${SECRET_NAME_IN_TEXT})"(\s*):(\s*)"(?:[^"\\]|\\.)*"?`, 'gi');
const SECRET_HEADER = new RegExp(String.raw`^(\s*${SECRET_NAME_IN_TEXT}:\s*)\S.*$`, 'i');
const BEARER = /(authorization:\s*Bearer\s+)\S+/gi;
/** The emulator's own tokens and secrets (svc_at_…, svc_whsec_…), wherever a text names one. */
const SERVICE_CREDENTIAL = /\bsvc_[a-z]+_[A-Za-z0-9_-]{8,}/g;

/**
 * A line of free text (a demo's narration) as the inspector shows it: JSON fields and headers named like a
 * credential, bearer tokens and any svc_… token or secret read "••••" (a JSON value cut short mid-string too).
 */
export function maskText(line: string): string {
  return line
    .replace(SECRET_JSON_FIELD, `"$1"$2:$3"${MASK}"`)
    .replace(SECRET_HEADER, `$1${MASK}`)
    .replace(BEARER, `$1${MASK}`)
    .replace(SERVICE_CREDENTIAL, `svc_${MASK}`);
}
