import { describe, expect, it } from 'vitest';
import { span } from './items.js';

describe('span', () => {
  it('says a virtual span in its two largest units', () => {
    expect([0, 250, 1_000, 5_000, 300_000, 305_000, 1_800_000, 7_200_000, 5_400_000, 86_400_000, 93_600_000, 90_061_000].map(span)).toEqual([
      '+0ms',
      '+250ms',
      '+1s',
      '+5s',
      '+5m',
      '+5m5s',
      '+30m',
      '+2h',
      '+1h30m',
      '+1d',
      '+1d2h',
      '+1d1h',
    ]);
  });
});
