/**
 * Property: a company on a clock of its own is isolated. For any two sequences of operations on two own-clock
 * companies A and B, and any interleaving of them with shared-clock noise (another company on the shared clock
 * creating records and raising its own deliveries, more companies created, the shared clock advanced and run
 * until idle), each of A and B gets exactly what it gets when its sequence runs alone on a fresh emulator with
 * the same seed: every answer (status, every header — x-request-id, etag, location included — and the exact
 * body) and every delivery its receiver got (method, URL, every header — the signature included — and body,
 * in order).
 *
 * Each company's receiver answers 500 to its first two deliveries and 200 after, so retries run on the
 * company's own clock. A company's next request is chosen from its own answers only (the ETags, ids and cursor
 * it saw), so if its answers are the same, so are its requests; the first answer that differs is reported with
 * the operation that got it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/index.js';
import { Api, Controls, NCM, type Answer, type CompanyInfo } from '../support/client.js';
import { inProcessTarget } from '../support/target.js';
import { headerPairs, PROPERTY_TIMEOUT, runs } from './support/lab.js';

const DAY = 86_400_000;

/** What a company on its own clock may do; the parameters pick among what it knows when the op runs. */
type Op =
  | { readonly kind: 'catalog' }
  | { readonly kind: 'product'; readonly pick: number; readonly idExterno: string | null }
  | { readonly kind: 'patch'; readonly pick: number }
  | { readonly kind: 'patchStale'; readonly pick: number }
  | { readonly kind: 'replay' }
  | { readonly kind: 'list'; readonly pick: number; readonly limite: number }
  | { readonly kind: 'webhook' }
  | { readonly kind: 'event'; readonly pick: number }
  | { readonly kind: 'advance'; readonly by: number }
  | { readonly kind: 'runUntilIdle' }
  | { readonly kind: 'attempts'; readonly pick: number };

/** What the shared-clock company and the shared clock do meanwhile. */
type Noise =
  | { readonly kind: 'catalog' }
  | { readonly kind: 'product' }
  | { readonly kind: 'event' }
  | { readonly kind: 'company' }
  | { readonly kind: 'advance'; readonly by: number }
  | { readonly kind: 'runUntilIdle' };

const pick = fc.nat({ max: 1000 });
const span = fc.integer({ min: 0, max: 2 * DAY });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'catalog' } as const) },
  // A small set of external ids, so that a repeated one is refused as a duplicate now and then.
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('product' as const),
      pick,
      idExterno: fc.option(fc.constantFrom('EXT-1', 'EXT-2', 'EXT-3'), { nil: null }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('patch' as const), pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('patchStale' as const), pick }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'replay' } as const) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('list' as const), pick, limite: fc.integer({ min: 1, max: 3 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'webhook' } as const) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('event' as const), pick }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), by: span }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'runUntilIdle' } as const) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('attempts' as const), pick }) },
);
const noise: fc.Arbitrary<Noise> = fc.oneof(
  fc.constant({ kind: 'catalog' } as const),
  fc.constant({ kind: 'product' } as const),
  fc.constant({ kind: 'event' } as const),
  fc.constant({ kind: 'company' } as const),
  fc.record({ kind: fc.constant('advance' as const), by: span }),
  fc.constant({ kind: 'runUntilIdle' } as const),
);
const ops = fc.array(op, { minLength: 1, maxLength: 24 });
const seed = fc.oneof(fc.integer({ min: 0, max: 0xffff_ffff }), fc.string({ minLength: 1, maxLength: 12 }));
/** Three distinct CNPJ roots: A's, B's and the shared-clock company's. */
const roots = fc
  .uniqueArray(fc.stringMatching(/^[0-9]{8}$/), { minLength: 3, maxLength: 3 })
  .filter((r) => r.every((root) => root !== '00000000'));

/** One exchange as the company saw it: what it did, and everything it got back. */
interface Seen {
  readonly op: string;
  readonly request: string;
  readonly status: number;
  readonly headers: [string, string][];
  readonly body: string;
}

/** One delivery as the company's receiver got it. */
interface Delivery {
  readonly method: string;
  readonly url: string;
  readonly headers: [string, string][];
  readonly body: string;
}

interface Sent {
  readonly method: 'POST' | 'PATCH' | 'PUT';
  readonly path: string;
  readonly body: unknown;
  readonly key: string;
  readonly ifMatch?: string;
  readonly headers?: Record<string, string>;
}

