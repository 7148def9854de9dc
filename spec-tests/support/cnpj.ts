/**
 * The CNPJ check digits written from the rule alone (the Receita Federal's, spec-tests/vectors/cnpj.json), independent
 * of src/core/cnpj.ts (never import src here), so the tests compare two readings of the rule: the spec tests build
 * their establishments' CNPJs with it, the properties check src against it.
 */
import fc from 'fast-check';

export const CNPJ_BASE_CHARS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const DIGITS = '0123456789';

/** The rule's remainder: value = ASCII − 48; weights 2..9 cycling from the rightmost character; r = sum mod 11. */
export function oracleRemainder(chars: string): number {
  const values = [...chars].map((ch) => ch.charCodeAt(0) - 48);
  let sum = 0;
  values.reverse().forEach((value, i) => {
    sum += value * (2 + (i % 8));
  });
  return sum % 11;
}

/** The check digit over `chars`: r < 2 ? 0 : 11 − r, r the rule's remainder. */
export function oracleDigit(chars: string): number {
  const r = oracleRemainder(chars);
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

/** A valid CNPJ of the company `root` (8 digits) with the 4-character order part `order` (A-Z, 0-9). */
export function cnpjOf(root: string, order: string): string {
  if (order.length !== 4) throw new Error(`an order part has 4 characters, not ${JSON.stringify(order)}`);
  return oracleCnpj(`${root}${order}`);
}

/** The order part of establishment number `n` (2 → '0002'), for callers that count establishments. */
function orderOf(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n > 9999) throw new Error(`an establishment number is 0–9999, not ${n}`);
  return String(n).padStart(4, '0');
}

/** A valid CNPJ of the company `root` for establishment number `n` (order part zero-padded: 2 → '0002'). */
export function cnpjOfNumber(root: string, n: number): string {
  return cnpjOf(root, orderOf(n));
}

/** The head office's CNPJ of the company `root` (order part 0001). */
export function headOfficeCnpj(root: string): string {
  return cnpjOf(root, '0001');
}

const baseChar = fc.constantFrom(...CNPJ_BASE_CHARS);
export const base12 = fc.string({ unit: baseChar, minLength: 12, maxLength: 12 });
/** A branch order number (characters 9–12): alphanumeric in the new CNPJ. */
export const order4 = fc.string({ unit: baseChar, minLength: 4, maxLength: 4 });
