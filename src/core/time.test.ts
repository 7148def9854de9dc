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
    ['1.1s', 1100],
    ['0.001s', 1],
    ['1.25m', 75 * SECOND],
    ['2.000ms', 2],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
    ['104249991d', 104_249_991 * DAY],
    [`${'0'.repeat(62)}1s`, SECOND],
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

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1])(
    'refuses the number %d',
    (n) => {
      expect(parseDuration(n)).toBeUndefined();
    },
  );

  it.each(['', '   ', 'abc', 's', 'ms', '10x', '10 s', '-5s', '1h 30m', 'h1', '5sec', '10s!', '1.s', '1e3'])(
    'refuses the text %j',
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );

  it.each([
    ['half a millisecond', '0.5ms'],
    ['a duration ending in a fraction of a millisecond', '1.0005s'],
    ['a tiny fraction that would round to 0', '0.0000001s'],
    ['more milliseconds than a number holds exactly', '9007199254740992'],
    ['more days than a number of milliseconds holds exactly', '104249992d'],
    ['a sum past the largest safe integer', '104249991d1d'],
    ['twenty digits', '99999999999999999999'],
    ['text longer than 64 characters', `${'0'.repeat(63)}1s`],
  ])('refuses %s (%j) instead of rounding it or losing precision', (_name, text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('refuses what is neither a number nor text', () => {
    expect(parseDuration(undefined as never)).toBeUndefined();
    expect(parseDuration({} as never)).toBeUndefined();
  });
});

describe('isoString', () => {
  it('formats Unix ms as ISO 8601 with milliseconds, in UTC', () => {
    expect(isoString(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(isoString(Date.UTC(2026, 0, 1))).toBe('2026-01-01T00:00:00.000Z');
    expect(isoString(Date.UTC(2026, 1, 28, 23, 59, 59, 999))).toBe('2026-02-28T23:59:59.999Z');
  });
});
