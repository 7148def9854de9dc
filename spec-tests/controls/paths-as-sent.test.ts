/**
 * Over a socket a path is routed as the client sent it. A URL resolves `.` and `..` segments, `%2e` forms included,
 * so a server that routed the request's URL would take `POST /_emulator/companies/%2e%2e/reset` for the reset of the
 * whole emulator, and `GET /v1/%2e%2e/_emulator/state` for the controls. Such a path, and one with an encoded slash
 * or a backslash, names no route: 404 rota_nao_encontrada, nothing done, and the journal keeps the path as sent.
 *
 * Each test serves an emulator of its own (listen() in this process) and writes the request target byte for byte.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createEmulator, type ActivityEntry, type RunningServer } from '../../src/index.js';
import { readAnswer, type Answer } from '../support/client.js';
import { expectControlError, expectError } from '../support/expect.js';
import { requestAsSent } from '../support/raw-http.js';
import { deployment } from '../support/deployment.js';
import { closedAfterEach } from '../support/closed-after-each.js';

// Every test here is about the emulator's own server: against a deployment each is skipped, before it sends anything.
beforeEach((context) => {
  if (deployment !== undefined)
    context.skip(
      "checks the emulator's own server (its routing of the target as sent, its /_emulator controls), which a deployment of the service does not have",
    );
});

const closing = closedAfterEach();

const STRAY =
  '(a path with a "." or ".." segment, %2e included, an encoded slash or a backslash names no route: paths are routed as sent, never resolved)';
const PATHS = 'Paths begin with /v1 (API) or /_emulator (controls).';

/** A served emulator with one company, and what a test reads of it to see that nothing changed. */
async function served() {
  const emu = closing(createEmulator());
  const server: RunningServer = await emu.listen({ port: 0 });
  const company = emu.companies.create();
  const controls: ActivityEntry[] = [];
  emu.activity.subscribe((entry) => {
    if (entry.kind === 'control') controls.push(entry);
  });
  const send = (method: string, target: string, body?: string): Promise<Answer> =>
    requestAsSent(
      server.url,
      method,
      target,
      {
        authorization: `Bearer ${company.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body,
    );
  const observe = async () => ({
    companies: emu.companies.list().map((c) => c.id),
    data: emu.companies.snapshot(company.companyId).state,
    empresa: (await send('GET', '/v1/empresa')).status,
  });
  return { emu, server, company, controls, send, observe };
}

/** A `..` segment as a client may spell it. */
const DOUBLE_DOTS = ['..', '%2e%2e', '%2E%2E', '.%2e', '%2E.'];
/** A `.` segment. */
const SINGLE_DOTS = ['.', '%2e', '%2E'];
/** A separator inside a segment: kept encoded in hono's path (%2f), or decoded to a backslash (%5c). */
const SEPARATORS = [
  ['%2f', '%2f'],
  ['%2F', '%2F'],
  ['%5c', '\\'],
  ['%5C', '\\'],
];

describe('a control path is routed as sent', () => {
  it.each(DOUBLE_DOTS)(
    'POST /_emulator/companies/%s/reset (the global reset, resolved) is 404 rota_nao_encontrada; no control runs, nothing changes',
    async (dots) => {
      const { send, observe, controls } = await served();
      const before = await observe();
      const answer = await send('POST', `/_emulator/companies/${dots}/reset`, '{}');
      expectControlError(answer, 404, 'rota_nao_encontrada');
      expect(answer.body.erro.mensagem).toBe(`No control at POST /_emulator/companies/../reset ${STRAY}. ${PATHS}`);
      expect(await observe()).toEqual(before);
      expect(controls).toEqual([]);
    },
  );

  it.each(SINGLE_DOTS)('POST /_emulator/%s/reset is 404 rota_nao_encontrada; nothing changes', async (dot) => {
    const { send, observe, controls } = await served();
    const before = await observe();
    const answer = await send('POST', `/_emulator/${dot}/reset`, '{}');
    expectControlError(answer, 404, 'rota_nao_encontrada');
    expect(answer.body.erro.mensagem).toBe(`No control at POST /_emulator/./reset ${STRAY}. ${PATHS}`);
    expect(await observe()).toEqual(before);
    expect(controls).toEqual([]);
  });

  it.each(SEPARATORS)(
    'DELETE /_emulator/companies/{id}%s is 404 rota_nao_encontrada: the company stays',
    async (separator, decoded) => {
      const { send, observe, controls, company } = await served();
      const before = await observe();
      const answer = await send('DELETE', `/_emulator/companies/${company.companyId}${separator}`);
      expectControlError(answer, 404, 'rota_nao_encontrada');
      expect(answer.body.erro.mensagem).toBe(
        `No control at DELETE /_emulator/companies/${company.companyId}${decoded} ${STRAY}. ${PATHS}`,
      );
      expect(await observe()).toEqual(before);
      expect(controls).toEqual([]);
    },
  );
});

describe('an API path is routed as sent', () => {
  it.each(DOUBLE_DOTS)(
    'GET /v1/%s/_emulator/state (the controls, resolved) is 404 rota_nao_encontrada, journaled as sent',
    async (dots) => {
      const { emu, send } = await served();
      const answer = await send('GET', `/v1/${dots}/_emulator/state`);
      expectError(answer, 404, 'rota_nao_encontrada');
      expect(answer.body.erro.mensagem).toBe(`No operation at GET /v1/../_emulator/state ${STRAY}. ${PATHS}`);
      expect(answer.body.erro).not.toHaveProperty('format');
      expect(emu.journal.entries().at(-1)).toMatchObject({
        method: 'GET',
        path: '/v1/../_emulator/state',
        status: 404,
        requestId: answer.headers.get('x-request-id'),
      });
    },
  );

  it.each(SINGLE_DOTS)('GET /v1/%s/empresa is 404 rota_nao_encontrada, journaled as sent', async (dot) => {
    const { emu, send } = await served();
    const answer = await send('GET', `/v1/${dot}/empresa`);
    expectError(answer, 404, 'rota_nao_encontrada');
    expect(answer.body.erro.mensagem).toBe(`No operation at GET /v1/./empresa ${STRAY}. ${PATHS}`);
    expect(emu.journal.entries().at(-1)).toMatchObject({
      method: 'GET',
      path: '/v1/./empresa',
      status: 404,
      requestId: answer.headers.get('x-request-id'),
    });
  });

  it.each(SEPARATORS)(
    'GET /v1/estabelecimentos/{head office}%sx is 404 rota_nao_encontrada, journaled as sent',
    async (separator, decoded) => {
      const { emu, send, company } = await served();
      const answer = await send('GET', `/v1/estabelecimentos/${company.headOffice.id}${separator}x`);
      expectError(answer, 404, 'rota_nao_encontrada');
      const path = `/v1/estabelecimentos/${company.headOffice.id}${decoded}x`;
      expect(answer.body.erro.mensagem).toBe(`No operation at GET ${path} ${STRAY}. ${PATHS}`);
      expect(emu.journal.entries().at(-1)).toMatchObject({ method: 'GET', path, status: 404 });
    },
  );

  it('reads an absolute-form target as sent too: GET http://host/v1/%2e%2e/_emulator/state is 404', async () => {
    const { emu, send, server } = await served();
    const answer = await send('GET', `${server.url}/v1/%2e%2e/_emulator/state`);
    expectError(answer, 404, 'rota_nao_encontrada');
    expect(emu.journal.entries().at(-1)).toMatchObject({ method: 'GET', path: '/v1/../_emulator/state', status: 404 });
  });

  it('answers a backslash sent as is (which a URL reads as a slash) 400 requisicao_malformada with the error body, journaling nothing', async () => {
    const { emu, send, observe } = await served();
    const before = await observe();
    const journaled = emu.journal.entries().length;
    const answer = await send('GET', '/v1\\..\\_emulator/state');
    expectControlError(answer, 400, 'requisicao_malformada');
    expect(answer.body.erro.mensagem).toBe(
      'The request\'s target or Host header cannot be read as a URL (Backslash in request path): send a path that begins with "/" and holds no backslash.',
    );
    expect(emu.journal.entries()).toHaveLength(journaled);
    expect(await observe()).toEqual(before);
  });

  it('routes every other path as before: dots inside a segment, a query with dots and slashes', async () => {
    const { send, company } = await served();
    expect((await send('GET', '/v1/empresa')).status).toBe(200);
    expectError(await send('GET', '/v1/estabelecimentos/..x'), 422, 'valor_invalido', 'path.id');
    expect((await send('GET', `/v1/estabelecimentos/${company.headOffice.id}`)).status).toBe(200);
    expectError(await send('GET', '/v1/estabelecimentos?limite=%2e%2e/%2f'), 422, 'valor_invalido', 'query.limite');
  });
});

describe("in process, the URL is the caller's", () => {
  it('emu.fetch takes a URL as fetch does, its dot segments resolved before the emulator sees it; an encoded slash or backslash names no route', async () => {
    const emu = closing(createEmulator());
    const company = emu.companies.create();
    const get = async (path: string) =>
      readAnswer(await emu.fetch(path, { headers: { authorization: `Bearer ${company.token}` } }));
    // new URL('/v1/x/%2e%2e/empresa', …) is /v1/empresa: what fetch would have sent to a server.
    expect((await get('/v1/x/%2e%2e/empresa')).status).toBe(200);
    expect(emu.journal.entries().at(-1)).toMatchObject({ path: '/v1/empresa', status: 200 });
    for (const separator of ['%2f', '%5C'])
      expectError(await get(`/v1/estabelecimentos/${company.headOffice.id}${separator}x`), 404, 'rota_nao_encontrada');
  });
});
