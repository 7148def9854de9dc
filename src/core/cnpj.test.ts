import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cnpjCheckDigits, cnpjRoot, headOfficeCnpj, isValidCnpj } from './cnpj.js';

interface CnpjVectors {
  readonly valid: string[];
  readonly invalid: { cnpj: string; why: string }[];
}

const vectors = JSON.parse(
  readFileSync(new URL('../../spec-tests/vectors/cnpj.json', import.meta.url), 'utf8'),
) as CnpjVectors;

describe('isValidCnpj against the shared vectors', () => {
  it('has vectors to check', () => {
    expect(vectors.valid.length).toBeGreaterThan(0);
    expect(vectors.invalid.length).toBeGreaterThan(0);
  });

  it.each(vectors.valid)('accepts the valid CNPJ %s', (cnpj) => {
    expect(isValidCnpj(cnpj)).toBe(true);
  });

  it.each(vectors.valid)('computes the check digits of %s from its first 12 characters', (cnpj) => {
    expect(cnpjCheckDigits(cnpj.slice(0, 12))).toBe(cnpj.slice(12));
  });

  it.each(vectors.invalid.map((v) => [v.cnpj, v.why] as const))('refuses %s (%s)', (cnpj) => {
    expect(isValidCnpj(cnpj)).toBe(false);
  });

  it('refuses the empty string, 15 characters and surrounding white space', () => {
    expect(isValidCnpj('')).toBe(false);
    expect(isValidCnpj('112223330001810')).toBe(false);
    expect(isValidCnpj(' 11222333000181')).toBe(false);
    expect(isValidCnpj('11222333000181\n')).toBe(false);
  });
});

describe('cnpjRoot', () => {
  it('is the first 8 characters', () => {
    expect(cnpjRoot('11222333000181')).toBe('11222333');
    expect(cnpjRoot('12ABC34501DE35')).toBe('12ABC345');
  });
});

describe('headOfficeCnpj', () => {
  it('is root + 0001 + check digits', () => {
    expect(headOfficeCnpj('11222333')).toBe('11222333000181');
    expect(headOfficeCnpj('00000000')).toBe('00000000000191');
    expect(headOfficeCnpj('ABCD1234')).toBe('ABCD1234000147');
  });

  it('gives a valid CNPJ whose root is the given root, for numeric and alphanumeric roots', () => {
    for (const root of ['11222333', '00000000', 'ABCD1234', 'ZZZZZZZZ', '9A8B7C6D', '12345678']) {
      const cnpj = headOfficeCnpj(root);
      expect(isValidCnpj(cnpj), cnpj).toBe(true);
      expect(cnpjRoot(cnpj)).toBe(root);
      expect(cnpj.slice(8, 12)).toBe('0001');
    }
  });
});
