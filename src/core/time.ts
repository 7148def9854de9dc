/** Instants in the core are Unix milliseconds handed in by the shell's clock; the wire shows ISO 8601. */
export type Instant = number;

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export function isoString(instant: Instant): string {
  return new Date(instant).toISOString();
}

const UNIT_MS: Record<string, number> = { ms: 1, s: SECOND, m: MINUTE, h: HOUR, d: DAY };

/**
 * A duration: milliseconds as a number, or text such as "90s", "15m", "24h", "31d", "1h30m", "250ms".
 * Returns undefined when the text is not one.
 */
export function parseDuration(input: number | string): number | undefined {
  if (typeof input === 'number') return Number.isSafeInteger(input) && input >= 0 ? input : undefined;
  const text = input.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let end = 0;
  for (let match = part.exec(text); match; match = part.exec(text)) {
    total += Number(match[1]) * UNIT_MS[match[2]!]!;
    end = part.lastIndex;
  }
  if (end === 0 || end !== text.length || !Number.isFinite(total)) return undefined;
  return Math.round(total);
}
