/**
 * Only the emulator's owner drives it: control writes are JSON only (a web page on another site can send a
 * `text/plain` or body-less POST without asking, never a JSON one), no CORS permission is granted, a request
 * over a socket must name the server by an admitted host (DNS rebinding), an optional control token guards
 * every control, and control bodies are read against a limit while they arrive.
 *
 * The tests on the target run in process and against the CLI server. Those that need an emulator configured
 * for them (a control token, allowed hosts, a small snapshot limit) are in configured-emulator.test.ts.
 */
import { connect as connectSocket } from 'node:net';
import { beforeEach, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/index.js';
import { readAnswer, world, type Answer, type World } from '../support/client.js';
import { expectControlError } from '../support/expect.js';
import { httpRequest } from '../support/raw-http.js';
import { mayResetTarget, serverUrl } from '../support/target.js';
import { deployment } from '../support/deployment.js';
import { closedAfterEach } from '../support/closed-after-each.js';

// Every test here is about the emulator itself: against a deployment each is skipped, before it sends anything.
beforeEach((context) => {
  if (deployment !== undefined)
    context.skip(
      "checks the emulator's own /_emulator controls and server (content type, CORS, Host, control token, body limits), which a deployment of the service does not have",
    );
});

const MiB = 1024 * 1024;
const CONTENT_TYPE_MESSAGE = (got: string) =>
  `Send "content-type: application/json" with every POST, PUT and PATCH under /_emulator, even one without a body (got ${got}). Other types are refused so that no web page can drive the controls.`;

/** A control request with exactly these headers (no content-type, token or key added). */
async function control(
  w: World,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return readAnswer(
    await w.target.fetch(`/_emulator${path}`, { method, headers, ...(body === undefined ? {} : { body }) }),
  );
}

const accessControlHeaders = (answer: Answer) =>
  [...answer.headers.keys()].filter((name) => name.startsWith('access-control-'));

const closing = closedAfterEach();
const emulator = (options: EmulatorOptions = {}): Emulator => closing(createEmulator(options));

describe('control writes need content-type: application/json', () => {
  it('a cross-site text/plain POST /_emulator/faults is refused 415, and no fault is added: the API still answers', async () => {
    const w = await world();
    const before = await w.controls.faults();
    const fault = JSON.stringify({
      target: 'api',
      match: { companyId: w.company.companyId },
      effect: { status: 503 },
      times: null,
    });
    const answer = await control(w, 'POST', '/faults', { 'content-type': 'text/plain;charset=UTF-8' }, fault);
    expectControlError(answer, 415, 'tipo_midia_nao_suportado', 'header.content-type');
    expect(answer.body.erro.mensagem).toBe(CONTENT_TYPE_MESSAGE('"text/plain;charset=UTF-8"'));
    expect(accessControlHeaders(answer)).toEqual([]);
    expect(await w.controls.faults()).toEqual(before);
    expect((await w.api.get('/v1/empresa')).status).toBe(200);
  });

  it.each([
    ['text/plain', 'POST', '/companies', '{}'],
    [
      'application/x-www-form-urlencoded',
      'POST',
      '/network/routes',
      '{"from":"https://hooks.attacker.example","to":"http://127.0.0.1:9"}',
    ],
    ['multipart/form-data; boundary=x', 'POST', '/clock/advance', '{"by":"31d"}'],
    ['application/json-patch+json', 'PATCH', '/companies/{companyId}', '{"subscriptionActive":false}'],
    ['text/json', 'POST', '/companies/{companyId}/credentials', '{}'],
  ])('%s to %s %s is refused 415 and changes nothing', async (type, method, path, body) => {
    const w = await world();
    const observe = async () => ({
      companies: (await w.controls.raw('GET', '/companies')).body,
      routes: (await w.controls.raw('GET', '/network/routes')).body,
      clock: await w.controls.clock(),
    });
    const before = await observe();
    const answer = await control(
      w,
      method,
      path.replace('{companyId}', w.company.companyId),
      { 'content-type': type },
      body,
    );
    expectControlError(answer, 415, 'tipo_midia_nao_suportado', 'header.content-type');
    expect(answer.body.erro.mensagem).toBe(CONTENT_TYPE_MESSAGE(JSON.stringify(type)));
    expect(await observe()).toEqual(before);
  });

  it('a body-less POST without content type (what fetch(url, {method: "POST", mode: "no-cors"}) sends) is refused 415', async () => {
    const w = await world();
    const companies = (await w.controls.raw('GET', '/companies')).body;
    for (const path of ['/companies', '/clock/run-until-idle', `/companies/${w.company.companyId}/credentials`]) {
      const answer = await control(w, 'POST', path);
      expectControlError(answer, 415, 'tipo_midia_nao_suportado', 'header.content-type');
      expect(answer.body.erro.mensagem).toBe(CONTENT_TYPE_MESSAGE('no content-type'));
    }
    expect((await w.controls.raw('GET', '/companies')).body).toEqual(companies);
  });

  it.runIf(mayResetTarget())(
    'a body-less POST /_emulator/reset without content type is refused 415: the company is still there',
    async () => {
      const w = await world();
      expectControlError(await control(w, 'POST', '/reset'), 415, 'tipo_midia_nao_suportado', 'header.content-type');
      expectControlError(
        await control(w, 'POST', '/reset', { 'content-type': 'text/plain' }, ''),
        415,
        'tipo_midia_nao_suportado',
        'header.content-type',
      );
      expect((await w.api.get('/v1/empresa')).status).toBe(200);
    },
  );

  it.each([
    'application/json',
    'Application/JSON',
    'application/json; charset=utf-8',
    'APPLICATION/JSON ; Charset="UTF-8"',
  ])('accepts %j, with or without a body', async (type) => {
    const w = await world();
    const withBody = await control(
      w,
      'POST',
      `/companies/${w.company.companyId}/credentials`,
      { 'content-type': type },
      '{"permissions":["catalogo:ler"]}',
    );
    expect(withBody.status, withBody.text).toBe(201);
    expect(withBody.body).toEqual({ token: expect.stringMatching(/^svc_at_/) });
    const without = await control(w, 'POST', `/companies/${w.company.companyId}/credentials`, { 'content-type': type });
    expect(without.status, without.text).toBe(201);
  });

  it('DELETE needs no content type (a browser always asks first, and is never granted)', async () => {
    const w = await world();
    const answer = await control(w, 'DELETE', '/faults/flt_none');
    expectControlError(answer, 404, 'falha_nao_encontrada', 'path.id');
  });

  it('grants no CORS: a preflight gets no permission, and no answer carries an Access-Control-Allow header', async () => {
    const w = await world();
    const preflight = {
      origin: 'https://attacker.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    };
    const controlPreflight = await control(w, 'OPTIONS', '/faults', preflight);
    expectControlError(controlPreflight, 404, 'rota_nao_encontrada', null);
    expect(accessControlHeaders(controlPreflight)).toEqual([]);
    const apiPreflight = await readAnswer(
      await w.target.fetch('/v1/empresa', { method: 'OPTIONS', headers: preflight }),
    );
    expect(apiPreflight.status).toBe(405);
    expect(apiPreflight.headers.get('allow')).toBe('GET, HEAD');
    expect(accessControlHeaders(apiPreflight)).toEqual([]);
    const read = await control(w, 'GET', '/state', { origin: 'https://attacker.example' });
    expect(read.status).toBe(200);
    expect(accessControlHeaders(read)).toEqual([]);
    const api = await w.api.get('/v1/empresa', { headers: { origin: 'https://attacker.example' } });
    expect(api.status).toBe(200);
    expect(accessControlHeaders(api)).toEqual([]);
  });
});

describe('control body limits', () => {
  it('an ordinary control reads 1 MiB of body: exactly 1 MiB is taken, one byte more is 413 and changes nothing', async () => {
    const w = await world();
    const patch = (name: string, size: number) => {
      const json = JSON.stringify({ name });
      return control(
        w,
        'PATCH',
        `/companies/${w.company.companyId}`,
        { 'content-type': 'application/json' },
        json + ' '.repeat(size - json.length),
      );
    };
    const taken = await patch('Exactly one MiB', MiB);
    expect(taken.status, taken.text).toBe(200);
    expect(taken.body.name).toBe('Exactly one MiB');

    const refused = await patch('One byte more', MiB + 1);
    expectControlError(refused, 413, 'corpo_muito_grande', 'body');
    expect(refused.body.erro.mensagem).toBe(`The body exceeds this operation's limit of ${MiB} bytes.`);
    const companies = (await w.controls.raw('GET', '/companies')).body.items as { id: string; name: string }[];
    expect(companies.find((c) => c.id === w.company.companyId)?.name).toBe('Exactly one MiB');
  });

  it('50 MB of spaces to POST /_emulator/faults is 413, not a fault', async () => {
    const w = await world();
    const before = await w.controls.faults();
    expectControlError(
      await control(w, 'POST', '/faults', { 'content-type': 'application/json' }, ' '.repeat(50_000_000)),
      413,
      'corpo_muito_grande',
      'body',
    );
    expect(await w.controls.faults()).toEqual(before);
  });
});

/** The base URL of a server to send forged Hosts to: the CLI server, or this emulator's own listener in process. */
async function socketUrl(): Promise<string> {
  const base = serverUrl();
  if (base !== undefined) return base.replace(/\/$/, '');
  return (await emulator().listen({ port: 0 })).url;
}

describe('the Host check (requests over a socket)', () => {
  const hostMessage = (host: string, name: string, names = 'localhost, 127.0.0.1, [::1]') =>
    `Host ${JSON.stringify(host)} is not a name of this emulator (it answers to ${names}): a web page on another site reaches it under its own host name, through DNS rebinding. To reach the emulator by this name, start it with --allow-host ${name} (listen({ allowHosts }) in process).`;

  it('refuses a foreign Host 403 on the controls and on the API, naming the host and --allow-host', async () => {
    const url = await socketUrl();
    const port = new URL(url).port;
    const state = await httpRequest(url, 'GET', '/_emulator/state', { host: `rebound.attacker.example:${port}` });
    expectControlError(state, 403, 'host_nao_permitido', 'header.host');
    expect(state.body.erro.mensagem).toBe(hostMessage(`rebound.attacker.example:${port}`, 'rebound.attacker.example'));
    expect(state.text).not.toContain('svc_at_');

    const w = await world();
    const api = await httpRequest(url, 'GET', '/v1/empresa', {
      host: 'rebound.attacker.example',
      authorization: `Bearer ${w.company.token}`,
    });
    expectControlError(api, 403, 'host_nao_permitido', 'header.host');

    const before = await w.controls.faults();
    const write = await httpRequest(
      url,
      'POST',
      '/_emulator/faults',
      { host: 'rebound.attacker.example', 'content-type': 'application/json' },
      JSON.stringify({ target: 'api', match: { companyId: w.company.companyId }, effect: { status: 503 } }),
    );
    expectControlError(write, 403, 'host_nao_permitido', 'header.host');
    expect(await w.controls.faults()).toEqual(before);
  });

  it('admits the loopback names in any case, with or without a port', async () => {
    const url = await socketUrl();
    const port = new URL(url).port;
    for (const host of ['localhost', `LocalHost:${port}`, '127.0.0.1', `127.0.0.1:${port}`, '[::1]', `[::1]:${port}`]) {
      const answer = await httpRequest(url, 'GET', '/_emulator', { host });
      expect(answer.status, `${host}: ${answer.text}`).toBe(200);
    }
    for (const host of ['127.0.0.2', '[::2]', 'localhost.attacker.example', '0.0.0.0']) {
      expectControlError(
        await httpRequest(url, 'GET', '/_emulator', { host }),
        403,
        'host_nao_permitido',
        'header.host',
      );
    }
  });
  it('admits a request without Host (HTTP/1.0): no browser sends one', async () => {
    const url = new URL(await socketUrl());
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connectSocket(Number(url.port), url.hostname, () => socket.end('GET /_emulator HTTP/1.0\r\n\r\n'));
      let text = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer).toContain('"name":"catalog-emulator"');
  });
});
