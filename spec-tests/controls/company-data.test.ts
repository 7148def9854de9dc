/**
 * One company's data on its own over HTTP: DELETE /_emulator/companies/{id} removes it (records, credentials,
 * tasks), GET and PUT /_emulator/companies/{id}/state save it and put it back in place of its later records.
 * None touches another company: each test checks a second company reads exactly as before.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { Api, headOfficeCatalog, newKey, otherCompany, product, until, world, type World } from '../support/client.js';
import { expectControlError, expectError } from '../support/expect.js';
import { branch, productsPath, UNKNOWN_V7_ID } from '../support/fixtures.js';
import { createDestination, raiseEvent } from '../support/webhook-setup.js';
import { deployment } from '../support/deployment.js';

// Every test here is about the emulator itself: against a deployment each is skipped, before it sends anything.
beforeEach((context) => {
  if (deployment !== undefined)
    context.skip(
      "checks the emulator's own /_emulator company controls (remove, save and restore a company), which a deployment of the service does not have",
    );
});

/** What a company reads of its catalog: status, ETag and exact body of each list and record. */
async function reads(w: World, catalogId: string, productId: string) {
  const answers = await Promise.all([
    w.api.get(`/v1/produtos/${productId}`),
    w.api.get('/v1/produtos'),
    w.api.get(`/v1/catalogos/${catalogId}`),
    w.api.get(productsPath(catalogId)),
    w.api.get('/v1/estabelecimentos'),
  ]);
  return answers.map((a) => ({ status: a.status, etag: a.headers.get('etag'), body: a.text }));
}

/** A company with a catalog and a product, and what it reads. */
async function busy(w: World) {
  const catalog = await headOfficeCatalog(w);
  const created = await product(w, catalog.id, { sku: 'before' });
  return { catalog, created, read: () => reads(w, catalog.id, created.id) };
}

describe('DELETE /_emulator/companies/{id}', () => {
  it('removes the company: 204, its token gets 401, it is no longer listed, and another company reads as before', async () => {
    const a = await world();
    const b = await otherCompany(a);
    await busy(a);
    const other = await busy(b);
    const before = await other.read();

    const removed = await a.controls.raw('DELETE', `/companies/${a.company.companyId}`);
    expect(removed.status).toBe(204);
    expect(removed.text).toBe('');
    expectError(await a.api.get('/v1/produtos'), 401, 'credencial_invalida', 'header.authorization');
    const { items } = (await a.controls.raw('GET', '/companies')).body as { items: { id: string }[] };
    expect(items.map((c) => c.id)).not.toContain(a.company.companyId);
    expect(items.map((c) => c.id)).toContain(b.company.companyId);
    expect(await other.read()).toEqual(before);
    expectControlError(
      await a.controls.raw('GET', `/companies/${a.company.companyId}/state`),
      404,
      'empresa_nao_encontrada',
      'path.companyId',
    );
  });

  it('removes a company on a clock of its own with its clock: its token gets 401, its clock controls 404', async () => {
    const a = await world({}, { clock: 'own' });
    const b = await otherCompany(a);
    const other = await busy(b);
    const before = await other.read();
    await busy(a);
    expect((await a.controls.raw('GET', `/companies/${a.company.companyId}/clock`)).status).toBe(200);
    expect((await a.controls.raw('DELETE', `/companies/${a.company.companyId}`)).status).toBe(204);
    expectError(await a.api.get('/v1/produtos'), 401, 'credencial_invalida', 'header.authorization');
    expectControlError(
      await a.controls.raw('GET', `/companies/${a.company.companyId}/clock`),
      404,
      'empresa_nao_encontrada',
      'path.companyId',
    );
    expect(await other.read()).toEqual(before);
  });

  it('answers 404 empresa_nao_encontrada for a company that does not exist (or no longer does)', async () => {
    const a = await world();
    expectControlError(
      await a.controls.raw('DELETE', `/companies/${UNKNOWN_V7_ID}`),
      404,
      'empresa_nao_encontrada',
      'path.companyId',
    );
    expect((await a.controls.raw('DELETE', `/companies/${a.company.companyId}`)).status).toBe(204);
    expectControlError(
      await a.controls.raw('DELETE', `/companies/${a.company.companyId}`),
      404,
      'empresa_nao_encontrada',
      'path.companyId',
    );
  });

  it("drops its tasks: a request of it held by delayMs answers 503 servico_indisponivel and applies nothing, while another company's held request still runs", async () => {
    const a = await world();
    const b = await otherCompany(a);
    const body = (w: World) => ({ estabelecimento_id: w.company.headOffice.id, nome: 'Loja' });
    for (const w of [a, b])
      await a.controls.addFault({
        target: 'api',
        match: { method: 'POST', path: '/v1/catalogos', companyId: w.company.companyId },
        effect: { delayMs: 1000 },
      });
    const before = (await a.controls.clock()).pending;
    const heldA = a.api.post('/v1/catalogos', body(a), { key: newKey() });
    const heldB = b.api.post('/v1/catalogos', body(b), { key: newKey() });
    await until(async () => (await a.controls.clock()).pending >= before + 2);

    expect((await a.controls.raw('DELETE', `/companies/${a.company.companyId}`)).status).toBe(204);
    const answerA = await heldA;
    expectError(answerA, 503, 'servico_indisponivel');
    expect(answerA.body.erro.mensagem).toContain(`told to remove company ${a.company.companyId}`);
    await a.controls.advance(1000);
    expect((await heldB).status).toBe(201);
    expect((await b.api.get('/v1/catalogos')).body.itens).toHaveLength(1);
  });
});

