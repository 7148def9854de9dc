/**
 * The documents and the docs page as the emulator serves them under /_emulator: the shipped files naming the
 * server they were asked at, behind the control token and (over a socket) the Host check like every control; the
 * page and its files (from the installed swagger-ui-dist) without the token, behind the Host check.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { httpRequest } from '../../spec-tests/support/raw-http.js';
import { createEmulator } from '../emulator.js';
import { closedAfterEach } from '../../spec-tests/support/closed-after-each.js';

const ROOT = new URL('../../', import.meta.url);
const SWAGGER_UI = dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')));
const closing = closedAfterEach();

/** The shipped file with its one server replaced by `url`, as a server serves it. */
function shippedServedAt(file: string, url: string): string {
  const shipped = readFileSync(new URL(file, ROOT), 'utf8');
  const document = JSON.parse(shipped) as { servers: unknown };
  expect(document.servers).toEqual([
    { url: 'http://127.0.0.1:4747', description: 'A local catalog-emulator (npx catalog-emulator)' },
  ]);
  document.servers = [{ url, description: 'The catalog-emulator that served this document' }];
  return `${JSON.stringify(document, null, 2)}\n`;
}

describe('GET /_emulator/openapi.json and /_emulator/openapi.controls.json', () => {
  for (const [path, file] of [
    ['/_emulator/openapi.json', 'openapi.json'],
    ['/_emulator/openapi.controls.json', 'openapi.controls.json'],
  ] as const) {
    it(`${path} answers the shipped ${file}, as JSON, naming as its server the origin it was asked at`, async () => {
      const emu = createEmulator();
      const response = await emu.fetch(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      // In process, the origin emu.fetch resolves a relative URL against.
      expect(await response.text()).toBe(shippedServedAt(file, 'http://catalog-emulator.local'));
    });

    it(`${path} over HTTP names the server at the address it was asked at: its real port, the name in Host`, async () => {
      const emu = closing(createEmulator());
      const server = await emu.listen({ port: 0 });
      const byAddress = await httpRequest(server.url, 'GET', path);
      expect(byAddress.status).toBe(200);
      expect(byAddress.text).toBe(shippedServedAt(file, server.url));
      const byName = await httpRequest(server.url, 'GET', path, { host: `localhost:${server.port}` });
      expect((byName.body as { servers: unknown }).servers).toEqual([
        { url: `http://localhost:${server.port}`, description: 'The catalog-emulator that served this document' },
      ]);
    });
  }

  it('need the control token of an emulator started with one, like every control; the docs page and its files do not (it asks for it)', async () => {
    const emu = createEmulator({ controlToken: 'ctl-secret-1' });
    for (const path of ['/_emulator/openapi.json', '/_emulator/openapi.controls.json']) {
      const refused = await emu.fetch(path);
      expect(refused.status, path).toBe(401);
      expect(((await refused.json()) as { erro: { codigo: string } }).erro.codigo).toBe('token_de_controle_ausente');
      expect((await emu.fetch(path, { headers: { authorization: 'Bearer ctl-secret-1' } })).status, path).toBe(200);
    }
    for (const path of [
      '/_emulator/docs',
      '/_emulator/docs/assets/swagger-ui-bundle.js',
      '/_emulator/docs/assets/init.js',
    ])
      expect((await emu.fetch(path)).status, path).toBe(200);
    // Open to reads only, as the inspector's page is.
    expect(
      (await emu.fetch('/_emulator/docs', { method: 'POST', headers: { 'content-type': 'application/json' } })).status,
    ).toBe(401);
  });

  it('over HTTP, refuses a Host the server does not answer to (403), like every control', async () => {
    const emu = closing(createEmulator());
    const server = await emu.listen({ port: 0 });
    expect((await httpRequest(server.url, 'GET', '/_emulator/docs', { host: 'evil.example' })).status).toBe(403);
    expect((await httpRequest(server.url, 'GET', '/_emulator/openapi.json', { host: 'evil.example' })).status).toBe(
      403,
    );
    const page = await httpRequest(server.url, 'GET', '/_emulator/docs');
    expect(page.status).toBe(200);
  });
});

describe('GET /_emulator/docs', () => {
  it('is an HTML page that loads only its own files, under a policy that forbids any other', async () => {
    const emu = createEmulator();
    const response = await emu.fetch('/_emulator/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    const html = await response.text();
    const loaded = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(loaded).toEqual([
      '/_emulator/docs/assets/swagger-ui.css',
      '/_emulator/docs/assets/favicon-32x32.png',
      '/_emulator/docs/assets/favicon-16x16.png',
      '/_emulator/docs/assets/swagger-ui-bundle.js',
      '/_emulator/docs/assets/swagger-ui-standalone-preset.js',
      '/_emulator/docs/assets/init.js',
    ]);
    expect(html).not.toMatch(/<script>/); // no inline script: the policy would refuse it
  });

  it("serves swagger-ui-dist's files byte for byte, with their media types", async () => {
    const emu = createEmulator();
    const types = {
      'swagger-ui.css': 'text/css; charset=utf-8',
      'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
      'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
      'favicon-32x32.png': 'image/png',
      'favicon-16x16.png': 'image/png',
    };
    for (const [name, type] of Object.entries(types)) {
      const response = await emu.fetch(`/_emulator/docs/assets/${name}`);
      expect(response.status, name).toBe(200);
      expect(response.headers.get('content-type'), name).toBe(type);
      expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(join(SWAGGER_UI, name))), name).toBe(true);
    }
  });

  it('starts Swagger UI on both documents, with no validator badge (it would send the document away)', async () => {
    const emu = createEmulator();
    const response = await emu.fetch('/_emulator/docs/assets/init.js');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const script = await response.text();
    expect(script).toContain("{ url: '/_emulator/openapi.json', name: 'Service API' }");
    expect(script).toContain("{ url: '/_emulator/openapi.controls.json', name: 'Emulator controls' }");
    expect(script).toContain('validatorUrl: null');
    // A 401 of the first document asks for the control token, which then goes with every control's request.
    expect(script).toContain('if (answer.status === 401) askForToken(token !== undefined);');
    expect(script).toContain(
      'if (token !== undefined && isControl(url.pathname) && !hasAuthorization(request.headers)) {',
    );
    expect(script).not.toMatch(/localStorage|sessionStorage|location\.hash/);
  });

  it('serves no other file: 404 with the error body for any other name, the package folder never walked', async () => {
    const emu = createEmulator();
    for (const name of ['index.html', 'package.json', 'constructor', 'toString']) {
      const response = await emu.fetch(`/_emulator/docs/assets/${name}`);
      expect(response.status, name).toBe(404);
      const body = (await response.json()) as { erro: { codigo: string; request_id: string; caminho: string } };
      expect(body.erro).toEqual({
        codigo: 'rota_nao_encontrada',
        mensagem: expect.stringMatching(/^The docs page has no file /),
        request_id: '_emulator',
        caminho: 'path.name',
      });
    }
    // An encoded slash never reaches the route: no path with one names a route.
    for (const name of ['..%2Fpackage.json', '..%2F..%2Fhono%2Fpackage.json']) {
      const response = await emu.fetch(`/_emulator/docs/assets/${name}`);
      expect(response.status, name).toBe(404);
      const body = (await response.json()) as { erro: { codigo: string; mensagem: string; request_id: string } };
      expect(body.erro).toEqual({
        codigo: 'rota_nao_encontrada',
        mensagem: expect.stringMatching(
          /^No control at GET \/_emulator\/docs\/assets\/\.\.%2F.* \(a path with a "\." or "\.\." segment/,
        ),
        request_id: '_emulator',
      });
    }
    expect((await emu.fetch('/_emulator/docs/assets/a/b')).status).toBe(404);
  });
});
