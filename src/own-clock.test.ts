/**
 * A company on a clock of its own lives in a world of its own: its answers (ids, tokens, request ids, ETags,
 * times, cursors) and its deliveries are exactly those it gets alone on a fresh emulator with the same seed,
 * whatever other companies do meanwhile.
 */
import { describe, expect, it, vi } from 'vitest';
import { ControlError, createEmulator, type Emulator } from './index.js';

const ROOT = '11222333';

/** Sends one request as `token`, returning everything an integrator can see of the answer. */
async function call(
  emu: Emulator,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await emu.fetch(path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, headers: [...response.headers.entries()], body: await response.text() };
}

/** The own-clock company's script; `meanwhile` runs between its steps (another company's traffic, the shared clock). */
async function script(emu: Emulator, meanwhile: () => Promise<void>) {
  const company = emu.companies.create({ clock: 'own', cnpjRoot: ROOT });
  const clock = emu.companies.clock(company.companyId);
  let n = 0;
  const key = () => ({ 'idempotency-key': `own-clock-key-${String(++n).padStart(4, '0')}` });
  const transcript: unknown[] = [company];
  const step = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const answer = await call(
      emu,
      company.token,
      method,
      path,
      body,
      method === 'GET' ? headers : { ...key(), ...headers },
    );
    transcript.push(answer);
    await meanwhile();
    return JSON.parse(answer.body || 'null') as Record<string, unknown> & { id: string };
  };
  const catalog = await step('POST', '/v1/catalogos', { estabelecimento_id: company.headOffice.id, nome: 'Loja' });
  await clock.advance('90m');
  for (let i = 0; i < 3; i++)
    await step('POST', `/v1/catalogos/${catalog.id}/produtos`, { origem: 'erp', ncm: '84713012', id_externo: `P${i}` });
  const page = await step('GET', `/v1/catalogos/${catalog.id}/produtos?limite=2`);
  await step('GET', `/v1/catalogos/${catalog.id}/produtos?limite=2&cursor=${String(page.proximo_cursor)}`);
  emu.network.route(`https://hooks-${ROOT}.example`, () => new Response(null, { status: 500 }));
  await step('PUT', '/v1/webhook', { url: `https://hooks-${ROOT}.example/recebe` }, { 'if-none-match': '*' });
  const { eventId } = emu.webhooks.raise(company.companyId, {
    tipo: 'catalogo.aplicado',
    catalogoId: catalog.id,
    versao: 1,
  });
  await clock.advance('1h');
  transcript.push(await call(emu, company.token, 'GET', `/v1/webhook/eventos/${eventId}/tentativas?limite=100`));
  transcript.push(clock.info());
  return transcript;
}

