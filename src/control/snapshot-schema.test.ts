/**
 * emu.restore() refuses every snapshot it could not serve, naming the field and why, and then nothing has
 * changed: each attack an attacker study found, and the rules around them.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Product } from '../core/products.js';
import { createEmulator, type Emulator } from '../emulator.js';
import { schemaOf, type Same, type Snapshot } from './snapshot-schema.js';

const JSON_HEADERS = { 'content-type': 'application/json' };
let keys = 0;

/** An emulator with a catalog, a product, a webhook destination with an event, and idempotent answers. */
async function world(): Promise<{ emu: Emulator; token: string; snapshot: Snapshot }> {
  const emu = createEmulator();
  const { token, headOffice } = emu.companies.create();
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}, method = 'POST') => {
    const answer = await emu.fetch(path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'idempotency-key': `snapshot-test-${++keys}-key`,
        ...JSON_HEADERS,
        ...headers,
      },
      body: JSON.stringify(body),
    });
    expect(answer.status, await answer.clone().text()).toBeLessThan(300);
    return answer;
  };
  const catalog = (await (await post('/v1/catalogos', { estabelecimento_id: headOffice.id, nome: 'Loja' })).json()) as {
    id: string;
  };
  await post(`/v1/catalogos/${catalog.id}/produtos`, { origem: 'erp', ncm: '84713012' });
  const hook = await post('/v1/webhook', { url: 'https://hooks.example.com/eventos' }, { 'if-none-match': '*' }, 'PUT');
  await post('/v1/webhook/testes', {}, { 'if-match': hook.headers.get('etag')! });
  await emu.clock.advance('1s');
  await post('/v1/analises', {});
  return { emu, token, snapshot: emu.snapshot() };
}

/** Restores `snapshot` changed by `change`; expects the refusal with exactly `message` at `path`, and no change. */
function expectRefused(
  emu: Emulator,
  snapshot: Snapshot,
  change: (copy: any) => void,
  message: string,
  path: readonly (string | number)[],
): void {
  const before = JSON.stringify(emu.snapshot());
  const copy = structuredClone(snapshot);
  change(copy);
  // A SnapshotError is a TypeError, as every refused control input in process.
  expect(() => emu.restore(copy)).toThrow(TypeError);
  expect(() => emu.restore(copy)).toThrow(expect.objectContaining({ name: 'SnapshotError', message, path }));
  expect(JSON.stringify(emu.snapshot())).toBe(before);
}

const taskIndex = (snapshot: Snapshot, kind: string) => {
  const index = snapshot.tasks.findIndex((t) => t.kind === kind);
  expect(index, kind).toBeGreaterThanOrEqual(0);
  return index;
};

