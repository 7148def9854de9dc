/**
 * CNPJ, in the alphanumeric form the Receita Federal adopts (spec "Establishment": 12 characters of A-Z
 * and 0-9, then 2 check digits). Rule (the Receita Federal's, pinned by spec-tests/vectors/cnpj.json): each character's
 * value is its ASCII code − 48; weights 2..9 cycle from the right; r = sum mod 11; digit = r < 2 ? 0 : 11 − r. The
 * second digit is computed over the 12 characters plus the first digit.
 */
const SHAPE = /^[A-Z0-9]{12}[0-9]{2}$/;

function checkDigit(chars: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = chars.length - 1; i >= 0; i--) {
    sum += (chars.charCodeAt(i) - 48) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

/** The two check digits of a 12-character base. */
export function cnpjCheckDigits(base12: string): string {
  const first = checkDigit(base12);
  const second = checkDigit(base12 + String(first));
  return `${first}${second}`;
}

export function isValidCnpj(cnpj: string): boolean {
  return SHAPE.test(cnpj) && cnpj.slice(12) === cnpjCheckDigits(cnpj.slice(0, 12));
}

/** The first 8 characters: the company's root, shared by its head office and branches. */
export function cnpjRoot(cnpj: string): string {
  return cnpj.slice(0, 8);
}

/** Head office CNPJ: root + order number 0001 + check digits. */
export function headOfficeCnpj(root: string): string {
  const base = `${root}0001`;
  return base + cnpjCheckDigits(base);
}
