/**
 * emu.changes and replayChanges together: after every step of a scenario that touches every kind of record, the
 * clock's tasks (deliveries, jobs, retention), the random sources and the worlds of companies on clocks of their
 * own, the snapshot taken at the start with every change told since (each through JSON, as a log keeps it) restores
 * into an emulator that exports exactly what the emulator itself exports. And replayChanges refuses what is not a
 * change of the state it comes after, naming the entry and the place.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cnpjCheckDigits, createEmulator, type Emulator, type Snapshot, type StateChange } from '../index.js';
import { ChangeLogError, replayChanges } from './change-log.js';

const emulators: Emulator[] = [];
afterEach(async () => {
  await Promise.all(emulators.splice(0).map((emu) => emu.close()));
});

const OPTIONS = { seed: 7, clock: 'manual', companies: [{}] } as const;

function emulator(): Emulator {
  const emu = createEmulator(OPTIONS);
  emulators.push(emu);
  return emu;
}

/** An emulator whose changes are kept as a log would keep them: the snapshot of the last replacement, then lines. */
function logged(emu: Emulator) {
  const log = { base: JSON.stringify(emu.snapshot()), lines: [] as string[], replaced: 0 };
  emu.changes.subscribe((change: StateChange) => {
    if (change.kind === 'replaced') {
      log.base = JSON.stringify(emu.snapshot());
      log.lines = [];
      log.replaced++;
    } else {
      log.lines.push(JSON.stringify({ ...change, at: 0 }));
    }
  });
  return log;
}

/** What `emu` exports, and what an emulator restored from the log exports: the same, when the log is complete. */
async function compare(emu: Emulator, log: ReturnType<typeof logged>): Promise<{ live: unknown; replayed: unknown }> {
  // Changes made outside an answer (in-process controls, the clock's work) are told at the end of their turn.
  await new Promise((resolve) => setImmediate(resolve));
  const { snapshot } = replayChanges(
    JSON.parse(log.base),
    log.lines.map((line) => JSON.parse(line) as unknown),
  );
  const restored = emulator();
  restored.restore(snapshot);
  return { live: withoutRequestIds(emu.snapshot()), replayed: withoutRequestIds(restored.snapshot()) };
}

/**
 * A snapshot without the request ids' sources: every request draws from its world's, a read too, and a read is told
 * nothing (a change told says where the source is then: see the next test).
 */
function withoutRequestIds(snapshot: Snapshot): unknown {
  const strip = ({ requestRandom: _, ...world }: { requestRandom: unknown }) => world;
  return { ...strip(snapshot), ownClocks: snapshot.ownClocks?.map(strip) };
}

/** A valid CNPJ of `root` with the order part `order`. */
const cnpjOf = (root: string, order: string): string => `${root}${order}${cnpjCheckDigits(`${root}${order}`)}`;

class Client {
  #keys = 0;
  constructor(
    readonly emu: Emulator,
    readonly token: string,
  ) {}