describe('restore refuses, changing nothing', () => {
  it('a version with no room to grow (2^53 - 1, past 2^52); one below 2^52 changes and its state restores', async () => {
    const { emu, token, snapshot } = await world();
    const catalog = (s: any) => s.state.catalogs[0];
    expectRefused(
      emu,
      snapshot,
      (s) => {
        catalog(s).versao = Number.MAX_SAFE_INTEGER;
      },
      'Not a snapshot of this emulator: state.catalogs.0.versao: Too big: expected number to be <=4503599627370496',
      ['state', 'catalogs', 0, 'versao'],
    );
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.state.products[0].versao = 2 ** 52 + 1;
      },
      'Not a snapshot of this emulator: state.products.0.versao: Too big: expected number to be <=4503599627370496',
      ['state', 'products', 0, 'versao'],
    );
    const highest = structuredClone(snapshot);
    catalog(highest).versao = 2 ** 52 - 1;
    emu.restore(highest);
    const id = catalog(highest).id as string;
    const read = await emu.fetch(`/v1/catalogos/${id}`, { headers: { authorization: `Bearer ${token}` } });
    const renamed = await emu.fetch(`/v1/catalogos/${id}`, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${token}`,
        'idempotency-key': 'snapshot-test-room-key',
        'if-match': read.headers.get('etag')!,
        ...JSON_HEADERS,
      },
      body: JSON.stringify({ nome: 'Outra' }),
    });
    expect(renamed.status).toBe(200);
    expect(((await renamed.json()) as { versao: number }).versao).toBe(2 ** 52);
    expect(() => emu.restore(emu.snapshot())).not.toThrow();
  });

  it('a now beyond the Date range (8640000000000001), and then the API still answers', async () => {
    const { emu, token, snapshot } = await world();
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.now = 8640000000000001;
      },
      'Not a snapshot of this emulator: now: must be an instant the clock can hold: whole Unix milliseconds from 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z',
      ['now'],
    );
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.now = 1.5;
      },
      'Not a snapshot of this emulator: now: must be an instant the clock can hold: whole Unix milliseconds from 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z',
      ['now'],
    );
    expect((await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });

  it("a record time outside the clock's range, or a task due past one longest advance after it", async () => {
    const { emu, snapshot } = await world();
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.state.products[0].criadoEm = -1;
      },
      'Not a snapshot of this emulator: state.products.0.criadoEm: must be whole Unix milliseconds from 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z: when something happened, the clock could hold it',
      ['state', 'products', 0, 'criadoEm'],
    );
    // Past the clock's end: a start no clock could have seen, and one the API could not write as a date-time.
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.state.webhookEvents[0].attempts[0].iniciadaEm = Date.UTC(10000, 0, 1);
      },
      'Not a snapshot of this emulator: state.webhookEvents.0.attempts.0.iniciadaEm: must be whole Unix milliseconds from 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z: when something happened, the clock could hold it',
      ['state', 'webhookEvents', 0, 'attempts', 0, 'iniciadaEm'],
    );
    const due = taskIndex(snapshot, 'analise.inicio');
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.tasks[due].due = 8640000000000001;
      },
      `Not a snapshot of this emulator: tasks.${due}.due: must be whole Unix milliseconds from 1970-01-01T00:00:00.000Z to +010009-12-28T23:59:59.999Z`,
      ['tasks', due, 'due'],
    );
  });

  it("a task of an unknown kind, or the clock's own sleep", async () => {
    const { emu, snapshot } = await world();
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.tasks[0].kind = 'nada';
      },
      'Not a snapshot of this emulator: tasks.0.kind: "nada" is not a task kind of this emulator',
      ['tasks', 0, 'kind'],
    );
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.tasks[0].kind = 'sleep';
      },
      'Not a snapshot of this emulator: tasks.0.kind: "sleep" is not a task kind of this emulator',
      ['tasks', 0, 'kind'],
    );
  });

  it('a periodic task with everyMs 0 (or under a minute), and a periodic task of work', async () => {
    const { emu, snapshot } = await world();
    const daily = taskIndex(snapshot, 'vigilancia.diaria');
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.tasks[daily].everyMs = 0;
      },
      `Not a snapshot of this emulator: tasks.${daily}.everyMs: must be a period of at least 60000 ms`,
      ['tasks', daily, 'everyMs'],
    );
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.tasks[daily].everyMs = 59_999;
      },
      `Not a snapshot of this emulator: tasks.${daily}.everyMs: must be a period of at least 60000 ms`,
      ['tasks', daily, 'everyMs'],
    );
    const start = taskIndex(snapshot, 'analise.inicio');
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.tasks[start].everyMs = 60_000;
      },
      `Not a snapshot of this emulator: tasks.${start}.everyMs: a "analise.inicio" task is work, which never repeats: runUntilIdle would never be idle`,
      ['tasks', start, 'everyMs'],
    );
  });

  it('a task payload its handler cannot read, or that names a record of another company or none', async () => {
    const { emu, snapshot } = await world();
    const start = taskIndex(snapshot, 'analise.inicio');
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.tasks[start].payload = {};
      },
      `Not a snapshot of this emulator: tasks.${start}.payload.analysisId: Invalid input: expected string, received undefined`,
      ['tasks', start, 'payload', 'analysisId'],
    );
    expectRefused(
      emu,
      snapshot,
      (s) => {
        delete s.tasks[start].payload;
      },
      `Not a snapshot of this emulator: tasks.${start}.payload: Invalid input: expected object, received undefined`,
      ['tasks', start, 'payload'],
    );
    const retention = taskIndex(snapshot, 'webhook.retencao');
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.tasks[retention].payload = { eventId: s.state.webhookEvents[0].id };
      },
      `Not a snapshot of this emulator: tasks.${retention}.payload: a "webhook.retencao" task takes no payload`,
      ['tasks', retention, 'payload'],
    );
    const other = emu.companies.create().companyId;
    const withOther = emu.snapshot();
    const analysis = withOther.state.analyses[0]!.id;
    expectRefused(
      emu,
      withOther,
      (s) => {
        s.tasks[start].owner = other;
      },
      `Not a consistent snapshot: tasks.${start}.owner: a task of analysis ${analysis} belongs to its company ${withOther.state.analyses[0]!.companyId}, not ${other}`,
      ['tasks', start, 'owner'],
    );
    expectRefused(
      emu,
      withOther,
      (s) => {
        s.tasks[start].payload.analysisId = '0190a000-0000-7000-8000-000000000000';
      },
      `Not a consistent snapshot: tasks.${start}.payload.analysisId: no analysis 0190a000-0000-7000-8000-000000000000 in the state`,
      ['tasks', start, 'payload', 'analysisId'],
    );
  });

  it('a stored idempotent answer with status 0, a status without a body, a header value with CR/LF, a framing header or a body that is not JSON', async () => {
    const { emu, snapshot } = await world();
    const rule =
      'must be the status of a stored answer: an integer from 200 to 299 (only successful answers are stored), except 204 and 205, which carry no body';
    for (const status of [0, 199, 204, 300, 600, 200.5]) {
      expectRefused(
        emu,
        snapshot,
        (s) => {
          s.state.idempotency[0].status = status;
        },
        `Not a snapshot of this emulator: state.idempotency.0.status: ${rule}`,
        ['state', 'idempotency', 0, 'status'],
      );
    }
    const valueRule = 'must be an HTTP header value: no CR, LF, NUL or other control character but tab';
    for (const value of ['"abc"\r\nx-injected: 1', 'a\nb', 'a\u0000b', 'a\u0001b', 'a\u0100b']) {
      expectRefused(
        emu,
        snapshot,
        (s) => {
          s.state.idempotency[0].etag = value;
        },
        `Not a snapshot of this emulator: state.idempotency.0.etag: ${valueRule}`,
        ['state', 'idempotency', 0, 'etag'],
      );
      expectRefused(
        emu,
        snapshot,
        (s) => {
          s.state.idempotency[0].headers = { 'x-extra': value };
        },
        `Not a snapshot of this emulator: state.idempotency.0.headers.x-extra: ${valueRule}`,
        ['state', 'idempotency', 0, 'headers', 'x-extra'],
      );
    }
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.state.idempotency[0].headers = { 'x y': 'z' };
      },
      "Not a snapshot of this emulator: state.idempotency.0.headers.x y: must be named by an HTTP token (letters, digits and !#$%&'*+-.^_`|~)",
      ['state', 'idempotency', 0, 'headers', 'x y'],
    );
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.state.idempotency[0].headers = { 'Content-Length': '3' };
      },
      'Not a snapshot of this emulator: state.idempotency.0.headers.Content-Length: is a framing header, which the server sets for each answer: a stored answer cannot carry it',
      ['state', 'idempotency', 0, 'headers', 'Content-Length'],
    );
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.state.idempotency[0].body = 'null';
      },
      'Not a snapshot of this emulator: state.idempotency.0.body: must be the JSON text of an object, as every answer of the service is',
      ['state', 'idempotency', 0, 'body'],
    );
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.state.idempotency[0].body = 42;
      },
      'Not a snapshot of this emulator: state.idempotency.0.body: Invalid input: expected string, received number',
      ['state', 'idempotency', 0, 'body'],
    );
  });

  it('a stored answer in the earlier form (whole fingerprint, response object) under the same rules', async () => {
    const { emu, snapshot } = await world();
    const earlier = {
      companyId: snapshot.state.companies[0]!.id,
      key: 'earlier-form-key-0001',
      fingerprint: 'POST /v1/analises {}',
      response: { status: 202, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"id":"x"}' },
      storedAt: snapshot.now,
      expiresAt: snapshot.now + 1000,
    };
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.state.idempotency.push({ ...earlier, response: { ...earlier.response, status: 0 } });
      },
      `Not a snapshot of this emulator: state.idempotency.${snapshot.state.idempotency.length}.response.status: must be the status of a stored answer: an integer from 200 to 299 (only successful answers are stored), except 204 and 205, which carry no body`,
      ['state', 'idempotency', snapshot.state.idempotency.length, 'response', 'status'],
    );
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.state.idempotency.push({ ...earlier, response: { ...earlier.response, headers: { location: '/x\r\ny' } } });
      },
      `Not a snapshot of this emulator: state.idempotency.${snapshot.state.idempotency.length}.response.headers.location: must be an HTTP header value: no CR, LF, NUL or other control character but tab`,
      ['state', 'idempotency', snapshot.state.idempotency.length, 'response', 'headers', 'location'],
    );
    const accepted = structuredClone(snapshot) as any;
    accepted.state.idempotency.push(earlier);
    emu.restore(accepted);
    expect(emu.snapshot().state.idempotency.find((e) => e.key === 'earlier-form-key-0001')).toMatchObject({
      key: 'earlier-form-key-0001',
      status: 202,
      body: '{"id":"x"}',
      headers: null,
    });
  });

  it('a surveillance execution with part of a summary: concluded without its snapshot id, a count or divergente, or without findings yet with the rest', async () => {
    const { emu, token, snapshot: before } = await world();
    const headers = { authorization: `Bearer ${token}` };
    const selection = await emu.fetch('/v1/empresa/vigilancia', { headers });
    const selected = await emu.fetch('/v1/empresa/vigilancia', {
      method: 'PATCH',
      headers: {
        ...headers,
        ...JSON_HEADERS,
        'idempotency-key': 'snapshot-test-selection-0001',
        'if-match': selection.headers.get('etag')!,
      },
      body: JSON.stringify({ modo: 'selecao', adicionar: [before.state.products[0]!.id] }),
    });
    expect(selected.status, await selected.text()).toBe(200);
    await emu.clock.advance('2d');
    const snapshot = emu.snapshot();
    const concluded = snapshot.state.executions.findIndex((e) => e.estado === 'concluida');
    expect(concluded).toBeGreaterThanOrEqual(0);
    const rule =
      'findings, snapshotId, produtosAvaliados, reaproveitados and divergente are set together (a concluded execution) or are all null';
    for (const field of ['snapshotId', 'produtosAvaliados', 'reaproveitados', 'divergente']) {
      expectRefused(
        emu,
        snapshot,
        (s) => {
          s.state.executions[concluded][field] = null;
        },
        `Not a snapshot of this emulator: state.executions.${concluded}.findings: ${rule}`,
        ['state', 'executions', concluded, 'findings'],
      );
    }
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.state.executions[concluded].findings = null;
      },
      `Not a snapshot of this emulator: state.executions.${concluded}.findings: ${rule}`,
      ['state', 'executions', concluded, 'findings'],
    );
  });

  it('records that reference what is not there, or not of their company', async () => {
    const { emu, snapshot } = await world();
    const product = snapshot.state.products[0]!;
    const catalog = snapshot.state.catalogs[0]!;
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.state.links = [];
      },
      `Not a consistent snapshot: state.products.0.catalogos.0: product ${product.id}: its link to catalog ${catalog.id} is not in links`,
      ['state', 'products', 0, 'catalogos', 0],
    );
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.state.products.push(structuredClone(s.state.products[0]));
      },
      `Not a consistent snapshot: state.products.1.id: product ${product.id} appears twice`,
      ['state', 'products', 1, 'id'],
    );
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.state.catalogs[0].estado = 'excluido';
        s.state.catalogs[0].excluidoEm = s.now;
      },
      `Not a consistent snapshot: state.establishments.0.catalogoId: establishment ${catalog.establishmentId}: catalog ${catalog.id} is not an active catalog of it`,
      ['state', 'establishments', 0, 'catalogoId'],
    );
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.state.sequence = 1;
      },
      'Not a consistent snapshot: state.catalogs.0.position: position 2 is beyond sequence 1, the last position handed out',
      ['state', 'catalogs', 0, 'position'],
    );
  });
});

