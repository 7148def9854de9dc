/**
 * What the emulator promises across its own lifecycle, in process: close releases held requests (in process
 * and over its own listener), and the `routes` option is configuration every reset restores.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEmulator, type Emulator } from './index.js';
import { closedAfterEach } from '../spec-tests/support/closed-after-each.js';

const closing = closedAfterEach();

const emulator = (...args: Parameters<typeof createEmulator>): Emulator => closing(createEmulator(...args));

/** Waits (a turn of the event loop at a time) until the emulator holds `count` pieces of work. */
async function untilPending(emu: Emulator, count: number): Promise<void> {
  for (let spins = 0; emu.clock.pending() < count; spins++) {
    if (spins > 1000) throw new Error(`pending never reached ${count}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('emu.close()', () => {
  /** A POST /v1/catalogos held by a delayMs fault: the fault's id, the request's init and the company. */
  function heldCatalogCreation(emu: Emulator) {
    const company = emu.companies.create();
    const { id: faultId } = emu.faults.add({
      target: 'api',
      match: { method: 'POST', path: '/v1/catalogos' },
      effect: { delayMs: 60_000 },
    });
    const init: RequestInit = {
      method: 'POST',
      headers: {
        authorization: `Bearer ${company.token}`,
        'content-type': 'application/json',
        'idempotency-key': 'close-held-0000001',
      },
      body: JSON.stringify({ estabelecimento_id: company.headOffice.id, nome: 'Loja' }),
    };
    return { company, faultId, init };
  }

  const closedMessage = (faultId: string) =>
    `Injected fault ${faultId}: the emulator was closed while this request was held by its delayMs; nothing was applied. Send the request again.`;

  it('answers a request held by a delayMs fault 503 servico_indisponivel, and nothing is applied', async () => {
    const emu = emulator();
    const { company, faultId, init } = heldCatalogCreation(emu);
    const held = emu.fetch('/v1/catalogos', init);
    await untilPending(emu, 1);

    await emu.close();
    const answer = await held;
    expect(answer.status).toBe(503);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const requestId = answer.headers.get('x-request-id');
    expect(await answer.json()).toEqual({
      erro: { codigo: 'servico_indisponivel', mensagem: closedMessage(faultId), request_id: requestId },
    });
    expect(emu.clock.pending()).toBe(0);
    const catalogs = await emu.fetch('/v1/catalogos', { headers: { authorization: `Bearer ${company.token}` } });
    expect(((await catalogs.json()) as { itens: unknown[] }).itens).toEqual([]);
  });

  it('over its own HTTP server, the held request gets its 503 before the server closes', async () => {
    const emu = emulator();
    const server = await emu.listen({ port: 0 });
    const { faultId, init } = heldCatalogCreation(emu);
    const held = fetch(`${server.url}/v1/catalogos`, init);
    await untilPending(emu, 1);

    // The idle keep-alive connection is closed at once, not after the grace given to answers in progress (500 ms):
    // close() ends before a timer of that grace set just before it, which fires first when both are due, however
    // late a loaded machine runs them (a bound on the elapsed time, 400 ms, failed there).
    let graceOver = false;
    const grace = setTimeout(() => (graceOver = true), 500);
    await emu.close();
    clearTimeout(grace);
    expect(graceOver, 'close() waited for the grace: the idle connection was not closed at once').toBe(false);
    const answer = await held;
    expect(answer.status).toBe(503);
    expect(((await answer.json()) as { erro: { codigo: string; mensagem: string } }).erro).toMatchObject({
      codigo: 'servico_indisponivel',
      mensagem: closedMessage(faultId),
    });
    await expect(fetch(`${server.url}/v1/empresa`)).rejects.toThrow();
  });
});

describe('createEmulator({ routes })', () => {
  const FROM = 'https://hooks.configured.example';

  /** A company with a destination under `host`, and an event raised for it; resolves once the clock delivered it. */
  async function deliverOne(emu: Emulator, host: string): Promise<string> {
    const company = emu.companies.create();
    const destination = await emu.fetch('/v1/webhook', {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${company.token}`,
        'content-type': 'application/json',
        'idempotency-key': `destination-${company.companyId}`,
        'if-none-match': '*',
      },
      body: JSON.stringify({ url: `${host}/recebe` }),
    });
    expect(destination.status).toBe(201);
    const { eventId } = emu.webhooks.raise(company.companyId, { tipo: 'webhook.teste' });
    await emu.clock.runUntilIdle();
    return eventId;
  }

  it('routes deliveries from the start, and every reset puts the configured routes back and drops the others', async () => {
    const received: string[] = [];
    const handler = (request: Request) => {
      received.push(request.headers.get('service-event-id') ?? '');
      return new Response(null, { status: 204 });
    };
    const emu = emulator({ routes: [{ from: FROM, to: handler }] });
    expect(emu.network.routes()).toEqual([{ from: FROM, to: handler }]);
    const first = await deliverOne(emu, FROM);
    expect(received).toEqual([first]);

    emu.network.route('https://hooks.later.example', 'http://127.0.0.1:9');
    emu.network.unroute(FROM);
    emu.reset();
    expect(emu.network.routes()).toEqual([{ from: FROM, to: handler }]);
    const second = await deliverOne(emu, FROM);
    expect(received).toEqual([first, second]);
    expect(emu.inbox.list()).toEqual([]);
  });

  it('checks each route as emu.network.route does and throws at creation, naming the bad one', () => {
    expect(() =>
      createEmulator({
        routes: [
          { from: FROM, to: 'http://127.0.0.1:9000' },
          { from: 'http://hooks.example.com', to: 'http://127.0.0.1:9000' },
        ],
      }),
    ).toThrow(
      new TypeError(
        'routes[1]: route "from" must be an https:// URL prefix, as a webhook destination is (got http://hooks.example.com)',
      ),
    );
    expect(() => createEmulator({ routes: [{ from: FROM, to: 'ftp://x' }] })).toThrow(
      /^routes\[0\]: route "to" must be an http:\/\/ or https:\/\/ URL, or a handler function \(got ftp:\/\/x\)$/,
    );
    expect(() => createEmulator({ routes: [{ from: 'hooks', to: 'http://127.0.0.1:9000' }] })).toThrow(
      'routes[0]: route "from" is not an absolute URL: hooks',
    );
  });
});

