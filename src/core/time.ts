/** Instants in the core are Unix milliseconds handed in by the shell's clock; the wire shows ISO 8601. */
export type Instant = number;

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export function isoString(instant: Instant): string {
  return new Date(instant).toISOString();
}

const UNIT_MS: Record<string, bigint> = {
  ms: 1n,
  s: BigInt(SECOND),
  m: BigInt(MINUTE),
  h: BigInt(HOUR),
  d: BigInt(DAY),
};
/** No duration anyone writes is longer ("1d2h3m4s5ms" is 11): a longer text is refused before any arithmetic. */
const MAX_DURATION_TEXT = 64;

/**
 * A duration: milliseconds as a number, or text such as "90s", "15m", "24h", "31d", "1h30m", "250ms", "1.5s".
 * Returns undefined when the input is not one: not a whole number of milliseconds ("0.5ms", "1.0001s": never
 * rounded), more than Number.MAX_SAFE_INTEGER ms, or text longer than 64 characters. Decimal text is read
 * exactly (in integers), so "1.1s" is 1100, not 1100.0000000000002.
 */
export function parseDuration(input: number | string): number | undefined {
  if (typeof input === 'number') return Number.isSafeInteger(input) && input >= 0 ? input : undefined;
  if (typeof input !== 'string') return undefined;
  const text = input.trim();
  if (text.length > MAX_DURATION_TEXT) return undefined;
  if (/^\d+$/.test(text)) return whole(BigInt(text));
  const part = /(\d+)(?:\.(\d+))?(ms|s|m|h|d)/gy;
  let total = 0n;
  let end = 0;
  for (let match = part.exec(text); match; match = part.exec(text)) {
    const fraction = match[2] ?? '';
    const scale = 10n ** BigInt(fraction.length);
    const scaled = BigInt(match[1]! + fraction) * UNIT_MS[match[3]!]!;
    if (scaled % scale !== 0n) return undefined;
    total += scaled / scale;
    end = part.lastIndex;
  }
  if (end === 0 || end !== text.length) return undefined;
  return whole(total);
}

const whole = (ms: bigint): number | undefined => (ms <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(ms) : undefined);
