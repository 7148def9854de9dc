/**
 * GET / (and HEAD /) of a server with controls: where to go from the server's root. A browser (`Accept: text/html`)
 * gets a small page of links, anything else one JSON object: the API's base, the controls, the docs page, the
 * inspector, both OpenAPI documents, the version, and whether the controls need the control token (never the token).
 *
 * Part of the controls, so a server without them (--no-controls, a deployment's shape) answers / as the unknown path
 * it is. Not a row of the controls' table: the rows are the paths under /_emulator, each an operation of
 * openapi.controls.json; this is the one path outside them, mounted beside them by the facade (src/emulator.ts).
 * Served without the token, like the docs and inspector pages: it holds only the server's public addresses.
 */
import { createHash } from 'node:crypto';
import type { ControlSettings } from '../engine/config.js';
import { VERSION } from '../version.js';

/** What GET / answers as JSON; the HTML page links the same addresses. */
interface Landing {
  readonly name: 'catalog-emulator';
  readonly version: string;
  /** The service API's base: every operation's path begins with it. */
  readonly api: string;
  readonly controls: string;
  readonly docs: string;
  readonly inspector: string;
  readonly openapi: { readonly api: string; readonly controls: string };
  readonly controlTokenRequired: boolean;
}

/** The addresses, on the origin the request named (its Host), so that they work for whoever asked. */
function landing(origin: string, settings: ControlSettings): Landing {
  return {
    name: 'catalog-emulator',
    version: VERSION,
    api: `${origin}/v1`,
    controls: `${origin}/_emulator`,
    docs: `${origin}/_emulator/docs`,
    inspector: `${origin}/_emulator/ui`,
    openapi: { api: `${origin}/_emulator/openapi.json`, controls: `${origin}/_emulator/openapi.controls.json` },
    controlTokenRequired: settings.token !== undefined,
  };
}

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem}code{font-size:.9em}li{margin:.4rem 0}';

/** Nothing runs and nothing loads: the one style sheet is inline, allowed by its hash. */
const CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(links: Landing): string {
  const code = (text: string) => `<code>${escapeHtml(text)}</code>`;
  const guarded = links.controlTokenRequired ? ' (with the control token)' : '';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>catalog-emulator ${escapeHtml(links.version)}</title>
  <link rel="icon" href="data:,">
  <style>${STYLE}</style>
</head>
<body>
  <h1>catalog-emulator ${escapeHtml(links.version)}</h1>
  <p>The Catalog Integration Service, emulated.</p>
  <ul>
    <li><a href="/_emulator/docs">Docs</a>: the service API and the controls, rendered from their OpenAPI documents.</li>
    <li><a href="/_emulator/ui">Inspector</a>: each company's timeline; move the clock, add faults.</li>
    <li>The service API: ${code(links.api)}, with a company's bearer token (e.g. ${code('GET /v1/empresa')}).</li>
    <li>The controls: <a href="/_emulator">${code(links.controls)}</a>${guarded}.</li>
    <li>OpenAPI documents${guarded}: <a href="/_emulator/openapi.json">the service API's</a>, <a href="/_emulator/openapi.controls.json">the controls'</a>.</li>
  </ul>
  <p>${links.controlTokenRequired ? 'The controls need the control token this server was started with: send <code>Authorization: Bearer &lt;control token&gt;</code>. The docs and inspector pages ask for it.' : 'The controls need no token.'}</p>
</body>
</html>
`;
}

/** GET /: the page for a browser, the JSON otherwise. */
export function landingAnswer(request: Request, settings: ControlSettings): Response {
  const links = landing(new URL(request.url).origin, settings);
  const html = /\btext\/html\b/i.test(request.headers.get('accept') ?? '');
  const headers = { 'cache-control': 'no-cache', vary: 'Accept' };
  if (!html)
    return new Response(`${JSON.stringify(links, null, 2)}\n`, {
      headers: { ...headers, 'content-type': 'application/json' },
    });
  return new Response(page(links), {
    headers: {
      ...headers,
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
    },
  });
}
