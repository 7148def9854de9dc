/** connect(): a company on a clock of its own on a running server, and its controls over HTTP. */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import { ControlError, createEmulator, JournalFilterError, type Emulator, type RunningServer } from '../index.js';
import { connect } from './connect.js';

const running: { emu: Emulator; server: RunningServer }[] = [];
afterEach(async () => {
  for (const { emu, server } of running.splice(0)) {
    await server.close();
    await emu.close();
  }
});

async function serve(options: Parameters<typeof createEmulator>[0] = {}) {
  const emu = createEmulator(options);
  const server = await emu.listen({ port: 0 });
  running.push({ emu, server });
  return { emu, url: server.url };
}

describe('connect', () => {
  it('creates a company on a clock of its own and drives its clock; the shared clock does not move', async () => {
    const { emu, url } = await serve();
    const start = emu.clock.now().toISOString();
    const company = await connect(`${url}/`, { company: { cnpjRoot: '11222333', name: 'Suite A' } });
    expect(company).toMatchObject({
      baseUrl: url,
      cnpjRoot: '11222333',
      companyId: expect.any(String),
      token: expect.any(String),
    });
    expect(await company.clock.info()).toEqual({
      now: start,
      mode: 'manual',
      pending: 0,
      deadlines: expect.any(Number),
    });
    expect(await company.clock.advance('2h')).toEqual({
      now: new Date(Date.parse(start) + 2 * 3_600_000).toISOString(),
      ran: expect.any(Number),
    });
    expect((await company.clock.now()).toISOString()).toBe(new Date(Date.parse(start) + 2 * 3_600_000).toISOString());
    expect(await company.clock.advanceTo(new Date(Date.parse(start) + 3 * 3_600_000))).toMatchObject({
      now: new Date(Date.parse(start) + 3 * 3_600_000).toISOString(),
    });
    expect(await company.clock.runUntilIdle()).toMatchObject({ ran: 0 });
    expect(emu.clock.now().toISOString()).toBe(start);

    const me = await company.fetch('/v1/empresa');
    expect(me.status).toBe(200);
    expect(((await me.json()) as { id: string }).id).toBe(company.companyId);
    const other = await company.fetch('/v1/empresa', { headers: { authorization: 'Bearer nope' } });
    expect(other.status).toBe(401);
  });

  it('sends the control token, and throws the server refusal as a ControlError', async () => {
    const { url } = await serve({ controlToken: 'secret-token' });
    await expect(connect(url)).rejects.toMatchObject({
      name: 'ControlError',
      status: 401,
      codigo: 'token_de_controle_ausente',
    });
    const company = await connect(url, { controlToken: 'secret-token' });
    await expect(company.clock.advance('forever')).rejects.toThrow(ControlError);
    await expect(company.clock.advance('forever')).rejects.toMatchObject({
      status: 422,
      codigo: 'valor_invalido',
      caminho: 'body.by',
    });
    await expect(
      connect(url, { controlToken: 'secret-token', company: { cnpjRoot: company.cnpjRoot } }),
    ).rejects.toMatchObject({ status: 409, codigo: 'raiz_cnpj_duplicada' });
  });

  it('says when the URL is not an emulator', async () => {
    const server = createServer((_, res) => res.end('<html>hello</html>'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address() as { port: number };
    try {
      await expect(connect(`http://127.0.0.1:${address.port}`)).rejects.toThrow(
        /is not JSON: is http:\/\/127\.0\.0\.1:\d+ a catalog-emulator\?/,
      );
    } finally {
      server.close();
    }
  });
});

describe("connect: the company's faults, inbox and journal", () => {
  it('adds faults that match only the company, and sees and clears only its own faults, inbox and journal', async () => {
    const { emu, url } = await serve();
    const [a, b] = [await connect(url), await connect(url)];
    const fault = await a.faults.add({ target: 'api', match: { path: '/v1/empresa' }, effect: { status: 503 } });
    expect(await a.faults.list()).toEqual([
      {
        id: fault.id,
        target: 'api',
        match: { path: '/v1/empresa', companyId: a.companyId },
        effect: { status: 503 },
        times: 1,
        skip: 0,
        hits: 0,
      },
    ]);
    expect(await b.faults.list()).toEqual([]);
    expect((await b.fetch('/v1/empresa')).status).toBe(200);
    expect((await a.fetch('/v1/empresa')).status).toBe(503);
    expect((await a.journal.entries()).map((e) => [e.companyId, e.status, e.faultId])).toEqual([
      [a.companyId, 503, fault.id],
    ]);
    expect((await b.journal.entries()).map((e) => [e.companyId, e.status])).toEqual([[b.companyId, 200]]);

    // The journal's filters and count, and a fault's near-misses, over HTTP as in process.
    await a.fetch('/v1/catalogos');
    expect((await a.journal.find({ status: '5xx' })).map((e) => [e.path, e.codigo])).toEqual([
      ['/v1/empresa', 'servico_indisponivel'],
    ]);
    expect(await a.journal.count({ method: 'get', from: new Date('2026-01-01T00:00:00Z'), limit: 5 })).toBe(2);
    expect(await a.journal.count({ replayed: true })).toBe(0);
    await expect(a.journal.find({ status: '7xx' } as never)).rejects.toThrow(JournalFilterError);
    const unfired = await a.faults.add({ target: 'api', match: { method: 'DELETE' }, effect: { status: 503 } });
    await a.fetch('/v1/empresa');
    expect((await a.faults.nearMisses(unfired.id)).candidates.map((c) => c.failed)).toEqual([['method: GET ≠ DELETE']]);

    const other = await b.faults.add({ target: 'job', effect: { fail: true } });
    await expect(a.faults.remove(other.id)).rejects.toMatchObject({ status: 404, codigo: 'falha_nao_encontrada' });
    await expect(a.faults.nearMisses(other.id)).rejects.toMatchObject({ status: 404, codigo: 'falha_nao_encontrada' });
    await a.journal.clear();
    expect(await a.journal.entries()).toEqual([]);
    expect(await b.journal.entries()).toHaveLength(1);
    await a.faults.clear();

    for (const company of [a, b]) {
      const destination = await company.fetch('/v1/webhook', {
        method: 'PUT',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': `hook-${company.companyId}`,
          'if-none-match': '*',
        },
        body: JSON.stringify({ url: `https://${company.cnpjRoot}.example/hook` }),
      });
      expect(destination.status).toBe(201);
      emu.webhooks.raise(company.companyId, { tipo: 'webhook.teste' });
      await company.clock.runUntilIdle();
    }
    expect((await a.inbox.list()).map((e) => [e.companyId, e.url])).toEqual([
      [a.companyId, `https://${a.cnpjRoot}.example/hook`],
    ]);
    await a.inbox.clear();
    expect(await a.inbox.list()).toEqual([]);
    expect((await b.inbox.list()).map((e) => e.companyId)).toEqual([b.companyId]);
    await b.faults.clear();
    expect(emu.faults.list()).toEqual([]);
  });

  it('resets its company as created, clock back at the server now, and removes it', async () => {
    const { emu, url } = await serve();
    const company = await connect(url);
    const first = await company.fetch('/v1/catalogos', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'kit-reset-catalog-01' },
      body: JSON.stringify({ estabelecimento_id: company.headOffice.id, nome: 'Loja' }),
    });
    expect(first.status).toBe(201);
    await company.clock.advance('3d');
    await company.reset();
    expect((await company.clock.now()).getTime()).toBe(emu.clock.now().getTime());
    const catalogs = (await (await company.fetch('/v1/catalogos')).json()) as { itens: unknown[] };
    expect(catalogs.itens).toEqual([]);
    await company.remove();
    expect((await company.fetch('/v1/empresa')).status).toBe(401);
    await expect(company.clock.info()).rejects.toMatchObject({ status: 404, codigo: 'empresa_nao_encontrada' });
    expect(emu.companies.list()).toEqual([]);
  });
});
