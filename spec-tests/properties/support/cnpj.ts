/**
 * An implementation of the CNPJ check digits written from the rule alone (DESIGN §5, vectors/cnpj.json),
 * independent of src/core/cnpj.ts, so the properties compare two readings of the rule.
 */
import fc from 'fast-check';

export const CNPJ_BASE_CHARS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const DIGITS = '0123456789';

/** value = ASCII − 48; weights 2..9 cycling from the rightmost character; r = sum mod 11; r < 2 ? 0 : 11 − r. */
export function oracleDigit(chars: string): number {
  const values = [...chars].map((ch) => ch.charCodeAt(0) - 48);
  let sum = 0;
  values.reverse().forEach((value, i) => {
    sum += value * (2 + (i % 8));
  });
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

/** The 12-character base followed by its two check digits (the second over base + first digit). */
export function oracleCnpj(base12: string): string {
  const first = oracleDigit(base12);
  const second = oracleDigit(base12 + String(first));
  return `${base12}${first}${second}`;
}

/** Valid by the independent reading of the rule. */
export function oracleValid(cnpj: string): boolean {
  return /^[0-9A-Z]{12}[0-9]{2}$/.test(cnpj) && oracleCnpj(cnpj.slice(0, 12)) === cnpj;
}

export const baseChar = fc.constantFrom(...CNPJ_BASE_CHARS);
export const base12 = fc.string({ unit: baseChar, minLength: 12, maxLength: 12 });
/** A branch order number (characters 9–12): alphanumeric in the new CNPJ. */
export const order4 = fc.string({ unit: baseChar, minLength: 4, maxLength: 4 });

/** A valid CNPJ of the company root. */
export function branchCnpj(root: string, order: string): string {
  return oracleCnpj(`${root}${order}`);
}