describe('a company on a clock of its own', () => {
  it('sees exactly what it sees alone on a fresh emulator with the same seed, whatever another company and the shared clock do', async () => {
    const alone = await script(createEmulator({ seed: 7 }), async () => {});

    const busy = createEmulator({ seed: 7 });
    const other = busy.companies.create();
    const neighbour = busy.companies.create({ clock: 'own' });
    let i = 0;
    const interleaved = await script(busy, async () => {
      i++;
      await call(
        busy,
        other.token,
        'POST',
        '/v1/catalogos',
        { estabelecimento_id: other.headOffice.id, nome: `Outra ${i}` },
        { 'idempotency-key': `other-company-key-${String(i).padStart(4, '0')}` },
      );
      await call(
        busy,
        neighbour.token,
        'POST',
        '/v1/catalogos',
        { estabelecimento_id: neighbour.headOffice.id, nome: `Vizinha ${i}` },
        { 'idempotency-key': `neighbour-key-${String(i).padStart(4, '0')}` },
      );
      await busy.clock.advance(i % 2 === 0 ? '3h' : '7m');
      await busy.companies.clock(neighbour.companyId).advance('1d');
    });
    expect(interleaved).toEqual(alone);
    // The script's requests answered 2xx, and the deliveries ran on the company's clock: 4 attempts in its 2 h 30 min.
    const attempts = JSON.parse((alone.at(-2) as { body: string }).body) as { itens: { tentativa: number }[] };
    expect(attempts.itens.map((a) => a.tentativa)).toEqual([1, 2, 3, 4]);
  });

  it('travels in the whole-emulator snapshot with its clock, tasks and sources, and goes away with a reset', async () => {
    const emu = createEmulator();
    const own = emu.companies.create({ clock: 'own' });
    emu.network.route('https://hooks-snapshot.example', () => new Response(null, { status: 500 }));
    const key = { 'idempotency-key': 'snapshot-webhook-0001', 'if-none-match': '*' };
    expect(
      (await call(emu, own.token, 'PUT', '/v1/webhook', { url: 'https://hooks-snapshot.example/recebe' }, key)).status,
    ).toBe(201);
    emu.webhooks.raise(own.companyId, {
      tipo: 'catalogo.aplicado',
      catalogoId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      versao: 1,
    });
    await emu.companies.clock(own.companyId).advance('10s');
    const saved = emu.snapshot();
    expect(saved.ownClocks?.map((w) => [w.companyId, w.now, w.tasks.length > 0])).toEqual([
      [own.companyId, emu.companies.clock(own.companyId).now().getTime(), true],
    ]);
    // What the company sees next, straight on…
    const next = async () => {
      await emu.companies.clock(own.companyId).advance('6m');
      return call(
        emu,
        own.token,
        'POST',
        '/v1/catalogos',
        { estabelecimento_id: own.headOffice.id, nome: 'Depois' },
        { 'idempotency-key': 'after-snapshot-0001' },
      );
    };
    const straight = await next();

    emu.reset();
    expect(emu.companies.list()).toEqual([]);
    expect((await call(emu, own.token, 'GET', '/v1/empresa')).status).toBe(401);
    expect(() => emu.companies.clock(own.companyId).info()).toThrow(
      expect.objectContaining({ status: 404, codigo: 'empresa_nao_encontrada' }),
    );

    // …and after the snapshot is restored: the same answer (ids, request id, times), its own clock where it was.
    emu.restore(saved);
    expect(emu.snapshot()).toEqual(saved);
    expect(await next()).toEqual(straight);
    // Its root is taken again: a company on the shared clock cannot have it.
    expect(() => emu.companies.create({ cnpjRoot: own.cnpjRoot })).toThrow(ControlError);
    expect(() => emu.companies.create({ cnpjRoot: own.cnpjRoot })).toThrow(
      expect.objectContaining({ status: 409, codigo: 'raiz_cnpj_duplicada' }),
    );
  });

  it('takes a credential added to it, and a regulatory publication reaches it: its watched product gets a publicacao execution', async () => {
    const emu = createEmulator();
    const own = emu.companies.create({ clock: 'own', surveillanceCapacity: 10 });
    const { token } = emu.companies.addCredential(own.companyId, ['catalogo:ler']);
    expect((await call(emu, token, 'GET', '/v1/empresa')).status).toBe(200);
    const key = (n: number) => ({ 'idempotency-key': `publication-key-${String(n).padStart(4, '0')}` });
    const catalog = JSON.parse(
      (
        await call(
          emu,
          own.token,
          'POST',
          '/v1/catalogos',
          { estabelecimento_id: own.headOffice.id, nome: 'Loja' },
          key(1),
        )
      ).body,
    ) as { id: string };
    const product = JSON.parse(
      (
        await call(
          emu,
          own.token,
          'POST',
          `/v1/catalogos/${catalog.id}/produtos`,
          { origem: 'erp', ncm: '84713012' },
          key(2),
        )
      ).body,
    ) as { id: string };
    const selection = await call(emu, own.token, 'GET', '/v1/empresa/vigilancia');
    const etag = selection.headers.find(([name]) => name === 'etag')![1];
    expect(
      (
        await call(
          emu,
          own.token,
          'PATCH',
          '/v1/empresa/vigilancia',
          { modo: 'selecao', adicionar: [product.id] },
          { ...key(3), 'if-match': etag },
        )
      ).status,
    ).toBe(200);
    const none = JSON.parse((await call(emu, own.token, 'GET', '/v1/vigilancias')).body) as { itens: unknown[] };
    expect(none.itens).toEqual([]);

    emu.regulatory.publish({ extinguir: ['84713012'] });
    const executions = JSON.parse((await call(emu, own.token, 'GET', '/v1/vigilancias')).body) as {
      itens: { estado: string; criada_em: string }[];
    };
    expect(executions.itens).toEqual([
      expect.objectContaining({
        estado: 'pendente',
        criada_em: emu.companies.clock(own.companyId).now().toISOString(),
      }),
    ]);
  });

  it('refuses a snapshot whose own clocks do not fit, naming the field, and changes nothing', async () => {
    const emu = createEmulator();
    const shared = emu.companies.create();
    emu.companies.create({ clock: 'own' });
    const saved = emu.snapshot();
    const own = saved.ownClocks![0]!;
    const refused = (mutate: (s: typeof saved) => void) => {
      const copy = structuredClone(saved);
      mutate(copy);
      try {
        emu.restore(copy);
      } catch (error) {
        return [(error as { path: unknown }).path, (error as Error).message];
      }
      return 'restored';
    };
    expect(refused((s) => (s.ownClocks![0]!.companyId = shared.companyId))).toEqual([
      ['ownClocks', 0, 'state', 'companies'],
      `Not a consistent snapshot: ownClocks.0.state.companies: the world of a company on a clock of its own holds that company (${shared.companyId}) and no other`,
    ]);
    const sameRoot = (s: typeof saved) => {
      const world = s.ownClocks![0]!;
      world.state.companies[0] = { ...own.state.companies[0]!, cnpjRoot: shared.cnpjRoot };
      world.state.establishments[0] = { ...own.state.establishments[0]!, cnpj: shared.headOffice.cnpj };
      // Its creation record says the same (what a reset of it would put back).
      world.state.origins[0] = {
        ...own.state.origins[0]!,
        company: world.state.companies[0],
        headOffice: world.state.establishments[0],
      };
    };
    expect(refused(sameRoot)).toEqual([
      ['ownClocks', 0, 'state', 'companies', 0, 'cnpjRoot'],
      `Not a consistent snapshot: ownClocks.0.state.companies.0.cnpjRoot: CNPJ root ${shared.cnpjRoot} names two companies`,
    ]);
    expect(refused((s) => (s.ownClocks![0]!.tasks[0] = { ...own.tasks[0]!, kind: 'nao.existe' }))).toEqual([
      ['ownClocks', 0, 'tasks', 0, 'kind'],
      expect.stringMatching(/^Not a snapshot of this emulator: ownClocks\.0\.tasks\.0\.kind: /),
    ]);
    expect(
      refused(
        (s) =>
          (s.ownClocks![0]!.state.credentials[0] = {
            ...own.state.credentials[0]!,
            token: s.state.credentials[0]!.token,
          }),
      ),
    ).toEqual([
      ['ownClocks', 0, 'state', 'credentials', 0, 'token'],
      'Not a consistent snapshot: ownClocks.0.state.credentials.0.token: a credential token appears in two worlds',
    ]);
    expect(
      refused(
        (s) =>
          (s.ownClocks![0]!.state.establishments[0] = { ...own.state.establishments[0]!, companyId: shared.companyId }),
      ),
    ).toEqual([
      ['ownClocks', 0, 'state', 'companies', 0, 'headOfficeId'],
      expect.stringMatching(
        /^Not a consistent snapshot: ownClocks\.0\.state\.companies\.0\.headOfficeId: company .* is not one of its establishments$/,
      ),
    ]);
    expect(emu.snapshot()).toEqual(saved);
  });

  it("refuses a snapshot where an own clock's world holds an id another world's record has, as a world holding it twice", async () => {
    const emu = createEmulator();
    const shared = emu.companies.create();
    const own = emu.companies.create({ clock: 'own' });
    const catalog = async (company: typeof own, key: string) =>
      (
        JSON.parse(
          (
            await call(
              emu,
              company.token,
              'POST',
              '/v1/catalogos',
              { estabelecimento_id: company.headOffice.id, nome: 'Loja' },
              { 'idempotency-key': key },
            )
          ).body,
        ) as { id: string }
      ).id;
    const sharedCatalog = await catalog(shared, 'whole-snapshot-0001');
    const ownCatalog = await catalog(own, 'whole-snapshot-0002');
    const saved = emu.snapshot();
    const copy = structuredClone(saved);
    // The own world names the shared world's catalog id wherever it named its own: whole, but the id is taken.
    copy.ownClocks![0] = JSON.parse(JSON.stringify(copy.ownClocks![0]).replaceAll(ownCatalog, sharedCatalog));
    expect(() => emu.restore(copy)).toThrow(
      `Not a consistent snapshot: ownClocks.0.state.catalogs.0.id: catalog ${sharedCatalog} appears twice`,
    );
    expect(emu.snapshot()).toEqual(saved);
  });

  it('starts over with a reset: the same id, token and head office, its clock at the shared now, and the same answers as when it was new', async () => {
    const emu = createEmulator();
    const own = emu.companies.create({ clock: 'own', name: 'Suite', surveillanceCapacity: 4 });
    const first = () =>
      call(
        emu,
        own.token,
        'POST',
        '/v1/catalogos',
        { estabelecimento_id: own.headOffice.id, nome: 'Loja' },
        { 'idempotency-key': 'reset-catalog-0001' },
      );
    const original = await first();
    expect(original.status).toBe(201);
    const extra = emu.companies.addCredential(own.companyId, ['catalogo:ler']);
    await emu.companies.clock(own.companyId).advance('2d');

    expect(emu.companies.reset(own.companyId)).toEqual(own);
    // The same key is new again, and the request answers exactly as it did when the company was new.
    expect(await first()).toEqual(original);
    expect(emu.companies.clock(own.companyId).now()).toEqual(emu.clock.now());
    expect((await call(emu, extra.token, 'GET', '/v1/empresa')).status).toBe(401);
    const company = JSON.parse((await call(emu, own.token, 'GET', '/v1/empresa')).body) as { nome: string };
    expect(company.nome).toBe('Suite');
    expect(JSON.parse((await call(emu, own.token, 'GET', '/v1/catalogos')).body)).toMatchObject({
      itens: [{ nome: 'Loja' }],
    });

    // After the shared clock moved, a reset brings the company's clock to it, with the same ids.
    await emu.clock.advance('3h');
    expect(emu.companies.reset(own.companyId)).toEqual(own);
    expect(emu.companies.clock(own.companyId).now()).toEqual(emu.clock.now());
    expect(emu.companies.clock(own.companyId).info()).toMatchObject({ pending: 0 });
    expect(JSON.parse((await call(emu, own.token, 'GET', '/v1/catalogos')).body)).toMatchObject({ itens: [] });
  });

  it('hands back its own controls with the company: its clock, faults, inbox, journal, reset and remove', async () => {
    const emu = createEmulator();
    const neighbour = emu.companies.create();
    const own = emu.companies.create({ clock: 'own' });
    // It prints and serializes as the plain company.
    expect(JSON.parse(JSON.stringify(own))).toEqual({
      companyId: own.companyId,
      cnpjRoot: own.cnpjRoot,
      token: own.token,
      headOffice: own.headOffice,
    });
    expect(Object.keys(own)).toEqual(['companyId', 'cnpjRoot', 'token', 'headOffice']);

    expect((await own.clock.advance('1h')).now).toEqual(new Date(emu.clock.now().getTime() + 3_600_000));
    expect(neighbour.clock.now()).toEqual(emu.clock.now());

    const fault = own.faults.add({ target: 'api', effect: { status: 503 } });
    expect(own.faults.list().map((f) => [f.id, f.match])).toEqual([[fault.id, { companyId: own.companyId }]]);
    expect(neighbour.faults.list()).toEqual([]);
    expect((await call(emu, neighbour.token, 'GET', '/v1/empresa')).status).toBe(200);
    expect((await call(emu, own.token, 'GET', '/v1/empresa')).status).toBe(503);
    expect(own.journal.entries().map((e) => [e.companyId, e.status, e.faultId])).toEqual([
      [own.companyId, 503, fault.id],
    ]);
    expect(neighbour.journal.entries().map((e) => e.status)).toEqual([200]);
    expect(own.inbox.list()).toEqual([]);

    const kept = emu.faults.add({ target: 'api', match: { companyId: neighbour.companyId }, effect: { status: 500 } });
    own.faults.add({ target: 'job', effect: { fail: true } });
    expect(own.reset()).toEqual(JSON.parse(JSON.stringify(own)));
    // A reset drops the harness's entries of this company alone.
    expect([own.faults.list(), own.journal.entries()]).toEqual([[], []]);
    expect(neighbour.journal.entries().map((e) => e.status)).toEqual([200]);
    expect(emu.faults.list().map((f) => f.id)).toEqual([kept.id]);
    own.remove();
    expect((await call(emu, own.token, 'GET', '/v1/empresa')).status).toBe(401);
    expect(() => own.clock.now()).toThrow(expect.objectContaining({ status: 404, codigo: 'empresa_nao_encontrada' }));
    expect(() => own.faults.list()).toThrow(expect.objectContaining({ status: 404 }));
    expect(emu.companies.list().map((c) => c.id)).toEqual([neighbour.companyId]);
  });

  it('is saved and put back alone: its records and tasks, on its own clock', async () => {
    const emu = createEmulator();
    const own = emu.companies.create({ clock: 'own' });
    const catalog = JSON.parse(
      (
        await call(
          emu,
          own.token,
          'POST',
          '/v1/catalogos',
          { estabelecimento_id: own.headOffice.id, nome: 'Loja' },
          { 'idempotency-key': 'own-state-catalog-000' },
        )
      ).body,
    ) as { id: string };
    const post = (idExterno: string, n: number) =>
      call(
        emu,
        own.token,
        'POST',
        `/v1/catalogos/${catalog.id}/produtos`,
        { origem: 'erp', ncm: '84713012', id_externo: idExterno },
        { 'idempotency-key': `own-state-key-${n}-000` },
      );
    expect((await post('Antes', 1)).status).toBe(201);
    const saved = emu.companies.snapshot(own.companyId);
    expect(saved).toMatchObject({
      format: 'catalog-emulator/company',
      companyId: own.companyId,
      now: own.clock.now().getTime(),
    });
    await own.clock.advance('1h');
    expect((await post('Depois', 2)).status).toBe(201);
    emu.companies.restore(own.companyId, saved);
    const products = JSON.parse((await call(emu, own.token, 'GET', '/v1/produtos')).body) as {
      itens: { id_externo: string }[];
    };
    expect(products.itens.map((p) => p.id_externo)).toEqual(['Antes']);
    // Positions never go back: the sequence keeps counting from where it was.
    expect(emu.companies.snapshot(own.companyId)).toEqual({
      ...saved,
      now: own.clock.now().getTime(),
      state: { ...saved.state, sequence: 6 },
    });
  });

  it('gets its time back with its snapshot: the clock at the saved now, its tasks, and the housekeeping in the same rhythm', async () => {
    const emu = createEmulator();
    const own = emu.companies.create({ clock: 'own' });
    emu.network.route('https://hooks-back.example', () => new Response(null, { status: 500 }));
    expect(
      (
        await call(
          emu,
          own.token,
          'PUT',
          '/v1/webhook',
          { url: 'https://hooks-back.example/recebe' },
          { 'idempotency-key': 'time-back-webhook-01', 'if-none-match': '*' },
        )
      ).status,
    ).toBe(201);
    await own.clock.advance('90m');
    emu.webhooks.raise(own.companyId, {
      tipo: 'catalogo.aplicado',
      catalogoId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      versao: 1,
    });
    const sorted = () =>
      [...emu.snapshot().ownClocks![0]!.tasks].sort((a, b) => a.due - b.due || a.kind.localeCompare(b.kind));
    const before = { info: own.clock.info(), tasks: sorted() };
    expect(before.info.pending).toBe(1);
    const saved = emu.companies.snapshot(own.companyId);

    await own.clock.advance('2d');
    emu.companies.restore(own.companyId, saved);
    expect({ info: own.clock.info(), tasks: sorted() }).toEqual(before);
  });

  it('runs in real mode on the wall clock plus an offset of its own', async () => {
    // The wall clock as the test moves it (CONTRIBUTING.md "Tests": no test asserts a reading of the machine's time):
    // still, unless `tick` is set, when each reading moves it on, as time passes between any two on a busy machine.
    const HOUR = 3_600_000;
    let wall = Date.UTC(2026, 4, 1, 12);
    let tick = 0;
    const reading = vi.spyOn(Date, 'now').mockImplementation(() => (wall += tick));
    try {
      const emu = createEmulator({ clock: 'real' });
      expect(emu.clock.now().getTime()).toBe(wall);
      // The own clock took its start and the wall clock's reading behind it from the shared clock: it reads as the
      // shared one does, though the wall clock moved at every reading while the company was made.
      tick = 1;
      const own = emu.companies.create({ clock: 'own' });
      tick = 0;
      expect(own.clock.now().getTime()).toBe(emu.clock.now().getTime());

      // An advance ends at its target, taken when it started: the wall-clock time its walk took (250 ms, in the
      // receiver of a delivery the walk runs) is not added to it. The shared clock moved with the wall clock.
      let delivered = 0;
      emu.network.route('https://hooks-real.example', () => {
        delivered++;
        wall += 250;
        return new Response(null, { status: 200 });
      });
      const destination = { url: 'https://hooks-real.example/recebe' };
      const headers = { 'idempotency-key': 'real-mode-webhook-01', 'if-none-match': '*' };
      expect((await call(emu, own.token, 'PUT', '/v1/webhook', destination, headers)).status).toBe(201);
      const before = { own: own.clock.now().getTime(), shared: emu.clock.now().getTime() };
      const catalogoId = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
      emu.webhooks.raise(own.companyId, { tipo: 'catalogo.aplicado', catalogoId, versao: 1 });
      await own.clock.advance('1h');
      expect(delivered).toBe(1);
      const after = { own: own.clock.now().getTime(), shared: emu.clock.now().getTime() };
      expect(after).toEqual({ own: before.own + HOUR, shared: before.shared + 250 });
      // From there both follow the wall clock, an hour less the walk apart.
      wall += 60_000;
      expect(own.clock.now().getTime() - emu.clock.now().getTime()).toBe(HOUR - 250);
      expect(emu.clock.now().getTime()).toBe(before.shared + 250 + 60_000);
      await emu.close();
    } finally {
      reading.mockRestore();
    }
  });
});