describe('options.companies', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('are created at exactly the start instant in real mode, so every reset recreates the same ids and tokens', () => {
    // A wall clock that moves 1 ms each time it is read: time passes while the emulator is built.
    const start = Date.UTC(2026, 10, 22, 10);
    let wall = start;
    vi.spyOn(Date, 'now').mockImplementation(() => wall++);
    const emu = emulator({ clock: 'real', start, companies: [{}, { cnpjRoot: '11222333' }] });
    const initial = emu.companies.initial();
    expect(emu.companies.list().map((c) => c.createdAt)).toEqual([start, start]);
    // A UUIDv7 begins with its 48-bit millisecond time.
    expect(initial.map((c) => parseInt(c.companyId.replace(/-/g, '').slice(0, 12), 16))).toEqual([start, start]);

    wall += 50;
    emu.reset();
    expect(emu.companies.initial()).toEqual(initial);
    expect(emu.companies.list().map((c) => [c.id, c.createdAt])).toEqual(initial.map((c) => [c.companyId, start]));

    // One removed is no longer among them, until the next whole reset brings it back.
    emu.companies.remove(initial[0]!.companyId);
    expect(emu.companies.initial()).toEqual([initial[1]]);
    emu.reset();
    expect(emu.companies.initial()).toEqual(initial);
  });
});