describe('DELETE /_emulator/companies/{id}: the journal', () => {
  it.each(['shared', 'own'] as const)(
    'leaves nothing of a company on the %s clock in the journal, a request held when it went and answered later included, nor on the inspector',
    async (clock) => {
      const a = await world({}, clock === 'own' ? { clock: 'own' } : {});
      const b = await otherCompany(a);
      const pending = async () =>
        clock === 'own'
          ? ((await a.controls.raw('GET', `/companies/${a.company.companyId}/clock`)).body.pending as number)
          : (await a.controls.clock()).pending;
      // The inspector open, so that it records what it sees of the company too.
      expect((await a.controls.raw('GET', `/inspector/companies/${a.company.companyId}/timeline`)).status).toBe(200);
      expect((await a.api.get('/v1/empresa')).status).toBe(200);
      expect((await b.api.get('/v1/empresa')).status).toBe(200);
      await a.controls.addFault({
        target: 'api',
        match: { method: 'POST', path: '/v1/catalogos', companyId: a.company.companyId },
        effect: { delayMs: 1000 },
      });
      const before = await pending();
      const held = a.api.post(
        '/v1/catalogos',
        { estabelecimento_id: a.company.headOffice.id, nome: 'Loja' },
        { key: newKey() },
      );
      await until(async () => (await pending()) > before);
      const ofCompany = async (companyId: string) =>
        ((await a.controls.raw('GET', '/requests')).body.items as { companyId: string | null }[]).filter(
          (entry) => entry.companyId === companyId,
        );
      expect(await ofCompany(a.company.companyId)).toHaveLength(1);
      const ofB = await ofCompany(b.company.companyId);

      expect((await a.controls.raw('DELETE', `/companies/${a.company.companyId}`)).status).toBe(204);
      // Answered after the removal: the journal takes it as it is answered, and keeps nothing of a company that is gone.
      expectError(await held, 503, 'servico_indisponivel');
      expect(await ofCompany(a.company.companyId)).toEqual([]);
      expect(await ofCompany(b.company.companyId)).toEqual(ofB);
      expectControlError(
        await a.controls.raw('GET', `/inspector/companies/${a.company.companyId}/timeline`),
        404,
        'empresa_nao_encontrada',
        'path.companyId',
      );
    },
  );
});

describe('POST /_emulator/companies/{id}/reset', () => {
  it('puts the company back as it was created: 200 with its creation body, its first token works, later credentials get 401, no records, flags as created; another company reads as before', async () => {
    const a = await world({}, { name: 'Loja A', analysisAllowance: 3 });
    const b = await otherCompany(a);
    const mine = await busy(a);
    const other = await busy(b);
    const before = await other.read();
    const companyBefore = ((await a.controls.raw('GET', '/companies')).body.items as { id: string }[]).find(
      (c) => c.id === a.company.companyId,
    );
    await a.controls.updateCompany(a.company.companyId, { name: 'Renamed', subscriptionActive: false });
    const added = await a.controls.addCredential(a.company.companyId, ['catalogo:ler']);

    const reset = await a.controls.raw('POST', `/companies/${a.company.companyId}/reset`);
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body).toEqual(a.company);
    expect((await a.api.get('/v1/produtos')).body.itens).toEqual([]);
    expectError(await a.api.get(`/v1/catalogos/${mine.catalog.id}`), 404, 'catalogo_nao_encontrado', 'path.id');
    expectError(await a.api.as(added.token).get('/v1/produtos'), 401, 'credencial_invalida', 'header.authorization');
    const establishments = (await a.api.get('/v1/estabelecimentos')).body.itens as {
      id: string;
      cnpj: string;
      catalogo_id: string | null;
    }[];
    expect(establishments.map((e) => [e.id, e.cnpj, e.catalogo_id])).toEqual([
      [a.company.headOffice.id, a.company.headOffice.cnpj, null],
    ]);
    const companyAfter = ((await a.controls.raw('GET', '/companies')).body.items as { id: string }[]).find(
      (c) => c.id === a.company.companyId,
    );
    expect(companyAfter).toEqual(companyBefore);
    expect(await other.read()).toEqual(before);
    expectControlError(
      await a.controls.raw('POST', `/companies/${UNKNOWN_V7_ID}/reset`),
      404,
      'empresa_nao_encontrada',
      'path.companyId',
    );
  });
});