/** Routes `host` to an in-process receiver that records each delivery and answers 500, 500, then 200. */
function receiver(emu: Emulator, host: string): Delivery[] {
  const got: Delivery[] = [];
  emu.network.route(host, async (request) => {
    got.push({
      method: request.method,
      url: request.url,
      headers: [...request.headers.entries()].sort(),
      body: await request.text(),
    });
    return new Response(null, { status: got.length <= 2 ? 500 : 200 });
  });
  return got;
}

/**
 * An own-clock company playing its operations over HTTP. Its model (catalogs, products and their ETags, the
 * destination's ETag, its events, its last change) is built from its answers alone.
 */
class Player {
  readonly seen: Seen[] = [];
  readonly deliveries: Delivery[];
  private company!: CompanyInfo;
  private api!: Api;
  private keys = 0;
  private catalogs: string[] = [];
  private products: { id: string; etags: string[] }[] = [];
  private destinationEtag: string | null = null;
  private events: string[] = [];
  private last: Sent | null = null;
  private readonly host: string;

  constructor(
    private readonly emu: Emulator,
    private readonly controls: Controls,
    private readonly name: string,
    private readonly root: string,
  ) {
    this.host = `https://hooks-${name.toLowerCase()}.example.com`;
    this.deliveries = receiver(emu, this.host);
  }

  async create(): Promise<void> {
    const answer = await this.record(
      'create',
      'POST /_emulator/companies',
      this.controls.raw('POST', '/companies', { clock: 'own', cnpjRoot: this.root }),
    );
    if (answer.status !== 201) throw new Error(`creating ${this.name} answered ${answer.status}: ${answer.text}`);
    this.company = answer.body as CompanyInfo;
    this.api = new Api(inProcessTarget(this.emu), this.company.token);
  }

