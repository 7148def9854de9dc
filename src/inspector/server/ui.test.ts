/**
 * The inspector's static routes: the page and its two files, served without the control token (and nothing else
 * is), with the page's Content-Security-Policy; a missing build answers 503 saying how to make it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { httpRequest } from '../../../spec-tests/support/raw-http.js';
import { CONTROLS } from '../../control/table.js';
import { createEmulator } from '../../emulator.js';
import { inspectorAsset, inspectorPage, packageRoot } from './ui.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const TOKEN = 'control-token-for-the-ui-test';

describe('GET /_emulator/ui', () => {
  it('answers the page, which loads only its own script and style sheet, by version, under a policy with no inline script', async () => {
    const emu = createEmulator();
    const response = await emu.fetch('/_emulator/ui');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    const html = await response.text();
    const version = (name: string) =>
      createHash('sha256')
        .update(readFileSync(join(ROOT, 'dist', 'inspector', name)))
        .digest('hex')
        .slice(0, 16);
    expect([...html.matchAll(/<(?:script|link)\b[^>]*>/g)].map((m) => m[0])).toEqual([
      '<link rel="icon" href="data:,">',
      `<link rel="stylesheet" href="/_emulator/ui/assets/app.css?v=${version('app.css')}">`,
      `<script src="/_emulator/ui/assets/app.js?v=${version('app.js')}" defer>`,
    ]);
    expect(html).not.toMatch(/<script>|<style|style=/);
  });

  it('shows a request made before the page was ever asked for with its headers and bodies: the history keeps them from the start', async () => {
    const emu = createEmulator();
    const acme = emu.companies.create();
    const answer = await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${acme.token}` } });
    expect((await emu.fetch('/_emulator/ui')).status).toBe(200);
    const detail = (await (
      await emu.fetch(
        `/_emulator/inspector/companies/${acme.companyId}/items/req:${answer.headers.get('x-request-id')}`,
      )
    ).json()) as { sections: { title: string }[] };
    expect(detail.sections.map((s) => s.title)).toEqual([
      'Request',
      'Request headers',
      'Answer headers (200)',
      'Answer body',
    ]);
  });

  it('serves app.js and app.css from dist/inspector with their media types, to be kept when asked for by version; any other name is 404', async () => {
    const emu = createEmulator();
    const html = await (await emu.fetch('/_emulator/ui')).text();
    const script = /src="([^"]+)"/.exec(html)![1]!;
    const js = await emu.fetch(script);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await js.arrayBuffer()).equals(readFileSync(join(ROOT, 'dist', 'inspector', 'app.js')))).toBe(
      true,
    );
    for (const path of ['/_emulator/ui/assets/app.js', '/_emulator/ui/assets/app.js?v=0123456789abcdef'])
      expect((await emu.fetch(path)).headers.get('cache-control'), path).toBe('no-cache');
    const css = await emu.fetch('/_emulator/ui/assets/app.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    for (const name of ['index.html', '..%2Fpackage.json', 'app.js.map', 'constructor']) {
      const response = await emu.fetch(`/_emulator/ui/assets/${name}`);
      expect(response.status, name).toBe(404);
      expect(((await response.json()) as { erro: { codigo: string } }).erro.codigo).toBe('rota_nao_encontrada');
    }
  });

  it('answers 503 with the fix when the page is not built', async () => {
    const root = mkdtempSync(join(tmpdir(), 'catalog-emulator-ui-'));
    const response = (await inspectorAsset('app.js', undefined, () => root))!;
    expect(response.status).toBe(503);
    const body = (await response.json()) as { erro: { codigo: string; mensagem: string } };
    expect(body.erro.codigo).toBe('servico_indisponivel');
    expect(body.erro.mensagem).toBe(
      `The inspector page is not built: ${join(root, 'dist', 'inspector', 'app.js')} is missing. Run \`npm run build\` in the catalog-emulator package (an installed package ships it built).`,
    );
    expect((await inspectorAsset('app.js', undefined, () => undefined))!.status).toBe(503);
    expect(await inspectorAsset('nope.js', undefined, () => root)).toBeUndefined();
    // The page still loads without a build, naming the files without a version (which then answer the 503).
    const html = await (await inspectorPage(() => root)).text();
    expect(html).toContain('<script src="/_emulator/ui/assets/app.js" defer>');
  });

  it('finds the package root walking up from any folder of the package, and none outside it', () => {
    expect(packageRoot(join(ROOT, 'src', 'inspector', 'server'))).toBe(ROOT);
    expect(packageRoot(join(ROOT, 'dist', 'bin'))).toBe(ROOT);
    const elsewhere = mkdtempSync(join(tmpdir(), 'catalog-emulator-root-'));
    mkdirSync(join(elsewhere, 'a', 'b'), { recursive: true });
    writeFileSync(join(elsewhere, 'package.json'), '{"name": "someone-else"}');
    writeFileSync(join(elsewhere, 'a', 'package.json'), 'not json');
    expect(packageRoot(join(elsewhere, 'a', 'b'))).toBeUndefined();
    writeFileSync(join(elsewhere, 'package.json'), '{"name": "catalog-emulator"}');
    expect(packageRoot(join(elsewhere, 'a', 'b'))).toBe(elsewhere);
  });
});

describe('the control token and the inspector page', () => {
  it('opens the page and its two files without the token', async () => {
    const emu = createEmulator({ controlToken: TOKEN });
    for (const path of ['/_emulator/ui', '/_emulator/ui/assets/app.js', '/_emulator/ui/assets/app.css'])
      expect((await emu.fetch(path)).status, path).toBe(200);
    // An unknown file is the route's 404, not a 401: the route is open, and holds no data either way.
    expect((await emu.fetch('/_emulator/ui/assets/other.js')).status).toBe(404);
  });

  it('over HTTP, still refuses a Host the server does not answer to (403): the token is waived, not the Host check', async () => {
    const emu = createEmulator({ controlToken: TOKEN });
    const server = await emu.listen({ port: 0 });
    try {
      for (const path of ['/_emulator/ui', '/_emulator/ui/assets/app.js']) {
        expect((await httpRequest(server.url, 'GET', path, { host: 'evil.example' })).status, path).toBe(403);
        expect((await httpRequest(server.url, 'GET', path)).status, path).toBe(200);
      }
    } finally {
      await emu.close();
    }
  });

  it('still needs the token for every other /_emulator path, and for other methods or shapes of the page paths', async () => {
    const emu = createEmulator({ controlToken: TOKEN });
    // The pages (the docs page's too) and their files are the only rows open without the token.
    expect(CONTROLS.filter((r) => r.open).map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /docs',
      'GET /docs/assets/:name',
      'GET /ui',
      'GET /ui/assets/:name',
    ]);
    const paths = CONTROLS.filter((r) => !r.open).map(
      (r) => [r.method, `/_emulator${r.path.replace(/:(\w+)/g, 'x-$1')}`] as const,
    );
    expect(paths.length).toBeGreaterThan(40);
    const more = [
      ['POST', '/_emulator/ui'],
      ['DELETE', '/_emulator/ui/assets/app.js'],
      ['HEAD', '/_emulator/ui'],
      ['GET', '/_emulator/ui/'],
      ['GET', '/_emulator/ui/assets'],
      ['GET', '/_emulator/ui/assets/app.js/x'],
      ['GET', '/_emulator/uix'],
      ['POST', '/_emulator/docs'],
      ['HEAD', '/_emulator/docs'],
      ['GET', '/_emulator/docs/assets/init.js/x'],
      ['GET', '/_emulator/inspector/stream'],
      ['GET', '/_emulator/inspector/companies/x/timeline'],
      ['GET', '/_emulator/inspector/demo'],
      ['GET', '/_emulator/nothing-here'],
    ] as const;
    for (const [method, path] of [...paths, ...more]) {
      const response = await emu.fetch(path, { method, headers: { 'content-type': 'application/json' } });
      expect(response.status, `${method} ${path}`).toBe(401);
    }
  });
});