/** Changes every value at every depth of `value` in place: each array gains an item, each other field a new value. */
function vandalize(value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  for (const item of Object.values(value)) vandalize(item);
  if (Array.isArray(value)) value.push('vandal');
  else
    for (const key of Object.keys(value))
      if (typeof (value as Record<string, unknown>)[key] !== 'object')
        (value as Record<string, unknown>)[key] = 'vandal';
}

describe("a snapshot is its caller's: neither snapshot() nor restore() shares an object with it", () => {
  it('whole, with a company on a clock of its own: changing what snapshot() gave, or what restore() took, changes nothing', async () => {
    const { emu } = await world();
    emu.companies.create({ clock: 'own' });
    const taken = emu.snapshot();
    expect(taken.ownClocks).toHaveLength(1);
    expect(taken.tasks.some((task) => task.payload !== undefined)).toBe(true);
    const before = JSON.stringify(taken);
    vandalize(taken);
    expect(JSON.stringify(emu.snapshot())).toBe(before);
    const given = JSON.parse(before) as Snapshot;
    emu.restore(given);
    vandalize(given);
    expect(JSON.stringify(emu.snapshot())).toBe(before);
    // The same through the schema's own parse (which the fast path leaves an object of a class to).
    const instance = Object.assign(new (class Saved {})(), JSON.parse(before) as Snapshot);
    emu.restore(instance);
    vandalize(instance);
    expect(JSON.stringify(emu.snapshot())).toBe(before);
  });

  it('of one company: the same', async () => {
    const { emu, snapshot } = await world();
    const companyId = snapshot.state.companies[0]!.id;
    const taken = emu.companies.snapshot(companyId);
    expect(taken.tasks.some((task) => task.payload !== undefined)).toBe(true);
    const before = JSON.stringify(taken);
    vandalize(taken);
    expect(JSON.stringify(emu.companies.snapshot(companyId))).toBe(before);
    const whole = JSON.stringify(emu.snapshot());
    const given = JSON.parse(before) as typeof taken;
    emu.companies.restore(companyId, given);
    vandalize(given);
    expect(JSON.stringify(emu.companies.snapshot(companyId))).toBe(before);
    expect(JSON.stringify(emu.snapshot())).toBe(whole);
  });
});

