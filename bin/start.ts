/**
 * The start of `serve`: the banner it prints for people; the one JSON line `--json` prints instead, and the file
 * `--ready-file PATH` writes, atomically, once the server listens — so a script reads where the server is and
 * how to call it instead of scraping the banner, or polls for the file.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { CreatedCompanyInfo, SeededCompany } from '../src/index.js';
import { escapeControls } from './log-format.js';

/** The start line: `kind` "ready" tells it from the log lines that follow it under --json. */
export interface StartLine {
  readonly kind: 'ready';
  readonly version: string;
  /** The API's base URL (paths begin with /v1). */
  readonly url: string;
  /** The controls, their docs page and the inspector page; null under --no-controls. */
  readonly controls: string | null;
  readonly docs: string | null;
  /** The inspector page: the timeline of each company, and the controls to drive it. */
  readonly inspector: string | null;
  /** Whether every control needs "Authorization: Bearer <control token>" (the token itself is never printed). */
  readonly controlTokenRequired: boolean;
  /**
   * The companies the server starts with, each with the bearer token of its first credential: the ready company,
   * then those of the fixtures, each with its `name` and the further `credentials` the fixtures gave it.
   */
  readonly companies: readonly StartCompany[];
  readonly clock: { readonly mode: 'real' | 'manual'; readonly now: string };
  readonly seed: number | string;
  /** The server's process id: what to signal to stop it. */
  readonly pid: number;
}

type StartCompany = Pick<CreatedCompanyInfo, 'companyId' | 'cnpjRoot' | 'token' | 'headOffice'> & {
  readonly name?: string;
  readonly credentials?: readonly { readonly permissions: readonly string[]; readonly token: string }[];
};

export function startLine(
  fields: Omit<StartLine, 'kind' | 'controls' | 'docs' | 'inspector' | 'pid' | 'companies'> & {
    controls: boolean;
    companies: readonly CreatedCompanyInfo[];
    fixtures: readonly SeededCompany[];
  },
): StartLine {
  const company = ({ companyId, cnpjRoot, token, headOffice }: CreatedCompanyInfo) => ({
    companyId,
    cnpjRoot,
    token,
    headOffice: { id: headOffice.id, cnpj: headOffice.cnpj },
  });
  return {
    kind: 'ready',
    version: fields.version,
    url: fields.url,
    controls: fields.controls ? `${fields.url}/_emulator` : null,
    docs: fields.controls ? `${fields.url}/_emulator/docs` : null,
    inspector: fields.controls ? `${fields.url}/_emulator/ui` : null,
    controlTokenRequired: fields.controlTokenRequired,
    companies: fields.companies.map((info) => {
      const seeded = fields.fixtures.find((f) => f.companyId === info.companyId);
      return seeded === undefined
        ? company(info)
        : {
            ...company(info),
            name: seeded.name,
            credentials: seeded.credentials.map(({ permissions, token }) => ({ permissions: [...permissions], token })),
          };
    }),
    clock: fields.clock,
    seed: fields.seed,
    pid: process.pid,
  };
}

/**
 * The banner: the server's URL, the ready company and its token, what the fixtures created, the controls' pages, the
 * clock and the state file (`state`, with whether it was loaded). Every value goes through escapeControls, as the
 * pretty log's do: a fixtures file is text from elsewhere, and a name holding a line break, a carriage return, an
 * escape sequence or a line separator would otherwise write a line of its own (a forged `token:`) or drive the
 * terminal. The JSON start line needs nothing of it: JSON.stringify escapes every control character.
 */
export function banner(
  started: StartLine,
  fixtures: readonly SeededCompany[],
  state?: { readonly path: string; readonly loaded: boolean },
): string {
  const [company] = started.companies;
  const token = e(company?.token ?? '');
  const guarded = started.controlTokenRequired;
  return (
    `catalog-emulator ${e(started.version)} listening on ${e(started.url)}\n` +
    `  company:   ${e(company?.cnpjRoot ?? '')} (${e(company?.companyId ?? '')}), all permissions\n` +
    `  token:     ${token}\n` +
    fixturesBanner(fixtures) +
    (started.controls !== null && started.docs !== null && started.inspector !== null
      ? `  inspector: ${e(started.inspector)}${guarded ? ' (its data behind the control token too)' : ''}\n` +
        `  controls:  ${e(started.controls)}${guarded ? ' (send "Authorization: Bearer <control token>")' : ''}\n` +
        `  docs:      ${e(started.docs)}${guarded ? ' (its documents behind the control token too)' : ''}\n`
      : '  controls:  none (--no-controls: the API alone, as a deployment serves it; no docs page, no inspector)\n') +
    `  clock:     ${e(started.clock.mode)}, seed ${e(String(started.seed))}, now ${e(started.clock.now)}\n` +
    (state === undefined ? '' : `  state:     ${e(state.path)} (${state.loaded ? 'loaded' : 'new'})\n`) +
    `Try: curl -H "Authorization: Bearer ${token}" ${e(started.url)}/v1/empresa\n`
  );
}

/**
 * The fixtures' companies as the banner shows them: each with its id, token and head office, then its
 * establishments, catalogs with their products, and webhook destination with its secret (which only this shows).
 */
function fixturesBanner(companies: readonly SeededCompany[]): string {
  let out = '';
  for (const company of companies) {
    out += `  company:   ${e(company.cnpjRoot)} (${e(company.companyId)}), ${e(company.name)}: from the fixtures\n`;
    out += `  token:     ${e(company.token)}\n`;
    for (const credential of company.credentials)
      out += `  token:     ${e(credential.token)}  (${e(credential.permissions.join(', '))})\n`;
    out += `    head office    ${e(company.headOffice.id)}  ${e(company.headOffice.cnpj)}\n`;
    for (const x of company.establishments) out += `    establishment  ${e(x.id)}  ${e(x.cnpj)}  ${e(x.nome)}\n`;
    for (const c of company.catalogs) {
      out += `    catalog        ${e(c.id)}  ${e(c.nome)}\n`;
      for (const p of c.products)
        out += `      product      ${e(p.id)}  ncm ${e(p.ncm)}${p.sku === null ? '' : `  sku ${e(p.sku)}`}${p.id_externo === null ? '' : `  id_externo ${e(p.id_externo)}`}\n`;
    }
    if (company.webhook) out += `    webhook        ${e(company.webhook.url)}  secret ${e(company.webhook.secret)}\n`;
  }
  return out;
}

const e = escapeControls;

/**
 * Before listening: the ready file's folder must exist, and a file left by an earlier run is removed, so a script
 * polling for it never reads a dead server's URL. Returns why it cannot be used, or undefined.
 */
export function prepareReadyFile(path: string): string | undefined {
  let folder;
  try {
    folder = statSync(dirname(path));
  } catch {
    return `the folder of ${path} does not exist`;
  }
  if (!folder.isDirectory()) return `${dirname(path)} is not a folder`;
  try {
    if (statSync(path).isDirectory()) return `${path} is a folder`;
    unlinkSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') return `cannot remove the ${path} an earlier run left (${code ?? (error as Error).message})`;
  }
  return undefined;
}

/**
 * Writes `text` to `path` so that a reader sees no file or the whole file, never part of it: a temporary file
 * beside it, flushed to disk, then renamed over it (a rename within a folder is atomic).
 */
export function writeReadyFile(path: string, text: string): void {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const fd = openSync(temporary, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** On a clean exit the ready file goes: the server it names is gone. */
export function removeReadyFile(path: string): void {
  rmSync(path, { force: true });
}