describe('createEmulator({ idempotency: { maxStoredAnswersPerCompany } })', () => {
  type Answer = { status: number; body: string; etag: string | null; location: string | null; replayed: string | null };

  /** A company with a catalog, and a product creation under `key` (its body numbered `n`). */
  async function world(emu: Emulator) {
    const company = emu.companies.create();
    const headers = (key: string) => ({
      authorization: `Bearer ${company.token}`,
      'content-type': 'application/json',
      'idempotency-key': key,
    });
    const send = async (method: 'POST', path: string, key: string, body: unknown): Promise<Answer> => {
      const r = await emu.fetch(path, { method, headers: headers(key), body: JSON.stringify(body) });
      return {
        status: r.status,
        body: await r.text(),
        etag: r.headers.get('etag'),
        location: r.headers.get('location'),
        replayed: r.headers.get('idempotent-replayed'),
      };
    };
    const catalog = JSON.parse(
      (
        await send('POST', '/v1/catalogos', `catalog-${company.companyId}`, {
          estabelecimento_id: company.headOffice.id,
          nome: 'Loja',
        })
      ).body,
    ) as { id: string };
    const create = (key: string, n: number) =>
      send('POST', `/v1/catalogos/${catalog.id}/produtos`, key, { origem: 'erp', ncm: '84713012', sku: `SKU-${n}` });
    return { company, catalog, create };
  }
  const storedKeys = (emu: Emulator, companyId: string) =>
    emu
      .snapshot()
      .state.idempotency.filter((e) => e.companyId === companyId)
      .map((e) => e.key);
  const KEYS = [
    'product-key-0000001',
    'product-key-0000002',
    'product-key-0000003',
    'product-key-0000004',
    'product-key-0000005',
  ];

  it('at a ceiling of 3, the 4th answer stored drops the 1st: its key is new again, the 2nd still replays, another company keeps its own', async () => {
    const emu = emulator({ idempotency: { maxStoredAnswersPerCompany: 3 } });
    const a = await world(emu);
    const b = await world(emu);
    // a's catalog creation was its 1st stored answer; 3 product creations drop it.
    const first = await a.create(KEYS[0]!, 0);
    const second = await a.create(KEYS[1]!, 1);
    await a.create(KEYS[2]!, 2);
    expect(storedKeys(emu, a.company.companyId)).toEqual(KEYS.slice(0, 3));
    const bFirst = await b.create(KEYS[0]!, 0);
    await a.create(KEYS[3]!, 3);
    expect(storedKeys(emu, a.company.companyId)).toEqual(KEYS.slice(1, 4));
    expect(storedKeys(emu, b.company.companyId)).toEqual([`catalog-${b.company.companyId}`, KEYS[0]]);

    expect(second).toMatchObject({ status: 201, replayed: null });
    expect(await a.create(KEYS[1]!, 1)).toEqual({ ...second, replayed: 'true' });
    expect(await b.create(KEYS[0]!, 0)).toEqual({ ...bFirst, replayed: 'true' });
    // The 1st key is a new request again: another product, its answer stored as the newest (dropping the 2nd).
    const again = await a.create(KEYS[0]!, 0);
    expect(again).toMatchObject({ status: 201, replayed: null });
    expect(again.location).not.toBe(first.location);
    expect(storedKeys(emu, a.company.companyId)).toEqual([KEYS[2], KEYS[3], KEYS[0]]);
  });

  it('replays a stored answer byte for byte: status, body, ETag and Location', async () => {
    const emu = emulator({ idempotency: { maxStoredAnswersPerCompany: 3 } });
    const a = await world(emu);
    const original = await a.create(KEYS[0]!, 0);
    expect(original).toMatchObject({ status: 201, replayed: null });
    expect(await a.create(KEYS[0]!, 0)).toEqual({ ...original, replayed: 'true' });
  });

  it('a snapshot keeps the order: restored, the next answers stored drop the oldest first', async () => {
    const emu = emulator({ idempotency: { maxStoredAnswersPerCompany: 3 } });
    const a = await world(emu);
    for (const [n, key] of KEYS.slice(0, 3).entries()) await a.create(key, n);
    const b = await world(emu);
    const snapshot = emu.snapshot();
    expect(snapshot.state.idempotency.map((e) => e.key)).toEqual([
      ...KEYS.slice(0, 3),
      `catalog-${b.company.companyId}`,
    ]);

    const restored = emulator({ idempotency: { maxStoredAnswersPerCompany: 3 } });
    restored.restore(snapshot);
    expect(restored.snapshot().state.idempotency).toEqual(snapshot.state.idempotency);
    const create = async (emu: Emulator, key: string, n: number) =>
      emu.fetch(`/v1/catalogos/${a.catalog.id}/produtos`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${a.company.token}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify({ origem: 'erp', ncm: '84713012', sku: `SKU-${n}` }),
      });
    expect((await create(restored, KEYS[3]!, 3)).status).toBe(201);
    expect(storedKeys(restored, a.company.companyId)).toEqual(KEYS.slice(1, 4));
    expect((await create(restored, KEYS[4]!, 4)).status).toBe(201);
    expect(storedKeys(restored, a.company.companyId)).toEqual(KEYS.slice(2, 5));
    expect(storedKeys(restored, b.company.companyId)).toEqual([`catalog-${b.company.companyId}`]);
  });

  it('refuses anything but a whole number, 1 or more, naming the option', () => {
    for (const bad of [0, -1, 2.5, Number.NaN, Number.POSITIVE_INFINITY, '3' as unknown as number]) {
      expect(() => createEmulator({ idempotency: { maxStoredAnswersPerCompany: bad } })).toThrow(
        new RangeError(`idempotency.maxStoredAnswersPerCompany must be a whole number, 1 or more; got ${bad}`),
      );
    }
    expect(() => createEmulator({ idempotency: {} })).not.toThrow();
  });
});

