import { describe, expect, it } from 'vitest';
import { DAY, HOUR, MINUTE, SECOND, isoString, parseDuration } from './time.js';

describe('parseDuration', () => {
  it.each([
    ['90s', 90 * SECOND],
    ['15m', 15 * MINUTE],
    ['24h', 24 * HOUR],
    ['31d', 31 * DAY],
    ['1h30m', HOUR + 30 * MINUTE],
    ['250ms', 250],
    ['1d2h3m4s5ms', DAY + 2 * HOUR + 3 * MINUTE + 4 * SECOND + 5],
    ['1.5s', 1500],
    ['0s', 0],
    ['1500', 1500],
    [' 90s ', 90 * SECOND],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it('takes a non-negative safe integer number as milliseconds', () => {
    expect(parseDuration(0)).toBe(0);
    expect(parseDuration(1500)).toBe(1500);
    expect(parseDuration(Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1])('refuses the number %d', (n) => {
    expect(parseDuration(n)).toBeUndefined();
  });

  it.each(['', '   ', 'abc', 's', 'ms', '10x', '10 s', '-5s', '1h 30m', 'h1', '5sec', '10s!', '1.s', '1e3'])('refuses the text %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('isoString', () => {
  it('formats Unix ms as ISO 8601 with milliseconds, in UTC', () => {
    expect(isoString(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(isoString(Date.UTC(2026, 0, 1))).toBe('2026-01-01T00:00:00.000Z');
    expect(isoString(Date.UTC(2026, 1, 28, 23, 59, 59, 999))).toBe('2026-02-28T23:59:59.999Z');
  });
});
