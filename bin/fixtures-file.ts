/**
 * `serve --fixtures FILE`: the fixtures read from a JSON file (their format is checked by createEmulator), and
 * the banner lines that show what they created.
 */
import { readFileSync } from 'node:fs';
import type { SeededCompany } from '../src/index.js';

/** A fixtures file that cannot be read or is not JSON: the message says why. */
export class FixturesFileError extends Error {}

export function readFixturesFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new FixturesFileError(code === 'ENOENT' ? 'no such file' : `cannot read it (${code ?? (error as Error).message})`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new FixturesFileError(`is not JSON (${(error as Error).message})`);
  }
}

/**
 * The fixtures' companies as the banner shows them: each with its id, token and head office, then its
 * establishments, catalogs with their products, and webhook destination with its secret (which only this shows).
 */
export function fixturesBanner(companies: readonly SeededCompany[]): string {
  let out = '';
  for (const company of companies) {
    out += `  company:   ${company.cnpjRoot} (${company.companyId}), ${company.name}: from the fixtures\n`;
    out += `  token:     ${company.token}\n`;
    for (const credential of company.credentials) out += `  token:     ${credential.token}  (${credential.permissions.join(', ')})\n`;
    out += `    head office    ${company.headOffice.id}  ${company.headOffice.cnpj}\n`;
    for (const e of company.establishments) out += `    establishment  ${e.id}  ${e.cnpj}  ${e.nome}\n`;
    for (const c of company.catalogs) {
      out += `    catalog        ${c.id}  ${c.nome}\n`;
      for (const p of c.products) out += `      product      ${p.id}  ncm ${p.ncm}${p.sku === null ? '' : `  sku ${p.sku}`}${p.id_externo === null ? '' : `  id_externo ${p.id_externo}`}\n`;
    }
    if (company.webhook) out += `    webhook        ${company.webhook.url}  secret ${company.webhook.secret}\n`;
  }
  return out;
}
