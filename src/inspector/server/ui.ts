/**
 * GET /_emulator/ui and GET /_emulator/ui/assets/:name: the inspector page and its two built files. They hold no
 * data (the page fetches it, with the control token, from /_emulator/inspector/…), which is why they are the only
 * /_emulator paths served without the token: a browser's navigation cannot send an Authorization header.
 *
 * The files are made by `npm run build` (scripts/build-inspector.ts) into dist/inspector/ at the package root. The
 * root is found by walking up from this module to the package.json named catalog-emulator, so the same code finds
 * them from src/ (vitest, tsx), dist/src/, dist/cjs/ and the bundled dist/bin/. Nothing is read before the page is
 * first asked for.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiError, CONTROL_REQUEST_ID, errorResponse } from '../../http/errors.js';

const ASSETS = '/_emulator/ui/assets';

/** The built files, by the name the page asks for, with their media types. */
const FILES: Readonly<Record<string, string>> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/**
 * The page names each file with its content's hash (`app.js?v=…`), so the browser keeps the file until the build
 * changes it and a reload asks only for the page (and its data). The empty icon spares the browser's request for
 * /favicon.ico, which the API would answer 404.
 */
const page = (versions: Readonly<Record<string, string | undefined>>) => {
  const href = (name: string) => `${ASSETS}/${name}${versions[name] === undefined ? '' : `?v=${versions[name]}`}`;
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>catalog-emulator inspector</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="${href('app.css')}">
  <script src="${href('app.js')}" defer></script>
</head>
<body>
  <div id="app"><noscript>The inspector needs JavaScript.</noscript></div>
</body>
</html>
`;
};

/**
 * Only this server's own script runs, and it talks only to this server. No inline script or style: the page sets
 * positions through the CSSOM (element.style), which a style-src policy does not govern.
 */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The page; `rootOf` finds the package root (from this module unless a test says otherwise). */
export async function inspectorPage(rootOf: () => string | undefined = ourRoot): Promise<Response> {
  const versions: Record<string, string | undefined> = {};
  for (const name of Object.keys(FILES)) versions[name] = (await builtFile(rootOf(), name))?.version;
  return new Response(page(versions), {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CSP,
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
    },
  });
}

/** The folder holding package.json of catalog-emulator, walking up from `from`; undefined when none is found. */
export function packageRoot(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'catalog-emulator') return dir;
      } catch {
        // An unreadable package.json on the way up is not ours: keep walking.
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

let root: string | null | undefined;
const ourRoot = (): string | undefined => {
  if (root === undefined) root = packageRoot(dirname(fileURLToPath(import.meta.url))) ?? null;
  return root ?? undefined;
};

/** A built file's bytes and the hash that names this build of it; undefined when it cannot be read. */
async function builtFile(
  rootFolder: string | undefined,
  name: string,
): Promise<{ bytes: Uint8Array; version: string } | undefined> {
  if (rootFolder === undefined) return undefined;
  try {
    const bytes = await readFile(join(rootFolder, 'dist', 'inspector', name));
    return { bytes, version: createHash('sha256').update(bytes).digest('hex').slice(0, 16) };
  } catch {
    return undefined;
  }
}

/**
 * A built file of the page; undefined for a name that is none (no path is ever built from the request); 503 with
 * the fix when the build is missing. Asked for by the version the page names (`version`), it may be kept for a
 * year; otherwise the browser asks again each time. Read on each request, not kept by the server: the page is
 * asked for rarely, and a rebuild shows on the next reload.
 */
export async function inspectorAsset(
  name: string,
  version: string | undefined,
  rootOf: () => string | undefined = ourRoot,
): Promise<Response | undefined> {
  const type = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
  if (type === undefined) return undefined;
  const rootFolder = rootOf();
  const file = await builtFile(rootFolder, name);
  if (file === undefined) {
    const where =
      rootFolder === undefined
        ? 'dist/inspector/ (the package root was not found)'
        : join(rootFolder, 'dist', 'inspector', name);
    return errorResponse(
      apiError(
        503,
        'servico_indisponivel',
        `The inspector page is not built: ${where} is missing. Run \`npm run build\` in the catalog-emulator package (an installed package ships it built).`,
      ),
      CONTROL_REQUEST_ID,
    );
  }
  const cache = version === file.version ? 'public, max-age=31536000, immutable' : 'no-cache';
  return new Response(file.bytes, {
    headers: { 'content-type': type, 'cache-control': cache, 'x-content-type-options': 'nosniff' },
  });
}
