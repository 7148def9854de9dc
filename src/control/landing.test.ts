/**
 * GET / of a server with controls (landing.ts): JSON, or a page for a browser, naming where to go; open like the
 * docs page, behind the Host check; and nothing of it without the controls, nor anywhere under /v1.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { httpRequest } from '../../spec-tests/support/raw-http.js';
import { createEmulator, type Emulator } from '../emulator.js';
import { VERSION } from '../version.js';

const open: Emulator[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((emu) => emu.close()));
});

const landingAt = (origin: string, controlTokenRequired: boolean) => ({
  name: 'catalog-emulator',
  version: VERSION,
  api: `${origin}/v1`,
  controls: `${origin}/_emulator`,
  docs: `${origin}/_emulator/docs`,
  inspector: `${origin}/_emulator/ui`,
  openapi: { api: `${origin}/_emulator/openapi.json`, controls: `${origin}/_emulator/openapi.controls.json` },
  controlTokenRequired,
});

describe('GET /', () => {
  it('answers JSON naming the API, the controls, the docs page, the inspector and both documents, at the origin asked', async () => {
    const emu = createEmulator();
    open.push(emu);
    const server = await emu.listen({ port: 0 });
    for (const accept of [undefined, 'application/json', '*/*']) {
      const answer = await httpRequest(server.url, 'GET', '/', accept === undefined ? {} : { accept });
      expect(answer.status, accept).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/json');
      expect(answer.headers.get('vary')).toBe('Accept');
      expect(answer.headers.get('cache-control')).toBe('no-cache');
      expect(answer.body).toEqual(landingAt(server.url, false));
    }
    // Named as the client named it: another name of the server, or in process the origin emu.fetch resolves against.
    expect((await httpRequest(server.url, 'GET', '/', { host: `localhost:${server.port}` })).body).toEqual(
      landingAt(`http://localhost:${server.port}`, false),
    );
    expect(await (await emu.fetch('/')).json()).toEqual(landingAt('http://catalog-emulator.local', false));
  });

  it('answers a browser (Accept: text/html) a page of links, under a policy that lets nothing run or load', async () => {
    const emu = createEmulator();
    const answer = await emu.fetch('/', {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.headers.get('vary')).toBe('Accept');
    expect(answer.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/,
    );
    const html = await answer.text();
    expect([...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1])).toEqual([
      'data:,',
      '/_emulator/docs',
      '/_emulator/ui',
      '/_emulator',
      '/_emulator/openapi.json',
      '/_emulator/openapi.controls.json',
    ]);
    expect(html).toContain(`<title>catalog-emulator ${VERSION}</title>`);
    expect(html).toContain('<code>http://catalog-emulator.local/v1</code>');
    expect(html).toContain('The controls need no token.');
    expect(html).not.toMatch(/<script/);
  });

  it('HEAD / answers as GET / does, without the body', async () => {
    const emu = createEmulator();
    open.push(emu);
    const server = await emu.listen({ port: 0 });
    const answer = await httpRequest(server.url, 'HEAD', '/');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.text).toBe('');
  });

  it('is open on an emulator with a control token, saying the controls need it and never what it is', async () => {
    const emu = createEmulator({ controlToken: 'ctl-landing-secret' });
    const json = await emu.fetch('/');
    expect(json.status).toBe(200);
    const text = await json.text();
    expect(JSON.parse(text)).toEqual(landingAt('http://catalog-emulator.local', true));
    const page = await (await emu.fetch('/', { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('The controls need the control token this server was started with');
    expect(page).toContain(
      '<a href="/_emulator"><code>http://catalog-emulator.local/_emulator</code></a> (with the control token).',
    );
    for (const body of [text, page]) expect(body).not.toContain('ctl-landing-secret');
  });

  it('over HTTP, refuses a Host the server does not answer to (403), as every path', async () => {
    const emu = createEmulator();
    open.push(emu);
    const server = await emu.listen({ port: 0 });
    const refused = await httpRequest(server.url, 'GET', '/', { host: 'evil.example' });
    expect(refused.status).toBe(403);
    expect((refused.body as { erro: { codigo: string } }).erro.codigo).toBe('host_nao_permitido');
  });

  it('is the only answer of /: other methods, and every path under /v1, answer as before (404, the API error body)', async () => {
    const emu = createEmulator();
    const post = await emu.fetch('/', { method: 'POST' });
    expect(post.status).toBe(404);
    expect(((await post.json()) as { erro: { codigo: string; mensagem: string } }).erro).toMatchObject({
      codigo: 'rota_nao_encontrada',
      mensagem: 'No operation at POST /. Paths begin with /v1 (API) or /_emulator (controls).',
    });
    for (const path of ['/v1', '/v1/', '/index.html']) {
      const answer = await emu.fetch(path);
      expect(answer.status, path).toBe(404);
      expect(((await answer.json()) as { erro: { codigo: string } }).erro.codigo, path).toBe('rota_nao_encontrada');
    }
  });

  it('without the controls (listen({ controls: false }), --no-controls) / is the unknown path it was', async () => {
    const emu = createEmulator();
    open.push(emu);
    const server = await emu.listen({ port: 0, controls: false });
    for (const accept of ['application/json', 'text/html']) {
      const answer = await httpRequest(server.url, 'GET', '/', { accept });
      expect(answer.status, accept).toBe(404);
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect((answer.body as { erro: { codigo: string; mensagem: string } }).erro).toMatchObject({
        codigo: 'rota_nao_encontrada',
        mensagem: 'No operation at GET /. Paths begin with /v1.',
      });
    }
  });
});