describe('restore takes back what the emulator itself snapshots', () => {
  it("near the clock's last instant, where the next daily runs and a delivery's deadline fall past it", async () => {
    const emu = createEmulator({ start: '9999-12-31T12:00:00.000Z', companies: [{}] });
    emu.network.route('https://hooks.example.com', () => new Response('ok'));
    const company = emu.companies.initial()[0]!;
    const created = await emu.fetch('/v1/webhook', {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${company.token}`,
        'content-type': 'application/json',
        'idempotency-key': 'near-the-end-0000001',
        'if-none-match': '*',
      },
      body: JSON.stringify({ url: 'https://hooks.example.com/hook' }),
    });
    expect(created.status).toBe(201);
    emu.webhooks.raise(company.companyId, { tipo: 'webhook.teste' });
    const snapshot = emu.snapshot();
    expect(snapshot.tasks.some((task) => task.due > Date.UTC(9999, 11, 31, 23, 59, 59, 999))).toBe(true);
    expect(snapshot.state.webhookEvents[0]!.prazoEm).toBeGreaterThan(Date.UTC(9999, 11, 31, 23, 59, 59, 999));
    emu.restore(snapshot);
    expect(emu.snapshot()).toEqual(snapshot);
    expect((await emu.clock.runUntilIdle()).ran).toBeGreaterThan(0);
  });
});

describe('restore takes the snapshots of earlier versions', () => {
  it('a webhook destination without previousSecret (not kept before the receiver check): restored with none', async () => {
    const { emu, snapshot } = await world();
    const earlier = structuredClone(snapshot);
    expect(earlier.state.webhookDestinations[0]!.previousSecret).toBeNull();
    delete (earlier.state.webhookDestinations[0] as { previousSecret?: unknown }).previousSecret;
    emu.restore(earlier);
    expect(emu.snapshot()).toEqual(snapshot);
    expectRefused(
      emu,
      snapshot,
      (s) => {
        s.state.webhookDestinations[0].previousSecret = 'not-a-secret';
      },
      'Not a snapshot of this emulator: state.webhookDestinations.0.previousSecret: must be a webhook secret: "svc_whsec_" and its random part',
      ['state', 'webhookDestinations', 0, 'previousSecret'],
    );
  });
});

describe('schemaOf: each record schema is checked against its core type by the compiler (npm run typecheck)', () => {
  interface Sample {
    readonly id: string;
    readonly tags: readonly string[];
    readonly note: string | null;
    readonly estado: 'ativo' | 'arquivado';
  }
  const fields = {
    id: z.string(),
    tags: z.array(z.string()),
    note: z.string().nullable(),
    estado: z.enum(['ativo', 'arquivado']),
  };

  it('takes a schema of exactly the type (readonly aside) and returns it unchanged', () => {
    const schema = z.strictObject(fields);
    expect(schemaOf<Sample>()(schema)).toBe(schema);
    expect(schemaOf<Sample>()(schema).parse({ id: 'a', tags: ['x'], note: null, estado: 'ativo' })).toEqual({
      id: 'a',
      tags: ['x'],
      note: null,
      estado: 'ativo',
    });
    const same: Same<Sample, z.output<typeof schema>> = true;
    expect(same).toBe(true);
  });

  it('does not compile a schema that lacks a field, adds one, or types one otherwise', () => {
    const { note: _note, ...withoutNote } = fields;
    // @ts-expect-error a field of the core type is missing from the schema
    schemaOf<Sample>()(z.strictObject(withoutNote));
    // @ts-expect-error the schema has a field the core type lacks
    schemaOf<Sample>()(z.strictObject({ ...fields, extra: z.number() }));
    // @ts-expect-error a nullable field the schema does not let be null
    schemaOf<Sample>()(z.strictObject({ ...fields, note: z.string() }));
    // @ts-expect-error a field the schema makes optional
    schemaOf<Sample>()(z.strictObject({ ...fields, note: z.string().nullable().optional() }));
    // @ts-expect-error a wider type than the core's (any string for a state)
    schemaOf<Sample>()(z.strictObject({ ...fields, estado: z.string() }));
    // @ts-expect-error a narrower one (a state the core type has is refused)
    schemaOf<Sample>()(z.strictObject({ ...fields, estado: z.enum(['ativo']) }));
    // @ts-expect-error a real record kind: a product schema without most of Product's fields
    schemaOf<Product>()(z.strictObject({ id: z.string(), companyId: z.string() }));
    const differs: Same<Sample, { id: string }> = false;
    expect(differs).toBe(false);
  });
});