  async run(step: Op): Promise<void> {
    const label = JSON.stringify(step);
    const id = this.company.companyId;
    switch (step.kind) {
      case 'catalog': {
        const answer = await this.send(label, {
          method: 'POST',
          path: '/v1/catalogos',
          body: { estabelecimento_id: this.company.headOffice.id, nome: `Loja ${this.keys}` },
          key: this.key(),
        });
        if (answer.status === 201) this.catalogs.push(answer.body.id);
        return;
      }
      case 'product': {
        const catalog = at(this.catalogs, step.pick);
        if (catalog === undefined) return this.run({ kind: 'catalog' });
        const body = { origem: 'erp', ncm: NCM, ...(step.idExterno === null ? {} : { id_externo: step.idExterno }) };
        const answer = await this.send(label, {
          method: 'POST',
          path: `/v1/catalogos/${catalog}/produtos`,
          body,
          key: this.key(),
        });
        if (answer.status === 201) this.products.push({ id: answer.body.id, etags: [answer.headers.get('etag')!] });
        return;
      }
      case 'patch':
      case 'patchStale': {
        const product = at(this.products, step.pick);
        if (product === undefined) return this.run({ kind: 'product', pick: step.pick, idExterno: null });
        // A stale ETag: an earlier one of the product's, or (before any change) one of a version it never had.
        const ifMatch = step.kind === 'patch' ? product.etags.at(-1)! : (product.etags.at(-2) ?? '"999"');
        const answer = await this.send(label, {
          method: 'PATCH',
          path: `/v1/produtos/${product.id}`,
          body: { descricao: `Descrição ${this.keys}` },
          key: this.key(),
          ifMatch,
        });
        if (answer.status === 200) product.etags.push(answer.headers.get('etag')!);
        return;
      }
      case 'replay':
        if (this.last === null) return this.run({ kind: 'catalog' });
        await this.send(label, this.last);
        return;
      case 'list': {
        const catalog = at(this.catalogs, step.pick);
        const path = catalog === undefined ? '/v1/produtos' : `/v1/catalogos/${catalog}/produtos`;
        let cursor: string | null = null;
        do {
          const query: string = `${path}?limite=${step.limite}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
          const answer = await this.record(label, `GET ${query}`, this.api.get(query));
          cursor = answer.status === 200 ? (answer.body.proximo_cursor as string | null) : null;
        } while (cursor !== null);
        return;
      }
      case 'webhook': {
        const url = `${this.host}/recebe`;
        const sent: Sent =
          this.destinationEtag === null
            ? { method: 'PUT', path: '/v1/webhook', body: { url }, key: this.key(), headers: { 'if-none-match': '*' } }
            : { method: 'PUT', path: '/v1/webhook', body: { url }, key: this.key(), ifMatch: this.destinationEtag };
        const answer = await this.send(label, sent);
        if (answer.status === 200 || answer.status === 201) this.destinationEtag = answer.headers.get('etag');
        return;
      }
      case 'event': {
        // An event needs a destination (404 destino_nao_encontrado otherwise): the first one creates it.
        if (this.destinationEtag === null) return this.run({ kind: 'webhook' });
        const dados = {
          tipo: 'catalogo.aplicado',
          catalogoId: at(this.catalogs, step.pick) ?? '0190a000-0000-7000-8000-00000000000a',
          versao: 1,
        };
        const answer = await this.record(
          label,
          `POST /_emulator/companies/${id}/events`,
          this.controls.raw('POST', `/companies/${id}/events`, { dados }),
        );
        if (answer.status === 201) this.events.push(answer.body.eventId);
        return;
      }
      case 'advance':
        await this.record(
          label,
          `POST /_emulator/companies/${id}/clock/advance`,
          this.controls.raw('POST', `/companies/${id}/clock/advance`, { by: step.by }),
        );
        return;
      case 'runUntilIdle':
        await this.record(
          label,
          `POST /_emulator/companies/${id}/clock/run-until-idle`,
          this.controls.raw('POST', `/companies/${id}/clock/run-until-idle`, {}),
        );
        return;
      case 'attempts': {
        const event = at(this.events, step.pick);
        const path =
          event === undefined ? '/v1/webhook/eventos?limite=100' : `/v1/webhook/eventos/${event}/tentativas?limite=100`;
        await this.record(label, `GET ${path}`, this.api.get(path));
        return;
      }
    }
  }

  /** The company's own clock at the end, after running what is left: later retries are compared too. */
  async finish(): Promise<void> {
    const id = this.company.companyId;
    await this.record(
      'end',
      `POST /_emulator/companies/${id}/clock/run-until-idle`,
      this.controls.raw('POST', `/companies/${id}/clock/run-until-idle`, {}),
    );
    await this.record(
      'end',
      `GET /_emulator/companies/${id}/clock`,
      this.controls.raw('GET', `/companies/${id}/clock`),
    );
  }

  /** Idempotency keys from a counter of the company's own: the same in both runs. */
  private key(): string {
    this.keys += 1;
    return `${this.name}-isolation-${String(this.keys).padStart(6, '0')}`;
  }

  private async send(label: string, sent: Sent): Promise<Answer> {
    this.last = sent;
    const call = this.api.request(sent.method, sent.path, {
      body: sent.body,
      key: sent.key,
      ...(sent.ifMatch === undefined ? {} : { ifMatch: sent.ifMatch }),
      ...(sent.headers === undefined ? {} : { headers: sent.headers }),
    });
    return this.record(
      label,
      `${sent.method} ${sent.path} key=${sent.key}${sent.ifMatch === undefined ? '' : ` if-match=${sent.ifMatch}`}`,
      call,
    );
  }

  private async record(label: string, request: string, answering: Promise<Answer>): Promise<Answer> {
    const answer = await answering;
    this.seen.push({ op: label, request, status: answer.status, headers: headerPairs(answer), body: answer.text });
    return answer;
  }
}

const at = <T>(list: readonly T[], n: number): T | undefined => (list.length === 0 ? undefined : list[n % list.length]);

/** The shared-clock company and the shared clock, making noise. Its receiver answers like the others'. */
class Neighbour {
  private api!: Api;
  private company!: CompanyInfo;
  private catalog: string | null = null;
  private keys = 0;

  constructor(
    private readonly emu: Emulator,
    private readonly controls: Controls,
    private readonly root: string,
  ) {}

  async create(): Promise<void> {
    this.company = await this.controls.createCompany({ cnpjRoot: this.root });
    this.api = new Api(inProcessTarget(this.emu), this.company.token);
    receiver(this.emu, 'https://hooks-shared.example.com');
    const destination = await this.api.put(
      '/v1/webhook',
      { url: 'https://hooks-shared.example.com/recebe' },
      { headers: { 'if-none-match': '*' }, key: this.key() },
    );
    expect(destination.status, destination.text).toBe(201);
  }

  async run(step: Noise): Promise<void> {
    const ok = (answer: Answer, status: number) =>
      expect(answer.status, `noise ${JSON.stringify(step)}: ${answer.text}`).toBe(status);
    switch (step.kind) {
      case 'catalog': {
        // An establishment has one active catalog: the neighbour's first, then products in it.
        if (this.catalog !== null) return this.run({ kind: 'product' });
        const answer = await this.api.post(
          '/v1/catalogos',
          { estabelecimento_id: this.company.headOffice.id, nome: 'Vizinha' },
          { key: this.key() },
        );
        ok(answer, 201);
        this.catalog = answer.body.id;
        return;
      }
      case 'product':
        if (this.catalog === null) return this.run({ kind: 'catalog' });
        return ok(
          await this.api.post(
            `/v1/catalogos/${this.catalog}/produtos`,
            { origem: 'erp', ncm: NCM, id_externo: `N-${this.keys}` },
            { key: this.key() },
          ),
          201,
        );
      case 'event':
        return ok(
          await this.controls.raw('POST', `/companies/${this.company.companyId}/events`, {
            dados: { tipo: 'catalogo.aplicado', catalogoId: '0190a000-0000-7000-8000-00000000000b', versao: 1 },
          }),
          201,
        );
      case 'company':
        return ok(await this.controls.raw('POST', '/companies', {}), 201);
      case 'advance':
        return ok(await this.controls.raw('POST', '/clock/advance', { by: step.by }), 200);
      case 'runUntilIdle':
        return ok(await this.controls.raw('POST', '/clock/run-until-idle', {}), 200);
    }
  }

  private key(): string {
    this.keys += 1;
    return `shared-noise-${String(this.keys).padStart(6, '0')}`;
  }
}

/** A company's transcript and deliveries when its sequence runs alone on a fresh emulator. */
async function alone(seedValue: number | string, name: string, root: string, list: readonly Op[]) {
  const emu = createEmulator({ seed: seedValue });
  const player = new Player(emu, new Controls(inProcessTarget(emu)), name, root);
  await player.create();
  for (const step of list) await player.run(step);
  await player.finish();
  return player;
}

function expectSame(name: string, together: Player, apart: Player): void {
  const n = Math.min(together.seen.length, apart.seen.length);
  for (let i = 0; i < n; i++) {
    const a = apart.seen[i]!;
    expect(
      together.seen[i],
      `${name}: exchange #${i} (${a.op}: ${a.request}) differs from the same exchange alone`,
    ).toEqual(a);
  }
  expect(together.seen.length, `${name}: exchanges`).toBe(apart.seen.length);
  apart.deliveries.forEach((d, i) =>
    expect(together.deliveries[i], `${name}: delivery #${i} differs from the same delivery alone`).toEqual(d),
  );
  expect(together.deliveries.length, `${name}: deliveries`).toBe(apart.deliveries.length);
}

describe('companies on clocks of their own', { timeout: PROPERTY_TIMEOUT }, () => {
  it('each gets exactly the answers and deliveries it gets alone on a fresh emulator with the same seed, whatever the others and the shared clock do', async () => {
    await fc.assert(
      fc.asyncProperty(
        seed,
        roots,
        ops,
        ops,
        fc.array(noise, { maxLength: 16 }),
        // Who is created first (0: A, 1: B, 2: the shared-clock company), then who goes next, step by step.
        fc.constantFrom([0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]),
        fc.array(fc.nat({ max: 2 }), { maxLength: 64 }),
        async (seedValue, [rootA, rootB, rootShared], opsA, opsB, noiseSteps, creationOrder, picks) => {
          const emu = createEmulator({ seed: seedValue });
          const controls = new Controls(inProcessTarget(emu));
          const a = new Player(emu, controls, 'A', rootA!);
          const b = new Player(emu, controls, 'B', rootB!);
          const shared = new Neighbour(emu, controls, rootShared!);
          // The own clocks start at the emulator's now: every company is created before the shared clock moves.
          for (const who of creationOrder) await [a, b, shared][who]!.create();

          const queues: (() => Promise<void>)[][] = [
            opsA.map((s) => () => a.run(s)),
            opsB.map((s) => () => b.run(s)),
            noiseSteps.map((s) => () => shared.run(s)),
          ];
          // Each pick runs the next step of that queue (or of the next one that has steps left); then the rest, in order.
          for (const p of picks) {
            const queue = [0, 1, 2].map((k) => queues[(p + k) % 3]!).find((q) => q.length > 0);
            if (queue === undefined) break;
            await queue.shift()!();
          }
          for (const queue of queues) for (const step of queue) await step();
          await a.finish();
          await b.finish();

          expectSame('A', a, await alone(seedValue, 'A', rootA!, opsA));
          expectSame('B', b, await alone(seedValue, 'B', rootB!, opsB));
        },
      ),
      { numRuns: runs(50) },
    );
  });
});