  async call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; etag: string | null; body: any }> {
    const answer = await this.emu.fetch(path, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(method === 'GET' ? {} : { 'idempotency-key': `change-log-test-${String(++this.#keys).padStart(6, '0')}` }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await answer.text();
    return {
      status: answer.status,
      etag: answer.headers.get('etag'),
      body: text === '' ? undefined : JSON.parse(text),
    };
  }

  async ok(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const answer = await this.call(method, path, body, headers);
    if (answer.status >= 300)
      throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer;
  }
}

describe('emu.changes with replayChanges', () => {
  it('rebuild exactly the state after every step: every kind of record, tasks, clocks, own worlds', async () => {
    const emu = emulator();
    const log = logged(emu);
    const step = async (label: string, change: () => Promise<unknown>) => {
      await change();
      const { live, replayed } = await compare(emu, log);
      expect(replayed, label).toEqual(live);
    };
    const [company] = emu.companies.initial();
    const api = new Client(emu, company!.token);
    emu.network.route('https://hooks.example.com', () => new Response('', { status: 500 }));

    let catalog = '';
    let products: string[] = [];
    await step('a catalog and products', async () => {
      catalog = (await api.ok('POST', '/v1/catalogos', { estabelecimento_id: company!.headOffice.id, nome: 'Loja' }))
        .body.id;
      products = [];
      for (const i of [1, 2, 3, 4])
        products.push(
          (
            await api.ok('POST', `/v1/catalogos/${catalog}/produtos`, {
              origem: 'erp',
              ncm: '84713012',
              id_externo: `ext-${i}`,
            })
          ).body.id,
        );
    });
    await step('a product edited, twice (its stored answers too)', async () => {
      const first = await api.ok('GET', `/v1/produtos/${products[0]}`);
      const edited = await api.ok('PATCH', `/v1/produtos/${products[0]}`, { sku: 'A' }, { 'if-match': first.etag! });
      await api.ok('PATCH', `/v1/produtos/${products[0]}`, { descricao: 'B' }, { 'if-match': edited.etag! });
    });
    await step('a second catalog, a product linked to it and one unlinked from the first', async () => {
      const second = (
        await api.ok('POST', '/v1/estabelecimentos', { cnpj: cnpjOf(company!.cnpjRoot, '0002'), nome: 'Filial' })
      ).body.id;
      const other = (await api.ok('POST', '/v1/catalogos', { estabelecimento_id: second, nome: 'Outra' })).body.id;
      const p = await api.ok('GET', `/v1/produtos/${products[1]}`);
      await api.ok('PUT', `/v1/catalogos/${other}/produtos/${products[1]}`, undefined, { 'if-match': p.etag! });
      const q = await api.ok('GET', `/v1/produtos/${products[2]}`);
      await api.ok('DELETE', `/v1/catalogos/${catalog}/produtos/${products[2]}`, undefined, { 'if-match': q.etag! });
    });
    await step('a selection, a webhook destination, a test event and deliveries that fail and retry', async () => {
      const selection = await api.ok('GET', '/v1/empresa/vigilancia');
      const selected = await api.ok(
        'PATCH',
        '/v1/empresa/vigilancia',
        { modo: 'selecao', adicionar: products.slice(0, 1) },
        { 'if-match': selection.etag! },
      );
      // The coverage stays partial: only the selection and its version change.
      expect(
        (
          await api.ok(
            'PATCH',
            '/v1/empresa/vigilancia',
            { modo: 'selecao', adicionar: products.slice(1, 2) },
            { 'if-match': selected.etag! },
          )
        ).body.cobertura,
      ).toBe(selected.body.cobertura);
      const destination = await api.ok(
        'PUT',
        '/v1/webhook',
        { url: 'https://hooks.example.com/a' },
        { 'if-none-match': '*' },
      );
      await api.ok('POST', '/v1/webhook/testes', undefined, { 'if-match': destination.etag! });
      await emu.clock.advance('2m');
      const [event] = (await api.ok('GET', '/v1/webhook/eventos')).body.itens;
      expect((await api.ok('GET', `/v1/webhook/eventos/${event.id}/tentativas`)).body.itens.length).toBeGreaterThan(1);
    });
    await step('an analysis and a surveillance execution that run on the clock', async () => {
      const analysis = (await api.ok('POST', '/v1/analises')).body.id;
      await emu.clock.advance('25h');
      expect((await api.ok('GET', `/v1/analises/${analysis}`)).body.estado).toBe('concluida');
      expect((await api.ok('GET', '/v1/vigilancias')).body.itens.length).toBeGreaterThan(0);
    });
    await step('an ingestion: started, a batch, closed, validated and applied', async () => {
      const id = (await api.ok('POST', '/v1/catalogos/ingestoes', { operacao: 'mesclar', catalogo_id: catalog })).body
        .ingestao_id;
      await api.ok('PUT', `/v1/catalogos/ingestoes/${id}/lotes/1`, {
        itens: [
          { id_externo: 'ext-1', origem: 'erp', ncm: '84713012', sku: 'I' },
          { id_externo: 'new-1', origem: 'erp', ncm: '84713012' },
        ],
      });
      await api.ok('POST', `/v1/catalogos/ingestoes/${id}/fechamento`, { total_lotes: 1 });
      await emu.clock.runUntilIdle();
      const read = await api.ok('GET', `/v1/catalogos/ingestoes/${id}`);
      await api.ok('POST', `/v1/catalogos/ingestoes/${id}/aplicacao`, undefined, { 'if-match': read.etag! });
      await emu.clock.runUntilIdle();
      expect((await api.ok('GET', `/v1/catalogos/ingestoes/${id}`)).body.estado).toBe('aplicada');
    });
    await step('a CNPJ correction, reviewed on the clock', async () => {
      const office = await api.ok('GET', `/v1/estabelecimentos/${company!.headOffice.id}`);
      await api.ok(
        'POST',
        `/v1/estabelecimentos/${company!.headOffice.id}/correcoes-cnpj`,
        { cnpj_novo: cnpjOf(company!.cnpjRoot, '0009'), motivo: 'erro' },
        { 'if-match': office.etag! },
      );
      await emu.clock.runUntilIdle();
    });
    await step('a reference published, which triggers executions', async () => {
      emu.regulatory.publish({ extinguir: ['84713012'] });
      await emu.clock.runUntilIdle();
    });
    await step('the catalog deleted', async () => {
      const preview = await api.ok('GET', `/v1/catalogos/${catalog}/impacto-exclusao`);
      await api.ok('DELETE', `/v1/catalogos/${catalog}`, undefined, { 'if-match': preview.etag! });
    });
    await step('31 days: retention purges closed events, housekeeping runs', async () => {
      await emu.clock.advance('31d');
    });
    let own = '';
    await step('a company on a clock of its own, with records, then its clock moved', async () => {
      const created = emu.companies.create({ clock: 'own' });
      own = created.companyId;
      const ownApi = new Client(emu, created.token);
      await ownApi.ok('POST', '/v1/catalogos', { estabelecimento_id: created.headOffice.id, nome: 'Própria' });
      await emu.companies.clock(own).advance('1h');
    });
    await step("a second company, given a credential, and the first one's flags changed", async () => {
      const other = emu.companies.create();
      emu.companies.addCredential(other.companyId, ['catalogo:ler']);
      emu.companies.update(company!.companyId, { surveillanceCapacity: 1 });
    });
    await step("a company's state restored in place of its own", async () => {
      const saved = emu.companies.snapshot(company!.companyId);
      await api.ok('POST', '/v1/catalogos', { estabelecimento_id: company!.headOffice.id, nome: 'Depois' });
      emu.companies.restore(company!.companyId, saved);
    });
    await step('the company on its own clock reset (a new world), then another one removed', async () => {
      emu.companies.reset(own);
      const gone = emu.companies.create({ clock: 'own' });
      await Promise.resolve();
      emu.companies.remove(gone.companyId);
    });
    await step('a company on the shared clock reset and one removed', async () => {
      emu.companies.reset(company!.companyId);
      const extra = emu.companies.create();
      emu.companies.remove(extra.companyId);
    });
    expect(log.replaced).toBe(0);
    expect(log.lines.length).toBeGreaterThan(20);
    await step('a reset of the emulator: told as replaced, then the log starts over', async () => {
      emu.reset();
      await api
        .ok('POST', '/v1/catalogos', { estabelecimento_id: emu.companies.initial()[0]!.headOffice.id, nome: 'Nova' })
        .catch(() => undefined);
    });
    expect(log.replaced).toBe(1);
  });

  it('tell nothing for a read, and tell a change before the answer leaves emu.fetch', async () => {
    const emu = emulator();
    const [company] = emu.companies.initial();
    const api = new Client(emu, company!.token);
    const told: StateChange[] = [];
    emu.changes.subscribe((change) => void told.push(change));
    await api.ok('GET', '/v1/empresa');
    await new Promise((resolve) => setImmediate(resolve));
    expect(told).toEqual([]);
    const answer = api.ok('POST', '/v1/catalogos', { estabelecimento_id: company!.headOffice.id, nome: 'Loja' });
    const created = await answer;
    expect(told.length).toBe(1);
    const change = told[0]!;
    expect(change.kind).toBe('changed');
    if (change.kind !== 'changed') return;
    expect(change.worlds.map((w) => w.companyId)).toEqual([null]);
    // Where the request ids' source is after the request, and the records it wrote, in the order written.
    expect(change.worlds[0]!.requestRandom).toEqual(emu.snapshot().requestRandom);
    expect(change.worlds[0]!.records!.map(([slice, key]) => [slice, key])).toEqual([
      ['establishments', company!.headOffice.id],
      ['catalogs', created.body.id],
      ['idempotency', `${company!.companyId} change-log-test-000001`],
    ]);
  });

  it('hold an answer until the promise a listener returned for its change resolves, however the change was told', async () => {
    const emu = emulator();
    const [company] = emu.companies.initial();
    const api = new Client(emu, company!.token);
    let release!: () => void;
    const durable = new Promise<void>((resolve) => (release = resolve));
    let told = 0;
    emu.changes.subscribe(() => {
      told++;
      return durable;
    });
    let answered = false;
    const answer = api
      .ok('POST', '/v1/catalogos', { estabelecimento_id: company!.headOffice.id, nome: 'Loja' })
      .then(() => (answered = true));
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(told).toBe(1);
    expect(answered).toBe(false);
    // A read after it, its change told already by then, waits for the same promise: what it reads is not durable yet.
    let read = false;
    const reading = api.ok('GET', '/v1/catalogos').then(() => (read = true));
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(read).toBe(false);
    release();
    await Promise.all([answer, reading]);
    expect(answered && read).toBe(true);
  });

  it('note nothing once the last listener stops', async () => {
    const emu = emulator();
    const [company] = emu.companies.initial();
    const told: StateChange[] = [];
    const stop = emu.changes.subscribe((change) => void told.push(change));
    stop();
    await new Client(emu, company!.token).ok('POST', '/v1/catalogos', {
      estabelecimento_id: company!.headOffice.id,
      nome: 'Loja',
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(told).toEqual([]);
  });
});

describe('replayChanges refuses', () => {
  const base = () => JSON.parse(JSON.stringify(createEmulator(OPTIONS).snapshot())) as Snapshot;
  const world = {
    companyId: null,
    now: Date.parse('2026-01-01T00:00:00Z'),
    random: [1, 2, 3, 4],
    requestRandom: [1, 2, 3, 4],
  };
  const refusal = (entries: unknown[]): string => {
    try {
      replayChanges(base(), entries);
    } catch (error) {
      expect(error).toBeInstanceOf(ChangeLogError);
      return (error as Error).message;
    }
    throw new Error('replayed');
  };

  it.each([
    [[{ kind: 'replaced' }], 'entry 0 at kind: Invalid input: expected "changed"'],
    [
      [
        { kind: 'changed', worlds: [], dropped: [] },
        { kind: 'changed', worlds: [{ ...world, now: 'later' }], dropped: [] },
      ],
      'entry 1 at worlds.0.now: Invalid input: expected number, received string',
    ],
    [
      [{ kind: 'changed', worlds: [{ ...world, records: [['widgets', 'x', [], false]] }], dropped: [] }],
      'entry 0 at worlds.0.records.0.0: "widgets" is not a kind of record of this emulator\'s state',
    ],
    [
      [{ kind: 'changed', worlds: [{ ...world, records: [['companies', 'x', [{ id: 'x' }], false]] }], dropped: [] }],
      'entry 0 at worlds.0.records.0.2.0.id: must be an id of this emulator: a lowercase UUID',
    ],
    [
      [{ kind: 'changed', worlds: [{ ...world, tasks: [['-', { due: 0, kind: 'x', owner: null }]] }], dropped: [] }],
      'entry 0 at worlds.0.tasks.0: a task gone (x, due 0) that the world does not have',
    ],
    [
      [{ kind: 'changed', worlds: [{ ...world, companyId: '0190a000-0000-7000-8000-000000000001' }], dropped: [] }],
      'entry 0 at worlds.0.companyId: no world of company 0190a000-0000-7000-8000-000000000001 in the state (it is on the shared clock, or not there)',
    ],
    [
      [{ kind: 'changed', worlds: [], dropped: ['0190a000-0000-7000-8000-000000000001'] }],
      'entry 0 at dropped: no company 0190a000-0000-7000-8000-000000000001 on a clock of its own to drop',
    ],
  ])('%j: %s', (entries, message) => {
    expect(refusal(entries)).toBe(message);
  });

  it('an item noted under another key than its own', () => {
    const snapshot = base();
    const company = snapshot.state.companies[0]!;
    const entry = {
      kind: 'changed',
      worlds: [{ ...world, records: [['companies', 'other', [company], false]] }],
      dropped: [],
    };
    expect(refusal([entry])).toBe(
      `entry 0 at worlds.0.records.0.2.0: this item of companies is noted under "${company.id}", not under "other"`,
    );
  });
});
