import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const SHARED = new URL('../../../shared/vectors/', import.meta.url);
const LOCAL = new URL('../../spec-tests/vectors/', import.meta.url);

describe('vendored test vectors', () => {
  for (const name of ['cnpj.json', 'webhook-signature.json']) {
    it(`${name} is here, and equals the shared original when that is beside the clone`, () => {
      const local = readFileSync(new URL(name, LOCAL), 'utf8');
      expect(JSON.parse(local)).toBeTruthy();
      const shared = new URL(name, SHARED);
      if (existsSync(shared)) expect(local).toBe(readFileSync(shared, 'utf8'));
    });
  }
});