describe('GET and PUT /_emulator/companies/{id}/state', () => {
  it('saves one company and puts it back in place of its later records: it reads as before, another company as it did just before', async () => {
    const a = await world();
    const b = await otherCompany(a);
    const mine = await busy(a);
    const other = await busy(b);
    const before = await mine.read();

    const saved = await a.controls.raw('GET', `/companies/${a.company.companyId}/state`);
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      format: 'catalog-emulator/company',
      version: 1,
      companyId: a.company.companyId,
    });
    expect(Object.keys(saved.body)).toEqual(['format', 'version', 'companyId', 'now', 'tasks', 'state']);
    expect((saved.body.state.companies as { id: string }[]).map((c) => c.id)).toEqual([a.company.companyId]);
    expect(
      (saved.body.state.products as { companyId: string }[]).every((p) => p.companyId === a.company.companyId),
    ).toBe(true);
    expect('regulatory' in saved.body.state).toBe(false);

    const key = newKey();
    expect(
      (await a.api.patch(`/v1/produtos/${mine.created.id}`, { sku: 'after' }, { key, ifMatch: mine.created.etag }))
        .status,
    ).toBe(200);
    await product(a, mine.catalog.id);
    await product(b, other.catalog.id, { sku: 'later' });
    expect(await mine.read()).not.toEqual(before);
    const otherNow = await other.read();

    const restored = await a.controls.raw('PUT', `/companies/${a.company.companyId}/state`, saved.body);
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body).toMatchObject({ name: 'catalog-emulator' });
    expect(await mine.read()).toEqual(before);
    expect(await other.read()).toEqual(otherNow);
    // The stored answers are the company's: the key used after the snapshot is a new request again.
    const again = await a.api.patch(
      `/v1/produtos/${mine.created.id}`,
      { sku: 'after' },
      { key, ifMatch: mine.created.etag },
    );
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  it("answers 404 empresa_nao_encontrada for a company that is not there, a removed one included: a restore replaces a company's records", async () => {
    const a = await world();
    await busy(a);
    const saved = (await a.controls.raw('GET', `/companies/${a.company.companyId}/state`)).body;
    expect((await a.controls.raw('DELETE', `/companies/${a.company.companyId}`)).status).toBe(204);
    expectControlError(
      await a.controls.raw('PUT', `/companies/${a.company.companyId}/state`, saved),
      404,
      'empresa_nao_encontrada',
      'path.companyId',
    );
    expectControlError(
      await a.controls.raw('GET', `/companies/${UNKNOWN_V7_ID}/state`),
      404,
      'empresa_nao_encontrada',
      'path.companyId',
    );
    expectError(await a.api.get('/v1/produtos'), 401, 'credencial_invalida', 'header.authorization');
  });

  it('refuses (422, naming the field) a snapshot of another company, one that is not a company snapshot, and records of another company; nothing changes', async () => {
    const a = await world();
    const b = await otherCompany(a);
    const mine = await busy(a);
    await busy(b);
    const saved = (await a.controls.raw('GET', `/companies/${a.company.companyId}/state`)).body;
    const ofB = (await a.controls.raw('GET', `/companies/${b.company.companyId}/state`)).body;
    await product(a, mine.catalog.id);
    const now = await mine.read();
    const path = `/companies/${a.company.companyId}/state`;

    const wrongCompany = await a.controls.raw('PUT', path, ofB);
    expectControlError(wrongCompany, 422, 'valor_invalido', 'body.companyId');
    expect(wrongCompany.body.erro.mensagem).toBe(
      `Not a consistent snapshot: companyId: this is a snapshot of company ${b.company.companyId}, not of ${a.company.companyId}`,
    );
    expectControlError(
      await a.controls.raw('PUT', path, { ...saved, format: 'catalog-emulator/state' }),
      422,
      'valor_invalido',
      'body.format',
    );
    const foreign = structuredClone(saved);
    foreign.state.products[0].companyId = b.company.companyId;
    const refused = await a.controls.raw('PUT', path, foreign);
    expectControlError(refused, 422, 'valor_invalido', 'body.state.products[0]');
    expect(refused.body.erro.mensagem).toBe(
      `Not a consistent snapshot: state.products.0: belongs to company ${b.company.companyId}, not to ${a.company.companyId}, whose data this is`,
    );
    const rootOfB = structuredClone(saved);
    rootOfB.state.companies[0].cnpjRoot = b.company.cnpjRoot;
    expectControlError(
      await a.controls.raw('PUT', path, rootOfB),
      422,
      'valor_invalido',
      'body.state.companies[0].cnpjRoot',
    );
    const taskOfB = structuredClone(saved);
    taskOfB.tasks = [
      { due: Date.parse('2030-01-01T00:00:00Z'), kind: 'housekeeping.idempotency', owner: b.company.companyId },
    ];
    expectControlError(await a.controls.raw('PUT', path, taskOfB), 422, 'valor_invalido', 'body.tasks[0].owner');
    expect(await mine.read()).toEqual(now);
    expectControlError(
      await a.controls.raw('PUT', `/companies/${UNKNOWN_V7_ID}/state`, saved),
      404,
      'empresa_nao_encontrada',
      'path.companyId',
    );
  });
});

