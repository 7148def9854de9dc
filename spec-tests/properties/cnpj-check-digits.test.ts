/**
 * Property: generated valid CNPJs pass, and a single-character change fails whenever the Receita Federal
 * rule says it must.
 *
 * "Any single-character change fails" is NOT a property of the rule for alphanumeric CNPJs, so it is not
 * asserted as such: the rule weighs each character by (ASCII − 48) modulo 11, so replacing a character by
 * one whose value differs by a multiple of 11 ('6'↔'A', '7'↔'B', 'A'↔'L', ...) keeps both check digits,
 * and the "r < 2 → 0" collapse lets even a few digit-for-digit changes through. About 6–7 % of random
 * single-character changes of a valid CNPJ are still valid CNPJs. What holds, and is asserted:
 *   - every CNPJ built by the rule (independent implementation, support/cnpj.ts) is accepted;
 *   - a change of either check digit is always refused;
 *   - any other single-character change is refused exactly when the rule says the result is invalid,
 *     and accepted when the rule says it is valid (the two readings of the rule agree everywhere);
 *   - over HTTP, POST /v1/estabelecimentos answers 201 for a generated CNPJ of the company's root, and for
 *     a mutation: 422 cnpj_invalido when the rule refuses it, otherwise what a valid CNPJ gets
 *     (422 cnpj_raiz_divergente if the root changed, 409 cnpj_duplicado if taken, 201 if new).
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cnpjCheckDigits, isValidCnpj } from '../../src/index.js';
import { newKey } from '../support/client.js';
import {
  base12,
  cnpjOf,
  CNPJ_BASE_CHARS,
  DIGITS,
  oracleCnpj,
  oracleDigit,
  oracleRemainder,
  oracleValid,
  order4,
} from '../support/cnpj.js';
import { lab, PROPERTY_TIMEOUT, runs } from './support/lab.js';

interface Vectors {
  readonly valid: readonly string[];
  readonly invalid: readonly { readonly cnpj: string; readonly why: string }[];
}
const vectors = JSON.parse(readFileSync(new URL('../vectors/cnpj.json', import.meta.url), 'utf8')) as Vectors;

/** A valid CNPJ, a position and a different allowed character for it: letters or digits in the first 12, digits in the last 2. */
const mutation = base12.chain((base) =>
  fc
    .record({
      valid: fc.constant(oracleCnpj(base)),
      position: fc.integer({ min: 0, max: 13 }),
      pick: fc.nat(),
    })
    .map(({ valid, position, pick }) => {
      const alphabet = position < 12 ? CNPJ_BASE_CHARS : DIGITS;
      const others = [...alphabet].filter((ch) => ch !== valid[position]);
      const replacement = others[pick % others.length]!;
      return {
        valid,
        position,
        replacement,
        mutated: valid.slice(0, position) + replacement + valid.slice(position + 1),
      };
    }),
);

