/**
 * Durations and sizes as the CLI's flags take them (conformance --deadline, --max-body): a whole number with its
 * unit, checked against a range; undefined for anything else, so the caller says what it takes.
 */

const TIME_UNITS: Readonly<Record<string, number>> = { '': 1, ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 };
const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

function quantity(text: string, units: Readonly<Record<string, number>>, max: number): number | undefined {
  const match = /^(\d+)([a-z]*)$/i.exec(text.trim());
  const unit = match === null ? undefined : units[match[2]!.toLowerCase()];
  if (match === null || unit === undefined) return undefined;
  const value = Number(match[1]) * unit;
  return Number.isSafeInteger(value) && value >= 1 && value <= max ? value : undefined;
}

/** 90s, 10m (or 10min), 1h, 1500ms or 1500 (milliseconds): from 1 ms to 24 h, in milliseconds. */
export function parseDuration(text: string): number | undefined {
  return quantity(text, TIME_UNITS, 24 * 3_600_000);
}

/** 16MiB, 512KiB, 1GiB, or bytes (1048576 or 1048576B): from 1 byte to 1 GiB, in bytes. */
export function parseSize(text: string): number | undefined {
  return quantity(text, SIZE_UNITS, 1024 ** 3);
}
