/**
 * GET /_emulator/docs: a page that renders the two OpenAPI documents with Swagger UI, from the swagger-ui-dist
 * package the emulator depends on (no CDN: it works offline). Nothing of it is read before the page is asked for:
 * the package's folder is resolved, and each file read, on its first request, then kept for the process.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The files of swagger-ui-dist the page loads, by the name the page asks for, with their media types. */
const PACKAGE_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui.css.map': 'application/json',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-16x16.png': 'image/png',
  'favicon-32x32.png': 'image/png',
};

const ASSETS = '/_emulator/docs/assets';

/**
 * Starts Swagger UI on both documents. A file of its own rather than an inline script, so the page's
 * Content-Security-Policy can forbid inline scripts altogether.
 */
const INIT_SCRIPT = `// catalog-emulator: the docs page's start (src/control/docs.ts).
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    urls: [
      { url: '/_emulator/openapi.json', name: 'Service API' },
      { url: '/_emulator/openapi.controls.json', name: 'Emulator controls' },
    ],
    'urls.primaryName': 'Service API',
    dom_id: '#swagger-ui',
    deepLinking: true,
    // The default validator badge sends the document to a public service: nothing leaves this machine.
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
    // The documents name the default address (127.0.0.1:4747); this page is served by the emulator that answers
    // "Try it out", whatever its port, so every request goes to the page's own origin.
    requestInterceptor: function (request) {
      var url = new URL(request.url, window.location.href);
      if (url.origin !== window.location.origin) request.url = window.location.origin + url.pathname + url.search;
      return request;
    },
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>catalog-emulator: the contract as OpenAPI</title>
  <link rel="stylesheet" href="${ASSETS}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${ASSETS}/favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="${ASSETS}/favicon-16x16.png" sizes="16x16">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${ASSETS}/swagger-ui-bundle.js"></script>
  <script src="${ASSETS}/swagger-ui-standalone-preset.js"></script>
  <script src="${ASSETS}/init.js"></script>
</body>
</html>
`;

/**
 * Only this server's own files run and load; Swagger UI styles inline and draws icons from data: URLs. The
 * documents and "Try it out" are fetched from the same origin.
 */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function docsPage(): Response {
  return new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CSP, 'cache-control': 'no-cache' } });
}

const cache = new Map<string, Promise<Uint8Array>>();
let packageFolder: string | undefined;

/** The folder of the installed swagger-ui-dist, found as Node finds the package from here. */
function swaggerUiFolder(): string {
  packageFolder ??= dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')));
  return packageFolder;
}

/** A file of the page, or undefined for a name that is none (no path is ever built from the request). */
export async function docsAsset(name: string): Promise<Response | undefined> {
  if (name === 'init.js') return new Response(INIT_SCRIPT, { headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' } });
  const type = Object.hasOwn(PACKAGE_FILES, name) ? PACKAGE_FILES[name] : undefined;
  if (type === undefined) return undefined;
  let bytes = cache.get(name);
  if (!bytes) {
    bytes = readFile(join(swaggerUiFolder(), name));
    cache.set(name, bytes);
    // A failed read (the package removed) is tried again next time rather than remembered.
    bytes.catch(() => cache.delete(name));
  }
  return new Response(await bytes, { headers: { 'content-type': type, 'cache-control': 'public, max-age=3600' } });
}