describe('restore: the idempotency store of a snapshot', () => {
  const DAY = 86_400_000;
  const LONG = 'Café torrado e moído, '.repeat(30);

  /** One company's three stored answers: a catalog and a product created (its body over 512 characters), a PATCH. */
  async function threeAnswers(emu: Emulator) {
    const company = emu.companies.create();
    const send = async (
      method: 'POST' | 'PATCH',
      path: string,
      key: string,
      body: unknown,
      extra: Record<string, string> = {},
    ) => {
      const r = await emu.fetch(path, {
        method,
        headers: {
          authorization: `Bearer ${company.token}`,
          'content-type': 'application/json',
          'idempotency-key': key,
          ...extra,
        },
        body: JSON.stringify(body),
      });
      return {
        status: r.status,
        text: await r.text(),
        etag: r.headers.get('etag'),
        location: r.headers.get('location'),
        replayed: r.headers.get('idempotent-replayed'),
      };
    };
    const catalog = await send('POST', '/v1/catalogos', 'catalog-key-000001', {
      nome: 'Loja',
      estabelecimento_id: company.headOffice.id,
    });
    const catalogId = (JSON.parse(catalog.text) as { id: string }).id;
    const product = await send('POST', `/v1/catalogos/${catalogId}/produtos`, 'product-key-000001', {
      origem: 'erp',
      ncm: '84713012',
      descricao: LONG,
    });
    const productId = (JSON.parse(product.text) as { id: string }).id;
    const patch = await send(
      'PATCH',
      `/v1/produtos/${productId}`,
      'patch-key-00000001',
      { sku: 'CAFE-500' },
      { 'if-match': product.etag! },
    );
    // Each request's fingerprint as earlier snapshots wrote it: method, path and canonical body (keys sorted),
    // a body over 512 characters as its SHA-256.
    const canonicalProduct = JSON.stringify({ descricao: LONG, ncm: '84713012', origem: 'erp' });
    const fingerprints = [
      `POST /v1/catalogos {"estabelecimento_id":"${company.headOffice.id}","nome":"Loja"}`,
      `POST /v1/catalogos/${catalogId}/produtos sha256:${createHash('sha256').update(canonicalProduct).digest('hex')}`,
      `PATCH /v1/produtos/${productId} {"sku":"CAFE-500"}`,
    ];
    return { company, send, productId, patch, fingerprints };
  }

  /** The store of `snapshot` as a snapshot written before the store kept digests would hold it. */
  function inEarlierFormat(snapshot: ReturnType<Emulator['snapshot']>, fingerprints: readonly string[]) {
    const idempotency = snapshot.state.idempotency.map((e, i) => ({
      companyId: e.companyId,
      key: e.key,
      fingerprint: fingerprints[i]!,
      response: {
        status: e.status,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          ...(e.etag === null ? {} : { etag: e.etag }),
          ...(e.location === null ? {} : { location: e.location }),
        },
        body: e.body,
      },
      storedAt: e.expiresAt - 60 * DAY,
      expiresAt: e.expiresAt,
    }));
    return { ...snapshot, state: { ...snapshot.state, idempotency } };
  }

  it('converts a snapshot written before the store kept digests: the same store, and its answers replay', async () => {
    const emu = emulator();
    const { send, productId, patch, fingerprints } = await threeAnswers(emu);
    const snapshot = emu.snapshot();
    expect(snapshot.state.idempotency.map((e) => [e.key, e.status, e.fingerprint.length])).toEqual([
      ['catalog-key-000001', 201, 22],
      ['product-key-000001', 201, 22],
      ['patch-key-00000001', 200, 22],
    ]);

    const restored = emulator();
    restored.restore(inEarlierFormat(snapshot, fingerprints));
    expect(restored.snapshot().state.idempotency).toEqual(snapshot.state.idempotency);

    // The restored emulator answers the repeat from the converted store; a changed body is another request.
    emu.restore(inEarlierFormat(snapshot, fingerprints));
    expect(
      await send(
        'PATCH',
        `/v1/produtos/${productId}`,
        'patch-key-00000001',
        { sku: 'CAFE-500' },
        { 'if-match': '"0000000000000000"' },
      ),
    ).toEqual({ ...patch, replayed: 'true' });
    const other = await send(
      'PATCH',
      `/v1/produtos/${productId}`,
      'patch-key-00000001',
      { sku: 'CAFE-1KG' },
      { 'if-match': '"0000000000000000"' },
    );
    expect(other.status).toBe(422);
    expect((JSON.parse(other.text) as { erro: { codigo: string } }).erro.codigo).toBe('idempotencia_reutilizada');
  });

  it.each([
    [
      { fingerprint: 'PATCH /v1/produtos/x {}' },
      "state.idempotency.0.fingerprint: a fingerprint is the request's digest: 22 characters of base64url",
    ],
    [
      { status: 500 },
      'state.idempotency.0.status: must be the status of a stored answer: an integer from 200 to 299 (only successful answers are stored), except 204 and 205, which carry no body',
    ],
    [
      { etag: '"a"\r\nset-cookie: x' },
      'state.idempotency.0.etag: must be an HTTP header value: no CR, LF, NUL or other control character but tab',
    ],
    [
      { headers: { 'bad name': 'x' } },
      "state.idempotency.0.headers.bad name: must be named by an HTTP token (letters, digits and !#$%&'*+-.^_`|~)",
    ],
    [{ storedAt: 0 }, 'state.idempotency.0: Unrecognized key: "storedAt"'],
  ])('refuses a stored answer a replay could not send (%j), naming the field', async (change, message) => {
    const emu = emulator();
    await threeAnswers(emu);
    const snapshot = emu.snapshot();
    const bad = {
      ...snapshot,
      state: { ...snapshot.state, idempotency: [{ ...snapshot.state.idempotency[0]!, ...change }] },
    };
    expect(() => emu.restore(bad)).toThrow(
      expect.objectContaining({ name: 'SnapshotError', message: `Not a snapshot of this emulator: ${message}` }),
    );
  });

  it('refuses an earlier-format stored answer a replay could not send, naming the field', async () => {
    const emu = emulator();
    const { fingerprints } = await threeAnswers(emu);
    const earlier = inEarlierFormat(emu.snapshot(), fingerprints);
    const [first] = earlier.state.idempotency;
    const bad = {
      ...earlier,
      state: {
        ...earlier.state,
        idempotency: [{ ...first!, response: { ...first!.response, headers: { location: 'x\ny' } } }],
      },
    };
    expect(() => emu.restore(bad)).toThrow(
      expect.objectContaining({
        name: 'SnapshotError',
        message:
          'Not a snapshot of this emulator: state.idempotency.0.response.headers.location: must be an HTTP header value: no CR, LF, NUL or other control character but tab',
      }),
    );
  });
});

