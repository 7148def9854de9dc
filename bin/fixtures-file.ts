/**
 * `serve --fixtures FILE`: the fixtures read from a JSON file (their format is checked by createEmulator), and
 * the banner lines that show what they created.
 */
import type { SeededCompany } from '../src/index.js';
import { FileError, FIXTURES_FILE_LIMIT, readRegular } from './regular-file.js';

/** A fixtures file that cannot be read or is not JSON: the message says why. */
export class FixturesFileError extends Error {}

/** The fixtures in `path`: a regular file (symbolic links followed) of at most 64 MiB, read as JSON. */
export function readFixturesFile(path: string): unknown {
  let text: string;
  try {
    const bytes = readRegular(path, FIXTURES_FILE_LIMIT, 'a fixtures file');
    if (bytes === undefined) throw new FixturesFileError('no such file');
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof FileError) throw new FixturesFileError(error.message);
    throw error;
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