describe('CNPJ check digits (isValidCnpj)', { timeout: PROPERTY_TIMEOUT }, () => {
  it('the independent implementation of the rule reproduces the shared vectors', () => {
    for (const cnpj of vectors.valid) expect(oracleValid(cnpj), cnpj).toBe(true);
    for (const { cnpj, why } of vectors.invalid) expect(oracleValid(cnpj), `${cnpj}: ${why}`).toBe(false);
  });

  it('accepts every valid vector and refuses every invalid one', () => {
    for (const cnpj of vectors.valid) expect(isValidCnpj(cnpj), cnpj).toBe(true);
    for (const { cnpj, why } of vectors.invalid) expect(isValidCnpj(cnpj), `${cnpj}: ${why}`).toBe(false);
  });

  it('accepts every CNPJ whose check digits are computed by the rule, and computes the same digits', () => {
    fc.assert(
      fc.property(base12, (base) => {
        const cnpj = oracleCnpj(base);
        expect(cnpjCheckDigits(base)).toBe(cnpj.slice(12));
        expect(isValidCnpj(cnpj)).toBe(true);
      }),
      { numRuns: runs(3000) },
    );
  });

  it('refuses any change of either check digit', () => {
    fc.assert(
      fc.property(
        mutation.filter((m) => m.position >= 12),
        ({ mutated }) => {
          expect(isValidCnpj(mutated)).toBe(false);
        },
      ),
      { numRuns: runs(2000) },
    );
  });

  it('refuses a single-character change exactly when the rule says the result is invalid', () => {
    fc.assert(
      fc.property(mutation, ({ mutated }) => {
        expect(isValidCnpj(mutated)).toBe(oracleValid(mutated));
      }),
      { numRuns: runs(5000) },
    );
  });

  it("refuses a single-character change of a digit into a digit unless the rule's remainders 0 and 1 collide", () => {
    // A change by d (|d| ≤ 9, never a multiple of 11) moves the first remainder; it can keep the first digit
    // only through r ∈ {0, 1} → 0, and then must also keep the second through the same collapse.
    fc.assert(
      fc.property(
        mutation.filter(
          (m) => m.position < 12 && DIGITS.includes(m.valid[m.position]!) && DIGITS.includes(m.replacement),
        ),
        ({ valid, mutated }) => {
          const remainders = (cnpj: string) => {
            const first = oracleDigit(cnpj.slice(0, 12));
            return [oracleRemainder(cnpj.slice(0, 12)), oracleRemainder(cnpj.slice(0, 12) + String(first))] as const;
          };
          const [a1, a2] = remainders(valid);
          const [b1, b2] = remainders(mutated);
          const collapsed = a1 !== b1 && a1 < 2 && b1 < 2 && a2 !== b2 && a2 < 2 && b2 < 2;
          expect(isValidCnpj(mutated)).toBe(collapsed);
        },
      ),
      { numRuns: runs(3000) },
    );
  });

  it('accepts changes by a multiple of 11 in value, which the rule cannot detect (e.g. "D" ↔ "9", "A" ↔ "L")', () => {
    expect(isValidCnpj('12ABC345019E35')).toBe(true); // 12ABC34501DE35 with D (20) → 9 (9)
    expect(isValidCnpj('12LBC34501DE35')).toBe(true); // A (17) → L (28)
    expect(isValidCnpj('12ABC34501DE36')).toBe(false);
  });
});

describe('POST /v1/estabelecimentos with generated CNPJs', { timeout: PROPERTY_TIMEOUT }, () => {
  it('answers 201 for a generated CNPJ of the company root, and 422 cnpj_invalido for a mutation the rule refuses', async () => {
    const { emu, api: anyApi } = lab();
    await fc.assert(
      fc.asyncProperty(
        order4.filter((o) => o !== '0001'),
        fc.integer({ min: 0, max: 13 }),
        fc.nat(),
        async (order, position, pick) => {
          const company = emu.companies.create();
          const api = anyApi.as(company.token);
          const valid = cnpjOf(company.cnpjRoot, order);
          const created = await api.post('/v1/estabelecimentos', { cnpj: valid, nome: 'Filial' }, { key: newKey() });
          expect(created.status).toBe(201);
          expect(created.body.cnpj).toBe(valid);
          expect(created.headers.get('location')).toBe(`/v1/estabelecimentos/${created.body.id}`);

          const alphabet = position < 12 ? CNPJ_BASE_CHARS : DIGITS;
          const others = [...alphabet].filter((ch) => ch !== valid[position]);
          const mutated = valid.slice(0, position) + others[pick % others.length]! + valid.slice(position + 1);
          const answer = await api.post('/v1/estabelecimentos', { cnpj: mutated, nome: 'Filial' }, { key: newKey() });
          if (answer.status >= 400) expect(answer.body.erro.request_id).toBe(answer.headers.get('x-request-id'));
          if (!oracleValid(mutated)) {
            expect(answer.status).toBe(422);
            expect(answer.body.erro).toMatchObject({ codigo: 'cnpj_invalido', caminho: 'body.cnpj' });
          } else if (mutated.slice(0, 8) !== company.cnpjRoot) {
            expect(answer.status).toBe(422);
            expect(answer.body.erro).toMatchObject({ codigo: 'cnpj_raiz_divergente', caminho: 'body.cnpj' });
          } else if (mutated === company.headOffice.cnpj) {
            expect(answer.status).toBe(409);
            expect(answer.body.erro).toMatchObject({ codigo: 'cnpj_duplicado', caminho: 'body.cnpj' });
          } else {
            expect(answer.status).toBe(201);
            expect(answer.body.cnpj).toBe(mutated);
          }
        },
      ),
      { numRuns: runs(1000) },
    );
  });
});
