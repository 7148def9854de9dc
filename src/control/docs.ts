/**
 * GET /_emulator/docs: a page that renders the two OpenAPI documents with Swagger UI, from the swagger-ui-dist
 * package the emulator depends on (no CDN: it works offline). The page and its files are served without the
 * control token (the row says `open`); the documents need it, and the page asks for it. Nothing of it is read before the page is asked for:
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
 *
 * The documents are controls: on an emulator started with a control token they answer 401 without it, while the
 * page and its files are served to a browser's navigation, which sends no header. So the page first asks for the
 * API's document; on a 401 it asks for the token in a form, as the inspector does, and keeps it in a variable only
 * (never in storage, the page or a URL); then every request to /_emulator (the documents, a control's "Try it out")
 * carries it, unless "Authorize" set one.
 */
const INIT_SCRIPT = `// catalog-emulator: the docs page's start (src/control/docs.ts).
(function () {
  var documents = [
    { url: '/_emulator/openapi.json', name: 'Service API' },
    { url: '/_emulator/openapi.controls.json', name: 'Emulator controls' },
  ];
  var token;

  var isControl = function (path) {
    return path === '/_emulator' || path.indexOf('/_emulator/') === 0;
  };
  var hasAuthorization = function (headers) {
    return Object.keys(headers || {}).some(function (name) { return name.toLowerCase() === 'authorization'; });
  };

  function load() {
    fetch(documents[0].url, { headers: token === undefined ? {} : { authorization: 'Bearer ' + token } }).then(
      function (answer) {
        if (answer.status === 401) askForToken(token !== undefined);
        else start();
      },
      // Unreachable: Swagger UI says so itself.
      start,
    );
  }

  function askForToken(wrong) {
    var form = document.getElementById('control-token');
    var input = document.createElement('input');
    input.type = 'password';
    input.name = 'control-token';
    input.autocomplete = 'off';
    input.placeholder = 'control token';
    input.setAttribute('aria-label', 'Control token');
    var label = document.createElement('label');
    label.textContent = wrong ? 'That is not the control token. Control token:' : 'This emulator has a control token. Control token:';
    label.appendChild(input);
    var button = document.createElement('button');
    button.type = 'submit';
    button.textContent = 'Open';
    form.replaceChildren(label, button);
    form.onsubmit = function (event) {
      event.preventDefault();
      token = input.value === '' ? undefined : input.value;
      form.hidden = true;
      form.replaceChildren();
      load();
    };
    form.hidden = false;
    input.focus();
  }

  function start() {
    window.ui = SwaggerUIBundle({
      urls: documents,
      'urls.primaryName': 'Service API',
      dom_id: '#swagger-ui',
      deepLinking: true,
      // The default validator badge sends the document to a public service: nothing leaves this machine.
      validatorUrl: null,
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      layout: 'StandaloneLayout',
      // The documents a server serves name it; a document opened from elsewhere names 127.0.0.1:4747. This page
      // is served by the emulator that answers "Try it out", so every request goes to the page's own origin.
      requestInterceptor: function (request) {
        var url = new URL(request.url, window.location.href);
        if (url.origin !== window.location.origin) request.url = window.location.origin + url.pathname + url.search;
        if (token !== undefined && isControl(url.pathname) && !hasAuthorization(request.headers)) {
          request.headers = request.headers || {};
          request.headers.Authorization = 'Bearer ' + token;
        }
        return request;
      },
    });
  }

  window.addEventListener('load', load);
})();
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>catalog-emulator: the contract as OpenAPI</title>
  <link rel="stylesheet" href="${ASSETS}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${ASSETS}/favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="${ASSETS}/favicon-16x16.png" sizes="16x16">
  <style>.control-token { margin: 1.5rem 2rem; font: 14px sans-serif; } .control-token input { margin: 0 .5rem; }</style>
</head>
<body>
  <form id="control-token" class="control-token" hidden></form>
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
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function docsPage(): Response {
  return new Response(PAGE, {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CSP,
      'cache-control': 'no-cache',
    },
  });
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
  if (name === 'init.js')
    return new Response(INIT_SCRIPT, {
      headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' },
    });
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