describe('emu.listen()', () => {
  it("links the server's inspector page: <url>/_emulator/ui, also after a wildcard bind", async () => {
    await using emu = createEmulator();
    await using server = await emu.listen({ port: 0 });
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect(server.inspector).toBe(`http://127.0.0.1:${server.port}/_emulator/ui`);
    await using wildcard = await emu.listen({ port: 0, host: '0.0.0.0' });
    expect(wildcard.inspector).toBe(`http://127.0.0.1:${wildcard.port}/_emulator/ui`);
  });

  it('controls: false serves the API alone: every /_emulator path answers as an unknown path, and no inspector is linked', async () => {
    await using emu = createEmulator({ companies: [{}] });
    const [company] = emu.companies.initial();
    await using server = await emu.listen({ port: 0, controls: false });
    expect(server.inspector).toBeNull();
    for (const [method, path] of [
      ['GET', '/_emulator'],
      ['GET', '/_emulator/ui'],
      ['GET', '/_emulator/docs'],
      ['GET', '/_emulator/state'],
      ['POST', '/_emulator/reset'],
      ['POST', '/_emulator/clock/advance'],
    ] as const) {
      const answer = await fetch(`${server.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: '{"by":"1d"}' } : {}),
      });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(((await answer.json()) as { erro: { codigo: string; mensagem: string } }).erro).toMatchObject({
        codigo: 'rota_nao_encontrada',
        mensagem: `No operation at ${method} ${path}. Paths begin with /v1.`,
      });
    }
    // Nothing moved: the clock did not advance, the company is there.
    const identity = await fetch(`${server.url}/v1/empresa`, {
      headers: { authorization: `Bearer ${company!.token}` },
    });
    expect(identity.status).toBe(200);
    expect(((await identity.json()) as { id: string }).id).toBe(company!.companyId);
    // The same emulator on another server keeps its controls: the option belongs to the server.
    await using full = await emu.listen({ port: 0 });
    expect((await fetch(`${full.url}/_emulator`)).status).toBe(200);
  });

  it('refuses a controls option that is not a boolean, and listens on nothing', async () => {
    await using emu = createEmulator();
    await expect(emu.listen({ port: 0, controls: 'no' as unknown as boolean })).rejects.toThrow(
      new TypeError('controls must be true or false (got "no")'),
    );
  });
});
