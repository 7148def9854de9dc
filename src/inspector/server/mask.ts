/**
 * What the inspector never hands out: a credential or a secret. Every header and JSON value its data routes answer
 * passes through here on the server, so neither the page nor anyone scripting against the routes ever receives one.
 *
 * - `authorization`: `Bearer ••••` (the scheme stays, so a reader still sees how the request authenticated);
 * - any header or JSON field whose name contains token, secret, segredo, senha, password or credential: `••••`.
 */
export const MASK = '••••';

const SECRET_NAME = /token|secret|segredo|senha|password|credential/i;

/** Whether a field or header of this name holds a secret. */
const isSecretName = (name: string): boolean => SECRET_NAME.test(name);

/** One header's value as the inspector shows it. */
function maskedHeader(name: string, value: string): string {
  const lower = name.toLowerCase();
  if (lower === 'authorization' || lower === 'proxy-authorization') return /^\s*bearer\b/i.test(value) ? `Bearer ${MASK}` : MASK;
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
  for (const [name, field] of Object.entries(value)) out[name] = isSecretName(name) && field !== null ? MASK : maskJson(field);
  return out;
}