describe("a company's restore holds only its own ids, whatever the clocks", () => {
  /** A company on the shared clock or on one of its own, beside `w`'s. */
  async function companyOn(w: World, clock: 'shared' | 'own'): Promise<World> {
    const info = await w.controls.createCompany(clock === 'own' ? { clock: 'own' } : {});
    return { ...w, company: info, api: new Api(w.target, info.token) };
  }

  /** A record of each kind, by kind: its id (a token for a credential), and where a restore's refusal of it points. */
  async function records(w: World) {
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    const establishment = await branch(w);
    const destination = await createDestination(w);
    const event = await raiseEvent(w);
    return [
      { kind: 'catalog', value: catalog.id, list: 'catalogs', field: 'id', problem: `catalog ${catalog.id}` },
      { kind: 'product', value: created.id, list: 'products', field: 'id', problem: `product ${created.id}` },
      {
        kind: 'head office',
        value: w.company.headOffice.id,
        list: 'establishments',
        field: 'id',
        problem: `establishment ${w.company.headOffice.id}`,
      },
      {
        kind: 'establishment',
        value: establishment.id,
        list: 'establishments',
        field: 'id',
        problem: `establishment ${establishment.id}`,
      },
      {
        kind: 'webhook destination',
        value: destination.id,
        list: 'webhookDestinations',
        field: 'id',
        problem: `webhook destination ${destination.id}`,
      },
      { kind: 'webhook event', value: event, list: 'webhookEvents', field: 'id', problem: `webhook event ${event}` },
      {
        kind: 'credential token',
        value: w.company.token,
        list: 'credentials',
        field: 'token',
        problem: 'a credential token',
      },
    ];
  }

  it.each([
    ['shared', 'shared'],
    ['shared', 'own'],
    ['own', 'shared'],
    ['own', 'own'],
  ] as const)(
    "A on the %s clock, B on the %s clock: A's snapshot holding any id of B's is refused 422 as on one clock, and nothing changes",
    async (clockA, clockB) => {
      const w = await world();
      const a = await companyOn(w, clockA);
      const b = await companyOn(w, clockB);
      const mine = await records(a);
      const theirs = await records(b);
      const path = `/companies/${a.company.companyId}/state`;
      const saved = (await a.controls.raw('GET', path)).body;
      const read = async () =>
        Promise.all(
          [a, b].map(async (c) => [
            (await c.controls.raw('GET', `/companies/${c.company.companyId}/state`)).text,
            (await c.api.get('/v1/webhook/eventos')).text,
          ]),
        );
      const before = await read();

      for (const [i, ours] of mine.entries()) {
        const other = theirs[i]!;
        // B's id in place of A's wherever A's data names it: A's records still hold together, but one is B's.
        const foreign = JSON.parse(JSON.stringify(saved).replaceAll(ours.value, other.value));
        const index = (foreign.state[other.list] as Record<string, unknown>[]).findIndex(
          (record) => record[other.field] === other.value,
        );
        const refused = await a.controls.raw('PUT', path, foreign);
        expectControlError(refused, 422, 'valor_invalido', `body.state.${other.list}[${index}].${other.field}`);
        expect(refused.body.erro.mensagem, other.kind).toBe(
          `Not a consistent snapshot: state.${other.list}.${index}.${other.field}: ${other.problem} appears twice`,
        );
      }
      expect(await read()).toEqual(before);
      expect((await a.controls.raw('PUT', path, saved)).status).toBe(200);
    },
  );
});
