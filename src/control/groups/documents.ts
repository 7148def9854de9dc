/**
 * The OpenAPI documents, as this server serves them, and the docs page that renders both (docs.ts). Over HTTP only:
 * in process, the package exports the documents (apiDocument, controlsDocument).
 */
import { ControlError } from '../control-error.js';
import { docsAsset, docsPage } from '../docs.js';
import { control, type Control } from '../row.js';

const jsonText = (text: string) => new Response(text, { headers: { 'content-type': 'application/json' } });

export const ROWS = [
  control({
    method: 'GET',
    path: '/openapi.json',
    id: 'getApiDocument',
    summary: "The service API's OpenAPI 3.1 document: the package's openapi.json, naming this server as its server",
    tag: 'Documents',
    scope: 'emulator',
    success: {
      200: { description: 'The document, generated once per process.', body: { mediaType: 'application/json' } },
    },
    errors: {},
    run: ({ documents, request }) => jsonText(documents.text('api', new URL(request.url).origin)),
    sample: () => ({ path: '/openapi.json' }),
  }),
  control({
    method: 'GET',
    path: '/openapi.controls.json',
    id: 'getControlsDocument',
    summary:
      "The controls' OpenAPI 3.1 document, this one: the package's openapi.controls.json, naming this server as its " +
      'server',
    tag: 'Documents',
    scope: 'emulator',
    success: {
      200: { description: 'The document, generated once per process.', body: { mediaType: 'application/json' } },
    },
    errors: {},
    run: ({ documents, request }) => jsonText(documents.text('controls', new URL(request.url).origin)),
    sample: () => ({ path: '/openapi.controls.json' }),
  }),
  control({
    method: 'GET',
    path: '/docs',
    id: 'getDocsPage',
    summary:
      'A page that renders both documents (Swagger UI, served from the package: no network needed; served without ' +
      'the control token, it asks for it)',
    tag: 'Documents',
    scope: 'emulator',
    open: true,
    success: { 200: { description: 'The HTML page.', body: { mediaType: 'text/html' } } },
    errors: {},
    run: () => docsPage(),
    sample: () => ({ path: '/docs' }),
  }),
  control({
    method: 'GET',
    path: '/docs/assets/:name',
    id: 'getDocsAsset',
    summary: "A script, style sheet or icon of the docs page, from the package's swagger-ui-dist",
    tag: 'Documents',
    scope: 'emulator',
    open: true,
    success: { 200: { description: 'The file, with its media type.', body: { mediaType: '*/*' } } },
    errors: { 404: 'rota_nao_encontrada: not a file of the page.' },
    run: async ({ params }) => {
      const asset = await docsAsset(params.name);
      if (asset !== undefined) return asset;
      throw new ControlError(404, 'rota_nao_encontrada', `The docs page has no file ${params.name}.`, 'path.name');
    },
    sample: () => ({ path: '/docs/assets/swagger-ui.css' }),
  }),
] as const satisfies readonly Control[];
