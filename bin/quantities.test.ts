import { describe, expect, it } from 'vitest';
import { parseDuration, parseSize } from './quantities.js';

describe('the CLI quantities', () => {
  it('reads a duration with its unit, milliseconds without one', () => {
    expect(['1500', '1500ms', '90s', '10m', '10min', '1h', ' 2S '].map(parseDuration)).toEqual([
      1500, 1500, 90_000, 600_000, 600_000, 3_600_000, 2000,
    ]);
  });

  it('refuses a duration that is not a whole number of a known unit, zero, or over 24 h', () => {
    expect(
      ['', 's', '1.5s', '-1s', '10 m', '10d', '1y', '0', '0s', '25h', '86400001', '9'.repeat(20)].map(parseDuration),
    ).toEqual(Array(12).fill(undefined));
    expect(parseDuration('24h')).toBe(86_400_000);
  });

  it('reads a size in bytes, KiB, MiB or GiB, up to 1 GiB', () => {
    expect(['100', '100B', '512KiB', '16MiB', '16mib', '1GiB'].map(parseSize)).toEqual([
      100, 100, 524_288, 16_777_216, 16_777_216, 1_073_741_824,
    ]);
    expect(['', '0', '16MB', '16M', '1.5MiB', '2GiB', '-1', 'KiB'].map(parseSize)).toEqual(Array(8).fill(undefined));
  });
});
